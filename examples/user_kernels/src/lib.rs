//! Kernels a user writes after the README's: row reductions that keep an index (argmax, argmin),
//! several passes over a row (variance, L2 normalisation, softmax), an early exit (a pull BFS
//! step), a PageRank pull step, SpMV with a sigmoid epilogue, a product whose terms go through
//! `#[device]` helper functions (`shrink`, calling `math`). Each is written once and instantiated
//! under every schedule that accepts it, one module per schedule (`argmax::warp::row_argmax`).

/// Instantiates a kernel under each named schedule, one module per schedule, lists the generated
/// sources (`SOURCES`) for the NVRTC test, and writes `launch(schedule, gpu, args..)`, which runs
/// the instantiation named by `schedule` (one of `SCHEDULES`). `$kernel` is a `macro_rules!` that
/// takes the attribute's arguments and defines the kernel; the parameters are the launch
/// wrapper's (`&DeviceCsr<T>` for `Csr<T>`, ...), with `<T>` after the name for a generic kernel.
macro_rules! under {
    ($kernel:ident $(<$t:ident>)? ($($arg:ident: $ty:ty),* $(,)?): $($schedule:ident),+ $(,)?) => {
        $( under!(@module $kernel $schedule); )+

        /// The schedules this kernel is instantiated with (module names).
        pub const SCHEDULES: &[&str] = &[$(stringify!($schedule)),+];

        /// Each instantiation's generated CUDA, plain and bounds-checked.
        pub const SOURCES: &[(&str, &str, &str)] = &[$((
            stringify!($schedule),
            $schedule::$kernel::CUDA_SOURCE,
            $schedule::$kernel::CUDA_SOURCE_CHECKED,
        )),+];

        // The schedules and the arguments repeat separately, so the match is written by a second
        // rule that gets the arguments as one token tree.
        under!(@launch $kernel $(<$t>)? [$($schedule)+] schedule
            (schedule: &str, gpu: &loops::Gpu, $($arg: $ty),*) (gpu, $($arg),*));
    };
    // `$which` names the schedule parameter, passed in so that it has the hygiene of `$params`.
    (@launch $kernel:ident $(<$t:ident>)? [$($schedule:ident)+] $which:ident $params:tt $args:tt) => {
        /// Launches the instantiation whose module is named `schedule` (one of [`SCHEDULES`]).
        #[allow(clippy::too_many_arguments)]
        pub fn launch $(<$t: loops::Float>)? $params -> loops::Result<()> {
            match $which {
                $( stringify!($schedule) => $schedule::$kernel $args, )+
                other => panic!("`{}` has no schedule `{other}`; it has {SCHEDULES:?}", stringify!($kernel)),
            }
        }
    };
    (@module $kernel:ident thread) => { pub mod thread { use super::*; $kernel!(schedule = "thread"); } };
    (@module $kernel:ident group4) => { pub mod group4 { use super::*; $kernel!(schedule = "group", group_size = 4); } };
    (@module $kernel:ident warp) => { pub mod warp { use super::*; $kernel!(schedule = "warp"); } };
    (@module $kernel:ident group64) => { pub mod group64 { use super::*; $kernel!(schedule = "group", group_size = 64); } };
    (@module $kernel:ident block) => { pub mod block { use super::*; $kernel!(schedule = "block"); } };
    (@module $kernel:ident work_oriented) => { pub mod work_oriented { use super::*; $kernel!(schedule = "work_oriented"); } };
    (@module $kernel:ident merge_path) => { pub mod merge_path { use super::*; $kernel!(schedule = "merge_path"); } };
    (@module $kernel:ident split) => { pub mod split { use super::*; $kernel!(schedule = "split", mdt = 3); } };
    (@module $kernel:ident hierarchical) => { pub mod hierarchical { use super::*; $kernel!(schedule = "hierarchical", mdt = 3); } };
    (@module $kernel:ident lrb) => { pub mod lrb { use super::*; $kernel!(schedule = "lrb"); } };
    (@module $kernel:ident auto) => { pub mod auto { use super::*; $kernel!(schedule = "auto"); } };
}

pub mod argmax;
pub mod bfs_pull;
pub mod early_exit;
pub mod math;
pub mod normalize;
pub mod pagerank;
pub mod shrink;
pub mod sigmoid;
pub mod softmax;
pub mod variance;

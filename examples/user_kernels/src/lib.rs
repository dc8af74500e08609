//! Kernels a user writes after the README's: row reductions that keep an index (argmax, argmin),
//! several passes over a row (variance, L2 normalisation, softmax), an early exit (a pull BFS
//! step), a PageRank pull step, SpMV with a sigmoid epilogue. Each is written once and instantiated under every schedule that accepts
//! it, one module per schedule (`argmax::warp::row_argmax`).

/// Instantiates a kernel under each named schedule, one module per schedule, and lists the
/// generated sources (`SOURCES`) for the NVRTC test. `$kernel` is a `macro_rules!` that takes the
/// attribute's arguments and defines the kernel.
macro_rules! under {
    ($kernel:ident: $($schedule:ident),+ $(,)?) => {
        $( under!(@module $kernel $schedule); )+

        /// The schedules this kernel is instantiated with (module names).
        pub const SCHEDULES: &[&str] = &[$(stringify!($schedule)),+];

        /// Each instantiation's generated CUDA, plain and bounds-checked.
        pub const SOURCES: &[(&str, &str, &str)] = &[$((
            stringify!($schedule),
            $schedule::$kernel::CUDA_SOURCE,
            $schedule::$kernel::CUDA_SOURCE_CHECKED,
        )),+];
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
pub mod normalize;
pub mod pagerank;
pub mod sigmoid;
pub mod softmax;
pub mod variance;

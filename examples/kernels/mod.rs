//! The project's kernels, one file each, each body written once and instantiated under every schedule
//! it supports (one module per schedule: `spmv::merge_path::spmv`). The examples run them; the tests
//! snapshot, compile and check them on the GPU; the benchmarks time them. A test includes this folder
//! with `#[path = "../examples/kernels/mod.rs"] mod kernels;`.
#![allow(dead_code)]

/// Instantiates a kernel under each named schedule, one module per schedule, and writes `SCHEDULES`
/// and `launch(schedule, gpu, args..)`. `$kernel` is a `macro_rules!` that takes the attribute's
/// arguments and defines the kernel function of the same name.
macro_rules! under_schedules {
    ($kernel:ident ( $($arg:ident : $ty:ty),* $(,)? ) : $($schedule:ident),+ $(,)?) => {
        $( under_schedules!(@module $kernel $schedule); )+

        /// The schedules this kernel is instantiated with (module names).
        pub const SCHEDULES: &[&str] = &[$(stringify!($schedule)),+];

        /// The generated CUDA of each instantiation, by schedule.
        pub const SOURCES: &[(&str, &str)] = &[$((stringify!($schedule), $schedule::$kernel::CUDA_SOURCE)),+];

        /// The bounds-checked variant of each instantiation, by schedule.
        pub const CHECKED_SOURCES: &[(&str, &str)] =
            &[$((stringify!($schedule), $schedule::$kernel::CUDA_SOURCE_CHECKED)),+];

        /// Each instantiation's description (every source of it: plain, checked, wide), by schedule.
        pub const KERNELS: &[(&str, &loops::__private::KernelDesc)] =
            &[$((stringify!($schedule), &$schedule::$kernel::KERNEL)),+];

        under_schedules!(@launch $kernel [$($schedule)+] schedule
            (schedule: &str, gpu: &loops::Gpu, $($arg: $ty),*) (gpu, $($arg),*));
    };
    // A kernel with no type parameter (e.g. integer graph kernels): `launch` is not generic.
    (concrete $kernel:ident ( $($arg:ident : $ty:ty),* $(,)? ) : $($schedule:ident),+ $(,)?) => {
        $( under_schedules!(@module $kernel $schedule); )+

        /// The schedules this kernel is instantiated with (module names).
        pub const SCHEDULES: &[&str] = &[$(stringify!($schedule)),+];

        /// The generated CUDA of each instantiation, by schedule.
        pub const SOURCES: &[(&str, &str)] = &[$((stringify!($schedule), $schedule::$kernel::CUDA_SOURCE)),+];

        /// The bounds-checked variant of each instantiation, by schedule.
        pub const CHECKED_SOURCES: &[(&str, &str)] =
            &[$((stringify!($schedule), $schedule::$kernel::CUDA_SOURCE_CHECKED)),+];

        /// Each instantiation's description (every source of it: plain, checked, wide), by schedule.
        pub const KERNELS: &[(&str, &loops::__private::KernelDesc)] =
            &[$((stringify!($schedule), &$schedule::$kernel::KERNEL)),+];

        under_schedules!(@launch_concrete $kernel [$($schedule)+] schedule
            (schedule: &str, gpu: &loops::Gpu, $($arg: $ty),*) (gpu, $($arg),*));
    };
    (@launch_concrete $kernel:ident [$($schedule:ident)+] $which:ident $params:tt $args:tt) => {
        /// Launches the kernel under the schedule with this module name (one of [`SCHEDULES`]).
        #[allow(clippy::too_many_arguments)]
        pub fn launch $params -> loops::Result<()> {
            match $which {
                $( stringify!($schedule) => $schedule::$kernel $args, )+
                other => panic!("`{}` has no schedule `{other}`; it has {SCHEDULES:?}", stringify!($kernel)),
            }
        }
    };
    // `$which` is the name of the schedule parameter, passed in so that it has the hygiene of `$params`.
    (@launch $kernel:ident [$($schedule:ident)+] $which:ident $params:tt $args:tt) => {
        /// Launches the kernel under the schedule with this module name (one of [`SCHEDULES`]).
        pub fn launch<T: loops::Float> $params -> loops::Result<()> {
            match $which {
                $( stringify!($schedule) => $schedule::$kernel $args, )+
                other => panic!("`{}` has no schedule `{other}`; it has {SCHEDULES:?}", stringify!($kernel)),
            }
        }
    };
    (@module $kernel:ident thread) => { pub mod thread { use super::*; $kernel!(schedule = "thread"); } };
    (@module $kernel:ident group2) => { pub mod group2 { use super::*; $kernel!(schedule = "group", group_size = 2); } };
    (@module $kernel:ident group4) => { pub mod group4 { use super::*; $kernel!(schedule = "group", group_size = 4); } };
    (@module $kernel:ident group8) => { pub mod group8 { use super::*; $kernel!(schedule = "group", group_size = 8); } };
    (@module $kernel:ident group16) => { pub mod group16 { use super::*; $kernel!(schedule = "group", group_size = 16); } };
    (@module $kernel:ident warp) => { pub mod warp { use super::*; $kernel!(schedule = "warp"); } };
    (@module $kernel:ident group64) => { pub mod group64 { use super::*; $kernel!(schedule = "group", group_size = 64); } };
    (@module $kernel:ident block) => { pub mod block { use super::*; $kernel!(schedule = "block"); } };
    (@module $kernel:ident work_oriented) => { pub mod work_oriented { use super::*; $kernel!(schedule = "work_oriented"); } };
    (@module $kernel:ident merge_path) => { pub mod merge_path { use super::*; $kernel!(schedule = "merge_path"); } };
    (@module $kernel:ident work_oriented16) => { pub mod work_oriented16 { use super::*; $kernel!(schedule = "work_oriented", items_per_thread = 16); } };
    (@module $kernel:ident merge_path12) => { pub mod merge_path12 { use super::*; $kernel!(schedule = "merge_path", items_per_thread = 12); } };
    (@module $kernel:ident split) => { pub mod split { use super::*; $kernel!(schedule = "split"); } };
    // Pieces of 3 atoms: most tiles of a test matrix are cut, many across blocks.
    (@module $kernel:ident split3) => { pub mod split3 { use super::*; $kernel!(schedule = "split", mdt = 3); } };
    (@module $kernel:ident hierarchical) => { pub mod hierarchical { use super::*; $kernel!(schedule = "hierarchical"); } };
    // At most 3 atoms of a tile per pass: most tiles of a test matrix take several passes.
    (@module $kernel:ident hierarchical3) => { pub mod hierarchical3 { use super::*; $kernel!(schedule = "hierarchical", mdt = 3); } };
    (@module $kernel:ident lrb) => { pub mod lrb { use super::*; $kernel!(schedule = "lrb"); } };
    (@module $kernel:ident auto) => { pub mod auto { use super::*; $kernel!(schedule = "auto"); } };
}

pub mod bfs;
pub mod bfs_do;
pub mod cc;
pub mod column_sums;
pub mod count_max;
pub mod graph_host;
pub mod out_of_range;
pub mod pagerank;
pub mod row_argmax;
pub mod row_huber;
pub mod row_max_abs;
pub mod row_softmax;
pub mod row_variance;
pub mod segment_sums;
pub mod spmm;
pub mod spmv;
pub mod spmv_axpby;
pub mod spmv_coo;
pub mod spmv_csc;
pub mod spmv_frontier;
pub mod sssp;
pub mod sssp_near_far;
pub mod tc;

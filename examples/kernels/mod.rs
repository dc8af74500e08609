//! The project's kernels, one file each, each body written once and stamped under every schedule it
//! supports with `#[for_schedules(..)]` (one module per named schedule of `loops::SCHEDULES`:
//! `spmv::merge_path::spmv`; beside them `SCHEDULES`, `SOURCES`, `CHECKED_SOURCES`, `KERNELS` and
//! `launch(schedule, gpu, ..)`). The examples run them; the tests snapshot, compile and check them
//! on the GPU; the benchmarks time them, each through this folder's crate, `loops-kernels`
//! (`use loops_kernels as kernels;`), built once for all of them. The graph algorithms' kernels are the
//! library's (`loops::graph::{bfs, bfs_do, sssp, sssp_near_far, pagerank, cc, tc}`).
#![allow(dead_code)]
pub mod column_sums;
pub mod count_max;
pub mod gnn;
pub mod out_of_range;
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

//! Kernels a user writes after the README's: row reductions that keep an index (argmax, argmin),
//! several passes over a row (variance, L2 normalisation, softmax), an early exit (a pull BFS
//! step), a PageRank pull step, SpMV with a sigmoid epilogue, a product whose terms go through
//! `#[device]` helper functions (`shrink`, calling `math`). Each is written once and stamped under
//! the schedules it is tested with by `#[for_schedules(..)]`, one module per schedule
//! (`argmax::warp::row_argmax`), with `SCHEDULES`, `SOURCES`, `CHECKED_SOURCES` and
//! `launch(schedule, gpu, ..)` beside them.

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

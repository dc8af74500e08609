//! Breadth-first search on the GPU (`src/graph/bfs.rs`, level-synchronous push driven by
//! `loops::graph::FrontierLoop`), checked exactly against a CPU BFS and timed (CUDA events, median of
//! `--reps` runs after a warm-up; MTEPS = edges of the reached vertices per second); then once as a
//! user calls it, `loops::graph::bfs(&gpu, &graph, source, &Default::default())`, checked too.
//!
//!     cargo run --release --example bfs                           # R-MAT scale 20 and a 1024x1024 grid
//!     cargo run --release --example bfs -- --matrix G.mtx --source 3 --schedule warp
//!     cargo run --release --example bfs -- --schedule all
//!
//! Exits non-zero if any level differs from the CPU reference.

mod graph_app;

fn main() -> std::process::ExitCode {
    graph_app::main(graph_app::Algorithm::Bfs)
}

//! Single-source shortest paths on the GPU (`src/graph/sssp.rs`, driven by
//! `loops::graph::FrontierLoop`), checked exactly against Dijkstra and timed (CUDA events, median of
//! `--reps` runs after a warm-up; MTEPS = edges of the reached vertices per second); then once as a
//! user calls it, `loops::graph::sssp(&gpu, &graph, source, &Default::default())`, checked too.
//!
//!     cargo run --release --example sssp                          # R-MAT scale 20 and a 1024x1024 grid
//!     cargo run --release --example sssp -- --matrix G.mtx --source 3 --schedule warp
//!     cargo run --release --example sssp -- --schedule all
//!
//! Exits non-zero if any distance differs from the CPU reference.

mod graph_app;

fn main() -> std::process::ExitCode {
    graph_app::main(graph_app::Algorithm::Sssp)
}

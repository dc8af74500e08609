//! Graphs: the algorithms users call, and the runtime's graph room they are built on.
//!
//! The algorithms, each a call on the GPU with options (schedule by name, `auto` by default; the
//! loop that drives it, [`Strategy`]) that returns its result on the device and one stats type,
//! [`GraphStats`]:
//!
//! | call | what | loops |
//! |---|---|---|
//! | [`bfs`](fn@bfs) | levels from a source; direction-optimizing with [`BfsOptions::direction`] | host, device flags/scan/queue (direction-optimizing: host, device queue) |
//! | [`sssp`](fn@sssp) | distances from a source: near-far delta-stepping or Bellman-Ford ([`SsspMethod`]) | host, device flags (Bellman-Ford: scan too) |
//! | [`pagerank`](fn@pagerank) | ranks, a fixed count of iterations or to a tolerance | host, device (the convergence test on the device) |
//! | [`components`](fn@components) | connected components by union-find (roots linked, paths compressed) | host, device (until no change, on the device) |
//! | [`triangles`](fn@triangles) | triangles by sorted adjacency intersections | host |
//! | [`k_core`](fn@k_core) | every vertex's core number, by peeling | host, device queue (a queue of removed vertices) |
//!
//! [`Strategy::Auto`] (the default) is measured, not a rule: the first call of an algorithm on a
//! graph of a shape times the loops its schedule can run in (with schedule `auto`, a short list
//! of schedules, SSSP's relax rounds, and loops: [`auto`](mod@auto)) on that call's own work and
//! keeps the fastest, in the process and in the tuner's cache on disk (`loops::tune`, as `auto`
//! does for a schedule); later calls run it. `LOOPS_TUNE=off` measures nothing: a fixed rule
//! decides. PageRank, components and k-core run in one driver, [`IterationLoop::run`] with an
//! [`IterateOn`] (the host, or the device: the start and the iterations recorded once as CUDA
//! graphs kept with the algorithm's state for its next run); PageRank and components take one
//! launch an iteration.
//!
//! ```no_run
//! use loops::graph::{bfs, BfsOptions, Graph, Switch};
//! # fn main() -> loops::Result<()> {
//! let gpu = loops::Gpu::new(0)?;
//! let g = Graph::from_edges(3, &[(0, 1, 1), (1, 0, 1), (1, 2, 1), (2, 1, 1)])?;
//! let dg = gpu.upload_graph(&g)?;
//! let options = BfsOptions { direction: Some(Switch::BEAMER), ..BfsOptions::default() };
//! let run = bfs(&gpu, &dg, 0, &options)?;
//! assert_eq!(gpu.download(&run.levels)?, [0, 1, 2]);
//! # Ok(())
//! # }
//! ```
//!
//! Each algorithm's module holds its kernels, written in the kernel language and stamped under
//! the schedules they take (`bfs::launch(schedule, ..)`, `bfs::SOURCES`), and its driver for
//! callers who bring their own loop or buffers (`bfs::run`, `sssp::run`, `bfs_do::run`,
//! `pagerank::run`, `cc::run`, `kcore::run`, ...), each taking the loop strategy as a parameter. A user's own step runs
//! in the same driver: [`FrontierLoop::run`] with a [`LoopOn`] (host, device flags scanned or
//! walked, device queue), or [`traverse`] for a single-source traversal; near-far SSSP in
//! [`NearFarLoop::run`] with a [`NearFarOn`] (host or device); an iterative step without a
//! frontier (`pagerank::run`, `cc::run`, `kcore::run`) in [`IterationLoop::run`] with an
//! [`IterateOn`] (host or device).
//!
//! From the runtime, re-exported here: the graph on the host and the device ([`Graph`],
//! [`DeviceGraph`]), the loops, the flag compaction ([`Compaction`]), near-far ([`near_far`]),
//! and the CPU references ([`reference`](mod@reference); those the runtime has also at this level but
//! `pagerank`, `components` and `triangles`, whose names are the GPU calls').

pub mod auto;
mod driver;

pub mod bfs;
pub mod bfs_do;
pub mod cc;
pub mod kcore;
mod kcore_model;
pub mod pagerank;
pub mod sssp;
pub mod sssp_near_far;
pub mod tc;

pub use loops_runtime::graph::*;

pub use bfs::{bfs, BfsOptions, BfsResult};
pub use bfs_do::{next_direction, Direction, LevelCounts, Switch};
pub use cc::{components, ComponentsOptions, ComponentsResult};
pub use driver::{chunk_offsets, traverse, GraphStats, Strategy};
pub use kcore::{k_core, KCoreOptions, KCoreResult};
pub use pagerank::{pagerank, PageRankOptions, PageRankResult};
pub use sssp::{sssp, SsspMethod, SsspOptions, SsspResult};
pub use tc::{oriented_by_degree, triangles, TrianglesOptions, TrianglesResult};

/// The CPU references the GPU algorithms are checked against: BFS levels and checks of a BFS
/// tree, Dijkstra's distances, PageRank, components, triangles, core numbers.
pub mod reference {
    pub use super::kcore::core_numbers;
    pub use loops_runtime::graph::{
        bfs_levels, check_bfs_parents, check_bfs_tree, components, dijkstra, pagerank, triangles,
    };
}

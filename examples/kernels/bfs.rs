//! Breadth-first search, one level-synchronous push step over a frontier: every unvisited neighbour
//! `u` of a frontier vertex gets level `depth + 1`; the thread whose `atomic_min` took it from
//! "unvisited" (`u32::MAX`) flags it for the next frontier, so each vertex enters a frontier once.
//! The host loop is `loops::graph::FrontierLoop`.

use loops::prelude::*;

macro_rules! bfs {
    ($($schedule:tt)*) => {
        /// One BFS level: `frontier` holds the vertices at level `depth`.
        #[load_balanced($($schedule)*)]
        pub fn bfs(g: Offsets, adj: &[u32], frontier: &[u32], levels: &mut [u32], next: &mut [u32], depth: u32) {
            for v in g.tiles_in(frontier) {
                for e in g.atoms(v) {
                    let u = adj[e] as usize;
                    if levels[u] > depth + 1 {
                        let old = atomic_min(&mut levels[u], depth + 1);
                        if old > depth + 1 {
                            next[u] = 1;
                        }
                    }
                }
            }
        }
    };
}

under_schedules!(concrete bfs(g: &DeviceOffsets, adj: &DeviceBuffer<u32>, frontier: &DeviceBuffer<u32>,
    levels: &mut DeviceBuffer<u32>, next: &mut DeviceBuffer<u32>, depth: u32):
    thread, group2, warp, group64, block, work_oriented, merge_path, split, hierarchical, lrb, auto);

/// BFS levels from `source` into `levels` (one element per vertex), the `bfs` step under
/// `schedule` run by `frontier` level by level. `levels` is initialized here.
pub fn run(
    schedule: &str,
    gpu: &Gpu,
    frontier: &mut loops::graph::FrontierLoop,
    g: &loops::graph::DeviceGraph,
    source: u32,
    levels: &mut DeviceBuffer<u32>,
) -> loops::Result<loops::graph::LoopStats> {
    gpu.fill(levels, loops::graph::UNREACHED)?;
    if (source as usize) < levels.len() {
        gpu.write_at(levels, source as usize, &[0])?;
    }
    frontier.run(gpu, &[source], |gpu, current, next, depth| {
        launch(
            schedule,
            gpu,
            g.offsets(),
            g.adj(),
            current,
            levels,
            next,
            depth,
        )
    })
}

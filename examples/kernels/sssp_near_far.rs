//! Delta-stepping SSSP with near and far buckets, one relaxation round over the near frontier: as
//! the Bellman-Ford step (`sssp.rs`), each edge `v -> u` lowers `dist[u]` to `dist[v] + w` with
//! `atomic_min`, and the thread that lowered it flags `u`: in `near` when the new distance is
//! below the bucket's `threshold`, in `far` otherwise. The host loop (the near flags compacted into
//! the next near frontier, the far pile moved into it when the near frontier empties) is
//! `loops::graph::NearFarLoop`; why the distances come out exact is in its module documentation.
// The launch wrapper takes the kernel's 8 parameters and the GPU.
#![allow(clippy::too_many_arguments)]

use loops::prelude::*;

macro_rules! sssp_near_far {
    ($($schedule:tt)*) => {
        /// One near-far round: `frontier` is the near frontier, `threshold` the end of the bucket.
        #[load_balanced($($schedule)*)]
        pub fn sssp_near_far(g: Offsets, adj: &[u32], weights: &[u32], frontier: &[u32], dist: &mut [u32], near: &mut [u32], far: &mut [u32], threshold: u32) {
            for v in g.tiles_in(frontier) {
                let dv = dist[v];
                for e in g.atoms(v) {
                    let u = adj[e] as usize;
                    let nd = dv + weights[e];
                    if nd < dist[u] {
                        let old = atomic_min(&mut dist[u], nd);
                        if nd < old {
                            if nd < threshold {
                                near[u] = 1;
                            } else {
                                far[u] = 1;
                            }
                        }
                    }
                }
            }
        }
    };
}

under_schedules!(concrete sssp_near_far(g: &DeviceOffsets, adj: &DeviceBuffer<u32>, weights: &DeviceBuffer<u32>,
    frontier: &DeviceBuffer<u32>, dist: &mut DeviceBuffer<u32>, near: &mut DeviceBuffer<u32>,
    far: &mut DeviceBuffer<u32>, threshold: u32):
    thread, group2, warp, group64, block, work_oriented, merge_path, split, hierarchical, lrb, auto);

/// Shortest-path distances from `source` into `dist` (one element per vertex, initialised by the
/// loop), the `sssp_near_far` round under `schedule` run by `near_far` until both buckets are
/// empty. The bucket width is the loop's (`NearFarLoop::set_delta`; by default from the graph's
/// weights and degree).
pub fn run(
    schedule: &str,
    gpu: &Gpu,
    near_far: &mut loops::graph::NearFarLoop,
    g: &loops::graph::DeviceGraph,
    source: u32,
    dist: &mut DeviceBuffer<u32>,
) -> loops::Result<loops::graph::NearFarStats> {
    near_far.run(
        gpu,
        g,
        source,
        dist,
        |gpu, frontier, dist, near, far, threshold| {
            launch(
                schedule,
                gpu,
                g.offsets(),
                g.adj(),
                g.weights(),
                frontier,
                dist,
                near,
                far,
                threshold,
            )
        },
    )
}

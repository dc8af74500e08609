//! Delta-stepping SSSP with near and far buckets, one relaxation round over the near frontier: as
//! the Bellman-Ford step (`sssp.rs`), each edge `v -> u` lowers `dist[u]` to `dist[v] + w` with
//! `atomic_min`, and the thread that lowered it flags `u`: in `far` when the new distance is at or
//! above the bucket's threshold (`threshold[0]`, a device buffer: the device loop raises it
//! without the host), else in `near`. `sssp_near_far_hops` (module [`hops`]) reaches further,
//! `hops` of 2 or 3 edges: a head lowered below the threshold whose out-degree is at most
//! `hop_degree` is not flagged near, its out-edges are relaxed at once from its new distance by
//! the same thread (and theirs, with 3), the heads of the last hop flagged as usual; fewer rounds
//! on a graph of long shortest paths (`loops::graph::Hops`). [`LANES`] names the runtime's
//! built-in round instead (`NearFarRelax`: each hop's edges spread over
//! a warp's lanes, any number of hops), which [`run`] takes as a schedule. The loop:
//! `NearFarLoop`, on the host or the device (`NearFarOn`); why the distances come out exact is in
//! its module documentation.
// The launch wrappers take the kernels' 8 and 10 parameters and the GPU.
#![allow(clippy::too_many_arguments)]

use loops_runtime::graph::near_far::NearFarRelax;
use loops_runtime::graph::{DeviceGraph, NearFarLoop, NearFarOn, NearFarStats, UNREACHED};

use crate::prelude::*;

/// One near-far round: `frontier` is the near frontier, `threshold[0]` the end of the
/// bucket.
#[for_schedules(core)]
pub fn sssp_near_far(
    g: Offsets,
    adj: &[u32],
    weights: &[u32],
    frontier: &[u32],
    dist: &mut [u32],
    near: &mut [u32],
    far: &mut [u32],
    threshold: &[u32],
) {
    for v in g.tiles_in(frontier) {
        let t = threshold[0];
        let dv = dist[v];
        for e in g.atoms(v) {
            let u = adj[e] as usize;
            let nd = dv + weights[e];
            if nd < dist[u] {
                let old = atomic_min(&mut dist[u], nd);
                if nd < old {
                    if nd < t {
                        near[u] = 1;
                    } else {
                        far[u] = 1;
                    }
                }
            }
        }
    }
}

/// The round of more than one hop, a kernel of its own (its nested loops would cost the one-hop
/// round registers), under the schedules of the device loop.
pub mod hops {
    use super::*;
    /// One near-far round `hops` (1 to 3) edges deep through heads of at most `hop_degree`
    /// out-edges: `frontier` is the near frontier, `threshold[0]` the end of the bucket.
    /// A thread's hops are a chain of dependent reads, so each step issues what it can at
    /// once: the head's offsets with the `atomic_min` (whose result says whether they are
    /// needed), and no plain read of the distance before it (one round trip, not two).
    #[for_schedules(thread, group2, group4, group8, warp, group64, block, auto)]
    pub fn sssp_near_far_hops(
        g: Offsets,
        adj: &[u32],
        weights: &[u32],
        frontier: &[u32],
        dist: &mut [u32],
        near: &mut [u32],
        far: &mut [u32],
        threshold: &[u32],
        hops: u32,
        hop_degree: u32,
    ) {
        for v in g.tiles_in(frontier) {
            let t = threshold[0];
            let dv = dist[v];
            for e in g.atoms(v) {
                let u = adj[e] as usize;
                let nd = dv + weights[e];
                let u_begin = g.offsets[u] as usize;
                let u_end = g.offsets[u + 1] as usize;
                let old = atomic_min(&mut dist[u], nd);
                if nd < old {
                    if nd >= t {
                        far[u] = 1;
                    } else if hops < 2 || u_end - u_begin > hop_degree as usize {
                        near[u] = 1;
                    } else {
                        for j in u_begin..u_end {
                            let x = adj[j] as usize;
                            let xd = nd + weights[j];
                            let x_begin = g.offsets[x] as usize;
                            let x_end = g.offsets[x + 1] as usize;
                            let x_old = atomic_min(&mut dist[x], xd);
                            if xd < x_old {
                                if xd >= t {
                                    far[x] = 1;
                                } else if hops < 3 || x_end - x_begin > hop_degree as usize {
                                    near[x] = 1;
                                } else {
                                    for k in x_begin..x_end {
                                        let y = adj[k] as usize;
                                        let yd = xd + weights[k];
                                        let y_old = atomic_min(&mut dist[y], yd);
                                        if yd < y_old {
                                            if yd < t {
                                                near[y] = 1;
                                            } else {
                                                far[y] = 1;
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The built-in round of `NearFarRelax` (a head's edges spread over a
/// warp's lanes at every hop), run by [`run`] in place of a schedule: `lanes`
/// (its default vertices per warp) or `lanes<k>`, `k` frontier vertices per warp (1 to 32).
pub const LANES: &[&str] = &["lanes", "lanes2", "lanes4", "lanes8", "lanes16"];

/// The built-in round for `schedule` where it names it (`lanes`, `lanes<k>`).
fn lanes(gpu: &Gpu, schedule: &str) -> Option<crate::Result<NearFarRelax>> {
    let per_warp = schedule.strip_prefix("lanes")?;
    let per_warp = if per_warp.is_empty() {
        None
    } else {
        Some(per_warp.parse::<u32>().ok()?)
    };
    Some(NearFarRelax::new(gpu).map(|mut relax| {
        relax.set_per_warp(per_warp);
        relax
    }))
}

/// Shortest-path distances from `source` into `dist` (one element per vertex, initialised by the
/// loop), run by `near_far` in the loop `on` until both buckets are empty, with the loop's hops
/// (`NearFarLoop::set_hops`; one on the host by default): the `sssp_near_far` round under
/// `schedule` for one hop, `hops::sssp_near_far_hops` for more, or the built-in round
/// ([`LANES`]). The bucket width is the loop's (`NearFarLoop::set_delta`; by default from the
/// graph's weights and degree and where the loop runs). On the device `schedule` must take its
/// frontier's size from the device (thread, the groups, warp, block, auto, the lanes); the others
/// are refused with `LoopsError::LoopOnDevice`.
pub fn run(
    schedule: &str,
    gpu: &Gpu,
    near_far: &mut NearFarLoop,
    on: NearFarOn,
    g: &DeviceGraph,
    source: u32,
    dist: &mut DeviceBuffer<u32>,
) -> crate::Result<NearFarStats> {
    if let Some(relax) = lanes(gpu, schedule) {
        return run_lanes(&relax?, gpu, near_far, on, g, source, dist);
    }
    // One bucket that holds every distance (the default on dense graphs): the device loop runs
    // near-far as Bellman-Ford, whose step (`sssp.rs`) is this round without the threshold to
    // test (every lowered head is flagged near).
    let one_bucket = on == NearFarOn::Device && near_far.delta_for(on, g) == UNREACHED;
    near_far.run(
        gpu,
        on,
        g,
        source,
        dist,
        |gpu, frontier, dist, near, far, threshold, hops| {
            let (offsets, adj, weights) = (g.offsets(), g.adj(), g.weights());
            if one_bucket && hops.hops <= 1 && super::sssp::SCHEDULES.contains(&schedule) {
                return super::sssp::launch(
                    schedule, gpu, offsets, adj, weights, frontier, dist, near,
                );
            }
            // The one-hop kernel where it has the schedule (the other runs one hop too).
            if hops.hops <= 1 && SCHEDULES.contains(&schedule) {
                launch(
                    schedule, gpu, offsets, adj, weights, frontier, dist, near, far, threshold,
                )
            } else {
                self::hops::launch(
                    schedule,
                    gpu,
                    offsets,
                    adj,
                    weights,
                    frontier,
                    dist,
                    near,
                    far,
                    threshold,
                    hops.hops,
                    hops.max_degree,
                )
            }
        },
    )
}

/// [`run`] with the built-in round `relax`.
fn run_lanes(
    relax: &NearFarRelax,
    gpu: &Gpu,
    near_far: &mut NearFarLoop,
    on: NearFarOn,
    g: &DeviceGraph,
    source: u32,
    dist: &mut DeviceBuffer<u32>,
) -> crate::Result<NearFarStats> {
    near_far.run(
        gpu,
        on,
        g,
        source,
        dist,
        |gpu, frontier, dist, near, far, threshold, hops| {
            relax.launch(gpu, g, frontier, dist, near, far, threshold, hops)
        },
    )
}

/// The edges [`run`] on the device under `schedule` relaxes (every hop's), counted on the GPU in
/// one more run: under the built-in round ([`LANES`]) only; `None` under the generated rounds, whose hops
/// are not counted on the device (`loops::graph::near_far_model_hops` models them).
pub fn device_relaxed_edges(
    schedule: &str,
    gpu: &Gpu,
    near_far: &mut NearFarLoop,
    g: &DeviceGraph,
    source: u32,
    dist: &mut DeviceBuffer<u32>,
) -> crate::Result<Option<u64>> {
    let Some(relax) = lanes(gpu, schedule) else {
        return Ok(None);
    };
    let mut relax = relax?;
    relax.set_count_edges(true);
    relax.reset_edge_count(gpu)?;
    run_lanes(&relax, gpu, near_far, NearFarOn::Device, g, source, dist)?;
    Ok(Some(relax.edge_count(gpu)?))
}

//! The near-far algorithm on the CPU ([`near_far_model`], [`near_far_model_hops`]) and the reach
//! of a round ([`Hops`]).

use super::NearFarStats;
use crate::graph::{Graph, UNREACHED};

/// How far one relaxation round reaches: the near-far step relaxes its frontier's out-edges and,
/// with `hops` above 1, the out-edges of each head it lowered below the threshold at once, from the
/// new distance (up to `hops` edges from the frontier), where that head has at most `max_degree`
/// out-edges (a lane or a warp relaxes them in sequence, so a hub is flagged near instead). The
/// heads of the last hop are flagged near or far as usual. The generated rounds of
/// `src/graph/sssp_near_far.rs` do at most 3 hops; [`NearFarRelax`](super::NearFarRelax) does any
/// number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hops {
    /// Edges from the frontier a round relaxes along (1: the plain round).
    pub hops: u32,
    /// The largest out-degree of a vertex whose edges a round relaxes at once (0 with one hop).
    pub max_degree: u32,
}

impl Hops {
    /// The plain round: the frontier's out-edges only.
    pub const ONE: Hops = Hops {
        hops: 1,
        max_degree: 0,
    };

    /// Two hops through heads of at most `max_degree` out-edges (the device step's
    /// `hop_degree`).
    pub fn two(max_degree: u32) -> Hops {
        Hops {
            hops: if max_degree == 0 { 1 } else { 2 },
            max_degree,
        }
    }
}

/// The near-far algorithm on the CPU, as [`NearFarLoop`](super::NearFarLoop) runs it on the GPU
/// (host or device loop) with one-hop rounds, but
/// with the relaxations of a round in order (each sees the ones before it, as an atomic would) and
/// each frontier in vertex order: the distances from `source` and the counts ([`NearFarStats`],
/// edges counted). Distances equal [`crate::graph::dijkstra`]'s for any `delta >= 1`.
pub fn near_far_model(g: &Graph, source: u32, delta: u32) -> (Vec<u32>, NearFarStats) {
    near_far_model_hops(g, source, delta, Hops::ONE)
}

/// [`near_far_model`] with rounds that reach `hops` ([`Hops`]); the relaxed edges count every
/// hop's. The bucket logic is the device loop's as well as the host loop's
/// ([`NearFarLoop`](super::NearFarLoop)): the device
/// runs each advance as a level of its own, and one more level to find both piles empty, so its
/// levels are `rounds + advances + 1`.
pub fn near_far_model_hops(
    g: &Graph,
    source: u32,
    delta: u32,
    hops: Hops,
) -> (Vec<u32>, NearFarStats) {
    let n = g.vertices();
    assert!((source as usize) < n, "source {source} of {n} vertices");
    let delta = delta.max(1);
    let mut dist = vec![UNREACHED; n];
    dist[source as usize] = 0;
    let (mut near_flag, mut far_flag) = (vec![false; n], vec![false; n]);
    let mut near = vec![source];
    let mut threshold = delta;
    let mut stats = NearFarStats::default();
    let compact = |flags: &mut [bool]| -> Vec<u32> {
        (0..n)
            .filter(|&v| std::mem::take(&mut flags[v]))
            .map(|v| v as u32)
            .collect()
    };
    loop {
        while !near.is_empty() {
            stats.rounds += 1;
            stats.frontier_vertices += near.len() as u64;
            stats.max_frontier = stats.max_frontier.max(near.len());
            let mut round = Round {
                g,
                dist: &mut dist,
                near: &mut near_flag,
                far: &mut far_flag,
                threshold,
                hops,
                relaxed: 0,
            };
            for &v in &near {
                let dv = round.dist[v as usize];
                round.relax(v as usize, dv, hops.hops);
            }
            stats.relaxed_edges += round.relaxed;
            near = compact(&mut near_flag);
        }
        // A bucket that holds every distance flags nothing far: nothing to advance to.
        if threshold == UNREACHED {
            return (dist, stats);
        }
        // The bucket advance; a second one at once if the first found only far vertices beyond
        // the new threshold (it then jumps to the nearest of them).
        let mut advance = |settled: u32, below: u32| {
            stats.advances += 1;
            let split = split_far(&dist, &mut far_flag, &mut near_flag, settled, below);
            (compact(&mut near_flag), split)
        };
        let next = threshold.saturating_add(delta);
        let (moved, split) = advance(threshold, next);
        threshold = next;
        near = moved;
        if near.is_empty() && split.far_left > 0 {
            let next = split.far_min.saturating_add(delta);
            let (moved, _) = advance(threshold, next);
            threshold = next;
            near = moved;
        }
        if near.is_empty() && split.far_left == 0 {
            return (dist, stats);
        }
    }
}

/// One round of [`near_far_model_hops`]: the distances and flags it changes.
struct Round<'a> {
    g: &'a Graph,
    dist: &'a mut [u32],
    near: &'a mut [bool],
    far: &'a mut [bool],
    threshold: u32,
    hops: Hops,
    relaxed: u64,
}

impl Round<'_> {
    /// Relaxes `v`'s out-edges from `dv`, `hops_left` hops deep: a head lowered below the
    /// threshold is relaxed from its new distance at once while hops are left and its degree
    /// allows, else flagged near; one lowered to the threshold or above is flagged far.
    fn relax(&mut self, v: usize, dv: u32, hops_left: u32) {
        self.relaxed += self.g.degree(v) as u64;
        for (u, w) in self.g.out_edges(v) {
            let nd = dv.saturating_add(w);
            if nd >= self.dist[u] {
                continue;
            }
            self.dist[u] = nd;
            if nd >= self.threshold {
                self.far[u] = true;
            } else if hops_left > 1 && self.g.degree(u) <= self.hops.max_degree as usize {
                self.relax(u, nd, hops_left - 1);
            } else {
                self.near[u] = true;
            }
        }
    }
}

/// What a pass over the far flags left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct FarSplit {
    /// The far vertices still at or beyond the new threshold.
    pub(super) far_left: u32,
    /// Their smallest distance (`UNREACHED` if none).
    pub(super) far_min: u32,
}

/// The bucket advance of `loops_near_far_split`, on the CPU: each far vertex below `settled` is
/// dropped, each in `settled..below` moves to the near flags, the rest stay far.
pub(super) fn split_far(
    dist: &[u32],
    far: &mut [bool],
    near: &mut [bool],
    settled: u32,
    below: u32,
) -> FarSplit {
    let mut split = FarSplit {
        far_left: 0,
        far_min: UNREACHED,
    };
    for v in 0..dist.len() {
        if !far[v] {
            continue;
        }
        let d = dist[v];
        if d < below {
            far[v] = false;
            if d >= settled {
                near[v] = true;
            }
        } else {
            split.far_left += 1;
            split.far_min = split.far_min.min(d);
        }
    }
    split
}

/// The Bellman-Ford frontier of `src/graph/sssp.rs` on the CPU, modelled as
/// [`near_far_model`] is (relaxations in order, frontiers in vertex order): distances and counts,
/// to compare the two algorithms' relaxed edges and rounds.
#[cfg(test)]
pub(crate) fn bellman_ford_model(g: &Graph, source: u32) -> (Vec<u32>, NearFarStats) {
    near_far_model(g, source, UNREACHED)
}

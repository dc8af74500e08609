//! Graph traversal on frontiers: a weighted directed graph on the host and the device, the loops
//! frontier algorithms are driven by, and CPU references to check them against.
//!
//! - Loops: [`FrontierLoop`], the one driver of the frontier algorithms (frontier in, frontier
//!   out, until it is empty), its loop strategy a parameter of the run ([`LoopOn`]: the host, the
//!   device's flags scanned or walked, the device queue), its step one closure for all of them
//!   ([`FrontierStep`]: given the [`Next`] frontier as flags or a queue, and the [`Level`]); it
//!   also runs direction-optimizing BFS on the device ([`FrontierLoop::run_directed`]).
//!   [`Compaction`], the flag compaction alone, for host loops of their own (the
//!   direction-optimizing BFS's host loop); [`IterationLoop`], the one driver of an
//!   algorithm without a frontier (PageRank, components, k-core's own queue), its loop strategy a
//!   parameter of the run ([`IterateOn`]: the host, or the device, its iterations recorded once
//!   as CUDA graphs, kept for the next run, and replayed until the step sets a flag there).
//! - Near-far delta-stepping SSSP ([`near_far`]): [`NearFarLoop`], relaxation rounds and bucket
//!   advances in a loop on the host or the device ([`NearFarOn`]), and [`near_far_model`], the
//!   same buckets on the CPU.
//! - CPU references: [`dijkstra`], [`bfs_levels`], [`pagerank`], [`components`], [`triangles`],
//!   [`check_bfs_parents`] (and [`check_bfs_tree`]); the views kernels run on
//!   ([`Graph::symmetric`], [`Graph::transpose`]); the edge counts of MTEPS ([`traversed_edges`],
//!   [`undirected_edges_reached`]).
//!
//! A graph is a tile set of the `Offsets` format: vertex `v` is a tile, its out-edges are the atoms
//! `offsets[v]..offsets[v + 1]`, which index the edge arrays `adj` (the edge's head) and `weights`.
//! A step kernel (`src/graph/sssp.rs`, `bfs.rs`) runs over the current frontier with
//! `g.tiles_in(frontier)` and marks the vertices of the next one by storing a non-zero flag in
//! `next[u]`. [`FrontierLoop`] then compacts the flags into the next frontier on the GPU (a
//! hand-written kernel, one atomic per block, clearing the flags as it reads them) and reads back only
//! the 4-byte count; the frontier itself never leaves the device.
//!
//! Distances are `u32`, weights `u32`, [`UNREACHED`] (`u32::MAX`) marks a vertex not reached. A
//! graph whose longest possible path, `(vertices - 1) * max weight`, does not fit below `u32::MAX`
//! is refused by `Graph::check_distances_fit` (called by [`Gpu::upload_graph`]), so a kernel's
//! `dist[v] + w` cannot wrap.

mod frontier;
mod iterate;
#[doc(hidden)] // reached as `loops::ops::frontier`
pub mod lang;
#[cfg(all(test, feature = "gpu"))]
mod lang_ab;
pub use frontier::{
    compaction_walks, default_walk_limit, directed_run_model, direction_model, Compaction,
    DirectedPull, DirectedPush, DirectionState, FrontierLoop, FrontierStep, Level, LoopOn,
    LoopStats, Next, DEFAULT_LEVELS_PER_REPLAY,
};
pub use iterate::{
    exact_split, IterateOn, Iteration, IterationLoop, DEFAULT_ITERATIONS_PER_REPLAY,
};

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand::{Rng, SeedableRng};

use crate::device::{DeviceBuffer, Gpu};
use crate::error::{LoopsError, Result};
use crate::formats::{DeviceOffsets, TileSet};
use crate::launch::entry::entries;

pub mod near_far;
mod reference;

pub use near_far::{
    near_far_model, near_far_model_hops, Hops, NearFarLoop, NearFarOn, NearFarStats, NearFarStep,
};
pub use reference::{check_bfs_parents, check_bfs_tree, components, pagerank, triangles};

/// The distance or level of a vertex no path reaches.
pub const UNREACHED: u32 = u32::MAX;

/// A directed graph with `u32` edge weights, in CSR form: the out-edges of vertex `v` are
/// `offsets[v]..offsets[v + 1]`. Self-loops and repeated edges are kept as they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    offsets: Vec<usize>,
    adj: Vec<u32>,
    weights: Vec<u32>,
}

impl Graph {
    /// A graph from its CSR arrays. Errors if the offsets are not a non-decreasing sequence from 0 to
    /// the edge count, the arrays' lengths disagree, or a head is not a vertex.
    pub fn new(offsets: Vec<usize>, adj: Vec<u32>, weights: Vec<u32>) -> Result<Graph> {
        let bad = |detail: String| Err(LoopsError::InvalidGraph { detail });
        if offsets.is_empty() || offsets[0] != 0 {
            return bad("the offsets must start with 0".into());
        }
        if offsets.windows(2).any(|w| w[0] > w[1]) {
            return bad("the offsets must not decrease".into());
        }
        let edges = *offsets.last().expect("non-empty");
        if adj.len() != edges || weights.len() != edges {
            return bad(format!(
                "the offsets end at {edges} edges, but there are {} heads and {} weights",
                adj.len(),
                weights.len()
            ));
        }
        let n = offsets.len() - 1;
        if let Some(e) = adj.iter().position(|&u| u as usize >= n) {
            return bad(format!(
                "edge {e} goes to vertex {}, the graph has {n} vertices",
                adj[e]
            ));
        }
        Ok(Graph {
            offsets,
            adj,
            weights,
        })
    }

    /// A graph on `vertices` vertices from `(from, to, weight)` triples, in any order; the edges of a
    /// vertex keep their order in `edges`. Self-loops and duplicates stay.
    pub fn from_edges(vertices: usize, edges: &[(u32, u32, u32)]) -> Result<Graph> {
        let mut offsets = vec![0usize; vertices + 1];
        for &(from, to, _) in edges {
            if from as usize >= vertices || to as usize >= vertices {
                return Err(LoopsError::InvalidGraph {
                    detail: format!("edge {from} -> {to} outside a graph of {vertices} vertices"),
                });
            }
            offsets[from as usize + 1] += 1;
        }
        for v in 0..vertices {
            offsets[v + 1] += offsets[v];
        }
        let mut next = offsets.clone();
        let mut adj = vec![0u32; edges.len()];
        let mut weights = vec![0u32; edges.len()];
        for &(from, to, w) in edges {
            let slot = &mut next[from as usize];
            adj[*slot] = to;
            weights[*slot] = w;
            *slot += 1;
        }
        Graph::new(offsets, adj, weights)
    }

    /// The graph of a sparse matrix's pattern (an edge `r -> c` per stored entry `(r, c)`, in either
    /// storage order; values ignored), on `max(rows, cols)` vertices, with weights drawn uniformly
    /// from `1..=max_weight` by a generator seeded with `seed` (all 1 if `max_weight` is 1).
    pub fn from_pattern<T: Clone + Default>(
        m: &sprs::CsMat<T>,
        max_weight: u32,
        seed: u64,
    ) -> Result<Graph> {
        let n = m.rows().max(m.cols());
        let csr;
        let m = if m.is_csr() {
            m
        } else {
            csr = m.to_csr();
            &csr
        };
        let mut offsets: Vec<usize> = m.indptr().raw_storage().to_vec();
        // Columns beyond the rows: vertices with no out-edges.
        offsets.resize(n + 1, *offsets.last().unwrap_or(&0));
        let adj: Vec<u32> = m.indices().iter().map(|&c| c as u32).collect();
        let weights = random_weights(adj.len(), max_weight, seed);
        Graph::new(offsets, adj, weights)
    }

    /// The number of vertices.
    pub fn vertices(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The number of edges.
    pub fn edges(&self) -> usize {
        self.adj.len()
    }

    /// The out-degree of `v`.
    pub fn degree(&self, v: usize) -> usize {
        self.offsets[v + 1] - self.offsets[v]
    }

    /// `vertices + 1` edge offsets.
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// The head of each edge.
    pub fn adj(&self) -> &[u32] {
        &self.adj
    }

    /// The weight of each edge.
    pub fn weights(&self) -> &[u32] {
        &self.weights
    }

    /// The out-edges of `v`: `(head, weight)`.
    pub fn out_edges(&self, v: usize) -> impl Iterator<Item = (usize, u32)> + '_ {
        let r = self.offsets[v]..self.offsets[v + 1];
        self.adj[r.clone()]
            .iter()
            .zip(&self.weights[r])
            .map(|(&u, &w)| (u as usize, w))
    }

    /// The same graph with every weight replaced by 1 (for BFS, whose levels are unit distances).
    pub fn unit_weights(&self) -> Graph {
        Graph {
            offsets: self.offsets.clone(),
            adj: self.adj.clone(),
            weights: vec![1; self.adj.len()],
        }
    }

    /// A vertex of greatest out-degree (the smallest such id), a source that reaches much of a
    /// power-law graph; `None` for a graph with no vertices.
    pub fn max_degree_vertex(&self) -> Option<u32> {
        (0..self.vertices())
            .max_by_key(|&v| (self.degree(v), Reverse(v)))
            .map(|v| v as u32)
    }

    /// Errors unless every distance a path can have, at most `(vertices - 1) * max weight`, is below
    /// [`UNREACHED`], so that `dist[v] + w` in a kernel cannot wrap.
    pub(crate) fn check_distances_fit(&self) -> Result<()> {
        let max_w = self.weights.iter().copied().max().unwrap_or(0) as u128;
        let longest = (self.vertices().saturating_sub(1) as u128) * max_w;
        // `dist[v] + w` is formed before it is compared, so one more weight must fit as well.
        if longest + max_w >= UNREACHED as u128 {
            return Err(LoopsError::InvalidGraph {
                detail: format!(
                    "a path may be as long as {longest} (vertices - 1 times the largest weight {max_w}), \
                     which does not fit the u32 distances"
                ),
            });
        }
        Ok(())
    }
}

/// `len` weights drawn uniformly from `1..=max_weight` (ChaCha8 seeded with `seed`: the same on
/// every platform). `max_weight` 0 is taken as 1.
pub(crate) fn random_weights(len: usize, max_weight: u32, seed: u64) -> Vec<u32> {
    let max_weight = max_weight.max(1);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_3e16_4750_0000);
    (0..len).map(|_| rng.random_range(1..=max_weight)).collect()
}

/// Shortest-path distances from `source` by Dijkstra's algorithm (a binary heap), [`UNREACHED`]
/// where no path goes. Panics if `source` is not a vertex.
pub fn dijkstra(g: &Graph, source: u32) -> Vec<u32> {
    let n = g.vertices();
    assert!(
        (source as usize) < n,
        "source {source} of a graph of {n} vertices"
    );
    let mut dist = vec![u64::MAX; n];
    let mut heap = BinaryHeap::new();
    dist[source as usize] = 0;
    heap.push(Reverse((0u64, source as usize)));
    while let Some(Reverse((d, v))) = heap.pop() {
        if d > dist[v] {
            continue;
        }
        for (u, w) in g.out_edges(v) {
            let nd = d + w as u64;
            if nd < dist[u] {
                dist[u] = nd;
                heap.push(Reverse((nd, u)));
            }
        }
    }
    dist.into_iter()
        .map(|d| u32::try_from(d).unwrap_or(UNREACHED))
        .collect()
}

/// BFS levels from `source` (the source is level 0), [`UNREACHED`] where no path goes. Panics if
/// `source` is not a vertex.
pub fn bfs_levels(g: &Graph, source: u32) -> Vec<u32> {
    let n = g.vertices();
    assert!(
        (source as usize) < n,
        "source {source} of a graph of {n} vertices"
    );
    let mut level = vec![UNREACHED; n];
    let mut queue = std::collections::VecDeque::new();
    level[source as usize] = 0;
    queue.push_back(source as usize);
    while let Some(v) = queue.pop_front() {
        for (u, _) in g.out_edges(v) {
            if level[u] == UNREACHED {
                level[u] = level[v] + 1;
                queue.push_back(u);
            }
        }
    }
    level
}

/// The edges a traversal that reached the vertices with `dist[v] != UNREACHED` examined: the sum of
/// their out-degrees. The "edges traversed" of MTEPS (as Graph500 counts the edges of the reached
/// component).
pub fn traversed_edges(g: &Graph, dist: &[u32]) -> u64 {
    (0..g.vertices())
        .filter(|&v| dist[v] != UNREACHED)
        .map(|v| g.degree(v) as u64)
        .sum()
}

/// Graph500's edge count of a traversal of the symmetric graph `g` that reached the vertices with
/// `levels[v] != UNREACHED`: the undirected edges between reached vertices, each once (an edge
/// `v -> u` with `v <= u`, so a self-loop counts once). Graph500 counts its input edge list,
/// repeats and self-loops included; on [`Graph::symmetric`]'s simple view this counts neither.
pub fn undirected_edges_reached(g: &Graph, levels: &[u32]) -> u64 {
    (0..g.vertices())
        .filter(|&v| levels[v] != UNREACHED)
        .map(|v| g.out_edges(v).filter(|&(u, _)| v <= u).count() as u64)
        .sum()
}

/// The first vertex where `got` differs from `want`, as an error message naming `what`.
pub fn compare(what: &str, want: &[u32], got: &[u32]) -> std::result::Result<(), String> {
    if want.len() != got.len() {
        return Err(format!(
            "{what}: {} values, expected {}",
            got.len(),
            want.len()
        ));
    }
    let wrong = want.iter().zip(got).filter(|(w, g)| w != g).count();
    match want.iter().zip(got).position(|(w, g)| w != g) {
        None => Ok(()),
        Some(v) => {
            let show = |x: u32| {
                if x == UNREACHED {
                    "unreached".to_string()
                } else {
                    x.to_string()
                }
            };
            Err(format!(
                "{what}: {wrong} of {} vertices differ; first at vertex {v}: got {}, expected {}",
                want.len(),
                show(got[v]),
                show(want[v])
            ))
        }
    }
}

/// A [`Graph`] in device memory: its offsets as an `Offsets` tile set (a tile per vertex, an atom per
/// edge), the edges' heads and weights.
pub struct DeviceGraph {
    offsets: DeviceOffsets,
    adj: DeviceBuffer<u32>,
    weights: DeviceBuffer<u32>,
    weight_sum: u64,
}

impl DeviceGraph {
    /// The sum of the edge weights (for `near_far::default_delta`).
    pub fn weight_sum(&self) -> u64 {
        self.weight_sum
    }

    /// The tile set: vertex `v`'s edges are atoms `offsets[v]..offsets[v + 1]`.
    pub fn offsets(&self) -> &DeviceOffsets {
        &self.offsets
    }

    /// The head of each edge.
    pub fn adj(&self) -> &DeviceBuffer<u32> {
        &self.adj
    }

    /// The weight of each edge.
    pub fn weights(&self) -> &DeviceBuffer<u32> {
        &self.weights
    }

    /// The number of vertices (tiles).
    pub fn vertices(&self) -> usize {
        self.offsets.num_tiles()
    }

    /// The number of edges (atoms).
    pub fn edges(&self) -> usize {
        self.offsets.num_atoms()
    }
}

impl Gpu {
    /// Uploads a graph. Errors if its distances may not fit `u32`
    /// (`Graph::check_distances_fit`), it has more than `i32::MAX` vertices, or it does not fit
    /// the device's free memory (`crate::formats::wide::check_memory`). More than `i32::MAX` edges get
    /// 64-bit offsets.
    pub fn upload_graph(&self, g: &Graph) -> Result<DeviceGraph> {
        g.check_distances_fit()?;
        // A graph of more than `i32::MAX` edges gets 64-bit offsets; whatever its size, it is
        // refused with the numbers before anything is allocated when it cannot fit.
        let offset_bytes = if crate::formats::wide::needs_wide(g.edges()) {
            8
        } else {
            4
        };
        self.check_memory(
            &format!(
                "uploading a graph of {} vertices and {} edges",
                g.vertices(),
                g.edges()
            ),
            (g.vertices() as u64 + 1) * offset_bytes + g.edges() as u64 * 8,
        )?;
        Ok(DeviceGraph {
            offsets: self.upload_offsets(&g.offsets)?,
            adj: self.upload(&g.adj)?,
            weights: self.upload(&g.weights)?,
            weight_sum: g.weights.iter().map(|&w| w as u64).sum(),
        })
    }
}

/// The frontier compaction kernel: reads the flags of all `n` vertices, clears the set ones and
/// appends their ids to `out` at `*count` (a warp ballot and a shared-memory scan per block of 256,
/// one global atomic per block that found any). The order of the ids in `out` is not specified.
/// The CUDA text is kept in `compact.cuh`, next to this file.
pub const COMPACT_SOURCE: &str = include_str!("compact.cuh");

entries! {
    source: COMPACT_SOURCE;
    // Their first parameters are arrays of device pointers (`unsigned int* const*`).
    undeclared: ["loops_queue_begin", "loops_queue_end", "loops_do_fold"];
    /// The set flags of `n` cleared and their ids appended to `out` at `*count`.
    fn loops_compact_flags(flags: *mut u32, n: u32, out: *mut u32, count: *mut u32);
    /// [`loops_compact_flags`], and the largest out-degree (below `degrees_below`) max-ed into
    /// `counters[2]`.
    fn loops_compact_flags_degrees(
        flags: *mut u32, n: u32, out: *mut u32, counters: *mut u32, offsets: *const i32,
        graph_vertices: u32, degrees_below: u32,
    );
    /// One level of the device loop: the compaction into the next frontier and the state's
    /// rotating slots; the out-edges of `in` walked instead of every flag where the graph is given
    /// (null `offsets` and `adj`: scan).
    fn loops_compact_level(
        flags: *mut u32, n: u32, out: *mut u32, state: *mut u32, current: u32, next: u32,
        after: u32, level: *mut u32, r#in: *const u32, offsets: *const i32, adj: *const u32,
        graph_vertices: u32, walk_limit: u64,
    );
    /// [`loops_compact_level`] over a graph of 64-bit offsets.
    fn loops_compact_level_wide(
        flags: *mut u32, n: u32, out: *mut u32, state: *mut u32, current: u32, next: u32,
        after: u32, level: *mut u32, r#in: *const u32, offsets: *const i64, adj: *const u32,
        graph_vertices: u32, walk_limit: u64,
    );
    /// Direction-optimizing BFS's choice of a level's direction and its launches' lengths
    /// (`FrontierLoop::run_directed`).
    fn loops_do_decide(
        count: *const u32, state: *mut u32, edges: *mut u32, lens: *mut u32, rest_size: *mut u32,
        graph_vertices: u32, alpha: u64, beta: u64,
    );
    /// After a direction-optimizing level's pull step: the vertices it left unreached become the
    /// pull list of the next pull.
    fn loops_do_rest(lens: *mut u32, rest: *const u32, rest_size: *const u32, vertices: *mut u32);
    /// The start of a direction-optimizing run: its decision's state, found edges and lengths,
    /// and the queue run's first frontier (the source), state and level.
    fn loops_do_start(
        state: *mut u32, edges: *mut u32, lens: *mut u32, unexplored: u64, frontier: *mut u32,
        loop_state: *mut u32, state_slots: u32, degree_slot: u32, level: *mut u32, source: u32,
        pull_list: u32,
    );
    /// After each batch of a direction-optimizing run: what the host reads back to choose the
    /// next, copied into the loop's state.
    fn loops_do_report(state: *const u32, edges: *const u32, loop_state: *mut u32, alpha: u64);
    /// A push step's flags compacted by walking the out-edges of `in`.
    fn loops_compact_walk(
        flags: *mut u32, r#in: *const u32, size: u32, offsets: *const i32, adj: *const u32,
        graph_vertices: u32, max_degree: u32, out: *mut u32, counters: *mut u32,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diamond() -> Graph {
        // 0 -> 1 (4), 0 -> 2 (1), 2 -> 1 (2), 1 -> 3 (1), 3 -> 3 (5: self-loop), 2 -> 1 (7: repeat);
        // 4 unreachable.
        Graph::from_edges(
            5,
            &[
                (0, 1, 4),
                (0, 2, 1),
                (2, 1, 2),
                (1, 3, 1),
                (3, 3, 5),
                (2, 1, 7),
            ],
        )
        .unwrap()
    }

    #[test]
    fn dijkstra_and_bfs_on_a_small_graph() {
        let g = diamond();
        assert_eq!(g.vertices(), 5);
        assert_eq!(g.edges(), 6);
        assert_eq!(dijkstra(&g, 0), [0, 3, 1, 4, UNREACHED]);
        assert_eq!(bfs_levels(&g, 0), [0, 1, 1, 2, UNREACHED]);
        assert_eq!(
            dijkstra(&g, 4),
            [UNREACHED, UNREACHED, UNREACHED, UNREACHED, 0]
        );
        assert_eq!(traversed_edges(&g, &dijkstra(&g, 0)), 6);
        // The simple undirected view: 0-1, 0-2, 1-2, 1-3 (the self-loop of 3 dropped).
        let s = g.symmetric();
        assert_eq!(undirected_edges_reached(&s, &bfs_levels(&s, 0)), 4);
        assert_eq!(undirected_edges_reached(&s, &bfs_levels(&s, 4)), 0);
        // On a graph that keeps it, a self-loop counts once.
        let looped = Graph::from_edges(2, &[(0, 1, 1), (1, 0, 1), (1, 1, 1)]).unwrap();
        assert_eq!(undirected_edges_reached(&looped, &[0, 1]), 2);
        assert_eq!(g.max_degree_vertex(), Some(0));
    }

    #[test]
    fn from_pattern_pads_rectangular_matrices_and_is_seeded() {
        let m: sprs::CsMat<f32> =
            sprs::CsMat::new((2, 4), vec![0, 2, 3], vec![1, 3, 0], vec![1.0; 3]);
        let g = Graph::from_pattern(&m, 10, 7).unwrap();
        assert_eq!(g.vertices(), 4);
        assert_eq!(g.offsets(), [0, 2, 3, 3, 3]);
        assert_eq!(g.adj(), [1, 3, 0]);
        assert!(g.weights().iter().all(|&w| (1..=10).contains(&w)));
        assert_eq!(g, Graph::from_pattern(&m, 10, 7).unwrap());
        assert_eq!(Graph::from_pattern(&m, 1, 7).unwrap().weights(), [1, 1, 1]);
        assert_eq!(Graph::from_pattern(&m.to_csc(), 10, 7).unwrap(), g);
    }

    #[test]
    fn invalid_graphs_are_refused() {
        assert!(Graph::new(vec![0, 2], vec![0], vec![1]).is_err());
        assert!(Graph::new(vec![0, 1], vec![1], vec![1]).is_err());
        assert!(Graph::new(vec![1, 1], vec![], vec![]).is_err());
        assert!(Graph::from_edges(2, &[(0, 2, 1)]).is_err());
        let heavy = Graph::from_edges(3, &[(0, 1, u32::MAX / 2), (1, 2, u32::MAX / 2)]).unwrap();
        assert!(heavy.check_distances_fit().is_err());
        assert!(diamond().check_distances_fit().is_ok());
    }

    #[test]
    fn compare_names_the_first_difference() {
        assert!(compare("d", &[1, 2], &[1, 2]).is_ok());
        let e = compare("d", &[1, UNREACHED], &[1, 5]).unwrap_err();
        assert!(e.contains("vertex 1: got 5, expected unreached"), "{e}");
    }
}

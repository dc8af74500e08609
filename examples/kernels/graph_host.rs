//! The host side of the graph algorithms of `bfs_do.rs`, `pagerank.rs`, `cc.rs` and `tc.rs` that
//! is theirs alone: the direction switch of the direction-optimizing BFS (a pure function), the
//! runs of vertices their reductions go over, and the oriented graph triangle counting runs on.
//! No kernel here, so `tests/graph_host.rs` tests it all without building the kernels.
//!
//! The CPU references and the general views of a graph are the runtime's: `loops::graph::{pagerank,
//! components, triangles, check_bfs_parents, check_bfs_tree, undirected_edges_reached}`,
//! `Graph::symmetric` and `Graph::transpose`.
#![allow(dead_code)]

use loops::graph::Graph;

/// Which way a BFS level goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Push,
    Pull,
}

/// Beamer's switch: push to pull once the frontier's out-edges exceed the unexplored edges /
/// `alpha`; pull back to push once the frontier shrinks to `vertices / beta` or below.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Switch {
    pub alpha: u64,
    pub beta: u64,
}

impl Switch {
    /// The paper's values (alpha 14, beta 24).
    pub const BEAMER: Switch = Switch {
        alpha: 14,
        beta: 24,
    };
    /// Never pull: the push-only BFS, through the same loop.
    pub const PUSH_ONLY: Switch = Switch { alpha: 0, beta: 0 };
    /// Pull from the second level on, to the end (to test the pull step).
    pub const PULL_ALWAYS: Switch = Switch {
        alpha: u64::MAX,
        beta: u64::MAX,
    };
}

impl Default for Switch {
    fn default() -> Switch {
        Switch::BEAMER
    }
}

/// What the BFS loop knows after a level, to choose the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelCounts {
    /// The graph's vertices.
    pub vertices: u64,
    /// The next frontier's vertices.
    pub frontier: u64,
    /// The frontier just expanded.
    pub previous_frontier: u64,
    /// The next frontier's out-edges (counted by push steps only).
    pub frontier_edges: u64,
    /// The out-edges of the vertices no push step has reached yet: the graph's edges less those of
    /// the frontiers push steps found. Pull steps do not count theirs (that would cost an atomic
    /// per vertex they reach), so after a pull phase this is too large, which only makes a second
    /// turn to pull later.
    pub unexplored_edges: u64,
}

/// The direction of the next level, after a level that went `now`. Push turns to pull when
/// `frontier_edges > unexplored_edges / alpha`; pull stays while the frontier grows or holds more
/// than `vertices / beta` vertices. `alpha` 0 never pulls.
pub fn next_direction(switch: Switch, now: Direction, c: LevelCounts) -> Direction {
    match now {
        Direction::Push => {
            let weighed = c.frontier_edges as u128 * switch.alpha as u128;
            if switch.alpha > 0 && c.frontier_edges > 0 && weighed > c.unexplored_edges as u128 {
                Direction::Pull
            } else {
                Direction::Push
            }
        }
        Direction::Pull => {
            let growing = c.frontier >= c.previous_frontier;
            let large = c.frontier as u128 * switch.beta as u128 > c.vertices as u128;
            if c.frontier > 0 && (growing || large) {
                Direction::Pull
            } else {
                Direction::Push
            }
        }
    }
}

/// `0, chunk, 2 * chunk, .., n`: the offsets of a tile set whose tiles are runs of `chunk`
/// consecutive vertices (the last one shorter), for kernels that reduce over all vertices with one
/// atomic per run instead of one per vertex.
pub fn chunk_offsets(n: usize, chunk: usize) -> Vec<usize> {
    assert!(chunk > 0, "chunks of 0 vertices");
    let mut offsets: Vec<usize> = (0..n).step_by(chunk).collect();
    offsets.push(n);
    offsets
}

/// The simple undirected view of `g` (no self-loops, no repeated edges) with each edge kept once,
/// from the endpoint of lower degree to the one of higher degree (ties: lower id first), and the
/// vertices renumbered in that order, so each edge goes from a lower to a higher id and a vertex
/// has at most about `sqrt(2 * edges)` out-edges; heads sorted. Triangle counting on it counts
/// each triangle once, at its lowest vertex.
pub fn oriented_by_degree(g: &Graph) -> Graph {
    let n = g.vertices();
    let simple = g.symmetric();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&v| (simple.degree(v), v));
    let mut rank = vec![0u32; n];
    for (r, &v) in order.iter().enumerate() {
        rank[v] = r as u32;
    }
    let mut edges: Vec<(u32, u32, u32)> = (0..n)
        .flat_map(|v| simple.out_edges(v).map(move |(u, _)| (v, u)))
        .filter(|&(v, u)| rank[v] < rank[u])
        .map(|(v, u)| (rank[v], rank[u], 1))
        .collect();
    // By tail, then head: `from_edges` keeps each vertex's edges in this order.
    edges.sort_unstable();
    Graph::from_edges(n, &edges).expect("ranks are vertices")
}

//! The host side of the graph algorithms of `bfs_do.rs`, `pagerank.rs`, `cc.rs` and `tc.rs`: the
//! direction switch of the direction-optimizing BFS (a pure function), the graphs the kernels want
//! (symmetric, transposed, oriented for triangle counting), and CPU references to check them
//! against. No kernel here, so `tests/graph_host.rs` tests it all without building the kernels.
//!
//! The `*_reference` functions stand in for the CPU references of `loops::graph` (`pagerank`,
//! `components`, `triangles`, `check_bfs_parents`, `Graph::symmetric`), with the same meaning.
#![allow(dead_code)]

use loops::graph::{Graph, UNREACHED};

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

/// The graph with every edge in both directions, each vertex's heads sorted and repeated edges
/// merged (a self-loop stays, once), weights 1: the undirected view.
pub fn symmetric_reference(g: &Graph) -> Graph {
    let n = g.vertices();
    let mut lists: Vec<Vec<u32>> = vec![Vec::new(); n];
    for v in 0..n {
        for (u, _) in g.out_edges(v) {
            lists[v].push(u as u32);
            if u != v {
                lists[u].push(v as u32);
            }
        }
    }
    from_lists(lists)
}

/// The graph with every edge reversed (vertex `v`'s edges are its in-edges), weights kept.
pub fn transpose(g: &Graph) -> Graph {
    let edges: Vec<(u32, u32, u32)> = (0..g.vertices())
        .flat_map(|v| g.out_edges(v).map(move |(u, w)| (u as u32, v as u32, w)))
        .collect();
    Graph::from_edges(g.vertices(), &edges).expect("the reversed edges of a valid graph")
}

/// The simple undirected view of `g` (no self-loops, no repeated edges) with each edge kept once,
/// from the endpoint of lower degree to the one of higher degree (ties: lower id first), and the
/// vertices renumbered in that order, so each edge goes from a lower to a higher id and a vertex
/// has at most about `sqrt(2 * edges)` out-edges; heads sorted. Triangle counting on it counts
/// each triangle once, at its lowest vertex.
pub fn oriented_by_degree(g: &Graph) -> Graph {
    let n = g.vertices();
    let simple = symmetric_reference(g);
    let degree = |v: usize| simple.out_edges(v).filter(|&(u, _)| u != v).count();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&v| (degree(v), v));
    let mut rank = vec![0u32; n];
    for (r, &v) in order.iter().enumerate() {
        rank[v] = r as u32;
    }
    let mut lists: Vec<Vec<u32>> = vec![Vec::new(); n];
    for v in 0..n {
        for (u, _) in simple.out_edges(v) {
            if rank[v] < rank[u] {
                lists[rank[v] as usize].push(rank[u]);
            }
        }
    }
    from_lists(lists)
}

/// A graph from per-vertex head lists, each sorted and deduplicated, weights 1.
fn from_lists(mut lists: Vec<Vec<u32>>) -> Graph {
    let mut offsets = vec![0usize];
    let mut adj = Vec::new();
    for list in &mut lists {
        list.sort_unstable();
        list.dedup();
        adj.extend_from_slice(list);
        offsets.push(adj.len());
    }
    let weights = vec![1; adj.len()];
    Graph::new(offsets, adj, weights).expect("heads are vertices")
}

/// Graph500's edge count of a traversal of the symmetric graph `g`: the undirected edges (each
/// once, a self-loop once) whose endpoints were reached.
pub fn undirected_edges_reached(g: &Graph, levels: &[u32]) -> u64 {
    (0..g.vertices())
        .filter(|&v| levels[v] != UNREACHED)
        .map(|v| g.out_edges(v).filter(|&(u, _)| v <= u).count() as u64)
        .sum()
}

/// Checks a BFS tree: the source is its own parent at level 0, an unreached vertex has no parent,
/// and every other vertex's parent is one level above it with an edge to it. (The levels
/// themselves are compared with the CPU BFS separately.)
pub fn check_bfs_parents_reference(
    g: &Graph,
    source: u32,
    levels: &[u32],
    parents: &[u32],
) -> Result<(), String> {
    let n = g.vertices();
    if levels.len() != n || parents.len() != n {
        return Err(format!(
            "{} levels and {} parents for {n} vertices",
            levels.len(),
            parents.len()
        ));
    }
    // One pass over the edges marks the vertices whose parent has an edge to them.
    let mut edge_from_parent = vec![false; n];
    for p in 0..n {
        for (v, _) in g.out_edges(p) {
            if parents[v] == p as u32 {
                edge_from_parent[v] = true;
            }
        }
    }
    for v in 0..n {
        let (level, parent) = (levels[v], parents[v]);
        let bad = |why: &str| {
            Err(format!(
                "vertex {v} (level {level}, parent {parent}): {why}"
            ))
        };
        if v == source as usize {
            if level != 0 || parent != source {
                return bad("the source must be its own parent at level 0");
            }
        } else if level == UNREACHED {
            if parent != UNREACHED {
                return bad("an unreached vertex has a parent");
            }
        } else if parent as usize >= n {
            return bad("the parent is not a vertex");
        } else if levels[parent as usize] == UNREACHED || levels[parent as usize] + 1 != level {
            return bad("the parent is not one level above");
        } else if !edge_from_parent[v] {
            return bad("no edge from the parent");
        }
    }
    Ok(())
}

/// PageRank by pulling: ranks start at `1 / n`; each iteration gives vertex `v`
/// `(1 - damping) / n + damping * (sum over edges u -> v of rank[u] / out_degree(u) + dangling / n)`,
/// where `dangling` is the rank of the vertices without out-edges, spread over all vertices. Every
/// edge counts (a repeated edge twice, a self-loop too).
pub fn pagerank_reference(g: &Graph, damping: f64, iterations: u32) -> Vec<f64> {
    let n = g.vertices();
    if n == 0 {
        return Vec::new();
    }
    let mut rank = vec![1.0 / n as f64; n];
    for _ in 0..iterations {
        let dangling: f64 = (0..n).filter(|&v| g.degree(v) == 0).map(|v| rank[v]).sum();
        let mut next = vec![(1.0 - damping) / n as f64 + damping * dangling / n as f64; n];
        for (u, &r) in rank.iter().enumerate() {
            let share = damping * r / g.degree(u).max(1) as f64;
            for (v, _) in g.out_edges(u) {
                next[v] += share;
            }
        }
        rank = next;
    }
    rank
}

/// Connected components of the undirected view: each vertex's label is the smallest vertex id of
/// its component.
pub fn components_reference(g: &Graph) -> Vec<u32> {
    let n = g.vertices();
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn root(parent: &mut [u32], mut v: u32) -> u32 {
        while parent[v as usize] != v {
            let grand = parent[parent[v as usize] as usize];
            parent[v as usize] = grand;
            v = grand;
        }
        v
    }
    for v in 0..n {
        for (u, _) in g.out_edges(v) {
            let (a, b) = (root(&mut parent, v as u32), root(&mut parent, u as u32));
            // The smaller root stays a root, so each root is its component's smallest vertex.
            parent[a.max(b) as usize] = a.min(b);
        }
    }
    (0..n as u32).map(|v| root(&mut parent, v)).collect()
}

/// The triangles of the simple undirected view (self-loops and repeated edges ignored), each
/// counted once: over the graph oriented by degree, each vertex marks its heads, and each head's
/// heads that are marked close a triangle.
pub fn triangles_reference(g: &Graph) -> u64 {
    let o = oriented_by_degree(g);
    let mut marked = vec![false; o.vertices()];
    let mut count = 0u64;
    for v in 0..o.vertices() {
        for (u, _) in o.out_edges(v) {
            marked[u] = true;
        }
        for (u, _) in o.out_edges(v) {
            count += o.out_edges(u).filter(|&(w, _)| marked[w]).count() as u64;
        }
        for (u, _) in o.out_edges(v) {
            marked[u] = false;
        }
    }
    count
}

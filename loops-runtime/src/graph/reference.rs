//! CPU references of the graph algorithms beyond SSSP and BFS levels: PageRank, connected
//! components, triangle counting, the check of a BFS parent tree, and the views of a graph that
//! pull algorithms and triangle counting run on ([`Graph::symmetric`], [`Graph::transpose`]). Each
//! is a plain loop, written to be obviously right rather than fast (linear or `n log n` in the
//! edges, except triangles).

use super::{bfs_levels, compare, Graph, UNREACHED};

impl Graph {
    /// The undirected view of this graph, as a simple graph: an edge `u -> v` and `v -> u` for
    /// each edge between `u` and `v` in either direction, self-loops dropped, repeats merged into
    /// one edge that keeps the smallest weight among them (so shortest paths on the view are those
    /// of the graph with every edge usable both ways). Each vertex's edges are sorted by head.
    pub fn symmetric(&self) -> Graph {
        let n = self.vertices();
        let mut degree = vec![0usize; n + 1];
        for v in 0..n {
            for (u, _) in self.out_edges(v) {
                if u != v {
                    degree[v + 1] += 1;
                    degree[u + 1] += 1;
                }
            }
        }
        for v in 0..n {
            degree[v + 1] += degree[v];
        }
        let start = degree;
        let mut next = start.clone();
        // `head << 32 | weight`: sorting a row sorts by head, then weight.
        let mut packed = vec![0u64; start[n]];
        for v in 0..n {
            for (u, w) in self.out_edges(v) {
                if u != v {
                    packed[next[v]] = (u as u64) << 32 | w as u64;
                    next[v] += 1;
                    packed[next[u]] = (v as u64) << 32 | w as u64;
                    next[u] += 1;
                }
            }
        }
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0);
        let (mut adj, mut weights) = (Vec::new(), Vec::new());
        for v in 0..n {
            let row = &mut packed[start[v]..start[v + 1]];
            row.sort_unstable();
            for (i, &e) in row.iter().enumerate() {
                // The first of a run of one head has the smallest weight.
                if i == 0 || row[i - 1] >> 32 != e >> 32 {
                    adj.push((e >> 32) as u32);
                    weights.push(e as u32);
                }
            }
            offsets.push(adj.len());
        }
        Graph {
            offsets,
            adj,
            weights,
        }
    }

    /// The graph with every edge reversed, weights, self-loops and repeats kept: vertex `v`'s
    /// edges are its in-edges, by tail in increasing order (a pull over them reads the tails in
    /// that order).
    pub fn transpose(&self) -> Graph {
        // `from_edges` keeps each vertex's edges in the order given: by tail.
        let reversed: Vec<(u32, u32, u32)> = (0..self.vertices())
            .flat_map(|v| self.out_edges(v).map(move |(u, w)| (u as u32, v as u32, w)))
            .collect();
        Graph::from_edges(self.vertices(), &reversed).expect("the reversed edges of a valid graph")
    }
}

/// PageRank by pull iterations, in f64: rank starts at `1 / n` everywhere; each iteration sets
///
/// `rank'[v] = (1 - damping) / n + damping * (dangling / n + sum over edges u -> v of rank[u] / out_degree(u))`
///
/// where `dangling` is the summed rank of the vertices with no out-edges (their rank is spread
/// uniformly over all vertices, so the ranks keep summing to 1). Edges count as stored: a repeated
/// edge contributes once per copy and adds to the out-degree once per copy, a self-loop counts as
/// any edge; weights are ignored. `iterations` 0 gives the start. Empty for a graph of no vertices.
pub fn pagerank(g: &Graph, damping: f64, iterations: usize) -> Vec<f64> {
    let n = g.vertices();
    if n == 0 {
        return Vec::new();
    }
    // Each iteration is a pull over the in-edges.
    let in_edges = g.transpose();
    let mut rank = vec![1.0 / n as f64; n];
    for _ in 0..iterations {
        let dangling: f64 = (0..n).filter(|&v| g.degree(v) == 0).map(|v| rank[v]).sum();
        let base = (1.0 - damping) / n as f64 + damping * dangling / n as f64;
        let share: Vec<f64> = (0..n)
            .map(|u| match g.degree(u) {
                0 => 0.0,
                d => rank[u] / d as f64,
            })
            .collect();
        for (v, r) in rank.iter_mut().enumerate() {
            let pulled: f64 = in_edges.out_edges(v).map(|(u, _)| share[u]).sum();
            *r = base + damping * pulled;
        }
    }
    rank
}

/// The connected components of the undirected view (an edge joins its ends whichever its
/// direction): each vertex is labelled with the smallest vertex id of its component.
pub fn components(g: &Graph) -> Vec<u32> {
    let n = g.vertices();
    // Union-find whose root is always the smallest id of its set: a union links the larger root
    // under the smaller.
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn root(parent: &mut [u32], mut v: u32) -> u32 {
        while parent[v as usize] != v {
            // Path halving.
            parent[v as usize] = parent[parent[v as usize] as usize];
            v = parent[v as usize];
        }
        v
    }
    for v in 0..n {
        for (u, _) in g.out_edges(v) {
            let (a, b) = (root(&mut parent, v as u32), root(&mut parent, u as u32));
            if a != b {
                parent[a.max(b) as usize] = a.min(b);
            }
        }
    }
    (0..n as u32).map(|v| root(&mut parent, v)).collect()
}

/// The triangles of the undirected simple view ([`Graph::symmetric`]: directions, self-loops and
/// repeats ignored), each counted once: for each edge `v - u` with `v < u`, the common neighbours
/// `w > u` of `v` and `u`, by merging their sorted adjacency lists.
pub fn triangles(g: &Graph) -> u64 {
    let s = g.symmetric();
    let row = |v: usize| &s.adj[s.offsets[v]..s.offsets[v + 1]];
    let mut count = 0u64;
    for v in 0..s.vertices() {
        let a = row(v);
        for &u in a.iter().filter(|&&u| u as usize > v) {
            let b = row(u as usize);
            // The parts of both lists above u.
            let (mut i, mut j) = (
                a.partition_point(|&w| w <= u),
                b.partition_point(|&w| w <= u),
            );
            while i < a.len() && j < b.len() {
                match a[i].cmp(&b[j]) {
                    std::cmp::Ordering::Less => i += 1,
                    std::cmp::Ordering::Greater => j += 1,
                    std::cmp::Ordering::Equal => {
                        count += 1;
                        i += 1;
                        j += 1;
                    }
                }
            }
        }
    }
    count
}

/// Checks a BFS result with parents from `source`: `levels` equal the CPU BFS
/// ([`bfs_levels`]), then the tree ([`check_bfs_tree`]). The error names the first vertex that
/// breaks a rule.
pub fn check_bfs_parents(
    g: &Graph,
    source: u32,
    levels: &[u32],
    parents: &[u32],
) -> Result<(), String> {
    compare("levels", &bfs_levels(g, source), levels)?;
    check_bfs_tree(g, source, levels, parents)
}

/// Checks a BFS parent tree against levels already compared with the CPU BFS (a caller that runs
/// many BFS from one source computes those once): `parents[source] == source`, every other
/// reached vertex `v` has an edge `parents[v] -> v` with `levels[parents[v]] + 1 == levels[v]`,
/// and every unreached vertex has parent [`UNREACHED`]. The error names the first vertex that
/// breaks a rule.
pub fn check_bfs_tree(
    g: &Graph,
    source: u32,
    levels: &[u32],
    parents: &[u32],
) -> Result<(), String> {
    let n = g.vertices();
    if parents.len() != n || levels.len() != n {
        return Err(format!(
            "{} levels and {} parents for {n} vertices",
            levels.len(),
            parents.len()
        ));
    }
    if parents[source as usize] != source {
        return Err(format!(
            "the source {source} has parent {}, not itself",
            parents[source as usize]
        ));
    }
    // The children each vertex is claimed to have, grouped by parent (a counting sort), so that
    // each parent's edges are read once however many children it has.
    let mut claimed = vec![0usize; n + 1];
    for v in (0..n).filter(|&v| v != source as usize) {
        let (p, l) = (parents[v], levels[v]);
        if l == UNREACHED {
            if p != UNREACHED {
                return Err(format!("vertex {v} is unreached but has parent {p}"));
            }
            continue;
        }
        if p as usize >= n {
            return Err(format!(
                "vertex {v} (level {l}) has parent {p}, not a vertex"
            ));
        }
        if levels[p as usize] == UNREACHED || levels[p as usize] + 1 != l {
            return Err(format!(
                "vertex {v} (level {l}) has parent {p} at level {}",
                levels[p as usize]
            ));
        }
        claimed[p as usize + 1] += 1;
    }
    for v in 0..n {
        claimed[v + 1] += claimed[v];
    }
    let mut children = vec![0u32; claimed[n]];
    let mut next = claimed.clone();
    for v in (0..n).filter(|&v| v != source as usize && levels[v] != UNREACHED) {
        let p = parents[v] as usize;
        children[next[p]] = v as u32;
        next[p] += 1;
    }
    // `mark[u] == p + 1`: u is a head of an edge of p.
    let mut mark = vec![0usize; n];
    for p in 0..n {
        let kids = &children[claimed[p]..claimed[p + 1]];
        if kids.is_empty() {
            continue;
        }
        for (u, _) in g.out_edges(p) {
            mark[u] = p + 1;
        }
        if let Some(&v) = kids.iter().find(|&&v| mark[v as usize] != p + 1) {
            return Err(format!(
                "vertex {v} has parent {p}, but there is no edge {p} -> {v}"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 0 -> 1, 1 -> 2, 2 -> 0 (a directed triangle), 2 -> 3, 3 -> 3 (a self-loop), 1 -> 0 twice
    /// (a repeat, heavier), 4 alone, 5 -> 6.
    fn small() -> Graph {
        Graph::from_edges(
            7,
            &[
                (0, 1, 5),
                (1, 2, 1),
                (2, 0, 2),
                (2, 3, 4),
                (3, 3, 9),
                (1, 0, 7),
                (1, 0, 3),
                (5, 6, 1),
            ],
        )
        .unwrap()
    }

    #[test]
    fn symmetric_is_the_simple_undirected_view() {
        let s = small().symmetric();
        assert_eq!(s.vertices(), 7);
        assert_eq!(s.offsets(), [0, 2, 4, 7, 8, 8, 9, 10]);
        assert_eq!(s.adj(), [1, 2, 0, 2, 0, 1, 3, 2, 6, 5]);
        // 0 - 1: weights 5 (0 -> 1), 7 and 3 (1 -> 0): the smallest, 3, both ways.
        assert_eq!(s.weights(), [3, 2, 3, 1, 2, 1, 4, 4, 1, 1]);
        assert_eq!(s.symmetric(), s, "already symmetric");
        assert_eq!(Graph::from_edges(0, &[]).unwrap().symmetric().vertices(), 0);
    }

    #[test]
    fn transpose_reverses_every_edge() {
        let t = small().transpose();
        assert_eq!(t.offsets(), [0, 3, 4, 5, 7, 7, 7, 8]);
        // Tails in increasing order, repeats and the self-loop kept, weights with their edges.
        assert_eq!(t.adj(), [1, 1, 2, 0, 1, 2, 3, 5]);
        assert_eq!(t.weights(), [7, 3, 2, 5, 1, 4, 9, 1]);
        assert_eq!(t.transpose().edges(), small().edges());
        assert_eq!(Graph::from_edges(0, &[]).unwrap().transpose().vertices(), 0);
    }

    #[test]
    fn components_are_labelled_by_their_smallest_vertex() {
        assert_eq!(components(&small()), [0, 0, 0, 0, 4, 5, 5]);
        // Edges only from larger to smaller ids, so that a union must relabel a root.
        let g = Graph::from_edges(6, &[(5, 3, 1), (4, 2, 1), (3, 1, 1), (2, 0, 1)]).unwrap();
        assert_eq!(components(&g), [0, 1, 0, 1, 0, 1]);
        assert!(components(&Graph::from_edges(0, &[]).unwrap()).is_empty());
    }

    #[test]
    fn triangles_of_small_graphs() {
        assert_eq!(triangles(&small()), 1);
        // K4 has 4 triangles, K5 10, whatever the directions and repeats.
        let complete = |n: u32| {
            let mut e = Vec::new();
            for a in 0..n {
                for b in 0..n {
                    if a < b || (a + b) % 3 == 0 {
                        e.push((a, b, 1));
                    }
                }
            }
            Graph::from_edges(n as usize, &e).unwrap()
        };
        assert_eq!(triangles(&complete(4)), 4);
        assert_eq!(triangles(&complete(5)), 10);
        // A 4-cycle with one chord: 2 triangles; a star: none.
        let g =
            Graph::from_edges(4, &[(0, 1, 1), (1, 2, 1), (2, 3, 1), (3, 0, 1), (0, 2, 1)]).unwrap();
        assert_eq!(triangles(&g), 2);
        let star = Graph::from_edges(5, &[(0, 1, 1), (0, 2, 1), (0, 3, 1), (0, 4, 1)]).unwrap();
        assert_eq!(triangles(&star), 0);
    }

    #[test]
    fn pagerank_of_small_graphs() {
        // A directed cycle: uniform, whatever the damping.
        let cycle = Graph::from_edges(4, &[(0, 1, 1), (1, 2, 1), (2, 3, 1), (3, 0, 1)]).unwrap();
        for r in pagerank(&cycle, 0.85, 30) {
            assert!((r - 0.25).abs() < 1e-12);
        }
        // 0 -> 1, 1 dangling: one iteration by hand. Start 1/2 each; dangling = 1/2;
        // rank'[0] = 0.15/2 + 0.85 * (0.5/2) = 0.2875; rank'[1] = 0.2875 + 0.85 * 0.5 = 0.7125.
        let g = Graph::from_edges(2, &[(0, 1, 1)]).unwrap();
        assert_eq!(pagerank(&g, 0.85, 0), [0.5, 0.5]);
        let r = pagerank(&g, 0.85, 1);
        assert!(
            (r[0] - 0.2875).abs() < 1e-15 && (r[1] - 0.7125).abs() < 1e-15,
            "{r:?}"
        );
        // The ranks keep summing to 1 with dangling vertices, repeats and self-loops.
        let r = pagerank(&small(), 0.85, 50);
        assert!((r.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        // 4 (isolated, dangling) gets only the uniform share; 6 gets 5's rank too.
        assert!(r[6] > r[5] && (r[4] - r[5]).abs() < 1e-12, "{r:?}");
        assert!(pagerank(&Graph::from_edges(0, &[]).unwrap(), 0.85, 3).is_empty());
    }

    #[test]
    fn bfs_parents_are_checked() {
        let g = small();
        // Levels from 0: 0, 1, 2, 3; 4, 5, 6 unreached.
        let levels = [0, 1, 2, 3, UNREACHED, UNREACHED, UNREACHED];
        let u = UNREACHED;
        let good = [0, 0, 1, 2, u, u, u];
        assert_eq!(check_bfs_parents(&g, 0, &levels, &good), Ok(()));
        let wrong = |parents: &[u32], levels: &[u32]| check_bfs_parents(&g, 0, levels, parents);
        assert!(wrong(&[1, 0, 1, 2, u, u, u], &levels)
            .unwrap_err()
            .contains("source"));
        assert!(wrong(&[0, 0, 0, 2, u, u, u], &levels)
            .unwrap_err()
            .contains("level 0"));
        assert!(wrong(&[0, 0, 1, 2, 0, u, u], &levels)
            .unwrap_err()
            .contains("unreached"));
        assert!(wrong(&[0, 0, 1, 9, u, u, u], &levels)
            .unwrap_err()
            .contains("not a vertex"));
        assert!(wrong(&good, &[0, 1, 2, 2, u, u, u])
            .unwrap_err()
            .contains("levels"));
        // Levels right, parent one level up, but no edge from it.
        let g2 = Graph::from_edges(4, &[(0, 1, 1), (0, 2, 1), (1, 3, 1)]).unwrap();
        let l2 = [0, 1, 1, 2];
        assert_eq!(check_bfs_parents(&g2, 0, &l2, &[0, 0, 0, 1]), Ok(()));
        let e = check_bfs_parents(&g2, 0, &l2, &[0, 0, 0, 2]).unwrap_err();
        assert!(e.contains("no edge 2 -> 3"), "{e}");
        assert!(check_bfs_parents(&g2, 0, &l2, &[0, 0, 0]).is_err());
        // The tree alone, levels taken as given.
        assert_eq!(check_bfs_tree(&g2, 0, &l2, &[0, 0, 0, 1]), Ok(()));
        assert!(check_bfs_tree(&g2, 0, &l2, &[0, 0, 0, 2]).is_err());
    }
}

//! The host side of the graph algorithms (`loops::graph`), no GPU: the direction
//! switch of the direction-optimizing BFS, the graphs the kernels are given (the runtime's
//! symmetric and transposed views, the oriented graph of triangle counting), and the runtime's CPU
//! references (`loops::graph`) checked against brute force on random graphs.
// Vertex loops index several arrays by the vertex.
#![allow(clippy::needless_range_loop)]

use loops::graph::reference::{
    bfs_levels, check_bfs_parents, check_bfs_tree, components, core_numbers, pagerank, triangles,
};
use loops::graph::{
    chunk_offsets, next_direction, oriented_by_degree, undirected_edges_reached, Direction, Graph,
    LevelCounts, Switch, UNREACHED,
};

fn counts(frontier: u64, previous: u64, edges: u64, unexplored: u64) -> LevelCounts {
    LevelCounts {
        vertices: 2400,
        frontier,
        previous_frontier: previous,
        frontier_edges: edges,
        unexplored_edges: unexplored,
    }
}

#[test]
fn push_turns_to_pull_when_the_frontier_edges_pass_the_unexplored_over_alpha() {
    let s = Switch::BEAMER;
    // 14 * 100 = 1400: not above 1400, above 1399.
    assert_eq!(
        next_direction(s, Direction::Push, counts(10, 1, 100, 1400)),
        Direction::Push
    );
    assert_eq!(
        next_direction(s, Direction::Push, counts(10, 1, 100, 1399)),
        Direction::Pull
    );
    // Push-only never pulls; no overflow at the extremes.
    let huge = counts(u64::MAX, 1, u64::MAX, 0);
    assert_eq!(
        next_direction(Switch::PUSH_ONLY, Direction::Push, huge),
        Direction::Push
    );
    assert_eq!(
        next_direction(Switch::BEAMER, Direction::Push, huge),
        Direction::Pull
    );
    assert_eq!(
        next_direction(
            Switch::PULL_ALWAYS,
            Direction::Push,
            counts(1, 1, 2, u64::MAX)
        ),
        Direction::Pull
    );
    // A frontier without out-edges has nothing to pull for.
    assert_eq!(
        next_direction(Switch::PULL_ALWAYS, Direction::Push, counts(1, 1, 0, 0)),
        Direction::Push
    );
    assert_eq!(Switch::default(), Switch::BEAMER);
}

#[test]
fn pull_stays_while_the_frontier_grows_or_is_above_vertices_over_beta() {
    let s = Switch::BEAMER;
    // Growing: stays, however small.
    assert_eq!(
        next_direction(s, Direction::Pull, counts(5, 5, 0, 0)),
        Direction::Pull
    );
    // Shrinking: stays while 24 * frontier > 2400, i.e. above 100 vertices.
    assert_eq!(
        next_direction(s, Direction::Pull, counts(101, 500, 0, 0)),
        Direction::Pull
    );
    assert_eq!(
        next_direction(s, Direction::Pull, counts(100, 500, 0, 0)),
        Direction::Push
    );
    // An empty frontier ends the search: push, whatever the switch.
    assert_eq!(
        next_direction(Switch::PULL_ALWAYS, Direction::Pull, counts(0, 0, 0, 0)),
        Direction::Push
    );
    assert_eq!(
        next_direction(Switch::PULL_ALWAYS, Direction::Pull, counts(1, 500, 0, 0)),
        Direction::Pull
    );
    assert_eq!(
        next_direction(Switch::PUSH_ONLY, Direction::Pull, counts(1, 500, 0, 0)),
        Direction::Push
    );
}

/// A directed graph with a self-loop, a repeated edge, two components and an isolated vertex.
fn small() -> Graph {
    Graph::from_edges(
        8,
        &[
            (0, 1, 1),
            (1, 2, 1),
            (2, 0, 1),
            (2, 3, 1),
            (3, 3, 1),
            (1, 2, 1),
            (3, 1, 1),
            (5, 6, 1),
            (7, 6, 1),
        ],
    )
    .unwrap()
}

#[test]
fn symmetric_transposed_and_oriented_graphs() {
    let g = small();
    let s = g.symmetric();
    assert_eq!(s.vertices(), 8);
    for v in 0..8 {
        let heads: Vec<usize> = s.out_edges(v).map(|(u, _)| u).collect();
        assert!(heads.windows(2).all(|w| w[0] < w[1]), "{v}: {heads:?}");
        for &u in &heads {
            assert!(s.out_edges(u).any(|(x, _)| x == v), "{v} -> {u} one way");
        }
    }
    // The self-loop 3 -> 3 is not in the symmetric view.
    assert_eq!(s.out_edges(3).map(|(u, _)| u).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(s.degree(4), 0);
    let t = g.transpose();
    assert_eq!(t.edges(), g.edges());
    assert_eq!(t.out_edges(2).map(|(u, _)| u).collect::<Vec<_>>(), [1, 1]);
    // Oriented: simple (no self-loop, no repeats), each undirected edge once, upwards, sorted.
    let o = oriented_by_degree(&g);
    assert_eq!(o.edges(), 7);
    for v in 0..8 {
        let heads: Vec<usize> = o.out_edges(v).map(|(u, _)| u).collect();
        assert!(heads.iter().all(|&u| u > v), "{v}: {heads:?}");
        assert!(heads.windows(2).all(|w| w[0] < w[1]), "{v}: {heads:?}");
    }
    assert_eq!(chunk_offsets(5, 2), [0, 2, 4, 5]);
    assert_eq!(chunk_offsets(4, 2), [0, 2, 4]);
    assert_eq!(chunk_offsets(0, 2), [0]);
}

/// Triangles by brute force over vertex triples of the simple undirected view.
fn triangles_brute(g: &Graph) -> u64 {
    let n = g.vertices();
    let mut adj = vec![vec![false; n]; n];
    for v in 0..n {
        for (u, _) in g.out_edges(v) {
            if u != v {
                adj[v][u] = true;
                adj[u][v] = true;
            }
        }
    }
    let mut count = 0;
    for a in 0..n {
        for b in a + 1..n {
            for c in b + 1..n {
                count += (adj[a][b] && adj[b][c] && adj[a][c]) as u64;
            }
        }
    }
    count
}

/// A seeded random graph (a linear congruential generator: no dependency needed).
fn random_graph(n: u32, edges: usize, seed: u64) -> Graph {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) as u32
    };
    let list: Vec<(u32, u32, u32)> = (0..edges).map(|_| (next() % n, next() % n, 1)).collect();
    Graph::from_edges(n as usize, &list).unwrap()
}

#[test]
fn triangles_against_brute_force() {
    assert_eq!(triangles(&small()), 2);
    // A complete graph on 6 vertices: C(6, 3) triangles, given one way, with repeats.
    let mut k6 = Vec::new();
    for a in 0..6u32 {
        for b in 0..a {
            k6.extend([(a, b, 1), (a, b, 1)]);
        }
    }
    assert_eq!(triangles(&Graph::from_edges(6, &k6).unwrap()), 20);
    for seed in 0..20 {
        let g = random_graph(40, 200, seed);
        let want = triangles_brute(&g);
        assert_eq!(triangles(&g), want, "seed {seed}");
        // The oriented graph's triangles, found as the kernel does: a head of u among v's heads
        // above u.
        let o = oriented_by_degree(&g);
        let mut found = 0;
        for v in 0..o.vertices() {
            let heads: Vec<usize> = o.out_edges(v).map(|(u, _)| u).collect();
            for (i, &u) in heads.iter().enumerate() {
                found += o
                    .out_edges(u)
                    .filter(|(w, _)| heads[i + 1..].binary_search(w).is_ok())
                    .count() as u64;
            }
        }
        assert_eq!(found, want, "oriented, seed {seed}");
    }
}

/// The k-core of the simple undirected view `s` by its definition: vertices of fewer than `k`
/// neighbours left removed until none is.
fn k_core_brute(s: &Graph, k: usize) -> Vec<bool> {
    let mut alive = vec![true; s.vertices()];
    loop {
        let low = (0..s.vertices())
            .find(|&v| alive[v] && s.out_edges(v).filter(|&(u, _)| alive[u]).count() < k);
        match low {
            Some(v) => alive[v] = false,
            None => return alive,
        }
    }
}

#[test]
fn core_numbers_against_the_definition() {
    assert_eq!(core_numbers(&small()), core_numbers(&small().symmetric()));
    for seed in 0..20 {
        let g = random_graph(40, 30 + 10 * seed as usize, seed);
        let s = g.symmetric();
        let cores = core_numbers(&g);
        let top = *cores.iter().max().unwrap() as usize;
        for k in 0..=top + 1 {
            let members = k_core_brute(&s, k);
            for v in 0..g.vertices() {
                assert_eq!(
                    members[v],
                    cores[v] as usize >= k,
                    "seed {seed}, k {k}, vertex {v}"
                );
            }
        }
    }
}

#[test]
fn components_against_a_search() {
    assert_eq!(components(&small()), [0, 0, 0, 0, 4, 5, 5, 5]);
    for seed in 0..20 {
        let g = random_graph(60, 50, seed);
        let s = g.symmetric();
        let labels = components(&g);
        // Each vertex's label is the smallest vertex its undirected BFS reaches.
        for v in 0..g.vertices() {
            let reach = bfs_levels(&s, v as u32);
            let smallest = reach.iter().position(|&l| l != UNREACHED).unwrap();
            assert_eq!(labels[v] as usize, smallest, "seed {seed}, vertex {v}");
        }
    }
}

#[test]
fn pagerank_sums_to_one_and_matches_a_dense_power_iteration() {
    let g = small();
    let n = g.vertices();
    let ranks = pagerank(&g, 0.85, 30);
    assert!((ranks.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    // The same iteration with a dense transition matrix.
    let mut m = vec![vec![0.0f64; n]; n];
    for u in 0..n {
        for (v, _) in g.out_edges(u) {
            m[v][u] += 1.0 / g.degree(u) as f64;
        }
        if g.degree(u) == 0 {
            for row in m.iter_mut() {
                row[u] += 1.0 / n as f64;
            }
        }
    }
    let mut r = vec![1.0 / n as f64; n];
    for _ in 0..30 {
        r = (0..n)
            .map(|v| 0.15 / n as f64 + 0.85 * (0..n).map(|u| m[v][u] * r[u]).sum::<f64>())
            .collect();
    }
    for v in 0..n {
        assert!(
            (r[v] - ranks[v]).abs() < 1e-12,
            "{v}: {} {}",
            r[v],
            ranks[v]
        );
    }
    assert!(pagerank(&Graph::from_edges(0, &[]).unwrap(), 0.85, 3).is_empty());
}

#[test]
fn bfs_parents_are_checked() {
    let s = small().symmetric();
    let levels = bfs_levels(&s, 0);
    assert_eq!(
        levels,
        [0, 1, 1, 2, UNREACHED, UNREACHED, UNREACHED, UNREACHED]
    );
    let good = [0, 0, 0, 1, UNREACHED, UNREACHED, UNREACHED, UNREACHED];
    assert_eq!(check_bfs_parents(&s, 0, &levels, &good), Ok(()));
    let mut other = good;
    other[3] = 2;
    assert_eq!(check_bfs_tree(&s, 0, &levels, &other), Ok(()));
    for (v, p) in [(3, 0), (0, 1), (4, 0), (2, 9), (1, 2)] {
        let mut bad = good;
        bad[v] = p;
        assert!(
            check_bfs_tree(&s, 0, &levels, &bad).is_err(),
            "parent {p} of {v}"
        );
    }
}

/// Graph500 counts its input edges, self-loops and repeats too; the benchmark's MTEPS count the
/// edges of the symmetric view, which has neither: the one difference, on purpose (every BFS
/// kernel runs on that view).
#[test]
fn graph500_edges_are_counted_on_the_simple_view() {
    let g = small();
    let s = g.symmetric();
    let levels = bfs_levels(&s, 0);
    // Among vertices 0..4: 0-1, 0-2, 1-2, 1-3, 2-3; the self-loop of 3 and the repeat of 1 -> 2
    // are not counted.
    assert_eq!(undirected_edges_reached(&s, &levels), 5);
    let input_edges = (0..4).map(|v| g.degree(v)).sum::<usize>();
    assert_eq!(input_edges, 7);
}

use super::device::{default_device_delta, default_hops};
use super::model::{bellman_ford_model, split_far, FarSplit};
use super::relax::default_relax_per_warp;
use super::*;
use crate::graph::{dijkstra, UNREACHED};
use rand::{Rng, SeedableRng};

fn random_graph(n: usize, m: usize, max_w: u32, seed: u64) -> Graph {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let edges: Vec<(u32, u32, u32)> = (0..m)
        .map(|_| {
            (
                rng.random_range(0..n as u32),
                rng.random_range(0..n as u32),
                rng.random_range(0..=max_w),
            )
        })
        .collect();
    Graph::from_edges(n, &edges).unwrap()
}

#[test]
fn the_model_equals_dijkstra_on_random_graphs() {
    for seed in 0..60u64 {
        let n = 1 + (seed as usize * 37) % 300;
        let m = (seed as usize * 101) % (4 * n + 1);
        // Zero weights too (a relaxation that does not lower is no improvement).
        let max_w = [0, 1, 5, 64, 1000][seed as usize % 5];
        let g = random_graph(n, m, max_w, seed);
        let source = (seed % n as u64) as u32;
        let want = dijkstra(&g, source);
        for delta in [1, 2, 7, 64, 1000, default_delta_of(&g), UNREACHED] {
            let (got, stats) = near_far_model(&g, source, delta);
            assert_eq!(got, want, "seed {seed}, delta {delta}");
            assert!(stats.rounds >= 1 && (stats.advances >= 1 || delta == UNREACHED));
            for hops in [
                Hops::two(2),
                Hops {
                    hops: 3,
                    max_degree: 8,
                },
                Hops {
                    hops: 8,
                    max_degree: 8,
                },
            ] {
                let (got, more) = near_far_model_hops(&g, source, delta, hops);
                assert_eq!(got, want, "seed {seed}, delta {delta}, {hops:?}");
                assert!(more.rounds <= stats.rounds.max(1) + stats.advances);
            }
        }
    }
}

#[test]
fn buckets_on_a_path_and_a_gap() {
    // A path 0 -> 1 -> 2 -> 3 of weights 10, 10, 1000 (a gap the threshold jumps over).
    let g = Graph::from_edges(4, &[(0, 1, 10), (1, 2, 10), (2, 3, 1000)]).unwrap();
    let (dist, stats) = near_far_model(&g, 0, 15);
    assert_eq!(dist, [0, 10, 20, 1020]);
    // Rounds: {0}, {1} (10 < 15); advance to 30: {2}; 1020 far: advance to 45 finds nothing
    // near, jumps to 1020 + 15: {3}; the last advance finds both piles empty.
    assert_eq!(stats.rounds, 4);
    assert_eq!(stats.advances, 4);
    assert_eq!(stats.relaxed_edges, 3);
    // Bellman-Ford: the same 4 rounds here, and no advance (its one bucket holds every
    // distance).
    let (dist, bf) = bellman_ford_model(&g, 0);
    assert_eq!(dist, [0, 10, 20, 1020]);
    assert_eq!((bf.rounds, bf.advances, bf.relaxed_edges), (4, 0, 3));
}

/// A far vertex lowered below the threshold later is relaxed once, not again at the advance.
#[test]
fn a_far_vertex_lowered_into_the_near_bucket_is_relaxed_once() {
    // 0 -> 2 (50: far under delta 10), 0 -> 1 (1), 1 -> 2 (1): 2 is flagged far, then near.
    let g = Graph::from_edges(4, &[(0, 2, 50), (0, 1, 1), (1, 2, 1), (2, 3, 1)]).unwrap();
    let (dist, stats) = near_far_model(&g, 0, 10);
    assert_eq!(dist, [0, 1, 2, 3]);
    assert_eq!(stats.relaxed_edges, 4, "each vertex's edges once");
    assert_eq!(stats.frontier_vertices, 4);
}

/// Hops on a path of unit weights: a round relaxes three edges, so a bucket of 10 takes 4
/// rounds (from 0, 3, 6, 9), and a head of more out-edges than the limit is flagged instead.
#[test]
fn hops_shorten_the_rounds_of_a_path() {
    let edges: Vec<(u32, u32, u32)> = (0..99u32).map(|v| (v, v + 1, 1)).collect();
    let path = Graph::from_edges(100, &edges).unwrap();
    let want: Vec<u32> = (0..100).collect();
    let (dist, one) = near_far_model(&path, 0, 10);
    assert_eq!(dist, want);
    assert_eq!((one.rounds, one.advances, one.relaxed_edges), (100, 10, 99));
    let three = Hops {
        hops: 3,
        max_degree: 1,
    };
    let (dist, s) = near_far_model_hops(&path, 0, 10, three);
    assert_eq!(dist, want);
    assert_eq!((s.rounds, s.advances, s.relaxed_edges), (40, 10, 99));
    assert_eq!(
        s.frontier_vertices, 40,
        "the hops' heads are never in a frontier"
    );
    // Heads of degree 1 over a limit of 0: one hop.
    let (_, s) = near_far_model_hops(&path, 0, 10, Hops::two(0));
    assert_eq!((s.rounds, s.advances), (100, 10));
    assert_eq!(Hops::two(0), Hops::ONE);
}

#[test]
fn the_device_defaults() {
    // A road network (degree 2.5, mean weight 32.5) gets eight hops and a wide bucket; a
    // Kronecker graph (degree 32) one hop and one bucket.
    assert_eq!(
        default_hops(1000, 2500),
        Hops {
            hops: 8,
            max_degree: 8
        }
    );
    assert_eq!(default_hops(1000, 32_000), Hops::ONE);
    assert_eq!(default_hops(0, 0), Hops::ONE);
    // Mean weight 32.5: 1600 * 32.5 / 6.25 = 8320 on the road network.
    assert_eq!(default_device_delta(1000, 2500, 2500 * 65 / 2), 8320);
    // At degree 32 (from 8 on): one bucket, Bellman-Ford's rounds.
    assert_eq!(
        default_device_delta(1000, 32_000, 32_000 * 65 / 2),
        UNREACHED
    );
    assert_eq!(default_device_delta(1000, 8_000, 8_000 * 65 / 2), UNREACHED);
    // Below it, at least 64 mean weights: degree 6, 1600 / 36 = 44 -> 64 (2080).
    assert_eq!(default_device_delta(1000, 6_000, 6_000 * 65 / 2), 2080);
    assert_eq!(default_relax_per_warp(1000, 2500), 1);
    assert_eq!(default_relax_per_warp(1000, 1500), 2);
    assert_eq!(default_relax_per_warp(1000, 32_000), 1);
    assert_eq!(default_relax_per_warp(0, 0), 1);
    assert_eq!(default_device_delta(0, 0, 0), 1);
}

#[test]
fn split_far_drops_moves_and_keeps() {
    let dist = [5, 10, 19, 20, 40, UNREACHED];
    let mut far = [true, true, true, true, true, false];
    let mut near = [false; 6];
    let split = split_far(&dist, &mut far, &mut near, 10, 20);
    assert_eq!(far, [false, false, false, true, true, false]);
    assert_eq!(near, [false, true, true, false, false, false]);
    assert_eq!(
        split,
        FarSplit {
            far_left: 2,
            far_min: 20
        }
    );
}

#[test]
fn default_delta_follows_weights_and_degree() {
    // Mean weight 32.5, mean degree 2.5: 100 * 32.5 / 6.25 = 520; degree 32: 3.17.
    assert_eq!(default_delta(1000, 2500, 2500 * 65 / 2), 520);
    assert_eq!(default_delta(1000, 32_000, 32_000 * 65 / 2), 3);
    assert_eq!(default_delta(10, 5, 5), 100, "degree under 1 counts as 1");
    assert_eq!(default_delta(0, 0, 0), 1);
    assert_eq!(default_delta(1000, 100_000, 100_000), 1);
}

/// The device loop's levels (`rounds + advances + 1`) and relaxed edges of near-far with one
/// and two hops, over deltas, against Bellman-Ford's levels, on the graph classes of the
/// delta fit (`cargo test --release -p loops-runtime --lib near_far_device_levels --
/// --ignored --nocapture`; `LOOPS_NEAR_FAR_GRAPHS=road,grid,kron,road_held` picks some).
#[test]
#[ignore = "a measurement: run in release mode with --nocapture"]
fn near_far_device_levels() {
    let pick = std::env::var("LOOPS_NEAR_FAR_GRAPHS")
        .unwrap_or_else(|_| "road,grid,kron,road_held,powerlaw".into());
    let mut graphs: Vec<(&str, Graph)> = Vec::new();
    let from = |m: &sprs::CsMat<f32>| Graph::from_pattern(m, 64, 2024).unwrap();
    for name in pick.split(',') {
        let g = match name {
            "road" => from(&crate::generate::road::<f32>(1_000_000, 2024)),
            "road_held" => from(&crate::generate::road::<f32>(300_000, 7)),
            "grid" => from(&crate::generate::grid2d::<f32>(2048, 2048, 2024)),
            "grid_held" => from(&crate::generate::grid2d::<f32>(1000, 1000, 7)),
            "kron" => from(&crate::generate::kronecker::<f32>(20, 16, 2024)),
            "kron18" => from(&crate::generate::kronecker::<f32>(18, 16, 2024)),
            "powerlaw" => from(&crate::generate::power_law::<f32>(
                1 << 20,
                1 << 20,
                16.0,
                2.0,
                false,
                2024,
            )),
            other => panic!("unknown graph {other}"),
        };
        graphs.push((name, g));
    }
    for (name, g) in graphs {
        let source = g.max_degree_vertex().unwrap();
        let (want, bf) = bellman_ford_model(&g, source);
        let weight_sum: u64 = g.weights().iter().map(|&w| w as u64).sum();
        let mean_w = weight_sum as f64 / g.edges().max(1) as f64;
        println!(
            "{name}: {} vertices, {} edges, mean degree {:.2}; Bellman-Ford {} levels, {} \
             relaxed",
            g.vertices(),
            g.edges(),
            g.edges() as f64 / g.vertices() as f64,
            bf.rounds + 1,
            bf.relaxed_edges
        );
        for hops in [
            Hops::ONE,
            Hops::two(4),
            Hops::two(16),
            Hops {
                hops: 3,
                max_degree: 16,
            },
        ] {
            for scale in [1.0, 4.0, 16.0, 64.0, 256.0, 1024.0] {
                let delta = (mean_w * scale).round().max(1.0) as u32;
                let (dist, s) = near_far_model_hops(&g, source, delta, hops);
                assert_eq!(dist, want);
                let levels = s.rounds + s.advances + 1;
                println!(
                    "  hops {} (degree <= {:>2}) delta {scale:>6} x mean weight: {levels:>6} \
                     levels ({:>6} rounds, {:>5} advances, {:.2}x BF's), {:>10} relaxed \
                     ({:.3}x BF's)",
                    hops.hops,
                    hops.max_degree,
                    s.rounds,
                    s.advances,
                    levels as f64 / (bf.rounds + 1) as f64,
                    s.relaxed_edges,
                    s.relaxed_edges as f64 / bf.relaxed_edges as f64
                );
            }
        }
    }
}

/// The relaxed edges and rounds of near-far (default delta and others) against Bellman-Ford
/// on a road graph and a Kronecker graph (`cargo test --release -p loops-runtime --lib
/// near_far_relaxations -- --ignored --nocapture`).
#[test]
#[ignore = "a measurement: run in release mode with --nocapture"]
fn near_far_relaxations() {
    let graphs: Vec<(String, Graph)> = vec![
        (
            "road 1e6".into(),
            Graph::from_pattern(&crate::generate::road::<f32>(1_000_000, 2024), 64, 2024).unwrap(),
        ),
        (
            "kronecker 18".into(),
            Graph::from_pattern(&crate::generate::kronecker::<f32>(18, 16, 2024), 64, 2024)
                .unwrap(),
        ),
        (
            "road 1e6, weights 1..=1000".into(),
            Graph::from_pattern(&crate::generate::road::<f32>(1_000_000, 2024), 1000, 2024)
                .unwrap(),
        ),
    ];
    for (name, g) in graphs {
        let source = g.max_degree_vertex().unwrap();
        let want = dijkstra(&g, source);
        let reached_edges = super::super::traversed_edges(&g, &want);
        let (_, bf) = bellman_ford_model(&g, source);
        println!(
            "{name}: {} vertices, {} edges, reached edges {reached_edges}; Bellman-Ford {} \
             rounds, {} relaxed ({:.2}x)",
            g.vertices(),
            g.edges(),
            bf.rounds,
            bf.relaxed_edges,
            bf.relaxed_edges as f64 / reached_edges as f64
        );
        let d0 = default_delta_of(&g);
        let mut deltas = vec![d0 / 16, d0 / 4, d0, d0 * 4, d0 * 16];
        deltas.retain(|&d| d >= 1);
        for delta in deltas {
            let (dist, s) = near_far_model(&g, source, delta);
            assert_eq!(dist, want);
            println!(
                "  delta {delta:>6}{}: {:>6} rounds {:>6} advances, {:>10} relaxed ({:.2}x \
                 reached, {:.2}x Bellman-Ford's)",
                if delta == d0 {
                    " (default)"
                } else {
                    "          "
                },
                s.rounds,
                s.advances,
                s.relaxed_edges,
                s.relaxed_edges as f64 / reached_edges as f64,
                s.relaxed_edges as f64 / bf.relaxed_edges as f64
            );
        }
    }
}

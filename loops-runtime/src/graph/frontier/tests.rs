//! The frontier loop's CPU tests: the queue run's large frontiers, the compaction's walk.

use super::queue::runs_alone;
use super::*;
use proptest::prelude::*;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

#[test]
fn large_frontiers_run_alone_from_the_limit() {
    // Never without a limit, whatever the sizes.
    assert_eq!(runs_alone(0, 0, 1, 1 << 20, None), None);
    assert_eq!(runs_alone(3, 1 << 20, 1, 1 << 20, None), None);
    // The first level: alone where the loop could hold a large frontier, with the sources'
    // size; else in a whole batch (a small graph).
    assert_eq!(runs_alone(0, 0, 1, 100_000, Some(8448)), Some(1));
    assert_eq!(runs_alone(0, 0, 3, 4096, Some(8448)), None);
    // Later levels: by the frontier read back.
    assert_eq!(runs_alone(1, 8448, 1, 100_000, Some(8448)), Some(8448));
    assert_eq!(runs_alone(7, 8447, 1, 100_000, Some(8448)), None);
    // 0: every direct level alone, the first one too.
    assert_eq!(runs_alone(0, 0, 1, 1, Some(0)), Some(1));
    assert_eq!(runs_alone(5, 0, 1, 1, Some(0)), Some(0));
}

#[test]
fn the_walk_plan_covers_the_largest_degree() {
    assert_eq!(walk_plan(0), (1, 1));
    assert_eq!(walk_plan(1), (1, 1));
    assert_eq!(walk_plan(5), (8, 1));
    assert_eq!(walk_plan(32), (32, 1));
    assert_eq!(walk_plan(33), (32, 2));
    assert_eq!(walk_plan(100_000), (32, 3125));
    assert_eq!(walk_plan(u32::MAX - 1), (32, u32::MAX / 32 + 1));
    for d in 0..2000u32 {
        let (lanes, chunks) = walk_plan(d);
        assert!(lanes.is_power_of_two() && lanes <= 32, "{d}");
        assert!(lanes * chunks >= d, "{d}");
        // No smaller plan covers it: a vertex of the largest degree leaves no item empty.
        assert!(lanes * (chunks - 1) < d.max(1), "{d}");
    }
    // The choice: unknown degrees scan; the limit bounds the lanes.
    assert!(!compaction_walks(1, UNKNOWN_DEGREE, u64::MAX));
    assert!(compaction_walks(2_000, 5, default_walk_limit(1 << 22)));
    assert!(!compaction_walks(100_000, 5, default_walk_limit(1 << 20)));
    assert!(compaction_walks(1, 100_000, default_walk_limit(1 << 20)));
    assert!(!compaction_walks(1, 1, 0));
    assert!(compaction_walks(0, 1, 0));
}

/// The lanes of the walk, as `loops_walk_rounds` runs them on a grid of `warps` warps: for
/// each lane that has an item, the frontier position and the edge index within the vertex it
/// reads (if the vertex has that many edges).
fn walk_lanes(size: u32, max_degree: u32, warps: u64) -> Vec<(usize, u64)> {
    let (lanes, chunks) = walk_plan(max_degree);
    let items_per_warp = (32 / lanes) as u64;
    let items = size as u64 * chunks as u64;
    let mut out = Vec::new();
    for w in 0..warps {
        let mut first = w * items_per_warp;
        while first < items {
            for lane in 0..32u32 {
                let item = first + (lane / lanes) as u64;
                if item < items {
                    let k = (item % chunks as u64) * lanes as u64 + (lane & (lanes - 1)) as u64;
                    out.push(((item / chunks as u64) as usize, k));
                }
            }
            first += warps * items_per_warp;
        }
    }
    out
}

/// The walk on the CPU: every lane's claim (a plain read, which may see the flag as the level
/// left it or as another lane's exchange left it, then the exchange) in a random order,
/// as the lanes of a grid may interleave. Returns the claimed heads and their largest degree.
fn walk_model(
    offsets: &[usize],
    adj: &[u32],
    frontier: &[u32],
    flags: &mut [u32],
    warps: u64,
    rng: &mut impl Rng,
) -> (Vec<u32>, u32) {
    let degree = |v: u32| (offsets[v as usize + 1] - offsets[v as usize]) as u32;
    let max_degree = frontier.iter().map(|&v| degree(v)).max().unwrap_or(0);
    let mut lanes = walk_lanes(frontier.len() as u32, max_degree, warps);
    lanes.shuffle(rng);
    let before = flags.to_vec();
    let (mut claimed, mut largest) = (Vec::new(), 0);
    for (pos, k) in lanes {
        let v = frontier[pos];
        if k >= degree(v) as u64 {
            continue;
        }
        let u = adj[offsets[v as usize] + k as usize] as usize;
        let seen = if rng.random() { before[u] } else { flags[u] };
        if seen != 0 && std::mem::replace(&mut flags[u], 0) != 0 {
            claimed.push(u as u32);
            largest = largest.max(degree(u as u32));
        }
    }
    (claimed, largest)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Each position and edge of the frontier is read by exactly one lane, for any grid.
    #[test]
    fn the_walk_reads_each_edge_once(
        degrees in proptest::collection::vec(0u32..200, 0..40),
        warps in 1u64..9,
    ) {
        let max_degree = degrees.iter().copied().max().unwrap_or(0);
        let mut seen = std::collections::HashMap::new();
        for (pos, k) in walk_lanes(degrees.len() as u32, max_degree, warps) {
            *seen.entry((pos, k)).or_insert(0u32) += 1;
        }
        for (pos, &d) in degrees.iter().enumerate() {
            for k in 0..d as u64 {
                prop_assert_eq!(seen.get(&(pos, k)).copied(), Some(1), "{} {}", pos, k);
            }
        }
        // The lanes past a vertex's degree read nothing; no lane is counted twice.
        prop_assert!(seen.values().all(|&c| c == 1));
    }

    /// A push step's flags (heads of out-edges of the frontier) are each claimed once, all
    /// cleared, and the largest degree of the claimed is kept.
    #[test]
    fn the_walk_claims_each_flag_once(
        n in 1usize..60,
        seed in any::<u64>(),
        warps in 1u64..6,
    ) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        // Degrees up to 80: items of one and of several chunks; repeated edges, self-loops.
        let mut offsets = vec![0usize];
        let mut adj = Vec::new();
        for _ in 0..n {
            let d = if rng.random_bool(0.1) { rng.random_range(33..80) } else { rng.random_range(0..6) };
            adj.extend((0..d).map(|_| rng.random_range(0..n as u32)));
            offsets.push(adj.len());
        }
        // A frontier with repeats, and flags on some of its out-neighbours.
        let frontier: Vec<u32> = (0..rng.random_range(1..n + 3))
            .map(|_| rng.random_range(0..n as u32))
            .collect();
        let mut flags = vec![0u32; n];
        for &v in &frontier {
            for &u in &adj[offsets[v as usize]..offsets[v as usize + 1]] {
                if rng.random_bool(0.4) {
                    flags[u as usize] = rng.random_range(1..4);
                }
            }
        }
        let mut want: Vec<u32> = (0..n as u32).filter(|&u| flags[u as usize] != 0).collect();
        let want_degree = want
            .iter()
            .map(|&u| (offsets[u as usize + 1] - offsets[u as usize]) as u32)
            .max()
            .unwrap_or(0);
        let (mut got, degree) = walk_model(&offsets, &adj, &frontier, &mut flags, warps, &mut rng);
        got.sort_unstable();
        want.sort_unstable();
        prop_assert_eq!(got, want);
        prop_assert!(flags.iter().all(|&f| f == 0));
        prop_assert_eq!(degree, want_degree);
    }
}

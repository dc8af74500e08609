//! The direction-optimizing run's rule and batches on the CPU against the host's rule.

use super::*;
use rand::{Rng, SeedableRng};

/// The host's rule (`loops::graph::next_direction`, restated here: the runtime does not see
/// the facade) over a level sequence, in 128-bit products.
#[allow(clippy::too_many_arguments)]
fn host_rule(
    last_pull: bool,
    frontier: u64,
    last_frontier: u64,
    found: u64,
    unexplored: u64,
    n: u64,
    alpha: u64,
    beta: u64,
) -> bool {
    if !last_pull {
        alpha > 0 && found > 0 && found as u128 * alpha as u128 > unexplored as u128
    } else {
        frontier > 0 && (frontier >= last_frontier || frontier as u128 * beta as u128 > n as u128)
    }
}

#[test]
fn long_runs_push_without_decisions_far_from_the_switch() {
    // A road-like run: 400 small levels on a graph of 10^6 edges, then a burst.
    let mut frontiers = vec![100u32; 400];
    let mut edges = vec![300u64; 400];
    frontiers.extend([200_000, 150_000, 100]);
    edges.extend([600_000, 400_000, 300]);
    let run = |f: &[u32], e: &[u64], per_replay| {
        directed_run_model(f, e, 500_000, 1_000_000, (14, 24), per_replay, u64::MAX)
    };
    // Level by level (as the first batch decides): the burst pulls.
    let mut state = DirectionState::start(1_000_000);
    for d in 0..frontiers.len() {
        let found = if d == 0 || state.last_pull {
            0
        } else {
            edges[d]
        };
        direction_model(&mut state, frontiers[d], found, 500_000, 14, 24);
    }
    assert_eq!(state.pull_levels, 2);
    // In batches: the burst comes inside a push-only replay and pushes (the rule's pull is
    // missed), so no level pulls; with replays of 6 levels the batch boundary falls nearer.
    assert_eq!(run(&frontiers, &edges, 48).pull_levels, 0);
    // The first batch (6 levels) decides level by level.
    assert_eq!(run(&frontiers[..6], &edges[..6], 48), {
        let mut s = DirectionState::start(1_000_000);
        for d in 0..6 {
            direction_model(&mut s, 100, if d == 0 { 0 } else { 300 }, 500_000, 14, 24);
        }
        s
    });
    // Push only never pulls and runs every batch push-only.
    let report = |last_pull, near, missed| Report {
        last_pull,
        near,
        missed,
    };
    assert!(push_only_next(report(true, true, true), true, 0, 0));
    assert_eq!(
        directed_run_model(&frontiers, &edges, 500_000, 1_000_000, (0, 0), 6, u64::MAX).pull_levels,
        0
    );
    // Not in the first levels, not after a pull or a miss, not near the switch on a large
    // frontier.
    assert!(!push_only_next(report(false, false, false), false, 0, 14));
    assert!(push_only_next(report(false, false, false), false, 6, 14));
    assert!(push_only_next(report(false, false, false), false, 30, 14));
    assert!(push_only_next(report(false, false, false), true, 30, 14));
    assert!(!push_only_next(report(true, false, false), false, 30, 14));
    assert!(!push_only_next(report(false, false, true), false, 30, 14));
    assert!(!push_only_next(report(false, true, false), true, 30, 14));
    // Near the switch on a small frontier (the end of a long traversal): push-only.
    assert!(push_only_next(report(false, true, false), false, 30, 14));
    // The end of a road-like run, where the unexplored edges run out under small frontiers:
    // the push-only batch that nears the switch there counts no miss, so no batch decides
    // and none pulls; were those frontiers large (beta 1000), the next batch would decide and
    // pull.
    let (tail_sizes, tail_edges) = (vec![100u32; 420], vec![300u64; 420]);
    let tail = |beta| {
        directed_run_model(
            &tail_sizes,
            &tail_edges,
            42_000,
            126_000,
            (14, beta),
            48,
            u64::MAX,
        )
    };
    assert_eq!(tail(24).pull_levels, 0);
    assert!(tail(1000).pull_levels > 0);
}

#[test]
fn the_device_rule_is_beamers() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(40);
    let rules = [(14, 24), (0, 0), (u64::MAX, u64::MAX), (1, 1), (3, 1000)];
    for case in 0..2000 {
        let (alpha, beta) = rules[case % rules.len()];
        let n: u32 = rng.random_range(1..100_000);
        let edges: u64 = rng.random_range(0..2_000_000);
        let mut state = DirectionState::start(edges);
        let (mut unexplored, mut last_pull, mut last_frontier) = (edges, false, 0u64);
        let (mut pulls, mut phases) = (0, 0);
        for _ in 0..30 {
            let frontier = rng.random_range(0..=n);
            let found = if last_pull {
                0
            } else {
                rng.random_range(0..=edges / 4 + 1)
            };
            let got = direction_model(&mut state, frontier, found, n, alpha, beta);
            if frontier == 0 {
                assert_eq!(got, None);
                continue;
            }
            if !last_pull {
                unexplored = unexplored.saturating_sub(found);
            }
            let want = host_rule(
                last_pull,
                frontier as u64,
                last_frontier,
                found,
                unexplored,
                n as u64,
                alpha,
                beta,
            );
            assert_eq!(got, Some(want), "case {case}");
            pulls += want as u32;
            phases += (want && !last_pull) as u32;
            (last_pull, last_frontier) = (want, frontier as u64);
            assert_eq!(state.unexplored, unexplored);
            assert_eq!(state.pull_levels, pulls);
            assert_eq!(state.pull_phases, phases);
        }
    }
    // Push only never pulls; the paper's switch pulls on a frontier of many edges.
    let mut s = DirectionState::start(1000);
    assert_eq!(direction_model(&mut s, 5, 900, 100, 0, 0), Some(false));
    let mut s = DirectionState::start(1000);
    assert_eq!(direction_model(&mut s, 5, 100, 100, 14, 24), Some(true));
    // Then back to push once the frontier shrinks to n / beta or below.
    assert_eq!(direction_model(&mut s, 10, 0, 100, 14, 24), Some(true));
    assert_eq!(direction_model(&mut s, 4, 0, 100, 14, 24), Some(false));
}

/// Two bursts apart (levels of 1, 100, 3,000, 1, 100, 3,000 vertices, the bursts' vertices of
/// degree 11): the run pulls, pushes across the bridge, then pulls again, all in its first batch.
#[test]
fn two_bursts_pull_twice() {
    let frontiers = [1u32, 100, 3000, 1, 100, 3000];
    let edges = [100u64, 3100, 33_000, 101, 3100, 33_000];
    let run = directed_run_model(&frontiers, &edges, 6202, 72_401, (14, 24), 96, u64::MAX);
    assert_eq!((run.pull_levels, run.pull_phases), (3, 2));
}

//! The CPU models of a direction-optimizing run's choices: `loops_do_decide` level by level
//! ([`direction_model`]), the whole run with its push-only batches ([`directed_run_model`]), and
//! the host's choice of the next batch from `loops_do_report`'s report ([`push_only_next`]).

use super::super::replay::{DIRECT_BATCH, DIRECT_LEVELS};

/// What the device keeps between the levels of a direction-optimizing run, as `loops_do_decide`
/// reads and writes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DirectionState {
    /// The last level pulled.
    pub last_pull: bool,
    /// The out-edges of the vertices no push step has reached: the graph's edges at the start,
    /// less each push step's reached vertices' edges.
    pub unexplored: u64,
    /// The last level's frontier.
    pub last_frontier: u32,
    /// The levels that pulled.
    pub pull_levels: u32,
    /// The runs of consecutive pull levels: 2 or more where a run pulled, pushed, then pulled
    /// again (the pull list must then still hold every unreached vertex; `loops_do_rest`).
    pub pull_phases: u32,
}

impl DirectionState {
    /// A run's start on a graph of `edges` edges: the source's level pushes.
    pub fn start(edges: u64) -> DirectionState {
        DirectionState {
            unexplored: edges,
            ..DirectionState::default()
        }
    }
}

/// `loops_do_decide` on the CPU: the direction of a level whose frontier has `frontier` vertices,
/// after the last level (`state`) whose push step (if it pushed) reached vertices of `found_edges`
/// out-edges, on a graph of `graph_vertices` vertices: `Some(true)` pull, `Some(false)` push,
/// `None` for an empty frontier (nothing runs, the state stays). Beamer's rule with `alpha` and
/// `beta`: after a push, pull when `found_edges * alpha > unexplored` (the unexplored edges less
/// `found_edges`; `alpha` 0 never pulls); after a pull, pull again while the frontier grows or
/// holds more than `graph_vertices / beta` vertices.
pub fn direction_model(
    state: &mut DirectionState,
    frontier: u32,
    found_edges: u64,
    graph_vertices: u32,
    alpha: u64,
    beta: u64,
) -> Option<bool> {
    if frontier == 0 {
        return None;
    }
    let pull = if !state.last_pull {
        state.unexplored = state.unexplored.saturating_sub(found_edges);
        alpha > 0 && found_edges > 0 && found_edges > state.unexplored / alpha
    } else {
        let growing = frontier >= state.last_frontier;
        let large = beta > 0 && frontier as u64 > graph_vertices as u64 / beta;
        growing || large
    };
    state.pull_phases += (pull && !state.last_pull) as u32;
    state.last_pull = pull;
    state.last_frontier = frontier;
    state.pull_levels += pull as u32;
    Some(pull)
}

/// The state a direction-optimizing run on the device ends with ([`DirectionState::pull_levels`]:
/// its pull levels), given its levels' frontier sizes (`frontiers[d]`: the vertices at level `d`,
/// none empty) and their out-edges (`frontier_edges[d]`), on a graph of `graph_vertices` vertices
/// and `graph_edges` edges, by Beamer's rule with `alpha` and `beta`, in a loop of `per_replay`
/// levels a replay that stops at `max` levels: [`direction_model`] at every level of a batch
/// that decides per level, its found edges those of the frontier the last level reached (counted
/// by its push step; 0 after a pull and at the first level); at a push-only batch's levels
/// (`loops_do_fold`), a push, the rule still run to fold the state, the found edges estimated
/// from the frontier's size at the graph's mean degree (but the first level's, carried in), a
/// level the rule would have pulled a miss only where its frontier is large (more than
/// `graph_vertices / beta`); the next batch by `push_only_next`.
#[allow(clippy::too_many_arguments)]
pub fn directed_run_model(
    frontiers: &[u32],
    frontier_edges: &[u64],
    graph_vertices: u32,
    graph_edges: u64,
    (alpha, beta): (u64, u64),
    per_replay: u64,
    max: u64,
) -> DirectionState {
    let mut state = DirectionState::start(graph_edges);
    let depth = frontiers.len() as u64;
    let size = |d: u64| frontiers.get(d as usize).copied().unwrap_or(0) as u64;
    let estimate =
        |d: u64| (size(d) * graph_edges / (graph_vertices.max(1) as u64)).min(u32::MAX as u64);
    let (mut issued, mut push_only, mut missed) = (0u64, alpha == 0, 0u32);
    // The device's `edges[0]`: what the decision of the next level reads as found.
    let mut carry = 0u64;
    while issued < depth.min(max) {
        let count = if issued == 0 {
            // The first level alone, not read back (but at the iteration limit).
            1
        } else if issued < DIRECT_LEVELS || max - issued < per_replay {
            DIRECT_BATCH.min(max - issued)
        } else {
            per_replay
        };
        let missed_before = missed;
        for d in issued..(issued + count).min(depth) {
            if push_only {
                let f = if d == issued { carry } else { estimate(d) };
                state.unexplored = state.unexplored.saturating_sub(f);
                let near = alpha > 0 && f > 0 && f > state.unexplored / alpha;
                missed += (near && large(size(d), graph_vertices, beta)) as u32;
                (state.last_pull, state.last_frontier) = (false, size(d) as u32);
            } else {
                let pulled = direction_model(
                    &mut state,
                    size(d) as u32,
                    carry,
                    graph_vertices,
                    alpha,
                    beta,
                )
                .expect("a level of vertices");
                carry = if pulled {
                    0
                } else {
                    frontier_edges.get(d as usize + 1).copied().unwrap_or(0)
                };
            }
        }
        issued += count;
        if push_only {
            carry = estimate(issued);
        }
        if issued >= depth {
            break;
        }
        if issued == 1 && max > 1 {
            continue;
        }
        // `loops_do_report`'s test, on the found edges in 32 bits as the device counts them.
        let found = carry.min(u32::MAX as u64);
        let near = alpha > 0 && found > 0 && found > state.unexplored / alpha;
        push_only = push_only_next(
            Report {
                last_pull: state.last_pull,
                near,
                missed: missed != missed_before,
            },
            large(size(issued), graph_vertices, beta),
            issued,
            alpha,
        );
    }
    state
}

/// What `loops_do_report` says after a batch of a direction-optimizing run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Report {
    /// The last level pulled.
    pub(super) last_pull: bool,
    /// The last push level found edges of which `alpha` times exceed the unexplored edges: the
    /// rule pulls next, or would (the found edges of a push-only batch's last level estimated).
    pub(super) near: bool,
    /// The batch pushed a level where the rule would have pulled, on a large frontier
    /// (`loops_do_fold`'s misses grew).
    pub(super) missed: bool,
}

/// Whether a frontier of `frontier` vertices is large by `beta` on a graph of `vertices`: more than
/// `vertices / beta` (Beamer's test for staying in pull; `beta` 0: never).
pub(super) fn large(frontier: u64, vertices: u32, beta: u64) -> bool {
    beta > 0 && frontier > vertices as u64 / beta
}

/// Whether the next batch of a direction-optimizing run pushes without a decision per level, by
/// the report after the last batch (`loops_do_report`) and whether the next frontier is large
/// ([`large`]): never in the first [`DIRECT_BATCH`] levels (`issued`; in a run, the first level
/// and the batch after it, read back together: a power-law graph switches there, level by
/// level), nor after a level that pulled, nor after a batch that pushed where the rule would have pulled on a large frontier (`missed`); always where the rule never
/// pulls (`alpha` 0); else while the rule is far from its switch (the last push level's found
/// edges times `alpha` at most the unexplored edges), or near it with a small next frontier.
///
/// A level of a push-only batch that the rule would have pulled pushes instead, which costs time,
/// never correctness. A long traversal (roads, grids) nears the switch only at its end, where the unexplored edges run out under frontiers of a few
/// hundred vertices: one pull level there (over every vertex, then back to push, the frontier
/// being small and shrinking) saves nothing, while each batch deciding per level costs three
/// launches a level and a second recording (with this test and the others of
/// examples/bench/results/h200/graphs_do, on an H200, DO-BFS of road 10^6 went 10.37 -> 8.56 ms,
/// against 8.16 for push-only BFS in the same loop).
pub(super) fn push_only_next(report: Report, large_next: bool, issued: u64, alpha: u64) -> bool {
    if alpha == 0 {
        return true;
    }
    if issued < DIRECT_BATCH || report.missed || report.last_pull {
        return false;
    }
    !report.near || !large_next
}

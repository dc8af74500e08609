//! The model of `push(&mut list, &mut count[i], v)`, the language's cooperative append (the
//! prelude's `loops_push`): the lanes of a warp that reach the call together (its `__activemask`)
//! with the same counter (`__match_any_sync` on its address; the model has one counter)
//! elect their lowest lane, which adds their number to the counter with one atomic; the old value
//! is broadcast with a shuffle, and each lane writes at that base plus its rank among them (the
//! lanes below it in the mask). A position at or past the list's length is claimed, so the counter
//! counts every push (a count above the length tells the host the list overflowed), but not
//! written (the checked variant records it as a fault on the list).
//!
//! Valid wherever an atomic is: in an atom loop under every schedule (each atom's push runs once),
//! and as a statement in the tile body; under `group` the tile body's atomics run on the group's
//! leader, so a push's position is not available there, and under `hierarchical` the statements
//! before the atom loop run in every pass, so no atomic may be there (both refused with a spanned
//! error, as for `atomic_add`).

/// The lanes of one warp that call `push` together, and the value each pushes (32, by lane).
#[derive(Clone, Debug)]
pub struct Issue {
    pub mask: u32,
    pub values: Vec<u32>,
}

/// What a sequence of issues leaves.
#[derive(Clone, Debug)]
pub struct PushRun {
    /// The counter after every issue.
    pub count: u64,
    /// Each issue's positions, its lanes in ascending order.
    pub positions: Vec<Vec<u64>>,
    /// The list (of the given length): the value written at each position, if any.
    pub list: Vec<Option<u32>>,
    /// The atomics on the counter: one per issue of any lane.
    pub atomics: usize,
}

/// The issues' pushes, their atomics landing in the order given, onto a counter at `start` and a
/// list of `len` elements.
pub fn model_push(issues: &[Issue], start: u64, len: u64) -> PushRun {
    let mut run = PushRun {
        count: start,
        positions: Vec::with_capacity(issues.len()),
        list: vec![None; len as usize],
        atomics: 0,
    };
    for issue in issues {
        let mut positions = Vec::new();
        if issue.mask != 0 {
            // The leader (lowest lane): one atomic add of the lanes' number; the base broadcast.
            let base = run.count;
            run.count += issue.mask.count_ones() as u64;
            run.atomics += 1;
            for lane in (0..32).filter(|l| issue.mask >> l & 1 == 1) {
                let below = issue.mask & ((1u32 << lane) - 1);
                let pos = base + below.count_ones() as u64;
                if pos < len {
                    run.list[pos as usize] = Some(issue.values[lane as usize]);
                }
                positions.push(pos);
            }
        }
        run.positions.push(positions);
    }
    run
}

/// The operation of an aggregated atomic ([`model_aggregated`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combine {
    Add,
    Max,
    Min,
}

/// What the flush of an aggregated atomic leaves: the slot and the atomics issued.
#[derive(Clone, Debug)]
pub struct AggregatedRun {
    pub value: u32,
    pub atomics: usize,
}

/// The model of a tile-only body's aggregated atomic statement
/// (`kernels_gen::schedule::tile_only::aggregated_atomics`, the prelude's `loops_flush_*`) on a
/// `u32` slot starting at `start`: thread `t` (of `per_thread.len()`, blocks of `block` in order)
/// folds the values of its tiles (`per_thread[t]`) into a register from the operation's identity;
/// after the tile loop each block combines its threads' registers (a warp's shuffles, then the
/// warps' partials) and, unless the result is still the identity, its thread 0 issues one atomic.
pub fn model_aggregated(
    per_thread: &[Vec<u32>],
    block: usize,
    start: u32,
    op: Combine,
) -> AggregatedRun {
    let (identity, f): (u32, fn(u32, u32) -> u32) = match op {
        Combine::Add => (0, u32::wrapping_add),
        Combine::Max => (0, u32::max),
        Combine::Min => (u32::MAX, u32::min),
    };
    let mut run = AggregatedRun {
        value: start,
        atomics: 0,
    };
    for threads in per_thread.chunks(block.max(1)) {
        let lanes = threads
            .iter()
            .map(|tiles| tiles.iter().copied().fold(identity, f));
        let combined = lanes.fold(identity, f);
        if combined != identity {
            run.value = f(run.value, combined);
            run.atomics += 1;
        }
    }
    run
}

/// What a sequence of staged pushes leaves ([`model_staged_push`]).
#[derive(Clone, Debug)]
pub struct StagedRun {
    /// The counter after every round.
    pub count: u64,
    /// Every push's position, in no particular order.
    pub positions: Vec<u64>,
    /// The list (of the given length): the value written at each position, if any.
    pub list: Vec<Option<u32>>,
    /// The atomics on the global counter.
    pub atomics: usize,
}

/// The model of a tile-only body's staged `push` statements
/// (`kernels_gen::schedule::tile_only::staged_pushes`, the prelude's `loops_stage_push` and
/// `loops_stage_flush`) for one block: in each round (`rounds[r]`, the warps' issues in the
/// order their claims land) a push claims a slot of the block's area of `cap` values (the claim
/// warp-aggregated on the shared count); a claim at or past `cap` is the warp's direct push of
/// those lanes onto the global counter (one atomic, [`model_push`]). At the round's end one atomic
/// adds the staged number to the counter and the staged values go to the positions from its old
/// value, those below the list's length written.
pub fn model_staged_push(rounds: &[Vec<Issue>], cap: u32, start: u64, len: u64) -> StagedRun {
    let mut run = StagedRun {
        count: start,
        positions: Vec::new(),
        list: vec![None; len as usize],
        atomics: 0,
    };
    for round in rounds {
        let mut n = 0u64;
        let mut stage: Vec<u32> = Vec::new();
        for issue in round {
            let base = n;
            n += issue.mask.count_ones() as u64;
            let mut overflow = 0u32;
            for lane in (0..32).filter(|l| issue.mask >> l & 1 == 1) {
                let at = base + (issue.mask & ((1u32 << lane) - 1)).count_ones() as u64;
                if at < cap as u64 {
                    // The area's slot `at`: slots are claimed in order, so it is the next.
                    debug_assert_eq!(at as usize, stage.len());
                    stage.push(issue.values[lane as usize]);
                } else {
                    overflow |= 1 << lane;
                }
            }
            if overflow != 0 {
                let direct = model_push(
                    &[Issue {
                        mask: overflow,
                        values: issue.values.clone(),
                    }],
                    run.count,
                    len,
                );
                for (&p, lane) in direct.positions[0]
                    .iter()
                    .zip((0..32).filter(|l| overflow >> l & 1 == 1))
                {
                    if p < len {
                        run.list[p as usize] = Some(issue.values[lane as usize]);
                    }
                    run.positions.push(p);
                }
                run.count = direct.count;
                run.atomics += direct.atomics;
            }
        }
        // The flush: one atomic for the staged values, written from its old value.
        if !stage.is_empty() {
            let base = run.count;
            run.count += stage.len() as u64;
            run.atomics += 1;
            for (i, v) in stage.into_iter().enumerate() {
                let p = base + i as u64;
                if p < len {
                    run.list[p as usize] = Some(v);
                }
                run.positions.push(p);
            }
        }
    }
    run
}

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

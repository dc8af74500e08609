//! The pure-Rust models of a call's passes: which lanes visit which atoms, and what each tile's
//! epilogue sees (the CPU model and property tests replay them).

use super::super::carry::ModelRun;
use super::{
    effective_mdt, level_plan, level_range, passes, piece_atoms, piece_range, split_pieces,
    thread_pass_lanes,
};

/// [`model_run`] for a call whose passes are levels ([`level_plan`], [`level_range`]): each lane
/// of a tile's group ([`thread_pass_lanes`]), warp or block sums its strided share of the pass's
/// atoms, lane 0 from the tile's kept state and the others from zero; the lanes' partials are
/// added (as the shuffles and the block's shared memory add them), and the sum is kept for the
/// next pass, or the tile's epilogue runs on it. In the block pass a tile of at least two pieces
/// ([`piece_atoms`], [`split_pieces`]) left is cut across blocks where its pieces fit the
/// positions (as the kernel's slots, counting the pieces of the tiles before it that did not): each piece's block sums its share from zero, and the last
/// piece to finish (here: after them all) adds the kept state and the pieces' partials in piece
/// order and runs the epilogue, once. `fit` is the plan's (no `mdt` in the attribute). Returns
/// the run, each pass's list length, and the pieces of the block pass.
pub fn model_levels_run(
    offsets: &[u64],
    list: Option<&[u64]>,
    mdt: u64,
    block: u64,
    fit: bool,
    value: impl Fn(u64) -> u64,
) -> (ModelRun, Vec<usize>, u64) {
    let tiles = offsets.len() - 1;
    let atoms = offsets[tiles] - offsets[0];
    let group = thread_pass_lanes(tiles as u64, atoms);
    let mut run = ModelRun {
        atom_visits: vec![0; offsets[tiles] as usize],
        epilogues: vec![0; tiles],
        epilogue_sums: vec![0; tiles],
    };
    let positions = list.map_or(tiles, |l| l.len());
    let tile_of = |p: usize| list.map_or(Some(p), |l| Some(l[p] as usize).filter(|&t| t < tiles));
    let longest = (0..tiles)
        .map(|t| offsets[t + 1] - offsets[t])
        .max()
        .unwrap_or(0);
    let plan = level_plan(longest, mdt, group, fit);
    let piece = piece_atoms(tiles as u64, atoms);
    let mut state = vec![0u64; positions];
    let mut worklist: Vec<usize> = (0..positions).collect();
    let mut lengths = Vec::new();
    let (mut pieces, mut counted) = (0u64, 0u64);
    for pass in 0..plan.passes {
        lengths.push(worklist.len());
        let mut next = Vec::new();
        for &p in &worklist {
            let Some(t) = tile_of(p) else { continue };
            let end = offsets[t + 1];
            let (lo, hi, lanes) = level_range(&plan, pass, offsets[t], end, group, block);
            let cut = split_pieces(hi - lo, piece);
            // The kernel's `atomicAdd` on the count: taken even where the pieces do not fit.
            let fits = counted + cut <= positions as u64;
            if pass == 2 && cut > 1 {
                counted += cut;
            }
            if pass == 2 && cut > 1 && fits {
                pieces += cut;
                let mut total = state[p];
                for j in 0..cut {
                    let (a, b) = piece_range(lo, hi - lo, j, piece);
                    let mut partials = vec![0u64; lanes as usize];
                    for (lane, partial) in partials.iter_mut().enumerate() {
                        for atom in (a + lane as u64..b).step_by(lanes as usize) {
                            run.atom_visits[atom as usize] += 1;
                            *partial += value(atom);
                        }
                    }
                    total += partials.iter().sum::<u64>();
                }
                state[p] = total;
                run.epilogues[t] += 1;
                run.epilogue_sums[t] = total;
                continue;
            }
            let mut partials = vec![0u64; lanes as usize];
            partials[0] = state[p];
            for (lane, partial) in partials.iter_mut().enumerate() {
                for a in (lo + lane as u64..hi).step_by(lanes as usize) {
                    run.atom_visits[a as usize] += 1;
                    *partial += value(a);
                }
            }
            state[p] = partials.iter().sum();
            if hi < end {
                next.push(p);
            } else {
                run.epilogues[t] += 1;
                run.epilogue_sums[t] = state[p];
            }
        }
        worklist = next;
    }
    (run, lengths, pieces)
}

/// Replays a call over the tiles of `offsets` (the positions of `list`, if given: a position
/// whose tile is outside the set does nothing) with the threshold `mdt` ([`effective_mdt`] of it
/// per pass, as the plan), pass by pass as the GPU runs it: each pass's
/// worklist in order, each tile summing its atoms' `value(atom)` into its kept state, the tiles
/// with atoms left appended to the next worklist. Returns what every atom and tile saw, and the
/// length of each pass's worklist.
pub fn model_run(
    offsets: &[u64],
    list: Option<&[u64]>,
    mdt: u64,
    value: impl Fn(u64) -> u64,
) -> (ModelRun, Vec<usize>) {
    let tiles = offsets.len() - 1;
    let mut run = ModelRun {
        atom_visits: vec![0; offsets[tiles] as usize],
        epilogues: vec![0; tiles],
        epilogue_sums: vec![0; tiles],
    };
    let positions = list.map_or(tiles, |l| l.len());
    let tile_of = |p: usize| list.map_or(Some(p), |l| Some(l[p] as usize).filter(|&t| t < tiles));
    let longest = (0..tiles)
        .map(|t| offsets[t + 1] - offsets[t])
        .max()
        .unwrap_or(0);
    let mdt = effective_mdt(mdt, longest);
    let mut state = vec![0u64; positions];
    let mut worklist: Vec<usize> = (0..positions).collect();
    let mut lengths = Vec::new();
    for pass in 0..passes(longest, mdt) as u64 {
        lengths.push(worklist.len());
        let mut next = Vec::new();
        for &p in &worklist {
            let Some(t) = tile_of(p) else { continue };
            let (begin, end) = (offsets[t], offsets[t + 1]);
            let lo = begin + pass * mdt;
            let hi = end.min(lo + mdt);
            for a in lo..hi {
                run.atom_visits[a as usize] += 1;
                state[p] += value(a);
            }
            if hi < end {
                next.push(p);
            } else {
                run.epilogues[t] += 1;
                run.epilogue_sums[t] = state[p];
            }
        }
        worklist = next;
    }
    (run, lengths)
}

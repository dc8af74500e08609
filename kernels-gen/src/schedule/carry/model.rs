//! The whole protocol replayed in Rust, for the property tests: segments, in-block heads and
//! tails, the warps' segmented scan, block records and the look-back, by the rules the emitted CUDA
//! follows.

use super::Partition;
use crate::schedule::split;

/// What the model saw: how often each atom was visited and each tile's epilogue ran, and the total
/// each epilogue saw when every atom contributes `value(atom)` to a sum.
#[derive(Debug, Default)]
pub struct ModelRun {
    pub atom_visits: Vec<u32>,
    pub epilogues: Vec<u32>,
    pub epilogue_sums: Vec<u64>,
}

/// What the model folds over a tile's atoms: any associative combination of partials (a sum; a
/// selection's choice, by key then position), as the emitted CUDA carries it.
pub struct Fold<'f, P> {
    /// The value before the atom loop: a thread that holds a tile whole folds its atoms into it,
    /// and a tile cut between threads is finished by `combine(initial, partial)`.
    pub initial: P,
    /// What a share of a tile with no atoms holds (the identity of `combine`).
    pub identity: P,
    /// One atom folded into a partial, in the loop's order.
    pub step: &'f dyn Fn(&P, u64) -> P,
    /// Two partials, the earlier first.
    pub combine: &'f dyn Fn(&P, &P) -> P,
}

/// The in-block fold of the carry schedules, as the emitted CUDA computes it: an inclusive scan of
/// the threads' tails segmented by tile (`tiles[t]`, -1 for none), first within each warp of 32
/// lanes by shuffles up 1, 2, 4, 8 and 16 lanes, then, for a run that reaches its warp's first
/// lane, the earlier warps' parts from their summaries (last lane's tile and partial).
struct BlockScan<'s, 'f, P> {
    fold: &'s Fold<'f, P>,
    tiles: Vec<i64>,
    /// Each thread's partial of its tail tile, from the tile's first thread in the block.
    run: Vec<P>,
    warp_last: Vec<i64>,
    warp_part: Vec<P>,
}

impl<'s, 'f, P: Clone> BlockScan<'s, 'f, P> {
    fn new(fold: &'s Fold<'f, P>, tiles: &[i64], parts: &[P]) -> Self {
        let n = tiles.len();
        let mut run = parts.to_vec();
        for w0 in (0..n).step_by(32) {
            let lanes = (n - w0).min(32);
            let mut o = 1;
            while o < 32 {
                let up = run.clone();
                for lane in o..lanes {
                    let t = w0 + lane;
                    if tiles[t - o] == tiles[t] {
                        run[t] = (fold.combine)(&up[t - o], &up[t]);
                    }
                }
                o <<= 1;
            }
        }
        let last = |w: usize| (w * 32 + 31).min(n - 1);
        let warps = n.div_ceil(32);
        let mut scan = BlockScan {
            fold,
            tiles: tiles.to_vec(),
            warp_last: (0..warps).map(|w| tiles[last(w)]).collect(),
            warp_part: (0..warps).map(|w| run[last(w)].clone()).collect(),
            run,
        };
        for t in 0..n {
            if t >= 32 && tiles[t] == tiles[t / 32 * 32] {
                let earlier = scan.earlier_warps(t / 32, tiles[t]);
                scan.run[t] = (fold.combine)(&earlier, &scan.run[t]);
            }
        }
        scan
    }

    /// The parts of tile `tile`'s run in the warps before warp `w`: back while a warp's last lane
    /// holds the tile. (Tail tiles do not decrease from thread to thread, but for -1 at the end,
    /// so a warp whose first lane holds another tile ends the walk by the warp before it.) Folded
    /// as the CUDA's walk back does: each earlier warp's part before what is held.
    fn earlier_warps(&self, w: usize, tile: i64) -> P {
        (0..w)
            .rev()
            .take_while(|&v| self.warp_last[v] == tile)
            .fold(self.fold.identity.clone(), |held, v| {
                (self.fold.combine)(&self.warp_part[v], &held)
            })
    }

    /// What a head of tile `tile` at thread `t` adds: the run of the threads before it that end in
    /// `tile` (the lane before it, or for a warp's first lane the earlier warps).
    fn before(&self, t: usize, tile: i64) -> P {
        if t.is_multiple_of(32) {
            self.earlier_warps(t / 32, tile)
        } else if self.tiles[t - 1] == tile {
            self.run[t - 1].clone()
        } else {
            self.fold.identity.clone()
        }
    }
}

/// Replays the protocol (segments, in-block heads and tails, block records and the look-back)
/// for `blocks` blocks of `block` threads, with the same rules the emitted CUDA follows, each
/// atom contributing `value(atom)` to a sum.
pub fn model_run(
    partition: Partition,
    items_per_thread: u32,
    block: u32,
    offsets: &[u64],
    value: impl Fn(u64) -> u64,
) -> ModelRun {
    let sum = Fold {
        initial: 0u64,
        identity: 0u64,
        step: &|acc: &u64, atom| acc + value(atom),
        combine: &|a: &u64, b: &u64| a + b,
    };
    let (mut run, results) = model_fold(partition, items_per_thread, block, offsets, &sum);
    run.epilogue_sums = results.into_iter().map(|r| r.unwrap_or(0)).collect();
    run
}

/// [`model_run`] for any [`Fold`]: also returns what each tile's epilogue saw (the last time it
/// ran; `None` if it never did).
pub fn model_fold<P: Clone>(
    partition: Partition,
    items_per_thread: u32,
    block: u32,
    offsets: &[u64],
    fold: &Fold<'_, P>,
) -> (ModelRun, Vec<Option<P>>) {
    let combine = fold.combine;
    let tiles = offsets.len() - 1;
    let atoms = offsets[tiles] as usize;
    let threads = match partition {
        Partition::Split { mdt } => *split::first_virtual(offsets, mdt)
            .last()
            .expect("tiles + 1"),
        _ => partition.threads(tiles as u64, atoms as u64, items_per_thread),
    };
    let blocks = threads.div_ceil(block as u64).max(1);
    let mut run = ModelRun {
        atom_visits: vec![0; atoms],
        epilogues: vec![0; tiles],
        epilogue_sums: vec![0; tiles],
    };
    let mut results: Vec<Option<P>> = vec![None; tiles];
    // A cut tile is finished from the value before the loop and the combined partial.
    let finish = |part: &P| combine(&fold.initial, part);
    // Per block: the head of a tile begun in an earlier block, and the block's record: the partial of
    // the tile in progress at its end, and whether that partial is complete from the tile's start
    // (the block holds a tile's end) or the block lies inside one tile.
    let mut block_heads: Vec<Option<(u64, P)>> = vec![None; blocks as usize];
    let mut records: Vec<(bool, P)> = vec![(false, fold.identity.clone()); blocks as usize];
    for b in 0..blocks {
        let first = b * block as u64;
        let mut tails: Vec<Option<(u64, P)>> = Vec::new();
        let mut heads: Vec<Option<(u64, P)>> = Vec::new();
        let block_start = partition.segment(first, items_per_thread, offsets);
        let block_end = partition.segment(first + block as u64 - 1, items_per_thread, offsets);
        let block_y0 = block_start.y0;
        for lane in 0..block as u64 {
            let seg = partition.segment(first + lane, items_per_thread, offsets);
            let (mut head, mut tail) = (None, None);
            let mut nz = seg.y0;
            let mut t = seg.x0;
            while t <= seg.x1 && t < tiles as u64 {
                let cut_start = offsets[t as usize] < seg.y0;
                let is_tail = t == seg.x1;
                let stop = if is_tail {
                    seg.y1
                } else {
                    offsets[t as usize + 1]
                };
                // A share of a cut tile starts from no contribution, a whole tile from the
                // value before the loop.
                let mut acc = if cut_start || is_tail {
                    fold.identity.clone()
                } else {
                    fold.initial.clone()
                };
                while nz < stop {
                    run.atom_visits[nz as usize] += 1;
                    acc = (fold.step)(&acc, nz);
                    nz += 1;
                }
                if is_tail {
                    tail = Some((t, acc));
                } else if cut_start {
                    head = Some((t, acc));
                } else {
                    run.epilogues[t as usize] += 1;
                    results[t as usize] = Some(acc);
                }
                t += 1;
            }
            tails.push(tail);
            heads.push(head);
        }
        // The in-block fold as the CUDA runs it: a segmented scan of the tails over each warp's
        // lanes, then the earlier warps' summaries.
        let tile_of = |tail: &Option<(u64, P)>| tail.as_ref().map_or(-1, |(t, _)| *t as i64);
        let tail_tiles: Vec<i64> = tails.iter().map(tile_of).collect();
        let tail_parts: Vec<P> = tails
            .iter()
            .map(|t| t.as_ref().map_or(fold.identity.clone(), |(_, p)| p.clone()))
            .collect();
        let scan = BlockScan::new(fold, &tail_tiles, &tail_parts);
        for (lane, head) in heads.into_iter().enumerate() {
            let Some((t, part)) = head else { continue };
            let part = combine(&scan.before(lane, t as i64), &part);
            if offsets[t as usize] < block_y0 {
                block_heads[b as usize] = Some((t, part));
            } else {
                run.epilogues[t as usize] += 1;
                results[t as usize] = Some(finish(&part));
            }
        }
        let part = scan.run[block as usize - 1].clone();
        records[b as usize] = (block_start.x0 != block_end.x1, part);
    }
    // The look-back, in block order: back to the nearest complete record, folding every partial
    // on the way in front of what is held. A block with a head finishes its tile; a block inside
    // one tile may publish its inclusive partial as complete before the blocks after it look
    // (here: every other such block, so that both what a reader may see, the aggregate or the
    // inclusive partial, are replayed).
    let look_back = |records: &[(bool, P)], b: usize| {
        let mut part = fold.identity.clone();
        for (complete, p) in records[..b].iter().rev() {
            part = combine(p, &part);
            if *complete {
                break;
            }
        }
        part
    };
    for b in 0..blocks as usize {
        if let Some((t, part)) = block_heads[b].take() {
            run.epilogues[t as usize] += 1;
            results[t as usize] = Some(finish(&combine(&look_back(&records, b), &part)));
        } else if !records[b].0 && b % 2 == 1 {
            let inclusive = combine(&look_back(&records, b), &records[b].1);
            records[b] = (true, inclusive);
        }
    }
    (run, results)
}

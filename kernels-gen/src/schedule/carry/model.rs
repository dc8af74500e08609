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

/// The in-block fold of the carry schedules, as the emitted CUDA computes it: an inclusive scan of
/// the threads' tails segmented by tile (`tiles[t]`, -1 for none), first within each warp of 32
/// lanes by shuffles up 1, 2, 4, 8 and 16 lanes, then, for a run that reaches its warp's first
/// lane, the earlier warps' parts from their summaries (last lane's tile and sum).
struct BlockScan {
    tiles: Vec<i64>,
    /// Each thread's partial of its tail tile, from the tile's first thread in the block.
    run: Vec<u64>,
    warp_last: Vec<i64>,
    warp_sum: Vec<u64>,
}

impl BlockScan {
    fn new(tiles: &[i64], sums: &[u64]) -> BlockScan {
        let n = tiles.len();
        let mut run = sums.to_vec();
        for w0 in (0..n).step_by(32) {
            let lanes = (n - w0).min(32);
            let mut o = 1;
            while o < 32 {
                let up = run.clone();
                for lane in o..lanes {
                    let t = w0 + lane;
                    if tiles[t - o] == tiles[t] {
                        run[t] = up[t - o] + up[t];
                    }
                }
                o <<= 1;
            }
        }
        let last = |w: usize| (w * 32 + 31).min(n - 1);
        let warps = n.div_ceil(32);
        let mut scan = BlockScan {
            tiles: tiles.to_vec(),
            warp_last: (0..warps).map(|w| tiles[last(w)]).collect(),
            warp_sum: (0..warps).map(|w| run[last(w)]).collect(),
            run,
        };
        for t in 0..n {
            if t >= 32 && tiles[t] == tiles[t / 32 * 32] {
                scan.run[t] += scan.earlier_warps(t / 32, tiles[t]);
            }
        }
        scan
    }

    /// The parts of tile `tile`'s run in the warps before warp `w`: back while a warp's last lane
    /// holds the tile. (Tail tiles do not decrease from thread to thread, but for -1 at the end,
    /// so a warp whose first lane holds another tile ends the walk by the warp before it.)
    fn earlier_warps(&self, w: usize, tile: i64) -> u64 {
        (0..w)
            .rev()
            .take_while(|&v| self.warp_last[v] == tile)
            .map(|v| self.warp_sum[v])
            .sum()
    }

    /// What a head of tile `tile` at thread `t` adds: the run of the threads before it that end in
    /// `tile` (the lane before it, or for a warp's first lane the earlier warps).
    fn before(&self, t: usize, tile: i64) -> u64 {
        if t.is_multiple_of(32) {
            self.earlier_warps(t / 32, tile)
        } else if self.tiles[t - 1] == tile {
            self.run[t - 1]
        } else {
            0
        }
    }
}

/// Replays the protocol (segments, in-block heads and tails, block records and the look-back)
/// for `blocks` blocks of `block` threads, with the same rules the emitted CUDA follows.
pub fn model_run(
    partition: Partition,
    items_per_thread: u32,
    block: u32,
    offsets: &[u64],
    value: impl Fn(u64) -> u64,
) -> ModelRun {
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
    // Per block: the head of a tile begun in an earlier block, and the block's record: the partial of
    // the tile in progress at its end, and whether that partial is complete from the tile's start
    // (the block holds a tile's end) or the block lies inside one tile.
    let mut block_heads: Vec<Option<(u64, u64)>> = vec![None; blocks as usize];
    let mut records: Vec<(bool, u64)> = vec![(false, 0); blocks as usize];
    for b in 0..blocks {
        let first = b * block as u64;
        let mut tails: Vec<Option<(u64, u64)>> = Vec::new();
        let mut heads: Vec<Option<(u64, u64)>> = Vec::new();
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
                let mut acc = 0;
                while nz < stop {
                    run.atom_visits[nz as usize] += 1;
                    acc += value(nz);
                    nz += 1;
                }
                if is_tail {
                    tail = Some((t, acc));
                } else if cut_start {
                    head = Some((t, acc));
                } else {
                    run.epilogues[t as usize] += 1;
                    run.epilogue_sums[t as usize] = acc;
                }
                t += 1;
            }
            tails.push(tail);
            heads.push(head);
        }
        // The in-block fold as the CUDA runs it: a segmented scan of the tails over each warp's
        // lanes, then the earlier warps' summaries.
        let tile_of = |tail: &Option<(u64, u64)>| tail.map_or(-1, |(t, _)| t as i64);
        let tail_tiles: Vec<i64> = tails.iter().map(tile_of).collect();
        let tail_sums: Vec<u64> = tails.iter().map(|t| t.map_or(0, |(_, p)| p)).collect();
        let scan = BlockScan::new(&tail_tiles, &tail_sums);
        for (lane, head) in heads.iter().enumerate() {
            let Some((t, mut part)) = *head else { continue };
            part += scan.before(lane, t as i64);
            if offsets[t as usize] < block_y0 {
                block_heads[b as usize] = Some((t, part));
            } else {
                run.epilogues[t as usize] += 1;
                run.epilogue_sums[t as usize] = part;
            }
        }
        let part = scan.run[block as usize - 1];
        records[b as usize] = (block_start.x0 != block_end.x1, part);
    }
    // The look-back, in block order: back to the nearest complete record, adding every partial on
    // the way. A block with a head finishes its tile; a block inside one tile may publish its
    // inclusive partial as complete before the blocks after it look (here: every other such
    // block, so that both what a reader may see, the aggregate or the inclusive partial, are
    // replayed).
    let look_back = |records: &[(bool, u64)], b: usize| {
        let mut part = 0;
        for &(complete, p) in records[..b].iter().rev() {
            part += p;
            if complete {
                break;
            }
        }
        part
    };
    for b in 0..blocks as usize {
        if let Some((t, part)) = block_heads[b] {
            run.epilogues[t as usize] += 1;
            run.epilogue_sums[t as usize] = look_back(&records, b) + part;
        } else if !records[b].0 && b % 2 == 1 {
            records[b] = (true, look_back(&records, b) + records[b].1);
        }
    }
    run
}

//! What `merge_path` and `work_oriented` share: each block takes one contiguous *range* of the tile
//! set, each of its threads one contiguous *segment* of that range (tiles `x0..=x1`, atoms `y0..y1`),
//! and a tile cut by a segment boundary is finished by a carry fix-up, so the tile's epilogue runs
//! exactly once, with the complete accumulators:
//!
//! 1. The block finds its range (over a whole tile set, in the block starts the runtime keeps with
//!    it, [`Partition::block_starts`]; else by two 32-way warp searches of the offsets), copies the
//!    range's offsets to shared memory, and each thread finds its
//!    segment there. Where the atom loop only folds operands that depend on the atom, the block
//!    first computes those operands for its atoms into shared memory, coalesced.
//! 2. Each thread runs its segment. A tile it holds whole gets its epilogue at once. For a tile cut at
//!    the segment's start whose end is in the segment (its *head*), and for the tile in progress at the
//!    segment's end (its *tail*), it keeps the partial accumulators, started from the operator's
//!    identity.
//! 3. In the block, the thread holding a head combines the tails of the threads before it that hold
//!    the same tile (a segmented scan of the tails: shuffles within each warp, then the warps'
//!    summaries), recomputes the tile's prologue (side-effect-free `let`s) for the initial values,
//!    and runs the epilogue. The block publishes a *record* in global scratch: the partial of the tile
//!    in progress at its end, as its *inclusive* partial when the tile began in the block, else as its
//!    *aggregate*. Each 32-bit half of a partial is its own 8-byte word under the launch's stamp, so
//!    records need no fence: a reader that sees this launch's stamp in a word sees the value in it.
//! 4. A head whose tile began in an earlier block is finished by a *look-back* (Merrill and Garland's
//!    single-pass scan): the block's first warp adds the records before it, 32 at a time, back to the
//!    nearest inclusive one. Blocks take their place in the order from a ticket when they start, so a
//!    block only ever waits for blocks that are already running, and those never wait for it.
//!
//! The partition is the only difference between the two schedules; [`model_run`] replays the whole
//! protocol in Rust for the property tests. `work_oriented` replaces steps 2 and 3 by a segmented
//! scan of the block's staged operands where the body allows it (`CarryLowering::scans`); the
//! block's range, its record and the look-back are the same.

/// How the tile set is cut into segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partition {
    /// Equal shares of tiles + atoms along the merge path (Merrill and Garland, SC'16).
    MergePath,
    /// Equal shares of atoms; a tile belongs to the segment that holds its end.
    WorkOriented,
    /// Node splitting: one *virtual tile* per thread, a tile's atoms cut into pieces of at most
    /// `mdt` (an empty tile is one empty piece). Its segments follow [`split::virtual_tile`].
    Split { mdt: u64 },
}

/// One thread's segment: it completes tiles `x0..x1` and processes atoms `y0..y1`; tile `x1` (if it
/// exists) is in progress at the segment's end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub x0: u64,
    pub y0: u64,
    pub x1: u64,
    pub y1: u64,
}

use super::split;

/// The largest `x` in `lo..=hi` with `offsets[x] <= bound(x)`; `bound` decreases as `x` grows so the
/// predicate is true up to some point and false after. This is the search the CUDA does too.
fn search(offsets: &[u64], mut lo: u64, mut hi: u64, bound: impl Fn(u64) -> u64) -> u64 {
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if offsets[mid as usize] <= bound(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

impl Partition {
    /// Threads the partition uses: every item of the set covered, at least one thread. For
    /// [`Partition::Split`] the items are the virtual tiles, which the caller counts and passes
    /// as `atoms` (a count of atoms alone cannot tell them).
    pub fn threads(self, tiles: u64, atoms: u64, items_per_thread: u32) -> u64 {
        let items = match self {
            Partition::MergePath => tiles + atoms,
            Partition::WorkOriented | Partition::Split { .. } => atoms,
        };
        items.div_ceil(items_per_thread as u64).max(1)
    }

    /// The segment of thread `thread`. `offsets` has `tiles + 1` entries.
    pub fn segment(self, thread: u64, items_per_thread: u32, offsets: &[u64]) -> Segment {
        let tiles = offsets.len() as u64 - 1;
        let atoms = offsets[tiles as usize];
        let s = items_per_thread as u64;
        match self {
            Partition::MergePath => {
                let total = tiles + atoms;
                let at = |d: u64| {
                    let x = search(offsets, d.saturating_sub(atoms), d.min(tiles), |x| d - x);
                    (x, d - x)
                };
                let (x0, y0) = at((thread * s).min(total));
                let (x1, y1) = at((thread * s + s).min(total));
                Segment { x0, y0, x1, y1 }
            }
            Partition::WorkOriented => {
                let threads = self.threads(tiles, atoms, items_per_thread);
                if thread >= threads {
                    return Segment {
                        x0: tiles,
                        y0: atoms,
                        x1: tiles,
                        y1: atoms,
                    };
                }
                // Tiles whose end is at or before atom `p`: a tile belongs to the segment holding its end.
                let ended_by = |p: u64| search(offsets, 0, tiles, |_| p);
                let y0 = thread * s;
                let y1 = (y0 + s).min(atoms);
                let x0 = if thread == 0 { 0 } else { ended_by(y0) };
                let x1 = if thread == threads - 1 {
                    tiles
                } else {
                    ended_by(y1)
                };
                Segment { x0, y0, x1, y1 }
            }
            Partition::Split { mdt } => {
                // The largest tile whose first virtual tile is at or before `v`.
                let first = split::first_virtual(offsets, mdt);
                let parent = |v: u64| first.partition_point(|&f| f <= v) as u64 - 1;
                if thread >= first[tiles as usize] {
                    return Segment {
                        x0: tiles,
                        y0: atoms,
                        x1: tiles,
                        y1: atoms,
                    };
                }
                let x0 = parent(thread);
                let y0 = offsets[x0 as usize] + (thread - first[x0 as usize]) * mdt;
                // The tile in progress after this piece: the same one, or (its last piece) the next.
                let x1 = parent(thread + 1);
                let y1 = if x1 == x0 {
                    y0 + mdt
                } else {
                    offsets[x1 as usize]
                };
                Segment { x0, y0, x1, y1 }
            }
        }
    }

    pub fn blocks_wanted(self, tiles: u64, atoms: u64, items_per_thread: u32, block: u32) -> u64 {
        self.threads(tiles, atoms, items_per_thread)
            .div_ceil(block as u64)
    }

    /// How a block's range boundary is searched in the offsets: the largest tile `x` with
    /// `offsets[x] + slope * x <= item`, slope 1 on the merge path (its items are tiles + atoms)
    /// and 0 for `work_oriented` (atoms). `None` for [`Partition::Split`], whose ranges are
    /// found in the piece counts.
    pub fn range_slope(self) -> Option<u64> {
        match self {
            Partition::MergePath => Some(1),
            Partition::WorkOriented => Some(0),
            Partition::Split { .. } => None,
        }
    }

    /// Where the ranges of `blocks` blocks of `items_per_block` items start: for each boundary `b`
    /// in `0..=blocks`, the largest tile `x` with `offsets[x] + slope * x <= min(b * items_per_block,
    /// items)` (the slope is 1 on the merge path, whose items are tiles + atoms, and 0 for
    /// `work_oriented`, whose items are atoms). Block `b` runs from `starts[b]` to `starts[b + 1]`:
    /// what its two warp searches find. The runtime computes the same on the GPU once per tile set
    /// (`loops_runtime::block_ranges`), so that the kernel reads two ints instead of searching.
    /// `None` for [`Partition::Split`], whose ranges are found in the piece counts.
    pub fn block_starts(
        self,
        offsets: &[u64],
        items_per_block: u64,
        blocks: u64,
    ) -> Option<Vec<u64>> {
        let tiles = offsets.len() as u64 - 1;
        let slope = self.range_slope()?;
        let items = offsets[tiles as usize] + slope * tiles;
        // No tile past `bound / slope` can qualify (offsets are >= 0), so `bound - slope * x`
        // stays >= 0 over the range searched.
        let start = |bound: u64| {
            let hi = bound
                .checked_div(slope)
                .map_or(tiles, |most| tiles.min(most));
            search(offsets, 0, hi, |x| bound - slope * x)
        };
        Some(
            (0..=blocks)
                .map(|b| start((b * items_per_block).min(items)))
                .collect(),
        )
    }
}

/// A tile subset as the carry schedules run it: position `p` of `list` holds the atoms of tile
/// `list[p]` at the returned virtual offsets (`list.len() + 1` of them), the prefix sum of the listed
/// tiles' sizes, an id outside the set counting 0. The runtime computes the same on the GPU
/// (`loops_runtime::subset`); virtual atom `v` of position `p` is real atom
/// `offsets[list[p]] + v - virtual[p]`.
pub fn subset_offsets(offsets: &[u64], list: &[u64]) -> Vec<u64> {
    let tiles = offsets.len() as u64 - 1;
    let mut virtual_offsets = Vec::with_capacity(list.len() + 1);
    let mut total = 0;
    virtual_offsets.push(0);
    for &id in list {
        if id < tiles {
            total += offsets[id as usize + 1] - offsets[id as usize];
        }
        virtual_offsets.push(total);
    }
    virtual_offsets
}

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

#[cfg(feature = "frontend")]
pub use lowering::CarryLowering;

#[cfg(feature = "frontend")]
mod lowering {
    use super::Partition;
    use crate::analysis::{accumulators, carry_body, staged_updates, Accumulator, StagedUpdate};
    use crate::diag::{bail, DResult};
    use crate::emit::{AtomLoop, Cx};
    use crate::ir::{BinOp, Kernel, Stmt, StmtKind, TileLoop, SUBSET_SET};
    use crate::schedule::Lowering;

    pub struct CarryLowering {
        pub partition: Partition,
        pub items_per_thread: u32,
        pub block_size: u32,
    }

    /// The name of a subset's positions as a tile set (`_rows`, `_nnz`, `_offsets`).
    const VSET: &str = "loops_vset";

    /// Scratch slots (8-byte words) per block and round: the block's own partial of each
    /// accumulator (its *aggregate*), then each one's *inclusive* partial, from the tile's start;
    /// two words per value, each holding 32 bits of it under the launch's stamp (`loops_publish`),
    /// the second unused by 4-byte types. No accumulators, no records: nothing to carry.
    pub fn slots_per_block(accumulators: usize) -> u32 {
        4 * accumulators as u32
    }

    /// The first word of accumulator `i`'s aggregate, and of its inclusive partial, in a record.
    fn aggregate_word(i: usize) -> usize {
        2 * i
    }
    fn inclusive_word(accs: usize, i: usize) -> usize {
        2 * (accs + i)
    }

    /// Static shared memory a block may take (of CUDA's 48 KiB per block without opting in to
    /// more): enough to stage the operands of 12 items per thread in f64.
    const SHARED_BUDGET: u32 = 46 * 1024;

    /// The shared-memory search of a block's segment: the largest `x` in `lo..=hi` with
    /// `offsets[x] + slope * x <= bound`, where `off(x)` reads the offsets.
    fn search(off: &dyn Fn(&str) -> String, lo: &str, hi: &str, bound: &str, slope: u32) -> String {
        let lhs = if slope == 0 {
            format!("(long long){}", off("mid"))
        } else {
            format!("(long long){} + mid", off("mid"))
        };
        format!(
            "[&]() {{ int lo = (int)({lo}), hi = (int)({hi}); while (lo < hi) {{ const int mid = (lo + hi + 1) >> 1; \
             if ({lhs} <= {bound}) lo = mid; else hi = mid - 1; }} return lo; }}()"
        )
    }

    impl Lowering for CarryLowering {
        fn check(&self, kernel: &Kernel) -> DResult<()> {
            carry_body(kernel, kernel.body.user_body(), kernel.config.name()).map(|_| ())
        }

        fn tile_loop(&self, cx: &mut Cx<'_>, tiles: &TileLoop) -> DResult<()> {
            let name = cx.kernel.config.name();
            let subset = tiles.subset_guard();
            let parts = carry_body(cx.kernel, tiles.user_body(), name)?;
            let StmtKind::ForAtoms {
                var,
                body: atom_body,
                ..
            } = &parts.atoms.kind
            else {
                unreachable!("carry_body returns the atom loop")
            };
            let accs = accumulators(atom_body, var, name)?;
            let tile = tiles.tile.as_str();
            let set = match (subset, &tiles.subset) {
                (Some(_), Some(sub)) => {
                    // The list's positions, as a tile set of their own: position `p` holds the
                    // atoms of tile `list[p]` at virtual offsets, the prefix sum of the listed
                    // tiles' sizes (0 for an id outside the set), which the runtime computes on the
                    // GPU before the launch. The partition then runs on it unchanged.
                    cx.line(format!(
                        "// `{}.tiles_in({})`: the partition runs over the list's positions, at virtual offsets",
                        sub.set, sub.list
                    ));
                    cx.line(format!("const int {VSET}_rows = (int){SUBSET_SET}_rows;"));
                    cx.line(format!(
                        "const int* const {VSET}_offsets = loops_subset_offsets;"
                    ));
                    cx.line(format!(
                        "const int {VSET}_nnz = {VSET}_offsets[{VSET}_rows];"
                    ));
                    VSET
                }
                _ => tiles.set.as_str(),
            };
            // Without an epilogue there is nothing to finish: atoms do their own work.
            let fixup = !parts.epilogue.is_empty();
            let slots = slots_per_block(accs.len());
            let invariants: Vec<&str> = parts.rounds.iter().map(|r| r.var).collect();
            // A subset's atoms are not contiguous: an atom's operand needs its tile's real offset
            // first, which the segments find; no staging.
            // Under `split` a block's atoms are up to `mdt` per thread, past any shared budget.
            let stageable = subset.is_none() && !matches!(self.partition, Partition::Split { .. });
            let operands = staged_updates(cx.kernel, atom_body, var, &invariants);
            cx.line_directive(tiles.line);
            if self.scans(cx.kernel) {
                let staged = operands.expect("`scans` found the staged updates");
                cx.scratch_slots_per_block = slots;
                let body = TileBody {
                    tile,
                    atom: var,
                    prologue: parts.prologue,
                    epilogue: parts.epilogue,
                };
                return self.segmented_scan(cx, set, &body, &staged, &accs);
            }
            let staged = operands.filter(|s| stageable && self.stage_fits(s.len(), accs.len()));
            // Without rounds the operands are staged together with the offsets window: one
            // round trip to memory and one barrier fewer per block.
            let early_stage = parts.rounds.is_none() && staged.is_some();
            // Records and a look-back only where there are partials to carry.
            let carries = fixup && !accs.is_empty();
            self.block_range(cx, set, carries, false);
            match (early_stage, &staged) {
                (true, Some(staged)) if self.partition == Partition::WorkOriented => {
                    // A block's atoms do not depend on its range of tiles: their loads (and the
                    // gathers behind them) go out before the window's, which wait for the range, so
                    // the two chains of dependent loads overlap instead of following each other.
                    // (Issuing them before the kept starts' loads too was measured slower on a
                    // banded matrix: the compiler then sinks those loads below the gathers.)
                    self.stage(cx, var, staged, false, false);
                    self.offsets_window(cx, set);
                    cx.line("__syncthreads();");
                }
                (true, Some(staged)) => {
                    self.offsets_window(cx, set);
                    self.stage(cx, var, staged, true, false);
                }
                _ => {
                    if self.offsets_window(cx, set) {
                        cx.line("__syncthreads();");
                    }
                }
            }
            let partition = self.partition;
            let off = move |i: &str| match partition {
                Partition::MergePath => format!("loops_offs[({i}) - loops_bx0]"),
                Partition::WorkOriented => {
                    format!("(loops_windowed ? loops_offs[({i}) - loops_bx0] : {set}_offsets[{i}])")
                }
                Partition::Split { .. } => format!("{set}_offsets[{i}]"),
            };
            self.thread_segment(cx, set, &off);
            // Each round (iteration of a tile-invariant loop around the atom loop) is the whole
            // protocol again, with its own records in scratch.
            if let Some(r) = &parts.rounds {
                let (start, end) = (cx.expr(r.start), cx.expr(r.end));
                let t = r.ty.cuda_name();
                cx.line_directive(r.line);
                cx.line(format!("const {t} loops_round_end = {end};"));
                cx.open(format!(
                    "for ({t} {0} = {start}, loops_round = 0; {0} < loops_round_end; ++{0}, ++loops_round)",
                    r.var
                ));
                if carries {
                    cx.line(format!(
                        "unsigned long long* const loops_data = loops_scratch + 1 + (long long)loops_round * gridDim.x * {slots};"
                    ));
                }
            } else if carries {
                cx.line("unsigned long long* const loops_data = loops_scratch + 1;");
            }
            if let (false, Some(staged)) = (early_stage, &staged) {
                self.stage(cx, var, staged, true, false);
            }
            if fixup {
                for a in &accs {
                    let (ty, id) = (a.ty.cuda_name(), a.op.identity(&a.ty));
                    cx.line(format!(
                        "{ty} loops_head_{0} = {id}, loops_tail_{0} = {id};",
                        a.name
                    ));
                }
                cx.line("int loops_head_tile = -1, loops_tail_tile = -1;");
            }
            cx.line("int loops_nz = loops_y0;");
            cx.open(format!("for (int loops_t = loops_x0; loops_t <= loops_x1 && loops_t < {set}_rows; ++loops_t)"));
            cx.line(format!("const int {tile} = loops_t;"));
            if let (Some((id, in_set, _)), Some(sub)) = (subset, &tiles.subset) {
                cx.stmt(id)?;
                // An id outside the set has no atoms in the prefix sum, and no epilogue: it can
                // be neither cut nor hold anything for the fix-up.
                let in_set = cx.expr(in_set);
                cx.line(format!("if (!({in_set})) continue;"));
                cx.line(format!(
                    "const long long loops_base = (long long){}_offsets[{}] - {};",
                    sub.set,
                    sub.tile,
                    off("loops_t")
                ));
            }
            cx.block(parts.prologue)?;
            cx.line(format!(
                "const bool loops_cut = {} < loops_y0;",
                off("loops_t")
            ));
            cx.line("const bool loops_is_tail = loops_t == loops_x1;");
            cx.line(format!(
                "const int loops_stop = loops_is_tail ? loops_y1 : {};",
                off("loops_t + 1")
            ));
            if fixup && !accs.is_empty() {
                cx.open("if (loops_cut || loops_is_tail)");
                for a in &accs {
                    cx.line(format!("{} = {};", a.name, a.op.identity(&a.ty)));
                }
                cx.close();
            }
            cx.line_directive(parts.atoms.line);
            cx.open("for (; loops_nz < loops_stop; ++loops_nz)");
            match &staged {
                Some(staged) => {
                    for (i, u) in staged.iter().enumerate() {
                        let v = format!(
                            "loops_stage_{i}[loops_nz - loops_by0 + ((loops_nz - loops_by0) >> 5)]"
                        );
                        match u.op {
                            Some(op) => cx.line(format!("{} {}= {v};", u.acc, op.cuda())),
                            None => {
                                cx.line(format!("{} = {};", u.acc, u.combine.combine(u.acc, &v)))
                            }
                        }
                    }
                }
                None if subset.is_some() => {
                    cx.line(format!("const int {var} = (int)(loops_nz + loops_base);"));
                    cx.block(atom_body)?;
                }
                None => {
                    cx.line(format!("const int {var} = loops_nz;"));
                    cx.block(atom_body)?;
                }
            }
            cx.close();
            if fixup {
                cx.open("if (loops_is_tail)");
                cx.line("loops_tail_tile = loops_t;");
                for a in &accs {
                    cx.line(format!("loops_tail_{0} = {0};", a.name));
                }
                cx.close();
                cx.open("else if (loops_cut)");
                cx.line("loops_head_tile = loops_t;");
                for a in &accs {
                    cx.line(format!("loops_head_{0} = {0};", a.name));
                }
                cx.close();
                cx.open("else");
                cx.block(parts.epilogue)?;
                cx.close();
            } else {
                cx.block(parts.epilogue)?;
            }
            cx.close();
            if fixup {
                cx.scratch_slots_per_block = slots;
                let tile_id = subset.map(|(id, _, _)| id);
                self.fixup(
                    cx,
                    tile,
                    tile_id,
                    &off,
                    parts.prologue,
                    parts.epilogue,
                    &accs,
                )?;
            }
            if parts.rounds.is_some() {
                // The next round reuses the block's shared arrays.
                cx.line("__syncthreads();");
                cx.close();
            }
            Ok(())
        }

        fn atom_loop(&self, _cx: &mut Cx<'_>, atoms: AtomLoop<'_>) -> DResult<()> {
            bail!(
                atoms.tile.span,
                "internal error: the carry schedules lower the atom loop with the tile loop"
            )
        }
    }

    /// A tile loop's parts as the segmented scan runs them.
    struct TileBody<'a> {
        tile: &'a str,
        atom: &'a str,
        prologue: &'a [Stmt],
        epilogue: &'a [Stmt],
    }

    /// Whether each accumulator has exactly one staged update: then a position's staged operand is
    /// all its atom contributes, and a scan over the positions gives every tile's fold.
    fn one_update_each(staged: &[StagedUpdate<'_>], accs: &[Accumulator]) -> bool {
        staged.len() == accs.len()
            && accs
                .iter()
                .all(|a| staged.iter().filter(|u| u.acc == a.name).count() == 1)
    }

    /// `T loops_<var>_<acc> = <from(acc, i)>;` for each accumulator (`var` "part": a partial
    /// result being combined).
    fn declare_each(
        cx: &mut Cx<'_>,
        accs: &[Accumulator],
        var: &str,
        from: impl Fn(&Accumulator, usize) -> String,
    ) {
        for (i, a) in accs.iter().enumerate() {
            cx.line(format!(
                "{} loops_{var}_{} = {};",
                a.ty.cuda_name(),
                a.name,
                from(a, i)
            ));
        }
    }

    /// `loops_<var>_<acc> = <earlier(acc, i)> op loops_<var>_<acc>;`: folds in the partial of an
    /// earlier lane, thread, warp or block (earlier first, the order of the sequential loop).
    fn fold_earlier(
        cx: &mut Cx<'_>,
        accs: &[Accumulator],
        var: &str,
        earlier: impl Fn(&Accumulator, usize) -> String,
    ) {
        for (i, a) in accs.iter().enumerate() {
            let into = format!("loops_{var}_{}", a.name);
            let c = a.op.combine(&earlier(a, i), &into);
            cx.line(format!("{into} = {c};"));
        }
    }

    impl CarryLowering {
        /// Items (tiles + atoms, or atoms) of one block's range.
        fn block_items(&self) -> u32 {
            self.block_size * self.items_per_thread
        }

        /// Shared memory of everything but the staged operands: the offsets window, the warps'
        /// summaries of the in-block scan, the block's cross and tail partials.
        fn fixed_shared(&self, accs: usize) -> u32 {
            let warps = self.block_size / 32;
            (self.block_items() + 2) * 4 + warps * (8 + 8 * accs as u32) + 16 * accs as u32 + 32
        }

        /// Shared memory of everything but the staged operands under [`Self::segmented_scan`]: a
        /// byte per atom for the tile heads instead of the offsets window, the warps' heads and
        /// totals, the block's total, the ticket and the searched range.
        fn scan_fixed_shared(&self, accs: usize) -> u32 {
            let warps = self.block_size / 32;
            self.block_items() + warps * (1 + 8 * accs as u32) + 8 * accs as u32 + 32
        }

        /// Bytes of `updates` staged operands (8 bytes each at most, padded a word per 32).
        fn staged_shared(&self, updates: usize) -> u32 {
            updates as u32 * (self.block_items() * 33 / 32) * 8
        }

        /// Whether `updates` staged operands fit beside the rest.
        fn stage_fits(&self, updates: usize, accs: usize) -> bool {
            self.fixed_shared(accs) + self.staged_shared(updates) <= SHARED_BUDGET
        }

        /// [`Self::stage_fits`] for the segmented scan, which keeps no offsets window: 16 items per
        /// thread fit in f64 there (38 KB), not beside a window.
        fn scan_fits(&self, updates: usize, accs: usize) -> bool {
            self.scan_fixed_shared(accs) + self.staged_shared(updates) <= SHARED_BUDGET
        }

        /// Declares the block's range of the tile set (kept block starts, or two warps' searches):
        /// `loops_bx0, loops_by0` (where it starts) and `loops_bx1, loops_by1` (where it ends). With
        /// partials to carry, a block takes its place in the order (`loops_chunk`) from a ticket, so
        /// that every block it looks back at has started; otherwise it is `blockIdx.x`. The offsets
        /// window follows ([`Self::offsets_window`]).
        fn block_range(&self, cx: &mut Cx<'_>, set: &str, carries: bool, heads: bool) {
            let items = self.block_items();
            let split = matches!(self.partition, Partition::Split { .. });
            if heads {
                // Zeroed before the ticket's barrier, marked after it: no barrier of their own.
                let b = self.block_size;
                cx.line(format!(
                    "__shared__ __align__(16) unsigned char loops_heads[{items}];"
                ));
                cx.line("#pragma unroll");
                cx.line(format!(
                    "for (int loops_r = 0; loops_r < {}; ++loops_r) {{ const int loops_i = (int)threadIdx.x + loops_r * {b}; \
                     if (loops_i < {}) reinterpret_cast<unsigned int*>(loops_heads)[loops_i] = 0u; }}",
                    (items / 4).div_ceil(b),
                    items / 4
                ));
            } else if !split {
                cx.line(format!("__shared__ int loops_offs[{}];", items + 2));
            }
            if carries {
                // Scratch slot 0: the launch's epoch (high half) and the next ticket (low half). The
                // last block to take a ticket starts the next epoch with ticket 0.
                cx.line("__shared__ unsigned long long loops_ticket;");
                cx.open("if (threadIdx.x == 0)");
                cx.line("const unsigned long long loops_t = atomicAdd(loops_scratch, 1ull);");
                cx.line("if ((unsigned int)loops_t == gridDim.x - 1u) atomicAdd(loops_scratch, (1ull << 32) - gridDim.x);");
                cx.line("loops_ticket = loops_t;");
                cx.close();
                cx.line("__syncthreads();");
                cx.line("const long long loops_chunk = (long long)(unsigned int)loops_ticket;");
                cx.line("const unsigned long long loops_epoch = (loops_ticket >> 32) + 1ull;");
            } else {
                cx.line("const long long loops_chunk = blockIdx.x;");
            }
            // The largest x in lo..=hi with offsets[x] + slope * x <= bound, by one warp: each round
            // every lane tests one of 32 evenly spaced candidates, and the count of passes narrows
            // the range 31-fold (five rounds for 2^24 tiles, 32 sectors of L2 traffic each; a
            // block-wide search would move eight times the bytes).
            // `split` searches the prefix sum of the tiles' piece counts instead of their offsets.
            let searched = if split {
                "loops_pieces".to_string()
            } else {
                format!("{set}_offsets")
            };
            cx.line(format!(
                "auto loops_warp_search = [&](long long lo, long long hi, long long bound, int slope) {{ \
                 const long long lane = threadIdx.x & 31; \
                 while (lo < hi) {{ const long long span = hi - lo; \
                 const long long at = lo + 1 + (span - 1) * lane / 31; \
                 const int passed = __popc(__ballot_sync(0xffffffffu, (long long){searched}[at] + slope * at <= bound)); \
                 if (passed == 0) hi = lo; else if (passed == 32) lo = hi; \
                 else {{ const long long next = lo + 1 + (span - 1) * passed / 31; lo = lo + 1 + (span - 1) * (passed - 1) / 31; hi = next - 1; }} }} \
                 return (int)lo; }};"
            ));
            // The first warp finds where the block's range starts, the second where it ends.
            cx.line("__shared__ int loops_range[2];");
            match self.partition {
                Partition::MergePath => {
                    cx.line(format!(
                        "const long long loops_total = (long long){set}_rows + {set}_nnz;"
                    ));
                    cx.line(format!(
                        "const long long loops_bd0 = min(loops_chunk * {items}, loops_total);"
                    ));
                    cx.line(format!(
                        "const long long loops_bd1 = min(loops_bd0 + {items}, loops_total);"
                    ));
                    self.find_range(
                        cx,
                        "const long long loops_d = loops_end ? loops_bd1 : loops_bd0;",
                        // Over all tiles, not only those the diagonal can reach: every block's
                        // search then walks the same tree of probes from the top, whose upper
                        // levels stay in L1 for the blocks after the first on an SM.
                        &format!("loops_warp_search(0, {set}_rows, loops_d, 1)"),
                    );
                    cx.line("const int loops_bx0 = loops_r0, loops_bx1 = loops_r1;");
                    cx.line("const int loops_by0 = (int)(loops_bd0 - loops_bx0);");
                    cx.line("const int loops_by1 = (int)(loops_bd1 - loops_bx1);");
                }
                Partition::WorkOriented => {
                    cx.line(format!(
                        "const int loops_by0 = (int)min(loops_chunk * {items}, (long long){set}_nnz);"
                    ));
                    cx.line(format!(
                        "const int loops_by1 = (int)min((long long)loops_by0 + {items}, (long long){set}_nnz);"
                    ));
                    // A tile belongs to the range holding its end; the first range also takes the
                    // empty tiles before the first atom, the last one those after the last atom.
                    self.find_range(
                        cx,
                        "const int loops_p = loops_end ? loops_by1 : loops_by0;",
                        &format!("loops_warp_search(0, {set}_rows, loops_p, 0)"),
                    );
                    cx.line("const int loops_bx0 = loops_chunk == 0 ? 0 : loops_r0;");
                    cx.line(format!(
                        "const int loops_bx1 = loops_by1 == {set}_nnz ? {set}_rows : loops_r1;"
                    ));
                }
                Partition::Split { .. } => {
                    // The block's virtual tiles `loops_bi0..loops_bi1`, one per thread; a range
                    // starts in the last tile whose first piece is at or before it.
                    cx.line(format!(
                        "const long long loops_pieces_total = loops_pieces[{set}_rows];"
                    ));
                    cx.line(format!(
                        "const long long loops_bi0 = min(loops_chunk * {items}, loops_pieces_total);"
                    ));
                    cx.line(format!(
                        "const long long loops_bi1 = min(loops_bi0 + {items}, loops_pieces_total);"
                    ));
                    self.two_warp_searches(
                        cx,
                        "const long long loops_i = loops_end ? loops_bi1 : loops_bi0;",
                        &format!("loops_warp_search(0, {set}_rows, loops_i, 0)"),
                    );
                    cx.line("__syncthreads();");
                    cx.line("const int loops_bx0 = loops_range[0], loops_bx1 = loops_range[1];");
                    for (end, i) in [("0", "loops_bi0"), ("1", "loops_bi1")] {
                        cx.line(format!(
                            "const int loops_by{end} = (int)({set}_offsets[loops_bx{end}] + ({i} - loops_pieces[loops_bx{end}]) * (long long)loops_mdt);"
                        ));
                    }
                }
            }
        }

        /// The offsets `loops_bx0..=loops_bx1 + 1` in shared memory (`loops_offs`), without the
        /// barrier that must follow before they are read. `split` has none (its segments read the
        /// offsets where they need them, and its range ends with a barrier): false.
        fn offsets_window(&self, cx: &mut Cx<'_>, set: &str) -> bool {
            let items = self.block_items();
            let window = format!("min(loops_bx1 + 1, {set}_rows) - loops_bx0 + 1");
            match self.partition {
                Partition::MergePath => cx.line(format!("const int loops_window = {window};")),
                Partition::Split { .. } => return false,
                Partition::WorkOriented => {
                    // A range of atoms may hold any number of empty tiles: past the window's size,
                    // the offsets are read from global memory.
                    cx.line(format!("const int loops_window = {window};"));
                    cx.line(format!(
                        "const bool loops_windowed = loops_window <= {};",
                        items + 2
                    ));
                }
            }
            let guard = match self.partition {
                Partition::MergePath | Partition::Split { .. } => "",
                Partition::WorkOriented => "if (loops_windowed) ",
            };
            // A fixed trip count, unrolled: every thread issues all its loads before the first
            // one returns (a loop bounded by `loops_window` waited for each load in turn).
            let b = self.block_size;
            let trips = (self.block_items() + 2).div_ceil(b);
            cx.line(format!("{guard}{{"));
            cx.line("#pragma unroll");
            cx.line(format!("for (int loops_r = 0; loops_r < {trips}; ++loops_r) {{ const int loops_i = (int)threadIdx.x + loops_r * {b}; if (loops_i < loops_window) loops_offs[loops_i] = {set}_offsets[loops_bx0 + loops_i]; }}"));
            cx.line("}");
            true
        }

        /// Declares the first tile of the block's range as `loops_r0` and its last as `loops_r1`: from
        /// `loops_block_starts` where the runtime kept them (a whole tile set: computed once per
        /// tile set, two loads instead of two searches of dependent loads on every block's critical
        /// path), else by [`Self::two_warp_searches`]. Which, is the body's template constant
        /// `loops_kept` ([`crate::schedule::RangeEntry`]).
        fn find_range(&self, cx: &mut Cx<'_>, bound: &str, search: &str) {
            if !cx.kernel.takes_block_starts() {
                self.two_warp_searches(cx, bound, search);
                cx.line("__syncthreads();");
                cx.line("const int loops_r0 = loops_range[0], loops_r1 = loops_range[1];");
                return;
            }
            // Every thread loads both starts (one broadcast transaction per warp) into registers:
            // no barrier between the load and the loads that depend on it.
            cx.line("int loops_r0, loops_r1;");
            cx.open("if (loops_kept)");
            cx.line("loops_r0 = loops_block_starts[loops_chunk];");
            cx.line("loops_r1 = loops_block_starts[loops_chunk + 1];");
            cx.close();
            // A constant of the entry point: the barrier is legal here.
            cx.open("else");
            self.two_warp_searches(cx, bound, search);
            cx.line("__syncthreads();");
            cx.line("loops_r0 = loops_range[0];");
            cx.line("loops_r1 = loops_range[1];");
            cx.close();
        }

        /// Runs `search` for the range's start (`loops_end` false) and end (true) into
        /// `loops_range[0]` and `[1]`: on two warps at once, or one after the other in a block of one
        /// warp. `bound` declares what `search` reads from `loops_end`.
        fn two_warp_searches(&self, cx: &mut Cx<'_>, bound: &str, search: &str) {
            if self.block_size >= 64 {
                cx.open("if (threadIdx.x < 64)");
                cx.line("const bool loops_end = threadIdx.x >= 32;");
                cx.line(bound);
                cx.line(format!("const int loops_x = {search};"));
                cx.line("if ((threadIdx.x & 31) == 0) loops_range[loops_end] = loops_x;");
                cx.close();
            } else {
                cx.open("for (int loops_end = 0; loops_end < 2; ++loops_end)");
                cx.line(bound);
                cx.line(format!("const int loops_x = {search};"));
                cx.line("if (threadIdx.x == 0) loops_range[loops_end] = loops_x;");
                cx.close();
            }
        }

        /// Declares `loops_x0, loops_y0, loops_x1, loops_y1`: this thread's segment of the block's
        /// range, by binary search in the shared offsets.
        fn thread_segment(&self, cx: &mut Cx<'_>, set: &str, off: &dyn Fn(&str) -> String) {
            let s = self.items_per_thread;
            match self.partition {
                Partition::MergePath => {
                    cx.line(format!(
                        "const long long loops_d0 = min(loops_bd0 + (long long)threadIdx.x * {s}, loops_bd1);"
                    ));
                    cx.line(format!(
                        "const long long loops_d1 = min(loops_d0 + {s}, loops_bd1);"
                    ));
                    for which in ["0", "1"] {
                        let d = format!("loops_d{which}");
                        let x = search(
                            off,
                            &format!("max((long long)loops_bx0, {d} - {set}_nnz)"),
                            &format!("min((long long)loops_bx1, {d})"),
                            &d,
                            1,
                        );
                        cx.line(format!("const int loops_x{which} = {x};"));
                        cx.line(format!(
                            "const int loops_y{which} = (int)({d} - loops_x{which});"
                        ));
                    }
                }
                Partition::WorkOriented => {
                    cx.line(format!(
                        "const int loops_last_thread = max(0, (loops_by1 - loops_by0 + {}) / {s} - 1);",
                        s - 1
                    ));
                    cx.line("const bool loops_active = (int)threadIdx.x <= loops_last_thread;");
                    cx.line(format!(
                        "const int loops_y0 = loops_active ? loops_by0 + (int)threadIdx.x * {s} : loops_by1;"
                    ));
                    cx.line(format!(
                        "const int loops_y1 = loops_active ? min(loops_y0 + {s}, loops_by1) : loops_by1;"
                    ));
                    let ended_by = |p: &str| search(off, "loops_bx0", "loops_bx1", p, 0);
                    cx.line(format!(
                        "const int loops_x0 = !loops_active ? loops_bx1 : threadIdx.x == 0 ? loops_bx0 : {};",
                        ended_by("loops_y0")
                    ));
                    cx.line(format!(
                        "const int loops_x1 = (!loops_active || (int)threadIdx.x == loops_last_thread) ? loops_bx1 : {};",
                        ended_by("loops_y1")
                    ));
                }
                Partition::Split { .. } => {
                    // Virtual tile `loops_i`: piece `loops_i - pieces[x0]` of tile x0; after it, the
                    // same tile is in progress, or (its last piece) the next tile with pieces.
                    let pieces = |i: &str| format!("loops_pieces[{i}]");
                    cx.line("const long long loops_i = loops_bi0 + (long long)threadIdx.x;");
                    cx.line("const bool loops_active = loops_i < loops_bi1;");
                    cx.line(format!(
                        "const int loops_x0 = !loops_active ? loops_bx1 : {};",
                        search(&pieces, "loops_bx0", "loops_bx1", "loops_i", 0)
                    ));
                    cx.line(format!(
                        "const int loops_y0 = !loops_active ? loops_by1 : (int)({} + (loops_i - loops_pieces[loops_x0]) * (long long)loops_mdt);",
                        off("loops_x0")
                    ));
                    cx.line(format!(
                        "const int loops_x1 = !loops_active ? loops_bx1 : {};",
                        search(&pieces, "loops_x0", "loops_bx1", "loops_i + 1", 0)
                    ));
                    cx.line(format!(
                        "const int loops_y1 = !loops_active ? loops_by1 : loops_x1 == loops_x0 ? loops_y0 + loops_mdt : {};",
                        off("loops_x1")
                    ));
                }
            }
        }

        /// Whether this lowering runs the kernel's tile loop as a segmented scan
        /// ([`Self::segmented_scan`]): `work_oriented` over a whole tile set, no rounds, an
        /// epilogue, and every accumulator folding one staged operand that fits in shared memory.
        pub fn scans(&self, kernel: &Kernel) -> bool {
            if self.partition != Partition::WorkOriented || kernel.body.subset.is_some() {
                return false;
            }
            let name = kernel.config.name();
            let Ok(parts) = carry_body(kernel, kernel.body.user_body(), name) else {
                return false;
            };
            let StmtKind::ForAtoms { var, body, .. } = &parts.atoms.kind else {
                return false;
            };
            let Ok(accs) = accumulators(body, var, name) else {
                return false;
            };
            if parts.rounds.is_some() || parts.epilogue.is_empty() || accs.is_empty() {
                return false;
            }
            staged_updates(kernel, body, var, &[]).is_some_and(|staged| {
                self.scan_fits(staged.len(), accs.len()) && one_update_each(&staged, &accs)
            })
        }

        /// `work_oriented` where every accumulator folds one staged operand: the in-block work is a
        /// segmented scan over the block's atoms instead of per-thread tile walks.
        ///
        /// 1. The block stages its atoms' operands (coalesced) and marks, in `loops_heads`, each
        ///    atom where a tile starts (a strided loop over the range's tiles).
        /// 2. Each thread scans its `items_per_thread` consecutive atoms in registers, segmented by
        ///    the heads; the threads' totals are scanned by shuffles, then across warps; every
        ///    atom's inclusive partial (back to its tile's start, or the block's) goes back in place.
        /// 3. Each tile ending in the block is then one read: its last atom's partial. The block's
        ///    threads take the tiles in turn (`tile = bx0 + threadIdx.x + k * blockDim.x`), so
        ///    prologues, epilogues and their writes run side by side, coalesced, and empty tiles
        ///    cost a thread one step.
        ///
        /// The records and the look-back are the other schedules' (`look_back`). Measured on an
        /// H100 against the per-thread walks: fewer instructions, no divergence in the walks.
        fn segmented_scan(
            &self,
            cx: &mut Cx<'_>,
            set: &str,
            body: &TileBody<'_>,
            staged: &[StagedUpdate<'_>],
            accs: &[Accumulator],
        ) -> DResult<()> {
            let (b, ipt) = (self.block_size, self.items_per_thread);
            let off = |i: &str| format!("{set}_offsets[{i}]");
            let pad = |p: &str| format!("({p}) + (({p}) >> 5)");
            // The accumulators in the order of their staged operands: `loops_stage_<i>` is the
            // operand of the `i`th, and so is its place in the block's record.
            let accs: Vec<Accumulator> = staged
                .iter()
                .map(|u| {
                    let a = accs.iter().find(|a| a.name == u.acc);
                    a.expect("one update each").clone()
                })
                .collect();
            let accs = accs.as_slice();
            self.block_range(cx, set, true, true);
            cx.line("const int loops_n = loops_by1 - loops_by0;");
            self.stage(cx, body.atom, staged, false, true);
            // Tile `bx0` starts at or before the block; the others up to `bx1` may start inside.
            cx.open(format!(
                "for (int loops_t = loops_bx0 + 1 + (int)threadIdx.x; loops_t <= loops_bx1; loops_t += {b})"
            ));
            cx.line(format!(
                "const int loops_s = {} - loops_by0;",
                off("loops_t")
            ));
            cx.line("if (loops_s > 0 && loops_s < loops_n) loops_heads[loops_s] = 1;");
            cx.close();
            cx.line("__syncthreads();");

            // 2. The thread's atoms `p0..p0 + ipt`: heads, then an inclusive segmented scan.
            cx.line(
                "const int loops_lane = (int)threadIdx.x & 31, loops_warp = (int)threadIdx.x >> 5;",
            );
            cx.line(format!("const int loops_p0 = (int)threadIdx.x * {ipt};"));
            // The heads come in as whole words: 8 bytes where the thread's run is 8-aligned (fewer
            // live registers through the scan: at 16 items per thread, 8 bytes of spills instead of
            // 24), else 4; else byte by byte.
            let word = [(8, "unsigned long long", "ull"), (4, "unsigned int", "u")]
                .into_iter()
                .find(|(bytes, _, _)| ipt % bytes == 0);
            let head = |j: u32| match word {
                Some((bytes, _, suffix)) => format!(
                    "((loops_hw[{}] >> {}) & 0xff{suffix})",
                    j / bytes,
                    8 * (j % bytes)
                ),
                None => format!("loops_heads[loops_p0 + {j}]"),
            };
            if let Some((bytes, ty, _)) = word {
                let words = ipt / bytes;
                cx.line(format!("{ty} loops_hw[{words}];"));
                cx.line("#pragma unroll");
                cx.line(format!(
                    "for (int loops_k = 0; loops_k < {words}; ++loops_k) loops_hw[loops_k] = reinterpret_cast<const {ty}*>(loops_heads)[threadIdx.x * {words} + loops_k];"
                ));
            }
            cx.line("bool loops_f = false;");
            for a in accs {
                cx.line(format!("{} loops_acc_{}[{ipt}];", a.ty.cuda_name(), a.name));
            }
            // Unrolled by hand: the heads are register fields at constant shifts.
            for j in 0..ipt {
                cx.open("");
                cx.line(format!("const int loops_p = loops_p0 + {j};"));
                cx.line(format!("const bool loops_head = {} != 0;", head(j)));
                cx.line("loops_f = loops_f || loops_head;");
                for (i, a) in accs.iter().enumerate() {
                    // The operand is read once, then selected: read in both arms of the head
                    // test, it compiled to a divergent branch per atom (H100 SASS: 74 branches
                    // against 29).
                    let v = format!("loops_v_{}", a.name);
                    cx.line(format!(
                        "const {} {v} = loops_p < loops_n ? loops_stage_{i}[{}] : {};",
                        a.ty.cuda_name(),
                        pad("loops_p"),
                        a.op.identity(&a.ty)
                    ));
                    let folded = if j == 0 {
                        v
                    } else {
                        format!(
                            "loops_head ? {v} : {}",
                            a.op.combine(&format!("loops_acc_{}[{}]", a.name, j - 1), &v)
                        )
                    };
                    cx.line(format!("loops_acc_{}[{j}] = {folded};", a.name));
                }
                cx.close();
            }
            // The threads' totals (has a head, partial since the last one): shuffles up, segmented.
            declare_each(cx, accs, "run", |a, _| {
                format!("loops_acc_{}[{}]", a.name, ipt - 1)
            });
            cx.line("#pragma unroll");
            cx.open("for (int loops_o = 1; loops_o < 32; loops_o <<= 1)");
            Self::shuffle_up(cx, accs, "up", "loops_o", ("bool", "f", "loops_f"));
            cx.open("if (loops_lane >= loops_o)");
            cx.open("if (!loops_f)");
            fold_earlier(cx, accs, "run", |a, _| format!("loops_up_{}", a.name));
            cx.close();
            cx.line("loops_f = loops_f || loops_up_f;");
            cx.close();
            cx.close();
            let warps = b / 32;
            cx.line(format!("__shared__ bool loops_warp_head[{warps}];"));
            for a in accs {
                cx.line(format!(
                    "__shared__ {} loops_warp_{}[{warps}];",
                    a.ty.cuda_name(),
                    a.name
                ));
            }
            cx.open("if (loops_lane == 31)");
            cx.line("loops_warp_head[loops_warp] = loops_f;");
            for a in accs {
                cx.line(format!(
                    "loops_warp_{0}[loops_warp] = loops_run_{0};",
                    a.name
                ));
            }
            cx.close();
            // What comes before the thread's first atom, back to the nearest head: the lane
            // before it, then, while no head was met, the earlier warps' totals.
            Self::shuffle_up(cx, accs, "prev", "1", ("bool", "f", "loops_f"));
            cx.line("bool loops_in_f = loops_lane > 0 && loops_prev_f;");
            declare_each(cx, accs, "in", |a, _| {
                format!(
                    "loops_lane > 0 ? loops_prev_{} : {}",
                    a.name,
                    a.op.identity(&a.ty)
                )
            });
            cx.line("__syncthreads();");
            cx.open("if (!loops_in_f)");
            cx.open("for (int loops_v = loops_warp - 1; loops_v >= 0; --loops_v)");
            fold_earlier(cx, accs, "in", |a, _| {
                format!("loops_warp_{}[loops_v]", a.name)
            });
            cx.line("if (loops_warp_head[loops_v]) break;");
            cx.close();
            cx.close();
            // The carry reaches the atoms before the thread's first head; every atom's partial
            // goes back in place. The block's last atom's is its record.
            cx.line("bool loops_open = true;");
            declare_each(cx, accs, "last", |a, _| a.op.identity(&a.ty));
            for j in 0..ipt {
                cx.open("");
                cx.line(format!("const int loops_p = loops_p0 + {j};"));
                cx.line(format!("if ({} != 0) loops_open = false;", head(j)));
                for (i, a) in accs.iter().enumerate() {
                    let c = a.op.combine(
                        &format!("loops_in_{}", a.name),
                        &format!("loops_acc_{}[{j}]", a.name),
                    );
                    cx.line(format!("if (loops_open) loops_acc_{}[{j}] = {c};", a.name));
                    cx.line(format!(
                        "if (loops_p < loops_n) loops_stage_{i}[{}] = loops_acc_{}[{j}];",
                        pad("loops_p"),
                        a.name
                    ));
                    cx.line(format!(
                        "if (loops_p == loops_n - 1) loops_last_{0} = loops_acc_{0}[{j}];",
                        a.name
                    ));
                }
                cx.close();
            }
            // The record: the partial of the tile in progress at the block's end (nothing of it
            // here if it starts at the next block), inclusive where it began in the block.
            cx.line(
                "const unsigned int loops_stamp = (unsigned int)loops_epoch | (unsigned int)(loops_epoch >> 32);",
            );
            cx.line("unsigned long long* const loops_data = loops_scratch + 1;");
            cx.line(format!(
                "unsigned long long* const loops_mine = loops_data + loops_chunk * {};",
                slots_per_block(accs.len())
            ));
            cx.line("const bool loops_inside = loops_bx0 == loops_bx1;");
            for a in accs {
                cx.line(format!(
                    "__shared__ {} loops_block_{};",
                    a.ty.cuda_name(),
                    a.name
                ));
            }
            cx.open(format!(
                "if ((int)threadIdx.x == max(loops_n - 1, 0) / {ipt})"
            ));
            cx.open(format!(
                "if (!loops_inside && {} >= loops_by1)",
                off("loops_bx1")
            ));
            for a in accs {
                cx.line(format!("loops_last_{} = {};", a.name, a.op.identity(&a.ty)));
            }
            cx.close();
            for (i, a) in accs.iter().enumerate() {
                cx.line(format!(
                    "loops_publish(loops_mine + (loops_inside ? {} : {}), loops_stamp, loops_last_{});",
                    aggregate_word(i),
                    inclusive_word(accs.len(), i),
                    a.name
                ));
                cx.line(format!("loops_block_{0} = loops_last_{0};", a.name));
            }
            cx.close();
            cx.line("__syncthreads();");

            // 3. The tiles that end in the block, a thread each in turn. Tile `bx0`, if it began
            // in an earlier block, is finished after the look-back instead.
            cx.line(format!(
                "const bool loops_cross = !loops_inside && {} < loops_by0;",
                off("loops_bx0")
            ));
            cx.open(format!(
                "for (int loops_t = loops_bx0 + (loops_cross ? 1 : 0) + (int)threadIdx.x; loops_t < loops_bx1; loops_t += {b})"
            ));
            cx.line(format!("const int {} = loops_t;", body.tile));
            cx.block(body.prologue)?;
            cx.line(format!(
                "const int loops_e = {} - loops_by0;",
                off("loops_t + 1")
            ));
            cx.open(format!("if (loops_e > {} - loops_by0)", off("loops_t")));
            for (i, a) in accs.iter().enumerate() {
                let c =
                    a.op.combine(&a.name, &format!("loops_stage_{i}[{}]", pad("loops_e - 1")));
                cx.line(format!("{} = {c};", a.name));
            }
            cx.close();
            cx.block(body.epilogue)?;
            cx.close();
            cx.line("const int loops_cross_tile = loops_cross ? loops_bx0 : -1;");
            cx.line(format!(
                "const int loops_cross_end = loops_cross ? {} - 1 - loops_by0 : 0;",
                off("loops_bx0 + 1")
            ));
            for (i, a) in accs.iter().enumerate() {
                cx.line(format!(
                    "const {} loops_cross_{} = loops_stage_{i}[{}];",
                    a.ty.cuda_name(),
                    a.name,
                    pad("loops_cross_end")
                ));
            }
            self.look_back(cx, body.tile, None, body.prologue, body.epilogue, accs)
        }

        /// Computes the operands of the block's atoms into shared memory, each atom by the thread
        /// `atom % blockDim.x` (coalesced), for the segments to fold in; then a barrier if
        /// `barrier` (else the caller emits one before the segments read them). `folded`: each
        /// operand is stored ready to fold with its accumulator's combine (`acc -= e` stores `-e`),
        /// for a scan that folds them without the update's own operator.
        fn stage(
            &self,
            cx: &mut Cx<'_>,
            var: &str,
            staged: &[StagedUpdate<'_>],
            barrier: bool,
            folded: bool,
        ) {
            for (i, u) in staged.iter().enumerate() {
                // One pad slot per 32: threads read their segments' operands at a stride of about
                // `items_per_thread`, which would otherwise fall into a few banks.
                cx.line(format!(
                    "__shared__ {} loops_stage_{i}[{}];",
                    u.ty.cuda_name(),
                    self.block_items() + self.block_items() / 32
                ));
            }
            // Where the runtime says the launch streams past L2, the tile set's arrays are loaded
            // evict-first: the entry point's constant `loops_streamed` picks one of two loops, so
            // each entry holds one ([`crate::schedule::RangeEntry`]).
            if cx.kernel.takes_block_starts() && !cx.is_checked() {
                cx.open("if (loops_streamed)");
                cx.streamed_atom = Some(var.to_string());
                self.stage_loop(cx, var, staged, folded);
                cx.streamed_atom = None;
                cx.close();
                cx.open("else");
                self.stage_loop(cx, var, staged, folded);
                cx.close();
            } else {
                self.stage_loop(cx, var, staged, folded);
            }
            if barrier {
                cx.line("__syncthreads();");
            }
        }

        /// The staging loop of [`Self::stage`]: each thread's operands at a stride of the block.
        fn stage_loop(
            &self,
            cx: &mut Cx<'_>,
            var: &str,
            staged: &[StagedUpdate<'_>],
            folded: bool,
        ) {
            // `items_per_thread` trips, unrolled, so that each thread's loads (and the gathers that
            // depend on them) are all in flight at once.
            cx.line("#pragma unroll");
            cx.open(format!(
                "for (int loops_r = 0; loops_r < {}; ++loops_r)",
                self.items_per_thread
            ));
            cx.line(format!(
                "const int loops_k = (int)threadIdx.x + loops_r * {};",
                self.block_size
            ));
            cx.open("if (loops_k < loops_by1 - loops_by0)");
            cx.line(format!("const int {var} = loops_by0 + loops_k;"));
            for (i, u) in staged.iter().enumerate() {
                let v = cx.expr(u.operand);
                let v = if folded && u.op == Some(BinOp::Sub) {
                    format!("(-({v}))")
                } else {
                    v
                };
                cx.line(format!("loops_stage_{i}[loops_k + (loops_k >> 5)] = {v};"));
            }
            cx.close();
            cx.close();
        }

        /// Steps 2 and 3 of the protocol: in-block heads; the block's record; the head of a tile
        /// that began in an earlier block, finished after a look-back over the earlier records.
        #[allow(clippy::too_many_arguments)]
        fn fixup(
            &self,
            cx: &mut Cx<'_>,
            tile: &str,
            tile_id: Option<&Stmt>,
            off: &dyn Fn(&str) -> String,
            prologue: &[Stmt],
            epilogue: &[Stmt],
            accs: &[Accumulator],
        ) -> DResult<()> {
            if accs.is_empty() {
                // Nothing to carry: the thread that holds a tile's end finishes it, wherever the
                // tile began. No records, no look-back.
                cx.open("if (loops_head_tile >= 0)");
                self.finish_tile(
                    cx,
                    tile,
                    tile_id,
                    "loops_head_tile",
                    prologue,
                    epilogue,
                    accs,
                )?;
                cx.close();
                return Ok(());
            }
            let warps = self.block_size / 32;
            let slots = slots_per_block(accs.len());
            let (aggregate, inclusive) = (aggregate_word, |i| inclusive_word(accs.len(), i));

            // The in-block fold: an inclusive segmented scan of the threads' tails, a run of
            // threads whose tails are the same tile being one segment (tiles only grow with the
            // thread, so a lane `o` back with the same tile means every lane between has it too).
            // Shuffles within each warp, then a run that reaches back past its warp's first lane
            // adds the earlier warps' parts from their summaries: a few steps where a serial walk
            // over the threads took up to one per thread of the block.
            cx.line(
                "const int loops_lane = (int)threadIdx.x & 31, loops_warp = (int)threadIdx.x >> 5;",
            );
            declare_each(cx, accs, "run", |a, _| format!("loops_tail_{}", a.name));
            cx.line("#pragma unroll");
            cx.open("for (int loops_o = 1; loops_o < 32; loops_o <<= 1)");
            Self::shuffle_up(
                cx,
                accs,
                "up",
                "loops_o",
                ("int", "tile", "loops_tail_tile"),
            );
            cx.open("if (loops_lane >= loops_o && loops_up_tile == loops_tail_tile)");
            fold_earlier(cx, accs, "run", |a, _| format!("loops_up_{}", a.name));
            cx.close();
            cx.close();
            cx.line(format!("__shared__ int loops_warp_last[{warps}];"));
            for a in accs {
                let ty = a.ty.cuda_name();
                cx.line(format!("__shared__ {ty} loops_warp_{}[{warps}];", a.name));
                cx.line(format!("__shared__ {ty} loops_cross_{};", a.name));
                cx.line(format!("__shared__ {ty} loops_block_{};", a.name));
            }
            cx.line("__shared__ int loops_cross_tile;");
            cx.line("const int loops_first_tile = __shfl_sync(0xffffffffu, loops_tail_tile, 0);");
            cx.open("if (loops_lane == 31)");
            cx.line("loops_warp_last[loops_warp] = loops_tail_tile;");
            for a in accs {
                cx.line(format!(
                    "loops_warp_{0}[loops_warp] = loops_run_{0};",
                    a.name
                ));
            }
            cx.close();
            cx.line("if (threadIdx.x == 0) loops_cross_tile = -1;");
            cx.line("__syncthreads();");
            if warps > 1 {
                cx.open("if (loops_warp > 0 && loops_first_tile == loops_tail_tile)");
                declare_each(cx, accs, "part", |a, _| format!("loops_run_{}", a.name));
                Self::earlier_warps(cx, accs, "loops_tail_tile");
                for a in accs {
                    cx.line(format!("loops_run_{0} = loops_part_{0};", a.name));
                }
                cx.close();
            }

            // The block's record, for the blocks after it: the partials of the tile in progress
            // at the block's end, as *inclusive* partials where the tile began in this block, else
            // (the block lies inside one tile) as its *aggregate*. Written as soon as known, with
            // no fence: each word carries the launch's stamp.
            cx.line(
                "const unsigned int loops_stamp = (unsigned int)loops_epoch | (unsigned int)(loops_epoch >> 32);",
            );
            cx.line(format!(
                "unsigned long long* const loops_mine = loops_data + loops_chunk * {slots};"
            ));
            cx.line("const bool loops_inside = loops_bx0 == loops_bx1;");
            cx.open("if (threadIdx.x == blockDim.x - 1)");
            for (i, a) in accs.iter().enumerate() {
                cx.line(format!(
                    "loops_publish(loops_mine + (loops_inside ? {} : {}), loops_stamp, loops_run_{});",
                    aggregate(i),
                    inclusive(i),
                    a.name
                ));
                cx.line(format!("loops_block_{0} = loops_run_{0};", a.name));
            }
            cx.close();

            // A head: this thread holds the end of a tile that began before its segment. The
            // threads before it that hold the same tile are the run ending at the lane before it
            // (a shuffle), or, for a warp's first lane, in the earlier warps' summaries.
            Self::shuffle_up(cx, accs, "prev", "1", ("int", "tile", "loops_tail_tile"));
            cx.open("if (loops_head_tile >= 0)");
            declare_each(cx, accs, "part", |a, _| format!("loops_head_{}", a.name));
            cx.open("if (loops_lane > 0)");
            cx.open("if (loops_prev_tile == loops_head_tile)");
            fold_earlier(cx, accs, "part", |a, _| format!("loops_prev_{}", a.name));
            cx.close();
            cx.close();
            if warps > 1 {
                cx.open("else");
                Self::earlier_warps(cx, accs, "loops_head_tile");
                cx.close();
            }
            cx.open(format!("if ({} < loops_by0)", off("loops_head_tile")));
            cx.line("loops_cross_tile = loops_head_tile;");
            for a in accs {
                cx.line(format!("loops_cross_{0} = loops_part_{0};", a.name));
            }
            cx.close();
            cx.open("else");
            self.finish_tile(
                cx,
                tile,
                tile_id,
                "loops_head_tile",
                prologue,
                epilogue,
                accs,
            )?;
            cx.close();
            cx.close();
            cx.line("__syncthreads();");

            self.look_back(cx, tile, tile_id, prologue, epilogue, accs)
        }

        /// Step 4: the look-back. Needs in scope `loops_cross_tile` (-1 for none) and
        /// `loops_cross_<acc>` (the block's part of that tile), `loops_inside`, `loops_block_<acc>`
        /// (the block's aggregate), `loops_data`, `loops_mine` and `loops_stamp`.
        #[allow(clippy::too_many_arguments)]
        fn look_back(
            &self,
            cx: &mut Cx<'_>,
            tile: &str,
            tile_id: Option<&Stmt>,
            prologue: &[Stmt],
            epilogue: &[Stmt],
            accs: &[Accumulator],
        ) -> DResult<()> {
            let slots = slots_per_block(accs.len());
            let (aggregate, inclusive) = (aggregate_word, |i| inclusive_word(accs.len(), i));
            // The look-back, by the first warp (Merrill and Garland's decoupled look-back): 32
            // earlier records at a time, each waited for (its block has started, and waits only on
            // blocks before it), summed up to the nearest inclusive one. A block with a head of a
            // tile begun earlier finishes that tile with it; a block inside one tile adds its own
            // aggregate and publishes the result as inclusive, so that the blocks after it inside
            // the same long tile stop there instead of walking back to the tile's start (on a row
            // of a million atoms, 500 blocks: 16 rounds of dependent loads for the block at its end).
            cx.open("if ((loops_cross_tile >= 0 || loops_inside) && threadIdx.x < 32)");
            declare_each(cx, accs, "look", |a, _| a.op.identity(&a.ty));
            cx.open("for (long long loops_c0 = loops_chunk - 1; ; loops_c0 -= 32)");
            cx.line("const long long loops_c = loops_c0 - (long long)threadIdx.x;");
            // The whole record in registers (one sector for one accumulator), read again until
            // every word of its inclusive or of its aggregate partials carries this launch's stamp.
            cx.line(format!("unsigned long long loops_w[{slots}] = {{}};"));
            cx.line("bool loops_complete = true;");
            cx.open("if (loops_c >= 0)");
            cx.line(format!(
                "const volatile unsigned long long* const loops_theirs = loops_data + loops_c * {slots};"
            ));
            cx.open("for (;;)");
            cx.line("#pragma unroll");
            cx.line(format!(
                "for (int loops_k = 0; loops_k < {slots}; ++loops_k) loops_w[loops_k] = loops_theirs[loops_k];"
            ));
            let ready = |word: &dyn Fn(usize) -> usize| {
                accs.iter()
                    .enumerate()
                    .map(|(i, a)| {
                        format!(
                            "loops_ready<{}>(&loops_w[{}], loops_stamp)",
                            a.ty.cuda_name(),
                            word(i)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(" && ")
            };
            cx.line(format!("if ({}) break;", ready(&inclusive)));
            cx.open(format!("if ({})", ready(&aggregate)));
            cx.line("loops_complete = false;");
            cx.line("break;");
            cx.close();
            cx.line("__nanosleep(32);");
            cx.close();
            cx.close();
            cx.line("const unsigned int loops_stops = __ballot_sync(0xffffffffu, loops_complete);");
            cx.line("const bool loops_in = loops_c >= 0 && (loops_stops == 0u || (int)threadIdx.x <= __ffs(loops_stops) - 1);");
            declare_each(cx, accs, "part", |a, i| {
                let ty = a.ty.cuda_name();
                format!(
                    "!loops_in ? {} : loops_complete ? loops_value<{ty}>(&loops_w[{}]) : loops_value<{ty}>(&loops_w[{}])",
                    a.op.identity(&a.ty),
                    inclusive(i),
                    aggregate(i),
                )
            });
            cx.open("for (int loops_o = 16; loops_o > 0; loops_o >>= 1)");
            for a in accs {
                let other = format!(
                    "__shfl_xor_sync(0xffffffffu, loops_part_{}, loops_o)",
                    a.name
                );
                let c = a.op.combine(&format!("loops_part_{}", a.name), &other);
                cx.line(format!("loops_part_{} = {c};", a.name));
            }
            cx.close();
            fold_earlier(cx, accs, "look", |a, _| format!("loops_part_{}", a.name));
            cx.line("if (loops_stops != 0u) break;");
            cx.close();
            cx.open("if (threadIdx.x == 0 && loops_inside)");
            for (i, a) in accs.iter().enumerate() {
                let c = a.op.combine(
                    &format!("loops_look_{}", a.name),
                    &format!("loops_block_{}", a.name),
                );
                cx.line(format!(
                    "loops_publish(loops_mine + {}, loops_stamp, {c});",
                    inclusive(i)
                ));
            }
            cx.close();
            cx.open("else if (threadIdx.x == 0)");
            declare_each(cx, accs, "part", |a, _| {
                a.op.combine(
                    &format!("loops_look_{}", a.name),
                    &format!("loops_cross_{}", a.name),
                )
            });
            self.finish_tile(
                cx,
                tile,
                tile_id,
                "loops_cross_tile",
                prologue,
                epilogue,
                accs,
            )?;
            cx.close();
            cx.close();
            Ok(())
        }

        /// Declares `loops_<into>_<key name>` and `loops_<into>_<acc>`: what segments the runs
        /// (`key`: its type, name and source, as the tail tile) and the run partials of the lane
        /// `delta` lanes before this one.
        fn shuffle_up(
            cx: &mut Cx<'_>,
            accs: &[Accumulator],
            into: &str,
            delta: &str,
            (key_ty, key_name, key): (&str, &str, &str),
        ) {
            cx.line(format!(
                "const {key_ty} loops_{into}_{key_name} = __shfl_up_sync(0xffffffffu, {key}, {delta});"
            ));
            for a in accs {
                cx.line(format!(
                    "const {} loops_{into}_{1} = __shfl_up_sync(0xffffffffu, loops_run_{1}, {delta});",
                    a.ty.cuda_name(),
                    a.name
                ));
            }
        }

        /// Folds into `loops_part_<acc>` the parts of the run of tile `tile` in the warps before
        /// this one, from their summaries: back while a warp's last lane holds the tile. Tail tiles
        /// do not decrease from thread to thread (but for -1, none, at the set's end), so a run that
        /// began inside a warp ends the walk at the warp before it.
        fn earlier_warps(cx: &mut Cx<'_>, accs: &[Accumulator], tile: &str) {
            cx.open(format!(
                "for (int loops_v = loops_warp - 1; loops_v >= 0 && loops_warp_last[loops_v] == {tile}; --loops_v)"
            ));
            fold_earlier(cx, accs, "part", |a, _| {
                format!("loops_warp_{}[loops_v]", a.name)
            });
            cx.close();
        }

        /// Recomputes a tile's prologue (for a subset, the tile id from the list first: a tile with
        /// a head has atoms, so it is in the set), adds the combined partials to the initial
        /// values, runs the epilogue.
        #[allow(clippy::too_many_arguments)]
        fn finish_tile(
            &self,
            cx: &mut Cx<'_>,
            tile: &str,
            tile_id: Option<&Stmt>,
            tile_value: &str,
            prologue: &[Stmt],
            epilogue: &[Stmt],
            accs: &[Accumulator],
        ) -> DResult<()> {
            cx.line(format!("const int {tile} = {tile_value};"));
            if let Some(id) = tile_id {
                cx.stmt(id)?;
            }
            cx.block(prologue)?;
            for a in accs {
                let c = a.op.combine(&a.name, &format!("loops_part_{}", a.name));
                cx.line(format!("{} = {c};", a.name));
            }
            cx.block(epilogue)
        }
    }
}

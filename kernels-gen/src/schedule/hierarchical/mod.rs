//! `hierarchical`: hierarchical processing (Raval et al., dynamic load-balancing strategies for
//! graph applications, the third strategy beside workload decomposition and node splitting).
//!
//! A call is a sequence of *passes*, one launch each, over a worklist of tiles, one tile per
//! thread. In pass `k` each tile of the worklist processes its atoms `k * mdt .. (k + 1) * mdt`
//! (at most `mdt`, the max degree threshold); a tile with atoms left keeps its state (the
//! variables its atom loop updates) in global memory and appends itself to the next pass's
//! worklist, which is all the longer tiles, and only them. The first pass's worklist is every
//! tile (or the call's subset); the last pass is `ceil(longest tile / mdt)`. A tile's atoms run in
//! order on one thread at a time, so its epilogue runs once, in the pass that finishes it, with the
//! complete state: the variables the atom loop assigns are kept between passes whatever the update
//! (an argmax keeps its tie rule), not only associative ones. The other `let`s before the atom loop
//! are evaluated again in every pass: one that reads memory the kernel writes (SSSP's
//! `let dv = dist[v]`) may see a newer value in a later pass. Without `mdt` in the attribute, the
//! runtime takes the tile set's choice ([`super::split::choose_mdt`], as `split`).
//!
//! Where the atom loop's state reduces across threads (one atom loop, no `break` in it, and every
//! variable it updates an accumulator or a selection as under `group`: sums, products, min/max,
//! bit operations, argmax), the passes are *levels* instead ([`level_passes`], [`level_range`]):
//! pass 0 runs the first `mdt` atoms of every tile on a group of lanes, [`thread_pass_lanes`] of
//! them, a power of two from the set's mean tile: a thread for rows of under 8, 4 lanes for rows
//! of 16, so that the lanes' loads share sectors (without `mdt` in the attribute, the tile set's
//! choice but at least [`LEVEL_THREAD_ATOMS`] per lane; the group's lanes are strided and their
//! partials reduced by shuffles of the group's width); pass 1 the next
//! [`WARP_PASS_ATOMS`] of each tile left on a warp, lanes strided, partials reduced by shuffles;
//! pass 2 the rest of each tile left on a block, the warps' totals combined through shared
//! memory. Lane 0 starts from the kept state (a selection's at position -1: its atoms come before
//! the pass's), the others from the identity; lane 0 keeps the total or runs the epilogue, once. So
//! a hub is no longer walked by one thread: at most three launches, the last cutting each long
//! tile across blocks (below). The block pass takes its work dynamically, the cut tiles' pieces
//! first. Measured on an H200 (`bench_spmv --powerlaw`, f32,
//! examples/bench/README.md): against the best schedule, from 0.019-0.023 to 0.71-0.83 on the
//! Kronecker and R-MAT graphs, as fast as `lrb`. The first pass's group (against a thread, same
//! H200 run, examples/bench/results/h200/hierarchical): banded rows of 16 from 0.56 to 0.90 of the
//! best, the small real FEM matrices from 0.23 to 0.34 (geomean), real skewed 0.17 to 0.22; R-MAT
//! and Kronecker 5-12% slower (most of their rows are far shorter than the mean that sizes the
//! group). A call costs a memset of the counters and a launch at least (4-4.5 us), which bounds it
//! on matrices of a few thousand rows.
//!
//! The launches follow a [`LevelPlan`] ([`level_plan`], from the set's statistics on the host):
//! where the longest tile is within [`LAUNCH_ROUNDS`] rounds of its group past the first pass's
//! share, one launch and no memset (Groebner). The block pass cuts a tile of at least two
//! pieces' atoms left ([`piece_atoms`], [`split_pieces`], [`piece_range`]) across blocks: the warp
//! pass takes the pieces' slots with one `atomicAdd` (the prelude's `loops_hier_list`, out of
//! line), maps each slot to the tile and its first slot, and writes the piece count; each piece's
//! block reduces its share from the identity into its slots of partials, and the block whose
//! piece completes the tile's count (a fence, an `atomicAdd` on the count) starts from the kept
//! state, combines the partials in piece order and runs the epilogue, once. The kernel asks for a
//! full SM's blocks (`Cx::full_sm`: 32 registers, as main's SpMV had; the block pass's branch
//! took it to 40), and the first pass's branch has no call (with the call there, ptxas spilled in
//! its tile loop: the one-pass calls of the small real matrices, banded and grid2d were 5-20%
//! slower, examples/bench/results/h200/stop53/hier).
//!
//! In global memory (the call's [`Hidden::TileState`], which the runtime allocates per call;
//! levels keep besides the state a partial per reduced variable per piece slot, the map from a slot
//! to its tile, and each cut tile's piece and finished counts, `loops_n` slots each):
//! three counters (pass `k` reads the length of its list from counter `k % 3`, appends to counter
//! `(k + 1) % 3`, and zeroes counter `(k + 2) % 3`, which pass `k - 1` read and pass `k + 1` appends
//! to), two worklists of positions (pass `k` reads list `k % 2`), and one slot per state variable
//! per position.
//!
//! The body must have the carry schedules' shape: `let`s, one atom loop, then anything (no loop
//! around the atom loop). Its `let`s run again in every pass, so they may not use atomics. A body
//! of several atom loops takes each loop's passes in turn (`loops_loop`, `loops_k`: the call's
//! passes are the loops times the passes of one, the lists and counters rotating with the call's
//! pass); a loop's state stays in its slots when it is done, and the later loops' passes read it
//! back and run the statements between the loops again.

use super::{
    resident_grid, DeviceLimits, Hidden, Launch, Launcher, Schedule, ScheduleConfig, ScheduleUnit,
    Stop, TileSetShape, Tiles,
};

/// Its named schedules ([`super::SCHEDULES`]).
pub const NAMED: &[super::NamedSchedule] = &[
    super::NamedSchedule {
        name: "hierarchical",
        attr: r#"schedule = "hierarchical""#,
        about: "hierarchical processing (Raval et al.): passes (launches) over the unfinished tiles, a thread per tile, or (for a state that reduces) a group of lanes, then a warp, then a block",
        core: true,
    },
    super::NamedSchedule {
        name: "hierarchical3",
        attr: r#"schedule = "hierarchical", mdt = 3"#,
        about: "`hierarchical` with at most 3 atoms of a tile per pass: most tiles take several passes",
        core: false,
    },
];

/// `schedule = "hierarchical"`.
pub struct Hierarchical;

impl ScheduleUnit for Hierarchical {
    fn names(&self) -> &'static [&'static str] {
        &["hierarchical"]
    }

    fn arg_keys(&self, _name: &str) -> &'static [&'static str] {
        &["mdt"]
    }

    fn why_not_in_device_loop(&self) -> &'static str {
        "it launches passes over worklists whose sizes are read back on the host"
    }

    fn describe(&self, schedule: Schedule) -> String {
        match mdt(schedule) {
            0 => "hierarchical (mdt from the size histogram)".into(),
            mdt => format!("hierarchical mdt {mdt}"),
        }
    }

    /// Each atom loop of the tile body takes its passes in turn.
    fn splits_atom_loops(&self) -> bool {
        true
    }

    /// The piece size, the pass, and the state the passes share.
    fn hidden_params(&self, _schedule: Schedule, _over_subset: bool) -> &'static [Hidden] {
        &[Hidden::Mdt, Hidden::Pass, Hidden::TileState]
    }

    fn piece_atoms(&self, schedule: Schedule) -> Option<u32> {
        Some(mdt(schedule))
    }

    /// A thread per tile of the first pass's list ([`thread_pass_lanes`] of them where the passes
    /// are levels), no more blocks than the device holds at once (the loop is grid-stride; later
    /// passes' lists are shorter).
    fn blocks_wanted(
        &self,
        config: ScheduleConfig,
        shape: TileSetShape,
        limits: DeviceLimits,
    ) -> u64 {
        let block = config.block_size;
        let lanes = thread_pass_lanes(shape.tiles, shape.atoms);
        let threads = TileSetShape {
            tiles: shape.tiles.saturating_mul(lanes),
            ..shape
        };
        super::thread::blocks_wanted(threads, block).min(resident_grid(limits, block) as u64)
    }

    /// One launch per pass: `ceil(longest tile / mdt)` of them, at most [`MAX_PASSES`], or, where
    /// the passes run a tile on a warp, then a block ([`level_passes`]), at most three (over a
    /// subset, the longest tile of the whole set bounds it; a pass over an empty list costs one
    /// launch).
    fn plan(&self, config: ScheduleConfig, run: &mut dyn Launcher) -> Result<(), Stop> {
        let longest = run.stats().max_tile_atoms;
        if run.variants().first().is_some_and(|v| v.pass_levels) {
            let stats = run.stats();
            let lanes = thread_pass_lanes(stats.tiles, stats.atoms);
            let attr = match mdt(config.schedule) {
                0 => None,
                mdt => Some(mdt as u64),
            };
            let plan = level_plan(
                longest,
                level_mdt(attr, run.tile_set_mdt(), lanes),
                lanes,
                attr.is_none(),
            );
            for pass in 0..plan.passes {
                run.launch(Launch {
                    variant: 0,
                    tiles: Tiles::Call,
                    pass: Some((pass, plan.passes)),
                    piece_atoms: Some(plan.first),
                })?;
            }
            return Ok(());
        }
        let mdt = effective_mdt(
            match mdt(config.schedule) {
                0 => run.tile_set_mdt(),
                mdt => mdt as u64,
            },
            longest,
        );
        // Each atom loop of the tile body takes its passes in turn.
        let loops = run.variants().first().map_or(1, |v| v.passes.max(1));
        let passes = passes(longest, mdt) * loops;
        for pass in 0..passes {
            run.launch(Launch {
                variant: 0,
                tiles: Tiles::Call,
                pass: Some((pass, passes)),
                piece_atoms: Some(mdt),
            })?;
        }
        Ok(())
    }

    #[cfg(feature = "frontend")]
    fn parse(&self, args: &super::AttrArgs) -> crate::diag::DResult<Schedule> {
        let mdt = super::split::parse_mdt(args, "the most atoms a tile processes per pass")?;
        Ok(Schedule::Hierarchical { mdt })
    }

    #[cfg(feature = "frontend")]
    fn lowering(&self, config: ScheduleConfig) -> Box<dyn super::Lowering> {
        Box::new(lowering::HierarchicalLowering {
            block_size: config.block_size,
        })
    }

    /// Where the body's one atom loop has no `break` and its state reduces across threads
    /// (accumulators and selections, as under `group`).
    #[cfg(feature = "frontend")]
    fn pass_levels(&self, kernel: &crate::schedule::Kernel) -> bool {
        lowering::levels(kernel, kernel.body.user_body())
    }
}

fn mdt(schedule: Schedule) -> u32 {
    match schedule {
        Schedule::Hierarchical { mdt } => mdt,
        other => unreachable!("the hierarchical unit asked about {other:?}"),
    }
}

/// The most passes (launches) of one call. Each costs a launch (a few microseconds) whatever its
/// list holds, so a tile far longer than the threshold (a power-law graph's hub) raises the atoms
/// per pass instead of multiplying launches: at most `ceil(longest / MAX_PASSES)` atoms of a tile
/// per pass.
pub const MAX_PASSES: u64 = 16;

/// The atoms per pass for a threshold of `mdt` where the longest tile has `longest` atoms: `mdt`,
/// raised where the call would otherwise take more than [`MAX_PASSES`] passes.
pub fn effective_mdt(mdt: u64, longest: u64) -> u64 {
    mdt.max(longest.div_ceil(MAX_PASSES))
        .clamp(1, i32::MAX as u64)
}

/// The passes of a call whose longest tile has `longest` atoms: at least one, so that empty
/// tiles get their epilogue.
pub fn passes(longest: u64, mdt: u64) -> u32 {
    longest.div_ceil(mdt.max(1)).clamp(1, u32::MAX as u64) as u32
}

/// The first pass's atoms per tile where the passes run a tile on a group, a warp, then a block:
/// the attribute's `mdt`, else the tile set's, at least [`LEVEL_THREAD_ATOMS`] per lane of the
/// first pass's group (`lanes`, [`thread_pass_lanes`]). Measured on an H200 against 16 atoms a
/// tile whatever its lanes (the longer tiles to the warp pass): the same or faster everywhere
/// (`bench_spmv --powerlaw`: `powerlaw_random_4M` 0.934 against 1.052 ms, `kron_22` 1.389
/// against 1.469; results/h200/hierarchical).
pub fn level_mdt(attr: Option<u64>, tile_set: u64, lanes: u64) -> u64 {
    attr.unwrap_or(tile_set.max(LEVEL_THREAD_ATOMS * lanes.max(1)))
        .clamp(1, i32::MAX as u64)
}

/// Tile sets of fewer tiles than this are small: their first pass gives a tile the lanes of its
/// mean size ([`thread_pass_lanes`]), since the device holds all those lanes at once and a call
/// costs its latency, not its bandwidth.
pub const SMALL_SET_TILES: u64 = 1 << 16;

/// The lanes (a power of two, at most 32) that share a tile in the first pass of a levels call,
/// from the set's `tiles` and `atoms` (the kernel computes the same from its set's `rows` and
/// `nnz`): on a small set ([`SMALL_SET_TILES`]) the power of two at or past the mean tile (one
/// step through it, as `mean_group`); otherwise about [`GROUP_LANE_ATOMS`] atoms of the mean tile
/// per lane (the power of two at or below a quarter of the mean, so rows of 5 stay on a thread,
/// where a group would leave lanes idle and split the rows' sectors, and rows of 16 take 4 lanes:
/// the loads of a group's lanes fall in the same sectors).
pub fn thread_pass_lanes(tiles: u64, atoms: u64) -> u64 {
    if tiles == 0 {
        return 1;
    }
    let mean = atoms / tiles;
    let want = if tiles < SMALL_SET_TILES {
        mean.max(1).next_power_of_two()
    } else {
        let quarter = (mean / GROUP_LANE_ATOMS).max(1);
        1 << quarter.ilog2()
    };
    want.min(32)
}

/// The atoms of the mean tile each lane of the first pass's group runs on a large set
/// ([`thread_pass_lanes`]).
pub const GROUP_LANE_ATOMS: u64 = 4;

/// Where the atom loop's state reduces across threads (sums, min/max, bit operations, selections:
/// what `group` combines), the passes are levels: pass 0 runs the first `mdt` atoms of every tile
/// on a thread; pass 1 the next [`WARP_PASS_ATOMS`] of each tile left on a warp (lanes strided,
/// shuffle reduction); pass 2 the rest of each tile left on a block (shared-memory reduction).
/// Without `mdt` in the attribute, the thread pass takes the tile set's choice but at least this
/// many atoms (`lrb`'s thread bins: up to 16 atoms a tile on one thread).
pub const LEVEL_THREAD_ATOMS: u64 = 16;

/// The atoms of a tile the warp pass runs (8 per lane, `lrb`'s largest warp bin).
pub const WARP_PASS_ATOMS: u64 = 256;

/// The passes of a call whose passes are levels with the first pass's `mdt` atoms a tile and a
/// warp pass: 1 where every tile fits the first pass, 2 where it fits the warp pass too, else 3.
pub fn level_passes(longest: u64, mdt: u64) -> u32 {
    if longest <= mdt {
        1
    } else if longest <= mdt + WARP_PASS_ATOMS {
        2
    } else {
        3
    }
}

/// The rounds of a group's loads that a launch costs, about: a pass is worth launching for the
/// tiles longer than the first pass's share only where they take more than this many rounds of
/// their group past that share. Measured on an H200 (stop 51, `bench_spmv --corpus`): the block
/// pass walked arrow's hub at about 0.35 us a round of 256 lanes, and a launch with the header's
/// memset costs 3-4 us of a call (graph-of-20 timing), so about 8-10 rounds; 8 is a warp bin of
/// `lrb` (8 atoms a lane).
pub const LAUNCH_ROUNDS: u64 = 8;

/// The launches of a call whose passes are levels ([`level_plan`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelPlan {
    /// The atoms of a tile the first pass runs (the kernel's `loops_mdt`).
    pub first: u64,
    /// The launches, 1 to 3: the first pass, the warp pass, the block pass.
    pub passes: u32,
}

/// The launches of a levels call whose longest tile has `longest` atoms, whose first pass runs
/// `mdt` atoms a tile ([`level_mdt`]) on groups of `lanes` ([`thread_pass_lanes`]): where `fit`
/// (the attribute gave no `mdt`) and the longest tile is at most [`LAUNCH_ROUNDS`] rounds of its
/// group past the first pass's share (and the warp pass's, where the group is a warp), the first
/// pass runs every tile whole: one launch (and no memset) instead of two or three (Groebner);
/// otherwise [`level_passes`]. The warp pass stays
/// even where the group is a warp: it is the pass that cuts the long tiles for the block pass, and
/// the first pass's code must not (its branch of the kernel would lose registers to it).
pub fn level_plan(longest: u64, mdt: u64, lanes: u64, fit: bool) -> LevelPlan {
    let mut first = mdt;
    // Where the group is a warp, the warp pass's atoms are rounds of the same lanes too.
    let same_lanes = if lanes >= 32 { WARP_PASS_ATOMS } else { 0 };
    if fit && longest > first && longest <= first + same_lanes + LAUNCH_ROUNDS * lanes.max(1) {
        first = longest;
    }
    let first = first.clamp(1, i32::MAX as u64);
    LevelPlan {
        first,
        passes: level_passes(longest, first),
    }
}

/// The fewest atoms of a piece of a tile that the block pass cuts across blocks: 8 a lane of a
/// block of 256.
pub const PIECE_ATOMS: u64 = 2048;

/// The atoms of a piece of a split tile on a set of `tiles` tiles and `atoms` atoms: at least
/// [`PIECE_ATOMS`], and at least twice the mean tile, so that a set's pieces are at most 3/4 of its
/// tiles ([`split_pieces`]) (the kernel keeps a partial per piece in the tile state's slots of one variable: a
/// piece that would not fit is not cut, the kernel checks).
pub fn piece_atoms(tiles: u64, atoms: u64) -> u64 {
    let mean = if tiles == 0 { 0 } else { atoms.div_ceil(tiles) };
    PIECE_ATOMS.max(2 * mean)
}

/// The pieces the block pass cuts a tile of `left` atoms left into: pieces of `piece` atoms, the
/// last of what remains, where `left` is at least two pieces' atoms (so at most 1.5 pieces per
/// `piece` atoms, and a set's pieces at most 3/4 of its tiles); else 1 (the tile whole on a
/// block).
pub fn split_pieces(left: u64, piece: u64) -> u64 {
    if left >= 2 * piece {
        left.div_ceil(piece)
    } else {
        1
    }
}

/// The atoms `lo..hi` of piece `j` of a cut tile whose `left` atoms start at `start`: `piece`
/// atoms, the last piece to the end.
pub fn piece_range(start: u64, left: u64, j: u64, piece: u64) -> (u64, u64) {
    let lo = start + j * piece;
    (lo, (lo + piece).min(start + left))
}

/// The atoms of a tile of `begin..end` that pass `pass` of a levels call ([`LevelPlan`]) runs,
/// and how many lanes share them (`group`, 32, `block`): pass 0 up to `plan.first` on a group of
/// `group` lanes ([`thread_pass_lanes`]), the warp pass up to [`WARP_PASS_ATOMS`] more on a
/// warp, the block pass the rest on a block (cut into pieces across blocks where it is long,
/// [`split_pieces`]).
pub fn level_range(
    plan: &LevelPlan,
    pass: u32,
    begin: u64,
    end: u64,
    group: u64,
    block: u64,
) -> (u64, u64, u64) {
    let (lo, chunk, lanes) = match pass {
        0 => (begin, plan.first, group),
        1 => (begin + plan.first, WARP_PASS_ATOMS, 32),
        _ => (begin + plan.first + WARP_PASS_ATOMS, u64::MAX, block),
    };
    let lo = lo.min(end);
    (lo, end.min(lo.saturating_add(chunk)), lanes)
}

mod model;
pub use model::{model_levels_run, model_run};

#[cfg(feature = "frontend")]
mod lowering;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_pass_takes_the_tiles_longer_than_the_passes_before() {
        // Tiles of 0, 3, 10 and 4 atoms, mdt 4: three passes, over 4, 1 and 1 tiles.
        let offsets = [0, 0, 3, 13, 17];
        let (run, lengths) = model_run(&offsets, None, 4, |a| a);
        assert_eq!(lengths, [4, 1, 1]);
        assert!(run.atom_visits.iter().all(|&v| v == 1));
        assert_eq!(run.epilogues, [1, 1, 1, 1]);
        assert_eq!(run.epilogue_sums, [0, 3, (3..13).sum(), (13..17).sum()]);
        assert_eq!(passes(0, 4), 1);
        assert_eq!(passes(8, 4), 2);
        assert_eq!(passes(9, 4), 3);
        // A hub of a million atoms takes 16 passes, not 250,000.
        assert_eq!(effective_mdt(4, 1 << 20), (1 << 20) / 16);
        assert_eq!(passes(1 << 20, effective_mdt(4, 1 << 20)), 16);
        assert_eq!(effective_mdt(4, 60), 4);
        assert_eq!(effective_mdt(0, 0), 1);
    }

    #[test]
    fn a_subset_keeps_state_per_position() {
        // The list names tile 2 twice and an id outside the set: each position is its own tile.
        let offsets = [0, 0, 3, 13, 17];
        let (run, lengths) = model_run(&offsets, Some(&[2, 9, 2, 1]), 4, |_| 1);
        assert_eq!(lengths, [4, 2, 2]);
        assert_eq!(run.atom_visits[3..13], [2; 10]);
        assert_eq!(run.epilogues, [0, 1, 2, 0]);
        assert_eq!(run.epilogue_sums[2], 10);
    }
}

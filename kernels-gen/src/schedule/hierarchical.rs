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
//! pass 0 runs the first `mdt` atoms of every tile on a thread (without `mdt` in the attribute,
//! the tile set's choice but at least [`LEVEL_THREAD_ATOMS`]); pass 1 the next
//! [`WARP_PASS_ATOMS`] of each tile left on a warp, lanes strided, partials reduced by shuffles;
//! pass 2 the rest of each tile left on a block, the warps' totals combined through shared
//! memory. Lane 0 starts from the kept state (a selection's at position -1: its atoms come before
//! the pass's), the others from the identity; lane 0 keeps the total or runs the epilogue, once. So
//! a hub is no longer walked by one thread: at most three launches, the last a block per long tile.
//! The block pass takes its tiles dynamically, the tiles with over 4096 atoms left first (the warp
//! pass lists them from the back of the list). Measured on an H200 (`bench_spmv --powerlaw`, f32,
//! examples/bench/README.md): against the best schedule, from 0.019-0.023 to 0.71-0.83 on the
//! Kronecker and R-MAT graphs, as fast as `lrb`.
//!
//! In global memory (the call's [`Hidden::TileState`], which the runtime allocates per call):
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

use super::carry::ModelRun;
use super::{
    resident_grid, DeviceLimits, Hidden, Launch, Launcher, Schedule, ScheduleConfig, ScheduleUnit,
    Stop, TileSetShape, Tiles,
};

/// Its named schedules ([`super::SCHEDULES`]).
pub const NAMED: &[super::NamedSchedule] = &[
    super::NamedSchedule {
        name: "hierarchical",
        attr: r#"schedule = "hierarchical""#,
        about: "hierarchical processing (Raval et al.): passes (launches) over the unfinished tiles, a thread per tile, then (for a state that reduces) a warp, then a block",
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

    /// A thread per tile of the first pass's list, no more blocks than the device holds at once
    /// (the loop is grid-stride; later passes' lists are shorter).
    fn blocks_wanted(
        &self,
        config: ScheduleConfig,
        shape: TileSetShape,
        limits: DeviceLimits,
    ) -> u64 {
        let block = config.block_size;
        super::thread::blocks_wanted(shape, block).min(resident_grid(limits, block) as u64)
    }

    /// One launch per pass: `ceil(longest tile / mdt)` of them, at most [`MAX_PASSES`], or, where
    /// the passes run a tile on a warp, then a block ([`level_passes`]), at most three (over a
    /// subset, the longest tile of the whole set bounds it; a pass over an empty list costs one
    /// launch).
    fn plan(&self, config: ScheduleConfig, run: &mut dyn Launcher) -> Result<(), Stop> {
        let longest = run.stats().max_tile_atoms;
        if run.variants().first().is_some_and(|v| v.pass_levels) {
            let mdt = level_mdt(
                match mdt(config.schedule) {
                    0 => None,
                    mdt => Some(mdt as u64),
                },
                run.tile_set_mdt(),
            );
            for pass in 0..level_passes(longest, mdt) {
                run.launch(Launch {
                    variant: 0,
                    tiles: Tiles::Call,
                    pass: Some((pass, level_passes(longest, mdt))),
                    piece_atoms: Some(mdt),
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

/// The first pass's atoms per tile where the passes run a tile on a warp, then a block: the
/// attribute's `mdt`, else the tile set's, at least [`LEVEL_THREAD_ATOMS`].
pub fn level_mdt(attr: Option<u64>, tile_set: u64) -> u64 {
    attr.unwrap_or(tile_set.max(LEVEL_THREAD_ATOMS))
        .clamp(1, i32::MAX as u64)
}

/// Where the atom loop's state reduces across threads (sums, min/max, bit operations, selections:
/// what `group` combines), the passes are levels: pass 0 runs the first `mdt` atoms of every tile
/// on a thread; pass 1 the next [`WARP_PASS_ATOMS`] of each tile left on a warp (lanes strided,
/// shuffle reduction); pass 2 the rest of each tile left on a block (shared-memory reduction).
/// Without `mdt` in the attribute, the thread pass takes the tile set's choice but at least this
/// many atoms (`lrb`'s thread bins: up to 16 atoms a tile on one thread).
pub const LEVEL_THREAD_ATOMS: u64 = 16;

/// The atoms of a tile the warp pass runs (8 per lane, `lrb`'s largest warp bin).
pub const WARP_PASS_ATOMS: u64 = 256;

/// The passes of a call whose passes are levels: 1 where every tile fits the thread pass, 2 where
/// it fits the warp pass too, else 3.
pub fn level_passes(longest: u64, mdt: u64) -> u32 {
    if longest <= mdt {
        1
    } else if longest <= mdt + WARP_PASS_ATOMS {
        2
    } else {
        3
    }
}

/// The atoms of a tile of `begin..end` that pass `pass` of a levels call runs, and how many
/// lanes share them (1, 32, `block`): pass 0 up to `mdt` on a thread, pass 1 up to
/// [`WARP_PASS_ATOMS`] more on a warp, pass 2 the rest on a block.
pub fn level_range(pass: u32, begin: u64, end: u64, mdt: u64, block: u64) -> (u64, u64, u64) {
    let (lo, chunk, lanes) = match pass {
        0 => (begin, mdt, 1),
        1 => (begin + mdt, WARP_PASS_ATOMS, 32),
        _ => (begin + mdt + WARP_PASS_ATOMS, u64::MAX, block),
    };
    let lo = lo.min(end);
    (lo, end.min(lo.saturating_add(chunk)), lanes)
}

/// [`model_run`] for a call whose passes are levels ([`level_passes`], [`level_range`]): each lane
/// of a tile's thread, warp or block sums its strided share of the pass's atoms, lane 0 from the
/// tile's kept state and the others from zero; the lanes' partials are added (as the shuffles and
/// the block's shared memory add them), and the sum is kept for the next pass, or the tile's
/// epilogue runs on it.
pub fn model_levels_run(
    offsets: &[u64],
    list: Option<&[u64]>,
    mdt: u64,
    block: u64,
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
    let mut state = vec![0u64; positions];
    let mut worklist: Vec<usize> = (0..positions).collect();
    let mut lengths = Vec::new();
    for pass in 0..level_passes(longest, mdt) {
        lengths.push(worklist.len());
        let mut next = Vec::new();
        for &p in &worklist {
            let Some(t) = tile_of(p) else { continue };
            let end = offsets[t + 1];
            let (lo, hi, lanes) = level_range(pass, offsets[t], end, mdt, block);
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
    (run, lengths)
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

#[cfg(feature = "frontend")]
mod lowering {
    use crate::abi::STATE_HEADER_SLOTS;
    use crate::analysis::{carry_body, has_atomic, stmt_exprs, visit_stmts, Reductions};
    use crate::diag::{bail, DResult};
    use crate::emit::{AtomLoop, Cx};
    use crate::ir::{Stmt, StmtKind, TileLoop, Ty};
    use crate::schedule::group::{combine_all, reduced_vars_typed, start_from_identity};
    use crate::schedule::Kernel;
    use crate::schedule::Lowering;

    pub struct HierarchicalLowering {
        pub block_size: u32,
    }

    /// Whether the passes of `body` run as levels (thread, warp, block: [`super::level_range`]):
    /// one atom loop, no `break` in it, and its state reduces across threads (the `group`
    /// analysis, [`crate::analysis::reductions`]). Otherwise a tile's atoms run in order on one
    /// thread a pass, whatever the update.
    pub fn levels(kernel: &Kernel, body: &[Stmt]) -> bool {
        let Ok(parts) = parts(kernel, body) else {
            return false;
        };
        let [part] = parts.loops.as_slice() else {
            return false;
        };
        !crate::analysis::breaks_out(part.atom_body)
            && crate::analysis::reductions(part.atom_body, part.var, "hierarchical", &mut |s| {
                s.to_string()
            })
            .is_ok()
    }

    /// Counters of the state's header (32-bit, after the three the passes rotate; zeroed before
    /// the first pass): the block pass's next list entry, and how many long tiles the warp pass
    /// put at the back of that list.
    const CURSOR: usize = 4;
    const LONG_COUNT: usize = 5;
    /// Tiles with more atoms than this left for the block pass are taken first by it.
    const LONG_TILE: u64 = 4096;
    const _: () = assert!(LONG_COUNT < 2 * STATE_HEADER_SLOTS);

    /// The lanes that share a tile in a levels pass.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Level {
        Thread,
        Warp,
        Block,
    }

    /// A variable of the tile body that its atom loop updates: kept across passes.
    struct StateVar {
        name: String,
        ty: Ty,
    }

    /// The tile body split as the lowering needs it.
    struct Parts<'k> {
        prologue: &'k [Stmt],
        /// The atom loops in order (one, or several: each takes its passes in turn).
        loops: Vec<LoopPart<'k>>,
        epilogue: &'k [Stmt],
    }

    /// One atom loop of the tile body.
    struct LoopPart<'k> {
        var: &'k str,
        set: &'k str,
        tile: &'k crate::ir::Expr,
        atom_body: &'k [Stmt],
        line: usize,
        /// The variables it updates, kept between its passes and, once it is done, for the
        /// later loops: in the state slots from `first_slot` on.
        state: Vec<StateVar>,
        first_slot: usize,
        /// The statements between it and the next loop (side-effect free: they run again in
        /// every later pass).
        after: &'k [Stmt],
    }

    fn parts<'k>(kernel: &Kernel, body: &'k [Stmt]) -> DResult<Parts<'k>> {
        check_prologue(body)?;
        if let Some(atoms) = crate::analysis::atoms_in_a_loop(body) {
            bail!(
                atoms.span,
                "under `hierarchical` the atom loop cannot sit inside another loop: a tile's state is \
                 kept between passes for one atom loop. Use `merge_path`, `work_oriented` or `split`, which run \
                 such a loop as rounds of the whole grid, or `thread`, `group`, `warp`, `block`, `lrb` or `auto`"
            );
        }
        let split = carry_body(kernel, body, "hierarchical")?;
        let std::borrow::Cow::Borrowed(prologue) = split.prologue else {
            unreachable!("only a loop around the atom loop, refused above, gathers the prologue")
        };
        let mut stmts: Vec<(&Stmt, &[Stmt])> = split.earlier.clone();
        stmts.push((split.atoms, &[]));
        // The `let`s a loop's state may be declared by: the prologue's, and those between the
        // loops before it.
        let mut declared: Vec<&Stmt> = prologue.iter().collect();
        let mut loops = Vec::new();
        let mut first_slot = 0;
        for (atoms, after) in stmts {
            let Stmt {
                kind:
                    StmtKind::ForAtoms {
                        var,
                        set,
                        tile,
                        body: atom_body,
                    },
                line,
                ..
            } = atoms
            else {
                unreachable!("carry_body returns atom loops")
            };
            let state = state_vars(&declared, atom_body);
            let n = state.len();
            loops.push(LoopPart {
                var,
                set,
                tile,
                atom_body,
                line: *line,
                state,
                first_slot,
                after,
            });
            first_slot += n;
            declared.extend(after.iter());
        }
        Ok(Parts {
            prologue,
            loops,
            epilogue: split.epilogue,
        })
    }

    /// The statements before the atom loop run again in every pass: no atomics there (checked
    /// before the shape, so the error gives this reason).
    fn check_prologue(body: &[Stmt]) -> DResult<()> {
        let before = body
            .iter()
            .take_while(|s| !matches!(s.kind, StmtKind::ForAtoms { .. }));
        for stmt in before {
            let mut atomic = false;
            stmt_exprs(stmt, &mut |e| atomic |= has_atomic(e));
            if atomic {
                bail!(
                    stmt.span,
                    "under `hierarchical` the statements before the atom loop run again in every pass: \
                     they may not use atomics (`atomic_add`, `push`, ...): move it after the atom loop or into it"
                );
            }
        }
        Ok(())
    }

    /// The variables declared by `declared` that the atom loop assigns, in the order they are
    /// declared.
    fn state_vars(declared: &[&Stmt], atom_body: &[Stmt]) -> Vec<StateVar> {
        let mut assigned = Vec::new();
        let _ = visit_stmts(atom_body, &mut |s| {
            if let StmtKind::Assign { place, .. } = &s.kind {
                if let crate::ir::ExprKind::Var(name) = &place.kind {
                    assigned.push(name.clone());
                }
            }
            Ok(())
        });
        declared
            .iter()
            .filter_map(|s| match &s.kind {
                StmtKind::Let { name, ty, .. } if assigned.contains(name) => Some(StateVar {
                    name: name.clone(),
                    ty: ty.clone(),
                }),
                _ => None,
            })
            .collect()
    }

    impl Lowering for HierarchicalLowering {
        fn check(&self, kernel: &Kernel) -> DResult<()> {
            crate::schedule::lanes::refuse_around_atoms(kernel.body.user_body(), "hierarchical")?;
            parts(kernel, kernel.body.user_body()).map(|_| ())
        }

        fn tile_loop(&self, cx: &mut Cx<'_>, tiles: &TileLoop) -> DResult<()> {
            let parts = parts(cx.kernel, tiles.user_body())?;
            let kept: usize = parts.loops.iter().map(|l| l.state.len()).sum();
            cx.state_slots_per_tile = 1 + kept as u32;
            if levels(cx.kernel, tiles.user_body()) {
                return self.levels_tile_loop(cx, tiles, &parts);
            }
            // With several atom loops, the call's passes are each loop's in turn: `loops_k` is
            // the pass within the loop (its atoms `k * mdt ..`, its list: all tiles at 0), the
            // lists and counters rotate with the call's pass.
            let several = parts.loops.len() > 1;
            let k = if several { "loops_k" } else { "loops_pass" };
            let (set, pos) = (&tiles.set, &tiles.tile);
            cx.line_directive(tiles.line);
            cx.line(format!("const long long loops_n = {set}_rows;"));
            cx.line("unsigned int* const loops_counts = (unsigned int*)loops_tile_state;");
            cx.line(format!(
                "unsigned int* const loops_lists = (unsigned int*)(loops_tile_state + {STATE_HEADER_SLOTS});"
            ));
            cx.line(format!(
                "unsigned long long* const loops_state = loops_tile_state + {STATE_HEADER_SLOTS} + loops_n;"
            ));
            cx.line(
                "const unsigned int* const loops_in = loops_lists + (loops_pass & 1) * loops_n;",
            );
            cx.line(
                "unsigned int* const loops_out = loops_lists + ((loops_pass + 1) & 1) * loops_n;",
            );
            if several {
                cx.line(format!(
                    "const int loops_chunks = loops_passes / {};",
                    parts.loops.len()
                ));
                cx.line("const int loops_loop = loops_pass / loops_chunks, loops_k = loops_pass % loops_chunks;");
            }
            cx.line(format!(
                "const long long loops_count = {k} == 0 ? loops_n : (long long)loops_counts[loops_pass % 3];"
            ));
            cx.line(
                "if (blockIdx.x == 0 && threadIdx.x == 0) loops_counts[(loops_pass + 2) % 3] = 0u;",
            );
            cx.open(
                "for (long long loops_i = (long long)blockIdx.x * blockDim.x + threadIdx.x; loops_i < loops_count; \
                 loops_i += (long long)blockDim.x * gridDim.x)",
            );
            cx.line(format!(
                "const int {pos} = {k} == 0 ? (int)loops_i : (int)loops_in[loops_i];"
            ));
            match tiles.subset_guard() {
                Some((id, cond, _)) => {
                    cx.stmt(id)?;
                    let cond = cx.expr(cond);
                    cx.open(format!("if ({cond})"));
                    self.tile_bodies(cx, &parts, pos)?;
                    cx.close();
                }
                None => self.tile_bodies(cx, &parts, pos)?,
            }
            cx.close();
            Ok(())
        }

        fn atom_loop(&self, _cx: &mut Cx<'_>, atoms: AtomLoop<'_>) -> DResult<()> {
            let span = atoms.tile.span;
            bail!(
                span,
                "under `hierarchical` an atom loop must stand in the tile body itself"
            )
        }
    }

    impl HierarchicalLowering {
        /// The tile loop of a call whose passes are levels: pass 0 a thread per tile of the set
        /// (or subset), pass 1 a warp per tile of its list, pass 2 a block per tile of its list.
        fn levels_tile_loop(
            &self,
            cx: &mut Cx<'_>,
            tiles: &TileLoop,
            parts: &Parts<'_>,
        ) -> DResult<()> {
            let (set, pos) = (&tiles.set, &tiles.tile);
            cx.line_directive(tiles.line);
            cx.line(format!("const long long loops_n = {set}_rows;"));
            cx.line("unsigned int* const loops_counts = (unsigned int*)loops_tile_state;");
            cx.line(format!(
                "unsigned int* const loops_lists = (unsigned int*)(loops_tile_state + {STATE_HEADER_SLOTS});"
            ));
            cx.line(format!(
                "unsigned long long* const loops_state = loops_tile_state + {STATE_HEADER_SLOTS} + loops_n;"
            ));
            cx.line(
                "const unsigned int* const loops_in = loops_lists + (loops_pass & 1) * loops_n;",
            );
            cx.line(
                "unsigned int* const loops_out = loops_lists + ((loops_pass + 1) & 1) * loops_n;",
            );
            cx.line(
                "const long long loops_count = loops_pass == 0 ? loops_n : (long long)loops_counts[loops_pass % 3];",
            );
            cx.line(
                "if (blockIdx.x == 0 && threadIdx.x == 0) loops_counts[(loops_pass + 2) % 3] = 0u;",
            );
            let levels = [
                (
                    "if (loops_pass == 0)",
                    Level::Thread,
                    "for (long long loops_i = (long long)blockIdx.x * blockDim.x + threadIdx.x; loops_i < loops_count; \
                     loops_i += (long long)blockDim.x * gridDim.x)",
                ),
                (
                    "else if (loops_pass == 1)",
                    Level::Warp,
                    "for (long long loops_i = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; loops_i < loops_count; \
                     loops_i += ((long long)blockDim.x * gridDim.x) >> 5)",
                ),
                (
                    "else",
                    Level::Block,
                    // Each block takes the next tile of the list when it is done with one (the
                    // list's long tiles first): a hub's block runs it alone, from the start.
                    "for (;;)",
                ),
            ];
            for (branch, level, each) in levels {
                cx.open(branch);
                match level {
                    Level::Thread => {}
                    Level::Warp => {
                        cx.line("const unsigned int loops_lane = threadIdx.x & 31u;");
                    }
                    Level::Block => {
                        cx.line("const unsigned int loops_lane = threadIdx.x;");
                        cx.line(format!(
                            "const long long loops_long = (long long)loops_counts[{LONG_COUNT}];"
                        ));
                        cx.shared("unsigned int", "loops_next", None, false);
                    }
                }
                cx.open(each);
                match level {
                    Level::Thread => cx.line(format!("const int {pos} = (int)loops_i;")),
                    Level::Warp => cx.line(format!("const int {pos} = (int)loops_in[loops_i];")),
                    Level::Block => {
                        cx.line(format!(
                            "if (threadIdx.x == 0u) loops_next = atomicAdd(&loops_counts[{CURSOR}], 1u);"
                        ));
                        cx.line("__syncthreads();");
                        cx.line("const long long loops_i = (long long)loops_next;");
                        cx.line("__syncthreads();");
                        cx.line("if (loops_i >= loops_count + loops_long) break;");
                        cx.line(format!(
                            "const int {pos} = (int)(loops_i < loops_long ? loops_in[loops_n - 1 - loops_i] : loops_in[loops_i - loops_long]);"
                        ));
                    }
                }
                match tiles.subset_guard() {
                    Some((id, cond, _)) => {
                        cx.stmt(id)?;
                        let cond = cx.expr(cond);
                        cx.open(format!("if ({cond})"));
                        self.level_body(cx, parts, pos, level)?;
                        cx.close();
                    }
                    None => self.level_body(cx, parts, pos, level)?,
                }
                cx.close();
                cx.close();
            }
            Ok(())
        }

        /// One tile's share of a levels pass: its `let`s and kept state, its atoms of the pass
        /// ([`super::level_range`]) on the level's lanes, the lanes' partials reduced into lane
        /// 0, which keeps the state and lists the tile for the next pass, or runs the epilogue.
        fn level_body(
            &self,
            cx: &mut Cx<'_>,
            parts: &Parts<'_>,
            pos: &str,
            level: Level,
        ) -> DResult<()> {
            let part = &parts.loops[0];
            cx.block(parts.prologue)?;
            let slot = |i: usize| format!("loops_state[{i} * loops_n + {pos}]");
            if level != Level::Thread {
                // Every lane reads the kept state; all but lane 0 then start from the identity.
                for (i, v) in part.state.iter().enumerate() {
                    let ty = v.ty.cuda_name();
                    cx.line(format!(
                        "{} = *reinterpret_cast<const {ty}*>(&{});",
                        v.name,
                        slot(i)
                    ));
                }
            }
            let (set, var) = (part.set, part.var);
            let tile = cx.expr(part.tile);
            let off = cx.offset_type();
            cx.line_directive(part.line);
            cx.line(format!(
                "const {off} loops_b = {set}_offsets[{tile}], loops_e = {set}_offsets[{tile} + 1];"
            ));
            let warp = super::WARP_PASS_ATOMS;
            let red = match level {
                Level::Thread => {
                    cx.line(format!(
                        "const {off} loops_hi = loops_e - loops_b > loops_mdt ? loops_b + loops_mdt : loops_e;"
                    ));
                    cx.open(format!(
                        "for ({off} {var} = loops_b; {var} < loops_hi; ++{var})"
                    ));
                    cx.block(part.atom_body)?;
                    cx.close();
                    None
                }
                Level::Warp | Level::Block => {
                    let name = cx.kernel.config.name();
                    let red = crate::analysis::reductions(part.atom_body, var, name, &mut |s| {
                        cx.fresh(s)
                    })?;
                    // Lane 0 carries the kept state (of atoms before this pass's: at position -1,
                    // "before every atom", for a selection); the others start from the identity.
                    start_from_identity(cx, &red.accumulators, &red.selections, "loops_lane != 0u");
                    // The atoms the earlier passes ran, and this pass's bound.
                    let (skip, hi, step) = if level == Level::Warp {
                        (
                            format!("({off})loops_mdt"),
                            format!("loops_e - loops_lo > {warp} ? loops_lo + {warp} : loops_e"),
                            "32",
                        )
                    } else {
                        (
                            format!("({off})loops_mdt + {warp}"),
                            "loops_e".to_string(),
                            "blockDim.x",
                        )
                    };
                    cx.line(format!(
                        "const {off} loops_lo = loops_e - loops_b > {skip} ? loops_b + {skip} : loops_e;"
                    ));
                    cx.line(format!("const {off} loops_hi = {hi};"));
                    cx.open(format!(
                        "for ({off} {var} = loops_lo + ({off})loops_lane; {var} < loops_hi; {var} += {step})"
                    ));
                    cx.block(&red.body)?;
                    cx.close();
                    self.reduce(cx, &red, level);
                    cx.open("if (loops_lane == 0u)");
                    Some(red)
                }
            };
            cx.open("if (loops_hi < loops_e)");
            for (i, v) in part.state.iter().enumerate() {
                let ty = v.ty.cuda_name();
                cx.line(format!(
                    "*reinterpret_cast<{ty}*>(&{}) = {};",
                    slot(i),
                    v.name
                ));
            }
            if level == Level::Warp {
                // A tile of more than LONG_TILE atoms left goes to the back of the block pass's
                // list, which that pass takes first.
                cx.line(format!(
                    "if (loops_e - loops_hi > {LONG_TILE}) loops_out[loops_n - 1 - atomicAdd(&loops_counts[{LONG_COUNT}], 1u)] = (unsigned int){pos};"
                ));
                cx.line(format!(
                    "else loops_out[atomicAdd(&loops_counts[(loops_pass + 1) % 3], 1u)] = (unsigned int){pos};"
                ));
            } else {
                cx.line(format!(
                    "loops_out[atomicAdd(&loops_counts[(loops_pass + 1) % 3], 1u)] = (unsigned int){pos};"
                ));
            }
            cx.close();
            if !parts.epilogue.is_empty() {
                cx.open("else");
                cx.block(parts.epilogue)?;
                cx.close();
            }
            if red.is_some() {
                cx.close();
            }
            if level == Level::Block {
                // The partials' slots are reused by the block's next tile.
                cx.line("__syncthreads();");
            }
            Ok(())
        }

        /// The lanes' partials of a warp or block pass, reduced into lane 0: shuffles within
        /// each warp, then (a block) each warp's total through shared memory, combined by
        /// thread 0 in warp order.
        fn reduce(&self, cx: &mut Cx<'_>, red: &Reductions, level: Level) {
            let (accs, sels) = (&red.accumulators, &red.selections);
            if accs.is_empty() && sels.is_empty() {
                return;
            }
            cx.open("for (int loops_o = 16; loops_o > 0; loops_o >>= 1)");
            let shfl = |v: &str| format!("__shfl_down_sync(0xffffffffu, {v}, loops_o)");
            combine_all(cx, accs, sels, &shfl);
            cx.close();
            if level == Level::Warp {
                return;
            }
            let warps = self.block_size / 32;
            let mut slots = Vec::new();
            for (v, ty) in reduced_vars_typed(accs, sels) {
                let slot = cx.fresh(&format!("partials_{}_", v.trim_start_matches("loops_")));
                cx.shared(&ty, &slot, Some(warps), false);
                cx.line(format!(
                    "if ((threadIdx.x & 31u) == 0u) {slot}[threadIdx.x >> 5] = {v};"
                ));
                slots.push((v, slot));
            }
            cx.line("__syncthreads();");
            cx.open("if (threadIdx.x == 0u)");
            cx.open(format!(
                "for (unsigned int loops_w = 1; loops_w < {warps}u; ++loops_w)"
            ));
            let other = |v: &str| {
                let slot = slots
                    .iter()
                    .find(|(n, _)| n == v)
                    .map(|(_, s)| s.as_str())
                    .expect("a slot per reduced variable");
                format!("{slot}[loops_w]")
            };
            combine_all(cx, accs, sels, &other);
            cx.close();
            cx.close();
        }
        /// One tile's share of a pass: of its one atom loop, or of the loop whose passes these
        /// are (`loops_loop`).
        fn tile_bodies(&self, cx: &mut Cx<'_>, parts: &Parts<'_>, pos: &str) -> DResult<()> {
            if parts.loops.len() == 1 {
                return self.tile_body(cx, parts, 0, pos);
            }
            for l in 0..parts.loops.len() {
                cx.open(format!("if (loops_loop == {l})"));
                self.tile_body(cx, parts, l, pos)?;
                cx.close();
            }
            Ok(())
        }

        /// One tile's share of a pass of its atom loop `l`: its `let`s (and, after the first
        /// loop, the earlier loops' kept results and the statements between the loops), its
        /// kept state, at most `mdt` of its atoms, then, if the loop is done, the epilogue (the
        /// last loop) or its results kept for the later loops; else its state kept and the tile
        /// on the next list.
        fn tile_body(
            &self,
            cx: &mut Cx<'_>,
            parts: &Parts<'_>,
            l: usize,
            pos: &str,
        ) -> DResult<()> {
            let several = parts.loops.len() > 1;
            let k = if several { "loops_k" } else { "loops_pass" };
            let last = l + 1 == parts.loops.len();
            let part = &parts.loops[l];
            cx.block(parts.prologue)?;
            let slot = |i: usize| format!("loops_state[{i} * loops_n + {pos}]");
            for earlier in &parts.loops[..l] {
                for (i, v) in earlier.state.iter().enumerate() {
                    let ty = v.ty.cuda_name();
                    cx.line(format!(
                        "{} = *reinterpret_cast<const {ty}*>(&{});",
                        v.name,
                        slot(earlier.first_slot + i)
                    ));
                }
                cx.block(earlier.after)?;
            }
            let slot = |i: usize| slot(part.first_slot + i);
            if !part.state.is_empty() {
                cx.open(format!("if ({k} > 0)"));
                for (i, v) in part.state.iter().enumerate() {
                    let ty = v.ty.cuda_name();
                    cx.line(format!(
                        "{} = *reinterpret_cast<const {ty}*>(&{});",
                        v.name,
                        slot(i)
                    ));
                }
                cx.close();
            }
            let (set, var) = (part.set, part.var);
            let tile = cx.expr(part.tile);
            let off = cx.offset_type();
            cx.line_directive(part.line);
            cx.line(format!(
                "const {off} loops_b = {set}_offsets[{tile}], loops_e = {set}_offsets[{tile} + 1];"
            ));
            cx.line(format!(
                "const {off} loops_lo = loops_b + ({off}){k} * loops_mdt;"
            ));
            cx.line(format!(
                "const {off} loops_hi = loops_e - loops_lo > loops_mdt ? loops_lo + loops_mdt : loops_e;"
            ));
            let breaks = crate::analysis::breaks_out(part.atom_body);
            if breaks {
                // The position is read after the loop: a `break` (stopped before `loops_hi`)
                // finishes the tile, as it does when its atoms run in one loop.
                cx.line(format!("{off} {var} = loops_lo;"));
                cx.open(format!("for (; {var} < loops_hi; ++{var})"));
            } else {
                cx.open(format!(
                    "for ({off} {var} = loops_lo; {var} < loops_hi; ++{var})"
                ));
            }
            cx.block(part.atom_body)?;
            cx.close();
            if breaks {
                cx.open(format!("if ({var} >= loops_hi && loops_hi < loops_e)"));
            } else {
                cx.open("if (loops_hi < loops_e)");
            }
            let keep = |cx: &mut Cx<'_>| {
                for (i, v) in part.state.iter().enumerate() {
                    let ty = v.ty.cuda_name();
                    cx.line(format!(
                        "*reinterpret_cast<{ty}*>(&{}) = {};",
                        slot(i),
                        v.name
                    ));
                }
            };
            keep(cx);
            cx.line(format!(
                "loops_out[atomicAdd(&loops_counts[(loops_pass + 1) % 3], 1u)] = (unsigned int){pos};"
            ));
            cx.close();
            if !last {
                // Done with this loop: its results for the later loops.
                if !part.state.is_empty() {
                    cx.open("else");
                    keep(cx);
                    cx.close();
                }
            } else if !parts.epilogue.is_empty() {
                cx.open("else");
                cx.block(parts.epilogue)?;
                cx.close();
            }
            Ok(())
        }
    }
}

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

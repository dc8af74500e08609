//! The carry lowering's entry point ([`CarryLowering`]): it splits the tile body, then runs the
//! per-thread walk or the segmented scan; and the small emission helpers every phase shares.

use super::lookback::slots_per_block;
use super::walk::Walk;
use super::Partition;
use crate::abi::STATE_HEADER_SLOTS;
use crate::analysis::{
    carry_body, reductions, staged_updates, Accumulator, CarryBody, Reductions, Selection,
};
use crate::diag::{bail, DResult, Diagnostic};
use crate::emit::{shared_bytes_needed, AtomLoop, Cx, DYNAMIC_SHARED_MAX};
use crate::ir::{Stmt, StmtKind, Subset, TileLoop, SUBSET_SET};
use crate::schedule::Kernel;
use crate::schedule::{Lowering, Schedule};

pub struct CarryLowering {
    pub partition: Partition,
    pub items_per_thread: u32,
    pub block_size: u32,
}

/// The name of a subset's positions as a tile set (`_rows`, `_nnz`, `_offsets`).
const VSET: &str = "loops_vset";

/// A tile loop's parts as every phase emits them: the atom loop runs `atoms` with `atom` bound;
/// a tile is finished by its `prologue` (side-effect-free `let`s, run again wherever a tile is
/// finished away from its atoms) and its `epilogue`.
pub(super) struct TileBody<'a> {
    /// The tile variable.
    pub(super) tile: &'a str,
    /// For a subset, the `let` of the tile id read from the list: it runs before the prologue.
    pub(super) tile_id: Option<&'a Stmt>,
    pub(super) prologue: &'a [Stmt],
    pub(super) atom: &'a str,
    pub(super) atoms: &'a [Stmt],
    pub(super) epilogue: &'a [Stmt],
    /// For one pass of a body of several atom loops: what the pass reads and keeps.
    pub(super) pass: Option<PassState<'a>>,
}

/// One pass of a tile body of several atom loops (a launch per loop): before its atom loop a
/// tile reads the earlier loops' results from the call's tile state and runs again the
/// statements between the loops; a pass before the last keeps its loop's results in the state
/// instead of running the epilogue.
pub(super) struct PassState<'a> {
    /// The tile set the partition runs over: the state has a slot per position of it.
    pub(super) set: &'a str,
    /// In order, after the prologue: the statements between loops, and the reads of each
    /// earlier loop's results (at that loop's place).
    pub(super) before: Vec<PassStep<'a>>,
    /// The results this pass keeps for the later ones (none in the last pass).
    pub(super) keeps: Vec<StateSlot>,
}

pub(super) enum PassStep<'a> {
    Stmt(&'a Stmt),
    Read(StateSlot),
}

/// A variable of the tile body kept in the call's tile state between passes.
#[derive(Clone)]
pub(super) struct StateSlot {
    pub(super) name: String,
    pub(super) ty: String,
    pub(super) slot: u32,
}

impl TileBody<'_> {
    /// Whether a tile is finished after its atoms: an epilogue to run, or results to keep.
    pub(super) fn finishes(&self) -> bool {
        !self.epilogue.is_empty() || self.pass.as_ref().is_some_and(|p| !p.keeps.is_empty())
    }

    /// The prologue of the tile at position `pos`, then, in a pass after the first, the earlier
    /// loops' results and the statements between the loops.
    pub(super) fn run_prologue(&self, cx: &mut Cx<'_>, pos: &str) -> DResult<()> {
        cx.block(self.prologue)?;
        let Some(pass) = &self.pass else {
            return Ok(());
        };
        for step in &pass.before {
            match step {
                PassStep::Stmt(s) => cx.stmt(s)?,
                PassStep::Read(v) => cx.line(format!(
                    "{} = *reinterpret_cast<const {}*>(&{});",
                    v.name,
                    v.ty,
                    pass.slot(v, pos)
                )),
            }
        }
        Ok(())
    }

    /// The epilogue of the tile at position `pos`, or in a pass before the last its loop's
    /// results kept.
    pub(super) fn run_epilogue(&self, cx: &mut Cx<'_>, pos: &str) -> DResult<()> {
        if let Some(pass) = &self.pass {
            for v in &pass.keeps {
                cx.line(format!(
                    "*reinterpret_cast<{}*>(&{}) = {};",
                    v.ty,
                    pass.slot(v, pos),
                    v.name
                ));
            }
        }
        cx.block(self.epilogue)
    }
}

impl PassState<'_> {
    /// The state word of `v` for position `pos`: a slot per position per kept variable, after
    /// the state's header.
    fn slot(&self, v: &StateSlot, pos: &str) -> String {
        format!(
            "loops_tile_state[{STATE_HEADER_SLOTS} + (long long){} * {}_rows + {pos}]",
            v.slot, self.set
        )
    }
}

/// Refuses a body whose block would need more shared memory than any GPU gives one block
/// ([`DYNAMIC_SHARED_MAX`]), naming what fits instead. Below that the emitter lays its arrays out
/// statically or, past 48 KiB, in dynamic shared memory, which the launch opts into.
fn check_shared(kernel: &Kernel) -> DResult<()> {
    let needed = shared_bytes_needed(kernel)?;
    if needed <= DYNAMIC_SHARED_MAX {
        return Ok(());
    }
    let config = kernel.config;
    let with_items = |ipt: u32| -> Option<Kernel> {
        let schedule = match config.schedule {
            Schedule::WorkOriented { .. } => Schedule::WorkOriented {
                items_per_thread: ipt,
            },
            Schedule::MergePath { .. } => Schedule::MergePath {
                items_per_thread: ipt,
            },
            _ => return None,
        };
        let mut k = kernel.clone();
        k.config.schedule = schedule;
        Some(k)
    };
    let fits = |k: &Kernel| shared_bytes_needed(k).is_ok_and(|b| b <= DYNAMIC_SHARED_MAX);
    // The most items per thread that fit (the bytes grow with them): a binary search.
    let (mut lo, mut hi) = (0u32, config.block_size);
    if let Schedule::WorkOriented { items_per_thread } | Schedule::MergePath { items_per_thread } =
        config.schedule
    {
        hi = items_per_thread;
    }
    while lo + 1 < hi {
        let mid = (lo + hi) / 2;
        match with_items(mid) {
            Some(k) if fits(&k) => lo = mid,
            _ => hi = mid,
        }
    }
    let fewer = match with_items(lo) {
        Some(_) if lo > 0 => format!("`items_per_thread = {lo}` or fewer, "),
        _ => String::new(),
    };
    let schedule = match config.schedule {
        Schedule::WorkOriented { items_per_thread } | Schedule::MergePath { items_per_thread } => {
            format!(
                "`{}` with {items_per_thread} items per thread",
                config.name()
            )
        }
        _ => format!("`{}`", config.name()),
    };
    Err(Diagnostic::about_schedule(
        kernel.body.span,
        format!(
            "{schedule} in blocks of {} threads needs {needed} bytes of shared memory per block \
             for this body (the block's tile offsets, one per item, and its accumulators' \
             partials), more than any GPU gives a block ({DYNAMIC_SHARED_MAX} bytes, 227 KiB on \
             sm_90); write {fewer}a smaller `block_size`, or a schedule that keeps no per-item \
             state in shared memory (`split`, `hierarchical`, `warp`, `thread`)",
            config.block_size
        ),
    ))
}

/// Declares the list's positions as a tile set of their own and returns its name: position `p`
/// holds the atoms of tile `list[p]` at virtual offsets, the prefix sum of the listed tiles' sizes
/// (0 for an id outside the set), which the runtime computes on the GPU before the launch. The
/// partition then runs on it unchanged.
fn list_positions(cx: &mut Cx<'_>, sub: &Subset) -> &'static str {
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

impl Lowering for CarryLowering {
    /// The body's shape and its reductions, as the emission analyses them: `auto` and `lrb`
    /// leave out a carry schedule that one of them rules out.
    fn check(&self, kernel: &Kernel) -> DResult<()> {
        let name = kernel.config.name();
        let parts = carry_body(kernel, kernel.body.user_body(), name)?;
        let earlier = parts.earlier.iter().map(|(l, _)| *l);
        for atoms in earlier.chain([parts.atoms]) {
            if let StmtKind::ForAtoms { var, body, .. } = &atoms.kind {
                reductions(body, var, name, &mut |s| s.to_string())?;
            }
        }
        check_shared(kernel)
    }

    /// Splits the tile body, then emits it as a segmented scan ([`Self::scans`]) or as the
    /// per-thread walk.
    fn tile_loop(&self, cx: &mut Cx<'_>, tiles: &TileLoop) -> DResult<()> {
        let name = cx.kernel.config.name();
        let subset = tiles.subset_guard();
        let parts = carry_body(cx.kernel, tiles.user_body(), name)?;
        if !parts.earlier.is_empty() {
            return self.passes(cx, tiles, &parts);
        }
        let StmtKind::ForAtoms {
            var,
            body: atom_body,
            ..
        } = &parts.atoms.kind
        else {
            unreachable!("carry_body returns the atom loop")
        };
        let red = reductions(atom_body, var, name, &mut |s| cx.fresh(s))?;
        let carried = Carried {
            accs: red.accumulators,
            sels: red.selections,
        };
        let accs = &carried.accs;
        let set = match &tiles.subset {
            Some(sub) => list_positions(cx, sub),
            None => tiles.set.as_str(),
        };
        let slots = slots_per_block(carried.fields().len());
        let invariants: Vec<&str> = parts.rounds.iter().map(|r| r.var).collect();
        // A subset's atoms are not contiguous: an atom's operand needs its tile's real offset
        // first, which the segments find; no staging.
        // Under `split` a block's atoms are up to `mdt` per thread, past any shared budget.
        let stageable = subset.is_none() && !matches!(self.partition, Partition::Split { .. });
        let operands = staged_updates(cx.kernel, atom_body, var, &invariants);
        cx.line_directive(tiles.line);
        let body = TileBody {
            tile: tiles.tile.as_str(),
            tile_id: subset.map(|(id, _, _)| id),
            prologue: &parts.prologue,
            atom: var,
            // With its selections recording the positions of the atoms they keep.
            atoms: &red.body,
            epilogue: parts.epilogue,
            pass: None,
        };
        if self.scans(cx.kernel) {
            let staged = operands.expect("`scans` found the staged updates");
            cx.scratch_slots_per_block = slots;
            return self.segmented_scan(cx, set, &body, &staged, accs);
        }
        let staged = operands.filter(|s| stageable && self.stage_fits(s.len(), accs.len()));
        let walk = Walk {
            set,
            body,
            carried: &carried,
            rounds: parts.rounds.as_ref(),
            atoms_line: parts.atoms.line,
            subset: subset
                .zip(tiles.subset.as_ref())
                .map(|((_, in_set, _), sub)| (in_set, sub)),
            staged,
        };
        self.walk(cx, &walk)
    }

    fn atom_loop(&self, _cx: &mut Cx<'_>, atoms: AtomLoop<'_>) -> DResult<()> {
        bail!(
            atoms.tile.span,
            "internal error: the carry schedules lower the atom loop with the tile loop"
        )
    }
}

/// What the carry protocol combines across threads and blocks for an atom loop: its scalar
/// accumulators and its selections. A selection is carried as its position and its variables
/// (the key and the tallies among them), and two partials combine by key, then position, a tally
/// by its operator where the keys are equal ([`Selection::keep_better`]): an associative choice,
/// so it goes wherever a sum goes.
pub(super) struct Carried {
    pub(super) accs: Vec<Accumulator>,
    pub(super) sels: Vec<Selection>,
}

/// One value of a partial: an accumulator, or a selection's position or variable.
pub(super) struct Field {
    /// The variable in the tile body.
    pub(super) name: String,
    /// Its CUDA type.
    pub(super) ty: String,
    /// What a share of the tile with no atoms holds: the operator's identity; for a selection,
    /// no atom chosen (a position every choice beats, the worst key).
    pub(super) identity: String,
}

impl Carried {
    /// Scalar accumulators only (the segmented scan, which takes no selection).
    pub(super) fn scalars(accs: &[Accumulator]) -> Carried {
        Carried {
            accs: accs.to_vec(),
            sels: Vec::new(),
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.accs.is_empty() && self.sels.is_empty()
    }

    /// Every value of a partial, in the order of the records: the accumulators, then each
    /// selection's position and variables.
    pub(super) fn fields(&self) -> Vec<Field> {
        let mut out: Vec<Field> = self
            .accs
            .iter()
            .map(|a| Field {
                name: a.name.clone(),
                ty: a.ty.cuda_name().to_string(),
                identity: a.op.identity(&a.ty),
            })
            .collect();
        for s in &self.sels {
            out.push(Field {
                name: s.at.clone(),
                ty: "long long".into(),
                identity: s.none_at().into(),
            });
            for (v, ty) in &s.vars {
                let key = s.key.as_ref().is_some_and(|k| k.name == *v);
                let tally = s.tallies.iter().find(|t| t.name == *v);
                let identity = match (s.worst_key(), tally) {
                    (Some(worst), _) if key => worst,
                    // Folded into an equal key's tally: nothing counted.
                    (_, Some(t)) => t.op.identity(&t.ty),
                    // Never read: a choice of no atom loses to every other.
                    (_, None) => format!("(({})0)", ty.cuda_name()),
                };
                out.push(Field {
                    name: v.clone(),
                    ty: ty.cuda_name().to_string(),
                    identity,
                });
            }
        }
        out
    }

    /// Starts a share of a cut tile from no choice: each selection's position, key and tallies
    /// (its other variables are never read before a choice sets them).
    pub(super) fn reset_selections(&self, cx: &mut Cx<'_>) {
        for s in &self.sels {
            cx.line(format!("{} = {};", s.at, s.none_at()));
            if let (Some(k), Some(worst)) = (&s.key, s.worst_key()) {
                cx.line(format!("{} = {worst};", k.name));
            }
            for t in &s.tallies {
                cx.line(format!("{} = {};", t.name, t.op.identity(&t.ty)));
            }
        }
    }

    /// Declares each selection's position variable, which the atom loop's rewritten body sets.
    pub(super) fn declare_positions(&self, cx: &mut Cx<'_>) {
        for s in &self.sels {
            cx.line(format!("long long {} = {};", s.at, s.none_at()));
        }
    }
}

/// Keeps, for each selection, the better of the choice in `mine(name)` and the one in
/// `other(name)` (read first into temporaries: `other` may be a shuffle, which every lane runs).
pub(super) fn choose_each(
    cx: &mut Cx<'_>,
    sels: &[Selection],
    mine: &dyn Fn(&str) -> String,
    other: &dyn Fn(&str) -> String,
) {
    for s in sels {
        cx.open("");
        let mut names = vec![(s.at.as_str(), "long long")];
        names.extend(s.vars.iter().map(|(v, t)| (v.as_str(), t.cuda_name())));
        for (v, ty) in &names {
            cx.line(format!("const {ty} loops_other_{v} = {};", other(v)));
        }
        cx.line(s.keep_better(&|v| format!("loops_other_{v}"), mine));
        cx.close();
    }
}

/// `T loops_<var>_<field> = <from(field, i)>;` for each value of a partial (`var` "part": a
/// partial result being combined).
pub(super) fn declare_each(
    cx: &mut Cx<'_>,
    carried: &Carried,
    var: &str,
    from: impl Fn(&Field, usize) -> String,
) {
    for (i, f) in carried.fields().iter().enumerate() {
        cx.line(format!("{} loops_{var}_{} = {};", f.ty, f.name, from(f, i)));
    }
}

/// `loops_<var>_<acc> = <earlier(acc)> op loops_<var>_<acc>;`: folds in the partial of an
/// earlier lane, thread, warp or block (earlier first, the order of the sequential loop); each
/// selection keeps the better choice.
pub(super) fn fold_earlier(
    cx: &mut Cx<'_>,
    carried: &Carried,
    var: &str,
    earlier: impl Fn(&str) -> String,
) {
    for a in &carried.accs {
        let into = format!("loops_{var}_{}", a.name);
        let c = a.op.combine(&earlier(&a.name), &into);
        cx.line(format!("{into} = {c};"));
    }
    choose_each(cx, &carried.sels, &|v| format!("loops_{var}_{v}"), &earlier);
}

impl CarryLowering {
    /// A tile body of several atom loops: a launch per loop (`loops_pass`), each the whole
    /// protocol for its loop, the tile's finishing thread keeping the loop's results (its
    /// accumulators and selections' variables) in the call's tile state for the later passes,
    /// and the last pass running the epilogue.
    fn passes(&self, cx: &mut Cx<'_>, tiles: &TileLoop, parts: &CarryBody<'_>) -> DResult<()> {
        let name = cx.kernel.config.name();
        let subset = tiles.subset_guard();
        let mut loops: Vec<&Stmt> = parts.earlier.iter().map(|(l, _)| *l).collect();
        loops.push(parts.atoms);
        let mut reds: Vec<(Reductions, &str, usize)> = Vec::new();
        for l in &loops {
            let StmtKind::ForAtoms { var, body, .. } = &l.kind else {
                unreachable!("carry_body returns atom loops")
            };
            let red = reductions(body, var, name, &mut |s| cx.fresh(s))?;
            reds.push((red, var.as_str(), l.line));
        }
        // Each earlier loop's results: its accumulators and its selections' variables (their
        // positions only break ties inside the loop), a slot each.
        let mut results: Vec<Vec<StateSlot>> = Vec::new();
        let mut next_slot = 0u32;
        for (red, _, _) in &reds[..reds.len() - 1] {
            let mut vars: Vec<(String, String)> = red
                .accumulators
                .iter()
                .map(|a| (a.name.clone(), a.ty.cuda_name().to_string()))
                .collect();
            for sel in &red.selections {
                vars.extend(
                    sel.vars
                        .iter()
                        .map(|(v, t)| (v.clone(), t.cuda_name().to_string())),
                );
            }
            results.push(
                vars.into_iter()
                    .map(|(name, ty)| {
                        next_slot += 1;
                        StateSlot {
                            name,
                            ty,
                            slot: next_slot - 1,
                        }
                    })
                    .collect(),
            );
        }
        cx.state_slots_per_tile = next_slot;
        let set = match &tiles.subset {
            Some(sub) => list_positions(cx, sub),
            None => tiles.set.as_str(),
        };
        let mut scratch = 0;
        cx.line_directive(tiles.line);
        for (k, (red, var, line)) in reds.iter().enumerate() {
            let last = k + 1 == reds.len();
            let mut before = Vec::new();
            for (j, (_, between)) in parts.earlier.iter().enumerate().take(k) {
                before.extend(results[j].iter().cloned().map(PassStep::Read));
                before.extend(between.iter().map(PassStep::Stmt));
            }
            let carried = Carried {
                accs: red.accumulators.clone(),
                sels: red.selections.clone(),
            };
            let body = TileBody {
                tile: tiles.tile.as_str(),
                tile_id: subset.map(|(id, _, _)| id),
                prologue: &parts.prologue,
                atom: var,
                atoms: &red.body,
                epilogue: if last { parts.epilogue } else { &[] },
                pass: Some(PassState {
                    set,
                    before,
                    keeps: if last { Vec::new() } else { results[k].clone() },
                }),
            };
            let walk = Walk {
                set,
                body,
                carried: &carried,
                rounds: None,
                atoms_line: *line,
                subset: subset
                    .zip(tiles.subset.as_ref())
                    .map(|((_, in_set, _), sub)| (in_set, sub)),
                // The passes' shared arrays are all declared in one body, where each pass's
                // staged operands would take their room beside every other pass's: none staged.
                staged: None,
            };
            cx.open(format!("if (loops_pass == {k})"));
            cx.scratch_slots_per_block = 0;
            // One pass runs per launch: in dynamic shared memory the passes share their bytes.
            cx.shared_exclusive(|cx| self.walk(cx, &walk))?;
            scratch = scratch.max(cx.scratch_slots_per_block);
            cx.close();
        }
        // Each pass is a launch of its own: the records of the largest.
        cx.scratch_slots_per_block = scratch;
        Ok(())
    }

    /// Items (tiles + atoms, or atoms) of one block's range.
    pub(super) fn block_items(&self) -> u32 {
        self.block_size * self.items_per_thread
    }

    /// Declares `loops_<into>_<key name>` and `loops_<into>_<field>`: what segments the runs
    /// (`key`: its type, name and source, as the tail tile) and the run partials of the lane
    /// `delta` lanes before this one.
    pub(super) fn shuffle_up(
        cx: &mut Cx<'_>,
        carried: &Carried,
        into: &str,
        delta: &str,
        (key_ty, key_name, key): (&str, &str, &str),
    ) {
        cx.line(format!(
            "const {key_ty} loops_{into}_{key_name} = __shfl_up_sync(0xffffffffu, {key}, {delta});"
        ));
        for f in carried.fields() {
            cx.line(format!(
                "const {} loops_{into}_{1} = __shfl_up_sync(0xffffffffu, loops_run_{1}, {delta});",
                f.ty, f.name
            ));
        }
    }
}

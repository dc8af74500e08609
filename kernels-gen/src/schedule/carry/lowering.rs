//! The carry lowering's entry point ([`CarryLowering`]): it splits the tile body, then runs the
//! per-thread walk or the segmented scan; and the small emission helpers every phase shares.

use super::lookback::slots_per_block;
use super::walk::Walk;
use super::Partition;
use crate::analysis::{accumulators, carry_body, staged_updates, Accumulator};
use crate::diag::{bail, DResult};
use crate::emit::{AtomLoop, Cx};
use crate::ir::{Kernel, Stmt, StmtKind, Subset, TileLoop, SUBSET_SET};
use crate::schedule::Lowering;

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
    /// The body's shape and its accumulators, as the emission analyses them: `auto` and `lrb`
    /// leave out a carry schedule that one of them rules out.
    fn check(&self, kernel: &Kernel) -> DResult<()> {
        let name = kernel.config.name();
        let parts = carry_body(kernel, kernel.body.user_body(), name)?;
        match &parts.atoms.kind {
            StmtKind::ForAtoms { var, body, .. } => accumulators(body, var, name).map(|_| ()),
            _ => Ok(()),
        }
    }

    /// Splits the tile body, then emits it as a segmented scan ([`Self::scans`]) or as the
    /// per-thread walk.
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
        let set = match &tiles.subset {
            Some(sub) => list_positions(cx, sub),
            None => tiles.set.as_str(),
        };
        let slots = slots_per_block(accs.len());
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
            prologue: parts.prologue,
            atom: var,
            atoms: atom_body,
            epilogue: parts.epilogue,
        };
        if self.scans(cx.kernel) {
            let staged = operands.expect("`scans` found the staged updates");
            cx.scratch_slots_per_block = slots;
            return self.segmented_scan(cx, set, &body, &staged, &accs);
        }
        let staged = operands.filter(|s| stageable && self.stage_fits(s.len(), accs.len()));
        let walk = Walk {
            set,
            body,
            accs: &accs,
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

/// `T loops_<var>_<acc> = <from(acc, i)>;` for each accumulator (`var` "part": a partial
/// result being combined).
pub(super) fn declare_each(
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
pub(super) fn fold_earlier(
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
    pub(super) fn block_items(&self) -> u32 {
        self.block_size * self.items_per_thread
    }

    /// Declares `loops_<into>_<key name>` and `loops_<into>_<acc>`: what segments the runs
    /// (`key`: its type, name and source, as the tail tile) and the run partials of the lane
    /// `delta` lanes before this one.
    pub(super) fn shuffle_up(
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
}

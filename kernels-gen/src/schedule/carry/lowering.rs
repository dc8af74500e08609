//! The carry lowering's entry point ([`CarryLowering`]): it splits the tile body, then runs the
//! per-thread walk or the segmented scan; and the small emission helpers every phase shares.

use super::lookback::slots_per_block;
use super::scan::TileBody;
use super::Partition;
use crate::analysis::{accumulators, carry_body, staged_updates, Accumulator};
use crate::diag::{bail, DResult};
use crate::emit::{AtomLoop, Cx};
use crate::ir::{Kernel, StmtKind, TileLoop, SUBSET_SET};
use crate::schedule::Lowering;

pub struct CarryLowering {
    pub partition: Partition,
    pub items_per_thread: u32,
    pub block_size: u32,
}

/// The name of a subset's positions as a tile set (`_rows`, `_nnz`, `_offsets`).
const VSET: &str = "loops_vset";

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
        cx.open(format!(
            "for (int loops_t = loops_x0; loops_t <= loops_x1 && loops_t < {set}_rows; ++loops_t)"
        ));
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
                        None => cx.line(format!("{} = {};", u.acc, u.combine.combine(u.acc, &v))),
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

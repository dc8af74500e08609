//! Step 2: each thread walks its segment. A tile it holds whole gets its epilogue at once; for the
//! tile cut at the segment's start (its *head*) and the tile in progress at its end (its *tail*)
//! it keeps the partial accumulators and selections for the fix-up (`fixup.rs`).

use super::lookback::slots_per_block;
use super::lowering::{Carried, TileBody};
use super::{CarryLowering, Partition};
use crate::analysis::{Rounds, StagedUpdate};
use crate::diag::DResult;
use crate::emit::Cx;
use crate::ir::{Expr, Subset};

/// A tile loop as the per-thread walk runs it.
pub(super) struct Walk<'a> {
    /// The tile set the partition runs over (a subset's list positions, or the loop's set).
    pub(super) set: &'a str,
    pub(super) body: TileBody<'a>,
    pub(super) carried: &'a Carried,
    /// A tile-invariant loop around the atom loop: each iteration is the whole protocol again.
    pub(super) rounds: Option<&'a Rounds<'a>>,
    /// The atom loop's line, for `#line`.
    pub(super) atoms_line: usize,
    /// For a subset: the test that skips an id outside the set, and the subset.
    pub(super) subset: Option<(&'a Expr, &'a Subset)>,
    /// The atom loop's operands, where they are computed into shared memory first.
    pub(super) staged: Option<Vec<StagedUpdate<'a>>>,
}

impl CarryLowering {
    /// The whole protocol for a tile loop that is not a segmented scan: the block's range, the
    /// thread's segment, the walk, the fix-up; once per round.
    pub(super) fn walk(&self, cx: &mut Cx<'_>, w: &Walk<'_>) -> DResult<()> {
        // Without an epilogue there is nothing to finish: atoms do their own work.
        let fixup = w.body.finishes();
        // Records and a look-back only where there are partials to carry.
        let carries = fixup && !w.carried.is_empty();
        // Without rounds the operands are staged together with the offsets window: one
        // round trip to memory and one barrier fewer per block.
        let early_stage = w.rounds.is_none() && w.staged.is_some();
        self.block_range(cx, w.set, carries, false);
        self.window_and_stage(cx, w, early_stage);
        let off = |i: &str| self.window_offset(w.set, i);
        self.thread_segment(cx, w.set, &off);
        let slots = slots_per_block(w.carried.fields().len());
        match w.rounds {
            Some(r) => open_round(cx, r, carries.then_some(slots)),
            None if carries => {
                cx.line("unsigned long long* const loops_data = loops_scratch + 1;");
            }
            None => {}
        }
        if let (false, Some(staged)) = (early_stage, &w.staged) {
            self.stage(cx, w.body.atom, staged, true, false);
        }
        w.carried.declare_positions(cx);
        if fixup {
            for f in w.carried.fields() {
                let (ty, id) = (f.ty, f.identity);
                cx.line(format!(
                    "{ty} loops_head_{0} = {id}, loops_tail_{0} = {id};",
                    f.name
                ));
            }
            cx.line("int loops_head_tile = -1, loops_tail_tile = -1;");
        }
        walk_tiles(cx, w, &off, fixup)?;
        if fixup {
            cx.scratch_slots_per_block = slots;
            self.fixup(cx, &w.body, &off, w.carried)?;
        }
        if w.rounds.is_some() {
            // The next round reuses the block's shared arrays.
            cx.line("__syncthreads();");
            cx.close();
        }
        Ok(())
    }

    /// The offsets window and, if the operands are staged before the rounds (`early`), the
    /// staging, in the order that overlaps their loads best; then the barrier before either is
    /// read.
    fn window_and_stage(&self, cx: &mut Cx<'_>, w: &Walk<'_>, early: bool) {
        match (early, &w.staged) {
            (true, Some(staged)) if self.partition == Partition::WorkOriented => {
                // A block's atoms do not depend on its range of tiles: their loads (and the
                // gathers behind them) go out before the window's, which wait for the range, so
                // the two chains of dependent loads overlap instead of following each other.
                // (Issuing them before the kept starts' loads too was measured slower on a
                // banded matrix: the compiler then sinks those loads below the gathers.)
                self.stage(cx, w.body.atom, staged, false, false);
                self.offsets_window(cx, w.set);
                cx.line("__syncthreads();");
            }
            (true, Some(staged)) => {
                self.offsets_window(cx, w.set);
                self.stage(cx, w.body.atom, staged, true, false);
            }
            _ => {
                if self.offsets_window(cx, w.set) {
                    cx.line("__syncthreads();");
                }
            }
        }
    }
}

/// Opens the loop of a round (an iteration of a tile-invariant loop around the atom loop): the
/// whole protocol again, with its own records in scratch (`slots` per block, where partials are
/// carried).
fn open_round(cx: &mut Cx<'_>, r: &Rounds<'_>, slots: Option<u32>) {
    let (start, end) = (cx.expr(r.start), cx.expr(r.end));
    let t = r.ty.cuda_name();
    cx.line_directive(r.line);
    cx.line(format!("const {t} loops_round_end = {end};"));
    cx.open(format!(
        "for ({t} {0} = {start}, loops_round = 0; {0} < loops_round_end; ++{0}, ++loops_round)",
        r.var
    ));
    if let Some(slots) = slots {
        cx.line(format!(
            "unsigned long long* const loops_data = loops_scratch + 1 + (long long)loops_round * gridDim.x * {slots};"
        ));
    }
}

/// The thread's walk over the tiles of its segment: each tile's prologue, its atoms in the
/// segment, then its epilogue, or (with a fix-up) its partials kept as the head or the tail.
fn walk_tiles(
    cx: &mut Cx<'_>,
    w: &Walk<'_>,
    off: &dyn Fn(&str) -> String,
    fixup: bool,
) -> DResult<()> {
    let set = w.set;
    cx.line("int loops_nz = loops_y0;");
    cx.open(format!(
        "for (int loops_t = loops_x0; loops_t <= loops_x1 && loops_t < {set}_rows; ++loops_t)"
    ));
    cx.line(format!("const int {} = loops_t;", w.body.tile));
    if let (Some(id), Some((in_set, sub))) = (w.body.tile_id, w.subset) {
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
    w.body.run_prologue(cx, "loops_t")?;
    cx.line(format!(
        "const bool loops_cut = {} < loops_y0;",
        off("loops_t")
    ));
    cx.line("const bool loops_is_tail = loops_t == loops_x1;");
    cx.line(format!(
        "const int loops_stop = loops_is_tail ? loops_y1 : {};",
        off("loops_t + 1")
    ));
    if fixup && !w.carried.is_empty() {
        cx.open("if (loops_cut || loops_is_tail)");
        for a in &w.carried.accs {
            cx.line(format!("{} = {};", a.name, a.op.identity(&a.ty)));
        }
        w.carried.reset_selections(cx);
        cx.close();
    }
    cx.line_directive(w.atoms_line);
    cx.open("for (; loops_nz < loops_stop; ++loops_nz)");
    atom_step(cx, &w.body, w.staged.as_deref(), w.subset.is_some())?;
    cx.close();
    if crate::analysis::breaks_out(w.body.atoms) {
        // A `break` ends this tile's share of the segment; the walk goes on at the next tile.
        cx.line("loops_nz = loops_stop;");
    }
    if fixup {
        keep_partials(cx, w.carried, &w.body)?;
    } else {
        w.body.run_epilogue(cx, "loops_t")?;
    }
    cx.close();
    Ok(())
}

/// One atom `loops_nz` of the walk: its staged operands folded into the accumulators, or the
/// atom loop's body with the atom variable bound (for a subset, moved from the virtual offsets
/// to the tile's real ones by `loops_base`).
fn atom_step(
    cx: &mut Cx<'_>,
    body: &TileBody<'_>,
    staged: Option<&[StagedUpdate<'_>]>,
    subset: bool,
) -> DResult<()> {
    let var = body.atom;
    match staged {
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
            Ok(())
        }
        None if subset => {
            cx.line(format!("const int {var} = (int)(loops_nz + loops_base);"));
            cx.block(body.atoms)
        }
        None => {
            cx.line(format!("const int {var} = loops_nz;"));
            cx.block(body.atoms)
        }
    }
}

/// After a tile's atoms in the segment: the partials of the tail and of the head are kept for the
/// fix-up; a tile held whole runs its epilogue.
fn keep_partials(cx: &mut Cx<'_>, carried: &Carried, body: &TileBody<'_>) -> DResult<()> {
    let fields = carried.fields();
    cx.open("if (loops_is_tail)");
    cx.line("loops_tail_tile = loops_t;");
    for f in &fields {
        cx.line(format!("loops_tail_{0} = {0};", f.name));
    }
    cx.close();
    cx.open("else if (loops_cut)");
    cx.line("loops_head_tile = loops_t;");
    for f in &fields {
        cx.line(format!("loops_head_{0} = {0};", f.name));
    }
    cx.close();
    cx.open("else");
    body.run_epilogue(cx, "loops_t")?;
    cx.close();
    Ok(())
}

//! `for j in lanes(start..end)`: a loop of the tile body whose values a group of lanes takes
//! together ([`crate::ir::StmtKind::ForRange`] with `lanes`). What each schedule does with it:
//!
//! - `group`, `warp`, `block` (and the group variants of `mean_group`, `lrb` and `auto`): the
//!   group's `G` lanes split into `W` lanes over the values and `G / W` lanes over the atoms
//!   ([`width`]): `W` is the power of two at or above the loop's length, at most `G`, chosen at run
//!   time (the length is a run-time value); a body with no atom loop takes the whole group over
//!   the values. Lane `l` takes the value offset `l % W` and the atom lane `l / W`
//!   ([`split_of_lane`]), so consecutive lanes read consecutive values (coalesced). The group
//!   walks the range in strides of `W`; a lane past its end runs the stride clamped to its first
//!   value, reads no atoms and stores nothing. In each stride the atom loops stride over the
//!   tile's atoms by `G / W` from the atom lane, and their accumulators are reduced over the lanes
//!   of one value (shuffles down from `G / 2` to `W` within a warp; above a warp, then through
//!   shared memory, every lane combining the warps in the same order: [`model_reduce`]), so each
//!   lane holds its value's total. Stores and atomics outside the atom loops run on the lanes of
//!   atom lane 0 whose value is in range.
//! - `thread`, `merge_path`, `work_oriented`, `split` (and their variants): a serial loop in the
//!   thread, as written; the carry schedules run a `lanes` loop around the atom loop as rounds of
//!   the whole grid, one per value, as any loop around it ([`crate::analysis::carry_body`]).
//! - `hierarchical`: refused around an atom loop (it keeps one atom loop's state between passes),
//!   with an error naming `lanes` and the schedules that take it ([`refuse_around_atoms`]).

/// The schedules that take a `lanes` loop around an atom loop, for messages.
pub const TAKE_LANES: &str =
    "`thread`, `group`, `warp`, `block`, `mean_group`, `lrb`, `auto`, `merge_path`, \
                              `work_oriented` or `split`";

/// Lanes over the values of a `lanes` loop of `n` values in a group of `group_size` (a power of
/// two): the power of two at or above `n` (at least 1), at most the group; the whole group where
/// the loop's body has no atom loop (`atoms` false).
pub fn width(n: u64, group_size: u32, atoms: bool) -> u32 {
    if !atoms {
        return group_size;
    }
    let mut w = 1u32;
    while w < group_size && (w as u64) < n {
        w <<= 1;
    }
    w
}

/// The value offset and the atom lane of lane `lane` (in its group) where `width` lanes run over
/// the values.
pub fn split_of_lane(lane: u32, width: u32) -> (u32, u32) {
    (lane & (width - 1), lane / width)
}

/// The values lane `lane` takes in each stride of a `lanes` loop over `start..end` (strides of
/// `width`): `(value, in range)`, a lane past the end clamped to the stride's first value.
pub fn model_values_of_lane(lane: u32, width: u32, start: u64, end: u64) -> Vec<(u64, bool)> {
    let (offset, _) = split_of_lane(lane, width);
    let mut out = Vec::new();
    let mut base = start;
    while base < end {
        let j = base + offset as u64;
        out.push(if j < end { (j, true) } else { (base, false) });
        base += width as u64;
    }
    out
}

/// The atoms of a tile (`begin..end`) that lane `lane` visits in one stride, `in_range` its value.
pub fn model_atoms_of_lane(
    lane: u32,
    group_size: u32,
    width: u32,
    begin: u64,
    end: u64,
    in_range: bool,
) -> impl Iterator<Item = u64> {
    let (_, atom_lane) = split_of_lane(lane, width);
    let end = if in_range { end } else { begin };
    (begin + atom_lane as u64..end).step_by((group_size / width) as usize)
}

/// The reduction after an atom loop in a `lanes` loop, as emitted: each lane's partial in,
/// each lane's total out (the sum over the lanes of its value offset). Up to a warp: shuffles down
/// from `G / 2` to `width` within the group (a lane past the group's end reads itself), then every
/// lane reads the total from the lane of its offset. Above a warp: the same shuffles within each
/// warp (from 16), each lane's value to a shared slot, then every lane combines the slots of its
/// offset, one per warp (or per `width` lanes past a warp), in order.
pub fn model_reduce(group_size: u32, width: u32, partials: &[u64]) -> Vec<u64> {
    let g = group_size as usize;
    let w = width as usize;
    assert_eq!(partials.len(), g);
    let seg = g.min(32);
    let mut v = partials.to_vec();
    let mut o = seg / 2;
    while o >= w && o > 0 {
        let before = v.clone();
        for (l, x) in v.iter_mut().enumerate() {
            let src = if l % seg + o < seg { l + o } else { l };
            *x += before[src];
        }
        o >>= 1;
    }
    if g <= 32 {
        return (0..g).map(|l| v[l & (w - 1)]).collect();
    }
    let stride = w.max(32);
    (0..g)
        .map(|l| {
            let off = l & (w - 1);
            (0..g).step_by(stride).map(|p| v[p + off]).sum()
        })
        .collect()
}

#[cfg(feature = "frontend")]
pub use lowering::{check_group, group_atom_loop, group_lanes_loop, refuse_around_atoms};

#[cfg(feature = "frontend")]
mod lowering {
    use super::TAKE_LANES;
    use crate::analysis::{reductions, visit_stmts};
    use crate::diag::{bail, DResult};
    use crate::emit::{AtomLoop, Cx, LanesSplit, RangeLoop};
    use crate::ir::{Stmt, StmtKind};
    use crate::schedule::group::GroupLowering;
    use crate::schedule::Kernel;

    fn has_atoms(block: &[Stmt]) -> bool {
        let mut hit = false;
        let _ = visit_stmts(block, &mut |s| {
            hit |= matches!(s.kind, StmtKind::ForAtoms { .. });
            Ok(())
        });
        hit
    }

    /// Every `lanes` loop of a tile body, for `f`.
    fn each_lanes_loop(
        block: &[Stmt],
        f: &mut dyn FnMut(&Stmt, &[Stmt]) -> DResult<()>,
    ) -> DResult<()> {
        visit_stmts(block, &mut |s| match &s.kind {
            StmtKind::ForRange {
                lanes: true, body, ..
            } => f(s, body),
            _ => Ok(()),
        })
    }

    /// Under a group: an atom loop in a `lanes` loop stands in the loop's own body, so that all
    /// the lanes that share a value reach it (they reduce together).
    pub fn check_group(kernel: &Kernel) -> DResult<()> {
        let name = kernel.config.name();
        each_lanes_loop(&kernel.body.body, &mut |_, body| {
            for s in body {
                if matches!(s.kind, StmtKind::ForAtoms { .. })
                    || !has_atoms(std::slice::from_ref(s))
                {
                    continue;
                }
                bail!(
                    s.span,
                    "under `{name}` an atom loop inside a `lanes` loop must stand in the lanes loop's own body, not \
                     inside an `if` or another loop: the lanes of one value reduce its atoms together, so all of \
                     them must reach it. Test the condition inside the atom loop, or use `thread`"
                );
            }
            Ok(())
        })
    }

    /// `hierarchical` keeps one atom loop's state between passes: it cannot run one per value.
    pub fn refuse_around_atoms(block: &[Stmt], schedule: &str) -> DResult<()> {
        each_lanes_loop(block, &mut |s, body| {
            if has_atoms(body) {
                bail!(
                    s.span,
                    "under `{schedule}` a `lanes` loop cannot hold an atom loop: the schedule keeps one atom loop's \
                     state per tile between its passes, not one per value. Use {TAKE_LANES}"
                );
            }
            Ok(())
        })
    }

    /// `for j in lanes(start..end)` under a group ([`super`]).
    pub fn group_lanes_loop(
        g: &GroupLowering,
        cx: &mut Cx<'_>,
        range: RangeLoop<'_>,
    ) -> DResult<()> {
        let size = g.group_size;
        let t = range.ty.cuda_name();
        let (start, end) = (cx.expr(range.start), cx.expr(range.end));
        cx.open("");
        cx.line(format!("const {t} loops_js = {start};"));
        cx.line(format!("const {t} loops_je = {end};"));
        if has_atoms(range.body) {
            // The power of two at or above the length, at most the group (`super::width`).
            cx.line("unsigned int loops_jw = 1u;");
            cx.line(format!(
                "if (loops_je > loops_js) {{ const unsigned long long loops_jn = (unsigned long long)loops_je - \
                 (unsigned long long)loops_js; while (loops_jw < {size}u && loops_jw < loops_jn) loops_jw <<= 1; }}"
            ));
        } else {
            cx.line(format!("const unsigned int loops_jw = {size}u;"));
        }
        cx.line("const unsigned int loops_jl = loops_lane & (loops_jw - 1u);");
        cx.line("const unsigned int loops_al = loops_lane / loops_jw;");
        cx.line(format!("const unsigned int loops_as = {size}u / loops_jw;"));
        cx.open(format!(
            "for ({t} loops_jb = loops_js; loops_jb < loops_je; loops_jb += ({t})loops_jw)"
        ));
        cx.line(format!(
            "const bool loops_jin = loops_jb + ({t})loops_jl < loops_je;"
        ));
        cx.line(format!(
            "const {t} {} = loops_jin ? loops_jb + ({t})loops_jl : loops_jb;",
            range.var
        ));
        let split = LanesSplit {
            width: "loops_jw".into(),
            offset: "loops_jl".into(),
            atom_lane: "loops_al".into(),
            atom_lanes: "loops_as".into(),
            in_range: "loops_jin".into(),
        };
        let outer_lanes = cx.lanes.replace(split);
        let outer_guard = cx.guard.replace("loops_al == 0u && loops_jin".into());
        let result = cx.block(range.body);
        cx.guard = outer_guard;
        cx.lanes = outer_lanes;
        result?;
        cx.close();
        cx.close();
        Ok(())
    }

    /// An atom loop in a `lanes` loop under a group: the atom lanes of each value stride over
    /// the tile's atoms, then reduce over the lanes of the value ([`super::model_reduce`]).
    pub fn group_atom_loop(
        g: &GroupLowering,
        cx: &mut Cx<'_>,
        atoms: AtomLoop<'_>,
        split: &LanesSplit,
    ) -> DResult<()> {
        let size = g.group_size;
        let name = cx.kernel.config.name();
        let red = reductions(atoms.body, atoms.var, name, &mut |s| cx.fresh(s))?;
        let (accs, sels) = (&red.accumulators, &red.selections);
        let LanesSplit {
            width,
            offset,
            atom_lane,
            atom_lanes,
            in_range,
        } = split;
        // Atom lane 0 carries the value from before the loop; the others start from the identity.
        crate::schedule::group::start_from_identity(cx, accs, sels, &format!("{atom_lane} != 0u"));
        let (set, var) = (atoms.set, atoms.var);
        let tile = cx.expr(atoms.tile);
        let end = cx.fresh("end");
        let off = cx.offset_type();
        // A lane whose value is past the range reads no atoms.
        cx.open(format!(
            "for ({off} {var} = {set}_offsets[{tile}] + ({off}){atom_lane}, {end} = {in_range} ? {set}_offsets[{tile} + 1] : ({off})0; \
             {var} < {end}; {var} += ({off}){atom_lanes})"
        ));
        let outer = cx.guard.take();
        let result = cx.block(&red.body);
        cx.guard = outer;
        result?;
        cx.close();
        if accs.is_empty() && sels.is_empty() {
            return Ok(());
        }
        use crate::schedule::group::{combine_all, reduced_vars_typed};
        if size <= 32 {
            cx.open(format!(
                "for (int loops_o = {}; loops_o >= (int){width}; loops_o >>= 1)",
                size / 2
            ));
            let shfl = |v: &str| format!("__shfl_down_sync(loops_mask, {v}, loops_o, {size})");
            combine_all(cx, accs, sels, &shfl);
            cx.close();
            for (v, _) in reduced_vars_typed(accs, sels) {
                cx.line(format!(
                    "{v} = __shfl_sync(loops_mask, {v}, {offset}, {size});"
                ));
            }
            return Ok(());
        }
        // Above a warp: within each warp, then every lane combines its value's slots in order.
        cx.open(format!(
            "for (int loops_o = 16; loops_o >= (int){width}; loops_o >>= 1)"
        ));
        let shfl = |v: &str| format!("__shfl_down_sync(0xffffffffu, {v}, loops_o)");
        combine_all(cx, accs, sels, &shfl);
        cx.close();
        let mut slots = Vec::new();
        for (v, ty) in reduced_vars_typed(accs, sels) {
            let slot = cx.fresh(&format!("lanes_{}_", v.trim_start_matches("loops_")));
            cx.shared(&ty, &slot, Some(g.block_size), false);
            cx.line(format!("{slot}[threadIdx.x] = {v};"));
            slots.push((v, slot));
        }
        cx.line(g.barrier());
        cx.open("");
        cx.line(format!(
            "const unsigned int loops_gb = (threadIdx.x & ~{}u) + {offset};",
            size - 1
        ));
        cx.line(format!(
            "const unsigned int loops_st = {width} > 32u ? {width} : 32u;"
        ));
        for (v, slot) in &slots {
            cx.line(format!("{v} = {slot}[loops_gb];"));
        }
        cx.open(format!(
            "for (unsigned int loops_p = loops_st; loops_p < {size}u; loops_p += loops_st)"
        ));
        let slot_of = |v: &str| {
            slots
                .iter()
                .find(|(n, _)| n == v)
                .map(|(_, s)| s.clone())
                .expect("a slot per reduced variable")
        };
        let other = |v: &str| format!("{}[loops_gb + loops_p]", slot_of(v));
        combine_all(cx, accs, sels, &other);
        cx.close();
        cx.close();
        // The slots are reused by the next stride: nobody writes them before everyone has read.
        cx.line(g.barrier());
        Ok(())
    }
}

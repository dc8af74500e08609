//! Tile-only bodies: `for tile in a.tiles() { .. }` (or `a.tiles_in(list)`) with no atom loop,
//! per-tile work such as a frontier's degrees, zeroing, or flags to a list.
//!
//! The lowering: **one thread per tile, whatever the schedule named**. The schedules differ only in
//! how they spread a tile's atoms over threads (a group's lanes, equal shares cut across tiles,
//! passes, bins); a body without atoms has nothing for them to spread, and any mapping that gave
//! a tile more than one thread would leave all but one idle (a group's lanes), or cost a launch of
//! its own for nothing (`lrb`'s binning, `split`'s pieces, the carry schedules' prefix sums and
//! fix-ups, `auto`'s measurement). So the front end lowers such a kernel under `thread` (keeping
//! the block size): every tile's body runs exactly once, on one thread, grid-stride over the
//! tiles, and the kernel is a `thread` kernel for the runtime too (its launch plan, its hidden
//! parameters: over `tiles_in(list)` it takes the list's length from the device, so a device loop
//! can run it). `#[for_schedules(all)]` stamps it under every name; each is the same kernel. The
//! launch wrapper's documentation says so.
//!
//! Flat atom loops: an atom-major body (`for atom in a.all_atoms()`) that never asks its atom's
//! tile ([`atoms_are_flat`]: no `a.tile_of(atom)`, no `break` out of the atoms, no `return`) is
//! every atom once, in no particular order. The schedules' machinery (a tile's atoms spread over
//! lanes, equal shares of atoms found by searching the offsets and their carry fix-ups, bins)
//! only serves to know which tile an atom is in; such a body needs none of it. So it too is
//! lowered under `thread` ([`config_for`]), as one grid-stride loop over the atoms
//! (`0..num_atoms`) instead of the tiles: a column count or histogram is one thread per entry,
//! coalesced, with no search. The grid is `thread`'s (a thread per tile, up to the device's
//! resident blocks), each thread taking every grid-th atom.
//!
//! Two things the `thread` lowering does for a tile-only body alone (plain variant; the checked
//! one keeps today's code), so that the library's compactions and frontier sums can be written in
//! the language at the hand-written kernels' cost:
//! - **aggregated atomics** ([`aggregated_atomics`]): an integer `atomic_add`/`atomic_max`/
//!   `atomic_min` statement on a tile-invariant slot is folded into a register over the thread's
//!   tiles (the tile loop is grid-stride over a grid capped at what the device holds) and flushed
//!   once after the loop: a warp's shuffles, then the block's warps through shared memory, one
//!   atomic per block (the prelude's `loops_flush_*`);
//! - **block-staged pushes** ([`staged_pushes`]): `push` statements onto one tile-invariant
//!   counter claim slots of a per-block area in shared memory (the claim warp-aggregated on a
//!   shared count); the tile loop runs over rounds of a block, and at each round's end every
//!   thread of the block reaches the flush: one global atomic per round, the staged values
//!   written out coalesced (the prelude's `loops_stage_push`/`loops_stage_flush`); a claim past
//!   the area takes the warp's direct push.

use super::Kernel;
use super::{Schedule, ScheduleConfig};
use crate::ir::{Block, Builtin, Expr, ExprKind, Indexed, ParamKind, Stmt, StmtKind, TileLoop, Ty};

/// Whether the tile loop's body has no atom loop.
pub fn is_tile_only(tiles: &TileLoop) -> bool {
    !contains_atom_loop(&tiles.body)
}

/// The configuration a kernel over `tiles` is lowered with: `config`, or for a tile-only body the
/// `thread` schedule with `config`'s block size (see the module docs).
pub fn config_for(config: ScheduleConfig, tiles: &TileLoop) -> ScheduleConfig {
    if is_tile_only(tiles) || tiles.flat {
        ScheduleConfig {
            schedule: Schedule::Thread,
            block_size: config.block_size,
        }
    } else {
        config
    }
}

/// Whether an atom-major loop's body (`atom_body`, its tile variable `tile`) is flat (see the
/// module docs): it never reads `tile` (what `a.tile_of(atom)` lowers to), cannot `break` out of
/// the atoms and has no `return`.
pub fn atoms_are_flat(atom_body: &Block, tile: &str) -> bool {
    use crate::analysis::{breaks_out, stmt_exprs, visit_expr, visit_stmts};
    use crate::ir::ExprKind;
    if breaks_out(atom_body) {
        return false;
    }
    let mut flat = true;
    let _ = visit_stmts(atom_body, &mut |s| {
        if matches!(s.kind, StmtKind::Return(_)) {
            flat = false;
        }
        stmt_exprs(s, &mut |e| {
            visit_expr(e, &mut |x| {
                if matches!(&x.kind, ExprKind::Var(v) if v == tile) {
                    flat = false;
                }
            })
        });
        Ok(())
    });
    flat
}

fn contains_atom_loop(block: &Block) -> bool {
    block.iter().any(|s| match &s.kind {
        StmtKind::ForAtoms { .. } => true,
        StmtKind::If {
            then, otherwise, ..
        } => contains_atom_loop(then) || contains_atom_loop(otherwise),
        StmtKind::ForRange { body, .. } => contains_atom_loop(body),
        _ => false,
    })
}

/// An atomic statement of a tile-only body that the `thread` lowering accumulates in a register
/// over the thread's tiles and flushes once, after the tile loop, block-reduced (one atomic per
/// block): see [`aggregated_atomics`].
#[derive(Clone, Debug)]
pub struct Aggregated<'k> {
    /// The call (`atomic_add(&mut total[0], d)`), the statement's expression.
    pub call: &'k Expr,
    /// Its target (`total[0]`): tile-invariant.
    pub target: &'k Expr,
    /// Its operand.
    pub value: &'k Expr,
    pub op: Builtin,
    /// The target's (integer) element type.
    pub ty: Ty,
}

/// The atomic statements of a tile-only body that are accumulated in a register (plain variant;
/// the checked one keeps an atomic per call): an `atomic_add`, `atomic_max` or `atomic_min`
/// **statement** (its old value unused) on an integer slice element whose index does not depend
/// on the tile (literals, constants, scalar parameters, lengths and set properties, no variable
/// of the body), on a slice that is not `#[block_shared]` and that the body touches nowhere else
/// (no read, store, `push` or other atomic but ones of the same operation, so that no statement
/// could see the difference). The atomics' own order freedom makes the result the same: an
/// integer sum (wrapping) or extremum does not depend on the order nor the grouping of its terms.
/// Floats keep an atomic per call: a warp's tree of partial sums is no order of the atomics.
pub fn aggregated_atomics<'k>(kernel: &Kernel, tiles: &'k TileLoop) -> Vec<Aggregated<'k>> {
    use crate::analysis::{stmt_exprs, visit_stmts};
    if !is_tile_only(tiles) {
        return Vec::new();
    }
    let bound = bound_names(tiles);
    let mut candidates: Vec<Aggregated<'k>> = Vec::new();
    collect(kernel, &tiles.body, &bound, &mut candidates);
    // Every mention of each candidate's slice, by expression address: all must be candidates'
    // targets of one operation.
    let slice_of = |e: &Expr| match &e.kind {
        ExprKind::Index {
            base: Indexed::Slice(s),
            ..
        } => Some(s.clone()),
        ExprKind::SliceLen(s) => Some(s.clone()),
        _ => None,
    };
    let mut mentions: Vec<(String, usize)> = Vec::new();
    let _ = visit_stmts(&tiles.body, &mut |s| {
        stmt_exprs(s, &mut |e| {
            if let Some(name) = slice_of(e) {
                mentions.push((name, e as *const Expr as usize));
            }
        });
        Ok(())
    });
    let keep = |a: &Aggregated<'_>| {
        let Some(name) = slice_of(a.target) else {
            return false;
        };
        mentions.iter().filter(|(n, _)| *n == name).all(|(_, at)| {
            candidates
                .iter()
                .any(|c| c.target as *const Expr as usize == *at && c.op == a.op)
        })
    };
    let kept: Vec<bool> = candidates.iter().map(keep).collect();
    candidates
        .into_iter()
        .zip(kept)
        .filter_map(|(a, k)| k.then_some(a))
        .collect()
}

fn collect<'k>(
    kernel: &Kernel,
    block: &'k [Stmt],
    bound: &[String],
    out: &mut Vec<Aggregated<'k>>,
) {
    for s in block {
        match &s.kind {
            StmtKind::Expr(call) => out.extend(candidate(kernel, call, bound)),
            StmtKind::If {
                then, otherwise, ..
            } => {
                collect(kernel, then, bound, out);
                collect(kernel, otherwise, bound, out);
            }
            StmtKind::ForRange { body, .. } => collect(kernel, body, bound, out),
            _ => {}
        }
    }
}

fn candidate<'k>(kernel: &Kernel, call: &'k Expr, bound: &[String]) -> Option<Aggregated<'k>> {
    let ExprKind::Call { builtin, args } = &call.kind else {
        return None;
    };
    if !matches!(
        builtin,
        Builtin::AtomicAdd | Builtin::AtomicMax | Builtin::AtomicMin
    ) {
        return None;
    }
    let [target, value] = args.as_slice() else {
        return None;
    };
    let ExprKind::Index {
        base: Indexed::Slice(s),
        index,
    } = &target.kind
    else {
        return None;
    };
    let param = kernel.param(s)?;
    if param.block_shared.is_some() || !target.ty.is_integer() {
        return None;
    }
    invariant(kernel, index, bound).then_some(Aggregated {
        call,
        target,
        value,
        op: *builtin,
        ty: target.ty.clone(),
    })
}

/// The names the tile loop binds: its tile, and the body's own `let`s and loop variables (which
/// shadow parameters): what a tile-invariant index may not mention.
fn bound_names(tiles: &TileLoop) -> Vec<String> {
    let mut bound = vec![tiles.tile.clone()];
    let _ = crate::analysis::visit_stmts(&tiles.body, &mut |s| {
        match &s.kind {
            StmtKind::Let { name, .. } => bound.push(name.clone()),
            StmtKind::ForRange { var, .. } => bound.push(var.clone()),
            _ => {}
        }
        Ok(())
    });
    bound
}

/// Whether `e` has the same value at every tile: built of literals, constants, scalar parameters
/// (not shadowed by the body), slice lengths and set properties.
fn invariant(kernel: &Kernel, e: &Expr, bound: &[String]) -> bool {
    let mut ok = true;
    crate::analysis::visit_expr(e, &mut |x| match &x.kind {
        ExprKind::Lit(_)
        | ExprKind::Const(_)
        | ExprKind::SliceLen(_)
        | ExprKind::SetProperty { .. }
        | ExprKind::Binary { .. }
        | ExprKind::Unary { .. }
        | ExprKind::Cast { .. } => {}
        ExprKind::Var(v) => {
            ok &= !bound.contains(v)
                && matches!(kernel.param(v).map(|p| &p.kind), Some(ParamKind::Scalar(_)))
        }
        _ => ok = false,
    });
    ok
}

/// The accumulator's CUDA type, initial value, and the prelude's flush for `a` (module
/// [`aggregated_atomics`]): a sum in the unsigned type of the element's width (wrapping, as the
/// atomics do), an extremum in the element type from its identity.
pub fn accumulator(a: &Aggregated<'_>) -> (&'static str, String, &'static str) {
    let signed = a.ty.is_signed_integer();
    let wide = !matches!(a.ty, Ty::I32 | Ty::U32);
    let (unsigned, own) = match (wide, signed) {
        (false, false) => ("unsigned int", "unsigned int"),
        (false, true) => ("unsigned int", "int"),
        (true, false) => ("unsigned long long", "unsigned long long"),
        (true, true) => ("unsigned long long", "long long"),
    };
    match a.op {
        Builtin::AtomicAdd => (unsigned, "0".into(), "loops_flush_add"),
        Builtin::AtomicMax => {
            let lowest = match (wide, signed) {
                (_, false) => "0".to_string(),
                (false, true) => "(-2147483647 - 1)".into(),
                (true, true) => "(-9223372036854775807ll - 1)".into(),
            };
            (own, lowest, "loops_flush_max")
        }
        _ => {
            let highest = match (wide, signed) {
                (false, false) => "0xffffffffu",
                (false, true) => "2147483647",
                (true, false) => "0xffffffffffffffffull",
                (true, true) => "9223372036854775807ll",
            };
            (own, highest.into(), "loops_flush_min")
        }
    }
}

/// The `push` statements of a tile-only body that go through a per-block staging area in shared
/// memory ([`staged_pushes`]): their list and counter, and the calls.
#[derive(Clone, Debug)]
pub struct Staged<'k> {
    /// The list parameter.
    pub list: String,
    /// The list's element type (the staging area's).
    pub elem: Ty,
    /// The counter slot (`count[0]`): tile-invariant.
    pub counter: &'k Expr,
    /// The counter's element type.
    pub counter_ty: Ty,
    /// The `push` calls (statements, their position unused).
    pub calls: Vec<&'k Expr>,
}

/// The `push` statements of a tile-only body staged per block (plain variant; the checked one
/// keeps the warp-aggregated push): every `push(&mut list, &mut count[i], v)` **statement** (its
/// position unused) of the body, all onto one list and one counter slot whose index does not
/// depend on the tile (as [`aggregated_atomics`] asks), neither of them touched otherwise by the
/// body, and no `push` whose position is used (nor a `break`, `continue` or `return` of the tile
/// loop, which the front end refuses anyway: the lowering's tile loop runs over rounds of a
/// block, and every thread must reach each round's flush).
/// Same meaning as the warp's push: every push counted, each at its own position, a position past
/// the list's length claimed but not written.
pub fn staged_pushes<'k>(kernel: &Kernel, tiles: &'k TileLoop) -> Option<Staged<'k>> {
    use crate::analysis::{stmt_exprs, visit_stmts};
    if !is_tile_only(tiles) || leaves_the_tile_loop(&tiles.body) {
        return None;
    }
    let bound = bound_names(tiles);
    let mut statements = Vec::new();
    push_statements(&tiles.body, &mut statements);
    // Every push a statement (none whose position is used).
    let mut pushes = 0;
    let _ = visit_stmts(&tiles.body, &mut |s| {
        stmt_exprs(s, &mut |e| pushes += is_push(e) as usize);
        Ok(())
    });
    if pushes != statements.len() {
        return None;
    }
    let first = statements.first()?;
    let ExprKind::Call { args, .. } = &first.kind else {
        return None;
    };
    let (ExprKind::SliceLen(list), counter) = (&args[0].kind, &args[1]) else {
        return None;
    };
    let ExprKind::Index {
        base: Indexed::Slice(count),
        index,
    } = &counter.kind
    else {
        return None;
    };
    if !invariant(kernel, index, &bound) || kernel.param(count)?.block_shared.is_some() {
        return None;
    }
    let Some(ParamKind::Slice { elem, .. }) = kernel.param(list).map(|p| &p.kind) else {
        return None;
    };
    let same = |e: &Expr| {
        let ExprKind::Call { args, .. } = &e.kind else {
            return false;
        };
        matches!(&args[0].kind, ExprKind::SliceLen(l) if l == list) && same_expr(&args[1], counter)
    };
    if !statements.iter().all(|e| same(e)) {
        return None;
    }
    // The list and the counter: mentioned only as these pushes' operands.
    let operands: Vec<usize> = statements
        .iter()
        .flat_map(|e| match &e.kind {
            ExprKind::Call { args, .. } => vec![
                &args[0] as *const Expr as usize,
                &args[1] as *const Expr as usize,
            ],
            _ => vec![],
        })
        .collect();
    let mut clean = true;
    let _ = visit_stmts(&tiles.body, &mut |s| {
        stmt_exprs(s, &mut |e| {
            let name = match &e.kind {
                ExprKind::Index {
                    base: Indexed::Slice(s),
                    ..
                }
                | ExprKind::SliceLen(s) => s,
                _ => return,
            };
            if (name == list || name == count) && !operands.contains(&(e as *const Expr as usize)) {
                clean = false;
            }
        });
        Ok(())
    });
    clean.then(|| Staged {
        list: list.clone(),
        elem: elem.clone(),
        counter,
        counter_ty: counter.ty.clone(),
        calls: statements,
    })
}

/// The `push` calls of `block` that are statements.
fn push_statements<'k>(block: &'k [Stmt], out: &mut Vec<&'k Expr>) {
    for s in block {
        match &s.kind {
            StmtKind::Expr(e) if is_push(e) => out.push(e),
            StmtKind::If {
                then, otherwise, ..
            } => {
                push_statements(then, out);
                push_statements(otherwise, out);
            }
            StmtKind::ForRange { body, .. } => push_statements(body, out),
            _ => {}
        }
    }
}

fn is_push(e: &Expr) -> bool {
    matches!(
        &e.kind,
        ExprKind::Call {
            builtin: Builtin::Push,
            ..
        }
    )
}

/// Whether two tile-invariant expressions (or slots indexed by them) are the same, spans aside.
fn same_expr(a: &Expr, b: &Expr) -> bool {
    use ExprKind as K;
    a.ty == b.ty
        && match (&a.kind, &b.kind) {
            (K::Lit(x), K::Lit(y)) | (K::Var(x), K::Var(y)) | (K::SliceLen(x), K::SliceLen(y)) => {
                x == y
            }
            (K::Const(x), K::Const(y)) => format!("{x:?}") == format!("{y:?}"),
            (
                K::SetProperty { set, property },
                K::SetProperty {
                    set: s2,
                    property: p2,
                },
            ) => set == s2 && format!("{property:?}") == format!("{p2:?}"),
            (
                K::Index { base, index },
                K::Index {
                    base: b2,
                    index: i2,
                },
            ) => base == b2 && same_expr(index, i2),
            (
                K::Binary { op, lhs, rhs },
                K::Binary {
                    op: o2,
                    lhs: l2,
                    rhs: r2,
                },
            ) => format!("{op:?}") == format!("{o2:?}") && same_expr(lhs, l2) && same_expr(rhs, r2),
            (K::Unary { op, expr }, K::Unary { op: o2, expr: e2 }) => {
                format!("{op:?}") == format!("{o2:?}") && same_expr(expr, e2)
            }
            (K::Cast { expr, to }, K::Cast { expr: e2, to: t2 }) => to == t2 && same_expr(expr, e2),
            _ => false,
        }
}

/// Whether a statement of `block` (not inside a nested `for` range) leaves the tile loop's body
/// early: `break`, `continue`, `return`.
fn leaves_the_tile_loop(block: &[Stmt]) -> bool {
    block.iter().any(|s| match &s.kind {
        StmtKind::Break | StmtKind::Continue | StmtKind::Return(_) => true,
        StmtKind::If {
            then, otherwise, ..
        } => leaves_the_tile_loop(then) || leaves_the_tile_loop(otherwise),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    /// The CUDA of `body` (a kernel over `a: Csr<T>` with slices `out` and `x`) under `schedule`.
    fn cuda(schedule: &str, body: &str) -> String {
        let attr: proc_macro2::TokenStream = format!("schedule = \"{schedule}\"").parse().unwrap();
        let item: syn::ItemFn = syn::parse_str(&format!(
            "pub fn k<T: Float>(a: Csr<T>, x: &[T], out: &mut [T]) {{ {body} }}"
        ))
        .unwrap();
        crate::cuda_for(attr, &item, "k.rs").unwrap()
    }

    const FLAT_LOOP: &str = "for (long long loops_a = ";

    #[test]
    fn an_atom_major_body_that_never_asks_its_tile_is_one_flat_loop_under_every_schedule() {
        let body = "for nz in a.all_atoms() { \
                    atomic_add(&mut out[a.col_indices[nz] as usize], a.values[nz] * x[0]); }";
        for schedule in [
            "thread",
            "warp",
            "merge_path",
            "work_oriented",
            "lrb",
            "auto",
            "split",
        ] {
            let src = cuda(schedule, body);
            assert!(src.contains(FLAT_LOOP), "{schedule}:\n{src}");
            assert!(src.contains("(schedule thread, "), "{schedule}");
            assert!(src.contains("loops_a < (long long)(((unsigned long long)a_nnz))"));
            // No search of the offsets, no tile loop.
            assert!(!src.contains("loops_t "), "{schedule}:\n{src}");
        }
    }

    #[test]
    fn asking_the_tile_breaking_or_the_tile_form_keeps_the_schedule() {
        for body in [
            "for nz in a.all_atoms() { atomic_add(&mut out[a.tile_of(nz)], a.values[nz]); }",
            "for nz in a.all_atoms() { if a.values[nz] > x[0] { break; } \
             atomic_add(&mut out[a.col_indices[nz] as usize], a.values[nz]); }",
            "for row in a.tiles() { for nz in a.atoms(row) { \
             atomic_add(&mut out[a.col_indices[nz] as usize], a.values[nz]); } }",
        ] {
            let src = cuda("work_oriented", body);
            assert!(!src.contains(FLAT_LOOP), "{body}:\n{src}");
            assert!(src.contains("(schedule work_oriented"), "{body}");
        }
    }
}

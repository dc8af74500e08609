//! What the schedules that split a tile's atoms across threads need to know about a tile body: which
//! variables the atom loop reduces into (its *accumulators*) and with which operator, and whether the
//! body has the shape the schedule can lower.

mod carry;
mod select;

use std::borrow::Cow;
use std::collections::HashSet;

pub use carry::{carry_body, CarryBody, Rounds};
pub use select::{same_expr, Key, Selection, Tally};

use crate::diag::{bail, DResult};
use crate::ir::*;

/// An associative, commutative operator an accumulator is combined with across threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CombineOp {
    Add,
    Mul,
    Min,
    Max,
    BitAnd,
    BitOr,
    BitXor,
}

impl CombineOp {
    /// `a op b` in CUDA.
    pub fn combine(self, a: &str, b: &str) -> String {
        match self {
            CombineOp::Add => format!("({a} + {b})"),
            CombineOp::Mul => format!("({a} * {b})"),
            CombineOp::Min => format!("loops_min({a}, {b})"),
            CombineOp::Max => format!("loops_max({a}, {b})"),
            CombineOp::BitAnd => format!("({a} & {b})"),
            CombineOp::BitOr => format!("({a} | {b})"),
            CombineOp::BitXor => format!("({a} ^ {b})"),
        }
    }

    /// The identity of the operator for `ty`, in CUDA: what a thread with no atoms contributes.
    pub fn identity(self, ty: &Ty) -> String {
        let c = ty.cuda_name();
        match self {
            CombineOp::Add | CombineOp::BitOr | CombineOp::BitXor => format!("(({c})0)"),
            CombineOp::Mul => format!("(({c})1)"),
            CombineOp::BitAnd => format!("(({c})~0ull)"),
            CombineOp::Min => format!("loops_highest<{c}>()"),
            CombineOp::Max => format!("loops_lowest<{c}>()"),
        }
    }
}

/// A tile-scope variable that an atom loop reduces into.
#[derive(Clone, Debug, PartialEq)]
pub struct Accumulator {
    pub name: String,
    pub ty: Ty,
    pub op: CombineOp,
}

/// What a schedule that shares a tile's atoms between threads must combine after an atom loop:
/// its scalar accumulators and its selections, with the loop's body rewritten so that each
/// selection records the position of the atom it keeps (`fresh` names those positions).
///
/// The accumulators are every variable declared outside the loop and assigned inside it, but for
/// the selections' variables. Each must be updated only as `acc op= e`, `acc = acc op e` or
/// `acc = min/max(acc, e)`, with one operator, and read nowhere else in the loop: then partial
/// results of disjoint atom ranges combine into the same value the sequential loop computes (up
/// to float rounding). A selection's choices combine by key, then position
/// ([`Selection::better`]).
pub struct Reductions {
    pub accumulators: Vec<Accumulator>,
    pub selections: Vec<Selection>,
    pub body: Block,
}

/// The reductions of an atom loop ([`Reductions`]), or why `schedule` cannot combine them.
pub fn reductions(
    atom_body: &[Stmt],
    atom_var: &str,
    schedule: &str,
    fresh: &mut dyn FnMut(&str) -> String,
) -> DResult<Reductions> {
    let inner = declared_inside(atom_body, atom_var);
    let outer = |name: &str| !inner.contains(name);
    let (selections, body) = select::selections(atom_body, atom_var, &outer, schedule, fresh)?;
    let selected: Vec<&str> = selections
        .iter()
        .flat_map(|s| s.vars.iter().map(|(v, _)| v.as_str()))
        .collect();
    let accumulators = scalar_accumulators(atom_body, &inner, &selected, schedule)?;
    Ok(Reductions {
        accumulators,
        selections,
        body,
    })
}

/// The atom variable and every name declared inside the atom loop.
fn declared_inside(atom_body: &[Stmt], atom_var: &str) -> HashSet<String> {
    let mut inner: HashSet<String> = HashSet::from([atom_var.to_string()]);
    collect_declared(atom_body, &mut inner);
    inner
}

/// The scalar accumulators of an atom loop, leaving out the variables of its selections.
fn scalar_accumulators(
    atom_body: &[Stmt],
    inner: &HashSet<String>,
    selected: &[&str],
    schedule: &str,
) -> DResult<Vec<Accumulator>> {
    let mut found: Vec<(Accumulator, proc_macro2::Span)> = Vec::new();
    let mut update_reads: Vec<String> = Vec::new();
    visit_stmts(atom_body, &mut |stmt| {
        let StmtKind::Assign { place, op, value } = &stmt.kind else {
            return Ok(());
        };
        let ExprKind::Var(name) = &place.kind else {
            return Ok(());
        };
        if inner.contains(name) || selected.contains(&name.as_str()) {
            return Ok(());
        }
        let (cop, operand) = classify_update(name, *op, value).ok_or_else(|| {
            if let Some((span, rule)) = select::why_not_a_selection(atom_body, name, inner, schedule) {
                return crate::diag::Diagnostic::new(span, rule);
            }
            crate::diag::Diagnostic::new(
                stmt.span,
                format!(
                    "`{name}` is assigned inside the atom loop in a way the `{schedule}` schedule cannot split: \
                     it runs a tile's atoms on several threads and combines their partial results, so a \
                     variable from outside the loop may only be updated as `{name} += e`, `-=`, `*=`, `|=`, \
                     `&=`, `^=`, or `{name} = min({name}, e)` / `max`"
                ),
            )
        })?;
        if mentions(operand, name) {
            bail!(stmt.span, "the update of `{name}` reads `{name}` again; the `{schedule}` schedule needs `{name} op= e` with `e` free of `{name}`");
        }
        if place.ty == Ty::Bool {
            bail!(stmt.span, "`{name}` is a bool reduced across threads under `{schedule}`: use an integer and `|=`");
        }
        if op.is_none() {
            update_reads.push(name.clone());
        }
        match found.iter().find(|(a, _)| a.name == *name) {
            Some((a, _)) if a.op != cop => bail!(
                stmt.span,
                "`{name}` is combined with two different operators inside the atom loop; the `{schedule}` schedule needs one"
            ),
            Some(_) => {}
            None => found.push((Accumulator { name: name.clone(), ty: place.ty.clone(), op: cop }, stmt.span)),
        }
        Ok(())
    })?;
    // An accumulator's partial value means nothing to a single thread: it may not be read in the loop
    // except by its own updates.
    for (acc, span) in &found {
        let reads = count_reads(atom_body, &acc.name);
        let allowed = update_reads.iter().filter(|n| **n == acc.name).count();
        if reads > allowed {
            bail!(
                *span,
                "`{}` is read inside the atom loop; under `{schedule}` each thread sees only its share of the tile, \
                 so an accumulator can only be read after the loop",
                acc.name
            );
        }
    }
    Ok(found.into_iter().map(|(a, _)| a).collect())
}

/// `(operator, the other operand)` of an accumulator update, if it is one.
pub(crate) fn classify_update<'e>(
    name: &str,
    op: Option<BinOp>,
    value: &'e Expr,
) -> Option<(CombineOp, &'e Expr)> {
    let is_acc = |e: &Expr| matches!(&e.kind, ExprKind::Var(v) if v == name);
    match op {
        Some(BinOp::Add) | Some(BinOp::Sub) => Some((CombineOp::Add, value)),
        Some(BinOp::Mul) => Some((CombineOp::Mul, value)),
        Some(BinOp::BitAnd) => Some((CombineOp::BitAnd, value)),
        Some(BinOp::BitOr) => Some((CombineOp::BitOr, value)),
        Some(BinOp::BitXor) => Some((CombineOp::BitXor, value)),
        Some(_) => None,
        None => match &value.kind {
            ExprKind::Call {
                builtin: b @ (Builtin::Min | Builtin::Max),
                args,
            } => {
                let cop = if *b == Builtin::Min {
                    CombineOp::Min
                } else {
                    CombineOp::Max
                };
                match (is_acc(&args[0]), is_acc(&args[1])) {
                    (true, false) => Some((cop, &args[1])),
                    (false, true) => Some((cop, &args[0])),
                    _ => None,
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let cop = match op {
                    BinOp::Add => CombineOp::Add,
                    BinOp::Mul => CombineOp::Mul,
                    BinOp::BitAnd => CombineOp::BitAnd,
                    BinOp::BitOr => CombineOp::BitOr,
                    BinOp::BitXor => CombineOp::BitXor,
                    _ => return None,
                };
                match (is_acc(lhs), is_acc(rhs)) {
                    (true, false) => Some((cop, &**rhs)),
                    (false, true) => Some((cop, &**lhs)),
                    _ => None,
                }
            }
            _ => None,
        },
    }
}

fn collect_declared(block: &[Stmt], out: &mut HashSet<String>) {
    for s in block {
        match &s.kind {
            StmtKind::Let { name, .. } => {
                out.insert(name.clone());
            }
            StmtKind::ForRange { var, body, .. } => {
                out.insert(var.clone());
                collect_declared(body, out);
            }
            StmtKind::If {
                then, otherwise, ..
            } => {
                collect_declared(then, out);
                collect_declared(otherwise, out);
            }
            StmtKind::ForAtoms { var, body, .. } => {
                out.insert(var.clone());
                collect_declared(body, out);
            }
            StmtKind::Assign { .. }
            | StmtKind::Expr(_)
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Return(_) => {}
        }
    }
}

/// Calls `f` on every statement of a block, nested ones included.
pub fn visit_stmts(block: &[Stmt], f: &mut dyn FnMut(&Stmt) -> DResult<()>) -> DResult<()> {
    for s in block {
        f(s)?;
        match &s.kind {
            StmtKind::If {
                then, otherwise, ..
            } => {
                visit_stmts(then, f)?;
                visit_stmts(otherwise, f)?;
            }
            StmtKind::ForRange { body, .. } | StmtKind::ForAtoms { body, .. } => {
                visit_stmts(body, f)?
            }
            _ => {}
        }
    }
    Ok(())
}

/// Calls `f` on every expression of a statement (not of nested statements), sub-expressions included.
pub fn stmt_exprs<'s>(stmt: &'s Stmt, f: &mut dyn FnMut(&'s Expr)) {
    let mut walk = |e: &'s Expr| visit_expr(e, f);
    match &stmt.kind {
        StmtKind::Let { init, .. } => walk(init),
        StmtKind::Assign { place, value, .. } => {
            walk(place);
            walk(value);
        }
        StmtKind::Expr(e) | StmtKind::Return(e) => walk(e),
        StmtKind::If { cond, .. } => walk(cond),
        StmtKind::ForRange { start, end, .. } => {
            walk(start);
            walk(end);
        }
        StmtKind::ForAtoms { tile, .. } => walk(tile),
        StmtKind::Break | StmtKind::Continue => {}
    }
}

pub fn visit_expr<'e>(e: &'e Expr, f: &mut dyn FnMut(&'e Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Index { index, .. } => visit_expr(index, f),
        ExprKind::Binary { lhs, rhs, .. } => {
            visit_expr(lhs, f);
            visit_expr(rhs, f);
        }
        ExprKind::Unary { expr, .. } | ExprKind::Cast { expr, .. } => visit_expr(expr, f),
        ExprKind::Call { args, .. } | ExprKind::HelperCall { args, .. } => {
            args.iter().for_each(|a| visit_expr(a, f))
        }
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => {
            visit_expr(cond, f);
            visit_expr(then, f);
            visit_expr(otherwise, f);
        }
        ExprKind::Lit(_)
        | ExprKind::Var(_)
        | ExprKind::SetProperty { .. }
        | ExprKind::SliceLen(_)
        | ExprKind::Const(_) => {}
    }
}

fn mentions(e: &Expr, name: &str) -> bool {
    let mut hit = false;
    visit_expr(e, &mut |x| {
        hit |= matches!(&x.kind, ExprKind::Var(v) if v == name)
    });
    hit
}

/// Reads of `name` in a block: every `Var(name)` except assignment targets.
fn count_reads(block: &[Stmt], name: &str) -> usize {
    let mut n = 0;
    let _ = visit_stmts(block, &mut |s| {
        let mut count = |e: &Expr| {
            if matches!(&e.kind, ExprKind::Var(v) if v == name) {
                n += 1;
            }
        };
        match &s.kind {
            StmtKind::Assign { place, value, .. } => {
                if !matches!(place.kind, ExprKind::Var(_)) {
                    visit_expr(place, &mut count);
                }
                visit_expr(value, &mut count);
            }
            _ => stmt_exprs(s, &mut count),
        }
        Ok(())
    });
    n
}

/// Whether an atom loop's body can `break` out of it (a `break` that is not inside a range loop
/// of its own).
pub fn breaks_out(atom_body: &[Stmt]) -> bool {
    atom_body.iter().any(|s| match &s.kind {
        StmtKind::Break => true,
        StmtKind::If {
            then, otherwise, ..
        } => breaks_out(then) || breaks_out(otherwise),
        _ => false,
    })
}

/// True if the expression calls an atomic anywhere.
pub fn has_atomic(e: &Expr) -> bool {
    let mut hit = false;
    visit_expr(
        e,
        &mut |x| hit |= matches!(&x.kind, ExprKind::Call { builtin, .. } if builtin.is_atomic()),
    );
    hit
}

/// Whether the kernel's body calls an atomic: each such atom waits on a read-modify-write in
/// memory, so one lane's walk through a long tile costs several times a plain one's (`auto`'s
/// model weighs its critical path by it).
pub fn calls_atomics<C>(kernel: &Kernel<C>) -> bool {
    let mut atomics = false;
    let _ = visit_stmts(&kernel.body.body, &mut |s| {
        stmt_exprs(s, &mut |e| atomics |= has_atomic(e));
        Ok(())
    });
    atomics
}

/// The atom loop of a tile body that stands inside a range loop at its top level (which the carry
/// schedules run as rounds), if there is one.
pub fn atoms_in_a_loop(body: &[Stmt]) -> Option<&Stmt> {
    fn first_atoms(block: &[Stmt]) -> Option<&Stmt> {
        block.iter().find_map(|s| match &s.kind {
            StmtKind::ForAtoms { .. } => Some(s),
            StmtKind::ForRange { body, .. } => first_atoms(body),
            StmtKind::If {
                then, otherwise, ..
            } => first_atoms(then).or_else(|| first_atoms(otherwise)),
            _ => None,
        })
    }
    let first = body.iter().find(|s| contains_atoms(s))?;
    match &first.kind {
        StmtKind::ForRange { body, .. } => first_atoms(body),
        _ => None,
    }
}

fn contains_atoms(s: &Stmt) -> bool {
    let mut hit = false;
    let _ = visit_stmts(std::slice::from_ref(s), &mut |x| {
        hit |= matches!(x.kind, StmtKind::ForAtoms { .. });
        Ok(())
    });
    hit
}

/// One accumulator update of an atom loop whose operand depends on the atom alone: a schedule may
/// compute the operands of a range of atoms ahead, in any order (coalesced), and fold them in later.
pub struct StagedUpdate<'k> {
    /// The accumulator.
    pub acc: &'k str,
    pub ty: &'k Ty,
    /// The update as written: `acc op= operand` (`Some(op)`), or `acc = combine(acc, operand)`.
    pub op: Option<BinOp>,
    pub combine: CombineOp,
    /// The operand: reads only the atom variable, `invariants`, scalar parameters and read-only arrays.
    pub operand: &'k Expr,
}

/// The atom loop's updates, if its body is nothing but accumulator updates whose operands depend on
/// the atom alone (and on `invariants`: names that are the same for every tile, like a round's
/// variable), read no array that the kernel writes, and call no atomic. `None` otherwise.
pub fn staged_updates<'k, C>(
    kernel: &Kernel<C>,
    atom_body: &'k [Stmt],
    atom_var: &str,
    invariants: &[&str],
) -> Option<Vec<StagedUpdate<'k>>> {
    let mut out = Vec::new();
    for stmt in atom_body {
        let StmtKind::Assign { place, op, value } = &stmt.kind else {
            return None;
        };
        let ExprKind::Var(acc) = &place.kind else {
            return None;
        };
        let (combine, operand) = classify_update(acc, *op, value)?;
        let mut pure = true;
        visit_expr(operand, &mut |e| {
            pure &= match &e.kind {
                ExprKind::Var(v) => {
                    v == atom_var
                        || invariants.contains(&v.as_str())
                        || matches!(kernel.param(v).map(|p| &p.kind), Some(ParamKind::Scalar(_)))
                }
                ExprKind::Index {
                    base: Indexed::Slice(s),
                    ..
                } => matches!(
                    kernel.param(s).map(|p| &p.kind),
                    Some(ParamKind::Slice { mutable: false, .. })
                ),
                ExprKind::Call { builtin, .. } => !builtin.is_atomic(),
                _ => true,
            }
        });
        if !pure {
            return None;
        }
        out.push(StagedUpdate {
            acc,
            ty: &place.ty,
            op: *op,
            combine,
            operand,
        });
    }
    (!out.is_empty()).then_some(out)
}

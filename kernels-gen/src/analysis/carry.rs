//! The carry schedules' view of a tile body ([`carry_body`]): side-effect-free `let`s, the atom
//! loop and the epilogue, in rounds of a loop around it or in passes of several atom loops.

use std::collections::HashSet;

use super::*;
use crate::diag::{bail, DResult};
use crate::ir::*;

/// A tile body split the way the carry schedules need it: side-effect-free `let`s, an atom loop, and
/// the epilogue, optionally inside a loop whose bounds are the same for every tile (with `let`s
/// before that loop, which then run at the start of each of its iterations); or several atom loops,
/// with side-effect-free statements between them (`let`s and assignments to the tile body's
/// variables), each loop run by a launch of its own (a *pass*).
pub struct CarryBody<'k> {
    pub rounds: Option<Rounds<'k>>,
    /// The `let`s before the atom loop; with rounds, those before the loop around it first.
    pub prologue: Cow<'k, [Stmt]>,
    /// The last atom loop.
    pub atoms: &'k Stmt,
    pub epilogue: &'k [Stmt],
    /// The atom loops before the last, each with the statements that follow it up to the next
    /// loop: empty for a body of one atom loop.
    pub earlier: Vec<(&'k Stmt, &'k [Stmt])>,
}

/// `for var in start..end` around the rest of a tile body, with tile-invariant bounds: the carry
/// schedules run the whole fix-up once per iteration (a *round*), with its own scratch.
pub struct Rounds<'k> {
    pub var: &'k str,
    pub ty: &'k Ty,
    pub start: &'k Expr,
    pub end: &'k Expr,
    pub line: usize,
}

/// The schedules that take any shape of tile body, for messages.
pub(super) const EVERY_SHAPE: &str = "`thread`, `group`, `warp`, `block`, `lrb` or `auto`";

/// Splits a tile body for a carry schedule (`schedule` names it in errors), or says why it cannot.
pub fn carry_body<'k, C>(
    kernel: &Kernel<C>,
    body: &'k [Stmt],
    schedule: &str,
) -> DResult<CarryBody<'k>> {
    // The first statement that holds an atom loop: a loop around it makes rounds.
    let first = body.iter().position(contains_atoms);
    if let Some(at) = first {
        if matches!(body[at].kind, StmtKind::ForRange { .. }) {
            return rounds_body(kernel, body, at, schedule);
        }
    }
    let at = body
        .iter()
        .position(|s| matches!(s.kind, StmtKind::ForAtoms { .. }));
    let Some(at) = at.filter(|&at| Some(at) == first) else {
        // The front end guarantees an atom loop: here it is nested in an `if` (or a block).
        let nested = &body[first.expect("a tile body has an atom loop")];
        bail!(
            nested.span,
            "under `{schedule}` the atom loop must run once for every tile, not inside an `if`: the schedule \
             splits each tile's atoms across threads before any of them could test a condition, and combines one \
             set of partial results per tile. Test the condition inside the atom loop instead \
             (`for nz in a.atoms(row) {{ if cond {{ .. }} }}`) and around the statements after it, or use \
             {EVERY_SHAPE}, which accept an atom loop inside an `if`"
        );
    };
    // Every later atom loop is a pass of its own; what stands between two loops runs again in
    // every later pass, so it must be free of side effects, and the loops at the top level.
    let mut earlier = Vec::new();
    let mut last = at;
    for (i, s) in body.iter().enumerate().skip(at + 1) {
        if matches!(s.kind, StmtKind::ForAtoms { .. }) {
            let between = &body[last + 1..i];
            let written_later = slices_written(&body[i..]);
            for b in between {
                between_is_pure(kernel, b, schedule)?;
                reads_none_of(b, &written_later, schedule)?;
            }
            earlier.push((&body[last], between));
            last = i;
        } else if contains_atoms(s) {
            bail!(
                s.span,
                "under `{schedule}` every atom loop must stand at the top of the tile body, run once per tile: \
                 this one is inside an `if` or a loop. Use {EVERY_SHAPE}"
            );
        }
    }
    for s in &body[..at] {
        prologue_let(s, schedule)?;
    }
    Ok(CarryBody {
        rounds: None,
        prologue: Cow::Borrowed(&body[..at]),
        atoms: &body[last],
        epilogue: &body[last + 1..],
        earlier,
    })
}

/// A statement before the atom loop: a `let` without atomics (it runs on every thread that shares
/// the tile).
pub(super) fn prologue_let(s: &Stmt, schedule: &str) -> DResult<()> {
    let StmtKind::Let { init, .. } = &s.kind else {
        bail!(
            s.span,
            "under `{schedule}` the statements before the atom loop must be `let`s: they run once on every \
             thread that shares the tile, so they cannot store or branch; move this after the atom loop"
        );
    };
    if has_atomic(init) {
        bail!(s.span, "under `{schedule}` the statements before the atom loop run on every thread that shares the tile: no atomics there");
    }
    Ok(())
}

/// A tile body whose statement `at` is a range loop holding the atom loop: `let`s, then that loop
/// (its bounds the same for every tile), which ends the body. Each iteration (a *round*) runs the
/// whole schedule again; the `let`s before the loop run at the start of each, as if written at
/// the top of the loop's body, which they may be since the loop assigns none of their variables
/// and writes none of the slices they read.
pub(super) fn rounds_body<'k, C>(
    kernel: &Kernel<C>,
    body: &'k [Stmt],
    at: usize,
    schedule: &str,
) -> DResult<CarryBody<'k>> {
    let stmt = &body[at];
    let StmtKind::ForRange {
        var,
        ty,
        start,
        end,
        inclusive,
        body: inner,
        ..
    } = &stmt.kind
    else {
        unreachable!("called on a range loop")
    };
    let rounds_rule = format!(
        "under `{schedule}` a loop around the atom loop runs as rounds of the whole grid, the whole schedule once \
         per iteration"
    );
    if let Some(after) = body[at + 1..].iter().find(|s| contains_atoms(s)) {
        bail!(
            after.span,
            "{rounds_rule}, so it holds the tile body's only atom loop: each of several atom loops runs in a launch \
             of its own, and a round is the whole grid's. Use {EVERY_SHAPE}"
        );
    }
    if let Some(after) = body.get(at + 1) {
        bail!(
            after.span,
            "{rounds_rule}, so it must end the tile body: move this statement into the loop, after the atom loop \
             (it then runs once per iteration), or use {EVERY_SHAPE}, which accept statements after such a loop"
        );
    }
    for bound in [start, end] {
        if let Some(span) = tile_variant(kernel, bound) {
            bail!(
                span,
                "{rounds_rule}, so its bounds must be the same for every tile: kernel parameters, literals, \
                 `a.rows()`, `x.len()`"
            );
        }
    }
    if *inclusive {
        bail!(
            stmt.span,
            "under `{schedule}` a loop around the atom loop must be `start..end` (not `..=`)"
        );
    }
    let hoisted = &body[..at];
    let assigned = assigned_vars(inner);
    let written = slices_written(inner);
    for s in hoisted {
        let StmtKind::Let { name, init, .. } = &s.kind else {
            bail!(
                s.span,
                "{rounds_rule}, and only `let`s may stand before it, which run again at the start of every \
                 iteration: move this statement into the loop, or use {EVERY_SHAPE}"
            );
        };
        prologue_let(s, schedule)?;
        if assigned.contains(name) {
            bail!(
                s.span,
                "{rounds_rule}, and the `let`s before it run again at the start of every iteration, so `{name}`, \
                 which the loop assigns, cannot carry a value from one iteration to the next: use {EVERY_SHAPE}"
            );
        }
        let mut read = None;
        visit_expr(init, &mut |e| {
            if let ExprKind::Index {
                base: Indexed::Slice(s),
                ..
            } = &e.kind
            {
                if read.is_none() && written.contains(s) {
                    read = Some(s.clone());
                }
            }
        });
        if let Some(slice) = read {
            bail!(
                s.span,
                "{rounds_rule}, and the `let`s before it run again at the start of every iteration: this one reads \
                 `{slice}`, which the loop writes, so a later iteration would read a new value. Use {EVERY_SHAPE}"
            );
        }
    }
    let rounds = Rounds {
        var,
        ty,
        start,
        end,
        line: stmt.line,
    };
    let mut split = carry_body(kernel, inner, schedule)?;
    if split.rounds.is_some() {
        bail!(
            stmt.span,
            "under `{schedule}` only one loop may stand around the atom loop"
        );
    }
    if let Some((_, _)) = split.earlier.first() {
        bail!(
            split.atoms.span,
            "{rounds_rule}, so it holds the tile body's only atom loop: each of several atom loops runs in a launch \
             of its own, and a round is the whole grid's. Use {EVERY_SHAPE}"
        );
    }
    if !hoisted.is_empty() {
        let mut prologue = hoisted.to_vec();
        prologue.extend(split.prologue.iter().cloned());
        split.prologue = Cow::Owned(prologue);
    }
    split.rounds = Some(rounds);
    Ok(split)
}

/// The variables a block assigns, nested statements included.
pub(super) fn assigned_vars(block: &[Stmt]) -> HashSet<String> {
    let mut out = HashSet::new();
    let _ = visit_stmts(block, &mut |s| {
        if let StmtKind::Assign {
            place: Expr {
                kind: ExprKind::Var(v),
                ..
            },
            ..
        } = &s.kind
        {
            out.insert(v.clone());
        }
        Ok(())
    });
    out
}

/// Checks a statement between two atom loops under a carry schedule: it runs again in every
/// later pass (and on every thread that finishes a share of the tile), so it may declare and
/// assign the tile body's variables and nothing else.
pub(super) fn between_is_pure<C>(kernel: &Kernel<C>, stmt: &Stmt, schedule: &str) -> DResult<()> {
    let refuse = |why: &str| -> DResult<()> {
        bail!(
            stmt.span,
            "under `{schedule}` each atom loop runs in a launch of its own, and what stands between two atom loops \
             runs again in every later one: only `let`s and assignments to the tile body's variables may stand \
             there, {why}. Move it after the last atom loop, or use `thread`, `group`, `warp`, `block`, `lrb` or `auto`"
        )
    };
    let pure = |e: &Expr| !has_atomic(e);
    match &stmt.kind {
        StmtKind::Let { init, .. } if pure(init) => Ok(()),
        StmtKind::Assign {
            place:
                Expr {
                    kind: ExprKind::Var(name),
                    ..
                },
            value,
            ..
        } if pure(value) && kernel.param(name).is_none() => Ok(()),
        StmtKind::Let { .. } | StmtKind::Assign { .. } | StmtKind::Expr(_) => {
            refuse("not a store or an atomic")
        }
        _ => refuse("not a branch or a loop"),
    }
}

/// The slices a block stores to or updates atomically, nested statements included.
pub(super) fn slices_written(block: &[Stmt]) -> Vec<String> {
    let mut written: Vec<String> = Vec::new();
    let mut note = |e: &Expr| {
        let name = match &e.kind {
            ExprKind::Index {
                base: Indexed::Slice(name),
                ..
            } => name,
            // `push`'s list, named whole.
            ExprKind::SliceLen(name) => name,
            _ => return,
        };
        if !written.contains(name) {
            written.push(name.clone());
        }
    };
    let _ = visit_stmts(block, &mut |s| {
        if let StmtKind::Assign { place, .. } = &s.kind {
            note(place);
        }
        stmt_exprs(s, &mut |e| {
            if let ExprKind::Call { builtin, args } = &e.kind {
                if *builtin == Builtin::Push {
                    // `push(&mut list, &mut count[i], v)` writes the list and the counter.
                    args[..2].iter().for_each(&mut note);
                } else if builtin.is_atomic() {
                    if let Some(target) = args.first() {
                        note(target);
                    }
                }
            }
        });
        Ok(())
    });
    written
}

/// Refuses a statement between two atom loops that reads a slice a later loop or the epilogue
/// writes: every block that shares the tile runs it again in the later pass, some perhaps after
/// another block of the tile has written that slice, where the loop in order reads it before.
pub(super) fn reads_none_of(stmt: &Stmt, written_later: &[String], schedule: &str) -> DResult<()> {
    let mut read = None;
    stmt_exprs(stmt, &mut |e| {
        if let ExprKind::Index {
            base: Indexed::Slice(name),
            ..
        } = &e.kind
        {
            if read.is_none() && written_later.contains(name) {
                read = Some(name.clone());
            }
        }
    });
    match read {
        None => Ok(()),
        Some(name) => bail!(
            stmt.span,
            "under `{schedule}` what stands between two atom loops runs again on every thread that shares the \
             tile in the later loop's launch, and `{name}` is written after it: a thread could read another \
             thread's write, where the loop in order reads `{name}` before. Use `thread`, `group`, `warp`, \
             `block`, `lrb` or `auto`"
        ),
    }
}

/// The span of the first part of `e` that may differ between tiles: anything but literals,
/// constants, scalar parameters, tile-set sizes and slice lengths.
pub(super) fn tile_variant<C>(kernel: &Kernel<C>, e: &Expr) -> Option<proc_macro2::Span> {
    let mut found = None;
    visit_expr(e, &mut |x| {
        let invariant = match &x.kind {
            ExprKind::Lit(_)
            | ExprKind::Const(_)
            | ExprKind::SetProperty { .. }
            | ExprKind::SliceLen(_) => true,
            ExprKind::Var(v) => {
                matches!(kernel.param(v).map(|p| &p.kind), Some(ParamKind::Scalar(_)))
            }
            ExprKind::Binary { .. }
            | ExprKind::Unary { .. }
            | ExprKind::Cast { .. }
            | ExprKind::Select { .. } => true,
            ExprKind::Call { builtin, .. } => !builtin.is_atomic(),
            // A helper is pure, but the launch wrapper, which evaluates the bounds on the host,
            // has no Rust function to call.
            ExprKind::Index { .. } | ExprKind::HelperCall { .. } => false,
        };
        if !invariant && found.is_none() {
            found = Some(x.span);
        }
    });
    found
}

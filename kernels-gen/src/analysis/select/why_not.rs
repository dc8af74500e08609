//! Why a body is not a selection: the spanned errors of [`super`]'s rules, each naming the schedule
//! and what to write instead.

use proc_macro2::Span;

use super::*;

/// The rule for a `break` in a keyed selection.
pub(super) fn break_in_selection(key: &str, schedule: &str) -> String {
    format!(
        "under `{schedule}` a tile's atoms are shared by several threads, each keeping its own choice until the \
         loop ends, and a `break` in a selection that updates `{key}` would stop each thread at its own first \
         improvement, not the tile's: drop the `break` (the selection then keeps the tile's best atom), or use \
         `thread` or `hierarchical`, which run a tile's atoms in order"
    )
}

/// Why an `if` that compares a candidate with `name` and assigns `name` (a keyed selection meant)
/// is not one, where `name` is updated in a way no accumulator is either: the rule it breaks, or
/// `None` when no such `if` assigns `name`; at the `if`. `inner`: the names declared inside the atom loop.
pub(in crate::analysis) fn why_not_a_selection(
    block: &[Stmt],
    name: &str,
    inner: &std::collections::HashSet<String>,
    schedule: &str,
) -> Option<(Span, String)> {
    for s in block {
        let StmtKind::If {
            cond,
            then,
            otherwise,
        } = &s.kind
        else {
            continue;
        };
        let compares = matches!(&cond.kind, ExprKind::Binary { op: BinOp::Gt | BinOp::Ge | BinOp::Lt | BinOp::Le, lhs, rhs }
            if is_var_named(lhs, name) || is_var_named(rhs, name));
        let sets = then.iter().any(|t| {
            matches!(&t.kind, StmtKind::Assign { place: Expr { kind: ExprKind::Var(v), .. }, op: None, .. } if v == name)
        });
        if !(compares && sets) {
            // A selection nested in another `if`.
            let nested = why_not_a_selection(then, name, inner, schedule)
                .or_else(|| why_not_a_selection(otherwise, name, inner, schedule));
            if nested.is_some() {
                return nested;
            }
            continue;
        }
        let shape =
            "a keyed selection has the shape `if v > m { m = v; c = e; ... }` (or `<`, `>=`, `<=`)";
        let mut breaks = false;
        let _ = crate::analysis::visit_stmts(then, &mut |t| {
            breaks |= matches!(t.kind, StmtKind::Break);
            Ok(())
        });
        let _ = crate::analysis::visit_stmts(otherwise, &mut |t| {
            breaks |= matches!(t.kind, StmtKind::Break);
            Ok(())
        });
        if breaks {
            return Some((s.span, break_in_selection(name, schedule)));
        }
        if !otherwise.is_empty() {
            return Some((s.span, format!(
                "under `{schedule}` this `if` updates `{name}` like a selection, but {shape}, without `else` (but for \
                 an `else if v == {name}` that counts ties): each thread keeps its own choice and the choices \
                 combine by key when the loop ends. Move the `else` branch's work out of the `if`, or use `thread` \
                 or `hierarchical`"
            )));
        }
        let other = then.iter().find(|t| match &t.kind {
            StmtKind::Let { .. } => false,
            StmtKind::Assign {
                place:
                    Expr {
                        kind: ExprKind::Var(v),
                        ..
                    },
                op: None,
                ..
            } => inner.contains(v),
            _ => true,
        });
        if other.is_some() {
            return Some((s.span, format!(
                "under `{schedule}` this `if` updates `{name}` like a selection, but {shape}: its branch only sets \
                 variables from outside the loop with `=` (and declares `let`s), since each thread keeps its own \
                 choice until the loop ends. Do the rest after the loop, or use `thread` or `hierarchical`"
            )));
        }
        return Some((s.span, format!(
            "under `{schedule}` this `if` updates `{name}` like a selection, but {shape}: the branch sets the key \
             `{name}` to the very candidate it was compared with (`m = v` after `v > m`; name it with a `let` before \
             the `if` to use it twice), and the values it sets read none of the selection's variables. Otherwise use \
             `thread` or `hierarchical`"
        )));
    }
    None
}

/// Why a selection with an `else if` on a tie does not fit.
pub(super) fn tally_shape(schedule: &str) -> String {
    format!(
        "under `{schedule}` a selection with an `else if` must have the shape \
         `if v > m {{ m = v; t = e; ... }} else if v == m {{ t += e; }}`: the `if` sets the key to the candidate \
         and each tally to a value, the `else if` on a tie updates the tallies with that value by an \
         associative operator, and neither reads the selection's variables"
    )
}

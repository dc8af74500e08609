//! Selections: an `if` in an atom loop that keeps one atom's values in variables from outside the
//! loop. Two forms:
//!
//! - **keyed** (argmax, argmin): `if v > m { m = v; c = col; }`. The condition compares a
//!   candidate with one of the variables (the *key*), and the branch sets the key to that
//!   candidate. `>` and `<` keep the earliest atom among equal keys, `>=` and `<=` the latest.
//! - **match**: `if frontier[u] != 0 { parent = u; break; }`. No key: with a trailing `break`
//!   the first matching atom is kept, without it the last.
//!
//! A keyed selection may carry *tallies*: variables set in the branch that takes a new key and
//! updated by an associative operator in an `else if` on an equal key,
//! `if v > m { m = v; count = 1; } else if v == m { count += 1; }` (the value and the count of a
//! maximum). The tie rule: two partial choices combine to the better key's tallies, and to
//! `t1 op t2` where the keys are equal; the other variables keep the position rule.
//!
//! Run in order on one thread (`thread`, `hierarchical`) that is just the loop. Where a tile's
//! atoms are shared by several threads (`group`), each thread keeps its own choice and the
//! position of the atom it chose, and the choices combine by key, then by position: the result is
//! the one the loop computes in order, under every schedule that keeps selections. A thread's
//! `break` stops its own share only, which is all a match needs: the first match of the tile is
//! the first of some thread's share.

use proc_macro2::Span;

use super::visit_expr;
use crate::diag::{bail, DResult};
use crate::ir::*;

mod why_not;
pub(super) use why_not::why_not_a_selection;
use why_not::{break_in_selection, tally_shape};

/// The key of a keyed selection.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    pub name: String,
    pub ty: Ty,
    /// `>` or `>=` (an argmax): a larger key wins.
    pub larger: bool,
}

/// A variable of a keyed selection that counts or sums over the atoms holding the kept key:
/// set to `e` where the key improves, updated `op= e` where an atom ties it.
#[derive(Clone, Debug, PartialEq)]
pub struct Tally {
    pub name: String,
    pub ty: Ty,
    pub op: super::CombineOp,
}

/// One selection of an atom loop.
#[derive(Clone, Debug)]
pub struct Selection {
    pub key: Option<Key>,
    /// Every variable the selection sets (the key and the tallies among them), in the order
    /// written.
    pub vars: Vec<(String, Ty)>,
    /// The variables among `vars` that combine by their operator on equal keys (none for a
    /// match, or a keyed selection without an `else if` on a tie).
    pub tallies: Vec<Tally>,
    /// The generated variable that holds the position of the atom kept (a `long long`).
    pub at: String,
    /// Whether a later atom wins over an earlier one with an equal key (`>=`, `<=`, a match
    /// without `break`).
    pub later_wins: bool,
    pub span: Span,
}

impl Selection {
    /// The position a thread that kept no atom holds: -1 ("before every atom", which the start
    /// value of a key is, and which loses every tie a later atom wins), or, for a first match,
    /// the largest position, which every match beats.
    pub fn none_at(&self) -> &'static str {
        if self.key.is_none() && !self.later_wins {
            "0x7fffffffffffffffll"
        } else {
            "-1ll"
        }
    }

    /// CUDA: whether the choice whose variables are `other(name)` (its position `other(at)`) is
    /// kept over the one in the variables themselves. The caller reads `other` before assigning.
    pub fn better(&self, other: &dyn Fn(&str) -> String) -> String {
        self.better_than(other, &|v| v.to_string())
    }

    /// [`Self::better`] where the kept choice is held in `mine(name)` rather than in the
    /// variables themselves.
    pub fn better_than(
        &self,
        other: &dyn Fn(&str) -> String,
        mine: &dyn Fn(&str) -> String,
    ) -> String {
        let at = mine(&self.at);
        let (oat, pos) = (other(&self.at), if self.later_wins { ">" } else { "<" });
        let by_position = format!("{oat} {pos} {at}");
        match &self.key {
            None => by_position,
            Some(k) => {
                let (ok, cmp) = (other(&k.name), if k.larger { ">" } else { "<" });
                let key = mine(&k.name);
                format!("{ok} {cmp} {key} || ({ok} == {key} && {by_position})")
            }
        }
    }

    /// CUDA: keeps in `mine(name)` the better of its choice and the one in `other(name)`: the
    /// better choice's variables; with tallies, on equal keys each tally combined with the
    /// other's (`t1 op t2`) and the rest by position.
    pub fn keep_better(
        &self,
        other: &dyn Fn(&str) -> String,
        mine: &dyn Fn(&str) -> String,
    ) -> String {
        let mut names = vec![self.at.as_str()];
        names.extend(self.vars.iter().map(|(v, _)| v.as_str()));
        let take = |names: &[&str]| {
            names
                .iter()
                .map(|v| format!("{} = {};", mine(v), other(v)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let key = match &self.key {
            Some(k) if !self.tallies.is_empty() => k,
            _ => {
                let better = self.better_than(other, mine);
                return format!("if ({better}) {{ {} }}", take(&names));
            }
        };
        let (ok, k) = (other(&key.name), mine(&key.name));
        let cmp = if key.larger { ">" } else { "<" };
        let tallies: Vec<String> = self
            .tallies
            .iter()
            .map(|t| {
                let c = t.op.combine(&mine(&t.name), &other(&t.name));
                format!("{} = {c};", mine(&t.name))
            })
            .collect();
        let positional: Vec<&str> = names
            .iter()
            .copied()
            .filter(|v| !self.tallies.iter().any(|t| t.name == *v))
            .collect();
        let (oat, at) = (other(&self.at), mine(&self.at));
        let pos = if self.later_wins { ">" } else { "<" };
        format!(
            "if ({ok} {cmp} {k}) {{ {} }} else if ({ok} == {k}) {{ {} if ({oat} {pos} {at}) {{ {} }} }}",
            take(&names),
            tallies.join(" "),
            take(&positional)
        )
    }

    /// CUDA: the key a share of a tile that has chosen nothing starts from, the worst there is
    /// (the lowest for a larger-wins key), so that the share's first candidate is taken and the
    /// position decides only against real choices.
    pub fn worst_key(&self) -> Option<String> {
        self.key.as_ref().map(|k| {
            let worst = if k.larger {
                super::CombineOp::Max
            } else {
                super::CombineOp::Min
            };
            worst.identity(&k.ty)
        })
    }
}

/// The selections of an atom loop, and its body rewritten so that each selection's branch also
/// records the atom's position. `outer(name)`: the variable is declared outside the atom loop.
/// `fresh` names the position variables. `schedule` names the schedule in errors.
pub fn selections(
    atom_body: &[Stmt],
    atom_var: &str,
    outer: &dyn Fn(&str) -> bool,
    schedule: &str,
    fresh: &mut dyn FnMut(&str) -> String,
) -> DResult<(Vec<Selection>, Block)> {
    let mut found = Vec::new();
    let mut ifs: Vec<*const Stmt> = Vec::new();
    let body = rewrite(
        atom_body, atom_var, outer, schedule, fresh, &mut found, &mut ifs,
    )?;
    // A selection's variables belong to it: anywhere else in the loop they would see a thread's
    // choice, not the tile's.
    for sel in &found {
        for (name, _) in &sel.vars {
            if let Some(span) = mention_outside(atom_body, name, &ifs) {
                bail!(
                    span,
                    "`{name}` is set by a selection (`if ... {{ {name} = ...; }}` at line {}) and used again in the atom \
                     loop; under `{schedule}` each thread holds its own choice until the loop ends: use `{name}` after the loop",
                    sel.span.start().line
                );
            }
        }
    }
    Ok((found, body))
}

fn rewrite(
    block: &[Stmt],
    atom_var: &str,
    outer: &dyn Fn(&str) -> bool,
    schedule: &str,
    fresh: &mut dyn FnMut(&str) -> String,
    found: &mut Vec<Selection>,
    ifs: &mut Vec<*const Stmt>,
) -> DResult<Block> {
    let mut out = Vec::new();
    for stmt in block {
        let kind = match &stmt.kind {
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => match selection(stmt, cond, then, otherwise, outer, schedule)? {
                Some(mut sel) => {
                    sel.at = fresh("at");
                    let record = Stmt {
                        kind: StmtKind::Assign {
                            place: expr(ExprKind::Var(sel.at.clone()), Ty::I64, stmt.span),
                            op: None,
                            value: expr(
                                ExprKind::Cast {
                                    expr: Box::new(expr(
                                        ExprKind::Var(atom_var.to_string()),
                                        Ty::Usize,
                                        stmt.span,
                                    )),
                                    to: Ty::I64,
                                },
                                Ty::I64,
                                stmt.span,
                            ),
                        },
                        span: stmt.span,
                        line: stmt.line,
                    };
                    let mut then = then.clone();
                    let at = then.len() - usize::from(ends_in_break(&then));
                    then.insert(at, record);
                    found.push(sel);
                    ifs.push(stmt as *const Stmt);
                    // The `else if` on a tie, if any, runs as written: it updates the tallies.
                    StmtKind::If {
                        cond: cond.clone(),
                        then,
                        otherwise: otherwise.clone(),
                    }
                }
                None => StmtKind::If {
                    cond: cond.clone(),
                    then: rewrite(then, atom_var, outer, schedule, fresh, found, ifs)?,
                    otherwise: rewrite(otherwise, atom_var, outer, schedule, fresh, found, ifs)?,
                },
            },
            // A `break` inside a range loop leaves that loop, not the atom loop: no selections
            // are looked for there.
            other => other.clone(),
        };
        out.push(Stmt {
            kind,
            span: stmt.span,
            line: stmt.line,
        });
    }
    Ok(out)
}

/// The selection `if cond { then }` makes, if it is one: a branch of `let`s and plain
/// assignments to outer variables (at least one), optionally ending in `break`, whose values and
/// condition read none of those variables except a key.
fn selection(
    stmt: &Stmt,
    cond: &Expr,
    then: &[Stmt],
    otherwise: &[Stmt],
    outer: &dyn Fn(&str) -> bool,
    schedule: &str,
) -> DResult<Option<Selection>> {
    // `else if candidate == key { tallies }`: the only `else` a selection takes.
    let tie = match otherwise {
        [] => None,
        [Stmt {
            kind:
                StmtKind::If {
                    cond: tie_cond,
                    then: tie_then,
                    otherwise: rest,
                },
            span,
            ..
        }] if rest.is_empty() && is_equality(tie_cond) => Some((tie_cond, &tie_then[..], *span)),
        _ => return Ok(None),
    };
    // An `if` that compares with an outer variable it sets, followed by an `else if` on a tie: a
    // selection with tallies meant, so what does not fit is an error rather than another reading.
    if tie.is_some() && !compares_with_a_set_variable(cond, then, outer) {
        return Ok(None);
    }
    let breaks = ends_in_break(then);
    let mut vars: Vec<(String, Ty)> = Vec::new();
    let mut values: Vec<&Expr> = Vec::new();
    for s in &then[..then.len() - usize::from(breaks)] {
        match &s.kind {
            StmtKind::Let { init, .. } => values.push(init),
            StmtKind::Assign {
                place:
                    Expr {
                        kind: ExprKind::Var(name),
                        ty,
                        ..
                    },
                op: None,
                value,
            } if outer(name) && !vars.iter().any(|(v, _)| v == name) => {
                vars.push((name.clone(), ty.clone()));
                values.push(value);
            }
            _ if tie.is_some() => bail!(s.span, "{}", tally_shape(schedule)),
            _ => return Ok(None),
        }
    }
    if vars.is_empty() {
        return Ok(None);
    }
    let is_var = |e: &Expr| match &e.kind {
        ExprKind::Var(v) => vars.iter().find(|(n, _)| n == v).cloned(),
        _ => None,
    };
    let key = match &cond.kind {
        ExprKind::Binary { op, lhs, rhs } => {
            let flipped = match op {
                BinOp::Gt => Some((true, false)),
                BinOp::Ge => Some((true, true)),
                BinOp::Lt => Some((false, false)),
                BinOp::Le => Some((false, true)),
                _ => None,
            };
            match (flipped, is_var(rhs), is_var(lhs)) {
                // `candidate > key`
                (Some((larger, ties)), Some(k), _) => Some((k, &**lhs, larger, ties)),
                // `key < candidate` is `candidate > key`
                (Some((larger, ties)), None, Some(k)) => Some((k, &**rhs, !larger, ties)),
                _ => None,
            }
        }
        _ => None,
    };
    let reads = |e: &Expr, except: Option<&str>| {
        let mut hit = false;
        visit_expr(e, &mut |x| {
            if let ExprKind::Var(v) = &x.kind {
                hit |= Some(v.as_str()) != except && vars.iter().any(|(n, _)| n == v);
            }
        });
        hit
    };
    if values.iter().any(|v| reads(v, None)) {
        if tie.is_some() {
            bail!(stmt.span, "{}", tally_shape(schedule));
        }
        return Ok(None);
    }
    if tie.is_some() && key.is_none() {
        bail!(stmt.span, "{}", tally_shape(schedule));
    }
    let (key, later_wins) = match key {
        Some(((name, ty), candidate, larger, ties)) => {
            // The key must become the candidate it was compared with.
            let set_to = then
                .iter()
                .find_map(|s| match &s.kind {
                    StmtKind::Assign {
                        place:
                            Expr {
                                kind: ExprKind::Var(v),
                                ..
                            },
                        value,
                        ..
                    } if *v == name => Some(value),
                    _ => None,
                })
                .expect("the key is assigned");
            if !same_expr(set_to, candidate) || reads(candidate, None) {
                if tie.is_some() {
                    bail!(stmt.span, "{}", tally_shape(schedule));
                }
                return Ok(None);
            }
            if breaks {
                bail!(stmt.span, "{}", break_in_selection(&name, schedule));
            }
            (Some(Key { name, ty, larger }), ties)
        }
        None if reads(cond, None) => return Ok(None),
        None => (None, !breaks),
    };
    let tallies = match (tie, &key) {
        (Some(tie), Some(k)) => {
            let the_if = Branch {
                cond,
                then,
                later_wins,
            };
            tie_tallies(&the_if, tie, k, &vars, schedule, &reads)?
        }
        _ => Vec::new(),
    };
    Ok(Some(Selection {
        key,
        vars,
        tallies,
        at: String::new(),
        later_wins,
        span: stmt.span,
    }))
}

/// The `if` branch of a keyed selection, as [`tie_tallies`] reads it.
struct Branch<'a> {
    cond: &'a Expr,
    then: &'a [Stmt],
    later_wins: bool,
}

/// The tallies of a keyed selection's `else if` on a tie (`tie`: its condition, its statements,
/// its span), or why it does not fit: it must test a tie of the `if`'s own candidate with the key,
/// under `>` or `<` (with `>=` or `<=` it never runs).
fn tie_tallies(
    the_if: &Branch<'_>,
    (tie_cond, tie_then, tie_span): (&Expr, &[Stmt], Span),
    k: &Key,
    vars: &[(String, Ty)],
    schedule: &str,
    reads: &dyn Fn(&Expr, Option<&str>) -> bool,
) -> DResult<Vec<Tally>> {
    let (cond, then, later_wins) = (the_if.cond, the_if.then, the_if.later_wins);
    if later_wins {
        bail!(
            tie_span,
            "with `>=` or `<=` an atom that ties `{}` takes the `if` branch, so this `else if` never runs: \
             write `>` or `<` to count the ties (under `{schedule}` as in order)",
            k.name
        );
    }
    let candidate = match &cond.kind {
        ExprKind::Binary { lhs, rhs, .. } => {
            if is_var_named(rhs, &k.name) {
                lhs
            } else {
                rhs
            }
        }
        _ => unreachable!("a keyed selection compares"),
    };
    let ExprKind::Binary { lhs, rhs, .. } = &tie_cond.kind else {
        unreachable!("an equality")
    };
    let ties_key = (is_var_named(lhs, &k.name) && same_expr(rhs, candidate))
        || (is_var_named(rhs, &k.name) && same_expr(lhs, candidate));
    if !ties_key {
        bail!(
            tie_span,
            "under `{schedule}` the `else if` of a selection must test a tie of the same candidate with \
             `{}` (`else if v == {}`), where its tallies are updated",
            k.name,
            k.name
        );
    }
    tallies_of(tie_then, &k.name, vars, then, schedule, reads)
}

/// The tallies an `else if` on a tie updates: each a variable the `if` sets to `e` (not the
/// key), updated once here by an associative operator with the same `e` (`count = 1` there,
/// `count += 1` here), so that a run of tied atoms folds to one value whichever thread starts it.
fn tallies_of(
    tie_then: &[Stmt],
    key: &str,
    vars: &[(String, Ty)],
    then: &[Stmt],
    schedule: &str,
    reads: &dyn Fn(&Expr, Option<&str>) -> bool,
) -> DResult<Vec<Tally>> {
    let mut tallies: Vec<Tally> = Vec::new();
    for s in tie_then {
        let StmtKind::Assign {
            place:
                Expr {
                    kind: ExprKind::Var(name),
                    ty,
                    ..
                },
            op,
            value,
        } = &s.kind
        else {
            bail!(s.span, "{}", tally_shape(schedule));
        };
        if name == key || !vars.iter().any(|(v, _)| v == name) {
            bail!(
                s.span,
                "under `{schedule}` the tie branch of a selection may only update its tallies, variables the \
                 `if` sets (`{name} = e;` there, `{name} += e;` here), not `{name}`"
            );
        }
        let set_to = then
            .iter()
            .find_map(|t| match &t.kind {
                StmtKind::Assign {
                    place:
                        Expr {
                            kind: ExprKind::Var(v),
                            ..
                        },
                    value,
                    ..
                } if v == name => Some(value),
                _ => None,
            })
            .expect("a variable of the selection is assigned in its branch");
        let update = match op {
            Some(BinOp::Sub) => None,
            _ => super::classify_update(name, *op, value),
        };
        let Some((cop, operand)) = update else {
            bail!(
                s.span,
                "`{name}` is a tally of a selection: under `{schedule}` ties from different threads combine with \
                 its operator, so it may only be updated `{name} += e`, `*=`, `|=`, `&=`, `^=`, or \
                 `{name} = min({name}, e)` / `max`"
            );
        };
        if reads(operand, None) {
            bail!(s.span, "the update of the tally `{name}` reads a variable of its selection; under `{schedule}` it needs `{name} op= e` with `e` free of them");
        }
        if !same_expr(set_to, operand) {
            bail!(
                s.span,
                "`{name}` is set to one value where `{key}` improves and updated by another on a tie: under \
                 `{schedule}` a thread's first atom with the key starts the tally, so both branches must use the \
                 same value for one atom (`{name} = e;` and `{name} op= e;`)"
            );
        }
        if tallies.iter().any(|t| t.name == *name) {
            bail!(s.span, "the tally `{name}` is updated twice on a tie; under `{schedule}` it needs one update");
        }
        if *ty == Ty::Bool {
            bail!(
                s.span,
                "`{name}` is a bool tally under `{schedule}`: use an integer and `|=`"
            );
        }
        tallies.push(Tally {
            name: name.clone(),
            ty: ty.clone(),
            op: cop,
        });
    }
    if tallies.is_empty() {
        bail!(
            tie_then.first().map_or_else(Span::call_site, |s| s.span),
            "{}",
            tally_shape(schedule)
        );
    }
    Ok(tallies)
}

fn compares_with_a_set_variable(cond: &Expr, then: &[Stmt], outer: &dyn Fn(&str) -> bool) -> bool {
    let ExprKind::Binary {
        op: BinOp::Gt | BinOp::Ge | BinOp::Lt | BinOp::Le,
        lhs,
        rhs,
    } = &cond.kind
    else {
        return false;
    };
    let set = |e: &Expr| {
        match &e.kind {
        ExprKind::Var(n) if outer(n) => then.iter().any(|s| {
            matches!(&s.kind, StmtKind::Assign { place: Expr { kind: ExprKind::Var(v), .. }, op: None, .. } if v == n)
        }),
        _ => false,
    }
    };
    set(lhs) || set(rhs)
}

fn is_equality(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Binary { op: BinOp::Eq, .. })
}

fn is_var_named(e: &Expr, name: &str) -> bool {
    matches!(&e.kind, ExprKind::Var(v) if v == name)
}

fn ends_in_break(block: &[Stmt]) -> bool {
    matches!(block.last().map(|s| &s.kind), Some(StmtKind::Break))
}

fn expr(kind: ExprKind, ty: Ty, span: Span) -> Expr {
    Expr { kind, ty, span }
}

/// The span of a statement that mentions `name` outside the selections' `if`s.
fn mention_outside(block: &[Stmt], name: &str, ifs: &[*const Stmt]) -> Option<Span> {
    for s in block {
        if ifs.contains(&(s as *const Stmt)) {
            continue;
        }
        let mut hit = false;
        super::stmt_exprs(s, &mut |e| {
            hit |= matches!(&e.kind, ExprKind::Var(v) if v == name)
        });
        if hit {
            return Some(s.span);
        }
        let nested = match &s.kind {
            StmtKind::If {
                then, otherwise, ..
            } => mention_outside(then, name, ifs).or_else(|| mention_outside(otherwise, name, ifs)),
            StmtKind::ForRange { body, .. } | StmtKind::ForAtoms { body, .. } => {
                mention_outside(body, name, ifs)
            }
            _ => None,
        };
        if nested.is_some() {
            return nested;
        }
    }
    None
}

/// Whether two expressions are the same, spans aside.
pub fn same_expr(a: &Expr, b: &Expr) -> bool {
    use ExprKind as K;
    a.ty == b.ty
        && match (&a.kind, &b.kind) {
            (K::Lit(x), K::Lit(y)) | (K::Var(x), K::Var(y)) | (K::SliceLen(x), K::SliceLen(y)) => {
                x == y
            }
            (
                K::Index {
                    base: b1,
                    index: i1,
                },
                K::Index {
                    base: b2,
                    index: i2,
                },
            ) => b1 == b2 && same_expr(i1, i2),
            (
                K::Binary {
                    op: o1,
                    lhs: l1,
                    rhs: r1,
                },
                K::Binary {
                    op: o2,
                    lhs: l2,
                    rhs: r2,
                },
            ) => o1 == o2 && same_expr(l1, l2) && same_expr(r1, r2),
            (K::Unary { op: o1, expr: e1 }, K::Unary { op: o2, expr: e2 }) => {
                o1 == o2 && same_expr(e1, e2)
            }
            (K::Cast { expr: e1, to: t1 }, K::Cast { expr: e2, to: t2 }) => {
                t1 == t2 && same_expr(e1, e2)
            }
            (
                K::Call {
                    builtin: f1,
                    args: a1,
                },
                K::Call {
                    builtin: f2,
                    args: a2,
                },
            ) => {
                f1 == f2
                    && !f1.is_atomic()
                    && a1.len() == a2.len()
                    && a1.iter().zip(a2).all(|(x, y)| same_expr(x, y))
            }
            (
                K::SetProperty {
                    set: s1,
                    property: p1,
                },
                K::SetProperty {
                    set: s2,
                    property: p2,
                },
            ) => s1 == s2 && p1 == p2,
            (
                K::Select {
                    cond: c1,
                    then: t1,
                    otherwise: o1,
                },
                K::Select {
                    cond: c2,
                    then: t2,
                    otherwise: o2,
                },
            ) => same_expr(c1, c2) && same_expr(t1, t2) && same_expr(o1, o2),
            _ => false,
        }
}

//! `for j in lanes(start..end) { .. }`: a range loop of the tile body whose iterations are
//! independent, so that a schedule which runs a tile on a group of lanes may spread them over its
//! lanes (`group`, `warp`, `block`, and the group variants of `mean_group`, `lrb` and `auto`);
//! every other schedule runs it as the range loop it reads as. The rules the front end keeps for
//! every schedule: it stands in the tile body (around atom loops, or inside one as a reduction over
//! its values per atom: `crate::schedule::lanes_reduce`; not in a helper), does not nest in another
//! `lanes` loop, runs over a half-open range, and no `break` or `continue` leaves
//! it (its iterations may run at once).

use syn::spanned::Spanned;

use super::Lowerer;
use crate::diag::{bail, DResult};
use crate::ir::*;

/// Whether `call` is `lanes(..)`.
pub(super) fn is_lanes_call(call: &syn::ExprCall) -> bool {
    matches!(&*call.func, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident("lanes"))
}

impl Lowerer<'_> {
    /// `for var in lanes(start..end) { body }`.
    pub(super) fn lanes_for(
        &mut self,
        f: &syn::ExprForLoop,
        var: String,
        call: &syn::ExprCall,
    ) -> DResult<StmtKind> {
        let range = match call.args.iter().collect::<Vec<_>>()[..] {
            [syn::Expr::Range(r)] => r,
            _ => bail!(
                call.span(),
                "`lanes` takes one range: `for j in lanes(0..k)`"
            ),
        };
        if matches!(range.limits, syn::RangeLimits::Closed(_)) {
            bail!(
                range.span(),
                "`lanes` takes a half-open range `start..end`: write `lanes(a..b + 1)`"
            );
        }
        if self.tile.is_none() {
            bail!(
                call.func.span(),
                "a `lanes` loop spreads a tile's work over the lanes that run the tile: it must be inside the tile \
                 loop's body (`for row in a.tiles() {{ for j in lanes(0..k) {{ .. }} }}`), not in a helper"
            );
        }
        // Inside an atom loop it is a reduction over the values for each atom
        // (`crate::schedule::lanes_reduce`); around atom loops, the values split the tile's lanes.
        let kind = self.range_for(f, var, range, true)?;
        let StmtKind::ForRange { body, .. } = &kind else {
            unreachable!("range_for makes a range loop")
        };
        check_lanes_body(body, true)?;
        Ok(kind)
    }
}

/// A `lanes` loop's body: no `lanes` loop inside it, and (at its own level, `own`: outside
/// nested loops) no `break` or `continue`.
fn check_lanes_body(body: &[Stmt], own: bool) -> DResult<()> {
    for s in body {
        match &s.kind {
            StmtKind::ForRange { lanes: true, .. } => bail!(
                s.span,
                "`lanes` loops cannot nest: the lanes are split once, between the outer loop's values and the \
                 atoms; make the inner loop a plain range loop (`for i in 0..n`)"
            ),
            StmtKind::Break | StmtKind::Continue if own => bail!(
                s.span,
                "a `lanes` loop's iterations may run at once on different lanes, so `break` and `continue` cannot \
                 leave it: test a condition around the iteration's statements instead (`if cond {{ .. }}`)"
            ),
            StmtKind::If {
                then, otherwise, ..
            } => {
                check_lanes_body(then, own)?;
                check_lanes_body(otherwise, own)?;
            }
            StmtKind::ForRange { body, .. } | StmtKind::ForAtoms { body, .. } => {
                check_lanes_body(body, false)?
            }
            _ => {}
        }
    }
    Ok(())
}

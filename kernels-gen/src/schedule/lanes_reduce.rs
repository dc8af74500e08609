//! A `lanes` loop inside an atom loop: a reduction over a dense dimension per atom, e.g. the
//! sampled dense-dense product's dot product of each nonzero
//!
//! ```text
//! for nz in a.atoms(row) {
//!     let c = a.col_indices[nz] as usize;
//!     let mut d = 0.0;
//!     for j in lanes(0..k) { d += x[row * k + j] * y[c * k + j]; }
//!     out[nz] = d;           // `d` is the sum over every j
//! }
//! ```
//!
//! The variables declared before the lanes loop (in the atom loop) and updated in it are its
//! accumulators, under the same rules as an atom loop's ([`crate::analysis::reductions`]: updated
//! only as `acc op= e`, `acc = acc op e` or `acc = min/max(acc, e)`, read nowhere else in the
//! loop); after the loop each holds the total over all the loop's values. What each schedule does:
//!
//! - the group schedules (`group*`, `warp`, `block`, and the group variants of `mean_group`, `lrb`
//!   and `auto`): the group's `G` lanes split into `W` lanes over the values and `G / W` over the
//!   atoms ([`width`]: the power of two at or above the values a lane's vector covers, at most
//!   `min(G, 32)`). The atom lanes stride over the tile's atoms in steps of `G / W` with the same
//!   trip count on every lane of the group (a lane past the tile's last atom takes the last one
//!   and stores nothing), lane `l` taking value offset `l % W` ([`model_values`]); each lane
//!   accumulates its values, then an xor-shuffle butterfly over the `W` lanes of one atom gives
//!   every one of them the same total, bit for bit ([`model_butterfly`]). Where the lanes body
//!   fuses and the length is a multiple of 4 (8, 16), each lane takes that many consecutive values
//!   with 16-byte loads of `x[i + j]` (the same fused paths as [`super::lanes`]). Stores and
//!   atomics of the atom loop outside the lanes loop run on value lane 0; those inside it on the
//!   lane of their value.
//! - every other schedule that runs the atom loop in a thread (`thread`, the carry schedules,
//!   `hierarchical`): a serial loop, as written.
//!
//! Refused under a group, with an error naming `lanes`, the schedule and what to write instead
//! ([`check_group`]): a lanes loop in an atom loop but not in its own body (inside an `if` or a
//! loop: the lanes of an atom must all reach the butterfly), more than one such loop in an atom
//! loop, `break`/`continue`/`return` in that atom loop, bounds that read the atom loop's names,
//! a selection (argmin/argmax) in the lanes loop, and an atom loop that both holds a lanes loop
//! and reduces into a variable from outside it (its statements run on all `W` lanes of an atom).

/// Lanes over the values of a lanes loop inside an atom loop, for `n` values of `vector` per
/// lane in a group of `group_size`: the power of two at or above `n / vector`, at most
/// `min(group_size, 32)` (the butterfly stays within a warp), at least 1.
pub fn width(n: u64, group_size: u32, vector: u32) -> u32 {
    let cap = group_size.min(32);
    let mut w = 1u32;
    while w < cap && (w as u64) * (vector as u64) < n {
        w <<= 1;
    }
    w
}

/// The values lane `lane` (of a group) takes, in order, for a lanes loop of `n` values, `width`
/// lanes over them and `vector` consecutive values per lane and stride: the emitted strides.
pub fn model_values(lane: u32, width: u32, vector: u32, n: u64) -> Vec<u64> {
    let offset = (lane & (width - 1)) as u64 * vector as u64;
    let step = width as u64 * vector as u64;
    let mut out = Vec::new();
    let mut o = 0u64;
    while o < n {
        if offset < n - o {
            out.extend((0..vector as u64).map(|c| o + offset + c));
        }
        o = if n - o > step { o + step } else { n };
    }
    out
}

/// The atoms (of `begin..end`) lane `lane` of a group of `group_size` takes where `width` lanes run
/// over the values, `(atom, active)` per trip: the same trip count on every lane of the group, a
/// lane past the end taking the last atom, inactive.
pub fn model_atoms(
    lane: u32,
    group_size: u32,
    width: u32,
    begin: u64,
    end: u64,
) -> Vec<(u64, bool)> {
    let (atom_lane, stride) = ((lane / width) as u64, (group_size / width) as u64);
    let mut out = Vec::new();
    let mut b = begin;
    while b < end {
        let active = b + atom_lane < end;
        out.push((if active { b + atom_lane } else { end - 1 }, active));
        b += stride;
    }
    out
}

/// The xor butterfly over each aligned run of `width` lanes, as emitted (offsets `width / 2`
/// down to 1, `combine(mine, other)`): every lane ends with its run's total.
pub fn model_butterfly<T: Copy>(width: u32, partials: &[T], combine: impl Fn(T, T) -> T) -> Vec<T> {
    let mut v = partials.to_vec();
    let mut o = (width / 2) as usize;
    while o > 0 {
        let before = v.clone();
        for (l, x) in v.iter_mut().enumerate() {
            *x = combine(before[l], before[l ^ o]);
        }
        o /= 2;
    }
    v
}

#[cfg(feature = "frontend")]
pub use lowering::{
    atom_loop_holds_lanes, check_group, group_atom_loop_with_lanes, group_atom_loop_with_lanes_in,
};

#[cfg(feature = "frontend")]
mod lowering {
    use crate::analysis::{reductions, visit_expr, visit_stmts};
    use crate::diag::{bail, DResult};
    use crate::emit::{AtomLoop, Cx};
    use crate::ir::{Expr, ExprKind, Stmt, StmtKind};
    use crate::schedule::group::{combine_all, GroupLowering};
    use crate::schedule::lanes::{copy_name, Fusion, VECTOR, VECTORS};
    use crate::schedule::Kernel;

    fn is_lanes(s: &Stmt) -> bool {
        matches!(s.kind, StmtKind::ForRange { lanes: true, .. })
    }

    fn holds_lanes(block: &[Stmt]) -> bool {
        let mut hit = false;
        let _ = visit_stmts(block, &mut |s| {
            hit |= is_lanes(s);
            Ok(())
        });
        hit
    }

    /// Whether an atom loop's body holds a `lanes` loop (a lanes reduction, [`super`]).
    pub fn atom_loop_holds_lanes(body: &[Stmt]) -> bool {
        holds_lanes(body)
    }

    fn names_in(e: &Expr, out: &mut Vec<String>) {
        visit_expr(e, &mut |x| {
            if let ExprKind::Var(v) = &x.kind {
                out.push(v.clone());
            }
        });
    }

    /// The rules of a lanes loop inside an atom loop under a group ([`super`]).
    pub fn check_group(kernel: &Kernel) -> DResult<()> {
        let name = kernel.config.name();
        visit_stmts(&kernel.body.body, &mut |s| {
            let StmtKind::ForAtoms { var, body, .. } = &s.kind else {
                return Ok(());
            };
            if !holds_lanes(body) {
                return Ok(());
            }
            let own: Vec<&Stmt> = body.iter().filter(|s| is_lanes(s)).collect();
            for b in body {
                if !is_lanes(b) && holds_lanes(std::slice::from_ref(b)) {
                    bail!(
                        b.span,
                        "under `{name}` a `lanes` loop inside an atom loop must stand in the atom loop's own body, \
                         not inside an `if` or another loop: the lanes of one atom sum its values together, so all of \
                         them must reach it. Test the condition inside the lanes loop, or use `thread`"
                    );
                }
            }
            if own.len() > 1 {
                bail!(
                    own[1].span,
                    "under `{name}` an atom loop holds at most one `lanes` loop: its lanes are split once between the \
                     atoms and that loop's values. Put both sums in one `lanes` loop, or use `thread`"
                );
            }
            let mut bad = None;
            let _ = visit_stmts(body, &mut |b| {
                if matches!(
                    b.kind,
                    StmtKind::Break | StmtKind::Continue | StmtKind::Return(_)
                ) {
                    bad.get_or_insert(b.span);
                }
                Ok(())
            });
            if let Some(span) = bad {
                bail!(
                    span,
                    "under `{name}` an atom loop that holds a `lanes` loop cannot `break`, `continue` or `return`: \
                     every lane of an atom must reach the lanes loop's sum. Test a condition around the statements \
                     instead (`if cond {{ .. }}`), or use `thread`"
                );
            }
            // The bounds are read once, before the atom loop.
            let lanes = own[0];
            let StmtKind::ForRange {
                var: j,
                start,
                end,
                body: lbody,
                ..
            } = &lanes.kind
            else {
                unreachable!("a lanes loop is a range loop")
            };
            let mut inner = vec![var.clone()];
            let _ = visit_stmts(body, &mut |b| {
                match &b.kind {
                    StmtKind::Let { name, .. } => inner.push(name.clone()),
                    StmtKind::Assign { place, .. } => {
                        if let ExprKind::Var(v) = &place.kind {
                            inner.push(v.clone());
                        }
                    }
                    _ => {}
                }
                Ok(())
            });
            let mut read = Vec::new();
            names_in(start, &mut read);
            names_in(end, &mut read);
            if let Some(n) = read.iter().find(|n| inner.contains(n)) {
                bail!(
                    lanes.span,
                    "under `{name}` the bounds of a `lanes` loop inside an atom loop are read once for the whole tile, \
                     so they cannot read `{n}`, which the atom loop sets: use bounds the same for every atom \
                     (`lanes(0..k)`), or use `thread`"
                );
            }
            let red = reductions(lbody, j, name, &mut |s| s.to_string())?;
            if !red.selections.is_empty() {
                bail!(
                    lanes.span,
                    "under `{name}` a `lanes` loop inside an atom loop sums its values (`acc += ..`, `acc = acc.max(..)`): \
                     it cannot select a position (argmin/argmax). Compute the position in a plain `for` loop, or \
                     use `thread`"
                );
            }
            let atoms = reductions(body, var, name, &mut |s| s.to_string())?;
            if let Some(a) = atoms.accumulators.first() {
                bail!(
                    s.span,
                    "under `{name}` an atom loop that holds a `lanes` loop cannot also update `{}`, declared outside \
                     it: its statements run on every lane of an atom's values. Reduce it in an atom loop of its own, \
                     or use `thread`",
                    a.name
                );
            }
            if !atoms.selections.is_empty() {
                bail!(
                    s.span,
                    "under `{name}` an atom loop that holds a `lanes` loop cannot select an atom (argmin/argmax): \
                     select in an atom loop of its own, or use `thread`"
                );
            }
            Ok(())
        })
    }

    /// An atom loop whose body holds a `lanes` loop, under a group ([`super`]).
    pub fn group_atom_loop_with_lanes(
        g: &GroupLowering,
        cx: &mut Cx<'_>,
        atoms: AtomLoop<'_>,
    ) -> DResult<()> {
        group_atom_loop_with_lanes_in(g, cx, atoms, None, None, u32::MAX)
    }

    /// [`group_atom_loop_with_lanes`] over the atoms `begin..end` (CUDA expressions of the offset
    /// type: a piece of the tile, `lrb`'s pieces of a long tile; `flat`'s pieces across tiles)
    /// instead of the tile's; `each_atom`, a CUDA statement run on every lane once its atom is
    /// set, before the atom loop's body (`flat`: the lane's tile found from its atom); `widest`,
    /// the most values a lane takes at once on the fused paths (`flat`: 4, one 16-byte load of
    /// `f32`, so that its kernel keeps to the registers of full occupancy).
    pub fn group_atom_loop_with_lanes_in(
        g: &GroupLowering,
        cx: &mut Cx<'_>,
        atoms: AtomLoop<'_>,
        range: Option<(&str, &str)>,
        each_atom: Option<&str>,
        widest: u32,
    ) -> DResult<()> {
        let at = atoms
            .body
            .iter()
            .position(is_lanes)
            .expect("checked: the lanes loop stands in the atom loop's own body");
        let StmtKind::ForRange {
            var: j,
            ty,
            start,
            end,
            body: lbody,
            ..
        } = &atoms.body[at].kind
        else {
            unreachable!("a lanes loop is a range loop")
        };
        let name = cx.kernel.config.name();
        let red = reductions(lbody, j, name, &mut |s| cx.fresh(s))?;
        let t = ty.cuda_name();
        let (start, end) = (cx.expr(start), cx.expr(end));
        cx.open("");
        cx.line(format!("const {t} loops_rs = {start};"));
        cx.line(format!("const {t} loops_re = {end};"));
        cx.line(
            "const unsigned long long loops_rn = loops_re > loops_rs ? (unsigned long long)loops_re - \
             (unsigned long long)loops_rs : 0ull;",
        );
        let reduced: Vec<String> = red.accumulators.iter().map(|a| a.name.clone()).collect();
        let fusion = if cx.is_checked() {
            None
        } else {
            Fusion::reducing(&red.body, j, &reduced)
        };
        let parts = Parts {
            atoms: &atoms,
            at,
            j,
            t,
            red: &red,
            range,
            each_atom,
        };
        match fusion {
            Some(mut f) => {
                // The values per lane, as `super::lanes::vector_for` with the lanes a warp can give.
                let lanes = g.group_size.min(super::super::lanes::TARGET_LANES);
                cx.line(format!(
                    "unsigned int loops_rv = loops_rn > 0ull && loops_rn % {VECTOR}ull == 0ull ? {VECTOR}u : 1u;"
                ));
                let vectors: Vec<u32> = VECTORS
                    .iter()
                    .copied()
                    .filter(|&v| v == VECTOR || v <= widest)
                    .collect();
                for &wider in &vectors[1..] {
                    cx.line(format!(
                        "if (loops_rv > 1u && loops_rn % {wider}ull == 0ull && {}ull < loops_rn) loops_rv = {wider}u;",
                        (wider / 2) as u64 * lanes as u64
                    ));
                }
                for (i, &v) in vectors.iter().enumerate() {
                    let kw = if i == 0 { "if" } else { "else if" };
                    cx.open(format!("{kw} (loops_rv == {v}u)"));
                    f.v = v;
                    path(g, cx, &parts, Some(&f))?;
                    cx.close();
                }
                cx.open("else");
                path(g, cx, &parts, None)?;
                cx.close();
            }
            None => path(g, cx, &parts, None)?,
        }
        cx.close();
        Ok(())
    }

    struct Parts<'a, 'b> {
        atoms: &'a AtomLoop<'b>,
        at: usize,
        j: &'a str,
        t: &'a str,
        red: &'a crate::analysis::Reductions,
        /// The atoms run, where not the tile's: `begin..end`.
        range: Option<(&'a str, &'a str)>,
        /// Run once the lane's atom is set.
        each_atom: Option<&'a str>,
    }

    /// One path: `fusion`'s values per lane (or one).
    fn path(g: &GroupLowering, cx: &mut Cx<'_>, p: &Parts, fusion: Option<&Fusion>) -> DResult<()> {
        let size = g.group_size;
        let cap = size.min(32);
        let mask = if size < 32 {
            "loops_mask"
        } else {
            "0xffffffffu"
        };
        let v = fusion.map_or(1, |f| f.v);
        let (set, var) = (p.atoms.set, p.atoms.var);
        let tile = cx.expr(p.atoms.tile);
        let off = cx.offset_type();
        let t = p.t;
        cx.open("");
        cx.line("unsigned int loops_rw = 1u;");
        cx.line(format!(
            "while (loops_rw < {cap}u && (unsigned long long)loops_rw * {v}ull < loops_rn) loops_rw <<= 1;"
        ));
        cx.line("const unsigned int loops_rl = loops_lane & (loops_rw - 1u);");
        cx.line(format!(
            "const {off} loops_ra = ({off})(loops_lane / loops_rw);"
        ));
        cx.line(format!(
            "const {off} loops_rm = ({off})({size}u / loops_rw);"
        ));
        cx.line(format!(
            "const unsigned long long loops_rstep = (unsigned long long)loops_rw * {v}ull;"
        ));
        let end = cx.fresh("end");
        // The same trip count on every lane of the group: the butterfly's shuffles see them all.
        // The step is clamped at the end: `loops_rb + loops_rm` never passes the offset type.
        let (first, last) = match p.range {
            Some((b, e)) => (b.to_string(), e.to_string()),
            None => (
                format!("{set}_offsets[{tile}]"),
                format!("{set}_offsets[{tile} + 1]"),
            ),
        };
        cx.open(format!(
            "for ({off} loops_rb = {first}, {end} = {last}; loops_rb < {end}; \
             loops_rb = {end} - loops_rb > loops_rm ? loops_rb + loops_rm : {end})"
        ));
        cx.line(format!(
            "const bool loops_rat = loops_ra < {end} - loops_rb;"
        ));
        cx.line(format!(
            "const {off} {var} = loops_rat ? loops_rb + loops_ra : {end} - 1;"
        ));
        if let Some(line) = p.each_atom {
            cx.line(line);
        }
        let outer = cx.guard.replace("loops_rat && loops_rl == 0u".into());
        let result = (|| -> DResult<()> {
            for s in &p.atoms.body[..p.at] {
                cx.stmt(s)?;
            }
            // Value lane 0 carries each accumulator's value from before the loop.
            crate::schedule::group::start_from_identity(
                cx,
                &p.red.accumulators,
                &[],
                "loops_rl != 0u",
            );
            cx.open(
                "for (unsigned long long loops_ro = 0ull; loops_ro < loops_rn; loops_ro = loops_rn - loops_ro > \
                 loops_rstep ? loops_ro + loops_rstep : loops_rn)",
            );
            cx.open(format!(
                "if (loops_rat && (unsigned long long)loops_rl * {v}ull < loops_rn - loops_ro)"
            ));
            let first = match fusion {
                Some(_) => copy_name(p.j, 0),
                None => p.j.to_string(),
            };
            cx.line(format!(
                "const {t} {first} = ({t})((unsigned long long)loops_rs + loops_ro + (unsigned long long)loops_rl * {v}ull);"
            ));
            if fusion.is_some() {
                for c in 1..v {
                    cx.line(format!(
                        "const {t} {} = ({t})((unsigned long long){first} + {c}ull);",
                        copy_name(p.j, c)
                    ));
                }
            }
            let inner = cx.guard.take();
            let body = match fusion {
                None => cx.block(&p.red.body),
                Some(f) => f.emit(cx, &p.red.body),
            };
            cx.guard = inner;
            body?;
            cx.close();
            cx.close();
            if !p.red.accumulators.is_empty() {
                cx.open("for (unsigned int loops_o = loops_rw >> 1; loops_o > 0u; loops_o >>= 1)");
                let shfl = |x: &str| format!("__shfl_xor_sync({mask}, {x}, loops_o)");
                combine_all(cx, &p.red.accumulators, &[], &shfl);
                cx.close();
            }
            for s in &p.atoms.body[p.at + 1..] {
                cx.stmt(s)?;
            }
            Ok(())
        })();
        cx.guard = outer;
        result?;
        cx.close();
        cx.close();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value of the range is taken by exactly one lane of a run of `width`, in range, for
    /// every vector width the emitted paths take.
    #[test]
    fn values_cover_the_range_once() {
        for n in 0..300u64 {
            for g in [2u32, 4, 8, 16, 32, 64, 256] {
                for v in [1u32, 4, 8, 16] {
                    if v > 1 && !n.is_multiple_of(v as u64) {
                        continue;
                    }
                    let w = width(n, g, v);
                    assert!(w.is_power_of_two() && w <= g.min(32));
                    let mut seen: Vec<u64> =
                        (0..w).flat_map(|l| model_values(l, w, v, n)).collect();
                    seen.sort_unstable();
                    assert_eq!(seen, (0..n).collect::<Vec<_>>(), "n {n} g {g} v {v}");
                }
            }
        }
    }

    /// Every atom of a tile is active on exactly `width` lanes (one run), all lanes of the group
    /// make the same number of trips.
    #[test]
    fn atoms_are_split_evenly_with_uniform_trips() {
        for g in [2u32, 4, 32, 64] {
            for w in [1u32, 2, 4, 8, 16, 32]
                .into_iter()
                .filter(|&w| w <= g.min(32))
            {
                for (b, e) in [(0u64, 0u64), (3, 4), (5, 40), (0, 129)] {
                    let per: Vec<_> = (0..g).map(|l| model_atoms(l, g, w, b, e)).collect();
                    assert!(per.iter().all(|t| t.len() == per[0].len()));
                    let mut count = vec![0u32; e as usize];
                    for trips in &per {
                        for &(a, active) in trips {
                            assert!(a >= b && a < e);
                            count[a as usize] += active as u32;
                        }
                    }
                    assert!(count[b as usize..].iter().all(|&c| c == w), "g {g} w {w}");
                }
            }
        }
    }

    /// The butterfly leaves every lane of a run its run's total, the same on every lane (float
    /// addition commutes: `a + b` and `b + a` round alike).
    #[test]
    fn butterfly_gives_every_lane_the_total() {
        let mut seed = 7u64;
        for w in [1u32, 2, 4, 8, 16, 32] {
            let partials: Vec<f32> = (0..32)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((seed >> 40) as f32 / 65536.0) - 128.0
                })
                .collect();
            let out = model_butterfly(w, &partials, |a, b| a + b);
            for run in 0..(32 / w as usize) {
                let lanes = &out[run * w as usize..(run + 1) * w as usize];
                let exact: f64 = partials[run * w as usize..(run + 1) * w as usize]
                    .iter()
                    .map(|&x| x as f64)
                    .sum();
                assert!(lanes.iter().all(|x| x.to_bits() == lanes[0].to_bits()));
                assert!((lanes[0] as f64 - exact).abs() <= 1e-3 * (1.0 + exact.abs()));
            }
        }
    }
}

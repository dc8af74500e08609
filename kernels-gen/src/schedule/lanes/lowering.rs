use super::TAKE_LANES;
use crate::analysis::{reductions, stmt_exprs, visit_expr, visit_stmts};
use crate::diag::{bail, DResult};
use crate::emit::{AtomLoop, Cx, LanesSplit, RangeLoop};
use crate::ir::{BinOp, Expr, ExprKind, Indexed, Stmt, StmtKind, Ty};
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
            if matches!(s.kind, StmtKind::ForAtoms { .. }) || !has_atoms(std::slice::from_ref(s)) {
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

/// `for j in lanes(start..end)` under a group ([`super`]). The range's length `n` and every
/// offset into it are 64-bit unsigned, so no stride wraps the loop's type (`lanes(0..i32::MAX)`
/// ends). Where the body allows it (`Fusion::of`), a run-time `n % 4 == 0` picks a path on
/// which each lane takes 4 consecutive values, the body's copies fused ([`super::VECTOR`]).
pub fn group_lanes_loop(g: &GroupLowering, cx: &mut Cx<'_>, range: RangeLoop<'_>) -> DResult<()> {
    lanes_paths(g, cx, &range, &mut |cx, fusion| {
        strides(g, cx, &range, fusion)
    })
}

/// The paths of a lanes loop under a group, as [`group_lanes_loop`] chooses them at run time
/// (one value per lane, or a fused path of [`super::VECTORS`] values per lane), each emitted
/// by `path` (in scope: `loops_js`, `loops_je`, `loops_jn`).
pub(crate) fn lanes_paths(
    g: &GroupLowering,
    cx: &mut Cx<'_>,
    range: &RangeLoop<'_>,
    path: &mut dyn FnMut(&mut Cx<'_>, Option<&Fusion>) -> DResult<()>,
) -> DResult<()> {
    let t = range.ty.cuda_name();
    let (start, end) = (cx.expr(range.start), cx.expr(range.end));
    cx.open("");
    cx.line(format!("const {t} loops_js = {start};"));
    cx.line(format!("const {t} loops_je = {end};"));
    cx.line(
        "const unsigned long long loops_jn = loops_je > loops_js ? (unsigned long long)loops_je - \
         (unsigned long long)loops_js : 0ull;",
    );
    // Fused only where every atom loop of the body reduces plain accumulators (no selection:
    // an argmax's position stays on the one-value path).
    let name = cx.kernel.config.name();
    let plain = range.body.iter().all(|s| match &s.kind {
        StmtKind::ForAtoms { var, body, .. } => reductions(body, var, name, &mut |s| s.to_string())
            .is_ok_and(|r| r.selections.is_empty()),
        _ => true,
    });
    let fusion = if cx.is_checked() || !plain {
        None
    } else {
        Fusion::of(range.body, range.var)
    };
    if let Some(mut fusion) = fusion {
        let vectors = super::vectors(g.group_size);
        if vectors.len() == 1 {
            cx.open(format!("if (loops_jn % {}ull == 0ull)", super::VECTOR));
            path(cx, Some(&fusion))?;
            cx.close();
        } else {
            // The values per lane, as `super::vector_for`: each wider path where it divides
            // the length and the narrower one's lanes would not cover it in one stride.
            let lanes = g.group_size.min(super::TARGET_LANES);
            cx.line(format!(
                "unsigned int loops_jv = loops_jn > 0ull && loops_jn % {}ull == 0ull ? {}u : 1u;",
                super::VECTOR,
                super::VECTOR
            ));
            for &wider in &vectors[1..] {
                cx.line(format!(
                    "if (loops_jv > 1u && loops_jn % {wider}ull == 0ull && {}ull < loops_jn) loops_jv = {wider}u;",
                    (wider / 2) as u64 * lanes as u64
                ));
            }
            for (i, &v) in vectors.iter().enumerate() {
                let kw = if i == 0 { "if" } else { "else if" };
                cx.open(format!("{kw} (loops_jv == {v}u)"));
                fusion.v = v;
                path(cx, Some(&fusion))?;
                cx.close();
            }
        }
        cx.open("else");
        path(cx, None)?;
        cx.close();
    } else {
        path(cx, None)?;
    }
    cx.close();
    Ok(())
}

/// The strides of a lanes loop, each lane taking one value (`fusion` none) or
/// [`super::VECTOR`] consecutive ones.
pub(crate) fn strides(
    g: &GroupLowering,
    cx: &mut Cx<'_>,
    range: &RangeLoop<'_>,
    fusion: Option<&Fusion>,
) -> DResult<()> {
    let size = g.group_size;
    let t = range.ty.cuda_name();
    let v = fusion.map_or(1, |f| f.v);
    cx.open("");
    if has_atoms(range.body) {
        // The power of two at or above the lanes the values need, at most the group
        // (`super::width_for`).
        cx.line("unsigned int loops_jw = 1u;");
        cx.line(format!(
            "while (loops_jw < {size}u && (unsigned long long)loops_jw * {v}ull < loops_jn) loops_jw <<= 1;"
        ));
    } else {
        cx.line(format!("const unsigned int loops_jw = {size}u;"));
    }
    cx.line("const unsigned int loops_jl = loops_lane & (loops_jw - 1u);");
    cx.line("const unsigned int loops_al = loops_lane / loops_jw;");
    cx.line(format!("const unsigned int loops_as = {size}u / loops_jw;"));
    cx.line(format!(
        "const unsigned long long loops_jstep = (unsigned long long)loops_jw * {v}ull;"
    ));
    // The offset of the stride from the start; the step is clamped at `n`, so it never wraps.
    cx.open(
        "for (unsigned long long loops_jo = 0ull; loops_jo < loops_jn; loops_jo = loops_jn - loops_jo > \
         loops_jstep ? loops_jo + loops_jstep : loops_jn)",
    );
    cx.line(format!(
        "const bool loops_jin = (unsigned long long)loops_jl * {v}ull < loops_jn - loops_jo;"
    ));
    // In the loop's type through 64-bit unsigned arithmetic: the value, never past `end - 1`.
    let first = match fusion {
        Some(_) => copy_name(range.var, 0),
        None => range.var.to_string(),
    };
    cx.line(format!(
        "const {t} {first} = ({t})((unsigned long long)loops_js + loops_jo + (loops_jin ? \
         (unsigned long long)loops_jl * {v}ull : 0ull));"
    ));
    if fusion.is_some() {
        for c in 1..v {
            cx.line(format!(
                "const {t} {} = ({t})((unsigned long long){first} + {c}ull);",
                copy_name(range.var, c)
            ));
        }
    }
    let split = LanesSplit {
        width: "loops_jw".into(),
        offset: "loops_jl".into(),
        atom_lane: "loops_al".into(),
        atom_lanes: "loops_as".into(),
        in_range: "loops_jin".into(),
    };
    let outer_lanes = cx.lanes.replace(split);
    let outer_guard = cx.guard.replace("loops_al == 0u && loops_jin".into());
    let result = match fusion {
        None => cx.block(range.body),
        Some(f) => f.emit(cx, range.body),
    };
    cx.guard = outer_guard;
    cx.lanes = outer_lanes;
    result?;
    cx.close();
    cx.close();
    Ok(())
}

/// The name of the `h`-th vector of a fused load named `name` (the first keeps the name).
fn vector_name(name: &str, h: u32) -> String {
    if h == 0 {
        name.to_string()
    } else {
        format!("{name}_{h}")
    }
}

/// The name of variable `name` in copy `c` of a fused lanes body.
pub(crate) fn copy_name(name: &str, c: u32) -> String {
    format!("loops_c{c}_{name}")
}

/// A lanes body run as [`super::VECTOR`] copies, one per value of a lane, fused: the copies of
/// each statement one after another, the copies of an atom loop's body in one atom loop (its
/// atoms read once for all the values), and a load whose index is `x + j` (`x` the same in
/// every copy) read once for the four values ([`crate::emit`]'s prelude `loops_load4`: one
/// 16-byte load where aligned). Taken only where that is the same as the copies one after
/// another: no `break`, `continue` or `return`, no assignment of a variable from outside the
/// body (the copies' order between statements changes), and vector loads only from arrays
/// the body does not write.
pub struct Fusion {
    /// Values per lane: a multiple of [`super::VECTOR`], one vector access per
    /// [`super::VECTOR`] of them.
    pub(crate) v: u32,
    /// The lanes variable.
    var: String,
    /// The names the body declares (renamed per copy; the atom variables stay).
    declared: Vec<String>,
    /// Arrays the body writes (stores, atomics, pushes): never read by vector loads.
    written: Vec<Indexed>,
}

impl Fusion {
    /// The fusion of `body` (a lanes loop's over `var`), or `None` where it cannot be fused.
    pub fn of(body: &[Stmt], var: &str) -> Option<Fusion> {
        Self::reducing(body, var, &[])
    }

    /// [`Fusion::of`] where the body may also update `reduced` (declared outside it): the
    /// accumulators of a lanes reduction ([`crate::schedule::lanes_reduce`]), whose updates
    /// commute, so the copies' order between statements does not matter.
    pub(crate) fn reducing(body: &[Stmt], var: &str, reduced: &[String]) -> Option<Fusion> {
        let mut declared = Vec::new();
        let mut written = Vec::new();
        let mut ok = true;
        let _ = visit_stmts(body, &mut |s| {
            match &s.kind {
                StmtKind::Let { name, .. } => declared.push(name.clone()),
                StmtKind::ForRange { var, .. } => declared.push(var.clone()),
                StmtKind::Break | StmtKind::Continue | StmtKind::Return(_) => ok = false,
                _ => {}
            }
            if let StmtKind::Assign { place, .. } = &s.kind {
                if let ExprKind::Index { base, .. } = &place.kind {
                    written.push(base.clone());
                }
            }
            stmt_exprs(s, &mut |e| {
                if let ExprKind::Call { builtin, args } = &e.kind {
                    if builtin.is_atomic() {
                        match args.first().map(|a| &a.kind) {
                            Some(ExprKind::Index { base, .. }) => written.push(base.clone()),
                            Some(ExprKind::SliceLen(list)) => {
                                written.push(Indexed::Slice(list.clone()))
                            }
                            _ => {}
                        }
                        if let Some(ExprKind::Index { base, .. }) = args.get(1).map(|a| &a.kind) {
                            written.push(base.clone());
                        }
                    }
                }
            });
            Ok(())
        });
        if !ok {
            return None;
        }
        // An assignment to a variable the body does not declare: the copies would interleave
        // their updates.
        let _ = visit_stmts(body, &mut |s| {
            if let StmtKind::Assign { place, .. } = &s.kind {
                if let ExprKind::Var(name) = &place.kind {
                    ok &= declared.contains(name) || reduced.contains(name);
                }
            }
            Ok(())
        });
        ok.then(|| Fusion {
            v: super::VECTOR,
            var: var.to_string(),
            declared,
            written,
        })
    }

    /// Emits the copies of `body`.
    pub(crate) fn emit(&self, cx: &mut Cx<'_>, body: &[Stmt]) -> DResult<()> {
        for s in body {
            for fused in self.statement(cx, s) {
                cx.stmt(&fused)?;
            }
        }
        Ok(())
    }

    /// The fused statements standing for the copies of `s`: its vector loads, then its copies
    /// (an atom loop: one loop over the fused copies of its body).
    fn statement(&self, cx: &mut Cx<'_>, s: &Stmt) -> Vec<Stmt> {
        if let StmtKind::ForAtoms {
            var,
            set,
            tile,
            body,
        } = &s.kind
        {
            let fused: Vec<Stmt> = body.iter().flat_map(|b| self.statement(cx, b)).collect();
            return vec![Stmt {
                kind: StmtKind::ForAtoms {
                    var: var.clone(),
                    set: set.clone(),
                    tile: tile.clone(),
                    body: fused,
                },
                ..s.clone()
            }];
        }
        if let Some(stores) = self.vector_store(cx, s) {
            return stores;
        }
        let mut template = s.clone();
        let mut loads = Vec::new();
        self.vector_loads(cx, &mut template, &mut loads);
        let mut out = Vec::new();
        for (name, base, index, ty) in loads {
            let array = match &base {
                Indexed::Slice(s) => s.clone(),
                Indexed::SetArray { set, format, array } => {
                    format!("{set}_{}", format.cuda_suffix(*array))
                }
            };
            let span = s.span;
            // One vector per `VECTOR` values, from the index of its first copy.
            for h in 0..self.v / super::VECTOR {
                let at = self.rename(&index, h * super::VECTOR);
                let at = cx.expr(&at);
                out.push(Stmt {
                    kind: StmtKind::Let {
                        name: vector_name(&name, h),
                        mutable: false,
                        ty: Ty::Param(format!("LoopsVec4<{}>", ty.cuda_name())),
                        init: Expr {
                            kind: ExprKind::Var(format!("loops_load4(&{array}[{at}])")),
                            ty: ty.clone(),
                            span,
                        },
                    },
                    span,
                    line: s.line,
                });
            }
        }
        for c in 0..self.v {
            let mut copy = template.clone();
            rename_stmt(&mut copy, &|n| self.renamed(n, c));
            out.push(copy);
        }
        out
    }

    /// `array[x + j] = value` (a plain store, `x` free of the body's names, `value` reading no
    /// array the body writes) as one statement per [`super::VECTOR`] copies storing their
    /// values at once (`loops_store4`: one 16-byte store where aligned).
    fn vector_store(&self, cx: &mut Cx<'_>, s: &Stmt) -> Option<Vec<Stmt>> {
        let StmtKind::Assign {
            place,
            op: None,
            value,
        } = &s.kind
        else {
            return None;
        };
        let ExprKind::Index {
            base: Indexed::Slice(array),
            index,
        } = &place.kind
        else {
            return None;
        };
        let mut reads_written = false;
        visit_expr(value, &mut |e| {
            if let ExprKind::Index { base, .. } = &e.kind {
                reads_written |= self.written.contains(base);
            }
        });
        if reads_written || !self.additive(index) {
            return None;
        }
        // Each copy's value, with its own vector loads first.
        let mut template = value.clone();
        let mut loads = Vec::new();
        self.replace_loads(cx, &mut template, &mut loads);
        if !loads.is_empty() {
            // Keep it simple: the loads a stored value reads stay scalar.
            template = value.clone();
        }
        let ty = place.ty.cuda_name();
        let mut stores = Vec::new();
        for h in 0..self.v / super::VECTOR {
            let first = h * super::VECTOR;
            let at = self.rename(index, first);
            let at = cx.expr(&at);
            let values: Vec<String> = (first..first + super::VECTOR)
                .map(|c| {
                    let v = self.rename(&template, c);
                    cx.expr(&v)
                })
                .collect();
            stores.push(Stmt {
                kind: StmtKind::Expr(Expr {
                    kind: ExprKind::Var(format!(
                        "loops_store4<{ty}>(&{array}[{at}], {})",
                        values.join(", ")
                    )),
                    ty: place.ty.clone(),
                    span: s.span,
                }),
                ..s.clone()
            });
        }
        Some(stores)
    }

    /// `name` in copy `c`: the lanes variable and the body's own names get the copy's names; a
    /// vector load's element (`loops_vl..@`) its lane of the vector.
    fn renamed(&self, name: &str, c: u32) -> Option<String> {
        if let Some(stem) = name.strip_suffix('@') {
            let (h, e) = (c / super::VECTOR, c % super::VECTOR);
            return Some(format!("{}.v[{e}]", vector_name(stem, h)));
        }
        (name == self.var || self.declared.iter().any(|d| d == name)).then(|| copy_name(name, c))
    }

    fn rename(&self, e: &Expr, c: u32) -> Expr {
        let mut e = e.clone();
        rename_expr(&mut e, &|n| self.renamed(n, c));
        e
    }

    /// Replaces, in the expressions `s` evaluates unconditionally (a `let`'s value, an
    /// assignment's value, an effect), each load `array[x + j]` of an array the body does not
    /// write, `x` free of the body's own names, with an element of a vector load; pushes the
    /// loads (name, array, index, element type).
    fn vector_loads(
        &self,
        cx: &mut Cx<'_>,
        s: &mut Stmt,
        loads: &mut Vec<(String, Indexed, Expr, Ty)>,
    ) {
        let e = match &mut s.kind {
            StmtKind::Let { init, .. } => init,
            StmtKind::Assign { value, .. } => value,
            StmtKind::Expr(e) => e,
            _ => return,
        };
        self.replace_loads(cx, e, loads);
    }

    fn replace_loads(
        &self,
        cx: &mut Cx<'_>,
        e: &mut Expr,
        loads: &mut Vec<(String, Indexed, Expr, Ty)>,
    ) {
        match &mut e.kind {
            ExprKind::Index { base, index }
                if !self.written.contains(base) && self.additive(index) =>
            {
                let name = cx.fresh("vl");
                loads.push((name.clone(), base.clone(), (**index).clone(), e.ty.clone()));
                e.kind = ExprKind::Var(format!("{name}@"));
            }
            ExprKind::Index { index, .. } => self.replace_loads(cx, index, loads),
            ExprKind::Binary { op, lhs, rhs } => {
                self.replace_loads(cx, lhs, loads);
                // The right operand of `&&` and `||` is evaluated only sometimes.
                if !op.is_logical() {
                    self.replace_loads(cx, rhs, loads);
                }
            }
            ExprKind::Unary { expr, .. } | ExprKind::Cast { expr, .. } => {
                self.replace_loads(cx, expr, loads)
            }
            ExprKind::Call { args, .. } | ExprKind::HelperCall { args, .. } => {
                for a in args {
                    self.replace_loads(cx, a, loads);
                }
            }
            ExprKind::Select { cond, .. } => self.replace_loads(cx, cond, loads),
            ExprKind::Lit(_)
            | ExprKind::Var(_)
            | ExprKind::SetProperty { .. }
            | ExprKind::SliceLen(_)
            | ExprKind::Const(_) => {}
        }
    }

    /// Whether `e` is `x + j` (in any order of a sum) with `j` the lanes variable, once, and
    /// the rest free of the body's own names: its value in copy `c` is copy 0's plus `c`.
    fn additive(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Var(v) => *v == self.var,
            ExprKind::Binary {
                op: BinOp::Add,
                lhs,
                rhs,
            } => (self.additive(lhs) && self.free(rhs)) || (self.additive(rhs) && self.free(lhs)),
            // A widening (or same-width) cast of an integer to 64 bits keeps `+ c` modulo 2^64.
            ExprKind::Cast { expr, to } => {
                matches!(to, Ty::Usize | Ty::U64 | Ty::I64)
                    && expr.ty.is_integer()
                    && self.additive(expr)
            }
            _ => false,
        }
    }

    /// Whether `e` reads none of the body's names nor the lanes variable.
    fn free(&self, e: &Expr) -> bool {
        let mut free = true;
        visit_expr(e, &mut |x| {
            if let ExprKind::Var(v) = &x.kind {
                free &= *v != self.var && !self.declared.contains(v) && !v.ends_with('@');
            }
        });
        free
    }
}

fn rename_stmt(s: &mut Stmt, f: &dyn Fn(&str) -> Option<String>) {
    match &mut s.kind {
        StmtKind::Let { name, init, .. } => {
            if let Some(n) = f(name) {
                *name = n;
            }
            rename_expr(init, f);
        }
        StmtKind::Assign { place, value, .. } => {
            rename_expr(place, f);
            rename_expr(value, f);
        }
        StmtKind::Expr(e) | StmtKind::Return(e) => rename_expr(e, f),
        StmtKind::If {
            cond,
            then,
            otherwise,
        } => {
            rename_expr(cond, f);
            then.iter_mut().for_each(|s| rename_stmt(s, f));
            otherwise.iter_mut().for_each(|s| rename_stmt(s, f));
        }
        StmtKind::ForRange {
            var,
            start,
            end,
            body,
            ..
        } => {
            if let Some(n) = f(var) {
                *var = n;
            }
            rename_expr(start, f);
            rename_expr(end, f);
            body.iter_mut().for_each(|s| rename_stmt(s, f));
        }
        StmtKind::ForAtoms { tile, body, .. } => {
            rename_expr(tile, f);
            body.iter_mut().for_each(|s| rename_stmt(s, f));
        }
        StmtKind::Break | StmtKind::Continue => {}
    }
}

fn rename_expr(e: &mut Expr, f: &dyn Fn(&str) -> Option<String>) {
    match &mut e.kind {
        ExprKind::Var(v) => {
            if let Some(n) = f(v) {
                *v = n;
            }
        }
        ExprKind::Index { index, .. } => rename_expr(index, f),
        ExprKind::Binary { lhs, rhs, .. } => {
            rename_expr(lhs, f);
            rename_expr(rhs, f);
        }
        ExprKind::Unary { expr, .. } | ExprKind::Cast { expr, .. } => rename_expr(expr, f),
        ExprKind::Call { args, .. } | ExprKind::HelperCall { args, .. } => {
            args.iter_mut().for_each(|a| rename_expr(a, f))
        }
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => {
            rename_expr(cond, f);
            rename_expr(then, f);
            rename_expr(otherwise, f);
        }
        ExprKind::Lit(_)
        | ExprKind::SetProperty { .. }
        | ExprKind::SliceLen(_)
        | ExprKind::Const(_) => {}
    }
}

/// An atom loop in a `lanes` loop under a group: the atom lanes of each value stride over
/// the tile's atoms, then reduce over the lanes of the value ([`super::model_reduce`]).
pub fn group_atom_loop(
    g: &GroupLowering,
    cx: &mut Cx<'_>,
    atoms: AtomLoop<'_>,
    split: &LanesSplit,
) -> DResult<()> {
    let name = cx.kernel.config.name();
    let red = reductions(atoms.body, atoms.var, name, &mut |s| cx.fresh(s))?;
    let (accs, sels) = (&red.accumulators, &red.selections);
    let LanesSplit {
        atom_lane,
        atom_lanes,
        in_range,
        ..
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
    reduce_values(g, cx, accs, sels, split);
    Ok(())
}

/// The reduction after an atom loop in a `lanes` loop under a group: each lane's partials in,
/// each lane's value's totals out ([`super::model_reduce`]).
pub(crate) fn reduce_values(
    g: &GroupLowering,
    cx: &mut Cx<'_>,
    accs: &[crate::analysis::Accumulator],
    sels: &[crate::analysis::Selection],
    split: &LanesSplit,
) {
    let size = g.group_size;
    let LanesSplit { width, offset, .. } = split;
    if accs.is_empty() && sels.is_empty() {
        return;
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
        return;
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
}

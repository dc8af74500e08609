//! Statements: the tile loop (over a tile set or a subset of it), `let`, assignments, `for` loops
//! over atoms and ranges, `if`.

use std::collections::HashMap;

use syn::spanned::Spanned;

use super::expr::{
    check_arith, is_untyped_literal, path_name, unsupported_expr, unsupported_macro,
};
use super::{line_of, scalar_type, Lowerer, Var};
use crate::diag::{bail, DResult};
use crate::ir::*;

impl Lowerer<'_> {
    /// The tile-set parameter `expr` names, and its format.
    pub(super) fn tile_set(&self, expr: &syn::Expr) -> DResult<(String, Format)> {
        if let syn::Expr::Path(p) = expr {
            if let Some(id) = p.path.get_ident() {
                let name = id.to_string();
                if let Some(Param {
                    kind: ParamKind::TileSet { format, .. },
                    ..
                }) = self.param(&name)
                {
                    if self.lookup(&name).is_none() {
                        return Ok((name, *format));
                    }
                }
            }
        }
        bail!(
            expr.span(),
            "expected a tile-set parameter here (`Csr<T>`, `Csc<T>`, `Coo<T>` or `Offsets`)"
        )
    }

    pub(super) fn set_elem(&self, set: &str) -> Option<Ty> {
        match &self.param(set).expect("checked tile set").kind {
            ParamKind::TileSet { elem, .. } => elem.clone(),
            _ => unreachable!("checked tile set"),
        }
    }

    /// The function body: exactly one loop over a tile set.
    pub(super) fn tile_loop(&mut self, block: &syn::Block) -> DResult<TileLoop> {
        let hint = "the kernel body must be one `for tile in a.tiles() { ... }` or \
                    `for atom in a.all_atoms() { ... }` loop";
        let stmts: Vec<&syn::Stmt> = block.stmts.iter().filter(|s| !is_empty(s)).collect();
        let [syn::Stmt::Expr(syn::Expr::ForLoop(f), _)] = stmts.as_slice() else {
            let span = stmts.first().map(|s| s.span()).unwrap_or(block.span());
            bail!(span, "{hint}");
        };
        let var = loop_var(&f.pat)?;
        let syn::Expr::MethodCall(call) = &*f.expr else {
            bail!(f.expr.span(), "{hint}");
        };
        let (set, _) = self.tile_set(&call.receiver)?;
        if call.method == "tiles_in" {
            return self.subset_loop(f, call, set, var);
        }
        if !call.args.is_empty() {
            bail!(call.args.span(), "`{}()` takes no arguments", call.method);
        }
        let line = line_of(f.for_token.span);
        match call.method.to_string().as_str() {
            "tiles" => {
                self.tile = Some((set.clone(), var.clone()));
                let body =
                    self.with_loop_var(&var, f.pat.span(), Ty::Usize, |me| me.block(&f.body))?;
                Ok(TileLoop {
                    set,
                    tile: var,
                    body,
                    span: f.span(),
                    line,
                    subset: None,
                    flat: false,
                })
            }
            "all_atoms" => {
                // Atom-major form: every atom of the set, its tile looked up with `set.tile_of(atom)`.
                // It is the tile loop with one atom loop and nothing around it, so every schedule
                // lowers it as it lowers any tile loop.
                let tile = "loops_tile".to_string();
                self.tile = Some((set.clone(), tile.clone()));
                self.atom_var = Some(var.clone());
                let atom_body =
                    self.with_loop_var(&var, f.pat.span(), Ty::Usize, |me| me.loop_body(&f.body))?;
                self.atom_var = None;
                let flat = crate::schedule::tile_only::atoms_are_flat(&atom_body, &tile);
                let tile_expr = Expr {
                    kind: ExprKind::Var(tile.clone()),
                    ty: Ty::Usize,
                    span: call.method.span(),
                };
                let atoms = Stmt {
                    kind: StmtKind::ForAtoms {
                        var,
                        set: set.clone(),
                        tile: tile_expr,
                        body: atom_body,
                    },
                    span: f.span(),
                    line,
                };
                Ok(TileLoop {
                    set,
                    tile,
                    body: vec![atoms],
                    span: f.span(),
                    line,
                    subset: None,
                    flat,
                })
            }
            other => bail!(
                call.method.span(),
                "expected `{set}.tiles()`, `{set}.tiles_in(list)` or `{set}.all_atoms()`, not `{other}`"
            ),
        }
    }

    /// `for v in a.tiles_in(list) { body }`: the tiles whose ids are in the slice parameter `list`
    /// (`&[u32]`, `&[i32]`, `&[usize]`, ...), in list order. Lowered as a tile loop over the list's
    /// positions whose body reads the tile id and skips an id outside the tile set:
    /// `let v = list[pos] as usize; if v < a.num_tiles() { body }`.
    fn subset_loop(
        &mut self,
        f: &syn::ExprForLoop,
        call: &syn::ExprMethodCall,
        set: String,
        var: String,
    ) -> DResult<TileLoop> {
        let line = line_of(f.for_token.span);
        let [arg] = call.args.iter().collect::<Vec<_>>()[..] else {
            bail!(
                call.span(),
                "`{set}.tiles_in(..)` takes one argument: a slice parameter of tile ids, e.g. `frontier: &[u32]`"
            );
        };
        let list = match arg {
            syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        };
        let elem = match list.as_deref().and_then(|l| self.param(l)).map(|p| &p.kind) {
            Some(ParamKind::Slice { elem, .. }) if elem.is_integer() => elem.clone(),
            _ => bail!(
                arg.span(),
                "`{set}.tiles_in(..)` takes a slice parameter of integer tile ids, e.g. `frontier: &[u32]`"
            ),
        };
        let list = list.expect("checked");
        let span = call.span();
        self.tile = Some((set.clone(), var.clone()));
        let user_body =
            self.with_loop_var(&var, f.pat.span(), Ty::Usize, |me| me.block(&f.body))?;
        Ok(TileLoop::over_list(
            &set,
            &var,
            &list,
            elem,
            user_body,
            span,
            f.span(),
            line,
        ))
    }

    /// The body of an atom or range loop, where `break` and `continue` may appear.
    fn loop_body(&mut self, block: &syn::Block) -> DResult<Block> {
        self.loop_depth += 1;
        let body = self.block(block);
        self.loop_depth -= 1;
        body
    }

    /// `break` or `continue`: of the innermost atom or range loop, without a label or a value.
    fn jump(&mut self, e: &syn::Expr) -> DResult<StmtKind> {
        let (word, label, kind) = match e {
            syn::Expr::Break(b) => {
                if let Some(v) = &b.expr {
                    bail!(
                        v.span(),
                        "`break` with a value is not supported in a kernel body"
                    );
                }
                ("break", &b.label, StmtKind::Break)
            }
            syn::Expr::Continue(c) => ("continue", &c.label, StmtKind::Continue),
            _ => unreachable!("called on `break` and `continue` only"),
        };
        if let Some(label) = label {
            bail!(label.span(), "loop labels are not supported in a kernel body: `{word}` leaves the innermost loop");
        }
        if self.loop_depth == 0 {
            bail!(
                e.span(),
                "`{word}` needs an atom loop or a range loop around it: the tile loop runs every tile, it cannot be left"
            );
        }
        Ok(kind)
    }

    pub(super) fn block(&mut self, block: &syn::Block) -> DResult<Block> {
        self.scopes.push(HashMap::new());
        let mut out = Vec::new();
        for stmt in block.stmts.iter().filter(|s| !is_empty(s)) {
            out.push(self.stmt(stmt)?);
        }
        self.scopes.pop();
        Ok(out)
    }

    pub(super) fn stmt(&mut self, stmt: &syn::Stmt) -> DResult<Stmt> {
        let span = stmt.span();
        let line = line_of(span);
        let kind = match stmt {
            syn::Stmt::Local(local) => self.local(local)?,
            syn::Stmt::Expr(e, semi) => {
                let block_like = matches!(
                    e,
                    syn::Expr::ForLoop(_)
                        | syn::Expr::If(_)
                        | syn::Expr::Block(_)
                        | syn::Expr::While(_)
                        | syn::Expr::Loop(_)
                        | syn::Expr::Match(_)
                        | syn::Expr::Unsafe(_)
                        | syn::Expr::Break(_)
                        | syn::Expr::Continue(_)
                );
                if semi.is_none() && !block_like && !matches!(e, syn::Expr::Return(_)) {
                    if self.ret.is_some() {
                        bail!(e.span(), "only a helper's final expression is its value: write `return <value>;` here");
                    }
                    bail!(
                        e.span(),
                        "a kernel body has no values to return: end this expression with `;`"
                    );
                }
                self.expr_stmt(e)?
            }
            syn::Stmt::Item(item) => bail!(
                item.span(),
                "items (fn, struct, use, ...) are not allowed in a kernel body"
            ),
            syn::Stmt::Macro(m) => bail!(m.span(), "{}", unsupported_macro(&m.mac)),
        };
        Ok(Stmt { kind, span, line })
    }

    fn local(&mut self, local: &syn::Local) -> DResult<StmtKind> {
        let (pat, annotated) = match &local.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(scalar_type(&pt.ty, self.type_params)?)),
            other => (other, None),
        };
        let syn::Pat::Ident(pi) = pat else {
            bail!(
                pat.span(),
                "a `let` binds one name (no patterns or destructuring)"
            );
        };
        if pi.by_ref.is_some() || pi.subpat.is_some() {
            bail!(pi.span(), "a `let` binds one name by value");
        }
        let Some(init) = &local.init else {
            bail!(local.span(), "a `let` needs an initial value");
        };
        if let Some((_, diverge)) = &init.diverge {
            bail!(
                diverge.span(),
                "`let ... else` is not supported in a kernel body"
            );
        }
        let name = pi.ident.to_string();
        // A type a later use fixed (Rust infers an unsuffixed literal's type from its uses).
        let fixed = self.inferred.get(&name).map(|(ty, _)| ty.clone());
        let init_syn = &init.expr;
        let init = match annotated.as_ref().or(fixed.as_ref()) {
            Some(ty) => self.expr_as(init_syn, ty)?,
            None => self.expr_default(init_syn)?,
        };
        let inferable = annotated.is_none()
            && fixed.is_none()
            && (is_untyped_literal(init_syn) || self.inferable_var(&init).is_some());
        let ty = init.ty.clone();
        self.declare(
            &name,
            pi.ident.span(),
            Var {
                ty: ty.clone(),
                mutable: pi.mutability.is_some(),
                inferable,
            },
        )?;
        Ok(StmtKind::Let {
            name,
            mutable: pi.mutability.is_some(),
            ty,
            init,
        })
    }

    fn expr_stmt(&mut self, e: &syn::Expr) -> DResult<StmtKind> {
        Ok(match e {
            syn::Expr::Assign(a) => {
                let place = self.place(&a.left)?;
                let value = self.expr(&a.right, Some(&place.ty))?;
                let value = self.coerce(value, &place.ty, a.right.span(), Some(&place))?;
                StmtKind::Assign {
                    place,
                    op: None,
                    value,
                }
            }
            syn::Expr::Binary(b) if compound_op(&b.op).is_some() => {
                let op = compound_op(&b.op).expect("checked");
                let place = self.place(&b.left)?;
                let value = if op.is_shift() {
                    self.expr_default(&b.right)?
                } else {
                    let value = self.expr(&b.right, Some(&place.ty))?;
                    self.coerce(value, &place.ty, b.right.span(), Some(&place))?
                };
                check_arith(op, &place.ty, &value.ty, b.op.span())?;
                StmtKind::Assign {
                    place,
                    op: Some(op),
                    value,
                }
            }
            syn::Expr::ForLoop(f) => self.for_loop(f)?,
            syn::Expr::If(i) => self.if_stmt(i)?,
            syn::Expr::Break(_) | syn::Expr::Continue(_) => self.jump(e)?,
            syn::Expr::Return(r) => self.return_stmt(r)?,
            syn::Expr::Call(_) | syn::Expr::MethodCall(_) => {
                let e = self.expr_default(e)?;
                if !matches!(&e.kind, ExprKind::Call { builtin, .. } if builtin.is_atomic()) {
                    bail!(
                        e.span,
                        "this statement has no effect: only atomics may stand alone"
                    );
                }
                StmtKind::Expr(e)
            }
            syn::Expr::Block(b) if b.label.is_none() => {
                // A bare `{ ... }` block: an `if true` without the test.
                let then = self.block(&b.block)?;
                let cond = Expr {
                    kind: ExprKind::Lit("true".into()),
                    ty: Ty::Bool,
                    span: b.span(),
                };
                StmtKind::If {
                    cond,
                    then,
                    otherwise: vec![],
                }
            }
            other => bail!(other.span(), "{}", unsupported_expr(other)),
        })
    }

    pub(super) fn place(&mut self, e: &syn::Expr) -> DResult<Expr> {
        match e {
            syn::Expr::Path(p) => {
                let name = path_name(p)?;
                match self.lookup(&name) {
                    Some(v) if v.mutable => Ok(Expr { kind: ExprKind::Var(name), ty: v.ty.clone(), span: e.span() }),
                    Some(_) => bail!(e.span(), "cannot assign twice to immutable variable `{name}`: declare it with `let mut`"),
                    None if self.param(&name).is_some() => bail!(e.span(), "cannot assign to parameter `{name}`"),
                    None => bail!(e.span(), "cannot find variable `{name}` in this kernel"),
                }
            }
            syn::Expr::Index(ix) => {
                let lowered = self.index(ix)?;
                if let ExprKind::Index { base, .. } = &lowered.kind {
                    match base {
                        Indexed::Slice(s) => {
                            if let Some(Param {
                                kind: ParamKind::Slice { mutable: false, .. },
                                ..
                            }) = self.param(s)
                            {
                                bail!(e.span(), "cannot assign through `{s}`: it is a `&` slice; declare it `&mut [..]`");
                            }
                        }
                        Indexed::SetArray { set, array, .. } => {
                            bail!(
                                e.span(),
                                "`{set}.{}` is read-only in a kernel",
                                array.rust_name()
                            )
                        }
                    }
                }
                Ok(lowered)
            }
            syn::Expr::Paren(p) => self.place(&p.expr),
            other => bail!(
                other.span(),
                "can only assign to a `let mut` variable or a slice element"
            ),
        }
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop) -> DResult<StmtKind> {
        if let Some(label) = &f.label {
            bail!(
                label.span(),
                "loop labels are not supported in a kernel body"
            );
        }
        // An iterator adaptor: what to write instead, before the pattern it may need (`(i, v)`).
        if let syn::Expr::MethodCall(call) = &*f.expr {
            if let Some(message) = self.iterator_alternative(call) {
                bail!(call.method.span(), "{message}");
            }
        }
        let var = loop_var(&f.pat)?;
        match &*f.expr {
            syn::Expr::Range(r) => self.range_for(f, var, r, false),
            syn::Expr::Call(call) if super::lanes::is_lanes_call(call) => self.lanes_for(f, var, call),
            syn::Expr::MethodCall(call) if call.method == "atoms" => {
                let (set, _) = self.tile_set(&call.receiver)?;
                let Some((tile_set, tile_var)) = self.tile.clone() else {
                    bail!(call.span(), "an atom loop must be inside a tile loop");
                };
                if set != tile_set {
                    bail!(call.receiver.span(), "this atom loop is over `{set}` but the tile loop is over `{tile_set}`");
                }
                if self.atom_var.is_some() {
                    bail!(f.span(), "atom loops cannot nest: this one is inside another atom loop");
                }
                let [arg] = call.args.iter().collect::<Vec<_>>()[..] else {
                    bail!(call.span(), "`{set}.atoms(..)` takes the tile: `{set}.atoms({tile_var})`");
                };
                let is_tile = matches!(arg, syn::Expr::Path(p) if p.path.is_ident(&tile_var));
                if !is_tile {
                    bail!(arg.span(), "an atom loop runs over the current tile's atoms: `{set}.atoms({tile_var})`");
                }
                let tile = Expr { kind: ExprKind::Var(tile_var), ty: Ty::Usize, span: arg.span() };
                self.atom_var = Some(var.clone());
                let body = self.with_loop_var(&var, f.pat.span(), Ty::Usize, |me| me.loop_body(&f.body));
                self.atom_var = None;
                Ok(StmtKind::ForAtoms { var, set, tile, body: body? })
            }
            syn::Expr::MethodCall(call) if call.method == "tiles" || call.method == "all_atoms" || call.method == "tiles_in" => {
                bail!(call.span(), "a kernel has one tile loop, at the top of its body")
            }
            syn::Expr::Path(p) if self.is_slice_param(p) => {
                let x = super::builtins::path_text(p);
                bail!(
                    f.expr.span(),
                    "a `for` loop runs over a range (`a..b`) or a tile's atoms (`a.atoms(tile)`): walk the slice `{x}` by \
                     its indexes, `for i in 0..{x}.len() {{ let v = {x}[i]; ... }}`"
                )
            }
            other => bail!(
                other.span(),
                "a `for` loop runs over a range (`a..b`) or a tile's atoms (`a.atoms(tile)`), nothing else"
            ),
        }
    }

    /// `for var in start..end`, or with `lanes` the range of `for var in lanes(start..end)`.
    pub(super) fn range_for(
        &mut self,
        f: &syn::ExprForLoop,
        var: String,
        r: &syn::ExprRange,
        lanes: bool,
    ) -> DResult<StmtKind> {
        let (Some(start), Some(end)) = (&r.start, &r.end) else {
            bail!(r.span(), "a range loop needs both bounds: `for i in a..b`");
        };
        // The loop variable takes the type of whichever bound is typed; both literals: usize.
        let (start, end) = self.binary_operands(start, end, Some(&Ty::Usize))?;
        if start.ty != end.ty {
            self.infer(&start, &end.ty);
            self.infer(&end, &start.ty);
            bail!(
                r.span(),
                "range bounds have different types `{}` and `{}`",
                start.ty.rust_name(),
                end.ty.rust_name()
            );
        }
        if !start.ty.is_integer() {
            bail!(
                r.span(),
                "a range loop runs over integers, not `{}`",
                start.ty.rust_name()
            );
        }
        let ty = start.ty.clone();
        let body =
            self.with_loop_var(&var, f.pat.span(), ty.clone(), |me| me.loop_body(&f.body))?;
        let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
        Ok(StmtKind::ForRange {
            var,
            ty,
            start,
            end,
            inclusive,
            body,
            lanes,
        })
    }

    /// Whether `p` names a slice parameter.
    fn is_slice_param(&self, p: &syn::ExprPath) -> bool {
        let name = p.path.get_ident().map(|i| i.to_string());
        let kind = name.as_deref().and_then(|n| self.param(n)).map(|p| &p.kind);
        matches!(kind, Some(ParamKind::Slice { .. }))
    }

    /// For `for .. in <receiver>.<adaptor>(..)`: what to write instead of an iterator adaptor
    /// (`enumerate`, `iter`, `rev`, `step_by`, ...), or `None` for a method that is no adaptor.
    fn iterator_alternative(&self, call: &syn::ExprMethodCall) -> Option<String> {
        let method = call.method.to_string();
        // The slice or the atom loop the adaptor is applied to, through other adaptors.
        let mut inner = &*call.receiver;
        while let syn::Expr::MethodCall(m) = inner {
            if !ADAPTORS.contains(&m.method.to_string().as_str()) {
                break;
            }
            inner = &m.receiver;
        }
        let slice = match inner {
            syn::Expr::Path(p) if self.is_slice_param(p) => Some(super::builtins::path_text(p)),
            _ => None,
        };
        let atoms = match inner {
            syn::Expr::MethodCall(m) if m.method == "atoms" => self.tile_set(&m.receiver).ok(),
            _ => None,
        };
        let index_loop = |x: &str| {
            format!("walk `{x}` by its indexes, `for i in 0..{x}.len() {{ let v = {x}[i]; ... }}`")
        };
        let generic = "iterators are not supported in a kernel body";
        Some(match method.as_str() {
            "enumerate" => match (&slice, &atoms) {
                (Some(x), _) => format!("`.enumerate()` is not supported in a kernel body: {}", index_loop(x)),
                (None, Some((set, format))) => {
                    let tile = self.tile.as_ref().map_or("tile", |(_, t)| t.as_str());
                    let position = match format.arrays().iter().find(|a| a.is_offsets()) {
                        Some(o) => format!(
                            "the atom's position in its tile is `atom - {set}.{}[{tile}] as usize`",
                            o.rust_name()
                        ),
                        None => format!(
                            "count the atoms in a variable of your own (a `{}` tile set has no offsets array)",
                            format.rust_name()
                        ),
                    };
                    format!(
                        "`.enumerate()` is not supported in a kernel body: loop over the atoms, `for atom in {set}.atoms({tile})`; {position}"
                    )
                }
                _ => "`.enumerate()` is not supported in a kernel body: loop over an index range, `for i in a..b`, and index with `i`".to_string(),
            },
            "iter" | "into_iter" | "iter_mut" | "zip" | "chunks" | "windows" | "copied" | "cloned" | "skip" | "take" => match &slice {
                Some(x) => format!("{generic}: {}", index_loop(x)),
                None => format!("{generic}: loop over an index range, `for i in a..b`, and index with `i`"),
            },
            "rev" => format!(
                "{generic}: for `(a..b).rev()` write `for k in 0..(b - a) {{ let i = b - 1 - k; ... }}`"
            ),
            "step_by" => format!(
                "{generic}: for `(a..b).step_by(s)` write `for k in 0..(b - a + s - 1) / s {{ let i = a + k * s; ... }}`"
            ),
            _ => return None,
        })
    }

    fn if_stmt(&mut self, i: &syn::ExprIf) -> DResult<StmtKind> {
        let cond = self.expr_as(&i.cond, &Ty::Bool)?;
        let then = self.block(&i.then_branch)?;
        let otherwise = match &i.else_branch {
            None => vec![],
            Some((_, e)) => match &**e {
                syn::Expr::Block(b) => self.block(&b.block)?,
                syn::Expr::If(nested) => {
                    let span = nested.span();
                    vec![Stmt {
                        kind: self.if_stmt(nested)?,
                        span,
                        line: line_of(span),
                    }]
                }
                other => bail!(other.span(), "expected a block after `else`"),
            },
        };
        Ok(StmtKind::If {
            cond,
            then,
            otherwise,
        })
    }
}

/// A lone `;`, which Rust allows between statements (syn keeps it as an empty expression, with no
/// span of its own).
fn is_empty(stmt: &syn::Stmt) -> bool {
    matches!(stmt, syn::Stmt::Expr(syn::Expr::Verbatim(t), Some(_)) if t.is_empty())
}

fn loop_var(pat: &syn::Pat) -> DResult<String> {
    match pat {
        syn::Pat::Ident(pi)
            if pi.by_ref.is_none() && pi.mutability.is_none() && pi.subpat.is_none() =>
        {
            Ok(pi.ident.to_string())
        }
        other => bail!(other.span(), "a loop variable must be a plain name"),
    }
}

/// The iterator adaptors a `for` loop may apply, for [`Lowerer::iterator_alternative`].
const ADAPTORS: &[&str] = &[
    "enumerate",
    "iter",
    "into_iter",
    "iter_mut",
    "zip",
    "chunks",
    "windows",
    "copied",
    "cloned",
    "skip",
    "take",
    "rev",
    "step_by",
];

fn compound_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as S;
    Some(match op {
        S::AddAssign(_) => BinOp::Add,
        S::SubAssign(_) => BinOp::Sub,
        S::MulAssign(_) => BinOp::Mul,
        S::DivAssign(_) => BinOp::Div,
        S::RemAssign(_) => BinOp::Rem,
        S::BitAndAssign(_) => BinOp::BitAnd,
        S::BitOrAssign(_) => BinOp::BitOr,
        S::BitXorAssign(_) => BinOp::BitXor,
        S::ShlAssign(_) => BinOp::Shl,
        S::ShrAssign(_) => BinOp::Shr,
        _ => return None,
    })
}

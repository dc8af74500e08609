//! The kernel-body language: a `syn` function becomes a typed [`Kernel`].
//!
//! The language is a small Rust subset: `let`, assignment and compound assignment, `if`/`else`,
//! `for` over `a.tiles()`, `a.atoms(tile)`, `a.all_atoms()` and integer ranges, indexing, `as`
//! casts, literals, arithmetic, comparison and logic, and the builtins of [`Builtin`]. Types follow
//! Rust's rules (no implicit conversions), with one addition: an unsuffixed literal takes the type its
//! context needs, and a `let` initialised by an unsuffixed float literal gets the kernel's element type
//! `T` when the kernel has one (f64 otherwise). Everything else is an error at its span.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::diag::{bail, DResult};
use crate::ir::*;
use crate::schedule::ScheduleConfig;

/// Turns an annotated function into a kernel. `file` is the Rust source file for `#line`.
pub fn lower_fn(item: &syn::ItemFn, config: ScheduleConfig, file: &str) -> DResult<Kernel> {
    let sig = &item.sig;
    if let Some(t) = &sig.asyncness {
        bail!(t.span(), "a kernel cannot be `async`");
    }
    if let Some(t) = &sig.constness {
        bail!(t.span(), "a kernel cannot be `const`");
    }
    if let Some(t) = &sig.unsafety {
        bail!(t.span(), "a kernel body is checked; drop `unsafe`");
    }
    if let syn::ReturnType::Type(_, ty) = &sig.output {
        bail!(
            ty.span(),
            "a kernel returns nothing: write its results into `&mut` slices"
        );
    }
    if let Some(v) = &sig.variadic {
        bail!(v.span(), "a kernel cannot be variadic");
    }
    let mut type_params = Vec::new();
    for g in &sig.generics.params {
        match g {
            syn::GenericParam::Type(t) => type_params.push(t.ident.to_string()),
            other => bail!(
                other.span(),
                "a kernel's only generic parameters are element types like `T: Float`"
            ),
        }
    }

    let mut params = Vec::new();
    for input in &sig.inputs {
        let syn::FnArg::Typed(pt) = input else {
            bail!(input.span(), "a kernel is a free function: no `self`");
        };
        let syn::Pat::Ident(pi) = &*pt.pat else {
            bail!(pt.pat.span(), "a kernel parameter must be a plain name");
        };
        let name = pi.ident.to_string();
        check_name(&name, pi.ident.span())?;
        let kind = param_kind(&pt.ty, &type_params)?;
        params.push(Param {
            name,
            kind,
            span: pi.ident.span(),
        });
    }

    let default_float = match type_params.as_slice() {
        [t] => Ty::Param(t.clone()),
        _ => Ty::F64,
    };
    let mut lowerer = Lowerer {
        params: &params,
        type_params: &type_params,
        scopes: vec![HashMap::new()],
        tile: None,
        atom_var: None,
        default_float,
    };
    let body = lowerer.tile_loop(&item.block)?;
    Ok(Kernel {
        name: sig.ident.to_string(),
        type_params,
        params,
        body,
        config,
        file: file.to_string(),
    })
}

/// The names the generated CUDA uses for itself; a user name must not clash with them.
fn check_name(name: &str, span: Span) -> DResult<()> {
    if name.starts_with("loops_") {
        bail!(
            span,
            "names starting with `loops_` are reserved for the generated CUDA; rename `{name}`"
        );
    }
    if crate::emit::is_cuda_keyword(name) {
        bail!(
            span,
            "`{name}` is a keyword in CUDA C++, which this kernel becomes; rename it"
        );
    }
    Ok(())
}

fn param_kind(ty: &syn::Type, type_params: &[String]) -> DResult<ParamKind> {
    match ty {
        syn::Type::Reference(r) => {
            let syn::Type::Slice(s) = &*r.elem else {
                bail!(
                    r.elem.span(),
                    "a reference parameter must be a slice: `&[T]` or `&mut [T]`"
                );
            };
            let elem = scalar_type(&s.elem, type_params)?;
            if elem == Ty::Bool {
                bail!(
                    s.elem.span(),
                    "`bool` slices are not supported: use `u32` or `i32` flags"
                );
            }
            Ok(ParamKind::Slice {
                elem,
                mutable: r.mutability.is_some(),
            })
        }
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last().expect("a path has a segment");
            if let Some(format) = Format::from_rust(&last.ident.to_string()) {
                let f = format.rust_name();
                if !format.has_values() {
                    if !last.arguments.is_empty() {
                        bail!(
                            last.arguments.span(),
                            "`{f}` takes no type argument: it holds offsets only"
                        );
                    }
                    return Ok(ParamKind::TileSet { format, elem: None });
                }
                let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                    bail!(
                        last.span(),
                        "`{f}` needs its value type: `{f}<f32>`, `{f}<f64>` or `{f}<T>`"
                    );
                };
                let [syn::GenericArgument::Type(elem)] = args.args.iter().collect::<Vec<_>>()[..]
                else {
                    bail!(args.span(), "`{f}` takes one type argument: its value type");
                };
                let elem = scalar_type(elem, type_params)?;
                if !elem.is_float() {
                    bail!(
                        args.span(),
                        "`{f}` values must be `f32`, `f64` or a type parameter"
                    );
                }
                Ok(ParamKind::TileSet {
                    format,
                    elem: Some(elem),
                })
            } else {
                Ok(ParamKind::Scalar(scalar_type(ty, type_params)?))
            }
        }
        other => bail!(
            other.span(),
            "unsupported parameter type: a kernel takes tile sets (`Csr<T>`, `Csc<T>`, `Coo<T>`, `Offsets`), `&[T]`, `&mut [T]` and scalars"
        ),
    }
}

fn scalar_type(ty: &syn::Type, type_params: &[String]) -> DResult<Ty> {
    if let syn::Type::Path(p) = ty {
        if let Some(ident) = p.path.get_ident() {
            let name = ident.to_string();
            if let Some(t) = Ty::from_rust(&name) {
                return Ok(t);
            }
            if type_params.contains(&name) {
                return Ok(Ty::Param(name));
            }
        }
    }
    bail!(
        ty.span(),
        "unsupported type `{}`: expected f32, f64, i32, u32, i64, u64, usize, bool or a type parameter",
        quote::ToTokens::to_token_stream(ty)
    )
}

#[derive(Clone, Debug)]
struct Var {
    ty: Ty,
    mutable: bool,
}

struct Lowerer<'a> {
    params: &'a [Param],
    type_params: &'a [String],
    scopes: Vec<HashMap<String, Var>>,
    /// The tile set and tile variable of the tile loop, once inside it.
    tile: Option<(String, String)>,
    /// The atom variable, inside an atom loop.
    atom_var: Option<String>,
    default_float: Ty,
}

fn line_of(span: Span) -> usize {
    span.start().line
}

impl Lowerer<'_> {
    fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }

    fn lookup(&self, name: &str) -> Option<&Var> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn declare(&mut self, name: &str, span: Span, var: Var) -> DResult<()> {
        check_name(name, span)?;
        if self.param(name).is_some() || self.lookup(name).is_some() {
            // C++ cannot redeclare a name in one scope, and the host-side length checks read the tile
            // and atom variables by name: a kernel body names each variable once.
            bail!(span, "`{name}` is already defined; shadowing is not supported in a kernel body, rename it");
        }
        for p in self.params {
            if crate::emit::derived_param_names(p)
                .iter()
                .any(|d| d == name)
            {
                bail!(
                    span,
                    "`{name}` is the generated name of a part of `{}`; rename it",
                    p.name
                );
            }
        }
        self.scopes
            .last_mut()
            .expect("a scope")
            .insert(name.to_string(), var);
        Ok(())
    }

    /// Runs `body` in a new scope where the loop variable `name` (immutable, of type `ty`) is declared.
    fn with_loop_var<R>(
        &mut self,
        name: &str,
        span: Span,
        ty: Ty,
        body: impl FnOnce(&mut Self) -> DResult<R>,
    ) -> DResult<R> {
        self.scopes.push(HashMap::new());
        let result = self
            .declare(name, span, Var { ty, mutable: false })
            .and_then(|()| body(self));
        self.scopes.pop();
        result
    }

    /// The tile-set parameter `expr` names, and its format.
    fn tile_set(&self, expr: &syn::Expr) -> DResult<(String, Format)> {
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

    fn set_elem(&self, set: &str) -> Option<Ty> {
        match &self.param(set).expect("checked tile set").kind {
            ParamKind::TileSet { elem, .. } => elem.clone(),
            _ => unreachable!("checked tile set"),
        }
    }

    /// The function body: exactly one loop over a tile set.
    fn tile_loop(&mut self, block: &syn::Block) -> DResult<TileLoop> {
        let hint = "the kernel body must be one `for tile in a.tiles() { ... }` or \
                    `for atom in a.all_atoms() { ... }` loop";
        let [syn::Stmt::Expr(syn::Expr::ForLoop(f), _)] = block.stmts.as_slice() else {
            let span = block
                .stmts
                .first()
                .map(|s| s.span())
                .unwrap_or(block.span());
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
                if !contains_atom_loop(&body) {
                    bail!(
                        f.body.span(),
                        "this tile loop has no atom loop: add `for atom in {set}.atoms({var}) {{ ... }}`"
                    );
                }
                Ok(TileLoop {
                    set,
                    tile: var,
                    body,
                    span: f.span(),
                    line,
                    subset: None,
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
                    self.with_loop_var(&var, f.pat.span(), Ty::Usize, |me| me.block(&f.body))?;
                self.atom_var = None;
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
        if !contains_atom_loop(&user_body) {
            bail!(
                f.body.span(),
                "this tile loop has no atom loop: add `for atom in {set}.atoms({var}) {{ ... }}`"
            );
        }
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

    fn block(&mut self, block: &syn::Block) -> DResult<Block> {
        self.scopes.push(HashMap::new());
        let mut out = Vec::new();
        for stmt in &block.stmts {
            out.push(self.stmt(stmt)?);
        }
        self.scopes.pop();
        Ok(out)
    }

    fn stmt(&mut self, stmt: &syn::Stmt) -> DResult<Stmt> {
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
                );
                if semi.is_none() && !block_like {
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
            syn::Stmt::Macro(m) => bail!(
                m.span(),
                "macros are not allowed in a kernel body (`{}!`)",
                quote::ToTokens::to_token_stream(&m.mac.path)
            ),
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
        let init = match &annotated {
            Some(ty) => self.expr_as(&init.expr, ty)?,
            None => self.expr_default(&init.expr)?,
        };
        let name = pi.ident.to_string();
        let ty = init.ty.clone();
        self.declare(
            &name,
            pi.ident.span(),
            Var {
                ty: ty.clone(),
                mutable: pi.mutability.is_some(),
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
                let value = self.expr_as(&a.right, &place.ty)?;
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
                    self.expr_as(&b.right, &place.ty)?
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

    fn place(&mut self, e: &syn::Expr) -> DResult<Expr> {
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
        let var = loop_var(&f.pat)?;
        match &*f.expr {
            syn::Expr::Range(r) => {
                let (Some(start), Some(end)) = (&r.start, &r.end) else {
                    bail!(r.span(), "a range loop needs both bounds: `for i in a..b`");
                };
                // The loop variable takes the type of whichever bound is typed; both literals: usize.
                let (start, end) = self.binary_operands(start, end, Some(&Ty::Usize))?;
                if start.ty != end.ty {
                    bail!(r.span(), "range bounds have different types `{}` and `{}`", start.ty.rust_name(), end.ty.rust_name());
                }
                if !start.ty.is_integer() {
                    bail!(r.span(), "a range loop runs over integers, not `{}`", start.ty.rust_name());
                }
                let ty = start.ty.clone();
                let body = self.with_loop_var(&var, f.pat.span(), ty.clone(), |me| me.block(&f.body))?;
                let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
                Ok(StmtKind::ForRange { var, ty, start, end, inclusive, body })
            }
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
                let body = self.with_loop_var(&var, f.pat.span(), Ty::Usize, |me| me.block(&f.body));
                self.atom_var = None;
                Ok(StmtKind::ForAtoms { var, set, tile, body: body? })
            }
            syn::Expr::MethodCall(call) if call.method == "tiles" || call.method == "all_atoms" || call.method == "tiles_in" => {
                bail!(call.span(), "a kernel has one tile loop, at the top of its body")
            }
            other => bail!(
                other.span(),
                "a `for` loop runs over a range (`a..b`) or a tile's atoms (`a.atoms(tile)`), nothing else"
            ),
        }
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

    /// An expression whose type must be `ty` (literals adopt it).
    fn expr_as(&mut self, e: &syn::Expr, ty: &Ty) -> DResult<Expr> {
        let lowered = self.expr(e, Some(ty))?;
        if &lowered.ty != ty {
            bail!(
                e.span(),
                "mismatched types: expected `{}`, found `{}` (convert with `as {}`)",
                ty.rust_name(),
                lowered.ty.rust_name(),
                ty.rust_name()
            );
        }
        Ok(lowered)
    }

    /// An expression with no expected type: literals take their defaults.
    fn expr_default(&mut self, e: &syn::Expr) -> DResult<Expr> {
        self.expr(e, None)
    }

    /// Lowers two operands that must agree in type. An unsuffixed literal on one side takes the other
    /// side's type, so it is lowered second.
    fn binary_operands(
        &mut self,
        l: &syn::Expr,
        r: &syn::Expr,
        expected: Option<&Ty>,
    ) -> DResult<(Expr, Expr)> {
        if is_untyped_literal(l) && !is_untyped_literal(r) {
            let r = self.expr(r, expected)?;
            let l = self.expr(l, Some(&r.ty))?;
            Ok((l, r))
        } else {
            let l = self.expr(l, expected)?;
            let r = self.expr(r, Some(&l.ty))?;
            Ok((l, r))
        }
    }

    fn expr(&mut self, e: &syn::Expr, expected: Option<&Ty>) -> DResult<Expr> {
        let span = e.span();
        let mk = |kind, ty| Ok(Expr { kind, ty, span });
        match e {
            syn::Expr::Lit(l) => self.literal(&l.lit, expected, false),
            syn::Expr::Paren(p) => self.expr(&p.expr, expected),
            syn::Expr::Group(g) => self.expr(&g.expr, expected),
            syn::Expr::Path(p) => {
                let name = path_name(p)?;
                if let Some(v) = self.lookup(&name) {
                    return mk(ExprKind::Var(name), v.ty.clone());
                }
                match self.param(&name).map(|p| &p.kind) {
                    Some(ParamKind::Scalar(ty)) => mk(ExprKind::Var(name), ty.clone()),
                    Some(ParamKind::Slice { .. }) => bail!(span, "`{name}` is a slice: index it (`{name}[i]`) or take `{name}.len()`"),
                    Some(ParamKind::TileSet { format, .. }) => bail!(span, "`{name}` is a tile set: use its arrays ({}) and sizes ({})", arrays_list(*format), properties_list(*format)),
                    None => bail!(span, "cannot find `{name}` in this kernel"),
                }
            }
            syn::Expr::Index(ix) => self.index(ix),
            syn::Expr::Unary(u) => match u.op {
                syn::UnOp::Neg(_) => {
                    if let syn::Expr::Lit(l) = &*u.expr {
                        return self.literal(&l.lit, expected, true);
                    }
                    let inner = self.expr(&u.expr, expected)?;
                    if !(inner.ty.is_float() || inner.ty.is_signed_integer()) {
                        bail!(span, "cannot negate a value of type `{}`", inner.ty.rust_name());
                    }
                    let ty = inner.ty.clone();
                    mk(ExprKind::Unary { op: UnOp::Neg, expr: Box::new(inner) }, ty)
                }
                syn::UnOp::Not(_) => {
                    let inner = self.expr(&u.expr, expected)?;
                    if !(inner.ty == Ty::Bool || inner.ty.is_integer()) {
                        bail!(span, "`!` needs a bool or an integer, not `{}`", inner.ty.rust_name());
                    }
                    let ty = inner.ty.clone();
                    mk(ExprKind::Unary { op: UnOp::Not, expr: Box::new(inner) }, ty)
                }
                syn::UnOp::Deref(_) => bail!(span, "dereferencing is not supported in a kernel body"),
                _ => bail!(span, "unsupported unary operator"),
            },
            syn::Expr::Binary(b) => {
                let Some(op) = binary_op(&b.op) else {
                    bail!(b.op.span(), "`{}` is an assignment: it must be a statement of its own", quote::ToTokens::to_token_stream(&b.op));
                };
                if op.is_logical() {
                    let l = self.expr_as(&b.left, &Ty::Bool)?;
                    let r = self.expr_as(&b.right, &Ty::Bool)?;
                    return mk(ExprKind::Binary { op, lhs: Box::new(l), rhs: Box::new(r) }, Ty::Bool);
                }
                if op.is_shift() {
                    let l = self.expr(&b.left, expected)?;
                    let r = self.expr_default(&b.right)?;
                    if !l.ty.is_integer() || !r.ty.is_integer() {
                        bail!(b.op.span(), "shifts need integers");
                    }
                    let ty = l.ty.clone();
                    return mk(ExprKind::Binary { op, lhs: Box::new(l), rhs: Box::new(r) }, ty);
                }
                let operand_hint = if op.is_comparison() { None } else { expected };
                let (l, r) = self.binary_operands(&b.left, &b.right, operand_hint)?;
                check_arith(op, &l.ty, &r.ty, b.op.span())?;
                let ty = if op.is_comparison() { Ty::Bool } else { l.ty.clone() };
                mk(ExprKind::Binary { op, lhs: Box::new(l), rhs: Box::new(r) }, ty)
            }
            syn::Expr::Cast(c) => {
                let to = scalar_type(&c.ty, self.type_params)?;
                let inner = self.expr_default(&c.expr)?;
                if (inner.ty == Ty::Bool) != (to == Ty::Bool) && inner.ty != to {
                    bail!(span, "cannot cast `{}` as `{}`", inner.ty.rust_name(), to.rust_name());
                }
                mk(ExprKind::Cast { expr: Box::new(inner), to: to.clone() }, to)
            }
            syn::Expr::Call(call) => {
                let syn::Expr::Path(p) = &*call.func else {
                    bail!(call.func.span(), "only builtin functions can be called in a kernel body");
                };
                let name = path_name(p)?;
                let Some(builtin) = Builtin::from_name(&name) else {
                    bail!(call.func.span(), "`{name}` is not a kernel builtin; available: min, max, abs, sqrt, atomic_add, atomic_min, atomic_max");
                };
                let args: Vec<&syn::Expr> = call.args.iter().collect();
                self.builtin(builtin, &args, expected, span)
            }
            syn::Expr::MethodCall(m) => self.method_call(m, expected),
            syn::Expr::Reference(r) => bail!(r.span(), "references appear only as the first argument of an atomic: `atomic_add(&mut y[i], v)`"),
            other => bail!(span, "{}", unsupported_expr(other)),
        }
    }

    fn method_call(&mut self, m: &syn::ExprMethodCall, expected: Option<&Ty>) -> DResult<Expr> {
        let span = m.span();
        let method = m.method.to_string();
        if m.turbofish.is_some() {
            bail!(m.span(), "turbofish is not supported in a kernel body");
        }
        // Methods of parameters: tile-set properties and slice lengths.
        if let syn::Expr::Path(p) = &*m.receiver {
            if let Some(recv) = p.path.get_ident().map(|i| i.to_string()) {
                if self.lookup(&recv).is_none() {
                    match self.param(&recv).map(|p| p.kind.clone()) {
                        Some(ParamKind::TileSet { format, .. }) => {
                            let property = match method.as_str() {
                                "tile_of" => {
                                    return self.tile_of(&recv, m);
                                }
                                "tiles" | "atoms" | "all_atoms" | "tiles_in" => bail!(span, "`{recv}.{method}()` is only a `for` loop's range"),
                                name => match SetProperty::from_rust(name) {
                                    Some(p) if format.is_matrix() || matches!(p, SetProperty::Tiles | SetProperty::Atoms) => p,
                                    Some(_) => bail!(m.method.span(), "`{recv}` is an `Offsets` tile set, not a matrix: it has no `{name}()`; use {}", properties_list(format)),
                                    None => bail!(m.method.span(), "no method `{method}` on tile set `{recv}`; it has {}, tiles(), tiles_in(list), atoms(tile), all_atoms(), tile_of(atom)", properties_list(format)),
                                },
                            };
                            if !m.args.is_empty() {
                                bail!(m.args.span(), "`{recv}.{method}()` takes no arguments");
                            }
                            return Ok(Expr {
                                kind: ExprKind::SetProperty {
                                    set: recv,
                                    property,
                                },
                                ty: Ty::Usize,
                                span,
                            });
                        }
                        Some(ParamKind::Slice { .. }) if method == "len" => {
                            if !m.args.is_empty() {
                                bail!(m.args.span(), "`len()` takes no arguments");
                            }
                            return Ok(Expr {
                                kind: ExprKind::SliceLen(recv),
                                ty: Ty::Usize,
                                span,
                            });
                        }
                        _ => {}
                    }
                }
            }
        }
        // Rust's own numeric methods: `x.abs()`, `x.sqrt()`, `a.min(b)`, `a.max(b)`.
        let Some(builtin) = Builtin::from_name(&method).filter(|b| !b.is_atomic()) else {
            bail!(m.method.span(), "`{method}` is not a method the kernel language knows; available: abs, sqrt, min, max, len");
        };
        let mut args: Vec<&syn::Expr> = vec![&m.receiver];
        args.extend(m.args.iter());
        self.builtin(builtin, &args, expected, span)
    }

    fn tile_of(&mut self, set: &str, m: &syn::ExprMethodCall) -> DResult<Expr> {
        let span = m.span();
        let Some(atom) = self.atom_var.clone() else {
            bail!(
                span,
                "`{set}.tile_of(atom)` is only meaningful inside an atom loop"
            );
        };
        let [arg] = m.args.iter().collect::<Vec<_>>()[..] else {
            bail!(span, "`tile_of` takes the atom: `{set}.tile_of({atom})`");
        };
        if !matches!(arg, syn::Expr::Path(p) if p.path.is_ident(&atom)) {
            bail!(
                arg.span(),
                "`tile_of` looks up the current atom's tile: `{set}.tile_of({atom})`"
            );
        }
        let (tile_set, tile) = self.tile.clone().expect("inside an atom loop");
        if tile_set != set {
            bail!(
                m.receiver.span(),
                "this atom belongs to `{tile_set}`, not `{set}`: write `{tile_set}.tile_of({atom})`"
            );
        }
        Ok(Expr {
            kind: ExprKind::Var(tile),
            ty: Ty::Usize,
            span,
        })
    }

    fn builtin(
        &mut self,
        builtin: Builtin,
        args: &[&syn::Expr],
        expected: Option<&Ty>,
        span: Span,
    ) -> DResult<Expr> {
        if args.len() != builtin.arity() {
            bail!(
                span,
                "`{}` takes {} argument(s), found {}",
                builtin_name(builtin),
                builtin.arity(),
                args.len()
            );
        }
        let (args, ty) = if builtin.is_atomic() {
            let syn::Expr::Reference(r) = args[0] else {
                bail!(
                    args[0].span(),
                    "the first argument of `{}` is the place to update: `&mut y[i]`",
                    builtin_name(builtin)
                );
            };
            if r.mutability.is_none() {
                bail!(r.span(), "an atomic updates its target: write `&mut`");
            }
            let place = self.place(&r.expr)?;
            if !matches!(place.kind, ExprKind::Index { .. }) {
                bail!(
                    r.expr.span(),
                    "an atomic updates a slice element (`&mut y[i]`), not a local variable"
                );
            }
            let value = self.expr_as(args[1], &place.ty)?;
            if builtin == Builtin::AtomicAdd && place.ty == Ty::Bool {
                bail!(span, "`atomic_add` needs a number");
            }
            let ty = place.ty.clone();
            (vec![place, value], ty)
        } else if args.len() == 2 {
            let (a, b) = self.binary_operands(args[0], args[1], expected)?;
            if a.ty != b.ty {
                bail!(
                    span,
                    "`{}` needs two arguments of one type, found `{}` and `{}`",
                    builtin_name(builtin),
                    a.ty.rust_name(),
                    b.ty.rust_name()
                );
            }
            let ty = a.ty.clone();
            (vec![a, b], ty)
        } else {
            let a = self.expr(args[0], expected)?;
            let ty = a.ty.clone();
            (vec![a], ty)
        };
        if ty == Ty::Bool {
            bail!(
                span,
                "`{}` needs numbers, not `bool`",
                builtin_name(builtin)
            );
        }
        if builtin == Builtin::Sqrt && !ty.is_float() {
            bail!(span, "`sqrt` needs a float, not `{}`", ty.rust_name());
        }
        if builtin == Builtin::Abs && !(ty.is_float() || ty.is_signed_integer()) {
            bail!(
                span,
                "`abs` needs a float or a signed integer, not `{}`",
                ty.rust_name()
            );
        }
        Ok(Expr {
            kind: ExprKind::Call { builtin, args },
            ty,
            span,
        })
    }

    fn index(&mut self, ix: &syn::ExprIndex) -> DResult<Expr> {
        let span = ix.span();
        let (base, elem) = match &*ix.expr {
            syn::Expr::Path(p) => {
                let name = path_name(p)?;
                match self.param(&name).map(|p| &p.kind) {
                    Some(ParamKind::Slice { elem, .. }) if self.lookup(&name).is_none() => {
                        (Indexed::Slice(name), elem.clone())
                    }
                    _ => bail!(
                        ix.expr.span(),
                        "`{name}` is not a slice parameter: only slices can be indexed"
                    ),
                }
            }
            syn::Expr::Field(f) => {
                let (set, format) = self.tile_set(&f.base)?;
                let fmt = format.rust_name();
                let syn::Member::Named(field) = &f.member else {
                    bail!(
                        f.member.span(),
                        "`{set}` (a `{fmt}` tile set) has the arrays {}",
                        arrays_list(format)
                    );
                };
                let name = field.to_string();
                let array = match SetArray::from_rust(&name) {
                    Some(a) if format.arrays().contains(&a) => a,
                    _ => bail!(
                        field.span(),
                        "no array `{name}` in `{set}`, a `{fmt}` tile set ({}); it has {}",
                        format.describe(),
                        arrays_list(format)
                    ),
                };
                let elem = match array {
                    SetArray::Values => self.set_elem(&set).expect("a format with values"),
                    _ => Ty::I32,
                };
                (Indexed::SetArray { set, format, array }, elem)
            }
            other => bail!(
                other.span(),
                "only slice parameters and a tile set's arrays can be indexed"
            ),
        };
        let index = self.expr(&ix.index, Some(&Ty::Usize))?;
        if !index.ty.is_integer() {
            bail!(
                ix.index.span(),
                "an index must be an integer, not `{}`",
                index.ty.rust_name()
            );
        }
        Ok(Expr {
            kind: ExprKind::Index {
                base,
                index: Box::new(index),
            },
            ty: elem,
            span,
        })
    }

    fn literal(&self, lit: &syn::Lit, expected: Option<&Ty>, negative: bool) -> DResult<Expr> {
        let span = lit.span();
        let sign = if negative { "-" } else { "" };
        let (digits, suffix, is_float) = match lit {
            syn::Lit::Int(i) => (i.base10_digits().to_string(), i.suffix().to_string(), false),
            syn::Lit::Float(f) => (f.base10_digits().to_string(), f.suffix().to_string(), true),
            syn::Lit::Bool(b) => {
                if negative {
                    bail!(span, "cannot negate a bool");
                }
                return Ok(Expr {
                    kind: ExprKind::Lit(b.value.to_string()),
                    ty: Ty::Bool,
                    span,
                });
            }
            other => bail!(
                other.span(),
                "only number and bool literals are allowed in a kernel body"
            ),
        };
        let ty = if !suffix.is_empty() {
            let Some(t) = Ty::from_rust(&suffix) else {
                bail!(span, "unsupported literal suffix `{suffix}`");
            };
            t
        } else {
            match expected {
                Some(t) if t.is_float() => t.clone(),
                Some(t) if t.is_integer() && !is_float => t.clone(),
                Some(t) if t.is_integer() => {
                    bail!(span, "expected `{}`, found a float literal", t.rust_name())
                }
                _ if is_float => self.default_float.clone(),
                Some(Ty::Bool) => bail!(span, "expected `bool`, found a number"),
                _ => Ty::I32,
            }
        };
        if negative && !(ty.is_float() || ty.is_signed_integer()) {
            bail!(span, "cannot negate a value of type `{}`", ty.rust_name());
        }
        if is_float && ty.is_integer() {
            bail!(
                span,
                "a float literal cannot have integer type `{}`",
                ty.rust_name()
            );
        }
        Ok(Expr {
            kind: ExprKind::Lit(crate::emit::cuda_literal(
                &format!("{sign}{digits}"),
                &ty,
                is_float,
            )),
            ty,
            span,
        })
    }
}

/// `` `values`, `col_indices`, `row_offsets` ``: a format's arrays, for messages.
fn arrays_list(format: Format) -> String {
    let names: Vec<String> = format
        .arrays()
        .iter()
        .map(|a| format!("`{}`", a.rust_name()))
        .collect();
    names.join(", ")
}

/// `rows(), cols(), nnz(), num_tiles(), num_atoms()`: a format's size methods, for messages.
fn properties_list(format: Format) -> &'static str {
    if format.is_matrix() {
        "rows(), cols(), nnz(), num_tiles(), num_atoms()"
    } else {
        "num_tiles(), num_atoms()"
    }
}

fn builtin_name(b: Builtin) -> &'static str {
    b.cuda().trim_start_matches("loops_")
}

fn check_arith(op: BinOp, l: &Ty, r: &Ty, span: Span) -> DResult<()> {
    if l != r {
        bail!(
            span,
            "mismatched types `{}` and `{}` in `{}`: convert one with `as`",
            l.rust_name(),
            r.rust_name(),
            op.cuda()
        );
    }
    let ok = match op {
        BinOp::Eq | BinOp::Ne => true,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => *l != Ty::Bool,
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => *l != Ty::Bool,
        BinOp::Rem => l.is_integer(),
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => l.is_integer() || *l == Ty::Bool,
        BinOp::Shl | BinOp::Shr => l.is_integer(),
        BinOp::And | BinOp::Or => *l == Ty::Bool,
    };
    if !ok {
        bail!(
            span,
            "`{}` is not defined for `{}` in a kernel body",
            op.cuda(),
            l.rust_name()
        );
    }
    Ok(())
}

fn is_untyped_literal(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.suffix().is_empty(),
            syn::Lit::Float(f) => f.suffix().is_empty(),
            _ => false,
        },
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => is_untyped_literal(&u.expr),
        syn::Expr::Paren(p) => is_untyped_literal(&p.expr),
        _ => false,
    }
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

fn path_name(p: &syn::ExprPath) -> DResult<String> {
    match p.path.get_ident() {
        Some(id) if p.qself.is_none() => Ok(id.to_string()),
        _ => bail!(p.span(), "paths (`a::b`, `T::zero()`) are not supported in a kernel body; use a literal like `0.0`"),
    }
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

fn binary_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as S;
    Some(match op {
        S::Add(_) => BinOp::Add,
        S::Sub(_) => BinOp::Sub,
        S::Mul(_) => BinOp::Mul,
        S::Div(_) => BinOp::Div,
        S::Rem(_) => BinOp::Rem,
        S::And(_) => BinOp::And,
        S::Or(_) => BinOp::Or,
        S::BitAnd(_) => BinOp::BitAnd,
        S::BitOr(_) => BinOp::BitOr,
        S::BitXor(_) => BinOp::BitXor,
        S::Shl(_) => BinOp::Shl,
        S::Shr(_) => BinOp::Shr,
        S::Eq(_) => BinOp::Eq,
        S::Ne(_) => BinOp::Ne,
        S::Lt(_) => BinOp::Lt,
        S::Le(_) => BinOp::Le,
        S::Gt(_) => BinOp::Gt,
        S::Ge(_) => BinOp::Ge,
        _ => return None,
    })
}

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

/// Names the construct the kernel language lacks, for the error message.
fn unsupported_expr(e: &syn::Expr) -> String {
    let what = match e {
        syn::Expr::Closure(_) => "closures",
        syn::Expr::While(_) => "`while` loops",
        syn::Expr::Loop(_) => "`loop`",
        syn::Expr::Match(_) => "`match`",
        syn::Expr::Return(_) => "`return`",
        syn::Expr::Break(_) => "`break`",
        syn::Expr::Continue(_) => "`continue`",
        syn::Expr::Async(_) | syn::Expr::Await(_) => "async code",
        syn::Expr::Macro(_) => "macros",
        syn::Expr::Tuple(_) => "tuples",
        syn::Expr::Array(_) | syn::Expr::Repeat(_) => "arrays",
        syn::Expr::Struct(_) => "struct literals",
        syn::Expr::Field(_) => "field access",
        syn::Expr::Range(_) => "ranges outside a `for` loop",
        syn::Expr::Unsafe(_) => "`unsafe` blocks",
        syn::Expr::Try(_) => "the `?` operator",
        syn::Expr::If(_) => "`if` as a value",
        syn::Expr::Let(_) => "`let` in expressions",
        _ => "this expression",
    };
    format!("{what} are not supported in a kernel body")
}

//! `#[loops::device]` helpers: their signatures (scalars in, a scalar out), their bodies (the
//! kernel language, plus `return` and a final expression), calls of them from kernels and from
//! each other (a call binds the helper's type parameters from its arguments), and the refusal of
//! recursion.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::spanned::Spanned;

use super::expr::is_untyped_literal;
use super::{check_name, scalar_type, Lowerer, Var};
use crate::diag::{bail, DResult, Diagnostic};
use crate::ir::*;
use crate::schedule::Kernel;
use crate::schedule::ScheduleConfig;

/// A helper's definition as the macro hands it over: the function, and the Rust file it is
/// written in (for `#line`; it may differ from the kernel's).
#[derive(Clone)]
pub struct HelperItem {
    pub item: syn::ItemFn,
    pub file: String,
}

/// What a call of a helper needs to know: its signature.
#[derive(Clone, Debug)]
pub(super) struct HelperSig {
    name: String,
    type_params: Vec<String>,
    /// `(name, type, mutable, span)`.
    params: Vec<(String, Ty, bool, Span)>,
    ret: Ty,
}

/// Lowers a kernel that calls the helpers of `helpers` (which may call each other): every helper's
/// body is lowered and checked, recursion is refused, and the kernel keeps the helpers its body
/// reaches, callees first. A call of a function that is neither a builtin nor among `helpers` is an
/// error with [`Diagnostic::wanted_helper`] set: the macro fetches that helper and comes back.
pub fn lower_kernel(
    item: &syn::ItemFn,
    helpers: &[HelperItem],
    config: ScheduleConfig,
    file: &str,
) -> DResult<Kernel> {
    let sigs = helpers
        .iter()
        .map(|h| helper_signature(&h.item))
        .collect::<DResult<Vec<_>>>()?;
    let mut kernel = super::lower_kernel_fn(item, &sigs, config, file)?;
    let lowered = helpers
        .iter()
        .zip(&sigs)
        .map(|(h, sig)| lower_helper(sig, h, &sigs))
        .collect::<DResult<Vec<_>>>()?;
    let ordered = callees_first(lowered)?;
    let reached = reached_from(&kernel.body.body, &ordered);
    kernel.helpers = ordered
        .into_iter()
        .filter(|h| reached.contains(&h.name))
        .collect();
    Ok(kernel)
}

/// Checks a helper on its own, where it is defined: its signature, and its body against the
/// signatures of the helpers in `callees` (its body may call those; a call of any other function
/// asks for it, as in [`lower_kernel`]). Their bodies are checked where they are defined.
pub fn validate_helper(item: &syn::ItemFn, callees: &[HelperItem]) -> DResult<()> {
    let own = HelperItem {
        item: item.clone(),
        file: String::new(),
    };
    let mut sigs = vec![helper_signature(item)?];
    for c in callees {
        sigs.push(helper_signature(&c.item)?);
    }
    let lowered = lower_helper(&sigs[0], &own, &sigs)?;
    callees_first(vec![lowered]).map(|_| ())
}

fn helper_signature(item: &syn::ItemFn) -> DResult<HelperSig> {
    let sig = &item.sig;
    let what = "a `#[loops::device]` helper";
    if let Some(t) = &sig.asyncness {
        bail!(t.span(), "{what} cannot be `async`");
    }
    if let Some(t) = &sig.constness {
        bail!(t.span(), "{what} cannot be `const`");
    }
    if let Some(t) = &sig.unsafety {
        bail!(
            t.span(),
            "{what} is checked like a kernel body; drop `unsafe`"
        );
    }
    if let Some(v) = &sig.variadic {
        bail!(v.span(), "{what} cannot be variadic");
    }
    let name = sig.ident.to_string();
    if Builtin::from_name(&name).is_some() {
        bail!(
            sig.ident.span(),
            "`{name}` is a kernel builtin: give the helper another name"
        );
    }
    let mut type_params = Vec::new();
    for g in &sig.generics.params {
        match g {
            syn::GenericParam::Type(t) => type_params.push(t.ident.to_string()),
            other => bail!(
                other.span(),
                "{what}'s only generic parameters are element types like `T: Float`"
            ),
        }
    }
    let mut params = Vec::new();
    for input in &sig.inputs {
        let syn::FnArg::Typed(pt) = input else {
            bail!(input.span(), "{what} is a free function: no `self`");
        };
        let syn::Pat::Ident(pi) = &*pt.pat else {
            bail!(pt.pat.span(), "{what}'s parameter must be a plain name");
        };
        if pi.by_ref.is_some() || pi.subpat.is_some() {
            bail!(pi.span(), "{what}'s parameter must be a plain name");
        }
        let param = pi.ident.to_string();
        check_name(&param, pi.ident.span())?;
        let takes_scalar = match &*pt.ty {
            syn::Type::Path(p) => p
                .path
                .segments
                .last()
                .is_none_or(|s| Format::from_rust(&s.ident.to_string()).is_none()),
            _ => false,
        };
        if !takes_scalar {
            bail!(
                pt.ty.span(),
                "{what} takes scalars only (f32, f64, i32, u32, i64, u64, usize, bool or a type \
                 parameter): pass it an element (`x[i]`), not a slice or a tile set"
            );
        }
        let ty = scalar_type(&pt.ty, &type_params)?;
        params.push((param, ty, pi.mutability.is_some(), pi.ident.span()));
    }
    let syn::ReturnType::Type(_, ret) = &sig.output else {
        bail!(
            sig.span(),
            "{what} returns a value (it can write nothing else): add its type, `-> f32` or `-> T`"
        );
    };
    let ret = scalar_type(ret, &type_params)?;
    Ok(HelperSig {
        name,
        type_params,
        params,
        ret,
    })
}

/// A helper's body: its statements, the last of which is its value (a final expression, or a
/// `return`), typed against its signature, with `sigs` the helpers it may call.
fn lower_helper(sig: &HelperSig, helper: &HelperItem, sigs: &[HelperSig]) -> DResult<Helper> {
    let item = &helper.item;
    refuse_atomics(
        item.block
            .stmts
            .iter()
            .map(quote::ToTokens::to_token_stream),
    )?;
    // Parameters declared `mut` are local variables the body may assign; the others are
    // parameters, which it may not.
    let params: Vec<Param> = sig
        .params
        .iter()
        .filter(|(_, _, mutable, _)| !mutable)
        .map(|(name, ty, _, span)| Param {
            name: name.clone(),
            kind: ParamKind::Scalar(ty.clone()),
            span: *span,
            block_shared: None,
        })
        .collect();
    let default_float = match sig.type_params.as_slice() {
        [t] => Ty::Param(t.clone()),
        _ => Ty::F64,
    };
    let Some((last, init)) = item.block.stmts.split_last() else {
        bail!(
            item.block.span(),
            "`{}` has an empty body: it must end with its value",
            sig.name
        );
    };
    let body = super::with_inference(|inferred| {
        let mut lowerer = Lowerer {
            params: &params,
            type_params: &sig.type_params,
            scopes: vec![HashMap::new()],
            tile: None,
            atom_var: None,
            loop_depth: 0,
            default_float: default_float.clone(),
            helpers: sigs,
            ret: Some(sig.ret.clone()),
            inferred,
            retry: None,
        };
        let body = helper_body(&mut lowerer, sig, init, last);
        (body, lowerer.retry)
    })?;
    if !returns(&body) {
        bail!(
            last.span(),
            "`{}` must end with its value: a final expression, or `return value;`",
            sig.name
        );
    }
    Ok(Helper {
        name: sig.name.clone(),
        type_params: sig.type_params.clone(),
        params: sig
            .params
            .iter()
            .map(|(n, t, m, _)| (n.clone(), t.clone(), *m))
            .collect(),
        ret: sig.ret.clone(),
        body,
        span: item.sig.ident.span(),
        file: helper.file.clone(),
    })
}

/// A helper's statements, the last one its value.
fn helper_body(
    lowerer: &mut Lowerer<'_>,
    sig: &HelperSig,
    init: &[syn::Stmt],
    last: &syn::Stmt,
) -> DResult<Vec<Stmt>> {
    for (name, ty, mutable, span) in &sig.params {
        if *mutable {
            lowerer.declare(name, *span, Var::new(ty.clone(), true))?;
        }
    }
    let mut body = Vec::new();
    for stmt in init {
        body.push(lowerer.stmt(stmt)?);
    }
    match last {
        // A final `if` / `else` whose branches end in values: each returns its value.
        syn::Stmt::Expr(e @ syn::Expr::If(i), None) if super::expr::is_if_value(e) => {
            let span = e.span();
            let kind = tail_if(lowerer, i, &sig.ret)?;
            body.push(Stmt {
                kind,
                span,
                line: super::line_of(span),
            });
        }
        // The final expression is the value.
        syn::Stmt::Expr(e, None) if !is_block_like(e) => {
            let span = e.span();
            let value = lowerer.expr_as(e, &sig.ret)?;
            body.push(Stmt {
                kind: StmtKind::Return(value),
                span,
                line: super::line_of(span),
            });
        }
        other => body.push(lowerer.stmt(other)?),
    }
    Ok(body)
}

/// A helper's final `if c { ..; a } else { ..; b }`: each branch's final expression is returned.
fn tail_if(lowerer: &mut Lowerer<'_>, i: &syn::ExprIf, ret: &Ty) -> DResult<StmtKind> {
    let cond = lowerer.expr_as(&i.cond, &Ty::Bool)?;
    let then = tail_block(lowerer, &i.then_branch, ret)?;
    let otherwise = match &i.else_branch {
        Some((_, e)) => match &**e {
            syn::Expr::Block(b) => tail_block(lowerer, &b.block, ret)?,
            syn::Expr::If(nested) => {
                let span = nested.span();
                vec![Stmt {
                    kind: tail_if(lowerer, nested, ret)?,
                    span,
                    line: super::line_of(span),
                }]
            }
            other => bail!(other.span(), "expected a block after `else`"),
        },
        None => unreachable!("a value `if` has an `else`"),
    };
    Ok(StmtKind::If {
        cond,
        then,
        otherwise,
    })
}

/// A branch of a helper's final `if`: its statements, then its final expression returned.
fn tail_block(lowerer: &mut Lowerer<'_>, block: &syn::Block, ret: &Ty) -> DResult<Vec<Stmt>> {
    lowerer.scopes.push(HashMap::new());
    let result = (|| {
        let (last, init) = block
            .stmts
            .split_last()
            .expect("a value branch ends in its value");
        let mut out = Vec::new();
        for stmt in init {
            out.push(lowerer.stmt(stmt)?);
        }
        let syn::Stmt::Expr(e, None) = last else {
            unreachable!("a value branch ends in an expression")
        };
        let span = e.span();
        let kind = match e {
            syn::Expr::If(i) if super::expr::is_if_value(e) => tail_if(lowerer, i, ret)?,
            _ => StmtKind::Return(lowerer.expr_as(e, ret)?),
        };
        out.push(Stmt {
            kind,
            span,
            line: super::line_of(span),
        });
        Ok(out)
    })();
    lowerer.scopes.pop();
    result
}

fn is_block_like(e: &syn::Expr) -> bool {
    matches!(
        e,
        syn::Expr::ForLoop(_)
            | syn::Expr::If(_)
            | syn::Expr::Block(_)
            | syn::Expr::While(_)
            | syn::Expr::Loop(_)
            | syn::Expr::Return(_)
    )
}

/// Whether every path through `block` ends in a `return`.
fn returns(block: &[Stmt]) -> bool {
    match block.last().map(|s| &s.kind) {
        Some(StmtKind::Return(_)) => true,
        Some(StmtKind::If {
            then, otherwise, ..
        }) => returns(then) && returns(otherwise),
        _ => false,
    }
}

/// A helper is a pure function of its arguments (so the schedules may evaluate a call anywhere,
/// any number of times): an atomic in its body is an error, found before the body is lowered so
/// that the message says why.
fn refuse_atomics(tokens: impl Iterator<Item = TokenStream>) -> DResult<()> {
    for stream in tokens {
        let trees: Vec<TokenTree> = stream.into_iter().collect();
        for (i, tree) in trees.iter().enumerate() {
            match tree {
                TokenTree::Ident(id)
                    if Builtin::from_name(&id.to_string()).is_some_and(|b| b.is_atomic())
                        && matches!(trees.get(i + 1), Some(TokenTree::Group(_))) =>
                {
                    bail!(
                        id.span(),
                        "`{id}` in a `#[loops::device]` helper: a helper is a pure function of its \
                         arguments (it writes no memory); make the atomic in the kernel body"
                    );
                }
                TokenTree::Group(g) => refuse_atomics(std::iter::once(g.stream()))?,
                _ => {}
            }
        }
    }
    Ok(())
}

impl Lowerer<'_> {
    /// `name(args)` where `name` is not a builtin: a call of a helper. Its type parameters are
    /// bound from the arguments of those types (an unsuffixed literal takes the bound type), or,
    /// where none binds one, from the type the context expects, or the default float.
    pub(super) fn helper_call(
        &mut self,
        call: &syn::ExprCall,
        name: &str,
        expected: Option<&Ty>,
    ) -> DResult<Expr> {
        let span = call.span();
        if self.lookup(name).is_some() || self.param(name).is_some() {
            bail!(call.func.span(), "`{name}` is a variable, not a function");
        }
        let Some(sig) = self.helpers.iter().find(|h| h.name == name).cloned() else {
            return Err(Diagnostic::wants_helper(name, call.func.span()));
        };
        let given: Vec<&syn::Expr> = call.args.iter().collect();
        if given.len() != sig.params.len() {
            bail!(
                span,
                "`{name}` takes {} argument(s), found {}",
                sig.params.len(),
                given.len()
            );
        }
        let generic = |ty: &Ty| match ty {
            Ty::Param(p) if sig.type_params.contains(p) => Some(p.clone()),
            _ => None,
        };
        let mut bound: HashMap<String, Ty> = HashMap::new();
        let mut args: Vec<Option<Expr>> = vec![None; given.len()];
        for (i, (arg, (pname, pty, _, _))) in given.iter().zip(&sig.params).enumerate() {
            let Some(p) = generic(pty) else {
                args[i] = Some(self.expr_as(arg, pty)?);
                continue;
            };
            if is_untyped_literal(arg) {
                continue;
            }
            if let Some(t) = bound.get(&p).cloned() {
                args[i] = Some(self.expr_as(arg, &t)?);
                continue;
            }
            let e = self.expr(arg, None)?;
            if !e.ty.is_float() {
                bail!(
                    arg.span(),
                    "`{name}` takes a float for `{pname}` (its type `{p}` is an element type, \
                     f32 or f64), found `{}`",
                    e.ty.rust_name()
                );
            }
            bound.insert(p, e.ty.clone());
            args[i] = Some(e);
        }
        for p in &sig.type_params {
            if !bound.contains_key(p) {
                let from_context = match expected {
                    Some(t) if t.is_float() && sig.ret == Ty::Param(p.clone()) => t.clone(),
                    _ => self.default_float.clone(),
                };
                bound.insert(p.clone(), from_context);
            }
        }
        for (i, (arg, (_, pty, _, _))) in given.iter().zip(&sig.params).enumerate() {
            if args[i].is_none() {
                let p = generic(pty).expect("only literals of type parameters wait");
                args[i] = Some(self.expr_as(arg, &bound[&p])?);
            }
        }
        let ty = match generic(&sig.ret) {
            Some(p) => bound[&p].clone(),
            None => sig.ret.clone(),
        };
        Ok(Expr {
            kind: ExprKind::HelperCall {
                name: name.to_string(),
                type_args: sig.type_params.iter().map(|p| bound[p].clone()).collect(),
                args: args.into_iter().map(|a| a.expect("lowered")).collect(),
            },
            ty,
            span,
        })
    }

    /// `return value;`: in a helper, its value; a kernel returns nothing.
    pub(super) fn return_stmt(&mut self, r: &syn::ExprReturn) -> DResult<StmtKind> {
        let Some(ret) = self.ret.clone() else {
            bail!(
                r.span(),
                "`return` is not supported in a kernel body: it writes its results into `&mut` slices"
            );
        };
        let Some(value) = &r.expr else {
            bail!(r.span(), "a helper returns a value: `return value;`");
        };
        Ok(StmtKind::Return(self.expr_as(value, &ret)?))
    }
}

/// The helpers a block calls, with the span of each call, in order.
fn calls_in(block: &[Stmt]) -> Vec<(String, Span)> {
    let mut calls = Vec::new();
    let _ = crate::analysis::visit_stmts(block, &mut |s| {
        crate::analysis::stmt_exprs(s, &mut |e| {
            if let ExprKind::HelperCall { name, .. } = &e.kind {
                calls.push((name.clone(), e.span));
            }
        });
        Ok(())
    });
    calls
}

/// The helpers in callee-before-caller order, or an error at the call that closes a cycle: a
/// recursive helper would need a call stack per thread (slow in CUDA), and its definition would
/// never stop fetching itself in the macro.
fn callees_first(helpers: Vec<Helper>) -> DResult<Vec<Helper>> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        Open,
        Done,
    }
    fn visit(
        at: usize,
        helpers: &[Helper],
        state: &mut [State],
        path: &mut Vec<String>,
        order: &mut Vec<usize>,
    ) -> DResult<()> {
        state[at] = State::Open;
        path.push(helpers[at].name.clone());
        for (callee, span) in calls_in(&helpers[at].body) {
            let Some(next) = helpers.iter().position(|h| h.name == callee) else {
                continue;
            };
            match state[next] {
                State::Open => {
                    let from = path.iter().position(|n| *n == callee).unwrap_or(0);
                    let mut cycle = path[from..].to_vec();
                    cycle.push(callee.clone());
                    let what = if cycle.len() == 2 {
                        format!("`{callee}` calls itself")
                    } else {
                        let names: Vec<String> = cycle.iter().map(|n| format!("`{n}`")).collect();
                        format!("recursive helpers: {}", names.join(" -> "))
                    };
                    bail!(
                        span,
                        "{what}: a `#[loops::device]` helper cannot be recursive (CUDA would need \
                         a call stack per thread); write it as a loop"
                    );
                }
                State::New => visit(next, helpers, state, path, order)?,
                State::Done => {}
            }
        }
        path.pop();
        state[at] = State::Done;
        order.push(at);
        Ok(())
    }
    let mut state = vec![State::New; helpers.len()];
    let mut order = Vec::new();
    for at in 0..helpers.len() {
        if state[at] == State::New {
            visit(at, &helpers, &mut state, &mut Vec::new(), &mut order)?;
        }
    }
    let mut slots: Vec<Option<Helper>> = helpers.into_iter().map(Some).collect();
    Ok(order
        .into_iter()
        .map(|i| slots[i].take().expect("each once"))
        .collect())
}

/// The names of the helpers `body` calls, directly or through the helpers of `helpers`.
fn reached_from(body: &[Stmt], helpers: &[Helper]) -> Vec<String> {
    let mut reached: Vec<String> = Vec::new();
    let mut todo: Vec<String> = calls_in(body).into_iter().map(|(n, _)| n).collect();
    while let Some(name) = todo.pop() {
        if reached.contains(&name) {
            continue;
        }
        if let Some(h) = helpers.iter().find(|h| h.name == name) {
            todo.extend(calls_in(&h.body).into_iter().map(|(n, _)| n));
        }
        reached.push(name);
    }
    reached
}

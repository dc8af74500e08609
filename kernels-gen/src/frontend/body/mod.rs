//! The kernel-body language: a `syn` function becomes a typed [`Kernel`].
//!
//! The language is a small Rust subset: `let`, assignment and compound assignment, `if`/`else`,
//! `for` over `a.tiles()`, `a.atoms(tile)`, `a.all_atoms()` and integer ranges, indexing, `as`
//! casts and `T::from(x)`, literals, number types' constants (`T::MAX`), arithmetic, comparison and
//! logic, and the builtins of [`BUILTINS`]. Types follow
//! Rust's rules (no implicit conversions), with one addition: an unsuffixed literal takes the type its
//! context needs, and a `let` initialised by an unsuffixed float literal gets the kernel's element type
//! `T` when the kernel has one (f64 otherwise). Everything else is an error at its span.
//!
//! This file holds the signature (parameters, types) and the scopes; `stmt.rs` the statements and
//! loops, `expr.rs` the expressions and literals, `call.rs` method calls and indexing,
//! `builtins.rs` calls, the builtins' typing, constants and conversions, `helper.rs` the
//! `#[loops::device]` helpers and calls of them.

mod builtins;
mod call;
mod expr;
mod helper;
mod lanes;
mod stmt;

pub use helper::{lower_kernel, validate_helper, HelperItem};

use std::collections::HashMap;

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::diag::{bail, DResult};
use crate::ir::*;
use crate::schedule::Kernel;
use crate::schedule::ScheduleConfig;

/// Turns an annotated function into a kernel. `file` is the Rust source file for `#line`.
pub fn lower_fn(item: &syn::ItemFn, config: ScheduleConfig, file: &str) -> DResult<Kernel> {
    lower_kernel(item, &[], config, file)
}

/// The kernel's signature and body, calling the helpers of `helpers` (whose bodies the caller
/// lowers: [`Kernel::helpers`] is left empty).
fn lower_kernel_fn(
    item: &syn::ItemFn,
    helpers: &[helper::HelperSig],
    config: ScheduleConfig,
    file: &str,
) -> DResult<Kernel> {
    let (type_params, params) = lower_signature(&item.sig)?;
    let sig = &item.sig;
    let default_float = match type_params.as_slice() {
        [t] => Ty::Param(t.clone()),
        _ => Ty::F64,
    };
    let body = with_inference(|inferred| {
        let mut lowerer = Lowerer {
            params: &params,
            type_params: &type_params,
            scopes: vec![HashMap::new()],
            tile: None,
            atom_var: None,
            loop_depth: 0,
            default_float: default_float.clone(),
            helpers,
            ret: None,
            inferred,
            retry: None,
        };
        let body = lowerer.tile_loop(&item.block);
        (body, lowerer.retry)
    })?;
    let kernel = Kernel {
        name: sig.ident.to_string(),
        type_params,
        params,
        // A body without an atom loop runs one thread per tile under every schedule.
        config: crate::schedule::tile_only::config_for(config, &body),
        body,
        file: file.to_string(),
        helpers: Vec::new(),
    };
    crate::schedule::block_shared::check(&kernel)?;
    Ok(kernel)
}

/// The kernel's signature: its element type parameters and its parameters, checked.
pub(crate) fn lower_signature(sig: &syn::Signature) -> DResult<(Vec<String>, Vec<Param>)> {
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
    // The kernel's name names its CUDA functions (`spmv`, `spmv_body`) too.
    check_name(&sig.ident.to_string(), sig.ident.span())?;
    let mut type_params = Vec::new();
    for g in &sig.generics.params {
        match g {
            syn::GenericParam::Type(t) => {
                // The element type keeps its name in the CUDA templates.
                check_name(&t.ident.to_string(), t.ident.span())?;
                type_params.push(t.ident.to_string())
            }
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
        if type_params.contains(&name) {
            bail!(
                pi.ident.span(),
                "`{name}` is the kernel's element type; rename the parameter"
            );
        }
        let (kind, block_shared) = match block_shared_attr(pt)? {
            Some(()) => {
                let (elem, n) = block_shared_type(&pt.ty, &name)?;
                (
                    ParamKind::Slice {
                        elem,
                        mutable: true,
                    },
                    Some(n),
                )
            }
            None => (param_kind(&pt.ty, &type_params)?, None),
        };
        params.push(Param {
            name,
            kind,
            span: pi.ident.span(),
            block_shared,
        });
    }
    // The CUDA parameters a tile set or a slice becomes (`a_rows`, `x_len`) sit beside the others.
    for (i, q) in params.iter().enumerate() {
        if params[..i].iter().any(|p| p.name == q.name) {
            bail!(
                q.span,
                "`{}` is bound more than once in this parameter list",
                q.name
            );
        }
        if let Some(p) = params
            .iter()
            .find(|p| p.name != q.name && crate::emit::derived_param_names(p).contains(&q.name))
        {
            bail!(
                q.span,
                "`{}` is the generated name of a part of `{}`; rename it",
                q.name,
                p.name
            );
        }
    }
    Ok((type_params, params))
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
    if name.starts_with("__") || CUDA_NAMES.contains(&name) {
        bail!(
            span,
            "`{name}` is a name CUDA defines and the generated code uses; rename it"
        );
    }
    if !name.is_ascii() {
        bail!(
            span,
            "CUDA C++ names are ASCII (NVRTC takes no other letters); rename `{name}`"
        );
    }
    if name.starts_with("r#") {
        bail!(
            span,
            "raw identifiers are not supported in a kernel; rename `{name}`"
        );
    }
    Ok(())
}

/// CUDA's functions that the generated code calls unqualified inside a kernel's functions, where
/// a parameter or variable of the same name would hide them, and the macro NVRTC defines (its
/// built-in variables are among the keywords; its intrinsics start with `__`, which C++ reserves
/// anyway).
const CUDA_NAMES: &[&str] = &[
    "NULL",
    "min",
    "max",
    "atomicAdd",
    "atomicCAS",
    "atomicMin",
    "atomicMax",
    "atomicExch",
];

/// The parameter's `#[block_shared]` attribute, if it has one
/// ([`crate::schedule::block_shared`]).
fn block_shared_attr(pt: &syn::PatType) -> DResult<Option<()>> {
    let Some(attr) = pt.attrs.iter().find(|a| a.path().is_ident("block_shared")) else {
        return Ok(None);
    };
    if !matches!(attr.meta, syn::Meta::Path(_)) {
        bail!(
            attr.span(),
            "`#[block_shared]` takes no arguments: the array's length is the `N` of `&mut [u32; N]`"
        );
    }
    Ok(Some(()))
}

/// The most elements a `#[block_shared]` array may have: its copy takes shared memory in every
/// block (32 KiB of `u64`).
const BLOCK_SHARED_MAX: u64 = 4096;

/// The element type and length of a `#[block_shared]` parameter, `&mut [U; N]` with `U` an
/// integer type and `N` a literal.
fn block_shared_type(ty: &syn::Type, name: &str) -> DResult<(Ty, u32)> {
    let usage = format!("`#[block_shared] {name}: &mut [u32; 36]`");
    let syn::Type::Reference(r) = ty else {
        bail!(
            ty.span(),
            "a `#[block_shared]` parameter is a `&mut` array of integers: {usage}"
        );
    };
    if r.mutability.is_none() {
        bail!(
            r.span(),
            "a `#[block_shared]` array is updated with atomics: write `&mut`, as in {usage}"
        );
    }
    let syn::Type::Array(a) = &*r.elem else {
        bail!(
            r.elem.span(),
            "a `#[block_shared]` array has its length in its type, which sizes each block's copy: {usage}"
        );
    };
    let elem = scalar_type(&a.elem, &[])?;
    if !elem.is_integer() {
        bail!(
            a.elem.span(),
            "a `#[block_shared]` array holds integers (`u32`, `i32`, `u64`, `i64`, `usize`), whose flush is \
             exact; for float sums update a `&mut [{}]` slice with `atomic_add`",
            elem.rust_name()
        );
    }
    let n = match &a.len {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => n.base10_parse::<u64>().ok(),
        _ => None,
    };
    match n {
        Some(n) if (1..=BLOCK_SHARED_MAX).contains(&n) => Ok((elem, n as u32)),
        Some(_) => bail!(
            a.len.span(),
            "a `#[block_shared]` array has 1 to {BLOCK_SHARED_MAX} elements (each block keeps a copy in shared memory)"
        ),
        None => bail!(
            a.len.span(),
            "the length of a `#[block_shared]` array is an integer literal: {usage}"
        ),
    }
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

pub(super) fn scalar_type(ty: &syn::Type, type_params: &[String]) -> DResult<Ty> {
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
pub(super) struct Var {
    ty: Ty,
    mutable: bool,
    /// Its type is an unsuffixed literal's default (`let mut c = 0;`, or an expression of such
    /// variables and literals): a later use with another type of the same kind fixes it, as Rust
    /// infers it ([`with_inference`]).
    inferable: bool,
}

impl Var {
    pub(super) fn new(ty: Ty, mutable: bool) -> Var {
        Var {
            ty,
            mutable,
            inferable: false,
        }
    }
}

/// Lowers a body as Rust types it: an unsuffixed literal takes the type it is used with, even
/// where that use comes after the `let` it initialises (`let mut c = 0; ... c += flags[i];` makes
/// `c` a `u32`). `lower` runs with the types fixed so far and returns its result and, where it
/// failed on a use that fixes an inferable variable's type (`Lowerer::retry`), that variable and
/// type: the body is then lowered again with it fixed. Each variable is fixed at most once, so this
/// ends; a body that lowers at the first try is lowered exactly as without inference.
pub(super) fn with_inference<R>(
    mut lower: impl FnMut(HashMap<String, (Ty, usize)>) -> (DResult<R>, Option<(String, Ty, usize)>),
) -> DResult<R> {
    let mut inferred: HashMap<String, (Ty, usize)> = HashMap::new();
    loop {
        match lower(inferred.clone()) {
            (Err(_), Some((name, ty, line))) if !inferred.contains_key(&name) => {
                inferred.insert(name, (ty, line));
            }
            (result, _) => return result,
        }
    }
}

pub(super) struct Lowerer<'a> {
    params: &'a [Param],
    type_params: &'a [String],
    scopes: Vec<HashMap<String, Var>>,
    /// The tile set and tile variable of the tile loop, once inside it.
    tile: Option<(String, String)>,
    /// The atom variable, inside an atom loop.
    atom_var: Option<String>,
    /// How many atom and range loops enclose the statement being lowered: `break` and
    /// `continue` need one.
    loop_depth: usize,
    default_float: Ty,
    /// The `#[loops::device]` helpers the body may call.
    helpers: &'a [helper::HelperSig],
    /// In a helper's body: its return type (`return` is refused elsewhere).
    ret: Option<Ty>,
    /// The types of inferable variables fixed by their later uses ([`with_inference`]).
    /// Each with the line of the use that fixed it.
    inferred: HashMap<String, (Ty, usize)>,
    /// The first inferable variable a use needed of another type, and that type: the body is
    /// lowered again with it fixed.
    retry: Option<(String, Ty, usize)>,
}

pub(super) fn line_of(span: Span) -> usize {
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
        if self.type_params.iter().any(|t| t == name) {
            // In the CUDA it would hide the template's type in the rest of its scope.
            bail!(
                span,
                "`{name}` is the kernel's element type; rename the variable"
            );
        }
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

    /// The inferable variable whose literal default gave `e` its type, if any: the variable
    /// itself, or an arithmetic of it and literals (`c + 1`).
    pub(super) fn inferable_var(&self, e: &Expr) -> Option<String> {
        match &e.kind {
            ExprKind::Var(n) => self.lookup(n).filter(|v| v.inferable).map(|_| n.clone()),
            ExprKind::Unary {
                op: UnOp::Neg,
                expr,
            } => self.inferable_var(expr),
            ExprKind::Binary { op, lhs, rhs }
                if !op.is_comparison() && !op.is_logical() && !op.is_shift() =>
            {
                let l = self.inferable_var(lhs);
                let r = self.inferable_var(rhs);
                let lit = |e: &Expr| matches!(e.kind, ExprKind::Lit(_));
                match (l, r) {
                    (Some(l), _) if lit(rhs) || self.inferable_var(rhs).is_some() => Some(l),
                    (None, Some(r)) if lit(lhs) => Some(r),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Notes that `e` is used where `ty` is needed: if its type is an inferable variable's
    /// literal default of the same kind (an integer for an integer, a float for a float), the
    /// body is lowered again with that variable of type `ty` ([`with_inference`]).
    pub(super) fn infer(&mut self, e: &Expr, ty: &Ty) {
        if self.retry.is_some() {
            return;
        }
        let Some(name) = self.inferable_var(e) else {
            return;
        };
        let same_kind =
            (e.ty.is_integer() && ty.is_integer()) || (e.ty.is_float() && ty.is_float());
        if same_kind && e.ty != *ty && !self.inferred.contains_key(&name) {
            self.retry = Some((name, ty.clone(), line_of(e.span)));
        }
    }

    /// For a mismatch that `e` takes part in: where `e` is a variable whose type a later use
    /// fixed, the note that says so.
    pub(super) fn inferred_note(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Var(n) => match self.inferred.get(n) {
                Some((ty, line)) => format!(
                    "; `{n}` is a `{}` from its use on line {line} (an unsuffixed literal takes the type it is used with)",
                    ty.rust_name()
                ),
                None => String::new(),
            },
            _ => String::new(),
        }
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
            .declare(name, span, Var::new(ty, false))
            .and_then(|()| body(self));
        self.scopes.pop();
        result
    }
}

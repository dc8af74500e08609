//! Calls and the names of number types: the builtin functions (typed from the table of
//! `ir/builtin.rs`), the constants (`T::MAX`, `f32::INFINITY`) and the conversion `T::from(x)`.

use proc_macro2::Span;
use syn::spanned::Spanned;

use super::expr::is_untyped_literal;
use super::Lowerer;
use crate::diag::{bail, DResult};
use crate::ir::*;

impl Lowerer<'_> {
    /// A call `f(args)`: a builtin, or `T::from(x)`. Every call is dispatched here; anything else
    /// is an error naming what can be called.
    pub(super) fn call(&mut self, call: &syn::ExprCall, expected: Option<&Ty>) -> DResult<Expr> {
        let span = call.span();
        let syn::Expr::Path(p) = &*call.func else {
            bail!(
                call.func.span(),
                "only builtins and helper functions can be called in a kernel body"
            );
        };
        let args: Vec<&syn::Expr> = call.args.iter().collect();
        if let (None, Some(ident)) = (&p.qself, p.path.get_ident()) {
            let name = ident.to_string();
            let Some(builtin) = Builtin::from_name(&name) else {
                // Not a builtin: a `#[loops::device]` helper, fetched from its macro if the
                // kernel does not hold it yet.
                return self.helper_call(call, &name, expected);
            };
            return self.builtin(builtin, &args, expected, None, span);
        }
        let path = path_text(p);
        match self.type_item(p) {
            Some((to, item)) if item == "from" => self.conversion(&args, to, span),
            // `f32::max(a, b)`, `T::exp(x)`, `u32::count_ones(n)`: the method of that type, the
            // receiver first, as Rust reads `Type::method(receiver, args..)`.
            Some((ty, item)) => match Builtin::from_name(&item) {
                Some(builtin) if !builtin.is_atomic() => {
                    let spec = builtin.spec();
                    if !spec.operand.accepts(&ty) {
                        bail!(
                            call.func.span(),
                            "`{path}` does not exist: `{item}` needs {}, not `{}`",
                            spec.operand.describe(),
                            ty.rust_name()
                        );
                    }
                    self.builtin(builtin, &args, expected, Some(&ty), span)
                }
                _ => bail!(
                    call.func.span(),
                    "`{path}` is not a function the kernel language knows{guess}; a number type has its methods as \
                     functions (`{t}::max(a, b)`, `{t}::exp(x)`; the methods: {methods}) and the conversion \
                     `{t}::from(x)` (as `x as {t}`); {constants}; an unsuffixed literal (`0.0`) takes the type its \
                     context needs. For a function of your own, write a `#[device]` helper",
                    guess = crate::diag::did_you_mean(&item, method_names().chain(["from"])),
                    methods = builtin_names(Form::Math),
                    constants = constants_hint(),
                    t = ty.rust_name(),
                ),
            },
            None => bail!(
                call.func.span(),
                "calls of paths like `{path}` are not supported in a kernel body: a body calls the builtins \
                 (`exp(x)`, `x.exp()` or `f32::exp(x)`), `T::from(x)` and `#[device]` helpers (by their name alone, \
                 `huber(r, delta)`)"
            ),
        }
    }

    /// A path of two segments that is a number type's constant: `T::MAX`, `u32::MAX`.
    pub(super) fn constant(&self, p: &syn::ExprPath) -> DResult<Expr> {
        let span = p.span();
        if let Some((ty, item)) = self.type_item(p) {
            match Constant::from_name(&item) {
                Some(c) if c.applies_to(&ty) => {
                    return Ok(Expr {
                        kind: ExprKind::Const(c),
                        ty,
                        span,
                    })
                }
                Some(_) => bail!(
                    span,
                    "`{}` has no constant `{item}`; {}",
                    ty.rust_name(),
                    constants_hint()
                ),
                None => {}
            }
        }
        bail!(
            span,
            "`{}` is not a constant the kernel language knows; {}; an unsuffixed literal (`0.0`) takes the type its context needs",
            path_text(p),
            constants_hint()
        )
    }

    /// `(T, "MAX")` for a path `T::MAX` whose first segment is a type of the kernel language.
    fn type_item(&self, p: &syn::ExprPath) -> Option<(Ty, String)> {
        let segments: Vec<&syn::PathSegment> = p.path.segments.iter().collect();
        let [ty, item] = segments[..] else {
            return None;
        };
        if p.qself.is_some() || p.path.leading_colon.is_some() || !ty.arguments.is_empty() {
            return None;
        }
        let name = ty.ident.to_string();
        let ty = match Ty::from_rust(&name) {
            Some(t) => t,
            None if self.type_params.contains(&name) => Ty::Param(name),
            None => return None,
        };
        Some((ty, item.ident.to_string()))
    }

    /// `T::from(x)`: `x` converted to `T` as `x as T` converts it; a literal is of type `T`.
    fn conversion(&mut self, args: &[&syn::Expr], to: Ty, span: Span) -> DResult<Expr> {
        let [arg] = args[..] else {
            bail!(
                span,
                "`{}::from` takes one argument: the value to convert",
                to.rust_name()
            );
        };
        if is_untyped_literal(arg) {
            return self.expr_as(arg, &to);
        }
        let inner = self.expr_default(arg)?;
        super::expr::cast(inner, to, span)
    }

    /// A call of a builtin with its arguments (for a method, the receiver first), typed by its row
    /// of [`BUILTINS`].
    /// `receiver`: the type of the first operand where the call names it (`f32::max(a, b)`).
    pub(super) fn builtin(
        &mut self,
        builtin: Builtin,
        args: &[&syn::Expr],
        expected: Option<&Ty>,
        receiver: Option<&Ty>,
        span: Span,
    ) -> DResult<Expr> {
        let spec = builtin.spec();
        if args.len() != spec.arity() {
            let usage = match receiver {
                Some(ty) => path_usage(spec, ty),
                None => usage(spec),
            };
            bail!(
                span,
                "wrong number of arguments for `{}`: write {usage}",
                spec.name,
            );
        }
        let (args, ty) = match spec.form {
            Form::Atomic => self.atomic(spec, args)?,
            Form::Push => self.push_operands(args)?,
            Form::Math => self.math_operands(spec, args, expected, receiver)?,
        };
        Ok(Expr {
            kind: ExprKind::Call { builtin, args },
            ty,
            span,
        })
    }

    /// The operands of a function or method and the type of its result. The first operand and
    /// each argument of its type share one type: an unsuffixed literal among them takes it from
    /// the first that is not one, which is lowered first.
    fn math_operands(
        &mut self,
        spec: &BuiltinSpec,
        args: &[&syn::Expr],
        expected: Option<&Ty>,
        receiver: Option<&Ty>,
    ) -> DResult<(Vec<Expr>, Ty)> {
        let kind_of = |i: usize| {
            if i == 0 {
                &Arg::Same
            } else {
                &spec.args[i - 1]
            }
        };
        // Where the type is named, every operand of it takes it; otherwise the first typed one
        // gives it to the literals.
        let lead = match receiver {
            Some(_) => 0,
            None => (0..args.len())
                .find(|&i| *kind_of(i) == Arg::Same && !is_untyped_literal(args[i]))
                .unwrap_or(0),
        };
        let hint = match receiver {
            Some(ty) => Some(ty),
            None if spec.returns == Returns::Same => expected,
            None => None,
        };
        let first = self.expr(args[lead], hint)?;
        if let Some(want) = receiver {
            if first.ty != *want {
                self.infer(&first, want);
                bail!(
                    args[lead].span(),
                    "`{0}::{1}` takes a `{0}`, found `{2}` (convert with `as {0}`, or call `{2}::{1}`)",
                    want.rust_name(),
                    spec.name,
                    first.ty.rust_name()
                );
            }
        }
        let ty = first.ty.clone();
        if !spec.operand.accepts(&ty) {
            bail!(
                args[lead].span(),
                "`{}` needs {}, not `{}`",
                spec.name,
                spec.operand.describe(),
                ty.rust_name()
            );
        }
        let mut lowered = vec![None; args.len()];
        lowered[lead] = Some(first);
        for (i, arg) in args.iter().enumerate().filter(|(i, _)| *i != lead) {
            let e = match kind_of(i) {
                Arg::Same => {
                    let e = self.expr(arg, Some(&ty))?;
                    if e.ty != ty {
                        self.infer(&e, &ty);
                        let first = lowered[lead]
                            .as_ref()
                            .expect("the first operand is lowered");
                        self.infer(first, &e.ty);
                        bail!(
                            arg.span(),
                            "`{}` needs its operands of one type, found `{}` and `{}`",
                            spec.name,
                            ty.rust_name(),
                            e.ty.rust_name()
                        );
                    }
                    e
                }
                Arg::Fixed(fixed, what) => {
                    let e = self.expr(arg, Some(fixed))?;
                    if e.ty != *fixed {
                        self.infer(&e, fixed);
                        let article = if fixed.rust_name().starts_with('i') {
                            "an"
                        } else {
                            "a"
                        };
                        bail!(
                            arg.span(),
                            "`{}` takes {article} `{}` {what}, not `{}`",
                            spec.name,
                            fixed.rust_name(),
                            e.ty.rust_name()
                        );
                    }
                    e
                }
            };
            lowered[i] = Some(e);
        }
        let result = match spec.returns {
            Returns::Same => ty,
            Returns::Bool => Ty::Bool,
            Returns::U32 => Ty::U32,
            Returns::Usize => Ty::Usize,
        };
        let lowered = lowered
            .into_iter()
            .map(|e| e.expect("every operand lowered"))
            .collect();
        Ok((lowered, result))
    }

    /// `atomic_add(&mut y[i], v)`: the slice element to update and the value, of its type.
    fn atomic(&mut self, spec: &BuiltinSpec, args: &[&syn::Expr]) -> DResult<(Vec<Expr>, Ty)> {
        let name = spec.name;
        let syn::Expr::Reference(r) = args[0] else {
            bail!(
                args[0].span(),
                "the first argument of `{name}` is the place to update: `&mut y[i]`"
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
        if !spec.operand.accepts(&place.ty) {
            bail!(
                r.span(),
                "`{name}` needs {}, not `{}`",
                spec.operand.describe(),
                place.ty.rust_name()
            );
        }
        let value = self.expr_as(args[1], &place.ty)?;
        let ty = place.ty.clone();
        Ok((vec![place, value], ty))
    }
}

impl Lowerer<'_> {
    /// `push(&mut list, &mut count[i], v)`: the list (a `&mut` slice parameter, named whole), the
    /// counter (an unsigned slice element) and the value, of the list's element type. In the IR the
    /// list is `SliceLen(list)` typed as its elements (the call reads its pointer and length).
    fn push_operands(&mut self, args: &[&syn::Expr]) -> DResult<(Vec<Expr>, Ty)> {
        let usage = "`push(&mut list, &mut count[0], v)`";
        let syn::Expr::Reference(r) = args[0] else {
            bail!(
                args[0].span(),
                "the first argument of `push` is the list to append to, a `&mut` slice parameter: {usage}"
            );
        };
        let list = match &*r.expr {
            syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        };
        let kind = list
            .as_deref()
            .filter(|l| self.lookup(l).is_none())
            .and_then(|l| self.param(l))
            .map(|p| p.kind.clone());
        let elem = match kind {
            Some(ParamKind::Slice {
                elem,
                mutable: true,
            }) => elem,
            Some(ParamKind::Slice { .. }) => bail!(
                r.expr.span(),
                "`push` appends to `{}`, so it must be a `&mut [..]` parameter",
                list.unwrap_or_default()
            ),
            _ => bail!(
                r.expr.span(),
                "`push` appends to a slice parameter named whole (`&mut list`), not to an element or a local: {usage}"
            ),
        };
        if r.mutability.is_none() {
            bail!(r.span(), "`push` writes the list: write `&mut`");
        }
        let list = list.expect("checked");
        let syn::Expr::Reference(c) = args[1] else {
            bail!(
                args[1].span(),
                "the second argument of `push` is the counter, a slice element it adds 1 to: {usage}"
            );
        };
        if c.mutability.is_none() {
            bail!(c.span(), "`push` updates its counter: write `&mut`");
        }
        let count = self.place(&c.expr)?;
        if !matches!(count.kind, ExprKind::Index { .. }) {
            bail!(
                c.expr.span(),
                "the counter of `push` is a slice element (`&mut count[0]`), not a local variable"
            );
        }
        if !matches!(count.ty, Ty::U32 | Ty::U64 | Ty::Usize) {
            bail!(
                c.expr.span(),
                "the counter of `push` is a `u32`, `u64` or `usize` element, not `{}`",
                count.ty.rust_name()
            );
        }
        let value = self.expr_as(args[2], &elem)?;
        let list = Expr {
            kind: ExprKind::SliceLen(list),
            ty: elem,
            span: r.expr.span(),
        };
        Ok((vec![list, count, value], Ty::Usize))
    }
}

/// `x.powi(n)` or `powi(x, n)`: how a builtin is called, for messages.
pub(super) fn usage(spec: &BuiltinSpec) -> String {
    match spec.form {
        Form::Atomic => return format!("`{}(&mut y[i], v)`", spec.name),
        Form::Push => return format!("`{}(&mut list, &mut count[0], v)`", spec.name),
        Form::Math => {}
    }
    let mut same = ["y", "z"].into_iter();
    let rest: Vec<&str> = spec
        .args
        .iter()
        .map(|a| match a {
            Arg::Same => same.next().expect("at most two more operands"),
            Arg::Fixed(..) => "n",
        })
        .collect();
    let rest = rest.join(", ");
    let all = if rest.is_empty() {
        "x".to_string()
    } else {
        format!("x, {rest}")
    };
    format!("`x.{0}({rest})` or `{0}({all})`", spec.name)
}

/// `f32::powi(x, n)`: how a builtin is called on a named type, for messages.
fn path_usage(spec: &BuiltinSpec, ty: &Ty) -> String {
    let mut same = ["y", "z"].into_iter();
    let mut all = vec!["x"];
    all.extend(spec.args.iter().map(|a| match a {
        Arg::Same => same.next().expect("at most two more operands"),
        Arg::Fixed(..) => "n",
    }));
    format!("`{}::{}({})`", ty.rust_name(), spec.name, all.join(", "))
}

/// The names of the math builtins, which are Rust's methods of the number types.
pub(super) fn method_names() -> impl Iterator<Item = &'static str> {
    BUILTINS
        .iter()
        .filter(|s| s.form == Form::Math)
        .map(|s| s.name)
}

/// What a number type's constants are, for messages.
fn constants_hint() -> String {
    format!(
        "the constants of a float type (`T`, `f32`, `f64`) are {}, those of an integer type {} (`u32::MAX`)",
        constant_names(false),
        constant_names(true)
    )
}

/// `a::b` as written, without the spaces of a token stream.
pub(super) fn path_text(p: &syn::ExprPath) -> String {
    path_text_of(&p.path)
}

pub(super) fn path_text_of(path: &syn::Path) -> String {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    names.join("::")
}

//! Expressions: typing and checking of operators, casts, variables, literals.

use proc_macro2::Span;
use syn::spanned::Spanned;

use super::call::{arrays_list, properties_list};
use super::{scalar_type, Lowerer};
use crate::diag::{bail, DResult};
use crate::ir::*;

impl Lowerer<'_> {
    /// An expression whose type must be `ty` (literals adopt it).
    pub(super) fn expr_as(&mut self, e: &syn::Expr, ty: &Ty) -> DResult<Expr> {
        let lowered = self.expr(e, Some(ty))?;
        self.coerce(lowered, ty, e.span(), None)
    }

    /// `lowered` where a `ty` is needed (at `span`), or the mismatch. `place`: what it is assigned
    /// to, whose type the value may fix instead (`let mut c = 0; c = flags[i];`).
    pub(super) fn coerce(
        &mut self,
        lowered: Expr,
        ty: &Ty,
        span: Span,
        place: Option<&Expr>,
    ) -> DResult<Expr> {
        if &lowered.ty == ty {
            return Ok(lowered);
        }
        self.infer(&lowered, ty);
        if let Some(place) = place {
            self.infer(place, &lowered.ty);
        }
        let note = match place {
            Some(place) => self.inferred_note(place) + &self.inferred_note(&lowered),
            None => self.inferred_note(&lowered),
        };
        bail!(
            span,
            "mismatched types: expected `{}`, found `{}` (convert with `as {}`){note}",
            ty.rust_name(),
            lowered.ty.rust_name(),
            ty.rust_name()
        );
    }

    /// An expression with no expected type: literals take their defaults.
    pub(super) fn expr_default(&mut self, e: &syn::Expr) -> DResult<Expr> {
        self.expr(e, None)
    }

    /// Lowers two operands that must agree in type. An unsuffixed literal on one side takes the other
    /// side's type, so it is lowered second.
    pub(super) fn binary_operands(
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

    pub(super) fn expr(&mut self, e: &syn::Expr, expected: Option<&Ty>) -> DResult<Expr> {
        let span = e.span();
        let mk = |kind, ty| Ok(Expr { kind, ty, span });
        match e {
            syn::Expr::Lit(l) => self.literal(&l.lit, expected, false),
            syn::Expr::Paren(p) => self.expr(&p.expr, expected),
            syn::Expr::Group(g) => self.expr(&g.expr, expected),
            syn::Expr::Path(p) => {
                let (None, Some(ident)) = (&p.qself, p.path.get_ident()) else {
                    return self.constant(p);
                };
                let name = ident.to_string();
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
                if l.ty != r.ty {
                    self.infer(&l, &r.ty);
                    self.infer(&r, &l.ty);
                }
                check_arith(op, &l.ty, &r.ty, b.op.span())?;
                let ty = if op.is_comparison() { Ty::Bool } else { l.ty.clone() };
                mk(ExprKind::Binary { op, lhs: Box::new(l), rhs: Box::new(r) }, ty)
            }
            syn::Expr::Cast(c) => {
                let to = scalar_type(&c.ty, self.type_params)?;
                let inner = self.expr_default(&c.expr)?;
                cast(inner, to, span)
            }
            syn::Expr::Call(call) => self.call(call, expected),
            syn::Expr::MethodCall(m) => self.method_call(m, expected),
            syn::Expr::If(i) => self.if_value(i, expected),
            syn::Expr::Reference(r) => match &*r.expr {
                syn::Expr::Index(ix) if matches!(&*ix.index, syn::Expr::Range(_)) => {
                    bail!(r.span(), "{}", subslice_message(ix))
                }
                _ => bail!(r.span(), "references appear only as the first argument of an atomic: `atomic_add(&mut y[i], v)`"),
            },
            other => bail!(span, "{}", unsupported_expr(other)),
        }
    }

    /// `if c { a } else { b }` as a value (`else if` chains too): each branch one expression, of one
    /// type (an unsuffixed literal takes the other branch's); one of them is evaluated.
    fn if_value(&mut self, i: &syn::ExprIf, expected: Option<&Ty>) -> DResult<Expr> {
        let span = i.span();
        let Some((_, else_branch)) = &i.else_branch else {
            bail!(
                span,
                "an `if` used as a value needs an `else`: `if c {{ a }} else {{ b }}`"
            );
        };
        let then = branch_value(&i.then_branch)?;
        let otherwise: &syn::Expr = match &**else_branch {
            syn::Expr::Block(b) => branch_value(&b.block)?,
            nested @ syn::Expr::If(_) => nested,
            other => bail!(other.span(), "expected a block after `else`"),
        };
        let cond = self.expr_as(&i.cond, &Ty::Bool)?;
        let (then, otherwise) = self.binary_operands(then, otherwise, expected)?;
        if then.ty != otherwise.ty {
            self.infer(&then, &otherwise.ty);
            self.infer(&otherwise, &then.ty);
            bail!(
                otherwise.span,
                "`if` and `else` have different types: `{}` and `{}` (convert one with `as`)",
                then.ty.rust_name(),
                otherwise.ty.rust_name()
            );
        }
        let ty = then.ty.clone();
        Ok(Expr {
            kind: ExprKind::Select {
                cond: Box::new(cond),
                then: Box::new(then),
                otherwise: Box::new(otherwise),
            },
            ty,
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
        if !fits(&digits, &ty, negative) {
            bail!(span, "literal out of range for `{}`", ty.rust_name());
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

/// Whether a literal's magnitude fits its type, as Rust requires (`overflowing_literals`): in the
/// CUDA, a larger integer literal would silently take a wider type, and a float constant out of
/// range is an NVRTC error. A generic `T`'s literal is written as a double and converted.
fn fits(digits: &str, ty: &Ty, negative: bool) -> bool {
    let signed_max = |max: u128| max + u128::from(negative);
    match ty {
        Ty::I32 => digits
            .parse::<u128>()
            .is_ok_and(|v| v <= signed_max(i32::MAX as u128)),
        Ty::I64 => digits
            .parse::<u128>()
            .is_ok_and(|v| v <= signed_max(i64::MAX as u128)),
        Ty::U32 => digits.parse::<u128>().is_ok_and(|v| v <= u32::MAX as u128),
        Ty::U64 | Ty::Usize => digits.parse::<u128>().is_ok_and(|v| v <= u64::MAX as u128),
        Ty::F32 => digits.parse::<f32>().is_ok_and(f32::is_finite),
        Ty::F64 | Ty::Param(_) => digits.parse::<f64>().is_ok_and(f64::is_finite),
        Ty::Bool => true,
    }
}

pub(super) fn check_arith(op: BinOp, l: &Ty, r: &Ty, span: Span) -> DResult<()> {
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

/// `inner as to`: Rust's `as` between numbers, and from `bool` to an integer.
pub(super) fn cast(inner: Expr, to: Ty, span: Span) -> DResult<Expr> {
    let allowed = inner.ty == to
        || (inner.ty != Ty::Bool && to != Ty::Bool)
        || (inner.ty == Ty::Bool && to.is_integer());
    if !allowed {
        bail!(
            span,
            "cannot cast `{}` as `{}`",
            inner.ty.rust_name(),
            to.rust_name()
        );
    }
    Ok(Expr {
        kind: ExprKind::Cast {
            expr: Box::new(inner),
            to: to.clone(),
        },
        ty: to,
        span,
    })
}

/// The one expression of a branch of an `if` used as a value, or the error that says how to
/// write a branch of several statements.
fn branch_value(block: &syn::Block) -> DResult<&syn::Expr> {
    match &block.stmts[..] {
        [syn::Stmt::Expr(e, None)] => Ok(e),
        _ => bail!(
            block.span(),
            "{}",
            "an `if` used as a value takes one expression in each branch (`if c { a } else { b }`); \
             for more statements, declare the variable first and assign it in each branch: \
             `let mut v = 0.0; if c { ...; v = a; } else { v = b; }`"
        ),
    }
}

/// Whether `e` is an `if` whose branches are values: `if c { a } else { b }`, an `else if` chain.
pub(super) fn is_if_value(e: &syn::Expr) -> bool {
    let syn::Expr::If(i) = e else {
        return false;
    };
    let value = |b: &syn::Block| match b.stmts.last() {
        Some(syn::Stmt::Expr(e @ syn::Expr::If(_), None)) => is_if_value(e),
        Some(syn::Stmt::Expr(e, None)) => !matches!(
            e,
            syn::Expr::ForLoop(_)
                | syn::Expr::Block(_)
                | syn::Expr::While(_)
                | syn::Expr::Loop(_)
                | syn::Expr::Match(_)
                | syn::Expr::Unsafe(_)
        ),
        _ => false,
    };
    match &i.else_branch {
        None => false,
        Some((_, e)) => {
            value(&i.then_branch)
                && match &**e {
                    syn::Expr::Block(b) => value(&b.block),
                    nested => is_if_value(nested),
                }
        }
    }
}

/// The message for `&x[a..b]` (and `x[a..b]`): a kernel body has no sub-slices.
pub(super) fn subslice_message(ix: &syn::ExprIndex) -> String {
    let base = match &*ix.expr {
        syn::Expr::Path(p) => super::builtins::path_text(p),
        _ => "x".to_string(),
    };
    format!(
        "sub-slices (`&{base}[a..b]`) are not supported in a kernel body, whose values are scalars: index \
         `{base}` itself, `{base}[a + k]` in a loop `for k in 0..b - a`, or pass the offsets `a` and `b` (to a \
         `#[device]` helper too) instead of the slice"
    )
}

pub(super) fn is_untyped_literal(e: &syn::Expr) -> bool {
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

pub(super) fn path_name(p: &syn::ExprPath) -> DResult<String> {
    match p.path.get_ident() {
        Some(id) if p.qself.is_none() => Ok(id.to_string()),
        _ => bail!(
            p.span(),
            "expected a name here, not the path `{}`",
            super::builtins::path_text(p)
        ),
    }
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

/// Names the construct the kernel language lacks, for the error message.
pub(super) fn unsupported_expr(e: &syn::Expr) -> String {
    // (what, whether it is a plural): "closures are", "`loop` is".
    let (what, plural) = match e {
        syn::Expr::Closure(_) => {
            return "closures are not supported in a kernel body: write a `#[device]` helper function \
                    (`#[device] fn f<T: Float>(x: T) -> T { .. }`) and call it"
                .into()
        }
        syn::Expr::While(_) => {
            return "`while` loops are not supported in a kernel body: write a range loop that stops with \
                    `break`, `for step in 0..limit { if !(condition) { break; } ... }`"
                .into()
        }
        syn::Expr::Loop(_) => {
            return "`loop` is not supported in a kernel body: write a range loop that stops with `break`, \
                    `for step in 0..limit { ...; if done { break; } }`"
                .into()
        }
        syn::Expr::Match(_) => {
            return "`match` is not supported in a kernel body: write `if` / `else if` / `else`".into()
        }

        syn::Expr::Return(_) => ("`return`", false),
        syn::Expr::Break(_) => ("`break`", false),
        syn::Expr::Continue(_) => ("`continue`", false),
        syn::Expr::Async(_) | syn::Expr::Await(_) => ("async code", false),
        syn::Expr::Macro(m) => return unsupported_macro(&m.mac),
        syn::Expr::Tuple(_) => ("tuples", true),
        syn::Expr::Array(_) | syn::Expr::Repeat(_) => ("arrays", true),
        syn::Expr::Struct(_) => ("struct literals", true),
        syn::Expr::Field(_) => ("field access", false),
        syn::Expr::Range(_) => ("ranges outside a `for` loop", true),
        syn::Expr::Unsafe(_) => ("`unsafe` blocks", true),
        syn::Expr::Try(_) => ("the `?` operator", false),
        syn::Expr::Let(_) => ("`let` in expressions", false),
        _ => ("this expression", false),
    };
    let verb = if plural { "are" } else { "is" };
    format!("{what} {verb} not supported in a kernel body")
}

/// The one message for a macro, as a statement or in an expression.
pub(super) fn unsupported_macro(mac: &syn::Macro) -> String {
    format!(
        "macros (`{}!`) are not supported in a kernel body",
        super::builtins::path_text_of(&mac.path)
    )
}

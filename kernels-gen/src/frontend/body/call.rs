//! Method calls on tile sets and the tile (`a.row_offsets(..)`, `a.num_tiles()`), the builtins,
//! and indexing into slices and a format's arrays.

use proc_macro2::Span;
use syn::spanned::Spanned;

use super::expr::path_name;
use super::Lowerer;
use crate::diag::{bail, DResult};
use crate::ir::*;

impl Lowerer<'_> {
    pub(super) fn method_call(
        &mut self,
        m: &syn::ExprMethodCall,
        expected: Option<&Ty>,
    ) -> DResult<Expr> {
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

    pub(super) fn builtin(
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

    pub(super) fn index(&mut self, ix: &syn::ExprIndex) -> DResult<Expr> {
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
}

/// `` `values`, `col_indices`, `row_offsets` ``: a format's arrays, for messages.
pub(super) fn arrays_list(format: Format) -> String {
    let names: Vec<String> = format
        .arrays()
        .iter()
        .map(|a| format!("`{}`", a.rust_name()))
        .collect();
    names.join(", ")
}

/// `rows(), cols(), nnz(), num_tiles(), num_atoms()`: a format's size methods, for messages.
pub(super) fn properties_list(format: Format) -> &'static str {
    if format.is_matrix() {
        "rows(), cols(), nnz(), num_tiles(), num_atoms()"
    } else {
        "num_tiles(), num_atoms()"
    }
}

fn builtin_name(b: Builtin) -> &'static str {
    b.cuda().trim_start_matches("loops_")
}

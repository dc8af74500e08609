//! Method calls (on tile sets: `a.num_tiles()`, `a.tile_of(atom)`; on slices: `x.len()`; on
//! numbers: the builtins' method forms) and indexing into slices and a format's arrays.

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
                        Some(ParamKind::Slice { .. })
                            if Builtin::from_name(&method).is_none() && method != "len" =>
                        {
                            bail!(m.method.span(), "no method `{method}` on slice `{recv}`: a kernel body indexes it (`{recv}[i]`) and takes its `{recv}.len()`");
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
        // Rust's own numeric methods: `x.abs()`, `x.exp()`, `a.min(b)`, `x.mul_add(a, b)`.
        match Builtin::from_name(&method) {
            Some(builtin) if !builtin.is_atomic() => {
                let mut args: Vec<&syn::Expr> = vec![&m.receiver];
                args.extend(m.args.iter());
                return self.builtin(builtin, &args, expected, None, span);
            }
            Some(builtin) => bail!(
                m.method.span(),
                "`{method}` is a function, not a method: {}",
                super::builtins::usage(builtin.spec())
            ),
            None => {}
        }
        if method == "len" {
            bail!(m.method.span(), "{}", self.len_elsewhere(&m.receiver));
        }
        // An error inside the receiver comes first: `x.iter().count()` is an error at `iter`.
        self.expr_default(&m.receiver)?;
        bail!(
            m.method.span(),
            "`{method}` is not a method the kernel language knows{}; methods: {}, and `len()` of a slice parameter. \
             For a function of your own, write a `#[device]` helper (`#[device] fn {method}<T: Float>(x: T) -> T {{ .. }}`) \
             and call it as `{method}(x)`",
            match method.as_str() {
                // Rust's `log` takes a base; its natural logarithm is `ln`.
                "log" => " (did you mean `ln`, or `log2` / `log10`?)".to_string(),
                _ => crate::diag::did_you_mean(&method, super::builtins::method_names().chain(["len"])),
            },
            builtin_names(Form::Math)
        );
    }

    /// The message for `len()` of something other than a slice parameter, with what measures a
    /// tile set's tiles and atoms.
    fn len_elsewhere(&self, receiver: &syn::Expr) -> String {
        let what = "`len()` is the length of a slice parameter (`x.len()`)";
        let syn::Expr::MethodCall(inner) = receiver else {
            return format!("{what}, not of this value");
        };
        let Ok((set, format)) = self.tile_set(&inner.receiver) else {
            return format!("{what}, not of this value");
        };
        match inner.method.to_string().as_str() {
            "atoms" => {
                let tile = match inner.args.first() {
                    Some(syn::Expr::Path(p)) if p.path.get_ident().is_some() => {
                        super::builtins::path_text(p)
                    }
                    _ => "tile".to_string(),
                };
                let count = match format.arrays().iter().find(|a| a.is_offsets()) {
                    Some(offsets) => {
                        let o = offsets.rust_name();
                        format!("`({set}.{o}[{tile} + 1] - {set}.{o}[{tile}]) as usize`")
                    }
                    None => format!(
                        "counted in its atom loop (a `{}` tile set has no offsets array)",
                        format.rust_name()
                    ),
                };
                format!("{what}; the number of atoms of a tile is {count}")
            }
            "tiles" | "tiles_in" | "all_atoms" => format!(
                "{what}; a tile set `{set}` has `{set}.num_tiles()` tiles and `{set}.num_atoms()` atoms"
            ),
            _ => format!("{what}, not of this value"),
        }
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
        if matches!(&*ix.index, syn::Expr::Range(_)) {
            bail!(ix.span(), "{}", super::expr::subslice_message(ix));
        }
        let index = self.expr(&ix.index, Some(&Ty::Usize))?;
        if index.ty != Ty::Usize {
            // As in Rust: a slice is indexed by a `usize` (an integer literal or a variable it
            // initialises takes that type).
            self.infer(&index, &Ty::Usize);
            let what = match &base {
                Indexed::Slice(s) => format!("`{s}`"),
                Indexed::SetArray { set, array, .. } => format!("`{set}.{}`", array.rust_name()),
            };
            if index.ty.is_integer() {
                bail!(
                    ix.index.span(),
                    "{what} is indexed by a `usize`, as a Rust slice is, and this index is `{}`: convert it \
                     with `as usize`",
                    index.ty.rust_name()
                );
            }
            bail!(
                ix.index.span(),
                "{what} is indexed by a `usize`, not `{}`",
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

//! What `#[load_balanced]` expands to: a module holding the generated CUDA and the kernel's spec,
//! and a launch wrapper with the function's name that takes device buffers.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::body::HelperItem;
use crate::diag::DResult;
use crate::ir::*;
use crate::schedule::Kernel;
use crate::schedule::ScheduleConfig;

/// The whole macro: attribute and item in, tokens out (a `compile_error!` at the span on failure).
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand_with(attr, item, Vec::new())
}

/// The macro, with the `#[loops::device]` helpers fetched so far: where the body calls one it
/// does not hold, the tokens fetch it and come back here ([`super::device`]).
pub(super) fn expand_with(
    attr: TokenStream,
    item: TokenStream,
    helpers: Vec<HelperItem>,
) -> TokenStream {
    let d = match try_expand(attr.clone(), item.clone(), &helpers) {
        Ok(tokens) => return tokens,
        Err(d) => d,
    };
    match &d.wanted_helper {
        Some(name) => {
            let helpers = helpers.iter().map(|h| &h.item);
            let args = quote!([#attr] [#item] #(#helpers)*);
            let continuation = quote!(::loops::__private::load_balanced_with);
            super::device::fetch(name, d.span, continuation, args)
        }
        None => syn::Error::from(d).to_compile_error(),
    }
}

fn try_expand(
    attr: TokenStream,
    item: TokenStream,
    helpers: &[HelperItem],
) -> DResult<TokenStream> {
    let func: syn::ItemFn = syn::parse2(item)?;
    let config = super::parse_attr(attr.clone())?;
    let file = func.sig.ident.span().file();
    let kernel = super::lower_kernel(&func, helpers, config, &file)?;
    let emitted = crate::emit::emit_kernel(&kernel).map_err(|mut d| {
        if d.about_schedule {
            d.span = super::attr::schedule_span(attr);
        }
        d
    })?;
    Ok(wrapper(&func, &kernel, &emitted))
}

/// The generated module (the sources and the kernel's description, constants) and the launch
/// wrapper: the same small thing for every schedule. The wrapper checks the buffers' lengths,
/// pushes the arguments and makes one call into the runtime, which carries out the schedule's
/// plan ([`crate::schedule::ScheduleUnit::plan`]).
fn wrapper(func: &syn::ItemFn, kernel: &Kernel, emitted: &crate::emit::Emitted) -> TokenStream {
    let vis = &func.vis;
    let name = &func.sig.ident;
    let name_str = name.to_string();
    let docs: Vec<&syn::Attribute> = func
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .collect();
    let generics: Vec<TokenStream> = kernel
        .type_params
        .iter()
        .map(|t| {
            let t = format_ident!("{}", t);
            quote!(#t: ::loops::Float)
        })
        .collect();
    let (params, pushes) = params_and_pushes(&kernel.params);
    let set = format_ident!("{}", set_name(kernel));
    let set_str = set.to_string();
    let wide_checks = wide_checks(kernel);
    let mut checks = length_checks(kernel);
    checks.extend(block_shared_checks(kernel));
    let rounds = carry_rounds(kernel, emitted);
    let subset = match &kernel.body.subset {
        Some(sub) => {
            let list = format_ident!("{}", sub.list);
            quote!(.subset(#list))
        }
        None => TokenStream::new(),
    };
    let entry_key = if kernel.type_params.is_empty() {
        quote!("")
    } else {
        let t = format_ident!("{}", kernel.type_params[0]);
        quote!(<#t as ::loops::Element>::RUST_NAME)
    };
    let module = module_items(kernel, emitted);
    let schedule = if crate::schedule::tile_only::is_tile_only(&kernel.body) {
        // Whatever schedule the attribute names: see `kernels_gen::schedule::tile_only`.
        "schedule \"thread\": a tile-only body runs one thread per tile under every schedule"
            .to_string()
    } else if kernel.body.flat {
        "schedule \"thread\": an atom-major body that never asks its tile runs one flat loop \
         over the atoms under every schedule"
            .to_string()
    } else {
        format!("schedule \"{}\"", kernel.config.name())
    };
    let doc_wrapper = format!(
        "Launches the `{name_str}` kernel ({schedule}) on `gpu`'s stream. The first call \
         in a process compiles it with NVRTC (or reads it from the disk cache); later calls reuse \
         the compiled module."
    );
    let doc_mod = format!("The generated CUDA and launch description of the `{name_str}` kernel.");
    quote! {
        #[doc = #doc_mod]
        #[allow(non_snake_case, dead_code)]
        #vis mod #name {
            #module
        }

        #(#docs)*
        #[doc = ""]
        #[doc = #doc_wrapper]
        #vis fn #name<#(#generics),*>(gpu: &::loops::Gpu, #(#params),*) -> ::loops::Result<()> {
            #(#wide_checks)*
            #(#checks)*
            let mut args = ::loops::__private::KernelArgs::new();
            #(#pushes)*
            #rounds
            gpu.run(&#name::KERNEL, #entry_key, ::loops::__private::Call::new(#set_str, #set, cfg!(debug_assertions))#subset, args)
        }
    }
}

/// The module's constants: the sources, the variants they hold, and the kernel's description.
fn module_items(kernel: &Kernel, emitted: &crate::emit::Emitted) -> TokenStream {
    let name_str = &kernel.name;
    let source = &emitted.source;
    let view = &emitted.snapshot_view;
    let view_doc = format!(
        "The kernel's own code in [`CUDA_SOURCE`] (the body template and entry points of every \
         variant) without `#line` directives: what a snapshot test holds \
         (`insta::assert_snapshot!({name_str}::CUDA_KERNEL)`). It changes when the kernel's \
         generated code does, not when the library's prelude changes or the kernel moves. For \
         reading, not compiling."
    );
    let checked_source = &emitted.checked_source;
    let fault_sites = &emitted.fault_sites;
    let file = &kernel.file;
    let config = config_tokens(&kernel.config);
    let generic = !kernel.type_params.is_empty();
    let variants = emitted.variants.iter().map(|v| {
        let config = config_tokens(&v.config);
        let (vname, slots, scans, wide) = (&v.name, v.scratch_slots_per_block, v.scans, v.wide);
        let state = v.state_slots_per_tile;
        let shared = v.dynamic_shared_bytes;
        let (user_params, over_list, atomics) = (v.user_params as u32, v.over_list, v.atomics);
        let (passes, pass_levels) = (v.passes, v.pass_levels);
        quote! {
            ::loops::__private::Variant {
                config: #config,
                name: #vname,
                scratch_slots_per_block: #slots,
                state_slots_per_tile: #state,
                dynamic_shared_bytes: #shared,
                scans: #scans,
                wide: #wide,
                user_params: #user_params,
                over_list: #over_list,
                atomics: #atomics,
                passes: #passes,
                pass_levels: #pass_levels,
            }
        }
    });
    let (wide_items, wide_sources) = match &emitted.wide {
        Some(wide) => {
            let (source, checked) = (&wide.source, &wide.checked_source);
            (
                quote! {
                    /// The 64-bit-offsets instantiation of the variants that have one, for tile
                    /// sets of more than `i32::MAX` atoms; compiled on the first such launch.
                    pub const CUDA_SOURCE_WIDE: &str = #source;
                    /// [`CUDA_SOURCE_WIDE`] bounds-checked.
                    pub const CUDA_SOURCE_WIDE_CHECKED: &str = #checked;
                },
                quote!(Some((CUDA_SOURCE_WIDE, CUDA_SOURCE_WIDE_CHECKED))),
            )
        }
        None => (TokenStream::new(), quote!(None)),
    };
    let narrow_why = narrow_why(kernel, emitted);
    quote! {
        /// The CUDA C++ of every variant of the kernel (one, or `auto`'s candidates, or `lrb`'s
        /// mappings), in one source: a header line, the `#include` of the library's prelude
        /// (`loops::compile::PRELUDE`, which the runtime hands NVRTC), then the kernel's
        /// own code. Its `#line` directives point the kernel's statements at the Rust source and
        /// the generated code at its own lines here. With the prelude written in place:
        /// `loops::compile::full_source`.
        pub const CUDA_SOURCE: &str = #source;
        #[doc = #view_doc]
        pub const CUDA_KERNEL: &str = #view;
        /// The same kernels with every slice and tile-set index bounds-checked on the GPU
        /// (it includes the checked prelude too): launched in debug builds, or when
        /// `LOOPS_CHECKED=1`.
        pub const CUDA_SOURCE_CHECKED: &str = #checked_source;
        #wide_items
        /// The variants [`CUDA_SOURCE`] holds, each under its own schedule.
        pub const VARIANTS: &[::loops::__private::Variant] = &[#(#variants),*];
        /// What the runtime needs to compile the kernel and carry out its schedule's plan.
        pub const KERNEL: ::loops::__private::KernelDesc = ::loops::__private::KernelDesc {
            name: #name_str,
            file: #file,
            config: #config,
            source: CUDA_SOURCE,
            checked_source: CUDA_SOURCE_CHECKED,
            wide_sources: #wide_sources,
            variants: VARIANTS,
            fault_sites: &[#(#fault_sites),*],
            generic: #generic,
            narrow_why: #narrow_why,
        };
    }
}

/// Why the kernel refuses a tile set of more than `i32::MAX` atoms, where no variant has a
/// 64-bit-offsets instantiation ("" where one has).
fn narrow_why(kernel: &Kernel, emitted: &crate::emit::Emitted) -> &'static str {
    if emitted.wide.is_some() {
        ""
    } else if !kernel.config.schedule.supports_wide_offsets() {
        "this schedule keeps atom positions in 32-bit prefix sums, bins or block starts"
    } else {
        "the kernel body reads the tile offsets, which the body language types `i32`"
    }
}

/// The wrapper's parameters (device buffers for the user's types) and the pushes of their
/// arguments, in the kernel's parameter order.
pub(super) fn params_and_pushes(kernel_params: &[Param]) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut params = Vec::new();
    let mut pushes = Vec::new();
    for p in kernel_params {
        let ident = format_ident!("{}", p.name);
        match &p.kind {
            ParamKind::TileSet { format, elem } => {
                let ty = match format {
                    Format::Csr => quote!(DeviceCsr),
                    Format::Csc => quote!(DeviceCsc),
                    Format::Coo => quote!(DeviceCoo),
                    Format::Offsets => quote!(DeviceOffsets),
                };
                match elem {
                    Some(elem) => {
                        let elem = ty_tokens(elem);
                        params.push(quote!(#ident: &::loops::#ty<#elem>));
                    }
                    None => params.push(quote!(#ident: &::loops::#ty)),
                }
                pushes.push(quote!(args.tile_set(#ident);));
            }
            ParamKind::Slice { elem, mutable } => {
                let elem = ty_tokens(elem);
                if *mutable {
                    params.push(quote!(#ident: &mut ::loops::DeviceBuffer<#elem>));
                    pushes.push(quote!(args.slice_mut(#ident);));
                } else {
                    params.push(quote!(#ident: &::loops::DeviceBuffer<#elem>));
                    pushes.push(quote!(args.slice(#ident);));
                }
            }
            ParamKind::Scalar(ty) => {
                let t = ty_tokens(ty);
                params.push(quote!(#ident: #t));
                pushes.push(quote!(args.scalar(#ident);));
            }
        }
    }
    (params, pushes)
}

/// 64-bit offsets, checked before anything else: the tile loop's set may be wide where a variant
/// has a 64-bit-offsets instantiation (which widens its offsets and atom count alone); any other
/// tile-set parameter must be narrow.
fn wide_checks(kernel: &Kernel) -> Vec<TokenStream> {
    let set = set_name(kernel);
    let name = format_ident!("{}", kernel.name);
    kernel
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::TileSet { .. }))
        .map(|p| {
            let ident = format_ident!("{}", p.name);
            let (pname, loop_set) = (&p.name, p.name == set);
            quote!(::loops::__private::check_wide(&#name::KERNEL, #pname, #ident, #loop_set)?;)
        })
        .collect()
}

fn ty_tokens(ty: &Ty) -> TokenStream {
    let ident = format_ident!("{}", ty.rust_name());
    quote!(#ident)
}

/// A configuration as a constant expression: the schedule's constructor
/// ([`crate::schedule::Schedule::constructor_tokens`]), so no schedule needs a case here.
fn config_tokens(config: &ScheduleConfig) -> TokenStream {
    let schedule = config
        .schedule
        .constructor_tokens(&quote!(::loops::__private::Schedule));
    let block = config.block_size;
    quote!(::loops::__private::ScheduleConfig { schedule: #schedule, block_size: #block })
}

/// What a slice is indexed by decides the length it needs: a slice indexed by the tile variable needs
/// one element per tile, by a column index one per column, by the atom variable one per atom. These are
/// checked on the host before launch, so a short buffer is an error, not an out-of-bounds access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Extent {
    /// The tiles (a CSR matrix's rows, a CSC matrix's columns).
    Tiles,
    /// A matrix's columns (indexed by `col_indices`).
    Cols,
    /// A matrix's rows (indexed by `row_indices`).
    Rows,
    /// The atoms.
    Atoms,
}

/// The tile set the kernel's tile loop runs over (for a subset, the set it is a subset of).
fn set_name(kernel: &Kernel) -> &str {
    match &kernel.body.subset {
        Some(sub) => &sub.set,
        None => &kernel.body.set,
    }
}

/// The user's tile variable (for a subset, not the position in the list).
fn tile_var(kernel: &Kernel) -> &str {
    match &kernel.body.subset {
        Some(sub) => &sub.tile,
        None => &kernel.body.tile,
    }
}

fn length_checks(kernel: &Kernel) -> Vec<TokenStream> {
    let mut needs: Vec<(String, Extent)> = Vec::new();
    let tl = &kernel.body;
    let view = SetView {
        set: set_name(kernel),
        tile: tile_var(kernel),
    };
    let mut atom_vars = Vec::new();
    collect_block(&tl.body, &view, &mut atom_vars, &mut needs);
    needs.sort();
    needs.dedup();
    let kname = &kernel.name;
    let set_str = view.set;
    needs
        .into_iter()
        .map(|(slice, extent)| {
            let ident = format_ident!("{}", slice);
            let set = format_ident!("{}", set_str);
            let (method, why) = match extent {
                Extent::Tiles => (
                    quote!(::loops::__private::TileSet::num_tiles(#set)),
                    format!("it is indexed by the tiles of `{set_str}`"),
                ),
                Extent::Cols => (
                    quote!(#set.cols()),
                    format!("it is indexed by column indices of `{set_str}`"),
                ),
                Extent::Rows => (
                    quote!(#set.rows()),
                    format!("it is indexed by row indices of `{set_str}`"),
                ),
                Extent::Atoms => (
                    quote!(::loops::__private::TileSet::num_atoms(#set)),
                    format!("it is indexed by the atoms of `{set_str}`"),
                ),
            };
            quote!(::loops::__private::check_len(#kname, #slice, #ident.len(), #method, #why)?;)
        })
        .collect()
}

/// Each `#[block_shared]` array's slice holds at least its `N` elements: every block flushes
/// its copy into them.
fn block_shared_checks(kernel: &Kernel) -> Vec<TokenStream> {
    let kname = &kernel.name;
    kernel
        .params
        .iter()
        .filter_map(|p| {
            let n = p.block_shared? as usize;
            let ident = format_ident!("{}", p.name);
            let pname = &p.name;
            let why = format!("it is a `#[block_shared]` array of {n} elements");
            Some(quote!(::loops::__private::check_len(#kname, #pname, #ident.len(), #n, #why)?;))
        })
        .collect()
}

/// What the length checks need of the tile loop: the tile set's name and the user's tile variable.
struct SetView<'k> {
    set: &'k str,
    tile: &'k str,
}

fn collect_block(
    block: &Block,
    tl: &SetView<'_>,
    atom_vars: &mut Vec<String>,
    out: &mut Vec<(String, Extent)>,
) {
    for stmt in block {
        match &stmt.kind {
            StmtKind::Let { init, .. } => collect_expr(init, tl, atom_vars, out),
            StmtKind::Assign { place, value, .. } => {
                collect_expr(place, tl, atom_vars, out);
                collect_expr(value, tl, atom_vars, out);
            }
            StmtKind::Expr(e) | StmtKind::Return(e) => collect_expr(e, tl, atom_vars, out),
            StmtKind::Break | StmtKind::Continue => {}
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                collect_expr(cond, tl, atom_vars, out);
                collect_block(then, tl, atom_vars, out);
                collect_block(otherwise, tl, atom_vars, out);
            }
            StmtKind::ForRange {
                start, end, body, ..
            } => {
                collect_expr(start, tl, atom_vars, out);
                collect_expr(end, tl, atom_vars, out);
                collect_block(body, tl, atom_vars, out);
            }
            StmtKind::ForAtoms { var, body, .. } => {
                atom_vars.push(var.clone());
                collect_block(body, tl, atom_vars, out);
                atom_vars.pop();
            }
        }
    }
}

fn collect_expr(e: &Expr, tl: &SetView<'_>, atom_vars: &[String], out: &mut Vec<(String, Extent)>) {
    match &e.kind {
        ExprKind::Index { base, index } => {
            if let Indexed::Slice(s) = base {
                if let Some(extent) = extent_of(index, tl, atom_vars) {
                    out.push((s.clone(), extent));
                }
            }
            collect_expr(index, tl, atom_vars, out);
        }
        ExprKind::Binary { lhs, rhs, .. } => {
            collect_expr(lhs, tl, atom_vars, out);
            collect_expr(rhs, tl, atom_vars, out);
        }
        ExprKind::Unary { expr, .. } | ExprKind::Cast { expr, .. } => {
            collect_expr(expr, tl, atom_vars, out)
        }
        ExprKind::Call { args, .. } | ExprKind::HelperCall { args, .. } => args
            .iter()
            .for_each(|a| collect_expr(a, tl, atom_vars, out)),
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => {
            for part in [cond, then, otherwise] {
                collect_expr(part, tl, atom_vars, out);
            }
        }
        ExprKind::Lit(_)
        | ExprKind::Var(_)
        | ExprKind::SetProperty { .. }
        | ExprKind::SliceLen(_)
        | ExprKind::Const(_) => {}
    }
}

/// The extent an index ranges over, when it is one of the three the runtime knows.
fn extent_of(index: &Expr, tl: &SetView<'_>, atom_vars: &[String]) -> Option<Extent> {
    match &index.kind {
        ExprKind::Cast { expr, .. } => extent_of(expr, tl, atom_vars),
        ExprKind::Var(v) if *v == tl.tile => Some(Extent::Tiles),
        ExprKind::Var(v) if atom_vars.contains(v) => Some(Extent::Atoms),
        ExprKind::Index {
            base: Indexed::SetArray { set, array, .. },
            ..
        } if *set == tl.set => match array {
            SetArray::ColIndices => Some(Extent::Cols),
            SetArray::RowIndices => Some(Extent::Rows),
            _ => None,
        },
        _ => None,
    }
}

/// For a carry schedule whose atom loop sits in a tile-invariant `for` loop: the number of rounds the
/// kernel runs, computed on the host from the same bounds, so the runtime gives each its scratch.
fn carry_rounds(kernel: &Kernel, emitted: &crate::emit::Emitted) -> TokenStream {
    if !emitted
        .variants
        .iter()
        .any(|v| v.config.schedule.unit().scratch_per_round())
    {
        return TokenStream::new();
    }
    let Ok(crate::analysis::CarryBody {
        rounds: Some(r), ..
    }) = crate::analysis::carry_body(kernel, kernel.body.user_body(), kernel.config.name())
    else {
        return TokenStream::new();
    };
    let ty = ty_tokens(r.ty);
    let start: syn::Expr =
        syn::parse_str(&rust_expr(r.start)).expect("rust_expr writes valid Rust");
    let end: syn::Expr = syn::parse_str(&rust_expr(r.end)).expect("rust_expr writes valid Rust");
    quote! {
        let (loops_start, loops_end): (#ty, #ty) = (#start, #end);
        args.carry_rounds(if loops_end > loops_start { (loops_end - loops_start) as u64 } else { 0 });
    }
}

/// Rust for a tile-invariant expression (literals, constants, scalar parameters, sizes, arithmetic,
/// casts, builtins), evaluated in the launch wrapper where the parameters are in scope.
fn rust_expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Lit(text) => match &e.ty {
            Ty::Bool => text.clone(),
            Ty::Param(p) => {
                let inner = text.trim_start_matches(p.as_str()).trim_matches(['(', ')']);
                format!("<{p} as ::loops::Float>::from_f64({inner})")
            }
            ty => {
                let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
                format!("({digits}{})", ty.rust_name())
            }
        },
        ExprKind::Var(v) => v.clone(),
        // Tiles and atoms through the trait (the user's file need not import it); rows, columns
        // and entries are a matrix's own.
        ExprKind::SetProperty { set, property } => match property {
            SetProperty::Tiles | SetProperty::Atoms => {
                format!(
                    "::loops::__private::TileSet::{}({set})",
                    property.rust_name()
                )
            }
            _ => format!("{set}.{}()", property.rust_name()),
        },
        ExprKind::SliceLen(s) => format!("{s}.len()"),
        ExprKind::Binary { op, lhs, rhs } => {
            format!("({} {} {})", rust_expr(lhs), op.cuda(), rust_expr(rhs))
        }
        ExprKind::Unary { op, expr } => {
            let sign = match op {
                UnOp::Neg => "-",
                UnOp::Not => "!",
            };
            format!("({sign}{})", rust_expr(expr))
        }
        ExprKind::Cast { expr, to } => format!("({} as {})", rust_expr(expr), to.rust_name()),
        // The builtins have Rust's names and meanings: each is its method.
        ExprKind::Call { builtin, args } => {
            assert!(
                !builtin.is_atomic(),
                "tile-invariant expressions have no atomics"
            );
            let rest: Vec<String> = args[1..].iter().map(rust_expr).collect();
            format!(
                "{}.{}({})",
                rust_expr(&args[0]),
                builtin.name(),
                rest.join(", ")
            )
        }
        ExprKind::Const(c) => match &e.ty {
            // `Float` has no constants: take the f32 or f64 one by the type's name.
            Ty::Param(p) => format!(
                "<{p} as ::loops::Float>::from_f64(if <{p} as ::loops::Element>::RUST_NAME == \"f32\" {{ f32::{0} as f64 }} else {{ f64::{0} }})",
                c.name()
            ),
            ty => format!("{}::{}", ty.rust_name(), c.name()),
        },
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => format!(
            "(if {} {{ {} }} else {{ {} }})",
            rust_expr(cond),
            rust_expr(then),
            rust_expr(otherwise)
        ),
        ExprKind::Index { .. } => unreachable!("tile-invariant expressions read no memory"),
        ExprKind::HelperCall { .. } => unreachable!("tile-invariant expressions call no helper"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(attr: &str, body: &str) -> String {
        expand(attr.parse().unwrap(), body.parse().unwrap()).to_string()
    }

    const SPMV: &str = "pub fn spmv<T: Float>(a: Csr<T>, x: &[T], y: &mut [T]) {
        for row in a.tiles() {
            let mut sum = 0.0;
            for nz in a.atoms(row) { sum += a.values[nz] * x[a.col_indices[nz] as usize]; }
            y[row] = sum;
        }
    }";

    /// A per-row argmax (a selection: compare-and-assign, not a scalar reduction) runs under
    /// every schedule: `auto` keeps its thread, group and carry candidates.
    #[test]
    fn an_argmax_body_keeps_the_candidates_that_lower_it() {
        const ARGMAX: &str = "pub fn row_argmax<T: Float>(a: Csr<T>, best: &mut [u32]) {
            for row in a.tiles() {
                let mut m = 0.0;
                let mut c = 0;
                for nz in a.atoms(row) {
                    let v = a.values[nz];
                    if v > m { m = v; c = a.col_indices[nz]; }
                }
                best[row] = c as u32;
            }
        }";
        let auto = expanded("schedule = \"auto\"", ARGMAX);
        assert!(!auto.contains("compile_error"), "{auto}");
        assert!(auto.contains("row_argmax_thread"), "{auto}");
        assert!(auto.contains("row_argmax_group2"), "{auto}");
        assert!(auto.contains("row_argmax_work_oriented"), "{auto}");
        assert!(auto.contains("row_argmax_merge_path"), "{auto}");
        let lrb = expanded("schedule = \"lrb\"", ARGMAX);
        assert!(!lrb.contains("compile_error"), "{lrb}");
        let group = expanded("schedule = \"group\", group_size = 4", ARGMAX);
        assert!(!group.contains("compile_error"), "{group}");
        for carry in ["work_oriented", "merge_path", "split"] {
            let src = expanded(&format!("schedule = \"{carry}\""), ARGMAX);
            assert!(!src.contains("compile_error"), "{src}");
        }
    }

    /// Every schedule's constant is its constructor: it parses as an expression and names the
    /// variant with its arguments (as its `Debug` form does), for every named schedule.
    #[test]
    fn every_schedule_constant_is_its_constructor() {
        for named in crate::schedule::SCHEDULES {
            let config = crate::frontend::parse_attr(named.attr.parse().unwrap()).unwrap();
            let tokens = config_tokens(&config);
            syn::parse2::<syn::Expr>(tokens.clone()).expect(named.name);
            let tokens = tokens.to_string().replace(' ', "");
            let want = format!("{:?}", config.schedule).replace(' ', "");
            assert!(tokens.contains(&format!("Schedule::{want}")), "{tokens}");
        }
    }

    /// `auto`'s SpMV holds two candidates that run the segmented scan (`work_oriented` of 8 and
    /// of 16 atoms a thread), which its model reads from `VARIANTS`.
    #[test]
    fn the_work_oriented_candidates_say_they_scan() {
        let auto = expanded("schedule = \"auto\"", SPMV);
        assert_eq!(auto.matches("scans : true").count(), 2, "{auto}");
        let merge_path = expanded("schedule = \"merge_path\"", SPMV);
        assert!(merge_path.contains("scans : false"));
    }

    /// A tile-mapped schedule has a wide source with `__wide` entries; a carry schedule and
    /// `lrb` have none and say why, for the runtime to refuse a wide set before launching; a body
    /// that reads the offsets has none under every schedule.
    #[test]
    fn wide_sets_are_launched_or_refused_before_launch() {
        let thread = expanded("schedule = \"thread\"", SPMV);
        assert!(thread.contains("CUDA_SOURCE_WIDE") && thread.contains("spmv__f32__wide"));
        assert!(thread.contains("narrow_why : \"\""));
        for schedule in ["merge_path", "work_oriented", "split", "lrb"] {
            let tokens = expanded(&format!("schedule = \"{schedule}\""), SPMV);
            assert!(!tokens.contains("CUDA_SOURCE_WIDE"), "{schedule}");
            assert!(tokens.contains("wide_sources : None"), "{schedule}");
            assert!(tokens.contains("32-bit prefix sums"), "{schedule}");
        }
        let auto = expanded("schedule = \"auto\"", SPMV);
        assert!(auto.contains("CUDA_SOURCE_WIDE") && auto.contains("spmv_group32__f32__wide"));
        let reads_offsets = "pub fn lens(a: Offsets, out: &mut [u32]) {
            for t in a.tiles() {
                let n = a.offsets[t + 1] - a.offsets[t];
                for i in a.atoms(t) { out[i] = n as u32; }
            }
        }";
        let tokens = expanded("schedule = \"warp\"", reads_offsets);
        assert!(!tokens.contains("CUDA_SOURCE_WIDE"));
        assert!(tokens.contains("reads the tile offsets"));
        // One call into the runtime, whatever the schedule.
        for schedule in ["thread", "merge_path", "lrb", "auto"] {
            let tokens = expanded(&format!("schedule = \"{schedule}\""), SPMV);
            assert_eq!(tokens.matches("gpu . run (").count(), 1, "{schedule}");
        }
    }
}

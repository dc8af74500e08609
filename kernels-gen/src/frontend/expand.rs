//! What `#[load_balanced]` expands to: a module holding the generated CUDA and the kernel's spec,
//! and a launch wrapper with the function's name that takes device buffers.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::diag::DResult;
use crate::ir::*;
use crate::schedule::{Schedule, ScheduleConfig};

/// The whole macro: attribute and item in, tokens out (a `compile_error!` at the span on failure).
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    match try_expand(attr, item) {
        Ok(tokens) => tokens,
        Err(d) => syn::Error::from(d).to_compile_error(),
    }
}

fn try_expand(attr: TokenStream, item: TokenStream) -> DResult<TokenStream> {
    let func: syn::ItemFn = syn::parse2(item)?;
    let config = super::parse_attr(attr)?;
    let file = func.sig.ident.span().file();
    let kernel = super::lower_fn(&func, config, &file)?;
    let emitted = crate::emit::emit_kernel(&kernel)?;
    Ok(wrapper(&func, &kernel, &emitted))
}

fn wrapper(func: &syn::ItemFn, kernel: &Kernel, emitted: &crate::emit::Emitted) -> TokenStream {
    let source = &emitted.source;
    let checked_source = &emitted.checked_source;
    let fault_sites = &emitted.fault_sites;
    let file = &kernel.file;
    let scratch = emitted.scratch_slots_per_block;
    // The entry's parameters: each kernel parameter's parts, then `loops_scratch`.
    let param_count = kernel
        .params
        .iter()
        .map(|p| crate::emit::derived_param_names(p).len())
        .sum::<usize>()
        + 1
        + usize::from(kernel.takes_subset_offsets())
        + kernel.block_range_params()
        + 2 * usize::from(kernel.takes_split_pieces());
    let vis = &func.vis;
    let name = &func.sig.ident;
    let name_str = name.to_string();
    // The spec of one plain (unchecked) kernel of the module's `CUDA_SOURCE`.
    let spec_of_source =
        |source: &TokenStream, config: &TokenStream, slots: u32, param_count: usize| {
            quote! {
                ::loops::__private::KernelSpec {
                    name: #name_str,
                    source: #source,
                    config: #config,
                    scratch_slots_per_block: #slots,
                    param_count: #param_count,
                    checked: false,
                    fault_sites: &[#(#fault_sites),*],
                    file: #file,
                }
            }
        };
    let plain_spec = |config: &TokenStream, slots: u32, param_count: usize| {
        spec_of_source(&quote!(CUDA_SOURCE), config, slots, param_count)
    };
    let docs: Vec<&syn::Attribute> = func
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .collect();
    let config = config_tokens(&kernel.config);
    let schedule_name = kernel.config.name();

    let generics: Vec<TokenStream> = kernel
        .type_params
        .iter()
        .map(|t| {
            let t = format_ident!("{}", t);
            quote!(#t: ::loops::Float)
        })
        .collect();
    let mut params = Vec::new();
    let mut pushes = Vec::new();
    let mut tile_set = None;
    for p in &kernel.params {
        let ident = format_ident!("{}", p.name);
        match &p.kind {
            ParamKind::TileSet { format, elem } => {
                let (ty, push) = match format {
                    Format::Csr => (quote!(DeviceCsr), quote!(csr)),
                    Format::Csc => (quote!(DeviceCsc), quote!(csc)),
                    Format::Coo => (quote!(DeviceCoo), quote!(coo)),
                    Format::Offsets => (quote!(DeviceOffsets), quote!(offsets)),
                };
                match elem {
                    Some(elem) => {
                        let elem = ty_tokens(elem);
                        params.push(quote!(#ident: &::loops::#ty<#elem>));
                    }
                    None => params.push(quote!(#ident: &::loops::#ty)),
                }
                pushes.push(quote!(args.#push(#ident);));
                if p.name == set_name(kernel) {
                    tile_set = Some(ident.clone());
                }
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
    let set = tile_set.expect("the front end checked the tile set is a parameter");
    // 64-bit offsets: only the tile loop's set may be wide (the wide instantiation widens its
    // offsets and atom count alone); any other tile-set parameter must be narrow.
    let set_str = set.to_string();
    let schedule_desc = kernel.config.describe();
    let mut narrow_checks: Vec<TokenStream> = kernel
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::TileSet { .. }) && p.name != set_str)
        .map(|p| {
            let ident = format_ident!("{}", p.name);
            let pname = &p.name;
            quote! {
                if #ident.is_wide() {
                    return Err(::loops::__private::wide_unsupported(
                        #name_str, #schedule_desc, #pname, #ident.num_atoms(),
                        "only the tile loop's set may have 64-bit offsets",
                    ));
                }
            }
        })
        .collect();
    // Without a wide instantiation, a wide loop set is refused before anything is launched.
    if emitted.wide.is_none() {
        let why = if !kernel.config.schedule.supports_wide_offsets() {
            "this schedule keeps atom positions in 32-bit prefix sums, bins or block starts"
        } else if !kernel.has_wide_variant() && kernel.config.schedule != Schedule::Auto {
            "the kernel body reads the tile offsets, which the body language types `i32`"
        } else {
            "no schedule of this kernel has a 64-bit-offsets instantiation"
        };
        narrow_checks.push(quote! {
            if #set.is_wide() {
                return Err(::loops::__private::wide_unsupported(
                    #name_str, #schedule_desc, #set_str, #set.num_atoms(), #why,
                ));
            }
        });
    }
    // A subset's launch covers the positions of its list.
    let shape = match &kernel.body.subset {
        Some(sub) => {
            let list = format_ident!("{}", sub.list);
            quote!(::loops::__private::subset_shape(#name_str, #set.shape(), #list.len())?)
        }
        None => quote!(#set.shape()),
    };
    let checks = length_checks(kernel);
    let mut rounds = carry_rounds(kernel);
    if let (true, Some(sub)) = (kernel.takes_subset_offsets(), &kernel.body.subset) {
        // The runtime sums the subset's tile sizes on the GPU and passes the prefix sum.
        let list = format_ident!("{}", sub.list);
        rounds.extend(quote!(args.tile_subset(#set.tile_offsets(), #list);));
    }
    if kernel.takes_block_starts() {
        // Where each block's range starts: computed by the first launch, kept with the tile set.
        rounds.extend(
            quote!(args.block_ranges(#set.tile_offsets()).preprocessed(#set.preprocessed());),
        );
    }
    if let Schedule::Split { mdt } = kernel.config.schedule {
        // The runtime counts each tile's pieces and prefix-sums them on the GPU.
        let mdt = if mdt == 0 {
            quote!(#set.split_mdt())
        } else {
            let mdt = mdt as u64;
            quote!(#mdt)
        };
        rounds.extend(quote!(args.split_pieces(#set.tile_offsets(), #mdt);));
        if kernel.body.subset.is_none() {
            // The piece counts of a whole tile set do not change: the first launch keeps them.
            rounds.extend(quote!(args.preprocessed(#set.preprocessed());));
        }
    }

    // `(element type, entry point)` of each instantiation of a kernel.
    let entries_of = |k: &Kernel| -> Vec<TokenStream> {
        k.instantiations()
            .iter()
            .map(|inst| {
                let types: Vec<&str> = inst.types.iter().map(|t| t.rust_name()).collect();
                let key = types.join("_");
                let entry = &inst.entry;
                quote!((#key, #entry))
            })
            .collect()
    };
    let entries = entries_of(kernel);
    let entry_key = if kernel.type_params.is_empty() {
        quote!("")
    } else {
        let t = format_ident!("{}", kernel.type_params[0]);
        quote!(<#t as ::loops::Element>::RUST_NAME)
    };

    let doc_wrapper = format!(
        "Launches the `{name_str}` kernel (schedule \"{schedule_name}\") on `gpu`'s stream. The first call \
         in a process compiles it with NVRTC; later calls reuse the compiled module."
    );
    let doc_mod = format!("The generated CUDA and launch spec of the `{name_str}` kernel.");
    if kernel.config.schedule == Schedule::Lrb {
        // `lrb`: one source, a spec and an entry table per mapping; each launch bins the tiles
        // and launches every mapping whose bins hold any, on the ids of those tiles.
        let mut mappings = Vec::new();
        let mut bins = Vec::new();
        let mut small_set_bins = Vec::new();
        let mut specs = Vec::new();
        let mut entry_tables = Vec::new();
        let launches = crate::schedule::lrb::launches(kernel.config.block_size);
        for (c, launch) in emitted.candidates.iter().zip(&launches) {
            let mut k = kernel.clone();
            k.name = c.name.clone();
            let entries = entries_of(&k);
            entry_tables.push(quote!(&[#(#entries),*]));
            let config = config_tokens(&c.config);
            mappings.push(config.clone());
            let (lo, hi) = (*launch.bins.start(), *launch.bins.end());
            bins.push(quote!(#lo..=#hi));
            small_set_bins.push(match &launch.small_set_bins {
                Some(b) => {
                    let (lo, hi) = (*b.start(), *b.end());
                    quote!(Some(#lo..=#hi))
                }
                None => quote!(None),
            });
            let slots = c.scratch_slots_per_block;
            // The bin's list (pointer and length), and for the merge path its prefix sum.
            let param_count = param_count + 2 + usize::from(c.config.schedule.carries());
            specs.push(plain_spec(&config, slots, param_count));
        }
        let count = emitted.candidates.len();
        // A subset is binned (and its ids gathered) at each launch; a whole tile set's bins, and
        // the prefix sum the merge path takes over its longest tiles, are kept by the first.
        let (bins_of_launch, ids, keep) = match &kernel.body.subset {
            Some(sub) => {
                let list = format_ident!("{}", sub.list);
                (
                    quote! {{
                        loops_bins_buf = gpu.bin_tiles(
                            #set.tile_offsets(),
                            loops_tiles,
                            Some(::loops::runtime::binning::SubsetIds::from(#list)),
                        )?;
                        &loops_bins_buf
                    }},
                    quote! {{
                        loops_ids_buf = gpu.binned_tile_ids(
                            loops_bins,
                            loops_tiles,
                            ::loops::runtime::binning::SubsetIds::from(#list),
                        )?;
                        &loops_ids_buf
                    }},
                    TokenStream::new(),
                )
            }
            None => (
                quote!(#set.preprocessed().bins(gpu, #set.tile_offsets(), loops_tiles)?),
                quote!(&loops_bins.order),
                quote!(args.preprocessed(#set.preprocessed());),
            ),
        };
        let doc_wrapper = format!(
            "Launches the `{name_str}` kernel on `gpu`'s stream under logarithmic radix binning: the \
             tiles are binned by size on the GPU (one read-back of the bin counts; a whole tile \
             set's bins are kept with it by its first launch), then each mapping of \
             `{name_str}::MAPPINGS` whose bins hold tiles is launched on their ids. The first call \
             in a process compiles every mapping at once with NVRTC."
        );
        return quote! {
            #[doc = #doc_mod]
            #[allow(non_snake_case, dead_code)]
            #vis mod #name {
                /// The CUDA C++ of every mapping, in one source; `#line` directives point at the
                /// Rust source.
                pub const CUDA_SOURCE: &str = #source;
                /// The same kernels with every slice and tile-set index bounds-checked on the GPU.
                pub const CUDA_SOURCE_CHECKED: &str = #checked_source;
                /// The schedule of each mapping (thread, group2, group4, warp, block, long), in the order of
                /// [`KERNELS`].
                pub const MAPPINGS: [::loops::__private::ScheduleConfig; #count] = [#(#mappings),*];
                /// The bins (of `ceil(log2(atoms))`) each mapping takes.
                pub const BINS: [::core::ops::RangeInclusive<usize>; #count] = [#(#bins),*];
                /// The bins each mapping takes on a set of fewer than
                /// `loops::runtime::schedule::lrb::SMALL_SET_TILES` tiles (fewer launches).
                pub const SMALL_SET_BINS: [Option<::core::ops::RangeInclusive<usize>>; #count] =
                    [#(#small_set_bins),*];
                /// Entry points of each mapping, by element type.
                pub const ENTRIES: [&[(&str, &str)]; #count] = [#(#entry_tables),*];
                /// What the runtime needs to compile and launch each mapping.
                pub const KERNELS: [::loops::__private::KernelSpec; #count] = [#(#specs),*];
            }

            #(#docs)*
            #[doc = ""]
            #[doc = #doc_wrapper]
            #vis fn #name<#(#generics),*>(gpu: &::loops::Gpu, #(#params),*) -> ::loops::Result<()> {
                #(#narrow_checks)*
                #(#checks)*
                let loops_tiles = #set.num_tiles();
                let loops_bins_buf: ::loops::runtime::binning::TileBins;
                let loops_bins: &::loops::runtime::binning::TileBins = #bins_of_launch;
                let loops_ids_buf: ::loops::DeviceBuffer<u32>;
                let loops_ids: &::loops::DeviceBuffer<u32> = #ids;
                let loops_checked = ::loops::__private::checked_mode(cfg!(debug_assertions));
                let loops_small = loops_bins.bin_starts[::loops::runtime::schedule::lrb::BINS]
                    < ::loops::runtime::schedule::lrb::SMALL_SET_TILES;
                for loops_m in 0..#count {
                    let loops_launch_bins = if loops_small {
                        match &#name::SMALL_SET_BINS[loops_m] {
                            Some(b) => b.clone(),
                            None => continue,
                        }
                    } else {
                        #name::BINS[loops_m].clone()
                    };
                    let loops_range = loops_bins.range(loops_launch_bins);
                    if loops_range.is_empty() {
                        continue;
                    }
                    let entry = ::loops::__private::entry_for(#name::ENTRIES[loops_m], #entry_key);
                    let mut args = ::loops::__private::KernelArgs::new();
                    #(#pushes)*
                    args.slice_range(loops_ids, loops_range.clone());
                    #rounds
                    if #name::MAPPINGS[loops_m].schedule.carries() {
                        args.tile_subset_range(#set.tile_offsets(), loops_ids, loops_range.clone());
                        #keep
                    }
                    let shape = ::loops::__private::subset_shape(#name_str, #set.shape(), loops_range.len())?;
                    let spec = &#name::KERNELS[loops_m];
                    if loops_checked {
                        let checked = spec.checked_variant(#name::CUDA_SOURCE_CHECKED);
                        gpu.launch(&checked, entry, shape, args)?;
                    } else {
                        gpu.launch(spec, entry, shape, args)?;
                    }
                }
                Ok(())
            }
        };
    }
    if !emitted.candidates.is_empty() {
        // `auto`: one source, a spec and an entry table per candidate, the choice at each launch.
        let mut schedules = Vec::new();
        let mut specs = Vec::new();
        let mut entry_tables = Vec::new();
        for c in &emitted.candidates {
            let mut k = kernel.clone();
            k.name = c.name.clone();
            k.config = c.config;
            // A carry candidate over a subset also takes the subset's offsets; over a whole tile
            // set, merge_path takes its blocks' starts.
            let param_count =
                param_count + usize::from(k.takes_subset_offsets()) + k.block_range_params();
            let entries = entries_of(&k);
            entry_tables.push(quote!(&[#(#entries),*]));
            let config = config_tokens(&c.config);
            schedules.push(config.clone());
            let slots = c.scratch_slots_per_block;
            specs.push(plain_spec(&config, slots, param_count));
        }
        let count = emitted.candidates.len();
        let work_oriented_scans = emitted.candidates.iter().any(|c| {
            let mut k = kernel.clone();
            k.config = c.config;
            crate::schedule::work_oriented_scans(&k)
        });
        // The candidates with a 64-bit-offsets instantiation, for a wide tile set: their own source,
        // specs and entries, and the choice among them alone.
        let (wide_items, wide_pick) = match &emitted.wide {
            Some(wide) => {
                let wide_source = &wide.source;
                let wide_checked = &wide.checked_source;
                let mut wide_schedules = Vec::new();
                let mut wide_specs = Vec::new();
                let mut wide_tables = Vec::new();
                for c in &wide.candidates {
                    let mut k = kernel.clone();
                    k.name = c.name.clone();
                    k.config = c.config;
                    let entries: Vec<TokenStream> = k
                        .instantiations()
                        .iter()
                        .map(|inst| {
                            let types: Vec<&str> =
                                inst.types.iter().map(|t| t.rust_name()).collect();
                            let key = types.join("_");
                            let entry = crate::ir::wide_entry_name(&inst.entry);
                            quote!((#key, #entry))
                        })
                        .collect();
                    wide_tables.push(quote!(&[#(#entries),*]));
                    let config = config_tokens(&c.config);
                    wide_schedules.push(config.clone());
                    wide_specs.push(spec_of_source(
                        &quote!(CUDA_SOURCE_WIDE),
                        &config,
                        c.scratch_slots_per_block,
                        param_count,
                    ));
                }
                let n = wide.candidates.len();
                (
                    quote! {
                        /// The 64-bit-offsets instantiation of the candidates that have one, for tile
                        /// sets of more than `i32::MAX` atoms; compiled on the first such launch.
                        pub const CUDA_SOURCE_WIDE: &str = #wide_source;
                        /// [`CUDA_SOURCE_WIDE`] bounds-checked.
                        pub const CUDA_SOURCE_WIDE_CHECKED: &str = #wide_checked;
                        /// The schedules `auto` chooses from for a wide tile set.
                        pub const CANDIDATES_WIDE: [::loops::__private::ScheduleConfig; #n] = [#(#wide_schedules),*];
                        /// Entry points of each wide candidate, by element type.
                        pub const ENTRIES_WIDE: [&[(&str, &str)]; #n] = [#(#wide_tables),*];
                        /// What the runtime needs to compile and launch each wide candidate.
                        pub const KERNELS_WIDE: [::loops::__private::KernelSpec; #n] = [#(#wide_specs),*];
                        /// The index in [`CANDIDATES_WIDE`] a launch over a wide tile set uses.
                        pub fn choose_wide(stats: &::loops::__private::TileStats) -> usize {
                            ::loops::__private::choose_config(&CANDIDATES_WIDE, stats, false)
                        }
                    },
                    quote! {
                        let pick = #name::choose_wide(&#set.stats());
                        (
                            ::loops::__private::entry_for(#name::ENTRIES_WIDE[pick], #entry_key),
                            &#name::KERNELS_WIDE[pick],
                            #name::CUDA_SOURCE_WIDE_CHECKED,
                        )
                    },
                )
            }
            // Refused above (`narrow_checks`).
            None => (
                TokenStream::new(),
                quote!(unreachable!("a wide tile set was refused")),
            ),
        };
        // Over a subset, the merge path candidate needs the subset's prefix sum.
        let candidate_args = match &kernel.body.subset {
            Some(sub) => {
                let list = format_ident!("{}", sub.list);
                quote! {
                    if #name::CANDIDATES[pick].schedule.carries() {
                        args.tile_subset(#set.tile_offsets(), #list);
                    }
                }
            }
            // Over a whole tile set, the merge path candidate's block starts are kept with it.
            None => {
                quote!(args.block_ranges(#set.tile_offsets()).preprocessed(#set.preprocessed());)
            }
        };
        let doc_wrapper = format!(
            "Launches the `{name_str}` kernel on `gpu`'s stream under the schedule `auto` picks for \
             this tile set (see `{name_str}::CANDIDATES`). The first call in a process compiles every \
             candidate at once with NVRTC; later calls reuse the module."
        );
        return quote! {
            #[doc = #doc_mod]
            #[allow(non_snake_case, dead_code)]
            #vis mod #name {
                /// The CUDA C++ of every candidate schedule, in one source; `#line` directives point
                /// at the Rust source.
                pub const CUDA_SOURCE: &str = #source;
                /// The same kernels with every slice and tile-set index bounds-checked on the GPU.
                pub const CUDA_SOURCE_CHECKED: &str = #checked_source;
                /// The schedules `auto` chooses from, in the order of [`KERNELS`].
                pub const CANDIDATES: [::loops::__private::ScheduleConfig; #count] = [#(#schedules),*];
                /// Entry points of each candidate, by element type.
                pub const ENTRIES: [&[(&str, &str)]; #count] = [#(#entry_tables),*];
                /// What the runtime needs to compile and launch each candidate.
                pub const KERNELS: [::loops::__private::KernelSpec; #count] = [#(#specs),*];
                /// The index in [`CANDIDATES`] that a launch over a tile set with these statistics uses.
                pub fn choose(stats: &::loops::__private::TileStats) -> usize {
                    ::loops::__private::choose_config(&CANDIDATES, stats, #work_oriented_scans)
                }
                #wide_items
            }

            #(#docs)*
            #[doc = ""]
            #[doc = #doc_wrapper]
            #vis fn #name<#(#generics),*>(gpu: &::loops::Gpu, #(#params),*) -> ::loops::Result<()> {
                #(#narrow_checks)*
                let loops_wide = #set.is_wide();
                let (entry, spec, checked_source) = if loops_wide {
                    #wide_pick
                } else {
                    let pick = #name::choose(&#set.stats());
                    (
                        ::loops::__private::entry_for(#name::ENTRIES[pick], #entry_key),
                        &#name::KERNELS[pick],
                        #name::CUDA_SOURCE_CHECKED,
                    )
                };
                #(#checks)*
                let mut args = ::loops::__private::KernelArgs::new();
                #(#pushes)*
                #rounds
                if !loops_wide {
                    let pick = #name::choose(&#set.stats());
                    #candidate_args
                }
                if ::loops::__private::checked_mode(cfg!(debug_assertions)) {
                    let checked = spec.checked_variant(checked_source);
                    return gpu.launch(&checked, entry, #shape, args);
                }
                gpu.launch(spec, entry, #shape, args)
            }
        };
    }
    let kernel_spec = plain_spec(&config, scratch, param_count);
    // The 64-bit-offsets instantiation: its own source (compiled on the first wide launch), entries
    // and specs; the launch takes it when the tile loop's set is wide.
    let (wide_items, pick_entries, pick_spec) = match &emitted.wide {
        Some(wide) => {
            let wide_source = &wide.source;
            let wide_checked = &wide.checked_source;
            let wide_entries: Vec<TokenStream> = kernel
                .instantiations()
                .iter()
                .map(|inst| {
                    let types: Vec<&str> = inst.types.iter().map(|t| t.rust_name()).collect();
                    let key = types.join("_");
                    let entry = crate::ir::wide_entry_name(&inst.entry);
                    quote!((#key, #entry))
                })
                .collect();
            let wide_spec =
                spec_of_source(&quote!(CUDA_SOURCE_WIDE), &config, scratch, param_count);
            (
                quote! {
                    /// The 64-bit-offsets instantiation, for tile sets of more than `i32::MAX` atoms;
                    /// compiled on the first such launch.
                    pub const CUDA_SOURCE_WIDE: &str = #wide_source;
                    /// [`CUDA_SOURCE_WIDE`] bounds-checked.
                    pub const CUDA_SOURCE_WIDE_CHECKED: &str = #wide_checked;
                    /// Entry points of the wide instantiation, by element type.
                    pub const ENTRIES_WIDE: &[(&str, &str)] = &[#(#wide_entries),*];
                    /// What the runtime needs to compile and launch the wide instantiation.
                    pub const KERNEL_WIDE: ::loops::__private::KernelSpec = #wide_spec;
                    /// Its checked variant.
                    pub const KERNEL_WIDE_CHECKED: ::loops::__private::KernelSpec =
                        KERNEL_WIDE.checked_variant(CUDA_SOURCE_WIDE_CHECKED);
                },
                quote! {
                    let loops_wide = #set.is_wide();
                    let entries = if loops_wide { #name::ENTRIES_WIDE } else { #name::ENTRIES };
                },
                quote! {
                    let spec = match (loops_wide, ::loops::__private::checked_mode(cfg!(debug_assertions))) {
                        (false, false) => &#name::KERNEL,
                        (false, true) => &#name::KERNEL_CHECKED,
                        (true, false) => &#name::KERNEL_WIDE,
                        (true, true) => &#name::KERNEL_WIDE_CHECKED,
                    };
                },
            )
        }
        None => (
            TokenStream::new(),
            quote!(let entries = #name::ENTRIES;),
            quote! {
                // Checked by default where Rust checks overflow: in the calling crate's debug builds.
                let spec = if ::loops::__private::checked_mode(cfg!(debug_assertions)) {
                    &#name::KERNEL_CHECKED
                } else {
                    &#name::KERNEL
                };
            },
        ),
    };
    quote! {
        #[doc = #doc_mod]
        #[allow(non_snake_case, dead_code)]
        #vis mod #name {
            /// The CUDA C++ this kernel compiles to; `#line` directives point at the Rust source.
            pub const CUDA_SOURCE: &str = #source;
            /// Entry points, by element type.
            pub const ENTRIES: &[(&str, &str)] = &[#(#entries),*];
            /// The same kernel with every slice and tile-set index bounds-checked on the GPU.
            pub const CUDA_SOURCE_CHECKED: &str = #checked_source;
            /// What the runtime needs to compile and launch the kernel.
            pub const KERNEL: ::loops::__private::KernelSpec = #kernel_spec;
            /// The checked variant's spec: launched in debug builds, or when `LOOPS_CHECKED=1`.
            pub const KERNEL_CHECKED: ::loops::__private::KernelSpec =
                KERNEL.checked_variant(CUDA_SOURCE_CHECKED);
            #wide_items
        }

        #(#docs)*
        #[doc = ""]
        #[doc = #doc_wrapper]
        #vis fn #name<#(#generics),*>(gpu: &::loops::Gpu, #(#params),*) -> ::loops::Result<()> {
            #(#narrow_checks)*
            #pick_entries
            let entry = ::loops::__private::entry_for(entries, #entry_key);
            #(#checks)*
            let mut args = ::loops::__private::KernelArgs::new();
            #(#pushes)*
            #rounds
            #pick_spec
            gpu.launch(spec, entry, #shape, args)
        }
    }
}

fn ty_tokens(ty: &Ty) -> TokenStream {
    let ident = format_ident!("{}", ty.rust_name());
    quote!(#ident)
}

fn config_tokens(config: &ScheduleConfig) -> TokenStream {
    let schedule = match config.schedule {
        Schedule::Thread => quote!(::loops::__private::Schedule::Thread),
        Schedule::Group { group_size } => {
            quote!(::loops::__private::Schedule::Group { group_size: #group_size })
        }
        Schedule::WorkOriented { items_per_thread } => {
            quote!(::loops::__private::Schedule::WorkOriented { items_per_thread: #items_per_thread })
        }
        Schedule::MergePath { items_per_thread } => {
            quote!(::loops::__private::Schedule::MergePath { items_per_thread: #items_per_thread })
        }
        Schedule::Split { mdt } => quote!(::loops::__private::Schedule::Split { mdt: #mdt }),
        Schedule::Lrb => quote!(::loops::__private::Schedule::Lrb),
        Schedule::Auto => quote!(::loops::__private::Schedule::Auto),
    };
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
                Extent::Tiles => (quote!(num_tiles), format!("it is indexed by the tiles of `{set_str}`")),
                Extent::Cols => (quote!(cols), format!("it is indexed by column indices of `{set_str}`")),
                Extent::Rows => (quote!(rows), format!("it is indexed by row indices of `{set_str}`")),
                Extent::Atoms => (quote!(num_atoms), format!("it is indexed by the atoms of `{set_str}`")),
            };
            quote!(::loops::__private::check_len(#kname, #slice, #ident.len(), #set.#method(), #why)?;)
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
            StmtKind::Expr(e) => collect_expr(e, tl, atom_vars, out),
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
        ExprKind::Call { args, .. } => args
            .iter()
            .for_each(|a| collect_expr(a, tl, atom_vars, out)),
        ExprKind::Lit(_)
        | ExprKind::Var(_)
        | ExprKind::SetProperty { .. }
        | ExprKind::SliceLen(_) => {}
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
fn carry_rounds(kernel: &Kernel) -> TokenStream {
    let carries = matches!(
        kernel.config.schedule,
        Schedule::WorkOriented { .. }
            | Schedule::MergePath { .. }
            | Schedule::Split { .. }
            | Schedule::Auto
            | Schedule::Lrb
    );
    if !carries {
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

/// Rust for a tile-invariant expression (literals, scalar parameters, sizes, arithmetic, casts,
/// min/max/abs/sqrt), evaluated in the launch wrapper where the parameters are in scope.
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
        ExprKind::SetProperty { set, property } => format!("{set}.{}()", property.rust_name()),
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
        ExprKind::Call { builtin, args } => {
            let receiver = rust_expr(&args[0]);
            match builtin {
                Builtin::Min => format!("{receiver}.min({})", rust_expr(&args[1])),
                Builtin::Max => format!("{receiver}.max({})", rust_expr(&args[1])),
                Builtin::Abs => format!("{receiver}.abs()"),
                Builtin::Sqrt => format!("{receiver}.sqrt()"),
                _ => unreachable!("tile-invariant expressions have no atomics"),
            }
        }
        ExprKind::Index { .. } => unreachable!("tile-invariant expressions read no memory"),
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

    /// A tile-mapped schedule takes a wide set with its `__wide` entries; a carry schedule and
    /// `lrb` refuse it with `WideUnsupported` before anything is launched; a body that reads the
    /// offsets refuses it under every schedule.
    #[test]
    fn wide_sets_are_launched_or_refused_before_launch() {
        let thread = expanded("schedule = \"thread\"", SPMV);
        assert!(thread.contains("ENTRIES_WIDE") && thread.contains("spmv__f32__wide"));
        assert!(!thread.contains("wide_unsupported"));
        for schedule in ["merge_path", "work_oriented", "split", "lrb"] {
            let tokens = expanded(&format!("schedule = \"{schedule}\""), SPMV);
            assert!(!tokens.contains("CUDA_SOURCE_WIDE"), "{schedule}");
            let refusal = tokens.find("wide_unsupported").expect(schedule);
            // The refusal comes before the launch.
            assert!(
                refusal < tokens.find("gpu . launch").expect(schedule),
                "{schedule}"
            );
            assert!(tokens.contains("32-bit prefix sums"), "{schedule}");
        }
        let auto = expanded("schedule = \"auto\"", SPMV);
        assert!(auto.contains("choose_wide") && auto.contains("spmv_group32__f32__wide"));
        let reads_offsets = "pub fn lens(a: Offsets, out: &mut [u32]) {
            for t in a.tiles() {
                let n = a.offsets[t + 1] - a.offsets[t];
                for i in a.atoms(t) { out[i] = n as u32; }
            }
        }";
        let tokens = expanded("schedule = \"warp\"", reads_offsets);
        assert!(!tokens.contains("CUDA_SOURCE_WIDE"));
        assert!(tokens.contains("reads the tile offsets"));
    }
}

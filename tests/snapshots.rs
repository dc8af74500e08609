//! The generated CUDA of every kernel under every schedule, read from the annotated item's
//! `CUDA_SOURCE` and snapshot-tested: an emitter change shows up as a reviewable diff
//! (`cargo insta review`).

use loops_kernels as kernels;

use loops::prelude::*;

/// Every kernel of `examples/kernels`, with the generated source of each schedule.
pub fn all_sources() -> Vec<(&'static str, &'static [(&'static str, &'static str)])> {
    vec![
        ("spmv", kernels::spmv::SOURCES),
        ("spmv_axpby", kernels::spmv_axpby::SOURCES),
        ("spmm", kernels::spmm::SOURCES),
        ("row_max_abs", kernels::row_max_abs::SOURCES),
        ("column_sums", kernels::column_sums::SOURCES),
    ]
}

#[test]
fn every_kernel_under_every_schedule() {
    let mut count = 0;
    for (kernel, sources) in all_sources().into_iter().chain(format_sources()) {
        for (schedule, source) in sources {
            // One body, both element types: each generic kernel holds an f32 and an f64 entry point
            // (under `auto`, one pair per candidate, `thread` always among them; under `lrb`, one
            // pair per mapping).
            // A kernel every schedule lowers under `thread` (an atom-major body that never asks
            // its tile, `column_sums`) has the plain names under `auto` and `lrb` too.
            let flat = source.contains("(schedule thread, ");
            let stem = match *schedule {
                "auto" | "mean_group" if !flat => format!("{kernel}_thread"),
                "lrb" if !flat => format!("{kernel}_lrb_warp"),
                _ => kernel.to_string(),
            };
            assert!(
                source.contains(&format!("{stem}__f32("))
                    && source.contains(&format!("{stem}__f64("))
            );
            insta::assert_snapshot!(format!("{kernel}__{schedule}"), source);
            count += 1;
        }
    }
    // Eleven kernels (the tile subset's, `spmv_frontier`, included) under the 11 core schedules
    // besides `hierarchical` (`auto`, `lrb` and `mean_group` included), all but spmm under it.
    // + spmv under work_oriented and merge_path with 12 items per thread, spmv and spmv_frontier
    // under split and hierarchical with pieces of 3, spmv under groups of 4, 8 and 16 (auto's
    // other group candidates, so that the benchmark times every candidate on its own).
    assert_eq!(count, 11 * 11 + 10 + 2 + 2 + 2 + 3);
}

/// The bounds-checked variants (debug builds): loads through `loops_load`, stores and atomics
/// through a checked pointer.
#[test]
fn checked_variants() {
    let spmv = kernels::spmv::thread::spmv::CUDA_SOURCE_CHECKED;
    assert!(spmv.contains(
        "loops_load(loops_ptr(x, (long long)(((unsigned long long)loops_load(loops_ptr(a_indices"
    ));
    insta::assert_snapshot!("spmv__thread__checked", spmv);
    let sums = kernels::column_sums::merge_path::column_sums::CUDA_SOURCE_CHECKED;
    assert!(sums.contains("loops_checked_atomic_add(loops_ptr(colsum,"));
    insta::assert_snapshot!("column_sums__merge_path__checked", sums);
}

/// A concrete f64 kernel (no type parameter), a custom block size, and an epilogue with scalars.
#[load_balanced(schedule = "thread", block_size = 128)]
pub fn spmv_axpby_f64(a: Csr<f64>, x: &[f64], y: &mut [f64], alpha: f64, beta: f64) {
    for row in a.tiles() {
        let mut sum = 0.0;
        for nz in a.atoms(row) {
            sum += a.values[nz] * x[a.col_indices[nz] as usize];
        }
        y[row] = alpha * sum + beta * y[row];
    }
}

#[test]
fn concrete_f64_kernel() {
    let src = spmv_axpby_f64::CUDA_SOURCE;
    assert!(
        src.contains("void spmv_axpby_f64_body(const int a_rows"),
        "{src}"
    );
    assert!(
        src.contains("__launch_bounds__(128) spmv_axpby_f64(const int a_rows"),
        "{src}"
    );
    assert!(
        !src.contains("spmv_axpby_f64__f32"),
        "a concrete kernel has one entry point"
    );
    insta::assert_snapshot!(src);
}

/// The `#line` directives name the Rust file and the line of the statement they precede.
#[test]
fn line_directives_point_at_the_rust_source() {
    let src = spmv_axpby_f64::CUDA_SOURCE;
    let sum_line = include_str!("snapshots.rs")
        .lines()
        .position(|l| l.contains("sum += a.values[nz] * x[a.col_indices[nz] as usize];"))
        .unwrap()
        + 1;
    let directive = format!("#line {sum_line} \"{}\"", file!());
    let after = src
        .split(&directive)
        .nth(1)
        .unwrap_or_else(|| panic!("no `{directive}` in:\n{src}"));
    assert!(
        after.trim_start().starts_with("sum += "),
        "{directive} is followed by {after:.60}"
    );
}

/// The kernels over the other tile-set formats (CSC, COO, offsets) and a tile subset. (Listed here,
/// below the kernels above, so that their `#line` snapshots keep their numbers.)
pub fn format_sources() -> Vec<(&'static str, &'static [(&'static str, &'static str)])> {
    vec![
        ("spmv_csc_t", kernels::spmv_csc::transposed::SOURCES),
        ("spmv_csc", kernels::spmv_csc::scatter::SOURCES),
        ("spmv_coo", kernels::spmv_coo::rows::SOURCES),
        ("spmv_coo_atoms", kernels::spmv_coo::atoms::SOURCES),
        ("segment_sums", kernels::segment_sums::SOURCES),
        ("spmv_frontier", kernels::spmv_frontier::SOURCES),
    ]
}

/// The graph kernels (integer, not generic: one entry point each) over a frontier, under the 12
/// core schedules (the queue step under the 6 of the device loop and `merge_path`, which a hub's
/// first level runs).
#[test]
fn graph_kernels_under_every_frontier_schedule() {
    let mut count = 0;
    for (kernel, sources) in [
        ("sssp", loops::graph::sssp::SOURCES),
        ("bfs", loops::graph::bfs::SOURCES),
        // The step that appends its next frontier, under the schedules of the device loop and
        // `merge_path`.
        ("bfs_queue", loops::graph::bfs::queue::SOURCES),
    ] {
        for (schedule, source) in sources {
            let entry = match *schedule {
                "auto" | "mean_group" => format!("{kernel}_thread("),
                "lrb" => format!("{kernel}_lrb_thread("),
                _ => format!("{kernel}("),
            };
            // Block size 256; the segment schedules also ask for 8 resident blocks.
            assert!(
                source.contains(&format!("__global__ void __launch_bounds__(256) {entry}"))
                    || source.contains(&format!(
                        "__global__ void __launch_bounds__(256, 8) {entry}"
                    ))
            );
            assert!(
                !source.contains("__f32"),
                "{kernel}/{schedule} is not generic"
            );
            assert!(source.contains("loops_atomic_min(&"));
            insta::assert_snapshot!(format!("{kernel}__{schedule}"), source);
            count += 1;
        }
    }
    assert_eq!(count, 2 * 12 + 7);
}

/// The 64-bit-offsets instantiations (tile sets of more than `i32::MAX` atoms): separate sources,
/// so the 32-bit ones above are unchanged. Only the tile loop's set's atom count and offsets, and
/// the atom variable, become `long long`; the entry points are named `..__wide`.
#[test]
fn wide_variants() {
    let thread = kernels::spmv::thread::spmv::CUDA_SOURCE_WIDE;
    assert!(thread.contains(
        "spmv__f32__wide(const int a_rows, const int a_cols, const long long a_nnz, \
         const long long* __restrict__ a_offsets, const int* __restrict__ a_indices"
    ));
    assert!(thread.contains("for (long long nz = a_offsets[row], loops_end1 = a_offsets[row + 1];"));
    insta::assert_snapshot!("spmv__thread__wide", thread);
    let warp = kernels::spmv::warp::spmv::CUDA_SOURCE_WIDE;
    assert!(warp.contains("for (long long nz = a_offsets[row] + (long long)loops_lane,"));
    // The frontier's graph: `g`'s offsets widen, the list and every slice stay as they are.
    let sssp = loops::graph::sssp::group64::sssp::CUDA_SOURCE_WIDE;
    assert!(sssp.contains("sssp__wide(const int g_rows, const long long g_nnz, const long long* __restrict__ g_offsets"));
    insta::assert_snapshot!("sssp__group64__wide", sssp);
    // `auto` keeps its tile-mapped candidates (not the merge path) for a wide set.
    let auto = &kernels::spmv::auto::spmv::KERNEL;
    let schedules: Vec<String> = auto
        .variants
        .iter()
        .filter(|v| v.wide)
        .map(|v| v.config.short_name())
        .collect();
    assert_eq!(
        schedules,
        ["thread", "group2", "group4", "group8", "group16", "group32", "group64", "group256"]
    );
    assert!(!kernels::spmv::auto::spmv::CUDA_SOURCE_WIDE.contains("merge_path"));
    // A skewed wide set (one row far longer than the mean) takes a candidate with a wide
    // instantiation (a group: the carry schedules have none), not the merge path.
    let skewed = loops::schedule::auto::TileStats::summary(1 << 26, 3 << 30, 1 << 20);
    let picks = auto
        .planned_variants(skewed, true)
        .expect("auto decides on the host");
    assert_eq!(picks.len(), 1);
    let pick = &auto.variants[picks[0]];
    assert!(pick.wide, "{}", pick.name);
    assert!(
        pick.config.short_name().starts_with("group"),
        "{}",
        pick.name
    );
    // The checked variant checks the wide atom positions too.
    assert!(kernels::spmv::thread::spmv::CUDA_SOURCE_WIDE_CHECKED.contains("spmv__f64__wide("));
}

/// Every line of every generated source (plain, checked, wide; every example kernel under every
/// schedule) maps where an NVRTC error on it should point: a line of a user statement at that
/// statement's line of the kernel in the Rust file, any other line (code the emitter or the schedule
/// generated) at its own line in the generated source, which `#line` directives name `<kernel>.cu`.
#[test]
fn every_line_maps_to_its_rust_statement_or_to_itself() {
    let mut kernels: Vec<(String, &loops::__private::KernelDesc)> = Vec::new();
    for (kernel, descs) in [
        ("spmv", kernels::spmv::KERNELS),
        ("spmv_axpby", kernels::spmv_axpby::KERNELS),
        ("spmm", kernels::spmm::KERNELS),
        ("row_max_abs", kernels::row_max_abs::KERNELS),
        ("column_sums", kernels::column_sums::KERNELS),
        ("spmv_csc_t", kernels::spmv_csc::transposed::KERNELS),
        ("spmv_csc", kernels::spmv_csc::scatter::KERNELS),
        ("spmv_coo", kernels::spmv_coo::rows::KERNELS),
        ("spmv_coo_atoms", kernels::spmv_coo::atoms::KERNELS),
        ("segment_sums", kernels::segment_sums::KERNELS),
        ("spmv_frontier", kernels::spmv_frontier::KERNELS),
        ("sssp", loops::graph::sssp::KERNELS),
        ("row_huber", kernels::row_huber::KERNELS),
        ("bfs", loops::graph::bfs::KERNELS),
        ("row_argmax", kernels::row_argmax::KERNELS),
        ("row_variance", kernels::row_variance::KERNELS),
    ] {
        for (schedule, desc) in descs {
            kernels.push((format!("{kernel}/{schedule}"), desc));
        }
    }
    kernels.push(("spmv_axpby_f64".into(), &spmv_axpby_f64::KERNEL));
    let mut statement_lines = std::collections::HashMap::new();
    let mut checked = 0;
    for (what, desc) in kernels {
        let mut sources = vec![("plain", desc.source), ("checked", desc.checked_source)];
        if let Some((wide, wide_checked)) = desc.wide_sources {
            sources.extend([("wide", wide), ("wide checked", wide_checked)]);
        }
        let rust = statement_lines
            .entry(desc.file)
            .or_insert_with(|| kernel_statement_lines(desc.file));
        for (variant, source) in sources {
            let generated = format!("{}.cu", desc.name);
            if let Err(e) = check_line_mapping(source, &generated, desc.file, rust) {
                panic!("{what} ({variant}): {e}");
            }
            checked += 1;
        }
    }
    // Each of the 11 + 2 kernels' instantiations has a plain and a checked source, and the
    // tile-mapped ones a wide pair.
    assert!(checked > 2 * (11 * 10 + 2 * 11), "{checked}");
}

/// Walks `source` line by line as the compiler does, following its `#line` directives, and checks
/// each line's presumed place: in `rust_file`, one of `statements`; in `generated`, its own line.
fn check_line_mapping(
    source: &str,
    generated: &str,
    rust_file: &str,
    statements: &std::collections::HashSet<usize>,
) -> Result<(), String> {
    // Before any directive a line is where it is, in the source NVRTC names after the kernel.
    let (mut in_rust, mut presumed) = (false, 1);
    for (index, text) in source.lines().enumerate() {
        let true_line = index + 1;
        if let Some(directive) = text.strip_prefix("#line ") {
            let (number, file) = directive
                .split_once(' ')
                .ok_or_else(|| format!("line {true_line}: `{text}`"))?;
            let number: usize = number
                .parse()
                .map_err(|_| format!("line {true_line}: `{text}`"))?;
            let file = file.trim_matches('"');
            in_rust = if file == rust_file {
                true
            } else if file == generated {
                false
            } else {
                return Err(format!(
                    "line {true_line}: `{text}` names neither `{rust_file}` nor `{generated}`"
                ));
            };
            presumed = number;
            continue;
        }
        let right = if in_rust {
            statements.contains(&presumed)
        } else {
            presumed == true_line
        };
        if !right {
            let place = if in_rust { rust_file } else { generated };
            return Err(format!(
                "line {true_line} `{}` is mapped to {place}:{presumed}",
                text.trim()
            ));
        }
        presumed += 1;
    }
    Ok(())
}

/// The lines of `file` (a path from the package's root, as `file!()` gives it) that hold a
/// statement of a `#[load_balanced]` (or `#[for_schedules]`) kernel: inside the function's braces, not blank, not a comment,
/// not a closing brace.
fn kernel_statement_lines(file: &str) -> std::collections::HashSet<usize> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut lines = std::collections::HashSet::new();
    let (mut annotated, mut signature, mut depth) = (false, false, None::<i32>);
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        // Kernels, and the `#[device]` helpers they call (their statements map to their lines too).
        if trimmed.starts_with("#[load_balanced")
            || trimmed.starts_with("#[for_schedules")
            || trimmed.starts_with("#[device]")
        {
            annotated = true;
            continue;
        }
        let opens = trimmed.matches('{').count() as i32;
        let closes = trimmed.matches('}').count() as i32;
        match depth {
            // The body starts at the first `{` from the `fn` on: rustfmt breaks a long signature.
            None if annotated && (signature || trimmed.contains("fn ")) => {
                signature = opens == 0;
                if !signature {
                    annotated = false;
                    depth = Some(opens - closes);
                }
            }
            None => {}
            Some(d) => {
                let statement =
                    !trimmed.is_empty() && !trimmed.starts_with("//") && !trimmed.starts_with('}');
                if statement {
                    lines.insert(index + 1);
                }
                let d = d + opens - closes;
                depth = (d > 0).then_some(d);
            }
        }
    }
    assert!(!lines.is_empty(), "no kernel found in {file}");
    lines
}

/// The snapshot view a user's test holds, `CUDA_KERNEL`: the kernel's code at the end of
/// `CUDA_SOURCE`, less the `#line` directives (`kernels-gen/tests/kernel_view.rs` checks it in full).
#[test]
fn the_snapshot_view_is_the_kernels_own_code() {
    let source: String = kernels::spmv::auto::spmv::CUDA_SOURCE
        .split_inclusive('\n')
        .filter(|l| !l.starts_with("#line "))
        .collect();
    let view = kernels::spmv::auto::spmv::CUDA_KERNEL;
    assert!(source.ends_with(view));
    assert!(view.starts_with("// ---- candidate: thread ----\ntemplate <typename T>\n"));
    assert!(spmv_axpby_f64::CUDA_KERNEL.starts_with("static __device__"));
}

/// A kernel calling `#[device]` helpers (`huber`, which calls `square`), under every schedule:
/// each helper is emitted once per source (under `auto` and `lrb`, once for all the variants),
/// callees first, before the kernels' bodies, and called with its type argument.
#[test]
fn helpers_under_every_schedule() {
    let sources = kernels::row_huber::SOURCES.iter();
    for (schedule, source) in sources.chain(kernels::row_huber::CHECKED_SOURCES) {
        let at = |text: &str| {
            assert_eq!(source.matches(text).count(), 1, "{schedule}: {text}");
            source.find(text).unwrap()
        };
        let square = at("static __device__ __forceinline__ T loops_fn_square(const T x) {");
        let huber = at("T loops_fn_huber(const T r, const T delta) {");
        let first_body = source.find("void row_huber").unwrap();
        assert!(square < huber && huber < first_body, "{schedule}");
        assert!(source.contains("= loops_fn_huber<T>((sum - "), "{schedule}");
    }
    for (schedule, source) in kernels::row_huber::SOURCES {
        insta::assert_snapshot!(format!("row_huber__{schedule}"), source);
    }
}

/// A selection under a carry schedule: each thread's share of a row keeps its choice and the
/// atom's position, and the shares meet by value, then position, in the block's scan, the records
/// and the look-back.
#[test]
fn a_selection_under_a_carry_schedule() {
    let source = kernels::row_argmax::merge_path::row_argmax::CUDA_SOURCE;
    insta::assert_snapshot!("row_argmax__merge_path", source);
}

/// A selection with a tally under a carry schedule: the shares of a row meet by value, the larger
/// value's count kept or, where the values are equal, the counts added (the column by position).
#[test]
fn a_tallied_selection_under_a_carry_schedule() {
    let source = kernels::count_max::merge_path::count_max::CUDA_SOURCE;
    assert!(source.contains("else if (loops_other_m == m) { n = (n + loops_other_n);"));
    insta::assert_snapshot!("count_max__merge_path", source);
}

/// Two atom loops under a carry schedule: a launch per loop (`loops_pass`), the first keeping each
/// row's sum and count in the call's tile state, the second reading them before its loop.
#[test]
fn two_atom_loops_under_a_carry_schedule() {
    let source = kernels::row_variance::work_oriented::row_variance::CUDA_SOURCE;
    assert!(source.contains("if (loops_pass == 1)"));
    assert!(source.contains("loops_tile_state[4 + (long long)1 * a_rows + loops_t]"));
    insta::assert_snapshot!("row_variance__work_oriented", source);
}

/// Three atom loops under `work_oriented` with 16 items per thread: three passes' shared arrays
/// side by side would be past the 48 KiB a block may declare statically (ptxas refused it at
/// load, issue 37), so they are carved out of one region of dynamic shared memory that the passes
/// share, and the launch passes its size. With 8 items per thread they fit, declared as before.
#[test]
fn three_atom_loops_in_dynamic_shared_memory() {
    use kernels::row_softmax::{work_oriented, work_oriented16};
    let source = work_oriented16::row_softmax::CUDA_KERNEL;
    assert!(
        source.contains("extern __shared__ __align__(16) unsigned char loops_dynamic_shared[];")
    );
    assert!(!source.contains("__shared__ int loops_offs"), "{source}");
    // Each pass's window of offsets starts the region.
    let window = "int* const loops_offs = reinterpret_cast<int*>(loops_dynamic_shared + 0);";
    assert_eq!(source.matches(window).count(), 3, "{source}");
    let variants = work_oriented16::row_softmax::VARIANTS;
    // One pass's arrays: the window of 16 * 256 + 2 offsets, the range, the ticket, the warps'
    // and the block's partials.
    assert_eq!(variants[0].dynamic_shared_bytes, 16576);
    assert!(work_oriented::row_softmax::CUDA_KERNEL.contains("__shared__ int loops_offs[2050];"));
    assert_eq!(
        work_oriented::row_softmax::VARIANTS[0].dynamic_shared_bytes,
        0
    );
    // `auto`'s candidate of 16 items per thread is in dynamic shared memory, the others static.
    for v in kernels::row_softmax::auto::row_softmax::VARIANTS {
        let dynamic = v.name.ends_with("work_oriented16");
        assert_eq!(v.dynamic_shared_bytes > 0, dynamic, "{}", v.name);
    }
    // 64 items per thread: the window alone is 64 KiB, past 48 KiB even in one pass.
    let wide = kernels::row_softmax::wide_segments::work_oriented64::row_softmax::VARIANTS;
    assert!(wide[0].dynamic_shared_bytes > 64 * 1024);
    insta::assert_snapshot!("row_softmax__work_oriented16", source);
}

// Below everything above, so that the `#line` snapshots of this file's kernel keep their numbers.
#[path = "common/nvrtc.rs"]
mod nvrtc;

/// The kernel defined in this file compiles with NVRTC for sm_90, as every kernel the macro
/// accepts in the test suites does (those of examples/kernels in tests/nvrtc_compile.rs): plain,
/// checked, and its 64-bit-offsets instantiations.
#[test]
fn this_files_kernel_compiles_for_sm90() {
    use loops::compile::{compile_ptx, Arch};
    let Some(info) = nvrtc::nvrtc_or_skip() else {
        return;
    };
    for (what, source, entry) in [
        ("plain", spmv_axpby_f64::CUDA_SOURCE, "spmv_axpby_f64"),
        (
            "checked",
            spmv_axpby_f64::CUDA_SOURCE_CHECKED,
            "spmv_axpby_f64",
        ),
        (
            "wide",
            spmv_axpby_f64::CUDA_SOURCE_WIDE,
            "spmv_axpby_f64__wide",
        ),
        (
            "wide checked",
            spmv_axpby_f64::CUDA_SOURCE_WIDE_CHECKED,
            "spmv_axpby_f64__wide",
        ),
    ] {
        let ptx = compile_ptx("spmv_axpby_f64", source, Arch::SM_90)
            .unwrap_or_else(|e| panic!("{what}: NVRTC {:?} failed:\n{e}", info.version));
        assert!(
            ptx.contains(&format!(".entry {entry}(")),
            "{what}: no `{entry}`"
        );
    }
}

/// The device frontier loop (`loops::graph::FrontierLoop` on the device) runs a frontier kernel under the
/// schedules whose tile loop is grid-stride (their list kernels take `loops_list_len`), and under
/// `auto` through one of its thread and group candidates, chosen from the graph's degrees alone;
/// it refuses the others with an error that names the schedule. Decided on the host: no GPU.
#[test]
fn the_device_loop_runs_the_grid_stride_schedules() {
    use loops::schedule::auto::TileStats;
    use loops::schedule::DeviceLimits;
    let h100 = DeviceLimits {
        sm_count: 132,
        max_threads_per_sm: 2048,
        l2_bytes: 50 << 20,
    };
    // The degrees of a road-like graph, and of one with a hub every thousand vertices.
    let road = TileStats::of_sizes((0..100_000u64).map(|v| 2 + v % 3));
    let hubs = TileStats::of_sizes((0..100_000u64).map(|v| if v % 1000 == 0 { 5000 } else { 3 }));
    let mut refused = 0;
    for (kernel, descs) in [
        ("bfs", loops::graph::bfs::KERNELS),
        ("sssp", loops::graph::sssp::KERNELS),
        ("spmv_frontier", kernels::spmv_frontier::KERNELS),
    ] {
        for &(schedule, desc) in descs {
            let what = format!("{kernel}/{schedule}");
            for stats in [road, hubs] {
                let got = desc.device_list_variant(stats, false, h100);
                match schedule {
                    "thread" | "group2" | "warp" | "group64" | "block" => {
                        assert!(matches!(got, Ok(None)), "{what}: {got:?}");
                        assert!(desc.runs_in_device_loop(), "{what}");
                        assert!(desc.source.contains("loops_list_len"), "{what}");
                    }
                    "auto" => {
                        let v = got
                            .unwrap_or_else(|e| panic!("{what}: {e}"))
                            .expect("a candidate");
                        let variant = &desc.variants[v];
                        assert!(variant.over_list, "{what}");
                        // A tile-mapped candidate (`thread` or a group).
                        assert!(
                            variant.config.schedule.lanes().is_some(),
                            "{what}: {:?}",
                            variant.config
                        );
                        // A level's time is its lanes' chains: the road's vertices of up to 4
                        // edges get at least 4 lanes each, the hubs' graph a whole block.
                        let lanes = variant.config.schedule.lanes().unwrap_or(1);
                        let wanted = if stats.max_tile_atoms > 1000 { 256 } else { 4 };
                        assert!(lanes >= wanted, "{what}: {:?}", variant.config);
                        assert!(desc.runs_in_device_loop(), "{what}");
                    }
                    other => {
                        let e = got.expect_err(&what).to_string();
                        // `split3` is `split` with its piece size.
                        let name = other.trim_end_matches(|c: char| c.is_ascii_digit());
                        assert!(e.contains(&format!("schedule `{name}`")), "{what}: {e}");
                        assert!(e.contains("thread, group, warp and block"), "{what}: {e}");
                        assert!(!desc.runs_in_device_loop(), "{what}");
                        refused += 1;
                    }
                }
            }
        }
    }
    // work_oriented, merge_path, split, hierarchical and lrb of three kernels, two graphs each.
    assert!(refused >= 2 * 3 * 5, "{refused}");
}

/// Every module `#[for_schedules(all)]` made is its named schedule: the configuration the kernel
/// under it carries is the one its attribute text of `loops::SCHEDULES` parses into.
#[test]
fn every_stamped_module_is_its_named_schedule() {
    let stamped: Vec<&str> = kernels::spmv::KERNELS.iter().map(|(s, _)| *s).collect();
    let named: Vec<&str> = loops::SCHEDULES.iter().map(|s| s.name).collect();
    assert_eq!(stamped, named);
    for ((name, desc), schedule) in kernels::spmv::KERNELS.iter().zip(loops::SCHEDULES) {
        let attr = schedule.attr.parse().expect("the attribute lexes");
        let config = kernels_gen::frontend::parse_attr(attr).expect("the attribute parses");
        assert_eq!(desc.config, config, "{name}");
    }
}

/// A call of one launch of `hierarchical` is not zeroed (the runtime's `tile_state`): its pass 0
/// must read none of the counters the passes share. In every hierarchical source the only plain
/// reads of `loops_counts` are guarded by pass 0 (`.. == 0 ? loops_n : ..`) or come in the later
/// passes' branches; pass 0 only zeroes a counter or appends to one (an `atomicAdd`, or the
/// `atomicCAS` that allocates a cut tile's pieces; never, in a call of one pass: no tile has atoms
/// left).
#[test]
fn hierarchical_pass_zero_reads_no_counter() {
    let mut checked = 0;
    for (kernel, sources) in all_sources().into_iter().chain(format_sources()) {
        for (schedule, source) in sources {
            if !schedule.starts_with("hierarchical") {
                continue;
            }
            let mut later_pass = false;
            for line in source.lines() {
                if line.contains("else if (loops_pass == 1)")
                    || line.contains("else if (loops_level == 1)")
                {
                    later_pass = true;
                }
                if line.contains("if (loops_pass == 0)") || line.contains("if (loops_level == 0)") {
                    later_pass = false;
                }
                let Some(at) = line.find("loops_counts[") else {
                    continue;
                };
                let guarded = line.contains("== 0 ? loops_n : (long long)loops_counts[");
                let append =
                    line[..at].ends_with("atomicAdd(&") || line[..at].ends_with("atomicCAS(&");
                let zeroes = line.contains("] = 0u;");
                assert!(
                    guarded || append || zeroes || later_pass,
                    "{kernel} under {schedule}: a read of the pass counters pass 0 may run: {line}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} hierarchical sources");
}

//! The generated CUDA of every kernel under every schedule, read from the annotated item's
//! `CUDA_SOURCE` and snapshot-tested: an emitter change shows up as a reviewable diff
//! (`cargo insta review`).

#[path = "../examples/kernels/mod.rs"]
mod kernels;

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
            let stem = match *schedule {
                "auto" => format!("{kernel}_thread"),
                "lrb" => format!("{kernel}_lrb_warp"),
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
    // Eleven kernels (the tile subset's, `spmv_frontier`, included) under all 10 schedules (`auto`
    // and `lrb` included), all but spmm under `hierarchical`.
    // + spmv under work_oriented and merge_path with 12 items per thread, spmv and spmv_frontier
    // under split and hierarchical with pieces of 3, spmv under groups of 4, 8 and 16 (auto's
    // other group candidates, so that the benchmark times every candidate on its own).
    assert_eq!(count, 11 * 10 + 10 + 2 + 2 + 2 + 3);
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

/// The graph kernels (integer, not generic: one entry point each) over a frontier, under all 10
/// schedules.
#[test]
fn graph_kernels_under_every_frontier_schedule() {
    let mut count = 0;
    for (kernel, sources) in [
        ("sssp", kernels::sssp::SOURCES),
        ("bfs", kernels::bfs::SOURCES),
    ] {
        for (schedule, source) in sources {
            let entry = match *schedule {
                "auto" => format!("{kernel}_thread("),
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
    assert_eq!(count, 2 * 11);
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
    let sssp = kernels::sssp::group64::sssp::CUDA_SOURCE_WIDE;
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
    let skewed = loops::runtime::schedule::auto::TileStats::summary(1 << 26, 3 << 30, 1 << 20);
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

// Below everything above, so that the `#line` snapshots of this file's kernel keep their numbers.
#[path = "common/nvrtc.rs"]
mod nvrtc;

/// The kernel defined in this file compiles with NVRTC for sm_90, as every kernel the macro
/// accepts in the test suites does (those of examples/kernels in tests/nvrtc_compile.rs): plain,
/// checked, and its 64-bit-offsets instantiations.
#[test]
fn this_files_kernel_compiles_for_sm90() {
    use loops::runtime::compile::{compile_ptx, Arch};
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

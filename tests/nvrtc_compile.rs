//! NVRTC compiles the generated CUDA of every kernel under every schedule (`auto`: all its
//! candidates in one source), plain and bounds-checked, to a cubin for sm_90 (ptxas included: a
//! kernel the macro accepts must load, not only make PTX), on a machine with no GPU. Needs libnvrtc (see README); without it each test prints one `skipped` line and
//! passes, unless LOOPS_REQUIRE_NVRTC=1 (CI), which makes it fail.

use loops_kernels as kernels;
#[path = "common/nvrtc.rs"]
mod nvrtc;

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use loops::compile::{compile_ptx, compile_with_dump, guarded_entries, Arch, KernelImage, Output};
use nvrtc::{cubin_has_entry, cubins, nvrtc_or_skip};

/// The entry-point stems of `kernel`'s source under `schedule` (each with `__f32`, `__f64`, or
/// as they are for a concrete kernel): one per kernel, and under `auto` two of its candidates,
/// under `lrb` one per launch.
fn entry_stems(kernel: &str, schedule: &str, source: &str) -> Vec<String> {
    // A kernel every schedule lowers under `thread` (an atom-major body that never asks its tile,
    // `column_sums`) has the plain names under `auto` and `lrb` too.
    if source.contains("(schedule thread, ") {
        return vec![kernel.to_string()];
    }
    match schedule {
        "auto" | "mean_group" => vec![format!("{kernel}_thread"), format!("{kernel}_group32")],
        "lrb" => ["thread", "group2", "group4", "warp", "block", "long"]
            .map(|m| format!("{kernel}_lrb_{m}"))
            .to_vec(),
        _ => vec![kernel.to_string()],
    }
}

#[test]
fn every_generated_kernel_compiles_for_sm90() {
    let Some(info) = nvrtc_or_skip() else {
        return;
    };
    // Each kernel's plain and bounds-checked variants.
    let all = [
        ("spmv", kernels::spmv::SOURCES),
        ("spmv_axpby", kernels::spmv_axpby::SOURCES),
        ("spmm", kernels::spmm::SOURCES),
        ("row_max_abs", kernels::row_max_abs::SOURCES),
        ("column_sums", kernels::column_sums::SOURCES),
        ("spmv", kernels::spmv::CHECKED_SOURCES),
        ("spmv_axpby", kernels::spmv_axpby::CHECKED_SOURCES),
        ("spmm", kernels::spmm::CHECKED_SOURCES),
        ("row_max_abs", kernels::row_max_abs::CHECKED_SOURCES),
        ("column_sums", kernels::column_sums::CHECKED_SOURCES),
        ("spmv_csc_t", kernels::spmv_csc::transposed::SOURCES),
        ("spmv_csc", kernels::spmv_csc::scatter::SOURCES),
        ("spmv_coo", kernels::spmv_coo::rows::SOURCES),
        ("spmv_coo_atoms", kernels::spmv_coo::atoms::SOURCES),
        ("segment_sums", kernels::segment_sums::SOURCES),
        ("spmv_frontier", kernels::spmv_frontier::SOURCES),
        ("spmv_csc_t", kernels::spmv_csc::transposed::CHECKED_SOURCES),
        ("spmv_csc", kernels::spmv_csc::scatter::CHECKED_SOURCES),
        ("spmv_coo", kernels::spmv_coo::rows::CHECKED_SOURCES),
        ("spmv_coo_atoms", kernels::spmv_coo::atoms::CHECKED_SOURCES),
        ("segment_sums", kernels::segment_sums::CHECKED_SOURCES),
        ("spmv_frontier", kernels::spmv_frontier::CHECKED_SOURCES),
        ("row_huber", kernels::row_huber::SOURCES),
        ("row_huber", kernels::row_huber::CHECKED_SOURCES),
        ("pagerank_step", loops::graph::pagerank::step::SOURCES),
        (
            "pagerank_step",
            loops::graph::pagerank::step::CHECKED_SOURCES,
        ),
        ("pagerank_start", loops::graph::pagerank::start::SOURCES),
        (
            "pagerank_start",
            loops::graph::pagerank::start::CHECKED_SOURCES,
        ),
        ("pagerank_change", loops::graph::pagerank::change::SOURCES),
        (
            "pagerank_change",
            loops::graph::pagerank::change::CHECKED_SOURCES,
        ),
        ("pagerank_finish", loops::graph::pagerank::finish::SOURCES),
        (
            "pagerank_finish",
            loops::graph::pagerank::finish::CHECKED_SOURCES,
        ),
        ("row_argmax", kernels::row_argmax::SOURCES),
        ("row_argmax", kernels::row_argmax::CHECKED_SOURCES),
        ("count_max", kernels::count_max::SOURCES),
        ("count_max", kernels::count_max::CHECKED_SOURCES),
        ("row_variance", kernels::row_variance::SOURCES),
        ("row_variance", kernels::row_variance::CHECKED_SOURCES),
        ("row_softmax", kernels::row_softmax::SOURCES),
        ("row_softmax", kernels::row_softmax::CHECKED_SOURCES),
        (
            "attention_softmax",
            kernels::row_softmax::attention::SOURCES,
        ),
        (
            "attention_softmax",
            kernels::row_softmax::attention::CHECKED_SOURCES,
        ),
        ("row_softmax", kernels::row_softmax::wide_segments::SOURCES),
        (
            "row_softmax",
            kernels::row_softmax::wide_segments::CHECKED_SOURCES,
        ),
    ];
    let jobs: Vec<(&str, &str, &str)> = all
        .iter()
        .flat_map(|(kernel, sources)| sources.iter().map(|(sch, src)| (*kernel, *sch, *src)))
        .collect();
    let started = Instant::now();
    let images = cubins(&jobs.iter().map(|&(k, _, src)| (k, src)).collect::<Vec<_>>());
    let mut compiled = 0;
    let mut failures = Vec::new();
    for (&(kernel, schedule, source), image) in jobs.iter().zip(images) {
        match image {
            Ok(cubin) => {
                // Generic kernels: one entry per element type (under `auto`, per candidate; under
                // `lrb`, per mapping).
                let stems = entry_stems(kernel, schedule, source);
                for (stem, ty) in stems.iter().flat_map(|s| [(s, "f32"), (s, "f64")]) {
                    let entry = format!("{stem}__{ty}");
                    assert!(
                        cubin_has_entry(&cubin, &entry),
                        "{kernel}/{schedule}: no `{entry}` in the cubin"
                    );
                }
                compiled += 1;
            }
            Err(e) => failures.push(format!("{kernel}/{schedule}: {e}")),
        }
    }
    let report = format!(
        "{} generated sources to cubins for sm_90 in {:.1} s\n",
        jobs.len(),
        started.elapsed().as_secs_f64()
    );
    let _ = std::io::stderr().lock().write_all(report.as_bytes());
    assert!(
        failures.is_empty(),
        "NVRTC {:?} failed:\n{}",
        info.version,
        failures.join("\n\n")
    );
    // Plain and checked: twelve kernels (the tile subset's and the helpers' included) under the
    // 11 core schedules besides `hierarchical` (`auto`, `lrb`, `mean_group` included), and all but spmm (whose atom loop sits in a loop) under
    // `hierarchical`. + spmv with 12 items per thread (2 schedules), spmv and spmv_frontier with
    // pieces of 3 under `split` and `hierarchical`, spmv in groups of 4, 8 and 16. + PageRank's
    // step under all 12, its start, change and finish under `block`. + the argmax under `merge_path` and the two-loop
    // variance under `work_oriented`, the count of a maximum under `merge_path` (their other
    // schedules are examples/user_kernels'). + the three-loop softmax under all 19 schedules and
    // under `work_oriented` and `merge_path` with 64 items per thread (their shared arrays in
    // dynamic shared memory), attention's softmax under 9.
    assert_eq!(
        compiled,
        2 * (12 * 11 + 11 + 2 + 2 + 2 + 3 + 12 + 1 + 1 + 1 + 1 + 1 + 1 + 19 + 2 + 9)
    );
}

/// The graph kernels (plain and checked, one entry point each, `auto`: one per candidate) and the
/// runtime's own kernels: frontier compaction, the block starts of the carry schedules, and the
/// prefix sum of a tile subset's sizes.
#[test]
fn graph_kernels_compile_for_sm90() {
    let Some(info) = nvrtc_or_skip() else {
        return;
    };
    let all = [
        ("sssp", loops::graph::sssp::SOURCES),
        ("bfs", loops::graph::bfs::SOURCES),
        ("sssp", loops::graph::sssp::CHECKED_SOURCES),
        ("bfs", loops::graph::bfs::CHECKED_SOURCES),
        ("bfs_queue", loops::graph::bfs::queue::SOURCES),
        ("bfs_queue", loops::graph::bfs::queue::CHECKED_SOURCES),
        ("bfs_push", loops::graph::bfs_do::push::SOURCES),
        ("bfs_push", loops::graph::bfs_do::push::CHECKED_SOURCES),
        ("bfs_pull", loops::graph::bfs_do::pull::SOURCES),
        ("bfs_pull", loops::graph::bfs_do::pull::CHECKED_SOURCES),
        ("bfs_push_queue", loops::graph::bfs_do::push_queue::SOURCES),
        (
            "bfs_push_queue",
            loops::graph::bfs_do::push_queue::CHECKED_SOURCES,
        ),
        ("bfs_pull_queue", loops::graph::bfs_do::pull_queue::SOURCES),
        (
            "bfs_pull_queue",
            loops::graph::bfs_do::pull_queue::CHECKED_SOURCES,
        ),
        ("bfs_do_start", loops::graph::bfs_do::start::SOURCES),
        ("bfs_do_start", loops::graph::bfs_do::start::CHECKED_SOURCES),
        (
            "bfs_parents_from_levels",
            loops::graph::bfs_do::parents::SOURCES,
        ),
        (
            "bfs_parents_from_levels",
            loops::graph::bfs_do::parents::CHECKED_SOURCES,
        ),
        ("cc_hook", loops::graph::cc::hook::SOURCES),
        ("cc_hook", loops::graph::cc::hook::CHECKED_SOURCES),
        ("cc_start", loops::graph::cc::start::SOURCES),
        ("cc_start", loops::graph::cc::start::CHECKED_SOURCES),
        ("triangles", loops::graph::tc::count::SOURCES),
        ("triangles", loops::graph::tc::count::CHECKED_SOURCES),
        ("triangles_total", loops::graph::tc::total::SOURCES),
        ("triangles_total", loops::graph::tc::total::CHECKED_SOURCES),
        ("k_core_mark", loops::graph::kcore::mark::SOURCES),
        ("k_core_mark", loops::graph::kcore::mark::CHECKED_SOURCES),
        ("k_core_peel", loops::graph::kcore::peel::SOURCES),
        ("k_core_peel", loops::graph::kcore::peel::CHECKED_SOURCES),
        ("k_core_start", loops::graph::kcore::start::SOURCES),
        ("k_core_start", loops::graph::kcore::start::CHECKED_SOURCES),
        ("k_core_pass", loops::graph::kcore::pass::SOURCES),
        ("k_core_pass", loops::graph::kcore::pass::CHECKED_SOURCES),
        (
            "k_core_peel_queue",
            loops::graph::kcore::peel_queue::SOURCES,
        ),
        (
            "k_core_peel_queue",
            loops::graph::kcore::peel_queue::CHECKED_SOURCES,
        ),
        ("k_core_least", loops::graph::kcore::least::SOURCES),
        ("k_core_least", loops::graph::kcore::least::CHECKED_SOURCES),
        ("k_core_advance", loops::graph::kcore::advance::SOURCES),
        (
            "k_core_advance",
            loops::graph::kcore::advance::CHECKED_SOURCES,
        ),
        ("k_core_scan", loops::graph::kcore::scan::SOURCES),
        ("k_core_scan", loops::graph::kcore::scan::CHECKED_SOURCES),
    ];
    let jobs: Vec<(&str, &str, &str)> = all
        .iter()
        .flat_map(|(kernel, sources)| sources.iter().map(|(sch, src)| (*kernel, *sch, *src)))
        .collect();
    let images = cubins(&jobs.iter().map(|&(k, _, src)| (k, src)).collect::<Vec<_>>());
    let mut compiled = 0;
    let mut failures = Vec::new();
    for (&(kernel, schedule, source), image) in jobs.iter().zip(images) {
        match image {
            Ok(cubin) => {
                for e in entry_stems(kernel, schedule, source) {
                    assert!(cubin_has_entry(&cubin, &e), "{kernel}/{schedule}: no `{e}`");
                }
                compiled += 1;
            }
            Err(e) => failures.push(format!("{kernel}/{schedule}: {e}")),
        }
    }
    match compile_ptx(
        "loops_compact_flags",
        loops::graph::COMPACT_SOURCE,
        Arch::SM_90,
    ) {
        Ok(ptx) => {
            assert!(ptx.contains(".entry loops_compact_flags("));
            assert!(ptx.contains(".entry loops_compact_level("));
            assert!(ptx.contains(".entry loops_compact_level_wide("));
            assert!(ptx.contains(".entry loops_compact_walk("));
            // The queue runs' kernels before and after each batch of levels.
            assert!(ptx.contains(".entry loops_queue_begin("));
            assert!(ptx.contains(".entry loops_queue_end("));
            // Direction-optimizing BFS's choice of each level's direction on the device.
            assert!(ptx.contains(".entry loops_do_decide("));
            assert!(ptx.contains(".entry loops_do_start("));
            assert!(ptx.contains(".entry loops_do_report("));
            // Launched programmatically, each waits for the kernel before it.
            assert!(
                ptx.contains("griddepcontrol.wait"),
                "no grid dependency wait"
            );
            // The neighbour walk of push runs claims flags by exchange and keeps the largest
            // degree by atomic max.
            assert!(ptx.contains("atom.global.exch.b32"), "no claim by exchange");
            assert!(ptx.contains("atom.global.max.u32"), "no degree max");
        }
        Err(e) => failures.push(format!("loops_compact_flags: {e}")),
    }
    match compile_ptx(
        "loops_gather_rows",
        loops::multi::EXCHANGE_SOURCE,
        Arch::SM_90,
    ) {
        Ok(ptx) => {
            for e in [
                "loops_gather_rows_4",
                "loops_gather_rows_8",
                "loops_add_into_f32",
                "loops_add_into_f64",
                "loops_add_rows_f32",
                "loops_add_rows_f64",
            ] {
                assert!(ptx.contains(&format!(".entry {e}(")), "no `{e}`");
            }
        }
        Err(e) => failures.push(format!("loops_gather_rows: {e}")),
    }
    match compile_ptx(
        "loops_block_starts",
        loops::launch::block_ranges::BLOCK_STARTS_SOURCE,
        Arch::SM_90,
    ) {
        Ok(ptx) => assert!(ptx.contains(".entry loops_block_starts(")),
        Err(e) => failures.push(format!("loops_block_starts: {e}")),
    }
    match compile_ptx(
        "loops_subset_prefix",
        loops::launch::subset::SUBSET_SCAN_SOURCE,
        Arch::SM_90,
    ) {
        Ok(ptx) => {
            let mut entries = vec!["loops_subset_scan_sums".to_string()];
            for id in ["u32", "i32", "u64", "i64"] {
                entries.push(format!("loops_subset_chunk_sums_{id}"));
                entries.push(format!("loops_subset_offsets_{id}"));
            }
            for e in entries {
                assert!(ptx.contains(&format!(".entry {e}(")), "no `{e}`");
            }
        }
        Err(e) => failures.push(format!("loops_subset_prefix: {e}")),
    }
    assert!(
        failures.is_empty(),
        "NVRTC {:?} failed:\n{}",
        info.version,
        failures.join("\n\n")
    );
    // sssp, bfs, bfs_push, cc_hook, triangles and k_core_peel under the 12 core schedules,
    // bfs_queue and bfs_push_queue under the 6 of the device loop and `merge_path` (a hub's
    // first level), bfs_pull under the 8 that take its selection, bfs_pull_queue under its 4,
    // cc_start, triangles_total, k_core_start and k_core_mark under `block`, bfs_do_start and
    // bfs_parents_from_levels under `thread`; k_core_pass and k_core_advance under `thread`,
    // k_core_peel_queue under the 6 of the device loop, k_core_least and k_core_scan under
    // `block`; plain and checked.
    assert_eq!(compiled, 2 * (6 * 12 + 7 + 8 + 4 + 7 + 4 + 2 + 2 + 6 + 2));
}

/// The kernels that index out of range on purpose, for checked mode's GPU test (concrete f32
/// kernels, one entry point each): plain, checked, and the 64-bit-offsets instantiations of the
/// tile-mapped schedules.
#[test]
fn out_of_range_kernels_compile_for_sm90() {
    let Some(info) = nvrtc_or_skip() else {
        return;
    };
    use kernels::out_of_range::{peek, shift_down};
    let mut all: Vec<(&str, &str, &str)> = Vec::new();
    for (kernel, sources) in [
        ("shift_down", shift_down::SOURCES),
        ("shift_down", shift_down::CHECKED_SOURCES),
        ("peek", peek::SOURCES),
        ("peek", peek::CHECKED_SOURCES),
    ] {
        all.extend(
            sources
                .iter()
                .map(|(schedule, source)| (kernel, *schedule, *source)),
        );
    }
    all.extend([
        (
            "shift_down",
            "thread",
            shift_down::thread::shift_down::CUDA_SOURCE_WIDE,
        ),
        (
            "shift_down",
            "thread",
            shift_down::thread::shift_down::CUDA_SOURCE_WIDE_CHECKED,
        ),
        (
            "shift_down",
            "warp",
            shift_down::warp::shift_down::CUDA_SOURCE_WIDE,
        ),
        (
            "shift_down",
            "warp",
            shift_down::warp::shift_down::CUDA_SOURCE_WIDE_CHECKED,
        ),
        ("peek", "thread", peek::thread::peek::CUDA_SOURCE_WIDE),
        (
            "peek",
            "thread",
            peek::thread::peek::CUDA_SOURCE_WIDE_CHECKED,
        ),
    ]);
    let mut failures = Vec::new();
    let images = cubins(&all.iter().map(|&(k, _, src)| (k, src)).collect::<Vec<_>>());
    for (&(kernel, schedule, source), image) in all.iter().zip(images) {
        match image {
            Ok(cubin) => {
                let wide = if source.contains("__wide(") {
                    "__wide"
                } else {
                    ""
                };
                let entry = format!("{kernel}{wide}");
                assert!(
                    cubin_has_entry(&cubin, &entry),
                    "{kernel}/{schedule}: no `{entry}`"
                );
            }
            Err(e) => failures.push(format!("{kernel}/{schedule}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "NVRTC {:?} failed:\n{}",
        info.version,
        failures.join("\n\n")
    );
    // shift_down under thread, warp and merge_path, peek under thread, plain and checked; 6 wide.
    assert_eq!(all.len(), 2 * (3 + 1) + 6);
}

/// The runtime's binning kernels (logarithmic radix binning's count, scan and scatter), one count
/// and one scatter entry per id type of a subset's list and one pair for all tiles.
#[test]
fn binning_kernels_compile_for_sm90() {
    let Some(info) = nvrtc_or_skip() else {
        return;
    };
    let ptx = compile_ptx(
        "loops_bin_tiles",
        loops::launch::binning::BINNING_SOURCE,
        Arch::SM_90,
    )
    .unwrap_or_else(|e| panic!("NVRTC {:?} failed:\n{e}", info.version));
    let mut entries = vec!["loops_bin_scan".to_string()];
    for suffix in ["tiles", "i32", "u32", "i64", "u64"] {
        entries.push(format!("loops_bin_count_{suffix}"));
        entries.push(format!("loops_bin_scatter_{suffix}"));
        entries.push(format!("loops_bin_gather_{suffix}"));
    }
    for e in entries {
        assert!(ptx.contains(&format!(".entry {e}(")), "no `{e}` in the PTX");
    }
}

/// The 64-bit-offsets instantiations (tile sets of more than `i32::MAX` atoms), plain and
/// checked: every tile-mapped schedule and `auto` of the CSR, frontier and graph kernels, each
/// with its `__wide` entry points.
#[test]
fn wide_variants_compile_for_sm90() {
    let Some(info) = nvrtc_or_skip() else {
        return;
    };
    // `graph` names the library's graph kernels (`loops::graph::sssp`), else the examples'.
    macro_rules! wide {
        (graph $kernel:ident :: $schedule:ident, $generic:expr) => {
            wide!(@ loops::graph::$kernel, $kernel, $schedule, $generic)
        };
        ($kernel:ident :: $schedule:ident, $generic:expr) => {
            wide!(@ kernels::$kernel, $kernel, $schedule, $generic)
        };
        (@ $module:path, $kernel:ident, $schedule:ident, $generic:expr) => {{
            use $module as module;
            [
                (
                    concat!(stringify!($kernel), "/", stringify!($schedule)),
                    module::$schedule::$kernel::CUDA_SOURCE_WIDE,
                    $generic,
                ),
                (
                    concat!(stringify!($kernel), "/", stringify!($schedule), " checked"),
                    module::$schedule::$kernel::CUDA_SOURCE_WIDE_CHECKED,
                    $generic,
                ),
            ]
        }};
    }
    let all = [
        wide!(spmv::thread, true),
        wide!(spmv::group2, true),
        wide!(spmv::warp, true),
        wide!(spmv::group64, true),
        wide!(spmv::block, true),
        wide!(spmv_frontier::thread, true),
        wide!(spmv_frontier::warp, true),
        wide!(spmm::group64, true),
        wide!(graph sssp::thread, false),
        wide!(graph sssp::group2, false),
        wide!(graph sssp::warp, false),
        wide!(graph sssp::group64, false),
        wide!(graph sssp::block, false),
        wide!(graph bfs::warp, false),
        wide!(row_huber::thread, true),
    ];
    let autos = [
        (
            "spmv/auto",
            kernels::spmv::auto::spmv::CUDA_SOURCE_WIDE,
            "spmv",
            true,
        ),
        (
            "sssp/auto",
            loops::graph::sssp::auto::sssp::CUDA_SOURCE_WIDE,
            "sssp",
            false,
        ),
        (
            "row_huber/auto",
            kernels::row_huber::auto::row_huber::CUDA_SOURCE_WIDE,
            "row_huber",
            true,
        ),
    ];
    let mut failures = Vec::new();
    let mut compiled = 0;
    let entry = |stem: &str, generic: bool| -> Vec<String> {
        if generic {
            vec![format!("{stem}__f32__wide"), format!("{stem}__f64__wide")]
        } else {
            vec![format!("{stem}__wide")]
        }
    };
    let all: Vec<(&str, &str, bool)> = all.into_iter().flatten().collect();
    let mut jobs: Vec<(&str, &str)> = all
        .iter()
        .map(|&(what, source, _)| (what.split('/').next().expect("a name"), source))
        .collect();
    jobs.extend(autos.iter().map(|&(_, source, kernel, _)| (kernel, source)));
    let mut images = cubins(&jobs).into_iter();
    for &(what, _, generic) in &all {
        let kernel = what.split('/').next().expect("a name");
        match images.next().expect("an image per source") {
            Ok(cubin) => {
                for e in entry(kernel, generic) {
                    assert!(cubin_has_entry(&cubin, &e), "{what}: no `{e}` in the cubin");
                }
                compiled += 1;
            }
            Err(e) => failures.push(format!("{what}: {e}")),
        }
    }
    for (what, _, kernel, generic) in autos {
        match images.next().expect("an image per source") {
            Ok(cubin) => {
                for stem in ["thread", "group2", "group4", "group32", "group64"] {
                    for e in entry(&format!("{kernel}_{stem}"), generic) {
                        assert!(cubin_has_entry(&cubin, &e), "{what}: no `{e}` in the cubin");
                    }
                }
                let carry = b"merge_path";
                assert!(
                    !cubin.windows(carry.len()).any(|w| w == carry),
                    "{what}: a carry candidate"
                );
                compiled += 1;
            }
            Err(e) => failures.push(format!("{what}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "NVRTC {:?} failed:\n{}",
        info.version,
        failures.join("\n\n")
    );
    assert_eq!(compiled, 2 * 15 + 3);
}

/// `spmv`'s source under `auto`: every candidate's entry points in one source.
fn spmv_auto_source() -> &'static str {
    kernels::spmv::SOURCES
        .iter()
        .find(|(schedule, _)| *schedule == "auto")
        .map(|(_, source)| *source)
        .expect("spmv is generated under auto")
}

/// The `.entry NAME(` lines of some PTX, by name.
fn ptx_entries(ptx: &str) -> Vec<&str> {
    ptx.lines()
        .filter_map(|line| line.trim_start().split(".entry ").nth(1))
        .map(|rest| rest.split('(').next().unwrap_or(rest).trim())
        .collect()
}

/// One entry point compiled alone (`-DLOOPS_ONE_ENTRY -DLOOPS_ENTRY_<entry>`): its PTX holds that
/// entry point and no other.
#[test]
fn one_entry_point_compiles_alone() {
    let Some(info) = nvrtc_or_skip() else {
        return;
    };
    let source = spmv_auto_source();
    let entries = guarded_entries(source);
    assert!(entries.len() > 2, "{entries:?}");
    let entry = &entries[entries.len() / 2];
    let ptx = match compile_with_dump("spmv", source, Some(entry), Arch::SM_90, Output::Ptx, None) {
        Ok(KernelImage::Ptx(ptx)) => ptx,
        Ok(other) => panic!("asked for PTX, got {:?}", other.output()),
        Err(e) => panic!("NVRTC {:?} failed:\n{e}", info.version),
    };
    assert_eq!(ptx_entries(&ptx), [entry.as_str()]);
}

/// Every entry point of `spmv` under `auto`, each compiled alone (on two threads, as the runtime's
/// `load_entries` does), gives PTX for it: together they are the whole source's entry points. Also
/// prints the NVRTC time of the whole source against one entry point's.
#[test]
fn every_entry_point_compiles_alone() {
    let Some(info) = nvrtc_or_skip() else {
        return;
    };
    let source = spmv_auto_source();
    let started = Instant::now();
    let whole = compile_ptx("spmv", source, Arch::SM_90)
        .unwrap_or_else(|e| panic!("NVRTC {:?} failed:\n{e}", info.version));
    let whole_time = started.elapsed();
    let mut in_whole = ptx_entries(&whole);
    in_whole.sort_unstable();
    let mut guarded = guarded_entries(source);
    guarded.sort_unstable();
    assert_eq!(
        in_whole, guarded,
        "the guarded entry points are the source's"
    );

    let next = AtomicUsize::new(0);
    let compile_alone = || {
        let mut done = Vec::new();
        while let Some(entry) = guarded.get(next.fetch_add(1, Ordering::Relaxed)) {
            let started = Instant::now();
            let image =
                compile_with_dump("spmv", source, Some(entry), Arch::SM_90, Output::Ptx, None);
            done.push((entry.clone(), image, started.elapsed()));
        }
        done
    };
    let started = Instant::now();
    let alone: Vec<_> = std::thread::scope(|s| {
        let workers = [s.spawn(compile_alone), s.spawn(compile_alone)];
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a compile thread panicked"))
            .collect()
    });
    let all_alone_time = started.elapsed();
    assert_eq!(alone.len(), guarded.len());
    let mut slowest = Duration::ZERO;
    for (entry, image, time) in alone {
        let ptx = match image {
            Ok(KernelImage::Ptx(ptx)) => ptx,
            Ok(other) => panic!("{entry}: asked for PTX, got {:?}", other.output()),
            Err(e) => panic!("{entry}: NVRTC {:?} failed:\n{e}", info.version),
        };
        assert_eq!(ptx_entries(&ptx), [entry.as_str()]);
        slowest = slowest.max(time);
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let report = format!(
        "spmv/auto, PTX for sm_90: whole source ({} entry points) {:.0} ms; each alone on 2 \
         threads: slowest {:.0} ms, all {:.0} ms\n",
        guarded.len(),
        ms(whole_time),
        ms(slowest),
        ms(all_alone_time)
    );
    let _ = std::io::stderr().lock().write_all(report.as_bytes());
}

#[path = "common/builtins.rs"]
mod builtins;

/// Every builtin and constant of the kernel language, plain and bounds-checked, to cubins: the float ones
/// under f32 and f64 (the prelude's two overloads of each), the integer ones on every integer type;
/// and some in a carry schedule's round bounds, which the wrapper also evaluates in Rust.
#[test]
fn every_builtin_compiles_for_sm90() {
    let Some(info) = nvrtc_or_skip() else {
        return;
    };
    let all = [
        (
            "float_builtins",
            builtins::float_builtins::CUDA_SOURCE,
            &["float_builtins__f32", "float_builtins__f64"][..],
        ),
        (
            "float_builtins",
            builtins::float_builtins::CUDA_SOURCE_CHECKED,
            &["float_builtins__f32", "float_builtins__f64"],
        ),
        (
            "round_bounds",
            builtins::round_bounds::CUDA_SOURCE,
            &["round_bounds__f32", "round_bounds__f64"],
        ),
        (
            "integer_builtins",
            builtins::integer_builtins::CUDA_SOURCE,
            &["integer_builtins"],
        ),
        (
            "integer_builtins",
            builtins::integer_builtins::CUDA_SOURCE_CHECKED,
            &["integer_builtins"],
        ),
    ];
    let images = cubins(&all.iter().map(|&(k, src, _)| (k, src)).collect::<Vec<_>>());
    for ((kernel, _, entries), image) in all.into_iter().zip(images) {
        let cubin =
            image.unwrap_or_else(|e| panic!("{kernel}: NVRTC {:?} failed:\n{e}", info.version));
        for entry in entries {
            assert!(
                cubin_has_entry(&cubin, entry),
                "{kernel}: no `{entry}` in the cubin"
            );
        }
    }
}

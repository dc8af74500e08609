//! Without a GPU: the transpose's passes in the loops language (`loops::ops::transpose_lang`)
//! compile with NVRTC to a cubin for sm_90 (ptxas included), plain and bounds-checked, under every
//! named schedule they are stamped with.

#[path = "common/block_shared_kernels.rs"]
mod block_shared;
#[path = "common/cubin_check.rs"]
mod cubin_check;
#[path = "common/nvrtc.rs"]
mod nvrtc;

use cubin_check::{compile_and_check, stamped_jobs, Sources};
use loops::ops::transpose_lang::{count, scatter, stats};
use nvrtc::nvrtc_or_skip;

#[test]
fn transpose_passes_compile_for_sm90_under_every_schedule() {
    if nvrtc_or_skip().is_none() {
        return;
    }
    let sets: [(&str, Sources, Sources); 3] = [
        ("column_counts", count::SOURCES, count::CHECKED_SOURCES),
        ("scatter_keys", scatter::SOURCES, scatter::CHECKED_SOURCES),
        ("tile_stats", stats::SOURCES, stats::CHECKED_SOURCES),
    ];
    let jobs = stamped_jobs(&sets);
    compile_and_check(&jobs);
    // The statistics are a tile-only kernel and the count an atom-major body that never asks its
    // row (a flat loop over the entries): one source each; the scatter one per schedule.
    let count = |n: &str| jobs.iter().filter(|(j, _)| j.starts_with(n)).count();
    assert_eq!(count("tile_stats"), 2);
    assert_eq!(count("column_counts"), 2);
    assert_eq!(count("scatter_keys"), 2 * loops::SCHEDULES.len());
}

/// The `#[block_shared]` test kernels (`tests/common/block_shared_kernels.rs`): a tile-only body
/// with an array of each kind, stamped under every schedule (one `thread` source), and an atom
/// loop under `thread`, f32 and f64 entry points.
#[test]
fn block_shared_kernels_compile_for_sm90() {
    if nvrtc_or_skip().is_none() {
        return;
    }
    use block_shared::{columns, sizes};
    let sets: [(&str, Sources, Sources); 1] =
        [("block_sizes", sizes::SOURCES, sizes::CHECKED_SOURCES)];
    let mut jobs = stamped_jobs(&sets);
    assert_eq!(jobs.len(), 2);
    jobs.push((
        "column_hist (plain)".into(),
        columns::column_hist::CUDA_SOURCE,
    ));
    jobs.push((
        "column_hist (checked)".into(),
        columns::column_hist::CUDA_SOURCE_CHECKED,
    ));
    compile_and_check(&jobs);
}

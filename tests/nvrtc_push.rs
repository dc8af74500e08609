//! Without a GPU: the kernels with tile-only bodies and `push` compile with NVRTC to a cubin for
//! sm_90 (ptxas included), plain and bounds-checked, under every named schedule: the library's
//! frontier kernels (`loops::ops::frontier`) and a user's (`tests/common/push_kernels.rs`: `push`
//! after an atom loop, inside one with its position used, and in a tile-only body).

#[path = "common/cubin_check.rs"]
mod cubin_check;
#[path = "common/nvrtc.rs"]
mod nvrtc;
#[path = "common/push_kernels.rs"]
mod user;

use cubin_check::{compile_and_check, stamped_jobs, Sources};
use loops::ops::frontier::{compaction, degrees};
use loops_runtime::graph::lang::degree_sum;
use nvrtc::nvrtc_or_skip;

#[test]
fn push_and_tile_only_kernels_compile_for_sm90_under_every_schedule() {
    if nvrtc_or_skip().is_none() {
        return;
    }
    let sets: [(&str, Sources, Sources); 8] = [
        (
            "repeat_tiles",
            user::repeat::SOURCES,
            user::repeat::CHECKED_SOURCES,
        ),
        (
            "tile_stats",
            user::reduce::SOURCES,
            user::reduce::CHECKED_SOURCES,
        ),
        (
            "frontier_degrees",
            degrees::SOURCES,
            degrees::CHECKED_SOURCES,
        ),
        (
            "compact_flags",
            compaction::SOURCES,
            compaction::CHECKED_SOURCES,
        ),
        (
            "loud_rows",
            user::loud_rows::SOURCES,
            user::loud_rows::CHECKED_SOURCES,
        ),
        (
            "loud_entries",
            user::loud_entries::SOURCES,
            user::loud_entries::CHECKED_SOURCES,
        ),
        (
            "first_above",
            user::first_above::SOURCES,
            user::first_above::CHECKED_SOURCES,
        ),
        (
            "parity",
            user::parity::SOURCES,
            user::parity::CHECKED_SOURCES,
        ),
    ];
    let mut jobs = stamped_jobs(&sets);
    // The runtime's degree sum, stamped under `thread` alone (summed in registers).
    let sum = degree_sum::thread::frontier_degree_sum::CUDA_SOURCE;
    let checked = degree_sum::thread::frontier_degree_sum::CUDA_SOURCE_CHECKED;
    jobs.push(("frontier_degree_sum (plain)".into(), sum));
    jobs.push(("frontier_degree_sum (checked)".into(), checked));
    compile_and_check(&jobs);
    // The tile-only kernels are one source each; `loud_rows` and `loud_entries` one per schedule.
    let count = |n: &str| jobs.iter().filter(|(j, _)| j.starts_with(n)).count();
    assert_eq!(count("frontier_degrees"), 2);
    assert_eq!(count("compact_flags"), 2);
    assert_eq!(count("first_above"), 2);
    assert_eq!(count("parity"), 2);
    assert_eq!(count("frontier_degree_sum"), 2);
    assert_eq!(count("tile_stats"), 2);
    assert_eq!(count("repeat_tiles"), 2);
    assert_eq!(count("loud_rows"), 2 * loops::SCHEDULES.len());
}

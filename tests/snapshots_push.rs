//! The generated CUDA of the kernels with `push` and tile-only bodies, snapshot-tested as
//! `tests/snapshots.rs` does the examples' (`cargo insta review`): the library's flag compaction
//! and frontier degrees (tile-only: the `thread` kernel under every schedule), plain and checked,
//! and a user's `push` after an atom loop (a statement on the group's leader under `warp`, in the
//! carry fix-up under `merge_path`) and inside one, its position used.

#[path = "common/push_kernels.rs"]
mod user;

use loops::ops::frontier::{compaction, degrees};
use loops_runtime::graph::lang::degree_sum;

#[test]
fn push_and_tile_only_kernels() {
    let thread = compaction::thread::compact_flags::CUDA_SOURCE;
    insta::assert_snapshot!("compact_flags__thread", thread);
    insta::assert_snapshot!(
        "compact_flags__thread__checked",
        compaction::thread::compact_flags::CUDA_SOURCE_CHECKED
    );
    // Under every schedule the same kernel.
    assert!(compaction::SOURCES.iter().all(|(_, s)| *s == thread));
    insta::assert_snapshot!(
        "frontier_degrees__thread",
        degrees::thread::frontier_degrees::CUDA_SOURCE
    );
    // Tile-only reductions: summed in registers, one atomic per block after the tile loop.
    insta::assert_snapshot!(
        "frontier_degree_sum__thread",
        degree_sum::thread::frontier_degree_sum::CUDA_SOURCE
    );
    insta::assert_snapshot!(
        "tile_stats__thread",
        user::reduce::thread::tile_stats::CUDA_SOURCE
    );
    insta::assert_snapshot!(
        "repeat_tiles__thread",
        user::repeat::thread::repeat_tiles::CUDA_SOURCE
    );
    insta::assert_snapshot!(
        "first_above__warp",
        user::first_above::warp::first_above::CUDA_SOURCE
    );
    for (schedule, source) in [
        ("warp", user::loud_rows::warp::loud_rows::CUDA_SOURCE),
        (
            "merge_path",
            user::loud_rows::merge_path::loud_rows::CUDA_SOURCE,
        ),
    ] {
        insta::assert_snapshot!(format!("loud_rows__{schedule}"), source);
    }
    for (schedule, source) in [
        ("warp", user::loud_entries::warp::loud_entries::CUDA_SOURCE),
        (
            "merge_path",
            user::loud_entries::merge_path::loud_entries::CUDA_SOURCE,
        ),
    ] {
        insta::assert_snapshot!(format!("loud_entries__{schedule}"), source);
    }
}

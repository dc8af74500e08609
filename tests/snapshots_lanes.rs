//! The generated CUDA of the kernels written with a `lanes` loop, under the lowerings that differ:
//! a serial loop (`thread`), rounds of the carry fix-up (`merge_path`), the group split up to a
//! warp (`group4`, `warp`) and past it (`group64`, `block`), and `lrb`, whose longest bin runs in
//! pieces of a warp each (`kernels_gen::schedule::pieces`). Reviewed as diffs like `snapshots.rs`.

use loops_kernels as kernels;

fn source(sources: &[(&str, &'static str)], schedule: &str) -> &'static str {
    sources
        .iter()
        .find(|(s, _)| *s == schedule)
        .unwrap_or_else(|| panic!("no `{schedule}` source"))
        .1
}

#[test]
fn spmm_lanes_under_each_lowering() {
    for schedule in [
        "thread",
        "merge_path",
        "group4",
        "warp",
        "group64",
        "block",
        "lrb",
    ] {
        let src = source(kernels::spmm::lanes::SOURCES, schedule);
        insta::assert_snapshot!(format!("spmm_lanes__{schedule}"), src);
    }
}

#[test]
fn sage_mean_under_warp_and_thread() {
    for schedule in ["thread", "warp"] {
        let src = source(kernels::gnn::SOURCES, schedule);
        insta::assert_snapshot!(format!("sage_mean__{schedule}"), src);
    }
}

/// A `lanes` loop inside an atom loop (`loops::ops::sddmm_lang`): a serial loop per atom under
/// `thread`, the split of a group's lanes between atoms and values with the xor butterfly under
/// `group4` and `warp`, the same capped at a warp's lanes under `block`.
#[test]
fn sddmm_lanes_reduction_under_each_lowering() {
    for schedule in ["thread", "group4", "warp", "block"] {
        let src = source(loops::ops::sddmm_lang::dot::SOURCES, schedule);
        insta::assert_snapshot!(format!("sddmm_lanes_reduce__{schedule}"), src);
    }
}

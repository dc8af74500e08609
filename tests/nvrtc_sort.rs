//! NVRTC compiles the segmented sort's and the transpose's hand-written kernels
//! (`loops-runtime/src/ops/sort.cuh`, `transpose.cuh`) for sm_90, on a machine with no GPU, and
//! every entry point the launches name is in the PTX. Skipped without libnvrtc unless
//! LOOPS_REQUIRE_NVRTC=1.

#[path = "common/nvrtc.rs"]
mod nvrtc;

use loops::compile::{compile_ptx, Arch};
use loops::ops::{sort, transpose};
use nvrtc::nvrtc_or_skip;

fn entries_of(ptx: &str) -> Vec<&str> {
    ptx.match_indices(".entry ")
        .map(|(at, _)| {
            let name = &ptx[at + ".entry ".len()..];
            &name[..name.find('(').unwrap_or(name.len())]
        })
        .collect()
}

#[test]
fn segmented_sort_kernels_compile_for_sm90() {
    let Some(_) = nvrtc_or_skip() else {
        return;
    };
    let ptx = compile_ptx("loops_segmented_sort", sort::SORT_SOURCE, Arch::SM_90)
        .unwrap_or_else(|e| panic!("{e}"));
    let found = entries_of(&ptx);
    for policy in ["csr_f32", "csr_f64"] {
        for e in sort::entry_points(policy) {
            assert!(found.contains(&e.as_str()), "no `{e}` in {found:?}");
        }
    }
    // Only the CSR policy: the transpose's is compiled with its own source.
    assert!(!found.iter().any(|e| e.contains("csc")), "{found:?}");
    // Long rows' chunks and medium rows sort 4096 keys of 8 bytes in shared memory.
    assert!(ptx.contains(".shared .align 8 .b8"), "no shared key array");
}

#[test]
fn transpose_kernels_compile_for_sm90() {
    let Some(_) = nvrtc_or_skip() else {
        return;
    };
    let ptx = compile_ptx("loops_transpose", transpose::TRANSPOSE_SOURCE, Arch::SM_90)
        .unwrap_or_else(|e| panic!("{e}"));
    let found = entries_of(&ptx);
    let mut expected: Vec<String> = [
        "count",
        "tile_sums",
        "scan_sums",
        "scan_apply",
        "scatter",
        "stats",
    ]
    .iter()
    .map(|k| format!("loops_transpose_{k}"))
    .collect();
    for policy in ["csc_f32", "csc_f64"] {
        expected.extend(sort::entry_points(policy));
    }
    for e in &expected {
        assert!(found.contains(&e.as_str()), "no `{e}` in {found:?}");
    }
    assert!(!found.iter().any(|e| e.contains("csr")), "{found:?}");
    // The column counts and the cursors are atomics on global memory.
    assert!(ptx.contains("atom.global.add"), "no atomic count");
}

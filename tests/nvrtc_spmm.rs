//! NVRTC compiles the hand-written SpMM and SDDMM sources of `loops::ops` (every entry point the
//! runtime may launch) for sm_90, on a machine with no GPU. Skipped without libnvrtc unless
//! LOOPS_REQUIRE_NVRTC=1 (see `tests/common/nvrtc.rs`).

#[path = "common/nvrtc.rs"]
mod nvrtc;

use loops::compile::{compile_ptx, Arch};
use loops::ops::sddmm::{sddmm_plan, SDDMM_SOURCE};
use loops::ops::spmm::{spmm_candidates, spmm_plan, SpmmMapping, SpmmShape, SPMM_SOURCE};
use nvrtc::nvrtc_or_skip;

/// Every entry point a plan can name, for k up to 600 and both element types and mappings, the
/// first call's candidate plans included (its stream hold is `tune::measure`'s).
fn spmm_entries() -> Vec<String> {
    let mut entries = vec!["loops_spmm_zero_words".to_string()];
    for (precision, bytes) in [("f32", 4), ("f64", 8)] {
        for k in 1..=600 {
            for mapping in [SpmmMapping::Rows, SpmmMapping::Split] {
                let shape = SpmmShape {
                    rows: 1000,
                    nnz: 10_000,
                    max_row: 50,
                    k,
                    element_bytes: bytes,
                    sm_count: 132,
                    max_threads_per_sm: 2048,
                };
                let mut plans = vec![spmm_plan(shape, mapping)];
                for max_row in [50, 5000, 1_000_000] {
                    plans.extend(spmm_candidates(SpmmShape { max_row, ..shape }));
                }
                for plan in plans {
                    for e in [Some(plan.entry(precision)), plan.tails_entry(precision)]
                        .into_iter()
                        .flatten()
                    {
                        if !entries.contains(&e) {
                            entries.push(e);
                        }
                    }
                }
            }
        }
    }
    entries
}

#[test]
fn spmm_source_compiles_with_every_entry() {
    let Some(_) = nvrtc_or_skip() else {
        return;
    };
    let ptx = compile_ptx("loops_spmm", SPMM_SOURCE, Arch::SM_90).unwrap_or_else(|e| panic!("{e}"));
    // LOOPS_SPMM_PTX=FILE keeps the PTX, to read the loads and loops the compiler made.
    if let Some(path) = std::env::var_os("LOOPS_SPMM_PTX") {
        std::fs::write(path, &ptx).expect("writing the PTX");
    }
    let entries = spmm_entries();
    // rows and tails x (3 f32 + 2 f64 vector widths) x 3 tile widths, and the zeroing.
    assert_eq!(entries.len(), 31, "{entries:?}");
    for e in &entries {
        assert!(ptx.contains(&format!(".entry {e}(")), "no `{e}` in the PTX");
    }
    // The tails of long rows are added with atomics, for both types.
    assert!(ptx.contains("atom.global.add.f32"), "no f32 atomic add");
    assert!(ptx.contains("atom.global.add.f64"), "no f64 atomic add");
    // The 16-byte loads of B.
    assert!(ptx.contains("ld.global.nc.v4.f32") || ptx.contains("ld.global.v4.f32"));
    assert!(ptx.contains("ld.global.nc.v2.f64") || ptx.contains("ld.global.v2.f64"));
}

#[test]
fn measurement_hold_compiles() {
    let Some(_) = nvrtc_or_skip() else {
        return;
    };
    use loops::tune::measure::{HOLD_ENTRY, HOLD_KERNEL, HOLD_SOURCE};
    let ptx = compile_ptx(HOLD_KERNEL, HOLD_SOURCE, Arch::SM_90).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        ptx.contains(&format!(".entry {HOLD_ENTRY}(")),
        "no `{HOLD_ENTRY}` in the PTX"
    );
    assert!(
        ptx.contains("%globaltimer"),
        "the hold spins on the global timer"
    );
}

#[test]
fn sddmm_source_compiles_with_every_entry() {
    let Some(_) = nvrtc_or_skip() else {
        return;
    };
    let ptx =
        compile_ptx("loops_sddmm", SDDMM_SOURCE, Arch::SM_90).unwrap_or_else(|e| panic!("{e}"));
    let mut entries: Vec<String> = Vec::new();
    for (precision, bytes) in [("f32", 4), ("f64", 8)] {
        for k in 1..=300 {
            let e = sddmm_plan(1 << 20, k, bytes, 132, 2048).entry(precision);
            if !entries.contains(&e) {
                entries.push(e);
            }
        }
    }
    assert_eq!(entries.len(), 5, "{entries:?}");
    for e in &entries {
        assert!(ptx.contains(&format!(".entry {e}(")), "no `{e}` in the PTX");
    }
}

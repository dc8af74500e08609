//! NVRTC compiles the SDDMM of `loops::ops::sddmm` (a `lanes` loop inside an atom loop: kernels-gen's
//! `schedule::lanes_reduce`) under every schedule it is stamped with, plain and bounds-checked, to
//! a cubin for sm_90, on a machine with no GPU (see `nvrtc_compile.rs`).

#[path = "common/nvrtc.rs"]
mod nvrtc;

use loops::ops::sddmm_lang::dot;
use nvrtc::{cubins, nvrtc_or_skip};

#[test]
fn sddmm_compiles_for_sm90_under_every_schedule() {
    let Some(info) = nvrtc_or_skip() else {
        return;
    };
    let jobs: Vec<(&str, &str)> = dot::SOURCES
        .iter()
        .chain(dot::CHECKED_SOURCES)
        .map(|&(schedule, src)| (schedule, src))
        .collect();
    assert_eq!(jobs.len(), 2 * dot::SCHEDULES.len());
    let images = cubins(&jobs);
    let failures: Vec<String> = jobs
        .iter()
        .zip(images)
        .filter_map(|((schedule, _), r)| r.err().map(|e| format!("{schedule}: {e}")))
        .collect();
    assert!(
        failures.is_empty(),
        "NVRTC {:?} failed:\n{}",
        info.version,
        failures.join("\n\n")
    );
}

/// Under a group the dot product is the lanes reduction (a butterfly of xor shuffles over the
/// value lanes, 16-byte loads on the fused paths); under `thread` a serial loop.
#[test]
fn sddmm_lowers_by_schedule() {
    let source = |s: &str| {
        dot::SOURCES
            .iter()
            .find(|(n, _)| *n == s)
            .unwrap_or_else(|| panic!("no `{s}` stamp"))
            .1
    };
    for group in ["warp", "group4", "block"] {
        let src = source(group);
        assert!(src.contains("__shfl_xor_sync"), "{group}");
        assert!(src.contains("loops_load4"), "{group}");
    }
    assert!(!source("thread").contains("__shfl_xor_sync"));
}

/// `auto` emits `flat` and `flat16` among its candidates for this body (the nonzeros in pieces across rows, a
/// warp each): a binary search for the piece's first row, then each lane steps its row forward to
/// its nonzero's.
#[test]
fn auto_emits_flat_for_sddmm() {
    let src = dot::SOURCES
        .iter()
        .find(|(s, _)| *s == "auto")
        .map(|(_, src)| *src)
        .expect("sddmm under auto");
    if std::env::var_os("LOOPS_DUMP_FLAT").is_some() {
        println!("{src}");
    }
    let flat = &src[src.find("sddmm_flat_body").expect("the flat candidate")..];
    assert!(flat.contains("loops_fb = (int)(loops_fv * loops_fp)"));
    assert!(flat.contains("while (a_offsets[row + 1] <= nz) ++row;"));
    assert!(flat.contains("__shfl_xor_sync(0xffffffffu, d, loops_o)"));
    // `flat`: one 16-byte load a lane at most, held to a full SM's blocks; `flat16` the wider
    // fused paths, unbounded.
    assert!(src.contains("__launch_bounds__(256, 8) sddmm_flat__f32("));
    assert!(src.contains("__launch_bounds__(256) sddmm_flat16__f32("));
    let flat16 = &src[src.find("sddmm_flat16_body").expect("flat16")..];
    assert!(
        !flat[..flat.find("sddmm_flat16_body").unwrap_or(flat.len())].contains("loops_rv == 8u")
    );
    assert!(flat16.contains("loops_rv == 16u"));
}

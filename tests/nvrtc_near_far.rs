//! NVRTC compiles near-far SSSP's kernels for sm_90 on a machine with no GPU: the relaxation round
//! (`src/graph/sssp_near_far.rs`) under every schedule it is instantiated with, plain and
//! bounds-checked, to cubins (ptxas included), and the runtime's bucket advance, edge count and device-loop level
//! (`loops::graph::near_far`).
//! Without libnvrtc each test prints one `skipped` line and passes, unless LOOPS_REQUIRE_NVRTC=1.

#[path = "common/nvrtc.rs"]
mod nvrtc;

use loops::compile::{compile, compile_ptx, Arch, Output};
use nvrtc::{cubin_has_entry, nvrtc_or_skip};

/// `source` compiled to a cubin for sm_90 (ptxas included: what a device loads).
fn cubin(kernel: &str, source: &str) -> loops::Result<Vec<u8>> {
    compile(kernel, source, Arch::SM_90, Output::Cubin).map(|image| image.bytes().to_vec())
}

#[test]
fn sssp_near_far_compiles_under_every_schedule() {
    let Some(info) = nvrtc_or_skip() else {
        return;
    };
    let kernel = "sssp_near_far";
    let mut failures = Vec::new();
    let mut compiled = 0;
    for sources in [
        loops::graph::sssp_near_far::SOURCES,
        loops::graph::sssp_near_far::CHECKED_SOURCES,
    ] {
        for (schedule, source) in sources {
            let entries = match *schedule {
                "auto" | "mean_group" => {
                    vec![format!("{kernel}_thread"), format!("{kernel}_group32")]
                }
                "lrb" => ["thread", "group2", "group4", "warp", "block", "long"]
                    .map(|m| format!("{kernel}_lrb_{m}"))
                    .to_vec(),
                _ => vec![kernel.to_string()],
            };
            match cubin(kernel, source) {
                Ok(cubin) => {
                    for e in entries {
                        assert!(cubin_has_entry(&cubin, &e), "{schedule}: no `{e}`");
                    }
                    compiled += 1;
                }
                Err(e) => failures.push(format!("{kernel}/{schedule}: {e}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "NVRTC {:?} failed:\n{}",
        info.version,
        failures.join("\n\n")
    );
    assert_eq!(compiled, 2 * loops::graph::sssp_near_far::SCHEDULES.len());
    assert_eq!(loops::graph::sssp_near_far::SCHEDULES.len(), 12);
}

#[test]
fn near_far_runtime_kernels_compile() {
    let Some(_) = nvrtc_or_skip() else {
        return;
    };
    let ptx = compile_ptx(
        "loops_near_far",
        loops::graph::near_far::NEAR_FAR_SOURCE,
        Arch::SM_90,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    for e in [
        "loops_near_far_split",
        "loops_frontier_degrees",
        "loops_frontier_degrees_wide",
        "loops_near_far_level",
        "loops_near_far_relax",
        "loops_near_far_relax_wide",
        // The compaction it is built on comes along.
        "loops_compact_flags",
    ] {
        assert!(ptx.contains(&format!(".entry {e}(")), "no `{e}`");
    }
}

/// The relaxation round flags near or far by the threshold read from the device, and the round
/// of more hops relaxes up to three (three atomic minima), in the generated code of one schedule.
#[test]
fn the_round_splits_by_the_threshold() {
    let source = loops::graph::sssp_near_far::thread::sssp_near_far::CUDA_SOURCE;
    assert!(source.contains("threshold[0ull]"), "{source}");
    assert_eq!(source.matches("atomic_min(&dist").count(), 1, "{source}");
    let source = loops::graph::sssp_near_far::hops::thread::sssp_near_far_hops::CUDA_SOURCE;
    assert!(source.contains("threshold[0ull]"), "{source}");
    assert_eq!(source.matches("atomic_min(&dist").count(), 3, "{source}");
    assert!(source.contains("hop_degree"), "{source}");
}

/// The round of more hops compiles under each of its schedules (those of the device loop), plain
/// and bounds-checked.
#[test]
fn sssp_near_far_hops_compiles_under_every_schedule() {
    let Some(info) = nvrtc_or_skip() else {
        return;
    };
    let kernel = "sssp_near_far_hops";
    let mut failures = Vec::new();
    let hops = &loops::graph::sssp_near_far::hops::SOURCES;
    let checked = &loops::graph::sssp_near_far::hops::CHECKED_SOURCES;
    for (schedule, source) in hops.iter().chain(checked.iter()) {
        let entries = match *schedule {
            "auto" | "mean_group" => vec![format!("{kernel}_thread"), format!("{kernel}_group32")],
            _ => vec![kernel.to_string()],
        };
        match cubin(kernel, source) {
            Ok(cubin) => {
                for e in entries {
                    assert!(cubin_has_entry(&cubin, &e), "{schedule}: no `{e}`");
                }
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
    assert_eq!(loops::graph::sssp_near_far::hops::SCHEDULES.len(), 8);
}

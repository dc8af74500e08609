//! NVRTC compiles the kernels written with a `lanes` loop (the SpMM of `spmm::lanes`, the i32-range
//! kernel `spmm::shifted`, the GraphSAGE layer and its epilogue) under every schedule they are
//! stamped with, plain and bounds-checked, to a cubin for sm_90, on a machine with no GPU (see
//! `nvrtc_compile.rs`).

use loops_kernels as kernels;
#[path = "common/nvrtc.rs"]
mod nvrtc;

use nvrtc::{cubin_has_entry, cubins, nvrtc_or_skip};

/// The entry-point stems of `kernel` under `schedule`: one, or under `auto` and `mean_group` two
/// of the candidates, under `lrb` one per mapping (and the short tiles over the values: `lanes`).
fn entry_stems(kernel: &str, schedule: &str) -> Vec<String> {
    match schedule {
        "auto" | "mean_group" => vec![format!("{kernel}_thread"), format!("{kernel}_group32")],
        "lrb" => [
            "thread", "group2", "group4", "warp", "block", "long", "lanes",
        ]
        .map(|m| format!("{kernel}_lrb_{m}"))
        .to_vec(),
        _ => vec![kernel.to_string()],
    }
}

#[test]
fn lanes_kernels_compile_for_sm90() {
    let Some(info) = nvrtc_or_skip() else {
        return;
    };
    let all = [
        ("spmm", kernels::spmm::lanes::SOURCES),
        ("spmm", kernels::spmm::lanes::CHECKED_SOURCES),
        ("lanes_shifted", kernels::spmm::shifted::SOURCES),
        ("lanes_shifted", kernels::spmm::shifted::CHECKED_SOURCES),
        ("sage_mean", kernels::gnn::SOURCES),
        ("sage_mean", kernels::gnn::CHECKED_SOURCES),
        ("bias_relu", kernels::gnn::epilogue::SOURCES),
        ("bias_relu", kernels::gnn::epilogue::CHECKED_SOURCES),
    ];
    let jobs: Vec<(&str, &str, &str)> = all
        .iter()
        .flat_map(|(kernel, sources)| sources.iter().map(|(sch, src)| (*kernel, *sch, *src)))
        .collect();
    let images = cubins(&jobs.iter().map(|&(k, _, src)| (k, src)).collect::<Vec<_>>());
    let mut failures = Vec::new();
    for (&(kernel, schedule, _), image) in jobs.iter().zip(images) {
        match image {
            Ok(cubin) => {
                for stem in entry_stems(kernel, schedule) {
                    for ty in ["f32", "f64"] {
                        let entry = format!("{stem}__{ty}");
                        assert!(
                            cubin_has_entry(&cubin, &entry),
                            "{kernel}/{schedule}: no `{entry}` in the cubin"
                        );
                    }
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
    // The three stamped under every schedule but `hierarchical` (17 of 19); the epilogue under 2.
    assert_eq!(jobs.len(), 2 * (17 + 17 + 17 + 2));
}

/// The strides of a `lanes` loop run on 64-bit unsigned offsets from its start, clamped at its
/// length: `lanes(s..i32::MAX)` must not step an `int` past `i32::MAX` (it used to:
/// `loops_jb += (int)loops_jw`).
#[test]
fn lanes_strides_do_not_step_the_loops_type() {
    for (schedule, src) in kernels::spmm::shifted::SOURCES {
        if !src.contains("loops_jw") {
            continue;
        }
        assert!(
            src.contains("for (unsigned long long loops_jo = 0ull; loops_jo < loops_jn;")
                && !src.contains("loops_jb +="),
            "{schedule}: a lanes stride in the loop's own type"
        );
    }
}

//! Compiles kernel sources to sm_90 cubins and checks that each defines its entry points: the
//! compile-only tests of the root crate. Included by path beside `common/nvrtc.rs` (as `mod
//! nvrtc`), whose `cubins` it runs.

use loops::compile::guarded_entries;

use crate::nvrtc::{cubin_has_entry, cubins};

/// Plain and checked sources of one kernel, by schedule (a `SOURCES`/`CHECKED_SOURCES` pair).
#[allow(dead_code)]
pub type Sources = &'static [(&'static str, &'static str)];

/// The compile jobs of stamped kernels, `(name, plain, checked)`, named `"NAME under SCHEDULE
/// (plain|checked)"`: one per schedule and form, but a source that an earlier schedule of the
/// same set already has (a tile-only kernel is the same `thread` kernel under every schedule)
/// compiles once. Each set covers every schedule of `loops::SCHEDULES`.
#[allow(dead_code)]
pub fn stamped_jobs(sets: &[(&str, Sources, Sources)]) -> Vec<(String, &'static str)> {
    let mut jobs: Vec<(String, &'static str)> = Vec::new();
    for &(name, plain, checked) in sets {
        assert_eq!(plain.len(), loops::SCHEDULES.len(), "{name}");
        for ((schedule, p), (_, c)) in plain.iter().zip(checked.iter()) {
            if jobs.iter().any(|(_, s)| s == p) {
                continue;
            }
            jobs.push((format!("{name} under {schedule} (plain)"), p));
            jobs.push((format!("{name} under {schedule} (checked)"), c));
        }
    }
    jobs
}

/// Compiles every `(name, source)` of `jobs` to a cubin; panics naming each job that fails to
/// compile, has no entry point, or lacks one of its entry points in the cubin.
pub fn compile_and_check<S: AsRef<str>>(jobs: &[(S, &str)]) {
    let images = cubins(
        &jobs
            .iter()
            .map(|(n, s)| (n.as_ref(), *s))
            .collect::<Vec<_>>(),
    );
    let mut failures = Vec::new();
    for ((name, source), image) in jobs.iter().zip(images) {
        let name = name.as_ref();
        match image {
            Ok(cubin) => {
                let entries = guarded_entries(source);
                assert!(!entries.is_empty(), "{name}: no entry point");
                for e in entries {
                    assert!(cubin_has_entry(&cubin, &e), "{name}: no `{e}`");
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

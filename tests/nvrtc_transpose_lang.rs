//! Without a GPU: the transpose's passes in the loops language (`loops::ops::transpose_lang`)
//! compile with NVRTC to a cubin for sm_90 (ptxas included), plain and bounds-checked, under every
//! named schedule they are stamped with.

#[path = "common/nvrtc.rs"]
mod nvrtc;

use loops::compile::guarded_entries;
use loops::ops::transpose_lang::{count, scatter, stats};
use nvrtc::{cubin_has_entry, cubins, nvrtc_or_skip};

#[test]
fn transpose_passes_compile_for_sm90_under_every_schedule() {
    if nvrtc_or_skip().is_none() {
        return;
    }
    type Sources = &'static [(&'static str, &'static str)];
    let sets: [(&str, Sources, Sources); 3] = [
        ("column_counts", count::SOURCES, count::CHECKED_SOURCES),
        ("scatter_keys", scatter::SOURCES, scatter::CHECKED_SOURCES),
        ("tile_stats", stats::SOURCES, stats::CHECKED_SOURCES),
    ];
    let mut jobs: Vec<(String, &str)> = Vec::new();
    for (name, plain, checked) in sets {
        assert_eq!(plain.len(), loops::SCHEDULES.len(), "{name}");
        for ((schedule, p), (_, c)) in plain.iter().zip(checked.iter()) {
            // A tile-only kernel is the same `thread` kernel under every schedule: one compile.
            if jobs.iter().any(|(_, s)| s == p) {
                continue;
            }
            jobs.push((format!("{name} under {schedule} (plain)"), p));
            jobs.push((format!("{name} under {schedule} (checked)"), c));
        }
    }
    let images = cubins(
        &jobs
            .iter()
            .map(|(n, s)| (n.as_str(), *s))
            .collect::<Vec<_>>(),
    );
    let mut failures = Vec::new();
    for ((name, source), image) in jobs.iter().zip(images) {
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
    // The statistics are a tile-only kernel: one source; the atom loops one per schedule.
    let count = |n: &str| jobs.iter().filter(|(j, _)| j.starts_with(n)).count();
    assert_eq!(count("tile_stats"), 2);
    assert_eq!(count("column_counts"), 2 * loops::SCHEDULES.len());
    assert_eq!(count("scatter_keys"), 2 * loops::SCHEDULES.len());
}

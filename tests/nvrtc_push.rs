//! Without a GPU: the kernels with tile-only bodies and `push` compile with NVRTC to a cubin for
//! sm_90 (ptxas included), plain and bounds-checked, under every named schedule: the library's
//! frontier kernels (`loops::ops::frontier`) and a user's (`tests/common/push_kernels.rs`: `push`
//! after an atom loop, inside one with its position used, and in a tile-only body).

#[path = "common/nvrtc.rs"]
mod nvrtc;
#[path = "common/push_kernels.rs"]
mod user;

use loops::compile::guarded_entries;
use loops::ops::frontier::{compaction, degrees};
use nvrtc::{cubin_has_entry, cubins, nvrtc_or_skip};

#[test]
fn push_and_tile_only_kernels_compile_for_sm90_under_every_schedule() {
    if nvrtc_or_skip().is_none() {
        return;
    }
    type Sources = &'static [(&'static str, &'static str)];
    let sets: [(&str, Sources, Sources); 6] = [
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
    // The tile-only kernels are one source each; `loud_rows` and `loud_entries` one per schedule.
    let count = |n: &str| jobs.iter().filter(|(j, _)| j.starts_with(n)).count();
    assert_eq!(count("frontier_degrees"), 2);
    assert_eq!(count("compact_flags"), 2);
    assert_eq!(count("first_above"), 2);
    assert_eq!(count("parity"), 2);
    assert_eq!(count("loud_rows"), 2 * loops::SCHEDULES.len());
}

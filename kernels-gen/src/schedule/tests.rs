use super::*;

#[test]
#[cfg(feature = "frontend")]
fn every_named_schedule_parses_into_its_own_unit() {
    assert_eq!(SCHEDULES.len(), NAMED_BY_UNIT.iter().map(|n| n.len()).sum());
    assert_eq!(UNITS.len(), NAMED_BY_UNIT.len());
    for (unit, named) in UNITS.iter().zip(NAMED_BY_UNIT) {
        if unit.names().is_empty() {
            // A unit only another schedule launches (`pieces`, `lrb`'s long tiles): no name,
            // nothing to stamp.
            assert!(named.is_empty());
            continue;
        }
        assert!(!named.is_empty(), "{} names no schedule", unit.names()[0]);
        // `#[for_schedules(core)]` stamps a kernel under every unit.
        assert!(
            named.iter().any(|s| s.core),
            "{} has no core schedule",
            unit.names()[0]
        );
        for s in *named {
            let config = crate::frontend::parse_attr(s.attr.parse().unwrap())
                .unwrap_or_else(|e| panic!("{}: {}", s.name, e.message));
            assert_eq!(config.schedule.unit().names(), unit.names(), "{}", s.name);
            assert!(syn::parse_str::<syn::Ident>(s.name).is_ok(), "{}", s.name);
            assert!(!s.about.is_empty() && !s.about.contains('\n'), "{}", s.name);
        }
        // Every name the attribute takes is some named schedule's.
        for name in unit.names() {
            let attr = format!("schedule = \"{name}\"");
            assert!(
                named.iter().any(|s| s.attr.starts_with(&attr)),
                "no named schedule writes {attr}"
            );
        }
    }
    for (i, s) in SCHEDULES.iter().enumerate() {
        assert!(
            SCHEDULES[..i].iter().all(|t| t.name != s.name),
            "{} twice",
            s.name
        );
        assert!(
            SCHEDULES[..i].iter().all(|t| t.attr != s.attr),
            "{} twice",
            s.attr
        );
    }
}

#[test]
fn only_grid_stride_list_kernels_take_the_length_from_the_device() {
    use crate::abi::{hidden_params, takes_device_list_len};
    use Schedule::*;
    for s in [Thread, Group { group_size: 2 }, Group { group_size: 256 }] {
        assert!(takes_device_list_len(s), "{s:?}");
        // Over a whole tile set there is no list.
        assert!(!s.unit().hidden_params(s, false).contains(&Hidden::ListLen));
        assert_eq!(
            hidden_params(s, true, 1, true),
            [Hidden::ListLen, Hidden::Fault, Hidden::Scratch]
        );
    }
    for s in [
        WorkOriented {
            items_per_thread: 8,
        },
        MergePath {
            items_per_thread: 8,
        },
        Split { mdt: 0 },
        Hierarchical { mdt: 0 },
        Lrb,
        Auto,
    ] {
        assert!(!takes_device_list_len(s), "{s:?}");
    }
}

#[test]
fn a_slip_of_a_name_finds_the_name() {
    let units = || UNITS.iter().flat_map(|u| u.names().iter().copied());
    assert_eq!(closest("mergepath", units()), Some("merge_path"));
    assert_eq!(closest("Merge-Path", units()), Some("merge_path"));
    assert_eq!(closest("threads", units()), Some("thread"));
    assert_eq!(closest("hierachical", units()), Some("hierarchical"));
    assert_eq!(closest("wrap", units()), Some("warp"));
    assert_eq!(closest("magic", units()), None);
    let names = || SCHEDULES.iter().map(|s| s.name);
    assert_eq!(closest("grop4", names()), Some("group4"));
    assert_eq!(closest("merge_path_12", names()), Some("merge_path12"));
    assert_eq!(closest("cuda", names()), None);
}

#[test]
fn staged_operands_stream_where_they_would_push_out_the_gathered_vector() {
    let h100 = DeviceLimits {
        sm_count: 132,
        max_threads_per_sm: 2048,
        l2_bytes: 50 << 20,
    };
    let f32_vector = |n: u64| 4 * n;
    // Power law, contiguous columns: 67M entries, x of 4M f32 (16 MB).
    assert!(streams_past_l2(67_000_000, f32_vector(4 << 20), h100));
    // Banded, 8.4M rows: x (34 MB) is more than half of L2.
    assert!(!streams_past_l2(134_400_000, f32_vector(8_400_000), h100));
    // Arrow, 3M entries: the stream fits in L2 (24 MB).
    assert!(!streams_past_l2(3_000_000, f32_vector(1_000_000), h100));
    // At the thresholds: a stream of 4x L2, a vector of half of it.
    let l2 = h100.l2_bytes;
    assert!(streams_past_l2(l2 / 2, l2 / 2, h100));
    assert!(!streams_past_l2(l2 / 2 - 1, l2 / 2, h100));
    assert!(!streams_past_l2(l2 / 2, l2 / 2 + 1, h100));
    // A device that reports no L2 never streams.
    let unknown = DeviceLimits {
        l2_bytes: 0,
        ..h100
    };
    assert!(!streams_past_l2(u64::MAX, 0, unknown));
}

#[test]
fn a_launch_picks_the_entry_point_of_its_ranges_and_loads() {
    use RangeEntry::*;
    assert_eq!(RangeEntry::choose(true, false, false), Kept);
    assert_eq!(RangeEntry::choose(true, true, false), Streamed);
    assert_eq!(RangeEntry::choose(false, true, false), Searched);
    assert_eq!(RangeEntry::choose(false, false, true), Searched);
    // The checked variant has no streamed entry point: it loads plainly.
    assert_eq!(RangeEntry::choose(true, true, true), Kept);
    assert!(RangeEntry::ALL
        .iter()
        .all(|r| r.in_checked() || *r == Streamed));
    let names: Vec<String> = RangeEntry::ALL
        .iter()
        .map(|r| r.entry_name("spmv__f32__wide"))
        .collect();
    assert_eq!(
        names,
        [
            "spmv__f32__wide",
            "spmv__f32__wide__stream",
            "spmv__f32__wide__searched"
        ]
    );
}

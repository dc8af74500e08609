//! `merge_path`: an equal share of tiles + atoms per thread along the merge path of the tile ends and
//! the atoms (Merrill and Garland, "Merge-based Parallel Sparse Matrix-Vector Multiplication", SC'16).
//! Each thread finds its start by a diagonal binary search over the offsets, so long tiles and runs of
//! empty tiles both spread evenly. Cut tiles are finished by the carry fix-up of [`super::carry`].

pub use super::carry::Partition;

/// The partition this schedule uses.
pub const PARTITION: Partition = Partition::MergePath;

use super::work_oriented::Segmented;

/// Its named schedules ([`super::SCHEDULES`]).
pub const NAMED: &[super::NamedSchedule] = &[
    super::NamedSchedule {
        name: "merge_path",
        attr: r#"schedule = "merge_path""#,
        about: "an equal share of tiles + atoms per thread (8) along the merge path (Merrill and Garland); carry fix-up",
        core: true,
    },
    super::NamedSchedule {
        name: "merge_path12",
        attr: r#"schedule = "merge_path", items_per_thread = 12"#,
        about: "`merge_path` with 12 items per thread",
        core: false,
    },
];

/// `schedule = "merge_path"`: the segmented unit over this partition.
pub const MERGE_PATH: Segmented = Segmented {
    names: &["merge_path"],
    partition: PARTITION,
};

//! `work_oriented`: an equal share of atoms per thread; a tile belongs to the thread holding its end,
//! found by binary search of the offsets. Balances atoms, not tiles: a run of empty tiles lands on one
//! thread. Cut tiles are finished by the carry fix-up of [`super::carry`].
//!
//! Where every accumulator folds one operand that depends on the atom alone (SpMV and its kin), the
//! block instead scans its atoms, segmented at tile starts, and its threads take the tiles that end
//! in it in turn (`CarryLowering::segmented_scan`): no searches, no per-thread walks, empty tiles
//! spread over the block.

pub use super::carry::Partition;

/// The partition this schedule uses.
pub const PARTITION: Partition = Partition::WorkOriented;

use super::{DeviceLimits, Hidden, Schedule, ScheduleConfig, ScheduleUnit, TileSetShape};

/// Its named schedules ([`super::SCHEDULES`]).
pub const NAMED: &[super::NamedSchedule] = &[
    super::NamedSchedule {
        name: "work_oriented",
        attr: r#"schedule = "work_oriented""#,
        about: "an equal share of atoms per thread (8); tiles cut between threads finished by the carry fix-up",
        core: true,
    },
    super::NamedSchedule {
        name: "work_oriented16",
        attr: r#"schedule = "work_oriented", items_per_thread = 16"#,
        about: "`work_oriented` with 16 atoms per thread",
        core: false,
    },
];

/// `schedule = "work_oriented"`.
pub const WORK_ORIENTED: Segmented = Segmented {
    names: &["work_oriented"],
    partition: PARTITION,
};

/// The unit of a schedule that gives each thread an equal segment of the tile set, found by
/// searching its offsets, and finishes cut tiles with the carry fix-up: `work_oriented` (segments
/// of atoms) and `merge_path` (of tiles + atoms). The two differ only in their partition.
pub struct Segmented {
    /// The schedule's name in the attribute.
    pub names: &'static [&'static str],
    /// How the items are cut into segments.
    pub partition: Partition,
}

impl Segmented {
    /// The carry lowering of this partition.
    #[cfg(feature = "frontend")]
    fn carry_lowering(&self, config: ScheduleConfig) -> super::carry::CarryLowering {
        super::carry::CarryLowering {
            partition: self.partition,
            items_per_thread: items_per_thread(config.schedule),
            block_size: config.block_size,
        }
    }

    /// The schedule with `items_per_thread`.
    #[cfg(feature = "frontend")]
    fn schedule(&self, items_per_thread: u32) -> Schedule {
        match self.partition {
            Partition::WorkOriented => Schedule::WorkOriented { items_per_thread },
            _ => Schedule::MergePath { items_per_thread },
        }
    }
}

impl ScheduleUnit for Segmented {
    fn names(&self) -> &'static [&'static str] {
        self.names
    }

    fn arg_keys(&self, _name: &str) -> &'static [&'static str] {
        &["items_per_thread"]
    }

    fn describe(&self, schedule: Schedule) -> String {
        format!("{} {}/thread", self.names[0], items_per_thread(schedule))
    }

    /// The name, with the atoms per thread where they are not the default (`work_oriented16`):
    /// variants of both sizes are `auto` candidates, and variant names must differ.
    fn short_name(&self, schedule: Schedule) -> String {
        match items_per_thread(schedule) {
            super::DEFAULT_ITEMS_PER_THREAD => self.names[0].to_string(),
            ipt => format!("{}{ipt}", self.names[0]),
        }
    }

    fn carries(&self) -> bool {
        true
    }

    /// Equal shares of items; the merge path's items are the atoms and the tiles, and it reads
    /// the offsets once more (as its merge's second list); `work_oriented` steps through a run of
    /// empty tiles on one thread unless it scans.
    fn estimate_ns(&self, schedule: Schedule, input: &super::auto::model::Input) -> f64 {
        let mut shares = super::auto::model::Shares::of_atoms(input, items_per_thread(schedule));
        match self.partition {
            Partition::MergePath => {
                shares.work = input.atoms + input.tiles;
                shares.extra_bytes = input.tiles * 4.0;
            }
            _ if !input.setting.scans => {
                shares.empty_walk_ns =
                    input.stats.longest_empty_run as f64 * input.costs.step_ns * 0.5;
            }
            _ => {}
        }
        super::auto::model::shares_ns(input, shares)
    }

    /// Over a subset the prefix sum of its tiles' sizes; over a whole set the block starts kept
    /// with it.
    fn hidden_params(&self, _schedule: Schedule, over_subset: bool) -> &'static [Hidden] {
        if over_subset {
            &[Hidden::SubsetOffsets]
        } else {
            &[Hidden::BlockStarts]
        }
    }

    fn hidden_params_in_passes(&self, _schedule: Schedule, over_subset: bool) -> &'static [Hidden] {
        if over_subset {
            &[Hidden::SubsetOffsets, Hidden::Pass, Hidden::TileState]
        } else {
            &[Hidden::BlockStarts, Hidden::Pass, Hidden::TileState]
        }
    }

    fn searched_partition(&self, schedule: Schedule) -> Option<(Partition, u32)> {
        Some((self.partition, items_per_thread(schedule)))
    }

    /// One segment of `items_per_thread` items per thread, every thread launched.
    fn blocks_wanted(
        &self,
        config: ScheduleConfig,
        shape: TileSetShape,
        _limits: DeviceLimits,
    ) -> u64 {
        let ipt = items_per_thread(config.schedule);
        self.partition
            .blocks_wanted(shape.tiles, shape.atoms, ipt, config.block_size)
    }

    /// `items_per_thread` from 1 to 64, by default [`super::DEFAULT_ITEMS_PER_THREAD`].
    #[cfg(feature = "frontend")]
    fn parse(&self, args: &super::AttrArgs) -> crate::diag::DResult<Schedule> {
        let ipt = match args.get("items_per_thread") {
            None => super::DEFAULT_ITEMS_PER_THREAD,
            Some((n, span)) if !(1..=64).contains(&n) => {
                crate::diag::bail!(span, "`items_per_thread` must be from 1 to 64, not {n}")
            }
            Some((n, _)) => n as u32,
        };
        Ok(self.schedule(ipt))
    }

    #[cfg(feature = "frontend")]
    fn lowering(&self, config: ScheduleConfig) -> Box<dyn super::Lowering> {
        Box::new(self.carry_lowering(config))
    }

    /// `work_oriented` scans its tiles where every accumulator folds one staged operand
    /// ([`super::carry::CarryLowering::scans`]); the merge path never does.
    #[cfg(feature = "frontend")]
    fn scans(&self, kernel: &crate::schedule::Kernel) -> bool {
        self.carry_lowering(kernel.config).scans(kernel)
    }
}

fn items_per_thread(schedule: Schedule) -> u32 {
    match schedule {
        Schedule::WorkOriented { items_per_thread } | Schedule::MergePath { items_per_thread } => {
            items_per_thread
        }
        other => unreachable!("a segmented unit asked about {other:?}"),
    }
}

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

/// `schedule = "work_oriented"`.
pub struct WorkOriented;

impl ScheduleUnit for WorkOriented {
    fn names(&self) -> &'static [&'static str] {
        &["work_oriented"]
    }

    fn arg_keys(&self, _name: &str) -> &'static [&'static str] {
        &["items_per_thread"]
    }

    fn describe(&self, schedule: Schedule) -> String {
        format!("work_oriented {}/thread", items_per_thread(schedule))
    }

    fn carries(&self) -> bool {
        true
    }

    fn hidden_params(&self, _schedule: Schedule, over_subset: bool) -> &'static [Hidden] {
        ranged_params(over_subset)
    }

    fn searched_partition(&self, schedule: Schedule) -> Option<(Partition, u32)> {
        Some((PARTITION, items_per_thread(schedule)))
    }

    /// One segment of `items_per_thread` atoms per thread, every thread launched.
    fn blocks_wanted(
        &self,
        config: ScheduleConfig,
        shape: TileSetShape,
        _limits: DeviceLimits,
    ) -> u64 {
        let ipt = items_per_thread(config.schedule);
        PARTITION.blocks_wanted(shape.tiles, shape.atoms, ipt, config.block_size)
    }

    #[cfg(feature = "frontend")]
    fn parse(&self, args: &super::AttrArgs) -> crate::diag::DResult<Schedule> {
        Ok(Schedule::WorkOriented {
            items_per_thread: parse_items_per_thread(args)?,
        })
    }

    #[cfg(feature = "frontend")]
    fn lowering(&self, config: ScheduleConfig) -> Box<dyn super::Lowering> {
        Box::new(super::carry::CarryLowering {
            partition: PARTITION,
            items_per_thread: items_per_thread(config.schedule),
            block_size: config.block_size,
        })
    }
}

fn items_per_thread(schedule: Schedule) -> u32 {
    match schedule {
        Schedule::WorkOriented { items_per_thread } => items_per_thread,
        other => unreachable!("the work_oriented unit asked about {other:?}"),
    }
}

/// The hidden parameters of the schedules whose blocks search their ranges (`work_oriented`,
/// `merge_path`): over a subset the prefix sum of its tiles' sizes; over a whole set the block
/// starts kept with it.
pub(super) fn ranged_params(over_subset: bool) -> &'static [Hidden] {
    if over_subset {
        &[Hidden::SubsetOffsets]
    } else {
        &[Hidden::BlockStarts]
    }
}

/// `items_per_thread` of `work_oriented` and `merge_path`: from 1 to 64, by default
/// [`super::DEFAULT_ITEMS_PER_THREAD`].
#[cfg(feature = "frontend")]
pub(super) fn parse_items_per_thread(args: &super::AttrArgs) -> crate::diag::DResult<u32> {
    match args.get("items_per_thread") {
        None => Ok(super::DEFAULT_ITEMS_PER_THREAD),
        Some((n, span)) if !(1..=64).contains(&n) => {
            crate::diag::bail!(span, "`items_per_thread` must be from 1 to 64, not {n}")
        }
        Some((n, _)) => Ok(n as u32),
    }
}

//! `merge_path`: an equal share of tiles + atoms per thread along the merge path of the tile ends and
//! the atoms (Merrill and Garland, "Merge-based Parallel Sparse Matrix-Vector Multiplication", SC'16).
//! Each thread finds its start by a diagonal binary search over the offsets, so long tiles and runs of
//! empty tiles both spread evenly. Cut tiles are finished by the carry fix-up of [`super::carry`].

pub use super::carry::Partition;

/// The partition this schedule uses.
pub const PARTITION: Partition = Partition::MergePath;

use super::work_oriented::ranged_params;
use super::{DeviceLimits, Hidden, Schedule, ScheduleConfig, ScheduleUnit, TileSetShape};

/// `schedule = "merge_path"`.
pub struct MergePath;

impl ScheduleUnit for MergePath {
    fn names(&self) -> &'static [&'static str] {
        &["merge_path"]
    }

    fn arg_keys(&self, _name: &str) -> &'static [&'static str] {
        &["items_per_thread"]
    }

    fn describe(&self, schedule: Schedule) -> String {
        format!("merge_path {}/thread", items_per_thread(schedule))
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

    /// One segment of `items_per_thread` tiles + atoms per thread, every thread launched.
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
        Ok(Schedule::MergePath {
            items_per_thread: super::work_oriented::parse_items_per_thread(args)?,
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
        Schedule::MergePath { items_per_thread } => items_per_thread,
        other => unreachable!("the merge_path unit asked about {other:?}"),
    }
}

//! `mean_group`: a group of lanes per tile, as `group`, with the group's size chosen per call from
//! the call's tiles: the power of two at or past their mean size in atoms (0 or 1 atom: a thread
//! per tile), at most `max_group_size` (32 unless the attribute says otherwise). So a tile of
//! the mean size takes its lanes one step through its atoms, as the CSR-vector SpMV kernels that
//! size their vectors from the mean row length do (Bell and Garland, "Implementing sparse
//! matrix-vector multiplication on throughput-oriented processors", SC'09).
//!
//! The kernel is emitted under `thread` and each group size from 2 to the most (those its body
//! can be lowered under; `thread` lowers every body), each variant named after its schedule
//! (`spmv_group8`), and each call launches one of them ([`pick`]). The mapping of a launch is
//! `group`'s ([`model_launch`]); nothing here lowers code or names a hidden parameter: the
//! variants are `thread`'s and `group`'s own.
//!
//! The whole unit is this file and its line in the registry ([`super::Schedule`]).

use super::auto::model::{tiles_ns, Input};
use super::auto::TileStats;
use super::{
    group, thread, DeviceLimits, Launch, Launcher, Schedule, ScheduleConfig, ScheduleUnit, Stop,
    TileSetShape, Variant,
};

/// Its named schedule ([`super::SCHEDULES`]).
pub const NAMED: &[super::NamedSchedule] = &[super::NamedSchedule {
    name: "mean_group",
    attr: r#"schedule = "mean_group""#,
    about: "a group per tile, of the lanes the call's mean tile wants (a power of two up to 32), chosen per call",
    core: true,
}];

/// The most lanes a tile gets unless the attribute says otherwise: a warp.
pub const DEFAULT_MAX_GROUP_SIZE: u32 = 32;

/// `schedule = "mean_group"`.
pub struct MeanGroup;

impl ScheduleUnit for MeanGroup {
    fn names(&self) -> &'static [&'static str] {
        &["mean_group"]
    }

    fn arg_keys(&self, _name: &str) -> &'static [&'static str] {
        &["max_group_size"]
    }

    fn describe(&self, schedule: Schedule) -> String {
        format!("mean_group up to {}", max_group_size(schedule))
    }

    fn short_name(&self, schedule: Schedule) -> String {
        match max_group_size(schedule) {
            DEFAULT_MAX_GROUP_SIZE => "mean_group".into(),
            most => format!("mean_group{most}"),
        }
    }

    /// Through its variants (`thread`'s and `group`'s), each with a 64-bit-offsets instantiation.
    fn supports_wide_offsets(&self) -> bool {
        true
    }

    /// The group it would pick for the tiles, costed as that group.
    fn estimate_ns(&self, schedule: Schedule, input: &Input) -> f64 {
        tiles_ns(input, lanes_for(input.stats, max_group_size(schedule)))
    }

    /// Never launched itself (its variants are).
    fn blocks_wanted(
        &self,
        config: ScheduleConfig,
        shape: TileSetShape,
        limits: DeviceLimits,
    ) -> u64 {
        thread::Thread.blocks_wanted(config, shape, limits)
    }

    /// One launch of the variant [`pick`] chooses for the call's tiles.
    fn plan(&self, config: ScheduleConfig, run: &mut dyn Launcher) -> Result<(), Stop> {
        let stats = run.call_stats()?;
        let lanes = lanes_for(&stats, max_group_size(config.schedule));
        let variant = pick(run.variants(), lanes, run.is_wide()).ok_or(Stop)?;
        run.launch(Launch::whole(variant))
    }

    /// `max_group_size`: a power of two from 2 to a warp (blocks are at least one).
    #[cfg(feature = "frontend")]
    fn parse(&self, args: &super::AttrArgs) -> crate::diag::DResult<Schedule> {
        let max_group_size = match args.get("max_group_size") {
            None => DEFAULT_MAX_GROUP_SIZE,
            Some((g, span)) if !g.is_power_of_two() || !(2..=32).contains(&g) => {
                crate::diag::bail!(
                    span,
                    "`max_group_size` must be a power of two from 2 to 32 (a warp), not {g}"
                )
            }
            Some((g, _)) => g as u32,
        };
        Ok(Schedule::MeanGroup { max_group_size })
    }

    /// Asked for itself, it is lowered as `thread` (its variants are lowered each under its own
    /// schedule).
    #[cfg(feature = "frontend")]
    fn lowering(&self, _config: ScheduleConfig) -> Box<dyn super::Lowering> {
        Box::new(thread::ThreadLowering)
    }

    /// The kernel under `thread` and each group of 2 to `max_group_size` lanes its body can be
    /// lowered under, each named after its schedule (`spmv_group4`).
    #[cfg(feature = "frontend")]
    fn variants(&self, kernel: &super::Kernel) -> Option<super::Variants> {
        let block_size = kernel.config.block_size;
        let mut kernels = Vec::new();
        for schedule in schedules(max_group_size(kernel.config.schedule)) {
            let config = ScheduleConfig {
                schedule,
                block_size,
            };
            let mut k = kernel.clone();
            k.name = format!("{}_{}", kernel.name, config.short_name());
            k.config = config;
            if config.lowering().check(&k).is_ok() {
                kernels.push(k);
            }
        }
        let names: Vec<String> = kernels.iter().map(|k| k.config.short_name()).collect();
        Some(super::Variants {
            kernels,
            describe: format!("mean_group: {}", names.join(", ")),
            wide: Some("mean_group"),
        })
    }
}

fn max_group_size(schedule: Schedule) -> u32 {
    match schedule {
        Schedule::MeanGroup { max_group_size } => max_group_size,
        other => unreachable!("the mean_group unit asked about {other:?}"),
    }
}

/// The schedules it is emitted under: `thread`, then groups of 2, 4, .. `max_group_size`.
pub fn schedules(max_group_size: u32) -> Vec<Schedule> {
    let mut out = vec![Schedule::Thread];
    let mut g = 2;
    while g <= max_group_size {
        out.push(Schedule::Group { group_size: g });
        g *= 2;
    }
    out
}

/// The lanes a call's tiles get: the power of two at or past their mean size (1 for a mean of at
/// most one atom), at most `max_group_size`.
pub fn lanes_for(stats: &TileStats, max_group_size: u32) -> u32 {
    let mean = stats.atoms.div_ceil(stats.tiles.max(1)).max(1);
    mean.next_power_of_two().min(max_group_size.max(1) as u64) as u32
}

/// The variant a call of `lanes` lanes a tile launches: the one of the most lanes at most
/// `lanes` (over a wide tile set, among those with a 64-bit-offsets instantiation); `None` where
/// none fits.
pub fn pick(variants: &[Variant], lanes: u32, wide: bool) -> Option<usize> {
    variants
        .iter()
        .enumerate()
        .filter(|(_, v)| !wide || v.wide)
        .filter_map(|(i, v)| Some((i, v.config.schedule.lanes()?)))
        .filter(|&(_, l)| l <= lanes)
        .max_by_key(|&(_, l)| l)
        .map(|(i, _)| i)
}

/// The model of one launch over tiles with these `offsets` in blocks of `block_size` threads, on
/// a device of these limits: the group it picks (the grid is that group's schedule's), then for
/// every thread of the grid the tiles its group takes and the atoms the thread visits in each,
/// as `visit(thread, tile, atom)`. Returns the lanes per tile.
pub fn model_launch(
    offsets: &[u64],
    block_size: u32,
    max_group_size: u32,
    limits: DeviceLimits,
    mut visit: impl FnMut(u64, u64, u64),
) -> u32 {
    let tiles = offsets.len().saturating_sub(1) as u64;
    let stats = TileStats::of_sizes(offsets.windows(2).map(|w| w[1] - w[0]));
    let lanes = lanes_for(&stats, max_group_size);
    let schedule = match lanes {
        1 => Schedule::Thread,
        g => Schedule::Group { group_size: g },
    };
    let config = ScheduleConfig {
        schedule,
        block_size,
    };
    let shape = TileSetShape {
        tiles,
        atoms: offsets.last().copied().unwrap_or(0),
    };
    let threads = config.launch_dims(shape, limits).grid as u64 * block_size as u64;
    let g = lanes as u64;
    let groups = threads / g;
    for group_index in 0..groups {
        for tile in group::model_tiles_of_group(group_index, groups, tiles) {
            let (begin, end) = (offsets[tile as usize], offsets[tile as usize + 1]);
            for lane in 0..g {
                for atom in group::model_atoms_of_lane(lane, g, begin, end) {
                    visit(group_index * g + lane, tile, atom);
                }
            }
        }
    }
    lanes
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const H100: DeviceLimits = DeviceLimits {
        sm_count: 132,
        max_threads_per_sm: 2048,
        l2_bytes: 50 << 20,
    };

    /// A device of one small SM: grids of a few blocks, so that groups take many tiles each.
    const TINY: DeviceLimits = DeviceLimits {
        sm_count: 1,
        max_threads_per_sm: 64,
        l2_bytes: 0,
    };

    fn stats(sizes: &[u64]) -> TileStats {
        TileStats::of_sizes(sizes.iter().copied())
    }

    #[test]
    fn the_lanes_are_the_mean_tile_rounded_up_to_a_power_of_two() {
        assert_eq!(lanes_for(&stats(&[]), 32), 1);
        assert_eq!(lanes_for(&stats(&[0, 0, 1]), 32), 1);
        assert_eq!(lanes_for(&stats(&[1, 2]), 32), 2);
        assert_eq!(lanes_for(&stats(&[16; 10]), 32), 16);
        assert_eq!(lanes_for(&stats(&[17; 10]), 32), 32);
        assert_eq!(lanes_for(&stats(&[5000, 0, 0]), 32), 32);
        assert_eq!(lanes_for(&stats(&[5000, 0, 0]), 8), 8);
    }

    fn variant(schedule: Schedule, wide: bool) -> Variant {
        Variant {
            config: ScheduleConfig::new(schedule),
            name: "v",
            scratch_slots_per_block: 0,
            state_slots_per_tile: 0,
            dynamic_shared_bytes: 0,
            scans: false,
            wide,
            user_params: 0,
            over_list: false,
            atomics: false,
            passes: 1,
            pass_levels: false,
        }
    }

    #[test]
    fn a_call_launches_the_widest_variant_at_most_its_lanes() {
        let all: Vec<Variant> = schedules(32)
            .into_iter()
            .map(|s| variant(s, true))
            .collect();
        assert_eq!(all.len(), 6);
        assert_eq!(pick(&all, 1, false), Some(0));
        assert_eq!(pick(&all, 8, false), Some(3));
        assert_eq!(pick(&all, 32, true), Some(5));
        // A body the groups of 8 and up cannot take: the group of 4.
        assert_eq!(pick(&all[..3], 16, false), Some(2));
        // Over a wide set only the variants with a wide instantiation.
        let narrow = vec![
            variant(Schedule::Thread, true),
            variant(Schedule::Group { group_size: 2 }, false),
        ];
        assert_eq!(pick(&narrow, 2, true), Some(0));
        assert_eq!(pick(&narrow[1..], 2, true), None);
    }

    #[test]
    fn its_attribute_takes_a_power_of_two_up_to_a_warp_and_the_block() {
        let parse =
            |attr: &str| crate::frontend::parse_attr(attr.parse().unwrap()).map(|c| c.schedule);
        assert_eq!(
            parse(r#"schedule = "mean_group""#).unwrap(),
            Schedule::MeanGroup { max_group_size: 32 }
        );
        assert_eq!(
            parse(r#"schedule = "mean_group", max_group_size = 8"#).unwrap(),
            Schedule::MeanGroup { max_group_size: 8 }
        );
        assert_eq!(
            parse(r#"schedule = "mean_group", block_size = 32, max_group_size = 32"#).unwrap(),
            Schedule::MeanGroup { max_group_size: 32 }
        );
        for (attr, bad) in [
            (r#"schedule = "mean_group", max_group_size = 12"#, "12"),
            (r#"schedule = "mean_group", max_group_size = 64"#, "64"),
            (r#"schedule = "mean_group", max_group_size = 1"#, "1"),
            (
                r#"schedule = "mean_group", block_size = 128, max_group_size = 128"#,
                "128",
            ),
        ] {
            let e = parse(attr).unwrap_err();
            assert!(
                e.message
                    .contains("`max_group_size` must be a power of two"),
                "{}",
                e.message
            );
            assert!(e.message.ends_with(&format!("not {bad}")), "{}", e.message);
            // At the value, not the attribute (tests/ui/bad_max_group_size.rs shows the caret).
            assert!(!e.about_schedule, "{attr}");
            let (start, end) = (e.span.start(), e.span.end());
            assert_eq!(
                (start.line, end.column - start.column),
                (1, bad.len()),
                "{attr}"
            );
        }
        // `group_size` is `group`'s, not this unit's.
        assert!(parse(r#"schedule = "mean_group", group_size = 4"#).is_err());
    }

    #[test]
    fn its_variants_are_thread_and_each_group_up_to_the_most() {
        let item: syn::ItemFn = syn::parse_str(
            "fn spmv<T: Float>(a: Csr<T>, x: &[T], y: &mut [T]) { for row in a.tiles() { \
             let mut s = 0.0; for nz in a.atoms(row) { s += a.values[nz] * x[a.col_indices[nz] as usize]; } \
             y[row] = s; } }",
        )
        .unwrap();
        let source = crate::cuda_for(
            r#"schedule = "mean_group", max_group_size = 8"#.parse().unwrap(),
            &item,
            "spmv.rs",
        )
        .unwrap();
        assert!(
            source.contains("mean_group: thread, group2, group4, group8"),
            "{source}"
        );
        for entry in ["spmv_thread__f32(", "spmv_group8__f64("] {
            assert!(source.contains(entry), "{entry}");
        }
        assert!(!source.contains("spmv_group16"));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Whatever group a call picks, every atom is visited once, by a lane of the one group
        /// that takes its tile, and every tile is taken by one group.
        #[test]
        fn every_atom_is_visited_once(
            sizes in prop::collection::vec(
                prop_oneof![4 => Just(0u64), 6 => 1u64..6, 2 => 6u64..70, 1 => 200u64..2000],
                0..300,
            ),
            block in prop::sample::select(vec![32u32, 64, 256]),
            most in prop::sample::select(vec![2u32, 8, 32]),
            tiny in any::<bool>(),
        ) {
            let mut offsets = vec![0u64];
            for s in &sizes {
                offsets.push(offsets.last().unwrap() + s);
            }
            let atoms = *offsets.last().unwrap() as usize;
            let mut visits = vec![0u32; atoms];
            let mut owner = vec![None; sizes.len()];
            let limits = if tiny { TINY } else { H100 };
            let want = lanes_for(&stats(&sizes), most) as u64;
            let lanes = model_launch(&offsets, block, most, limits, |thread, tile, atom| {
                visits[atom as usize] += 1;
                let group = thread / want;
                assert!(owner[tile as usize].is_none_or(|g| g == group), "tile {tile}: two groups");
                owner[tile as usize] = Some(group);
                assert!((offsets[tile as usize]..offsets[tile as usize + 1]).contains(&atom));
            });
            prop_assert!(lanes.is_power_of_two() && lanes <= most);
            prop_assert!(visits.iter().all(|&v| v == 1), "visits {:?}", visits);
            for (t, &s) in sizes.iter().enumerate() {
                prop_assert!(s == 0 || owner[t].is_some(), "tile {} not taken", t);
            }
        }
    }
}

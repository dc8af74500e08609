//! `schedule = "auto"`: the kernel is emitted under several candidate schedules, and each call
//! runs the one that is fastest on its tiles.
//!
//! The plan ranks the candidates with a cost model that sees the distribution of the tile sizes
//! ([`model`]), and asks the runtime to pick among the few best ([`Launcher::tune`]): over a whole
//! tile set the runtime times them the first time the kernel meets the set and remembers the
//! winner (with the set, and in its tuning cache on disk), over a tile subset (a traversal's
//! frontier, different at every level) the model's first choice runs, from the subset's own
//! statistics.

pub mod model;
mod stats;

pub use stats::TileStats;

use super::{
    DeviceLimits, Launch, Launcher, Schedule, ScheduleConfig, ScheduleUnit, Stop, TileSetShape,
    DEFAULT_ITEMS_PER_THREAD,
};

/// Its named schedule ([`super::SCHEDULES`]).
pub const NAMED: &[super::NamedSchedule] = &[super::NamedSchedule {
    name: "auto",
    attr: r#"schedule = "auto""#,
    about: "the kernel under several candidate schedules; each call runs the one a cost model and a first-call timing pick for its tiles",
    core: true,
}];

/// How many candidates the runtime times (the model's best few).
pub const SHORTLIST: usize = 4;

/// `schedule = "auto"`.
pub struct Auto;

impl ScheduleUnit for Auto {
    fn names(&self) -> &'static [&'static str] {
        &["auto"]
    }

    /// Through its tile-mapped candidates, each with a 64-bit-offsets instantiation.
    fn supports_wide_offsets(&self) -> bool {
        true
    }

    fn picks_a_variant(&self) -> bool {
        true
    }

    fn why_not_in_device_loop(&self) -> &'static str {
        "none of its candidates takes the list's length from the device"
    }

    /// Never launched itself (its candidates are).
    fn blocks_wanted(
        &self,
        config: ScheduleConfig,
        shape: TileSetShape,
        limits: DeviceLimits,
    ) -> u64 {
        super::thread::Thread.blocks_wanted(config, shape, limits)
    }

    /// One launch of the candidate the runtime picks ([`Launcher::tune`]) among the model's
    /// [`SHORTLIST`] best for the call's tiles (over a wide set, among the candidates with a
    /// 64-bit-offsets instantiation).
    fn plan(&self, _config: ScheduleConfig, run: &mut dyn Launcher) -> Result<(), Stop> {
        let shortlist = shortlist(run)?;
        let pick = run.tune(&shortlist)?;
        run.launch(Launch::whole(pick))
    }

    #[cfg(feature = "frontend")]
    fn parse(&self, _args: &super::AttrArgs) -> crate::diag::DResult<Schedule> {
        Ok(Schedule::Auto)
    }

    /// Asked for itself, `auto` is lowered as `thread` (its candidates are lowered each under its
    /// own schedule).
    #[cfg(feature = "frontend")]
    fn lowering(&self, _config: ScheduleConfig) -> Box<dyn super::Lowering> {
        Box::new(super::thread::ThreadLowering)
    }

    /// The kernel under every candidate its body can be lowered under, each named after it
    /// (`spmv_group4`).
    #[cfg(feature = "frontend")]
    fn variants(&self, kernel: &crate::schedule::Kernel) -> Option<super::Variants> {
        let under = |config: ScheduleConfig| {
            let mut k = kernel.clone();
            k.name = format!("{}_{}", kernel.name, config.short_name());
            k.config = config;
            config.lowering().check(&k).is_ok().then_some(k)
        };
        // `thread` lowers every body, so there is always a candidate.
        let mut kernels: Vec<_> = candidates(kernel.config.block_size)
            .into_iter()
            .filter_map(under)
            .collect();
        // A body whose atoms are independent (SDDMM): also the whole set's atoms in pieces across
        // tiles ([`super::flat`]), which no tile size unbalances, in its two settings.
        if super::pieces::atoms_alone(kernel) {
            for vector in super::flat::VECTORS.iter().copied() {
                let config = ScheduleConfig {
                    schedule: Schedule::Flat { vector },
                    block_size: kernel.config.block_size,
                };
                if config
                    .schedule
                    .unit()
                    .fits_block(config.schedule, config.block_size)
                {
                    kernels.extend(under(config));
                }
            }
        }
        let names: Vec<String> = kernels.iter().map(|k| k.config.short_name()).collect();
        Some(super::Variants {
            kernels,
            describe: format!("auto: {}", names.join(", ")),
            wide: Some("auto"),
        })
    }
}

/// The model's [`SHORTLIST`] best variants for the call, best first.
pub fn shortlist(run: &mut dyn Launcher) -> Result<Vec<usize>, Stop> {
    let wide = run.is_wide();
    let pool: Vec<(usize, ScheduleConfig)> = run
        .variants()
        .iter()
        .enumerate()
        .filter(|(_, v)| !wide || v.wide)
        .map(|(i, v)| (i, v.config))
        .collect();
    let setting = model::Setting {
        limits: run.limits(),
        scans: !wide && run.variants().iter().any(|v| v.scans),
        over_list: run.variants().iter().any(|v| v.over_list),
        atomics: run.variants().iter().any(|v| v.atomics),
    };
    let configs: Vec<ScheduleConfig> = pool.iter().map(|&(_, c)| c).collect();
    let stats = run.call_stats()?;
    let mut picked: Vec<usize> = model::shortlist(&configs, &stats, setting, SHORTLIST)
        .into_iter()
        .map(|i| pool[i].0)
        .collect();
    // `flat`, where emitted, is always timed (both settings): the model's families do not
    // describe it.
    for &(i, c) in &pool {
        if matches!(c.schedule, Schedule::Flat { .. }) && !picked.contains(&i) {
            picked.push(i);
        }
    }
    Ok(picked)
}

/// The schedules an `auto` kernel is emitted under, in this order (those the body cannot be lowered
/// under are left out at compile time). Each is compiled only when the model shortlists it.
pub fn candidates(block_size: u32) -> Vec<ScheduleConfig> {
    let schedules = [
        Schedule::Thread,
        Schedule::Group { group_size: 2 },
        Schedule::Group { group_size: 4 },
        Schedule::Group { group_size: 8 },
        Schedule::Group { group_size: 16 },
        Schedule::Group { group_size: 32 },
        Schedule::Group { group_size: 64 },
        // A block per tile: a traversal's hubs (BFS on a 100K-vertex power-law graph, H100:
        // block 0.26 ms, a warp 0.50, work_oriented 0.49, which pays a prefix sum per level).
        Schedule::Group {
            group_size: block_size,
        },
        Schedule::MergePath {
            items_per_thread: DEFAULT_ITEMS_PER_THREAD,
        },
        Schedule::WorkOriented {
            items_per_thread: DEFAULT_ITEMS_PER_THREAD,
        },
        // Twice the atoms per thread: fewer carries on long uniform sets (H100, uniform 2M rows
        // of 16: 0.297 ms against 0.324 for the default).
        Schedule::WorkOriented {
            items_per_thread: 2 * DEFAULT_ITEMS_PER_THREAD,
        },
    ];
    // Settings the block can hold (the attribute's rules: `group_size`).
    let fits = |s: &Schedule| s.unit().fits_block(*s, block_size);
    let mut kept: Vec<Schedule> = Vec::new();
    for s in schedules {
        // The block's group is one of the others in small blocks.
        if fits(&s) && !kept.contains(&s) {
            kept.push(s);
        }
    }
    kept.into_iter()
        .map(|schedule| ScheduleConfig {
            schedule,
            block_size,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::model::{rank, shortlist};
    use super::*;
    use crate::schedule::lrb::bin_of;

    const H100: DeviceLimits = DeviceLimits {
        sm_count: 132,
        max_threads_per_sm: 2048,
        l2_bytes: 50 << 20,
    };

    fn all() -> Vec<ScheduleConfig> {
        candidates(256)
    }

    fn on(limits: DeviceLimits, scans: bool) -> model::Setting {
        model::Setting {
            limits,
            scans,
            over_list: false,
            atomics: false,
        }
    }

    fn first(stats: &TileStats) -> Schedule {
        let configs = all();
        configs[rank(&configs, stats, on(H100, false))[0]].schedule
    }

    fn is_carry(s: Schedule) -> bool {
        matches!(
            s,
            Schedule::MergePath { .. } | Schedule::WorkOriented { .. }
        )
    }

    /// A power-law size distribution: `tiles` tiles, Zipf-like sizes with mean about `mean`, the
    /// longest `max` (the SNAP graphs auto used to lose on).
    fn power_law(tiles: u64, mean: f64, max: u64) -> TileStats {
        let mut sizes = Vec::new();
        let mut state = 12345u64;
        for _ in 0..tiles {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = ((state >> 11) as f64 / (1u64 << 53) as f64).max(1e-12);
            // Pareto with exponent 2.1, scaled to the mean.
            let x = (mean / 1.9) / u.powf(1.0 / 2.1);
            sizes.push((x as u64).min(max));
        }
        sizes[7] = max;
        TileStats::of_sizes(sizes)
    }

    #[test]
    fn candidates_fit_the_block() {
        let small: Vec<Schedule> = candidates(32).into_iter().map(|c| c.schedule).collect();
        let mut unique: Vec<String> = candidates(32).iter().map(|c| c.short_name()).collect();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), small.len());
        assert!(!small.contains(&Schedule::Group { group_size: 64 }));
        assert!(small.contains(&Schedule::Group { group_size: 32 }));
        assert!(all()
            .iter()
            .any(|c| c.schedule == Schedule::Group { group_size: 64 }));
        // Variants are named after their candidates' short names, which must differ.
        let mut names: Vec<String> = all().iter().map(|c| c.short_name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all().len(), "{names:?}");
    }

    #[test]
    fn skewed_graphs_with_a_low_mean_go_to_a_carry_schedule() {
        // 26K rows of 5 on average, the longest 3,000 (the SNAP graph `thread` took 0.131 ms on,
        // `work_oriented` 0.0045).
        let snap = power_law(26_000, 5.0, 3000);
        assert!(snap.max_tile_atoms == 3000 && snap.mean() < 10.0);
        assert!(is_carry(first(&snap)), "{:?}", first(&snap));
        let configs = all();
        let order = rank(&configs, &snap, on(H100, false));
        let thread = order
            .iter()
            .position(|&i| configs[i].schedule == Schedule::Thread);
        assert!(thread.unwrap() >= SHORTLIST, "thread ranked {thread:?}");
        // A million rows of the same kind.
        assert!(is_carry(first(&power_law(1 << 20, 8.0, 20_000))));
    }

    #[test]
    fn regular_sets_go_to_tile_mapped_schedules() {
        // 2-D grid, 5 per row; uniform rows of 8; small matrices (latency-bound: a warp each).
        assert_eq!(
            first(&TileStats::summary(1 << 22, 5 << 22, 5)),
            Schedule::Thread
        );
        assert_eq!(
            first(&TileStats::summary(20_000, 160_000, 8)),
            Schedule::Thread
        );
        assert!(matches!(
            first(&TileStats::summary(1138, 4054, 18)),
            Schedule::Group { group_size: 8..=64 }
        ));
        // Regular rows of 16 to 40: small groups.
        assert!(matches!(
            first(&TileStats::summary(1 << 23, 16 << 23, 16)),
            Schedule::Thread | Schedule::Group { group_size: 2..=8 }
        ));
    }

    #[test]
    fn one_huge_tile_is_cut() {
        let arrow = TileStats::summary(1 << 20, 4 << 20, 1 << 20);
        assert!(is_carry(first(&arrow)));
        // Long runs of empty tiles: the merge path over work_oriented, unless it scans.
        let runs = arrow.with_empty_run(1 << 16);
        let configs = all();
        let mp = configs[rank(&configs, &runs, on(H100, false))[0]].schedule;
        assert!(matches!(mp, Schedule::MergePath { .. }), "{mp:?}");
        let wo = configs[rank(&configs, &runs, on(H100, true))[0]].schedule;
        assert!(matches!(wo, Schedule::WorkOriented { .. }), "{wo:?}");
    }

    #[test]
    fn a_frontier_pays_the_carry_schedules_prefix_sum() {
        let configs = all();
        let list = model::Setting {
            over_list: true,
            ..on(H100, false)
        };
        // A few hundred vertices, one of degree 200: a warp each beats three prefix-sum launches.
        let small = TileStats::summary(500, 3000, 200);
        assert!(!is_carry(configs[rank(&configs, &small, list)[0]].schedule));
        // A large skewed frontier still goes to a carry schedule.
        let large = power_law(1 << 20, 8.0, 20_000);
        assert!(is_carry(configs[rank(&configs, &large, list)[0]].schedule));
    }

    #[test]
    fn the_shortlist_holds_both_families_and_the_best() {
        let configs = all();
        for stats in [
            power_law(26_000, 5.0, 3000),
            TileStats::summary(1 << 22, 5 << 22, 5),
            TileStats::summary(1138, 4054, 18),
            TileStats::summary(0, 0, 0),
        ] {
            let short = shortlist(&configs, &stats, on(H100, false), SHORTLIST);
            assert_eq!(short.len(), SHORTLIST);
            assert_eq!(short[0], rank(&configs, &stats, on(H100, false))[0]);
            assert!(short.iter().any(|&i| is_carry(configs[i].schedule)));
            assert!(short.iter().any(|&i| !is_carry(configs[i].schedule)));
        }
        // Only what was emitted is ranked.
        let thread_only = &configs[..1];
        assert_eq!(
            shortlist(thread_only, &TileStats::default(), on(H100, false), 4),
            [0]
        );
    }

    #[test]
    fn the_device_size_scales_the_rates() {
        let small_gpu = DeviceLimits {
            sm_count: 16,
            ..H100
        };
        let s = TileStats::summary(1 << 22, 5 << 22, 5);
        let c = all()[0];
        let big = model::estimate_us(c, &s, on(H100, false), &model::H100);
        let small = model::estimate_us(c, &s, on(small_gpu, false), &model::H100);
        assert!(small > 4.0 * big);
        assert_eq!(bin_of(18), 5);
    }
}

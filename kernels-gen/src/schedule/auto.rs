//! `schedule = "auto"`: the kernel is emitted under several candidate schedules, into one source
//! (one compile, one module), and each launch picks one from the tile set's shape.
//!
//! The rule starts from the paper's heuristic (merge-path unless the matrix is tiny) and is tuned
//! on this project's benchmark (`examples/bench_spmv.rs`, which times `auto` beside every
//! schedule): see [`preferred`].

use super::{
    DeviceLimits, Launch, Launcher, Schedule, ScheduleConfig, ScheduleUnit, Stop, TileSetShape,
    DEFAULT_ITEMS_PER_THREAD,
};

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

    /// Never launched itself (its candidates are).
    fn blocks_wanted(
        &self,
        config: ScheduleConfig,
        shape: TileSetShape,
        limits: DeviceLimits,
    ) -> u64 {
        super::thread::Thread.blocks_wanted(config, shape, limits)
    }

    /// One launch of the candidate [`choose_config`] picks from the tile set's statistics (over
    /// a wide set, from the candidates with a 64-bit-offsets instantiation).
    fn plan(&self, _config: ScheduleConfig, run: &mut dyn Launcher) -> Result<(), Stop> {
        let wide = run.is_wide();
        let pool: Vec<(usize, ScheduleConfig)> = run
            .variants()
            .iter()
            .enumerate()
            .filter(|(_, v)| !wide || v.wide)
            .map(|(i, v)| (i, v.config))
            .collect();
        let scans = !wide && run.variants().iter().any(|v| v.scans);
        let configs: Vec<ScheduleConfig> = pool.iter().map(|&(_, c)| c).collect();
        let pick = choose_config(&configs, &run.stats(), scans);
        run.launch(Launch::whole(pool[pick].0))
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
    fn variants(&self, kernel: &crate::ir::Kernel) -> Option<super::Variants> {
        let mut kernels = Vec::new();
        for config in candidates(kernel.config.block_size) {
            let mut k = kernel.clone();
            k.name = format!("{}_{}", kernel.name, config.short_name());
            k.config = config;
            // `thread` lowers every body, so there is always a candidate.
            if config.lowering().check(&k).is_ok() {
                kernels.push(k);
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

/// What the choice looks at: sizes a tile set knows without touching the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileStats {
    pub tiles: u64,
    pub atoms: u64,
    /// Atoms of the largest tile.
    pub max_tile_atoms: u64,
    /// The longest run of consecutive empty tiles: what one thread of `work_oriented` may have to
    /// step through besides its atoms.
    pub longest_empty_run: u64,
}

impl TileStats {
    /// The launch shape: tiles and atoms.
    pub fn shape(&self) -> super::TileSetShape {
        super::TileSetShape {
            tiles: self.tiles,
            atoms: self.atoms,
        }
    }
}

/// The schedules an `auto` kernel is emitted under, in this order (those the body cannot be lowered
/// under are left out at compile time): every schedule [`preferred`] can name.
pub fn candidates(block_size: u32) -> Vec<ScheduleConfig> {
    let schedules = [
        Schedule::Thread,
        Schedule::Group { group_size: 2 },
        Schedule::Group { group_size: 4 },
        Schedule::Group { group_size: 32 },
        // Not chosen by the rule: the stand-in for the merge path where a body cannot take it,
        // which needs the widest group for its longest tiles.
        Schedule::Group { group_size: 64 },
        Schedule::MergePath {
            items_per_thread: DEFAULT_ITEMS_PER_THREAD,
        },
        Schedule::WorkOriented {
            items_per_thread: DEFAULT_ITEMS_PER_THREAD,
        },
    ];
    // Groups the block can hold (the attribute's rules for `group_size`).
    let fits = |s: &Schedule| match *s {
        Schedule::Group { group_size: g } => {
            g <= block_size
                && (g <= 32
                    || g == block_size
                    || block_size / g <= super::group::MAX_GROUPS_WITH_BARRIERS)
        }
        _ => true,
    };
    schedules
        .into_iter()
        .filter(fits)
        .map(|schedule| ScheduleConfig {
            schedule,
            block_size,
        })
        .collect()
}

/// Below this many atoms a launch is dominated by its fixed latency (a few microseconds): the
/// merge path's extra phases cost more than its balance saves.
pub const SMALL_ATOMS: u64 = 200_000;

/// A tile longer than this keeps one warp busy for more than 256 steps: only the merge path
/// splits it.
pub const LONG_TILE: u64 = 8192;

/// Up to this many tiles, a warp each is at most 262,144 threads, one wave on an H100 (132 SMs of
/// 2,048): the launch takes the latency of one round of loads per tile, where a thread per tile
/// walks its atoms one after the other (H100, CUDA graphs of 20 launches: 1138_bus, 1,138 rows of
/// 3.6 entries, warp 1.8 us, thread 2.7; USPowerGrid, 4,941 rows, 2.0 and 3.4; Franz6, 10,592
/// rows, already 2.9 and 2.1).
pub const SMALL_TILES: u64 = 8192;

/// `work_oriented` gives each thread a fixed number of atoms and every tile that ends among them:
/// past this many empty tiles in a row, one thread may write that many results while the others
/// wait, and the merge path (which counts tiles as work) is the safer carry schedule. Not where
/// `work_oriented` runs a segmented scan (see [`choose_config`]).
pub const LONG_EMPTY_RUN: u64 = 32;

/// The schedule the rule wants for this shape, before looking at what was emitted.
///
/// Measured on an H100 (benchmark of the generated set and 23 real matrices): up to 8,192 tiles, a
/// warp each ([`SMALL_TILES`]); tiles of up to 8 atoms on average run best one per thread (2-D grid, 5 per row: thread 0.085 ms, group4 0.196);
/// regular tiles of 8 to 32 atoms in small groups (banded, 16 per row: group2 0.43 ms, group16
/// 0.69); long tiles a warp each (bcsstk13, 42 per row: warp 4.5 us, group8 10); a tile too long
/// for one warp on a carry schedule (R-MAT 21: merge path 0.44 ms, warp 0.91; arrow with a
/// 46,500-entry row: 20 us, warp 104), except on small sets where the longest tile is moderate
/// (Groebner, 174K entries: warp 5.6 us, merge path 14.7). The carry schedule is `work_oriented`
/// (the block's atoms are loaded before its range of tiles is known) unless long runs of empty
/// tiles would pile up on single threads, then the merge path (H100, same run: arrow 1M
/// work_oriented 0.031 ms, merge path 0.035; power-law 2M 0.377 and 0.402; R-MAT 21, whose
/// unpermuted labels leave long runs of empty rows, 0.676 and 0.436).
pub fn preferred(stats: &TileStats) -> Schedule {
    let TileStats {
        tiles,
        atoms,
        max_tile_atoms,
        longest_empty_run,
    } = *stats;
    if tiles == 0 || atoms == 0 {
        return Schedule::Thread;
    }
    let mean = atoms as f64 / tiles as f64;
    // One tile far longer than the mean would leave its group (and its block) working long after
    // the others: only the merge path cuts it.
    let skewed = max_tile_atoms as f64 > 64.0 * mean.max(1.0) && max_tile_atoms > 4096;
    if skewed || mean > 32.0 {
        // A warp per tile while the longest tile takes a warp a few hundred steps at most, or the
        // set is too small for the merge path's phases to pay off.
        if max_tile_atoms <= LONG_TILE || (atoms < SMALL_ATOMS && max_tile_atoms <= 4 * LONG_TILE) {
            return Schedule::Group { group_size: 32 };
        }
        let items_per_thread = DEFAULT_ITEMS_PER_THREAD;
        if longest_empty_run <= LONG_EMPTY_RUN {
            return Schedule::WorkOriented { items_per_thread };
        }
        return Schedule::MergePath { items_per_thread };
    }
    if tiles <= SMALL_TILES {
        return Schedule::Group { group_size: 32 };
    }
    // Up to 8 atoms a tile, one thread each (uniform 20K rows of 8, graph-timed: thread 3.0 us,
    // group2 3.6).
    if mean <= 8.0 {
        return Schedule::Thread;
    }
    // A group of about an eighth of the mean tile: each lane reads runs of several atoms.
    let group_size = ((mean / 8.0).ceil() as u32)
        .next_power_of_two()
        .clamp(2, 32);
    Schedule::Group { group_size }
}

/// The index in `candidates` of the schedule to launch: the preferred one if it was emitted, else the
/// closest that was: for `work_oriented`, the merge path; for a group, the group of the nearest
/// size; for the merge path (a body the carry fix-up cannot take), the widest group (SSSP on R-MAT 22 over a frontier, measured when
/// subsets could not take the merge path: group64 3.75 ms, warp 5.64; the merge path now takes
/// 2.47); else the first candidate.
pub fn choose(candidates: &[Schedule], stats: &TileStats) -> usize {
    let mut want = preferred(stats);
    if let Some(i) = candidates.iter().position(|c| *c == want) {
        return i;
    }
    if let Schedule::WorkOriented { items_per_thread } = want {
        want = Schedule::MergePath { items_per_thread };
        if let Some(i) = candidates.iter().position(|c| *c == want) {
            return i;
        }
    }
    let group_distance = |c: &Schedule| match (c, want) {
        (Schedule::Group { group_size: g }, Schedule::Group { group_size: w }) => {
            Some(g.ilog2().abs_diff(w.ilog2()))
        }
        (Schedule::Group { group_size: g }, _) => Some(u32::MAX - g),
        _ => None,
    };
    candidates
        .iter()
        .enumerate()
        .filter_map(|(i, c)| group_distance(c).map(|d| (d, i)))
        .min()
        .map(|(_, i)| i)
        .unwrap_or(0)
}

/// [`choose`] over emitted candidates (what an `auto` kernel's `choose` calls on each launch).
/// `work_oriented_scans`: the kernel's `work_oriented` candidate runs its tiles as a segmented scan
/// (every accumulator folds one staged operand), where a block's threads take the tiles ending in
/// it in turn: runs of empty tiles cost it nothing, so [`LONG_EMPTY_RUN`] does not apply (H100,
/// R-MAT 21: `work_oriented` 0.274 ms, merge path 0.303).
pub fn choose_config(
    candidates: &[ScheduleConfig],
    stats: &TileStats,
    work_oriented_scans: bool,
) -> usize {
    let schedules: Vec<Schedule> = candidates.iter().map(|c| c.schedule).collect();
    let stats = TileStats {
        longest_empty_run: if work_oriented_scans {
            0
        } else {
            stats.longest_empty_run
        },
        ..*stats
    };
    choose(&schedules, &stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(tiles: u64, atoms: u64, max: u64) -> TileStats {
        TileStats {
            tiles,
            atoms,
            max_tile_atoms: max,
            longest_empty_run: 0,
        }
    }

    fn with_empty_run(stats: TileStats, run: u64) -> TileStats {
        TileStats {
            longest_empty_run: run,
            ..stats
        }
    }

    fn all() -> Vec<Schedule> {
        candidates(256).into_iter().map(|c| c.schedule).collect()
    }

    #[test]
    fn candidates_fit_the_block() {
        let small: Vec<Schedule> = candidates(32).into_iter().map(|c| c.schedule).collect();
        assert!(!small.contains(&Schedule::Group { group_size: 64 }));
        assert!(small.contains(&Schedule::Group { group_size: 32 }));
        assert!(all().contains(&Schedule::Group { group_size: 64 }));
    }

    #[test]
    fn shapes_get_their_schedules() {
        let mp = Schedule::MergePath {
            items_per_thread: DEFAULT_ITEMS_PER_THREAD,
        };
        let wo = Schedule::WorkOriented {
            items_per_thread: DEFAULT_ITEMS_PER_THREAD,
        };
        assert_eq!(preferred(&stats(0, 0, 0)), Schedule::Thread);
        assert_eq!(preferred(&stats(10, 0, 0)), Schedule::Thread);
        // One dense row in a million sparse ones: work_oriented, unless long runs of empty rows
        // would land on single threads.
        let arrow = stats(1 << 20, 4 << 20, 1 << 20);
        assert_eq!(preferred(&arrow), wo);
        assert_eq!(preferred(&with_empty_run(arrow, LONG_EMPTY_RUN)), wo);
        assert_eq!(preferred(&with_empty_run(arrow, LONG_EMPTY_RUN + 1)), mp);
        // ... unless its candidate runs a segmented scan, where empty tiles cost nothing.
        let configs = candidates(256);
        let long_run = with_empty_run(arrow, LONG_EMPTY_RUN + 1);
        assert_eq!(
            configs[choose_config(&configs, &long_run, false)].schedule,
            mp
        );
        assert_eq!(
            configs[choose_config(&configs, &long_run, true)].schedule,
            wo
        );
        // Banded, 16 per row.
        assert_eq!(
            preferred(&stats(1 << 23, 16 << 23, 16)),
            Schedule::Group { group_size: 2 }
        );
        // 2-D grid, 5 per row.
        assert_eq!(preferred(&stats(1 << 22, 5 << 22, 5)), Schedule::Thread);
        // Long rows: a warp each, unless one is too long for a warp.
        assert_eq!(
            preferred(&stats(10_000, 1_000_000, 300)),
            Schedule::Group { group_size: 32 }
        );
        assert_eq!(preferred(&stats(10_000, 1_000_000, 100_000)), wo);
        // Small and skewed: a warp while the longest row is moderate (Groebner-like), the merge
        // path past that (arrow-like).
        assert_eq!(
            preferred(&stats(5000, 170_000, 20_000)),
            Schedule::Group { group_size: 32 }
        );
        assert_eq!(preferred(&stats(46_500, 139_500, 46_500)), wo);
        // 24 per row: groups of 4.
        assert_eq!(
            preferred(&stats(100_000, 2_400_000, 30)),
            Schedule::Group { group_size: 4 }
        );
        // Nearly one entry per row; 8 per row.
        assert_eq!(preferred(&stats(100_000, 120_000, 3)), Schedule::Thread);
        assert_eq!(preferred(&stats(20_000, 160_000, 8)), Schedule::Thread);
        // Few tiles: a warp each, whatever their sizes, unless one needs a carry schedule.
        let warp = Schedule::Group { group_size: 32 };
        assert_eq!(preferred(&stats(SMALL_TILES, 3 * SMALL_TILES, 5)), warp);
        assert_eq!(
            preferred(&stats(SMALL_TILES + 1, 3 * SMALL_TILES, 5)),
            Schedule::Thread
        );
        assert_eq!(preferred(&stats(1000, 1200, 3)), warp);
        assert_eq!(preferred(&stats(1000, 100_000, 90_000)), wo);
    }

    #[test]
    fn a_missing_candidate_falls_back_to_the_nearest_group() {
        let arrow = stats(1 << 20, 4 << 20, 1 << 20);
        // Without work_oriented: the merge path; without either carry schedule: the widest group.
        let without_work_oriented: Vec<Schedule> = all()
            .into_iter()
            .filter(|s| !matches!(s, Schedule::WorkOriented { .. }))
            .collect();
        assert_eq!(
            without_work_oriented[choose(&without_work_oriented, &arrow)],
            Schedule::MergePath {
                items_per_thread: DEFAULT_ITEMS_PER_THREAD
            }
        );
        let without_carry: Vec<Schedule> = without_work_oriented
            .into_iter()
            .filter(|s| !matches!(s, Schedule::MergePath { .. }))
            .collect();
        let i = choose(&without_carry, &arrow);
        assert_eq!(without_carry[i], Schedule::Group { group_size: 64 });
        let banded = stats(1 << 23, 16 << 23, 16);
        let only = [Schedule::Thread, Schedule::Group { group_size: 8 }];
        assert_eq!(
            only[choose(&only, &banded)],
            Schedule::Group { group_size: 8 }
        );
        assert_eq!(choose(&[Schedule::Thread], &banded), 0);
        assert_eq!(
            all()[choose(&all(), &banded)],
            Schedule::Group { group_size: 2 }
        );
    }
}

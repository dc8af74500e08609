//! `auto`'s cost model: an estimate of what each candidate schedule costs on a tile set, from the
//! distribution of its tile sizes (not from its mean alone), used to rank the candidates. The
//! runtime times the few best on the tile set the first time a kernel meets it (see
//! [`super::Auto`]), so the model has to put the fastest among its first few, not to be exact;
//! where nothing is timed (tile subsets, which change at every level of a traversal; `LOOPS_TUNE=off`)
//! its first choice runs.
//!
//! A launch costs the larger of three things, plus its fixed latency:
//! - the *critical path*: the longest tile, walked by one group of `g` lanes in `ceil(len / g)`
//!   dependent steps (a thread per tile on a 3,000-atom row is 0.13 ms however few the other rows
//!   are); the carry schedules cut tiles, so theirs is one thread's share of atoms;
//! - the *issue* time: warp steps, counting the lanes a warp idles while its longest tile finishes
//!   (a warp of 32 tiles takes as many steps as the longest of them: the expected maximum of 32
//!   draws from the size histogram), at the rate the SMs issue them;
//! - the *memory* time: the bytes of the tiles, at the bandwidth their access pattern gets (lanes
//!   of a small group read their tiles' atoms from separate lines, so part of each line is wasted
//!   where tiles are long).
//!
//! The constants are an H100's, scaled by the SM count the device reports; the measurements they
//! come from are in `examples/bench/README.md` (tuning log).

use super::TileStats;
use crate::schedule::lrb::BINS;
use crate::schedule::{DeviceLimits, ScheduleConfig};

/// The model's constants (H100; the latencies do not scale with the device, the rates scale with
/// its SM count).
#[derive(Clone, Copy, Debug)]
pub struct Costs {
    /// Fixed cost of one launch, in microseconds.
    pub launch_us: f64,
    /// Extra fixed cost of a carry schedule's partition search and fix-up, in microseconds.
    pub carry_us: f64,
    /// One dependent step of a lane through its tile (load an atom, gather, accumulate), in
    /// nanoseconds.
    pub step_ns: f64,
    /// The same step in a body that calls atomics (a traversal's relaxation: H100, BFS on a
    /// 100K-vertex power-law graph, a thread per vertex 5.9 ms over 6 levels whose longest tile
    /// has 8,722 atoms, about 250 ns a step against SpMV's 45).
    pub atomic_step_ns: f64,
    /// Warp steps the whole device issues per nanosecond.
    pub warp_steps_per_ns: f64,
    /// Bytes per nanosecond the device streams (per-atom traffic of the kernel, gathers included).
    pub bytes_per_ns: f64,
    /// Bytes each atom costs (its index, its value, its share of the gather).
    pub bytes_per_atom: f64,
    /// Bytes each tile costs (its offsets and its result).
    pub bytes_per_tile: f64,
    /// The SM count these constants were measured with.
    pub sm_count: f64,
}

/// The constants measured on an H100 (see the module docs).
pub const H100: Costs = Costs {
    launch_us: 1.5,
    carry_us: 1.2,
    step_ns: 45.0,
    atomic_step_ns: 250.0,
    warp_steps_per_ns: 40.0,
    bytes_per_ns: 2500.0,
    bytes_per_atom: 12.0,
    bytes_per_tile: 8.0,
    sm_count: 132.0,
};

/// What besides the tile sizes a call's costs depend on.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    /// The device's limits (the rates scale with its SM count; 0 SMs: an H100's).
    pub limits: DeviceLimits,
    /// The kernel's `work_oriented` runs its tiles as a segmented scan: empty tiles cost it
    /// nothing.
    pub scans: bool,
    /// The call runs over a list of tiles (a frontier): the carry schedules first prefix-sum the
    /// listed tiles' sizes, three small kernels and a read-back per call.
    pub over_list: bool,
    /// The body calls atomics: a lane's step waits on a read-modify-write.
    pub atomics: bool,
}

/// Microseconds of the prefix sum a carry schedule computes over a tile list before each launch:
/// three launches and a read-back of the total, which waits for the stream (H100, SSSP on a 1M-vertex
/// power-law graph: merge_path 1.82 ms against a group of 64's 1.29 over 12 levels, 44 us a level).
const LIST_PREFIX_US: f64 = 40.0;

/// A representative size of the tiles of bin `b` (sizes `2^(b-1)+1 ..= 2^b`; bin 0: 0 and 1).
fn bin_size(b: usize, stats: &TileStats) -> f64 {
    if b == 0 {
        let ones = stats.histogram[0].saturating_sub(stats.empty_tiles);
        let n = stats.histogram[0].max(1);
        return ones as f64 / n as f64;
    }
    let upper = (1u64 << b) as f64;
    (0.75 * upper).min(stats.max_tile_atoms.max(1) as f64)
}

/// The expected largest of `draws` independent values of `cost(size)` over tiles drawn from the
/// histogram (`cost` non-decreasing in the size).
fn expected_max(stats: &TileStats, draws: u32, cost: impl Fn(f64) -> f64) -> f64 {
    let total = stats.histogram.iter().sum::<u64>();
    if total == 0 {
        return 0.0;
    }
    let mut below = 0u64;
    let mut prev = 0.0;
    let mut e = 0.0;
    for b in 0..BINS {
        let count = stats.histogram[b];
        if count == 0 {
            continue;
        }
        below += count;
        let cdf = (below as f64 / total as f64).powi(draws as i32);
        e += cost(bin_size(b, stats)) * (cdf - prev);
        prev = cdf;
    }
    e
}

/// The mean of `cost(size)` over the histogram's tiles.
fn expected(stats: &TileStats, cost: impl Fn(f64) -> f64) -> f64 {
    let total = stats.histogram.iter().sum::<u64>();
    if total == 0 {
        return 0.0;
    }
    let sum: f64 = (0..BINS)
        .filter(|&b| stats.histogram[b] > 0)
        .map(|b| stats.histogram[b] as f64 * cost(bin_size(b, stats)))
        .sum();
    sum / total as f64
}

/// Steps of a group of `g` lanes through a tile of `size` atoms: its atoms in turn, the reduction
/// across the group, and the tile's own loads and store.
fn tile_steps(size: f64, g: u32) -> f64 {
    (size / g as f64).ceil() + (g as f64).log2() + 2.0
}

/// What one estimate sees: the tile sizes, the setting, the constants, and what follows from them.
/// A schedule's unit estimates its own time from it ([`crate::schedule::ScheduleUnit::estimate_ns`]), mostly with
/// one of the two families' formulas here: [`tiles_ns`] (a group of lanes per tile) and
/// [`shares_ns`] (equal shares of work per thread, cut tiles carried).
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    pub stats: &'a TileStats,
    pub setting: Setting,
    pub costs: &'a Costs,
    /// One dependent step (the atomic one where the body calls atomics), in nanoseconds.
    pub step_ns: f64,
    /// Warp steps issued per nanosecond, scaled to the device.
    pub issue_rate: f64,
    /// Bytes per nanosecond, scaled to the device.
    pub bandwidth: f64,
    pub tiles: f64,
    pub atoms: f64,
    /// The bytes of the tile set's atoms and tiles.
    pub bytes: f64,
}

impl<'a> Input<'a> {
    pub fn new(stats: &'a TileStats, setting: Setting, costs: &'a Costs) -> Self {
        let limits = setting.limits;
        let step_ns = if setting.atomics {
            costs.atomic_step_ns
        } else {
            costs.step_ns
        };
        let scale = if limits.sm_count == 0 {
            1.0
        } else {
            limits.sm_count as f64 / costs.sm_count
        };
        let tiles = stats.tiles as f64;
        let atoms = stats.atoms as f64;
        Input {
            stats,
            setting,
            costs,
            step_ns,
            issue_rate: costs.warp_steps_per_ns * scale,
            bandwidth: costs.bytes_per_ns * scale,
            tiles,
            atoms,
            bytes: atoms * costs.bytes_per_atom + tiles * costs.bytes_per_tile,
        }
    }
}

/// Nanoseconds of a launch that gives every tile a group of `g` lanes (`thread`: 1, `group`).
pub fn tiles_ns(input: &Input, g: u32) -> f64 {
    let Input {
        stats,
        step_ns,
        issue_rate,
        bandwidth,
        tiles,
        bytes,
        ..
    } = *input;
    let mean = stats.mean();
    let per_warp = (32 / g).max(1);
    let critical = tile_steps(stats.max_tile_atoms as f64, g) * step_ns;
    let warp_steps = if g <= 32 {
        // A warp's tiles in lockstep: as long as the longest of them.
        tiles / per_warp as f64 * expected_max(stats, per_warp, |size| tile_steps(size, g))
    } else {
        // A tile's warps: those past its atoms find no work (a step), the others walk.
        let warps = (g / 32) as f64;
        tiles
            * expected(stats, |size| {
                let active = (size / 32.0).ceil().min(warps);
                (warps - active) + active * tile_steps(size, g)
            })
    };
    let issue = warp_steps / issue_rate;
    // A lane of a small group reads `g` consecutive atoms per step: under 8 lanes, the
    // rest of each 32-byte sector waits in L1 for its next steps. Short tiles' sectors are
    // used up by the lanes of neighbouring tiles within a few steps; past 16 atoms a tile,
    // more of them are evicted first (half at 64 and more).
    let spread = if g < 8 {
        let used = g as f64 / 8.0;
        let kept = (1.0 - (mean - 16.0) / 96.0).clamp(0.5, 1.0);
        1.0 / (used + kept * (1.0 - used))
    } else {
        1.0
    };
    let memory = bytes * spread / bandwidth;
    critical.max(issue).max(memory)
}

/// How a schedule that gives every thread an equal share of work (cutting tiles, carried by the
/// fix-up) differs from the next one: the input of [`shares_ns`].
#[derive(Clone, Copy, Debug)]
pub struct Shares {
    /// Items per thread.
    pub items_per_thread: u32,
    /// The items shared out (the atoms; the merge path's are the atoms and the tiles).
    pub work: f64,
    /// Nanoseconds one thread may spend stepping through a run of empty tiles.
    pub empty_walk_ns: f64,
    /// Bytes read besides the tile set's own (the merge path reads the offsets once more).
    pub extra_bytes: f64,
}

impl Shares {
    /// Shares of `items_per_thread` atoms, nothing else.
    pub fn of_atoms(input: &Input, items_per_thread: u32) -> Self {
        Shares {
            items_per_thread,
            work: input.atoms,
            empty_walk_ns: 0.0,
            extra_bytes: 0.0,
        }
    }
}

/// Nanoseconds of a launch that gives every thread an equal share of work ([`Shares`]), with the
/// carry schedules' fixed costs (and, over a list, the prefix sum of its tiles' sizes).
pub fn shares_ns(input: &Input, shares: Shares) -> f64 {
    let ipt = shares.items_per_thread.max(1) as f64;
    let critical = (ipt + 16.0) * input.step_ns + shares.empty_walk_ns;
    let issue = (shares.work / 32.0) * 1.5 / input.issue_rate;
    let memory = (input.bytes * 1.05 + shares.extra_bytes) / input.bandwidth;
    let list_prefix = if input.setting.over_list {
        LIST_PREFIX_US
    } else {
        0.0
    };
    critical.max(issue).max(memory) + (input.costs.carry_us + list_prefix) * 1000.0
}

/// The estimated time of one call under `config`, in microseconds: its unit's estimate
/// ([`crate::schedule::ScheduleUnit::estimate_ns`]) and the launch's latency.
pub fn estimate_us(
    config: ScheduleConfig,
    stats: &TileStats,
    setting: Setting,
    costs: &Costs,
) -> f64 {
    let input = Input::new(stats, setting, costs);
    let ns = config.schedule.unit().estimate_ns(config.schedule, &input);
    costs.launch_us + ns / 1000.0
}

/// The candidates in order of their estimates, cheapest first (ties keep `configs`' order).
pub fn rank(configs: &[ScheduleConfig], stats: &TileStats, setting: Setting) -> Vec<usize> {
    let est: Vec<f64> = configs
        .iter()
        .map(|&c| estimate_us(c, stats, setting, &H100))
        .collect();
    let mut order: Vec<usize> = (0..configs.len()).collect();
    order.sort_by(|&a, &b| est[a].total_cmp(&est[b]).then(a.cmp(&b)));
    order
}

/// At most `k` candidates worth timing, best estimate first: the model's best, the best of the
/// other family (tile-mapped or carry: the model's largest errors are between the two), then the
/// next best estimates.
pub fn shortlist(
    configs: &[ScheduleConfig],
    stats: &TileStats,
    setting: Setting,
    k: usize,
) -> Vec<usize> {
    let order = rank(configs, stats, setting);
    let Some(&first) = order.first() else {
        return Vec::new();
    };
    let carry = |i: usize| configs[i].schedule.lanes().is_none();
    let mut picked = vec![first];
    if let Some(&other) = order.iter().find(|&&i| carry(i) != carry(first)) {
        picked.push(other);
    }
    for &i in &order {
        if picked.len() >= k.max(1) {
            break;
        }
        if !picked.contains(&i) {
            picked.push(i);
        }
    }
    picked.truncate(k.max(1));
    // Best estimate first.
    picked.sort_by_key(|i| order.iter().position(|o| o == i));
    picked
}

//! Running a generated kernel: one call of a `#[load_balanced]` wrapper is one [`Gpu::run`], which
//! carries out the schedule's plan ([`ScheduleUnit::plan`](kernels_gen::schedule::ScheduleUnit::plan)).
//!
//! The plan is the schedule's (in `kernels-gen`): launch the kernel once, or choose one of
//! `auto`'s candidates, or bin the tiles and launch `lrb`'s mappings, or launch `hierarchical`'s
//! passes one after another. This file gives it what it
//! may look at and do ([`Launcher`]) and turns each of its launches into one
//! [`Gpu::launch`] of a variant, with the arguments its hidden parameters ask for
//! ([`kernels_gen::abi`]): the runtime knows those parameters, not the schedules.

use kernels_gen::abi::{self, Hidden};
use kernels_gen::schedule::auto::{model, TileStats};
use kernels_gen::schedule::lrb::BINS;
use kernels_gen::schedule::{DeviceLimits, Launch, Launcher, ScheduleConfig, Stop, Tiles, Variant};

use crate::device::{DeviceBuffer, Gpu};
use crate::error::{LoopsError, Result};
use crate::formats::{subset_shape, TileSet};
use crate::launch::binning::{SubsetIds, TileBins};
use crate::launch::preprocess::Preprocessed;
use crate::launch::subset::TileId;
use crate::launch::{checked_mode, checked_mode_asked, KernelArgs, KernelSpec};

mod tuning;

/// Past this many atoms a tile keeps one warp busy for more than 8 steps: a subset of a set with
/// such tiles has its sizes counted before `auto` chooses.
const WARP_TILE: u64 = 256;

/// Subsets of at least this many tiles have their sizes counted on the device (see
/// `Plan::subset_stats`).
const COUNTED_SUBSET: u64 = 1 << 16;

/// A generated kernel, as its wrapper's `KERNEL` constant describes it: its sources, the variants
/// they hold, and its schedule (whose plan a call carries out).
#[derive(Clone, Copy, Debug)]
pub struct KernelDesc {
    /// The kernel's name (the Rust function's).
    pub name: &'static str,
    /// The Rust source file of its body, for the errors of the checked variant.
    pub file: &'static str,
    /// The schedule the attribute names.
    pub config: ScheduleConfig,
    /// Every variant's entry points.
    pub source: &'static str,
    /// The same, bounds-checked.
    pub checked_source: &'static str,
    /// The 64-bit-offsets instantiation of the variants with [`Variant::wide`], plain and
    /// checked.
    pub wide_sources: Option<(&'static str, &'static str)>,
    /// The variants the sources hold, in the order the schedule's plan names them.
    pub variants: &'static [Variant],
    /// What each bounds-check site code of the checked source names.
    pub fault_sites: &'static [&'static str],
    /// Whether the entry points are per element type (`spmv__f32`).
    pub generic: bool,
    /// Why a tile set of more than `i32::MAX` atoms is refused, where [`Self::wide_sources`] is
    /// `None`.
    pub narrow_why: &'static str,
}

impl KernelDesc {
    /// The variants the schedule's plan launches for a call over a tile set with these
    /// statistics (`wide`: of more than `i32::MAX` atoms), where the host alone decides them
    /// (one launch of the kernel; `auto`'s choice). `None` where the plan needs the device to
    /// decide (`lrb` bins the tiles on the GPU).
    pub fn planned_variants(&self, stats: TileStats, wide: bool) -> Option<Vec<usize>> {
        let mut dry = DryRun {
            kernel: self,
            stats,
            wide,
            launched: Vec::new(),
        };
        match self.config.schedule.unit().plan(self.config, &mut dry) {
            Ok(()) => Some(dry.launched),
            Err(Stop) => None,
        }
    }
}

/// The lanes (a power of two) that take nine tiles in ten of `stats` through their atoms in one
/// step: the upper end of the size bin where 90% of the tiles are reached.
fn one_step_lanes(stats: &TileStats) -> u32 {
    let wanted = stats.tiles - stats.tiles / 10;
    let mut seen = 0;
    for (bin, &count) in stats.histogram.iter().enumerate() {
        seen += count;
        if seen >= wanted {
            return 1u32 << bin.min(31);
        }
    }
    1
}

impl KernelDesc {
    /// The variant that runs a call over a tile list whose length lives on the device (the
    /// frontier of a [`crate::graph::FrontierLoop`]), over a tile set with these statistics
    /// (`wide`: of more than `i32::MAX` atoms): `None` for the kernel's own plan, where its schedule
    /// takes the length from the device ([`abi::takes_device_list_len`]: one grid-stride launch);
    /// under `auto`, the candidate of those that its model ranks first for the whole set's
    /// statistics (the graph's degrees), the same at every level; an error naming the schedule for
    /// the others, which size their launches on the host from the list.
    pub fn device_list_variant(
        &self,
        stats: TileStats,
        wide: bool,
        limits: DeviceLimits,
    ) -> Result<Option<usize>> {
        let schedule = self.config.schedule;
        if abi::takes_device_list_len(schedule) {
            return Ok(None);
        }
        if !schedule.unit().picks_a_variant() {
            return Err(self.not_in_device_loop(self.config));
        }
        let pool: Vec<(usize, ScheduleConfig)> = self
            .variants
            .iter()
            .enumerate()
            .filter(|(_, v)| {
                v.over_list && abi::takes_device_list_len(v.config.schedule) && (!wide || v.wide)
            })
            .map(|(i, v)| (i, v.config))
            .collect();
        let setting = model::Setting {
            limits,
            scans: false,
            over_list: true,
            atomics: self.variants.iter().any(|v| v.atomics),
        };
        let configs: Vec<ScheduleConfig> = pool.iter().map(|&(_, c)| c).collect();
        // A level runs a frontier, not the graph. Ranked on the whole graph a thread per vertex
        // wins on throughput, but most levels of a long traversal (a road network's, a grid's)
        // are a few thousand vertices, and their time is a lane's chain of dependent steps
        // through its vertex's edges (H100, BFS on the 2048 x 2048 grid, degree 5: a thread per
        // vertex 9.7 us a level, 2 lanes 9.0, a warp 7.2). So the model ranks the candidates on a
        // frontier of at most one vertex per resident warp with the graph's degrees (which keeps
        // its choice for long tiles), and the choice gets at least the lanes that take nine
        // vertices in ten through their edges in one step.
        let resident_warps =
            (limits.sm_count as u64 * limits.max_threads_per_sm as u64 / 32).max(1);
        let frontier = stats.scaled_to(stats.tiles.min(resident_warps));
        let Some(&best) = model::shortlist(&configs, &frontier, setting, 1).first() else {
            return Err(self.not_in_device_loop(self.config));
        };
        let lanes = |c: &ScheduleConfig| c.schedule.lanes().unwrap_or(1);
        let floor = one_step_lanes(&stats);
        if lanes(&configs[best]) >= floor {
            return Ok(Some(pool[best].0));
        }
        // The fewest lanes at or past the floor, else the most there are.
        let wider = pool
            .iter()
            .filter(|(_, c)| lanes(c) >= floor)
            .min_by_key(|(_, c)| lanes(c))
            .or_else(|| pool.iter().max_by_key(|(_, c)| lanes(c)));
        Ok(wider.map(|&(i, _)| i))
    }

    /// Whether a call over a list whose length lives on the device can run this kernel
    /// ([`KernelDesc::device_list_variant`]): its schedule takes the length from the device, or it
    /// is `auto` with a candidate that does.
    pub fn runs_in_device_loop(&self) -> bool {
        abi::takes_device_list_len(self.config.schedule)
            || (self.config.schedule.unit().picks_a_variant()
                && self
                    .variants
                    .iter()
                    .any(|v| v.over_list && abi::takes_device_list_len(v.config.schedule)))
    }

    /// Why a variant of `config` cannot run over a list whose length lives on the device.
    fn not_in_device_loop(&self, config: ScheduleConfig) -> LoopsError {
        let why = config.schedule.unit().why_not_in_device_loop();
        LoopsError::LoopOnDevice {
            kernel: self.name.to_string(),
            detail: format!(
                "schedule `{}` cannot run over a frontier whose size only the device knows: {why}; \
                 the device loop runs the schedules thread, group, warp and block, and auto (which \
                 picks one of its thread and group candidates)",
                config.name()
            ),
        }
    }
}

/// A plan carried out on the host: records the variants it would launch.
struct DryRun<'k> {
    kernel: &'k KernelDesc,
    stats: TileStats,
    wide: bool,
    launched: Vec<usize>,
}

impl Launcher for DryRun<'_> {
    fn variants(&self) -> &[Variant] {
        self.kernel.variants
    }
    fn stats(&self) -> TileStats {
        self.stats
    }
    fn call_stats(&mut self) -> std::result::Result<TileStats, Stop> {
        Ok(self.stats)
    }
    fn is_wide(&self) -> bool {
        self.wide
    }
    fn limits(&self) -> DeviceLimits {
        DeviceLimits {
            sm_count: 0,
            max_threads_per_sm: 0,
            l2_bytes: 0,
        }
    }
    /// Any piece size: the choice of variant does not depend on it.
    fn tile_set_mdt(&self) -> u64 {
        1
    }
    /// Binning needs the device.
    fn bin(&mut self) -> std::result::Result<[u32; BINS + 1], Stop> {
        Err(Stop)
    }
    fn launch(&mut self, launch: Launch) -> std::result::Result<(), Stop> {
        self.launched.push(launch.variant);
        Ok(())
    }
}

/// The tile set one call of a kernel runs over: the tile loop's set, and the list of its tiles
/// where the loop is `set.tiles_in(list)`.
#[derive(Clone, Copy)]
pub struct Call<'a> {
    set_name: &'static str,
    set: &'a dyn TileSet,
    subset: Option<SubsetIds<'a>>,
    /// The calling crate's `cfg!(debug_assertions)`: the default of [`checked_mode`].
    debug: bool,
}

impl<'a> Call<'a> {
    /// A call over the whole of `set` (the parameter named `set_name`); `debug` is the calling
    /// crate's `cfg!(debug_assertions)`, which decides whether the checked variant runs
    /// ([`checked_mode`]).
    pub fn new<S: TileSet>(set_name: &'static str, set: &'a S, debug: bool) -> Self {
        Call {
            set_name,
            set,
            subset: None,
            debug,
        }
    }

    /// The call runs over the tiles of `list` only.
    pub fn subset<I: TileId>(mut self, list: &'a DeviceBuffer<I>) -> Self {
        self.subset = Some(SubsetIds::from(list));
        self
    }
}

/// [`LoopsError::WideUnsupported`] for tile-set parameter `param` of `kernel` where it has 64-bit
/// offsets (more than `i32::MAX` atoms) and may not: the tile loop's set (`loop_set`) where no
/// variant of the kernel has a 64-bit-offsets instantiation, any other set always. The wrapper
/// checks every tile-set parameter before anything else.
pub fn check_wide<S: TileSet + ?Sized>(
    kernel: &KernelDesc,
    param: &str,
    set: &S,
    loop_set: bool,
) -> Result<()> {
    let why = match (set.is_wide(), loop_set, kernel.wide_sources) {
        (false, _, _) | (true, true, Some(_)) => return Ok(()),
        (true, true, None) => kernel.narrow_why,
        (true, false, _) => "only the tile loop's set may have 64-bit offsets",
    };
    Err(LoopsError::WideUnsupported {
        kernel: kernel.name.to_string(),
        schedule: kernel.config.describe(),
        param: param.to_string(),
        atoms: set.num_atoms(),
        why: why.to_string(),
    })
}

impl Gpu {
    /// One call of a generated kernel: carries out its schedule's plan over `call`'s tiles, each
    /// launch with a copy of `args` (the user's arguments, pushed by the wrapper) and the hidden
    /// arguments of the variant it launches. Compiles each variant's source once per process (or
    /// reads it from the disk cache). Returns once the launches are queued, except where the plan
    /// reads back what it needs first (`lrb`'s bin counts, prefix sums over a subset) and in
    /// checked mode, which waits for each launch and reports the first out-of-range index.
    pub fn run<'a>(
        &self,
        kernel: &KernelDesc,
        key: &str,
        call: Call<'a>,
        args: KernelArgs<'a>,
    ) -> Result<()> {
        self.carry_out(kernel, None, key, call, args, false)
    }

    /// Variant `variant` of `kernel` alone, under its own schedule's plan (one launch, or the
    /// passes of `hierarchical`), outside the kernel's: for tests and benchmarks that run each of
    /// `auto`'s candidates. With `search_ranges`, the blocks of `merge_path` and `work_oriented`
    /// search the offsets for their ranges instead of reading the starts kept with the set. A
    /// variant of `lrb` (over its bin lists) cannot run alone over a whole set.
    pub fn run_variant<'a>(
        &self,
        kernel: &KernelDesc,
        variant: usize,
        key: &str,
        call: Call<'a>,
        args: KernelArgs<'a>,
        search_ranges: bool,
    ) -> Result<()> {
        let Some(v) = kernel.variants.get(variant) else {
            return Err(LoopsError::KernelArguments {
                kernel: kernel.name.to_string(),
                detail: format!(
                    "it has {} variants, not {}",
                    kernel.variants.len(),
                    variant + 1
                ),
            });
        };
        if v.over_list && call.subset.is_none() {
            return Err(LoopsError::KernelArguments {
                kernel: kernel.name.to_string(),
                detail: format!(
                    "variant `{}` runs over a list of tiles: launch the kernel",
                    v.name
                ),
            });
        }
        self.carry_out(kernel, Some(variant), key, call, args, search_ranges)
    }

    /// The plan of `kernel`'s schedule, or with `only`, that variant's own schedule's plan with
    /// every launch redirected to it.
    fn carry_out<'a>(
        &self,
        kernel: &KernelDesc,
        only: Option<usize>,
        key: &str,
        call: Call<'a>,
        args: KernelArgs<'a>,
        search_ranges: bool,
    ) -> Result<()> {
        check_wide(kernel, call.set_name, call.set, true)?;
        // Over the frontier of a device frontier loop: one grid-stride launch that reads the
        // list's length from the device, plain (a checked launch waits for its kernel).
        let device_list = call
            .subset
            .filter(|list| list.ptr() != 0)
            .and_then(|list| self.device_loop().filter(|d| d.list == list.ptr()));
        // Inside a device loop's step every launch is plain, over the frontier or not: a checked
        // launch waits for its kernel to read its fault record, which a launch being captured into
        // a CUDA graph cannot.
        if self.device_loop().is_some() && checked_mode_asked() == Some(true) {
            return Err(LoopsError::LoopOnDevice {
                kernel: kernel.name.to_string(),
                detail: "checked mode was asked for (LOOPS_CHECKED=1 or set_checked_mode), \
                         and a checked launch waits for its kernel to read its fault record, \
                         which a launch captured into a CUDA graph cannot: run it in \
                         FrontierLoop, or without checked mode"
                    .into(),
            });
        }
        let (only, checked, list_len) = match device_list {
            None if self.device_loop().is_some() => (only, false, None),
            None => (only, checked_mode(call.debug), None),
            Some(device) => {
                let only = match only {
                    Some(v) if abi::takes_device_list_len(kernel.variants[v].config.schedule) => {
                        Some(v)
                    }
                    Some(v) => return Err(kernel.not_in_device_loop(kernel.variants[v].config)),
                    None => kernel.device_list_variant(
                        call.set.stats(),
                        call.set.is_wide(),
                        self.limits(),
                    )?,
                };
                (only, false, Some(device.len))
            }
        };
        let mut plan = Plan {
            gpu: self,
            kernel,
            key,
            call,
            args,
            checked,
            list_len,
            search_ranges,
            only,
            bins: None,
            ids: None,
            state: None,
            error: None,
        };
        let config = only.map_or(kernel.config, |v| kernel.variants[v].config);
        match config.schedule.unit().plan(config, &mut plan) {
            Ok(()) => Ok(()),
            Err(Stop) => Err(plan
                .error
                .take()
                .unwrap_or_else(|| LoopsError::KernelArguments {
                    kernel: kernel.name.to_string(),
                    detail: "the schedule's plan stopped without an error".into(),
                })),
        }
    }
}

/// The bins of a call under `lrb`: kept with a whole tile set, or made for the call's subset.
enum Bins<'a> {
    Kept(&'a TileBins),
    Made(TileBins),
}

impl Bins<'_> {
    fn get(&self) -> &TileBins {
        match self {
            Bins::Kept(b) => b,
            Bins::Made(b) => b,
        }
    }
}

/// One call in progress: the [`Launcher`] a schedule's plan runs against.
struct Plan<'g, 'a> {
    gpu: &'g Gpu,
    kernel: &'g KernelDesc,
    key: &'g str,
    call: Call<'a>,
    args: KernelArgs<'a>,
    checked: bool,
    /// Where the device holds the length of the call's list (see [`crate::device::DeviceList`]).
    list_len: Option<cudarc::driver::sys::CUdeviceptr>,
    /// Leave out the kept block starts (see [`Gpu::run_variant`]).
    search_ranges: bool,
    /// Every launch runs this variant (see [`Gpu::run_variant`]).
    only: Option<usize>,
    bins: Option<Bins<'a>>,
    /// The tile ids of the binned order over a subset (over a whole set, the order itself).
    ids: Option<DeviceBuffer<u32>>,
    /// The per-tile state the launches of the call share ([`Hidden::TileState`]): the device's
    /// area ([`Gpu::tile_state_area`]), locked until the call's launches are queued.
    state: Option<std::sync::MutexGuard<'g, DeviceBuffer<u64>>>,
    error: Option<LoopsError>,
}

impl Plan<'_, '_> {
    /// Keeps `e` for the call to return and stops the plan.
    fn stop(&mut self, e: LoopsError) -> Stop {
        self.error = Some(e);
        Stop
    }

    /// The entry point of `variant` for the call's element type (`spmv_group4__f32`, and
    /// `__wide` on a wide set).
    fn entry(&self, variant: &Variant) -> String {
        let mut entry = if self.kernel.generic {
            format!("{}__{}", variant.name, self.key)
        } else {
            variant.name.to_string()
        };
        if self.call.set.is_wide() {
            entry.push_str("__wide");
        }
        entry
    }

    /// What [`Gpu::launch`] needs of `variant`: its source (plain or checked, narrow or wide)
    /// and its parameter count.
    fn spec(&self, variant: &Variant) -> KernelSpec {
        let k = self.kernel;
        let (plain, checked) = match (self.call.set.is_wide(), k.wide_sources) {
            (true, Some(wide)) => wide,
            _ => (k.source, k.checked_source),
        };
        let (schedule, over_list) = (variant.config.schedule, variant.over_list);
        let hidden = abi::hidden_params(schedule, over_list, variant.passes, self.checked);
        KernelSpec {
            name: k.name,
            source: if self.checked { checked } else { plain },
            config: variant.config,
            scratch_slots_per_block: variant.scratch_slots_per_block,
            dynamic_shared_bytes: variant.dynamic_shared_bytes,
            param_count: variant.user_params as usize + abi::count(&hidden),
            checked: self.checked,
            fault_sites: k.fault_sites,
            file: k.file,
            hidden: variant.schedule_hidden(),
        }
    }

    /// Atoms per piece of a variant that cuts tiles: its own, or the tile set's choice.
    fn mdt_of(&self, variant: &Variant) -> u64 {
        match variant
            .config
            .schedule
            .unit()
            .piece_atoms(variant.config.schedule)
        {
            Some(0) | None => self.call.set.split_mdt(),
            Some(mdt) => mdt as u64,
        }
    }

    /// The call's per-tile state: the device's area, taken (grown where it is too small) by the
    /// call's first launch, its header zeroed before the first pass of a call of several (a pass 0
    /// reads none of it: a call of one launch needs no memset, 1-3 us of `hierarchical`'s call on
    /// a small matrix), held until the call ends (so the launches of one call share it, and no
    /// other call on the handle touches it meanwhile; later calls on the stream run after this
    /// one's launches).
    fn tile_state(
        &mut self,
        variant: &Variant,
        tiles: u64,
        zero: bool,
    ) -> Result<cudarc::driver::sys::CUdeviceptr> {
        let slots =
            abi::STATE_HEADER_SLOTS + tiles as usize * variant.state_slots_per_tile as usize;
        if self.state.as_ref().is_none_or(|s| s.len() < slots) {
            // Released before it is taken again, grown.
            self.state = None;
            self.state = Some(self.gpu.tile_state_area(slots)?);
        }
        let ptr = self.state.as_ref().expect("allocated above").device_ptr();
        if zero {
            let what = format!("zeroing the tile state of kernel `{}`", self.kernel.name);
            self.gpu.zero_slots(ptr, abi::STATE_HEADER_SLOTS, &what)?;
        }
        Ok(ptr)
    }

    /// Launches `launch`; a variant that runs each atom loop of its tile body in a launch of its
    /// own ([`Variant::passes`]) is launched once per loop, passes `0..passes`, sharing the call's
    /// tile state.
    fn launch_variant(&mut self, launch: &Launch) -> Result<()> {
        let passes = self
            .kernel
            .variants
            .get(launch.variant)
            .map_or(1, |v| v.passes);
        if passes <= 1 || launch.pass.is_some() {
            return self.launch_pass(launch);
        }
        for pass in 0..passes {
            self.launch_pass(&Launch {
                pass: Some((pass, passes)),
                ..launch.clone()
            })?;
        }
        Ok(())
    }

    fn launch_pass(&mut self, launch: &Launch) -> Result<()> {
        let variant = *self.kernel.variants.get(launch.variant).ok_or_else(|| {
            LoopsError::KernelArguments {
                kernel: self.kernel.name.to_string(),
                detail: format!(
                    "the plan launched variant {}, of {}",
                    launch.variant,
                    self.kernel.variants.len()
                ),
            }
        })?;
        let set = self.call.set;
        let offsets = set.tile_offsets();
        // The schedule's own hidden parameters (a static list: no allocation per launch).
        let hidden = variant.schedule_hidden();
        let takes = |h: Hidden| hidden.contains(&h);
        let state = if takes(Hidden::TileState) {
            let positions = match (&launch.tiles, self.call.subset) {
                (Tiles::Binned(range), _) => range.len(),
                (Tiles::Call, Some(list)) => list.len(),
                (Tiles::Call, None) => set.num_tiles(),
            };
            let zero = launch
                .pass
                .is_none_or(|(pass, passes)| pass == 0 && passes > 1);
            Some(self.tile_state(&variant, positions as u64, zero)?)
        } else {
            None
        };
        let mut args = self.args.clone();
        let mut shape = set.shape();
        let whole_set = self.call.subset.is_none();
        match &launch.tiles {
            Tiles::Call => {
                if let Some(list) = self.call.subset {
                    // With its length on the device, the list's capacity sizes the grid.
                    args.list_len = self.list_len;
                    shape = subset_shape(self.kernel.name, shape, list.len())?;
                    if takes(Hidden::SubsetOffsets) {
                        args.tile_subset_ids(offsets, list);
                    }
                }
            }
            Tiles::Binned(range) => {
                self.bin_ids()?;
                let ids = self.binned_ids();
                args.slice_range(ids, range.clone());
                shape = subset_shape(self.kernel.name, shape, range.len())?;
                if takes(Hidden::SubsetOffsets) {
                    args.tile_subset_range(offsets, ids, range.clone());
                    if whole_set {
                        args.preprocessed(set.preprocessed());
                    }
                }
            }
        }
        if takes(Hidden::SplitPieces) {
            // The plan's piece size where it chooses one (`lrb`'s pieces on a small set).
            let mdt = launch.piece_atoms.unwrap_or_else(|| self.mdt_of(&variant));
            args.split_pieces(offsets, mdt);
            if whole_set {
                // The piece counts of a whole tile set do not change: the first launch keeps them.
                args.preprocessed(set.preprocessed());
            }
        }
        if takes(Hidden::BlockStarts) && !self.search_ranges {
            args.block_ranges(offsets).preprocessed(set.preprocessed());
        }
        if takes(Hidden::Mdt) && !takes(Hidden::SplitPieces) {
            args.mdt(launch.piece_atoms.unwrap_or_else(|| self.mdt_of(&variant)));
        }
        if takes(Hidden::Pass) {
            args.pass(launch.pass.unwrap_or((0, 1)));
        }
        args.tile_state = state;
        let spec = self.spec(&variant);
        let entry = self.entry(&variant);
        self.gpu.launch(&spec, &entry, shape, args)
    }

    /// Bins the call's tiles, if the plan has not, and over a subset finds the tile ids of the
    /// binned order.
    fn bin_ids(&mut self) -> Result<()> {
        if self.bins.is_none() {
            self.bin_tiles()?;
        }
        if let (Some(list), None, Some(bins)) = (self.call.subset, &self.ids, &self.bins) {
            let tiles = self.call.set.num_tiles();
            self.ids = Some(self.gpu.binned_tile_ids(bins.get(), tiles, list)?);
        }
        Ok(())
    }

    /// The tile ids of the binned order ([`Self::bin_ids`] first): over a whole set the order
    /// itself.
    fn binned_ids(&self) -> &DeviceBuffer<u32> {
        match &self.ids {
            Some(ids) => ids,
            None => &self.bins.as_ref().expect("binned first").get().order,
        }
    }

    /// The statistics of the call's tiles: the set's, or over a subset, the set's scaled to the
    /// subset's length (its length is known on the host; the set's longest tile bounds its
    /// sizes), except for a long subset of a set with tiles longer than [`WARP_TILE`], whose
    /// sizes are counted on the device (one kernel and a read-back, which a short frontier's
    /// level would feel: BFS on 100K-vertex power-law graphs takes 40 us a level).
    fn subset_stats(&mut self) -> Result<TileStats> {
        let set = self.call.set;
        let whole = set.stats();
        let Some(list) = self.call.subset else {
            return Ok(whole);
        };
        if whole.max_tile_atoms <= WARP_TILE || (list.len() as u64) < COUNTED_SUBSET {
            return Ok(whole.scaled_to(list.len() as u64));
        }
        let mut stats = self.gpu.subset_stats(set.tile_offsets(), list.list_arg())?;
        stats.longest_empty_run = whole.longest_empty_run.min(stats.tiles);
        Ok(stats)
    }

    fn bin_tiles(&mut self) -> Result<()> {
        let set = self.call.set;
        let tiles = set.num_tiles();
        self.bins = Some(match self.call.subset {
            None => Bins::Kept(
                set.preprocessed()
                    .bins(self.gpu, set.tile_offsets(), tiles)?,
            ),
            Some(list) => Bins::Made(self.gpu.bin_tiles(set.tile_offsets(), tiles, Some(list))?),
        });
        Ok(())
    }
}

impl Launcher for Plan<'_, '_> {
    fn variants(&self) -> &[Variant] {
        self.kernel.variants
    }

    fn stats(&self) -> TileStats {
        self.call.set.stats()
    }

    fn call_stats(&mut self) -> std::result::Result<TileStats, Stop> {
        self.subset_stats().map_err(|e| self.stop(e))
    }

    fn tune(&mut self, shortlist: &[usize]) -> std::result::Result<usize, Stop> {
        self.pick(shortlist).map_err(|e| self.stop(e))
    }

    fn prepare(&mut self, variants: &[usize]) -> std::result::Result<(), Stop> {
        self.compile_variants(variants).map_err(|e| self.stop(e))
    }

    fn is_wide(&self) -> bool {
        self.call.set.is_wide()
    }

    fn limits(&self) -> DeviceLimits {
        self.gpu.limits()
    }

    fn tile_set_mdt(&self) -> u64 {
        self.call.set.split_mdt()
    }

    fn rounds(&self) -> u64 {
        self.args.carry_rounds.max(1)
    }

    fn bin(&mut self) -> std::result::Result<[u32; BINS + 1], Stop> {
        if self.bins.is_none() {
            if let Err(e) = self.bin_tiles() {
                return Err(self.stop(e));
            }
        }
        Ok(self.bins.as_ref().expect("binned above").get().bin_starts)
    }

    fn launch(&mut self, mut launch: Launch) -> std::result::Result<(), Stop> {
        if let Some(only) = self.only {
            launch.variant = only;
        }
        self.launch_variant(&launch).map_err(|e| self.stop(e))
    }
}

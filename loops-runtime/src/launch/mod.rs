//! Launching: [`run`] carries out a generated kernel's schedule plan (one call of a
//! `#[load_balanced]` wrapper); [`Gpu::launch`] makes each of its launches, one entry point of one
//! source with its arguments ([`KernelArgs`]); the rooms beside it compute what the launches need
//! from the tile set first (prefix sums of subsets and pieces, [`subset`]; block starts,
//! [`block_ranges`]; bins, [`binning`]), kept with a whole tile set ([`preprocess`]).
//!
//! The kernel ABI is described once, in [`kernels_gen::abi`]: the user's parameters, each as its
//! parts, then the hidden ones in [`kernels_gen::abi::Hidden`]'s order, which [`Gpu::launch`]
//! appends from what [`KernelArgs`] was told (subset and piece prefix sums, block starts, piece
//! size, pass, per-call tile state, fault record, scratch). Two of them need more words:
//! - `loops_block_starts` (`merge_path` and `work_oriented` over a whole tile set): kept with the
//!   tile set, or null. Each instantiation then has three entry points
//!   ([`kernels_gen::schedule::RangeEntry`]) of one signature: `spmv__f32` reads the kept starts,
//!   `spmv__f32__stream` also loads its staged operands evict-first (where
//!   [`kernels_gen::schedule::streams_past_l2`] holds), `spmv__f32__searched` takes null and
//!   searches. [`Gpu::launch`] is given the first and picks;
//! - `loops_scratch`, last, always: global scratch for the carries of the segment schedules: one
//!   counter (the launch epoch in its high half, the next block ticket in its low half; kernels
//!   leave the ticket at 0 and move to the next epoch), then `grid * scratch_slots_per_block`
//!   8-byte slots per carry round, the blocks' records, stamped with the epoch so that no launch
//!   mistakes an earlier one's records for its own. [`Gpu::launch`] appends it (a null pointer
//!   when the kernel needs none); one scratch area per [`Gpu`] handle, zeroed when allocated,
//!   grown on demand and shared by that handle's launches, which its one stream runs one after
//!   another. The look-back of the carry schedules relies on that: two launches that ran at once
//!   on one area would read each other's records and race for its ticket. Handles made by
//!   [`Gpu::fork`] have their own stream *and* their own area, so launches on sibling streams may
//!   overlap safely.
//!
//! Buffers: a launch may be given buffers of any handle of its device's context; those of another
//! handle's stream are ordered with that stream around the launch (see [`crate::device`]).
//!
//! An empty buffer is passed as a null pointer with length 0.
//!
//! Where the driver can report the parameter sizes of an entry point (CUDA 12.4+), every launch checks
//! the arguments against them, so a wrapper and a kernel that disagree give
//! [`LoopsError::KernelArguments`] instead of a kernel reading garbage.

mod args;
pub mod binning;
pub mod block_ranges;
pub mod carveout;
pub mod entry;
pub mod preprocess;
pub mod run;
pub mod subset;

pub use crate::element::ScalarArg;
pub use args::KernelArgs;
pub(crate) use args::Param;
pub use carveout::{carveout, set_carveout, Carveout};

use std::ffi::c_void;
use std::sync::{Arc, OnceLock};

use cudarc::driver::{CudaFunction, CudaStream};
use kernels_gen::abi::Hidden;
use kernels_gen::schedule::{
    streams_past_l2, LaunchDims, RangeEntry, ScheduleConfig, TileSetShape,
};

use crate::device::{DeviceBuffer, Gpu};
use crate::error::{LoopsError, Result};
use crate::launch::block_ranges::RangeJob;
use crate::launch::subset::PrefixJob;

/// One launchable kernel source: its name (for errors), its CUDA source, the schedule it was
/// generated for (which decides the launch geometry), and the global scratch its schedule needs.
/// [`run`] makes one per launch from a generated kernel's description; tests and benchmarks write
/// their own for hand-written kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelSpec {
    /// The kernel's name, for errors and the kernel cache.
    pub name: &'static str,
    /// Its CUDA C++ source (compiled once per process, or read from the disk cache).
    pub source: &'static str,
    /// The schedule of the variant launched, which decides the grid.
    pub config: ScheduleConfig,
    /// 8-byte slots of global scratch per block (besides the one ticket counter); 0 for none.
    pub scratch_slots_per_block: u32,
    /// Bytes of dynamic shared memory each launch passes (the generated kernel's shared arrays
    /// where they are past the 48 KiB a block may declare statically); 0 for none.
    pub dynamic_shared_bytes: u32,
    /// The number of parameters of every entry point, `loops_scratch` included: each launch's
    /// arguments are checked against the entry's parameter sizes.
    pub param_count: usize,
    /// The bounds-checked variant: it takes `loops_fault` before `loops_scratch`, and its launch
    /// waits for the kernel and reports the first out-of-range index as an error.
    pub checked: bool,
    /// What each bounds-check site code names (`x`, `a.col_indices`), for the checked variant's errors.
    pub fault_sites: &'static [&'static str],
    /// The Rust source file of the kernel body.
    pub file: &'static str,
    /// The hidden parameters its entry points take after the user's, before the fault record and
    /// the scratch pointer (the schedule's, [`kernels_gen::schedule::ScheduleUnit::hidden_params`];
    /// none for a hand-written kernel).
    pub hidden: &'static [Hidden],
}

/// Slots at the front of the scratch area that hold the fault record of checked launches
/// (`[flag, site code, index, length, line]`, zero between launches); carries start after them.
const FAULT_SLOTS: usize = 8;

/// Forces checked mode on or off for this process (`None`: back to the default); for tests.
pub fn set_checked_mode(mode: Option<bool>) {
    CHECKED_OVERRIDE.store(
        match mode {
            None => 0,
            Some(false) => 1,
            Some(true) => 2,
        },
        std::sync::atomic::Ordering::Relaxed,
    );
}

static CHECKED_OVERRIDE: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Whether a generated kernel runs its bounds-checked variant: [`set_checked_mode`] if called, else
/// `LOOPS_CHECKED=1` / `0` if set, else `default` (the calling crate's `cfg!(debug_assertions)`).
pub fn checked_mode(default: bool) -> bool {
    checked_mode_asked().unwrap_or(default)
}

/// Checked mode where it was asked for or against ([`set_checked_mode`], `LOOPS_CHECKED`), `None`
/// where it is left to the build's default.
pub(crate) fn checked_mode_asked() -> Option<bool> {
    static FROM_ENV: OnceLock<Option<bool>> = OnceLock::new();
    match CHECKED_OVERRIDE.load(std::sync::atomic::Ordering::Relaxed) {
        1 => return Some(false),
        2 => return Some(true),
        _ => {}
    }
    *FROM_ENV.get_or_init(|| match std::env::var("LOOPS_CHECKED").as_deref() {
        Ok("1") | Ok("on") | Ok("true") => Some(true),
        Ok("0") | Ok("off") | Ok("false") => Some(false),
        _ => None,
    })
}

/// [`LoopsError::BufferTooShort`] if `len < required`.
pub fn check_len(kernel: &str, param: &str, len: usize, required: usize, why: &str) -> Result<()> {
    if len < required {
        return Err(LoopsError::BufferTooShort {
            kernel: kernel.to_string(),
            param: param.to_string(),
            len,
            required,
            why: why.to_string(),
        });
    }
    Ok(())
}

/// With `LOOPS_SYNC_LAUNCH=1` every launch waits for its kernel, so a fault is reported by the launch
/// of the kernel that caused it (for debugging; slow).
fn sync_each_launch() -> bool {
    static SYNC: OnceLock<bool> = OnceLock::new();
    *SYNC
        .get_or_init(|| std::env::var("LOOPS_SYNC_LAUNCH").is_ok_and(|v| !v.is_empty() && v != "0"))
}

/// `LOOPS_STREAM_HINT=on` (or `off`) makes every `merge_path` and `work_oriented` launch load its
/// staged operands evict-first (or not) whatever [`streams_past_l2`] says: for tests of both
/// paths on small inputs, and for measuring the hint.
pub(crate) fn stream_hint() -> Option<bool> {
    static HINT: OnceLock<Option<bool>> = OnceLock::new();
    *HINT.get_or_init(|| match std::env::var("LOOPS_STREAM_HINT").as_deref() {
        Ok("on" | "1") => Some(true),
        Ok("off" | "0") => Some(false),
        _ => None,
    })
}

/// Checks `args` against the entry point's parameter sizes.
fn check_args(kernel: &str, entry: &str, sizes: &[usize], args: &KernelArgs<'_>) -> Result<()> {
    let mismatch = |detail: String| LoopsError::KernelArguments {
        kernel: kernel.to_string(),
        detail,
    };
    if sizes.len() != args.sizes.len() {
        return Err(mismatch(format!(
            "entry point `{entry}` has {} parameters, {} arguments were given ({})",
            sizes.len(),
            args.sizes.len(),
            args.what
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    for (i, (&want, &have)) in sizes.iter().zip(&args.sizes).enumerate() {
        if want != have {
            return Err(mismatch(format!(
                "parameter {i} of `{entry}` is {want} bytes, argument {i} ({}) is {have}",
                args.what[i]
            )));
        }
    }
    Ok(())
}

/// A prefix sum a launch passes: the offsets' device address, the total, and the stream of the
/// tile set's cached buffer that holds it (`None`: the handle's own subset area).
type ReadyPrefix<'a> = (u64, u64, Option<&'a Arc<CudaStream>>);

/// A prefix sum a launch passes (see [`ReadyPrefix`]), with the items it sums.
struct LaunchPrefix<'a> {
    ptr: u64,
    total: u64,
    items: u64,
    stream: Option<&'a Arc<CudaStream>>,
}

/// The prefix sums of one launch: of its subset's tile sizes, of its tiles' piece counts.
struct LaunchPrefixes<'a> {
    subset: Option<LaunchPrefix<'a>>,
    pieces: Option<LaunchPrefix<'a>>,
}

/// Pushes the value of one hidden parameter (the fault record and the scratch pointer are the
/// launch's own, pushed last).
fn push_hidden<'a>(
    kernel: &str,
    hidden: Hidden,
    args: &mut KernelArgs<'a>,
    prefixes: &LaunchPrefixes<'a>,
    starts: Option<Option<&'a DeviceBuffer<i32>>>,
) -> Result<()> {
    let missing = |what: &str| LoopsError::KernelArguments {
        kernel: kernel.to_string(),
        detail: format!("its entry points take {what}, and the launch was given none"),
    };
    match hidden {
        // The list's length on the device, or null: the kernel then reads the list's host length.
        Hidden::ListLen => {
            let len = args.list_len.unwrap_or(0);
            args.push_value(len, Param::ListLen);
        }
        Hidden::SubsetOffsets => {
            let p = prefixes
                .subset
                .as_ref()
                .ok_or_else(|| missing("a tile subset"))?;
            args.push_foreign_ptr(p.ptr, p.stream, Param::SubsetOffsets);
        }
        Hidden::BlockStarts => match starts.flatten() {
            Some(starts) => args.push_buffer(starts, Param::BlockStarts),
            None => args.push_value(0u64, Param::BlockStarts),
        },
        Hidden::SplitPieces => {
            let p = prefixes
                .pieces
                .as_ref()
                .ok_or_else(|| missing("piece counts"))?;
            args.push_foreign_ptr(p.ptr, p.stream, Param::SplitPieces);
        }
        Hidden::Mdt => {
            let mdt = args.mdt.ok_or_else(|| missing("a piece size"))?;
            args.push_value(mdt as i32, Param::Scalar("int loops_mdt"));
        }
        Hidden::Pass => {
            let (pass, passes) = args.pass.ok_or_else(|| missing("a pass"))?;
            args.push_value(pass as i32, Param::Scalar("int loops_pass"));
            args.push_value(passes as i32, Param::Scalar("int loops_passes"));
        }
        Hidden::TileState => {
            let state = args.tile_state.ok_or_else(|| missing("tile state"))?;
            args.push_value(state, Param::TileState);
        }
        Hidden::Fault | Hidden::Scratch => {}
    }
    Ok(())
}

impl Gpu {
    /// Compiles (once) and launches `entry` of `spec` over a tile set of `shape`, with the geometry
    /// `spec.config.launch_dims(shape, self.limits())`. The hidden arguments follow the user's in
    /// the order of `spec.hidden` ([`kernels_gen::abi`]), then the fault record (checked) and the
    /// scratch pointer. Returns once the launch is queued; errors of the kernel's execution
    /// surface at the next synchronizing call (e.g. [`Gpu::download`]).
    pub fn launch<'a>(
        &self,
        spec: &KernelSpec,
        entry: &str,
        shape: TileSetShape,
        mut args: KernelArgs<'a>,
    ) -> Result<()> {
        // Compiled (once) first: the first launch's NVRTC run holds none of the locks below.
        let mut f = self.loaded_function(spec.name, spec.source, entry, Some(spec.param_count))?;
        let (prefixes, prefix_area) = self.launch_prefixes(spec, &mut args)?;
        let mut shape = shape;
        if let Some(p) = &prefixes.subset {
            shape = TileSetShape {
                tiles: p.items,
                atoms: p.total,
            };
        }
        if let Some(p) = &prefixes.pieces {
            // One thread per piece: a kernel that takes them takes the pieces as its atoms.
            shape.atoms = p.total;
        }
        let mut dims = spec.config.launch_dims(shape, self.limits());
        dims.shared_bytes = spec.dynamic_shared_bytes;
        if dims.shared_bytes > self.max_shared_bytes_per_block() {
            return Err(LoopsError::SharedMemory {
                kernel: spec.name.to_string(),
                schedule: spec.config.describe(),
                block: dims.block,
                needed: dims.shared_bytes,
                max: self.max_shared_bytes_per_block(),
                device: self.name().to_string(),
            });
        }
        if args.list_len.is_some() {
            // The list's length lives on the device, so `shape` counts its capacity, which asks a
            // grid-stride schedule for up to four waves of blocks; a small frontier would leave
            // them all to start and return at once, every level. One wave of resident blocks
            // strides over any length, unless the loop asks for a grid of its own
            // (`FrontierLoop::set_step_blocks`; blocks past the list return at once).
            let limits = self.limits();
            let per_sm = (limits.max_threads_per_sm / dims.block.max(1)).max(1);
            dims.grid = match self.device_loop().and_then(|d| d.blocks) {
                Some(blocks) => blocks.clamp(1, i32::MAX as u32),
                None => dims.grid.min((limits.sm_count * per_sm).max(1)),
            };
        }
        let mut ranged_entry = None;
        let starts = if spec.hidden.contains(&Hidden::BlockStarts) {
            let (starts, range) = self.block_starts_of(spec, &mut args, shape, dims)?;
            if range != RangeEntry::Kept {
                let name = range.entry_name(entry);
                f = self.loaded_function(spec.name, spec.source, &name, Some(spec.param_count))?;
                ranged_entry = Some(name);
            }
            Some(starts)
        } else {
            None
        };
        let entry = ranged_entry.as_deref().unwrap_or(entry);
        for &hidden in spec.hidden {
            push_hidden(spec.name, hidden, &mut args, &prefixes, starts)?;
        }
        // The scratch lock is held until the launch is queued: growing the area frees the old one
        // (stream-ordered), which must come after every launch that was given it.
        let scratch = if spec.scratch_slots_per_block > 0 || spec.checked {
            // Layout: the fault record, the counter, then each round's per-block records.
            let rounds = args.carry_rounds.max(1) as usize;
            let carries = 1 + rounds * dims.grid as usize * spec.scratch_slots_per_block as usize;
            let scratch = self.scratch(FAULT_SLOTS + carries)?;
            let base = scratch.device_ptr();
            if spec.checked {
                args.push_value(base, Param::Fault);
            }
            args.push_value(base + (FAULT_SLOTS * 8) as u64, Param::Scratch);
            Some(scratch)
        } else {
            args.push_value(0u64, Param::Scratch);
            None
        };
        if let Some(sizes) = &f.param_sizes {
            check_args(spec.name, entry, sizes, &args)?;
        }
        // Every generated entry point waits for the kernel before it (`loops_grid_dependency`), so
        // it may be launched programmatically.
        let programmatic = self.programmatic_launch();
        self.launch_raw(spec.name, entry, &f.func, dims, args, programmatic)?;
        drop(prefix_area);
        match scratch {
            Some(scratch) if spec.checked => self.take_fault(spec, scratch.device_ptr()),
            _ => Ok(()),
        }
    }

    /// The prefix sums a launch was asked for (of a subset's tile sizes, of the tiles' piece
    /// counts; see `subset`), whose totals size the grid. Those of data that does not change come
    /// from the tile set's cache (see `preprocess`); the others are computed now in the handle's
    /// subset area, returned locked: the caller holds it until its launch is queued (as the
    /// scratch).
    fn launch_prefixes<'s, 'a>(
        &'s self,
        spec: &KernelSpec,
        args: &mut KernelArgs<'a>,
    ) -> Result<(
        LaunchPrefixes<'a>,
        Option<std::sync::MutexGuard<'s, DeviceBuffer<u64>>>,
    )> {
        let (subset, split) = (args.subset.take(), args.split.take());
        let jobs = [
            subset.map(|s| PrefixJob {
                offsets: s.offsets,
                list: Some(s.list),
                mdt: 0,
            }),
            split.map(|s| PrefixJob {
                offsets: s.offsets,
                list: subset.map(|s| s.list),
                mdt: s.mdt,
            }),
        ];
        if let Some(s) = split {
            args.mdt.get_or_insert(s.mdt);
        }
        let mut ready: [Option<ReadyPrefix<'a>>; 2] = [None, None];
        for (job, prefix) in jobs.iter().zip(&mut ready) {
            let (Some(job), Some(cache)) = (job, args.preprocessed) else {
                continue;
            };
            if let Some(p) = cache.prefix(self, spec.name, job)? {
                *prefix = Some((p.offsets, p.total, p.sums.cuda_slice().map(|s| s.stream())));
            }
        }
        let fresh: Vec<PrefixJob<'a>> = jobs
            .iter()
            .zip(&ready)
            .filter_map(|(job, prefix)| job.filter(|_| prefix.is_none()))
            .collect();
        let area = if fresh.is_empty() {
            None
        } else {
            let (computed, area) = self.prefix_sums(spec.name, &fresh)?;
            let mut computed = computed.into_iter();
            for (job, prefix) in jobs.iter().zip(&mut ready) {
                if job.is_some() && prefix.is_none() {
                    let p = computed.next().expect("one prefix per job");
                    *prefix = Some((p.offsets, p.total, None));
                }
            }
            Some(area)
        };
        let with_items = |prefix: Option<ReadyPrefix<'a>>, items: u64| {
            prefix.map(|(ptr, total, stream)| LaunchPrefix {
                ptr,
                total,
                items,
                stream,
            })
        };
        let prefixes = LaunchPrefixes {
            subset: with_items(ready[0], subset.map_or(0, |s| s.list.len as u64)),
            pieces: with_items(ready[1], 0),
        };
        Ok((prefixes, area))
    }

    /// Where each block's range starts, for a kernel that takes `loops_block_starts`: kept with
    /// the tile set (computed by the first launch of this geometry), or null (the blocks search);
    /// and the entry point of that case and of the load form ([`RangeEntry`]: each is its own).
    fn block_starts_of<'a>(
        &self,
        spec: &KernelSpec,
        args: &mut KernelArgs<'a>,
        shape: TileSetShape,
        dims: LaunchDims,
    ) -> Result<(Option<&'a DeviceBuffer<i32>>, RangeEntry)> {
        let kept = match (
            spec.config.schedule.searched_partition(),
            args.ranges_of.take(),
        ) {
            (Some((partition, per_thread)), Some(offsets)) => {
                let job = RangeJob {
                    partition,
                    items_per_block: per_thread as u64 * dims.block as u64,
                    blocks: dims.grid as u64,
                };
                match args.preprocessed {
                    Some(cache) => cache.block_starts(self, offsets, job)?,
                    None => None,
                }
            }
            _ => None,
        };
        let streamed = stream_hint()
            .unwrap_or_else(|| streams_past_l2(shape.atoms, args.read_only_bytes, self.limits()));
        Ok((
            kept,
            RangeEntry::choose(kept.is_some(), streamed, spec.checked),
        ))
    }

    /// After a checked launch: waits for the kernel and turns its first out-of-range index, if any,
    /// into an error (and clears the record for the next launch).
    fn take_fault(
        &self,
        spec: &KernelSpec,
        record: cudarc::driver::sys::CUdeviceptr,
    ) -> Result<()> {
        let mut fault = [0u64; 5];
        self.read_slots(
            record,
            &mut fault,
            &format!("reading the bounds-check record of kernel `{}`", spec.name),
        )?;
        if fault[0] == 0 {
            return Ok(());
        }
        self.zero_slots(record, 5, "clearing the bounds-check record")?;
        Err(LoopsError::IndexOutOfBounds {
            kernel: spec.name.to_string(),
            array: spec
                .fault_sites
                .get(fault[1] as usize)
                .copied()
                .unwrap_or("?")
                .to_string(),
            index: fault[2] as i64,
            len: fault[3],
            file: spec.file.to_string(),
            line: fault[4],
        })
    }

    /// Launches a function obtained from [`Gpu::function`] with explicit geometry: for hand-written
    /// kernels (baselines, tests). The arguments are checked as in [`Gpu::launch`].
    pub fn launch_function(
        &self,
        kernel_name: &str,
        func: &CudaFunction,
        dims: LaunchDims,
        args: KernelArgs<'_>,
    ) -> Result<()> {
        self.launch_function_with(kernel_name, func, dims, args, false)
    }

    /// [`Self::launch_function`], launched with the programmatic-stream-serialization attribute
    /// where `programmatic` ([`Gpu::set_programmatic_launch`], `launch_programmatic`): only for a
    /// kernel whose entry begins with `loops_grid_dependency()`, which waits for the kernel
    /// before it.
    pub(crate) fn launch_function_with(
        &self,
        kernel_name: &str,
        func: &CudaFunction,
        dims: LaunchDims,
        args: KernelArgs<'_>,
        programmatic: bool,
    ) -> Result<()> {
        // A hand-written kernel's PTX is not at hand: its sizes are checked for the arguments given,
        // not its count.
        if let Some(sizes) = crate::device::param_sizes(func, args.sizes.len()) {
            check_args(kernel_name, kernel_name, &sizes, &args)?;
        }
        self.launch_raw(kernel_name, kernel_name, func, dims, args, programmatic)
    }

    fn launch_raw(
        &self,
        kernel: &str,
        entry: &str,
        func: &CudaFunction,
        dims: LaunchDims,
        mut args: KernelArgs<'_>,
        programmatic: bool,
    ) -> Result<()> {
        // Buffers of another handle's stream: this launch waits for that stream's work so far, and
        // that stream's later work (the buffer's free included) waits for this launch.
        let streams = std::mem::take(&mut args.streams);
        let what = &args.what;
        let foreign = self.enter_foreign(streams.iter().map(|&(i, s)| (i, Some(s))), |i| {
            format!("launching kernel `{kernel}`: argument {i} ({})", what[i])
        })?;
        let launched = self.launch_queued(kernel, entry, func, dims, &mut args.slots, programmatic);
        if !foreign.is_empty() {
            let left = self.leave_foreign(&foreign, &format!("launching kernel `{kernel}`"));
            launched?;
            left?;
        } else {
            launched?;
        }
        // A stream being captured into a graph cannot be waited for; the graph's replay is.
        if sync_each_launch() && !self.device_loop().is_some_and(|d| d.capturing) {
            self.stream()
                .synchronize()
                .map_err(LoopsError::driver(format!(
                    "running kernel `{kernel}` (entry `{entry}`)"
                )))?;
        }
        Ok(())
    }

    fn launch_queued(
        &self,
        kernel: &str,
        entry: &str,
        func: &CudaFunction,
        dims: LaunchDims,
        slots: &mut [u64],
        programmatic: bool,
    ) -> Result<()> {
        let context = || {
            format!(
                "launching kernel `{kernel}` (entry `{entry}`, grid {}, block {}, {} B dynamic shared memory)",
                dims.grid, dims.block, dims.shared_bytes
            )
        };
        use cudarc::driver::sys::CUfunction_attribute;
        // The L1 / shared split asked for (`carveout`): set every launch once asked, since the
        // function is shared by every handle and the setting may have changed since its last.
        if let Some(split) = carveout() {
            func.set_attribute(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                split.attribute_value(),
            )
            .map_err(LoopsError::driver(context()))?;
        }
        // Beyond 48 KiB, dynamic shared memory must be opted into per function.
        if dims.shared_bytes > 48 * 1024 {
            func.set_attribute(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                dims.shared_bytes as i32,
            )
            .map_err(LoopsError::driver(context()))?;
        }
        let mut params: Vec<*mut c_void> =
            slots.iter_mut().map(|s| (s as *mut u64).cast()).collect();
        self.stream()
            .context()
            .bind_to_thread()
            .map_err(LoopsError::driver(context()))?;
        // SAFETY: `params` points at one live slot per parameter, holding a value of the parameter's
        // size (checked against the entry point where the driver reports sizes). Device pointers come
        // from buffers borrowed by `args` for the call, allocated on this handle's stream or on a
        // stream of the same context that `launch_raw` orders this launch with, so the kernel runs
        // after their uploads and before their frees. Staying inside the buffers is
        // the kernel's contract with the lengths it is passed (`check_len` in the generated wrapper).
        if programmatic {
            return self
                .launch_programmatic(func, dims, &mut params)
                .map_err(LoopsError::driver(context()));
        }
        unsafe {
            cudarc::driver::result::launch_kernel(
                func.cu_function(),
                (dims.grid, 1, 1),
                (dims.block, 1, 1),
                dims.shared_bytes,
                self.stream().cu_stream(),
                &mut params,
            )
        }
        .map_err(LoopsError::driver(context()))
    }

    /// `cuLaunchKernelEx` with programmatic stream serialization: the kernel may start launching
    /// before the one before it on the stream has finished (once that one's blocks have all
    /// passed `loops_grid_dependency`, or exited), and its own `loops_grid_dependency` waits for
    /// that kernel's completion and writes. Captured into a graph, this becomes a programmatic
    /// edge; after a node that is not a kernel (a fill, a copy) it is an ordinary dependency. What
    /// it saves is the launch latency between two dependent kernels: the device loop's levels are
    /// two short kernels each, and most of a level's time.
    fn launch_programmatic(
        &self,
        func: &CudaFunction,
        dims: LaunchDims,
        params: &mut [*mut c_void],
    ) -> std::result::Result<(), cudarc::driver::DriverError> {
        use cudarc::driver::sys;
        // SAFETY: all-zero is a valid `CUlaunchAttribute` (id 0 is "ignore"); the fields set
        // below are the attribute's id and its value's matching member.
        let mut attribute: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
        attribute.id =
            sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attribute.value.programmaticStreamSerializationAllowed = 1;
        let config = sys::CUlaunchConfig {
            gridDimX: dims.grid,
            gridDimY: 1,
            gridDimZ: 1,
            blockDimX: dims.block,
            blockDimY: 1,
            blockDimZ: 1,
            sharedMemBytes: dims.shared_bytes,
            hStream: self.stream().cu_stream(),
            attrs: &mut attribute,
            numAttrs: 1,
        };
        // SAFETY: as for `launch_kernel` in `launch_queued` (the same parameters, function and
        // stream); `config` and `attribute` outlive the call.
        unsafe {
            sys::cuLaunchKernelEx(
                &config,
                func.cu_function(),
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
            .result()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_take_their_c_size() {
        let mut args = KernelArgs::new();
        args.scalar(1.5f32)
            .scalar(2.5f64)
            .scalar(-3i32)
            .scalar(4u32)
            .scalar(true)
            .scalar(7usize)
            .scalar(-8i64);
        assert_eq!(args.sizes(), [4, 8, 4, 4, 1, 8, 8]);
        assert_eq!(args.len(), 7);
        let bytes = |i: usize| args.slots[i].to_ne_bytes();
        assert_eq!(f32::from_ne_bytes(bytes(0)[..4].try_into().unwrap()), 1.5);
        assert_eq!(f64::from_ne_bytes(bytes(1)), 2.5);
        assert_eq!(i32::from_ne_bytes(bytes(2)[..4].try_into().unwrap()), -3);
        assert_eq!(bytes(4)[0], 1);
        assert_eq!(u64::from_ne_bytes(bytes(5)), 7);
        assert_eq!(i64::from_ne_bytes(bytes(6)), -8);
        assert_eq!(<usize as ScalarArg>::CUDA_NAME, "unsigned long long");
        assert_eq!(<bool as ScalarArg>::CUDA_NAME, "bool");
    }

    #[test]
    fn argument_check() {
        let mut args = KernelArgs::new();
        args.scalar(1.0f32).scalar(2u64);
        assert!(check_args("k", "k_f32", &[4, 8], &args).is_ok());
        let e = check_args("k", "k_f32", &[4, 8, 8], &args).unwrap_err();
        assert!(
            e.to_string().contains("has 3 parameters, 2 arguments"),
            "{e}"
        );
        let e = check_args("k", "k_f32", &[8, 8], &args).unwrap_err();
        assert!(
            e.to_string()
                .contains("parameter 0 of `k_f32` is 8 bytes, argument 0 (float) is 4"),
            "{e}"
        );
    }
}

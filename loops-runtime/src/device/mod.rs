//! The device handle, device buffers, and the per-device kernel cache.
//!
//! # Streams: one per handle, buffers ordered across sibling handles
//!
//! A [`Gpu`] owns one stream and does *all* its work on it: allocations (stream-ordered
//! `cuMemAllocAsync`), copies, memsets, launches, and frees (a dropped buffer is freed with
//! `cuMemFreeAsync` on the stream of the handle that made it). Stream order alone orders every use of
//! a handle's own buffers, so those uses cost no synchronization at all. cudarc's per-slice event
//! tracking (two `CUevent`s per allocation, a wait and a record around every use) is turned off on
//! the context handle before anything is allocated: it would add driver calls to every launch.
//!
//! [`Gpu::fork`] makes a *sibling* handle: the same context, device facts and compiled kernels
//! (modules and entry points are cached once, behind an `Arc`, for every sibling), but its own stream
//! and its own scratch area, so siblings run concurrently, from one host thread or many. The carry
//! schedules' scratch (see [`crate::launch`]) is never shared by two streams.
//!
//! A buffer may be used by any handle of the same CUDA context (its siblings, and other [`Gpu::new`]
//! handles of the same device, which share its primary context). When a call on handle `B` uses a
//! buffer made by handle `A`, the runtime orders it as if both ran on one stream, with two events:
//! before `B`'s work, `B`'s stream waits for everything queued on `A`'s stream so far (so the
//! allocation, the upload and every earlier kernel on `A` are done); after it, `A`'s stream waits for
//! `B`'s work (so `A`'s later work, and the buffer's stream-ordered free, come after). That is what
//! cudarc's event tracking would do, done only where a buffer crosses streams. It couples the two
//! streams at that point: for concurrency, give each handle its own buffers. A buffer of another
//! device (another context) is refused with [`LoopsError::ForeignBuffer`].
//!
//! # Zero-length buffers
//!
//! CUDA refuses 0-byte allocations, so an empty [`DeviceBuffer`] holds no allocation at all; kernels
//! receive a null pointer with length 0, copies and fills of it do nothing.
//!
//! # Kernel cache
//!
//! A generated source holds many entry points (`auto`: every candidate x element type x launch
//! form), and compiling all of them costs seconds; a launch needs one. So each entry point of a
//! generated source is compiled and loaded alone, in a module of its own (the emitter guards each
//! entry's definition, [`kernels_gen::abi::entry_macro`]); a source without the guards (hand-written
//! CUDA) is compiled whole, once, for all its entry points. Modules are cached by (FNV-1a hash of
//! the source, the entry compiled alone or none, architecture), each in a slot of its own: the map's
//! lock is held only to find the slot, and the slot's lock across the compile, so one module
//! compiles once however many threads ask for it while different modules compile at the same time
//! ([`Gpu::load_entries`] compiles several on threads). In front of that, loaded entry points are
//! cached by the address of the `&'static str` source, so a launch of an already-loaded kernel does
//! not hash its source again. Behind it, the disk cache ([`crate::compile::cache`]) keeps compiled
//! kernels across processes: a cubin for the device's architecture where NVRTC supports it (PTX
//! otherwise), read back without loading NVRTC.
//!
//! Rooms: this file (the handle, its streams and scratch), `modules` (the kernel cache and loading),
//! `timer` ([`GpuTimer`], [`MemoryInfo`]), `buffer` ([`DeviceBuffer`]).

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use cudarc::driver::sys::{self, CUdevice_attribute, CUresult};
use cudarc::driver::{CudaContext, CudaStream, DriverError};
use kernels_gen::schedule::DeviceLimits;

use crate::compile::Arch;
use crate::error::{LoopsError, Result};

mod buffer;
mod modules;
mod timer;
pub use buffer::DeviceBuffer;
pub(crate) use modules::{param_sizes, LoadedFunction};
use modules::{ModuleKey, ModuleSlot};
pub use timer::{GpuTimer, MemoryInfo};

/// Whether libcuda can be loaded. cudarc panics at first use when it cannot, so this is asked before
/// any driver call.
pub(crate) fn driver_available() -> Result<()> {
    static PRESENT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    // SAFETY: only loads and unloads the library.
    if *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() }) {
        Ok(())
    } else {
        let mut searched = Vec::new();
        let names: &[&str] = if cfg!(windows) {
            &["cuda", "nvcuda"]
        } else {
            &["cuda"]
        };
        for name in names
            .iter()
            .flat_map(|n| cudarc::get_lib_name_candidates(n))
        {
            if !searched.contains(&name) {
                searched.push(name);
            }
        }
        Err(LoopsError::NoDriver {
            detail: format!("libcuda could not be loaded; searched {searched:?}"),
        })
    }
}

/// A CUDA device: a context handle, the one stream all work of this handle goes to, what the launch
/// geometry needs to know about the device, and the cache of compiled kernels. `Send + Sync`; share
/// it by reference or `Arc`, or [`fork`](Gpu::fork) it into handles with their own streams that
/// share its context and compiled kernels.
pub struct Gpu {
    /// The handle's stream and what only its work uses; shared with the handle a device loop gives
    /// its step ([`Gpu::in_device_loop`]), which is this handle inside the loop. Declared before
    /// `shared` so that it drops first: the last lane of a context waits for its own stream
    /// ([`Lane`]'s drop) before the context's modules are unloaded with `shared`.
    lane: Arc<Lane>,
    shared: Arc<Shared>,
    /// The device frontier loop whose step this handle was given to ([`Gpu::in_device_loop`]):
    /// the call context of every launch made through it. `None` for every other handle.
    device_loop: Option<DeviceList>,
}

/// One stream and what only its work uses.
struct Lane {
    stream: Arc<CudaStream>,
    /// Global scratch of the segment schedules' carries and the checked kernels' fault record (see
    /// `launch`), grown on demand. One per stream: only this stream ever uses it, so its
    /// launches use it one after another.
    scratch: Mutex<DeviceBuffer<u64>>,
    /// The prefix sums of tile subsets under the schedules that partition atoms (see `subset`),
    /// grown on demand; one per stream for the same reason as `scratch`.
    subset_area: Mutex<DeviceBuffer<u64>>,
    /// The per-tile state of `hierarchical`'s passes ([`Gpu::tile_state_area`]).
    tile_state: Mutex<DeviceBuffer<u64>>,
    /// Page-locked host memory for small read-backs ([`Gpu::download`]), allocated on first use.
    staging: Mutex<Option<buffer::Staging>>,
    /// [`Gpu::set_programmatic_launch`].
    programmatic: AtomicBool,
}

impl Drop for Lane {
    /// The last handle of this stream is going: its queued kernels (which use the context's modules,
    /// unloaded once every handle of the context is gone) and copies (from the staging memory freed
    /// with this lane) finish first. Only this stream is waited for: a wait on the whole context
    /// (`cuCtxSynchronize`, what this did before) also waits for the streams of every other handle of
    /// the device, which share its primary context, and invalidates the stream capture another
    /// thread may be recording on one of them (`CUDA_ERROR_STREAM_CAPTURE_INVALIDATED`).
    fn drop(&mut self) {
        let status = self.stream.capture_status();
        if waits_on_drop(status.as_ref().ok()) {
            let r = self.stream.synchronize();
            self.stream.context().record_err(r);
        }
    }
}

/// Whether a lane whose stream's capture status is `status` (`None`: the query failed) waits for
/// its stream when it drops: yes unless the stream is being captured (a capturing stream cannot be
/// waited for, and its queued work is only being recorded, not run). A failed query still waits:
/// the wait then reports the error.
fn waits_on_drop(status: Option<&sys::CUstreamCaptureStatus>) -> bool {
    !matches!(
        status,
        Some(sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE)
    )
}

impl Lane {
    fn new(stream: Arc<CudaStream>, programmatic: bool) -> Arc<Lane> {
        Arc::new(Lane {
            stream,
            scratch: Mutex::new(DeviceBuffer::empty()),
            subset_area: Mutex::new(DeviceBuffer::empty()),
            tile_state: Mutex::new(DeviceBuffer::empty()),
            staging: Mutex::new(None),
            programmatic: AtomicBool::new(programmatic),
        })
    }
}

/// The context of a launch inside a device frontier loop's level ([`Gpu::in_device_loop`]): a tile
/// list whose length only the device knows (the frontier of a
/// [`crate::graph::FrontierLoop`]; 0 where the launch is over none): a kernel launched over
/// `list` reads its length from `len` (`loops_list_len`, [`kernels_gen::abi::Hidden::ListLen`]); `capturing`: the
/// handle's stream is being captured into a CUDA graph, so nothing may wait for it;
/// `blocks`: the grid of such a launch where the loop sets one (else one wave of resident blocks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DeviceList {
    pub list: sys::CUdeviceptr,
    pub len: sys::CUdeviceptr,
    pub capturing: bool,
    pub blocks: Option<u32>,
}

impl DeviceList {
    /// The loop's context over no list (a launch of the loop's own kernels, which only must not
    /// wait for a stream being recorded), the grid left to the launch.
    pub fn none(capturing: bool) -> DeviceList {
        DeviceList {
            list: 0,
            len: 0,
            capturing,
            blocks: None,
        }
    }
}

/// What the handles of one device context share: the context, the device's facts and the compiled
/// kernels. Dropped after every [`Lane`] of its handles (each [`Gpu`] drops its lane first), each of
/// which waited for its own stream, so no kernel of its modules is still queued when they unload.
struct Shared {
    ctx: Arc<CudaContext>,
    ordinal: usize,
    name: String,
    arch: Arch,
    limits: DeviceLimits,
    /// The most shared memory a block may have, opted into
    /// (`CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`).
    max_shared_per_block: u32,
    driver_version: i32,
    /// Loaded modules, each in its own slot (see the module documentation).
    modules: Mutex<HashMap<ModuleKey, ModuleSlot>>,
    /// Loaded entry points by (address, length) of their `&'static str` source, then entry name.
    functions: Mutex<HashMap<(usize, usize), EntryPoints>>,
}

/// The loaded entry points of one source, by name.
type EntryPoints = HashMap<String, Arc<LoadedFunction>>;

impl fmt::Debug for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gpu")
            .field("ordinal", &self.shared.ordinal)
            .field("name", &self.shared.name)
            .field("arch", &self.shared.arch)
            .field("limits", &self.shared.limits)
            .field("driver_version", &self.shared.driver_version)
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // The maps are only ever inserted into whole, so a panic elsewhere cannot leave them half-updated.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Gpu {
    /// Opens device `ordinal`: [`LoopsError::NoDriver`] if libcuda cannot be loaded,
    /// [`LoopsError::NoDevice`] if there is no such device. Never panics for want of a driver.
    pub fn new(ordinal: usize) -> Result<Gpu> {
        let count = Gpu::count()?;
        if ordinal >= count {
            return Err(LoopsError::NoDevice { ordinal, count });
        }

        let ctx = CudaContext::new(ordinal).map_err(LoopsError::driver(format!(
            "creating a context on device {ordinal}"
        )))?;
        // SAFETY: see the module documentation: every buffer of this context handle is allocated, used
        // and freed on `stream` only (buffers of other handles are refused), so stream order replaces
        // the events. Turned off before anything is allocated, and this handle is ours alone.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream().map_err(LoopsError::driver(format!(
            "creating a stream on device {ordinal}"
        )))?;

        let attr = |a: CUdevice_attribute, what: &str| {
            ctx.attribute(a).map_err(LoopsError::driver(format!(
                "querying {what} of device {ordinal}"
            )))
        };
        let name = ctx.name().map_err(LoopsError::driver(format!(
            "querying the name of device {ordinal}"
        )))?;
        let (major, minor) = ctx
            .compute_capability()
            .map_err(LoopsError::driver(format!(
                "querying the compute capability of device {ordinal}"
            )))?;
        let sm_count = attr(
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            "the SM count",
        )?;
        let max_threads_per_sm = attr(
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
            "the threads per SM",
        )?;
        let l2_bytes = attr(
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
            "the L2 cache size",
        )?;
        let max_shared_per_block = attr(
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            "the shared memory a block may opt into",
        )?;
        let mut driver_version = 0;
        // SAFETY: the driver is loaded and initialized; the out-pointer is valid.
        unsafe { sys::cuDriverGetVersion(&mut driver_version) }
            .result()
            .map_err(LoopsError::driver("querying the driver version"))?;

        Ok(Gpu {
            shared: Arc::new(Shared {
                ctx,
                ordinal,
                name,
                arch: Arch::new(major as u32, minor as u32),
                limits: DeviceLimits {
                    sm_count: sm_count as u32,
                    max_threads_per_sm: max_threads_per_sm as u32,
                    l2_bytes: l2_bytes.max(0) as u64,
                },
                max_shared_per_block: max_shared_per_block.max(0) as u32,
                driver_version,
                modules: Mutex::new(HashMap::new()),
                functions: Mutex::new(HashMap::new()),
            }),
            lane: Lane::new(
                stream,
                major >= 9 && std::env::var("LOOPS_PROGRAMMATIC_LAUNCH").as_deref() != Ok("0"),
            ),
            device_loop: None,
        })
    }

    /// A sibling handle with its own stream: the same device, context and compiled kernels (a kernel
    /// compiled or loaded by one sibling is loaded for all), and its own scratch area for the carry
    /// schedules, so that siblings' launches may run concurrently (e.g. one handle per host thread).
    /// Its work is not ordered with this handle's, except where a call uses a buffer of the other
    /// (see the module documentation: the runtime then orders the two streams at that call).
    #[doc(alias = "with_new_stream")]
    pub fn fork(&self) -> Result<Gpu> {
        let ordinal = self.shared.ordinal;
        let stream = self
            .shared
            .ctx
            .new_stream()
            .map_err(LoopsError::driver(format!(
                "creating a stream on device {ordinal}"
            )))?;
        Ok(self.sibling(stream))
    }

    /// [`Gpu::fork`] with the device's highest stream priority: its kernels' blocks are
    /// scheduled before those of ordinary streams as SMs free up. A small task that must overlap a
    /// long kernel (a multi-GPU exchange beside the local product) runs on such a handle.
    pub(crate) fn fork_urgent(&self) -> Result<Gpu> {
        let ordinal = self.shared.ordinal;
        let fail = || LoopsError::driver(format!("creating a priority stream on device {ordinal}"));
        self.shared.ctx.bind_to_thread().map_err(fail())?;
        let (_, greatest) = cudarc::driver::result::stream::get_priority_range().map_err(fail())?;
        let stream = self
            .shared
            .ctx
            .new_stream_with_priority(greatest)
            .map_err(fail())?;
        Ok(self.sibling(stream))
    }

    fn sibling(&self, stream: Arc<CudaStream>) -> Gpu {
        Gpu {
            shared: self.shared.clone(),
            lane: Lane::new(stream, self.programmatic_launch()),
            device_loop: None,
        }
    }

    /// Whether `other` shares this handle's context and compiled kernels (it was made by
    /// [`fork`](Gpu::fork) from this handle or from a sibling of it, or is this handle).
    pub fn is_sibling(&self, other: &Gpu) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// Free and total device memory in bytes (`cuMemGetInfo`), for the whole device: other handles'
    /// and other processes' allocations count too. Memory freed by dropped buffers returns to the
    /// device at the next synchronization of the stream that freed it.
    pub fn memory_info(&self) -> Result<MemoryInfo> {
        let (free, total) = self.shared.ctx.mem_get_info().map_err(LoopsError::driver(
            "querying free device memory (cuMemGetInfo)",
        ))?;
        Ok(MemoryInfo {
            free_bytes: free as u64,
            total_bytes: total as u64,
        })
    }

    /// The number of CUDA devices; [`LoopsError::NoDriver`] without a driver, 0 without a device.
    pub fn count() -> Result<usize> {
        driver_available()?;
        match cudarc::driver::result::init() {
            Ok(()) => {}
            Err(DriverError(CUresult::CUDA_ERROR_NO_DEVICE)) => return Ok(0),
            Err(e) => {
                return Err(LoopsError::driver("initializing the CUDA driver (cuInit)")(
                    e,
                ))
            }
        }
        let count = cudarc::driver::result::device::get_count()
            .map_err(LoopsError::driver("counting CUDA devices"))?;
        Ok(count.max(0) as usize)
    }

    /// The device's name, e.g. "NVIDIA H100 80GB HBM3".
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// The device ordinal this handle was opened with.
    pub fn ordinal(&self) -> usize {
        self.shared.ordinal
    }

    /// (major, minor), e.g. (9, 0) for Hopper.
    pub fn compute_capability(&self) -> (u32, u32) {
        (self.shared.arch.major, self.shared.arch.minor)
    }

    /// The architecture kernels are compiled for.
    pub fn arch(&self) -> Arch {
        self.shared.arch
    }

    /// What the launch geometry needs to know about the device.
    pub fn limits(&self) -> DeviceLimits {
        self.shared.limits
    }

    /// The most shared memory one block may have, in bytes, dynamic shared memory opted into
    /// beyond 48 KiB included (227 KiB on sm_90): what a generated kernel whose shared arrays
    /// are past 48 KiB may take ([`KernelSpec::dynamic_shared_bytes`]).
    ///
    /// [`KernelSpec::dynamic_shared_bytes`]: crate::launch::KernelSpec::dynamic_shared_bytes
    pub(crate) fn max_shared_bytes_per_block(&self) -> u32 {
        self.shared.max_shared_per_block
    }

    /// The CUDA version the driver supports, as `cuDriverGetVersion` reports it (13000 for 13.0).
    pub fn driver_version(&self) -> i32 {
        self.shared.driver_version
    }

    /// The stream all work of this handle goes to, for interoperation (e.g. a cuSPARSE baseline).
    /// Work put on it by hand is ordered with this handle's work; work on any other stream is not.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.lane.stream
    }

    /// Orders work about to be queued on this stream after the work queued so far on `streams` (the
    /// streams of buffers the work uses, `None` for empty buffers), where they are not this handle's:
    /// see the module documentation. Returns the other streams, to pass to [`Gpu::leave_foreign`]
    /// once the work is queued. [`LoopsError::ForeignBuffer`] for a stream of another context, with
    /// `context(i)` naming the `i`th buffer.
    pub(crate) fn enter_foreign<'s>(
        &self,
        streams: impl IntoIterator<Item = (usize, Option<&'s Arc<CudaStream>>)>,
        context: impl Fn(usize) -> String,
    ) -> Result<Vec<&'s Arc<CudaStream>>> {
        let mut foreign: Vec<&'s Arc<CudaStream>> = Vec::new();
        for (i, s) in streams {
            let Some(s) = s else { continue };
            if Arc::ptr_eq(s, &self.lane.stream) || foreign.iter().any(|f| Arc::ptr_eq(f, s)) {
                continue;
            }
            if s.context().cu_ctx() != self.shared.ctx.cu_ctx() {
                return Err(LoopsError::ForeignBuffer {
                    context: context(i),
                });
            }
            self.lane
                .stream
                .join(s)
                .map_err(LoopsError::driver(format!(
                    "{}: ordering this handle's stream after the stream of the buffer's handle",
                    context(i)
                )))?;
            foreign.push(s);
        }
        Ok(foreign)
    }

    /// After work that used buffers of the `foreign` streams was queued on this stream: orders their
    /// later work (and the buffers' frees) after it.
    pub(crate) fn leave_foreign(&self, foreign: &[&Arc<CudaStream>], what: &str) -> Result<()> {
        for s in foreign {
            s.join(&self.lane.stream)
                .map_err(LoopsError::driver(format!(
                    "{what}: ordering the stream of a buffer's handle after this handle's stream"
                )))?;
        }
        Ok(())
    }

    /// Runs `work` (which queues work on this stream using a buffer of `stream`) between
    /// [`Gpu::enter_foreign`] and [`Gpu::leave_foreign`].
    pub(crate) fn with_buffer_of<R>(
        &self,
        stream: Option<&Arc<CudaStream>>,
        context: impl Fn() -> String,
        work: impl FnOnce() -> Result<R>,
    ) -> Result<R> {
        let foreign = self.enter_foreign([(0, stream)], |_| context())?;
        let result = work();
        let left = self.leave_foreign(&foreign, &context());
        let r = result?;
        left?;
        Ok(r)
    }

    /// Waits for all work queued on this handle's stream. Also reports an error that cudarc recorded
    /// where it could not return one (in a drop).
    pub fn synchronize(&self) -> Result<()> {
        self.lane
            .stream
            .synchronize()
            .map_err(LoopsError::driver("synchronizing the stream"))?;
        self.shared.ctx.check_err().map_err(LoopsError::driver(
            "an earlier asynchronous operation (reported late)",
        ))
    }

    /// Waits for all work on every stream of this device's context: this handle's, its siblings'
    /// (see [`Gpu::fork`]) and any other handle's of the device (`cuCtxSynchronize`).
    pub fn synchronize_device(&self) -> Result<()> {
        self.shared.ctx.synchronize().map_err(LoopsError::driver(
            "synchronizing the device (every stream)",
        ))?;
        self.shared.ctx.check_err().map_err(LoopsError::driver(
            "an earlier asynchronous operation (reported late)",
        ))
    }

    /// This handle inside a level of a device frontier loop: the same stream, scratch and kernels,
    /// with `list` the context of every launch made through it. The loop gives it to its step and
    /// launches its own kernels of the level on it; no other handle knows of the loop.
    pub(crate) fn in_device_loop(&self, list: DeviceList) -> Gpu {
        Gpu {
            shared: self.shared.clone(),
            lane: self.lane.clone(),
            device_loop: Some(list),
        }
    }

    /// The device loop this handle was given for ([`Gpu::in_device_loop`]), if any.
    pub(crate) fn device_loop(&self) -> Option<DeviceList> {
        self.device_loop
    }

    /// Whether this handle launches generated kernels with programmatic dependent launch
    /// (compute capability 9.0 and newer): a kernel may start launching while the one before it
    /// on the stream runs, and waits for it in its first instruction (`loops_grid_dependency`,
    /// which every generated entry point begins with), so the latency between two dependent
    /// launches is hidden. Results are the same either way. On by default where the device has it,
    /// unless `LOOPS_PROGRAMMATIC_LAUNCH=0`; off launches the ordinary way, for comparison.
    pub fn set_programmatic_launch(&self, on: bool) {
        let on = on && self.compute_capability().0 >= 9;
        self.lane.programmatic.store(on, Ordering::Relaxed);
    }

    /// See [`Gpu::set_programmatic_launch`].
    pub(crate) fn programmatic_launch(&self) -> bool {
        self.lane.programmatic.load(Ordering::Relaxed)
    }

    /// The scratch area with at least `slots` 8-byte slots, all 0 when new: a fresh epoch with no
    /// records (see the kernel ABI in `launch`). Held locked by the caller until its launch is queued.
    pub(crate) fn scratch(&self, slots: usize) -> Result<MutexGuard<'_, DeviceBuffer<u64>>> {
        self.grown(
            &self.lane.scratch,
            slots,
            " (global scratch of the carry schedules)",
        )
    }

    /// The subset area with at least `slots` 8-byte slots; held locked like [`Gpu::scratch`].
    pub(crate) fn subset_area(&self, slots: usize) -> Result<MutexGuard<'_, DeviceBuffer<u64>>> {
        self.grown(
            &self.lane.subset_area,
            slots,
            " (prefix sums of tile subsets)",
        )
    }

    /// The area of per-tile state kept across the passes of a call (the hidden `TileState`) with
    /// at least `slots` 8-byte slots; held locked by the call until its passes are queued. Kept
    /// between calls: allocating it per call (8 bytes a tile and state variable) cost more than
    /// the pass itself on a 4M-row grid (H200, `hierarchical` SpMV on `grid2d_2048`).
    pub(crate) fn tile_state_area(
        &self,
        slots: usize,
    ) -> Result<MutexGuard<'_, DeviceBuffer<u64>>> {
        self.grown(
            &self.lane.tile_state,
            slots,
            " (per-tile state of `hierarchical`)",
        )
    }

    /// `area`, locked, after growing it to at least `slots` zeroed slots where it is smaller.
    fn grown<'s>(
        &self,
        area: &'s Mutex<DeviceBuffer<u64>>,
        slots: usize,
        suffix: &str,
    ) -> Result<MutexGuard<'s, DeviceBuffer<u64>>> {
        let mut scratch = lock(area);
        if scratch.len() < slots {
            // Grow geometrically so that a sequence of larger launches reallocates rarely.
            let slots = slots.max(2 * scratch.len());
            *scratch = self.zeros::<u64>(slots).map_err(|e| match e {
                LoopsError::Driver { context, source } => LoopsError::Driver {
                    context: format!("{context}{suffix}"),
                    source,
                },
                LoopsError::OutOfMemory {
                    what,
                    requested_bytes,
                    free_bytes,
                    total_bytes,
                } => LoopsError::OutOfMemory {
                    what: format!("{what}{suffix}"),
                    requested_bytes,
                    free_bytes,
                    total_bytes,
                },
                e => e,
            })?;
        }
        Ok(scratch)
    }
}

fn version_text(v: i32) -> String {
    format!("{}.{}", v / 1000, (v % 1000) / 10)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::DeviceCsr;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn handles_are_send_and_sync() {
        assert_send_sync::<Gpu>();
        assert_send_sync::<DeviceBuffer<f32>>();
        assert_send_sync::<DeviceCsr<f64>>();
        assert_send_sync::<GpuTimer>();
    }

    #[test]
    fn a_lane_waits_for_its_stream_unless_it_is_being_captured() {
        use sys::CUstreamCaptureStatus as S;
        assert!(waits_on_drop(Some(&S::CU_STREAM_CAPTURE_STATUS_NONE)));
        assert!(waits_on_drop(Some(
            &S::CU_STREAM_CAPTURE_STATUS_INVALIDATED
        )));
        assert!(waits_on_drop(None));
        assert!(!waits_on_drop(Some(&S::CU_STREAM_CAPTURE_STATUS_ACTIVE)));
    }

    #[test]
    fn empty_buffer_needs_no_device() {
        let b = DeviceBuffer::<f32>::empty();
        assert_eq!(b.len(), 0);
        assert!(b.is_empty());
        assert_eq!(b.device_ptr(), 0);
        assert!(b.cuda_slice().is_none());
        assert_eq!(b.capacity(), 0);
    }

    #[test]
    fn set_len_stays_within_capacity() {
        let mut b = DeviceBuffer::<u32>::empty();
        b.set_len(0);
        assert_eq!(b.len(), 0);
        let r = std::panic::catch_unwind(move || b.set_len(1));
        assert!(r.is_err());
    }

    #[test]
    fn driver_version_text() {
        assert_eq!(version_text(13000), "13.0");
        assert_eq!(version_text(12040), "12.4");
    }
}

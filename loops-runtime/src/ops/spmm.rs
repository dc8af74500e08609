//! `C = A B` for a CSR `A` (32-bit offsets and indices) and a dense row-major `B` of `k` columns:
//! hand-written CUDA in `spmm.cuh` (its header says how a group of lanes shares a run of
//! nonzeros), launched with a plan chosen here from `k` and the matrix's row lengths (counted on
//! upload, so choosing reads nothing from the device).
//!
//! The plan ([`spmm_plan`]):
//! - *vector width* `V`: 16-byte loads (`float4`, `double2`) when `k` is a multiple of 4 (f32) or 2
//!   (f64), 8-byte `float2` when an f32 `k` is even, one element otherwise;
//! - *lanes over k* `GK`: enough lanes for one row of `B` (`k / V` vectors), at most a warp; a
//!   wider row is cut into tiles of `GK · VPL` vectors, `VPL` (1, 2, 4) vectors per lane in
//!   registers;
//! - *lanes over nonzeros* `GN`: the lanes `GK` leaves of a warp, as many as half the mean row
//!   length asks for (the vector-CSR rule of SpMV: short rows want few lanes, long rows many);
//! - *mapping*: one group per row (`Rows`), unless the longest row is long against both the mean
//!   row and a balanced share of the work of the groups the device holds at once: then `Split`,
//!   the same kernel capped at `piece` nonzeros per row and a second kernel whose groups take
//!   the rest of the long rows `piece` nonzeros at a time, added with atomics. One long row under
//!   `Rows` would keep one group busy while the rest of the device idles; cutting every row into
//!   pieces (the first version did) walks short rows one after another and lost 3x on R-MAT.
//!
//! No fixed rule wins everywhere (more lanes over nonzeros cut small matrices' latency but lose on
//! large ones of short rows; fewer lanes over k win at k >= 32 on some shapes only), so [`spmm`]
//! *measures* ([`spmm_tuned`]): its first call for a matrix, element type and k times the model's
//! plan and a few neighbours in two rounds: how long rows are shared (`sharing_candidates`:
//! smaller pieces, or `Split` where the model chose `Rows`), where that applies, then, with the
//! winner's mapping and piece, how the lanes are laid (`lane_candidates`: fewer lanes over k
//! with more vectors each, more or fewer lanes over nonzeros). Each round launches each plan once,
//! then a few times between CUDA events, queued behind a kernel that holds the stream so that no
//! launch waits for the host (the runtime's one harness, [`crate::tune::measure`]). The fastest
//! plan is kept with the matrix (its `TileSetCache`) and in the tuning cache on disk ([`crate::tune`]), so later calls, and later processes, launch
//! it directly. The candidates run on the call's own `C` (every plan stores every row of `C`
//! before any atomic adds onto it, so each run leaves the same result; the winner runs last).
//! Not measured (the kept or stored winner if there is one, else the model's plan): calls while
//! the stream is being captured into a CUDA graph, and every call under `LOOPS_TUNE=off` (which
//! also reads nothing from the cache: the model's plan, nothing timed).
//!
//! Rooms: this file (the op, its measured choice and its launch), `plan` (the plan and the
//! candidates), `tests`.

use std::time::Instant;

use cudarc::driver::sys::CUstreamCaptureStatus;
use kernels_gen::schedule::LaunchDims;

use crate::device::{DeviceBuffer, Gpu};
use crate::element::Float;
use crate::error::{LoopsError, Result};
use crate::formats::{DeviceCsr, TileSet};
use crate::launch::entry::{entries, Ptr};
use crate::launch::preprocess::Preprocessed;
use crate::tune::measure::{self, Launches, Settings};
use crate::tune::report::{publish, TuneReport};
use crate::tune::{DeviceIdentity, Fingerprint, TuneCache, TuneKey, Winner};

/// The CUDA text of the SpMM kernels (every entry point compiled at once, on first use).
pub const SPMM_SOURCE: &str = include_str!("spmm.cuh");

entries! {
    source: SPMM_SOURCE;
    undeclared: [];
    /// Zeroes `words` 4-byte words at `c` (C of a matrix with no nonzeros).
    fn loops_spmm_zero_words(c: *mut u32, words: u64);
    /// A group of lanes per row, up to `piece` nonzeros of it under `Split` (every row of C
    /// stored).
    fn spmm_rows<T: Float [f32, f64]> = "loops_spmm_rows_*_v*_t*" (
        rows: i32, nnz: i32, offsets: *const i32, indices: *const i32, values: *const T,
        b: *const T, c: *mut T, kv: u32, log_gk: u32, log_gn: u32, piece: i32,
    );
    /// Under `Split`: a group per further piece of the long rows, added with atomics.
    fn spmm_tails<T: Float [f32, f64]> = "loops_spmm_tails_*_v*_t*" (
        rows: i32, nnz: i32, offsets: *const i32, indices: *const i32, values: *const T,
        b: *const T, c: *mut T, kv: u32, log_gk: u32, log_gn: u32, piece: i32,
    );
}

/// Threads per block of every SpMM launch.
const BLOCK: u32 = 256;

mod plan;
pub(crate) use plan::{check_plan, lane_candidates, sharing_candidates, vector_width};
pub use plan::{spmm_candidates, spmm_plan, SpmmMapping, SpmmPlan, SpmmShape};

/// `k` as the kernels take it, refusing 0 and sizes whose products overflow.
pub(crate) fn check_k(op: &'static str, k: usize, rows: usize, cols: usize) -> Result<()> {
    let bad = |detail: String| Err(LoopsError::InvalidArgument { op, detail });
    if k == 0 {
        return bad("k must be at least 1".into());
    }
    if k > i32::MAX as usize {
        return bad(format!("k = {k} exceeds i32::MAX"));
    }
    for (n, what) in [(rows, "rows"), (cols, "columns")] {
        if n.checked_mul(k).and_then(|e| e.checked_mul(8)).is_none() {
            return bad(format!("{n} {what} times k = {k} overflows"));
        }
    }
    Ok(())
}

/// `len >= required`, or [`LoopsError::BufferTooShort`] naming `op`'s parameter.
pub(crate) fn check_buffer(
    op: &'static str,
    param: &str,
    len: usize,
    required: usize,
    why: &str,
) -> Result<()> {
    if len < required {
        return Err(LoopsError::BufferTooShort {
            kernel: op.to_string(),
            param: param.to_string(),
            len,
            required,
            why: why.to_string(),
        });
    }
    Ok(())
}

/// The 32-bit offsets of `a`, or [`LoopsError::WideUnsupported`] for a matrix of 64-bit offsets.
pub(crate) fn narrow_offsets<'a, T: Float>(
    op: &'static str,
    a: &'a DeviceCsr<T>,
) -> Result<&'a DeviceBuffer<i32>> {
    if a.wide_offsets().is_some() {
        return Err(LoopsError::WideUnsupported {
            kernel: op.to_string(),
            schedule: "hand-written".to_string(),
            param: "a".to_string(),
            atoms: a.nnz(),
            why: format!("`{op}` takes 32-bit offsets only"),
        });
    }
    Ok(a.offsets())
}

/// Blocks of [`BLOCK`] threads for `groups` groups of `group` lanes.
fn blocks(groups: usize, group: u32) -> Result<u32> {
    let blocks = (groups * group as usize).div_ceil(BLOCK as usize);
    u32::try_from(blocks.max(1)).map_err(|_| LoopsError::InvalidArgument {
        op: "spmm",
        detail: format!("{blocks} blocks exceed a launch's grid"),
    })
}

/// The errors [`spmm`] returns before launching anything: `k` of 0 or over `i32::MAX`, sizes
/// whose products overflow, a matrix of 64-bit offsets, `b` shorter than `cols · k` or `c` than
/// `rows · k`.
pub fn check_spmm<T: Float>(
    a: &DeviceCsr<T>,
    b: &DeviceBuffer<T>,
    k: usize,
    c: &DeviceBuffer<T>,
) -> Result<()> {
    const OP: &str = "spmm";
    check_k(OP, k, a.rows(), a.cols())?;
    narrow_offsets(OP, a)?;
    check_buffer(OP, "b", b.len(), a.cols() * k, "cols x k, row-major")?;
    check_buffer(OP, "c", c.len(), a.rows() * k, "rows x k, row-major")
}

/// `C = A B` (see `loops::ops::CsrOps::spmm`): `b` holds at least `cols · k` elements, `c` at
/// least `rows · k` (entries past them are left alone).
pub fn spmm<T: Float>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    b: &DeviceBuffer<T>,
    k: usize,
    c: &mut DeviceBuffer<T>,
) -> Result<()> {
    spmm_tuned(gpu, a, b, k, c, TuneCache::global()).map(|_| ())
}

/// Where the plan of a [`spmm_tuned`] call came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanSource {
    /// The model's plan, nothing timed: tuning off, a stream being captured, an empty matrix, a
    /// single candidate, or a measurement that failed (warned once).
    Model,
    /// Measured by an earlier call on this matrix, element type and k, and kept with the matrix.
    Kept,
    /// Read from the tuning cache on disk (measured by an earlier process on a matrix of the same
    /// shape), then kept with the matrix.
    Stored,
    /// Measured by this call (see the module documentation), then kept and stored.
    Measured,
}

/// [`spmm`] with the tuning settings `cache` (the process's are [`TuneCache::global`]): returns
/// the plan launched and where it came from.
pub fn spmm_tuned<T: Float>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    b: &DeviceBuffer<T>,
    k: usize,
    c: &mut DeviceBuffer<T>,
    cache: &TuneCache,
) -> Result<(SpmmPlan, PlanSource)> {
    check_spmm(a, b, k, c)?;
    let (plan, source) = choose_plan(gpu, a, b, k, c, cache)?;
    launch(gpu, a, b, k, c, plan)?;
    Ok((plan, source))
}

/// The plan kept with `a` for element type `T` and `k` by an earlier measured (or stored) call,
/// if there is one.
pub fn kept_plan<T: Float>(a: &DeviceCsr<T>, k: usize) -> Option<SpmmPlan> {
    a.preprocessed()
        .op_plan(&memo_key::<T>(k))
        .and_then(|label| SpmmPlan::from_label(&label))
        .filter(|p| check_plan(*p, k, std::mem::size_of::<T>()))
}

/// The key of a plan kept with a matrix.
fn memo_key<T: Float>(k: usize) -> String {
    format!("spmm {} k={k}", T::RUST_NAME)
}

/// The tuning cache's key: the kernels' source, the device, the matrix's shape, k.
fn disk_key<T: Float>(gpu: &Gpu, a: &DeviceCsr<T>, k: usize) -> TuneKey {
    let stats = a.core().stats();
    let fingerprint = Fingerprint {
        element: T::RUST_NAME.to_string(),
        checked: false,
        wide: false,
        tiles: stats.tiles,
        atoms: stats.atoms,
        histogram: stats.histogram,
        longest_tile: stats.max_tile_atoms,
        longest_empty_run: stats.longest_empty_run,
        extra: vec![k as u64, a.cols() as u64],
    };
    TuneKey::new(
        "loops_spmm",
        SPMM_SOURCE,
        &DeviceIdentity::of(gpu),
        &fingerprint,
    )
}

/// Whether `gpu`'s stream is being captured into a graph (an unknown status counts as yes: then
/// nothing is timed).
fn capturing(gpu: &Gpu) -> bool {
    !matches!(
        gpu.stream().capture_status(),
        Ok(CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE)
    )
}

/// The plan of a checked call: see the module documentation.
fn choose_plan<T: Float>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    b: &DeviceBuffer<T>,
    k: usize,
    c: &mut DeviceBuffer<T>,
    cache: &TuneCache,
) -> Result<(SpmmPlan, PlanSource)> {
    let shape = shape_of(gpu, a, k);
    let candidates = spmm_candidates(shape);
    let model = candidates[0];
    if !cache.tuning_enabled() || a.rows() == 0 || a.nnz() == 0 || candidates.len() < 2 {
        return Ok((model, PlanSource::Model));
    }
    if let Some(plan) = kept_plan(a, k) {
        return Ok((plan, PlanSource::Kept));
    }
    let key = disk_key(gpu, a, k);
    let stored = cache
        .load(&key)
        .and_then(|w| SpmmPlan::from_label(&w.variant))
        .filter(|p| candidates.contains(p));
    if let Some(plan) = stored {
        a.preprocessed()
            .remember_op_plan(memo_key::<T>(k), plan.label());
        return Ok((plan, PlanSource::Stored));
    }
    if capturing(gpu) {
        return Ok((model, PlanSource::Model));
    }
    let started = Instant::now();
    let measured = (|| -> Result<(SpmmPlan, Vec<(String, f64)>)> {
        let mut timings: Vec<(String, f64)> = Vec::new();
        let mut winner = model;
        for round in [1, 2] {
            let candidates = if round == 1 {
                sharing_candidates(shape, winner)
            } else {
                lane_candidates(shape, winner)
            };
            if candidates.len() < 2 {
                continue;
            }
            let times = time_plans(gpu, a, b, k, c, &candidates)?;
            timings.extend(
                candidates
                    .iter()
                    .zip(&times)
                    .map(|(p, &us)| (format!("{} (round {round})", p.label()), us)),
            );
            winner = candidates[fastest(&times)];
        }
        Ok((winner, timings))
    })();
    let (winner, timings_us) = match measured {
        Ok(measured) => measured,
        Err(e) => {
            static WARNED: std::sync::Once = std::sync::Once::new();
            WARNED.call_once(|| {
                eprintln!(
                    "loops: could not time spmm's candidate plans ({e}); the model's plan runs \
                     (this warning is shown once)"
                )
            });
            return Ok((model, PlanSource::Model));
        }
    };
    cache.store(
        &key,
        &Winner {
            variant: winner.label(),
            timings_us: timings_us.clone(),
        },
    );
    a.preprocessed()
        .remember_op_plan(memo_key::<T>(k), winner.label());
    publish(&TuneReport {
        kernel: "loops_spmm".to_string(),
        element: format!("{} k={k}", T::RUST_NAME),
        tiles: a.rows() as u64,
        atoms: a.nnz() as u64,
        timings_us,
        winner: winner.label(),
        cost: started.elapsed(),
        stored: cache.path(&key),
    });
    Ok((winner, PlanSource::Measured))
}

/// The index of the smallest time; the first wins ties (the model's plan, or the first round's
/// winner).
fn fastest(times: &[f64]) -> usize {
    (1..times.len()).fold(0, |best, i| if times[i] < times[best] { i } else { best })
}

/// Each plan's median time per launch in microseconds, on the call's operands (`c` is written):
/// each plan's kernels loaded (compiled with the rest of the source on first use, alongside the
/// stream hold), then measured by [`measure::medians`] with [`Settings::OPS`]: one launch each,
/// then 3, 5 or 7 rounds (fewer when a launch takes long: the measurement is the first call's
/// cost) of one launch of each between CUDA events, queued behind the stream hold.
fn time_plans<T: Float>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    b: &DeviceBuffer<T>,
    k: usize,
    c: &mut DeviceBuffer<T>,
    plans: &[SpmmPlan],
) -> Result<Vec<f64>> {
    let mut entries = Vec::new();
    for p in plans {
        entries.push(p.entry(T::RUST_NAME));
        entries.extend(p.tails_entry(T::RUST_NAME));
    }
    std::thread::scope(|scope| {
        let hold = scope.spawn(|| measure::load_hold(gpu));
        let loaded = gpu.load_entries("loops_spmm", SPMM_SOURCE, &entries);
        let hold = hold.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        loaded.and(hold.map(drop))
    })?;
    measure::medians(
        gpu,
        Settings::OPS,
        &mut Launches(plans.len(), |i| launch(gpu, a, b, k, c, plans[i])),
    )
}

/// [`spmm`] under a given mapping (the benchmark times each); returns the plan it launched.
pub fn spmm_with<T: Float>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    b: &DeviceBuffer<T>,
    k: usize,
    c: &mut DeviceBuffer<T>,
    mapping: SpmmMapping,
) -> Result<SpmmPlan> {
    check_spmm(a, b, k, c)?;
    let plan = spmm_plan(shape_of(gpu, a, k), mapping);
    launch(gpu, a, b, k, c, plan)?;
    Ok(plan)
}

/// The [`SpmmShape`] of `a` at `k` on `gpu`: what [`spmm_plan`] chooses from.
pub fn shape_of<T: Float>(gpu: &Gpu, a: &DeviceCsr<T>, k: usize) -> SpmmShape {
    let limits = gpu.limits();
    SpmmShape {
        rows: a.rows(),
        nnz: a.nnz(),
        max_row: a.core().stats().max_tile_atoms as usize,
        k,
        element_bytes: std::mem::size_of::<T>(),
        sm_count: limits.sm_count,
        max_threads_per_sm: limits.max_threads_per_sm,
    }
}

/// [`spmm`] with a plan of the caller's (the benchmark times variants of the chosen one). Errors
/// as [`spmm`] does, or if the plan does not fit `k` and the kernels: a vector width that does not
/// divide `k`, a group wider than a warp, tile vectors other than 1, 2, 4, `Auto` as the mapping,
/// `Rows` with a piece, or `Split` with a piece that is not a positive multiple of 32 (or over
/// `i32::MAX`): see `check_plan`.
pub fn spmm_with_plan<T: Float>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    b: &DeviceBuffer<T>,
    k: usize,
    c: &mut DeviceBuffer<T>,
    plan: SpmmPlan,
) -> Result<()> {
    check_spmm(a, b, k, c)?;
    if !check_plan(plan, k, std::mem::size_of::<T>()) {
        return Err(LoopsError::InvalidArgument {
            op: "spmm",
            detail: format!("{plan:?} does not fit k = {k} and the kernels"),
        });
    }
    launch(gpu, a, b, k, c, plan)
}

/// Launches `plan` (checked) on checked operands.
fn launch<T: Float>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    b: &DeviceBuffer<T>,
    k: usize,
    c: &mut DeviceBuffer<T>,
    plan: SpmmPlan,
) -> Result<()> {
    if a.rows() == 0 {
        return Ok(());
    }
    if a.nnz() == 0 {
        return zero(gpu, c, a.rows() * k);
    }
    // The rows (capped at `piece` nonzeros under `Split`), every row of C stored; then, under
    // `Split`, the rest of the long rows added onto them: one group per piece of nonzeros after
    // the first (the first piece holds no tail).
    let piece = plan.piece as usize;
    let launches = [
        Some((plan.entry(T::RUST_NAME), a.rows())),
        plan.tails_entry(T::RUST_NAME)
            .map(|e| (e, a.nnz().div_ceil(piece.max(1)).saturating_sub(1))),
    ];
    for (entry, groups) in launches.into_iter().flatten() {
        if groups == 0 {
            continue;
        }
        let function = gpu.function("loops_spmm", SPMM_SOURCE, &entry)?;
        let dims = LaunchDims {
            grid: blocks(groups, plan.group())?,
            block: BLOCK,
            shared_bytes: 0,
        };
        // `rows` and `tails` take the same parameters.
        let args = spmm_rows::args(
            a.rows() as i32,
            a.nnz() as i32,
            a.offsets(),
            a.indices(),
            a.values(),
            b,
            &*c,
            (k / plan.vector as usize) as u32,
            plan.log_lanes_k,
            plan.log_lanes_nz,
            plan.piece as i32,
        );
        gpu.launch_function(&entry, &function, dims, args)?;
    }
    Ok(())
}

/// Zeroes the first `n` elements of `c`.
fn zero<T: Float>(gpu: &Gpu, c: &mut DeviceBuffer<T>, n: usize) -> Result<()> {
    const ENTRY: &str = "loops_spmm_zero_words";
    let words = n * std::mem::size_of::<T>() / 4;
    if words == 0 {
        return Ok(());
    }
    let function = gpu.function("loops_spmm", SPMM_SOURCE, ENTRY)?;
    let limits = gpu.limits();
    let full = limits.sm_count as usize * (limits.max_threads_per_sm as usize / BLOCK as usize);
    let dims = LaunchDims {
        grid: words.div_ceil(BLOCK as usize).clamp(1, full.max(1) * 4) as u32,
        block: BLOCK,
        shared_bytes: 0,
    };
    let args = loops_spmm_zero_words::args(Ptr::cast(c), words as u64);
    gpu.launch_function(ENTRY, &function, dims, args)
}

#[cfg(test)]
mod tests;

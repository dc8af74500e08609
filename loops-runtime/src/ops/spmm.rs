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

/// How the groups of lanes are laid over the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpmmMapping {
    /// Chosen by [`spmm_plan`] from the row lengths.
    Auto,
    /// One group per row.
    Rows,
    /// One group per row for its first `piece` nonzeros, then one group per `piece` nonzeros of
    /// what is left of the long rows (atomics).
    Split,
}

/// What one SpMM launch runs: see the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpmmPlan {
    /// [`SpmmMapping::Rows`] or [`SpmmMapping::Split`].
    pub mapping: SpmmMapping,
    /// Elements per load (1, 2 or 4).
    pub vector: u32,
    /// Vectors per lane and k tile (1, 2 or 4).
    pub tile_vectors: u32,
    /// log2 of the lanes over k.
    pub log_lanes_k: u32,
    /// log2 of the lanes over nonzeros.
    pub log_lanes_nz: u32,
    /// Under `Split`, the nonzeros of a row the first kernel does and of each piece of the second
    /// (0 under `Rows`).
    pub piece: u32,
}

impl SpmmPlan {
    /// Lanes per group.
    pub fn group(&self) -> u32 {
        1 << (self.log_lanes_k + self.log_lanes_nz)
    }

    /// The entry point of `spmm.cuh` this plan launches first, for element type `precision`
    /// ("f32" or "f64").
    pub fn entry(&self, precision: &str) -> String {
        format!(
            "loops_spmm_rows_{precision}_v{}_t{}",
            self.vector, self.tile_vectors
        )
    }

    /// The plan as text: `mapping:vVECTOR:kLANES_K:nLANES_NZ:tTILE_VECTORS`, and `:pPIECE` under
    /// `Split` (`rows:v4:k8:n4:t1`, `split:v4:k8:n4:t1:p2016`). `SpmmPlan::from_label` reads it
    /// back (the tuning cache stores winners so).
    pub fn label(&self) -> String {
        let mapping = match self.mapping {
            SpmmMapping::Auto => "auto",
            SpmmMapping::Rows => "rows",
            SpmmMapping::Split => "split",
        };
        let mut label = format!(
            "{mapping}:v{}:k{}:n{}:t{}",
            self.vector,
            1u64 << self.log_lanes_k,
            1u64 << self.log_lanes_nz,
            self.tile_vectors
        );
        if self.mapping == SpmmMapping::Split {
            label.push_str(&format!(":p{}", self.piece));
        }
        label
    }

    /// The plan [`SpmmPlan::label`] wrote, or `None` for any other text (lane counts must be
    /// powers of two; nothing else is checked: see [`check_plan`]).
    pub(crate) fn from_label(label: &str) -> Option<SpmmPlan> {
        let mut parts = label.split(':');
        let mapping = match parts.next()? {
            "rows" => SpmmMapping::Rows,
            "split" => SpmmMapping::Split,
            _ => return None,
        };
        let mut number = |prefix: char| -> Option<u32> {
            let part = parts.next()?.strip_prefix(prefix)?;
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            part.parse().ok()
        };
        let vector = number('v')?;
        let lanes_k = number('k')?;
        let lanes_nz = number('n')?;
        let tile_vectors = number('t')?;
        let piece = match mapping {
            SpmmMapping::Split => number('p')?,
            _ => 0,
        };
        if parts.next().is_some() || !lanes_k.is_power_of_two() || !lanes_nz.is_power_of_two() {
            return None;
        }
        Some(SpmmPlan {
            mapping,
            vector,
            tile_vectors,
            log_lanes_k: lanes_k.trailing_zeros(),
            log_lanes_nz: lanes_nz.trailing_zeros(),
            piece,
        })
    }

    /// The entry point that finishes the long rows under `Split` (None under `Rows`).
    pub fn tails_entry(&self, precision: &str) -> Option<String> {
        (self.mapping == SpmmMapping::Split).then(|| {
            format!(
                "loops_spmm_tails_{precision}_v{}_t{}",
                self.vector, self.tile_vectors
            )
        })
    }
}

/// What [`spmm_plan`] looks at: the matrix's shape, `k`, the element size and the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpmmShape {
    /// Rows of `A`.
    pub rows: usize,
    /// Stored entries of `A`.
    pub nnz: usize,
    /// Nonzeros of the longest row.
    pub max_row: usize,
    /// Columns of `B` and `C`.
    pub k: usize,
    /// 4 (f32) or 8 (f64).
    pub element_bytes: usize,
    /// The device's multiprocessors.
    pub sm_count: u32,
    /// Threads each multiprocessor holds at once.
    pub max_threads_per_sm: u32,
}

/// Elements per load for rows of `k` elements of `element_bytes` each: 16 bytes where `k` allows,
/// then 8, then one element.
pub(crate) fn vector_width(k: usize, element_bytes: usize) -> u32 {
    let mut v = (16 / element_bytes.max(1)).max(1);
    while v > 1 && !k.is_multiple_of(v) {
        v /= 2;
    }
    v as u32
}

/// The largest power of two at most `n` (1 for 0).
fn floor_pow2(n: usize) -> usize {
    if n <= 1 {
        1
    } else {
        1 << (usize::BITS - 1 - n.leading_zeros())
    }
}

/// The launch plan for `shape` under `mapping` ([`SpmmMapping::Auto`] chooses): see the module
/// documentation.
pub fn spmm_plan(shape: SpmmShape, mapping: SpmmMapping) -> SpmmPlan {
    let vector = vector_width(shape.k, shape.element_bytes);
    let kv = (shape.k / vector as usize).max(1);
    let lanes_k = kv.next_power_of_two().min(32);
    let tiles = kv.div_ceil(lanes_k);
    let tile_vectors = if tiles >= 4 {
        4
    } else {
        tiles.next_power_of_two() as u32
    };
    let mean = shape.nnz / shape.rows.max(1);
    let lanes_nz = floor_pow2(mean / 2).clamp(1, 32 / lanes_k);
    let group = lanes_k * lanes_nz;
    let threads = (shape.sm_count.max(1) as usize) * (shape.max_threads_per_sm.max(32) as usize);
    let groups_at_once = (threads / group).max(1);
    let balanced = shape.nnz / groups_at_once;
    // A balanced share of the nonzeros per group, neither so short that the tails' binary
    // searches dominate nor so long that a few groups finish last.
    let split_piece = balanced.clamp(32, 4096).next_multiple_of(32);
    let mapping = match mapping {
        SpmmMapping::Auto => {
            let long = shape.max_row > 16 * mean.max(1) && shape.max_row > 4 * split_piece;
            if long {
                SpmmMapping::Split
            } else {
                SpmmMapping::Rows
            }
        }
        chosen => chosen,
    };
    let piece = match mapping {
        SpmmMapping::Split => split_piece as u32,
        _ => 0,
    };
    SpmmPlan {
        mapping,
        vector,
        tile_vectors,
        log_lanes_k: lanes_k.trailing_zeros(),
        log_lanes_nz: lanes_nz.trailing_zeros(),
        piece,
    }
}

/// The most plans the first call's first round times.
pub(crate) const MAX_LANE_CANDIDATES: usize = 6;

/// The second round of the first call's measurement: how the lanes of a group are laid, with the
/// mapping and piece of the first round's winner `base` (whose lanes are the model's). `base`
/// first, then, where they apply and differ from it, at most [`MAX_LANE_CANDIDATES`] in all, in
/// this order:
/// - half the lanes over k with twice the vectors each, the lanes freed going to the nonzeros
///   (same group), then the same in a group of half the lanes (more groups per warp);
/// - a quarter of the lanes over k with four times the vectors, same group (`k` of 16 vectors or
///   more);
/// - twice the lanes over nonzeros; four times, when even that leaves the device less than full
///   (small matrices, where latency rules);
/// - half, then a quarter of, the lanes over nonzeros (rows mostly shorter than the mean).
pub(crate) fn lane_candidates(shape: SpmmShape, base: SpmmPlan) -> Vec<SpmmPlan> {
    let model = base;
    let mut out = vec![model];
    let mut add = |plan: SpmmPlan| {
        if !out.contains(&plan) && out.len() < MAX_LANE_CANDIDATES {
            out.push(plan);
        }
    };
    let kv = shape.k / model.vector as usize;
    if model.log_lanes_k > 0 && model.tile_vectors < 4 {
        let fewer_k = SpmmPlan {
            log_lanes_k: model.log_lanes_k - 1,
            tile_vectors: model.tile_vectors * 2,
            ..model
        };
        add(SpmmPlan {
            log_lanes_nz: model.log_lanes_nz + 1,
            ..fewer_k
        });
        add(fewer_k);
    }
    if kv >= 16 && model.log_lanes_k > 1 && model.tile_vectors == 1 {
        add(SpmmPlan {
            log_lanes_k: model.log_lanes_k - 2,
            log_lanes_nz: model.log_lanes_nz + 2,
            tile_vectors: 4,
            ..model
        });
    }
    let lanes = model.log_lanes_k + model.log_lanes_nz;
    if lanes < 5 {
        add(SpmmPlan {
            log_lanes_nz: model.log_lanes_nz + 1,
            ..model
        });
    }
    if lanes < 4 && shape.rows.saturating_mul(4 << lanes) <= device_threads(shape) {
        add(SpmmPlan {
            log_lanes_nz: model.log_lanes_nz + 2,
            ..model
        });
    }
    for fewer in 1..=2 {
        if model.log_lanes_nz >= fewer {
            add(SpmmPlan {
                log_lanes_nz: model.log_lanes_nz - fewer,
                ..model
            });
        }
    }
    out
}

/// Threads the device holds at once.
fn device_threads(shape: SpmmShape) -> usize {
    shape.sm_count.max(1) as usize * shape.max_threads_per_sm.max(32) as usize
}

/// The first round of the first call's measurement: how long rows are shared, with the lanes of
/// `lanes` (the model's plan, which comes first). Under the model's `Split`, a quarter and
/// a sixteenth of its piece (the model's piece balances the work; smaller pieces trade atomics for
/// shorter chains); under `Rows`, `Split` with pieces of 8 and 2 mean rows where the longest row
/// is over 8 mean rows (and 64 nonzeros), or pieces of half a mean row where rows of 24 nonzeros
/// or more leave the device less than half full (latency: a row's chain of nonzeros cut in two).
/// Just `lanes` where none applies: then there is no first round. (Rows first, lanes second: the
/// other order measured worse on R-MAT and power-law rows, where the lanes the model's long pieces
/// want are not those that smaller pieces want.)
pub(crate) fn sharing_candidates(shape: SpmmShape, lanes: SpmmPlan) -> Vec<SpmmPlan> {
    let model = spmm_plan(shape, SpmmMapping::Auto);
    let mean = (shape.nnz / shape.rows.max(1)).max(1);
    let split = |piece: usize| SpmmPlan {
        mapping: SpmmMapping::Split,
        piece: piece.clamp(32, 4096).next_multiple_of(32) as u32,
        ..lanes
    };
    let mut out = vec![lanes];
    let mut add = |plan: SpmmPlan| {
        if !out.contains(&plan) {
            out.push(plan);
        }
    };
    match model.mapping {
        SpmmMapping::Split => {
            add(split(model.piece as usize / 4));
            add(split(model.piece as usize / 16));
        }
        _ if shape.max_row > 8 * mean && shape.max_row >= 64 => {
            add(split((8 * mean).max(64)));
            add(split(2 * mean));
        }
        _ if mean >= 24
            && shape.rows.saturating_mul(2 * lanes.group() as usize) <= device_threads(shape) =>
        {
            add(split(mean / 2));
        }
        _ => {}
    }
    out
}

/// Every plan the first call may pick for `shape`: the model's first, then the first round's
/// candidates, then every second-round candidate of each (`sharing_candidates`,
/// `lane_candidates`).
pub fn spmm_candidates(shape: SpmmShape) -> Vec<SpmmPlan> {
    let mut out: Vec<SpmmPlan> = Vec::new();
    let sharing = sharing_candidates(shape, spmm_plan(shape, SpmmMapping::Auto));
    for plan in sharing
        .iter()
        .copied()
        .chain(sharing.iter().flat_map(|&s| lane_candidates(shape, s)))
    {
        if !out.contains(&plan) {
            out.push(plan);
        }
    }
    out
}

/// Whether `plan` fits `k`, elements of `element_bytes` and the kernels: a vector width of 1, 2
/// or 4 that divides `k` and loads at most 16 bytes, a group of at most a warp, tile vectors of
/// 1, 2 or 4, a mapping of `Rows` or `Split`, and under `Split` a piece that is a positive
/// multiple of 32 up to `i32::MAX`.
pub(crate) fn check_plan(plan: SpmmPlan, k: usize, element_bytes: usize) -> bool {
    [1, 2, 4].contains(&plan.vector)
        && plan.vector as usize * element_bytes <= 16
        && k.is_multiple_of(plan.vector as usize)
        && [1, 2, 4].contains(&plan.tile_vectors)
        && plan.log_lanes_k + plan.log_lanes_nz <= 5
        && match plan.mapping {
            SpmmMapping::Rows => plan.piece == 0,
            SpmmMapping::Split => {
                plan.piece > 0 && plan.piece.is_multiple_of(32) && plan.piece <= i32::MAX as u32
            }
            SpmmMapping::Auto => false,
        }
}

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
mod tests {
    use super::*;

    fn shape(rows: usize, nnz: usize, max_row: usize, k: usize, bytes: usize) -> SpmmShape {
        SpmmShape {
            rows,
            nnz,
            max_row,
            k,
            element_bytes: bytes,
            sm_count: 132,
            max_threads_per_sm: 2048,
        }
    }

    #[test]
    fn vector_width_follows_k() {
        assert_eq!(vector_width(128, 4), 4);
        assert_eq!(vector_width(6, 4), 2);
        assert_eq!(vector_width(33, 4), 1);
        assert_eq!(vector_width(64, 8), 2);
        assert_eq!(vector_width(5, 8), 1);
    }

    #[test]
    fn plans_cover_k_with_lanes_and_tiles() {
        for k in 1..=300 {
            for bytes in [4, 8] {
                let p = spmm_plan(shape(1000, 16_000, 40, k, bytes), SpmmMapping::Auto);
                let kv = k / p.vector as usize;
                assert_eq!(kv * p.vector as usize, k, "k {k}: vectors cover k");
                assert!(p.group() <= 32 && p.group().is_power_of_two());
                assert!([1, 2, 4].contains(&p.tile_vectors));
                // One tile covers the row when k is at most 4 tiles of a warp's lanes.
                let tile = (1usize << p.log_lanes_k) * p.tile_vectors as usize;
                if kv <= 128 {
                    assert!(tile >= kv, "k {k}: tile {tile} < {kv} vectors");
                }
                assert_eq!(p.mapping, SpmmMapping::Rows);
            }
        }
    }

    #[test]
    fn long_rows_get_split() {
        // An arrow: one dense row of a million nonzeros among rows of 2.
        let p = spmm_plan(shape(1 << 20, 3 << 20, 1 << 20, 32, 4), SpmmMapping::Auto);
        assert_eq!(p.mapping, SpmmMapping::Split);
        assert_eq!(
            p.tails_entry("f32").as_deref(),
            Some("loops_spmm_tails_f32_v4_t1")
        );
        assert!(p.piece >= 32 && p.piece.is_multiple_of(32));
        // A banded matrix stays on rows.
        let p = spmm_plan(shape(1 << 20, 16 << 20, 16, 32, 4), SpmmMapping::Auto);
        assert_eq!(p.mapping, SpmmMapping::Rows);
        assert_eq!(p.piece, 0);
        // Forced.
        assert_eq!(p.tails_entry("f32"), None);
        let p = spmm_plan(shape(100, 1600, 16, 8, 8), SpmmMapping::Split);
        assert_eq!(p.mapping, SpmmMapping::Split);
        assert_eq!(p.entry("f64"), "loops_spmm_rows_f64_v2_t1");
        assert_eq!(p.piece, 32);
    }

    #[test]
    fn candidates_start_with_the_model_and_all_fit() {
        let shapes = [
            shape(1000, 16_000, 40, 0, 4),
            shape(3000, 150_000, 400, 0, 4),
            shape(1 << 20, 16 << 20, 20_000, 0, 4),
            shape(1 << 20, 3 << 20, 1 << 20, 0, 8),
            shape(500, 1000, 2, 0, 8),
        ];
        for base in shapes {
            for k in [2, 3, 4, 5, 8, 16, 31, 32, 33, 64, 128, 300] {
                let s = SpmmShape { k, ..base };
                let c = spmm_candidates(s);
                assert_eq!(c[0], spmm_plan(s, SpmmMapping::Auto));
                let sharing = sharing_candidates(s, c[0]);
                assert!(sharing.len() <= 3);
                for base in &sharing {
                    let lanes = lane_candidates(s, *base);
                    assert_eq!(lanes[0], *base);
                    assert!(lanes.len() <= MAX_LANE_CANDIDATES);
                    assert!(lanes.iter().all(|p| c.contains(p)));
                }
                for (i, p) in c.iter().enumerate() {
                    assert!(check_plan(*p, k, s.element_bytes), "{s:?}: {p:?}");
                    assert!(!c[..i].contains(p), "{s:?}: {p:?} twice");
                    assert_eq!(SpmmPlan::from_label(&p.label()), Some(*p));
                }
            }
        }
        // k >= 32 gets fewer lanes over k; a small matrix more lanes over nonzeros.
        let lanes_of = |s: SpmmShape| lane_candidates(s, spmm_plan(s, SpmmMapping::Auto));
        let c = lanes_of(shape(1 << 20, 16 << 20, 40, 64, 4));
        assert!(c.iter().any(|p| p.log_lanes_k < c[0].log_lanes_k));
        let c = lanes_of(shape(2000, 32_000, 40, 4, 4));
        assert!(c.iter().any(|p| p.log_lanes_nz == c[0].log_lanes_nz + 2));
        // Long rows get another piece size or mapping, with the lanes given.
        let s = shape(1 << 20, 16 << 20, 5000, 32, 4);
        let lanes = lanes_of(s)[1];
        let c = sharing_candidates(s, lanes);
        assert_eq!(c[0].mapping, SpmmMapping::Rows);
        assert_eq!(c.len(), 3);
        assert!(c[1..].iter().all(|p| p.mapping == SpmmMapping::Split
            && p.log_lanes_k == lanes.log_lanes_k
            && p.tile_vectors == lanes.tile_vectors));
        let s = shape(1 << 20, 3 << 20, 1 << 20, 32, 4);
        let c = sharing_candidates(s, spmm_plan(s, SpmmMapping::Auto));
        assert!(c.iter().all(|p| p.mapping == SpmmMapping::Split));
        assert!(c.len() >= 2);
        assert!(c.windows(2).all(|w| w[1].piece < w[0].piece));
        // Rows of 40 on a small matrix: pieces of half a row; a large one: no second round.
        let c = sharing_candidates(
            shape(2000, 80_000, 60, 128, 4),
            spmm_plan(shape(2000, 80_000, 60, 128, 4), SpmmMapping::Auto),
        );
        assert_eq!((c.len(), c[1].piece), (2, 32));
        let s = shape(1 << 20, 40 << 20, 60, 128, 4);
        assert_eq!(
            sharing_candidates(s, spmm_plan(s, SpmmMapping::Auto)).len(),
            1
        );
    }

    #[test]
    fn labels_read_back_and_reject_garbage() {
        let p = spmm_plan(shape(1 << 20, 3 << 20, 1 << 20, 32, 4), SpmmMapping::Auto);
        assert!(p.label().starts_with("split:v4:k8:"), "{}", p.label());
        assert_eq!(SpmmPlan::from_label(&p.label()), Some(p));
        for bad in [
            "",
            "rows",
            "auto:v4:k8:n4:t1",
            "rows:v4:k8:n4",
            "rows:v4:k6:n4:t1",
            "rows:v4:k8:n4:t1:p32",
            "split:v4:k8:n4:t1",
            "rows:v+4:k8:n4:t1",
            "rows:v4:k8:n4:t1x",
        ] {
            assert_eq!(SpmmPlan::from_label(bad), None, "{bad}");
        }
        let q = SpmmPlan::from_label("rows:v4:k64:n1:t1").unwrap();
        assert!(!check_plan(q, 128, 4), "a group wider than a warp");
        assert!(!check_plan(SpmmPlan { vector: 4, ..p }, 6, 4));
        assert!(!check_plan(SpmmPlan { vector: 4, ..p }, 8, 8));
    }

    #[test]
    fn k_is_checked() {
        assert!(check_k("spmm", 0, 4, 4).is_err());
        assert!(check_k("spmm", 1, 4, 4).is_ok());
        assert!(check_k("spmm", usize::MAX / 4, 100, 4).is_err());
        assert!(check_k("spmm", i32::MAX as usize + 1, 1, 1).is_err());
    }
}

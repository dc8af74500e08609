//! # loops for Rust
//!
//! Write an irregular GPU computation once, as nested loops over the *tiles* and *atoms* of a tile set
//! (rows and nonzeros of a sparse matrix), and choose how the work is spread over GPU threads with one
//! attribute:
//!
//! ```ignore
//! use loops::prelude::*;
//!
//! #[load_balanced(schedule = "thread")]
//! pub fn spmv<T: Float>(a: Csr<T>, x: &[T], y: &mut [T]) {
//!     for row in a.tiles() {
//!         let mut sum = 0.0;
//!         for nz in a.atoms(row) {
//!             sum += a.values[nz] * x[a.col_indices[nz] as usize];
//!         }
//!         y[row] = sum;
//!     }
//! }
//! ```
//!
//! To test a kernel under many schedules, write it once with `#[for_schedules(..)]` in place of
//! `#[load_balanced(..)]`: `all`, `core` (every unit at least once), names of [`SCHEDULES`]
//! (`thread`, `group4`, `warp`, `merge_path12`, ...), and `except(..)` of those before it
//! (`#[for_schedules(core, except(lrb), split3)]`). It makes one module per schedule, the lists `SCHEDULES`, `SOURCES`,
//! `CHECKED_SOURCES`, `KERNELS`, and `launch(schedule, gpu, ..)`, which takes the schedule's name:
//!
//! ```
//! use loops::prelude::*;
//!
//! #[for_schedules(thread, warp, merge_path12)] // or #[for_schedules(all)]
//! pub fn spmv<T: Float>(a: Csr<T>, x: &[T], y: &mut [T]) {
//!     for row in a.tiles() {
//!         let mut sum = 0.0;
//!         for nz in a.atoms(row) {
//!             sum += a.values[nz] * x[a.col_indices[nz] as usize];
//!         }
//!         y[row] = sum;
//!     }
//! }
//!
//! fn main() {
//!     assert_eq!(SCHEDULES, ["thread", "warp", "merge_path12"]);
//!     assert!(warp::spmv::CUDA_SOURCE.contains("spmv__f32"));
//!     assert_eq!(SOURCES.len(), 3);
//!     // With a GPU: `warp::spmv(&gpu, &a, &x, &mut y)?`, or under each schedule by name:
//!     // for schedule in SCHEDULES { launch(schedule, &gpu, &a, &x, &mut y)?; }
//! }
//! ```
//!
//! This crate is a facade: the attributes come from `loops-macros`, everything that runs from
//! `loops-runtime`, through these chosen paths only (the runtime's other items are `pub(crate)`):
//!
//! - root: [`Gpu`], [`DeviceBuffer`], the device formats ([`DeviceCsr`], [`DeviceCsc`],
//!   [`DeviceCoo`], [`DeviceOffsets`]) and their trait [`TileSet`], the element traits
//!   ([`Element`], [`Float`]), [`LoopsError`], [`Result`], [`error_chain`], [`SCHEDULES`], and the
//!   attributes ([`load_balanced`], [`for_schedules`], [`device`]);
//! - [`prelude`]: what a kernel file needs;
//! - [`schedule`]: the named schedules ([`schedule::NamedSchedule`]) and the launch geometry and
//!   CPU models of the schedules (`lrb`'s bins, `auto`'s model, [`schedule::LaunchDims`]);
//! - [`ops`]: ready-made operations ([`ops::CsrOps`]: SpMV, SpMM, SDDMM, row reductions, sort,
//!   transpose) and the hand-written ones' modules ([`ops::spmm`], [`ops::sddmm`], [`ops::sort`],
//!   [`ops::transpose`]);
//! - [`graph`]: the graph algorithms users call ([`graph::bfs()`], [`graph::sssp()`],
//!   [`graph::pagerank()`], [`graph::components()`], [`graph::triangles()`], [`graph::k_core()`]:
//!   options in, results and [`graph::GraphStats`] out), their kernels, graphs as tile sets, CPU
//!   references, and the loops ([`graph::FrontierLoop`], its strategy a parameter:
//!   [`graph::LoopOn`]; near-far SSSP);
//! - [`multi`]: several GPUs of one host ([`multi::GpuGroup`]: distributed SpMV, SpMM, BFS);
//! - [`io`]: Matrix Market ([`io::mtx`]), seeded generators ([`io::generate`]) and the checked host
//!   formats ([`io::host`]: `Csr32`, `Csc32`, CPU SpMV reference);
//! - [`check`]: comparing results with a CPU reference (row checks, error bounds);
//! - [`launch`]: launching by hand (for hand-written CUDA): [`launch::KernelArgs`], checked mode
//!   ([`launch::set_checked_mode`]), subset prefix sums ([`launch::subset`]), lrb's binning and
//!   block ranges;
//! - [`compile`]: NVRTC (PTX or CUBIN for an [`compile::Arch`]) and the on-disk kernel cache's
//!   settings ([`compile::cache`]);
//! - [`tune`]: the persistent tuning cache ([`tune::TuneCache`]) and tuning reports.
//!
//! Naming: `Device*` types hold data resident in device memory (or describe a device);
//! types whose *control* stays on the device end in `OnDevice` (`LevelsOnDevice`).

// The kernels of `ops` are written with `#[load_balanced]`, whose expansion names `::loops`.
extern crate self as loops;

pub mod graph;
pub mod ops;

pub use loops_macros::{device, for_schedules, load_balanced};
pub use loops_runtime::device::{DeviceBuffer, Gpu};
pub use loops_runtime::error::error_chain;
pub use loops_runtime::formats::{DeviceCoo, DeviceCsc, DeviceCsr, DeviceOffsets, TileSet};
pub use loops_runtime::{Element, Float, LoopsError, Result};

pub use loops_runtime::{compile, multi, tune};

/// Every named schedule: its name (`group4`), the arguments of `#[load_balanced(..)]` that
/// select it (`schedule = "group", group_size = 4`) and one line of what it does. The names are
/// what `#[for_schedules(..)]` takes and the modules it makes. Made from the schedule units
/// themselves (each unit of `kernels-gen/src/schedule/` declares its own), in the order of the
/// README's table.
///
/// ```
/// let names: Vec<&str> = loops::SCHEDULES.iter().map(|s| s.name).collect();
/// assert!(names.contains(&"merge_path12"));
/// let group4 = loops::SCHEDULES.iter().find(|s| s.name == "group4").unwrap();
/// assert_eq!(group4.attr, r#"schedule = "group", group_size = 4"#);
/// ```
pub const SCHEDULES: &[schedule::NamedSchedule] = loops_runtime::schedule::SCHEDULES;

/// The schedules as the runtime sees them: their names ([`SCHEDULES`]), launch
/// geometry (`LaunchDims`, `DeviceLimits`) and the CPU models some of them keep: `lrb`'s bins
/// (`lrb`), `auto`'s choice (`auto`), the carry schedules' partition (`carry`).
pub mod schedule {
    pub use crate::SCHEDULES;
    pub use loops_runtime::schedule::{auto, carry, lrb, DeviceLimits, LaunchDims, NamedSchedule};
}

/// Matrix Market files, seeded generators, and the checked host formats.
pub mod io {
    pub use loops_runtime::io::{generate, mtx};

    /// Host-side formats with 32-bit indices, checked (`Csr32`, `Csc32`), conversions from
    /// triplets, the CPU SpMV reference and its error bound, and the bytes a CSR upload needs.
    pub mod host {
        pub use loops_runtime::formats::host::*;
        pub use loops_runtime::formats::wide::csr_bytes;
        pub use loops_runtime::formats::Csc32;
    }
}

/// Checking GPU results against a CPU reference: `check_rows` and `check_spmv` give a
/// `RowCheck`; `spmv_reference` and `expected_error_bound` give the reference and the bound.
pub mod check {
    pub use loops_runtime::formats::host::{expected_error_bound, spmv_reference};
    pub use loops_runtime::verify::*;
}

/// Launching by hand, for hand-written CUDA beside generated kernels, and the launch settings:
/// `KernelArgs`, `KernelDesc` and `Call` (what a generated wrapper runs), checked mode
/// (`set_checked_mode`, `checked_mode`), the L1 / shared split (`set_carveout`), what a tile set
/// keeps for its launches (`Preprocessed`), subset prefix sums (`subset`), lrb's GPU binning
/// (`binning`) and block starts (`block_ranges`).
pub mod launch {
    pub use loops_runtime::launch::preprocess::Preprocessed;
    pub use loops_runtime::launch::run::{Call, KernelDesc};
    pub use loops_runtime::launch::{
        binning, block_ranges, carveout, checked_mode, set_carveout, set_checked_mode, subset,
        Carveout, KernelArgs,
    };
}

/// What a kernel file needs: the attributes (`load_balanced`, `for_schedules` to stamp a kernel
/// under several schedules, and `device` for helper functions),
/// the device handle and buffers, the tile-set formats and their trait, and the element traits.
pub mod prelude {
    pub use crate::launch::Preprocessed;
    pub use crate::ops::{CsrOps, RowReduction};
    pub use crate::transform_segreduce;
    pub use crate::{
        device, for_schedules, load_balanced, DeviceBuffer, DeviceCoo, DeviceCsc, DeviceCsr,
        DeviceOffsets, Element, Float, Gpu, LoopsError, TileSet,
    };
}

/// Used by the code `#[load_balanced]` expands to; not a stable API. The runtime's own: it writes
/// some of its kernels in the language, and the expansion names the same paths there.
#[doc(hidden)]
pub use loops_runtime::__private;

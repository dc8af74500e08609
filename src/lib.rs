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
//! This crate is a facade: the attribute comes from `loops-macros`, everything that runs from
//! `loops-runtime`.

// The kernels of `ops` are written with `#[load_balanced]`, whose expansion names `::loops`.
extern crate self as loops;

pub mod ops;

pub use loops_macros::{device, for_schedules, load_balanced};
pub use loops_runtime as runtime;
pub use loops_runtime::device::{DeviceBuffer, Gpu};
pub use loops_runtime::formats::{DeviceCoo, DeviceCsc, DeviceCsr, DeviceOffsets, TileSet};
pub use loops_runtime::launch::subset;
pub use loops_runtime::schedule::NamedSchedule;
pub use loops_runtime::{generate, graph, mtx, Element, Float, LoopsError, Result};

/// Every named schedule (18): its name (`group4`), the arguments of `#[load_balanced(..)]` that
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
pub const SCHEDULES: &[NamedSchedule] = loops_runtime::schedule::SCHEDULES;

/// What a kernel file needs: the attributes (`load_balanced`, `for_schedules` to stamp a kernel
/// under several schedules, and `device` for helper functions),
/// the device handle and buffers, the tile-set formats and their trait, and the element traits.
pub mod prelude {
    pub use crate::ops::{CsrOps, RowReduction};
    pub use crate::transform_segreduce;
    pub use crate::{
        device, for_schedules, load_balanced, DeviceBuffer, DeviceCoo, DeviceCsc, DeviceCsr,
        DeviceOffsets, Element, Float, Gpu, LoopsError, TileSet,
    };
}

/// Used by the code `#[load_balanced]` expands to; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use loops_macros::{device_check, load_balanced_with};
    pub use loops_runtime::compile::{CHECKED_PRELUDE, PRELUDE};
    pub use loops_runtime::formats::TileSet;
    pub use loops_runtime::launch::run::{check_wide, Call, KernelDesc};
    pub use loops_runtime::launch::{check_len, KernelArgs};
    pub use loops_runtime::schedule::{Schedule, ScheduleConfig, Variant};
}

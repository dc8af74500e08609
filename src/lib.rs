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
//! This crate is a facade: the attribute comes from `loops-macros`, everything that runs from
//! `loops-runtime`.

// The kernels of `ops` are written with `#[load_balanced]`, whose expansion names `::loops`.
extern crate self as loops;

pub mod ops;

pub use loops_macros::{device, load_balanced};
pub use loops_runtime as runtime;
pub use loops_runtime::device::{DeviceBuffer, Gpu};
pub use loops_runtime::formats::{DeviceCoo, DeviceCsc, DeviceCsr, DeviceOffsets, TileSet};
pub use loops_runtime::launch::subset;
pub use loops_runtime::{generate, graph, mtx, Element, Float, LoopsError, Result};

/// What a kernel file needs: the attributes (`load_balanced`, and `device` for helper functions),
/// the device handle and buffers, the tile-set formats and their trait, and the element traits.
pub mod prelude {
    pub use crate::ops::{CsrOps, RowReduction};
    pub use crate::transform_segreduce;
    pub use crate::{
        device, load_balanced, DeviceBuffer, DeviceCoo, DeviceCsc, DeviceCsr, DeviceOffsets,
        Element, Float, Gpu, LoopsError, TileSet,
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

//! loops-runtime: everything that happens at run time. It knows schedules only as launch geometry
//! (from `kernels-gen` without its front end) and nothing of the kernel-body syntax.
//!
//! The modules, from the ground floor up: a module imports only those above it in this list
//! (`tests/rooms.rs` checks that they import each other in no circle).
//! - [`element`]: the element types and the values a kernel takes by value;
//! - [`host`]: checked host matrices, the CPU references and [`host::MatrixError`]; [`io`]:
//!   Matrix Market files ([`io::mtx`]) and generated matrices ([`io::generate`]);
//! - [`error`]: [`LoopsError`], which wraps the errors of `host` and `io`;
//! - [`compile`]: NVRTC, and the on-disk kernel cache ([`compile::cache`]);
//! - [`device`]: the [`device::Gpu`] handle (devices, streams, synchronization, timing, loaded
//!   kernels) and its [`device::DeviceBuffer`]s;
//! - [`tune`]: the persistent cache of measured tuning (the variant `auto` timed fastest per kernel,
//!   device and tile-set shape);
//! - [`args`]: a kernel's argument list in ABI order ([`args::ArgList`]), which the formats and
//!   the launch push to;
//! - [`formats`]: the tile-set formats (CSR, CSC, COO, offsets) on the device, the
//!   [`formats::TileSet`] trait every device format implements and the parameters each pushes;
//!   64-bit offsets in [`formats::wide`];
//! - [`launch`]: kernel arguments and launches, and what launches compute first: tile bins
//!   ([`launch::binning`]), subset prefix sums ([`launch::subset`]), block starts
//!   ([`launch::block_ranges`]) and what a tile set keeps of them ([`launch::preprocess`]);
//! - [`ops`], [`graph`], [`multi`], [`verify`]: hand-written operations, graphs as tile sets and
//!   the frontier loops over them, distributed products, checks against a CPU reference.
//!
//! Users reach these through the facade crate `loops`, whose modules are chosen (`loops::graph`,
//! `loops::io`, `loops::check`, ...); items no other crate needs are `pub(crate)`. Names: `Device*`
//! is data resident in device memory (`DeviceCsr`), `*OnDevice` is control that stays on the device
//! (the frontier loop's `LevelsOnDevice`); see the README's "Public surface and names".

#![warn(missing_docs)]

pub mod args;
pub mod compile;
pub mod device;
pub mod element;
pub mod error;
pub mod formats;
pub mod graph;
pub mod host;
pub mod io;
pub mod launch;
pub mod multi;
pub mod ops;
pub mod tune;
pub mod verify;

// Matrix Market and the generators at short paths (this crate's tests use them; users reach them as
// `loops::io::{mtx, generate}`).
pub use io::{generate, mtx};

/// Schedules as the runtime sees them: launch geometry and CPU models.
pub use kernels_gen::schedule;

pub use element::{Element, Float};
pub use error::{LoopsError, Result};

// The runtime writes some of its own kernels in the language (`graph::lang`), with
// `#[load_balanced]` / `#[for_schedules]` as a user crate does. Their expansion names `::loops`
// (the facade crate, above this one): here `::loops` is this crate, which gives the expansion the
// names below at the same paths the facade does. The facade re-exports `__private` as its own.
extern crate self as loops;

#[doc(hidden)]
pub use device::{DeviceBuffer, Gpu};
#[doc(hidden)]
pub use formats::{DeviceCoo, DeviceCsc, DeviceCsr, DeviceOffsets};
#[doc(hidden)]
pub use loops_macros::load_balanced;

/// Used by the code `#[load_balanced]` expands to (here and in the facade crate `loops`, which
/// re-exports this module); not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::compile::{CHECKED_PRELUDE, PRELUDE};
    pub use crate::formats::TileSet;
    pub use crate::launch::run::{check_wide, Call, KernelDesc};
    pub use crate::launch::{check_len, KernelArgs};
    pub use crate::schedule::{Schedule, ScheduleConfig, Variant};
    pub use loops_macros::{device_check, load_balanced_with};
}

//! loops-runtime: everything that happens at run time. It knows schedules only as launch geometry
//! (from `kernels-gen` without its front end) and nothing of the kernel-body syntax.

#![warn(missing_docs)]

pub mod compile;
pub mod device;
pub mod element;
pub mod error;
pub mod formats;
pub mod graph;
pub mod io;
// launch/mod.rs is being rewritten, documentation included: until then its own items are let off
// the lint; its submodules turn it back on for themselves.
#[allow(missing_docs)]
pub mod launch;
pub mod verify;

// The paths these modules had before they moved into rooms; the macro's generated code names
// `binning`, and the facade and its users the others.
pub use compile::cache;
pub use formats::{host, wide};
pub use io::{generate, mtx};
pub use launch::{binning, block_ranges, preprocess, run, subset};

/// Schedules as the runtime sees them: launch geometry and CPU models.
pub use kernels_gen::schedule;

pub use element::{Element, Float};
pub use error::{LoopsError, Result};

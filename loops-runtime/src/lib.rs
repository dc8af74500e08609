//! loops-runtime: everything that happens at run time. It knows schedules only as launch geometry
//! (from `kernels-gen` without its front end) and nothing of the kernel-body syntax.

pub mod binning;
pub mod block_ranges;
pub mod cache;
pub mod compile;
pub mod device;
pub mod element;
pub mod error;
pub mod formats;
pub mod generate;
pub mod graph;
pub mod host;
pub mod launch;
pub mod mtx;
pub mod preprocess;
pub mod run;
pub mod subset;
pub mod verify;
pub mod wide;

/// Schedules as the runtime sees them: launch geometry and CPU models.
pub use kernels_gen::schedule;

pub use element::{Element, Float};
pub use error::{LoopsError, Result};

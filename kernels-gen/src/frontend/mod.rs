//! The front end: attribute and function (syn) -> [`Kernel`](crate::ir::Kernel), and the Rust
//! tokens the macro expands to.

mod attr;
mod body;
mod device;
mod expand;
mod stamp;

pub use attr::parse_attr;
pub use body::{lower_fn, lower_kernel, HelperItem};
pub use device::{device, device_check, load_balanced_with};
pub use expand::expand;
pub use stamp::{for_schedules, parse_schedule_list};

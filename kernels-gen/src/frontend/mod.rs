//! The front end: attribute and function (syn) -> [`Kernel`](crate::ir::Kernel), and the Rust
//! tokens the macro expands to.

mod attr;
mod body;
mod expand;

pub use attr::parse_attr;
pub use body::lower_fn;
pub use expand::expand;

//! `#[loops::device]` helpers: small functions in the kernel language that kernels (and other
//! helpers) call, emitted as CUDA `__device__` functions.

use proc_macro2::Span;

use super::{Block, Ty};

/// A helper function: scalar parameters, a scalar result, a body in the kernel language that ends
/// in `return` statements (its final expression is one).
#[derive(Clone, Debug)]
pub struct Helper {
    pub name: String,
    /// Generic element types (`T` in `fn square<T: Float>`): the CUDA function is a template.
    pub type_params: Vec<String>,
    /// `(name, type, mutable)`, in order.
    pub params: Vec<(String, Ty, bool)>,
    pub ret: Ty,
    pub body: Block,
    pub span: Span,
    /// The Rust file the helper is written in, for `#line` (it may differ from the kernel's).
    pub file: String,
}

/// The CUDA name of helper `name`: the reserved prefix keeps it apart from CUDA's own names and
/// from the user's variables.
pub fn helper_cuda_name(name: &str) -> String {
    format!("loops_fn_{name}")
}

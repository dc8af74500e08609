//! kernels-gen: the kernel-body language (a Rust subset) -> kernel IR -> CUDA C++.
//!
//! - [`frontend`]: syn -> [`ir::Kernel`], with spanned errors; and the macro's expansion.
//! - [`ir`]: the kernel's meaning, no syntax.
//! - [`emit`]: the one CUDA emitter.
//! - [`schedule`]: one unit per schedule: lowering, launch plan, CPU model.
//! - [`abi`]: the parameters every generated entry point takes after the user's.
//!
//! Without the default `frontend` feature only [`schedule`]'s geometry and models are built: that is
//! what the runtime needs.

pub mod abi;
#[cfg(feature = "frontend")]
pub mod analysis;
#[cfg(feature = "frontend")]
pub mod diag;
#[cfg(feature = "frontend")]
pub mod emit;
#[cfg(feature = "frontend")]
pub mod frontend;
#[cfg(feature = "frontend")]
pub mod ir;
pub mod schedule;

/// Lowers an annotated function to CUDA C++ in one call: what tests and tools use.
#[cfg(feature = "frontend")]
pub fn cuda_for(
    attr: proc_macro2::TokenStream,
    item: &syn::ItemFn,
    file: &str,
) -> diag::DResult<String> {
    cuda_with_helpers(attr, item, &[], file)
}

/// [`cuda_for`] of a kernel that calls `#[loops::device]` helpers, given their definitions (each
/// with the file it is written in).
#[cfg(feature = "frontend")]
pub fn cuda_with_helpers(
    attr: proc_macro2::TokenStream,
    item: &syn::ItemFn,
    helpers: &[frontend::HelperItem],
    file: &str,
) -> diag::DResult<String> {
    let config = frontend::parse_attr(attr)?;
    let kernel = frontend::lower_kernel(item, helpers, config, file)?;
    Ok(emit::emit_kernel(&kernel)?.source)
}

//! Hand-written operations on CSR matrices, for `loops::ops`: those whose speed needs code the
//! loops language does not express (the dense dimension of `spmm`/`sddmm` spread over a group's
//! lanes with wide loads; sorting; transposing). Each module's entry point is the function of its
//! name (`spmm::spmm`, `sort::segmented_sort`, ...), called by `loops::ops::CsrOps`.

pub mod sddmm;
pub mod sort;
pub mod spmm;
pub mod transpose;

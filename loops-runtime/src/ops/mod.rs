//! Hand-written operations on CSR matrices, for `loops::ops`: those whose speed needs code the
//! loops language does not express (the dense dimension of `spmm`/`sddmm` spread over a group's
//! lanes with wide loads; sorting; transposing).

use crate::device::{DeviceBuffer, Gpu};
use crate::element::Float;
use crate::error::{LoopsError, Result};
use crate::formats::{DeviceCsc, DeviceCsr};

pub mod sort;
pub mod transpose;

/// `C = A B` (see `loops::ops::CsrOps::spmm`).
pub fn spmm<T: Float>(
    _gpu: &Gpu,
    _a: &DeviceCsr<T>,
    _b: &DeviceBuffer<T>,
    _k: usize,
    _c: &mut DeviceBuffer<T>,
) -> Result<()> {
    Err(LoopsError::NotBuilt("spmm"))
}

/// The sampled dense-dense product (see `loops::ops::CsrOps::sddmm`).
pub fn sddmm<T: Float>(
    _gpu: &Gpu,
    _a: &DeviceCsr<T>,
    _x: &DeviceBuffer<T>,
    _y: &DeviceBuffer<T>,
    _k: usize,
    _out: &mut DeviceBuffer<T>,
) -> Result<()> {
    Err(LoopsError::NotBuilt("sddmm"))
}

/// Sorts each row's column indices with their values (see `loops::ops::CsrOps::segmented_sort`
/// and [`sort`]).
pub fn segmented_sort<T: Float>(gpu: &Gpu, a: &mut DeviceCsr<T>) -> Result<()> {
    sort::segmented_sort(gpu, a)
}

/// The CSC of `a` (see `loops::ops::CsrOps::transpose` and [`transpose`](mod@transpose)).
pub fn transpose<T: Float>(gpu: &Gpu, a: &DeviceCsr<T>) -> Result<DeviceCsc<T>> {
    transpose::transpose(gpu, a)
}

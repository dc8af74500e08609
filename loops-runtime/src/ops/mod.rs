//! Hand-written operations on CSR matrices, for `loops::ops`: those whose speed needs code the
//! loops language does not express (the dense dimension of `spmm`/`sddmm` spread over a group's
//! lanes with wide loads; sorting; transposing).

use crate::device::{DeviceBuffer, Gpu};
use crate::element::Float;
use crate::error::Result;
use crate::formats::{DeviceCsc, DeviceCsr};

pub mod sddmm;
pub mod sort;
pub mod spmm;
pub mod transpose;

/// `C = A B` (see `loops::ops::CsrOps::spmm`): `b` holds at least `cols · k` elements, `c` at
/// least `rows · k`. See [`spmm::spmm_plan`] for what runs.
pub fn spmm<T: Float>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    b: &DeviceBuffer<T>,
    k: usize,
    c: &mut DeviceBuffer<T>,
) -> Result<()> {
    spmm::spmm(gpu, a, b, k, c)
}

/// The sampled dense-dense product (see `loops::ops::CsrOps::sddmm`).
pub fn sddmm<T: Float>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    x: &DeviceBuffer<T>,
    y: &DeviceBuffer<T>,
    k: usize,
    out: &mut DeviceBuffer<T>,
) -> Result<()> {
    sddmm::sddmm(gpu, a, x, y, k, out)
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

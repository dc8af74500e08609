//! Row reductions: sum, max, min, L2 norm, argmax, each a [`transform_segreduce!`] kernel (the
//! macro's own dogfood) under schedule `auto`.
//!
//! [`transform_segreduce!`]: crate::transform_segreduce

use super::spmv::check_len;
use crate::{DeviceBuffer, DeviceCsr, Float, Gpu, Result};

crate::transform_segreduce! {
    /// Each row's sum.
    fn row_sums<T: Float>(a: Csr<T>) -> sum |row, nz| a.values[nz];
    /// Each row's largest value.
    fn row_maxima<T: Float>(a: Csr<T>) -> max |row, nz| a.values[nz];
    /// Each row's smallest value.
    fn row_minima<T: Float>(a: Csr<T>) -> min |row, nz| a.values[nz];
    /// Each row's Euclidean norm: the root of the sum of squares, taken once per row.
    fn row_norms<T: Float>(a: Csr<T>) -> sum |row, nz| a.values[nz] * a.values[nz] => |squares| squares.sqrt();
    /// Each row's largest value and its column.
    fn row_argmaxima<T: Float>(a: Csr<T>) -> argmax |row, nz| a.values[nz];
}

/// A reduction of each row's values to one value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RowReduction {
    /// The sum (0 for an empty row).
    Sum,
    /// The largest value (`-∞` for an empty row).
    Max,
    /// The smallest value (`+∞` for an empty row).
    Min,
    /// The Euclidean norm, `sqrt(Σ v²)` (0 for an empty row).
    Norm,
}

/// The CUDA of the kernels above, for the NVRTC compile test: (name, plain, bounds-checked).
pub(super) const SOURCES: &[(&str, &str, &str)] = &[
    (
        "row_sums",
        row_sums::CUDA_SOURCE,
        row_sums::CUDA_SOURCE_CHECKED,
    ),
    (
        "row_maxima",
        row_maxima::CUDA_SOURCE,
        row_maxima::CUDA_SOURCE_CHECKED,
    ),
    (
        "row_minima",
        row_minima::CUDA_SOURCE,
        row_minima::CUDA_SOURCE_CHECKED,
    ),
    (
        "row_norms",
        row_norms::CUDA_SOURCE,
        row_norms::CUDA_SOURCE_CHECKED,
    ),
    (
        "row_argmaxima",
        row_argmaxima::CUDA_SOURCE,
        row_argmaxima::CUDA_SOURCE_CHECKED,
    ),
];

pub(super) fn row_reduce<T: Float>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    op: RowReduction,
    out: &mut DeviceBuffer<T>,
) -> Result<()> {
    check_len("row_reduce", "out", out.len(), a.rows(), "one per row of A")?;
    match op {
        RowReduction::Sum => row_sums(gpu, a, out),
        RowReduction::Max => row_maxima(gpu, a, out),
        RowReduction::Min => row_minima(gpu, a, out),
        RowReduction::Norm => row_norms(gpu, a, out),
    }
}

pub(super) fn row_argmax<T: Float>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    best: &mut DeviceBuffer<T>,
    at: &mut DeviceBuffer<i32>,
) -> Result<()> {
    check_len(
        "row_argmax",
        "best",
        best.len(),
        a.rows(),
        "one per row of A",
    )?;
    check_len("row_argmax", "at", at.len(), a.rows(), "one per row of A")?;
    row_argmaxima(gpu, a, best, at)
}

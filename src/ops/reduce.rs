//! Row reductions: sum, max, min, L2 norm, argmax.

use crate::{DeviceBuffer, DeviceCsr, Float, Gpu, LoopsError, Result};

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

pub(super) fn row_reduce<T: Float>(
    _gpu: &Gpu,
    _a: &DeviceCsr<T>,
    _op: RowReduction,
    _out: &mut DeviceBuffer<T>,
) -> Result<()> {
    Err(LoopsError::NotBuilt("row_reduce"))
}

pub(super) fn row_argmax<T: Float>(
    _gpu: &Gpu,
    _a: &DeviceCsr<T>,
    _best: &mut DeviceBuffer<T>,
    _at: &mut DeviceBuffer<i32>,
) -> Result<()> {
    Err(LoopsError::NotBuilt("row_argmax"))
}

//! `y = alpha A x + beta y` and `y = Aᵀ x`.

use crate::prelude::*;
use crate::{LoopsError, Result};

/// The row's dot product, scaled, plus the scaled old value; `beta == 0` skips the read of `y`
/// (BLAS's rule: NaN left in `y` must not leak into the result).
#[load_balanced(schedule = "auto")]
fn spmv_axpby<T: Float>(a: Csr<T>, x: &[T], y: &mut [T], alpha: T, beta: T) {
    for row in a.tiles() {
        let mut sum = 0.0;
        for nz in a.atoms(row) {
            sum += a.values[nz] * x[a.col_indices[nz] as usize];
        }
        if beta == 0.0 {
            y[row] = alpha * sum;
        } else {
            y[row] = alpha * sum + beta * y[row];
        }
    }
}

pub(super) fn spmv<T: Float>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    alpha: T,
    x: &DeviceBuffer<T>,
    beta: T,
    y: &mut DeviceBuffer<T>,
) -> Result<()> {
    spmv_axpby(gpu, a, x, y, alpha, beta)
}

pub(super) fn spmv_transpose<T: Float>(
    _gpu: &Gpu,
    _a: &DeviceCsr<T>,
    _x: &DeviceBuffer<T>,
    _y: &mut DeviceBuffer<T>,
) -> Result<()> {
    Err(LoopsError::NotBuilt("spmv_transpose"))
}

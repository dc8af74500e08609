//! `y = alpha A x + beta y` and `y = Aᵀ x`.
//!
//! Both are kernels of the loops language under schedule `auto`. `spmv` is a row's dot product;
//! `spmv_transpose` reads `A` by rows too, without forming `Aᵀ`: each row scatters
//! `a_rc · x_r` into `y[c]` with the language's `atomic_add` (float atomics, as CUDA's
//! `atomicAdd`), after `y` is zeroed. The order of the additions into one `y[c]` is the threads'
//! order, so the result is not bitwise reproducible run to run (the error bound of a sum of the
//! column's terms holds either way). Forming `Aᵀ` (a transpose on the GPU) and running `spmv`
//! on it is deterministic and faster for repeated products; this one allocates nothing.

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

/// `y += Aᵀ x`: every row scatters its products into `y` (zeroed first by the caller).
#[load_balanced(schedule = "auto")]
fn spmv_transpose_scatter<T: Float>(a: Csr<T>, x: &[T], y: &mut [T]) {
    for row in a.tiles() {
        let xr = x[row];
        for nz in a.atoms(row) {
            atomic_add(&mut y[a.col_indices[nz] as usize], a.values[nz] * xr);
        }
    }
}

/// The CUDA of the kernels above, for the NVRTC compile test: (name, plain, bounds-checked).
pub(super) const SOURCES: &[(&str, &str, &str)] = &[
    (
        "spmv_axpby",
        spmv_axpby::CUDA_SOURCE,
        spmv_axpby::CUDA_SOURCE_CHECKED,
    ),
    (
        "spmv_transpose_scatter",
        spmv_transpose_scatter::CUDA_SOURCE,
        spmv_transpose_scatter::CUDA_SOURCE_CHECKED,
    ),
];

/// `buffer` has at least `required` elements, or the error names the operation and the buffer.
pub(super) fn check_len(
    op: &str,
    param: &str,
    len: usize,
    required: usize,
    why: &str,
) -> Result<()> {
    if len < required {
        return Err(LoopsError::BufferTooShort {
            kernel: op.to_string(),
            param: param.to_string(),
            len,
            required,
            why: why.to_string(),
        });
    }
    Ok(())
}

pub(super) fn spmv<T: Float>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    alpha: T,
    x: &DeviceBuffer<T>,
    beta: T,
    y: &mut DeviceBuffer<T>,
) -> Result<()> {
    check_len("spmv", "x", x.len(), a.cols(), "one per column of A")?;
    check_len("spmv", "y", y.len(), a.rows(), "one per row of A")?;
    spmv_axpby(gpu, a, x, y, alpha, beta)
}

pub(super) fn spmv_transpose<T: Float>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    x: &DeviceBuffer<T>,
    y: &mut DeviceBuffer<T>,
) -> Result<()> {
    check_len("spmv_transpose", "x", x.len(), a.rows(), "one per row of A")?;
    check_len(
        "spmv_transpose",
        "y",
        y.len(),
        a.cols(),
        "one per column of A",
    )?;
    // Zero the `cols` entries the scatter adds into, and no more: like `spmv`, the call leaves
    // the rest of a longer `y` as it was.
    let len = y.len();
    y.set_len(a.cols());
    let zeroed = gpu.fill(y, T::from_f64(0.0));
    y.set_len(len);
    zeroed?;
    spmv_transpose_scatter(gpu, a, x, y)
}

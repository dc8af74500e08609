//! Ready-made operations for users who do not write kernels: one call each on a [`DeviceCsr`],
//! schedule `auto`, checked against CPU references on the GPU (`tests/gpu_ops.rs`).
//!
//! Two kinds live here. The ones that are a transform and a segmented reduction (`spmv`, the row
//! reductions) are kernels of the loops language, written once in this module's files with
//! `#[load_balanced(schedule = "auto")]`, like a user's. The ones whose speed needs code the
//! language does not yet express (`spmm` and `sddmm`: the dense dimension spread over a group's
//! lanes with wide loads; `segmented_sort`, `transpose`) are hand-written CUDA in the runtime's
//! `ops` room ([`loops_runtime::ops`]).

use crate::{DeviceBuffer, DeviceCsc, DeviceCsr, Float, Gpu, Result};

mod reduce;
mod spmv;

pub use reduce::RowReduction;

/// The ready-made operations of a CSR matrix on the GPU. `use loops::prelude::*` brings them in.
pub trait CsrOps<T: Float> {
    /// `y = alpha A x + beta y` (`x` has `cols` entries, `y` has `rows`). With `beta == 0`, `y`'s
    /// old contents are not read (NaN in them does not leak into the result).
    fn spmv(
        &self,
        gpu: &Gpu,
        alpha: T,
        x: &DeviceBuffer<T>,
        beta: T,
        y: &mut DeviceBuffer<T>,
    ) -> Result<()>;

    /// `y = Aᵀ x` (`x` has `rows` entries, `y` has `cols`), without forming `Aᵀ`.
    fn spmv_transpose(&self, gpu: &Gpu, x: &DeviceBuffer<T>, y: &mut DeviceBuffer<T>)
        -> Result<()>;

    /// `C = A B` with `B` dense, row-major, `cols × k`, and `C` dense, row-major, `rows × k`; any
    /// `k ≥ 1`.
    fn spmm(&self, gpu: &Gpu, b: &DeviceBuffer<T>, k: usize, c: &mut DeviceBuffer<T>)
        -> Result<()>;

    /// The sampled dense-dense product: at every stored entry `(r, c)` of `A`,
    /// `out[nz] = Σ_j x[r·k + j] · y[c·k + j]` (`x` is `rows × k`, `y` is `cols × k`, both
    /// row-major; `out` has `nnz` entries, in `A`'s order). `A`'s values are not read: multiply
    /// by them yourself if you want `A ∘ (X Yᵀ)`.
    fn sddmm(
        &self,
        gpu: &Gpu,
        x: &DeviceBuffer<T>,
        y: &DeviceBuffer<T>,
        k: usize,
        out: &mut DeviceBuffer<T>,
    ) -> Result<()>;

    /// One value per row (`out` has `rows` entries): see [`RowReduction`] for each reduction's
    /// value on an empty row.
    fn row_reduce(&self, gpu: &Gpu, op: RowReduction, out: &mut DeviceBuffer<T>) -> Result<()>;

    /// Each row's largest value and the column holding it (the first such column; `-1` and
    /// `-∞` for an empty row).
    fn row_argmax(
        &self,
        gpu: &Gpu,
        best: &mut DeviceBuffer<T>,
        at: &mut DeviceBuffer<i32>,
    ) -> Result<()>;

    /// Sorts each row's column indices, carrying their values along (a stable sort: equal
    /// column indices keep their order). Rows are binned by length and each bin sorted by a
    /// kernel fit for it (a group of lanes, a block in shared memory, or chunks and merge passes
    /// for rows of more than 4096 entries): see [`loops_runtime::ops::sort`]. A matrix of more
    /// than `i32::MAX` nonzeros is refused ([`LoopsError::WideUnsupported`](crate::LoopsError)).
    ///
    /// ```no_run
    /// use loops::prelude::*;
    /// # fn main() -> loops::Result<()> {
    /// let gpu = Gpu::new(0)?;
    /// let m = loops::generate::power_law::<f32>(1000, 1000, 8.0, 2.0, false, 1);
    /// let mut a = gpu.upload_csr(&m)?;
    /// a.segmented_sort(&gpu)?; // sprs keeps rows sorted: nothing moves
    /// assert_eq!(gpu.download_csr(&a)?, m);
    /// let at = a.transpose(&gpu)?;
    /// assert_eq!(gpu.download_csc(&at)?, m.to_csc());
    /// # Ok(())
    /// # }
    /// ```
    fn segmented_sort(&mut self, gpu: &Gpu) -> Result<()>;

    /// The same matrix stored by columns (which is `Aᵀ` in CSR), built on the GPU; each column's
    /// row indices come out sorted, and a row's repeated column (possible in a matrix built from
    /// parts) keeps its order: exactly the CPU's CSC. See [`loops_runtime::ops::transpose`](mod@loops_runtime::ops::transpose) and
    /// the example of [`CsrOps::segmented_sort`]. A matrix of more than `i32::MAX` nonzeros is
    /// [`LoopsError::TooLarge`](crate::LoopsError) (CSC indices are 32-bit).
    fn transpose(&self, gpu: &Gpu) -> Result<DeviceCsc<T>>;
}

impl<T: Float> CsrOps<T> for DeviceCsr<T> {
    fn spmv(
        &self,
        gpu: &Gpu,
        alpha: T,
        x: &DeviceBuffer<T>,
        beta: T,
        y: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        spmv::spmv(gpu, self, alpha, x, beta, y)
    }

    fn spmv_transpose(
        &self,
        gpu: &Gpu,
        x: &DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        spmv::spmv_transpose(gpu, self, x, y)
    }

    fn spmm(
        &self,
        gpu: &Gpu,
        b: &DeviceBuffer<T>,
        k: usize,
        c: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        loops_runtime::ops::spmm(gpu, self, b, k, c)
    }

    fn sddmm(
        &self,
        gpu: &Gpu,
        x: &DeviceBuffer<T>,
        y: &DeviceBuffer<T>,
        k: usize,
        out: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        loops_runtime::ops::sddmm(gpu, self, x, y, k, out)
    }

    fn row_reduce(&self, gpu: &Gpu, op: RowReduction, out: &mut DeviceBuffer<T>) -> Result<()> {
        reduce::row_reduce(gpu, self, op, out)
    }

    fn row_argmax(
        &self,
        gpu: &Gpu,
        best: &mut DeviceBuffer<T>,
        at: &mut DeviceBuffer<i32>,
    ) -> Result<()> {
        reduce::row_argmax(gpu, self, best, at)
    }

    fn segmented_sort(&mut self, gpu: &Gpu) -> Result<()> {
        loops_runtime::ops::segmented_sort(gpu, self)
    }

    fn transpose(&self, gpu: &Gpu) -> Result<DeviceCsc<T>> {
        loops_runtime::ops::transpose(gpu, self)
    }
}

//! Ready-made operations for users who do not write kernels: one call each on a [`DeviceCsr`],
//! schedule `auto`, checked against CPU references on the GPU (`tests/gpu_ops.rs`).
//!
//! Two kinds live here. The ones that are a transform and a segmented reduction are kernels of the
//! loops language, written once in this module's files like a user's: `spmv` and `spmv_transpose`
//! with `#[load_balanced(schedule = "auto")]`, the row reductions with
//! [`transform_segreduce!`](crate::transform_segreduce). The ones whose speed needs code the
//! language does not yet express (`spmm`: its plans of lanes over `k` and pieces of long rows;
//! `segmented_sort`, `transpose`) are hand-written CUDA in the runtime's `ops` room, re-exported
//! here: [`spmm`], [`sddmm`], [`sort`], [`transpose`](mod@transpose). [`sddmm_lang`] is SDDMM in
//! the language (a `lanes` loop summed inside the atom loop), faster than the hand-written
//! [`sddmm`] on matrices of short rows but not yet on long ones, so the op keeps the latter.
//! [`frontier`] holds a traversal's frontier operations (degrees, flag compaction) in the language;
//! [`relabel`] a matrix's relabelling by in-degree on the GPU (language passes, the runtime's
//! transpose as its sort).
//! [`transpose_lang`] is the transpose's count, scatter and column statistics in the language
//! (the scan and the sort stay the runtime's); not yet the op: as fast on large matrices, 3 to 4%
//! slower on the small real ones (`examples/bench/results/h200/stop53/tr/`).

use crate::{DeviceBuffer, DeviceCsc, DeviceCsr, Float, Gpu, Result};

pub mod frontier;
mod reduce;
pub mod relabel;
pub mod sddmm_lang;
mod segreduce;
mod spmv;
pub mod transpose_lang;

pub use loops_runtime::ops::{sddmm, sort, spmm, transpose};
pub use reduce::RowReduction;

/// The CUDA of this module's language kernels (spmv, spmv_transpose, the row reductions, the
/// frontier's degrees and flag compaction), for the
/// NVRTC compile test (`tests/ops_segreduce.rs`): (kernel name, source, bounds-checked source).
#[doc(hidden)]
pub fn language_kernel_sources() -> Vec<(&'static str, &'static str, &'static str)> {
    spmv::SOURCES
        .iter()
        .chain(reduce::SOURCES)
        .chain(frontier::SOURCES)
        .chain(relabel::SOURCES)
        .chain(sddmm_lang::SOURCES)
        .chain(transpose_lang::SOURCES)
        .copied()
        .collect()
}

/// The ready-made operations of a CSR matrix on the GPU. `use loops::prelude::*` brings them in.
pub trait CsrOps<T: Float> {
    /// `y = alpha A x + beta y` (`x` has `cols` entries, `y` has `rows`). With `beta == 0`, `y`'s
    /// old contents are not read (NaN in them does not leak into the result). A language kernel
    /// under schedule `auto`; `x` or `y` shorter than that is [`LoopsError::BufferTooShort`]
    /// (longer ones are fine: the entries past `rows` of `y` are left alone).
    ///
    /// ```no_run
    /// use loops::prelude::*;
    /// # fn main() -> loops::Result<()> {
    /// let gpu = Gpu::new(0)?;
    /// let host = loops::io::generate::power_law::<f32>(1000, 1000, 8.0, 2.0, false, 1);
    /// let a = gpu.upload_csr(&host)?;
    /// let x = gpu.upload(&vec![1.0f32; 1000])?;
    /// let mut y = gpu.zeros::<f32>(1000)?;
    /// a.spmv(&gpu, 2.0, &x, 0.0, &mut y)?;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// [`LoopsError::BufferTooShort`]: crate::LoopsError::BufferTooShort
    fn spmv(
        &self,
        gpu: &Gpu,
        alpha: T,
        x: &DeviceBuffer<T>,
        beta: T,
        y: &mut DeviceBuffer<T>,
    ) -> Result<()>;

    /// `y = Aᵀ x` (`x` has `rows` entries, `y` has `cols`), without forming `Aᵀ`: the first
    /// `cols` entries of `y` are zeroed, then every row adds `a_rc · x_r` into `y[c]` with an
    /// atomic add. The additions into one entry come in the threads' order, so the result may
    /// differ in the last bits from run to run. For many products with the same matrix,
    /// [`transpose`](Self::transpose) once and [`spmv`](Self::spmv) on that is deterministic and
    /// faster.
    ///
    /// ```no_run
    /// use loops::prelude::*;
    /// # fn main() -> loops::Result<()> {
    /// let gpu = Gpu::new(0)?;
    /// let host = loops::io::generate::power_law::<f32>(1000, 1000, 8.0, 2.0, false, 1);
    /// let a = gpu.upload_csr(&host)?;
    /// let x = gpu.upload(&vec![1.0f32; 1000])?;
    /// let mut y = gpu.zeros::<f32>(1000)?;
    /// a.spmv_transpose(&gpu, &x, &mut y)?;
    /// # Ok(())
    /// # }
    /// ```
    fn spmv_transpose(&self, gpu: &Gpu, x: &DeviceBuffer<T>, y: &mut DeviceBuffer<T>)
        -> Result<()>;

    /// `C = A B` with `B` dense, row-major, `cols × k`, and `C` dense, row-major, `rows × k`; any
    /// `k ≥ 1`. `b` and `c` may be longer (the rest of `c` is left alone). Errors (before
    /// anything runs) for `k == 0`, buffers too short, sizes that overflow, or a matrix of 64-bit
    /// offsets. `k == 1` runs [`CsrOps::spmv`]; other `k` run the hand-written kernels of
    /// [`crate::ops::spmm`] (16-byte loads of `B`'s rows, lanes over `k`, long rows cut
    /// into pieces). The first call for a matrix, element type and `k` times a few launch plans
    /// on the call's own operands and keeps the fastest with the matrix and in the tuning cache
    /// (a few milliseconds; see [`crate::ops::spmm::spmm_tuned`]); later calls launch it
    /// directly. `LOOPS_TUNE=off` launches the model's plan and times nothing.
    ///
    /// ```no_run
    /// use loops::prelude::*;
    /// # fn main() -> loops::Result<()> {
    /// let gpu = Gpu::new(0)?;
    /// // A = [[1, 2], [0, 3]], B = [[1, 0, 2], [4, 1, 0]] (k = 3).
    /// let a = sprs::CsMat::new((2, 2), vec![0, 2, 3], vec![0, 1, 1], vec![1.0f32, 2.0, 3.0]);
    /// let a = gpu.upload_csr(&a)?;
    /// let b = gpu.upload(&[1.0f32, 0.0, 2.0, 4.0, 1.0, 0.0])?;
    /// let mut c = gpu.zeros::<f32>(2 * 3)?;
    /// a.spmm(&gpu, &b, 3, &mut c)?;
    /// assert_eq!(gpu.download(&c)?, vec![9.0, 2.0, 2.0, 12.0, 3.0, 0.0]);
    /// # Ok(())
    /// # }
    /// ```
    fn spmm(&self, gpu: &Gpu, b: &DeviceBuffer<T>, k: usize, c: &mut DeviceBuffer<T>)
        -> Result<()>;

    /// The sampled dense-dense product: at every stored entry `(r, c)` of `A`,
    /// `out[nz] = Σ_j x[r·k + j] · y[c·k + j]` (`x` is `rows × k`, `y` is `cols × k`, both
    /// row-major; `out` has `nnz` entries, in `A`'s order). `A`'s values are not read: multiply
    /// by them yourself if you want `A ∘ (X Yᵀ)`. Errors as [`CsrOps::spmm`] does (`out` shorter
    /// than `nnz`, `x` than `rows · k`, `y` than `cols · k`).
    ///
    /// ```no_run
    /// use loops::prelude::*;
    /// # fn main() -> loops::Result<()> {
    /// let gpu = Gpu::new(0)?;
    /// // The pattern of [[1, 2], [0, 3]]: entries (0,0), (0,1), (1,1); k = 2.
    /// let a = sprs::CsMat::new((2, 2), vec![0, 2, 3], vec![0, 1, 1], vec![1.0f32, 2.0, 3.0]);
    /// let a = gpu.upload_csr(&a)?;
    /// let x = gpu.upload(&[1.0f32, 2.0, 3.0, 4.0])?;
    /// let y = gpu.upload(&[5.0f32, 6.0, 7.0, 8.0])?;
    /// let mut out = gpu.zeros::<f32>(3)?;
    /// a.sddmm(&gpu, &x, &y, 2, &mut out)?;
    /// assert_eq!(gpu.download(&out)?, vec![17.0, 23.0, 53.0]);
    /// # Ok(())
    /// # }
    /// ```
    fn sddmm(
        &self,
        gpu: &Gpu,
        x: &DeviceBuffer<T>,
        y: &DeviceBuffer<T>,
        k: usize,
        out: &mut DeviceBuffer<T>,
    ) -> Result<()>;

    /// One value per row (`out` has `rows` entries): see [`RowReduction`] for each reduction's
    /// value on an empty row. Each reduction is a [`transform_segreduce!`] kernel under schedule
    /// `auto` (`src/ops/reduce.rs`; `Norm` is two, scaled so that it does not overflow where the
    /// norm fits): to reduce something else than the values, write your own the same way.
    ///
    /// ```no_run
    /// use loops::prelude::*;
    /// # fn main() -> loops::Result<()> {
    /// let gpu = Gpu::new(0)?;
    /// let host = loops::io::generate::power_law::<f32>(1000, 1000, 8.0, 2.0, false, 1);
    /// let a = gpu.upload_csr(&host)?;
    /// let mut norms = gpu.zeros::<f32>(1000)?;
    /// a.row_reduce(&gpu, RowReduction::Norm, &mut norms)?;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// [`transform_segreduce!`]: crate::transform_segreduce
    fn row_reduce(&self, gpu: &Gpu, op: RowReduction, out: &mut DeviceBuffer<T>) -> Result<()>;

    /// Each row's largest value and the column holding it (the first such column; `-1` and
    /// `-∞` for an empty row, and `-1` too for a row whose values are all `-∞` or NaN: NaN is
    /// never chosen). The first among equal values is the one every schedule keeps.
    ///
    /// ```no_run
    /// use loops::prelude::*;
    /// # fn main() -> loops::Result<()> {
    /// let gpu = Gpu::new(0)?;
    /// let host = loops::io::generate::power_law::<f32>(1000, 1000, 8.0, 2.0, false, 1);
    /// let a = gpu.upload_csr(&host)?;
    /// let (mut best, mut at) = (gpu.zeros::<f32>(1000)?, gpu.zeros::<i32>(1000)?);
    /// a.row_argmax(&gpu, &mut best, &mut at)?;
    /// # Ok(())
    /// # }
    /// ```
    fn row_argmax(
        &self,
        gpu: &Gpu,
        best: &mut DeviceBuffer<T>,
        at: &mut DeviceBuffer<i32>,
    ) -> Result<()>;

    /// Sorts each row's column indices, carrying their values along (a stable sort: equal
    /// column indices keep their order). Rows are binned by length and each bin sorted by a
    /// kernel fit for it (a group of lanes, a block in shared memory, or chunks and merge passes
    /// for rows of more than 4096 entries): see [`crate::ops::sort`]. A matrix of more
    /// than `i32::MAX` nonzeros is refused ([`LoopsError::WideUnsupported`](crate::LoopsError)).
    ///
    /// ```no_run
    /// use loops::prelude::*;
    /// # fn main() -> loops::Result<()> {
    /// let gpu = Gpu::new(0)?;
    /// let m = loops::io::generate::power_law::<f32>(1000, 1000, 8.0, 2.0, false, 1);
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
    /// parts) keeps its order: exactly the CPU's CSC. See [`transpose`](mod@transpose) and
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
        // k = 1 is SpMV, which the language's `auto` schedules do well: same checks, then that.
        if k == 1 {
            crate::ops::spmm::check_spmm(self, b, k, c)?;
            return spmv::spmv(gpu, self, T::from_f64(1.0), b, T::from_f64(0.0), c);
        }
        crate::ops::spmm::spmm(gpu, self, b, k, c)
    }

    fn sddmm(
        &self,
        gpu: &Gpu,
        x: &DeviceBuffer<T>,
        y: &DeviceBuffer<T>,
        k: usize,
        out: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        crate::ops::sddmm::sddmm(gpu, self, x, y, k, out)
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
        crate::ops::sort::segmented_sort(gpu, self)
    }

    fn transpose(&self, gpu: &Gpu) -> Result<DeviceCsc<T>> {
        crate::ops::transpose::transpose(gpu, self)
    }
}

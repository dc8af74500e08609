//! The dense-operand baselines of `bench_spmm`: `cusparseSpMM` ([`SpMm`]) and `cusparseSDDMM`
//! ([`Sddmm`]), their functions looked up when a plan is made (older cuSPARSE lack some).

use super::*;
use cudarc::cusparse::sys;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::ptr;

/// Whether libcusparse has every one of `symbols` (asked after [`available`] succeeded).
fn has_symbols(symbols: &[&str]) -> Result<()> {
    available()?;
    // SAFETY: the library loads (checked by `available`); symbol lookups only, nothing called.
    let lib = unsafe { sys::culib() };
    let missing: Vec<&str> = symbols
        .iter()
        .copied()
        // SAFETY: a symbol lookup; the pointer is not used.
        .filter(|s| unsafe { lib.get::<*const ()>(s.as_bytes()) }.is_err())
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(CusparseError::Unavailable(format!(
            "libcusparse lacks {missing:?}"
        )))
    }
}

const SPMM_SYMBOLS: &[&str] = &[
    "cusparseCreateConstCsr",
    "cusparseCreateConstDnMat",
    "cusparseCreateDnMat",
    "cusparseDestroySpMat",
    "cusparseDestroyDnMat",
    "cusparseSpMM_bufferSize",
    "cusparseSpMM_preprocess",
    "cusparseSpMM",
];

const SDDMM_SYMBOLS: &[&str] = &[
    "cusparseCreateCsr",
    "cusparseCreateConstDnMat",
    "cusparseDestroySpMat",
    "cusparseDestroyDnMat",
    "cusparseSDDMM_bufferSize",
    "cusparseSDDMM_preprocess",
    "cusparseSDDMM",
];

/// A cuSPARSE SpMM algorithm for CSR (all three take row-major B and C).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpMmAlg {
    /// `CUSPARSE_SPMM_CSR_ALG1`.
    CsrAlg1,
    /// `CUSPARSE_SPMM_CSR_ALG2`.
    CsrAlg2,
    /// `CUSPARSE_SPMM_CSR_ALG3`.
    CsrAlg3,
}

impl SpMmAlg {
    pub const ALL: [SpMmAlg; 3] = [SpMmAlg::CsrAlg1, SpMmAlg::CsrAlg2, SpMmAlg::CsrAlg3];

    fn sys(self) -> sys::cusparseSpMMAlg_t {
        match self {
            SpMmAlg::CsrAlg1 => sys::cusparseSpMMAlg_t::CUSPARSE_SPMM_CSR_ALG1,
            SpMmAlg::CsrAlg2 => sys::cusparseSpMMAlg_t::CUSPARSE_SPMM_CSR_ALG2,
            SpMmAlg::CsrAlg3 => sys::cusparseSpMMAlg_t::CUSPARSE_SPMM_CSR_ALG3,
        }
    }

    /// The benchmark's kernel name.
    pub fn kernel_name(self) -> &'static str {
        match self {
            SpMmAlg::CsrAlg1 => "cusparse_spmm_alg1",
            SpMmAlg::CsrAlg2 => "cusparse_spmm_alg2",
            SpMmAlg::CsrAlg3 => "cusparse_spmm_alg3",
        }
    }
}

fn dim(n: usize) -> Result<i64> {
    i64::try_from(n).map_err(|_| CusparseError::Invalid(format!("{n} does not fit i64")))
}

/// `C = A B` by cuSPARSE (`cusparseSpMM`, alpha 1, beta 0) with `B` (`cols x k`) and `C`
/// (`rows x k`) row-major: descriptors, buffer and `cusparseSpMM_preprocess` (a failure kept, not
/// fatal) made once by [`SpMm::new`]; [`SpMm::run`] queues one `cusparseSpMM`. Owns `C`.
pub struct SpMm<'a, T: Float> {
    cs: &'a Cusparse,
    mat: sys::cusparseConstSpMatDescr_t,
    mat_b: sys::cusparseConstDnMatDescr_t,
    mat_c: sys::cusparseDnMatDescr_t,
    c: DeviceBuffer<T>,
    buffer: DeviceBuffer<u64>,
    value_type: sys::cudaDataType,
    alg: SpMmAlg,
    preprocess_error: Option<String>,
    _borrows: PhantomData<(&'a DeviceCsr<T>, &'a DeviceBuffer<T>)>,
}

impl<'a, T: Float> SpMm<'a, T> {
    pub fn new(
        cs: &'a Cusparse,
        gpu: &Gpu,
        a: &'a DeviceCsr<T>,
        b: &'a DeviceBuffer<T>,
        k: usize,
        alg: SpMmAlg,
    ) -> Result<SpMm<'a, T>> {
        has_symbols(SPMM_SYMBOLS)?;
        let value_type = value_type::<T>()?;
        if !cs.owns(gpu) || !on_gpu(a.offsets(), gpu) || !on_gpu(b, gpu) {
            return Err(CusparseError::Invalid(
                "the cuSPARSE handle, the matrix and B must belong to the same Gpu".to_string(),
            ));
        }
        if a.wide_offsets().is_some() || b.len() < a.cols() * k {
            return Err(CusparseError::Invalid(format!(
                "a wide matrix, or B of {} elements for {} x {k}",
                b.len(),
                a.cols()
            )));
        }
        let (rows, cols, nnz, kk) = (dim(a.rows())?, dim(a.cols())?, dim(a.nnz())?, dim(k)?);
        bind(&cs.stream)?;
        let mut plan = SpMm {
            cs,
            mat: ptr::null(),
            mat_b: ptr::null(),
            mat_c: ptr::null_mut(),
            c: gpu.zeros::<T>(a.rows() * k)?,
            buffer: gpu.zeros::<u64>(0)?,
            value_type,
            alg,
            preprocess_error: None,
            _borrows: PhantomData,
        };
        // SAFETY: live device allocations of `a` (32-bit offsets and indices), borrowed for 'a.
        check("cusparseCreateConstCsr", unsafe {
            const_csr(&mut plan.mat, a, (rows, cols, nnz), value_type)
        })?;
        // SAFETY: `b` holds at least cols x k elements (checked) and is borrowed for 'a.
        check("cusparseCreateConstDnMat", unsafe {
            sys::cusparseCreateConstDnMat(
                &mut plan.mat_b,
                cols,
                kk,
                kk,
                addr(b),
                value_type,
                sys::cusparseOrder_t::CUSPARSE_ORDER_ROW,
            )
        })?;
        // SAFETY: `plan.c` holds rows x k elements and lives as long as the plan.
        check("cusparseCreateDnMat", unsafe {
            sys::cusparseCreateDnMat(
                &mut plan.mat_c,
                rows,
                kk,
                kk,
                addr(&plan.c),
                value_type,
                sys::cusparseOrder_t::CUSPARSE_ORDER_ROW,
            )
        })?;
        let (alpha, beta) = (T::from_f64(1.0), T::from_f64(0.0));
        let op = sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
        let mut size = 0usize;
        // SAFETY: live handle and descriptors; host scalars of the value type; valid out-pointer.
        check("cusparseSpMM_bufferSize", unsafe {
            sys::cusparseSpMM_bufferSize(
                cs.handle,
                op,
                op,
                &alpha as *const T as *const c_void,
                plan.mat,
                plan.mat_b,
                &beta as *const T as *const c_void,
                plan.mat_c,
                value_type,
                alg.sys(),
                &mut size,
            )
        })?;
        plan.buffer = gpu.zeros::<u64>(size.div_ceil(8).max(1))?;
        // SAFETY: as above, with the external buffer of the size asked for, owned by the plan.
        let pre = check("cusparseSpMM_preprocess", unsafe {
            sys::cusparseSpMM_preprocess(
                cs.handle,
                op,
                op,
                &alpha as *const T as *const c_void,
                plan.mat,
                plan.mat_b,
                &beta as *const T as *const c_void,
                plan.mat_c,
                value_type,
                alg.sys(),
                addr(&plan.buffer),
            )
        });
        plan.preprocess_error = pre.err().map(|e| e.to_string());
        Ok(plan)
    }

    /// Queues `C = A B` on the `Gpu`'s stream.
    pub fn run(&mut self) -> Result<()> {
        let (alpha, beta) = (T::from_f64(1.0), T::from_f64(0.0));
        let op = sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
        // SAFETY: live handle, descriptors and buffer; host scalars read before the call returns.
        check("cusparseSpMM", unsafe {
            sys::cusparseSpMM(
                self.cs.handle,
                op,
                op,
                &alpha as *const T as *const c_void,
                self.mat,
                self.mat_b,
                &beta as *const T as *const c_void,
                self.mat_c,
                self.value_type,
                self.alg.sys(),
                addr(&self.buffer),
            )
        })
    }

    pub fn c(&self) -> &DeviceBuffer<T> {
        &self.c
    }

    pub fn fill_c(&mut self, gpu: &Gpu, value: T) -> Result<()> {
        gpu.fill(&mut self.c, value)?;
        Ok(())
    }

    pub fn preprocess_error(&self) -> Option<&str> {
        self.preprocess_error.as_deref()
    }
}

impl<T: Float> Drop for SpMm<'_, T> {
    fn drop(&mut self) {
        let _ = self.cs.stream.synchronize();
        // SAFETY: each descriptor was made by this plan (or is null and skipped), destroyed once.
        unsafe {
            if !self.mat_c.is_null() {
                let _ = sys::cusparseDestroyDnMat(self.mat_c);
            }
            if !self.mat_b.is_null() {
                let _ = sys::cusparseDestroyDnMat(self.mat_b);
            }
            if !self.mat.is_null() {
                let _ = sys::cusparseDestroySpMat(self.mat);
            }
        }
    }
}

/// The sampled product `out[nz] = x[row] · y[col]` by cuSPARSE (`cusparseSDDMM`, alpha 1, beta 0,
/// `CUSPARSE_SDDMM_ALG_DEFAULT`): `x` (`rows x k`) row-major as op(A); `y` (`cols x k`, row-major)
/// is the same memory as a column-major `k x cols`, given so as op(B) (no transpose). If cuSPARSE
/// refuses the mixed orders, `y` is given row-major with op(B) transposed. The CSR descriptor's
/// values are the plan's own output buffer; `A`'s offsets and indices are only read.
pub struct Sddmm<'a, T: Float> {
    cs: &'a Cusparse,
    mat: sys::cusparseSpMatDescr_t,
    mat_x: sys::cusparseConstDnMatDescr_t,
    mat_y: sys::cusparseConstDnMatDescr_t,
    op_y: sys::cusparseOperation_t,
    out: DeviceBuffer<T>,
    buffer: DeviceBuffer<u64>,
    value_type: sys::cudaDataType,
    preprocess_error: Option<String>,
    _borrows: PhantomData<(&'a DeviceCsr<T>, &'a DeviceBuffer<T>)>,
}

/// The kernel name of cuSPARSE's SDDMM.
pub const SDDMM_KERNEL: &str = "cusparse_sddmm";

impl<'a, T: Float> Sddmm<'a, T> {
    pub fn new(
        cs: &'a Cusparse,
        gpu: &Gpu,
        a: &'a DeviceCsr<T>,
        x: &'a DeviceBuffer<T>,
        y: &'a DeviceBuffer<T>,
        k: usize,
    ) -> Result<Sddmm<'a, T>> {
        has_symbols(SDDMM_SYMBOLS)?;
        let value_type = value_type::<T>()?;
        if !cs.owns(gpu) || !on_gpu(a.offsets(), gpu) || !on_gpu(x, gpu) || !on_gpu(y, gpu) {
            return Err(CusparseError::Invalid(
                "the cuSPARSE handle, the matrix, x and y must belong to the same Gpu".to_string(),
            ));
        }
        if a.wide_offsets().is_some() || x.len() < a.rows() * k || y.len() < a.cols() * k {
            return Err(CusparseError::Invalid(
                "a wide matrix, or x or y too short".into(),
            ));
        }
        let (rows, cols, nnz, kk) = (dim(a.rows())?, dim(a.cols())?, dim(a.nnz())?, dim(k)?);
        bind(&cs.stream)?;
        let mut plan = Sddmm {
            cs,
            mat: ptr::null_mut(),
            mat_x: ptr::null(),
            mat_y: ptr::null(),
            op_y: sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
            out: gpu.zeros::<T>(a.nnz())?,
            buffer: gpu.zeros::<u64>(0)?,
            value_type,
            preprocess_error: None,
            _borrows: PhantomData,
        };
        // SAFETY: `a`'s offsets and indices (read only by SDDMM, hence the casts) borrowed for
        // 'a; the values are the plan's own `out` of nnz elements.
        check("cusparseCreateCsr", unsafe {
            sys::cusparseCreateCsr(
                &mut plan.mat,
                rows,
                cols,
                nnz,
                addr(a.offsets()),
                addr(a.indices()),
                addr(&plan.out),
                sys::cusparseIndexType_t::CUSPARSE_INDEX_32I,
                sys::cusparseIndexType_t::CUSPARSE_INDEX_32I,
                sys::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
                value_type,
            )
        })?;
        // SAFETY: `x` holds rows x k elements, borrowed for 'a.
        check("cusparseCreateConstDnMat", unsafe {
            sys::cusparseCreateConstDnMat(
                &mut plan.mat_x,
                rows,
                kk,
                kk,
                addr(x),
                value_type,
                sys::cusparseOrder_t::CUSPARSE_ORDER_ROW,
            )
        })?;
        let size = match plan.describe_y(y, cols, kk, false) {
            Ok(size) => size,
            Err(_) => plan.describe_y(y, cols, kk, true)?,
        };
        plan.buffer = gpu.zeros::<u64>(size.div_ceil(8).max(1))?;
        let (alpha, beta) = (T::from_f64(1.0), T::from_f64(0.0));
        // SAFETY: live handle and descriptors, the buffer of the size asked for.
        let pre = check("cusparseSDDMM_preprocess", unsafe {
            sys::cusparseSDDMM_preprocess(
                cs.handle,
                sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                plan.op_y,
                &alpha as *const T as *const c_void,
                plan.mat_x,
                plan.mat_y,
                &beta as *const T as *const c_void,
                plan.mat,
                value_type,
                sys::cusparseSDDMMAlg_t::CUSPARSE_SDDMM_ALG_DEFAULT,
                addr(&plan.buffer),
            )
        });
        plan.preprocess_error = pre.err().map(|e| e.to_string());
        Ok(plan)
    }

    /// Describes `y` (column-major `k x cols`, or row-major `cols x k` transposed) and asks for the
    /// buffer size with it; on refusal the descriptor is destroyed again.
    fn describe_y(
        &mut self,
        y: &DeviceBuffer<T>,
        cols: i64,
        k: i64,
        transposed: bool,
    ) -> Result<usize> {
        if !self.mat_y.is_null() {
            // SAFETY: made by this plan, destroyed once (and nulled).
            let _ = unsafe { sys::cusparseDestroyDnMat(self.mat_y) };
            self.mat_y = ptr::null();
        }
        let (r, c, ld, order, op) = if transposed {
            (
                cols,
                k,
                k,
                sys::cusparseOrder_t::CUSPARSE_ORDER_ROW,
                sys::cusparseOperation_t::CUSPARSE_OPERATION_TRANSPOSE,
            )
        } else {
            (
                k,
                cols,
                k,
                sys::cusparseOrder_t::CUSPARSE_ORDER_COL,
                sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
            )
        };
        // SAFETY: `y` holds cols x k elements, borrowed for the plan's life.
        check("cusparseCreateConstDnMat", unsafe {
            sys::cusparseCreateConstDnMat(
                &mut self.mat_y,
                r,
                c,
                ld,
                addr(y),
                self.value_type,
                order,
            )
        })?;
        self.op_y = op;
        let (alpha, beta) = (T::from_f64(1.0), T::from_f64(0.0));
        let mut size = 0usize;
        // SAFETY: live handle and descriptors; host scalars; valid out-pointer.
        check("cusparseSDDMM_bufferSize", unsafe {
            sys::cusparseSDDMM_bufferSize(
                self.cs.handle,
                sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                op,
                &alpha as *const T as *const c_void,
                self.mat_x,
                self.mat_y,
                &beta as *const T as *const c_void,
                self.mat,
                self.value_type,
                sys::cusparseSDDMMAlg_t::CUSPARSE_SDDMM_ALG_DEFAULT,
                &mut size,
            )
        })?;
        Ok(size)
    }

    /// Queues the product on the `Gpu`'s stream.
    pub fn run(&mut self) -> Result<()> {
        let (alpha, beta) = (T::from_f64(1.0), T::from_f64(0.0));
        // SAFETY: live handle, descriptors and buffer; host scalars read before the call returns.
        check("cusparseSDDMM", unsafe {
            sys::cusparseSDDMM(
                self.cs.handle,
                sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                self.op_y,
                &alpha as *const T as *const c_void,
                self.mat_x,
                self.mat_y,
                &beta as *const T as *const c_void,
                self.mat,
                self.value_type,
                sys::cusparseSDDMMAlg_t::CUSPARSE_SDDMM_ALG_DEFAULT,
                addr(&self.buffer),
            )
        })
    }

    pub fn out(&self) -> &DeviceBuffer<T> {
        &self.out
    }

    pub fn fill_out(&mut self, gpu: &Gpu, value: T) -> Result<()> {
        gpu.fill(&mut self.out, value)?;
        Ok(())
    }

    pub fn preprocess_error(&self) -> Option<&str> {
        self.preprocess_error.as_deref()
    }
}

impl<T: Float> Drop for Sddmm<'_, T> {
    fn drop(&mut self) {
        let _ = self.cs.stream.synchronize();
        // SAFETY: each descriptor was made by this plan (or is null and skipped), destroyed once.
        unsafe {
            if !self.mat_y.is_null() {
                let _ = sys::cusparseDestroyDnMat(self.mat_y);
            }
            if !self.mat_x.is_null() {
                let _ = sys::cusparseDestroyDnMat(self.mat_x);
            }
            if !self.mat.is_null() {
                let _ = sys::cusparseDestroySpMat(self.mat);
            }
        }
    }
}

//! A small safe wrapper over cuSPARSE's generic SpMV (`cusparseSpMV` on a CSR matrix), the baseline
//! of the SpMV benchmark, and over `cusparseSpMM` ([`SpMm`]) and `cusparseSDDMM` ([`Sddmm`]), the
//! baselines of `bench_spmm` (their functions are looked up when a plan is made). cudarc 0.19 has cuSPARSE only as `sys` bindings, loaded at run time; they panic
//! when the library or a function is missing, so [`available`] looks for both first and every other
//! entry point returns a `Result`.
//!
//! All work goes to the [`Gpu`]'s one stream (the handle is bound to it), so it is ordered with the
//! loops kernels, copies and timing events of the same `Gpu`, as everything else is.

use std::ffi::c_void;
use std::fmt;
use std::marker::PhantomData;
use std::ptr;
use std::sync::{Arc, OnceLock};

use cudarc::cusparse::sys;
use cudarc::driver::CudaStream;
use loops::prelude::*;

/// Why a cuSPARSE baseline could not be had or run.
#[derive(Debug)]
pub enum CusparseError {
    /// libcusparse could not be loaded, or lacks a function this wrapper calls.
    Unavailable(String),
    /// A cuSPARSE call returned an error status.
    Call {
        call: &'static str,
        status: sys::cusparseStatus_t,
    },
    /// Device memory or the context.
    Loops(LoopsError),
    /// A request this wrapper does not support (an element type, a buffer of another `Gpu`).
    Invalid(String),
}

impl fmt::Display for CusparseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CusparseError::Unavailable(why) => write!(f, "cuSPARSE unavailable: {why}"),
            CusparseError::Call { call, status } => write!(f, "{call} failed: {status:?}"),
            CusparseError::Loops(e) => write!(f, "{e}"),
            CusparseError::Invalid(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for CusparseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CusparseError::Loops(e) => Some(e),
            _ => None,
        }
    }
}

impl From<LoopsError> for CusparseError {
    fn from(e: LoopsError) -> Self {
        CusparseError::Loops(e)
    }
}

pub type Result<T, E = CusparseError> = std::result::Result<T, E>;

mod csc;
mod dense;
#[allow(unused_imports)] // only bench_sort uses it
pub use csc::Csr2Csc;
#[allow(unused_imports)] // bench_spmv builds this module too, and uses none of them
pub use dense::{Sddmm, SpMm, SpMmAlg, SDDMM_KERNEL};

fn check(call: &'static str, status: sys::cusparseStatus_t) -> Result<()> {
    status
        .result()
        .map_err(|e| CusparseError::Call { call, status: e.0 })
}

/// Every function of libcusparse this wrapper calls: looked up before the first call, since a
/// missing one panics inside cudarc.
const SYMBOLS: &[&str] = &[
    "cusparseCreate",
    "cusparseDestroy",
    "cusparseSetStream",
    "cusparseGetVersion",
    "cusparseCreateConstCsr",
    "cusparseCreateConstDnVec",
    "cusparseCreateDnVec",
    "cusparseDestroySpMat",
    "cusparseDestroyDnVec",
    "cusparseSpMV_bufferSize",
    "cusparseSpMV",
];

/// Whether libcusparse has `cusparseSpMV_preprocess` (CUDA 12.4 and later); without it a plan runs
/// unpreprocessed. Only asked after [`available`] succeeded.
fn has_preprocess() -> bool {
    static FOUND: OnceLock<bool> = OnceLock::new();
    // SAFETY: a symbol lookup in a library that loads (checked by `available`); not called here.
    *FOUND.get_or_init(|| unsafe {
        sys::culib()
            .get::<*const ()>(b"cusparseSpMV_preprocess")
            .is_ok()
    })
}

/// Whether libcusparse can be loaded and has every function used here; the reason if not. Asked
/// once per process (it loads the library).
pub fn available() -> Result<()> {
    static FOUND: OnceLock<Result<(), String>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            // SAFETY: only loads (and unloads) the library; calls nothing in it.
            if !unsafe { sys::is_culib_present() } {
                return Err(not_loadable());
            }
            // SAFETY: the library loads (just checked), so `culib` does not panic.
            let lib = unsafe { sys::culib() };
            let missing: Vec<&str> = SYMBOLS
                .iter()
                .copied()
                // SAFETY: a symbol lookup; the pointer is not used.
                .filter(|s| unsafe { lib.get::<*const ()>(s.as_bytes()) }.is_err())
                .collect();
            if missing.is_empty() {
                Ok(())
            } else {
                Err(format!("libcusparse lacks {missing:?}"))
            }
        })
        .clone()
        .map_err(CusparseError::Unavailable)
}

/// Which names were tried, and why the ones that exist did not load (a missing dependency such as
/// libnvJitLink, say), for the error message.
fn not_loadable() -> String {
    let names = cudarc::get_lib_name_candidates("cusparse");
    let mut reasons = Vec::new();
    for name in &names {
        // SAFETY: loading a shared library runs its initializers; libcusparse's are CUDA's own, and
        // cudarc would load the same file.
        if let Err(e) = unsafe { libloading::Library::new(name) } {
            let e = e.to_string();
            if !e.contains("No such file") && !e.contains("cannot open shared object") {
                reasons.push(e);
            }
        }
    }
    let mut msg = format!("libcusparse could not be loaded (tried {names:?})");
    if reasons.is_empty() {
        msg.push_str(
            "; on a CUDA machine, put its lib folder (e.g. /usr/local/cuda/lib64) on LD_LIBRARY_PATH",
        );
    } else {
        msg.push_str(&format!("; {}", reasons.join("; ")));
    }
    msg
}

/// A cuSPARSE handle whose work goes to a [`Gpu`]'s stream.
pub struct Cusparse {
    handle: sys::cusparseHandle_t,
    stream: Arc<CudaStream>,
    version: i32,
}

impl Cusparse {
    /// A handle on `gpu`'s stream; [`CusparseError::Unavailable`] (no panic) without libcusparse.
    pub fn new(gpu: &Gpu) -> Result<Cusparse> {
        available()?;
        let stream = gpu.stream().clone();
        bind(&stream)?;
        let mut handle = ptr::null_mut();
        // SAFETY: the library and the function exist (checked); `handle` is a valid out-pointer.
        check("cusparseCreate", unsafe {
            sys::cusparseCreate(&mut handle)
        })?;
        let mut cs = Cusparse {
            handle,
            stream,
            version: 0,
        };
        // SAFETY: a live handle; the stream lives as long as `cs` (held in it).
        check("cusparseSetStream", unsafe {
            sys::cusparseSetStream(cs.handle, cs.stream.cu_stream() as sys::cudaStream_t)
        })?;
        // SAFETY: a live handle and a valid out-pointer.
        check("cusparseGetVersion", unsafe {
            sys::cusparseGetVersion(cs.handle, &mut cs.version)
        })?;
        Ok(cs)
    }

    /// The library version as `major.minor.patch` (cuSPARSE encodes it as major*1000 + minor*100 +
    /// patch).
    pub fn version(&self) -> String {
        let v = self.version;
        format!("{}.{}.{}", v / 1000, (v % 1000) / 100, v % 100)
    }

    fn owns(&self, gpu: &Gpu) -> bool {
        Arc::ptr_eq(&self.stream, gpu.stream())
    }
}

impl Drop for Cusparse {
    fn drop(&mut self) {
        // Work queued with this handle may still run; the handle outlives it.
        let _ = self.stream.synchronize();
        // SAFETY: the handle is live and destroyed once, here. An error cannot be reported from drop.
        let _ = unsafe { sys::cusparseDestroy(self.handle) };
    }
}

fn bind(stream: &Arc<CudaStream>) -> Result<()> {
    stream.context().bind_to_thread().map_err(|e| {
        CusparseError::Invalid(format!(
            "binding the CUDA context to the thread for cuSPARSE: {e}"
        ))
    })
}

/// A cuSPARSE SpMV algorithm for CSR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alg {
    /// `CUSPARSE_SPMV_CSR_ALG1` (the default for CSR).
    CsrAlg1,
    /// `CUSPARSE_SPMV_CSR_ALG2`: deterministic, same result on every run.
    CsrAlg2,
}

impl Alg {
    fn sys(self) -> sys::cusparseSpMVAlg_t {
        match self {
            Alg::CsrAlg1 => sys::cusparseSpMVAlg_t::CUSPARSE_SPMV_CSR_ALG1,
            Alg::CsrAlg2 => sys::cusparseSpMVAlg_t::CUSPARSE_SPMV_CSR_ALG2,
        }
    }

    /// The benchmark's kernel name.
    pub fn kernel_name(self) -> &'static str {
        match self {
            Alg::CsrAlg1 => super::ALG1,
            Alg::CsrAlg2 => super::ALG2,
        }
    }
}

fn value_type<T: Float>() -> Result<sys::cudaDataType> {
    match T::RUST_NAME {
        "f32" => Ok(sys::cudaDataType::CUDA_R_32F),
        "f64" => Ok(sys::cudaDataType::CUDA_R_64F),
        other => Err(CusparseError::Invalid(format!(
            "cuSPARSE SpMV for element type {other} is not wrapped"
        ))),
    }
}

/// Whether `b` was made by `gpu` (an empty buffer belongs to none, and goes anywhere).
fn on_gpu<T>(b: &DeviceBuffer<T>, gpu: &Gpu) -> bool {
    b.cuda_slice()
        .is_none_or(|s| Arc::ptr_eq(s.stream(), gpu.stream()))
}

/// `cusparseCreateConstCsr` over `a`'s device arrays (32-bit offsets and indices, base 0).
///
/// # Safety
/// `a` must outlive the descriptor written to `out` (the plans borrow it for their lifetime).
pub(crate) unsafe fn const_csr<T: Float>(
    out: &mut sys::cusparseConstSpMatDescr_t,
    a: &DeviceCsr<T>,
    (rows, cols, nnz): (i64, i64, i64),
    value_type: sys::cudaDataType,
) -> sys::cusparseStatus_t {
    sys::cusparseCreateConstCsr(
        out,
        rows,
        cols,
        nnz,
        addr(a.offsets()),
        addr(a.indices()),
        addr(a.values()),
        sys::cusparseIndexType_t::CUSPARSE_INDEX_32I,
        sys::cusparseIndexType_t::CUSPARSE_INDEX_32I,
        sys::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
        value_type,
    )
}

/// The device address of a buffer as the `void *` cuSPARSE takes.
fn addr<T>(b: &DeviceBuffer<T>) -> *mut c_void {
    b.device_ptr() as usize as *mut c_void
}

/// `y = A x` by cuSPARSE for one matrix, vector and algorithm: descriptors, the external buffer
/// (sized by `cusparseSpMV_bufferSize`) and `cusparseSpMV_preprocess` (whose failure is kept, not
/// fatal: see [`SpMv::preprocess_error`]), all done once by [`SpMv::new`]; [`SpMv::run`] then queues
/// one `cusparseSpMV` on the `Gpu`'s stream. The plan owns `y` (so that nothing can move it from
/// under the descriptor) and borrows `A` and `x`.
pub struct SpMv<'a, T: Float> {
    cs: &'a Cusparse,
    mat: sys::cusparseConstSpMatDescr_t,
    vec_x: sys::cusparseConstDnVecDescr_t,
    vec_y: sys::cusparseDnVecDescr_t,
    y: DeviceBuffer<T>,
    buffer: DeviceBuffer<u64>,
    value_type: sys::cudaDataType,
    alg: Alg,
    /// Why `cusparseSpMV_preprocess` failed, if it did (the plan then runs without it).
    preprocess_error: Option<String>,
    _borrows: PhantomData<(&'a DeviceCsr<T>, &'a DeviceBuffer<T>)>,
}

impl<'a, T: Float> SpMv<'a, T> {
    /// Creates the descriptors and the buffer and runs `cusparseSpMV_preprocess` once. `a`, `x` and
    /// the handle must belong to `gpu`.
    pub fn new(
        cs: &'a Cusparse,
        gpu: &Gpu,
        a: &'a DeviceCsr<T>,
        x: &'a DeviceBuffer<T>,
        alg: Alg,
    ) -> Result<SpMv<'a, T>> {
        let value_type = value_type::<T>()?;
        if !cs.owns(gpu)
            || !on_gpu(a.offsets(), gpu)
            || !on_gpu(a.indices(), gpu)
            || !on_gpu(a.values(), gpu)
            || !on_gpu(x, gpu)
        {
            return Err(CusparseError::Invalid(
                "the cuSPARSE handle, the matrix and x must belong to the same Gpu".to_string(),
            ));
        }
        if x.len() != a.cols() {
            return Err(CusparseError::Invalid(format!(
                "x has {} elements but the matrix has {} columns",
                x.len(),
                a.cols()
            )));
        }
        let dim = |n: usize| {
            i64::try_from(n).map_err(|_| CusparseError::Invalid(format!("{n} does not fit i64")))
        };
        let (rows, cols, nnz) = (dim(a.rows())?, dim(a.cols())?, dim(a.nnz())?);
        bind(&cs.stream)?;
        let mut plan = SpMv {
            cs,
            mat: ptr::null(),
            vec_x: ptr::null(),
            vec_y: ptr::null_mut(),
            y: gpu.zeros::<T>(a.rows())?,
            buffer: gpu.zeros::<u64>(0)?,
            value_type,
            alg,
            preprocess_error: None,
            _borrows: PhantomData,
        };
        // From here on a failure drops `plan`, which destroys the descriptors made so far.
        // SAFETY: the pointers are live device allocations of `a` (rows + 1 offsets, nnz indices and
        // values, 32-bit), borrowed for 'a; the out-pointer is valid.
        check("cusparseCreateConstCsr", unsafe {
            const_csr(&mut plan.mat, a, (rows, cols, nnz), value_type)
        })?;
        // SAFETY: `x` has `cols` elements and is borrowed for 'a.
        check("cusparseCreateConstDnVec", unsafe {
            sys::cusparseCreateConstDnVec(&mut plan.vec_x, cols, addr(x), value_type)
        })?;
        // SAFETY: `plan.y` has `rows` elements and lives (unmoved on the device) as long as the plan.
        check("cusparseCreateDnVec", unsafe {
            sys::cusparseCreateDnVec(&mut plan.vec_y, rows, addr(&plan.y), value_type)
        })?;
        let (alpha, beta) = (T::from_f64(1.0), T::from_f64(0.0));
        let mut size = 0usize;
        // SAFETY: live handle and descriptors; alpha and beta are host scalars of the value type
        // (the default host pointer mode); a valid out-pointer.
        check("cusparseSpMV_bufferSize", unsafe {
            sys::cusparseSpMV_bufferSize(
                cs.handle,
                sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                &alpha as *const T as *const c_void,
                plan.mat,
                plan.vec_x,
                &beta as *const T as *const c_void,
                plan.vec_y,
                value_type,
                alg.sys(),
                &mut size,
            )
        })?;
        plan.buffer = gpu.zeros::<u64>(size.div_ceil(8).max(1))?;
        if !has_preprocess() {
            plan.preprocess_error =
                Some("libcusparse has no cusparseSpMV_preprocess (CUDA < 12.4)".to_string());
            return Ok(plan);
        }
        // SAFETY: as above, with the external buffer of the size asked for, owned by the plan.
        let pre = check("cusparseSpMV_preprocess", unsafe {
            sys::cusparseSpMV_preprocess(
                cs.handle,
                sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                &alpha as *const T as *const c_void,
                plan.mat,
                plan.vec_x,
                &beta as *const T as *const c_void,
                plan.vec_y,
                value_type,
                alg.sys(),
                addr(&plan.buffer),
            )
        });
        // Preprocessing is an optimization: an algorithm that does not support it still runs.
        plan.preprocess_error = pre.err().map(|e| e.to_string());
        Ok(plan)
    }

    /// Queues `y = A x` (alpha 1, beta 0) on the `Gpu`'s stream.
    pub fn run(&mut self) -> Result<()> {
        let (alpha, beta) = (T::from_f64(1.0), T::from_f64(0.0));
        // SAFETY: live handle, descriptors and buffer (owned or borrowed for the plan's life); host
        // scalars are read before the call returns.
        check("cusparseSpMV", unsafe {
            sys::cusparseSpMV(
                self.cs.handle,
                sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                &alpha as *const T as *const c_void,
                self.mat,
                self.vec_x,
                &beta as *const T as *const c_void,
                self.vec_y,
                self.value_type,
                self.alg.sys(),
                addr(&self.buffer),
            )
        })
    }

    /// The result vector (download it after [`SpMv::run`]).
    pub fn y(&self) -> &DeviceBuffer<T> {
        &self.y
    }

    /// Fills `y` with `value` (e.g. `T::POISON` before a checked run).
    pub fn fill_y(&mut self, gpu: &Gpu, value: T) -> Result<()> {
        gpu.fill(&mut self.y, value)?;
        Ok(())
    }

    pub fn alg(&self) -> Alg {
        self.alg
    }

    /// `None` when `cusparseSpMV_preprocess` succeeded; else its error (the SpMV runs without it).
    pub fn preprocess_error(&self) -> Option<&str> {
        self.preprocess_error.as_deref()
    }
}

impl<T: Float> Drop for SpMv<'_, T> {
    fn drop(&mut self) {
        // Queued SpMVs may still read the descriptors' data; let them finish first.
        let _ = self.cs.stream.synchronize();
        // SAFETY: each descriptor was made by this plan (or is null and skipped) and is destroyed
        // once, here. Errors cannot be reported from drop.
        unsafe {
            if !self.vec_y.is_null() {
                let _ = sys::cusparseDestroyDnVec(self.vec_y);
            }
            if !self.vec_x.is_null() {
                let _ = sys::cusparseDestroyDnVec(self.vec_x);
            }
            if !self.mat.is_null() {
                let _ = sys::cusparseDestroySpMat(self.mat);
            }
        }
    }
}

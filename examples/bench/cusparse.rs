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
            sys::cusparseCreateConstCsr(
                &mut plan.mat,
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
            sys::cusparseCreateConstCsr(
                &mut plan.mat,
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

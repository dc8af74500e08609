//! `cusparseCsr2cscEx2` (CSR to CSC, values copied, `CUSPARSE_CSR2CSC_ALG1`), the baseline of the
//! transpose in `bench_sort`: a plan sized once (its scratch allocated outside the timed calls),
//! [`Csr2Csc::run`] queues one conversion on the `Gpu`'s stream into the plan's own arrays.

use super::{addr, available, bind, check, value_type, Cusparse, CusparseError, Result};
use cudarc::cusparse::sys;
use loops::prelude::*;

/// Every function this plan calls, looked up first (a missing one panics inside cudarc).
const SYMBOLS: &[&str] = &["cusparseCsr2cscEx2_bufferSize", "cusparseCsr2cscEx2"];

/// One matrix's CSR to CSC by cuSPARSE: the output arrays and the scratch, owned.
pub struct Csr2Csc<'a, T: Float> {
    cs: &'a Cusparse,
    a: &'a DeviceCsr<T>,
    col_offsets: DeviceBuffer<i32>,
    row_indices: DeviceBuffer<i32>,
    values: DeviceBuffer<T>,
    scratch: DeviceBuffer<u32>,
}

impl<'a, T: Float> Csr2Csc<'a, T> {
    /// The plan for `a` (32-bit offsets), its buffer sized by `cusparseCsr2cscEx2_bufferSize`.
    pub fn new(cs: &'a Cusparse, gpu: &Gpu, a: &'a DeviceCsr<T>) -> Result<Self> {
        available()?;
        // SAFETY: symbol lookups in a library that loads (checked by `available`).
        let lib = unsafe { sys::culib() };
        if let Some(s) = SYMBOLS
            .iter()
            // SAFETY: a symbol lookup; the pointer is not used.
            .find(|s| unsafe { lib.get::<*const ()>(s.as_bytes()) }.is_err())
        {
            return Err(CusparseError::Unavailable(format!("libcusparse lacks {s}")));
        }
        if !cs.owns(gpu) || a.wide_offsets().is_some() {
            return Err(CusparseError::Invalid(
                "csr2csc: a matrix of 32-bit offsets on the handle's Gpu".into(),
            ));
        }
        let mut plan = Csr2Csc {
            cs,
            a,
            col_offsets: gpu.zeros::<i32>(a.cols() + 1)?,
            row_indices: gpu.zeros::<i32>(a.nnz().max(1))?,
            values: gpu.zeros::<T>(a.nnz().max(1))?,
            scratch: gpu.zeros::<u32>(1)?,
        };
        let mut size = 0usize;
        bind(&cs.stream)?;
        // SAFETY: a live handle; every pointer is a device array of the sizes cuSPARSE reads.
        check("cusparseCsr2cscEx2_bufferSize", unsafe {
            sys::cusparseCsr2cscEx2_bufferSize(
                cs.handle,
                a.rows() as i32,
                a.cols() as i32,
                a.nnz() as i32,
                addr(a.values()),
                addr(a.offsets()) as *const i32,
                addr(a.indices()) as *const i32,
                addr(&plan.values),
                addr(&plan.col_offsets) as *mut i32,
                addr(&plan.row_indices) as *mut i32,
                value_type::<T>()?,
                sys::cusparseAction_t::CUSPARSE_ACTION_NUMERIC,
                sys::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
                sys::cusparseCsr2CscAlg_t::CUSPARSE_CSR2CSC_ALG1,
                &mut size,
            )
        })?;
        plan.scratch = gpu.zeros::<u32>(size.div_ceil(4).max(1))?;
        Ok(plan)
    }

    /// One conversion, queued on the `Gpu`'s stream.
    pub fn run(&mut self) -> Result<()> {
        let a = self.a;
        // SAFETY: as in `new`; the scratch is the size cuSPARSE asked for.
        check("cusparseCsr2cscEx2", unsafe {
            sys::cusparseCsr2cscEx2(
                self.cs.handle,
                a.rows() as i32,
                a.cols() as i32,
                a.nnz() as i32,
                addr(a.values()),
                addr(a.offsets()) as *const i32,
                addr(a.indices()) as *const i32,
                addr(&self.values),
                addr(&self.col_offsets) as *mut i32,
                addr(&self.row_indices) as *mut i32,
                value_type::<T>()?,
                sys::cusparseAction_t::CUSPARSE_ACTION_NUMERIC,
                sys::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
                sys::cusparseCsr2CscAlg_t::CUSPARSE_CSR2CSC_ALG1,
                addr(&self.scratch),
            )
        })
    }

    /// The CSC's arrays: column offsets, row indices, values (as many as the matrix's nonzeros,
    /// at least one).
    pub fn parts(&self) -> (&DeviceBuffer<i32>, &DeviceBuffer<i32>, &DeviceBuffer<T>) {
        (&self.col_offsets, &self.row_indices, &self.values)
    }
}

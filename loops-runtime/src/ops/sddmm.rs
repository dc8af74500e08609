//! The sampled dense-dense product `out[nz] = Σ_j x[row·k + j] · y[col·k + j]` at every stored
//! entry of a CSR matrix (32-bit offsets and indices): hand-written CUDA in `sddmm.cuh` (its
//! header says how a warp splits into groups of lanes over `k`).
//!
//! The plan ([`sddmm_plan`]): 16-byte loads where `k` allows (as SpMM's, see
//! [`super::spmm`]); lanes over `k` enough for one row (`k / V` vectors), at most a warp (a wider
//! row is walked in steps of a warp's vectors); pieces of nonzeros per warp so that the device
//! holds about two warps' pieces per warp slot.

use kernels_gen::schedule::LaunchDims;

use super::spmm::{check_buffer, check_k, narrow_offsets, vector_width};
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Float;
use crate::error::Result;
use crate::formats::DeviceCsr;
use crate::launch::entry::entries;

/// The CUDA text of the SDDMM kernels (every entry point compiled at once, on first use).
pub const SDDMM_SOURCE: &str = include_str!("sddmm.cuh");

entries! {
    source: SDDMM_SOURCE;
    undeclared: [];
    /// A warp per `piece` nonzeros: `out[nz] = x[row] · y[col]` over `kv` vectors.
    fn sddmm<T: Float [f32, f64]> = "loops_sddmm_*_v*" (
        rows: i32, nnz: i32, offsets: *const i32, indices: *const i32, x: *const T, y: *const T,
        out: *mut T, kv: u32, log_gk: u32, piece: i32,
    );
}

const BLOCK: u32 = 256;

/// What one SDDMM launch runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SddmmPlan {
    /// Elements per load (1, 2 or 4).
    pub vector: u32,
    /// log2 of the lanes over k (a group; a warp holds `32 >> log_lanes_k` groups).
    pub log_lanes_k: u32,
    /// Nonzeros per warp.
    pub piece: u32,
}

impl SddmmPlan {
    /// The entry point of `sddmm.cuh`, for element type `precision` ("f32" or "f64").
    pub fn entry(&self, precision: &str) -> String {
        format!("loops_sddmm_{precision}_v{}", self.vector)
    }
}

/// The plan for `nnz` nonzeros, rows of `k` elements of `element_bytes` each, on a device of
/// `sm_count` multiprocessors of `max_threads_per_sm` threads.
pub fn sddmm_plan(
    nnz: usize,
    k: usize,
    element_bytes: usize,
    sm_count: u32,
    max_threads_per_sm: u32,
) -> SddmmPlan {
    let vector = vector_width(k, element_bytes);
    let kv = (k / vector as usize).max(1);
    let lanes_k = kv.next_power_of_two().min(32);
    let warps_at_once =
        (sm_count.max(1) as usize * max_threads_per_sm.max(32) as usize / 32).max(1);
    let piece = (nnz / (2 * warps_at_once))
        .clamp(32, 8192)
        .next_multiple_of(32) as u32;
    SddmmPlan {
        vector,
        log_lanes_k: lanes_k.trailing_zeros(),
        piece,
    }
}

/// The checks of [`sddmm`] (shared with the language version, `loops::ops::sddmm`): `k`, 32-bit
/// offsets, and the buffers' lengths.
pub fn check_sddmm<T: Float>(
    a: &DeviceCsr<T>,
    x: &DeviceBuffer<T>,
    y: &DeviceBuffer<T>,
    k: usize,
    out: &DeviceBuffer<T>,
) -> Result<()> {
    const OP: &str = "sddmm";
    check_k(OP, k, a.rows(), a.cols())?;
    narrow_offsets(OP, a)?;
    check_buffer(OP, "x", x.len(), a.rows() * k, "rows x k, row-major")?;
    check_buffer(OP, "y", y.len(), a.cols() * k, "cols x k, row-major")?;
    check_buffer(OP, "out", out.len(), a.nnz(), "one per stored entry")
}

/// The sampled dense-dense product (see `loops::ops::CsrOps::sddmm`): `x` holds at least
/// `rows · k` elements, `y` at least `cols · k`, `out` at least `nnz` (entries past them are left
/// alone).
pub fn sddmm<T: Float>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    x: &DeviceBuffer<T>,
    y: &DeviceBuffer<T>,
    k: usize,
    out: &mut DeviceBuffer<T>,
) -> Result<()> {
    const OP: &str = "sddmm";
    check_sddmm(a, x, y, k, out)?;
    let offsets = narrow_offsets(OP, a)?;
    if a.nnz() == 0 {
        return Ok(());
    }
    let limits = gpu.limits();
    let plan = sddmm_plan(
        a.nnz(),
        k,
        std::mem::size_of::<T>(),
        limits.sm_count,
        limits.max_threads_per_sm,
    );
    let entry = plan.entry(T::RUST_NAME);
    let function = gpu.function("loops_sddmm", SDDMM_SOURCE, &entry)?;
    let warps = a.nnz().div_ceil(plan.piece as usize);
    let grid = u32::try_from((warps * 32).div_ceil(BLOCK as usize)).map_err(|_| {
        crate::error::LoopsError::InvalidArgument {
            op: OP,
            detail: format!("{warps} warps exceed a launch's grid"),
        }
    })?;
    let dims = LaunchDims {
        grid,
        block: BLOCK,
        shared_bytes: 0,
    };
    let args = sddmm::args(
        a.rows() as i32,
        a.nnz() as i32,
        offsets,
        a.indices(),
        x,
        y,
        out,
        (k / plan.vector as usize) as u32,
        plan.log_lanes_k,
        plan.piece as i32,
    );
    gpu.launch_function(&entry, &function, dims, args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_fit_a_warp() {
        for k in 1..=200 {
            for bytes in [4, 8] {
                let p = sddmm_plan(1 << 20, k, bytes, 132, 2048);
                assert!(p.log_lanes_k <= 5);
                assert!(k.is_multiple_of(p.vector as usize));
                assert!(p.piece >= 32 && p.piece.is_multiple_of(32));
            }
        }
        assert_eq!(
            sddmm_plan(100, 64, 4, 132, 2048).entry("f32"),
            "loops_sddmm_f32_v4"
        );
    }
}

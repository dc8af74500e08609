//! The sampled dense-dense product `out[nz] = Σ_j x[row·k + j] · y[col·k + j]` at every stored
//! entry of a CSR matrix, in the loops language: an atom loop whose body sums a `lanes` loop over
//! the dense dimension (kernels-gen's `schedule::lanes_reduce`). Under a group schedule the group's
//! lanes split between the row's nonzeros and `k` (16-byte loads of `x` and `y` where `k` is a
//! multiple of 4), an xor-shuffle butterfly gives each nonzero's lanes its dot product; under
//! `thread` and the carry schedules each nonzero's dot product is a serial loop.
//!
//! Stamped under every named schedule (checked on the GPU under each one, `tests/gpu_spmm.rs`);
//! [`sddmm`] runs [`SCHEDULE`] (`auto`), whose candidates here include `flat` and `flat16`: the
//! nonzeros in equal pieces across rows, a warp each (kernels-gen's `schedule::flat`, the
//! hand-written kernel's mapping), timed at the first call beside a thread or a group per row.
//! Not yet the op: `CsrOps::sddmm` runs the hand-written [`crate::ops::sddmm`]. Time of the
//! hand-written over [`sddmm`], two H200, same process (`examples/bench/results/h200/stop53/sd/`):
//! 1.57x geomean on the 23 real matrices (k 1..128, f32), 7 of 92 below 0.9x (`arrow`,
//! `delaunay_n15`, `Groebner`: 0.69-0.89x): issue 39's bar (0.97x, none below 0.9x) is not met.

use crate::{DeviceBuffer, DeviceCsr, Float, Gpu, Result};

/// The kernel, stamped under every schedule.
pub mod dot {
    use crate::prelude::*;

    /// `out[nz] = x[row] · y[col]` over `k` values, for every stored entry `nz` = (row, col).
    #[for_schedules(all)]
    pub fn sddmm<T: Float>(a: Csr<T>, x: &[T], y: &[T], k: usize, out: &mut [T]) {
        for row in a.tiles() {
            for nz in a.atoms(row) {
                let c = a.col_indices[nz] as usize;
                let mut d = 0.0;
                for j in lanes(0..k) {
                    d += x[row * k + j] * y[c * k + j];
                }
                out[nz] = d;
            }
        }
    }
}

/// The schedule [`sddmm`] runs: `auto`, whose candidates for this body include kernels-gen's
/// `flat` (the whole matrix's nonzeros in equal pieces of consecutive nonzeros, a warp each,
/// across rows: no row is too long or too short for it), always timed at the first call on a
/// matrix beside the model's shortlist of the tile-mapped schedules (a thread or a group per row).
pub const SCHEDULE: &str = "auto";

pub(super) const SOURCES: &[(&str, &str, &str)] = &[(
    "sddmm",
    dot::auto::sddmm::CUDA_SOURCE,
    dot::auto::sddmm::CUDA_SOURCE_CHECKED,
)];

/// The sampled dense-dense product of `CsrOps::sddmm`, in the language: the same checks and
/// result, the kernel above under [`SCHEDULE`].
pub fn sddmm<T: Float>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    x: &DeviceBuffer<T>,
    y: &DeviceBuffer<T>,
    k: usize,
    out: &mut DeviceBuffer<T>,
) -> Result<()> {
    loops_runtime::ops::sddmm::check_sddmm(a, x, y, k, out)?;
    if a.nnz() == 0 {
        return Ok(());
    }
    dot::auto::sddmm(gpu, a, x, y, k, out)
}

//! The sampled dense-dense product `out[nz] = Σ_j x[row·k + j] · y[col·k + j]` at every stored
//! entry of a CSR matrix, in the loops language: an atom loop whose body sums a `lanes` loop over
//! the dense dimension (kernels-gen's `schedule::lanes_reduce`). Under a group schedule the group's
//! lanes split between the row's nonzeros and `k` (16-byte loads of `x` and `y` where `k` is a
//! multiple of 4), an xor-shuffle butterfly gives each nonzero's lanes its dot product; under
//! `thread` and the carry schedules each nonzero's dot product is a serial loop.
//!
//! Stamped under every named schedule (checked on the GPU under each one, `tests/gpu_spmm.rs`);
//! [`sddmm`] runs [`SCHEDULE`], or [`LONG_SCHEDULE`] on a matrix with a row of more than
//! [`LONG_ROW`] nonzeros (`lrb` cuts such rows in pieces of a warp each). Not yet the op:
//! `CsrOps::sddmm` runs the hand-written [`crate::ops::sddmm`]. Measured on two H200 in one run
//! (`examples/bench/results/h200/lanes_bins/`), time of the hand-written over [`sddmm`]: 1.38x
//! geomean on the 23 real matrices (k 1..128, f32), but 0.13-0.56x on `Groebner` and `arrow`, and
//! 0.81x on the generated set (0.45x under `auto` alone): issue 39's bar for replacing the op
//! (0.97x on both sets, no matrix below 0.9) is not met.

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

/// The schedule [`sddmm`] runs on a matrix whose rows are at most [`LONG_ROW`] nonzeros: `auto`
/// (a thread or a group per row, picked by a first-call timing).
pub const SCHEDULE: &str = "auto";

/// The schedule [`sddmm`] runs on a matrix with a row of more than [`LONG_ROW`] nonzeros: `lrb`,
/// whose bins above 256 nonzeros run in pieces of 256 nonzeros, a warp each, independent of one
/// another (kernels-gen's `schedule::pieces`, `atoms_alone`), its short rows a group of 8.
pub const LONG_SCHEDULE: &str = "lrb";

/// See [`LONG_SCHEDULE`]: a group per row leaves a row longer than this on one group.
pub const LONG_ROW: u64 = 256;

pub(super) const SOURCES: &[(&str, &str, &str)] = &[
    (
        "sddmm",
        dot::auto::sddmm::CUDA_SOURCE,
        dot::auto::sddmm::CUDA_SOURCE_CHECKED,
    ),
    (
        "sddmm_lrb",
        dot::lrb::sddmm::CUDA_SOURCE,
        dot::lrb::sddmm::CUDA_SOURCE_CHECKED,
    ),
];

/// The sampled dense-dense product of `CsrOps::sddmm`, in the language: the same checks and
/// result, the kernel above under [`SCHEDULE`], or [`LONG_SCHEDULE`] where a row is longer than
/// [`LONG_ROW`].
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
    if crate::TileSet::stats(a).max_tile_atoms > LONG_ROW {
        dot::lrb::sddmm(gpu, a, x, y, k, out)
    } else {
        dot::auto::sddmm(gpu, a, x, y, k, out)
    }
}

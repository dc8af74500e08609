//! The sampled dense-dense product `out[nz] = Σ_j x[row·k + j] · y[col·k + j]` at every stored
//! entry of a CSR matrix, in the loops language: an atom loop whose body sums a `lanes` loop over
//! the dense dimension (kernels-gen's `schedule::lanes_reduce`). Under a group schedule the group's
//! lanes split between the row's nonzeros and `k` (16-byte loads of `x` and `y` where `k` is a
//! multiple of 4), an xor-shuffle butterfly gives each nonzero's lanes its dot product; under
//! `thread` and the carry schedules each nonzero's dot product is a serial loop.
//!
//! Stamped under every named schedule (checked on the GPU under each one, `tests/gpu_spmm.rs`);
//! [`sddmm`] runs [`SCHEDULE`]. Not yet the op: `CsrOps::sddmm` runs the hand-written
//! [`crate::ops::sddmm`], because a group per row cannot split a long row's nonzeros between
//! groups (the hand-written kernel gives each warp an even piece of the nonzeros). Measured on an
//! H100 in one run (`examples/bench/results/h100/sddmm_transpose/`), time of the hand-written over
//! this one under `auto`, geomean over k in 1..128: 1.39x on the 23 real matrices in f32 (1.64x in
//! f64; cuSPARSE 1.06x), but 0.18x on a matrix with one very long row (`arrow`, `Groebner`), and
//! 0.55x on the generated set (power-law and R-MAT rows of thousands of nonzeros).

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

//! SpMV with a sigmoid epilogue: `y = 1 / (1 + exp(-A x))`, a layer of a sparse network.

use loops::prelude::*;

#[for_schedules(
    thread,
    group4,
    warp,
    group64,
    block,
    work_oriented,
    merge_path,
    split3,
    hierarchical3,
    lrb,
    auto
)]
pub fn spmv_sigmoid<T: Float>(a: Csr<T>, x: &[T], y: &mut [T]) {
    for row in a.tiles() {
        let mut sum = 0.0;
        for nz in a.atoms(row) {
            sum += a.values[nz] * x[a.col_indices[nz] as usize];
        }
        y[row] = 1.0 / (1.0 + exp(-sum));
    }
}

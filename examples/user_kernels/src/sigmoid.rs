//! SpMV with a sigmoid epilogue: `y = 1 / (1 + exp(-A x))`, a layer of a sparse network.

use loops::prelude::*;

#[for_schedules(
    core,
    except(group2, split, hierarchical),
    group4,
    split3,
    hierarchical3
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

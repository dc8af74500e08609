//! SpMV restricted to a tile subset: only the rows listed in `frontier` (a device buffer of row
//! ids) are computed; the other entries of `y` are not touched. The shape of a graph kernel that
//! processes the active vertices only. Under the segment schedules (`work_oriented`, `merge_path`)
//! each launch first sums the listed rows' lengths on the GPU, then splits those atoms evenly.

use loops::prelude::*;

#[for_schedules(core, split3, hierarchical3)]
pub fn spmv_frontier<T: Float>(a: Csr<T>, frontier: &[u32], x: &[T], y: &mut [T]) {
    for row in a.tiles_in(frontier) {
        let mut sum = 0.0;
        for nz in a.atoms(row) {
            sum += a.values[nz] * x[a.col_indices[nz] as usize];
        }
        y[row] = sum;
    }
}

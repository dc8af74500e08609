//! Sparse matrix-vector product `y = A x` (the paper's Listing 3).

use loops::prelude::*;

macro_rules! spmv {
    ($($schedule:tt)*) => {
        /// `y[row] = sum over the row's nonzeros of A[row, col] * x[col]`, for f32 and f64.
        #[load_balanced($($schedule)*)]
        pub fn spmv<T: Float>(a: Csr<T>, x: &[T], y: &mut [T]) {
            for row in a.tiles() {
                let mut sum = 0.0;
                for nz in a.atoms(row) {
                    sum += a.values[nz] * x[a.col_indices[nz] as usize];
                }
                y[row] = sum;
            }
        }
    };
}

under_schedules!(spmv(a: &DeviceCsr<T>, x: &DeviceBuffer<T>, y: &mut DeviceBuffer<T>):
    thread, group2, group4, group8, group16, warp, group64, block, work_oriented, merge_path, split, hierarchical, lrb, split3, hierarchical3, work_oriented16, merge_path12, auto);

//! SpMV with a sigmoid epilogue: `y = 1 / (1 + exp(-A x))`, a layer of a sparse network.

use loops::prelude::*;

macro_rules! spmv_sigmoid {
    ($($schedule:tt)*) => {
        #[load_balanced($($schedule)*)]
        pub fn spmv_sigmoid<T: Float>(a: Csr<T>, x: &[T], y: &mut [T]) {
            for row in a.tiles() {
                let mut sum = 0.0;
                for nz in a.atoms(row) {
                    sum += a.values[nz] * x[a.col_indices[nz] as usize];
                }
                y[row] = 1.0 / (1.0 + exp(-sum));
            }
        }
    };
}

under!(spmv_sigmoid<T>(a: &DeviceCsr<T>, x: &DeviceBuffer<T>, y: &mut DeviceBuffer<T>):
    thread, group4, warp, group64, block, work_oriented, merge_path, split, hierarchical, lrb, auto);

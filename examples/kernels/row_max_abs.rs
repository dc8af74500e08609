//! The largest magnitude in each row: a tile reduction that is not a sum.

use loops::prelude::*;

macro_rules! row_max_abs {
    ($($schedule:tt)*) => {
        #[load_balanced($($schedule)*)]
        pub fn row_max_abs<T: Float>(a: Csr<T>, m: &mut [T]) {
            for row in a.tiles() {
                let mut best = 0.0;
                for nz in a.atoms(row) {
                    best = max(best, a.values[nz].abs());
                }
                m[row] = best;
            }
        }
    };
}

under_schedules!(row_max_abs(a: &DeviceCsr<T>, m: &mut DeviceBuffer<T>):
    thread, group2, warp, group64, block, work_oriented, merge_path, split, hierarchical, lrb, auto);

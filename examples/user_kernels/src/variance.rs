//! The variance of each row's stored values, in two passes: the mean, then the squared
//! deviations from it.

use loops::prelude::*;

#[for_schedules(
    core,
    except(group2, split, hierarchical),
    group4,
    split3,
    hierarchical3
)]
pub fn row_variance<T: Float>(a: Csr<T>, var: &mut [T]) {
    for row in a.tiles() {
        let mut sum = 0.0;
        let mut n = 0.0;
        for nz in a.atoms(row) {
            sum += a.values[nz];
            n += 1.0;
        }
        let mut squares = 0.0;
        for nz in a.atoms(row) {
            let d = a.values[nz] - sum / n;
            squares += d * d;
        }
        if n > 0.0 {
            var[row] = squares / n;
        } else {
            var[row] = 0.0;
        }
    }
}

//! The softmax of each row's stored values, in three passes: the largest value, the sum of the
//! exponentials shifted by it, then each value's share.

use loops::prelude::*;

#[for_schedules(
    core,
    except(group2, split, hierarchical),
    group4,
    split3,
    hierarchical3
)]
pub fn row_softmax<T: Float>(a: Csr<T>, out: &mut [T]) {
    for row in a.tiles() {
        let mut m = T::NEG_INFINITY;
        for nz in a.atoms(row) {
            m = max(m, a.values[nz]);
        }
        let mut sum = 0.0;
        for nz in a.atoms(row) {
            sum += (a.values[nz] - m).exp();
        }
        for nz in a.atoms(row) {
            out[nz] = (a.values[nz] - m).exp() / sum;
        }
    }
}

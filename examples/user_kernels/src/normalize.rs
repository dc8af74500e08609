//! Each row scaled to unit L2 norm: the norm, then every value divided by it.

use loops::prelude::*;

#[for_schedules(
    core,
    except(group2, split, hierarchical),
    group4,
    split3,
    hierarchical3
)]
pub fn l2_normalize<T: Float>(a: Csr<T>, out: &mut [T]) {
    for row in a.tiles() {
        let mut squares = 0.0;
        for nz in a.atoms(row) {
            squares += a.values[nz] * a.values[nz];
        }
        let norm = sqrt(squares);
        for nz in a.atoms(row) {
            if norm > 0.0 {
                out[nz] = a.values[nz] / norm;
            } else {
                out[nz] = 0.0;
            }
        }
    }
}

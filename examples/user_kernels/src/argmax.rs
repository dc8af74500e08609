//! The largest and the smallest value of each row, and the column holding it. Ties go to the
//! first atom (the smallest column of a row with sorted columns) under every schedule. And the
//! largest value with how many atoms hold it: the count moves with the value (a tally of the
//! selection), and two shares of a row with equal largest values add their counts.

use loops::prelude::*;

pub mod max {
    use super::*;
    #[for_schedules(
        core,
        except(group2, split, hierarchical),
        group4,
        split3,
        hierarchical3
    )]
    pub fn row_argmax<T: Float>(a: Csr<T>, best: &mut [T], at: &mut [i32]) {
        for row in a.tiles() {
            let mut m = T::NEG_INFINITY;
            let mut c = -1;
            for nz in a.atoms(row) {
                let v = a.values[nz];
                if v > m {
                    m = v;
                    c = a.col_indices[nz];
                }
            }
            best[row] = m;
            at[row] = c;
        }
    }
}

pub mod min {
    use super::*;
    #[for_schedules(
        core,
        except(group2, split, hierarchical),
        group4,
        split3,
        hierarchical3
    )]
    pub fn row_argmin<T: Float>(a: Csr<T>, best: &mut [T], at: &mut [i32]) {
        for row in a.tiles() {
            let mut m = T::INFINITY;
            let mut c = -1;
            for nz in a.atoms(row) {
                if a.values[nz] < m {
                    m = a.values[nz];
                    c = a.col_indices[nz];
                }
            }
            best[row] = m;
            at[row] = c;
        }
    }
}

pub mod count {
    use super::*;
    #[for_schedules(
        core,
        except(group2, split, hierarchical),
        group4,
        split3,
        hierarchical3
    )]
    pub fn count_max<T: Float>(a: Csr<T>, best: &mut [T], count: &mut [u32], at: &mut [i32]) {
        for row in a.tiles() {
            let mut m = T::NEG_INFINITY;
            let mut n = 0u32;
            let mut c = -1;
            for nz in a.atoms(row) {
                let v = a.values[nz];
                if v > m {
                    m = v;
                    n = 1;
                    c = a.col_indices[nz];
                } else if v == m {
                    n += 1;
                }
            }
            best[row] = m;
            count[row] = n;
            at[row] = c;
        }
    }
}

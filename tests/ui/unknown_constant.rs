use loops::prelude::*;

#[load_balanced(schedule = "thread")]
pub fn k<T: Float>(a: Csr<T>, y: &mut [T]) {
    for row in a.tiles() {
        let mut sum = T::ZERO;
        for nz in a.atoms(row) {
            sum += a.values[nz];
        }
        y[row] = sum;
    }
}

fn main() {}

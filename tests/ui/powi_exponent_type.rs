use loops::prelude::*;

#[load_balanced(schedule = "thread")]
pub fn k<T: Float>(a: Csr<T>, p: u32, y: &mut [T]) {
    for row in a.tiles() {
        let mut sum = 0.0;
        for nz in a.atoms(row) {
            sum += a.values[nz].powi(p);
        }
        y[row] = sum;
    }
}

fn main() {}

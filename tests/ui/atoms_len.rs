use loops::prelude::*;

#[load_balanced(schedule = "thread")]
pub fn k(a: Csr<f32>, y: &mut [f32]) {
    for row in a.tiles() {
        let n = a.atoms(row).len();
        for nz in a.atoms(row) {
            y[row] += a.values[nz] / n as f32;
        }
    }
}

fn main() {}

use loops::prelude::*;

#[load_balanced(schedule = "thread")]
pub fn k(a: Csr<f32>, y: &mut [f32]) {
    for row in a.tiles() {
        for nz in a.atoms(row) {
            y[row] += a.values[nz];
        }
        loop {
            y[row] = 0.0;
        }
    }
}

fn main() {}

use loops::prelude::*;

#[load_balanced(schedule = "thread")]
pub fn k(a: Csr<f32>, x: &[f32], y: &mut [f32]) {
    for row in a.tiles() {
        for nz in a.atoms(row) {
            y[row] += a.values[nz] * x.iter().count() as f32;
        }
    }
}

fn main() {}

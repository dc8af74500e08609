use loops::prelude::*;

#[load_balanced(schedule = "thread")]
pub fn k(a: Csr<f32>, w: &[f32], y: &mut [f32]) {
    for row in a.tiles() {
        for nz in a.atoms(row) {
            for (i, v) in w.iter().enumerate() {
                y[row] += a.values[nz] * v * (i as f32);
            }
        }
    }
}

fn main() {}

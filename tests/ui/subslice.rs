use loops::prelude::*;

#[load_balanced(schedule = "thread")]
pub fn k(a: Csr<f32>, w: &[f32], y: &mut [f32]) {
    for row in a.tiles() {
        let window = &w[row..row + 4];
        for nz in a.atoms(row) {
            y[row] += a.values[nz];
        }
    }
}

fn main() {}

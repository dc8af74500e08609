use loops::prelude::*;

#[load_balanced(schedule = "thread")]
pub fn spmv(a: Csr<f32>, x: &[f32], y: &mut [f32]) {
    let scale = 2.0f32;
    for row in a.tiles() {
        for nz in a.atoms(row) {
            y[row] += scale * a.values[nz] * x[a.col_indices[nz] as usize];
        }
    }
}

fn main() {}

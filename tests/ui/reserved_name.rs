use loops::prelude::*;

#[load_balanced(schedule = "thread")]
pub fn spmv(a: Csr<f32>, x: &[f32], y: &mut [f32]) {
    for row in a.tiles() {
        let mut float = 0.0f32;
        for nz in a.atoms(row) {
            float += a.values[nz] * x[a.col_indices[nz] as usize];
        }
        y[row] = float;
    }
}

fn main() {}

use loops::prelude::*;

#[load_balanced(schedule = "hierarchical")]
pub fn spmm(a: Csr<f32>, b: &[f32], c: &mut [f32], k: usize) {
    for row in a.tiles() {
        for j in lanes(0..k) {
            let mut sum = 0.0f32;
            for nz in a.atoms(row) {
                sum += a.values[nz] * b[(a.col_indices[nz] as usize) * k + j];
            }
            c[row * k + j] = sum;
        }
    }
}

fn main() {}

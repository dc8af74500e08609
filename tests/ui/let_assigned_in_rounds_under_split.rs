use loops::prelude::*;

// A `let` before a loop around the atom loop runs again in every round under the carry schedules:
// the loop may not assign it.
#[load_balanced(schedule = "split")]
pub fn spmm_scaled(a: Csr<f32>, b: &[f32], c: &mut [f32], k: usize) {
    for row in a.tiles() {
        let mut scale = 1.0f32;
        for j in 0..k {
            let mut sum = 0.0f32;
            for nz in a.atoms(row) {
                sum += a.values[nz] * b[(a.col_indices[nz] as usize) * k + j];
            }
            c[row * k + j] = scale * sum;
            scale = scale * 0.5;
        }
    }
}

fn main() {}

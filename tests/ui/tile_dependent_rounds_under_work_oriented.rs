use loops::prelude::*;

#[load_balanced(schedule = "work_oriented")]
pub fn spmm_ragged(a: Csr<f32>, b: &[f32], c: &mut [f32], widths: &[u32]) {
    for row in a.tiles() {
        for j in 0..widths[row] {
            let mut sum = 0.0f32;
            for nz in a.atoms(row) {
                sum += a.values[nz] * b[a.col_indices[nz] as usize + j as usize];
            }
            c[row + j as usize] = sum;
        }
    }
}

fn main() {}

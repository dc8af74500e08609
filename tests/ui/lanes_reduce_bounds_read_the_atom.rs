use loops::prelude::*;

#[load_balanced(schedule = "block")]
pub fn prefix_dot(a: Csr<f32>, x: &[f32], out: &mut [f32], k: usize) {
    for row in a.tiles() {
        for nz in a.atoms(row) {
            let n = a.col_indices[nz] as usize;
            let mut d = 0.0;
            for j in lanes(0..n) {
                d += x[row * k + j];
            }
            out[nz] = d;
        }
    }
}

fn main() {}

use loops::prelude::*;

#[load_balanced(schedule = "warp")]
pub fn sddmm(a: Csr<f32>, x: &[f32], y: &[f32], out: &mut [f32], k: usize) {
    for row in a.tiles() {
        for nz in a.atoms(row) {
            let c = a.col_indices[nz] as usize;
            let mut d = 0.0;
            if c != row {
                for j in lanes(0..k) {
                    d += x[row * k + j] * y[c * k + j];
                }
            }
            out[nz] = d;
        }
    }
}

fn main() {}

// A `lanes` loop inside an atom loop is a sum over its values per atom (SDDMM's dot product);
// it stores per value too. Refused before, when `lanes` went only around atom loops.
use loops::prelude::*;

#[load_balanced(schedule = "warp")]
pub fn scatter(a: Csr<f32>, x: &[f32], c: &mut [f32], out: &mut [f32], k: usize) {
    for row in a.tiles() {
        for nz in a.atoms(row) {
            let mut d = 0.0;
            for j in lanes(0..k) {
                c[(a.col_indices[nz] as usize) * k + j] = a.values[nz];
                d += x[row * k + j];
            }
            out[nz] = d;
        }
    }
}

fn main() {}

use loops::prelude::*;

#[load_balanced(schedule = "warp")]
pub fn scatter(a: Csr<f32>, c: &mut [f32], k: usize) {
    for row in a.tiles() {
        for nz in a.atoms(row) {
            for j in lanes(0..k) {
                c[(a.col_indices[nz] as usize) * k + j] = a.values[nz];
            }
        }
    }
}

fn main() {}

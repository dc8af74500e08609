use loops::prelude::*;

#[load_balanced(schedule = "group", group_size = 8)]
pub fn sddmm_sum(a: Csr<f32>, x: &[f32], y: &[f32], sums: &mut [f32], k: usize) {
    for row in a.tiles() {
        let mut total = 0.0;
        for nz in a.atoms(row) {
            let c = a.col_indices[nz] as usize;
            let mut d = 0.0;
            for j in lanes(0..k) {
                d += x[row * k + j] * y[c * k + j];
            }
            total += d;
        }
        sums[row] = total;
    }
}

fn main() {}

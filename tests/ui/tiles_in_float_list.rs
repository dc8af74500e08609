use loops::prelude::*;

#[load_balanced(schedule = "warp")]
pub fn frontier_spmv(a: Csr<f32>, weights: &[f32], y: &mut [f32]) {
    for row in a.tiles_in(weights) {
        let mut sum = 0.0;
        for nz in a.atoms(row) {
            sum += a.values[nz];
        }
        y[row] = sum;
    }
}

fn main() {}

use loops::prelude::*;

#[load_balanced(schedule = "mean_group", max_group_size = 12)]
pub fn spmv(a: Csr<f32>, x: &[f32], y: &mut [f32]) {
    for row in a.tiles() {
        let mut sum = 0.0f32;
        for nz in a.atoms(row) {
            sum += a.values[nz] * x[a.col_indices[nz] as usize];
        }
        y[row] = sum;
    }
}

fn main() {}

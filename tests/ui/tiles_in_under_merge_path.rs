use loops::prelude::*;

#[load_balanced(schedule = "merge_path")]
pub fn frontier_spmv(a: Csr<f32>, frontier: &[u32], x: &[f32], y: &mut [f32]) {
    for row in a.tiles_in(frontier) {
        let mut sum = 0.0f32;
        for nz in a.atoms(row) {
            sum += a.values[nz] * x[a.col_indices[nz] as usize];
        }
        y[row] = sum;
    }
}

fn main() {}

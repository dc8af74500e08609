use loops::prelude::*;

#[load_balanced(schedule = "merge_path")]
pub fn spmv_some_rows(a: Csr<f32>, x: &[f32], y: &mut [f32], skip: &[u32]) {
    for row in a.tiles() {
        if skip[row] == 0 {
            let mut sum = 0.0f32;
            for nz in a.atoms(row) {
                sum += a.values[nz] * x[a.col_indices[nz] as usize];
            }
            y[row] = sum;
        }
    }
}

fn main() {}

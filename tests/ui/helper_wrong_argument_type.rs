use loops::prelude::*;

#[device]
fn scale(v: f32, by: f32) -> f32 {
    v * by
}

#[load_balanced(schedule = "thread")]
pub fn spmv(a: Csr<f32>, x: &[f32], y: &mut [f32], k: u32) {
    for row in a.tiles() {
        let mut sum = 0.0f32;
        for nz in a.atoms(row) {
            sum += scale(a.values[nz], k) * x[a.col_indices[nz] as usize];
        }
        y[row] = sum;
    }
}

fn main() {}

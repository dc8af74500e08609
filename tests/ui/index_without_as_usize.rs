use loops::prelude::*;

// As in Rust, a slice is indexed by a `usize`: `a.col_indices` holds `i32`s.
#[load_balanced(schedule = "thread")]
pub fn spmv(a: Csr<f32>, x: &[f32], y: &mut [f32]) {
    for row in a.tiles() {
        let mut sum = 0.0f32;
        for nz in a.atoms(row) {
            sum += a.values[nz] * x[a.col_indices[nz]];
        }
        y[row] = sum;
    }
}

// A `u32` loop variable too.
#[load_balanced(schedule = "thread")]
pub fn gather(a: Csr<f32>, x: &[f32], y: &mut [f32], k: u32) {
    for row in a.tiles() {
        for j in 0..k {
            for nz in a.atoms(row) {
                y[row] += a.values[nz] * x[j];
            }
        }
    }
}

fn main() {}

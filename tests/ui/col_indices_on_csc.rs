use loops::prelude::*;

#[load_balanced(schedule = "thread")]
pub fn csc_spmv(a: Csc<f32>, x: &[f32], y: &mut [f32]) {
    for col in a.tiles() {
        for nz in a.atoms(col) {
            atomic_add(&mut y[a.col_indices[nz] as usize], a.values[nz] * x[col]);
        }
    }
}

fn main() {}

use loops::prelude::*;

#[load_balanced(schedule = "thread")]
pub fn weighted(a: Csr<f32>, y: &mut [f32]) {
    for row in a.tiles() {
        let mut sum = 0.0f32;
        for (k, nz) in a.atoms(row).enumerate() {
            sum += a.values[nz] * (k as f32);
        }
        y[row] = sum;
    }
}

fn main() {}

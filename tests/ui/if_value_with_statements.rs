use loops::prelude::*;

// `if` / `else` is a value with one expression per branch.
#[load_balanced(schedule = "thread")]
pub fn k(a: Csr<f32>, y: &mut [f32]) {
    for row in a.tiles() {
        let mut sum = 0.0f32;
        for nz in a.atoms(row) {
            sum += a.values[nz];
        }
        y[row] = if sum > 0.0 {
            let half = sum / 2.0;
            half
        } else {
            0.0
        };
    }
}

fn main() {}

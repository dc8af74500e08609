use loops::prelude::*;

#[load_balanced(schedule = "thread")]
fn first_rows(a: Csr<f32>, y: &mut [f32]) {
    for row in a.tiles() {
        let mut sum = 0.0f32;
        for nz in a.atoms(row) {
            sum += a.values[nz];
        }
        if sum > 1.0 {
            break;
        }
        y[row] = sum;
    }
}

fn main() {}

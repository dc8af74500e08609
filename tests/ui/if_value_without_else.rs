use loops::prelude::*;

#[load_balanced(schedule = "thread")]
pub fn k(a: Csr<f32>, y: &mut [f32]) {
    for row in a.tiles() {
        for nz in a.atoms(row) {
            let v = if a.values[nz] > 0.0 { a.values[nz] };
            y[row] += v;
        }
    }
}

fn main() {}

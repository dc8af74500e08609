use loops::prelude::*;

#[load_balanced(schedule = "thread")]
pub fn k(a: Csr<f32>, y: &mut [f32]) {
    for row in a.tiles() {
        let mut seen = Vec::new();
        for nz in a.atoms(row) {
            y[row] += a.values[nz];
        }
    }
}

fn main() {}

use loops::prelude::*;

#[load_balanced(schedule = "thread")]
pub fn two_hop(a: Csr<f32>, y: &mut [f32]) {
    for row in a.tiles() {
        for nz in a.atoms(0) {
            y[row] += a.values[nz];
        }
    }
}

fn main() {}

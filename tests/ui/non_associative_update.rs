use loops::prelude::*;

#[load_balanced(schedule = "warp")]
pub fn decay(a: Csr<f32>, y: &mut [f32]) {
    for row in a.tiles() {
        let mut acc = 0.0f32;
        for nz in a.atoms(row) {
            acc = 0.5 * acc + a.values[nz];
        }
        y[row] = acc;
    }
}

fn main() {}

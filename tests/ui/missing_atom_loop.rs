use loops::prelude::*;

#[load_balanced(schedule = "thread")]
pub fn scale(a: Csr<f32>, y: &mut [f32]) {
    for row in a.tiles() {
        y[row] = 2.0;
    }
}

fn main() {}

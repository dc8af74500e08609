use loops::prelude::*;

// The `let` between the loops runs again on every thread sharing the row in the second loop's
// launch, after some of them may have written `scale` there.
#[load_balanced(schedule = "work_oriented")]
fn rescale(a: Csr<f32>, scale: &mut [f32], out: &mut [f32]) {
    for row in a.tiles() {
        let mut total = 0.0f32;
        for nz in a.atoms(row) {
            total += a.values[nz];
        }
        let previous = scale[row];
        for nz in a.atoms(row) {
            out[nz] = a.values[nz] * previous / total;
            scale[row] = total;
        }
    }
}

fn main() {}

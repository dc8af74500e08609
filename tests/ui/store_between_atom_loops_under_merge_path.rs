use loops::prelude::*;

#[load_balanced(schedule = "merge_path")]
fn row_norm(a: Csr<f32>, norms: &mut [f32], out: &mut [f32]) {
    for row in a.tiles() {
        let mut squares = 0.0f32;
        for nz in a.atoms(row) {
            squares += a.values[nz] * a.values[nz];
        }
        norms[row] = squares.sqrt();
        for nz in a.atoms(row) {
            out[nz] = a.values[nz] / norms[row];
        }
    }
}

fn main() {}

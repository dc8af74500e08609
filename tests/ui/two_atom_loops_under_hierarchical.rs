use loops::prelude::*;

#[load_balanced(schedule = "hierarchical")]
fn row_variance(a: Csr<f32>, var: &mut [f32]) {
    for row in a.tiles() {
        let mut sum = 0.0f32;
        let mut n = 0.0f32;
        for nz in a.atoms(row) {
            sum += a.values[nz];
            n += 1.0;
        }
        let mut squares = 0.0f32;
        for nz in a.atoms(row) {
            squares += (a.values[nz] - sum / n) * (a.values[nz] - sum / n);
        }
        var[row] = squares / n;
    }
}

fn main() {}

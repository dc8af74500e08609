use loops::prelude::*;

#[load_balanced(schedule = "thread")]
pub fn row_lengths(a: Coo<f64>, lengths: &mut [i32]) {
    for row in a.tiles() {
        for nz in a.atoms(row) {
            lengths[row] = a.row_offsets[row + 1] - a.row_offsets[row];
        }
    }
}

fn main() {}

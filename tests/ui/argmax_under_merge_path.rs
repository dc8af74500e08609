use loops::prelude::*;

#[load_balanced(schedule = "merge_path")]
fn row_argmax(a: Csr<f32>, at: &mut [i32]) {
    for row in a.tiles() {
        let mut m = -1.0e30f32;
        let mut c = -1;
        for nz in a.atoms(row) {
            if a.values[nz] > m {
                m = a.values[nz];
                c = a.col_indices[nz];
            }
        }
        at[row] = c;
    }
}

fn main() {}

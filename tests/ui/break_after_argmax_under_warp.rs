use loops::prelude::*;

#[load_balanced(schedule = "warp")]
fn first_larger(a: Csr<f32>, at: &mut [i32]) {
    for row in a.tiles() {
        let mut m = 0.0f32;
        let mut c = -1;
        for nz in a.atoms(row) {
            if a.values[nz] > m {
                m = a.values[nz];
                c = a.col_indices[nz];
                break;
            }
        }
        at[row] = c;
    }
}

fn main() {}

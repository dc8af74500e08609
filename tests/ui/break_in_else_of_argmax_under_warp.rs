use loops::prelude::*;

// A keyed selection with a `break` in its `else` (stop when the values stop growing): each lane
// would stop at its own first non-improvement.
#[load_balanced(schedule = "warp")]
fn rising_prefix_max(a: Csr<f32>, at: &mut [i32]) {
    for row in a.tiles() {
        let mut m = 0.0f32;
        let mut c = -1;
        for nz in a.atoms(row) {
            if a.values[nz] > m {
                m = a.values[nz];
                c = a.col_indices[nz];
            } else {
                break;
            }
        }
        at[row] = c;
    }
}

fn main() {}

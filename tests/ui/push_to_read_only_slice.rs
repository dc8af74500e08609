use loops::prelude::*;

#[load_balanced(schedule = "thread")]
pub fn nonzero_rows(a: Csr<f32>, list: &[u32], count: &mut [u32]) {
    for row in a.tiles() {
        if a.row_offsets[row + 1] > a.row_offsets[row] {
            push(&mut list, &mut count[0], row as u32);
        }
    }
}

fn main() {}

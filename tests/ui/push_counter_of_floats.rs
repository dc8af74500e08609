use loops::prelude::*;

#[load_balanced(schedule = "merge_path")]
pub fn big_entries(a: Csr<f32>, list: &mut [u32], count: &mut [f32]) {
    for row in a.tiles() {
        for nz in a.atoms(row) {
            if a.values[nz] > 1.0 {
                push(&mut list, &mut count[0], nz as u32);
            }
        }
    }
}

fn main() {}

use loops::prelude::*;

#[load_balanced(schedule = "work_oriented")]
pub fn column_hist(a: Csr<f32>, #[block_shared] hist: &mut [u32; 16]) {
    for row in a.tiles() {
        for nz in a.atoms(row) {
            atomic_add(&mut hist[(a.col_indices[nz] % 16) as usize], 1);
        }
    }
}

fn main() {}

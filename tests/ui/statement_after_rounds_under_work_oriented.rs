use loops::prelude::*;

// Under the carry schedules a loop around the atom loop runs as rounds of the whole grid: it must
// end the tile body.
#[load_balanced(schedule = "work_oriented")]
pub fn spmm_total(a: Csr<f32>, b: &[f32], total: &mut [f32], k: usize) {
    for row in a.tiles() {
        let mut t = 0.0f32;
        for j in 0..k {
            for nz in a.atoms(row) {
                t += a.values[nz] * b[(a.col_indices[nz] as usize) * k + j];
            }
        }
        total[row] = t;
    }
}

fn main() {}

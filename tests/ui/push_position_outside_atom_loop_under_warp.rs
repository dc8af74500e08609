use loops::prelude::*;

#[load_balanced(schedule = "warp")]
pub fn heavy_rows(a: Csr<f32>, list: &mut [u32], count: &mut [u32], sums: &mut [f32]) {
    for row in a.tiles() {
        let mut s = 0.0;
        for nz in a.atoms(row) {
            s += a.values[nz];
        }
        let at = push(&mut list, &mut count[0], row as u32);
        sums[row] = s + at as f32;
    }
}

fn main() {}

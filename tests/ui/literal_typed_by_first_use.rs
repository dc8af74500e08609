use loops::prelude::*;

// An unsuffixed literal takes the type of its uses, as in Rust (`c` below would be a `u32` from
// `c += flags[nz]`), but its first use fixes it: here `let e: i32 = c` makes `c` an `i32`.
#[load_balanced(schedule = "thread")]
pub fn count(a: Csr<f32>, flags: &[u32], out: &mut [i32]) {
    for row in a.tiles() {
        let mut c = 0;
        let e: i32 = c;
        for nz in a.atoms(row) {
            c += flags[nz];
        }
        out[row] = e;
    }
}

fn main() {}

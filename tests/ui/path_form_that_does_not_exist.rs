use loops::prelude::*;

// `f32::max(a, b)` and `T::exp(x)` are Rust's methods as functions; `u32::abs` is not one.
#[load_balanced(schedule = "thread")]
pub fn k(a: Csr<f32>, flags: &[i32], y: &mut [u32]) {
    for row in a.tiles() {
        for nz in a.atoms(row) {
            y[row] = u32::max(y[row], u32::abs(flags[nz] as u32));
        }
    }
}

fn main() {}

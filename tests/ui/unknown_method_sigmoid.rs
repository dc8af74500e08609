use loops::prelude::*;

// A method Rust's floats lack: the message names the builtins and the `#[device]` helper to write.
#[load_balanced(schedule = "thread")]
pub fn k(a: Csr<f32>, y: &mut [f32]) {
    for row in a.tiles() {
        for nz in a.atoms(row) {
            y[row] += a.values[nz].sigmoid();
        }
    }
}

// A slip of a builtin's name: the message guesses it.
#[load_balanced(schedule = "thread")]
pub fn k2(a: Csr<f32>, y: &mut [f32]) {
    for row in a.tiles() {
        for nz in a.atoms(row) {
            y[row] += a.values[nz].sqr();
        }
    }
}

fn main() {}

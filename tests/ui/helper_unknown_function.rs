use loops::prelude::*;

// A function a kernel calls is a builtin or a `#[device]` helper in scope; a plain Rust function
// is neither.
fn cube(v: f32) -> f32 {
    v * v * v
}

#[load_balanced(schedule = "thread")]
pub fn spmv(a: Csr<f32>, x: &[f32], y: &mut [f32]) {
    for row in a.tiles() {
        let mut sum = 0.0f32;
        for nz in a.atoms(row) {
            sum += square(a.values[nz]) * x[a.col_indices[nz] as usize];
        }
        y[row] = sum;
    }
}

#[load_balanced(schedule = "thread")]
pub fn cubes(a: Csr<f32>, y: &mut [f32]) {
    for row in a.tiles() {
        for nz in a.atoms(row) {
            y[row] = cube(a.values[nz]);
        }
    }
}

mod math {
    use loops::prelude::*;

    #[device]
    pub fn halve(v: f32) -> f32 {
        v * 0.5
    }
}

// `math::halve` is a helper, but not imported here.
#[load_balanced(schedule = "thread")]
pub fn halves(a: Csr<f32>, y: &mut [f32]) {
    for row in a.tiles() {
        for nz in a.atoms(row) {
            y[row] = halve(a.values[nz]);
        }
    }
}

fn main() {
    let _ = cube(1.0);
}

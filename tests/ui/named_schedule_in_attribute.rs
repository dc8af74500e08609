use loops::prelude::*;

// `group4` names a schedule of `loops::SCHEDULES` (and a module of `#[for_schedules]`); the
// attribute takes its arguments.
#[load_balanced(schedule = "group4")]
pub fn spmv(a: Csr<f32>, x: &[f32], y: &mut [f32]) {
    for row in a.tiles() {
        let mut sum = 0.0f32;
        for nz in a.atoms(row) {
            sum += a.values[nz] * x[a.col_indices[nz] as usize];
        }
        y[row] = sum;
    }
}

fn main() {}

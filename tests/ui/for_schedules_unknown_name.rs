use loops::prelude::*;

#[for_schedules(thread, warp, mergepath12)]
pub fn spmv<T: Float>(a: Csr<T>, x: &[T], y: &mut [T]) {
    for row in a.tiles() {
        let mut sum = 0.0;
        for nz in a.atoms(row) {
            sum += a.values[nz] * x[a.col_indices[nz] as usize];
        }
        y[row] = sum;
    }
}

fn main() {}

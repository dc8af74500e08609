//! The Huber loss of each row's residual, `huber((A x)[row] - b[row], delta)`: a kernel that calls
//! `#[device]` helper functions, one of which calls the other.

use loops::prelude::*;

/// `x` squared.
#[device]
fn square<T: Float>(x: T) -> T {
    x * x
}

/// Quadratic near zero, linear beyond `delta`: a loss that large residuals do not dominate.
#[device]
fn huber<T: Float>(r: T, delta: T) -> T {
    let a = abs(r);
    if a <= delta {
        return 0.5 * square(r);
    }
    delta * (a - 0.5 * delta)
}

#[for_schedules(core)]
pub fn row_huber<T: Float>(a: Csr<T>, x: &[T], b: &[T], delta: T, loss: &mut [T]) {
    for row in a.tiles() {
        let mut sum = 0.0;
        for nz in a.atoms(row) {
            sum += a.values[nz] * x[a.col_indices[nz] as usize];
        }
        loss[row] = huber(sum - b[row], delta);
    }
}

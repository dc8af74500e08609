//! Checking GPU results against an f64 CPU reference, and the numbers every timing report needs.
//! Shared by the examples, the GPU tests and the benchmarks so they judge results the same way.

use std::fmt;

mod traffic;
pub use traffic::{spmm_traffic, spmv_traffic, SpmvTraffic, SECTOR_BYTES};

use crate::host::{expected_error_bound, spmv_reference};
use crate::Float;

/// How many rows of a result are outside their error bound, and the first one that is.
#[derive(Clone, Debug, PartialEq)]
pub struct RowCheck {
    /// Rows checked.
    pub rows: usize,
    /// Rows outside their bound.
    pub bad_rows: usize,
    /// The first of them, if any.
    pub first_bad: Option<BadRow>,
}

/// A row whose result is outside its error bound.
#[derive(Clone, Debug, PartialEq)]
pub struct BadRow {
    /// The row.
    pub row: usize,
    /// The GPU's value.
    pub got: f64,
    /// The f64 reference's value.
    pub want: f64,
    /// The largest difference allowed.
    pub bound: f64,
}

impl RowCheck {
    /// Whether every row is within its bound.
    pub fn passed(&self) -> bool {
        self.bad_rows == 0
    }
}

impl fmt::Display for RowCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.first_bad {
            None => write!(f, "all {} rows within their error bound", self.rows),
            Some(b) => write!(
                f,
                "{} of {} rows outside their error bound; first: row {} is {:e}, want {:e} (bound {:e})",
                self.bad_rows, self.rows, b.row, b.got, b.want, b.bound
            ),
        }
    }
}

/// Compares `got` with `want` row by row: row `i` passes when `|got - want| <= bound[i]`. A NaN (the
/// poison outputs are filled with) never passes, and neither does a missing row.
pub fn check_rows<T: Float>(got: &[T], want: &[f64], bound: &[f64]) -> RowCheck {
    let mut check = RowCheck {
        rows: want.len(),
        bad_rows: 0,
        first_bad: None,
    };
    for (row, (&w, &b)) in want.iter().zip(bound).enumerate() {
        let g = got.get(row).map(|v| v.to_f64()).unwrap_or(f64::NAN);
        let within = (g - w).abs() <= b || g == w;
        if !within {
            check.bad_rows += 1;
            check.first_bad.get_or_insert(BadRow {
                row,
                got: g,
                want: w,
                bound: b,
            });
        }
    }
    check
}

/// Checks `y = A x` computed in precision `T` against the f64 reference, with a per-row bound that
/// grows with the row's length and the magnitudes it sums (see [`expected_error_bound`]).
pub fn check_spmv<T: Float>(a: &sprs::CsMat<T>, x: &[T], y: &[T]) -> RowCheck {
    let (want, scale) = spmv_reference(a, x);
    let csr;
    let a = if a.is_csr() {
        a
    } else {
        csr = a.to_csr();
        &csr
    };
    let bound: Vec<f64> = (0..a.rows())
        .map(|r| expected_error_bound::<T>(a.outer_view(r).map_or(0, |v| v.nnz()), scale[r]))
        .collect();
    check_rows(y, &want, &bound)
}

/// The median of timings, in place (sorts them).
pub fn median(times: &mut [f32]) -> f32 {
    if times.is_empty() {
        return f32::NAN;
    }
    times.sort_by(|a, b| a.total_cmp(b));
    let n = times.len();
    if n % 2 == 1 {
        times[n / 2]
    } else {
        (times[n / 2 - 1] + times[n / 2]) / 2.0
    }
}

/// Bytes an SpMV must move at least: values and 32-bit column indices once, row offsets and `y`
/// once, `x` once. For f32 and square matrices this is the design's `8*nnz + 12*rows`.
pub fn spmv_bytes<T: Float>(rows: usize, cols: usize, nnz: usize) -> u64 {
    let t = std::mem::size_of::<T>() as u64;
    let i = std::mem::size_of::<i32>() as u64;
    nnz as u64 * (t + i) + rows as u64 * (i + t) + cols as u64 * t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_and_missing_rows_fail() {
        let want = [1.0, 2.0, 3.0];
        let bound = [0.1; 3];
        let check = check_rows(&[1.0f32, f32::NAN], &want, &bound);
        assert_eq!(check.bad_rows, 2);
        assert_eq!(check.first_bad.unwrap().row, 1);
        assert!(check_rows(&[1.05f32, 2.0, 3.0], &want, &bound).passed());
        assert!(!check_rows(&[1.2f32, 2.0, 3.0], &want, &bound).passed());
    }

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&mut []).is_nan());
    }

    #[test]
    fn byte_model_matches_the_design_for_f32() {
        assert_eq!(spmv_bytes::<f32>(100, 100, 1600), 8 * 1600 + 12 * 100);
    }
}

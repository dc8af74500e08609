//! Row reductions: sum, max, min, L2 norm, argmax, each a [`transform_segreduce!`] kernel (the
//! macro's own dogfood) under schedule `auto`.
//!
//! [`transform_segreduce!`]: crate::transform_segreduce

use super::spmv::check_len;
use crate::{DeviceBuffer, DeviceCsr, Float, Gpu, Result};

crate::transform_segreduce! {
    /// Each row's sum.
    fn row_sums<T: Float>(a: Csr<T>) -> sum |row, nz| a.values[nz];
    /// Each row's largest value.
    fn row_maxima<T: Float>(a: Csr<T>) -> max |row, nz| a.values[nz];
    /// Each row's smallest value.
    fn row_minima<T: Float>(a: Csr<T>) -> min |row, nz| a.values[nz];
    /// Each row's scale for its norm: the largest magnitude, kept inside `[MIN_POSITIVE, MAX]` (an
    /// empty or all-zero row gets `MIN_POSITIVE`, a row holding `±∞` gets `MAX`), so that the
    /// division below never makes `0/0` or `∞/∞`. (`max` passes over NaN; the next pass keeps it.)
    fn row_norm_scales<T: Float>(a: Csr<T>) -> max |row, nz| a.values[nz].abs() => |m| min(max(m, T::MIN_POSITIVE), T::MAX);
    /// Each row's Euclidean norm, scaled as BLAS's `nrm2` does: `s · sqrt(Σ (v/s)²)` with `s` the
    /// row's scale, so no square overflows (each `v/s` is at most 1) and the squares of a row of
    /// tiny values do not all underflow to 0. The result overflows only where the norm does.
    fn row_norms<T: Float>(a: Csr<T>, scales: &[T]) -> sum |row, nz| (a.values[nz] / scales[row]) * (a.values[nz] / scales[row]) => |squares| scales[row] * squares.sqrt();
    /// Each row's largest value and its column.
    fn row_argmaxima<T: Float>(a: Csr<T>) -> argmax |row, nz| a.values[nz];
}

/// A reduction of each row's values to one value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RowReduction {
    /// The sum (0 for an empty row).
    Sum,
    /// The largest value (`-∞` for an empty row).
    Max,
    /// The smallest value (`+∞` for an empty row).
    Min,
    /// The Euclidean norm, `sqrt(Σ v²)` (0 for an empty row), computed with scaling (as BLAS's
    /// `nrm2`): no intermediate overflows or underflows where the norm itself fits the type, so f32
    /// values of 1e30 give their norm, not `inf`. Two passes over the values (a row's largest
    /// magnitude, then the sum of squares scaled by it).
    Norm,
}

/// The CUDA of the kernels above, for the NVRTC compile test: (name, plain, bounds-checked).
pub(super) const SOURCES: &[(&str, &str, &str)] = &[
    (
        "row_sums",
        row_sums::CUDA_SOURCE,
        row_sums::CUDA_SOURCE_CHECKED,
    ),
    (
        "row_maxima",
        row_maxima::CUDA_SOURCE,
        row_maxima::CUDA_SOURCE_CHECKED,
    ),
    (
        "row_minima",
        row_minima::CUDA_SOURCE,
        row_minima::CUDA_SOURCE_CHECKED,
    ),
    (
        "row_norm_scales",
        row_norm_scales::CUDA_SOURCE,
        row_norm_scales::CUDA_SOURCE_CHECKED,
    ),
    (
        "row_norms",
        row_norms::CUDA_SOURCE,
        row_norms::CUDA_SOURCE_CHECKED,
    ),
    (
        "row_argmaxima",
        row_argmaxima::CUDA_SOURCE,
        row_argmaxima::CUDA_SOURCE_CHECKED,
    ),
];

pub(super) fn row_reduce<T: Float>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    op: RowReduction,
    out: &mut DeviceBuffer<T>,
) -> Result<()> {
    check_len("row_reduce", "out", out.len(), a.rows(), "one per row of A")?;
    match op {
        RowReduction::Sum => row_sums(gpu, a, out),
        RowReduction::Max => row_maxima(gpu, a, out),
        RowReduction::Min => row_minima(gpu, a, out),
        RowReduction::Norm => {
            // Two passes over the row's values: the scales, then the scaled sum of squares.
            let mut scales = gpu.zeros::<T>(a.rows())?;
            row_norm_scales(gpu, a, &mut scales)?;
            row_norms(gpu, a, &scales, out)
        }
    }
}

pub(super) fn row_argmax<T: Float>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    best: &mut DeviceBuffer<T>,
    at: &mut DeviceBuffer<i32>,
) -> Result<()> {
    check_len(
        "row_argmax",
        "best",
        best.len(),
        a.rows(),
        "one per row of A",
    )?;
    check_len("row_argmax", "at", at.len(), a.rows(), "one per row of A")?;
    row_argmaxima(gpu, a, best, at)
}

/// The norm kernels' arithmetic on the CPU: the model of `row_norm_scales` then `row_norms` on one
/// row, in the element type, against an f64 reference, with values near the types' limits.
#[cfg(test)]
mod tests {
    macro_rules! scaled_norm {
        ($name:ident, $t:ty) => {
            /// One row as the two kernels compute it (in one thread's order; `max`/`min` pass over
            /// NaN as `fmaxf`/`fminf` do).
            fn $name(row: &[$t]) -> $t {
                let m = row
                    .iter()
                    .fold(<$t>::NEG_INFINITY, |acc, v| acc.max(v.abs()));
                let s = m.max(<$t>::MIN_POSITIVE).min(<$t>::MAX);
                let zero: $t = 0.0;
                let squares = row.iter().fold(zero, |acc, v| acc + (v / s) * (v / s));
                s * squares.sqrt()
            }
        };
    }
    scaled_norm!(norm_f32, f32);
    scaled_norm!(norm_f64, f64);

    /// The norm in f64, scaled by an exact power of two near the row's largest magnitude.
    fn reference(row: &[f64]) -> f64 {
        let m = row.iter().fold(0.0f64, |acc, v| acc.max(v.abs()));
        if row.iter().any(|v| v.is_nan()) {
            return f64::NAN;
        }
        if m == 0.0 || m.is_infinite() {
            return m;
        }
        let e = (m.log2().floor() as i64).clamp(-1022, 1023);
        let s = f64::from_bits(((e + 1023) as u64) << 52);
        s * row.iter().map(|v| (v / s) * (v / s)).sum::<f64>().sqrt()
    }

    /// Within `(n + 6)` unit roundoffs, plus a few of the smallest subnormal steps.
    fn check(what: &str, got: f64, want: f64, n: usize, u: f64, tiny: f64) {
        if want.is_nan() {
            assert!(got.is_nan(), "{what}: {got} for NaN");
            return;
        }
        if want.is_infinite() {
            assert_eq!(got, want, "{what}");
            return;
        }
        let bound = (n as f64 + 6.0) * u * want + 4.0 * tiny;
        assert!(
            (got - want).abs() <= bound,
            "{what}: {got:e} against {want:e} (bound {bound:e})"
        );
    }

    fn rows(big: f64, max: f64, tiny: f64, small: f64) -> Vec<(&'static str, Vec<f64>)> {
        vec![
            ("empty", vec![]),
            ("zeros", vec![0.0, -0.0, 0.0]),
            ("huge", vec![big, -2.0 * big, 3.0 * big]),
            ("near MAX, norm fits", vec![0.6 * max, -0.6 * max]),
            ("near MAX alone", vec![-max]),
            ("norm overflows", vec![max, max]),
            ("long huge row", vec![big; 4000]),
            ("squares underflow", vec![small; 7]),
            ("subnormal", vec![tiny * 3.0, -tiny * 1000.0, tiny * 77.0]),
            ("huge and tiny", vec![big, small, -tiny]),
            ("one", vec![1.0]),
            ("infinity", vec![1.0, f64::NEG_INFINITY, 2.0]),
            ("NaN", vec![1.0, f64::NAN, big]),
        ]
    }

    #[test]
    fn scaled_norm_f32_near_the_limits() {
        let tiny = f32::from_bits(1) as f64;
        for (what, row) in rows(1e36, f32::MAX as f64, tiny, 1e-30) {
            let r32: Vec<f32> = row.iter().map(|&v| v as f32).collect();
            let exact: Vec<f64> = r32.iter().map(|&v| v as f64).collect();
            let want = reference(&exact);
            let want = if want > f32::MAX as f64 {
                f64::INFINITY
            } else {
                want
            };
            let u = f32::EPSILON as f64 / 2.0;
            check(what, norm_f32(&r32) as f64, want, row.len(), u, tiny);
            // What the unscaled sum of squares gave (the old kernel): inf or 0 on these rows.
            if what == "huge" {
                let plain = r32.iter().map(|v| v * v).sum::<f32>().sqrt();
                assert!(plain.is_infinite(), "{plain}");
            }
        }
    }

    #[test]
    fn scaled_norm_f64_near_the_limits() {
        let tiny = f64::from_bits(1);
        for (what, row) in rows(1e300, f64::MAX, tiny, 1e-200) {
            let want = reference(&row);
            let u = f64::EPSILON / 2.0;
            check(what, norm_f64(&row), want, row.len(), u, tiny);
        }
    }
}

//! CPU references of SpMM (`C = A B`) and SDDMM (`out[nz] = x[row] · y[col]`) in f64 over chosen
//! rows of `A`, with an error bound per output, and the check of a GPU result against them. Used by
//! `examples/bench_spmm/` (a sample of rows, so that a 100M-nonzero matrix at k = 128 is checked
//! in seconds) and `tests/gpu_spmm.rs` (every row). Needs only `loops` and `sprs`.

use std::fmt;

use loops::io::host::expected_error_bound;
use loops::Float;

/// The wanted values of some outputs, each with its error bound: output `at[i]` of the GPU's
/// result must be within `bound[i]` of `want[i]`.
pub struct DenseReference {
    at: Vec<usize>,
    want: Vec<f64>,
    bound: Vec<f64>,
}

/// The outcome of a check: how many outputs were compared, the worst error as a share of its bound,
/// and the first output outside its bound.
pub struct DenseCheck {
    pub checked: usize,
    pub worst: f64,
    pub first_bad: Option<(usize, f64, f64, f64)>,
}

impl DenseCheck {
    pub fn passed(&self) -> bool {
        self.first_bad.is_none()
    }
}

impl fmt::Display for DenseCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.first_bad {
            None => write!(
                f,
                "{} outputs within bound (worst {:.2} of it)",
                self.checked, self.worst
            ),
            Some((at, got, want, bound)) => write!(
                f,
                "output {at}: got {got}, want {want} (bound {bound:.3e}); {} checked",
                self.checked
            ),
        }
    }
}

/// Rows of a CSR matrix as (offsets, indices, values) slices.
fn csr_parts<T: Float>(a: &sprs::CsMat<T>) -> (Vec<usize>, &[usize], &[T]) {
    assert!(a.is_csr(), "the references take CSR storage");
    (a.indptr().to_proper().into_owned(), a.indices(), a.data())
}

/// Every row of a matrix of `rows` rows, or about `limit` of them: the first and last few, the
/// longest, and an even stride over the rest.
pub fn sample_rows<T: Float>(a: &sprs::CsMat<T>, limit: Option<usize>) -> Vec<usize> {
    let rows = a.rows();
    let Some(limit) = limit.filter(|&l| l < rows) else {
        return (0..rows).collect();
    };
    let (offsets, _, _) = csr_parts(a);
    let mut picked: Vec<usize> = (0..rows.min(64))
        .chain(rows.saturating_sub(64)..rows)
        .collect();
    let longest = (0..rows).max_by_key(|&r| offsets[r + 1] - offsets[r]);
    picked.extend(longest);
    let stride = (rows / limit.max(1)).max(1);
    picked.extend((0..rows).step_by(stride));
    picked.sort_unstable();
    picked.dedup();
    picked
}

impl DenseReference {
    /// `C = A B` at the rows `rows` (B is `cols x k`, row-major; C's output `r·k + j`).
    pub fn spmm<T: Float>(a: &sprs::CsMat<T>, b: &[T], k: usize, rows: &[usize]) -> Self {
        let (offsets, indices, values) = csr_parts(a);
        let mut r = DenseReference {
            at: Vec::with_capacity(rows.len() * k),
            want: Vec::with_capacity(rows.len() * k),
            bound: Vec::with_capacity(rows.len() * k),
        };
        let mut sum = vec![0.0f64; k];
        let mut scale = vec![0.0f64; k];
        for &row in rows {
            sum.iter_mut().for_each(|s| *s = 0.0);
            scale.iter_mut().for_each(|s| *s = 0.0);
            let (lo, hi) = (offsets[row], offsets[row + 1]);
            for nz in lo..hi {
                let v = values[nz].to_f64();
                let brow = &b[indices[nz] * k..][..k];
                for j in 0..k {
                    let t = v * brow[j].to_f64();
                    sum[j] += t;
                    scale[j] += t.abs();
                }
            }
            for j in 0..k {
                r.at.push(row * k + j);
                r.want.push(sum[j]);
                r.bound.push(expected_error_bound::<T>(hi - lo, scale[j]));
            }
        }
        r
    }

    /// `out[nz] = Σ_j x[row·k + j] y[col·k + j]` at the nonzeros of the rows `rows`.
    pub fn sddmm<T: Float>(a: &sprs::CsMat<T>, x: &[T], y: &[T], k: usize, rows: &[usize]) -> Self {
        let (offsets, indices, _) = csr_parts(a);
        let mut r = DenseReference {
            at: Vec::new(),
            want: Vec::new(),
            bound: Vec::new(),
        };
        for &row in rows {
            let xr = &x[row * k..][..k];
            for nz in offsets[row]..offsets[row + 1] {
                let yr = &y[indices[nz] * k..][..k];
                let (mut sum, mut scale) = (0.0f64, 0.0f64);
                for j in 0..k {
                    let t = xr[j].to_f64() * yr[j].to_f64();
                    sum += t;
                    scale += t.abs();
                }
                r.at.push(nz);
                r.want.push(sum);
                r.bound.push(expected_error_bound::<T>(k, scale));
            }
        }
        r
    }

    /// Compares `got` (the whole GPU output) at the reference's outputs. NaN (the poison) or a
    /// missing output fails.
    pub fn check<T: Float>(&self, got: &[T]) -> DenseCheck {
        let mut c = DenseCheck {
            checked: 0,
            worst: 0.0,
            first_bad: None,
        };
        for ((&at, &want), &bound) in self.at.iter().zip(&self.want).zip(&self.bound) {
            let g = got.get(at).map_or(f64::NAN, |v| v.to_f64());
            let err = (g - want).abs();
            c.checked += 1;
            let ok = err <= bound;
            if bound > 0.0 && err.is_finite() {
                c.worst = c.worst.max(err / bound);
            }
            if !ok && c.first_bad.is_none() {
                c.first_bad = Some((at, g, want, bound));
            }
        }
        c
    }
}

//! A GraphSAGE layer's aggregation (mean over the in-neighbours, then bias and ReLU) written once
//! as one kernel: `out[v, :] = max(mean over u in N(v) of h[u, :] + bias, 0)`, the features `f`
//! wide in row-major `h` and `out`. The feature dimension is a `lanes` loop, so a group schedule
//! spreads the features over its lanes and the neighbours over the rest; `thread` and the carry
//! schedules run it as a loop. A vertex without neighbours aggregates to zero (its output is
//! `max(bias, 0)`).
//!
//! `bias_relu` is the epilogue alone, for the unfused chain the fused kernel is measured against
//! (the `spmm` op on the row-normalised adjacency, then this): each row of `out` is a tile of
//! `f` atoms (`rows` an `Offsets` layout of `0, f, 2f, ..`).

use loops::prelude::*;

#[for_schedules(all, except(hierarchical, hierarchical3))]
pub fn sage_mean<T: Float>(a: Csr<T>, h: &[T], bias: &[T], out: &mut [T], f: usize) {
    for v in a.tiles() {
        let degree = (a.row_offsets[v + 1] - a.row_offsets[v]) as usize;
        for j in lanes(0..f) {
            let mut sum = 0.0;
            for e in a.atoms(v) {
                sum += h[(a.col_indices[e] as usize) * f + j];
            }
            let mut mean = 0.0;
            if degree > 0 {
                mean = sum / T::from(degree as f64);
            }
            out[v * f + j] = max(mean + bias[j], 0.0);
        }
    }
}

/// The epilogue alone: `out[i, j] = max(out[i, j] + bias[j], 0)`.
pub mod epilogue {
    use loops::prelude::*;

    #[for_schedules(thread, warp)]
    pub fn bias_relu<T: Float>(rows: Offsets, bias: &[T], out: &mut [T], f: usize) {
        for i in rows.tiles() {
            for e in rows.atoms(i) {
                out[e] = max(out[e] + bias[e - i * f], 0.0);
            }
        }
    }
}

//! Softmax of each row in three atom loops (the largest value, the sum of the exponentials shifted
//! by it, then each entry's share), as a user writes it: under a carry schedule, three launches,
//! each loop's results kept per row for the next. Issue 37: the three passes once declared their
//! shared memory side by side, 49 KB under `work_oriented16`, which the macro accepted and ptxas
//! refused at load; they now share one region of dynamic shared memory.
//!
//! `row_softmax` reads the matrix's own values; `attention_softmax` is the middle step of sparse
//! attention (SDDMM scores -> softmax -> SpMM): the scores of each stored entry in a slice of
//! their own, scaled, the probabilities written to another.

use loops::prelude::*;

#[for_schedules(all)]
pub fn row_softmax<T: Float>(a: Csr<T>, out: &mut [T]) {
    for row in a.tiles() {
        let mut m = T::NEG_INFINITY;
        for nz in a.atoms(row) {
            m = max(m, a.values[nz]);
        }
        let mut sum = 0.0;
        for nz in a.atoms(row) {
            sum += (a.values[nz] - m).exp();
        }
        for nz in a.atoms(row) {
            out[nz] = (a.values[nz] - m).exp() / sum;
        }
    }
}

/// Sparse attention's softmax: `probs[nz]` is the softmax over row `row` of `scale * scores[nz]`.
pub mod attention {
    use super::*;

    // The same three loops as `row_softmax` over a slice of its own: a schedule of each family
    // (the carry schedules at both sizes), not all 18, to keep the compile tests' time.
    #[for_schedules(
        thread,
        group4,
        warp,
        block,
        work_oriented,
        work_oriented16,
        merge_path12,
        split3,
        hierarchical3
    )]
    pub fn attention_softmax<T: Float>(a: Csr<T>, scores: &[T], scale: T, probs: &mut [T]) {
        for row in a.tiles() {
            let mut m = T::NEG_INFINITY;
            for nz in a.atoms(row) {
                m = max(m, scale * scores[nz]);
            }
            let mut sum = 0.0;
            for nz in a.atoms(row) {
                sum += exp(scale * scores[nz] - m);
            }
            for nz in a.atoms(row) {
                probs[nz] = exp(scale * scores[nz] - m) / sum;
            }
        }
    }
}

/// `row_softmax` with 64 items per thread under the two segmented schedules: a block's offsets
/// window alone (64 KiB) is past the 48 KiB a block may declare statically, so its arrays are in
/// dynamic shared memory, opted into beyond 48 KiB at launch.
pub mod wide_segments {
    use super::*;

    /// `work_oriented`, 64 atoms per thread.
    pub mod work_oriented64 {
        use super::*;
        #[load_balanced(schedule = "work_oriented", items_per_thread = 64)]
        pub fn row_softmax<T: Float>(a: Csr<T>, out: &mut [T]) {
            for row in a.tiles() {
                let mut m = T::NEG_INFINITY;
                for nz in a.atoms(row) {
                    m = max(m, a.values[nz]);
                }
                let mut sum = 0.0;
                for nz in a.atoms(row) {
                    sum += (a.values[nz] - m).exp();
                }
                for nz in a.atoms(row) {
                    out[nz] = (a.values[nz] - m).exp() / sum;
                }
            }
        }
    }

    /// `merge_path`, 64 tiles + atoms per thread.
    pub mod merge_path64 {
        use super::*;
        #[load_balanced(schedule = "merge_path", items_per_thread = 64)]
        pub fn row_softmax<T: Float>(a: Csr<T>, out: &mut [T]) {
            for row in a.tiles() {
                let mut m = T::NEG_INFINITY;
                for nz in a.atoms(row) {
                    m = max(m, a.values[nz]);
                }
                let mut sum = 0.0;
                for nz in a.atoms(row) {
                    sum += (a.values[nz] - m).exp();
                }
                for nz in a.atoms(row) {
                    out[nz] = (a.values[nz] - m).exp() / sum;
                }
            }
        }
    }

    /// The schedules, by module name.
    pub const SCHEDULES: &[&str] = &["work_oriented64", "merge_path64"];

    /// The generated CUDA of each, by schedule.
    pub const SOURCES: &[(&str, &str)] = &[
        ("work_oriented64", work_oriented64::row_softmax::CUDA_SOURCE),
        ("merge_path64", merge_path64::row_softmax::CUDA_SOURCE),
    ];

    /// The bounds-checked variant of each, by schedule.
    pub const CHECKED_SOURCES: &[(&str, &str)] = &[
        (
            "work_oriented64",
            work_oriented64::row_softmax::CUDA_SOURCE_CHECKED,
        ),
        (
            "merge_path64",
            merge_path64::row_softmax::CUDA_SOURCE_CHECKED,
        ),
    ];

    /// Launches the kernel under the schedule with this module name (one of [`SCHEDULES`]).
    pub fn launch<T: loops::Float>(
        schedule: &str,
        gpu: &loops::Gpu,
        a: &DeviceCsr<T>,
        out: &mut DeviceBuffer<T>,
    ) -> loops::Result<()> {
        match schedule {
            "work_oriented64" => work_oriented64::row_softmax(gpu, a, out),
            "merge_path64" => merge_path64::row_softmax(gpu, a, out),
            other => panic!("`row_softmax` has no schedule `{other}`; it has {SCHEDULES:?}"),
        }
    }
}

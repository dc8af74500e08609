//! The SpMV benchmark's parts (`examples/bench_spmv.rs` is the binary): the matrix sets, the cuSPARSE
//! baseline, the results and what is written from them (CSV, SVG plots, the table). Everything but
//! `cusparse` works without a GPU. This folder is the crate `loops-bench`: the benchmarks and
//! `tests/bench_support.rs` take it with `use loops_bench as bench;`.
#![allow(dead_code)]

pub mod corpus;
pub mod csv;
pub mod cusparse;
pub mod dense_check;
pub mod handwritten;
pub mod plot;
pub mod relabel;
pub mod report;
pub mod timing;
pub mod world;

use loops::check::{self, RowCheck};
use loops::io::host::{expected_error_bound, spmv_reference};
use loops::Float;

/// The kernel name of cuSPARSE `cusparseSpMV` with `CUSPARSE_SPMV_CSR_ALG1`: the baseline.
pub const ALG1: &str = "cusparse_alg1";
/// The kernel name of cuSPARSE `cusparseSpMV` with `CUSPARSE_SPMV_CSR_ALG2` (deterministic).
pub const ALG2: &str = "cusparse_alg2";
/// The kernel name of `schedule = "auto"`.
pub const AUTO: &str = "auto";
/// The kernel name of `merge_path` launched without the block starts kept with the matrix: its
/// blocks search the offsets for their ranges, as before the starts were kept.
pub const SEARCHED: &str = "merge_path_searched";
/// The kernel name of the device-to-device copy moving the model's bytes: the ceiling.
pub const COPY: &str = "copy";

/// What a measured kernel is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A schedule of the loops `spmv` kernel.
    Schedule,
    /// A cuSPARSE algorithm.
    Cusparse,
    /// A kernel written by hand in CUDA, the control for a schedule.
    Handwritten,
    /// A schedule launched without one of its optimizations, the control for that optimization.
    Ablation,
    /// The copy ceiling.
    Copy,
}

/// How a median was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timing {
    /// One CUDA event pair around each launch; `samples` launches.
    PerLaunch { samples: usize },
    /// One event pair around `launches` back-to-back launches, divided by `launches`; `samples` batches.
    Batch { launches: usize, samples: usize },
    /// One event pair around a CUDA graph of `launches` launches captured once, divided by
    /// `launches`; `samples` graph launches. No host launch overhead between the kernels.
    Graph { launches: usize, samples: usize },
    /// Not timed (the check failed or the kernel could not run).
    NotTimed,
}

impl Timing {
    /// For the CSV and the table: `per-launch`, `batch-of-20`, `graph-of-20`, `-`.
    pub fn label(&self) -> String {
        match self {
            Timing::PerLaunch { .. } => "per-launch".to_string(),
            Timing::Batch { launches, .. } => format!("batch-of-{launches}"),
            Timing::Graph { launches, .. } => format!("graph-of-{launches}"),
            Timing::NotTimed => "-".to_string(),
        }
    }

    pub fn samples(&self) -> usize {
        match *self {
            Timing::PerLaunch { samples }
            | Timing::Batch { samples, .. }
            | Timing::Graph { samples, .. } => samples,
            Timing::NotTimed => 0,
        }
    }
}

/// One kernel on one matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    pub kernel: String,
    pub kind: Kind,
    /// The reported median in milliseconds (per launch); `None` when not timed.
    pub median_ms: Option<f64>,
    /// The median of per-launch event pairs, also when `timing` is a batch; `None` when not timed.
    pub per_launch_ms: Option<f64>,
    pub timing: Timing,
    /// `None` when the result was within its error bound and timed; else what went wrong.
    pub failure: Option<String>,
}

impl Measurement {
    pub fn failed(kernel: &str, kind: Kind, why: impl Into<String>) -> Measurement {
        Measurement {
            kernel: kernel.to_string(),
            kind,
            median_ms: None,
            per_launch_ms: None,
            timing: Timing::NotTimed,
            failure: Some(why.into()),
        }
    }

    pub fn status(&self) -> &str {
        self.failure.as_deref().unwrap_or("ok")
    }
}

/// Every kernel on one matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct MatrixResult {
    pub name: String,
    pub rows: usize,
    pub cols: usize,
    pub nnz: usize,
    /// "f32" or "f64".
    pub precision: &'static str,
    /// Bytes by the model (`check::spmv_bytes`): what effective bandwidth is computed from.
    pub bytes: u64,
    pub kernels: Vec<Measurement>,
    /// The class and half of a matrix of the world set; `None` for the other sets.
    pub world: Option<world::WorldTag>,
    /// What an SpMV moves at sector granularity (`check::spmv_traffic`), where the benchmark
    /// counted it.
    pub traffic: Option<check::SpmvTraffic>,
    /// For a copy relabelled by degree (`<matrix>@deg`): the relabelling's host time in ms.
    pub relabel_ms: Option<f64>,
    /// The same relabelling on the GPU (`loops::ops::relabel`, median wall time), in ms.
    pub relabel_device_ms: Option<f64>,
}

impl MatrixResult {
    pub fn new<T: Float>(name: &str, rows: usize, cols: usize, nnz: usize) -> MatrixResult {
        MatrixResult {
            name: name.to_string(),
            rows,
            cols,
            nnz,
            precision: T::RUST_NAME,
            bytes: check::spmv_bytes::<T>(rows, cols, nnz),
            kernels: Vec::new(),
            world: None,
            traffic: None,
            relabel_ms: None,
            relabel_device_ms: None,
        }
    }

    /// The median of a kernel that was timed.
    pub fn ms(&self, kernel: &str) -> Option<f64> {
        self.kernels
            .iter()
            .find(|m| m.kernel == kernel)
            .and_then(|m| m.median_ms)
    }

    pub fn alg1_ms(&self) -> Option<f64> {
        self.ms(ALG1)
    }

    pub fn copy_ms(&self) -> Option<f64> {
        self.ms(COPY)
    }

    /// The fastest timed schedule: (name, ms). `auto` is not a schedule of its own (it launches one
    /// of the others) and is compared against this.
    pub fn best_schedule(&self) -> Option<(&str, f64)> {
        self.kernels
            .iter()
            .filter(|m| m.kind == Kind::Schedule && m.kernel != AUTO)
            .filter_map(|m| m.median_ms.map(|t| (m.kernel.as_str(), t)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// Effective bandwidth in GB/s of a run of `ms` milliseconds, by the byte model.
    pub fn gb_per_s(&self, ms: f64) -> f64 {
        self.bytes as f64 / (ms * 1e-3) / 1e9
    }

    /// How much faster than cuSPARSE ALG1 a run of `ms` is (> 1: faster).
    pub fn speedup(&self, ms: f64) -> Option<f64> {
        self.alg1_ms().map(|alg1| alg1 / ms)
    }

    /// The share of the copy's bandwidth a run of `ms` reaches, in percent.
    pub fn pct_of_copy(&self, ms: f64) -> Option<f64> {
        self.copy_ms().map(|copy| 100.0 * copy / ms)
    }

    /// The share of the copy's bandwidth a run of `ms` reaches when it is charged the DRAM bytes of
    /// the traffic model (the stream plus `x` through L2) instead of the minimal model, in percent.
    pub fn pct_of_copy_by_traffic(&self, ms: f64) -> Option<f64> {
        let t = self.traffic?;
        let copy = self.copy_ms()?;
        Some(100.0 * t.dram_bytes() as f64 * copy / (self.bytes as f64 * ms))
    }

    /// The rate L2 serves the model's requests at in a run of `ms` (the stream plus every row's
    /// sectors of `x`), in GB/s.
    pub fn l2_gb_per_s(&self, ms: f64) -> Option<f64> {
        self.traffic
            .map(|t| t.l2_bytes_served() as f64 / (ms * 1e6))
    }

    /// Kernels whose check failed or that could not run.
    pub fn failures(&self) -> impl Iterator<Item = &Measurement> {
        self.kernels.iter().filter(|m| m.failure.is_some())
    }
}

/// The kernels that appear in `results`, in order: schedules as first seen, then ALG1, ALG2, other
/// cuSPARSE lines, the copy.
pub fn kernel_order(results: &[MatrixResult]) -> Vec<(String, Kind)> {
    let mut out: Vec<(String, Kind)> = Vec::new();
    for r in results {
        for m in &r.kernels {
            if !out.iter().any(|(k, _)| *k == m.kernel) {
                out.push((m.kernel.clone(), m.kind));
            }
        }
    }
    let rank = |k: &(String, Kind)| match (k.1, k.0.as_str()) {
        (Kind::Schedule, _) => 0,
        (Kind::Handwritten | Kind::Ablation, _) => 1,
        (_, ALG1) => 1,
        (_, ALG2) => 2,
        (Kind::Cusparse, _) => 3,
        (Kind::Copy, _) => 4,
    };
    out.sort_by_key(rank); // stable: schedules keep their order
    out
}

/// The geometric mean of the positive, finite values; `None` if there are none.
pub fn geomean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values
        .into_iter()
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((0.0, 0usize), |(s, n), v| (s + v.ln(), n + 1));
    (n > 0).then(|| (sum / n as f64).exp())
}

/// The f64 CPU reference of `y = A x` and each row's error bound, computed once per matrix and
/// checked against every kernel's result: `check::check_spmv` split in two, so that a 100M-nonzero
/// reference is not recomputed for each of the nine kernels. Same reference, same bound, same rule.
pub struct Reference {
    want: Vec<f64>,
    bound: Vec<f64>,
}

impl Reference {
    pub fn new<T: Float>(a: &sprs::CsMat<T>, x: &[T]) -> Reference {
        let (want, scale) = spmv_reference(a, x);
        let csr;
        let a = if a.is_csr() {
            a
        } else {
            csr = a.to_csr();
            &csr
        };
        let bound = (0..a.rows())
            .map(|r| expected_error_bound::<T>(a.outer_view(r).map_or(0, |v| v.nnz()), scale[r]))
            .collect();
        Reference { want, bound }
    }

    pub fn check<T: Float>(&self, y: &[T]) -> RowCheck {
        check::check_rows(y, &self.want, &self.bound)
    }
}

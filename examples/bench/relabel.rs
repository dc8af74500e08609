//! The relabelling by in-degree on the GPU (`loops::ops::relabel`), timed for the benchmarks'
//! `--relabel` (`<matrix>@deg` copies): its cost is what a product on the relabelled matrix must
//! repay.

use std::time::Instant;

use loops::ops::relabel::{relabel_by_in_degree, DeviceRelabelling};
use loops::{DeviceCsr, Float, Gpu};

/// Timed calls of the device relabelling after its first (which compiles its kernels).
pub const TIMED_CALLS: usize = 3;

/// Relabels `a` on the GPU [`TIMED_CALLS`] + 1 times; returns the last result and the median
/// host wall time of the timed calls in ms (from the call to its result on the device, the
/// device idle before: the op's read-backs, allocations and launches included).
pub fn relabel_timed<T: Float>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
) -> loops::Result<(DeviceCsr<T>, DeviceRelabelling, f64)> {
    let mut ms = Vec::new();
    let mut last = None;
    for call in 0..=TIMED_CALLS {
        drop(last.take());
        gpu.synchronize()?;
        let t = Instant::now();
        let out = relabel_by_in_degree(gpu, a)?;
        gpu.synchronize()?;
        if call > 0 {
            ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
        last = Some(out);
    }
    ms.sort_by(f64::total_cmp);
    let (b, p) = last.expect("at least one call");
    Ok((b, p, ms[ms.len() / 2]))
}

//! How the SpMV benchmark times a kernel: CUDA events around launches, medians, CUDA graphs of
//! back-to-back launches for kernels of a few microseconds, and the device-to-device copy that is
//! the ceiling.

use std::error::Error;

use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use cudarc::driver::CudaGraph;
use loops::check;
use loops::{DeviceBuffer, Gpu};

use super::{Kind, Measurement, Timing, COPY};

type BoxError = Box<dyn Error>;

fn chain(e: &dyn Error) -> String {
    loops::error_chain(e, ": ")
}

/// The fewest samples a kernel's median is taken over.
const MIN_REPS: usize = 5;
/// Kernels whose first timed launch takes longer than this many ms are not timed in batches: the
/// host's few microseconds between launches are noise beside them, and a batch of 20 would take
/// 20 times the budget.
const UNBATCHED_ABOVE_MS: f64 = 1.0;

/// Timing parameters.
pub struct Plan {
    /// Timed samples (launches, or batches).
    pub reps: usize,
    /// Untimed launches first.
    pub warmup: usize,
    /// Launches per batch.
    pub batch: usize,
    /// Host-side time one kernel's timing may take on one matrix before it gets fewer samples.
    pub budget_ms: f64,
}

/// The copy ceiling: `cuMemcpyDtoDAsync` of `bytes` from one buffer to another.
pub struct Copy {
    src: DeviceBuffer<u64>,
    dst: DeviceBuffer<u64>,
    bytes: usize,
}

impl Copy {
    pub fn new(gpu: &Gpu, bytes: usize) -> Result<Copy, BoxError> {
        gpu.stream().context().bind_to_thread()?;
        let words = bytes.div_ceil(8);
        Ok(Copy {
            src: gpu.zeros::<u64>(words)?,
            dst: gpu.zeros::<u64>(words)?,
            bytes: words * 8,
        })
    }

    pub fn launch(&self, gpu: &Gpu) -> Result<(), BoxError> {
        if self.bytes == 0 {
            return Ok(());
        }
        // SAFETY: both are live allocations of `bytes` bytes made on this stream (stream order
        // covers their use); the stream's context is current on this thread (bound in `new`; the
        // benchmark launches from one thread).
        unsafe {
            cudarc::driver::sys::cuMemcpyDtoDAsync_v2(
                self.dst.device_ptr(),
                self.src.device_ptr(),
                self.bytes,
                gpu.stream().cu_stream(),
            )
        }
        .result()
        .map_err(|e| format!("cuMemcpyDtoDAsync of {} bytes: {e}", self.bytes))?;
        Ok(())
    }
}

/// Medians of `plan.reps` per-launch event pairs and, with `batch`, of `plan.reps` batches:
/// (reported ms, per-launch ms, how).
pub fn time_launches(
    gpu: &Gpu,
    plan: &Plan,
    batch: bool,
    launch: &mut dyn FnMut() -> Result<(), BoxError>,
) -> Result<(f64, f64, Timing), BoxError> {
    let timer = gpu.timer()?;
    // A kernel that is pathological on this matrix (one thread walking a million-entry row) gets
    // fewer samples: all of them would take minutes. The samples taken are reported.
    timer.start()?;
    launch()?;
    timer.stop()?;
    let first = timer.elapsed_ms()? as f64;
    let batch = batch && first < UNBATCHED_ABOVE_MS;
    let budget = plan.budget_ms;
    let reps = if first * (plan.warmup + plan.reps) as f64 > budget {
        ((budget / first.max(1e-3)) as usize).clamp(MIN_REPS, plan.reps)
    } else {
        plan.reps
    };
    let warmup = if reps < plan.reps { 0 } else { plan.warmup };
    for _ in 0..warmup {
        launch()?;
    }
    let plan = &Plan {
        reps,
        warmup,
        batch: plan.batch,
        budget_ms: plan.budget_ms,
    };
    let mut times = Vec::with_capacity(plan.reps);
    for _ in 0..plan.reps {
        timer.start()?;
        launch()?;
        timer.stop()?;
        times.push(timer.elapsed_ms()?);
    }
    let per_launch = check::median(&mut times) as f64;
    if !batch {
        let how = Timing::PerLaunch { samples: plan.reps };
        return Ok((per_launch, per_launch, how));
    }
    times.clear();
    // A CUDA graph of `batch` launches, replayed: the kernels' own time, without the host's launch
    // overhead between them (a few microseconds, as long as these kernels). Where a launch cannot
    // be captured, batches of plain launches (host overhead included) are timed instead.
    let how = match capture(gpu, plan.batch, launch) {
        Ok(graph) => {
            graph.upload()?;
            graph.launch()?;
            for _ in 0..plan.reps {
                timer.start()?;
                graph.launch()?;
                timer.stop()?;
                times.push(timer.elapsed_ms()? / plan.batch as f32);
            }
            Timing::Graph {
                launches: plan.batch,
                samples: plan.reps,
            }
        }
        Err(_) => {
            for _ in 0..plan.reps {
                timer.start()?;
                for _ in 0..plan.batch {
                    launch()?;
                }
                timer.stop()?;
                times.push(timer.elapsed_ms()? / plan.batch as f32);
            }
            Timing::Batch {
                launches: plan.batch,
                samples: plan.reps,
            }
        }
    };
    Ok((check::median(&mut times) as f64, per_launch, how))
}

/// `launches` launches captured from the device's stream into a CUDA graph. The capture is ended
/// (and the stream usable again) whatever happens inside it.
fn capture(
    gpu: &Gpu,
    launches: usize,
    launch: &mut dyn FnMut() -> Result<(), BoxError>,
) -> Result<CudaGraph, BoxError> {
    let stream = gpu.stream();
    // Relaxed: the launches may make calls a stricter mode refuses during a capture (none after
    // the warm-up, which allocated and compiled what they need).
    stream.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)?;
    let captured = (0..launches).try_for_each(|_| launch());
    let graph = stream.end_capture(CUgraphInstantiate_flags(0));
    captured?;
    Ok(graph?.ok_or("the capture recorded no work")?)
}

/// Times the copy of half the model's `bytes`; returns its measurement and whether the matrix's
/// kernels are timed in batches (the copy took under `batch_below_ms`). The buffers are freed on
/// return.
pub fn measure_copy(
    gpu: &Gpu,
    plan: &Plan,
    bytes: u64,
    batch_below_ms: f64,
) -> Result<(Measurement, bool), BoxError> {
    let copy = Copy::new(gpu, (bytes / 2) as usize)?;
    let copy_ms = time_launches(gpu, plan, false, &mut || copy.launch(gpu));
    let batch = matches!(copy_ms, Ok((t, _, _)) if t < batch_below_ms);
    let copy_ms = if batch {
        time_launches(gpu, plan, true, &mut || copy.launch(gpu))
    } else {
        copy_ms
    };
    let m = match copy_ms {
        Ok((median, per_launch, timing)) => Measurement {
            kernel: COPY.to_string(),
            kind: Kind::Copy,
            median_ms: Some(median),
            per_launch_ms: Some(per_launch),
            timing,
            failure: None,
        },
        Err(e) => Measurement::failed(COPY, Kind::Copy, chain(e.as_ref())),
    };
    Ok((m, batch))
}

//! Timing on a [`Gpu`]'s stream ([`GpuTimer`]) and its memory ([`MemoryInfo`]).

use std::sync::Arc;

use cudarc::driver::sys;
use cudarc::driver::{CudaEvent, CudaStream};

use super::Gpu;
use crate::error::{LoopsError, Result};

impl Gpu {
    /// A pair of CUDA events on this handle's stream, for timing.
    pub fn timer(&self) -> Result<GpuTimer> {
        let event = || {
            self.shared
                .ctx
                .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(LoopsError::driver("creating a timing event"))
        };
        Ok(GpuTimer {
            start: event()?,
            stop: event()?,
            stream: self.lane.stream.clone(),
        })
    }
}

/// Device memory, as [`Gpu::memory_info`] reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryInfo {
    /// Free bytes on the device.
    pub free_bytes: u64,
    /// Total bytes on the device.
    pub total_bytes: u64,
}

/// CUDA events recorded on a [`Gpu`]'s stream: `start()`, the work, `stop()`, then `elapsed_ms()`.
pub struct GpuTimer {
    start: CudaEvent,
    stop: CudaEvent,
    stream: Arc<CudaStream>,
}

impl GpuTimer {
    /// Records the start event.
    pub fn start(&self) -> Result<()> {
        self.start
            .record(&self.stream)
            .map_err(LoopsError::driver("recording the timer's start event"))
    }

    /// Records the stop event.
    pub fn stop(&self) -> Result<()> {
        self.stop
            .record(&self.stream)
            .map_err(LoopsError::driver("recording the timer's stop event"))
    }

    /// Milliseconds between the last `start()` and `stop()`; waits for the stop event.
    pub fn elapsed_ms(&self) -> Result<f32> {
        self.start
            .elapsed_ms(&self.stop)
            .map_err(LoopsError::driver(
                "reading the timer (was start() and stop() called?)",
            ))
    }
}

//! Keeping the operand a kernel gathers in L2 (opt-in, [`Gpu::keep_gathered_in_l2`]).
//!
//! A kernel body that indexes a `&[T]` with loaded values (`x[a.col_indices[nz] as usize]`) reads
//! each element of it once per atom that names it, spread over the whole launch. While the
//! streamed operands (indices, values) pass through L2 they evict those elements between their
//! uses: on an H100, SpMV of a 4M-row power-law matrix with contiguous columns moved 718 MB from
//! DRAM where the model says 587 MB. An *access policy window* over the gathered buffer makes its
//! hits persist in a set-aside part of L2, which streamed lines cannot evict.
//!
//! The set-aside is a limit of the CUDA context (`CU_LIMIT_PERSISTING_L2_CACHE_SIZE`), shared by
//! every stream and library of the process on that device, so the runtime changes it only when
//! asked. The window itself is an attribute of each launch (`cuLaunchKernelEx`), not of the
//! stream: work the caller queues on the same stream is not affected.

use std::sync::Mutex;

use cudarc::driver::sys::{self, CUdevice_attribute, CUlimit};

use crate::device::Gpu;
use crate::error::{LoopsError, Result};

/// What [`Gpu::keep_gathered_in_l2`] set up, shared by the handles of one device context.
#[derive(Default)]
pub(crate) struct L2State {
    on: Mutex<Option<Persisting>>,
}

#[derive(Clone, Copy, Debug)]
struct Persisting {
    /// Bytes of L2 the context sets aside for persisting accesses.
    set_aside: usize,
    /// The device's largest access policy window.
    max_window: usize,
    /// The context's persisting limit before, restored when turned off.
    limit_before: usize,
}

impl Gpu {
    /// Keeps the operand each kernel gathers in L2 during its launches (`on = true`), or stops
    /// (`on = false`). A gathered operand is a `&[T]` parameter the body indexes with a value it
    /// loaded, such as `x` of SpMV (the generated wrapper passes it with
    /// [`KernelArgs::gathered`](crate::launch::KernelArgs::gathered)). Launches that have one then
    /// carry an access policy window over it (the largest, if several) whose hits persist in L2.
    ///
    /// Turning it on sets the context's persisting-L2 set-aside to the device's maximum: a setting
    /// of the whole CUDA context (every stream and library of this process on the device), which
    /// normal accesses may still use while no persisting line holds it. Turning it off waits for
    /// every stream of the context, puts the persisting lines back to normal and restores the
    /// set-aside found. Off by default.
    ///
    /// Returns the bytes set aside: 0 where the device has no persisting L2 (before compute
    /// capability 8.0), where launches then run as without it.
    ///
    /// Measured (H100, README's tuning log): SpMV on a power-law matrix with contiguous columns
    /// 8-10% faster; on banded, random-column and R-MAT matrices within 2%.
    pub fn keep_gathered_in_l2(&self, on: bool) -> Result<usize> {
        let state = self.l2_state();
        let mut current = state.on.lock().unwrap_or_else(|p| p.into_inner());
        let ctx = self.context();
        let context = |what: &str| format!("{what} (keeping gathered operands in L2)");
        ctx.bind_to_thread()
            .map_err(LoopsError::driver(context("binding the context")))?;
        match (on, *current) {
            (true, Some(p)) => Ok(p.set_aside),
            (false, None) => Ok(0),
            (true, None) => {
                let attr = |a: CUdevice_attribute, what: &str| {
                    ctx.attribute(a)
                        .map(|v| v.max(0) as usize)
                        .map_err(LoopsError::driver(context(what)))
                };
                let max_set_aside = attr(
                    CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE,
                    "querying the largest persisting L2 size",
                )?;
                let max_window = attr(
                    CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE,
                    "querying the largest access policy window",
                )?;
                if max_set_aside == 0 || max_window == 0 {
                    return Ok(0);
                }
                let limit_before = get_limit().map_err(LoopsError::driver(context(
                    "reading the persisting L2 limit",
                )))?;
                // SAFETY: the context is bound to this thread; the limit is a plain value.
                unsafe {
                    sys::cuCtxSetLimit(CUlimit::CU_LIMIT_PERSISTING_L2_CACHE_SIZE, max_set_aside)
                }
                .result()
                .map_err(LoopsError::driver(context(
                    "setting the persisting L2 limit",
                )))?;
                // The driver may round the limit; the window's hit ratio is sized to what it kept.
                let set_aside = get_limit().map_err(LoopsError::driver(context(
                    "reading the persisting L2 limit",
                )))?;
                *current = Some(Persisting {
                    set_aside,
                    max_window,
                    limit_before,
                });
                Ok(set_aside)
            }
            (false, Some(p)) => {
                // The reset is not ordered with any stream: every launch that used a window ends first.
                self.synchronize_device()?;
                // SAFETY: the context is bound to this thread and idle.
                unsafe { sys::cuCtxResetPersistingL2Cache() }
                    .result()
                    .map_err(LoopsError::driver(context("resetting persisting L2 lines")))?;
                // SAFETY: as above; the limit is a plain value.
                unsafe {
                    sys::cuCtxSetLimit(CUlimit::CU_LIMIT_PERSISTING_L2_CACHE_SIZE, p.limit_before)
                }
                .result()
                .map_err(LoopsError::driver(context(
                    "restoring the persisting L2 limit",
                )))?;
                *current = None;
                Ok(0)
            }
        }
    }

    /// The bytes of L2 set aside for gathered operands: 0 unless [`Gpu::keep_gathered_in_l2`] is on
    /// (and the device has a persisting L2).
    pub fn gathered_l2_set_aside(&self) -> usize {
        let state = self.l2_state().on.lock().unwrap_or_else(|p| p.into_inner());
        state.map_or(0, |p| p.set_aside)
    }

    /// The window a launch whose largest gathered buffer is `gathered` (device address, bytes)
    /// carries: `None` while [`Gpu::keep_gathered_in_l2`] is off, or for no (or an empty) buffer.
    pub(crate) fn l2_window(
        &self,
        gathered: Option<(u64, usize)>,
    ) -> Option<sys::CUaccessPolicyWindow> {
        let (base, bytes) = gathered.filter(|&(base, bytes)| base != 0 && bytes > 0)?;
        let p = (*self.l2_state().on.lock().unwrap_or_else(|p| p.into_inner()))?;
        Some(window(base, bytes, p.set_aside, p.max_window))
    }
}

/// An access policy window over the first `min(bytes, max_window)` bytes at `base`, whose hits
/// persist and misses stream. For a window larger than the set-aside, the hit ratio (the share of
/// the window's accesses, drawn at random, that persist) shrinks to the set-aside's share, so that
/// persisting lines do not evict each other.
fn window(
    base: u64,
    bytes: usize,
    set_aside: usize,
    max_window: usize,
) -> sys::CUaccessPolicyWindow {
    let num_bytes = bytes.min(max_window);
    sys::CUaccessPolicyWindow {
        base_ptr: base as *mut std::ffi::c_void,
        num_bytes,
        hitRatio: (set_aside as f64 / num_bytes as f64).min(1.0) as f32,
        hitProp: sys::CUaccessProperty::CU_ACCESS_PROPERTY_PERSISTING,
        missProp: sys::CUaccessProperty::CU_ACCESS_PROPERTY_STREAMING,
    }
}

fn get_limit() -> std::result::Result<usize, cudarc::driver::DriverError> {
    let mut value = 0usize;
    // SAFETY: the caller bound the context to this thread; the out-pointer is valid.
    unsafe { sys::cuCtxGetLimit(&mut value, CUlimit::CU_LIMIT_PERSISTING_L2_CACHE_SIZE) }
        .result()?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_covers_the_buffer_up_to_the_device_maximum() {
        let w = window(0x1000, 16 << 20, 32 << 20, 128 << 20);
        assert_eq!(
            (w.base_ptr as u64, w.num_bytes, w.hitRatio),
            (0x1000, 16 << 20, 1.0)
        );
        // Larger than the set-aside: that share of its lines persists.
        let w = window(0x1000, 64 << 20, 32 << 20, 128 << 20);
        assert_eq!((w.num_bytes, w.hitRatio), (64 << 20, 0.5));
        // Larger than the largest window: the window stops there.
        let w = window(0x1000, 256 << 20, 32 << 20, 128 << 20);
        assert_eq!((w.num_bytes, w.hitRatio), (128 << 20, 0.25));
        assert_eq!(
            w.hitProp,
            sys::CUaccessProperty::CU_ACCESS_PROPERTY_PERSISTING
        );
        assert_eq!(
            w.missProp,
            sys::CUaccessProperty::CU_ACCESS_PROPERTY_STREAMING
        );
    }
}

//! Device buffers: allocation, upload, download, fill.

use std::fmt;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUresult};
use cudarc::driver::{CudaSlice, CudaStream, DriverError};

use super::Gpu;
use crate::element::Element;
use crate::error::{LoopsError, Result};

impl Gpu {
    /// An allocation failure as an error: [`LoopsError::OutOfMemory`] (with the device's free memory
    /// at the time) when the device is out of memory, else a driver error.
    fn alloc_error(
        &self,
        what: String,
        requested_bytes: u64,
    ) -> impl FnOnce(DriverError) -> LoopsError + '_ {
        move |e| match e.0 {
            CUresult::CUDA_ERROR_OUT_OF_MEMORY => self.out_of_memory(what, requested_bytes),
            _ => LoopsError::driver(what)(e),
        }
    }

    fn out_of_memory(&self, what: String, requested_bytes: u64) -> LoopsError {
        let info = self.memory_info().ok();
        LoopsError::OutOfMemory {
            what,
            requested_bytes,
            free_bytes: info.map(|i| i.free_bytes),
            total_bytes: info.map(|i| i.total_bytes),
        }
    }

    /// The bytes of `len` elements of `T`, or [`LoopsError::OutOfMemory`] if that overflows.
    fn bytes_of<T>(&self, len: usize, what: impl FnOnce() -> String) -> Result<u64> {
        len.checked_mul(std::mem::size_of::<T>())
            .map(|b| b as u64)
            .ok_or_else(|| self.out_of_memory(format!("{} (the size overflows)", what()), u64::MAX))
    }

    /// Copies `host` to a new device buffer. [`LoopsError::OutOfMemory`] if the device has no room.
    pub fn upload<T: Element>(&self, host: &[T]) -> Result<DeviceBuffer<T>> {
        if host.is_empty() {
            return Ok(DeviceBuffer::empty());
        }
        let what = || format!("uploading {} elements of {}", host.len(), T::RUST_NAME);
        let bytes = self.bytes_of::<T>(host.len(), what)?;
        // SAFETY: every element is written by the copy below before anything reads the buffer.
        let mut slice = unsafe { self.lane.stream.alloc::<T>(host.len()) }
            .map_err(self.alloc_error(what(), bytes))?;
        self.lane
            .stream
            .memcpy_htod(host, &mut slice)
            .map_err(LoopsError::driver(what()))?;
        Ok(DeviceBuffer::whole(slice))
    }

    /// A new device buffer of `len` zeros. [`LoopsError::OutOfMemory`] if the device has no room.
    pub fn zeros<T: Element>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        if len == 0 {
            return Ok(DeviceBuffer::empty());
        }
        let what = || format!("allocating {len} zeroed elements of {}", T::RUST_NAME);
        let bytes = self.bytes_of::<T>(len, what)?;
        // SAFETY: zeroed below, before anything reads it.
        let mut slice =
            unsafe { self.lane.stream.alloc::<T>(len) }.map_err(self.alloc_error(what(), bytes))?;
        self.lane
            .stream
            .memset_zeros(&mut slice)
            .map_err(LoopsError::driver(what()))?;
        Ok(DeviceBuffer::whole(slice))
    }

    /// A new device buffer of `len` elements that holds whatever the allocation held: for an output
    /// a kernel writes in full before anything reads it, where the memset of [`Gpu::zeros`] would be
    /// a pass over the buffer for nothing (e.g. the order of [`Gpu::bin_tiles`]). The element types
    /// are plain numbers, valid for any bits, so reading it early gives garbage but is no UB.
    /// [`LoopsError::OutOfMemory`] if the device has no room.
    pub fn uninit<T: Element>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        if len == 0 {
            return Ok(DeviceBuffer::empty());
        }
        let what = || format!("allocating {len} elements of {}", T::RUST_NAME);
        let bytes = self.bytes_of::<T>(len, what)?;
        // SAFETY: `T: Element` is a primitive number (cudarc's `ValidAsZeroBits`, no padding): any
        // bits the allocation holds are a valid `T`.
        let slice =
            unsafe { self.lane.stream.alloc::<T>(len) }.map_err(self.alloc_error(what(), bytes))?;
        Ok(DeviceBuffer::whole(slice))
    }

    /// Sets every element of `buf` to `value` (a device-side memset; e.g. to poison an output with
    /// `Float::POISON` before a run).
    pub fn fill<T: Element>(&self, buf: &mut DeviceBuffer<T>, value: T) -> Result<()> {
        let what = format!(
            "filling {} elements of {} with {value:?}",
            buf.len(),
            T::RUST_NAME
        );
        let context = || what.clone();
        let len = buf.len;
        if len == 0 {
            return Ok(());
        }
        let owner = buf.cuda_stream().cloned();
        let slice = buf
            .slice
            .as_mut()
            .expect("a non-empty buffer has an allocation");
        self.with_buffer_of(owner.as_ref(), context, || {
            self.fill_slice(slice, len, value, &what)
        })
    }

    fn fill_slice<T: Element>(
        &self,
        slice: &mut CudaSlice<T>,
        len: usize,
        value: T,
        what: &str,
    ) -> Result<()> {
        let context = || what.to_string();
        let ptr = raw_ptr(slice);
        let size = std::mem::size_of::<T>();
        // SAFETY: `value` is a plain `Copy` value of `size` bytes; reading its bytes is fine for the
        // element types (primitives, no padding).
        let bytes = unsafe { std::slice::from_raw_parts(&value as *const T as *const u8, size) };
        let word = |i: usize| u32::from_ne_bytes(bytes[i..i + 4].try_into().expect("4 bytes"));
        let s = self.lane.stream.cu_stream();
        self.shared
            .ctx
            .bind_to_thread()
            .map_err(LoopsError::driver(context()))?;
        // SAFETY: `ptr` is a live allocation of at least `len * size` bytes whose allocation this
        // stream is ordered after (it made it, or `with_buffer_of` joined its maker's stream), and
        // every memset below stays inside it.
        let result = unsafe {
            match size {
                1 => sys::cuMemsetD8Async(ptr, bytes[0], len, s).result(),
                2 => sys::cuMemsetD16Async(ptr, u16::from_ne_bytes([bytes[0], bytes[1]]), len, s)
                    .result(),
                4 => sys::cuMemsetD32Async(ptr, word(0), len, s).result(),
                8 if word(0) == word(4) => sys::cuMemsetD32Async(ptr, word(0), 2 * len, s).result(),
                // Two strided 32-bit memsets: the first and the second word of every element.
                8 => sys::cuMemsetD2D32Async(ptr, 8, word(0), 1, len, s)
                    .result()
                    .and_then(|()| {
                        sys::cuMemsetD2D32Async(ptr + 4, 8, word(4), 1, len, s).result()
                    }),
                _ => {
                    let host = vec![value; len];
                    self.lane
                        .stream
                        .memcpy_htod(&host, &mut slice.slice_mut(..len))
                }
            }
        };
        result.map_err(LoopsError::driver(context()))
    }

    /// Copies `host` into `buf` from element `offset` on (e.g. one vertex's initial distance),
    /// ordered on this handle's stream like every other operation. Panics if it does not fit in the
    /// buffer's length.
    pub fn write_at<T: Element>(
        &self,
        buf: &mut DeviceBuffer<T>,
        offset: usize,
        host: &[T],
    ) -> Result<()> {
        assert!(
            offset + host.len() <= buf.len(),
            "write_at: {} elements at {offset} into a buffer of {}",
            host.len(),
            buf.len()
        );
        let context = || format!("writing {} elements at {offset}", host.len());
        if host.is_empty() {
            return Ok(());
        }
        let owner = buf.cuda_stream().cloned();
        let slice = buf
            .slice_mut()
            .expect("a non-empty range has an allocation");
        self.with_buffer_of(owner.as_ref(), context, || {
            self.stream()
                .memcpy_htod(host, &mut slice.slice_mut(offset..offset + host.len()))
                .map_err(LoopsError::driver(context()))
        })
    }

    /// Queues `op` on this handle's stream (given it, with the context current); a failure is an
    /// error naming `what`.
    fn queue_on_stream(
        &self,
        what: &str,
        op: impl FnOnce(cudarc::driver::sys::CUstream) -> cudarc::driver::sys::CUresult,
    ) -> Result<()> {
        let context = || what.to_string();
        self.stream()
            .context()
            .bind_to_thread()
            .map_err(LoopsError::driver(context()))?;
        op(self.stream().cu_stream())
            .result()
            .map_err(LoopsError::driver(context()))
    }

    /// Copies `out.len()` 8-byte slots at `ptr` to the host, after the work queued on this stream
    /// so far (waits for it).
    pub(crate) fn read_slots(
        &self,
        ptr: cudarc::driver::sys::CUdeviceptr,
        out: &mut [u64],
        what: &str,
    ) -> Result<()> {
        let (dst, bytes) = (
            out.as_mut_ptr() as *mut std::ffi::c_void,
            std::mem::size_of_val(out),
        );
        // SAFETY: callers pass a range inside a live device allocation of this context; the copy
        // is ordered after the stream's work and waited for before `out` is read.
        self.queue_on_stream(what, |stream| unsafe {
            cudarc::driver::sys::cuMemcpyDtoHAsync_v2(dst, ptr, bytes, stream)
        })?;
        self.synchronize()
    }

    /// Zeroes `count` 8-byte slots at `ptr` on this stream.
    pub(crate) fn zero_slots(
        &self,
        ptr: cudarc::driver::sys::CUdeviceptr,
        count: usize,
        what: &str,
    ) -> Result<()> {
        // SAFETY: callers pass a range inside the live scratch area of this stream.
        self.queue_on_stream(what, |stream| unsafe {
            cudarc::driver::sys::cuMemsetD32Async(ptr, 0, 2 * count, stream)
        })
    }

    /// Copies `bytes` bytes from `from` to `to` on this stream (both device addresses of this
    /// context).
    pub(crate) fn copy_device(
        &self,
        from: cudarc::driver::sys::CUdeviceptr,
        to: cudarc::driver::sys::CUdeviceptr,
        bytes: usize,
        what: &str,
    ) -> Result<()> {
        // SAFETY: callers pass ranges inside live allocations of this context, ordered on this
        // stream after the work that wrote them.
        self.queue_on_stream(what, |stream| unsafe {
            cudarc::driver::sys::cuMemcpyDtoDAsync_v2(to, from, bytes, stream)
        })
    }

    /// Copies `buf` back to the host; waits for all work queued before it on this handle's stream.
    pub fn download<T: Element>(&self, buf: &DeviceBuffer<T>) -> Result<Vec<T>> {
        let context = || format!("downloading {} elements of {}", buf.len(), T::RUST_NAME);
        let Some(slice) = buf.slice.as_ref().filter(|_| buf.len > 0) else {
            return Ok(Vec::new());
        };
        self.with_buffer_of(buf.cuda_stream(), context, || {
            let bytes = buf.len * std::mem::size_of::<T>();
            if bytes <= STAGING_BYTES {
                return self
                    .download_staged(raw_ptr(slice), buf.len)
                    .map_err(LoopsError::driver(context()));
            }
            let host = self
                .lane
                .stream
                .clone_dtoh(&slice.slice(..buf.len))
                .map_err(LoopsError::driver(context()))?;
            self.lane
                .stream
                .synchronize()
                .map_err(LoopsError::driver(context()))?;
            Ok(host)
        })
    }
}

/// The largest read-back that goes through the page-locked staging area.
const STAGING_BYTES: usize = 256;

/// Page-locked host memory for the small read-backs of [`Gpu::download`]: the counts a frontier
/// loop reads after every level or replay. A copy into pageable memory is staged by the driver and
/// costs several microseconds more than one into page-locked memory, on every level.
pub(crate) struct Staging {
    host: *mut u8,
}

// SAFETY: the pointer is a page-locked allocation owned by this value alone, used under the
// handle's `staging` mutex.
unsafe impl Send for Staging {}

impl Drop for Staging {
    fn drop(&mut self) {
        // SAFETY: allocated by `malloc_host` in `download_staged` and not freed elsewhere; every copy
        // into it was waited for before its lock was released. An error here (a context already
        // gone) leaves nothing to do.
        let _ = unsafe { cudarc::driver::result::free_host(self.host.cast()) };
    }
}

impl Gpu {
    /// `len` elements at `src` copied into the staging area and back out, once this handle's
    /// stream reaches the copy.
    fn download_staged<T: Element>(
        &self,
        src: sys::CUdeviceptr,
        len: usize,
    ) -> std::result::Result<Vec<T>, DriverError> {
        let bytes = len * std::mem::size_of::<T>();
        debug_assert!(bytes <= STAGING_BYTES);
        let mut staging = super::lock(&self.lane.staging);
        // The raw copy below runs in whatever context is current on this thread: with several
        // devices in one process (a `GpuGroup`), the last one used may be another device's, whose
        // context does not know this stream (CUDA_ERROR_INVALID_VALUE). Bind ours every time.
        self.lane.stream.context().bind_to_thread()?;
        if staging.is_none() {
            // SAFETY: a plain page-locked allocation, owned by the `Staging` it goes into; portable,
            // so that it stays page-locked for every context of the process.
            let host = unsafe {
                cudarc::driver::result::malloc_host(STAGING_BYTES, sys::CU_MEMHOSTALLOC_PORTABLE)?
            };
            *staging = Some(Staging { host: host.cast() });
        }
        let host = staging.as_ref().expect("allocated above").host;
        // SAFETY: `host` holds STAGING_BYTES >= `bytes`; `src` is a live allocation of at least `len`
        // elements (the caller's buffer, borrowed for the call); the copy is waited for before the
        // bytes are read, and the lock keeps other read-backs out meanwhile. Any bit pattern of
        // the right size is a valid `T` (`ValidAsZeroBits` numbers).
        unsafe {
            sys::cuMemcpyDtoHAsync_v2(host.cast(), src, bytes, self.lane.stream.cu_stream())
                .result()?;
            self.lane.stream.synchronize()?;
            let mut out = Vec::<T>::with_capacity(len);
            std::ptr::copy_nonoverlapping(host, out.as_mut_ptr().cast::<u8>(), bytes);
            out.set_len(len);
            Ok(out)
        }
    }
}

/// The device address of a buffer's allocation.
fn raw_ptr<T>(slice: &CudaSlice<T>) -> sys::CUdeviceptr {
    use cudarc::driver::DevicePtr;
    // With event tracking off the returned guard records nothing; any stream will do.
    let (ptr, _guard) = slice.device_ptr(slice.stream());
    ptr
}

/// A `Vec<T>` in device memory, made by a [`Gpu`]. An empty buffer holds no allocation.
///
/// Its length may be shorter than its allocation ([`DeviceBuffer::set_len`]): a kernel, a download
/// and a fill see the first `len()` elements only. A frontier uses that: one allocation of one
/// element per vertex, holding a different number of vertices each iteration.
pub struct DeviceBuffer<T> {
    slice: Option<CudaSlice<T>>,
    len: usize,
}

impl<T> DeviceBuffer<T> {
    pub(crate) fn empty() -> Self {
        DeviceBuffer {
            slice: None,
            len: 0,
        }
    }

    fn whole(slice: CudaSlice<T>) -> Self {
        let len = slice.len();
        DeviceBuffer {
            slice: Some(slice),
            len,
        }
    }

    /// The number of elements in use (at most `capacity`).
    pub fn len(&self) -> usize {
        self.len
    }

    /// The number of elements allocated.
    pub(crate) fn capacity(&self) -> usize {
        self.slice.as_ref().map_or(0, |s| s.len())
    }

    /// Sets the number of elements in use; the elements keep whatever the device holds. Kernels are
    /// passed this length, downloads and fills cover this many. Panics if `len > capacity()`.
    pub fn set_len(&mut self, len: usize) {
        assert!(
            len <= self.capacity(),
            "DeviceBuffer::set_len({len}) beyond its capacity {}",
            self.capacity()
        );
        self.len = len;
    }

    /// Whether no element is in use (`len() == 0`).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The cudarc allocation, `None` for an empty buffer. For interoperation; work on it by hand must
    /// go to the stream of the handle that made it (`cuda_slice().stream()`), or be ordered with it.
    pub fn cuda_slice(&self) -> Option<&CudaSlice<T>> {
        self.slice.as_ref()
    }

    /// The whole allocation, for writes (`None` for an empty buffer).
    pub(crate) fn slice_mut(&mut self) -> Option<&mut CudaSlice<T>> {
        self.slice.as_mut()
    }

    /// The device address (0 for an empty buffer), as a kernel parameter.
    pub fn device_ptr(&self) -> sys::CUdeviceptr {
        self.slice.as_ref().map_or(0, raw_ptr)
    }

    /// The stream of the handle that made the allocation (`None` for an empty buffer).
    pub(crate) fn cuda_stream(&self) -> Option<&Arc<CudaStream>> {
        self.slice.as_ref().map(|s| s.stream())
    }
}

impl<T> fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DeviceBuffer<{}>[{}]",
            std::any::type_name::<T>(),
            self.len()
        )
    }
}

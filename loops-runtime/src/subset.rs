//! Tile subsets under the schedules that partition atoms (`work_oriented`, `merge_path`).
//!
//! Those schedules cut a tile set into equal shares by searching its offsets, so they need the
//! atoms of the tiles they run over at contiguous (virtual) offsets. For `a.tiles_in(list)` the
//! runtime computes them on the GPU before each launch: the exclusive prefix sum of the listed
//! tiles' sizes, `list.len() + 1` entries, an id outside the set counting 0. It takes three small
//! kernels (per-chunk sums, a scan of the chunk sums, the offsets) and one 8-byte read-back of the
//! total, which sizes the launch's grid exactly, so such a launch waits for the prefix sum.
//!
//! The generated kernel takes the offsets as `loops_subset_offsets` (after the user's parameters);
//! its position `p` then holds the atoms of tile `list[p]`, at `loops_subset_offsets[p]..[p + 1]`.

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaFunction, CudaStream};
use kernels_gen::schedule::LaunchDims;
use std::sync::{Arc, MutexGuard};

use crate::device::{DeviceBuffer, Gpu};
use crate::element::Element;
use crate::error::{LoopsError, Result};
use crate::launch::{KernelArgs, Param};

/// Items one block of the prefix-sum kernels takes: 256 threads of 8 items each, as in
/// [`SUBSET_SCAN_SOURCE`].
pub const CHUNK: usize = 2048;

/// An integer type a tile subset's list may hold. Signed ids are sign-extended, so a negative id
/// is outside the set, as in the kernel body's `list[p] as usize < a.num_tiles()`.
pub trait TileId: Element + sealed::Sealed {
    /// The suffix of the prefix-sum entry points for this type.
    const SUFFIX: &'static str;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! tile_id {
    ($($t:ty => $suffix:literal),*) => {$(
        impl sealed::Sealed for $t {}
        impl TileId for $t {
            const SUFFIX: &'static str = $suffix;
        }
    )*};
}
tile_id!(u32 => "u32", i32 => "i32", u64 => "u64", i64 => "i64");

/// A launch's tile subset, as the wrapper of a kernel over `a.tiles_in(list)` gives it.
#[derive(Clone, Copy)]
pub(crate) struct SubsetArgs<'a> {
    /// The tile set's offsets (`tiles + 1` entries).
    pub offsets: &'a DeviceBuffer<i32>,
    pub list: CUdeviceptr,
    pub list_len: usize,
    pub list_stream: Option<&'a Arc<CudaStream>>,
    pub suffix: &'static str,
}

impl<'a> KernelArgs<'a> {
    /// The tile subset of a kernel over `set.tiles_in(list)` under a schedule that partitions atoms:
    /// `offsets` are the set's tile offsets. The launch computes the prefix sum of the listed tiles'
    /// sizes and passes it to the kernel.
    pub fn tile_subset<I: TileId>(
        &mut self,
        offsets: &'a DeviceBuffer<i32>,
        list: &'a DeviceBuffer<I>,
    ) -> &mut Self {
        self.subset = Some(SubsetArgs {
            offsets,
            list: list.device_ptr(),
            list_len: list.len(),
            list_stream: list.cuda_slice().map(|s| s.stream()),
            suffix: I::SUFFIX,
        });
        self
    }
}

/// The prefix sum of one launch's subset, in the handle's subset area.
pub(crate) struct SubsetPrefix {
    /// `list_len + 1` ints on the device.
    pub offsets: CUdeviceptr,
    /// The listed tiles' atoms: `offsets[list_len]`.
    pub atoms: u64,
}

/// Slots (8 bytes) of the subset area for a list of `n`: the chunk sums and their total
/// (`chunks + 1`), then the `n + 1` int offsets.
fn area_slots(n: usize) -> (usize, usize) {
    let sums = n.div_ceil(CHUNK) + 1;
    (sums, sums + (n + 2) / 2)
}

impl Gpu {
    /// Computes the prefix sum of `subset`'s tile sizes on this handle's stream (queued), reads back
    /// the total (waits for it) and checks that it fits the kernels' 32-bit offsets. The area that
    /// holds it comes back locked: the caller holds it until its launch is queued.
    pub(crate) fn subset_prefix<'a>(
        &self,
        kernel: &str,
        subset: &SubsetArgs<'a>,
    ) -> Result<(SubsetPrefix, MutexGuard<'_, DeviceBuffer<u64>>)> {
        let n = subset.list_len;
        if n > i32::MAX as usize {
            return Err(LoopsError::SubsetTooLarge {
                kernel: kernel.to_string(),
                len: n,
            });
        }
        let tiles = subset.offsets.len().saturating_sub(1);
        let chunks = n.div_ceil(CHUNK);
        let (sums_slots, slots) = area_slots(n);
        let area = self.subset_area(slots)?;
        let sums = area.device_ptr();
        let offsets = sums + (sums_slots * 8) as u64;
        let function = |entry: &str| self.function("loops_subset_prefix", SUBSET_SCAN_SOURCE, entry);
        let dims = |grid: usize, block: u32| LaunchDims {
            grid: grid as u32,
            block,
            shared_bytes: 0,
        };
        // The arguments every per-item kernel takes: the set's offsets, its tile count, the list.
        let items = |args: &mut KernelArgs<'a>| {
            args.push_buffer(subset.offsets, Param::Csr("const int* offsets"));
            args.push_value(tiles as i64, Param::Scalar("long long"));
            args.push_foreign_ptr(
                subset.list,
                subset.list_stream,
                Param::Ptr {
                    ty: "tile id",
                    mutable: false,
                },
            );
            args.push_value(n as i64, Param::Scalar("long long"));
        };
        if chunks > 0 {
            let f = function(&format!("loops_subset_chunk_sums_{}", subset.suffix))?;
            let mut args = KernelArgs::new();
            items(&mut args);
            args.push_value(sums, Param::Ptr { ty: "long long", mutable: true });
            self.launch_function("loops_subset_chunk_sums", &f, dims(chunks, 256), args)?;
        }
        let f = function("loops_subset_scan_sums")?;
        let mut args = KernelArgs::new();
        args.push_value(sums, Param::Ptr { ty: "long long", mutable: true });
        args.push_value(chunks as i64, Param::Scalar("long long"));
        self.launch_function("loops_subset_scan_sums", &f, dims(1, 1024), args)?;
        let f: CudaFunction = function(&format!("loops_subset_offsets_{}", subset.suffix))?;
        let mut args = KernelArgs::new();
        items(&mut args);
        args.push_value(sums, Param::Ptr { ty: "const long long", mutable: false });
        args.push_value(chunks as i64, Param::Scalar("long long"));
        args.push_value(offsets, Param::Ptr { ty: "int", mutable: true });
        self.launch_function("loops_subset_offsets", &f, dims(chunks.max(1), 256), args)?;
        let mut total = [0u64];
        self.read_slots(
            sums + (chunks * 8) as u64,
            &mut total,
            "reading the atom count of a tile subset",
        )?;
        let atoms = total[0];
        if atoms > i32::MAX as u64 {
            return Err(LoopsError::SubsetAtomsTooLarge {
                kernel: kernel.to_string(),
                atoms,
            });
        }
        Ok((SubsetPrefix { offsets, atoms }, area))
    }
}

/// The prefix-sum kernels. A listed id is read as a signed 64-bit value and compared unsigned, so
/// negative ids are outside the set; the sums are 64-bit, so a total past `i32::MAX` (a list that
/// repeats long tiles) is seen, not wrapped.
pub const SUBSET_SCAN_SOURCE: &str = r#"// loops for Rust: prefix sum of a tile subset's sizes (loops-runtime/src/subset.rs).
#define LOOPS_CHUNK 2048

template <typename Id>
static __device__ __forceinline__ long long loops_listed_size(
    const int* __restrict__ offsets, const long long tiles, const Id* __restrict__ list, const long long i)
{
    const unsigned long long v = (unsigned long long)(long long)list[i];
    return v < (unsigned long long)tiles ? (long long)(offsets[v + 1] - offsets[v]) : 0ll;
}

// Inclusive scan of `x` over a warp.
static __device__ __forceinline__ long long loops_warp_scan(long long x)
{
    const int lane = threadIdx.x & 31;
    for (int o = 1; o < 32; o <<= 1) {
        const long long y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
    }
    return x;
}

// Each block: the sum of its chunk's sizes, loaded coalesced.
template <typename Id>
static __device__ __forceinline__ void loops_chunk_sums(
    const int* __restrict__ offsets, const long long tiles, const Id* __restrict__ list, const long long n,
    long long* __restrict__ sums)
{
    __shared__ long long warp_sums[8];
    const long long base = (long long)blockIdx.x * LOOPS_CHUNK;
    long long s = 0;
#pragma unroll
    for (int r = 0; r < 8; ++r) {
        const long long i = base + r * 256 + threadIdx.x;
        if (i < n) s += loops_listed_size(offsets, tiles, list, i);
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        long long t = 0;
        for (int w = 0; w < 8; ++w) t += warp_sums[w];
        sums[blockIdx.x] = t;
    }
}

// Each block: its chunk's offsets, from the chunk's exclusive prefix; each thread takes 8 items in
// a row. Block 0 also writes the total at offsets[n].
template <typename Id>
static __device__ __forceinline__ void loops_offsets(
    const int* __restrict__ offsets, const long long tiles, const Id* __restrict__ list, const long long n,
    const long long* __restrict__ sums, const long long chunks, int* __restrict__ out)
{
    __shared__ long long warp_totals[8];
    const long long base = (long long)blockIdx.x * LOOPS_CHUNK + threadIdx.x * 8;
    long long before[8];
    long long s = 0;
#pragma unroll
    for (int r = 0; r < 8; ++r) {
        before[r] = s;
        if (base + r < n) s += loops_listed_size(offsets, tiles, list, base + r);
    }
    const long long x = loops_warp_scan(s);
    if ((threadIdx.x & 31) == 31) warp_totals[threadIdx.x >> 5] = x;
    __syncthreads();
    long long warp_prefix = 0;
    for (int w = 0; w < (int)(threadIdx.x >> 5); ++w) warp_prefix += warp_totals[w];
    const long long prefix = (chunks > 0 ? sums[blockIdx.x] : 0ll) + warp_prefix + x - s;
#pragma unroll
    for (int r = 0; r < 8; ++r) {
        if (base + r < n) out[base + r] = (int)(prefix + before[r]);
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) out[n] = (int)sums[chunks];
}

#define LOOPS_SUBSET_ENTRIES(Id, suffix)                                                              \
    extern "C" __global__ void __launch_bounds__(256) loops_subset_chunk_sums_##suffix(               \
        const int* __restrict__ offsets, const long long tiles, const Id* __restrict__ list,           \
        const long long n, long long* __restrict__ sums)                                                \
    {                                                                                                   \
        loops_chunk_sums<Id>(offsets, tiles, list, n, sums);                                           \
    }                                                                                                   \
    extern "C" __global__ void __launch_bounds__(256) loops_subset_offsets_##suffix(                  \
        const int* __restrict__ offsets, const long long tiles, const Id* __restrict__ list,           \
        const long long n, const long long* __restrict__ sums, const long long chunks,                 \
        int* __restrict__ out)                                                                          \
    {                                                                                                   \
        loops_offsets<Id>(offsets, tiles, list, n, sums, chunks, out);                                 \
    }
LOOPS_SUBSET_ENTRIES(unsigned int, u32)
LOOPS_SUBSET_ENTRIES(int, i32)
LOOPS_SUBSET_ENTRIES(unsigned long long, u64)
LOOPS_SUBSET_ENTRIES(long long, i64)

// One block of 1024: the exclusive scan of the chunk sums, in place, and their total at sums[chunks].
extern "C" __global__ void __launch_bounds__(1024) loops_subset_scan_sums(
    long long* __restrict__ sums, const long long chunks)
{
    __shared__ long long warp_totals[32];
    __shared__ long long carry;
    if (threadIdx.x == 0) carry = 0;
    __syncthreads();
    for (long long start = 0; start < chunks; start += 1024) {
        const long long i = start + threadIdx.x;
        const long long v = i < chunks ? sums[i] : 0ll;
        const long long x = loops_warp_scan(v);
        if ((threadIdx.x & 31) == 31) warp_totals[threadIdx.x >> 5] = x;
        __syncthreads();
        if (threadIdx.x < 32) warp_totals[threadIdx.x] = loops_warp_scan(warp_totals[threadIdx.x]);
        __syncthreads();
        const long long excl = carry + ((threadIdx.x >> 5) > 0 ? warp_totals[(threadIdx.x >> 5) - 1] : 0ll) + x - v;
        if (i < chunks) sums[i] = excl;
        // Every thread has read `carry` before the last one moves it on.
        __syncthreads();
        if (threadIdx.x == 1023) carry = excl + v;
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[chunks] = carry;
}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_source_agrees_with_the_chunk() {
        assert!(SUBSET_SCAN_SOURCE.contains(&format!("#define LOOPS_CHUNK {CHUNK}")));
        // 256 threads of 8 items.
        assert_eq!(CHUNK, 256 * 8);
        for suffix in ["u32", "i32", "u64", "i64"] {
            assert!(SUBSET_SCAN_SOURCE.contains(&format!("LOOPS_SUBSET_ENTRIES(")));
            assert!([
                <u32 as TileId>::SUFFIX,
                <i32 as TileId>::SUFFIX,
                <u64 as TileId>::SUFFIX,
                <i64 as TileId>::SUFFIX
            ]
            .contains(&suffix));
        }
    }

    #[test]
    fn the_area_holds_sums_then_offsets() {
        assert_eq!(area_slots(0), (1, 1));
        assert_eq!(area_slots(1), (2, 3));
        assert_eq!(area_slots(CHUNK), (2, 2 + (CHUNK + 2) / 2));
        assert_eq!(area_slots(CHUNK + 1).0, 3);
    }
}

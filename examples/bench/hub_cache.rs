//! A measurement for issue 42, written by hand in CUDA: does holding the hub columns' `x` in
//! shared memory lift SpMV on power-law graphs past the L2's sector-request rate, where every
//! schedule and cuSPARSE stall (about 5.3 TB/s of 32-byte sectors on an H200)?
//!
//! On a matrix relabelled by decreasing in-degree (`io::host::relabel_by_degree`), the first
//! `hub` columns are the most gathered ones (Kronecker 21: the first 12K columns hold 43% of the
//! nonzeros, the first 57K 69%). Each block of a resident grid copies `x[..hub]` into shared
//! memory once, then takes work items from a counter: first the long rows (one block each, a
//! block-wide sum), then chunks of short rows (eight lanes a row); a gather of column `c < hub`
//! reads shared memory, the others `x`. The same kernel with `hub = 0` is the control: the ratio
//! of the two is the cache's effect, whatever the kernel's own quality. A prototype beside the
//! benchmark, not a schedule: if it pays, the language gets the feature.

use loops::launch::KernelArgs;
use loops::schedule::LaunchDims;
use loops::{DeviceBuffer, DeviceCsr, Float, Gpu};

type BoxError = Box<dyn std::error::Error>;

/// The kernel's names in tables and the CSV: with the largest cache that leaves one block of
/// 1024 threads per SM, with a 48 KiB cache (two blocks per SM), and without.
pub const NAMES: [&str; 3] = ["hub_cache_max", "hub_cache_48k", "hub_cache_off"];

const THREADS: u32 = 1024;
/// Rows at least this long are a work item of their own.
const LONG: usize = 2048;
/// Short rows per work item.
const CHUNK: u32 = 256;

pub const SOURCE: &str = r#"
template <typename T>
__device__ __forceinline__ T gather(const T* s_hub, int hub, const T* __restrict__ x, int c) {
    return c < hub ? s_hub[c] : __ldg(x + c);
}
template <typename T>
__device__ __forceinline__ void hub_spmv(int rows, const int* __restrict__ off, const int* __restrict__ cols,
    const T* __restrict__ vals, const T* __restrict__ x, T* __restrict__ y, const int* __restrict__ long_rows,
    int n_long, unsigned* counter, int hub, int chunk, int long_len) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* s_hub = (T*)smem_raw;
    __shared__ int s_item;
    __shared__ T s_red[32];
    for (int i = threadIdx.x; i < hub; i += blockDim.x) s_hub[i] = x[i];
    const int items = n_long + (rows + chunk - 1) / chunk;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    for (;;) {
        __syncthreads();
        if (threadIdx.x == 0) s_item = (int)atomicAdd(counter, 1u);
        __syncthreads();
        const int item = s_item;
        if (item >= items) break;
        if (item < n_long) {
            const int r = long_rows[item];
            T sum = T(0);
            for (int k = off[r] + threadIdx.x; k < off[r + 1]; k += blockDim.x)
                sum += vals[k] * gather(s_hub, hub, x, cols[k]);
            for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(~0u, sum, o);
            if (lane == 0) s_red[warp] = sum;
            __syncthreads();
            if (warp == 0) {
                T s = lane < warps ? s_red[lane] : T(0);
                for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(~0u, s, o);
                if (lane == 0) y[r] = s;
            }
            continue;
        }
        const int r0 = (item - n_long) * chunk, r1 = min(r0 + chunk, rows);
        for (int rb = r0 + warp * 4; rb < r1; rb += warps * 4) {
            const int r = rb + (lane >> 3);
            const bool valid = r < r1;
            const int b = valid ? off[r] : 0, e = valid ? off[r + 1] : 0;
            const bool mine = valid && e - b < long_len;
            T sum = T(0);
            if (mine)
                for (int k = b + (lane & 7); k < e; k += 8) sum += vals[k] * gather(s_hub, hub, x, cols[k]);
            sum += __shfl_xor_sync(~0u, sum, 4);
            sum += __shfl_xor_sync(~0u, sum, 2);
            sum += __shfl_xor_sync(~0u, sum, 1);
            if (mine && (lane & 7) == 0) y[r] = sum;
        }
    }
}
#define ENTRY(T, NAME) \
extern "C" __global__ void __launch_bounds__(1024) NAME(int rows, int cols_count, int nnz, const int* offsets, \
    const int* cols, const T* vals, const T* x, unsigned long long x_len, T* y, unsigned long long y_len, \
    const int* long_rows, unsigned long long long_rows_len, unsigned* counter, unsigned long long counter_len, \
    int hub, int chunk, int long_len) { \
    hub_spmv<T>(rows, offsets, cols, vals, x, y, long_rows, (int)long_rows_len, counter, hub, chunk, long_len); }
ENTRY(float, hub_spmv_f32)
ENTRY(double, hub_spmv_f64)
"#;

/// The kernel for one matrix: its long rows, its counter, and the cache size of the variant.
pub struct HubCache<'a, T: Float> {
    a: &'a DeviceCsr<T>,
    x: &'a DeviceBuffer<T>,
    y: &'a mut DeviceBuffer<T>,
    long_rows: DeviceBuffer<i32>,
    counter: DeviceBuffer<u32>,
    hub: u32,
    grid: u32,
}

impl<'a, T: Float> HubCache<'a, T> {
    /// `variant` indexes [`NAMES`]. The long rows are listed once per matrix, from its offsets
    /// (as the schedules keep their preprocessing).
    pub fn new(
        gpu: &Gpu,
        variant: usize,
        a: &'a DeviceCsr<T>,
        x: &'a DeviceBuffer<T>,
        y: &'a mut DeviceBuffer<T>,
    ) -> Result<Self, BoxError> {
        let size = std::mem::size_of::<T>();
        // The most dynamic shared memory a block may take on sm_90, less the static arrays.
        let max_bytes = 227 * 1024 - 1024;
        let (bytes, per_sm) = match variant {
            0 => (max_bytes, 1),
            1 => (48 * 1024, 2),
            _ => (0, 2),
        };
        let hub = (bytes / size).min(a.cols()) as u32;
        let offsets = gpu.download(a.offsets())?;
        let long: Vec<i32> = (0..offsets.len().saturating_sub(1))
            .filter(|&r| (offsets[r + 1] - offsets[r]) as usize >= LONG)
            .map(|r| r as i32)
            .collect();
        let long_rows = gpu.upload(&long)?;
        Ok(HubCache {
            a,
            x,
            y,
            long_rows,
            counter: gpu.zeros::<u32>(1)?,
            hub,
            grid: gpu.limits().sm_count * per_sm,
        })
    }

    pub fn launch(&mut self, gpu: &Gpu) -> Result<(), BoxError> {
        gpu.fill(&mut self.counter, 0)?;
        let entry = format!("hub_spmv_{}", T::RUST_NAME);
        let f = gpu.function("hub_spmv", SOURCE, &entry)?;
        let mut args = KernelArgs::new();
        args.csr(self.a)
            .slice(self.x)
            .slice_mut(self.y)
            .slice(&self.long_rows)
            .slice_mut(&mut self.counter)
            .scalar(self.hub as i32)
            .scalar(CHUNK as i32)
            .scalar(LONG as i32);
        let dims = LaunchDims {
            grid: self.grid,
            block: THREADS,
            shared_bytes: self.hub * std::mem::size_of::<T>() as u32,
        };
        Ok(gpu.launch_function("hub_spmv", &f, dims, args)?)
    }

    pub fn fill_y(&mut self, gpu: &Gpu, value: T) -> Result<(), BoxError> {
        Ok(gpu.fill(self.y, value)?)
    }

    pub fn y(&self) -> &DeviceBuffer<T> {
        self.y
    }
}

//! A merge-path SpMV written by hand in CUDA, the control for the abstraction's cost: the same
//! algorithm as the generated `merge_path` schedule (each block's range start found once per matrix,
//! row ends and products in shared memory, one segment of the merge path per thread, a segmented
//! scan for rows cut between threads, stamped records and a decoupled look-back for rows that
//! cross blocks), written for SpMV alone: no prologue to recompute, one accumulator, `y` written in
//! place. It is compiled through the same NVRTC path as the generated kernels.

use loops::launch::block_ranges::RangeJob;
use loops::launch::KernelArgs;
use loops::schedule::carry::Partition;
use loops::schedule::LaunchDims;
use loops::{DeviceBuffer, DeviceCsr, Float, Gpu, TileSet};

type BoxError = Box<dyn std::error::Error>;

/// The kernel's name in tables and the CSV.
pub const NAME: &str = "handwritten_merge_path";

const THREADS: u32 = 256;
const ITEMS_PER_THREAD: u32 = 8;

pub const SOURCE: &str = r#"
__device__ __forceinline__ unsigned long long bits_of(float v) { return __float_as_uint(v); }
__device__ __forceinline__ unsigned long long bits_of(double v) { return (unsigned long long)__double_as_longlong(v); }
__device__ __forceinline__ float from_bits(unsigned long long b, float*) { return __uint_as_float((unsigned)b); }
__device__ __forceinline__ double from_bits(unsigned long long b, double*) { return __longlong_as_double((long long)b); }
template <typename T> __device__ __forceinline__ void publish(unsigned long long* at, unsigned stamp, T v) {
    const unsigned long long b = bits_of(v), s = (unsigned long long)stamp << 32;
    volatile unsigned long long* w = at;
    w[0] = s | (b & 0xffffffffull);
    if (sizeof(T) > 4) w[1] = s | (b >> 32);
}
template <typename T> __device__ __forceinline__ bool ready(const unsigned long long* w, unsigned stamp) {
    return (unsigned)(w[0] >> 32) == stamp && (sizeof(T) <= 4 || (unsigned)(w[1] >> 32) == stamp);
}
template <typename T> __device__ __forceinline__ T value(const unsigned long long* w) {
    return from_bits((w[0] & 0xffffffffull) | (sizeof(T) > 4 ? w[1] << 32 : 0ull), (T*)0);
}
template <typename T>
__device__ __forceinline__ void merge_path_spmv(int rows, int nnz, const int* __restrict__ row_ends_all,
    const int* __restrict__ cols, const T* __restrict__ vals, const T* __restrict__ x, T* __restrict__ y,
    const int* __restrict__ starts, unsigned long long* __restrict__ scratch) {
    constexpr int THREADS = 256, ITEMS = 8, TILE = THREADS * ITEMS;
    __shared__ int s_ends[TILE + 2];
    __shared__ T s_prod[TILE + TILE / 32];
    __shared__ unsigned long long s_ticket;
    __shared__ int s_warp_row[THREADS / 32];
    __shared__ T s_warp_sum[THREADS / 32];
    __shared__ int s_cross_row;
    __shared__ T s_cross_sum, s_block_sum;
    const int tid = threadIdx.x, lane = tid & 31;
    if (tid == 0) {
        unsigned long long t = atomicAdd(scratch, 1ull);
        if ((unsigned)t == gridDim.x - 1u) atomicAdd(scratch, (1ull << 32) - gridDim.x);
        s_ticket = t;
        s_cross_row = -1;
    }
    __syncthreads();
    const long long block = (unsigned)s_ticket;
    const unsigned long long epoch = (s_ticket >> 32) + 1ull;
    const long long total = (long long)rows + nnz;
    const long long d_begin = min(block * TILE, total), d_end = min(d_begin + TILE, total);
    // Where the block's range starts and ends on the merge path, found once per matrix (the search
    // runs on the host's request before the first launch: `Gpu::block_starts`).
    const int r0 = starts[block], r1 = starts[block + 1];
    const int z0 = (int)(d_begin - r0), z1 = (int)(d_end - r1);
    // Row offsets r0..=r1+1 and the block's products, coalesced.
    const int window = min(r1 + 1, rows) - r0 + 1;
    #pragma unroll
    for (int r = 0; r < ITEMS + 1; ++r) { const int i = tid + r * THREADS; if (i < window) s_ends[i] = row_ends_all[r0 + i]; }
    #pragma unroll
    for (int r = 0; r < ITEMS; ++r) { const int k = tid + r * THREADS; if (k < z1 - z0) s_prod[k + (k >> 5)] = vals[z0 + k] * x[cols[z0 + k]]; }
    __syncthreads();
    // This thread's segment of the block's path.
    const long long d0 = min(d_begin + (long long)tid * ITEMS, d_end), d1 = min(d0 + ITEMS, d_end);
    auto find = [&](long long d) {
        int lo = (int)max((long long)r0, d - nnz), hi = (int)min((long long)r1, d);
        while (lo < hi) { const int mid = (lo + hi + 1) >> 1; if ((long long)s_ends[mid - r0] + mid <= d) lo = mid; else hi = mid - 1; }
        return lo;
    };
    const int x0 = find(d0), x1 = find(d1);
    const int y0 = (int)(d0 - x0), y1 = (int)(d1 - x1);
    int head_row = -1, tail_row = -1, k = y0;
    T head_sum = T(0), tail_sum = T(0);
    for (int row = x0; row <= x1 && row < rows; ++row) {
        const bool cut = s_ends[row - r0] < y0, tail = row == x1;
        const int stop = tail ? y1 : s_ends[row + 1 - r0];
        T sum = T(0);
        for (; k < stop; ++k) sum += s_prod[(k - z0) + ((k - z0) >> 5)];
        if (tail) { tail_row = row; tail_sum = sum; }
        else if (cut) { head_row = row; head_sum = sum; }
        else y[row] = sum;
    }
    // Rows cut between threads: a segmented scan of the tails by row, by shuffles in each warp,
    // then the earlier warps' summaries for a run that reaches back past its warp's first lane.
    T run = tail_sum;
    #pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const int up_row = __shfl_up_sync(~0u, tail_row, o);
        const T up = __shfl_up_sync(~0u, run, o);
        if (lane >= o && up_row == tail_row) run = up + run;
    }
    const int warp = tid >> 5, first_row = __shfl_sync(~0u, tail_row, 0);
    if (lane == 31) { s_warp_row[warp] = tail_row; s_warp_sum[warp] = run; }
    __syncthreads();
    auto earlier = [&](int row) { T sum = T(0); for (int v = warp - 1; v >= 0 && s_warp_row[v] == row; --v) sum = s_warp_sum[v] + sum; return sum; };
    if (warp > 0 && first_row == tail_row) run = earlier(tail_row) + run;
    // The block's record: four words, the aggregate (the block's own partial of the row in progress
    // at its end: a block inside one row) and the inclusive partial (from the row's start), each
    // 32-bit half under the launch's stamp, so a reader needs no fence.
    unsigned long long* const mine = scratch + 1 + block * 4;
    const unsigned stamp = (unsigned)epoch | (unsigned)(epoch >> 32);
    const bool inside = r0 == r1;
    if (tid == THREADS - 1) { publish(mine + (inside ? 0 : 2), stamp, run); s_block_sum = run; }
    const int prev_row = __shfl_up_sync(~0u, tail_row, 1);
    const T prev = __shfl_up_sync(~0u, run, 1);
    if (head_row >= 0) {
        const T sum = (lane > 0 ? (prev_row == head_row ? prev : T(0)) : earlier(head_row)) + head_sum;
        if (s_ends[head_row - r0] < z0) { s_cross_row = head_row; s_cross_sum = sum; }
        else y[head_row] = sum;
    }
    __syncthreads();
    // A row begun in an earlier block (or a block inside one row): add the earlier blocks' partials
    // back to the nearest inclusive record (decoupled look-back); a block inside one row then
    // publishes its inclusive partial.
    if ((s_cross_row >= 0 || inside) && tid < 32) {
        T sum = T(0);
        for (long long base = block - 1;; base -= 32) {
            const long long c = base - lane;
            unsigned long long w[4] = {};
            bool complete = true;
            if (c >= 0) {
                const volatile unsigned long long* theirs = scratch + 1 + c * 4;
                for (;;) {
                    for (int i = 0; i < 4; ++i) w[i] = theirs[i];
                    if (ready<T>(w + 2, stamp)) break;
                    if (ready<T>(w, stamp)) { complete = false; break; }
                    __nanosleep(32);
                }
            }
            const unsigned stops = __ballot_sync(~0u, complete);
            const bool in = c >= 0 && (stops == 0u || lane <= __ffs(stops) - 1);
            T part = !in ? T(0) : complete ? value<T>(w + 2) : value<T>(w);
            for (int o = 16; o > 0; o >>= 1) part += __shfl_xor_sync(~0u, part, o);
            sum = part + sum;
            if (stops) break;
        }
        if (lane == 0 && inside) publish(mine + 2, stamp, sum + s_block_sum);
        else if (lane == 0) y[s_cross_row] = sum + s_cross_sum;
    }
}

#define ENTRY(T, NAME) \
extern "C" __global__ void __launch_bounds__(256) NAME(int rows, int cols_count, int nnz, const int* offsets, \
    const int* cols, const T* vals, const T* x, unsigned long long x_len, T* y, unsigned long long y_len, \
    const int* starts, unsigned long long starts_len, unsigned long long* scratch, unsigned long long scratch_len) { \
    merge_path_spmv<T>(rows, nnz, offsets, cols, vals, x, y, starts, scratch); }
ENTRY(float, handwritten_merge_path_f32)
ENTRY(double, handwritten_merge_path_f64)
"#;

/// The hand-written kernel with its scratch (an epoch/ticket counter and four words per block) and
/// its blocks' range starts, made for one matrix.
pub struct Handwritten<'a, T: Float> {
    a: &'a DeviceCsr<T>,
    x: &'a DeviceBuffer<T>,
    y: &'a mut DeviceBuffer<T>,
    starts: DeviceBuffer<i32>,
    scratch: DeviceBuffer<u64>,
    grid: u32,
}

impl<'a, T: Float> Handwritten<'a, T> {
    pub fn new(
        gpu: &Gpu,
        a: &'a DeviceCsr<T>,
        x: &'a DeviceBuffer<T>,
        y: &'a mut DeviceBuffer<T>,
    ) -> Result<Self, BoxError> {
        let items = (a.rows() + a.nnz()) as u64;
        let grid = items
            .div_ceil((THREADS * ITEMS_PER_THREAD) as u64)
            .max(1)
            .try_into()?;
        let scratch = gpu.zeros::<u64>(1 + 4 * grid as usize)?;
        let job = RangeJob {
            partition: Partition::MergePath,
            items_per_block: (THREADS * ITEMS_PER_THREAD) as u64,
            blocks: grid as u64,
        };
        let starts = gpu
            .block_starts(a.tile_offsets(), job)?
            .ok_or("the merge path has block starts")?;
        Ok(Handwritten {
            a,
            x,
            y,
            starts,
            scratch,
            grid,
        })
    }

    pub fn launch(&mut self, gpu: &Gpu) -> Result<(), BoxError> {
        let entry = format!("{NAME}_{}", T::RUST_NAME);
        let f = gpu.function(NAME, SOURCE, &entry)?;
        let mut args = KernelArgs::new();
        args.csr(self.a)
            .slice(self.x)
            .slice_mut(self.y)
            .slice(&self.starts)
            .slice_mut(&mut self.scratch);
        let dims = LaunchDims {
            grid: self.grid,
            block: THREADS,
            shared_bytes: 0,
        };
        Ok(gpu.launch_function(NAME, &f, dims, args)?)
    }

    pub fn fill_y(&mut self, gpu: &Gpu, value: T) -> Result<(), BoxError> {
        Ok(gpu.fill(self.y, value)?)
    }

    pub fn y(&self) -> &DeviceBuffer<T> {
        self.y
    }
}

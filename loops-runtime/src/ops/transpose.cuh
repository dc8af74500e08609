// loops for Rust: CSR to CSC on the GPU (loops-runtime/src/ops/transpose.cuh), after sort.cuh's
// templates (compiled with LOOPS_SEGSORT_CORE_ONLY).
//
// 1. count: each column's entries, one atomic per entry;
// 2. scan: the exclusive prefix sum of the counts gives the column offsets (and each column's
//    scatter cursor): per-tile sums, one block scanning the tile sums, then each tile scanned;
// 3. scatter: each entry takes a slot of its column with an atomic on the cursor and writes there
//    its key, (row, position in the row): which of the column's slots it gets is arbitrary;
// 4. each column sorted by those keys (sort.cuh, policy LoopsCscCols), which gives the row indices
//    in CSR order (rows ascending; a row's duplicates in their order) and fetches each value.

#define LOOPS_TRANSPOSE_BLOCK 256
#define LOOPS_TRANSPOSE_ITEMS 8
#define LOOPS_TRANSPOSE_TILE (LOOPS_TRANSPOSE_BLOCK * LOOPS_TRANSPOSE_ITEMS)
#define LOOPS_TRANSPOSE_SUMS_BLOCK 1024

// The columns of the CSC being built, sorted by (row, position in the row): the keys the scatter
// left in `keys`, values fetched from the CSR by the key.
template <typename T>
struct LoopsCscCols {
    typedef T value_type;
    const int* __restrict__ col_offsets;
    // Not __restrict__: the chunk step of long columns writes its sorted chunks back here.
    const loops_key* keys;
    const int* __restrict__ csr_offsets;
    const T* __restrict__ csr_values;
    int* __restrict__ row_indices;
    T* __restrict__ values;
    __device__ __forceinline__ LoopsCscCols(const int* c, const loops_key* k, const int* o, const T* cv, int* r, T* v)
        : col_offsets(c), keys(k), csr_offsets(o), csr_values(cv), row_indices(r), values(v) {}
    __device__ __forceinline__ unsigned int start(const unsigned int col) const { return (unsigned int)col_offsets[col]; }
    __device__ __forceinline__ unsigned int end(const unsigned int col) const { return (unsigned int)col_offsets[col + 1]; }
    __device__ __forceinline__ loops_key key(const unsigned int start, const unsigned int i) const { return keys[start + i]; }
    __device__ __forceinline__ T fetch(const unsigned int, const loops_key k) const
    {
        return csr_values[(unsigned int)csr_offsets[loops_key_high(k)] + loops_key_low(k)];
    }
    // The CSR's values are not written: nothing to save.
    __device__ __forceinline__ void save(const unsigned int, const unsigned int) const {}
    __device__ __forceinline__ T fetch_saved(const unsigned int start, const loops_key k) const { return fetch(start, k); }
    __device__ __forceinline__ void store(const unsigned int start, const unsigned int k, const loops_key key, const T v) const
    {
        row_indices[start + k] = (int)loops_key_high(key);
        values[start + k] = v;
    }
};

#define LOOPS_TRANSPOSE_CSC_PARAMS(T)                                                                \
    (const int* __restrict__ col_offsets, const loops_key* scattered, const int* __restrict__ csr_offsets, \
     const T* __restrict__ csr_values, int* __restrict__ row_indices, T* __restrict__ values)
LOOPS_SEGSORT_ENTRIES(csc_f32, LoopsCscCols<float>, LOOPS_TRANSPOSE_CSC_PARAMS(float),
                      (col_offsets, scattered, csr_offsets, csr_values, row_indices, values))
LOOPS_SEGSORT_ENTRIES(csc_f64, LoopsCscCols<double>, LOOPS_TRANSPOSE_CSC_PARAMS(double),
                      (col_offsets, scattered, csr_offsets, csr_values, row_indices, values))

// Step 1. `counts` (cols entries) starts at 0.
extern "C" __global__ void __launch_bounds__(LOOPS_TRANSPOSE_BLOCK) loops_transpose_count(
    const int* __restrict__ indices, const unsigned int nnz, int* __restrict__ counts)
{
    for (unsigned long long e = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; e < nnz;
         e += (unsigned long long)gridDim.x * blockDim.x) {
        atomicAdd(&counts[indices[e]], 1);
    }
}

// The sum of the block's values `x` (one per thread), returned to every thread, and each thread's
// exclusive prefix within the block in `before`.
__device__ __forceinline__ int loops_transpose_block_scan(const int x, int& before)
{
    __shared__ int warp_sums[LOOPS_TRANSPOSE_SUMS_BLOCK / 32];
    __shared__ int total;
    const unsigned int lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    int inclusive = x;
#pragma unroll
    for (unsigned int d = 1u; d < 32u; d <<= 1) {
        const int below = __shfl_up_sync(0xffffffffu, inclusive, d);
        if (lane >= d) inclusive += below;
    }
    if (lane == 31u) warp_sums[warp] = inclusive;
    __syncthreads();
    if (warp == 0u) {
        const unsigned int warps = blockDim.x >> 5;
        const int w = lane < warps ? warp_sums[lane] : 0;
        int w_inclusive = w;
#pragma unroll
        for (unsigned int d = 1u; d < 32u; d <<= 1) {
            const int below = __shfl_up_sync(0xffffffffu, w_inclusive, d);
            if (lane >= d) w_inclusive += below;
        }
        if (lane < warps) warp_sums[lane] = w_inclusive - w;
        if (lane == 31u) total = w_inclusive;
    }
    __syncthreads();
    before = warp_sums[warp] + inclusive - x;
    const int sum = total;
    // The shared sums are rewritten by the next call.
    __syncthreads();
    return sum;
}

// Step 2a: the sum of each tile of LOOPS_TRANSPOSE_TILE counts.
extern "C" __global__ void __launch_bounds__(LOOPS_TRANSPOSE_BLOCK) loops_transpose_tile_sums(
    const int* __restrict__ counts, const unsigned int n, int* __restrict__ tile_sums)
{
    const unsigned long long base = (unsigned long long)blockIdx.x * LOOPS_TRANSPOSE_TILE;
    int sum = 0;
#pragma unroll
    for (int r = 0; r < LOOPS_TRANSPOSE_ITEMS; ++r) {
        const unsigned long long i = base + (unsigned long long)(r * LOOPS_TRANSPOSE_BLOCK) + threadIdx.x;
        if (i < n) sum += counts[i];
    }
    int before;
    const int total = loops_transpose_block_scan(sum, before);
    if (threadIdx.x == 0u) tile_sums[blockIdx.x] = total;
}

// Step 2b, one block: the tile sums replaced by their exclusive prefix sum.
extern "C" __global__ void __launch_bounds__(LOOPS_TRANSPOSE_SUMS_BLOCK) loops_transpose_scan_sums(
    int* __restrict__ tile_sums, const unsigned int tiles)
{
    int carry = 0;
    for (unsigned int base = 0u; base < tiles; base += LOOPS_TRANSPOSE_SUMS_BLOCK) {
        const unsigned int i = base + threadIdx.x;
        const int x = i < tiles ? tile_sums[i] : 0;
        int before;
        const int total = loops_transpose_block_scan(x, before);
        if (i < tiles) tile_sums[i] = carry + before;
        carry += total;
    }
}

// Step 2c: each tile's counts scanned from the tile's prefix: col_offsets[c + 1] (the inclusive
// sum; col_offsets[0] = 0) and cursors[c] = col_offsets[c]. Thread t takes the tile's items
// t * ITEMS .. (t + 1) * ITEMS, in order.
extern "C" __global__ void __launch_bounds__(LOOPS_TRANSPOSE_BLOCK) loops_transpose_scan_apply(
    const int* __restrict__ counts, const unsigned int n, const int* __restrict__ tile_sums,
    int* __restrict__ col_offsets, int* __restrict__ cursors)
{
    const unsigned long long base =
        (unsigned long long)blockIdx.x * LOOPS_TRANSPOSE_TILE + (unsigned long long)threadIdx.x * LOOPS_TRANSPOSE_ITEMS;
    int mine[LOOPS_TRANSPOSE_ITEMS];
    int sum = 0;
#pragma unroll
    for (int r = 0; r < LOOPS_TRANSPOSE_ITEMS; ++r) {
        mine[r] = base + r < n ? counts[base + r] : 0;
        sum += mine[r];
    }
    int before;
    loops_transpose_block_scan(sum, before);
    int running = tile_sums[blockIdx.x] + before;
#pragma unroll
    for (int r = 0; r < LOOPS_TRANSPOSE_ITEMS; ++r) {
        if (base + r < n) {
            cursors[base + r] = running;
            running += mine[r];
            col_offsets[base + r + 1] = running;
        }
    }
    if (blockIdx.x == 0u && threadIdx.x == 0u) col_offsets[0] = 0;
}

// The last row starting at or before entry e, searched in rows lo..=hi (offsets[lo] <= e is
// known; offsets[rows] = nnz > e).
__device__ __forceinline__ unsigned int loops_transpose_row_of(
    const int* __restrict__ offsets, unsigned int lo, unsigned int hi, const unsigned long long e)
{
    while (lo < hi) {
        const unsigned int mid = lo + (hi - lo + 1u) / 2u;
        if ((unsigned long long)offsets[mid] <= e) lo = mid;
        else hi = mid - 1u;
    }
    return lo;
}

// Step 3: entry e of row r writes its key (r, e - start of r) at a slot of its column. Each thread
// takes LOOPS_TRANSPOSE_ITEMS consecutive entries: one search of the row offsets for the first,
// then the rows followed along (a search again past the end of a row, which skips any run of
// empty rows at once).
extern "C" __global__ void __launch_bounds__(LOOPS_TRANSPOSE_BLOCK) loops_transpose_scatter(
    const int* __restrict__ offsets, const unsigned int rows, const int* __restrict__ indices,
    const unsigned int nnz, int* __restrict__ cursors, loops_key* __restrict__ keys)
{
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x * LOOPS_TRANSPOSE_ITEMS;
    for (unsigned long long first =
             ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) * LOOPS_TRANSPOSE_ITEMS;
         first < nnz; first += stride) {
        unsigned int row = loops_transpose_row_of(offsets, 0u, rows, first);
        const unsigned long long last = min(first + LOOPS_TRANSPOSE_ITEMS, (unsigned long long)nnz);
        for (unsigned long long e = first; e < last; ++e) {
            if ((unsigned long long)offsets[row + 1] <= e) row = loops_transpose_row_of(offsets, row + 1u, rows, e);
            const int slot = atomicAdd(&cursors[indices[e]], 1);
            keys[slot] = ((loops_key)row << 32) | (loops_key)(e - (unsigned long long)offsets[row]);
        }
    }
}

// What an upload counts on the host of a tile set's sizes (formats::tile_sizes), counted here from
// the column offsets so that they need not be read back: `state` (zeroed, LOOPS_TRANSPOSE_STATS_LEN
// slots) gets the log2 size histogram (LRB bins), then the empty columns, the columns of one entry,
// the longest column and the longest run of empty columns. A run is measured by its first column:
// a search for the first offset past its own (the offsets never decrease).
#define LOOPS_TRANSPOSE_STATS_BINS 32
#define LOOPS_TRANSPOSE_STATS_LEN (LOOPS_TRANSPOSE_STATS_BINS + 4)
extern "C" __global__ void __launch_bounds__(LOOPS_TRANSPOSE_BLOCK) loops_transpose_stats(
    const int* __restrict__ col_offsets, const unsigned int cols, unsigned int* __restrict__ state)
{
    __shared__ unsigned int local[LOOPS_TRANSPOSE_STATS_LEN];
    for (unsigned int i = threadIdx.x; i < LOOPS_TRANSPOSE_STATS_LEN; i += blockDim.x) local[i] = 0u;
    __syncthreads();
    const unsigned int empty = LOOPS_TRANSPOSE_STATS_BINS, ones = empty + 1u, longest = empty + 2u,
                       run = empty + 3u;
    for (unsigned int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += gridDim.x * blockDim.x) {
        const int at = col_offsets[c];
        const unsigned int size = (unsigned int)(col_offsets[c + 1u] - at);
        atomicAdd(&local[loops_segsort_bin(size)], 1u);
        atomicMax(&local[longest], size);
        if (size == 1u) atomicAdd(&local[ones], 1u);
        if (size == 0u) {
            atomicAdd(&local[empty], 1u);
            if (c == 0u || col_offsets[c - 1u] != at) {
                // Columns c .. j - 2 are empty, j the first offset index past c with a larger offset.
                unsigned int lo = c + 1u, hi = cols + 1u;
                while (lo < hi) {
                    const unsigned int mid = lo + (hi - lo) / 2u;
                    if (col_offsets[mid] > at) hi = mid;
                    else lo = mid + 1u;
                }
                atomicMax(&local[run], lo - 1u - c);
            }
        }
    }
    __syncthreads();
    for (unsigned int i = threadIdx.x; i < LOOPS_TRANSPOSE_STATS_LEN; i += blockDim.x) {
        if (local[i] == 0u) continue;
        if (i < longest) atomicAdd(&state[i], local[i]);
        else atomicMax(&state[i], local[i]);
    }
}

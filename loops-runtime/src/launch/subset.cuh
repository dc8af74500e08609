// loops for Rust: prefix sum of a tile subset's sizes (loops-runtime/src/launch/subset.cuh).
#define LOOPS_CHUNK 2048

// Item i: tile list[i] (tile i without a list). Its size, or with mdt > 0 its pieces of at most
// mdt atoms (at least one: an empty tile's epilogue still runs); 0 for an id outside the set.
template <typename Id>
static __device__ __forceinline__ long long loops_listed_size(
    const int* __restrict__ offsets, const long long tiles, const Id* __restrict__ list, const long long i,
    const long long mdt)
{
    const unsigned long long v = list ? (unsigned long long)(long long)list[i] : (unsigned long long)i;
    if (v >= (unsigned long long)tiles) return 0ll;
    const long long size = offsets[v + 1] - offsets[v];
    return mdt > 0 ? max(1ll, (size + mdt - 1) / mdt) : size;
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
    const long long mdt, long long* __restrict__ sums)
{
    __shared__ long long warp_sums[8];
    const long long base = (long long)blockIdx.x * LOOPS_CHUNK;
    long long s = 0;
#pragma unroll
    for (int r = 0; r < 8; ++r) {
        const long long i = base + r * 256 + threadIdx.x;
        if (i < n) s += loops_listed_size(offsets, tiles, list, i, mdt);
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
    const long long mdt, const long long* __restrict__ sums, const long long chunks, int* __restrict__ out)
{
    __shared__ long long warp_totals[8];
    const long long base = (long long)blockIdx.x * LOOPS_CHUNK + threadIdx.x * 8;
    long long before[8];
    long long s = 0;
#pragma unroll
    for (int r = 0; r < 8; ++r) {
        before[r] = s;
        if (base + r < n) s += loops_listed_size(offsets, tiles, list, base + r, mdt);
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

// The sizes of a subset's tiles, for `schedule = "auto"`'s choice over it: out[0] += atoms,
// out[1] = max(out[1], longest), out[2] += empty tiles, out[3 + b] += tiles of log2 bin b (`lrb`'s
// bins: ceil(log2(size)), 0 for sizes 0 and 1). `out` is zeroed first; the grid strides.
template <typename Id>
static __device__ __forceinline__ void loops_subset_stats(
    const int* __restrict__ offsets, const long long tiles, const Id* __restrict__ list, const long long n,
    unsigned long long* __restrict__ out)
{
    __shared__ unsigned long long bins[32];
    if (threadIdx.x < 32) bins[threadIdx.x] = 0;
    __syncthreads();
    unsigned long long atoms = 0, longest = 0, empty = 0;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const unsigned long long size = (unsigned long long)loops_listed_size(offsets, tiles, list, i, 0ll);
        atoms += size;
        longest = max(longest, size);
        empty += size == 0 ? 1ull : 0ull;
        atomicAdd(&bins[size <= 1 ? 0 : 64 - __clzll((long long)(size - 1))], 1ull);
    }
    for (int o = 16; o > 0; o >>= 1) {
        atoms += __shfl_xor_sync(0xffffffffu, atoms, o);
        empty += __shfl_xor_sync(0xffffffffu, empty, o);
        longest = max(longest, __shfl_xor_sync(0xffffffffu, longest, o));
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&out[0], atoms);
        atomicMax(&out[1], longest);
        atomicAdd(&out[2], empty);
    }
    __syncthreads();
    if (threadIdx.x < 32 && bins[threadIdx.x] > 0) atomicAdd(&out[3 + threadIdx.x], bins[threadIdx.x]);
}

#define LOOPS_SUBSET_ENTRIES(Id, suffix)                                                              \
    extern "C" __global__ void __launch_bounds__(256) loops_subset_chunk_sums_##suffix(               \
        const int* __restrict__ offsets, const long long tiles, const Id* __restrict__ list,           \
        const long long n, const long long mdt, long long* __restrict__ sums)                           \
    {                                                                                                   \
        loops_chunk_sums<Id>(offsets, tiles, list, n, mdt, sums);                                      \
    }                                                                                                   \
    extern "C" __global__ void __launch_bounds__(256) loops_subset_offsets_##suffix(                  \
        const int* __restrict__ offsets, const long long tiles, const Id* __restrict__ list,           \
        const long long n, const long long mdt, const long long* __restrict__ sums,                    \
        const long long chunks, int* __restrict__ out)                                                  \
    {                                                                                                   \
        loops_offsets<Id>(offsets, tiles, list, n, mdt, sums, chunks, out);                            \
    }                                                                                                   \
    extern "C" __global__ void __launch_bounds__(256) loops_subset_stats_##suffix(                    \
        const int* __restrict__ offsets, const long long tiles, const Id* __restrict__ list,           \
        const long long n, unsigned long long* __restrict__ out)                                        \
    {                                                                                                   \
        loops_subset_stats<Id>(offsets, tiles, list, n, out);                                          \
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

// loops for Rust: logarithmic radix binning (loops-runtime/src/launch/binning.cuh).
#define LOOPS_BINS 32
#define LOOPS_BIN_BLOCK 256
#define LOOPS_BIN_ITEMS 4
#define LOOPS_BIN_WARPS (LOOPS_BIN_BLOCK / 32)
// The state buffer: per-bin counts, per-bin cursors, then the BINS + 1 bin starts.
#define LOOPS_BIN_COUNTS 0
#define LOOPS_BIN_CURSORS 32
#define LOOPS_BIN_STARTS 64

// ceil(log2(size)), 0 for sizes 0 and 1 (kernels_gen::schedule::lrb::bin_of). A negative size
// (decreasing offsets) is bin 0; a size beyond i32::MAX (two i32 offsets can be 2^32 - 1 apart)
// is clamped to the last bin, so a bin is always a valid index.
__device__ __forceinline__ unsigned int loops_bin_of_size(const long long size)
{
    if (size <= 1) return 0u;
    const unsigned int b = 64u - (unsigned int)__clzll((unsigned long long)(size - 1));
    return b < (unsigned int)(LOOPS_BINS - 1) ? b : (unsigned int)(LOOPS_BINS - 1);
}

// The bins of the LOOPS_BIN_ITEMS items of this thread in the round starting at `base`: items
// base + k * LOOPS_BIN_BLOCK + threadIdx.x (coalesced), LOOPS_BINS for those past the chunk's end.
// Item i is tile i, or tile list[i]; an id is sign-extended to 64 bits and compared as unsigned
// with the tile count, so negative and out-of-range ids are size 0 (bin 0). The loads go in two
// waves (all ids, then all offsets), so that a thread has several loads in flight at once.
template <bool kList, typename Id>
__device__ __forceinline__ void loops_bin_round(
    const int* __restrict__ offsets, const unsigned long long tiles, const Id* __restrict__ list,
    const unsigned long long base, const unsigned long long end, unsigned int (&bins)[LOOPS_BIN_ITEMS])
{
    unsigned long long tile[LOOPS_BIN_ITEMS];
#pragma unroll
    for (int k = 0; k < LOOPS_BIN_ITEMS; ++k) {
        const unsigned long long i = base + (unsigned long long)(k * LOOPS_BIN_BLOCK) + threadIdx.x;
        tile[k] = i >= end ? ~0ull : kList ? (unsigned long long)(long long)list[i] : i;
    }
    long long size[LOOPS_BIN_ITEMS];
#pragma unroll
    for (int k = 0; k < LOOPS_BIN_ITEMS; ++k) {
        size[k] = tile[k] < tiles ? (long long)offsets[tile[k] + 1] - (long long)offsets[tile[k]] : 0ll;
    }
#pragma unroll
    for (int k = 0; k < LOOPS_BIN_ITEMS; ++k) {
        const unsigned long long i = base + (unsigned long long)(k * LOOPS_BIN_BLOCK) + threadIdx.x;
        bins[k] = i < end ? loops_bin_of_size(size[k]) : (unsigned int)LOOPS_BINS;
    }
}

// Step 1: block b counts the items of its chunk [b * chunk, (b + 1) * chunk) into a shared
// histogram, then adds its non-zero bins to the global counts. Within a warp the lanes of one bin
// are counted by one shared atomic (__match_any_sync), since most items share a few bins.
template <bool kList, typename Id>
__device__ __forceinline__ void loops_bin_count(
    const int* __restrict__ offsets, const unsigned long long tiles, const Id* __restrict__ list,
    const unsigned int n, const unsigned long long chunk, unsigned int* __restrict__ state)
{
    __shared__ unsigned int hist[LOOPS_BINS];
    const unsigned int lane = threadIdx.x & 31u;
    if (threadIdx.x < LOOPS_BINS) hist[threadIdx.x] = 0u;
    __syncthreads();
    const unsigned long long begin = (unsigned long long)blockIdx.x * chunk;
    const unsigned long long end = min(begin + chunk, (unsigned long long)n);
    // begin and end are the block's, so every thread runs every round (full-warp intrinsics).
    for (unsigned long long base = begin; base < end; base += LOOPS_BIN_BLOCK * LOOPS_BIN_ITEMS) {
        unsigned int bins[LOOPS_BIN_ITEMS];
        loops_bin_round<kList, Id>(offsets, tiles, list, base, end, bins);
#pragma unroll
        for (int k = 0; k < LOOPS_BIN_ITEMS; ++k) {
            const unsigned int peers = __match_any_sync(0xffffffffu, bins[k]);
            if (bins[k] < LOOPS_BINS && lane == (unsigned int)(__ffs(peers) - 1)) {
                atomicAdd(&hist[bins[k]], (unsigned int)__popc(peers));
            }
        }
    }
    __syncthreads();
    if (threadIdx.x < LOOPS_BINS && hist[threadIdx.x] != 0u) {
        atomicAdd(&state[LOOPS_BIN_COUNTS + threadIdx.x], hist[threadIdx.x]);
    }
}

// Step 2, one warp: the exclusive scan of the counts (a shuffle scan), written as the bin starts
// (with the total last) and as the initial cursors.
extern "C" __global__ void __launch_bounds__(32) loops_bin_scan(unsigned int* __restrict__ state)
{
    const unsigned int lane = threadIdx.x;
    const unsigned int count = state[LOOPS_BIN_COUNTS + lane];
    unsigned int inclusive = count;
#pragma unroll
    for (unsigned int d = 1u; d < 32u; d <<= 1) {
        const unsigned int below = __shfl_up_sync(0xffffffffu, inclusive, d);
        if (lane >= d) inclusive += below;
    }
    state[LOOPS_BIN_STARTS + lane] = inclusive - count;
    state[LOOPS_BIN_CURSORS + lane] = inclusive - count;
    if (lane == 31u) state[LOOPS_BIN_STARTS + LOOPS_BINS] = inclusive;
}

// Step 3: each item's position is its bin's cursor, advanced by one atomic per bin and block round:
// within a warp the lanes of one bin take consecutive ranks (__match_any_sync, then the lanes
// below in the group), the warps' counts per bin are scanned in shared memory, and one thread per
// bin reserves the round's slots of that bin with an atomicAdd on its cursor.
template <bool kList, typename Id>
__device__ __forceinline__ void loops_bin_scatter(
    const int* __restrict__ offsets, const unsigned long long tiles, const Id* __restrict__ list,
    const unsigned int n, const unsigned long long chunk, unsigned int* __restrict__ state,
    unsigned int* __restrict__ order)
{
    // warp_counts[w][b]: the items of warp w in bin b this round, then (after the scan) the slots
    // of bin b taken by the warps before w. block_base[b]: the round's first slot of bin b.
    __shared__ unsigned int warp_counts[LOOPS_BIN_WARPS][LOOPS_BINS];
    __shared__ unsigned int block_base[LOOPS_BINS];
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned int lanes_below = (1u << lane) - 1u;
    const unsigned long long begin = (unsigned long long)blockIdx.x * chunk;
    const unsigned long long end = min(begin + chunk, (unsigned long long)n);
    for (unsigned long long base = begin; base < end; base += LOOPS_BIN_BLOCK * LOOPS_BIN_ITEMS) {
        unsigned int bins[LOOPS_BIN_ITEMS];
        unsigned int rank[LOOPS_BIN_ITEMS];
        loops_bin_round<kList, Id>(offsets, tiles, list, base, end, bins);
        // Each lane clears one bin of its warp's row (the last round's readers are past the
        // __syncthreads that ends it).
        warp_counts[warp][lane] = 0u;
        __syncwarp();
#pragma unroll
        for (int k = 0; k < LOOPS_BIN_ITEMS; ++k) {
            const unsigned int peers = __match_any_sync(0xffffffffu, bins[k]);
            const unsigned int leader = (unsigned int)(__ffs(peers) - 1);
            unsigned int before = 0u;
            if (lane == leader && bins[k] < LOOPS_BINS) {
                before = warp_counts[warp][bins[k]];
                warp_counts[warp][bins[k]] = before + (unsigned int)__popc(peers);
            }
            rank[k] = __shfl_sync(0xffffffffu, before, leader) + (unsigned int)__popc(peers & lanes_below);
            // The next k's leader of this bin reads the count just written.
            __syncwarp();
        }
        __syncthreads();
        if (threadIdx.x < LOOPS_BINS) {
            const unsigned int b = threadIdx.x;
            unsigned int total = 0u;
#pragma unroll
            for (int w = 0; w < LOOPS_BIN_WARPS; ++w) {
                const unsigned int c = warp_counts[w][b];
                warp_counts[w][b] = total;
                total += c;
            }
            block_base[b] = total != 0u ? atomicAdd(&state[LOOPS_BIN_CURSORS + b], total) : 0u;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < LOOPS_BIN_ITEMS; ++k) {
            if (bins[k] < LOOPS_BINS) {
                const unsigned int pos = block_base[bins[k]] + warp_counts[warp][bins[k]] + rank[k];
                // Always true when count and scatter agree (they bin the same items alike); the
                // test keeps a write inside `order` even if the offsets changed in between.
                if (pos < n) order[pos] = (unsigned int)(base + (unsigned long long)(k * LOOPS_BIN_BLOCK) + threadIdx.x);
            }
        }
        // The next round rewrites warp_counts and block_base.
        __syncthreads();
    }
}

// The tile ids of a subset in bin order: ids[k] = list[order[k]], or 0xffffffff (never a tile:
// tile counts are below 2^31) for an id outside the set, which 32 bits could not hold.
template <typename ID>
static __device__ __forceinline__ void loops_bin_gather(
    const unsigned long long tiles, const ID* __restrict__ list, const unsigned int* __restrict__ order,
    const unsigned int n, unsigned int* __restrict__ ids)
{
    for (unsigned long long k = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; k < n;
         k += (unsigned long long)gridDim.x * blockDim.x) {
        const unsigned long long v = (unsigned long long)(long long)list[order[k]];
        ids[k] = v < tiles ? (unsigned int)v : 0xffffffffu;
    }
}

// The entry points: SUFFIX names the id type of the list (`tiles`: no list, item i is tile i).
#define LOOPS_BIN_ENTRIES(SUFFIX, LIST, ID)                                                        \
    extern "C" __global__ void __launch_bounds__(LOOPS_BIN_BLOCK) loops_bin_count_##SUFFIX(      \
        const int* __restrict__ offsets, const unsigned long long tiles,                           \
        const ID* __restrict__ list, const unsigned int n, const unsigned long long chunk,         \
        unsigned int* __restrict__ state)                                                          \
    {                                                                                              \
        loops_bin_count<LIST, ID>(offsets, tiles, list, n, chunk, state);                          \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(LOOPS_BIN_BLOCK) loops_bin_scatter_##SUFFIX(    \
        const int* __restrict__ offsets, const unsigned long long tiles,                           \
        const ID* __restrict__ list, const unsigned int n, const unsigned long long chunk,         \
        unsigned int* __restrict__ state, unsigned int* __restrict__ order)                        \
    {                                                                                              \
        loops_bin_scatter<LIST, ID>(offsets, tiles, list, n, chunk, state, order);                 \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(LOOPS_BIN_BLOCK) loops_bin_gather_##SUFFIX(     \
        const unsigned long long tiles, const ID* __restrict__ list,                               \
        const unsigned int* __restrict__ order, const unsigned int n, unsigned int* __restrict__ ids) \
    {                                                                                              \
        loops_bin_gather<ID>(tiles, list, order, n, ids);                                          \
    }

LOOPS_BIN_ENTRIES(tiles, false, unsigned int)
LOOPS_BIN_ENTRIES(i32, true, int)
LOOPS_BIN_ENTRIES(u32, true, unsigned int)
LOOPS_BIN_ENTRIES(i64, true, long long)
LOOPS_BIN_ENTRIES(u64, true, unsigned long long)

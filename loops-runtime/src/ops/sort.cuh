// loops for Rust: segmented sort (loops-runtime/src/ops/sort.cuh).
//
// Each segment (a CSR row, or a CSC column during a transpose) is sorted by a 64-bit key that is
// unique within the segment: the sort value in the high 32 bits, and in the low 32 bits the
// entry's position (in its row). Unique keys make every sorting network stable: equal sort values
// keep the order of their positions. The keys alone are sorted; each entry's value is fetched
// once at the end, by the position its key carries.
//
// Segments are grouped by length beforehand (the LRB bins of loops-runtime/src/launch/binning.cuh,
// bin b holding lengths 2^(b-1)+1 ..= 2^b) and each bin is one launch of the kernel for its size:
//   bins 1..=5   (2..32 entries)    a group of 2^b lanes, one key per lane, bitonic by shuffles;
//   bins 6..=12  (33..4096)         a block, 2^b keys in shared memory, bitonic;
//   bins 13..    (longer)           chunks of 4096 sorted as above into a key buffer, then merge
//                                   passes between two key buffers (merge path, tiles in shared
//                                   memory), then the keys written out.
// A policy (CsrRows, or CscCols in transpose.cuh) says where a segment is, how its keys are
// formed, and where sorted entries go.
//
// With LOOPS_SEGSORT_CORE_ONLY defined (the transpose's source), only the templates are included.

#define LOOPS_SEGSORT_CHUNK 4096
#define LOOPS_SEGSORT_CHUNK_LOG2 12
#define LOOPS_SEGSORT_WARP_BLOCK 256
#define LOOPS_SEGSORT_LONG_BLOCK 256
// Keys a block of a merge pass makes at a time, and each of its threads.
#define LOOPS_SEGSORT_MERGE_ITEMS 8
#define LOOPS_SEGSORT_MERGE_TILE 2048

typedef unsigned long long loops_key;

// Past every real key: a real key's low half is a position below 2^31.
#define LOOPS_SEGSORT_PAD (~0ull)

__device__ __forceinline__ unsigned int loops_key_high(const loops_key k) { return (unsigned int)(k >> 32); }
__device__ __forceinline__ unsigned int loops_key_low(const loops_key k) { return (unsigned int)k; }

// ceil(log2(len)) for len >= 2 (the LRB bin of a segment of that length).
__device__ __forceinline__ unsigned int loops_segsort_bin(const unsigned int len)
{
    return len <= 1u ? 0u : 32u - (unsigned int)__clz(len - 1u);
}

// A group of G lanes (a power of two, at most 32) sorts its G keys ascending, lane i ending with
// the i-th smallest. All 32 lanes of the warp must call it (shuffles over the full mask).
template <int G>
__device__ __forceinline__ loops_key loops_segsort_group(loops_key key, const unsigned int lane_in_group)
{
#pragma unroll
    for (int k = 2; k <= G; k <<= 1) {
#pragma unroll
        for (int j = k >> 1; j > 0; j >>= 1) {
            const loops_key other = __shfl_xor_sync(0xffffffffu, key, j, G);
            // The lower lane of a pair keeps the smaller key in an ascending run, the larger in a
            // descending one.
            const bool lower = (lane_in_group & (unsigned int)j) == 0u;
            const bool ascending = (lane_in_group & (unsigned int)k) == 0u;
            const loops_key lo = key < other ? key : other;
            const loops_key hi = key < other ? other : key;
            key = (lower == ascending) ? lo : hi;
        }
    }
    return key;
}

// The block's T threads sort the N keys of `s` (shared, N a power of two, N >= 2 T) ascending.
// Starts and ends with every thread past a barrier.
template <int N, int T>
__device__ __forceinline__ void loops_segsort_shared(loops_key* s)
{
    __syncthreads();
#pragma unroll 1
    for (unsigned int k = 2; k <= (unsigned int)N; k <<= 1) {
#pragma unroll 1
        for (unsigned int j = k >> 1; j > 0; j >>= 1) {
#pragma unroll
            for (int r = 0; r < N / 2 / T; ++r) {
                const unsigned int p = threadIdx.x + (unsigned int)(r * T);
                // The p-th pair: i has bit j clear, its partner is i + j.
                const unsigned int i = ((p & ~(j - 1u)) << 1) | (p & (j - 1u));
                const unsigned int l = i | j;
                const loops_key a = s[i];
                const loops_key b = s[l];
                const bool ascending = (i & k) == 0u;
                if ((a > b) == ascending) {
                    s[i] = b;
                    s[l] = a;
                }
            }
            __syncthreads();
        }
    }
}

// Segments of up to G entries (LRB bins 0..=5), G lanes each: `count` segments, the ids
// order[first .. first + count). Every lane fetches its entry's value before any lane stores
// (the __syncwarp between), so a policy may store over what it reads.
template <int G, typename P>
__device__ __forceinline__ void loops_segsort_warp(
    const P& p, const unsigned int* __restrict__ order, const unsigned int first, const unsigned int count,
    const unsigned int block)
{
    const unsigned int lane_in_group = threadIdx.x & (unsigned int)(G - 1);
    const unsigned long long slot = ((unsigned long long)block * blockDim.x + threadIdx.x) / (unsigned int)G;
    unsigned int start = 0u, len = 0u;
    if (slot < count) {
        const unsigned int seg = order[first + slot];
        start = p.start(seg);
        len = p.end(seg) - start;
    }
    // A segment longer than G (a bin this launch is not for) is left alone: never in a correct plan.
    if (len > (unsigned int)G) len = 0u;
    const bool mine = lane_in_group < len;
    loops_key key = mine ? p.key(start, lane_in_group) : LOOPS_SEGSORT_PAD;
    key = loops_segsort_group<G>(key, lane_in_group);
    typename P::value_type v;
    if (mine) v = p.fetch(start, key);
    __syncwarp();
    if (mine) p.store(start, lane_in_group, key, v);
}

// The blocks of LRB bin b (G = 2^b lanes a segment, `count` segments) in a launch of every group
// bin: ceil(count G / LOOPS_SEGSORT_WARP_BLOCK).
__device__ __forceinline__ unsigned int loops_segsort_group_blocks(const unsigned int count, const unsigned int b)
{
    return (unsigned int)((((unsigned long long)count << b) + LOOPS_SEGSORT_WARP_BLOCK - 1ull) / LOOPS_SEGSORT_WARP_BLOCK);
}

// Every group bin from `first_bin` (0 or 1) to 5 in one launch (short segments cost a launch per
// bin otherwise, more than their sort on small matrices): the blocks of bin first_bin come first,
// then those of the next bin, and so on; bin b's segments are order[starts[b] .. starts[b + 1]).
// A block's bin is uniform, so its warps shuffle in groups of one size.
template <typename P>
__device__ __forceinline__ void loops_segsort_groups(
    const P& p, const unsigned int* __restrict__ order, const unsigned int first_bin,
    const unsigned int s0, const unsigned int s1, const unsigned int s2, const unsigned int s3,
    const unsigned int s4, const unsigned int s5, const unsigned int s6)
{
    const unsigned int starts[7] = {s0, s1, s2, s3, s4, s5, s6};
    unsigned int block = blockIdx.x;
#pragma unroll
    for (unsigned int b = 0u; b <= 5u; ++b) {
        if (b < first_bin) continue;
        const unsigned int count = starts[b + 1u] - starts[b];
        const unsigned int blocks = loops_segsort_group_blocks(count, b);
        if (block < blocks) {
            switch (b) {
            case 0u: loops_segsort_warp<1>(p, order, starts[b], count, block); break;
            case 1u: loops_segsort_warp<2>(p, order, starts[b], count, block); break;
            case 2u: loops_segsort_warp<4>(p, order, starts[b], count, block); break;
            case 3u: loops_segsort_warp<8>(p, order, starts[b], count, block); break;
            case 4u: loops_segsort_warp<16>(p, order, starts[b], count, block); break;
            default: loops_segsort_warp<32>(p, order, starts[b], count, block); break;
            }
            return;
        }
        block -= blocks;
    }
}

// One segment of up to N entries (LRB bins 6..=12) per block of T threads.
template <int N, int T, typename P>
__device__ __forceinline__ void loops_segsort_block(
    const P& p, const unsigned int* __restrict__ order, const unsigned int first)
{
    __shared__ loops_key s[N];
    const unsigned int seg = order[first + blockIdx.x];
    const unsigned int start = p.start(seg);
    unsigned int len = p.end(seg) - start;
    if (len > (unsigned int)N) len = 0u;
#pragma unroll
    for (int r = 0; r < N / T; ++r) {
        const unsigned int i = threadIdx.x + (unsigned int)(r * T);
        s[i] = i < len ? p.key(start, i) : LOOPS_SEGSORT_PAD;
    }
    loops_segsort_shared<N, T>(s);
    typename P::value_type v[N / T];
#pragma unroll
    for (int r = 0; r < N / T; ++r) {
        const unsigned int k = threadIdx.x + (unsigned int)(r * T);
        if (k < len) v[r] = p.fetch(start, s[k]);
    }
    // Every fetch is done before any store (a policy may store over what it reads).
    __syncthreads();
#pragma unroll
    for (int r = 0; r < N / T; ++r) {
        const unsigned int k = threadIdx.x + (unsigned int)(r * T);
        if (k < len) p.store(start, k, s[k], v[r]);
    }
}

// Long segments (LRB bins 13 and up), step 1: `per_segment` blocks per segment sort its chunks of
// LOOPS_SEGSORT_CHUNK entries into `keys` (at the segment's own positions), and let the policy
// save what the last step reads (`p.save`).
template <typename P>
__device__ __forceinline__ void loops_segsort_chunks(
    const P& p, const unsigned int* __restrict__ order, const unsigned int first,
    const unsigned int per_segment, loops_key* keys)
{
    __shared__ loops_key s[LOOPS_SEGSORT_CHUNK];
    const unsigned int seg = order[first + blockIdx.x / per_segment];
    const unsigned int part = blockIdx.x % per_segment;
    const unsigned int start = p.start(seg);
    const unsigned int len = p.end(seg) - start;
    for (unsigned int i = part * LOOPS_SEGSORT_LONG_BLOCK + threadIdx.x; i < len;
         i += per_segment * LOOPS_SEGSORT_LONG_BLOCK) {
        p.save(start, i);
    }
    for (unsigned int base = part * LOOPS_SEGSORT_CHUNK; base < len; base += per_segment * LOOPS_SEGSORT_CHUNK) {
        const unsigned int chunk_len = min(len - base, (unsigned int)LOOPS_SEGSORT_CHUNK);
#pragma unroll
        for (int r = 0; r < LOOPS_SEGSORT_CHUNK / LOOPS_SEGSORT_LONG_BLOCK; ++r) {
            const unsigned int i = threadIdx.x + (unsigned int)(r * LOOPS_SEGSORT_LONG_BLOCK);
            s[i] = i < chunk_len ? p.key(start, base + i) : LOOPS_SEGSORT_PAD;
        }
        loops_segsort_shared<LOOPS_SEGSORT_CHUNK, LOOPS_SEGSORT_LONG_BLOCK>(s);
#pragma unroll
        for (int r = 0; r < LOOPS_SEGSORT_CHUNK / LOOPS_SEGSORT_LONG_BLOCK; ++r) {
            const unsigned int i = threadIdx.x + (unsigned int)(r * LOOPS_SEGSORT_LONG_BLOCK);
            if (i < chunk_len) keys[start + base + i] = s[i];
        }
        // The next chunk refills `s`.
        __syncthreads();
    }
}

// How many keys of A are among the first `diag` keys of the merge of the sorted A and B (na and
// nb keys; unique keys, so no tie): the merge path's crossing of diagonal `diag`.
__device__ __forceinline__ unsigned long long loops_segsort_merge_path(
    const loops_key* a, const unsigned long long na, const loops_key* b, const unsigned long long nb,
    const unsigned long long diag)
{
    unsigned long long lo = diag > nb ? diag - nb : 0ull;
    unsigned long long hi = diag < na ? diag : na;
    while (lo < hi) {
        const unsigned long long mid = (lo + hi) >> 1;
        if (a[mid] < b[diag - 1ull - mid]) lo = mid + 1ull;
        else hi = mid;
    }
    return lo;
}

// Long segments, step 2 (one launch per pass): the sorted runs of `width` keys of `from` are
// merged in pairs into runs of 2 width in `to`. A block makes LOOPS_SEGSORT_MERGE_TILE keys of a
// merged run at a time (tiles never straddle two pairs: 2 width is a multiple of the tile): the
// merge path gives the ranges of the two runs that make them, which are loaded into shared
// memory; each thread then finds where its LOOPS_SEGSORT_MERGE_ITEMS outputs start in them (the
// merge path again) and merges them one by one. A run with no partner is copied.
__device__ __forceinline__ void loops_segsort_merge(
    const int* __restrict__ seg_offsets, const unsigned int* __restrict__ order, const unsigned int first,
    const unsigned int per_segment, const unsigned long long width, const loops_key* __restrict__ from,
    loops_key* __restrict__ to)
{
    __shared__ loops_key tile[LOOPS_SEGSORT_MERGE_TILE];
    const unsigned int seg = order[first + blockIdx.x / per_segment];
    const unsigned int part = blockIdx.x % per_segment;
    const unsigned long long start = (unsigned long long)seg_offsets[seg];
    const unsigned long long len = (unsigned long long)seg_offsets[seg + 1] - start;
    // Block-uniform: every thread runs every tile (barriers inside).
    for (unsigned long long out0 = (unsigned long long)part * LOOPS_SEGSORT_MERGE_TILE; out0 < len;
         out0 += (unsigned long long)per_segment * LOOPS_SEGSORT_MERGE_TILE) {
        const unsigned long long out1 = min(out0 + LOOPS_SEGSORT_MERGE_TILE, len);
        const unsigned long long pair_start = out0 / (2ull * width) * (2ull * width);
        const unsigned long long a_end = min(pair_start + width, len);
        const unsigned long long b_end = min(pair_start + 2ull * width, len);
        const loops_key* a = from + start + pair_start;
        const loops_key* b = from + start + a_end;
        const unsigned long long na = a_end - pair_start, nb = b_end - a_end;
        // The tile's keys come from a[a0..a1) and b[b0..b1).
        const unsigned long long d0 = out0 - pair_start, d1 = out1 - pair_start;
        const unsigned long long a0 = loops_segsort_merge_path(a, na, b, nb, d0);
        const unsigned long long a1 = loops_segsort_merge_path(a, na, b, nb, d1);
        const unsigned int tile_a = (unsigned int)(a1 - a0);
        const unsigned int tile_len = (unsigned int)(d1 - d0);
        const unsigned long long b0 = d0 - a0;
        for (unsigned int i = threadIdx.x; i < tile_len; i += LOOPS_SEGSORT_LONG_BLOCK) {
            tile[i] = i < tile_a ? a[a0 + i] : b[b0 + (i - tile_a)];
        }
        __syncthreads();
        const unsigned int k0 = min(threadIdx.x * LOOPS_SEGSORT_MERGE_ITEMS, tile_len);
        unsigned int ak = (unsigned int)loops_segsort_merge_path(tile, tile_a, tile + tile_a, tile_len - tile_a, k0);
        unsigned int bk = k0 - ak;
        const unsigned int tile_b = tile_len - tile_a;
#pragma unroll
        for (unsigned int r = 0; r < LOOPS_SEGSORT_MERGE_ITEMS; ++r) {
            const unsigned int k = k0 + r;
            if (k < tile_len) {
                const bool take_a = ak < tile_a && (bk >= tile_b || tile[ak] < tile[tile_a + bk]);
                const loops_key key = take_a ? tile[ak] : tile[tile_a + bk];
                if (take_a) ++ak;
                else ++bk;
                to[start + out0 + k] = key;
            }
        }
        // The next tile refills `tile`.
        __syncthreads();
    }
}

// Long segments, step 3: the sorted keys are written out through the policy. A segment of LRB bin
// b went through b - 12 merge passes, which leave its keys in `even` (an even count) or `odd`.
template <typename P>
__device__ __forceinline__ void loops_segsort_finish(
    const P& p, const unsigned int* __restrict__ order, const unsigned int first,
    const unsigned int per_segment, const loops_key* __restrict__ even, const loops_key* __restrict__ odd)
{
    const unsigned int seg = order[first + blockIdx.x / per_segment];
    const unsigned int part = blockIdx.x % per_segment;
    const unsigned int start = p.start(seg);
    const unsigned int len = p.end(seg) - start;
    const unsigned int passes = loops_segsort_bin(len) - LOOPS_SEGSORT_CHUNK_LOG2;
    const loops_key* __restrict__ keys = (passes & 1u) ? odd : even;
    for (unsigned int k = part * LOOPS_SEGSORT_LONG_BLOCK + threadIdx.x; k < len;
         k += per_segment * LOOPS_SEGSORT_LONG_BLOCK) {
        const loops_key key = keys[start + k];
        p.store(start, k, key, p.fetch_saved(start, key));
    }
}

// The merge pass takes only the segments' offsets: one entry point for every policy.
extern "C" __global__ void __launch_bounds__(LOOPS_SEGSORT_LONG_BLOCK) loops_segsort_merge_pass(
    const int* __restrict__ seg_offsets, const unsigned int* __restrict__ order, const unsigned int first,
    const unsigned int per_segment, const unsigned long long width, const loops_key* __restrict__ from,
    loops_key* __restrict__ to)
{
    loops_segsort_merge(seg_offsets, order, first, per_segment, width, from, to);
}

// The entry points of a policy P, named loops_segsort_<kind>_<NAME>: a group kernel per G in
// 1..32, a block kernel per N in 64..4096 (T = min(N / 2, 256) threads), the chunk sort and the
// finish of long segments. PARAMS: the policy's own kernel parameters, in parentheses (they hold
// commas); ARGS: how its constructor takes them, in parentheses.
#define LOOPS_SEGSORT_UNPAREN(...) __VA_ARGS__
#define LOOPS_SEGSORT_GROUP_ENTRY(NAME, P, PARAMS, ARGS, G)                                          \
    extern "C" __global__ void __launch_bounds__(LOOPS_SEGSORT_WARP_BLOCK) loops_segsort_group##G##_##NAME( \
        LOOPS_SEGSORT_UNPAREN PARAMS, const unsigned int* __restrict__ order, const unsigned int first, const unsigned int count) \
    {                                                                                              \
        loops_segsort_warp<G>(P ARGS, order, first, count, blockIdx.x);                              \
    }
#define LOOPS_SEGSORT_BLOCK_ENTRY(NAME, P, PARAMS, ARGS, N, T)                                       \
    extern "C" __global__ void __launch_bounds__(T) loops_segsort_block##N##_##NAME(                 \
        LOOPS_SEGSORT_UNPAREN PARAMS, const unsigned int* __restrict__ order, const unsigned int first)                   \
    {                                                                                              \
        loops_segsort_block<N, T>(P ARGS, order, first);                                             \
    }
#define LOOPS_SEGSORT_ENTRIES(NAME, P, PARAMS, ARGS)                                                 \
    extern "C" __global__ void __launch_bounds__(LOOPS_SEGSORT_WARP_BLOCK) loops_segsort_groups_##NAME( \
        LOOPS_SEGSORT_UNPAREN PARAMS, const unsigned int* __restrict__ order, const unsigned int first_bin, \
        const unsigned int s0, const unsigned int s1, const unsigned int s2, const unsigned int s3,   \
        const unsigned int s4, const unsigned int s5, const unsigned int s6)                         \
    {                                                                                              \
        loops_segsort_groups(P ARGS, order, first_bin, s0, s1, s2, s3, s4, s5, s6);                  \
    }                                                                                              \
    LOOPS_SEGSORT_GROUP_ENTRY(NAME, P, PARAMS, ARGS, 1)                                              \
    LOOPS_SEGSORT_GROUP_ENTRY(NAME, P, PARAMS, ARGS, 2)                                              \
    LOOPS_SEGSORT_GROUP_ENTRY(NAME, P, PARAMS, ARGS, 4)                                              \
    LOOPS_SEGSORT_GROUP_ENTRY(NAME, P, PARAMS, ARGS, 8)                                              \
    LOOPS_SEGSORT_GROUP_ENTRY(NAME, P, PARAMS, ARGS, 16)                                             \
    LOOPS_SEGSORT_GROUP_ENTRY(NAME, P, PARAMS, ARGS, 32)                                             \
    LOOPS_SEGSORT_BLOCK_ENTRY(NAME, P, PARAMS, ARGS, 64, 32)                                         \
    LOOPS_SEGSORT_BLOCK_ENTRY(NAME, P, PARAMS, ARGS, 128, 64)                                        \
    LOOPS_SEGSORT_BLOCK_ENTRY(NAME, P, PARAMS, ARGS, 256, 128)                                       \
    LOOPS_SEGSORT_BLOCK_ENTRY(NAME, P, PARAMS, ARGS, 512, 256)                                       \
    LOOPS_SEGSORT_BLOCK_ENTRY(NAME, P, PARAMS, ARGS, 1024, 256)                                      \
    LOOPS_SEGSORT_BLOCK_ENTRY(NAME, P, PARAMS, ARGS, 2048, 256)                                      \
    LOOPS_SEGSORT_BLOCK_ENTRY(NAME, P, PARAMS, ARGS, 4096, 256)                                      \
    extern "C" __global__ void __launch_bounds__(LOOPS_SEGSORT_LONG_BLOCK) loops_segsort_chunks_##NAME( \
        LOOPS_SEGSORT_UNPAREN PARAMS, const unsigned int* __restrict__ order, const unsigned int first,                   \
        const unsigned int per_segment, loops_key* sorted_chunks)                                    \
    {                                                                                              \
        loops_segsort_chunks(P ARGS, order, first, per_segment, sorted_chunks);                      \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(LOOPS_SEGSORT_LONG_BLOCK) loops_segsort_finish_##NAME( \
        LOOPS_SEGSORT_UNPAREN PARAMS, const unsigned int* __restrict__ order, const unsigned int first,                   \
        const unsigned int per_segment, const loops_key* __restrict__ even,                          \
        const loops_key* __restrict__ odd)                                                           \
    {                                                                                              \
        loops_segsort_finish(P ARGS, order, first, per_segment, even, odd);                          \
    }

#ifndef LOOPS_SEGSORT_CORE_ONLY

// The rows of a CSR matrix, sorted in place by column. The key of entry i of a row is
// (column, i). Values are fetched from `source` by position: the matrix's own values for short
// and medium rows (every fetch precedes every store of the row, see the kernels), and for long
// rows a copy (`saved`, made by the chunk step), since other blocks store into the same row.
template <typename T>
struct LoopsCsrRows {
    typedef T value_type;
    const int* __restrict__ offsets;
    int* __restrict__ indices;
    T* __restrict__ values;
    T* __restrict__ saved;
    __device__ __forceinline__ LoopsCsrRows(const int* o, int* i, T* v, T* s)
        : offsets(o), indices(i), values(v), saved(s) {}
    __device__ __forceinline__ unsigned int start(const unsigned int row) const { return (unsigned int)offsets[row]; }
    __device__ __forceinline__ unsigned int end(const unsigned int row) const { return (unsigned int)offsets[row + 1]; }
    __device__ __forceinline__ loops_key key(const unsigned int start, const unsigned int i) const
    {
        return ((loops_key)(unsigned int)indices[start + i] << 32) | (loops_key)i;
    }
    __device__ __forceinline__ T fetch(const unsigned int start, const loops_key k) const
    {
        return values[start + loops_key_low(k)];
    }
    __device__ __forceinline__ void save(const unsigned int start, const unsigned int i) const
    {
        saved[start + i] = values[start + i];
    }
    __device__ __forceinline__ T fetch_saved(const unsigned int start, const loops_key k) const
    {
        return saved[start + loops_key_low(k)];
    }
    __device__ __forceinline__ void store(const unsigned int start, const unsigned int k, const loops_key key, const T v) const
    {
        indices[start + k] = (int)loops_key_high(key);
        values[start + k] = v;
    }
};

#define LOOPS_SEGSORT_CSR_PARAMS(T)                                                                  \
    (const int* __restrict__ offsets, int* __restrict__ indices, T* __restrict__ values,             \
     T* __restrict__ saved)
LOOPS_SEGSORT_ENTRIES(csr_f32, LoopsCsrRows<float>, LOOPS_SEGSORT_CSR_PARAMS(float), (offsets, indices, values, saved))
LOOPS_SEGSORT_ENTRIES(csr_f64, LoopsCsrRows<double>, LOOPS_SEGSORT_CSR_PARAMS(double), (offsets, indices, values, saved))

#endif

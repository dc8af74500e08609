// loops for Rust: C = A B for a CSR matrix A and a dense row-major B (loops-runtime/src/ops/spmm.cuh).
//
// B is cols x k and C rows x k, both row-major. A row of B (and of C) is read as `kv = k / V`
// vectors of V elements (16-byte float4/double2 loads where k allows; see spmm.rs for how V is
// picked), so that the lanes that share a nonzero read consecutive vectors of one row of B.
//
// A *group* of G = GK * GN lanes (a power of two, at most a warp; its lanes are consecutive lanes
// of one warp) works on one run of nonzeros of one row. Lane `l` of a group is lane `kl = l % GK`
// over k and lane `nl = l / GK` over the nonzeros:
// - the group reads the run's (column, value) pairs G at a time, one per lane (coalesced), and
//   hands them around with shuffles; sub-lane `nl` takes the pairs nl, nl + GN, ...;
// - for each pair, lane `kl` reads the vectors kl, kl + GK, ... (VPL of them: a k tile of GK * VPL
//   vectors kept in registers) of B's row and accumulates them;
// - the GN partial sums of each vector are then added with an xor-shuffle reduction and written
//   by the lanes with `nl == 0`.
// k wider than one tile repeats the run once per tile (the pairs come from L1/L2 the second time).
//
// `rows` kernels: one group per row, every row of C stored once (no zeroing first). With a cap
// `piece > 0` a row longer than `piece` is only done for its first `piece` nonzeros, and the
// `tails` kernel, launched after it, adds the rest with atomics: its group `c - 1` takes the
// nonzeros [c * piece, (c + 1) * piece) and does the part of them past the first `piece` of their
// row. Only the row holding nonzero `c * piece - 1` can have such a part (a row whose tail reaches
// into the piece started at least `piece` nonzeros before it), so a group does at most one run
// and finds its row with one binary search. Long rows thus get `length / piece` groups while short
// rows keep the cheap `rows` path.

template <typename T, int V>
struct alignas(sizeof(T) * V) LoopsSpmmVec {
    T v[V];
};

// The lanes of the calling lane's group of `group_lanes` (a power of two up to 32) in its warp.
static __device__ __forceinline__ unsigned int loops_spmm_group_mask(const unsigned int group_lanes)
{
    if (group_lanes >= 32u) return 0xffffffffu;
    const unsigned int lane = threadIdx.x & 31u;
    return ((1u << group_lanes) - 1u) << (lane & ~(group_lanes - 1u));
}

// The largest row `r < rows` with `offsets[r] <= nz`: the row holding nonzero `nz < nnz` (empty rows
// before it share its start and are skipped).
static __device__ __forceinline__ int loops_spmm_row_of(
    const int* __restrict__ offsets, const int rows, const int nz)
{
    int lo = 0;
    int hi = rows - 1;
    while (lo < hi) {
        const int mid = lo + (hi - lo + 1) / 2;
        if (offsets[mid] <= nz) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

// Where a group is: its lane numbers and shape (all powers of two).
struct LoopsSpmmLanes {
    unsigned int mask;      // the group's lanes in the warp
    unsigned int group;     // G
    unsigned int lane;      // 0..G
    unsigned int gk;        // lanes over k
    unsigned int gn;        // lanes over nonzeros
    unsigned int log_gn;    // log2 of the lanes over nonzeros
    unsigned int kl;        // this lane's place over k
    unsigned int nl;        // this lane's place over the nonzeros
};

static __device__ __forceinline__ LoopsSpmmLanes loops_spmm_lanes(
    const unsigned int log_gk, const unsigned int log_gn)
{
    LoopsSpmmLanes g;
    g.group = 1u << (log_gk + log_gn);
    g.mask = loops_spmm_group_mask(g.group);
    g.lane = threadIdx.x & (g.group - 1u);
    g.gk = 1u << log_gk;
    g.gn = 1u << log_gn;
    g.log_gn = log_gn;
    g.kl = g.lane & (g.gk - 1u);
    g.nl = g.lane >> log_gk;
    return g;
}

// acc = the sums over the nonzeros [begin, end) of value * B[col] for this lane's vectors of the k
// tile starting at vector `tile`, added over the group's sub-lanes (every lane of the group ends with
// the totals). Called by every lane of the group with the same arguments but `acc`.
template <typename T, int V, int VPL>
static __device__ __forceinline__ void loops_spmm_run(
    const int* __restrict__ indices, const T* __restrict__ values,
    const LoopsSpmmVec<T, V>* __restrict__ b, const unsigned int kv, const int begin,
    const int end, const unsigned int tile, const LoopsSpmmLanes& g, T (&acc)[VPL][V])
{
#pragma unroll
    for (int p = 0; p < VPL; ++p) {
#pragma unroll
        for (int e = 0; e < V; ++e) acc[p][e] = T(0);
    }
    // 64-bit positions: `base + group` may pass i32::MAX when `end` is near it.
    for (long long base = begin; base < end; base += g.group) {
        const long long mine = base + g.lane;
        int col = 0;
        T val = T(0);
        if (mine < end) {
            col = indices[mine];
            val = values[mine];
        }
        const int n = (int)min((long long)end - base, (long long)g.group);
        const int rounds = (n + (int)g.gn - 1) >> g.log_gn;
#pragma unroll 4
        for (int j = 0; j < rounds; ++j) {
            const int src = (j << g.log_gn) + (int)g.nl;
            const int c = __shfl_sync(g.mask, col, src, g.group);
            const T v = __shfl_sync(g.mask, val, src, g.group);
            if (src < n) {
                const LoopsSpmmVec<T, V>* __restrict__ row = b + (size_t)c * kv;
#pragma unroll
                for (int p = 0; p < VPL; ++p) {
                    const unsigned int vi = tile + g.kl + (unsigned int)p * g.gk;
                    if (vi < kv) {
                        const LoopsSpmmVec<T, V> x = row[vi];
#pragma unroll
                        for (int e = 0; e < V; ++e) acc[p][e] += v * x.v[e];
                    }
                }
            }
        }
    }
    for (unsigned int off = g.gk; off < g.group; off <<= 1) {
#pragma unroll
        for (int p = 0; p < VPL; ++p) {
#pragma unroll
            for (int e = 0; e < V; ++e) acc[p][e] += __shfl_xor_sync(g.mask, acc[p][e], off, g.group);
        }
    }
}

// One group per row: C's row is stored once, tile by tile. With `piece > 0` only a row's first
// `piece` nonzeros (the `tails` kernel adds the rest).
template <typename T, int V, int VPL>
static __device__ __forceinline__ void loops_spmm_rows(
    const int rows, const int* __restrict__ offsets, const int* __restrict__ indices,
    const T* __restrict__ values, const T* __restrict__ b, T* __restrict__ c,
    const unsigned int kv, const unsigned int log_gk, const unsigned int log_gn, const int piece)
{
    const LoopsSpmmLanes g = loops_spmm_lanes(log_gk, log_gn);
    const unsigned long long thread = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long row = thread >> (log_gk + log_gn);
    if (row >= (unsigned long long)rows) return;  // the whole group leaves together
    const int begin = offsets[row];
    int end = offsets[row + 1];
    if (piece > 0) end = (int)min((long long)end, (long long)begin + piece);
    const LoopsSpmmVec<T, V>* bv = reinterpret_cast<const LoopsSpmmVec<T, V>*>(b);
    LoopsSpmmVec<T, V>* out = reinterpret_cast<LoopsSpmmVec<T, V>*>(c) + (size_t)row * kv;
    for (unsigned int tile = 0; tile < kv; tile += g.gk * VPL) {
        T acc[VPL][V];
        loops_spmm_run<T, V, VPL>(indices, values, bv, kv, begin, end, tile, g, acc);
        if (g.nl != 0u) continue;
#pragma unroll
        for (int p = 0; p < VPL; ++p) {
            const unsigned int vi = tile + g.kl + (unsigned int)p * g.gk;
            if (vi < kv) {
                LoopsSpmmVec<T, V> y;
#pragma unroll
                for (int e = 0; e < V; ++e) y.v[e] = acc[p][e];
                out[vi] = y;
            }
        }
    }
}

// Group `c - 1` adds the nonzeros of [c * piece, (c + 1) * piece) that lie past the first `piece`
// of their row (see the header), with atomics onto what the capped `rows` kernel stored.
template <typename T, int V, int VPL>
static __device__ __forceinline__ void loops_spmm_tails(
    const int rows, const int nnz, const int* __restrict__ offsets,
    const int* __restrict__ indices, const T* __restrict__ values, const T* __restrict__ b,
    T* __restrict__ c, const unsigned int kv, const unsigned int log_gk,
    const unsigned int log_gn, const int piece)
{
    const LoopsSpmmLanes g = loops_spmm_lanes(log_gk, log_gn);
    const unsigned long long thread = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long first =
        ((thread >> (log_gk + log_gn)) + 1ull) * (unsigned long long)piece;
    if (first >= (unsigned long long)nnz) return;  // the whole group leaves together
    const int row = loops_spmm_row_of(offsets, rows, (int)first - 1);
    const long long row_begin = offsets[row];
    const long long row_end = offsets[row + 1];
    const long long from = max((long long)first, row_begin + piece);
    const long long to = min(row_end, (long long)first + piece);
    if (from >= to) return;  // no tail here: the whole group leaves together
    const LoopsSpmmVec<T, V>* bv = reinterpret_cast<const LoopsSpmmVec<T, V>*>(b);
    LoopsSpmmVec<T, V>* out = reinterpret_cast<LoopsSpmmVec<T, V>*>(c) + (size_t)row * kv;
    for (unsigned int tile = 0; tile < kv; tile += g.gk * VPL) {
        T acc[VPL][V];
        loops_spmm_run<T, V, VPL>(indices, values, bv, kv, (int)from, (int)to, tile, g, acc);
        if (g.nl != 0u) continue;
#pragma unroll
        for (int p = 0; p < VPL; ++p) {
            const unsigned int vi = tile + g.kl + (unsigned int)p * g.gk;
            if (vi >= kv) continue;
#pragma unroll
            for (int e = 0; e < V; ++e) atomicAdd(&out[vi].v[e], acc[p][e]);
        }
    }
}

// Zeroes `words` 4-byte words at `c` (C of a matrix with no nonzeros).
extern "C" __global__ void __launch_bounds__(256) loops_spmm_zero_words(
    unsigned int* __restrict__ c, const unsigned long long words)
{
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < words;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        c[i] = 0u;
    }
}

// The entry points: loops_spmm_{rows,tails}_{f32,f64}_v{V}_t{VPL}, all with the same parameters
// (a `rows` kernel ignores `nnz`). Launched with blocks of 256 threads.
#define LOOPS_SPMM_ENTRIES(T, NAME, V, VPL)                                                        \
    extern "C" __global__ void __launch_bounds__(256) loops_spmm_rows_##NAME##_v##V##_t##VPL(      \
        const int rows, const int nnz, const int* __restrict__ offsets,                            \
        const int* __restrict__ indices, const T* __restrict__ values, const T* __restrict__ b,    \
        T* __restrict__ c, const unsigned int kv, const unsigned int log_gk,                       \
        const unsigned int log_gn, const int piece)                                                \
    {                                                                                              \
        (void)nnz;                                                                                 \
        loops_spmm_rows<T, V, VPL>(rows, offsets, indices, values, b, c, kv, log_gk, log_gn,       \
                                   piece);                                                         \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(256) loops_spmm_tails_##NAME##_v##V##_t##VPL(     \
        const int rows, const int nnz, const int* __restrict__ offsets,                            \
        const int* __restrict__ indices, const T* __restrict__ values, const T* __restrict__ b,    \
        T* __restrict__ c, const unsigned int kv, const unsigned int log_gk,                       \
        const unsigned int log_gn, const int piece)                                                \
    {                                                                                              \
        loops_spmm_tails<T, V, VPL>(rows, nnz, offsets, indices, values, b, c, kv, log_gk,         \
                                    log_gn, piece);                                                \
    }

LOOPS_SPMM_ENTRIES(float, f32, 1, 1)
LOOPS_SPMM_ENTRIES(float, f32, 1, 2)
LOOPS_SPMM_ENTRIES(float, f32, 1, 4)
LOOPS_SPMM_ENTRIES(float, f32, 2, 1)
LOOPS_SPMM_ENTRIES(float, f32, 2, 2)
LOOPS_SPMM_ENTRIES(float, f32, 2, 4)
LOOPS_SPMM_ENTRIES(float, f32, 4, 1)
LOOPS_SPMM_ENTRIES(float, f32, 4, 2)
LOOPS_SPMM_ENTRIES(float, f32, 4, 4)
LOOPS_SPMM_ENTRIES(double, f64, 1, 1)
LOOPS_SPMM_ENTRIES(double, f64, 1, 2)
LOOPS_SPMM_ENTRIES(double, f64, 1, 4)
LOOPS_SPMM_ENTRIES(double, f64, 2, 1)
LOOPS_SPMM_ENTRIES(double, f64, 2, 2)
LOOPS_SPMM_ENTRIES(double, f64, 2, 4)

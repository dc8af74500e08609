// loops for Rust: the sampled dense-dense product (loops-runtime/src/ops/sddmm.cuh):
// out[nz] = sum_j x[row * k + j] * y[col * k + j] at every stored entry (row, col) of a CSR matrix.
//
// x is rows x k and y cols x k, row-major, read as `kv = k / V` vectors of V elements (16-byte
// loads where k allows; see sddmm.rs). Each warp takes a piece of `piece` consecutive nonzeros and
// splits into groups of GK lanes (a power of two): group `s` takes the piece's nonzeros s, s + 32/GK,
// ..., so the warp reads 32/GK consecutive column indices and writes 32/GK consecutive outputs at a
// time. Lane `kl` of a group reads the vectors kl, kl + GK, ... of the two rows and keeps a partial
// dot product; an xor-shuffle reduction over the group's lanes gives the sum, which lane 0 writes.
// The row of each nonzero comes from one binary search per warp, then each group steps forward
// through the offsets (its nonzeros only increase); consecutive nonzeros of a row read the same
// row of x, which stays in L1.

template <typename T, int V>
struct alignas(sizeof(T) * V) LoopsSddmmVec {
    T v[V];
};

// The largest row `r < rows` with `offsets[r] <= nz` (the row holding nonzero `nz < nnz`).
static __device__ __forceinline__ int loops_sddmm_row_of(
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

template <typename T, int V>
static __device__ __forceinline__ void loops_sddmm(
    const int rows, const int nnz, const int* __restrict__ offsets,
    const int* __restrict__ indices, const T* __restrict__ x, const T* __restrict__ y,
    T* __restrict__ out, const unsigned int kv, const unsigned int log_gk, const int piece)
{
    const unsigned long long thread = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long first = (thread >> 5) * (unsigned long long)piece;
    if (first >= (unsigned long long)nnz) return;  // the whole warp leaves together
    const int piece_begin = (int)first;
    const int piece_end = (int)min(first + (unsigned long long)piece, (unsigned long long)nnz);
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int gk = 1u << log_gk;
    const int groups = (int)(32u >> log_gk);
    const int group = (int)(lane >> log_gk);
    const unsigned int kl = lane & (gk - 1u);
    const LoopsSddmmVec<T, V>* xv = reinterpret_cast<const LoopsSddmmVec<T, V>*>(x);
    const LoopsSddmmVec<T, V>* yv = reinterpret_cast<const LoopsSddmmVec<T, V>*>(y);
    int row = loops_sddmm_row_of(offsets, rows, piece_begin);
    // The same trip count on every lane of the warp, so that the reduction's shuffles see all of
    // them; lanes past the piece's end compute nothing and write nothing.
    // 64-bit positions: `base + groups` may pass i32::MAX when `piece_end` is near it.
    for (long long base = piece_begin; base < piece_end; base += groups) {
        const bool active = base + group < piece_end;
        const int nz = active ? (int)(base + group) : 0;
        T partial = T(0);
        if (active) {
            while (offsets[row + 1] <= nz) ++row;
            const int col = indices[nz];
            const LoopsSddmmVec<T, V>* __restrict__ xr = xv + (size_t)row * kv;
            const LoopsSddmmVec<T, V>* __restrict__ yr = yv + (size_t)col * kv;
#pragma unroll 2
            for (unsigned int vi = kl; vi < kv; vi += gk) {
                const LoopsSddmmVec<T, V> a = xr[vi];
                const LoopsSddmmVec<T, V> bb = yr[vi];
#pragma unroll
                for (int e = 0; e < V; ++e) partial += a.v[e] * bb.v[e];
            }
        }
        for (unsigned int off = gk >> 1; off > 0u; off >>= 1) {
            partial += __shfl_xor_sync(0xffffffffu, partial, off);
        }
        if (active && kl == 0u) out[nz] = partial;
    }
}

// The entry points loops_sddmm_{f32,f64}_v{V}, launched with blocks of 256 threads.
#define LOOPS_SDDMM_ENTRY(T, NAME, V)                                                               \
    extern "C" __global__ void __launch_bounds__(256) loops_sddmm_##NAME##_v##V(                   \
        const int rows, const int nnz, const int* __restrict__ offsets,                            \
        const int* __restrict__ indices, const T* __restrict__ x, const T* __restrict__ y,         \
        T* __restrict__ out, const unsigned int kv, const unsigned int log_gk, const int piece)    \
    {                                                                                              \
        loops_sddmm<T, V>(rows, nnz, offsets, indices, x, y, out, kv, log_gk, piece);              \
    }

LOOPS_SDDMM_ENTRY(float, f32, 1)
LOOPS_SDDMM_ENTRY(float, f32, 2)
LOOPS_SDDMM_ENTRY(float, f32, 4)
LOOPS_SDDMM_ENTRY(double, f64, 1)
LOOPS_SDDMM_ENTRY(double, f64, 2)

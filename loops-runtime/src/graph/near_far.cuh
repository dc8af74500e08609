// loops for Rust: near-far SSSP's bucket advance and the relaxed-edge count
// (loops-runtime/src/graph/near_far.cuh).

// The bucket advance: each vertex flagged in `far` whose distance is below `below` leaves the far
// pile; it goes to the near flags if its distance is at least `settled` (below that it was relaxed
// from its final distance already). The others stay far: their count is added to `counts[1]` and
// their smallest distance min-ed into `counts[2]` (`counts[0]` is the compaction's). Grid-stride.
extern "C" __global__ void __launch_bounds__(256) loops_near_far_split(
    unsigned int* __restrict__ far, unsigned int* __restrict__ near,
    const unsigned int* __restrict__ dist, const unsigned int n, const unsigned int settled,
    const unsigned int below, unsigned int* __restrict__ counts)
{
    unsigned int left = 0u;
    unsigned int lowest = 0xffffffffu;
    for (unsigned long long i = (unsigned long long)blockIdx.x * 256ull + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * 256ull) {
        if (far[i] == 0u) continue;
        const unsigned int d = dist[i];
        if (d < below) {
            far[i] = 0u;
            if (d >= settled) near[i] = 1u;
        } else {
            ++left;
            lowest = min(lowest, d);
        }
    }
    // Every lane reaches here (the loop only skips iterations).
    for (int offset = 16; offset > 0; offset >>= 1) {
        left += __shfl_down_sync(0xffffffffu, left, offset);
        lowest = min(lowest, __shfl_down_sync(0xffffffffu, lowest, offset));
    }
    if ((threadIdx.x & 31u) == 0u && left != 0u) {
        atomicAdd(&counts[1], left);
        atomicMin(&counts[2], lowest);
    }
}

// The out-degrees of the frontier's `len` vertices, added to `*total`.
template <typename Offset>
static __device__ __forceinline__ void loops_add_frontier_degrees(
    const unsigned int* __restrict__ frontier, const unsigned int len,
    const Offset* __restrict__ offsets, unsigned long long* __restrict__ total)
{
    unsigned long long sum = 0ull;
    for (unsigned long long i = (unsigned long long)blockIdx.x * 256ull + threadIdx.x; i < len;
         i += (unsigned long long)gridDim.x * 256ull) {
        const unsigned int v = frontier[i];
        sum += (unsigned long long)(offsets[v + 1] - offsets[v]);
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    }
    if ((threadIdx.x & 31u) == 0u && sum != 0ull) atomicAdd(total, sum);
}

extern "C" __global__ void __launch_bounds__(256) loops_frontier_degrees(
    const unsigned int* __restrict__ frontier, const unsigned int len,
    const int* __restrict__ offsets, unsigned long long* __restrict__ total)
{
    loops_add_frontier_degrees(frontier, len, offsets, total);
}

// The same over the 64-bit offsets of a graph of more than 2^31 - 1 edges.
extern "C" __global__ void __launch_bounds__(256) loops_frontier_degrees_wide(
    const unsigned int* __restrict__ frontier, const unsigned int len,
    const long long* __restrict__ offsets, unsigned long long* __restrict__ total)
{
    loops_add_frontier_degrees(frontier, len, offsets, total);
}

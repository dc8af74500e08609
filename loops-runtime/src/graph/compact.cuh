// loops for Rust: frontier compaction (loops-runtime/src/graph/compact.cuh).
extern "C" __global__ void __launch_bounds__(256) loops_compact_flags(
    unsigned int* __restrict__ flags, const unsigned int n, unsigned int* __restrict__ out,
    unsigned int* __restrict__ count)
{
    __shared__ unsigned int warp_base[8];
    __shared__ unsigned int block_base;
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    for (unsigned long long start = (unsigned long long)blockIdx.x * 256ull; start < n;
         start += (unsigned long long)gridDim.x * 256ull) {
        const unsigned long long i = start + threadIdx.x;
        unsigned int f = 0u;
        if (i < n) {
            f = flags[i];
            if (f != 0u) flags[i] = 0u;
        }
        const unsigned int ballot = __ballot_sync(0xffffffffu, f != 0u);
        if (lane == 0u) warp_base[warp] = __popc(ballot);
        __syncthreads();
        if (threadIdx.x == 0u) {
            unsigned int total = 0u;
            for (unsigned int w = 0u; w < 8u; ++w) {
                const unsigned int c = warp_base[w];
                warp_base[w] = total;
                total += c;
            }
            block_base = total != 0u ? atomicAdd(count, total) : 0u;
        }
        __syncthreads();
        if (f != 0u) {
            out[block_base + warp_base[warp] + __popc(ballot & ((1u << lane) - 1u))] = (unsigned int)i;
        }
        // warp_base and block_base are rewritten by the next round.
        __syncthreads();
    }
}

// loops for Rust: frontier compaction (loops-runtime/src/graph/compact.cuh).

// Appends the ids of the set flags among the first `n` to `out` at `*count`, clearing them: a warp
// ballot and a shared-memory scan per round of 256, one global atomic per round that found any.
// Called by every thread of a block of 256.
static __device__ __forceinline__ void loops_compact_rounds(
    unsigned int* __restrict__ flags, const unsigned int n, unsigned int* __restrict__ out,
    unsigned int* count)
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

// The host loop's compaction (`FrontierLoop`): the next frontier's size is counted at `*count`,
// which the host zeroes before and reads after.
extern "C" __global__ void __launch_bounds__(256) loops_compact_flags(
    unsigned int* __restrict__ flags, const unsigned int n, unsigned int* __restrict__ out,
    unsigned int* __restrict__ count)
{
    loops_compact_rounds(flags, n, out, count);
}

// One level's compaction in the device loop (`DeviceFrontierLoop`), where no host reads a count
// between levels. `state` holds the frontier sizes of three consecutive levels in turn: this
// level's at `state[current]` (what its step read), the next one's at `state[next]` (0, counted
// here), and `state[after]`, the previous level's, zeroed here for the level after next to count
// into. Nothing else of this launch touches `state[after]`, and no other slot is written by more
// than one thread, so no launch needs a barrier across blocks. Once a level's frontier is empty,
// every later level's step and compaction find size 0 and return at once.
// Then, by one thread, where this level's frontier was not empty: `state[3]` counts the levels
// run (written to `*level` too, the level the next step sees), `state[4]` and `state[5]` add up
// the frontiers' sizes (low and high halves of 64 bits), `state[6]` keeps the largest.
extern "C" __global__ void __launch_bounds__(256) loops_compact_level(
    unsigned int* __restrict__ flags, const unsigned int n, unsigned int* __restrict__ out,
    unsigned int* __restrict__ state, const unsigned int current, const unsigned int next,
    const unsigned int after, unsigned int* __restrict__ level)
{
    const unsigned int size = state[current];
    if (blockIdx.x == 0u && threadIdx.x == 0u) {
        state[after] = 0u;
        if (size != 0u) {
            const unsigned int levels = state[3] + 1u;
            state[3] = levels;
            *level = levels;
            const unsigned long long vertices =
                ((unsigned long long)state[5] << 32 | state[4]) + size;
            state[4] = (unsigned int)vertices;
            state[5] = (unsigned int)(vertices >> 32);
            if (size > state[6]) state[6] = size;
        }
    }
    if (size == 0u) return;
    loops_compact_rounds(flags, n, out, state + next);
}

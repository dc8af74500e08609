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

// The device loop's state (`device.rs` of the near_far room, where the slots are mirrored):
// three rotating slots each (a level's `current`, `next`, `after`, as in `loops_compact_level`)
// of the near frontier's size, and of what an advance at the previous level left: the far vertices
// still beyond its range, their smallest distance, and whether that level was an advance; then
// the counts.
#define LOOPS_NF_LEFT 3u
#define LOOPS_NF_MIN 6u
#define LOOPS_NF_ADVANCED 9u
#define LOOPS_NF_ROUNDS 12u
#define LOOPS_NF_ADVANCES 13u
#define LOOPS_NF_VERTICES 14u
#define LOOPS_NF_MAX_FRONTIER 16u
#define LOOPS_NF_DONE 17u
#define LOOPS_NF_LEVELS 18u

// The bucket advance to the range `lo..hi` in the device loop: each far vertex whose distance is
// below `hi` leaves the far pile, and is appended to `out` at `*count` if its distance is at least
// `lo` (below that it was relaxed from its final distance already: the drop rule of near_far.rs);
// the others stay far, their number added to `*left` and their smallest distance min-ed into
// `*lowest`. A warp ballot and a shared-memory scan per round of 256, as `loops_compact_rounds`.
// Called by every thread of a block of 256.
static __device__ __forceinline__ void loops_near_far_advance_rounds(
    unsigned int* __restrict__ far, const unsigned int* __restrict__ dist, const unsigned int n,
    const unsigned int lo, const unsigned int hi, unsigned int* __restrict__ out,
    unsigned int* count, unsigned int* left, unsigned int* lowest)
{
    __shared__ unsigned int warp_base[8];
    __shared__ unsigned int block_base;
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    unsigned int kept = 0u;
    unsigned int kept_min = 0xffffffffu;
    for (unsigned long long start = (unsigned long long)blockIdx.x * 256ull; start < n;
         start += (unsigned long long)gridDim.x * 256ull) {
        const unsigned long long i = start + threadIdx.x;
        bool take = false;
        if (i < n && far[i] != 0u) {
            const unsigned int d = dist[i];
            if (d < hi) {
                far[i] = 0u;
                take = d >= lo;
            } else {
                ++kept;
                kept_min = min(kept_min, d);
            }
        }
        const unsigned int ballot = __ballot_sync(0xffffffffu, take);
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
        if (take) {
            out[block_base + warp_base[warp] + __popc(ballot & ((1u << lane) - 1u))] = (unsigned int)i;
        }
        // warp_base and block_base are rewritten by the next round.
        __syncthreads();
    }
    // Every thread of the block leaves the loop after the same rounds.
    for (int offset = 16; offset > 0; offset >>= 1) {
        kept += __shfl_down_sync(0xffffffffu, kept, offset);
        kept_min = min(kept_min, __shfl_down_sync(0xffffffffu, kept_min, offset));
    }
    if (lane == 0u && kept != 0u) {
        atomicAdd(left, kept);
        atomicMin(lowest, kept_min);
    }
}

// `loops_compact_rounds` without the degrees, four flags per thread and round (one 16-byte load:
// `flags` is 16-byte aligned, as every allocation is): a round covers 1024 flags per block, so a
// scan of n flags on one wave of blocks takes a quarter of the rounds, each a load and two block
// barriers that the next round waits for. Called by every thread of a block of 256.
static __device__ __forceinline__ void loops_compact_rounds_x4(
    unsigned int* __restrict__ flags, const unsigned int n, unsigned int* __restrict__ out,
    unsigned int* count)
{
    __shared__ unsigned int warp_base[8];
    __shared__ unsigned int block_base;
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    for (unsigned long long start = (unsigned long long)blockIdx.x * 1024ull; start < n;
         start += (unsigned long long)gridDim.x * 1024ull) {
        const unsigned long long first = start + 4ull * threadIdx.x;
        unsigned int f[4] = {0u, 0u, 0u, 0u};
        if (first + 4ull <= n) {
            const uint4 v = *reinterpret_cast<const uint4*>(flags + first);
            f[0] = v.x; f[1] = v.y; f[2] = v.z; f[3] = v.w;
            if ((v.x | v.y | v.z | v.w) != 0u) {
                *reinterpret_cast<uint4*>(flags + first) = make_uint4(0u, 0u, 0u, 0u);
            }
        } else {
            for (unsigned int k = 0u; k < 4u; ++k) {
                if (first + k < n) {
                    f[k] = flags[first + k];
                    if (f[k] != 0u) flags[first + k] = 0u;
                }
            }
        }
        const unsigned int mine = (f[0] != 0u) + (f[1] != 0u) + (f[2] != 0u) + (f[3] != 0u);
        unsigned int below = mine;
        for (int offset = 1; offset < 32; offset <<= 1) {
            const unsigned int other = __shfl_up_sync(0xffffffffu, below, offset);
            if (lane >= (unsigned int)offset) below += other;
        }
        if (lane == 31u) warp_base[warp] = below;
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
        if (mine != 0u) {
            unsigned int at = block_base + warp_base[warp] + below - mine;
            for (unsigned int k = 0u; k < 4u; ++k) {
                if (f[k] != 0u) out[at++] = (unsigned int)(first + k);
            }
        }
        // warp_base and block_base are rewritten by the next round.
        __syncthreads();
    }
}

// One level of the device near-far loop, after the step over the near frontier of
// `state[current]` vertices under the bucket's end `*threshold`:
// - a round (the frontier was not empty): the near flags are compacted into `out`, counted at
//   `state[next]` (four flags per thread and round with `wide_scan`, else one), and the threshold
//   is kept (`*next_threshold`, the next level's);
// - a bucket advance (the frontier was empty, so the step did nothing): the far vertices in
//   `lo..hi` are appended to `out` (`loops_near_far_advance_rounds`), `lo` the threshold and `hi`
//   `lo + delta`, or, where the previous level was an advance that moved nothing but left far
//   vertices, their smallest distance plus delta (the jump past empty buckets); the threshold
//   becomes `hi`;
// - the end, where the previous level was an advance that moved nothing and left nothing, or
//   where the threshold is already `UNREACHED` (nothing can be far): `state[LOOPS_NF_DONE]` is set, and every later level returns at once (its frontier is empty).
// Every block decides the same from what earlier launches wrote (a uniform branch: the recorded
// levels are the same whatever they do). One thread zeroes the slots of `after` for the next level
// to count into, and keeps the counts; no other slot is written by more than one thread, and no
// slot this launch reads is written by it, so no barrier across blocks is needed.
extern "C" __global__ void __launch_bounds__(256) loops_near_far_level(
    unsigned int* __restrict__ near, unsigned int* __restrict__ far,
    const unsigned int* __restrict__ dist, const unsigned int n, unsigned int* __restrict__ out,
    unsigned int* __restrict__ state, const unsigned int current, const unsigned int next,
    const unsigned int after, const unsigned int* __restrict__ threshold,
    unsigned int* __restrict__ next_threshold, const unsigned int delta,
    const unsigned int wide_scan)
{
    loops_grid_dependency();
    if (state[LOOPS_NF_DONE] != 0u) return;
    const unsigned int size = state[current];
    const unsigned int lo = *threshold;
    const bool advance = size == 0u;
    bool finish = false;
    unsigned int hi = lo;
    if (advance && lo == 0xffffffffu) {
        // The bucket held every distance (delta "infinite": Bellman-Ford's rounds), so no round
        // flagged a vertex far: the run ends without an advance.
        finish = true;
    } else if (advance) {
        unsigned int from = lo;
        if (state[LOOPS_NF_ADVANCED + current] != 0u) {
            if (state[LOOPS_NF_LEFT + current] == 0u) {
                finish = true;
            } else {
                from = state[LOOPS_NF_MIN + current];
            }
        }
        hi = from + delta;
        if (hi < from) hi = 0xffffffffu;
    }
    if (blockIdx.x == 0u && threadIdx.x == 0u) {
        state[after] = 0u;
        state[LOOPS_NF_LEFT + after] = 0u;
        state[LOOPS_NF_MIN + after] = 0xffffffffu;
        state[LOOPS_NF_ADVANCED + after] = 0u;
        if (finish) {
            state[LOOPS_NF_DONE] = 1u;
        } else {
            *next_threshold = hi;
            state[LOOPS_NF_ADVANCED + next] = advance ? 1u : 0u;
            state[LOOPS_NF_LEVELS] += 1u;
            if (advance) {
                state[LOOPS_NF_ADVANCES] += 1u;
            } else {
                state[LOOPS_NF_ROUNDS] += 1u;
                const unsigned long long vertices =
                    ((unsigned long long)state[LOOPS_NF_VERTICES + 1u] << 32 | state[LOOPS_NF_VERTICES]) + size;
                state[LOOPS_NF_VERTICES] = (unsigned int)vertices;
                state[LOOPS_NF_VERTICES + 1u] = (unsigned int)(vertices >> 32);
                if (size > state[LOOPS_NF_MAX_FRONTIER]) state[LOOPS_NF_MAX_FRONTIER] = size;
            }
        }
    }
    if (finish) return;
    if (advance) {
        loops_near_far_advance_rounds(far, dist, n, lo, hi, out, state + next,
                                      state + LOOPS_NF_LEFT + next, state + LOOPS_NF_MIN + next);
    } else {
        if (wide_scan != 0u) {
            loops_compact_rounds_x4(near, n, out, state + next);
        } else {
            loops_compact_rounds(near, n, out, state + next, (const int*)nullptr, 0u, nullptr);
        }
    }
}

// The size of each of a warp's two head buffers in `loops_near_far_relax_rounds`: heads found
// past it are flagged near instead (relaxed the next round: correct, only later).
#define LOOPS_NF_HEADS 64u

// A round of near-far over the frontier `frontier[0..size)` under the threshold `t`, `hops` edges
// deep (1 to 3) through heads of at most `hop_degree` out-edges, with a head's edges spread over
// the lanes of its warp at every hop (where the step of `examples/kernels/sssp_near_far.rs` walks
// a head's edges, and theirs, in one lane: a chain of dependent reads as long as the edges).
// A warp takes `per_warp` (1 to 32) frontier vertices at a time, one per lane; each hop then
// spreads the edges of its heads (a warp prefix sum of their degrees) over the 32 lanes, 32 edges
// a pass: a lane reads its edge, the head's offsets and `atomicMin`s the distance at once. A head
// lowered to `t` or above is flagged far; one lowered below it becomes a head of the next hop if
// hops are left and it has at most `hop_degree` out-edges (none: nothing to relax), its offsets
// and distance kept in the warp's shared buffer, else it is flagged near. So every lowering is
// followed by a relaxation of the head's out-edges from the new distance, in this round or the
// next, or by a far flag: the drop rule of near_far.rs holds. Called by every thread of a block
// of 256; every loop is warp-uniform.
template <typename Offset>
static __device__ __forceinline__ void loops_near_far_relax_rounds(
    const Offset* __restrict__ offsets, const unsigned int* __restrict__ adj,
    const unsigned int* __restrict__ weights, const unsigned int* __restrict__ frontier,
    const unsigned int size, unsigned int* __restrict__ dist, unsigned int* __restrict__ near,
    unsigned int* __restrict__ far, const unsigned int t, const unsigned int hops,
    const unsigned int hop_degree, const unsigned int per_warp,
    unsigned long long* __restrict__ relaxed)
{
    __shared__ Offset head_begin[2][8][LOOPS_NF_HEADS];
    __shared__ unsigned int head_degree[2][8][LOOPS_NF_HEADS];
    __shared__ unsigned int head_dist[2][8][LOOPS_NF_HEADS];
    const unsigned int full = 0xffffffffu;
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned long long warps = (unsigned long long)gridDim.x * 8ull;
    for (unsigned long long first = ((unsigned long long)blockIdx.x * 8ull + warp) * per_warp;
         first < size; first += warps * per_warp) {
        unsigned int heads = (unsigned int)min((unsigned long long)per_warp, size - first);
        unsigned int buffer = 0u;
        unsigned long long edges = 0ull;
        for (unsigned int hop = 1u; heads != 0u; ++hop) {
            const bool last = hop >= hops;
            unsigned int found = 0u;
            for (unsigned int h = 0u; h < heads; h += 32u) {
                // This lane's head: its distance, first edge and degree.
                unsigned int dv = 0u, degree = 0u;
                Offset begin = 0;
                if (h + lane < heads) {
                    if (hop == 1u) {
                        const unsigned int v = frontier[first + h + lane];
                        dv = dist[v];
                        begin = offsets[v];
                        degree = (unsigned int)(offsets[v + 1] - begin);
                    } else {
                        dv = head_dist[buffer][warp][h + lane];
                        begin = head_begin[buffer][warp][h + lane];
                        degree = head_degree[buffer][warp][h + lane];
                    }
                }
                unsigned long long below = degree;
                for (int offset = 1; offset < 32; offset <<= 1) {
                    const unsigned long long other = __shfl_up_sync(full, below, offset);
                    if (lane >= (unsigned int)offset) below += other;
                }
                const unsigned long long total = __shfl_sync(full, below, 31);
                edges += total;
                for (unsigned long long pass = 0ull; pass < total; pass += 32ull) {
                    const unsigned long long e = pass + lane;
                    // The head whose edges hold `e`: the lanes whose inclusive sum is at most `e`.
                    unsigned int k = 0u;
                    for (unsigned int step = 16u; step > 0u; step >>= 1) {
                        if (__shfl_sync(full, below, k + step - 1u) <= e) k += step;
                    }
                    const unsigned long long k_below = __shfl_sync(full, below, k);
                    const unsigned int k_degree = __shfl_sync(full, degree, k);
                    const Offset k_begin = __shfl_sync(full, begin, k);
                    const unsigned int k_dist = __shfl_sync(full, dv, k);
                    bool expand = false;
                    unsigned int u = 0u, nd = 0u, u_degree = 0u;
                    Offset u_begin = 0;
                    if (e < total) {
                        const Offset j = k_begin + (Offset)(e - (k_below - k_degree));
                        u = adj[j];
                        nd = k_dist + weights[j];
                        if (!last) {
                            u_begin = offsets[u];
                            u_degree = (unsigned int)(offsets[u + 1] - u_begin);
                        }
                        const unsigned int old = atomicMin(&dist[u], nd);
                        if (nd < old) {
                            if (nd >= t) {
                                far[u] = 1u;
                            } else if (!last && u_degree <= hop_degree) {
                                expand = u_degree != 0u;
                            } else {
                                near[u] = 1u;
                            }
                        }
                    }
                    const unsigned int ballot = __ballot_sync(full, expand);
                    if (expand) {
                        const unsigned int at = found + __popc(ballot & ((1u << lane) - 1u));
                        if (at < LOOPS_NF_HEADS) {
                            head_dist[buffer ^ 1u][warp][at] = nd;
                            head_begin[buffer ^ 1u][warp][at] = u_begin;
                            head_degree[buffer ^ 1u][warp][at] = u_degree;
                        } else {
                            near[u] = 1u;
                        }
                    }
                    found += __popc(ballot);
                }
            }
            // The next hop reads what this one wrote, and writes what this one read.
            __syncwarp();
            heads = min(found, LOOPS_NF_HEADS);
            buffer ^= 1u;
        }
        if (relaxed != nullptr && lane == 0u && edges != 0ull) atomicAdd(relaxed, edges);
    }
}

// The round (`NearFarRelax` in near_far.rs): the frontier's size is `*device_size` where that is
// not null (the device loop's frontier, whose size only the device knows), else `size`; the edges
// it relaxes (every hop's) are added to `*relaxed` where that is not null (one atomic per warp and
// batch of frontier vertices).
extern "C" __global__ void __launch_bounds__(256) loops_near_far_relax(
    const int* __restrict__ offsets, const unsigned int* __restrict__ adj,
    const unsigned int* __restrict__ weights, const unsigned int* __restrict__ frontier,
    const unsigned int size, const unsigned long long device_size,
    unsigned int* __restrict__ dist, unsigned int* __restrict__ near,
    unsigned int* __restrict__ far, const unsigned int* __restrict__ threshold,
    const unsigned int hops, const unsigned int hop_degree, const unsigned int per_warp,
    unsigned long long* __restrict__ relaxed)
{
    loops_grid_dependency();
    const unsigned int len = device_size != 0ull ? *(const unsigned int*)device_size : size;
    loops_near_far_relax_rounds(offsets, adj, weights, frontier, len, dist, near, far,
                                threshold[0], hops, hop_degree, per_warp, relaxed);
}

// The same over the 64-bit offsets of a graph of more than 2^31 - 1 edges.
extern "C" __global__ void __launch_bounds__(256) loops_near_far_relax_wide(
    const long long* __restrict__ offsets, const unsigned int* __restrict__ adj,
    const unsigned int* __restrict__ weights, const unsigned int* __restrict__ frontier,
    const unsigned int size, const unsigned long long device_size,
    unsigned int* __restrict__ dist, unsigned int* __restrict__ near,
    unsigned int* __restrict__ far, const unsigned int* __restrict__ threshold,
    const unsigned int hops, const unsigned int hop_degree, const unsigned int per_warp,
    unsigned long long* __restrict__ relaxed)
{
    loops_grid_dependency();
    const unsigned int len = device_size != 0ull ? *(const unsigned int*)device_size : size;
    loops_near_far_relax_rounds(offsets, adj, weights, frontier, len, dist, near, far,
                                threshold[0], hops, hop_degree, per_warp, relaxed);
}

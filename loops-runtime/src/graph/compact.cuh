// loops for Rust: frontier compaction (loops-runtime/src/graph/compact.cuh).

// The generated kernels' programmatic-dependent-launch entry (kernels-gen's prelude.cuh, where the
// why is): the loops launch their compactions with the programmatic attribute too (where the
// handle does, `Gpu::set_programmatic_launch`), so a compaction must wait for the step before it
// reads the flags.
static __device__ __forceinline__ void loops_grid_dependency()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Marks a degree the compaction could not read (a vertex outside the graph, or no graph given):
// the level after it then scans.
#define LOOPS_UNKNOWN_DEGREE 0xffffffffu

// The out-degree of `u` (saturated to 32 bits), or LOOPS_UNKNOWN_DEGREE where `u` is not one of
// the graph's `graph_vertices`.
template <typename Offset>
static __device__ __forceinline__ unsigned int loops_out_degree(
    const Offset* __restrict__ offsets, const unsigned int graph_vertices, const unsigned int u)
{
    if (u >= graph_vertices) return LOOPS_UNKNOWN_DEGREE;
    const unsigned long long d = (unsigned long long)(offsets[u + 1] - offsets[u]);
    return d >= (unsigned long long)LOOPS_UNKNOWN_DEGREE ? LOOPS_UNKNOWN_DEGREE - 1u : (unsigned int)d;
}

// Max-reduces each warp's `m` into `*max_degree` (one atomic per warp that has one). Called by
// every lane of every warp.
static __device__ __forceinline__ void loops_warp_max_into(unsigned int m, unsigned int* max_degree)
{
    for (int offset = 16; offset > 0; offset >>= 1) {
        m = max(m, __shfl_xor_sync(0xffffffffu, m, offset));
    }
    if ((threadIdx.x & 31u) == 0u && m != 0u) atomicMax(max_degree, m);
}

// Appends the ids of the set flags among the first `n` to `out` at `*count`, clearing them: a warp
// ballot and a shared-memory scan per round of 256, one global atomic per round that found any.
// With `offsets` (not null), the largest out-degree of the vertices appended is max-ed into
// `*max_degree` as well, by the rounds that append below position `degrees_below` (past it the
// frontier is too large for its degree to matter to the caller, and reading a degree per vertex
// of a frontier of millions costs tens of microseconds). Called by every thread of a block of 256.
template <typename Offset>
static __device__ __forceinline__ void loops_compact_rounds(
    unsigned int* __restrict__ flags, const unsigned int n, unsigned int* __restrict__ out,
    unsigned int* count, const Offset* __restrict__ offsets, const unsigned int graph_vertices,
    unsigned int* max_degree, const unsigned int degrees_below = 0xffffffffu)
{
    __shared__ unsigned int warp_base[8];
    __shared__ unsigned int block_base;
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    unsigned int largest = 0u;
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
            if (offsets != nullptr && block_base < degrees_below) {
                largest = max(largest, loops_out_degree(offsets, graph_vertices, (unsigned int)i));
            }
        }
        // warp_base and block_base are rewritten by the next round.
        __syncthreads();
    }
    // Every thread of the block leaves the loop after the same rounds.
    if (offsets != nullptr) loops_warp_max_into(largest, max_degree);
}

// The host loop's compaction (`FrontierLoop`): the next frontier's size is counted at `*count`,
// which the host zeroes before and reads after.
extern "C" __global__ void __launch_bounds__(256) loops_compact_flags(
    unsigned int* __restrict__ flags, const unsigned int n, unsigned int* __restrict__ out,
    unsigned int* __restrict__ count)
{
    loops_grid_dependency();
    loops_compact_rounds(flags, n, out, count, (const int*)nullptr, 0u, nullptr);
}

// The same over `counters`: the count at `counters[0]`, and the largest out-degree of the vertices
// appended max-ed into `counters[2]` (LOOPS_UNKNOWN_DEGREE where a flagged vertex is not one of the
// graph's) while the frontier is below `degrees_below` vertices (a frontier that ends larger gets
// the largest degree of some of its vertices only); `counters[1]` is the caller's. What a host
// loop that picks each level's kernel by its frontier reads back in one copy
// (`Compaction::run_with_degrees`).
extern "C" __global__ void __launch_bounds__(256) loops_compact_flags_degrees(
    unsigned int* __restrict__ flags, const unsigned int n, unsigned int* __restrict__ out,
    unsigned int* counters, const int* __restrict__ offsets, const unsigned int graph_vertices,
    const unsigned int degrees_below)
{
    loops_grid_dependency();
    loops_compact_rounds(flags, n, out, counters, offsets, graph_vertices, counters + 2, degrees_below);
}

// The neighbour walk's plan for a frontier whose largest out-degree is `max_degree` (known, not
// LOOPS_UNKNOWN_DEGREE): `lanes` lanes of a warp per item (a power of two up to 32, the smallest
// that covers the degree), `chunks` items per vertex (chunk `c` of vertex `v` is its edges
// `c * lanes .. (c + 1) * lanes`). Modelled by `walk_plan` in device_loop.rs.
static __device__ __forceinline__ void loops_walk_plan(
    const unsigned int max_degree, unsigned int* lanes, unsigned int* chunks)
{
    unsigned int l = 1u;
    while (l < 32u && l < max_degree) l <<= 1;
    *lanes = l;
    *chunks = max_degree == 0u ? 1u : (max_degree + l - 1u) / l;
}

// The neighbour walk (push traversals only: every flagged vertex is the head of an out-edge of a
// vertex of the frontier `in[0..size)`): each lane takes one edge of one item and claims the
// head's flag if it is set (a plain read first, so that most heads already claimed or never
// flagged cost no atomic; then `atomicExch` to 0, which exactly one lane per flagged vertex sees
// return non-zero). The claimed heads are appended to `out` at `*count`, one atomic per warp and
// round that claimed any; their largest out-degree is max-ed into `*max_degree`. Every flag set on
// entry is cleared. Called by every thread of a block of 256; the loop is warp-uniform.
template <typename Offset>
static __device__ __forceinline__ void loops_walk_rounds(
    unsigned int* __restrict__ flags, const unsigned int* __restrict__ in, const unsigned int size,
    const Offset* __restrict__ offsets, const unsigned int* __restrict__ adj,
    const unsigned int graph_vertices, const unsigned int lanes, const unsigned int chunks,
    unsigned int* __restrict__ out, unsigned int* count, unsigned int* max_degree)
{
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int items_per_warp = 32u / lanes;
    const unsigned int item_in_warp = lane / lanes;
    const unsigned int edge_in_item = lane & (lanes - 1u);
    const unsigned long long items = (unsigned long long)size * chunks;
    const unsigned long long warps = (unsigned long long)gridDim.x * 8ull;
    unsigned int largest = 0u;
    for (unsigned long long first = ((unsigned long long)blockIdx.x * 8ull + (threadIdx.x >> 5)) * items_per_warp;
         first < items; first += warps * items_per_warp) {
        const unsigned long long item = first + item_in_warp;
        bool claimed = false;
        unsigned int u = 0u;
        if (item < items) {
            const unsigned int v = in[item / chunks];
            const unsigned long long k = (item % chunks) * lanes + edge_in_item;
            const Offset begin = offsets[v];
            if (k < (unsigned long long)(offsets[v + 1] - begin)) {
                u = adj[begin + (Offset)k];
                claimed = flags[u] != 0u && atomicExch(&flags[u], 0u) != 0u;
            }
        }
        const unsigned int ballot = __ballot_sync(0xffffffffu, claimed);
        if (ballot != 0u) {
            unsigned int base = 0u;
            if (lane == 0u) base = atomicAdd(count, __popc(ballot));
            base = __shfl_sync(0xffffffffu, base, 0);
            if (claimed) {
                out[base + __popc(ballot & ((1u << lane) - 1u))] = u;
                largest = max(largest, loops_out_degree(offsets, graph_vertices, u));
            }
        }
    }
    loops_warp_max_into(largest, max_degree);
}

// One level's compaction in the device loop (`FrontierLoop` on `LoopOn::DeviceScan` or
// `DevicePush`), where no host reads a count between levels. `state` holds the frontier sizes of
// three consecutive levels in turn: this level's at `state[current]` (what its step read), the next
// one's at `state[next]` (0, counted here), and `state[after]`, the previous level's, zeroed here
// for the level after next to count into; the largest out-degrees of the same frontiers rotate the
// same way through `state[8 + k]` (push runs only). Nothing else of this launch touches
// `state[after]` or `state[8 + after]`, and no other slot is written by more than one thread, so no
// launch needs a barrier across blocks. Once a level's frontier is empty, every later level's step
// and compaction find size 0 and return at once. Then, by one thread, where this level's frontier
// was not empty: `state[3]` counts the levels run (written to `*level` too, the level the next step
// sees), `state[4]` and `state[5]` add up the frontiers' sizes (low and high halves of 64 bits),
// `state[6]` keeps the largest, `state[7]` counts the levels whose compaction walked.  With
// `offsets` (a push run: `in` is this level's frontier, `offsets` and `adj` the graph the step
// pushes along, every vertex it flags the head of an out-edge of a vertex of `in`), the compaction
// chooses between its two paths here, the same way in every block (a uniform branch, so the
// recorded graph is the same whatever it chooses): the neighbour walk, whose work is the frontier's
// lanes (`size * lanes * chunks`, at least its out-edges), where those are at most `walk_limit` and
// the frontier's largest degree is known; else the scan of all `n` flags. Without `offsets` it
// always scans.
template <typename Offset>
static __device__ __forceinline__ void loops_compact_level_body(
    unsigned int* __restrict__ flags, const unsigned int n, unsigned int* __restrict__ out,
    unsigned int* __restrict__ state, const unsigned int current, const unsigned int next,
    const unsigned int after, unsigned int* __restrict__ level,
    const unsigned int* __restrict__ in, const Offset* __restrict__ offsets,
    const unsigned int* __restrict__ adj, const unsigned int graph_vertices,
    const unsigned long long walk_limit)
{
    const unsigned int size = state[current];
    bool walk = false;
    unsigned int lanes = 1u, chunks = 1u;
    if (offsets != nullptr) {
        const unsigned int max_degree = state[8u + current];
        if (max_degree != LOOPS_UNKNOWN_DEGREE) {
            loops_walk_plan(max_degree, &lanes, &chunks);
            walk = (unsigned long long)size * chunks * lanes <= walk_limit;
        }
    }
    if (blockIdx.x == 0u && threadIdx.x == 0u) {
        state[after] = 0u;
        state[8u + after] = 0u;
        if (size != 0u) {
            const unsigned int levels = state[3] + 1u;
            state[3] = levels;
            *level = levels;
            const unsigned long long vertices =
                ((unsigned long long)state[5] << 32 | state[4]) + size;
            state[4] = (unsigned int)vertices;
            state[5] = (unsigned int)(vertices >> 32);
            if (size > state[6]) state[6] = size;
            if (walk) state[7] += 1u;
        }
    }
    if (size == 0u) return;
    if (walk) {
        loops_walk_rounds(flags, in, size, offsets, adj, graph_vertices, lanes, chunks, out,
                          state + next, state + 8u + next);
    } else {
        loops_compact_rounds(flags, n, out, state + next, offsets, graph_vertices, state + 8u + next);
    }
}

extern "C" __global__ void __launch_bounds__(256) loops_compact_level(
    unsigned int* __restrict__ flags, const unsigned int n, unsigned int* __restrict__ out,
    unsigned int* __restrict__ state, const unsigned int current, const unsigned int next,
    const unsigned int after, unsigned int* __restrict__ level,
    const unsigned int* __restrict__ in, const int* __restrict__ offsets,
    const unsigned int* __restrict__ adj, const unsigned int graph_vertices,
    const unsigned long long walk_limit)
{
    loops_grid_dependency();
    loops_compact_level_body(flags, n, out, state, current, next, after, level, in, offsets, adj,
                             graph_vertices, walk_limit);
}

// The same over the 64-bit offsets of a graph of more than 2^31 - 1 edges.
extern "C" __global__ void __launch_bounds__(256) loops_compact_level_wide(
    unsigned int* __restrict__ flags, const unsigned int n, unsigned int* __restrict__ out,
    unsigned int* __restrict__ state, const unsigned int current, const unsigned int next,
    const unsigned int after, unsigned int* __restrict__ level,
    const unsigned int* __restrict__ in, const long long* __restrict__ offsets,
    const unsigned int* __restrict__ adj, const unsigned int graph_vertices,
    const unsigned long long walk_limit)
{
    loops_grid_dependency();
    loops_compact_level_body(flags, n, out, state, current, next, after, level, in, offsets, adj,
                             graph_vertices, walk_limit);
}

// The host loops' neighbour walk (`Compaction::run_walk`): the flagged heads of the out-edges of
// the frontier `in[0..size)` (a push step's, as for the device loop's walk) appended to `out` at
// `counters[0]`, their largest out-degree max-ed into `counters[2]`. `max_degree` is the
// frontier's largest out-degree, which sets the plan: every edge of the frontier is read by a lane
// only if no vertex of it has more.
extern "C" __global__ void __launch_bounds__(256) loops_compact_walk(
    unsigned int* __restrict__ flags, const unsigned int* __restrict__ in, const unsigned int size,
    const int* __restrict__ offsets, const unsigned int* __restrict__ adj,
    const unsigned int graph_vertices, const unsigned int max_degree,
    unsigned int* __restrict__ out, unsigned int* counters)
{
    loops_grid_dependency();
    unsigned int lanes, chunks;
    loops_walk_plan(max_degree, &lanes, &chunks);
    loops_walk_rounds(flags, in, size, offsets, adj, graph_vertices, lanes, chunks, out, counters,
                      counters + 2);
}

// The device loop's queue runs (`FrontierLoop` on `LoopOn::DeviceQueue`): the step appends the next
// frontier itself, at the index an `atomicAdd` on a count returns, so a level is the step's one
// launch. The counts and the level numbers live in one-element buffers per level of a batch (a
// recorded replay, or a level launched alone): `counts[i]` is the size of the frontier level `i`
// of the batch runs, `counts[i + 1]` what its step appends to, `levels[i]` the level's number.
// Nothing between two steps of a batch touches them; these two kernels run once per batch, before
// its first level and after its last.
//
// Before a batch: its first frontier's size (`state[0]`, from the batch before) goes to
// `counts[0]`, every later count is zeroed and level `i` is numbered `state[3] + i` (the levels run
// so far: a level runs only after every level before it did). One block.
extern "C" __global__ void __launch_bounds__(256) loops_queue_begin(
    unsigned int* const* __restrict__ counts, unsigned int* const* __restrict__ levels,
    const unsigned int batch, const unsigned int* __restrict__ state)
{
    loops_grid_dependency();
    const unsigned int carried = state[0];
    const unsigned int base = state[3];
    for (unsigned int i = threadIdx.x; i <= batch; i += blockDim.x) {
        *counts[i] = i == 0u ? carried : 0u;
        if (i < batch) *levels[i] = base + i;
    }
}

// After a batch, by one thread: the statistics of its levels whose frontier was not empty (as
// `loops_compact_level` keeps them: `state[3]` the levels run, `state[4..6]` their sizes added up,
// `state[6]` the largest), the next frontier's size to `state[0]`, and in `state[7]` the largest
// count past `capacity` (0 if none: a step that appended more than a frontier holds, whose extra
// vertices were not written).
extern "C" __global__ void __launch_bounds__(32) loops_queue_end(
    unsigned int* const* __restrict__ counts, const unsigned int batch,
    unsigned int* __restrict__ state, const unsigned int capacity)
{
    loops_grid_dependency();
    if (blockIdx.x != 0u || threadIdx.x != 0u) return;
    unsigned int levels = state[3];
    unsigned long long vertices = (unsigned long long)state[5] << 32 | state[4];
    unsigned int largest = state[6];
    unsigned int overflow = state[7];
    for (unsigned int i = 0u; i <= batch; ++i) {
        const unsigned int size = *counts[i];
        if (size > capacity && size > overflow) overflow = size;
        if (i == batch || size == 0u) continue;
        levels += 1u;
        vertices += size;
        if (size > largest) largest = size;
    }
    state[0] = *counts[batch];
    state[3] = levels;
    state[4] = (unsigned int)vertices;
    state[5] = (unsigned int)(vertices >> 32);
    state[6] = largest;
    state[7] = overflow;
}

// Direction-optimizing BFS in the queue run (`FrontierLoop::run_directed`): before
// each level, one thread chooses the level's direction by Beamer's rule from the device counters,
// as `loops::graph::next_direction` does on the host (`direction_model` in `graph/frontier/direction/model.rs`
// is this kernel on the CPU), and sizes the level's two launches: the push step over the frontier
// (`lens[0]`: the frontier's size, or 0) and the pull step over the pull list (`lens[1]`: its
// length `lens[2]`, or 0; a pull zeroes `*rest_size`, see `loops_do_rest`). `state`: [0] the
// last level's direction (0 push, 1 pull), [1..3] the unexplored edges (low, high), [3] unused,
// [4] the last frontier's size, [5] the pull levels.
// `edges[0]`: the out-edges of the vertices the last push step reached (its step adds them), zeroed
// here for the level's. An empty frontier (the run is over) leaves the state as it is.
extern "C" __global__ void __launch_bounds__(32) loops_do_decide(
    const unsigned int* __restrict__ count, unsigned int* __restrict__ state,
    unsigned int* __restrict__ edges, unsigned int* __restrict__ lens,
    unsigned int* __restrict__ rest_size, const unsigned int graph_vertices,
    const unsigned long long alpha, const unsigned long long beta)
{
    loops_grid_dependency();
    if (blockIdx.x != 0u || threadIdx.x != 0u) return;
    const unsigned int frontier = *count;
    if (frontier == 0u) {
        lens[0] = 0u;
        lens[1] = 0u;
        return;
    }
    const unsigned int last = state[0];
    unsigned long long unexplored = (unsigned long long)state[2] << 32 | state[1];
    const unsigned long long found = edges[0];
    unsigned int pull;
    if (last == 0u) {
        unexplored = unexplored > found ? unexplored - found : 0ull;
        // found * alpha > unexplored, without the product.
        pull = alpha > 0ull && found > 0ull && found > unexplored / alpha;
    } else {
        const bool growing = frontier >= state[4];
        const bool large = beta > 0ull && (unsigned long long)frontier > graph_vertices / beta;
        pull = growing || large;
    }
    state[0] = pull;
    state[1] = (unsigned int)unexplored;
    state[2] = (unsigned int)(unexplored >> 32);
    state[4] = frontier;
    state[5] += pull;
    edges[0] = 0u;
    lens[0] = pull ? 0u : frontier;
    // A pull goes over the pull list (`lens[2]` vertices: every vertex at the start, then those
    // the last pull left unreached), appending the vertices it leaves to the rest from 0.
    lens[1] = pull ? lens[2] : 0u;
    if (pull) *rest_size = 0u;
}

// After the pull step of a level of a direction-optimizing run (`FrontierLoop::run_directed`):
// where the level pulled (`lens[1]` not 0), the vertices the pull left unreached (`rest`, the
// `*rest_size` the pull step appended) become the pull list (`vertices`, its length `lens[2]`),
// so that the next pull goes over them alone: after a power-law graph's first pull most vertices
// are reached, and a pull over every vertex costs 20-25 us on 4M vertices (an H200) where one
// over the few left costs 7. Vertices a push level reaches later stay in the list until the next
// pull drops them (it skips reached vertices): the list is always a superset of the unreached
// vertices with edges. Nothing at a level that pushed, where `rest` was not written.
extern "C" __global__ void __launch_bounds__(256) loops_do_rest(
    unsigned int* __restrict__ lens, const unsigned int* __restrict__ rest,
    const unsigned int* __restrict__ rest_size, unsigned int* __restrict__ vertices)
{
    loops_grid_dependency();
    if (lens[1] == 0u) return;
    const unsigned int n = *rest_size;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        vertices[i] = rest[i];
    if (blockIdx.x == 0u && threadIdx.x == 0u) lens[2] = n;
}

// Direction-optimizing BFS's push-only batches (`FrontierLoop::run_directed`): a batch whose
// levels the host expects to push (far from Beamer's switch by the last read-back) runs each level
// as the push step alone over the frontier of `counts[i]` vertices, with no decision before it and
// no count of the edges it reaches (a plain push level: on a road network the count's loads and
// atomics cost as much as the rest of the level). After the batch, one thread folds the batch into
// the state as `loops_do_decide` would have before each level (same `state` and `edges` layout),
// each frontier's out-edges estimated from its size at the graph's mean degree
// (`size * graph_edges / graph_vertices`; the first level's are the carried `edges[0]`): the
// unexplored edges less each level's, the last frontier, and in `state[3]` the levels that pushed
// where the rule would have pulled and a pull level would have stayed pulling (a frontier of more
// than `graph_vertices / beta` vertices, the rule's own test for staying in pull: the host then
// runs the next batch with a decision per level). A small frontier near the end of a long
// traversal, where the unexplored edges run out, counts no miss: one pull level over every vertex
// would turn back to push at once, and costs more on the device than the push of that frontier.
// `edges[0]` gets the estimate of the next frontier's out-edges, for the decision after the batch.
// Where `loop_state` is not null, its lane 0 then writes the report `loops_do_report` would (one
// launch less a push-only batch).
extern "C" __global__ void __launch_bounds__(32) loops_do_fold(
    unsigned int* const* __restrict__ counts, const unsigned int batch,
    unsigned int* __restrict__ state, unsigned int* __restrict__ edges,
    const unsigned long long alpha, const unsigned long long beta,
    const unsigned int graph_vertices, const unsigned long long graph_edges,
    unsigned int* __restrict__ loop_state)
{
    // One warp, a lane per level (32 at a time): the levels' counts read at once and the rule's
    // divisions done side by side. One thread going through a replay's 48 levels in turn (two
    // dependent loads and two 64-bit divisions each) cost a 1024 x 1024 grid's BFS 0.8 ms of
    // 9.4 (measured on an H200, examples/bench/results/h200/graphs_do).
    loops_grid_dependency();
    if (blockIdx.x != 0u) return;
    const unsigned int lane = threadIdx.x;
    const unsigned int all = 0xffffffffu;
    const unsigned long long n = graph_vertices > 0u ? graph_vertices : 1ull;
    unsigned long long unexplored = (unsigned long long)state[2] << 32 | state[1];
    const unsigned long long carried = edges[0];
    unsigned int missed = state[3];
    unsigned int last_frontier = state[4];
    for (unsigned int base = 0u; base < batch; base += 32u) {
        const unsigned int i = base + lane;
        const unsigned int frontier = i < batch ? *counts[i] : 0u;
        // The batch's levels end at its first empty frontier: lanes below it ran.
        const unsigned int empty = __ballot_sync(all, frontier == 0u);
        const unsigned int ran = empty == 0u ? 32u : (unsigned int)__ffs(empty) - 1u;
        const bool runs = lane < ran;
        // The found edges before level `i`: carried in for the batch's first, else estimated.
        unsigned long long found = 0ull;
        if (runs) found = i == 0u ? carried : (unsigned long long)frontier * graph_edges / n;
        // The unexplored edges after each level's: less the found edges up to it (a running
        // subtraction that stops at 0 is the total's, stopped at 0).
        unsigned long long sum = found;
        for (unsigned int d = 1u; d < 32u; d <<= 1) {
            const unsigned long long below = __shfl_up_sync(all, sum, d);
            if (lane >= d) sum += below;
        }
        const unsigned long long left = unexplored > sum ? unexplored - sum : 0ull;
        const bool large = beta > 0ull && (unsigned long long)frontier > graph_vertices / beta;
        const bool miss = runs && alpha > 0ull && found > 0ull && found > left / alpha && large;
        missed += (unsigned int)__popc(__ballot_sync(all, miss));
        if (ran > 0u) {
            unexplored = __shfl_sync(all, left, ran - 1u);
            last_frontier = __shfl_sync(all, frontier, ran - 1u);
        }
        if (ran < 32u) break;
    }
    if (lane != 0u) return;
    const unsigned long long next = (unsigned long long)*counts[batch] * graph_edges / n;
    state[0] = 0u;
    state[1] = (unsigned int)unexplored;
    state[2] = (unsigned int)(unexplored >> 32);
    state[3] = missed;
    state[4] = last_frontier;
    const unsigned int found = next < 0xffffffffull ? (unsigned int)next : 0xffffffffu;
    edges[0] = found;
    if (loop_state != nullptr) {
        // `loops_do_report` after the fold: the last level pushed.
        const unsigned int near = alpha > 0ull && found > 0u && found > unexplored / alpha;
        loop_state[8] = near << 1;
        loop_state[9] = missed;
        loop_state[10] = state[5];
    }
}

// The start of a direction-optimizing run (`FrontierLoop::run_directed`), by one thread: the
// decision's state (`loops_do_decide`'s layout: the source's level pushes, all `unexplored` edges
// unexplored), no edges found, both launches' lengths 0; and what a queue run's start writes from
// the host (`FrontierLoop::prepare`): the source as the first frontier, the loop's state
// (`loop_state`, `state_slots` slots: the frontier of 1 vertex, no level run, the source's degree
// unknown in slot `degree_slot`) and the level 0. One launch instead of six copies from the host.
extern "C" __global__ void __launch_bounds__(32) loops_do_start(
    unsigned int* __restrict__ state, unsigned int* __restrict__ edges,
    unsigned int* __restrict__ lens, const unsigned long long unexplored,
    unsigned int* __restrict__ frontier, unsigned int* __restrict__ loop_state,
    const unsigned int state_slots, const unsigned int degree_slot,
    unsigned int* __restrict__ level, const unsigned int source, const unsigned int pull_list)
{
    loops_grid_dependency();
    if (blockIdx.x != 0u || threadIdx.x != 0u) return;
    state[0] = 0u;
    state[1] = (unsigned int)unexplored;
    state[2] = (unsigned int)(unexplored >> 32);
    state[3] = 0u;
    state[4] = 0u;
    state[5] = 0u;
    edges[0] = 0u;
    lens[0] = 0u;
    lens[1] = 0u;
    lens[2] = pull_list;
    frontier[0] = source;
    for (unsigned int i = 0u; i < state_slots; ++i)
        loop_state[i] = i == 0u ? 1u : i == degree_slot ? 0xffffffffu : 0u;
    level[0] = 0u;
}

// After every batch of a direction-optimizing run, by one thread: what the host needs to choose
// the next batch, copied into slots 8 to 10 of the loop's state (`loop_state`, which a queue run
// does not use otherwise and the host reads back after every batch anyway): `[8]` the last
// level's direction (bit 0: pulled) and whether the rule is near its switch (bit 1: the last push
// level found edges of which `alpha` times exceed the unexplored edges), `[9]` the levels that
// pushed where the rule would have pulled (`loops_do_fold`), `[10]` the pull levels. It spares the
// host two read-backs per batch.
extern "C" __global__ void __launch_bounds__(32) loops_do_report(
    const unsigned int* __restrict__ state, const unsigned int* __restrict__ edges,
    unsigned int* __restrict__ loop_state, const unsigned long long alpha)
{
    loops_grid_dependency();
    if (blockIdx.x != 0u || threadIdx.x != 0u) return;
    const unsigned long long unexplored = (unsigned long long)state[2] << 32 | state[1];
    const unsigned long long found = edges[0];
    const unsigned int near = alpha > 0ull && found > 0ull && found > unexplored / alpha;
    loop_state[8] = (state[0] != 0u ? 1u : 0u) | near << 1;
    loop_state[9] = state[3];
    loop_state[10] = state[5];
}

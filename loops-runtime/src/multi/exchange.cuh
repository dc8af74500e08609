// The distributed product's own kernels (loops-runtime/src/multi): what a part sends, gathered
// from its x entries, and the remote block's contribution added to the local one. Elements are
// moved as raw 4- or 8-byte words, so one gather serves f32 and f64 (and i32 or u64 ids).

// out[i * k + j] = x[idx[i] * k + j] for i < count, j < k: rows of a row-major x.
template <typename W>
__device__ void loops_gather_rows(W* out, const W* x, const unsigned int* idx,
                                  unsigned long long count, unsigned int k) {
  unsigned long long total = count * k;
  for (unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; t < total;
       t += (unsigned long long)gridDim.x * blockDim.x) {
    unsigned long long i = t / k, j = t - i * k;
    out[t] = x[(unsigned long long)idx[i] * k + j];
  }
}

extern "C" __global__ void loops_gather_rows_4(unsigned int* out, const unsigned int* x,
                                               const unsigned int* idx, unsigned long long count,
                                               unsigned int k) {
  loops_gather_rows(out, x, idx, count, k);
}

extern "C" __global__ void loops_gather_rows_8(unsigned long long* out,
                                               const unsigned long long* x,
                                               const unsigned int* idx, unsigned long long count,
                                               unsigned int k) {
  loops_gather_rows(out, x, idx, count, k);
}

template <typename T>
__device__ void loops_add_into(T* y, const T* part, unsigned long long n) {
  for (unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; t < n;
       t += (unsigned long long)gridDim.x * blockDim.x) {
    y[t] += part[t];
  }
}

extern "C" __global__ void loops_add_into_f32(float* y, const float* part, unsigned long long n) {
  loops_add_into(y, part, n);
}

extern "C" __global__ void loops_add_into_f64(double* y, const double* part, unsigned long long n) {
  loops_add_into(y, part, n);
}

// A vertex joins its part's next BFS frontier: appended at the slot `count[0]` gives it, and its
// out-degree (`degree`) raises the frontier's largest, `count[1]` (read first: most threads of a
// large frontier skip the atomic).
__device__ void loops_bfs_join(unsigned int v, unsigned int degree, unsigned int* frontier,
                               unsigned int* count) {
  frontier[atomicAdd(count, 1u)] = v;
  if (degree > *(volatile unsigned int*)(count + 1)) atomicMax(count + 1, degree);
}

// One part alone: each vertex its push step flagged (`flags`, indexed by vertex) gets level
// `reached`, its flag cleared, and joins the next frontier (`degrees`: the out-degrees).
extern "C" __global__ void loops_bfs_settle(unsigned int* flags, unsigned int* levels,
                                            unsigned int reached, unsigned long long n,
                                            const unsigned int* degrees, unsigned int* frontier,
                                            unsigned int* count) {
  for (unsigned long long v = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; v < n;
       v += (unsigned long long)gridDim.x * blockDim.x) {
    if (flags[v]) {
      flags[v] = 0;
      if (levels[v] > reached) levels[v] = reached;
      loops_bfs_join((unsigned int)v, degrees[v], frontier, count);
    }
  }
}

// Several parts, before the exchange: the flags a part's push step set (a u32 per vertex, any
// owner) packed into a byte per vertex, one slot of `pad` bytes per owning part (slot q holds the
// vertices starts[q]..starts[q + 1]), and cleared: what the reduce-scatter (a max over bytes)
// combines into each owner's flags. `pad` is a multiple of 4; each thread writes a word.
extern "C" __global__ void loops_bfs_pack(unsigned int* flags, unsigned int* packed,
                                          const unsigned long long* starts, unsigned int parts,
                                          unsigned long long pad) {
  unsigned long long words = parts * pad / 4;
  for (unsigned long long w = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
       w < words; w += (unsigned long long)gridDim.x * blockDim.x) {
    unsigned long long q = (4 * w) / pad, first = starts[q] + (4 * w - q * pad);
    unsigned long long end = starts[q + 1];
    unsigned int word = 0;
    for (unsigned int b = 0; b < 4; ++b) {
      unsigned long long v = first + b;
      if (v < end && flags[v]) {
        flags[v] = 0;
        word |= 1u << (8 * b);
      }
    }
    packed[w] = word;
  }
}

// dst |= src over `words` words: the one-device stand-in for NCCL's max reduce-scatter of the
// packed flags (bytes of 0 or 1, so an OR of the words is a max of the bytes).
extern "C" __global__ void loops_or_into_u32(unsigned int* dst, const unsigned int* src,
                                             unsigned long long words) {
  for (unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
       t < words; t += (unsigned long long)gridDim.x * blockDim.x) {
    dst[t] |= src[t];
  }
}

// Several parts of one process whose devices reach each other's memory (NVLink peer access), in
// place of the pack and the reduce-scatter: each flag this part's push step set (a u32 per vertex,
// any owner) is sent to its owner as a byte in the owner's `incoming` (a byte per vertex it owns,
// from its start; `incoming[q]`: part q's, its device address) and cleared. Where the frontier's
// out-edges are few (its length `count[0]` times its largest out-degree `count[1]` at most
// `walk_limit`) only they are walked, a thread per frontier vertex (a step flags only heads of
// the frontier's out-edges; `atomicExch` claims each once); else every flag is scanned. The
// frontier's size is read here, on the device: levels queued without the host run this too.
__device__ void loops_bfs_send(unsigned long long u, const unsigned long long* incoming,
                               const unsigned long long* starts, unsigned int parts) {
  unsigned int q = 0;
  while (q + 1 < parts && u >= starts[q + 1]) ++q;
  ((unsigned char*)incoming[q])[u - starts[q]] = 1;
}

extern "C" __global__ void loops_bfs_forward(unsigned int* flags, unsigned long long n,
                                             const unsigned int* frontier,
                                             const unsigned int* count, const int* offsets,
                                             const long long* wide_offsets,
                                             const unsigned int* adj,
                                             const unsigned long long* incoming,
                                             const unsigned long long* starts, unsigned int parts,
                                             unsigned long long walk_limit) {
  unsigned long long first = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  unsigned long long len = count[0], max_degree = count[1];
  if (len * max_degree <= walk_limit) {
    for (unsigned long long i = first; i < len; i += stride) {
      unsigned long long v = frontier[i];
      long long lo = wide_offsets ? wide_offsets[v] : offsets[v];
      long long hi = wide_offsets ? wide_offsets[v + 1] : offsets[v + 1];
      for (long long e = lo; e < hi; ++e) {
        unsigned int u = adj[e];
        if (flags[u] && atomicExch(flags + u, 0u)) loops_bfs_send(u, incoming, starts, parts);
      }
    }
  } else {
    for (unsigned long long u = first; u < n; u += stride) {
      if (flags[u]) {
        flags[u] = 0;
        loops_bfs_send(u, incoming, starts, parts);
      }
    }
  }
}

// After every part's `loops_bfs_forward` of a level: this part's `incoming` bytes (a byte per vertex
// it owns, `own_start`, `own_len` of them), set where any part reached it, cleared; those not
// settled at an earlier level get level `reached` and join the part's next frontier.
extern "C" __global__ void loops_bfs_settle_incoming(unsigned int* incoming, unsigned int* levels,
                                                     unsigned int reached,
                                                     unsigned long long own_start,
                                                     unsigned long long own_len,
                                                     const unsigned int* degrees,
                                                     unsigned int* frontier, unsigned int* count) {
  unsigned char* flags = (unsigned char*)incoming;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
       i < own_len; i += (unsigned long long)gridDim.x * blockDim.x) {
    if (flags[i]) {
      flags[i] = 0;
      unsigned long long v = own_start + i;
      if (levels[v] >= reached) {
        levels[v] = reached;
        loops_bfs_join((unsigned int)v, degrees[i], frontier, count);
      }
    }
  }
}

// Several parts, after the exchange: `mine` holds a byte per vertex this part owns
// (`own_start`, `own_len` of them), set where any part reached it this level. Those not settled
// at an earlier level (another part may have reached a vertex its owner already had) get level
// `reached` and join the part's next frontier.
extern "C" __global__ void loops_bfs_settle_own(const unsigned int* mine, unsigned int* levels,
                                                unsigned int reached,
                                                unsigned long long own_start,
                                                unsigned long long own_len,
                                                const unsigned int* degrees,
                                                unsigned int* frontier, unsigned int* count) {
  const unsigned char* flags = (const unsigned char*)mine;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
       i < own_len; i += (unsigned long long)gridDim.x * blockDim.x) {
    if (flags[i]) {
      unsigned long long v = own_start + i;
      if (levels[v] >= reached) {
        levels[v] = reached;
        loops_bfs_join((unsigned int)v, degrees[i], frontier, count);
      }
    }
  }
}

// y[rows[i] * k + j] += part[i * k + j] for i < count, j < k: the remote block's contribution when
// it keeps only the rows that read another part (the others add nothing).
template <typename T>
__device__ void loops_add_rows(T* y, const T* part, const unsigned int* rows,
                               unsigned long long count, unsigned int k) {
  unsigned long long total = count * k;
  for (unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; t < total;
       t += (unsigned long long)gridDim.x * blockDim.x) {
    unsigned long long i = t / k, j = t - i * k;
    y[(unsigned long long)rows[i] * k + j] += part[t];
  }
}

extern "C" __global__ void loops_add_rows_f32(float* y, const float* part,
                                              const unsigned int* rows, unsigned long long count,
                                              unsigned int k) {
  loops_add_rows(y, part, rows, count, k);
}

extern "C" __global__ void loops_add_rows_f64(double* y, const double* part,
                                              const unsigned int* rows, unsigned long long count,
                                              unsigned int k) {
  loops_add_rows(y, part, rows, count, k);
}

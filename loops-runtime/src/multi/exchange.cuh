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
// place of the reduce-scatter: part q's slot (`slot_word`, `words` words) of every part's packed
// flags (`packed[p]`: device addresses, the others' read over the link) ORed into its `mine`.
extern "C" __global__ void loops_bfs_gather_own(unsigned int* mine,
                                                const unsigned long long* packed,
                                                unsigned int parts,
                                                unsigned long long slot_word,
                                                unsigned long long words) {
  for (unsigned long long w = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
       w < words; w += (unsigned long long)gridDim.x * blockDim.x) {
    unsigned int acc = 0;
    for (unsigned int p = 0; p < parts; ++p) {
      acc |= ((const unsigned int*)packed[p])[slot_word + w];
    }
    mine[w] = acc;
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

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

// dst[i] = max(dst[i], src[i]): the one-device stand-in for NCCL's max all-reduce of BFS flags.
extern "C" __global__ void loops_max_into_u32(unsigned int* dst, const unsigned int* src,
                                              unsigned long long n) {
  for (unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; t < n;
       t += (unsigned long long)gridDim.x * blockDim.x) {
    if (src[t] > dst[t]) dst[t] = src[t];
  }
}

// After the flags of a BFS level are combined over every part: each flagged vertex gets level
// `reached` in this part's copy of the levels, the flags are cleared, and the flagged vertices this
// part owns (`own_start..own_end`) are appended to its next frontier (`*count` of them).
extern "C" __global__ void loops_bfs_settle(unsigned int* flags, unsigned int* levels,
                                            unsigned int reached, unsigned long long n,
                                            unsigned long long own_start,
                                            unsigned long long own_end, unsigned int* frontier,
                                            unsigned int* count) {
  for (unsigned long long v = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; v < n;
       v += (unsigned long long)gridDim.x * blockDim.x) {
    if (flags[v]) {
      flags[v] = 0;
      if (levels[v] > reached) levels[v] = reached;
      if (v >= own_start && v < own_end) frontier[atomicAdd(count, 1u)] = (unsigned int)v;
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

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

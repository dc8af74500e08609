// The baselines of examples/bench_sort.rs, timed like it times loops (CUDA events around each call
// after a warm-up, the median of the runs): CUB's segmented sorts of each row's column indices
// with their values, and cuSPARSE's CSR -> CSC.
//
//   segsort INPUT WARMUP REPS
//
// INPUT is the file bench_sort writes (little-endian): "LSRT", u32 version (1), u32 value bytes
// (4: float, 8: double), u64 rows, u64 cols, u64 nnz, then i32 offsets[rows + 1], i32
// indices[nnz] and the values[nnz]. Each result is checked on the CPU first (a stable sort per
// row; a counting sort by column); prints one `name median_ms` line per baseline, or
// `name FAILED why`. Build with build.sh (nvcc, sm_90).

#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#define CHECK_CUDA(call)                                                                         \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            std::exit(2);                                                                        \
        }                                                                                        \
    } while (0)
#define CHECK_CUSPARSE(call)                                                                     \
    do {                                                                                         \
        cusparseStatus_t s_ = (call);                                                            \
        if (s_ != CUSPARSE_STATUS_SUCCESS) {                                                     \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cusparseGetErrorString(s_)); \
            std::exit(2);                                                                        \
        }                                                                                        \
    } while (0)

struct Input {
    uint32_t value_bytes = 0;
    uint64_t rows = 0, cols = 0, nnz = 0;
    std::vector<int> offsets, indices;
    std::vector<unsigned char> values; // nnz * value_bytes
};

static Input read_input(const char* path)
{
    FILE* f = std::fopen(path, "rb");
    if (!f) {
        std::perror(path);
        std::exit(2);
    }
    auto take = [&](void* dst, size_t bytes) {
        if (bytes && std::fread(dst, 1, bytes, f) != bytes) {
            std::fprintf(stderr, "%s: short file\n", path);
            std::exit(2);
        }
    };
    char magic[4];
    uint32_t version;
    Input in;
    take(magic, 4);
    take(&version, 4);
    if (std::memcmp(magic, "LSRT", 4) != 0 || version != 1) {
        std::fprintf(stderr, "%s: not a bench_sort input (version 1)\n", path);
        std::exit(2);
    }
    take(&in.value_bytes, 4);
    take(&in.rows, 8);
    take(&in.cols, 8);
    take(&in.nnz, 8);
    if (in.value_bytes != 4 && in.value_bytes != 8) {
        std::fprintf(stderr, "%s: values of %u bytes\n", path, in.value_bytes);
        std::exit(2);
    }
    in.offsets.resize(in.rows + 1);
    in.indices.resize(in.nnz);
    in.values.resize(in.nnz * in.value_bytes);
    take(in.offsets.data(), in.offsets.size() * 4);
    take(in.indices.data(), in.indices.size() * 4);
    take(in.values.data(), in.values.size());
    std::fclose(f);
    return in;
}

// The median of `reps` timed calls of `call` after `warmup` untimed ones (one event pair each).
static double median_ms(int warmup, int reps, const std::function<void()>& call)
{
    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    for (int i = 0; i < warmup; ++i) call();
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<float> ms(reps);
    for (int i = 0; i < reps; ++i) {
        CHECK_CUDA(cudaEventRecord(start));
        call();
        CHECK_CUDA(cudaEventRecord(stop));
        CHECK_CUDA(cudaEventSynchronize(stop));
        CHECK_CUDA(cudaEventElapsedTime(&ms[i], start, stop));
    }
    CHECK_CUDA(cudaEventDestroy(start));
    CHECK_CUDA(cudaEventDestroy(stop));
    std::sort(ms.begin(), ms.end());
    return reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
}

template <typename V>
struct Device {
    int *offsets = nullptr, *keys_in = nullptr, *keys_out = nullptr;
    V *values_in = nullptr, *values_out = nullptr;
};

template <typename V>
static int run(const Input& in, int warmup, int reps)
{
    const int rows = (int)in.rows, cols = (int)in.cols, nnz = (int)in.nnz;
    const V* host_values = reinterpret_cast<const V*>(in.values.data());
    Device<V> d;
    CHECK_CUDA(cudaMalloc(&d.offsets, (rows + 1) * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&d.keys_in, std::max(nnz, 1) * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&d.keys_out, std::max(nnz, 1) * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&d.values_in, std::max(nnz, 1) * sizeof(V)));
    CHECK_CUDA(cudaMalloc(&d.values_out, std::max(nnz, 1) * sizeof(V)));
    CHECK_CUDA(cudaMemcpy(d.offsets, in.offsets.data(), (rows + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d.keys_in, in.indices.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d.values_in, host_values, nnz * sizeof(V), cudaMemcpyHostToDevice));

    // The CPU reference: each row stably sorted by column.
    std::vector<int> want_keys(in.indices);
    std::vector<V> want_values(host_values, host_values + nnz);
    {
        std::vector<std::pair<int, V>> row;
        for (int r = 0; r < rows; ++r) {
            const int s = in.offsets[r], e = in.offsets[r + 1];
            row.clear();
            for (int k = s; k < e; ++k) row.emplace_back(in.indices[k], host_values[k]);
            std::stable_sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
            for (int k = s; k < e; ++k) {
                want_keys[k] = row[k - s].first;
                want_values[k] = row[k - s].second;
            }
        }
    }
    auto matches = [&](const int* keys, const V* values, bool check_values) {
        std::vector<int> k(nnz);
        std::vector<V> v(nnz);
        CHECK_CUDA(cudaMemcpy(k.data(), keys, nnz * sizeof(int), cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(v.data(), values, nnz * sizeof(V), cudaMemcpyDeviceToHost));
        if (k != want_keys) return false;
        return !check_values || std::memcmp(v.data(), want_values.data(), nnz * sizeof(V)) == 0;
    };
    int failures = 0;
    auto report = [&](const char* name, bool ok, const char* why, const std::function<void()>& call) {
        if (!ok) {
            std::printf("%s FAILED %s\n", name, why);
            ++failures;
            return;
        }
        std::printf("%s %.6f\n", name, median_ms(warmup, reps, call));
        std::fflush(stdout);
    };

    // cub::DeviceSegmentedSort::StableSortPairs.
    {
        size_t bytes = 0;
        CHECK_CUDA(cub::DeviceSegmentedSort::StableSortPairs(nullptr, bytes, d.keys_in, d.keys_out, d.values_in,
                                                              d.values_out, nnz, rows, d.offsets, d.offsets + 1));
        void* temp = nullptr;
        CHECK_CUDA(cudaMalloc(&temp, std::max<size_t>(bytes, 1)));
        auto call = [&] {
            CHECK_CUDA(cub::DeviceSegmentedSort::StableSortPairs(temp, bytes, d.keys_in, d.keys_out, d.values_in,
                                                                  d.values_out, nnz, rows, d.offsets, d.offsets + 1));
        };
        call();
        CHECK_CUDA(cudaDeviceSynchronize());
        report("cub_stable_sort_pairs", matches(d.keys_out, d.values_out, true), "differs from the stable CPU sort", call);
        CHECK_CUDA(cudaFree(temp));
    }
    // cub::DeviceSegmentedRadixSort::SortPairs on the bits the columns need (a radix sort is stable).
    {
        int end_bit = 1;
        while (end_bit < 31 && (1ll << end_bit) < (long long)cols) ++end_bit;
        size_t bytes = 0;
        CHECK_CUDA(cub::DeviceSegmentedRadixSort::SortPairs(nullptr, bytes, d.keys_in, d.keys_out, d.values_in,
                                                             d.values_out, nnz, rows, d.offsets, d.offsets + 1, 0,
                                                             end_bit));
        void* temp = nullptr;
        CHECK_CUDA(cudaMalloc(&temp, std::max<size_t>(bytes, 1)));
        auto call = [&] {
            CHECK_CUDA(cub::DeviceSegmentedRadixSort::SortPairs(temp, bytes, d.keys_in, d.keys_out, d.values_in,
                                                                 d.values_out, nnz, rows, d.offsets, d.offsets + 1, 0,
                                                                 end_bit));
        };
        call();
        CHECK_CUDA(cudaDeviceSynchronize());
        report("cub_radix_sort_pairs", matches(d.keys_out, d.values_out, true), "differs from the stable CPU sort", call);
        CHECK_CUDA(cudaFree(temp));
    }
    // cusparseCsr2cscEx2: the CSC, checked against a counting sort by column (CSR order kept).
    {
        cusparseHandle_t handle;
        CHECK_CUSPARSE(cusparseCreate(&handle));
        const cudaDataType type = sizeof(V) == 4 ? CUDA_R_32F : CUDA_R_64F;
        int *col_offsets, *row_indices;
        V* csc_values;
        CHECK_CUDA(cudaMalloc(&col_offsets, (cols + 1) * sizeof(int)));
        CHECK_CUDA(cudaMalloc(&row_indices, std::max(nnz, 1) * sizeof(int)));
        CHECK_CUDA(cudaMalloc(&csc_values, std::max(nnz, 1) * sizeof(V)));
        size_t bytes = 0;
        CHECK_CUSPARSE(cusparseCsr2cscEx2_bufferSize(handle, rows, cols, nnz, d.values_in, d.offsets, d.keys_in,
                                                     csc_values, col_offsets, row_indices, type,
                                                     CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                                     CUSPARSE_CSR2CSC_ALG_DEFAULT, &bytes));
        void* buffer = nullptr;
        CHECK_CUDA(cudaMalloc(&buffer, std::max<size_t>(bytes, 1)));
        auto call = [&] {
            CHECK_CUSPARSE(cusparseCsr2cscEx2(handle, rows, cols, nnz, d.values_in, d.offsets, d.keys_in, csc_values,
                                              col_offsets, row_indices, type, CUSPARSE_ACTION_NUMERIC,
                                              CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG_DEFAULT, buffer));
        };
        call();
        CHECK_CUDA(cudaDeviceSynchronize());
        std::vector<int> want_offsets(cols + 1, 0), want_rows(nnz);
        std::vector<V> want_csc(nnz);
        for (int k = 0; k < nnz; ++k) ++want_offsets[in.indices[k] + 1];
        for (int c = 0; c < cols; ++c) want_offsets[c + 1] += want_offsets[c];
        std::vector<int> next(want_offsets.begin(), want_offsets.end() - 1);
        for (int r = 0; r < rows; ++r) {
            for (int k = in.offsets[r]; k < in.offsets[r + 1]; ++k) {
                const int slot = next[in.indices[k]]++;
                want_rows[slot] = r;
                want_csc[slot] = host_values[k];
            }
        }
        std::vector<int> got_offsets(cols + 1), got_rows(nnz);
        std::vector<V> got_values(nnz);
        CHECK_CUDA(cudaMemcpy(got_offsets.data(), col_offsets, (cols + 1) * sizeof(int), cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(got_rows.data(), row_indices, nnz * sizeof(int), cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(got_values.data(), csc_values, nnz * sizeof(V), cudaMemcpyDeviceToHost));
        // Repeated columns within a row may come out in another order from cuSPARSE: only the row
        // indices and offsets are compared when the input has them (the values then are checked
        // as a multiset per column, which the sort below does).
        bool ok = got_offsets == want_offsets && got_rows == want_rows;
        if (ok) {
            for (int c = 0; c < cols && ok; ++c) {
                auto a = std::vector<V>(got_values.begin() + want_offsets[c], got_values.begin() + want_offsets[c + 1]);
                auto b = std::vector<V>(want_csc.begin() + want_offsets[c], want_csc.begin() + want_offsets[c + 1]);
                std::sort(a.begin(), a.end());
                std::sort(b.begin(), b.end());
                ok = a == b;
            }
        }
        report("cusparse_csr2csc", ok, "differs from the CPU transpose", call);
        CHECK_CUDA(cudaFree(buffer));
        CHECK_CUDA(cudaFree(col_offsets));
        CHECK_CUDA(cudaFree(row_indices));
        CHECK_CUDA(cudaFree(csc_values));
        CHECK_CUSPARSE(cusparseDestroy(handle));
    }
    CHECK_CUDA(cudaFree(d.offsets));
    CHECK_CUDA(cudaFree(d.keys_in));
    CHECK_CUDA(cudaFree(d.keys_out));
    CHECK_CUDA(cudaFree(d.values_in));
    CHECK_CUDA(cudaFree(d.values_out));
    return failures;
}

int main(int argc, char** argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s INPUT WARMUP REPS\n", argv[0]);
        return 2;
    }
    const Input in = read_input(argv[1]);
    const int warmup = std::atoi(argv[2]), reps = std::max(1, std::atoi(argv[3]));
    if (in.rows > INT32_MAX || in.cols > INT32_MAX || in.nnz > INT32_MAX) {
        std::fprintf(stderr, "sizes beyond int\n");
        return 2;
    }
    const int failures = in.value_bytes == 4 ? run<float>(in, warmup, reps) : run<double>(in, warmup, reps);
    return failures ? 1 : 0;
}

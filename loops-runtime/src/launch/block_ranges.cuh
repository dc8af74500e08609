// loops for Rust: where each block's range starts (loops-runtime/src/launch/block_ranges.cuh).
extern "C" __global__ void __launch_bounds__(256) loops_block_starts(
    const int* __restrict__ offsets, const int tiles, const int slope, const long long items,
    const long long boundaries, int* __restrict__ starts, const unsigned long long starts_len)
{
    const long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= boundaries) return;
    const long long total = (long long)offsets[tiles] + (long long)slope * tiles;
    const long long bound = min(b * items, total);
    int lo = 0, hi = tiles;
    while (lo < hi) {
        const int mid = lo + (hi - lo + 1) / 2;
        if ((long long)offsets[mid] + (long long)slope * mid <= bound) lo = mid; else hi = mid - 1;
    }
    starts[b] = lo;
}

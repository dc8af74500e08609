
// ---- loops prelude: builtins of the kernel-body language ----
__device__ __forceinline__ float loops_min(float a, float b) { return fminf(a, b); }
__device__ __forceinline__ double loops_min(double a, double b) { return fmin(a, b); }
__device__ __forceinline__ float loops_max(float a, float b) { return fmaxf(a, b); }
__device__ __forceinline__ double loops_max(double a, double b) { return fmax(a, b); }
__device__ __forceinline__ float loops_abs(float a) { return fabsf(a); }
__device__ __forceinline__ double loops_abs(double a) { return fabs(a); }
__device__ __forceinline__ float loops_sqrt(float a) { return sqrtf(a); }
__device__ __forceinline__ double loops_sqrt(double a) { return sqrt(a); }
#define LOOPS_INT_BUILTINS(T) \
    __device__ __forceinline__ T loops_min(T a, T b) { return a < b ? a : b; } \
    __device__ __forceinline__ T loops_max(T a, T b) { return a < b ? b : a; }
LOOPS_INT_BUILTINS(int)
LOOPS_INT_BUILTINS(unsigned int)
LOOPS_INT_BUILTINS(long long)
LOOPS_INT_BUILTINS(unsigned long long)
#undef LOOPS_INT_BUILTINS
__device__ __forceinline__ int loops_abs(int a) { return a < 0 ? -a : a; }
__device__ __forceinline__ long long loops_abs(long long a) { return a < 0 ? -a : a; }

__device__ __forceinline__ float loops_atomic_add(float* p, float v) { return atomicAdd(p, v); }
__device__ __forceinline__ double loops_atomic_add(double* p, double v) { return atomicAdd(p, v); }
__device__ __forceinline__ int loops_atomic_add(int* p, int v) { return atomicAdd(p, v); }
__device__ __forceinline__ unsigned int loops_atomic_add(unsigned int* p, unsigned int v) { return atomicAdd(p, v); }
__device__ __forceinline__ unsigned long long loops_atomic_add(unsigned long long* p, unsigned long long v) { return atomicAdd(p, v); }
__device__ __forceinline__ long long loops_atomic_add(long long* p, long long v) {
    return (long long)atomicAdd((unsigned long long*)p, (unsigned long long)v);
}
__device__ __forceinline__ int loops_atomic_min(int* p, int v) { return atomicMin(p, v); }
__device__ __forceinline__ unsigned int loops_atomic_min(unsigned int* p, unsigned int v) { return atomicMin(p, v); }
__device__ __forceinline__ long long loops_atomic_min(long long* p, long long v) { return atomicMin(p, v); }
__device__ __forceinline__ unsigned long long loops_atomic_min(unsigned long long* p, unsigned long long v) { return atomicMin(p, v); }
__device__ __forceinline__ int loops_atomic_max(int* p, int v) { return atomicMax(p, v); }
__device__ __forceinline__ unsigned int loops_atomic_max(unsigned int* p, unsigned int v) { return atomicMax(p, v); }
__device__ __forceinline__ long long loops_atomic_max(long long* p, long long v) { return atomicMax(p, v); }
__device__ __forceinline__ unsigned long long loops_atomic_max(unsigned long long* p, unsigned long long v) { return atomicMax(p, v); }
// Float min/max by compare-and-swap on the bits: correct for every value, NaN stays unless replaced.
__device__ __forceinline__ float loops_atomic_min(float* p, float v) {
    int* bits = (int*)p; int old = *bits;
    while (v < __int_as_float(old)) {
        const int seen = atomicCAS(bits, old, __float_as_int(v));
        if (seen == old) break;
        old = seen;
    }
    return __int_as_float(old);
}
__device__ __forceinline__ float loops_atomic_max(float* p, float v) {
    int* bits = (int*)p; int old = *bits;
    while (v > __int_as_float(old)) {
        const int seen = atomicCAS(bits, old, __float_as_int(v));
        if (seen == old) break;
        old = seen;
    }
    return __int_as_float(old);
}
__device__ __forceinline__ double loops_atomic_min(double* p, double v) {
    unsigned long long* bits = (unsigned long long*)p; unsigned long long old = *bits;
    while (v < __longlong_as_double((long long)old)) {
        const unsigned long long seen = atomicCAS(bits, old, (unsigned long long)__double_as_longlong(v));
        if (seen == old) break;
        old = seen;
    }
    return __longlong_as_double((long long)old);
}
__device__ __forceinline__ double loops_atomic_max(double* p, double v) {
    unsigned long long* bits = (unsigned long long*)p; unsigned long long old = *bits;
    while (v > __longlong_as_double((long long)old)) {
        const unsigned long long seen = atomicCAS(bits, old, (unsigned long long)__double_as_longlong(v));
        if (seen == old) break;
        old = seen;
    }
    return __longlong_as_double((long long)old);
}
// The identities of min and max: +-infinity for floats, the extremes for integers.
template <typename T> __device__ __forceinline__ T loops_highest();
template <typename T> __device__ __forceinline__ T loops_lowest();
template <> __device__ __forceinline__ float loops_highest<float>() { return __int_as_float(0x7f800000); }
template <> __device__ __forceinline__ float loops_lowest<float>() { return __int_as_float(0xff800000); }
template <> __device__ __forceinline__ double loops_highest<double>() { return __longlong_as_double(0x7ff0000000000000ll); }
template <> __device__ __forceinline__ double loops_lowest<double>() { return __longlong_as_double((long long)0xfff0000000000000ull); }
template <> __device__ __forceinline__ int loops_highest<int>() { return 2147483647; }
template <> __device__ __forceinline__ int loops_lowest<int>() { return -2147483647 - 1; }
template <> __device__ __forceinline__ unsigned int loops_highest<unsigned int>() { return 0xffffffffu; }
template <> __device__ __forceinline__ unsigned int loops_lowest<unsigned int>() { return 0u; }
template <> __device__ __forceinline__ long long loops_highest<long long>() { return 0x7fffffffffffffffll; }
template <> __device__ __forceinline__ long long loops_lowest<long long>() { return -0x7fffffffffffffffll - 1; }
template <> __device__ __forceinline__ unsigned long long loops_highest<unsigned long long>() { return ~0ull; }
template <> __device__ __forceinline__ unsigned long long loops_lowest<unsigned long long>() { return 0ull; }
// Carry records of the segment schedules: each 32-bit half of a published value sits in its own
// 8-byte word, under the launch's stamp in the high half. An aligned 8-byte access is single-copy
// atomic, so a reader that sees the stamp sees the value: no fence orders a value before a flag,
// and none invalidates the L1 of the readers.
__device__ __forceinline__ unsigned long long loops_bits(float v) { return __float_as_uint(v); }
__device__ __forceinline__ unsigned long long loops_bits(double v) { return (unsigned long long)__double_as_longlong(v); }
__device__ __forceinline__ unsigned long long loops_bits(int v) { return (unsigned int)v; }
__device__ __forceinline__ unsigned long long loops_bits(unsigned int v) { return v; }
__device__ __forceinline__ unsigned long long loops_bits(long long v) { return (unsigned long long)v; }
__device__ __forceinline__ unsigned long long loops_bits(unsigned long long v) { return v; }
__device__ __forceinline__ unsigned long long loops_bits(bool v) { return v ? 1ull : 0ull; }
__device__ __forceinline__ float loops_unbits(unsigned long long b, float*) { return __uint_as_float((unsigned int)b); }
__device__ __forceinline__ double loops_unbits(unsigned long long b, double*) { return __longlong_as_double((long long)b); }
__device__ __forceinline__ int loops_unbits(unsigned long long b, int*) { return (int)(unsigned int)b; }
__device__ __forceinline__ unsigned int loops_unbits(unsigned long long b, unsigned int*) { return (unsigned int)b; }
__device__ __forceinline__ long long loops_unbits(unsigned long long b, long long*) { return (long long)b; }
__device__ __forceinline__ unsigned long long loops_unbits(unsigned long long b, unsigned long long*) { return b; }
__device__ __forceinline__ bool loops_unbits(unsigned long long b, bool*) { return b != 0ull; }
template <typename T> __device__ __forceinline__ void loops_publish(unsigned long long* at, unsigned int stamp, T v) {
    const unsigned long long bits = loops_bits(v), s = (unsigned long long)stamp << 32;
    volatile unsigned long long* const w = at;
    w[0] = s | (bits & 0xffffffffull);
    if (sizeof(T) > 4) w[1] = s | (bits >> 32);
}
template <typename T> __device__ __forceinline__ bool loops_ready(const unsigned long long* w, unsigned int stamp) {
    return (unsigned int)(w[0] >> 32) == stamp && (sizeof(T) <= 4 || (unsigned int)(w[1] >> 32) == stamp);
}
template <typename T> __device__ __forceinline__ T loops_value(const unsigned long long* w) {
    return loops_unbits((w[0] & 0xffffffffull) | (sizeof(T) > 4 ? w[1] << 32 : 0ull), (T*)0);
}
// ---- end of prelude ----


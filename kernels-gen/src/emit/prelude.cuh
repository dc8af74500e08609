
// ---- loops prelude: builtins of the kernel-body language ----
// Rust's float methods on CUDA's own math functions, a float and a double overload each, so that
// one generic body serves both. (Rust's `round` rounds half away from zero, as `roundf` does; its
// `min` and `max` ignore a NaN operand, as `fminf` and `fmaxf` do.)
#define LOOPS_FLOAT_MATH1(name, f, d) \
    __device__ __forceinline__ float loops_##name(float a) { return f(a); } \
    __device__ __forceinline__ double loops_##name(double a) { return d(a); }
#define LOOPS_FLOAT_MATH2(name, f, d) \
    __device__ __forceinline__ float loops_##name(float a, float b) { return f(a, b); } \
    __device__ __forceinline__ double loops_##name(double a, double b) { return d(a, b); }
LOOPS_FLOAT_MATH2(min, fminf, fmin)
LOOPS_FLOAT_MATH2(max, fmaxf, fmax)
LOOPS_FLOAT_MATH1(abs, fabsf, fabs)
LOOPS_FLOAT_MATH1(sqrt, sqrtf, sqrt)
LOOPS_FLOAT_MATH1(cbrt, cbrtf, cbrt)
LOOPS_FLOAT_MATH1(exp, expf, exp)
LOOPS_FLOAT_MATH1(exp2, exp2f, exp2)
LOOPS_FLOAT_MATH1(exp_m1, expm1f, expm1)
LOOPS_FLOAT_MATH1(ln, logf, log)
LOOPS_FLOAT_MATH1(log2, log2f, log2)
LOOPS_FLOAT_MATH1(log10, log10f, log10)
LOOPS_FLOAT_MATH1(ln_1p, log1pf, log1p)
LOOPS_FLOAT_MATH2(powf, powf, pow)
LOOPS_FLOAT_MATH1(floor, floorf, floor)
LOOPS_FLOAT_MATH1(ceil, ceilf, ceil)
LOOPS_FLOAT_MATH1(round, roundf, round)
LOOPS_FLOAT_MATH1(trunc, truncf, trunc)
LOOPS_FLOAT_MATH1(sin, sinf, sin)
LOOPS_FLOAT_MATH1(cos, cosf, cos)
LOOPS_FLOAT_MATH1(tan, tanf, tan)
LOOPS_FLOAT_MATH1(sinh, sinhf, sinh)
LOOPS_FLOAT_MATH1(cosh, coshf, cosh)
LOOPS_FLOAT_MATH1(tanh, tanhf, tanh)
LOOPS_FLOAT_MATH2(atan2, atan2f, atan2)
LOOPS_FLOAT_MATH2(hypot, hypotf, hypot)
LOOPS_FLOAT_MATH2(copysign, copysignf, copysign)
#undef LOOPS_FLOAT_MATH1
#undef LOOPS_FLOAT_MATH2
__device__ __forceinline__ float loops_mul_add(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ double loops_mul_add(double a, double b, double c) { return fma(a, b, c); }
__device__ __forceinline__ float loops_recip(float a) { return 1.0f / a; }
__device__ __forceinline__ double loops_recip(double a) { return 1.0 / a; }
// NaN and finiteness from the bits, which no fast-math flag assumes away.
__device__ __forceinline__ bool loops_is_nan(float a) { return (__float_as_uint(a) & 0x7fffffffu) > 0x7f800000u; }
__device__ __forceinline__ bool loops_is_nan(double a) {
    return ((unsigned long long)__double_as_longlong(a) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
}
__device__ __forceinline__ bool loops_is_finite(float a) { return (__float_as_uint(a) & 0x7f800000u) != 0x7f800000u; }
__device__ __forceinline__ bool loops_is_finite(double a) {
    return ((unsigned long long)__double_as_longlong(a) & 0x7ff0000000000000ull) != 0x7ff0000000000000ull;
}
// Rust's `signum`: 1.0 for +0.0, -1.0 for -0.0, NaN for NaN.
__device__ __forceinline__ float loops_signum(float a) { return loops_is_nan(a) ? a : copysignf(1.0f, a); }
__device__ __forceinline__ double loops_signum(double a) { return loops_is_nan(a) ? a : copysign(1.0, a); }
// Rust's `powi` on the CPU: square-and-multiply (compiler-rt's __powisf2), a negative exponent
// taking the reciprocal at the end.
template <typename F> __device__ __forceinline__ F loops_powi_by_squaring(F a, int n) {
    const bool reciprocal = n < 0;
    F r = F(1);
    for (;;) {
        if (n & 1) r *= a;
        n /= 2;
        if (n == 0) break;
        a *= a;
    }
    return reciprocal ? F(1) / r : r;
}
__device__ __forceinline__ float loops_powi(float a, int n) { return loops_powi_by_squaring(a, n); }
__device__ __forceinline__ double loops_powi(double a, int n) { return loops_powi_by_squaring(a, n); }
// Rust's `clamp` (which panics where `lo > hi`, or on a NaN bound): a NaN operand stays NaN.
template <typename T> __device__ __forceinline__ T loops_clamp(T a, T lo, T hi) {
    if (a < lo) a = lo;
    if (a > hi) a = hi;
    return a;
}
// The integer builtins. Signed arithmetic that may overflow goes through the unsigned type of the
// same width, where C++ defines it to wrap: Rust's wrapping ops (and its release-mode `pow` and
// `abs`), never undefined behaviour.
#define LOOPS_INT_BUILTINS(T, U, S, POPC, CLZ) \
    __device__ __forceinline__ T loops_min(T a, T b) { return a < b ? a : b; } \
    __device__ __forceinline__ T loops_max(T a, T b) { return a < b ? b : a; } \
    __device__ __forceinline__ T loops_wrapping_add(T a, T b) { return (T)((U)a + (U)b); } \
    __device__ __forceinline__ T loops_wrapping_sub(T a, T b) { return (T)((U)a - (U)b); } \
    __device__ __forceinline__ T loops_wrapping_mul(T a, T b) { return (T)((U)a * (U)b); } \
    __device__ __forceinline__ T loops_wrapping_neg(T a) { return (T)((U)0 - (U)a); } \
    __device__ __forceinline__ T loops_pow(T a, unsigned int e) { \
        U r = 1, b = (U)a; \
        for (; e != 0u; e >>= 1) { if (e & 1u) r *= b; b *= b; } \
        return (T)r; \
    } \
    __device__ __forceinline__ unsigned int loops_count_ones(T a) { return (unsigned int)POPC((U)a); } \
    __device__ __forceinline__ unsigned int loops_leading_zeros(T a) { return (unsigned int)CLZ((S)(U)a); }
LOOPS_INT_BUILTINS(int, unsigned int, int, __popc, __clz)
LOOPS_INT_BUILTINS(unsigned int, unsigned int, int, __popc, __clz)
LOOPS_INT_BUILTINS(long long, unsigned long long, long long, __popcll, __clzll)
LOOPS_INT_BUILTINS(unsigned long long, unsigned long long, long long, __popcll, __clzll)
#undef LOOPS_INT_BUILTINS
__device__ __forceinline__ int loops_abs(int a) { return a < 0 ? (int)(0u - (unsigned int)a) : a; }
__device__ __forceinline__ long long loops_abs(long long a) { return a < 0 ? (long long)(0ull - (unsigned long long)a) : a; }
__device__ __forceinline__ int loops_signum(int a) { return (a > 0) - (a < 0); }
__device__ __forceinline__ long long loops_signum(long long a) { return (long long)((a > 0) - (a < 0)); }
// The constants `T::MAX`, `f32::INFINITY`, ...: Rust's values, floats from their bits.
template <typename T> __device__ __forceinline__ T loops_const_max();
template <typename T> __device__ __forceinline__ T loops_const_min();
template <typename T> __device__ __forceinline__ T loops_const_infinity();
template <typename T> __device__ __forceinline__ T loops_const_neg_infinity();
template <typename T> __device__ __forceinline__ T loops_const_nan();
template <typename T> __device__ __forceinline__ T loops_const_epsilon();
template <typename T> __device__ __forceinline__ T loops_const_min_positive();
#define LOOPS_CONST(T, name, value) \
    template <> __device__ __forceinline__ T loops_const_##name<T>() { return value; }
LOOPS_CONST(float, max, __uint_as_float(0x7f7fffffu))
LOOPS_CONST(float, min, __uint_as_float(0xff7fffffu))
LOOPS_CONST(float, infinity, __uint_as_float(0x7f800000u))
LOOPS_CONST(float, neg_infinity, __uint_as_float(0xff800000u))
LOOPS_CONST(float, nan, __uint_as_float(0x7fc00000u))
LOOPS_CONST(float, epsilon, __uint_as_float(0x34000000u))
LOOPS_CONST(float, min_positive, __uint_as_float(0x00800000u))
LOOPS_CONST(double, max, __longlong_as_double(0x7fefffffffffffffll))
LOOPS_CONST(double, min, __longlong_as_double((long long)0xffefffffffffffffull))
LOOPS_CONST(double, infinity, __longlong_as_double(0x7ff0000000000000ll))
LOOPS_CONST(double, neg_infinity, __longlong_as_double((long long)0xfff0000000000000ull))
LOOPS_CONST(double, nan, __longlong_as_double(0x7ff8000000000000ll))
LOOPS_CONST(double, epsilon, __longlong_as_double(0x3cb0000000000000ll))
LOOPS_CONST(double, min_positive, __longlong_as_double(0x0010000000000000ll))
LOOPS_CONST(int, max, 2147483647)
LOOPS_CONST(int, min, -2147483647 - 1)
LOOPS_CONST(unsigned int, max, 0xffffffffu)
LOOPS_CONST(unsigned int, min, 0u)
LOOPS_CONST(long long, max, 0x7fffffffffffffffll)
LOOPS_CONST(long long, min, -0x7fffffffffffffffll - 1)
LOOPS_CONST(unsigned long long, max, ~0ull)
LOOPS_CONST(unsigned long long, min, 0ull)
#undef LOOPS_CONST

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
// `push(&mut list, &mut count[i], v)`: a warp-aggregated append. The lanes that reach the call
// together (`__activemask`: exactly the lanes that run this instruction as one) with the same
// counter elect their lowest lane, which adds their number to the counter with ONE atomic; the old value is broadcast with a
// shuffle over the same mask, and each lane takes the position base + its rank among them. A
// position at or past `len` is claimed (the counter counts every push, so the host sees the
// overflow as a count above the list's length) but not written. Returns the position.
// Lanes may push through different counters (`&mut count[bucket]`): the lanes of one counter
// (`__match_any_sync` on its address) are aggregated together, one atomic per counter.
template <typename C>
__device__ __forceinline__ unsigned long long loops_push_slot(C* count) {
    const unsigned int mask = __match_any_sync(__activemask(), (unsigned long long)count);
    unsigned int below;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(below));
    const int leader = __ffs(mask) - 1;
    const unsigned int rank = __popc(mask & below);
    C base = 0;
    if (rank == 0u) base = atomicAdd(count, (C)__popc(mask));
    base = __shfl_sync(mask, base, leader);
    return (unsigned long long)base + rank;
}
template <typename T, typename C, typename V>
__device__ __forceinline__ unsigned long long loops_push(T* list, unsigned long long len, C* count, V v) {
    const unsigned long long pos = loops_push_slot(count);
    if (pos < len) list[pos] = (T)v;
    return pos;
}
// A tile-only body's `push` statements onto one tile-invariant counter, staged per block
// (kernels_gen::schedule::tile_only::staged_pushes): a push claims a slot of the block's staging
// area (`stage`, `cap` values; the claim warp-aggregated on the shared count `n`); a claim past
// `cap` falls back to the warp's direct push. Once per block round every thread of the block
// reaches `loops_stage_flush`: one global atomic claims the staged values' positions and the block
// writes them out coalesced (a position at or past `len` claimed, not written, as `loops_push`).
template <typename T, typename C, typename V>
__device__ __forceinline__ void loops_stage_push(T* stage, unsigned int* n, unsigned int cap, T* list, unsigned long long len, C* count, V v) {
    const unsigned long long at = loops_push_slot(n);
    if (at < cap) stage[at] = (T)v;
    else (void)loops_push(list, len, count, v);
}
template <typename T, typename C>
__device__ __forceinline__ void loops_stage_flush(T* stage, unsigned int* n, C* base, unsigned int cap, T* list, unsigned long long len, C* count) {
    __syncthreads();
    const unsigned int m = min(*n, cap);
    if (threadIdx.x == 0 && m != 0u) *base = atomicAdd(count, (C)m);
    __syncthreads();
    // Every thread has read `n`: the next round starts from an empty area.
    if (threadIdx.x == 0) *n = 0u;
    for (unsigned int i = threadIdx.x; i < m; i += blockDim.x) {
        const unsigned long long p = (unsigned long long)*base + i;
        if (p < len) list[p] = stage[i];
    }
    __syncthreads();
}
// A tile-only body's tile-invariant atomic statement, accumulated in a register over the thread's
// tiles (kernels_gen::schedule::tile_only::aggregated_atomics), flushed once after the tile loop,
// which every thread of the block reaches: a warp reduces by shuffles, its lane 0 leaves the
// result in `partials` (one per warp, shared), and after a barrier warp 0 reduces those and its
// lane 0 issues the block's one atomic, unless the result is still the operation's identity.
// Blocks are whole warps (the front end's block sizes are multiples of 32).
template <typename U, typename F>
__device__ __forceinline__ U loops_block_fold(U v, U identity, U* partials, F f) {
    for (int o = 16; o > 0; o >>= 1) v = f(v, __shfl_xor_sync(0xffffffffu, v, o));
    const unsigned int lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    if (lane == 0u) partials[warp] = v;
    __syncthreads();
    v = identity;
    if (warp == 0u) {
        if (lane < (blockDim.x >> 5)) v = partials[lane];
        for (int o = 16; o > 0; o >>= 1) v = f(v, __shfl_xor_sync(0xffffffffu, v, o));
    }
    return v;
}
template <typename T, typename U, typename I>
__device__ __forceinline__ void loops_flush_add(T* p, U v, I zero, U* partials) {
    v = loops_block_fold(v, (U)zero, partials, [](U a, U b) { return (U)(a + b); });
    if (threadIdx.x == 0u && v != (U)zero) (void)loops_atomic_add(p, (T)v);
}
template <typename T, typename U, typename I>
__device__ __forceinline__ void loops_flush_max(T* p, U v, I lowest, U* partials) {
    v = loops_block_fold(v, (U)lowest, partials, [](U a, U b) { return a > b ? a : b; });
    if (threadIdx.x == 0u && v != (U)lowest) (void)loops_atomic_max(p, (T)v);
}
template <typename T, typename U, typename I>
__device__ __forceinline__ void loops_flush_min(T* p, U v, I highest, U* partials) {
    v = loops_block_fold(v, (U)highest, partials, [](U a, U b) { return a < b ? a : b; });
    if (threadIdx.x == 0u && v != (U)highest) (void)loops_atomic_min(p, (T)v);
}
// An atomic on a `#[block_shared]` array that mixes operations records the slot's operation for
// the flush (kernels_gen::schedule::block_shared); a skipped (out-of-range) target records none.
template <typename T>
__device__ __forceinline__ T* loops_block_tag(T* p, T* base, unsigned char* tags, unsigned char op) {
    if (p != nullptr) tags[p - base] = op;
    return p;
}
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
// `lanes` loops of four values per lane (kernels-gen/src/schedule/lanes.rs): the four consecutive
// elements at `p`, in one 16-byte load (two for 8-byte types) where `p` is 16-byte aligned, else in
// four loads.
template <typename U> struct LoopsVec4 { U v[4]; };
template <typename U, int N> struct alignas(16) LoopsVec16 { U v[N]; };
template <typename U> __device__ __forceinline__ LoopsVec4<U> loops_load4(const U* p) {
    LoopsVec4<U> r;
    if constexpr (sizeof(U) == 4 || sizeof(U) == 8) {
        if ((((unsigned long long)p) & 15ull) == 0ull) {
            constexpr int N = 16 / (int)sizeof(U);
            const LoopsVec16<U, N>* q = reinterpret_cast<const LoopsVec16<U, N>*>(p);
#pragma unroll
            for (int h = 0; h < 4 / N; ++h) {
                const LoopsVec16<U, N> x = q[h];
#pragma unroll
                for (int e = 0; e < N; ++e) r.v[h * N + e] = x.v[e];
            }
            return r;
        }
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) r.v[e] = p[e];
    return r;
}
// Stores `a, b, c, d` at `p .. p + 4` (one or two 16-byte stores where `p` is 16-byte aligned).
template <typename U> __device__ __forceinline__ void loops_store4(U* p, const U a, const U b, const U c, const U d) {
    const U x[4] = {a, b, c, d};
    if constexpr (sizeof(U) == 4 || sizeof(U) == 8) {
        if ((((unsigned long long)p) & 15ull) == 0ull) {
            constexpr int N = 16 / (int)sizeof(U);
            LoopsVec16<U, N>* q = reinterpret_cast<LoopsVec16<U, N>*>(p);
#pragma unroll
            for (int h = 0; h < 4 / N; ++h) {
                LoopsVec16<U, N> y;
#pragma unroll
                for (int e = 0; e < N; ++e) y.v[e] = x[h * N + e];
                q[h] = y;
            }
            return;
        }
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) p[e] = x[e];
}
// Programmatic dependent launch (Hopper and newer): every entry point first waits until the kernel
// before it on the stream has finished and its writes are visible, then lets the kernel after it
// start launching. Both are no-ops for a kernel launched the ordinary way; launched with the
// programmatic attribute (the runtime's default on Hopper, `Gpu::set_programmatic_launch`), each
// launch's latency hides under the previous kernel. The runtime's hand-written kernels that it
// launches so carry the same function (graph/compact.cuh).
__device__ __forceinline__ void loops_grid_dependency() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
// `hierarchical`'s levels: lane 0 of the pass before the block pass, for a tile (`pos`) with
// `left` atoms left. Where they are at least two pieces of `piece` atoms, it takes
// `ceil(left / piece)` slots from the count `counts[pieces_at]` (one atomicAdd) and, where they
// fit the `n` slots, maps each to the tile and its first slot and writes the piece count to
// `done[first]` (high half; the low half counts finished pieces); a tile whose slots run past `n`
// marks those it took empty. A tile not cut is listed for the block pass, at the back of `out`
// (counted by `counts[long_at]`, taken first) where it has more than `long_tile` atoms left.
// Out of line: its registers stay off the first pass's loop, which it shares a function with.
static __device__ __noinline__ void loops_hier_list(unsigned int* counts, unsigned int* out,
                                                    unsigned long long* map,
                                                    unsigned long long* done, long long n,
                                                    long long left, long long piece,
                                                    unsigned int pos, int next_at, int pieces_at,
                                                    int long_at, long long long_tile) {
    bool cut = false;
    if (left >= 2 * piece) {
        const unsigned int c = (unsigned int)((left + piece - 1) / piece);
        const unsigned int old = atomicAdd(counts + pieces_at, c);
        cut = (long long)old + c <= n;
        if (cut) {
            done[old] = (unsigned long long)c << 32;
            for (unsigned int k = 0u; k < c; ++k)
                map[old + k] = ((unsigned long long)old << 32) | (unsigned long long)pos;
        } else {
            for (long long k = old; k < n; ++k) map[k] = 0xffffffffffffffffull;
        }
    }
    if (!cut) {
        if (left > long_tile) out[n - 1 - atomicAdd(counts + long_at, 1u)] = pos;
        else out[atomicAdd(counts + next_at, 1u)] = pos;
    }
}
// ---- end of prelude ----


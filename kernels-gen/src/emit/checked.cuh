
// ---- loops checked mode: bounds checks ----
template <typename T>
__device__ __forceinline__ T* loops_ptr(T* base, long long i, unsigned long long len, int site, int line,
                                        unsigned long long* fault) {
    if (i >= 0 && (unsigned long long)i < len) return base + i;
    if (atomicCAS(fault, 0ull, 1ull) == 0ull) {
        fault[1] = (unsigned long long)site;
        fault[2] = (unsigned long long)i;
        fault[3] = len;
        fault[4] = (unsigned long long)line;
    }
    return nullptr;
}
template <typename T> __device__ __forceinline__ T loops_load(const T* p) { return p ? *p : T(0); }
#define LOOPS_CHECKED_ATOMIC(NAME) \
    template <typename T> __device__ __forceinline__ T loops_checked_##NAME(T* p, T v) { return p ? loops_##NAME(p, v) : T(0); }
LOOPS_CHECKED_ATOMIC(atomic_add)
LOOPS_CHECKED_ATOMIC(atomic_min)
LOOPS_CHECKED_ATOMIC(atomic_max)
#undef LOOPS_CHECKED_ATOMIC
// A push whose counter is out of range is skipped (returns 0); one past the list's end is
// claimed and counted as in the plain variant, and recorded as a fault on the list.
template <typename T, typename C, typename V>
__device__ __forceinline__ unsigned long long loops_checked_push(T* list, unsigned long long len, C* count, V v,
                                                                 int site, int line, unsigned long long* fault) {
    if (count == nullptr) return 0ull;
    const unsigned long long pos = loops_push_slot(count);
    T* const p = loops_ptr(list, (long long)pos, len, site, line, fault);
    if (p) *p = (T)v;
    return pos;
}

// ---- end of checked mode ----


// loops for Rust: the stream hold of the runtime's measurements (loops-runtime/src/tune/hold.cuh),
// used by `auto`'s tuning and by the ops that time their plans (`tune::measure`).

// One thread spins for `ns` nanoseconds of the GPU's global timer: the stream is held while the
// host queues the timed launches behind it, so that none of them waits for the host between its
// events (a small kernel takes less time than the host needs to queue it).
extern "C" __global__ void loops_hold_stream(const unsigned long long ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

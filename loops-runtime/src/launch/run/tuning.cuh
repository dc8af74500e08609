// loops for Rust: the runtime's CUDA for auto's tuning (loops-runtime/src/launch/run/tuning.cuh).

// One thread spins for `ns` nanoseconds of the GPU's global timer: the stream is held while the
// host queues the timed launches behind it.
extern "C" __global__ void loops_hold_stream(const unsigned long long ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

// The look-back's read of the records before the block, one per lane of the first warp: inside
// the loop over rounds of 32 records (`loops_c0`, the newest of the round). Each lane keeps the
// whole record of block `loops_c` in registers (one sector for one accumulator), read again until
// every word of its inclusive (`$inclusive_ready`) or of its aggregate (`$aggregate_ready`)
// partials carries this launch's stamp. The record was published without a fence: a word with
// this launch's stamp holds this launch's value. The nearest lane with an inclusive record stops
// the look-back (`loops_stops`); the lanes up to it are summed (`loops_in`).
const long long loops_c = loops_c0 - (long long)threadIdx.x;
unsigned long long loops_w[$slots] = {};
bool loops_complete = true;
if (loops_c >= 0) {
    const volatile unsigned long long* const loops_theirs = loops_data + loops_c * $slots;
    for (;;) {
        #pragma unroll
        for (int loops_k = 0; loops_k < $slots; ++loops_k) loops_w[loops_k] = loops_theirs[loops_k];
        if ($inclusive_ready) break;
        if ($aggregate_ready) {
            loops_complete = false;
            break;
        }
        // The record's block has started (its ticket came first) and waits only on blocks
        // before it: it will publish.
        __nanosleep(32);
    }
}
const unsigned int loops_stops = __ballot_sync(0xffffffffu, loops_complete);
const bool loops_in = loops_c >= 0 && (loops_stops == 0u || (int)threadIdx.x <= __ffs(loops_stops) - 1);

// The block's place in the look-back's order (`loops_chunk`), from a ticket taken when it
// starts: a block only ever waits for blocks that are already running. Scratch slot 0 holds the
// launch's epoch (high half) and the next ticket (low half); the last block to take a ticket
// starts the next epoch with ticket 0, so the scratch needs no reset between launches. The
// epoch stamps the block's record (`loops_stamp`). `loops_ticket`, an `unsigned long long` of
// shared memory, is declared before this (`Cx::shared`).
if (threadIdx.x == 0) {
    const unsigned long long loops_t = atomicAdd(loops_scratch, 1ull);
    if ((unsigned int)loops_t == gridDim.x - 1u) atomicAdd(loops_scratch, (1ull << 32) - gridDim.x);
    loops_ticket = loops_t;
}
__syncthreads();
const long long loops_chunk = (long long)(unsigned int)loops_ticket;
const unsigned long long loops_epoch = (loops_ticket >> 32) + 1ull;

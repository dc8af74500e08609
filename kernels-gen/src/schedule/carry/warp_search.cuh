// The largest x in lo..=hi with $searched[x] + slope * x <= bound, by one warp: each round every
// lane tests one of 32 evenly spaced candidates, and the count of passes narrows the range
// 31-fold (five rounds for 2^24 tiles, 32 sectors of L2 traffic each; a block-wide search would
// move eight times the bytes). Emitted on one line.
auto loops_warp_search = [&](long long lo, long long hi, long long bound, int slope) {
    const long long lane = threadIdx.x & 31;
    while (lo < hi) {
        const long long span = hi - lo;
        const long long at = lo + 1 + (span - 1) * lane / 31;
        const int passed = __popc(__ballot_sync(0xffffffffu, (long long)$searched[at] + slope * at <= bound));
        if (passed == 0) hi = lo; else if (passed == 32) lo = hi;
        else { const long long next = lo + 1 + (span - 1) * passed / 31; lo = lo + 1 + (span - 1) * (passed - 1) / 31; hi = next - 1; }
    }
    return (int)lo;
};

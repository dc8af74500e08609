// A thread's binary search of the offsets for its segment: the largest mid in $lo..=$hi with
// $probe <= $bound, where $probe reads offset `mid` (plus `mid` on the merge path). An
// expression, emitted on one line.
[&]() {
    int lo = (int)($lo), hi = (int)($hi);
    while (lo < hi) {
        const int mid = (lo + hi + 1) >> 1;
        if ($probe <= $bound) lo = mid; else hi = mid - 1;
    }
    return lo;
}()

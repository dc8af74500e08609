//! Segmented sums over a plain `Offsets` layout: tile `s` is the segment
//! `data[offsets[s]..offsets[s + 1]]`, its atoms are indices into the user's own array.

use loops::prelude::*;

#[for_schedules(
    thread,
    group2,
    warp,
    group64,
    block,
    work_oriented,
    merge_path,
    split,
    hierarchical,
    lrb,
    auto
)]
pub fn segment_sums<T: Float>(g: Offsets, data: &[T], sums: &mut [T]) {
    for s in g.tiles() {
        let mut sum = 0.0;
        for i in g.atoms(s) {
            sum += data[i];
        }
        sums[s] = sum;
    }
}

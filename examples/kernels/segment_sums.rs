//! Segmented sums over a plain `Offsets` layout: tile `s` is the segment
//! `data[offsets[s]..offsets[s + 1]]`, its atoms are indices into the user's own array.

use loops::prelude::*;

#[for_schedules(core)]
pub fn segment_sums<T: Float>(g: Offsets, data: &[T], sums: &mut [T]) {
    for s in g.tiles() {
        let mut sum = 0.0;
        for i in g.atoms(s) {
            sum += data[i];
        }
        sums[s] = sum;
    }
}

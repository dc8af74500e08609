// A tile loop with no atom loop (per-tile work) is a kernel under every schedule: one thread per
// tile, the body once per tile, whatever the schedule named (`kernels_gen::schedule::tile_only`).
use loops::prelude::*;

#[for_schedules(all)]
pub fn scale(a: Csr<f32>, y: &mut [f32]) {
    for row in a.tiles() {
        y[row] = 2.0;
    }
}

fn main() {
    assert_eq!(SCHEDULES.len(), loops::SCHEDULES.len());
    for (name, source) in SOURCES {
        assert!(source.contains("(schedule thread, block size 256)"), "{name}");
    }
}

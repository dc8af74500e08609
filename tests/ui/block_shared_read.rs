use loops::prelude::*;

#[load_balanced(schedule = "thread")]
pub fn sizes(a: Offsets, #[block_shared] hist: &mut [u32; 4], out: &mut [u32]) {
    for t in a.tiles() {
        atomic_add(&mut hist[t % 4], 1);
        out[t] = hist[t % 4];
    }
}

fn main() {}

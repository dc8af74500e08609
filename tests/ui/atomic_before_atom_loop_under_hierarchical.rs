use loops::prelude::*;

#[load_balanced(schedule = "hierarchical", mdt = 64)]
pub fn visits(g: Offsets, count: &mut [u32], out: &mut [u32]) {
    for v in g.tiles() {
        let seen = atomic_add(&mut count[0], 1u32);
        let mut n = 0u32;
        for e in g.atoms(v) {
            n += 1;
        }
        out[v] = n + seen;
    }
}

fn main() {}

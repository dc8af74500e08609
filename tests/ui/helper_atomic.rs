use loops::prelude::*;

#[device]
fn bump(count: u32) -> u32 {
    let mut c = count;
    atomic_add(&mut c, 1);
    c
}

#[load_balanced(schedule = "thread")]
pub fn counts(a: Offsets, out: &mut [u32]) {
    for t in a.tiles() {
        for i in a.atoms(t) {
            out[i] = bump(0);
        }
    }
}

fn main() {}

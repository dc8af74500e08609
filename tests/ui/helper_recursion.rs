use loops::prelude::*;

#[device]
fn power(x: f32, n: u32) -> f32 {
    if n == 0 {
        return 1.0;
    }
    x * power(x, n - 1)
}

// Each calls the other: refused where a kernel calls one of them.
#[device]
fn even(n: u32) -> bool {
    if n == 0 {
        return true;
    }
    odd(n - 1)
}

#[device]
fn odd(n: u32) -> bool {
    if n == 0 {
        return false;
    }
    even(n - 1)
}

#[load_balanced(schedule = "thread")]
pub fn parity(a: Offsets, out: &mut [u32]) {
    for t in a.tiles() {
        for i in a.atoms(t) {
            out[i] = if_even(even(i as u32));
        }
    }
}

#[device]
fn if_even(e: bool) -> u32 {
    if e {
        return 1;
    }
    0
}

fn main() {}

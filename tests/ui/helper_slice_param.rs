use loops::prelude::*;

#[device]
fn first<T: Float>(x: &[T]) -> T {
    x[0]
}

fn main() {}

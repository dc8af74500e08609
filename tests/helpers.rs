//! Where a kernel finds its `#[device]` helpers (the rules of kernels-gen/README.md#helper-functions):
//! in its module, before or after it; in a parent module; imported by name from another module
//! (with the helpers they call); and which helpers remain Rust functions on the host.

mod math {
    use loops::prelude::*;

    /// Plain Rust too: concrete, and calls no function.
    #[loops::device]
    pub fn halve(v: f32) -> f32 {
        v.abs() * 0.5
    }

    #[device]
    pub fn square<T: Float>(x: T) -> T {
        x * x
    }

    #[device]
    pub fn norm2<T: Float>(p: T, q: T) -> T {
        sqrt(square(p) + square(q))
    }
}

mod kernels {
    use crate::math::{halve, norm2, square};
    use loops::prelude::*;

    // Before the helper it calls, which is in the same module.
    #[load_balanced(schedule = "warp")]
    pub fn first<T: Float>(a: Csr<T>, y: &mut [T]) {
        for row in a.tiles() {
            let mut m = 0.0;
            for nz in a.atoms(row) {
                m = max(m, norm2(a.values[nz], later(a.values[nz])));
            }
            y[row] = m;
        }
    }

    #[device]
    fn later<T: Float>(v: T) -> T {
        -v
    }

    pub mod inner {
        // `later` and the imports of the parent module, through `super::*`.
        use super::*;

        #[load_balanced(schedule = "thread")]
        pub fn second(a: Csr<f32>, y: &mut [f32]) {
            for row in a.tiles() {
                for nz in a.atoms(row) {
                    y[row] = halve(later(a.values[nz]));
                }
            }
        }
    }
}

#[test]
fn kernels_find_their_helpers_where_functions_would_be() {
    let first = kernels::first::CUDA_SOURCE;
    for helper in ["square", "norm2", "later"] {
        assert!(first.contains(&format!("T loops_fn_{helper}(")), "{first}");
    }
    assert!(first.contains("loops_fn_norm2<T>(a_values[nz], loops_fn_later<T>(a_values[nz]))"));
    assert!(!first.contains("loops_fn_halve"));
    let second = kernels::inner::second::CUDA_SOURCE;
    assert!(
        second.contains("float loops_fn_halve(const float v) {"),
        "{second}"
    );
    assert!(second.contains("loops_fn_halve(loops_fn_later<float>(a_values[nz]))"));
}

#[test]
fn a_concrete_helper_that_calls_nothing_is_also_a_host_function() {
    assert_eq!(math::halve(-3.0), 1.5);
}

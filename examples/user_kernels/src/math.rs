//! Helper functions the kernels call: written once in the kernel language, each becomes a CUDA
//! `__device__` function of the kernels that call it.

use loops::prelude::*;

/// How far `v` lies beyond `t` from zero, or zero.
#[device]
pub fn excess<T: Float>(v: T, t: T) -> T {
    max(abs(v) - t, 0.0)
}

/// `v` moved toward zero by `t`, and zero within `t` of it: the proximal step of the L1 norm.
#[device]
pub fn soft_threshold<T: Float>(v: T, t: T) -> T {
    signum(v) * excess(v, t)
}

//! Two kernels that call every builtin of the kernel language and name every constant: the
//! float ones under f32 and f64 (one generic kernel), the integer ones on i32, u32, i64, u64 and
//! usize. Each atom writes every result to its own slots of the outputs, so a test can compare
//! them one by one with Rust's methods. Included by path (`#[path = "common/builtins.rs"]`) by the
//! NVRTC compile test and the GPU test.
// The integer kernel's wrapper takes eleven arguments.
#![allow(dead_code, clippy::too_many_arguments)]

use loops::prelude::*;

/// The float results each atom writes, from `i * FLOAT_SLOTS`.
pub const FLOAT_SLOTS: usize = 44;

/// Half the builtins are called as functions, half as methods: both forms are the same call.
#[load_balanced(schedule = "thread")]
pub fn float_builtins<T: Float>(g: Offsets, x: &[T], y: &[T], n: &[i32], out: &mut [T]) {
    for t in g.tiles() {
        for i in g.atoms(t) {
            let a = x[i];
            let b = y[i];
            let o = i * 44;
            out[o] = a.min(b);
            out[o + 1] = max(a, b);
            out[o + 2] = a.abs();
            out[o + 3] = signum(a);
            out[o + 4] = a.clamp(-1.5, 2.0);
            out[o + 5] = sqrt(a);
            out[o + 6] = a.cbrt();
            out[o + 7] = recip(a);
            out[o + 8] = a.exp();
            out[o + 9] = exp2(a);
            out[o + 10] = a.exp_m1();
            out[o + 11] = ln(a);
            out[o + 12] = a.log2();
            out[o + 13] = log10(a);
            out[o + 14] = a.ln_1p();
            out[o + 15] = powf(a, b);
            out[o + 16] = a.powi(n[i]);
            out[o + 17] = mul_add(a, b, 0.25);
            out[o + 18] = a.floor();
            out[o + 19] = ceil(a);
            out[o + 20] = a.round();
            out[o + 21] = trunc(a);
            out[o + 22] = a.sin();
            out[o + 23] = cos(a);
            out[o + 24] = a.tan();
            out[o + 25] = sinh(a);
            out[o + 26] = a.cosh();
            out[o + 27] = tanh(a);
            out[o + 28] = a.atan2(b);
            out[o + 29] = hypot(a, b);
            out[o + 30] = a.copysign(b);
            out[o + 31] = (a.is_nan() as u32) as T;
            out[o + 32] = is_finite(a) as u32 as T;
            out[o + 33] = T::MAX;
            out[o + 34] = T::MIN;
            out[o + 35] = T::INFINITY;
            out[o + 36] = T::NEG_INFINITY;
            out[o + 37] = T::NAN;
            out[o + 38] = T::EPSILON;
            out[o + 39] = T::MIN_POSITIVE;
            out[o + 40] = T::from(2.5) * a;
            out[o + 41] = T::from(n[i]) + T::from(i as f64);
            out[o + 42] = f32::EPSILON as T + f64::MIN_POSITIVE as T;
            out[o + 43] = (a - b).exp().max(T::NEG_INFINITY);
        }
    }
}

/// The results each atom writes per integer type, from `i * INT_SLOTS`.
pub const INT_SLOTS: usize = 14;

#[load_balanced(schedule = "thread")]
pub fn integer_builtins(
    g: Offsets,
    xs: &[i32],
    us: &[u32],
    ls: &[i64],
    ws: &[u64],
    e: &[u32],
    o32: &mut [i32],
    ou32: &mut [u32],
    o64: &mut [i64],
    ou64: &mut [u64],
) {
    for t in g.tiles() {
        for i in g.atoms(t) {
            let k = i * 14;
            let x = xs[i];
            let y = x ^ 1431655765;
            o32[k] = x.min(y);
            o32[k + 1] = max(x, y);
            o32[k + 2] = x.abs();
            o32[k + 3] = signum(x);
            o32[k + 4] = x.clamp(-100, 100);
            o32[k + 5] = x.pow(e[i]);
            o32[k + 6] = count_ones(x) as i32;
            o32[k + 7] = x.leading_zeros() as i32;
            o32[k + 8] = x.wrapping_add(y);
            o32[k + 9] = wrapping_sub(x, y);
            o32[k + 10] = x.wrapping_mul(y);
            o32[k + 11] = x.wrapping_neg();
            o32[k + 12] = i32::MAX;
            o32[k + 13] = i32::MIN;

            let u = us[i];
            let v = u ^ 2863311530;
            ou32[k] = min(u, v);
            ou32[k + 1] = u.max(v);
            ou32[k + 2] = u.clamp(10, 1000);
            ou32[k + 3] = pow(u, e[i]);
            ou32[k + 4] = u.count_ones();
            ou32[k + 5] = leading_zeros(u);
            ou32[k + 6] = wrapping_add(u, v);
            ou32[k + 7] = u.wrapping_sub(v);
            ou32[k + 8] = wrapping_mul(u, v);
            ou32[k + 9] = wrapping_neg(u);
            ou32[k + 10] = u32::MAX;
            ou32[k + 11] = u32::MIN;
            ou32[k + 12] = (i as u32).wrapping_mul(2654435769);
            ou32[k + 13] = u32::from(x < 0) + u32::from(u.count_ones() > 16);

            let l = ls[i];
            let m = l ^ 6148914691236517205;
            o64[k] = min(l, m);
            o64[k + 1] = l.max(m);
            o64[k + 2] = abs(l);
            o64[k + 3] = l.signum();
            o64[k + 4] = clamp(l, -100000, 100000);
            o64[k + 5] = l.pow(e[i]);
            o64[k + 6] = l.count_ones() as i64;
            o64[k + 7] = leading_zeros(l) as i64;
            o64[k + 8] = wrapping_add(l, m);
            o64[k + 9] = l.wrapping_sub(m);
            o64[k + 10] = wrapping_mul(l, m);
            o64[k + 11] = l.wrapping_neg();
            o64[k + 12] = i64::MAX;
            o64[k + 13] = i64::MIN;

            let w = ws[i];
            let z = w ^ 12297829382473034410;
            ou64[k] = w.min(z);
            ou64[k + 1] = max(w, z);
            ou64[k + 2] = w.clamp(10, 1000000);
            ou64[k + 3] = w.pow(e[i]);
            ou64[k + 4] = w.count_ones() as u64;
            ou64[k + 5] = w.leading_zeros() as u64;
            ou64[k + 6] = w.wrapping_add(z);
            ou64[k + 7] = wrapping_sub(w, z);
            ou64[k + 8] = w.wrapping_mul(z);
            ou64[k + 9] = w.wrapping_neg();
            ou64[k + 10] = u64::MAX;
            ou64[k + 11] = usize::MAX as u64;
            ou64[k + 12] = i.wrapping_mul(11400714819323198485).leading_zeros() as u64;
            ou64[k + 13] = (i.count_ones() + i.pow(3).count_ones()) as u64;
        }
    }
}

/// Builtins, constants and conversions in the bounds of the loop around the atom loop, which a
/// carry schedule also evaluates on the host (its number of rounds), in Rust.
#[load_balanced(schedule = "merge_path")]
pub fn round_bounds<T: Float>(a: Csr<T>, b: &[T], c: &mut [T], k: u32) {
    for row in a.tiles() {
        for j in 0..k.min(u32::MAX).max(1) + ((T::EPSILON > T::from(0.0)) as u32) - 1 {
            let mut s = 0.0;
            for nz in a.atoms(row) {
                s += a.values[nz] * b[(a.col_indices[nz] as usize) * (k as usize) + (j as usize)];
            }
            c[row * (k as usize) + (j as usize)] = s;
        }
    }
}

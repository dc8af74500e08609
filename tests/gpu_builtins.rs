//! The builtins and constants of the kernel language on the GPU against Rust's own methods
//! (`tests/common/builtins.rs`): every float builtin under f32 and f64, every integer builtin on
//! every integer type, on special values (signed zeros, NaN, infinities, halves for `round`,
//! extreme integers) and random ones. Exact where CUDA's function is correctly rounded or exact
//! (and for every integer result), within a few ulps for the transcendental functions.
#![cfg(feature = "gpu")]

#[path = "common/builtins.rs"]
mod builtins;
mod common;

use builtins::{FLOAT_SLOTS, INT_SLOTS};
use loops::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// How a float result is compared with Rust's. NaN matches any NaN.
#[derive(Clone, Copy, Debug)]
enum Cmp {
    /// The same bits: `signum(-0.0)` is `-1.0`, `round(-0.4)` is `-0.0`.
    Bits,
    /// The same value (`min(0.0, -0.0)` may be either zero).
    Value,
    /// At most this many ulps apart.
    Ulps(u64),
}

const FLOAT_SLOT_NAMES: [(&str, Cmp); FLOAT_SLOTS] = [
    ("min", Cmp::Value),
    ("max", Cmp::Value),
    ("abs", Cmp::Bits),
    ("signum", Cmp::Bits),
    ("clamp", Cmp::Bits),
    ("sqrt", Cmp::Bits),
    ("cbrt", Cmp::Ulps(2)),
    ("recip", Cmp::Bits),
    ("exp", Cmp::Ulps(4)),
    ("exp2", Cmp::Ulps(4)),
    ("exp_m1", Cmp::Ulps(4)),
    ("ln", Cmp::Ulps(4)),
    ("log2", Cmp::Ulps(4)),
    ("log10", Cmp::Ulps(4)),
    ("ln_1p", Cmp::Ulps(4)),
    ("powf", Cmp::Ulps(8)),
    ("powi", Cmp::Ulps(2)),
    ("mul_add", Cmp::Bits),
    ("floor", Cmp::Bits),
    ("ceil", Cmp::Bits),
    ("round", Cmp::Bits),
    ("trunc", Cmp::Bits),
    ("sin", Cmp::Ulps(4)),
    ("cos", Cmp::Ulps(4)),
    ("tan", Cmp::Ulps(8)),
    ("sinh", Cmp::Ulps(4)),
    ("cosh", Cmp::Ulps(4)),
    ("tanh", Cmp::Ulps(4)),
    ("atan2", Cmp::Ulps(4)),
    ("hypot", Cmp::Ulps(4)),
    ("copysign", Cmp::Bits),
    ("is_nan", Cmp::Bits),
    ("is_finite", Cmp::Bits),
    ("MAX", Cmp::Bits),
    ("MIN", Cmp::Bits),
    ("INFINITY", Cmp::Bits),
    ("NEG_INFINITY", Cmp::Bits),
    ("NAN", Cmp::Bits),
    ("EPSILON", Cmp::Bits),
    ("MIN_POSITIVE", Cmp::Bits),
    ("T::from(2.5) * a", Cmp::Bits),
    ("T::from(n) + T::from(i as f64)", Cmp::Bits),
    ("f32::EPSILON as T + f64::MIN_POSITIVE as T", Cmp::Bits),
    ("(a - b).exp().max(T::NEG_INFINITY)", Cmp::Ulps(4)),
];

/// The inputs: specials first, then random values.
struct Inputs {
    x: Vec<f64>,
    y: Vec<f64>,
    n: Vec<i32>,
}

fn float_inputs(len: usize, seed: u64) -> Inputs {
    let specials = [
        0.0,
        -0.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        -0.4,
        1e-3,
        -1e-3,
        3.0,
        -7.25,
        100.0,
        1e-30,
        1.0,
        -1.0,
    ];
    let y_cycle = [2.0, -3.0, 0.5, 0.0, -0.0, f64::NAN, 1.5, -2.5, 10.0, 0.3];
    let n_cycle = [-3, -1, 0, 1, 2, 5, 17, 31, -31, i32::MIN, i32::MAX];
    let mut rng = StdRng::seed_from_u64(seed);
    let mut inputs = Inputs {
        x: vec![],
        y: vec![],
        n: vec![],
    };
    for i in 0..len {
        let x = specials
            .get(i)
            .copied()
            .unwrap_or_else(|| rng.random_range(-10.0..10.0));
        inputs.x.push(x);
        inputs.y.push(if i < 2 * specials.len() {
            y_cycle[i % y_cycle.len()]
        } else {
            rng.random_range(-4.0..4.0)
        });
        inputs.n.push(if i < 2 * specials.len() {
            n_cycle[i % n_cycle.len()]
        } else {
            rng.random_range(-20..=20)
        });
    }
    inputs
}

/// Checks `float_builtins` under one float type against Rust's methods of that type.
macro_rules! check_floats {
    ($t:ty, $ordered:expr, $gpu:expr, $offsets:expr, $inputs:expr) => {{
        let inputs: &Inputs = $inputs;
        let x: Vec<$t> = inputs.x.iter().map(|&v| v as $t).collect();
        let y: Vec<$t> = inputs.y.iter().map(|&v| v as $t).collect();
        let gpu: &Gpu = $gpu;
        let mut out = gpu.zeros::<$t>(x.len() * FLOAT_SLOTS).unwrap();
        builtins::float_builtins(
            gpu,
            $offsets,
            &gpu.upload(&x).unwrap(),
            &gpu.upload(&y).unwrap(),
            &gpu.upload(&inputs.n).unwrap(),
            &mut out,
        )
        .unwrap();
        let got = gpu.download(&out).unwrap();
        let mut failures = Vec::new();
        for i in 0..x.len() {
            let (a, b, n) = (x[i], y[i], inputs.n[i]);
            let want: [$t; FLOAT_SLOTS] = [
                a.min(b),
                a.max(b),
                a.abs(),
                a.signum(),
                a.clamp(-1.5, 2.0),
                a.sqrt(),
                a.cbrt(),
                a.recip(),
                a.exp(),
                a.exp2(),
                a.exp_m1(),
                a.ln(),
                a.log2(),
                a.log10(),
                a.ln_1p(),
                a.powf(b),
                a.powi(n),
                a.mul_add(b, 0.25),
                a.floor(),
                a.ceil(),
                a.round(),
                a.trunc(),
                a.sin(),
                a.cos(),
                a.tan(),
                a.sinh(),
                a.cosh(),
                a.tanh(),
                a.atan2(b),
                a.hypot(b),
                a.copysign(b),
                a.is_nan() as u32 as $t,
                a.is_finite() as u32 as $t,
                <$t>::MAX,
                <$t>::MIN,
                <$t>::INFINITY,
                <$t>::NEG_INFINITY,
                <$t>::NAN,
                <$t>::EPSILON,
                <$t>::MIN_POSITIVE,
                2.5 * a,
                n as $t + i as f64 as $t,
                f32::EPSILON as $t + f64::MIN_POSITIVE as $t,
                (a - b).exp().max(<$t>::NEG_INFINITY),
            ];
            for (slot, (name, cmp)) in FLOAT_SLOT_NAMES.iter().enumerate() {
                let (g, w) = (got[i * FLOAT_SLOTS + slot], want[slot]);
                let ok = match cmp {
                    _ if w.is_nan() || g.is_nan() => w.is_nan() && g.is_nan(),
                    Cmp::Bits => g.to_bits() == w.to_bits(),
                    Cmp::Value => g == w,
                    Cmp::Ulps(max) => $ordered(g).abs_diff($ordered(w)) as u128 <= *max as u128,
                };
                if !ok {
                    failures.push(format!(
                        "{}: {name}({a:?}, {b:?}, {n}): GPU {g:?}, Rust {w:?}",
                        stringify!($t)
                    ));
                }
            }
        }
        failures
    }};
}

/// Float bits as integers that order like the values, so that their difference counts ulps.
fn ordered_f32(v: f32) -> i64 {
    let b = v.to_bits() as i32;
    (if b < 0 { i32::MIN - b } else { b }) as i64
}

fn ordered_f64(v: f64) -> i128 {
    let b = v.to_bits() as i64;
    (if b < 0 { i64::MIN - b } else { b }) as i128
}

/// Tiles of 1 to 3 atoms, `atoms` in all.
fn offsets(atoms: usize) -> Vec<usize> {
    let mut offsets = vec![0];
    while *offsets.last().unwrap() < atoms {
        let next = (offsets.last().unwrap() + 1 + offsets.len() % 3).min(atoms);
        offsets.push(next);
    }
    offsets
}

#[test]
fn float_builtins_match_rust() {
    let gpu = common::gpu();
    let atoms = 2000;
    let g = gpu.upload_offsets(&offsets(atoms)).unwrap();
    let seed = common::fresh_seed();
    println!("seed {seed} (replay with LOOPS_SEED)");
    let inputs = float_inputs(atoms, seed);
    let mut failures = check_floats!(f32, ordered_f32, &gpu, &g, &inputs);
    failures.extend(check_floats!(f64, ordered_f64, &gpu, &g, &inputs));
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn integer_builtins_match_rust() {
    let gpu = common::gpu();
    let atoms = 2000;
    let g = gpu.upload_offsets(&offsets(atoms)).unwrap();
    let seed = common::fresh_seed();
    println!("seed {seed} (replay with LOOPS_SEED)");
    let mut rng = StdRng::seed_from_u64(seed);
    let special_i64 = [0, 1, -1, i64::MAX, i64::MIN, 100_000, -100_001, 7];
    let pick = |rng: &mut StdRng, i: usize| -> i64 {
        special_i64.get(i).copied().unwrap_or_else(|| rng.random())
    };
    let xs: Vec<i32> = (0..atoms)
        .map(|i| match i {
            3 => i32::MAX,
            4 => i32::MIN,
            _ => pick(&mut rng, i) as i32,
        })
        .collect();
    let us: Vec<u32> = (0..atoms).map(|i| pick(&mut rng, i) as u32).collect();
    let ls: Vec<i64> = (0..atoms).map(|i| pick(&mut rng, i)).collect();
    let ws: Vec<u64> = (0..atoms).map(|i| pick(&mut rng, i) as u64).collect();
    let e: Vec<u32> = (0..atoms)
        .map(|i| {
            [0, 1, 2, 3, 31, 32, 63, 64, u32::MAX]
                .get(i)
                .copied()
                .unwrap_or_else(|| rng.random_range(0..70))
        })
        .collect();
    let mut o32 = gpu.zeros::<i32>(atoms * INT_SLOTS).unwrap();
    let mut ou32 = gpu.zeros::<u32>(atoms * INT_SLOTS).unwrap();
    let mut o64 = gpu.zeros::<i64>(atoms * INT_SLOTS).unwrap();
    let mut ou64 = gpu.zeros::<u64>(atoms * INT_SLOTS).unwrap();
    builtins::integer_builtins(
        &gpu,
        &g,
        &gpu.upload(&xs).unwrap(),
        &gpu.upload(&us).unwrap(),
        &gpu.upload(&ls).unwrap(),
        &gpu.upload(&ws).unwrap(),
        &gpu.upload(&e).unwrap(),
        &mut o32,
        &mut ou32,
        &mut o64,
        &mut ou64,
    )
    .unwrap();
    let (g32, gu32) = (gpu.download(&o32).unwrap(), gpu.download(&ou32).unwrap());
    let (g64, gu64) = (gpu.download(&o64).unwrap(), gpu.download(&ou64).unwrap());
    let mut failures = Vec::new();
    let mut check = |what: &str, i: usize, got: &[i128], want: [i128; INT_SLOTS]| {
        for slot in 0..INT_SLOTS {
            if got[slot] != want[slot] {
                failures.push(format!(
                    "{what} atom {i} slot {slot}: GPU {}, Rust {}",
                    got[slot], want[slot]
                ));
            }
        }
    };
    let wide = |v: &[i32]| -> Vec<i128> { v.iter().map(|&x| x as i128).collect() };
    for i in 0..atoms {
        let at = |k: usize| i * INT_SLOTS + k;
        let (x, u, l, w, e) = (xs[i], us[i], ls[i], ws[i], e[i]);
        let y = x ^ 1431655765;
        let want32 = [
            x.min(y),
            x.max(y),
            x.wrapping_abs(),
            x.signum(),
            x.clamp(-100, 100),
            x.wrapping_pow(e),
            x.count_ones() as i32,
            x.leading_zeros() as i32,
            x.wrapping_add(y),
            x.wrapping_sub(y),
            x.wrapping_mul(y),
            x.wrapping_neg(),
            i32::MAX,
            i32::MIN,
        ];
        check(
            "i32",
            i,
            &wide(&g32[at(0)..at(INT_SLOTS)]),
            want32.map(|v| v as i128),
        );
        let v = u ^ 2863311530;
        let wantu32 = [
            u.min(v),
            u.max(v),
            u.clamp(10, 1000),
            u.wrapping_pow(e),
            u.count_ones(),
            u.leading_zeros(),
            u.wrapping_add(v),
            u.wrapping_sub(v),
            u.wrapping_mul(v),
            u.wrapping_neg(),
            u32::MAX,
            u32::MIN,
            (i as u32).wrapping_mul(2654435769),
            u32::from(x < 0) + u32::from(u.count_ones() > 16),
        ];
        let gotu32: Vec<i128> = gu32[at(0)..at(INT_SLOTS)]
            .iter()
            .map(|&v| v as i128)
            .collect();
        check("u32", i, &gotu32, wantu32.map(|v| v as i128));
        let m = l ^ 6148914691236517205;
        let want64 = [
            l.min(m),
            l.max(m),
            l.wrapping_abs(),
            l.signum(),
            l.clamp(-100000, 100000),
            l.wrapping_pow(e),
            l.count_ones() as i64,
            l.leading_zeros() as i64,
            l.wrapping_add(m),
            l.wrapping_sub(m),
            l.wrapping_mul(m),
            l.wrapping_neg(),
            i64::MAX,
            i64::MIN,
        ];
        let got64: Vec<i128> = g64[at(0)..at(INT_SLOTS)]
            .iter()
            .map(|&v| v as i128)
            .collect();
        check("i64", i, &got64, want64.map(|v| v as i128));
        let z = w ^ 12297829382473034410;
        let n = i as u64;
        let wantu64 = [
            w.min(z),
            w.max(z),
            w.clamp(10, 1000000),
            w.wrapping_pow(e),
            w.count_ones() as u64,
            w.leading_zeros() as u64,
            w.wrapping_add(z),
            w.wrapping_sub(z),
            w.wrapping_mul(z),
            w.wrapping_neg(),
            u64::MAX,
            u64::MAX,
            n.wrapping_mul(11400714819323198485).leading_zeros() as u64,
            (n.count_ones() + n.wrapping_pow(3).count_ones()) as u64,
        ];
        let gotu64: Vec<i128> = gu64[at(0)..at(INT_SLOTS)]
            .iter()
            .map(|&v| v as i128)
            .collect();
        check("u64", i, &gotu64, wantu64.map(|v| v as i128));
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

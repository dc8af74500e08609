//! `#[block_shared]` arrays on the GPU (`tests/common/block_shared_kernels.rs`) against CPU
//! references on fresh random inputs: every array starts at random values (so the flush must add
//! to, or max and min into, what the slice holds), tiles from none to a million (one block to
//! thousands, each flushing its copy), under every schedule the tile-only kernel is stamped with,
//! and the atom-loop kernel under `thread`, f32 and f64.
#![cfg(feature = "gpu")]

mod common;
#[path = "common/block_shared_kernels.rs"]
mod kernels;

use loops::prelude::*;
use rand::{Rng, SeedableRng};

/// What `block_sizes` leaves, from the starting values.
#[allow(clippy::type_complexity)]
fn model(
    offsets: &[usize],
    vals: &[i64],
    start: &(Vec<u32>, Vec<i64>, Vec<u64>, Vec<i32>),
) -> (Vec<u32>, Vec<i64>, Vec<u64>, Vec<i32>) {
    let (mut hist, mut low, mut wide, mut high) = start.clone();
    for t in 0..offsets.len() - 1 {
        let size = (offsets[t + 1] - offsets[t]) as u32;
        let bin = if size > 1 {
            32 - (size - 1).leading_zeros()
        } else {
            0
        };
        hist[bin as usize] = hist[bin as usize].wrapping_add(1);
        hist[33] = hist[33].max(size);
        low[t % 4] = low[t % 4].min(vals[t]);
        wide[t % 3] = wide[t % 3].wrapping_add(vals[t] as u64);
        high[t % 2] = high[t % 2].max(vals[t] as i32);
    }
    (hist, low, wide, high)
}

fn random_offsets(rng: &mut impl Rng, tiles: usize) -> Vec<usize> {
    let mut offsets = vec![0usize];
    for _ in 0..tiles {
        let size = match rng.random_range(0..10) {
            0..=3 => 0,
            4..=7 => rng.random_range(1..8),
            8 => rng.random_range(8..300),
            _ => rng.random_range(300..5000),
        };
        offsets.push(offsets.last().unwrap() + size);
    }
    offsets
}

#[test]
fn block_shared_arrays_flush_exactly_under_every_schedule() {
    let seed = common::fresh_seed();
    println!("seed {seed} (replay with LOOPS_SEED={seed})");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let gpu = common::gpu();
    let mut failures = Vec::new();
    let mut runs = 0;
    for tiles in [0usize, 1, 37, 256, 5000, 300_000, 1_100_000] {
        let offsets = random_offsets(&mut rng, tiles);
        let vals: Vec<i64> = (0..tiles)
            .map(|_| rng.random_range(-(1i64 << 40)..(1i64 << 40)))
            .collect();
        let a = gpu.upload_offsets(&offsets).unwrap();
        let dvals = gpu.upload(&vals).unwrap();
        for &schedule in kernels::sizes::SCHEDULES {
            // Random starting values: the flush adds to, or maxes and mins into, them.
            let start = (
                (0..34)
                    .map(|_| rng.random_range(0..1000u32))
                    .collect::<Vec<_>>(),
                (0..4)
                    .map(|_| rng.random_range(-(1i64 << 41)..(1i64 << 41)))
                    .collect::<Vec<_>>(),
                (0..3).map(|_| rng.random::<u64>()).collect::<Vec<_>>(),
                (0..2).map(|_| rng.random::<i32>()).collect::<Vec<_>>(),
            );
            let mut hist = gpu.upload(&start.0).unwrap();
            let mut low = gpu.upload(&start.1).unwrap();
            let mut wide = gpu.upload(&start.2).unwrap();
            let mut high = gpu.upload(&start.3).unwrap();
            kernels::sizes::launch(
                schedule, &gpu, &a, &dvals, &mut hist, &mut low, &mut wide, &mut high,
            )
            .unwrap();
            let got = (
                gpu.download(&hist).unwrap(),
                gpu.download(&low).unwrap(),
                gpu.download(&wide).unwrap(),
                gpu.download(&high).unwrap(),
            );
            runs += 1;
            if got != model(&offsets, &vals, &start) {
                failures.push(format!("{schedule}, {tiles} tiles: {got:?}"));
            }
        }
    }
    println!("{runs} runs, {} failed", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn column_hist<T: Float>() {
    let seed = common::fresh_seed();
    let gpu = common::gpu();
    for (rows, cols) in [(1usize, 5usize), (1000, 300), (200_000, 70_000)] {
        let m = loops::io::generate::power_law::<T>(rows, cols, 6.0, 2.0, false, seed);
        let a = gpu.upload_csr(&m).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ rows as u64);
        let start: Vec<u32> = (0..16).map(|_| rng.random_range(0..1000)).collect();
        let mut want = start.clone();
        for &c in m.indices() {
            want[c % 16] += 1;
        }
        let mut hist = gpu.upload(&start).unwrap();
        kernels::columns::column_hist(&gpu, &a, &mut hist).unwrap();
        assert_eq!(
            gpu.download(&hist).unwrap(),
            want,
            "{rows} rows, seed {seed}"
        );
    }
    // A slice shorter than the array is refused before the launch.
    let m = loops::io::generate::power_law::<T>(10, 10, 2.0, 2.0, false, seed);
    let a = gpu.upload_csr(&m).unwrap();
    let mut short = gpu.zeros::<u32>(15).unwrap();
    assert!(kernels::columns::column_hist(&gpu, &a, &mut short).is_err());
}

#[test]
fn a_block_shared_array_under_an_atom_loop_f32() {
    column_hist::<f32>();
}

#[test]
fn a_block_shared_array_under_an_atom_loop_f64() {
    column_hist::<f64>();
}

//! The transpose's passes in the loops language (`loops::ops::transpose_lang`: column counts,
//! scatter of sort keys, the columns' statistics) on the GPU, each under every schedule it is
//! stamped with, against CPU references on fresh random inputs (f32 and f64 values, empty rows,
//! empty columns and runs of them, a hub column, repeated columns in a row, the generated shapes
//! and the real matrices, each row's entries shuffled), outputs poisoned or seeded with random
//! values first; and the whole transpose with the passes under each schedule against the CPU's
//! CSC, exactly, its tile sizes against an upload's. The schedules run on threads of their own
//! (their kernels compile in parallel).
#![cfg(feature = "gpu")]

mod common;

use loops::io::host::{Csc32, Csr32};
use loops::ops::sort::shuffle_rows;
use loops::ops::transpose::transpose_reference;
use loops::ops::transpose_lang::{self as lang, LanguagePasses};
use loops::prelude::*;
use rand::{Rng, SeedableRng};

/// A CSR matrix of `rows` rows over `cols` columns: row lengths drawn from a mix (a third empty),
/// columns from a few live ones (so most columns are empty, in runs) with one hub column taking
/// about a quarter of the entries, repeats possible; random values.
fn random_matrix<T: Float>(rng: &mut impl Rng, rows: usize, cols: usize) -> Csr32<T> {
    let hub = rng.random_range(0..cols as i32);
    let live: Vec<i32> = (0..cols as i32).filter(|_| rng.random_bool(0.4)).collect();
    let mut offsets = vec![0i32];
    let mut indices = Vec::new();
    for _ in 0..rows {
        let len = match rng.random_range(0..6) {
            0 | 1 => 0,
            2..=4 => rng.random_range(1..12),
            _ => rng.random_range(12..400),
        };
        for _ in 0..len {
            let c = if rng.random_bool(0.25) || live.is_empty() {
                hub
            } else {
                live[rng.random_range(0..live.len())]
            };
            indices.push(c);
        }
        offsets.push(indices.len() as i32);
    }
    let values = (0..indices.len())
        .map(|_| T::from_f64(rng.random_range(-1.0..1.0)))
        .collect();
    Csr32::from_parts(rows, cols, offsets, indices, values).expect("valid parts")
}

fn matrices<T: Float>(seed: u64) -> Vec<(String, Csr32<T>)> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    for (rows, cols) in [
        (1, 1),
        (3, 70),
        (33, 5),
        (1000, 1000),
        (5000, 200),
        (300, 40_000),
        (60_000, 60_000),
    ] {
        out.push((
            format!("random {rows} x {cols}"),
            random_matrix(&mut rng, rows, cols),
        ));
    }
    // No entries at all in some rows and columns, but not in every one: an empty last row and
    // an empty last column.
    out.push((
        "empty last row and column".into(),
        Csr32::from_parts(
            3,
            4,
            vec![0, 2, 3, 3],
            vec![2, 0, 2],
            vec![T::from_f64(1.5), T::from_f64(-2.0), T::from_f64(3.25)],
        )
        .unwrap(),
    ));
    for (name, m) in common::generated_matrices::<T>(seed + 1)
        .into_iter()
        .chain(common::real_matrices::<T>())
    {
        out.push((name, Csr32::from_sprs(&m).expect("fits 32 bits")));
    }
    for (i, (_, m)) in out.iter_mut().enumerate() {
        shuffle_rows(
            &m.offsets,
            &mut m.indices,
            &mut m.values,
            seed.wrapping_add(7 + i as u64),
        );
    }
    out
}

/// `loops_transpose_stats`'s (and `tile_stats`'s) state, counted on the CPU.
fn model_stats(offsets: &[i32]) -> Vec<u32> {
    let cols = offsets.len() - 1;
    let mut state = vec![0u32; 36];
    for c in 0..cols {
        let at = offsets[c];
        let size = (offsets[c + 1] - at) as u32;
        let bin = if size <= 1 {
            0
        } else {
            32 - (size - 1).leading_zeros() as usize
        };
        state[bin] += 1;
        state[34] = state[34].max(size);
        if size == 1 {
            state[33] += 1;
        }
        if size == 0 {
            state[32] += 1;
            if c == 0 || offsets[c - 1] != at {
                let run = (c..cols).take_while(|&j| offsets[j + 1] == at).count();
                state[35] = state[35].max(run as u32);
            }
        }
    }
    state
}

fn upload<T: Float>(gpu: &Gpu, m: &Csr32<T>) -> DeviceCsr<T> {
    let offsets: Vec<usize> = m.offsets.iter().map(|&o| o as usize).collect();
    gpu.upload_csr_parts(m.rows, m.cols, &offsets, &m.indices, &m.values)
        .unwrap()
}

fn bits<T: Float>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.to_f64().to_bits()).collect()
}

/// Every pass under `schedule`, then the transpose with all three under it, on `m`; the first
/// difference found.
fn check<T: Float>(gpu: &Gpu, schedule: &str, m: &Csr32<T>, rng: &mut impl Rng) -> Option<String> {
    let a = upload(gpu, m);
    let want = transpose_reference(m.rows, m.cols, &m.offsets, &m.indices, &m.values);

    // Count: onto random starting values (what is added, not what was there, is checked).
    let start: Vec<i32> = (0..m.cols).map(|_| rng.random_range(0..1000)).collect();
    let mut counts = gpu.upload(&start).unwrap();
    lang::count::launch(schedule, gpu, &a, &mut counts).unwrap();
    let got = gpu.download(&counts).unwrap();
    for c in 0..m.cols {
        let n = want.col_offsets[c + 1] - want.col_offsets[c];
        if got[c] != start[c] + n {
            return Some(format!(
                "count: column {c} got {}, expected {}",
                got[c] - start[c],
                n
            ));
        }
    }

    // Scatter: cursors at the column starts, keys poisoned; each column's keys, sorted, must be
    // its entries' (row, position) in CSR order, the cursors at the column ends.
    if m.nnz() > 0 {
        let mut cursors = gpu.upload(&want.col_offsets[..m.cols]).unwrap();
        let mut keys = gpu.upload(&vec![u64::MAX; m.nnz()]).unwrap();
        lang::scatter::launch(schedule, gpu, &a, &mut cursors, &mut keys).unwrap();
        if gpu.download(&cursors).unwrap() != want.col_offsets[1..] {
            return Some("scatter: the cursors are not at the column ends".into());
        }
        let mut got = gpu.download(&keys).unwrap();
        let mut expected = vec![0u64; m.nnz()];
        let mut next: Vec<usize> = want.col_offsets[..m.cols]
            .iter()
            .map(|&o| o as usize)
            .collect();
        for r in 0..m.rows {
            let s = m.offsets[r] as usize;
            for e in s..m.offsets[r + 1] as usize {
                let slot = &mut next[m.indices[e] as usize];
                expected[*slot] = ((r as u64) << 32) | (e - s) as u64;
                *slot += 1;
            }
        }
        for c in 0..m.cols {
            let range = want.col_offsets[c] as usize..want.col_offsets[c + 1] as usize;
            got[range.clone()].sort_unstable();
            if got[range.clone()] != expected[range] {
                return Some(format!("scatter: column {c}'s keys differ"));
            }
        }
    }

    // Statistics of the column offsets, onto zeros.
    let offsets: Vec<usize> = want.col_offsets.iter().map(|&o| o as usize).collect();
    let columns = gpu.upload_offsets(&offsets).unwrap();
    let mut state = gpu.zeros::<u32>(36).unwrap();
    lang::stats::launch(schedule, gpu, &columns, &mut state).unwrap();
    let got = gpu.download(&state).unwrap();
    if got != model_stats(&want.col_offsets) {
        return Some(format!(
            "stats: {got:?}, expected {:?}",
            model_stats(&want.col_offsets)
        ));
    }

    // The whole transpose with the three passes under this schedule.
    let passes = LanguagePasses {
        count: lang::count::SCHEDULES
            .iter()
            .find(|s| **s == schedule)
            .unwrap(),
        scatter: lang::scatter::SCHEDULES
            .iter()
            .find(|s| **s == schedule)
            .unwrap(),
        stats: lang::stats::SCHEDULES
            .iter()
            .find(|s| **s == schedule)
            .unwrap(),
    };
    let t = lang::transpose_under(gpu, &a, passes).unwrap();
    let got = Csc32 {
        rows: t.rows(),
        cols: t.cols(),
        col_offsets: gpu.download(t.col_offsets()).unwrap(),
        row_indices: gpu.download(t.row_indices()).unwrap(),
        values: gpu.download(t.values()).unwrap(),
    };
    if (got.rows, got.cols) != (m.rows, m.cols)
        || got.col_offsets != want.col_offsets
        || got.row_indices != want.row_indices
        || bits(&got.values) != bits(&want.values)
    {
        return Some("transpose: differs from the CPU's CSC".into());
    }
    let uploaded = gpu.upload_csc32(&want).unwrap();
    if (t.stats(), t.split_mdt()) != (uploaded.stats(), uploaded.split_mdt()) {
        return Some(format!(
            "transpose: tile sizes {:?}, an upload counts {:?}",
            t.stats(),
            uploaded.stats()
        ));
    }
    None
}

fn run_all<T: Float>() {
    let seed = common::fresh_seed();
    println!("seed {seed} (replay with LOOPS_SEED={seed})");
    let all = matrices::<T>(seed);
    assert_eq!(lang::count::SCHEDULES, lang::scatter::SCHEDULES);
    assert_eq!(lang::count::SCHEDULES, lang::stats::SCHEDULES);
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = lang::count::SCHEDULES
            .iter()
            .enumerate()
            .map(|(i, &schedule)| {
                let all = &all;
                scope.spawn(move || {
                    let gpu = common::gpu();
                    let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ (i as u64 + 1));
                    let mut failures = Vec::new();
                    for (name, m) in all {
                        if let Some(why) = check(&gpu, schedule, m, &mut rng) {
                            failures.push(format!("{schedule}, {name}: {why}"));
                        }
                    }
                    failures
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a schedule's thread panicked"))
            .collect()
    });
    println!(
        "{} schedules x {} matrices, {} {}",
        lang::count::SCHEDULES.len(),
        all.len(),
        T::RUST_NAME,
        if failures.is_empty() {
            "all passed"
        } else {
            "FAILED"
        }
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn transpose_passes_under_every_schedule_f32() {
    run_all::<f32>();
}

#[test]
fn transpose_passes_under_every_schedule_f64() {
    run_all::<f64>();
}

/// The op's transpose with the language's passes: the doc example's matrix.
#[test]
fn language_transpose_is_the_cpus_csc() -> loops::Result<()> {
    let gpu = Gpu::new(0)?;
    let m = loops::io::generate::power_law::<f32>(1000, 1000, 8.0, 2.0, false, 1);
    let a = gpu.upload_csr(&m)?;
    let at = lang::transpose(&gpu, &a)?;
    assert_eq!(gpu.download_csc(&at)?, m.to_csc());
    Ok(())
}

//! A soak: 10,000 launches of mixed kernels (spmv, spmv_axpby, spmm, row_max_abs, column_sums from
//! `examples/kernels`), on several generated matrices of different sizes, under mixed schedules, each
//! launch with freshly allocated (and dropped) buffers; every 50th launch and the last one of each
//! kind is checked against the f64 CPU reference (outputs poisoned first). Forked handles are made,
//! used and dropped along the way. Device memory (cuMemGetInfo free bytes) is measured after a
//! warm-up that compiles every kernel and grows the scratch areas to their size, and again at the
//! end: it must not fall by more than 64 MiB. Prints the figures. Runs in well under a minute on an
//! H100 (release or debug).
#![cfg(feature = "gpu")]

mod common;
use loops_kernels as kernels;

use loops::check::{check_rows, check_spmv, RowCheck};
use loops::io::host::{expected_error_bound, spmv_reference};
use loops::prelude::*;
use sprs::CsMat;

const LAUNCHES: usize = 10_000;
const CHECK_EVERY: usize = 50;
const TOLERANCE_BYTES: i64 = 64 << 20;
const KERNELS: [&str; 5] = ["spmv", "spmv_axpby", "spmm", "row_max_abs", "column_sums"];
const SPMM_K: usize = 4;

/// A small deterministic generator (xorshift64*), so a failing launch sequence replays from its seed.
struct Pick(u64);

impl Pick {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

fn matrices(seed: u64) -> Vec<(String, CsMat<f32>)> {
    use loops::io::generate as g;
    vec![
        ("1x1".into(), g::uniform(1, 1, 1, seed)),
        (
            "uniform 2000x1500 x6".into(),
            g::uniform(2_000, 1_500, 6, seed + 1),
        ),
        (
            "power-law 30000".into(),
            g::power_law(30_000, 30_000, 8.0, 2.0, false, seed + 2),
        ),
        (
            "one huge row 2000 (2^14 atoms)".into(),
            g::one_huge_row(2_000, 1 << 14, 1 << 14, seed + 3),
        ),
        (
            "many empty rows 40000".into(),
            g::with_empty_rows(40_000, 40_000, 0.9, 4, seed + 4),
        ),
        ("banded 60000 x8".into(), g::banded(60_000, 8, seed + 5)),
        ("rmat scale 13".into(), g::rmat(13, 8, seed + 6)),
    ]
}

fn poisoned(gpu: &Gpu, len: usize) -> loops::Result<DeviceBuffer<f32>> {
    let mut b = gpu.zeros::<f32>(len)?;
    gpu.fill(&mut b, f32::POISON)?;
    Ok(b)
}

fn row_lengths(a: &CsMat<f32>) -> Vec<usize> {
    (0..a.rows())
        .map(|r| a.outer_view(r).map_or(0, |v| v.nnz()))
        .collect()
}

/// Launches `kernel` under `schedule` on `a` with fresh buffers; with `check`, downloads the result
/// and compares it with the CPU reference. Every buffer is dropped on return.
fn run(
    gpu: &Gpu,
    kernel: &str,
    schedule: &str,
    a: &CsMat<f32>,
    da: &DeviceCsr<f32>,
    seed: u64,
    check: bool,
) -> loops::Result<Option<RowCheck>> {
    let rows = a.rows();
    let (got, want, bound) = match kernel {
        "spmv" => {
            let x: Vec<f32> = loops::io::generate::random_vector(a.cols(), seed);
            let dx = gpu.upload(&x)?;
            let mut dy = poisoned(gpu, rows)?;
            kernels::spmv::launch(schedule, gpu, da, &dx, &mut dy)?;
            if !check {
                return Ok(None);
            }
            return Ok(Some(check_spmv(a, &x, &gpu.download(&dy)?)));
        }
        "spmv_axpby" => {
            let x: Vec<f32> = loops::io::generate::random_vector(a.cols(), seed);
            let y0: Vec<f32> = loops::io::generate::random_vector(rows, seed ^ 1);
            let (dx, mut dy) = (gpu.upload(&x)?, gpu.upload(&y0)?);
            kernels::spmv_axpby::launch(schedule, gpu, da, &dx, &mut dy, 1.5, -0.75)?;
            if !check {
                return Ok(None);
            }
            let (ax, scale) = spmv_reference(a, &x);
            let nnz = row_lengths(a);
            let want: Vec<f64> = (0..rows)
                .map(|r| 1.5 * ax[r] - 0.75 * y0[r] as f64)
                .collect();
            let bound: Vec<f64> = (0..rows)
                .map(|r| {
                    1.5 * expected_error_bound::<f32>(nnz[r], scale[r])
                        + 4.0 * f32::UNIT_ROUNDOFF * (1.5 * scale[r] + 0.75 * y0[r].abs() as f64)
                })
                .collect();
            (gpu.download(&dy)?, want, bound)
        }
        "spmm" => {
            let b: Vec<f32> = loops::io::generate::random_vector(a.cols() * SPMM_K, seed);
            let db = gpu.upload(&b)?;
            let mut dc = poisoned(gpu, rows * SPMM_K)?;
            kernels::spmm::launch(schedule, gpu, da, &db, &mut dc, SPMM_K)?;
            if !check {
                return Ok(None);
            }
            let (mut want, mut bound) = (vec![0.0; rows * SPMM_K], vec![0.0; rows * SPMM_K]);
            let nnz = row_lengths(a);
            for j in 0..SPMM_K {
                let column: Vec<f32> = (0..a.cols()).map(|c| b[c * SPMM_K + j]).collect();
                let (y, scale) = spmv_reference(a, &column);
                for r in 0..rows {
                    want[r * SPMM_K + j] = y[r];
                    bound[r * SPMM_K + j] = expected_error_bound::<f32>(nnz[r], scale[r]);
                }
            }
            (gpu.download(&dc)?, want, bound)
        }
        "row_max_abs" => {
            let mut dm = poisoned(gpu, rows)?;
            kernels::row_max_abs::launch(schedule, gpu, da, &mut dm)?;
            if !check {
                return Ok(None);
            }
            let want: Vec<f64> = (0..rows)
                .map(|r| {
                    a.outer_view(r).map_or(0.0, |row| {
                        row.iter()
                            .map(|(_, v)| (*v as f64).abs())
                            .fold(0.0, f64::max)
                    })
                })
                .collect();
            (gpu.download(&dm)?, want, vec![0.0; rows])
        }
        "column_sums" => {
            let mut ds = gpu.zeros::<f32>(a.cols())?;
            kernels::column_sums::launch(schedule, gpu, da, &mut ds)?;
            if !check {
                return Ok(None);
            }
            let cols = a.cols();
            let (mut want, mut scale, mut count) =
                (vec![0.0; cols], vec![0.0; cols], vec![0usize; cols]);
            for (v, (_, c)) in a.iter() {
                want[c] += *v as f64;
                scale[c] += (*v as f64).abs();
                count[c] += 1;
            }
            let bound = (0..cols)
                .map(|c| expected_error_bound::<f32>(count[c], scale[c]))
                .collect();
            (gpu.download(&ds)?, want, bound)
        }
        other => panic!("no kernel {other}"),
    };
    Ok(Some(check_rows(&got, &want, &bound)))
}

fn schedules(kernel: &str) -> &'static [&'static str] {
    match kernel {
        "spmv" => kernels::spmv::SCHEDULES,
        "spmv_axpby" => kernels::spmv_axpby::SCHEDULES,
        "spmm" => kernels::spmm::SCHEDULES,
        "row_max_abs" => kernels::row_max_abs::SCHEDULES,
        "column_sums" => kernels::column_sums::SCHEDULES,
        other => panic!("no kernel {other}"),
    }
}

const MIB: f64 = (1u64 << 20) as f64;

#[test]
fn ten_thousand_mixed_launches_hold_memory_steady() {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); {}",
        gpu.name()
    );
    let start = std::time::Instant::now();
    let ms = matrices(seed);
    let dms: Vec<DeviceCsr<f32>> = ms.iter().map(|(_, a)| gpu.upload_csr(a).unwrap()).collect();
    let mut failures = Vec::new();
    let mut record = |what: String, r: loops::Result<Option<RowCheck>>| match r {
        Ok(Some(c)) if !c.passed() => failures.push(format!("{what}: {c}")),
        Ok(_) => {}
        Err(e) => failures.push(format!("{what}: error: {e}")),
    };

    // Warm-up: every kernel under every schedule on every matrix, checked; compiles everything and
    // grows the scratch area to the largest launch's size.
    let mut warm_up = 0;
    for (m, (name, a)) in ms.iter().enumerate() {
        for kernel in KERNELS {
            for schedule in schedules(kernel) {
                let r = run(&gpu, kernel, schedule, a, &dms[m], seed ^ m as u64, true);
                record(format!("warm-up {name} / {kernel} / {schedule}"), r);
                warm_up += 1;
            }
        }
    }
    // A fork's stream and scratch come and go during the soak; make the pool settle first.
    gpu.fork().unwrap().synchronize().unwrap();
    gpu.synchronize_device().unwrap();
    let before = gpu.memory_info().unwrap();
    let warm = start.elapsed();

    let mut pick = Pick(seed | 1);
    let mut last_of_kind = std::collections::HashMap::new();
    let mut checked = 0;
    let mut fork: Option<Gpu> = None;
    for i in 0..LAUNCHES {
        let kernel = KERNELS[pick.next(KERNELS.len())];
        let s = schedules(kernel);
        let schedule = s[pick.next(s.len())];
        let m = pick.next(ms.len());
        // Every 1000 launches a new forked handle takes the next 100 (using the root's matrices:
        // the cross-stream path), then is dropped.
        if i % 1000 == 0 {
            fork = gpu.fork().ok();
        } else if i % 1000 == 100 {
            if let Some(f) = fork.take() {
                record(format!("launch {i}: fork"), f.synchronize().map(|()| None));
            }
        }
        let handle = fork.as_ref().unwrap_or(&gpu);
        let check = i % CHECK_EVERY == CHECK_EVERY - 1 || i + 1 == LAUNCHES;
        let (name, a) = &ms[m];
        let r = run(
            handle,
            kernel,
            schedule,
            a,
            &dms[m],
            seed.wrapping_add(i as u64),
            check,
        );
        checked += check as usize;
        record(format!("launch {i}: {name} / {kernel} / {schedule}"), r);
        last_of_kind.insert((kernel, schedule), (i, m));
    }
    // The last launch of each (kernel, schedule) again, checked.
    let mut last: Vec<_> = last_of_kind.into_iter().collect();
    last.sort();
    for ((kernel, schedule), (i, m)) in last {
        let (name, a) = &ms[m];
        let r = run(&gpu, kernel, schedule, a, &dms[m], seed ^ i as u64, true);
        checked += 1;
        record(format!("final {name} / {kernel} / {schedule}"), r);
    }
    drop(fork);
    gpu.synchronize_device().unwrap();
    let after = gpu.memory_info().unwrap();
    let soak = start.elapsed() - warm;
    let growth = before.free_bytes as i64 - after.free_bytes as i64;
    println!(
        "warm-up: {warm_up} launches in {:.1} s; soak: {LAUNCHES} launches ({checked} checked) in {:.1} s ({:.0} launches/s)",
        warm.as_secs_f64(),
        soak.as_secs_f64(),
        LAUNCHES as f64 / soak.as_secs_f64()
    );
    println!(
        "device memory free: before {:.1} MiB, after {:.1} MiB, of {:.1} MiB; used grew by {:.1} MiB (tolerance {:.0} MiB)",
        before.free_bytes as f64 / MIB,
        after.free_bytes as f64 / MIB,
        after.total_bytes as f64 / MIB,
        growth as f64 / MIB,
        TOLERANCE_BYTES as f64 / MIB
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        growth <= TOLERANCE_BYTES,
        "device memory in use grew by {growth} bytes over {LAUNCHES} launches"
    );
}

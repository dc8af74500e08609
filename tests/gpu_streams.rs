//! Many streams and host threads at once: 8 threads, each with its own stream handle
//! (`Gpu::fork`), each launching SpMV under every schedule on its own random matrix many times, with
//! several launches in flight per stream, every result checked against the f64 CPU reference and
//! every output poisoned (NaN) first. The carry schedules (`work_oriented`, `merge_path`, and `auto`
//! where it picks one) use a ticket counter and per-block records in global scratch; each handle has
//! its own, so concurrent launches on sibling streams must not see each other's.
#![cfg(feature = "gpu")]

mod common;
use loops_kernels as kernels;

use std::sync::{Arc, Mutex};

use loops::check::check_spmv;
use loops::prelude::*;
use sprs::CsMat;

const THREADS: u64 = 8;
/// Rounds per thread (`LOOPS_STREAM_ROUNDS`, default 6; `tests/sanitize.sh` sets 1); each round
/// launches every schedule once, all in flight together on the thread's stream, then downloads and
/// checks them all.
fn rounds() -> u64 {
    std::env::var("LOOPS_STREAM_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(6)
}

/// A different shape per thread, sized so that the carry schedules launch many blocks (a block takes
/// 2048 items) and the threads' kernels overlap on the device.
fn matrix<T: Float>(t: u64, seed: u64) -> (String, CsMat<T>) {
    use loops::io::generate as g;
    match t % 8 {
        0 => (
            "power-law 60000".into(),
            g::power_law(60_000, 60_000, 8.0, 2.0, false, seed),
        ),
        1 => (
            "uniform 30000x20000 x10".into(),
            g::uniform(30_000, 20_000, 10, seed),
        ),
        2 => (
            "one huge row 4000 (2^16 atoms)".into(),
            g::one_huge_row(4_000, 1 << 16, 1 << 16, seed),
        ),
        3 => (
            "many empty rows 80000".into(),
            g::with_empty_rows(80_000, 50_000, 0.8, 5, seed),
        ),
        4 => ("rmat scale 14".into(), g::rmat(14, 8, seed)),
        5 => ("banded 50000 x9".into(), g::banded(50_000, 9, seed)),
        6 => ("arrow 20000".into(), g::arrow(20_000, seed)),
        _ => (
            "rows at group/block boundaries".into(),
            common::boundary_rows(seed),
        ),
    }
}

/// One thread's work on its own handle; returns its failures.
fn run_thread<T: Float>(gpu: &Gpu, a: &CsMat<T>, da: &DeviceCsr<T>, seed: u64) -> Vec<String> {
    let mut failures = Vec::new();
    let schedules = kernels::spmv::SCHEDULES;
    for round in 0..rounds() {
        let mut runs = Vec::new();
        for (s, schedule) in schedules.iter().enumerate() {
            let x: Vec<T> =
                loops::io::generate::random_vector(a.cols(), seed ^ (round * 64 + s as u64));
            let result = (|| {
                let dx = gpu.upload(&x)?;
                let mut dy = gpu.zeros::<T>(a.rows())?;
                gpu.fill(&mut dy, T::POISON)?;
                kernels::spmv::launch(schedule, gpu, da, &dx, &mut dy)?;
                Ok::<_, LoopsError>((dx, dy))
            })();
            match result {
                Ok((dx, dy)) => runs.push((schedule, x, dx, dy)),
                Err(e) => failures.push(format!("round {round} {schedule}: launch: {e}")),
            }
        }
        for (schedule, x, _dx, dy) in runs {
            match gpu.download(&dy) {
                Ok(y) => {
                    let check = check_spmv(a, &x, &y);
                    if !check.passed() {
                        failures.push(format!("round {round} {schedule}: {check}"));
                    }
                }
                Err(e) => failures.push(format!("round {round} {schedule}: download: {e}")),
            }
        }
    }
    if let Err(e) = gpu.synchronize() {
        failures.push(format!("synchronize: {e}"));
    }
    failures
}

fn report(failures: Vec<String>, launches: u64) {
    println!("{launches} launches checked, {} failures", failures.len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// 8 threads, each with its own forked handle and matrix (f32 on even threads, f64 on odd ones),
/// every schedule, concurrently.
#[test]
fn eight_threads_own_streams_every_schedule() {
    let root = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); {}",
        root.name()
    );
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let handle = root.fork().expect("a forked handle");
            let failures = &failures;
            s.spawn(move || {
                let seed = seed.wrapping_add(t * 1000);
                let mine = if t % 2 == 0 {
                    let (name, a) = matrix::<f32>(t, seed);
                    let da = handle.upload_csr(&a).expect("upload");
                    (name, run_thread(&handle, &a, &da, seed))
                } else {
                    let (name, a) = matrix::<f64>(t, seed);
                    let da = handle.upload_csr(&a).expect("upload");
                    (name, run_thread(&handle, &a, &da, seed))
                };
                let (name, mine) = mine;
                println!("thread {t} ({name}): {} failures", mine.len());
                let mut all = failures.lock().unwrap();
                all.extend(
                    mine.into_iter()
                        .map(|f| format!("thread {t} ({name}): {f}")),
                );
            });
        }
    });
    root.synchronize().unwrap();
    report(
        failures.into_inner().unwrap(),
        THREADS * rounds() * kernels::spmv::SCHEDULES.len() as u64,
    );
}

/// One matrix uploaded by the root handle, used by 8 threads' forked handles at once (each with
/// its own `x` and `y`): the runtime orders each launch after the root stream's upload and the root
/// stream's later work (the matrix's free) after the launches.
#[test]
fn one_matrix_shared_by_eight_streams() {
    let root = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); {}",
        root.name()
    );
    let a: CsMat<f32> = loops::io::generate::power_law(40_000, 40_000, 8.0, 2.0, false, seed);
    let da = Arc::new(root.upload_csr(&a).unwrap());
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let handle = root.fork().expect("a forked handle");
            let (a, da, failures) = (&a, da.clone(), &failures);
            s.spawn(move || {
                let mine = run_thread(&handle, a, &da, seed.wrapping_add(t * 1000));
                failures
                    .lock()
                    .unwrap()
                    .extend(mine.into_iter().map(|f| format!("thread {t}: {f}")));
            });
        }
    });
    // The last reference goes here: freed on the root's stream, after every fork's launch.
    drop(da);
    root.synchronize().unwrap();
    report(
        failures.into_inner().unwrap(),
        THREADS * rounds() * kernels::spmv::SCHEDULES.len() as u64,
    );
}

/// Threads that share one handle (and so one stream and one scratch area) are also right: the
/// handle's launches are queued one after another, whichever thread queues them.
#[test]
fn eight_threads_one_handle_every_schedule() {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); {}",
        gpu.name()
    );
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (gpu, failures) = (&gpu, &failures);
            s.spawn(move || {
                let seed = seed.wrapping_add(t * 1000);
                let (name, a) = matrix::<f32>(t, seed);
                let da = gpu.upload_csr(&a).expect("upload");
                let mine = run_thread(gpu, &a, &da, seed);
                failures.lock().unwrap().extend(
                    mine.into_iter()
                        .map(|f| format!("thread {t} ({name}): {f}")),
                );
            });
        }
    });
    report(
        failures.into_inner().unwrap(),
        THREADS * rounds() * kernels::spmv::SCHEDULES.len() as u64,
    );
}

#[test]
fn handles_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Gpu>();
    assert_send_sync::<DeviceCsr<f32>>();
    assert_send_sync::<DeviceBuffer<f64>>();
}

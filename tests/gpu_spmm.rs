//! `spmm` and `sddmm` of `loops::ops` on the GPU against f64 CPU references: every k of
//! {1,2,3,4,5,8,16,31,32,33,64,128} (odd k take the one-element loads), f32 and f64, the generated
//! shapes (empty rows, one very long row, power-law, ...) and every real matrix, outputs poisoned
//! (NaN) before each run. SpMM runs as the op (measured: its first call times candidate plans and
//! keeps the winner), under each mapping forced (one group per row; rows capped, the long rows'
//! tails added by a second kernel with atomics), and under every plan the first call may pick
//! (`spmm_candidates`, the model's plan, which `LOOPS_TUNE=off` launches, among them), so every
//! kernel and plan the op can launch is checked on every case. `spmm_tuning_*` check the tuned
//! path itself: kept with the matrix, stored on disk, off, and inside a stream capture.
#![cfg(feature = "gpu")]

mod common;
use loops::ops::spmm::{
    kept_plan, shape_of, spmm_candidates, spmm_plan, spmm_tuned, spmm_with, spmm_with_plan,
    PlanSource, SpmmMapping,
};
use loops::prelude::*;
use loops::tune::TuneCache;
use loops_bench::dense_check::{sample_rows, DenseReference};

const KS: [usize; 12] = [1, 2, 3, 4, 5, 8, 16, 31, 32, 33, 64, 128];
/// The ks at which the language SDDMM runs under every schedule: one value per lane (3, 33), four
/// (4, 32), eight (64 at a warp) and sixteen (128 at a warp).
const SDDMM_LANGUAGE_KS: [usize; 6] = [1, 3, 4, 32, 33, 128];

/// Every matrix: generated (with the real ones' seed) then real.
fn matrices<T: Float>(seed: u64) -> Vec<(String, sprs::CsMat<T>)> {
    let mut all = common::generated_matrices::<T>(seed);
    all.extend(common::real_matrices::<T>());
    all
}

/// Runs `what` on one case and checks it; a line for the log, Err on failure.
fn checked<T: Float>(
    gpu: &Gpu,
    out: &mut DeviceBuffer<T>,
    reference: &DenseReference,
    what: &str,
    run: impl FnOnce(&Gpu, &mut DeviceBuffer<T>) -> Result<(), LoopsError>,
) -> Result<(), String> {
    gpu.fill(out, T::POISON).map_err(|e| e.to_string())?;
    run(gpu, out).map_err(|e| format!("{what}: {e}"))?;
    let got = gpu.download(out).map_err(|e| e.to_string())?;
    let check = reference.check(&got);
    if check.passed() {
        Ok(())
    } else {
        Err(format!("{what}: {check}"))
    }
}

fn spmm_all<T: Float>() {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); device {}",
        gpu.name()
    );
    let mut failures = Vec::new();
    let mut cases = 0;
    for (i, (name, a)) in matrices::<T>(seed).iter().enumerate() {
        let da = gpu.upload_csr(a).expect("upload");
        let rows = sample_rows(a, None);
        for &k in &KS {
            let b: Vec<T> =
                loops::io::generate::random_vector(a.cols() * k, seed ^ (i * 131 + k) as u64);
            let reference = DenseReference::spmm(a, &b, k, &rows);
            let db = gpu.upload(&b).expect("upload b");
            let mut dc = gpu.zeros::<T>(a.rows() * k).expect("c");
            let mut line = Vec::new();
            let mut record = |r: Result<(), String>| match r {
                Ok(()) => line.push("ok"),
                Err(e) => {
                    line.push("FAIL");
                    failures.push(format!("{name} k={k} {}: {e}", T::RUST_NAME));
                }
            };
            record(checked(&gpu, &mut dc, &reference, "op", |g, c| {
                da.spmm(g, &db, k, c)
            }));
            for mapping in [SpmmMapping::Rows, SpmmMapping::Split] {
                let what = format!("{mapping:?}");
                record(checked(&gpu, &mut dc, &reference, &what, |g, c| {
                    spmm_with(g, &da, &db, k, c, mapping).map(|_| ())
                }));
            }
            let candidates = spmm_candidates(shape_of(&gpu, &da, k));
            for plan in &candidates {
                record(checked(&gpu, &mut dc, &reference, &plan.label(), |g, c| {
                    spmm_with_plan(g, &da, &db, k, c, *plan)
                }));
            }
            cases += 1;
            println!(
                "{name:<36} {:>8} x {:<8} nnz {:>9} k {k:>3} {}: op/model/rows/split/{} candidates {}",
                a.rows(),
                a.cols(),
                a.nnz(),
                T::RUST_NAME,
                candidates.len(),
                line.join("/")
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures in {cases} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn sddmm_all<T: Float>() {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); device {}",
        gpu.name()
    );
    let mut failures = Vec::new();
    let mut cases = 0;
    for (i, (name, a)) in matrices::<T>(seed).iter().enumerate() {
        let da = gpu.upload_csr(a).expect("upload");
        let rows = sample_rows(a, None);
        for &k in &KS {
            let s = seed ^ (i * 131 + k) as u64;
            let x: Vec<T> = loops::io::generate::random_vector(a.rows() * k, s);
            let y: Vec<T> = loops::io::generate::random_vector(a.cols() * k, s ^ 0x9e37);
            let reference = DenseReference::sddmm(a, &x, &y, k, &rows);
            let dx = gpu.upload(&x).expect("upload x");
            let dy = gpu.upload(&y).expect("upload y");
            let mut out = gpu.zeros::<T>(a.nnz()).expect("out");
            let mut line = Vec::new();
            let mut record = |what: &str, r: Result<(), String>| match r {
                Ok(()) => line.push("ok"),
                Err(e) => {
                    line.push("FAIL");
                    failures.push(format!("{name} k={k} {} {what}: {e}", T::RUST_NAME));
                }
            };
            let r = checked(&gpu, &mut out, &reference, "sddmm", |g, o| {
                da.sddmm(g, &dx, &dy, k, o)
            });
            record("op", r);
            let r = checked(&gpu, &mut out, &reference, "sddmm_cuda", |g, o| {
                loops::ops::sddmm::sddmm(g, &da, &dx, &dy, k, o)
            });
            record("cuda", r);
            // The language's kernel under every schedule it is stamped with (the ks that take
            // each of its paths: one value per lane, 4, 8 and 16, more than a warp's lanes).
            if SDDMM_LANGUAGE_KS.contains(&k) {
                // As the op would run it: `auto` (its pick among the candidates below).
                let r = checked(&gpu, &mut out, &reference, "sddmm_lang", |g, o| {
                    loops::ops::sddmm_lang::sddmm(g, &da, &dx, &dy, k, o)
                });
                record("lang", r);
                // Every candidate `auto` may pick, `flat` (nonzeros in pieces across rows)
                // among them, launched alone.
                {
                    use loops::ops::sddmm_lang::dot::auto::sddmm as auto;
                    for (c, variant) in auto::VARIANTS.iter().enumerate() {
                        let what = format!("auto/{}", variant.config.short_name());
                        let r = checked(&gpu, &mut out, &reference, &what, |g, o| {
                            let mut args = loops::launch::KernelArgs::new();
                            args.csr(&da).slice(&dx).slice(&dy).scalar(k).slice_mut(o);
                            let call = loops::__private::Call::new("a", &da, false);
                            g.run_variant(&auto::KERNEL, c, T::RUST_NAME, call, args, false)
                        });
                        record(&what, r);
                    }
                }
                for s in loops::ops::sddmm_lang::dot::SCHEDULES {
                    let r = checked(&gpu, &mut out, &reference, s, |g, o| {
                        loops::ops::sddmm_lang::dot::launch(s, g, &da, &dx, &dy, k, o)
                    });
                    record(s, r);
                }
            }
            cases += 1;
            println!(
                "{name:<36} {:>8} x {:<8} nnz {:>9} k {k:>3} {}: op/cuda/schedules {}",
                a.rows(),
                a.cols(),
                a.nnz(),
                T::RUST_NAME,
                line.join("/")
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures in {cases} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn spmm_f32_matches_the_cpu() {
    spmm_all::<f32>();
}

#[test]
fn spmm_f64_matches_the_cpu() {
    spmm_all::<f64>();
}

#[test]
fn sddmm_f32_matches_the_cpu() {
    sddmm_all::<f32>();
}

#[test]
fn sddmm_f64_matches_the_cpu() {
    sddmm_all::<f64>();
}

/// One matrix of `T` with long rows and short, its B at `k`, and the reference.
fn tuning_case<T: Float>(k: usize) -> (sprs::CsMat<T>, Vec<T>, DenseReference) {
    let a = loops::io::generate::power_law::<T>(20_000, 20_000, 16.0, 2.0, false, 7);
    let b: Vec<T> = loops::io::generate::random_vector(a.cols() * k, 11);
    let rows = sample_rows(&a, None);
    let reference = DenseReference::spmm(&a, &b, k, &rows);
    (a, b, reference)
}

/// The first call measures and keeps its winner with the matrix (and on disk); the next call on
/// the matrix launches it (kept), a fresh upload of the same matrix reads it from disk (stored);
/// tuning off gives the model's plan and keeps nothing. Every result checked.
fn tuning_is_kept_and_stored<T: Float>() {
    let gpu = common::gpu();
    let dir = std::env::temp_dir().join(format!(
        "loops-spmm-tune-{}-{}",
        std::process::id(),
        T::RUST_NAME
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let cache = TuneCache::in_dir(&dir);
    for k in [4, 32, 128] {
        let (a, b, reference) = tuning_case::<T>(k);
        let db = gpu.upload(&b).unwrap();
        let mut dc = gpu.zeros::<T>(a.rows() * k).unwrap();
        let run = |da: &DeviceCsr<T>, dc: &mut DeviceBuffer<T>, cache: &TuneCache| {
            let mut source = None;
            checked(&gpu, dc, &reference, "tuned", |g, c| {
                source = Some(spmm_tuned(g, da, &db, k, c, cache)?);
                Ok(())
            })
            .unwrap_or_else(|e| panic!("k {k} {}: {e}", T::RUST_NAME));
            source.unwrap()
        };
        let first = gpu.upload_csr(&a).unwrap();
        let (plan, source) = run(&first, &mut dc, &cache);
        assert_eq!(source, PlanSource::Measured, "k {k}");
        assert!(spmm_candidates(shape_of(&gpu, &first, k)).contains(&plan));
        assert_eq!(kept_plan(&first, k), Some(plan));
        assert_eq!(first.preprocessed().op_plans_kept(), 1);
        assert_eq!(run(&first, &mut dc, &cache), (plan, PlanSource::Kept));
        let second = gpu.upload_csr(&a).unwrap();
        assert_eq!(run(&second, &mut dc, &cache), (plan, PlanSource::Stored));
        assert_eq!(kept_plan(&second, k), Some(plan));
        let off = gpu.upload_csr(&a).unwrap();
        let model = spmm_plan(shape_of(&gpu, &off, k), SpmmMapping::Auto);
        assert_eq!(
            run(&off, &mut dc, &TuneCache::disabled()),
            (model, PlanSource::Model)
        );
        assert_eq!(off.preprocessed().op_plans_kept(), 0);
        println!("k {k} {}: measured {}", T::RUST_NAME, plan.label());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn spmm_tuning_is_kept_and_stored_f32() {
    tuning_is_kept_and_stored::<f32>();
}

#[test]
fn spmm_tuning_is_kept_and_stored_f64() {
    tuning_is_kept_and_stored::<f64>();
}

/// A call inside a stream capture times nothing: it records the model's plan (nothing kept), and
/// the graph's replay computes the product.
#[test]
fn spmm_tuning_not_inside_a_capture() {
    use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
    let gpu = common::gpu();
    let k = 32;
    let (a, b, reference) = tuning_case::<f32>(k);
    let db = gpu.upload(&b).unwrap();
    let mut dc = gpu.zeros::<f32>(a.rows() * k).unwrap();
    // Compiled before the capture, as a program that captures has run its kernels once.
    let warm = gpu.upload_csr(&a).unwrap();
    spmm_tuned(&gpu, &warm, &db, k, &mut dc, &TuneCache::not_persisted()).unwrap();
    let da = gpu.upload_csr(&a).unwrap();
    gpu.fill(&mut dc, f32::POISON).unwrap();
    gpu.synchronize().unwrap();
    let stream = gpu.stream();
    stream
        .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        .unwrap();
    let recorded = spmm_tuned(&gpu, &da, &db, k, &mut dc, &TuneCache::not_persisted());
    let graph = stream.end_capture(CUgraphInstantiate_flags(0));
    let (plan, source) = recorded.unwrap();
    let graph = graph.unwrap().expect("a graph");
    assert_eq!(source, PlanSource::Model);
    assert_eq!(plan, spmm_plan(shape_of(&gpu, &da, k), SpmmMapping::Auto));
    assert_eq!(da.preprocessed().op_plans_kept(), 0);
    graph.launch().unwrap();
    gpu.synchronize().unwrap();
    let check = reference.check(&gpu.download(&dc).unwrap());
    assert!(check.passed(), "{check}");
}

/// Bad arguments are errors before anything runs, and leave the output alone.
#[test]
fn bad_arguments_are_errors() {
    let gpu = common::gpu();
    let a = gpu
        .upload_csr(&loops::io::generate::uniform::<f32>(100, 80, 4, 1))
        .unwrap();
    let b = gpu.zeros::<f32>(80 * 8).unwrap();
    let mut c = gpu.zeros::<f32>(100 * 8).unwrap();
    gpu.fill(&mut c, 7.0).unwrap();
    let is_invalid = |e: LoopsError| matches!(e, LoopsError::InvalidArgument { .. });
    let is_short = |e: LoopsError| matches!(e, LoopsError::BufferTooShort { .. });
    assert!(is_invalid(a.spmm(&gpu, &b, 0, &mut c).unwrap_err()));
    assert!(is_short(a.spmm(&gpu, &b, 9, &mut c).unwrap_err()));
    let mut short_c = gpu.zeros::<f32>(100 * 8 - 1).unwrap();
    assert!(is_short(a.spmm(&gpu, &b, 8, &mut short_c).unwrap_err()));
    assert!(is_short(
        a.spmm(&gpu, &b, 1, &mut gpu.zeros::<f32>(99).unwrap())
            .unwrap_err()
    ));
    assert!(is_invalid(
        a.spmm(&gpu, &b, usize::MAX / 2, &mut c).unwrap_err()
    ));
    assert!(gpu.download(&c).unwrap().iter().all(|&v| v == 7.0));

    let x = gpu.zeros::<f32>(100 * 4).unwrap();
    let y = gpu.zeros::<f32>(80 * 4).unwrap();
    let mut out = gpu.zeros::<f32>(a.nnz()).unwrap();
    assert!(is_invalid(a.sddmm(&gpu, &x, &y, 0, &mut out).unwrap_err()));
    assert!(is_short(a.sddmm(&gpu, &x, &y, 5, &mut out).unwrap_err()));
    let mut short_out = gpu.zeros::<f32>(a.nnz() - 1).unwrap();
    assert!(is_short(
        a.sddmm(&gpu, &x, &y, 4, &mut short_out).unwrap_err()
    ));
    a.sddmm(&gpu, &x, &y, 4, &mut out).unwrap();
}

/// The doc examples of `CsrOps::spmm` and `CsrOps::sddmm`, run.
#[test]
fn doc_examples() {
    let gpu = Gpu::new(0).unwrap();
    // A = [[1, 2], [0, 3]], B = [[1, 0, 2], [4, 1, 0]] (k = 3).
    let a = sprs::CsMat::new((2, 2), vec![0, 2, 3], vec![0, 1, 1], vec![1.0f32, 2.0, 3.0]);
    let a = gpu.upload_csr(&a).unwrap();
    let b = gpu.upload(&[1.0f32, 0.0, 2.0, 4.0, 1.0, 0.0]).unwrap();
    let mut c = gpu.zeros::<f32>(2 * 3).unwrap();
    a.spmm(&gpu, &b, 3, &mut c).unwrap();
    assert_eq!(
        gpu.download(&c).unwrap(),
        vec![9.0, 2.0, 2.0, 12.0, 3.0, 0.0]
    );

    // out[nz] = x[row] · y[col] at (0,0), (0,1), (1,1), with k = 2.
    let x = gpu.upload(&[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let y = gpu.upload(&[5.0f32, 6.0, 7.0, 8.0]).unwrap();
    let mut out = gpu.zeros::<f32>(3).unwrap();
    a.sddmm(&gpu, &x, &y, 2, &mut out).unwrap();
    assert_eq!(gpu.download(&out).unwrap(), vec![17.0, 23.0, 53.0]);
}

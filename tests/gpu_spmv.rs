//! SpMV on the GPU against the f64 CPU reference: every generated shape and every real matrix, f32
//! and f64, outputs poisoned (NaN) before each run, fresh random `x` every run.
#![cfg(feature = "gpu")]

mod common;
use loops_kernels as kernels;

use kernels::spmv::thread::spmv;
use loops::check;
use loops::prelude::*;

/// Runs `spmv` on one matrix and returns a line for the table, or the failure.
fn run_one<T: Float>(
    gpu: &Gpu,
    name: &str,
    a: &sprs::CsMat<T>,
    seed: u64,
) -> Result<String, String> {
    let x: Vec<T> = loops::io::generate::random_vector(a.cols(), seed);
    let da = gpu.upload_csr(a).map_err(|e| e.to_string())?;
    let dx = gpu.upload(&x).map_err(|e| e.to_string())?;
    let mut dy = gpu.zeros::<T>(a.rows()).map_err(|e| e.to_string())?;
    gpu.fill(&mut dy, T::POISON).map_err(|e| e.to_string())?;
    spmv(gpu, &da, &dx, &mut dy).map_err(|e| e.to_string())?;
    let y = gpu.download(&dy).map_err(|e| e.to_string())?;
    let check = check::check_spmv(a, &x, &y);
    let line = format!(
        "{name:<40} {:>8} {:>9} {:<4} {check}",
        a.rows(),
        a.nnz(),
        T::RUST_NAME
    );
    if check.passed() {
        Ok(line)
    } else {
        Err(line)
    }
}

fn run_all<T: Float>(matrices: Vec<(String, sprs::CsMat<T>)>) {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); device {}",
        gpu.name()
    );
    let mut failures = Vec::new();
    for (i, (name, a)) in matrices.iter().enumerate() {
        match run_one(&gpu, name, a, seed.wrapping_add(i as u64)) {
            Ok(line) => println!("ok   {line}"),
            Err(line) => {
                println!("FAIL {line}");
                failures.push(line);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} matrices failed:\n{}",
        failures.len(),
        matrices.len(),
        failures.join("\n")
    );
}

#[test]
fn spmv_thread_generated_f32() {
    run_all(common::generated_matrices::<f32>(common::fresh_seed()));
}

#[test]
fn spmv_thread_generated_f64() {
    run_all(common::generated_matrices::<f64>(common::fresh_seed()));
}

#[test]
fn spmv_thread_real_matrices_f32() {
    run_all(common::real_matrices::<f32>());
}

#[test]
fn spmv_thread_real_matrices_f64() {
    run_all(common::real_matrices::<f64>());
}

/// A buffer shorter than the matrix needs is an error before launch, naming the parameter.
#[test]
fn short_x_is_an_error_before_launch() {
    let gpu = common::gpu();
    let a = loops::io::generate::uniform::<f32>(100, 80, 4, 1);
    let da = gpu.upload_csr(&a).unwrap();
    let dx = gpu.upload(&vec![1.0f32; 79]).unwrap();
    let mut dy = gpu.zeros::<f32>(100).unwrap();
    let err = spmv(&gpu, &da, &dx, &mut dy).unwrap_err().to_string();
    assert!(
        err.contains("`x` has 79 elements but needs at least 80"),
        "{err}"
    );
}

/// `schedule = "auto"` launches one candidate per tile set; this launches every candidate of the
/// `auto` SpMV directly (the spec and entry the wrapper would pick), on every generated and real
/// matrix, f32 and f64, so that each schedule `auto` may choose is checked on every shape. Each
/// candidate runs twice: with the block starts kept with the matrix (as the wrapper launches it)
/// and without them, when the merge path's blocks search for their ranges.
#[test]
fn spmv_auto_every_candidate() {
    use kernels::spmv::auto::spmv as auto;
    use loops::launch::KernelArgs;
    fn run<T: Float>(gpu: &Gpu, seed: u64) -> Vec<String> {
        let mut failures = Vec::new();
        let mut matrices = common::filtered(common::generated_matrices::<T>(seed));
        matrices.extend(common::filtered(common::real_matrices::<T>()));
        for (i, (name, a)) in matrices.iter().enumerate() {
            let x: Vec<T> =
                loops::io::generate::random_vector(a.cols(), seed.wrapping_add(i as u64));
            let da = gpu.upload_csr(a).expect("upload");
            let dx = gpu.upload(&x).expect("upload");
            let mut dy = gpu.zeros::<T>(a.rows()).expect("alloc");
            for (c, variant) in auto::VARIANTS.iter().enumerate() {
                for kept in [true, false] {
                    gpu.fill(&mut dy, T::POISON).expect("fill");
                    let mut args = KernelArgs::new();
                    args.csr(&da).slice(&dx).slice_mut(&mut dy);
                    let call = loops::__private::Call::new("a", &da, cfg!(debug_assertions));
                    let launched =
                        gpu.run_variant(&auto::KERNEL, c, T::RUST_NAME, call, args, !kept);
                    let y = launched.and_then(|()| gpu.download(&dy));
                    let searched = if kept { "" } else { " (searched ranges)" };
                    let schedule = format!("{}{searched}", variant.config.short_name());
                    match y {
                        Ok(y) => {
                            let check = check::check_spmv(a, &x, &y);
                            if !check.passed() {
                                failures
                                    .push(format!("{name} {schedule} {}: {check}", T::RUST_NAME));
                            }
                        }
                        Err(e) => failures.push(format!("{name} {schedule} {}: {e}", T::RUST_NAME)),
                    }
                }
            }
            // The carry candidates' starts (merge path, work_oriented of 8 and of 16 atoms a
            // thread) were kept by their first launches.
            let carries = auto::VARIANTS
                .iter()
                .filter(|v| v.config.schedule.unit().carries())
                .count();
            if da.preprocessed().block_starts_kept() != carries {
                failures.push(format!(
                    "{name}: kept {:?}, expected {carries} block-start arrays",
                    da.preprocessed()
                ));
            }
        }
        failures
    }
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); candidates {:?}",
        auto::VARIANTS
            .iter()
            .map(|v| v.config.short_name())
            .collect::<Vec<_>>()
    );
    let mut failures = run::<f32>(&gpu, seed);
    failures.extend(run::<f64>(&gpu, seed));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `split`, `lrb`, `merge_path` and `work_oriented` keep what they compute from a whole tile set
/// (piece counts, bins, the prefix sum of the longest tiles, where each block's range starts) with it: later launches, with other `x`, and launches from a fork on
/// another stream, must give the same right answers from the kept data.
#[test]
fn preprocessing_is_kept_per_tile_set() {
    use kernels::spmv::{lrb, merge_path, merge_path12, split, split3, work_oriented};
    type Spmv =
        fn(&Gpu, &DeviceCsr<f32>, &DeviceBuffer<f32>, &mut DeviceBuffer<f32>) -> loops::Result<()>;
    let launches: [(&str, Spmv); 6] = [
        ("split", split::spmv::<f32>),
        ("split3", split3::spmv::<f32>),
        ("lrb", lrb::spmv::<f32>),
        ("merge_path", merge_path::spmv::<f32>),
        ("merge_path12", merge_path12::spmv::<f32>),
        ("work_oriented", work_oriented::spmv::<f32>),
    ];
    let gpu = common::gpu();
    let fork = gpu.fork().expect("fork");
    let seed = common::fresh_seed();
    println!("seed {seed} (replay with LOOPS_SEED={seed})");
    let mut failures = Vec::new();
    let mut matrices = common::filtered(common::generated_matrices::<f32>(seed));
    matrices.push((
        "arrow 20000 (rows past 4096 atoms)".into(),
        loops::io::generate::arrow(20_000, seed),
    ));
    // At least `SMALL_SET_TILES` rows, so that `lrb` launches its groups of 2 and 4 too.
    let large = loops::schedule::lrb::SMALL_SET_TILES as usize + 1000;
    matrices.push((
        format!("power-law {large} mean 16"),
        loops::io::generate::power_law(large, large, 16.0, 2.0, false, seed),
    ));
    matrices.push((
        format!("uniform {large} x24 (groups of 4)"),
        loops::io::generate::uniform(large, 5000, 24, seed),
    ));
    for (i, (name, a)) in matrices.iter().enumerate() {
        let da = gpu.upload_csr(a).expect("upload");
        let fresh = da.preprocessed();
        assert!(!fresh.has_bins() && fresh.prefixes_kept() == 0 && fresh.block_starts_kept() == 0);
        for round in 0..3u64 {
            // The last round runs on the fork, from the data the first handle kept.
            let handle = if round == 2 { &fork } else { &gpu };
            for (schedule, spmv) in launches {
                let x: Vec<f32> =
                    loops::io::generate::random_vector(a.cols(), seed ^ (i as u64 * 7 + round));
                let dx = handle.upload(&x).expect("upload");
                let mut dy = handle.zeros::<f32>(a.rows()).expect("alloc");
                handle.fill(&mut dy, f32::POISON).expect("fill");
                let y = spmv(handle, &da, &dx, &mut dy).and_then(|()| handle.download(&dy));
                match y {
                    Ok(y) => {
                        let check = check::check_spmv(a, &x, &y);
                        if !check.passed() {
                            failures.push(format!("{name} {schedule} round {round}: {check}"));
                        }
                    }
                    Err(e) => failures.push(format!("{name} {schedule} round {round}: {e}")),
                }
            }
        }
        // One prefix sum per piece size (the automatic one may be 3 too), one for lrb's longest
        // tiles where there are any.
        let mdts = if da.split_mdt().max(1) == 3 { 1 } else { 2 };
        let longest = a.outer_iterator().map(|r| r.nnz()).max().unwrap_or(0);
        let want = mdts + usize::from(longest > 4096);
        let kept = da.preprocessed();
        // One block-start array per geometry: merge path 8 and 12, work_oriented 8.
        if !kept.has_bins() || kept.prefixes_kept() != want || kept.block_starts_kept() != 3 {
            failures.push(format!(
                "{name}: kept {kept:?}, expected bins, {want} prefix sums and 3 block-start arrays"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The first (largest) value of each row and the position holding it, under `hierarchical`: a
/// selection, combined across the pieces of a cut tile by value, then position.
#[load_balanced(schedule = "hierarchical")]
pub fn row_argmax_hier<T: Float>(a: Csr<T>, best: &mut [T], at: &mut [i32]) {
    for row in a.tiles() {
        let mut m = T::NEG_INFINITY;
        let mut c = -1;
        for nz in a.atoms(row) {
            let v = a.values[nz];
            if v > m {
                m = v;
                c = nz as i32;
            }
        }
        best[row] = m;
        at[row] = c;
    }
}

/// `rows` rows of the given lengths, each over distinct columns spread through `cols`, values
/// from the seed (few distinct values, so that the argmax meets ties).
fn rows_of<T: Float>(lengths: &[usize], cols: usize, seed: u64) -> sprs::CsMat<T> {
    let mut indptr = vec![0usize];
    let mut indices = Vec::new();
    let mut data = Vec::new();
    let mut state = seed | 1;
    for (r, &len) in lengths.iter().enumerate() {
        let mut row: Vec<usize> = (0..len.min(cols))
            .map(|k| (r * 7919 + k * 13) % cols)
            .collect();
        row.sort_unstable();
        row.dedup();
        for c in row {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            indices.push(c);
            data.push(T::from_f64((state % 64) as f64 / 16.0 - 2.0));
        }
        indptr.push(indices.len());
    }
    sprs::CsMat::new((lengths.len(), cols), indptr, indices, data)
}

/// `hierarchical`'s block pass cuts long tiles into pieces across blocks, and the last piece's
/// block combines the partials (in piece order) and runs the epilogue once: SpMV (a sum) and an
/// argmax (a selection: the first largest value), f32 and f64, outputs poisoned, after a first
/// pass of groups of 4 (many rows past its share, and hubs), of 4 (hubs among rows of 3) and of a
/// warp (long mean rows, hubs); with several hubs whose pieces share the slots.
#[test]
fn hierarchical_cuts_long_tiles_across_blocks() {
    fn run<T: Float>(gpu: &Gpu, seed: u64) -> Vec<String> {
        let mut shapes: Vec<(String, Vec<usize>, usize)> = Vec::new();
        // 70,000 rows (a large set: groups of 4), 2,000 rows of 100 (past the first pass's 64,
        // more than a wave of blocks: a warp pass), hubs of 30,000 and 9,000 atoms.
        let mut many = vec![16usize; 70_000];
        for r in (0..70_000).step_by(35) {
            many[r] = 100;
        }
        many[12_345] = 30_000;
        many[69_999] = 9_000;
        shapes.push(("70,000 rows, 2,000 of 100, hubs".into(), many, 70_001));
        // Hubs among rows of 3 (arrow's shape).
        let mut arrow = vec![3usize; 40_000];
        arrow[0] = 40_000;
        arrow[20_000] = 12_000;
        shapes.push(("40,000 rows of 3, two hubs".into(), arrow, 40_000));
        // Rows of 40 (a warp a row), hubs of 20,000 and 5,000.
        let mut wide = vec![40usize; 3_000];
        wide[1] = 20_000;
        wide[2_999] = 5_000;
        shapes.push(("3,000 rows of 40, hubs".into(), wide, 20_011));
        let mut failures = Vec::new();
        for (name, lengths, cols) in shapes {
            let a = rows_of::<T>(&lengths, cols, seed);
            let da = gpu.upload_csr(&a).expect("upload");
            for round in 0..2u64 {
                let x: Vec<T> = loops::io::generate::random_vector(a.cols(), seed ^ round);
                let dx = gpu.upload(&x).expect("upload");
                let mut dy = gpu.zeros::<T>(a.rows()).expect("alloc");
                gpu.fill(&mut dy, T::POISON).expect("fill");
                match kernels::spmv::hierarchical::spmv(gpu, &da, &dx, &mut dy)
                    .and_then(|()| gpu.download(&dy))
                {
                    Ok(y) => {
                        let check = check::check_spmv(&a, &x, &y);
                        if !check.passed() {
                            failures.push(format!("{name} {} spmv: {check}", T::RUST_NAME));
                        }
                    }
                    Err(e) => failures.push(format!("{name} {} spmv: {e}", T::RUST_NAME)),
                }
            }
            let mut best = gpu.zeros::<T>(a.rows()).expect("alloc");
            gpu.fill(&mut best, T::POISON).expect("fill");
            let mut at = gpu.upload(&vec![-7i32; a.rows()]).expect("upload");
            let got = row_argmax_hier(gpu, &da, &mut best, &mut at)
                .and_then(|()| Ok((gpu.download(&best)?, gpu.download(&at)?)));
            match got {
                Ok((best, at)) => {
                    for (r, row) in a.outer_iterator().enumerate() {
                        let (mut m, mut c) = (f64::NEG_INFINITY, -1i32);
                        for (k, (_, v)) in row.iter().enumerate() {
                            if v.to_f64() > m {
                                m = v.to_f64();
                                c = (a.indptr().outer_inds_sz(r).start + k) as i32;
                            }
                        }
                        if best[r].to_f64() != m || at[r] != c {
                            failures.push(format!(
                                "{name} {} argmax row {r}: ({}, {}) for ({m}, {c})",
                                T::RUST_NAME,
                                best[r].to_f64(),
                                at[r]
                            ));
                            break;
                        }
                    }
                }
                Err(e) => failures.push(format!("{name} {} argmax: {e}", T::RUST_NAME)),
            }
        }
        failures
    }
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed} (replay with LOOPS_SEED={seed})");
    let mut failures = run::<f32>(&gpu, seed);
    failures.extend(run::<f64>(&gpu, seed));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

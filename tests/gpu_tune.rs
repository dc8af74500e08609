//! `schedule = "auto"`'s measured tuning on the GPU: the first call on a tile set times the
//! model's best candidates on copies of the outputs, and returns what one launch of the winner
//! returns (an epilogue that reads its output, atomics); the winner is kept with the set and in
//! the tuning cache (a new upload of the same matrix is not timed again); a cached winner the
//! kernel cannot run is not used.
//!
//! Every test here runs unchecked (checked mode runs the model's choice untimed), with the tuning
//! cache in a fresh temporary folder, and fresh random inputs.
#![cfg(feature = "gpu")]

mod common;
use loops_kernels as kernels;

use std::sync::{Mutex, OnceLock};

use loops::io::host::{expected_error_bound, spmv_reference};
use loops::launch::Call;
use loops::launch::{set_checked_mode, KernelArgs};
use loops::prelude::*;
use loops::tune::report::{set_observer, TuneReport};
use loops::tune::{DeviceIdentity, Fingerprint, TuneCache, TuneKey, Winner};
use sprs::CsMat;

/// Every tuning of this process.
fn reports() -> &'static Mutex<Vec<TuneReport>> {
    static REPORTS: OnceLock<Mutex<Vec<TuneReport>>> = OnceLock::new();
    REPORTS.get_or_init(Default::default)
}

/// Once per process, before any launch: the tuning cache in a fresh folder, checked mode off, an
/// observer that records every tuning.
fn setup() -> Gpu {
    static DIR: OnceLock<std::path::PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir =
            std::env::temp_dir().join(format!("loops-gpu-tune-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        // Before the first use of the tuning cache (which reads it once).
        std::env::set_var(loops::tune::TUNE_DIR_ENV, &dir);
        set_checked_mode(Some(false));
        set_observer(Some(Box::new(|r: &TuneReport| {
            reports().lock().unwrap().push(r.clone())
        })));
        dir
    });
    common::gpu()
}

/// The tunings of `kernel` on a set of `atoms` atoms so far.
fn tunings(kernel: &str, atoms: usize) -> Vec<TuneReport> {
    reports()
        .lock()
        .unwrap()
        .iter()
        .filter(|r| r.kernel == kernel && r.atoms == atoms as u64)
        .cloned()
        .collect()
}

/// A skewed matrix (power-law rows, mean 6): `auto`'s shortlist has candidates of both kinds.
fn skewed(rows: usize, seed: u64) -> CsMat<f64> {
    loops::io::generate::power_law::<f64>(rows, rows, 6.0, 2.1, false, seed)
}

fn variant_index(desc: &loops::launch::KernelDesc, name: &str) -> usize {
    desc.variants
        .iter()
        .position(|v| v.name == name)
        .unwrap_or_else(|| panic!("no variant `{name}`"))
}

fn assert_close(got: &[f64], want: &[f64], bound: &[f64], what: &str) {
    assert_eq!(got.len(), want.len());
    for (i, ((g, w), b)) in got.iter().zip(want).zip(bound).enumerate() {
        assert!(
            (g - w).abs() <= *b,
            "{what}: entry {i} is {g}, expected {w} (bound {b})"
        );
    }
}

/// `y = 1.5 A x - 0.75 y`: an epilogue that reads its output. Tuning runs candidates on copies; had
/// one of them written `y`, the result would hold the epilogue twice.
#[test]
fn tuning_leaves_an_epilogue_that_reads_its_output_as_one_launch() {
    let gpu = setup();
    let seed = common::fresh_seed();
    let a = skewed(30_000, seed);
    let x: Vec<f64> = loops::io::generate::random_vector(a.cols(), seed ^ 1);
    let y0: Vec<f64> = loops::io::generate::random_vector(a.rows(), seed ^ 2);
    let da = gpu.upload_csr(&a).unwrap();
    let dx = gpu.upload(&x).unwrap();
    let mut dy = gpu.upload(&y0).unwrap();
    kernels::spmv_axpby::auto::spmv_axpby(&gpu, &da, &dx, &mut dy, 1.5, -0.75).unwrap();
    let got = gpu.download(&dy).unwrap();

    let tuned = tunings("spmv_axpby", a.nnz());
    assert_eq!(tuned.len(), 1, "seed {seed}: one tuning, got {tuned:?}");
    assert!(tuned[0].timings_us.len() >= 2);
    let (ax, scale) = spmv_reference(&a, &x);
    let want: Vec<f64> = (0..a.rows()).map(|r| 1.5 * ax[r] - 0.75 * y0[r]).collect();
    let bound: Vec<f64> = (0..a.rows())
        .map(|r| {
            let nnz = a.outer_view(r).map_or(0, |v| v.nnz());
            1.5 * expected_error_bound::<f64>(nnz, scale[r]) + 1e-12 * y0[r].abs()
        })
        .collect();
    assert_close(&got, &want, &bound, &format!("seed {seed}, auto"));

    // The winner alone, once, on the same inputs: the same result.
    let desc = &kernels::spmv_axpby::auto::spmv_axpby::KERNEL;
    let winner = variant_index(desc, &tuned[0].winner);
    let mut dy_winner = gpu.upload(&y0).unwrap();
    let mut args = KernelArgs::new();
    args.tile_set(&da)
        .slice(&dx)
        .slice_mut(&mut dy_winner)
        .scalar(1.5f64)
        .scalar(-0.75f64);
    gpu.run_variant(desc, winner, "f64", Call::new("a", &da, false), args, false)
        .unwrap();
    let alone = gpu.download(&dy_winner).unwrap();
    let tight: Vec<f64> = got.iter().map(|v| 1e-12 * v.abs().max(1e-300)).collect();
    assert_close(
        &got,
        &alone,
        &tight,
        &format!("seed {seed}, auto against its winner"),
    );
}

/// Column sums row by row (the tile form: `auto` tunes it; the atom-major `column_sums` of the
/// kernels crate never asks a row, so it is one flat loop over the entries under every schedule,
/// with nothing to tune).
mod by_row {
    use loops::prelude::*;

    #[load_balanced(schedule = "auto")]
    pub fn column_sums<T: Float>(a: Csr<T>, colsum: &mut [T]) {
        for row in a.tiles() {
            for nz in a.atoms(row) {
                atomic_add(&mut colsum[a.col_indices[nz] as usize], a.values[nz]);
            }
        }
    }
}

/// Column sums by atomics into the output: a candidate that added into the user's buffer would
/// leave every sum counted several times.
#[test]
fn tuning_leaves_atomic_outputs_as_one_launch() {
    let gpu = setup();
    let seed = common::fresh_seed();
    let a = skewed(40_000, seed ^ 7);
    let sums0: Vec<f64> = loops::io::generate::random_vector(a.cols(), seed ^ 3);
    let da = gpu.upload_csr(&a).unwrap();
    let mut dsums = gpu.upload(&sums0).unwrap();
    by_row::column_sums(&gpu, &da, &mut dsums).unwrap();
    let got = gpu.download(&dsums).unwrap();
    assert_eq!(
        tunings("column_sums", a.nnz()).len(),
        1,
        "seed {seed}: one tuning"
    );
    let mut want = sums0.clone();
    let mut count = vec![0usize; a.cols()];
    let mut scale = vec![0f64; a.cols()];
    for (v, (_, c)) in a.iter() {
        want[c] += v;
        count[c] += 1;
        scale[c] += v.abs();
    }
    let bound: Vec<f64> = (0..a.cols())
        .map(|c| expected_error_bound::<f64>(count[c] + 1, scale[c] + sums0[c].abs()))
        .collect();
    assert_close(&got, &want, &bound, &format!("seed {seed}, column sums"));
}

/// The second call on a set reads the winner kept with it; a new upload of the same matrix reads
/// it from the tuning cache: neither is timed again.
#[test]
fn a_winner_is_kept_with_the_set_and_on_disk() {
    let gpu = setup();
    let seed = common::fresh_seed();
    let a = skewed(25_000, seed ^ 11);
    let x: Vec<f64> = loops::io::generate::random_vector(a.cols(), seed);
    let dx = gpu.upload(&x).unwrap();
    let run = |da: &DeviceCsr<f64>| {
        let mut dy = gpu.zeros::<f64>(a.rows()).unwrap();
        gpu.fill(&mut dy, f64::NAN).unwrap();
        kernels::spmv::auto::spmv(&gpu, da, &dx, &mut dy).unwrap();
        let check = loops::check::check_spmv(&a, &x, &gpu.download(&dy).unwrap());
        assert!(check.passed(), "seed {seed}: {check}");
    };
    let first = gpu.upload_csr(&a).unwrap();
    run(&first);
    run(&first);
    assert_eq!(tunings("spmv", a.nnz()).len(), 1, "seed {seed}");
    assert_eq!(first.preprocessed().tuned_kept(), 1);
    let again = gpu.upload_csr(&a).unwrap();
    assert_eq!(again.preprocessed().tuned_kept(), 0);
    run(&again);
    assert_eq!(
        tunings("spmv", a.nnz()).len(),
        1,
        "seed {seed}: read from disk"
    );
    assert_eq!(again.preprocessed().tuned_kept(), 1);
}

/// A cached winner that names no variant of the kernel (another build, a hand-edited file) is not
/// used: the call tunes again, and replaces the entry.
#[test]
fn an_invalid_cached_winner_is_tuned_again() {
    let gpu = setup();
    let seed = common::fresh_seed();
    let a = skewed(27_000, seed ^ 13).map(|&v| v as f32);
    let x: Vec<f32> = loops::io::generate::random_vector(a.cols(), seed);
    let da = gpu.upload_csr(&a).unwrap();
    let dx = gpu.upload(&x).unwrap();
    let desc = &kernels::spmv::auto::spmv::KERNEL;
    // The key the runtime writes for this call (see `launch/run/tuning.rs`).
    let stats = da.stats();
    let key = TuneKey::new(
        desc.name,
        desc.source,
        &DeviceIdentity::of(&gpu),
        &Fingerprint {
            element: "f32".into(),
            checked: false,
            wide: false,
            tiles: stats.tiles,
            atoms: stats.atoms,
            histogram: stats.histogram,
            longest_tile: stats.max_tile_atoms,
            longest_empty_run: stats.longest_empty_run,
            extra: vec![a.cols() as u64, a.rows() as u64],
        },
    );
    let cache = TuneCache::global();
    cache.store(
        &key,
        &Winner {
            variant: "spmv_no_such_schedule".into(),
            timings_us: vec![],
        },
    );
    assert_eq!(cache.load(&key).unwrap().variant, "spmv_no_such_schedule");
    let mut dy = gpu.zeros::<f32>(a.rows()).unwrap();
    gpu.fill(&mut dy, f32::NAN).unwrap();
    kernels::spmv::auto::spmv(&gpu, &da, &dx, &mut dy).unwrap();
    let check = loops::check::check_spmv(&a, &x, &gpu.download(&dy).unwrap());
    assert!(check.passed(), "seed {seed}: {check}");
    let tuned = tunings("spmv", a.nnz());
    assert_eq!(tuned.len(), 1, "seed {seed}: tuned again");
    let stored = cache.load(&key).expect("replaced");
    assert_eq!(stored.variant, tuned[0].winner);
    variant_index(desc, &stored.variant);
}

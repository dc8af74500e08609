//! The segmented-sort benchmark: `segmented_sort` (each row's column indices sorted, values
//! carried) and `transpose` (CSR to CSC) of `loops::ops`, against CUB's
//! `DeviceSegmentedSort::StableSortPairs` and `DeviceSegmentedRadixSort::SortPairs` and cuSPARSE's
//! `cusparseCsr2cscEx2`, on generated matrices and the real ones, each row's entries shuffled.
//!
//!     cargo run --release --features gpu --example bench_sort -- --quick
//!     cargo run --release --features gpu --example bench_sort -- --cub examples/bench/cub/segsort
//!     cargo run --release --features gpu --example bench_sort -- --f64 --reps 100 --corpus DIR
//!     cargo run --release --features gpu --example bench_sort -- --transpose-only --interleave 300
//!
//! `--interleave` times the transpose's implementations in rounds of one call each, in an order
//! shuffled every round, the hand-written transpose twice (the A/A control), and writes every
//! call's time (`examples/bench/results/h200/stop53/tr/ratios.py` reads them).
//!
//! Every result is checked against its CPU reference, exactly, before it is timed. Timing: CUDA
//! events around each call after a warm-up, the median of `--reps` calls. The sort is timed
//! twice: `loops` sorts one matrix whose shuffled entries are copied back before each call
//! (untimed), so the bins of its rows are made by the first call and kept with the matrix (as a
//! program that sorts a matrix again after rewriting its entries); `loops_first_call` sorts a fresh
//! upload each time and so pays for its binning (and its read-back) every time, as CUB pays for
//! its own partitioning. The speedups are of `loops`; the transpose allocates its result inside the timed
//! call. The baselines run in the helper `--cub PATH` (built by `examples/bench/cub/build.sh` on
//! the GPU machine), which reads the same input from a file this writes, checks its own results
//! against a CPU reference and times them the same way. CUB and cuSPARSE's scratch is allocated
//! outside their timed calls; loops allocates its own (only for rows of more than 4096 entries)
//! inside.
//!
//! Writes `sort_<prec>.csv` and `sort_summary_<prec>.txt` to `--out` (default `target/bench`).
//! Exits non-zero if any result was wrong or any run failed.

// The cuSPARSE wrapper (csr2csc); the rest of the folder is the SpMV benchmark's.
#[allow(unused_imports)]
use loops_bench as bench;

use std::error::Error;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use clap::Parser;
use loops::io::host::Csr32;
use loops::ops::sort::{overwrite_entries, shuffle_rows, sort_rows_reference};
use loops::ops::transpose::transpose_reference;
use loops::prelude::*;
use rand::{Rng, SeedableRng};

type BoxError = Box<dyn Error>;

#[derive(Parser)]
#[command(about = "segmented_sort and transpose against CUB and cuSPARSE")]
struct Args {
    /// A folder of Matrix Market files to run after the generated set. Default: $LOOPS_DATA_DIR,
    /// else ../shared/data/matrices, where it exists.
    #[arg(long)]
    corpus: Option<PathBuf>,
    /// Only the generated set.
    #[arg(long)]
    no_corpus: bool,
    /// The CUB / cuSPARSE helper (examples/bench/cub/build.sh builds it). Without it only loops
    /// is timed.
    #[arg(long)]
    cub: Option<PathBuf>,
    /// Double precision values instead of single.
    #[arg(long)]
    f64: bool,
    /// Timed calls per measurement (after the warm-up); the median is reported.
    #[arg(long, default_value_t = 50)]
    reps: usize,
    /// Untimed calls before the timed ones.
    #[arg(long, default_value_t = 5)]
    warmup: usize,
    /// Smaller generated matrices and 20 timed calls: the whole run in about a minute.
    #[arg(long)]
    quick: bool,
    /// Where the CSV and the summary go. (The helper's input goes to the temporary folder and is
    /// removed after each matrix.)
    #[arg(long, default_value = "target/bench")]
    out: PathBuf,
    /// Seed of the generated matrices and of the shuffles.
    #[arg(long, default_value_t = 2024)]
    seed: u64,
    /// Only the matrices whose name contains this.
    #[arg(long)]
    only: Option<String>,
    /// Only the transpose: the op, its passes in the loops language (`loops_lang`, and
    /// `loops_lang_<schedule>` with the count and the scatter under each of `--lang-schedules`)
    /// and cuSPARSE's `csr2csc` in this process (`cusparse_csr2csc`), no sort.
    #[arg(long)]
    transpose_only: bool,
    /// With `--transpose-only`: also each pass alone (count, scatter, statistics), hand-written
    /// and in the language under its default schedule (`transpose_<pass>` rows).
    #[arg(long)]
    passes: bool,
    /// The schedules of the `loops_lang_<schedule>` transposes (comma-separated).
    #[arg(long, default_value = "thread,warp,merge_path,work_oriented,auto")]
    lang_schedules: String,
    /// With `--transpose-only`: time the implementations interleaved, this many rounds of one
    /// call each of the loops implementations (in an order shuffled every round), instead of each
    /// one's `--reps` calls in a block; cuSPARSE's calls follow in a block. The hand-written
    /// transpose runs twice per round (`loops_handwritten`, `loops_handwritten_again`): their
    /// ratio is the run's A/A noise; `loops_lang_<pass>_only` runs that pass of the language's
    /// and the others hand-written.
    /// Every call's time goes to `transpose_samples_<prec>.csv` (matrix, implementation, round,
    /// ms); the CSV's medians are of the rounds.
    #[arg(long)]
    interleave: Option<usize>,
}

/// One timed figure.
struct Row {
    matrix: String,
    rows: usize,
    cols: usize,
    nnz: usize,
    operation: &'static str,
    implementation: String,
    median_ms: Option<f64>,
    status: String,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let outcome = if args.f64 {
        run::<f64>(&args)
    } else {
        run::<f32>(&args)
    };
    match outcome {
        Ok(0) => ExitCode::SUCCESS,
        Ok(n) => {
            eprintln!("{n} failure(s): see the status column");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A host matrix of the given row lengths, columns uniform in `0..cols` (repeats possible),
/// random values.
fn with_lengths<T: Float>(lengths: &[usize], cols: usize, seed: u64) -> Csr32<T> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut offsets = vec![0i32];
    let mut indices = Vec::new();
    for &len in lengths {
        indices.extend((0..len).map(|_| rng.random_range(0..cols as i32)));
        offsets.push(indices.len() as i32);
    }
    let values = loops::io::generate::random_vector(indices.len(), seed + 1);
    Csr32::from_parts(lengths.len(), cols, offsets, indices, values).expect("valid parts")
}

/// Builds a matrix of the set when its turn comes.
type Builder<T> = Box<dyn Fn() -> Csr32<T>>;

/// The generated set (name, matrix builder), smaller under `--quick`.
fn generated<T: Float>(quick: bool, seed: u64) -> Vec<(String, Builder<T>)> {
    use loops::io::generate as g;
    let s = if quick { 10 } else { 1 };
    let from = |m: sprs::CsMat<T>| Csr32::from_sprs(&m).expect("fits 32 bits");
    let (pl, un, md, lr, rm) = (
        2_000_000 / s,
        4_000_000 / s,
        100_000 / s,
        64 / s.min(8),
        if quick { 17 } else { 21 },
    );
    vec![
        (
            format!("power-law {pl} rows mean 16"),
            Box::new(move || from(g::power_law(pl, pl, 16.0, 2.0, false, seed))),
        ),
        (
            format!("uniform {un} rows x 8"),
            Box::new(move || from(g::uniform(un, un, 8, seed + 1))),
        ),
        (
            format!("uniform {md} rows x 600"),
            Box::new(move || from(g::uniform(md, md, 600, seed + 2))),
        ),
        (
            format!("{lr} rows of 250000 + {} rows of 6", 10 * md),
            Box::new(move || {
                let mut lengths = vec![250_000; lr];
                lengths.extend(std::iter::repeat_n(6, 10 * md));
                with_lengths(&lengths, 1 << 20, seed + 3)
            }),
        ),
        (
            format!("rmat scale {rm} x 16"),
            Box::new(move || from(g::rmat(rm, 16, seed + 4))),
        ),
    ]
}

/// The corpus folder, if one is to run.
fn corpus_dir(args: &Args) -> Option<PathBuf> {
    if args.no_corpus {
        return None;
    }
    if let Some(dir) = &args.corpus {
        return Some(dir.clone());
    }
    let default = std::env::var_os("LOOPS_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("../shared/data/matrices"));
    default.is_dir().then_some(default)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

fn upload<T: Float>(gpu: &Gpu, m: &Csr32<T>) -> loops::Result<DeviceCsr<T>> {
    let offsets: Vec<usize> = m.offsets.iter().map(|&o| o as usize).collect();
    gpu.upload_csr_parts(m.rows, m.cols, &offsets, &m.indices, &m.values)
}

fn same_bits<T: Float>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.to_f64().to_bits() == y.to_f64().to_bits())
}

/// `segmented_sort` checked once, then timed (median ms): as `loops`, on one matrix whose shuffled
/// entries are copied back before each call (untimed), so the bins of its rows, kept with it, are
/// made once; as `loops_first_call`, on a fresh upload each time, binning included.
fn time_sort<T: Float>(
    gpu: &Gpu,
    m: &Csr32<T>,
    warmup: usize,
    reps: usize,
) -> Result<(f64, f64), String> {
    let err = |e: loops::LoopsError| e.to_string();
    let mut a = upload(gpu, m).map_err(err)?;
    a.segmented_sort(gpu).map_err(err)?;
    let (mut want_i, mut want_v) = (m.indices.clone(), m.values.clone());
    sort_rows_reference(&m.offsets, &mut want_i, &mut want_v);
    if gpu.download(a.indices()).map_err(err)? != want_i
        || !same_bits(&gpu.download(a.values()).map_err(err)?, &want_v)
    {
        return Err("WRONG: differs from the stable CPU sort".into());
    }
    let shuffled_i = gpu.upload(&m.indices).map_err(err)?;
    let shuffled_v = gpu.upload(&m.values).map_err(err)?;
    let timer = gpu.timer().map_err(err)?;
    let mut kept = Vec::with_capacity(reps);
    for i in 0..warmup + reps {
        overwrite_entries(gpu, &mut a, &shuffled_i, &shuffled_v).map_err(err)?;
        timer.start().map_err(err)?;
        a.segmented_sort(gpu).map_err(err)?;
        timer.stop().map_err(err)?;
        let ms = timer.elapsed_ms().map_err(err)? as f64;
        if i >= warmup {
            kept.push(ms);
        }
    }
    if gpu.download(a.indices()).map_err(err)? != want_i
        || !same_bits(&gpu.download(a.values()).map_err(err)?, &want_v)
    {
        return Err("WRONG: differs from the stable CPU sort (sorted again)".into());
    }
    drop(a);
    let mut fresh = Vec::with_capacity(reps);
    for i in 0..warmup + reps {
        let mut a = upload(gpu, m).map_err(err)?;
        timer.start().map_err(err)?;
        a.segmented_sort(gpu).map_err(err)?;
        timer.stop().map_err(err)?;
        let ms = timer.elapsed_ms().map_err(err)? as f64;
        if i >= warmup {
            fresh.push(ms);
        }
    }
    Ok((median(kept), median(fresh)))
}

/// `transpose` checked once, then timed (median ms).
fn time_transpose<T: Float>(
    gpu: &Gpu,
    m: &Csr32<T>,
    warmup: usize,
    reps: usize,
) -> Result<f64, String> {
    let want = transpose_reference(m.rows, m.cols, &m.offsets, &m.indices, &m.values);
    time_transpose_by(gpu, m, &want, warmup, reps, |gpu, a| a.transpose(gpu))
}

/// A transpose (`by`) checked once against the CPU's, exactly, then timed (median ms).
fn time_transpose_by<T: Float>(
    gpu: &Gpu,
    m: &Csr32<T>,
    want: &loops::io::host::Csc32<T>,
    warmup: usize,
    reps: usize,
    by: impl Fn(&Gpu, &DeviceCsr<T>) -> loops::Result<loops::DeviceCsc<T>>,
) -> Result<f64, String> {
    let err = |e: loops::LoopsError| e.to_string();
    let a = upload(gpu, m).map_err(err)?;
    let t = by(gpu, &a).map_err(err)?;
    if gpu.download(t.col_offsets()).map_err(err)? != want.col_offsets
        || gpu.download(t.row_indices()).map_err(err)? != want.row_indices
        || !same_bits(&gpu.download(t.values()).map_err(err)?, &want.values)
    {
        return Err("WRONG: differs from the CPU transpose".into());
    }
    drop(t);
    let timer = gpu.timer().map_err(err)?;
    let mut samples = Vec::with_capacity(reps);
    for i in 0..warmup + reps {
        timer.start().map_err(err)?;
        let t = by(gpu, &a).map_err(err)?;
        timer.stop().map_err(err)?;
        let ms = timer.elapsed_ms().map_err(err)? as f64;
        drop(t);
        if i >= warmup {
            samples.push(ms);
        }
    }
    Ok(median(samples))
}

/// cuSPARSE's `csr2csc` in this process, its scratch allocated before the timed calls: checked
/// once against the CPU's CSC (the status says where it differs; it is timed all the same), then
/// timed (median ms).
fn time_cusparse_csr2csc<T: Float>(
    gpu: &Gpu,
    m: &Csr32<T>,
    want: &loops::io::host::Csc32<T>,
    warmup: usize,
    reps: usize,
) -> (Result<f64, String>, String) {
    let run = || -> Result<(f64, String), String> {
        let err = |e: &dyn std::fmt::Display| e.to_string();
        let cs = bench::cusparse::Cusparse::new(gpu).map_err(|e| err(&e))?;
        let a = upload(gpu, m).map_err(|e| err(&e))?;
        let mut plan = bench::cusparse::Csr2Csc::new(&cs, gpu, &a).map_err(|e| err(&e))?;
        plan.run().map_err(|e| err(&e))?;
        let (o, r, v) = plan.parts();
        let nnz = m.nnz();
        let got_r = gpu.download(r).map_err(|e| err(&e))?;
        let got_v = gpu.download(v).map_err(|e| err(&e))?;
        let status = if gpu.download(o).map_err(|e| err(&e))? != want.col_offsets
            || got_r[..nnz] != want.row_indices[..]
            || !same_bits(&got_v[..nnz], &want.values)
        {
            "ok (timed; its result differs from the CPU's CSC)".to_string()
        } else {
            "ok".to_string()
        };
        let timer = gpu.timer().map_err(|e| err(&e))?;
        let mut samples = Vec::with_capacity(reps);
        for i in 0..warmup + reps {
            timer.start().map_err(|e| err(&e))?;
            plan.run().map_err(|e| err(&e))?;
            timer.stop().map_err(|e| err(&e))?;
            let ms = timer.elapsed_ms().map_err(|e| err(&e))? as f64;
            if i >= warmup {
                samples.push(ms);
            }
        }
        Ok((median(samples), status))
    };
    match run() {
        Ok((ms, status)) => (Ok(ms), status),
        Err(e) => (Err(e.clone()), e),
    }
}

/// Each pass of the transpose alone, hand-written (`loops_handwritten`) and in the language
/// under its default schedule (`loops_lang`): median ms of `reps` calls after `warmup`, its
/// inputs reset (untimed) before each call.
fn pass_rows<T: Float>(
    gpu: &Gpu,
    m: &Csr32<T>,
    warmup: usize,
    reps: usize,
) -> Result<Vec<(&'static str, String, f64)>, String> {
    use loops::ops::transpose::{HandWritten, TransposePasses};
    use loops::ops::transpose_lang::LanguagePasses;
    let err = |e: loops::LoopsError| e.to_string();
    let want = transpose_reference(m.rows, m.cols, &m.offsets, &m.indices, &m.values);
    let a = upload(gpu, m).map_err(err)?;
    let starts = &want.col_offsets[..m.cols];
    let offsets: Vec<usize> = want.col_offsets.iter().map(|&o| o as usize).collect();
    let columns = gpu.upload_offsets(&offsets).map_err(err)?;
    let mut keys = gpu.zeros::<u64>(m.nnz()).map_err(err)?;
    let timer = gpu.timer().map_err(err)?;
    let lang = LanguagePasses::default();
    let passes: [(&str, &dyn TransposePasses<T>); 2] =
        [("loops_handwritten", &HandWritten), ("loops_lang", &lang)];
    let mut out = Vec::new();
    for (name, p) in passes {
        for pass in ["count", "scatter", "stats"] {
            let mut samples = Vec::with_capacity(reps);
            for i in 0..warmup + reps {
                let mut counts = gpu.zeros::<i32>(m.cols).map_err(err)?;
                let mut cursors = gpu.upload(starts).map_err(err)?;
                let mut state = gpu.zeros::<u32>(36).map_err(err)?;
                timer.start().map_err(err)?;
                match pass {
                    "count" => p.count(gpu, &a, &mut counts),
                    "scatter" => p.scatter(gpu, &a, &mut cursors, &mut keys),
                    _ => p.stats(gpu, &columns, &mut state),
                }
                .map_err(err)?;
                timer.stop().map_err(err)?;
                let ms = timer.elapsed_ms().map_err(err)? as f64;
                if i >= warmup {
                    samples.push(ms);
                }
            }
            let op = match pass {
                "count" => "transpose_count",
                "scatter" => "transpose_scatter",
                _ => "transpose_stats",
            };
            out.push((op, name.to_string(), median(samples)));
        }
        // The host's cost of a launch: `HOST_CALLS` calls queued back to back, the wall time per
        // call (the count and the statistics: each may run again on its own output; the
        // scatter's cursors would run past their columns).
        const HOST_CALLS: u32 = 200;
        let mut counts = gpu.zeros::<i32>(m.cols).map_err(err)?;
        let mut state = gpu.zeros::<u32>(36).map_err(err)?;
        for pass in ["count", "stats"] {
            gpu.download(&state).map_err(err)?;
            let started = std::time::Instant::now();
            for _ in 0..HOST_CALLS {
                match pass {
                    "count" => p.count(gpu, &a, &mut counts),
                    _ => p.stats(gpu, &columns, &mut state),
                }
                .map_err(err)?;
            }
            let ms = started.elapsed().as_secs_f64() * 1e3 / HOST_CALLS as f64;
            gpu.download(&state).map_err(err)?;
            let op = match pass {
                "count" => "transpose_count_host",
                _ => "transpose_stats_host",
            };
            out.push((op, name.to_string(), ms));
        }
    }
    Ok(out)
}

/// The transpose-only rows of one matrix: the op, the language's passes (default schedules,
/// then each of `schedules` for the count and the scatter), cuSPARSE.
fn transpose_rows<T: Float>(
    gpu: &Gpu,
    m: &Csr32<T>,
    warmup: usize,
    reps: usize,
    schedules: &[&'static str],
) -> Vec<(String, Result<f64, String>, Option<String>)> {
    use loops::ops::transpose_lang::{self as lang, LanguagePasses};
    let want = transpose_reference(m.rows, m.cols, &m.offsets, &m.indices, &m.values);
    let want = &want;
    let mut out = vec![(
        "loops".to_string(),
        time_transpose_by(gpu, m, want, warmup, reps, |g, a| a.transpose(g)),
        None,
    )];
    out.push((
        "loops_handwritten".to_string(),
        time_transpose_by(gpu, m, want, warmup, reps, |g, a| {
            loops::ops::transpose::transpose(g, a)
        }),
        None,
    ));
    out.push((
        "loops_lang".to_string(),
        time_transpose_by(gpu, m, want, warmup, reps, |g, a| lang::transpose(g, a)),
        None,
    ));
    for &s in schedules {
        let passes = LanguagePasses {
            count: s,
            scatter: s,
            stats: "thread",
        };
        out.push((
            format!("loops_lang_{s}"),
            time_transpose_by(gpu, m, want, warmup, reps, |g, a| {
                lang::transpose_under(g, a, passes)
            }),
            None,
        ));
    }
    let (r, status) = time_cusparse_csr2csc(gpu, m, want, warmup, reps);
    out.push(("cusparse_csr2csc".to_string(), r, Some(status)));
    out
}

/// Which passes a `transpose_with` call runs: each of count, scatter, statistics hand-written
/// (`false`) or in the language under its default schedule (`true`).
struct Mixed([bool; 3]);

impl Mixed {
    /// The passes that run pass `i` (0 count, 1 scatter, 2 statistics).
    fn pick<T: Float>(&self, i: usize) -> &'static dyn loops::ops::transpose::TransposePasses<T> {
        if self.0[i] {
            &loops::ops::transpose_lang::LanguagePasses::DEFAULT
        } else {
            &loops::ops::transpose::HandWritten
        }
    }
}

impl<T: Float> loops::ops::transpose::TransposePasses<T> for Mixed {
    fn count(
        &self,
        gpu: &Gpu,
        a: &DeviceCsr<T>,
        counts: &mut loops::DeviceBuffer<i32>,
    ) -> loops::Result<()> {
        self.pick::<T>(0).count(gpu, a, counts)
    }

    fn scatter(
        &self,
        gpu: &Gpu,
        a: &DeviceCsr<T>,
        cursors: &mut loops::DeviceBuffer<i32>,
        keys: &mut loops::DeviceBuffer<u64>,
    ) -> loops::Result<()> {
        self.pick::<T>(1).scatter(gpu, a, cursors, keys)
    }

    fn stats(
        &self,
        gpu: &Gpu,
        columns: &loops::DeviceOffsets,
        state: &mut loops::DeviceBuffer<u32>,
    ) -> loops::Result<()> {
        self.pick::<T>(2).stats(gpu, columns, state)
    }
}

/// The transpose's implementations timed interleaved (see `--interleave`): each checked once
/// against the CPU's CSC, exactly, then `warmup` rounds untimed and `rounds` timed, one call of
/// each loops implementation per round in an order shuffled every round (so that no
/// implementation always follows the same one: a call after cuSPARSE's ran about 4% slower, a
/// first run found), then cuSPARSE's `rounds` calls in a block of their own. Returns the median ms
/// of each implementation, cuSPARSE's status, and every timed call (ms, by round).
#[allow(clippy::type_complexity)]
fn transpose_interleaved<T: Float>(
    gpu: &Gpu,
    m: &Csr32<T>,
    warmup: usize,
    rounds: usize,
    schedules: &[&'static str],
    seed: u64,
) -> Result<(Vec<(String, f64)>, String, Vec<(String, Vec<f64>)>), String> {
    use loops::ops::transpose_lang::LanguagePasses;
    use rand::seq::SliceRandom;
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let want = transpose_reference(m.rows, m.cols, &m.offsets, &m.indices, &m.values);
    let a = upload(gpu, m).map_err(|e| err(&e))?;
    // None: `Mixed`'s passes; Some(p): the language's under p.
    let mut impls: Vec<(String, Option<LanguagePasses>, [bool; 3])> = vec![
        ("loops_handwritten".into(), None, [false; 3]),
        ("loops_handwritten_again".into(), None, [false; 3]),
        (
            "loops_lang".into(),
            Some(LanguagePasses::default()),
            [true; 3],
        ),
        ("loops_lang_count_only".into(), None, [true, false, false]),
        ("loops_lang_scatter_only".into(), None, [false, true, false]),
        ("loops_lang_stats_only".into(), None, [false, false, true]),
    ];
    for &s in schedules {
        let passes = LanguagePasses {
            count: s,
            scatter: s,
            stats: "thread",
        };
        impls.push((format!("loops_lang_{s}"), Some(passes), [true; 3]));
    }
    // The language's passes launched without programmatic dependent launch (the hand-written
    // kernels never use it).
    impls.push((
        "loops_lang_no_programmatic".into(),
        Some(LanguagePasses::default()),
        [true; 3],
    ));
    let call = |which: &(String, Option<LanguagePasses>, [bool; 3])| match which.1 {
        Some(p) if which.0 == "loops_lang_no_programmatic" => {
            gpu.set_programmatic_launch(false);
            let t = loops::ops::transpose_lang::transpose_under(gpu, &a, p);
            gpu.set_programmatic_launch(true);
            t
        }
        Some(p) => loops::ops::transpose_lang::transpose_under(gpu, &a, p),
        None => loops::ops::transpose::transpose_with(gpu, &a, &Mixed(which.2)),
    };
    for which in &impls {
        let t = call(which).map_err(|e| err(&e))?;
        if gpu.download(t.col_offsets()).map_err(|e| err(&e))? != want.col_offsets
            || gpu.download(t.row_indices()).map_err(|e| err(&e))? != want.row_indices
            || !same_bits(
                &gpu.download(t.values()).map_err(|e| err(&e))?,
                &want.values,
            )
        {
            return Err(format!("WRONG: {} differs from the CPU transpose", which.0));
        }
    }
    let timer = gpu.timer().map_err(|e| err(&e))?;
    let n = impls.len();
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); n];
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut order: Vec<usize> = (0..n).collect();
    for round in 0..warmup + rounds {
        order.shuffle(&mut rng);
        for &i in &order {
            timer.start().map_err(|e| err(&e))?;
            let t = call(&impls[i]).map_err(|e| err(&e))?;
            timer.stop().map_err(|e| err(&e))?;
            let ms = timer.elapsed_ms().map_err(|e| err(&e))? as f64;
            drop(t);
            if round >= warmup {
                samples[i].push(ms);
            }
        }
    }
    let mut names: Vec<String> = impls.into_iter().map(|(name, ..)| name).collect();
    let (cusparse, status) = time_cusparse_samples(gpu, m, &a, &want, warmup, rounds);
    let mut status = status;
    if let Ok(c) = cusparse {
        names.push("cusparse_csr2csc".into());
        samples.push(c);
    } else if let Err(e) = cusparse {
        status = e;
    }
    let medians = names
        .iter()
        .zip(&samples)
        .map(|(name, s)| (name.clone(), median(s.clone())))
        .collect();
    Ok((medians, status, names.into_iter().zip(samples).collect()))
}

/// cuSPARSE's csr2csc on `a` (its scratch allocated first): checked once against the CPU's CSC
/// (the status says where it differs; it is timed all the same), then `rounds` calls timed
/// after `warmup`: each call's ms.
fn time_cusparse_samples<T: Float>(
    gpu: &Gpu,
    m: &Csr32<T>,
    a: &DeviceCsr<T>,
    want: &loops::io::host::Csc32<T>,
    warmup: usize,
    rounds: usize,
) -> (Result<Vec<f64>, String>, String) {
    let run = || -> Result<(Vec<f64>, String), String> {
        let err = |e: &dyn std::fmt::Display| e.to_string();
        let cs = bench::cusparse::Cusparse::new(gpu).map_err(|e| err(&e))?;
        let mut plan = bench::cusparse::Csr2Csc::new(&cs, gpu, a).map_err(|e| err(&e))?;
        plan.run().map_err(|e| err(&e))?;
        let (o, r, v) = plan.parts();
        let nnz = m.nnz();
        let got_r = gpu.download(r).map_err(|e| err(&e))?;
        let got_v = gpu.download(v).map_err(|e| err(&e))?;
        let status = if gpu.download(o).map_err(|e| err(&e))? != want.col_offsets
            || got_r[..nnz] != want.row_indices[..]
            || !same_bits(&got_v[..nnz], &want.values)
        {
            "ok (timed; its result differs from the CPU's CSC)".to_string()
        } else {
            "ok".to_string()
        };
        let timer = gpu.timer().map_err(|e| err(&e))?;
        let mut samples = Vec::with_capacity(rounds);
        for i in 0..warmup + rounds {
            timer.start().map_err(|e| err(&e))?;
            plan.run().map_err(|e| err(&e))?;
            timer.stop().map_err(|e| err(&e))?;
            let ms = timer.elapsed_ms().map_err(|e| err(&e))? as f64;
            if i >= warmup {
                samples.push(ms);
            }
        }
        Ok((samples, status))
    };
    match run() {
        Ok((s, status)) => (Ok(s), status),
        Err(e) => (Err(e.clone()), e),
    }
}

/// Writes the helper's input (see `examples/bench/cub/segsort.cu`).
fn write_input<T: Float>(path: &Path, m: &Csr32<T>) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
    w.write_all(b"LSRT")?;
    w.write_all(&1u32.to_le_bytes())?;
    w.write_all(&(std::mem::size_of::<T>() as u32).to_le_bytes())?;
    for n in [m.rows, m.cols, m.nnz()] {
        w.write_all(&(n as u64).to_le_bytes())?;
    }
    for &o in m.offsets.iter().chain(&m.indices) {
        w.write_all(&o.to_le_bytes())?;
    }
    for &v in &m.values {
        let x = v.to_f64();
        if std::mem::size_of::<T>() == 4 {
            w.write_all(&(x as f32).to_le_bytes())?;
        } else {
            w.write_all(&x.to_le_bytes())?;
        }
    }
    w.flush()
}

/// A baseline the helper ran: its name, and its median ms or why it failed.
type Baseline = (String, Result<f64, String>);

/// Runs the helper on `m`: one [`Baseline`] per line it prints.
fn run_helper<T: Float>(
    helper: &Path,
    m: &Csr32<T>,
    warmup: usize,
    reps: usize,
) -> Result<Vec<Baseline>, String> {
    let input = std::env::temp_dir().join(format!("loops_sort_input_{}.bin", std::process::id()));
    write_input(&input, m).map_err(|e| format!("writing {}: {e}", input.display()))?;
    let output = Command::new(helper)
        .arg(&input)
        .arg(warmup.to_string())
        .arg(reps.to_string())
        .output();
    let _ = std::fs::remove_file(&input);
    let output = output.map_err(|e| format!("running {}: {e}", helper.display()))?;
    let mut found = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let mut parts = line.splitn(2, ' ');
        let (Some(name), Some(rest)) = (parts.next(), parts.next()) else {
            continue;
        };
        let value = match rest.parse::<f64>() {
            Ok(ms) => Ok(ms),
            Err(_) => Err(rest.to_string()),
        };
        found.push((name.to_string(), value));
    }
    if found.is_empty() {
        return Err(format!(
            "{} printed nothing (exit {}): {}",
            helper.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(found)
}

fn run<T: Float>(args: &Args) -> Result<usize, BoxError> {
    let gpu = Gpu::new(0)?;
    let (reps, warmup) = if args.quick {
        (args.reps.min(20), args.warmup.min(3))
    } else {
        (args.reps, args.warmup)
    };
    std::fs::create_dir_all(&args.out)?;
    let prec = T::RUST_NAME;
    eprintln!(
        "device {}; {prec}; {reps} timed calls after {warmup}; baselines: {}",
        gpu.name(),
        args.cub
            .as_ref()
            .map_or("none (no --cub)".to_string(), |p| p.display().to_string())
    );
    let mut set: Vec<(String, Builder<T>)> = generated(args.quick, args.seed);
    if let Some(dir) = corpus_dir(args) {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "mtx"))
            .collect();
        paths.sort();
        for p in paths {
            let name = p
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            set.push((
                name,
                Box::new(move || {
                    let m = loops::io::mtx::read_csr::<T>(&p)
                        .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                    Csr32::from_sprs(&m).expect("fits 32 bits")
                }),
            ));
        }
    }
    if let Some(only) = &args.only {
        set.retain(|(name, _)| name.contains(only.as_str()));
    }
    let schedules: Vec<&'static str> = args
        .lang_schedules
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| {
            loops::ops::transpose_lang::count::SCHEDULES
                .iter()
                .copied()
                .find(|n| *n == s)
                .ok_or_else(|| format!("--lang-schedules: {s} is not a schedule"))
        })
        .collect::<Result<_, _>>()?;
    let started = Instant::now();
    let mut rows: Vec<Row> = Vec::new();
    let mut failures = 0;
    let total = set.len();
    let mut samples = String::from("matrix,implementation,round,ms\n");
    for (i, (name, build)) in set.into_iter().enumerate() {
        let mut m = build();
        shuffle_rows(
            &m.offsets,
            &mut m.indices,
            &mut m.values,
            args.seed ^ i as u64,
        );
        eprintln!(
            "[{}/{total}] {name}: {} x {}, {} nonzeros ({:.0} s)",
            i + 1,
            m.rows,
            m.cols,
            m.nnz(),
            started.elapsed().as_secs_f64()
        );
        let row = |operation: &'static str, implementation: &str, r: Result<f64, String>| Row {
            matrix: name.clone(),
            rows: m.rows,
            cols: m.cols,
            nnz: m.nnz(),
            operation,
            implementation: implementation.to_string(),
            median_ms: r.as_ref().ok().copied(),
            status: r.err().unwrap_or_else(|| "ok".to_string()),
        };
        let mut these = if let (true, Some(rounds)) = (args.transpose_only, args.interleave) {
            // The full-size generated matrices take milliseconds a call: fewer rounds there.
            let rounds = if m.nnz() > 4_000_000 {
                rounds.min(reps)
            } else {
                rounds
            };
            match transpose_interleaved(&gpu, &m, warmup, rounds, &schedules, args.seed ^ i as u64)
            {
                Ok((medians, status, raw)) => {
                    for (implementation, ms) in raw {
                        for (round, t) in ms.iter().enumerate() {
                            let _ = writeln!(samples, "\"{name}\",{implementation},{round},{t:.6}");
                        }
                    }
                    medians
                        .into_iter()
                        .map(|(implementation, ms)| {
                            let mut x = row("transpose", &implementation, Ok(ms));
                            if implementation == "cusparse_csr2csc" {
                                x.status = status.clone();
                            }
                            x
                        })
                        .collect()
                }
                Err(e) => vec![row("transpose", "interleaved", Err(e))],
            }
        } else if args.transpose_only {
            transpose_rows(&gpu, &m, warmup, reps, &schedules)
                .into_iter()
                .map(|(name, r, status)| {
                    let mut x = row("transpose", &name, r);
                    if let (Some(st), Some(_)) = (status, x.median_ms) {
                        x.status = st;
                    }
                    x
                })
                .chain(
                    match args
                        .passes
                        .then(|| pass_rows(&gpu, &m, warmup, reps))
                        .transpose()
                    {
                        Ok(found) => found
                            .unwrap_or_default()
                            .into_iter()
                            .map(|(op, name, ms)| row(op, &name, Ok(ms)))
                            .collect::<Vec<_>>(),
                        Err(e) => vec![row("transpose_count", "passes", Err(e))],
                    },
                )
                .collect()
        } else {
            let sorted = time_sort(&gpu, &m, warmup, reps);
            vec![
                row("segmented_sort", "loops", sorted.clone().map(|t| t.0)),
                row("segmented_sort", "loops_first_call", sorted.map(|t| t.1)),
                row("transpose", "loops", time_transpose(&gpu, &m, warmup, reps)),
            ]
        };
        if let Some(helper) = &args.cub {
            match run_helper(helper, &m, warmup, reps) {
                Ok(found) => {
                    for (baseline, r) in found {
                        let op = if baseline.contains("csr2csc") {
                            "transpose"
                        } else {
                            "segmented_sort"
                        };
                        these.push(row(op, &baseline, r));
                    }
                }
                Err(e) => these.push(row("segmented_sort", "cub", Err(e))),
            }
        }
        for r in &these {
            match r.median_ms {
                Some(ms) => eprintln!(
                    "    {:<15} {:<22} {ms:>10.4} ms",
                    r.operation, r.implementation
                ),
                None => {
                    failures += 1;
                    eprintln!(
                        "    {:<15} {:<22} FAILED {}",
                        r.operation, r.implementation, r.status
                    )
                }
            }
        }
        rows.extend(these);
        write_outputs(&args.out, prec, &rows)?;
        if args.interleave.is_some() {
            std::fs::write(
                args.out.join(format!("transpose_samples_{prec}.csv")),
                &samples,
            )?;
        }
    }
    let summary = summary(&rows);
    println!("{summary}");
    eprintln!(
        "wrote {} and {} ({:.0} s)",
        args.out.join(format!("sort_{prec}.csv")).display(),
        args.out.join(format!("sort_summary_{prec}.txt")).display(),
        started.elapsed().as_secs_f64()
    );
    Ok(failures)
}

fn write_outputs(out: &Path, prec: &str, rows: &[Row]) -> std::io::Result<()> {
    let mut csv =
        String::from("matrix,rows,cols,nnz,precision,operation,implementation,median_ms,status\n");
    for r in rows {
        let _ = writeln!(
            csv,
            "\"{}\",{},{},{},{prec},{},{},{},\"{}\"",
            r.matrix.replace('"', "'"),
            r.rows,
            r.cols,
            r.nnz,
            r.operation,
            r.implementation,
            r.median_ms.map_or(String::new(), |ms| format!("{ms:.6}")),
            r.status.replace('"', "'")
        );
    }
    std::fs::write(out.join(format!("sort_{prec}.csv")), csv)?;
    std::fs::write(out.join(format!("sort_summary_{prec}.txt")), summary(rows))
}

/// The table (loops and the best baseline per matrix and operation, and the speedup) and the
/// geomean speedups.
fn summary(rows: &[Row]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<40} {:>10} {:<15} {:>10} {:>10} {:<22} {:>8}",
        "matrix", "nnz", "operation", "loops ms", "base ms", "best baseline", "speedup"
    );
    let mut speedups: Vec<(&str, f64)> = Vec::new();
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for r in rows {
        let key = (r.matrix.as_str(), r.operation);
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let same = |x: &&Row| x.matrix == r.matrix && x.operation == r.operation;
        let loops_ms = rows
            .iter()
            .filter(same)
            .find(|x| x.implementation == "loops")
            .and_then(|x| x.median_ms);
        let best = rows
            .iter()
            .filter(same)
            .filter(|x| !x.implementation.starts_with("loops"))
            .filter_map(|x| x.median_ms.map(|ms| (x.implementation.as_str(), ms)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let speedup = match (loops_ms, best) {
            (Some(l), Some((_, b))) if l > 0.0 => Some(b / l),
            _ => None,
        };
        if let Some(x) = speedup {
            speedups.push((r.operation, x));
        }
        let fmt = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.4}"));
        let _ = writeln!(
            s,
            "{:<40} {:>10} {:<15} {:>10} {:>10} {:<22} {:>8}",
            r.matrix.chars().take(40).collect::<String>(),
            r.nnz,
            r.operation,
            fmt(loops_ms),
            fmt(best.map(|b| b.1)),
            best.map_or("-", |b| b.0),
            speedup.map_or("-".to_string(), |x| format!("{x:.2}x"))
        );
    }
    for op in ["segmented_sort", "transpose"] {
        let v: Vec<f64> = speedups.iter().filter(|s| s.0 == op).map(|s| s.1).collect();
        if !v.is_empty() {
            let geo = (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp();
            let min = v.iter().copied().fold(f64::INFINITY, f64::min);
            let _ = writeln!(
                s,
                "{op}: geomean speedup over the best baseline {geo:.2}x over {} matrices (lowest {min:.2}x)",
                v.len()
            );
        }
    }
    s
}

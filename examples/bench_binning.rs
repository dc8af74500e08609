//! The cost of logarithmic radix binning against a prefix sum of the same tile sizes (the
//! experiment of Fox, Tripathy and Green, HPEC 2019): on each generated matrix, the time of
//! `Gpu::bin_tiles` (count, 32-bin scan, scatter, read-back of the bin starts) beside
//! `Gpu::tile_size_prefix_sum` (chunk sums, their scan, the offsets, read-back of the total), both
//! between CUDA events after warm-up, median of `--reps`. The binning is checked against a CPU
//! histogram first. Prints a table and writes `binning.csv` to `--out`.
//!
//!     cargo run --release --example bench_binning

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use loops::prelude::*;
use loops::schedule::lrb::{bin_of, BINS};

#[derive(Parser)]
struct Args {
    /// Timed runs per operation (the median is reported).
    #[arg(long, default_value_t = 50)]
    reps: usize,
    /// Folder for binning.csv.
    #[arg(long, default_value = "target/bench")]
    out: PathBuf,
    #[arg(long, default_value_t = 2024)]
    seed: u64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Milliseconds of `op` between two CUDA events, after 3 warm-up runs: the median of `reps`.
fn time(gpu: &Gpu, reps: usize, mut op: impl FnMut() -> loops::Result<()>) -> loops::Result<f64> {
    for _ in 0..3 {
        op()?;
    }
    let timer = gpu.timer()?;
    let mut samples = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        timer.start()?;
        op()?;
        timer.stop()?;
        samples.push(timer.elapsed_ms()? as f64);
    }
    Ok(median(samples))
}

fn run(args: &Args) -> loops::Result<()> {
    let gpu = Gpu::new(0)?;
    println!("device: {}", gpu.name());
    let s = args.seed;
    let matrices: Vec<(&str, sprs::CsMat<f32>)> = vec![
        (
            "uniform_2M_16",
            loops::io::generate::uniform(1 << 21, 1 << 21, 16, s),
        ),
        (
            "powerlaw_2M",
            loops::io::generate::power_law(1 << 21, 1 << 21, 16.0, 2.0, false, s),
        ),
        ("rmat_21", loops::io::generate::rmat(21, 16, s)),
        ("arrow_1M", loops::io::generate::arrow(1_000_000, s)),
        ("grid2d_2048", loops::io::generate::grid2d(2048, 2048, s)),
    ];
    std::fs::create_dir_all(&args.out).map_err(|source| LoopsError::Io {
        path: args.out.clone(),
        source,
    })?;
    let mut csv = String::from("matrix,tiles,atoms,binning_ms,prefix_sum_ms,ratio\n");
    println!(
        "{:<16} {:>10} {:>11} {:>12} {:>14} {:>7}",
        "matrix", "tiles", "atoms", "binning ms", "prefix sum ms", "ratio"
    );
    for (name, m) in &matrices {
        let a = gpu.upload_csr(m)?;
        // Check the binning once against a CPU histogram.
        let bins = gpu.bin_tiles(a.tile_offsets(), a.rows(), None)?;
        let mut counts = [0u32; BINS];
        for w in m.indptr().raw_storage().windows(2) {
            counts[bin_of((w[1] - w[0]) as u64)] += 1;
        }
        for (b, &want) in counts.iter().enumerate() {
            let got = bins.bin_starts[b + 1] - bins.bin_starts[b];
            if got != want {
                return Err(LoopsError::InvalidBinning {
                    detail: format!("{name}: bin {b} holds {got} tiles, the CPU counts {want}"),
                });
            }
        }
        let binning = time(&gpu, args.reps, || {
            gpu.bin_tiles(a.tile_offsets(), a.rows(), None).map(drop)
        })?;
        let prefix = time(&gpu, args.reps, || {
            gpu.tile_size_prefix_sum(a.tile_offsets()).map(drop)
        })?;
        println!(
            "{name:<16} {:>10} {:>11} {binning:>12.4} {prefix:>14.4} {:>6.2}x",
            a.rows(),
            a.nnz(),
            binning / prefix
        );
        csv.push_str(&format!(
            "{name},{},{},{binning:.6},{prefix:.6},{:.4}\n",
            a.rows(),
            a.nnz(),
            binning / prefix
        ));
    }
    let path = args.out.join("binning.csv");
    std::fs::File::create(&path)
        .and_then(|mut f| f.write_all(csv.as_bytes()))
        .map_err(|source| LoopsError::Io {
            path: path.clone(),
            source,
        })?;
    println!("wrote {}", path.display());
    Ok(())
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", loops::error_chain(&e, "\n  caused by: "));
            ExitCode::FAILURE
        }
    }
}

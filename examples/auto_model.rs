//! What `schedule = "auto"`'s cost model says about each matrix of the world set (or of a folder of
//! Matrix Market files), on the CPU: the tile-size statistics, every candidate's estimate, and the
//! shortlist the runtime would time. For reading the model against `bench_spmv --world`'s
//! measurements (the tuning log in examples/bench/README.md).
//!
//!     cargo run --release --example auto_model                 # the world set, 4 seeds
//!     cargo run --release --example auto_model -- --corpus ../shared/data/matrices

use clap::Parser;
use loops::schedule::auto::{candidates, model, TileStats, SHORTLIST};
use loops::schedule::DeviceLimits;

#[derive(Parser)]
struct Args {
    /// A folder of .mtx files instead of the world set.
    #[arg(long)]
    corpus: Option<std::path::PathBuf>,
    /// Seeds per class of the world set.
    #[arg(long, default_value_t = 4)]
    seeds: u64,
}

/// An H100's limits (the model scales its rates by the SM count).
const H100: DeviceLimits = DeviceLimits {
    sm_count: 132,
    max_threads_per_sm: 2048,
    l2_bytes: 50 << 20,
};

fn stats_of(a: &sprs::CsMat<f32>) -> TileStats {
    let offsets = a.indptr();
    let offsets = offsets.raw_storage();
    TileStats::of_sizes(offsets.windows(2).map(|w| (w[1] - w[0]) as u64))
}

fn show(name: &str, stats: &TileStats) {
    let configs = candidates(256);
    let setting = model::Setting {
        limits: H100,
        scans: true,
        over_list: false,
        atomics: false,
    };
    let order = model::rank(&configs, stats, setting);
    let short = model::shortlist(&configs, stats, setting, SHORTLIST);
    let names: Vec<String> = order
        .iter()
        .map(|&i| {
            let us = model::estimate_us(configs[i], stats, setting, &model::H100);
            let mark = if short.contains(&i) { "*" } else { "" };
            format!("{}{mark} {us:.1}", configs[i].short_name())
        })
        .collect();
    println!(
        "{name:<28} {:>8} {:>9} {:>6.1} {:>7} | {}",
        stats.tiles,
        stats.atoms,
        stats.mean(),
        stats.max_tile_atoms,
        names.join(", ")
    );
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    println!(
        "{:<28} {:>8} {:>9} {:>6} {:>7} | candidates by estimate (us), * = timed",
        "matrix", "tiles", "atoms", "mean", "longest"
    );
    match &args.corpus {
        Some(dir) => {
            let mut paths: Vec<_> = std::fs::read_dir(dir)?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "mtx"))
                .collect();
            paths.sort();
            for p in paths {
                let a = loops::io::mtx::read_csr::<f32>(&p)?;
                let name = p.file_stem().unwrap_or_default().to_string_lossy();
                show(&name, &stats_of(&a));
            }
        }
        None => {
            for spec in loops::io::generate::world_set(args.seeds) {
                show(&spec.name, &stats_of(&spec.matrix::<f32>()));
            }
        }
    }
    Ok(())
}

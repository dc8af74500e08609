//! What starting a kernel costs, for every kernel of examples/kernels under every schedule:
//!
//! - cold: an NVRTC compile with no cache (the first compile of the process also loads libnvrtc,
//!   reported on its own);
//! - first launch in this process with an empty disk cache (compile, store, module load, launch);
//! - warm: the host time of a launch after the first (median of 20);
//! - new process: the first launch in a fresh process whose disk cache is warm (this program runs
//!   itself with `--child`), which must not load NVRTC. Target: under 2 ms.
//!
//! `auto` kernels are in the table too: their first launch with an empty disk cache compiles the
//! model's shortlist (each candidate's entry point alone, in parallel) and times it (target:
//! 0.5 s); a new process reads both the kernels and the winner from the disk caches.
//!
//! ```text
//! cargo run --release --example startup                    # needs a GPU
//! cargo run --release --example startup -- --compile-only  # needs only libnvrtc; --arch 90 by default
//! ```
//!
//! `--compile-only` reports cold compile times (cubin and PTX), compile + store, and the first
//! cache read of a fresh process. The cache lives in a new temporary folder, removed at the end.
//! Exits non-zero if any compile or launch fails.

use loops_kernels as kernels;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use loops::compile::cache::{self, CacheConfig, Origin};
use loops::compile::{self, Arch, Output, Target};
use loops::launch::checked_mode;
use loops::launch::KernelDesc;
use loops::prelude::*;

/// One kernel under one schedule.
struct Case {
    kernel: &'static str,
    schedule: &'static str,
    desc: KernelDesc,
}

/// The name and source of the kernel a generated wrapper compiles.
struct Launched {
    name: &'static str,
    source: &'static str,
}

impl Case {
    /// The source the generated wrapper launches in this build (see `checked_mode`).
    fn launched(&self) -> Launched {
        let source = if checked_mode(cfg!(debug_assertions)) {
            self.desc.checked_source
        } else {
            self.desc.source
        };
        Launched {
            name: self.desc.name,
            source,
        }
    }
}

macro_rules! cases_of {
    ($kernel:ident: $($schedule:ident),+) => {
        [$(Case {
            kernel: stringify!($kernel),
            schedule: stringify!($schedule),
            desc: kernels::$kernel::$schedule::$kernel::KERNEL,
        }),+]
    };
}

fn cases() -> Vec<Case> {
    let mut all = Vec::new();
    all.extend(
        cases_of!(spmv: thread, group2, warp, group64, block, work_oriented, merge_path, auto),
    );
    all.extend(
        cases_of!(spmv_axpby: thread, group2, warp, group64, block, work_oriented, merge_path, auto),
    );
    all.extend(cases_of!(spmm: thread, group2, warp, group64, block, work_oriented, merge_path));
    all.extend(
        cases_of!(row_max_abs: thread, group2, warp, group64, block, work_oriented, merge_path),
    );
    all.extend(
        cases_of!(column_sums: thread, group2, warp, group64, block, work_oriented, merge_path),
    );
    all
}

type Error = Box<dyn std::error::Error>;

const WARM_LAUNCHES: usize = 20;
const SPMM_K: usize = 4;
const TARGET: Duration = Duration::from_millis(2);
/// The first launch of an `auto` kernel with an empty disk cache: compiling its shortlisted
/// candidates (in parallel) and timing them included.
const AUTO_COLD_TARGET: Duration = Duration::from_millis(500);

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let arch = match arch_arg(&args) {
        Ok(arch) => arch,
        Err(e) => return usage(&e),
    };
    let outcome = match args.as_slice() {
        [] => gpu_mode(),
        ["--child", kernel, schedule] => child(kernel, schedule),
        ["--child-compile-only", kernel, schedule, ..] => {
            child_compile_only(kernel, schedule, arch)
        }
        ["--compile-only"] | ["--compile-only", "--arch", _] | ["--arch", _, "--compile-only"] => {
            compile_only(arch)
        }
        _ => return usage(&format!("unexpected arguments {args:?}")),
    };
    match outcome {
        Ok(0) => ExitCode::SUCCESS,
        Ok(failures) => {
            eprintln!("{failures} failure(s)");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {}", loops::error_chain(&*e, "\n  caused by: "));
            ExitCode::FAILURE
        }
    }
}

fn usage(problem: &str) -> ExitCode {
    eprintln!("{problem}\nusage: startup [--compile-only [--arch 90]]");
    ExitCode::from(2)
}

/// `--arch N` anywhere (NVRTC's numbering: 90 for sm_90); sm_90 without it.
fn arch_arg(args: &[&str]) -> Result<Arch, String> {
    match args.iter().position(|&a| a == "--arch") {
        None => Ok(Arch::SM_90),
        Some(i) => args
            .get(i + 1)
            .and_then(|n| n.parse::<u32>().ok())
            .filter(|&n| n >= 10)
            .map(Arch::from_number)
            .ok_or_else(|| "--arch takes a number such as 90".to_string()),
    }
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e3)
}

fn us(d: Duration) -> String {
    format!("{:.0}", d.as_secs_f64() * 1e6)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// A new, empty folder for the disk cache.
fn fresh_cache_dir() -> Result<PathBuf, Error> {
    let dir = std::env::temp_dir().join(format!("loops-startup-{}", std::process::id()));
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

fn remove(dir: &Path) {
    if let Err(e) = std::fs::remove_dir_all(dir) {
        eprintln!("could not remove {}: {e}", dir.display());
    }
}

/// Runs this program again with `args`, and the disk cache in `dir`; its `RESULT` line's fields, or
/// why it failed.
fn run_child(args: &[&str], dir: &Path) -> Result<Vec<String>, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let output = Command::new(exe)
        .args(args)
        .env(cache::CACHE_DIR_ENV, dir)
        .env(cache::CACHE_ENV, "on")
        .output()
        .map_err(|e| format!("cannot run a child process: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let result = stdout
        .lines()
        .find_map(|l| l.strip_prefix("RESULT "))
        .map(|l| l.split_whitespace().map(str::to_string).collect());
    match (output.status.success(), result) {
        (true, Some(fields)) => Ok(fields),
        _ => Err(format!(
            "child {args:?} failed ({}): {}{}",
            output.status,
            stdout.trim(),
            String::from_utf8_lossy(&output.stderr).trim()
        )),
    }
}

/// Field `name=value` of a child's result.
fn field<'a>(fields: &'a [String], name: &str) -> Option<&'a str> {
    fields
        .iter()
        .find_map(|f| f.strip_prefix(name)?.strip_prefix('='))
}

/// Device buffers for every kernel: a small power-law matrix and vectors to match.
struct Data {
    a: DeviceCsr<f32>,
    x: DeviceBuffer<f32>,
    y: DeviceBuffer<f32>,
    b: DeviceBuffer<f32>,
    c: DeviceBuffer<f32>,
    colsum: DeviceBuffer<f32>,
}

impl Data {
    fn new(gpu: &Gpu) -> loops::Result<Data> {
        let n = 4096;
        let a = loops::io::generate::power_law::<f32>(n, n, 8.0, 2.0, false, 7);
        let x: Vec<f32> = loops::io::generate::random_vector(n, 8);
        let b: Vec<f32> = loops::io::generate::random_vector(n * SPMM_K, 9);
        let data = Data {
            a: gpu.upload_csr(&a)?,
            x: gpu.upload(&x)?,
            y: gpu.zeros(n)?,
            b: gpu.upload(&b)?,
            c: gpu.zeros(n * SPMM_K)?,
            colsum: gpu.zeros(n)?,
        };
        gpu.synchronize()?;
        Ok(data)
    }

    /// Launches `kernel` under `schedule` (through the generated wrapper, as a user would).
    fn launch(&mut self, gpu: &Gpu, kernel: &str, schedule: &str) -> Result<(), Error> {
        let d = self;
        let launched = match kernel {
            "spmv" => kernels::spmv::launch(schedule, gpu, &d.a, &d.x, &mut d.y),
            "spmv_axpby" => {
                kernels::spmv_axpby::launch(schedule, gpu, &d.a, &d.x, &mut d.y, 2.0f32, 0.5f32)
            }
            "spmm" => kernels::spmm::launch(schedule, gpu, &d.a, &d.b, &mut d.c, SPMM_K),
            "row_max_abs" => kernels::row_max_abs::launch(schedule, gpu, &d.a, &mut d.y),
            "column_sums" => kernels::column_sums::launch(schedule, gpu, &d.a, &mut d.colsum),
            _ => return Err(format!("no kernel `{kernel}` in examples/kernels").into()),
        };
        Ok(launched?)
    }
}

struct GpuRow {
    cold: Option<Duration>,
    first: Option<Duration>,
    warm: Option<Duration>,
    child: Result<(Duration, bool), String>,
}

fn gpu_mode() -> Result<usize, Error> {
    // The disk cache of this run, and of the children (they inherit the environment), in a new
    // folder: so the first launch here is cold, and the children's is warm. Set before anything reads
    // the settings.
    let dir = fresh_cache_dir()?;
    std::env::set_var(cache::CACHE_DIR_ENV, &dir);
    std::env::set_var(cache::CACHE_ENV, "on");
    let result = gpu_mode_in(&dir);
    remove(&dir);
    result
}

fn gpu_mode_in(dir: &Path) -> Result<usize, Error> {
    let gpu = Gpu::new(0).map_err(|e| {
        format!("{e}\n(this example needs a GPU; `--compile-only` measures the NVRTC side alone)")
    })?;
    let started = Instant::now();
    let nvrtc = compile::nvrtc_available()?;
    let nvrtc_load = started.elapsed();
    let target = nvrtc.target(gpu.arch());
    println!(
        "device     {} ({}, driver CUDA {}.{})",
        gpu.name(),
        gpu.arch(),
        gpu.driver_version() / 1000,
        gpu.driver_version() % 1000 / 10
    );
    println!(
        "nvrtc      {}.{}, loaded in {} ms; kernels compile to {target}",
        nvrtc.version.0,
        nvrtc.version.1,
        ms(nvrtc_load)
    );
    println!("cache      {}", dir.display());
    let cases = cases();
    let mut data = Data::new(&gpu)?;
    let mut failures = 0;
    let mut rows = Vec::new();
    for case in &cases {
        let spec = case.launched();
        let t = Instant::now();
        let cold = compile::compile_with_dump(
            spec.name,
            spec.source,
            None,
            target.arch,
            target.output,
            None,
        );
        let cold = cold.map(|_| t.elapsed()).map_err(|e| e.to_string());
        let t = Instant::now();
        let first = data
            .launch(&gpu, case.kernel, case.schedule)
            .and_then(|()| Ok(gpu.synchronize()?))
            .map(|()| t.elapsed())
            .map_err(|e| e.to_string());
        let mut warm = Vec::new();
        let mut warm_error = None;
        for _ in 0..WARM_LAUNCHES {
            let t = Instant::now();
            let launched = data.launch(&gpu, case.kernel, case.schedule);
            warm.push(t.elapsed());
            if let Err(e) = launched.and_then(|()| Ok(gpu.synchronize()?)) {
                warm_error = Some(e.to_string());
                break;
            }
        }
        let child = run_child(&["--child", case.kernel, case.schedule], dir).and_then(|fields| {
            let first = field(&fields, "first_launch_us")
                .and_then(|v| v.parse::<f64>().ok())
                .ok_or("no first_launch_us")?;
            let loaded = field(&fields, "nvrtc_loaded") == Some("yes");
            Ok((Duration::from_secs_f64(first / 1e6), loaded))
        });
        for e in [
            cold.as_ref().err(),
            first.as_ref().err(),
            warm_error.as_ref(),
            child.as_ref().err(),
        ]
        .into_iter()
        .flatten()
        {
            eprintln!("{} / {}: {e}", case.kernel, case.schedule);
        }
        let failed = cold.is_err() || first.is_err() || warm_error.is_some() || child.is_err();
        failures += usize::from(failed);
        rows.push(GpuRow {
            cold: cold.ok(),
            first: first.ok(),
            warm: (warm_error.is_none()).then(|| median(warm)),
            child,
        });
    }

    println!();
    println!(
        "{:<12} {:<14} {:>10} {:>14} {:>10} {:>16} {:>6}",
        "kernel", "schedule", "cold ms", "1st launch ms", "warm us", "new process ms", "nvrtc"
    );
    let show = |d: Option<Duration>, f: fn(Duration) -> String| d.map_or("FAILED".into(), f);
    let mut child_times = Vec::new();
    for (case, row) in cases.iter().zip(&rows) {
        let (child, loaded) = match &row.child {
            Ok((d, loaded)) => {
                child_times.push(*d);
                (ms_fine(*d), if *loaded { "loaded" } else { "no" })
            }
            Err(_) => ("FAILED".to_string(), "?"),
        };
        println!(
            "{:<12} {:<14} {:>10} {:>14} {:>10} {:>16} {:>6}",
            case.kernel,
            case.schedule,
            show(row.cold, ms),
            show(row.first, ms),
            show(row.warm, us),
            child,
            loaded
        );
    }
    println!();
    println!("cold: NVRTC compile alone, cache off. 1st launch: this process, empty disk cache (compile,");
    println!("store, load, launch, synchronize). warm: host time of a later launch (median of {WARM_LAUNCHES}).");
    println!(
        "new process: host time of the first launch in a fresh process with a warm disk cache;"
    );
    println!("nvrtc: whether that process loaded libnvrtc (it should not).");
    if !child_times.is_empty() {
        let max = child_times.iter().copied().max().unwrap_or_default();
        let med = median(child_times.clone());
        let met = if max < TARGET { "met" } else { "MISSED" };
        println!(
            "new-process first launch: median {} ms, max {} ms; target < {} ms: {met}",
            ms_fine(med),
            ms_fine(max),
            TARGET.as_millis()
        );
    }
    for (case, row) in cases.iter().zip(&rows) {
        if case.schedule != "auto" {
            continue;
        }
        let first = row.first.unwrap_or(Duration::MAX);
        let met = if first <= AUTO_COLD_TARGET {
            "met"
        } else {
            "MISSED"
        };
        println!(
            "auto {}: first launch, empty disk cache {} ms (target <= {} ms: {met}); new process, warm caches {}",
            case.kernel,
            row.first.map_or("FAILED".into(), ms),
            AUTO_COLD_TARGET.as_millis(),
            row.child.as_ref().map_or("FAILED".into(), |(d, _)| format!("{} ms", ms_fine(*d)))
        );
    }
    println!("{failures} of {} kernels failed", cases.len());
    Ok(failures)
}

fn ms_fine(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1e3)
}

/// A fresh process: open the device, then time the first launch of one kernel (warm disk cache).
fn child(kernel: &str, schedule: &str) -> Result<usize, Error> {
    let t = Instant::now();
    let gpu = Gpu::new(0)?;
    let gpu_new = t.elapsed();
    let mut data = Data::new(&gpu)?;
    let t = Instant::now();
    data.launch(&gpu, kernel, schedule)?;
    let first = t.elapsed();
    gpu.synchronize()?;
    println!(
        "RESULT first_launch_us={:.1} nvrtc_loaded={} gpu_new_ms={}",
        first.as_secs_f64() * 1e6,
        if compile::nvrtc_loaded() { "yes" } else { "no" },
        ms(gpu_new)
    );
    Ok(0)
}

struct CompileRow {
    cubin: Result<(Duration, usize), String>,
    ptx: Result<Duration, String>,
    stored: Result<Duration, String>,
    child: Result<(Duration, String, bool), String>,
}

fn compile_only(arch: Arch) -> Result<usize, Error> {
    let started = Instant::now();
    let nvrtc = compile::nvrtc_available()?;
    let nvrtc_load = started.elapsed();
    let target = nvrtc.target(arch);
    let ptx_target = Target {
        output: Output::Ptx,
        ..target
    };
    let dir = fresh_cache_dir()?;
    println!(
        "nvrtc      {}.{}, loaded in {} ms; {arch} compiles to {target}",
        nvrtc.version.0,
        nvrtc.version.1,
        ms(nvrtc_load)
    );
    println!("cache      {}", dir.display());
    let config = CacheConfig::in_dir(&dir);
    let arch_text = arch.number().to_string();
    let mut rows = Vec::new();
    for case in &cases() {
        let spec = case.launched();
        let time = |t: Target| {
            let start = Instant::now();
            compile::compile_with_dump(spec.name, spec.source, None, t.arch, t.output, None)
                .map(|image| (start.elapsed(), image.bytes().len()))
                .map_err(|e| e.to_string())
        };
        let cubin = time(target);
        let ptx = time(ptx_target).map(|(d, _)| d);
        let start = Instant::now();
        let stored = cache::load_or_compile(spec.name, spec.source, None, arch, &config)
            .map_err(|e| e.to_string())
            .and_then(|k| match k.origin {
                Origin::Compiled if k.cache_file.is_some() => Ok(start.elapsed()),
                _ => Err(format!("not compiled and stored: {:?}", k.origin)),
            });
        let child = run_child(
            &[
                "--child-compile-only",
                case.kernel,
                case.schedule,
                "--arch",
                &arch_text,
            ],
            &dir,
        )
        .and_then(|fields| {
            let us = field(&fields, "first_us")
                .and_then(|v| v.parse::<f64>().ok())
                .ok_or("no first_us")?;
            let origin = field(&fields, "origin").unwrap_or("?").to_string();
            let loaded = field(&fields, "nvrtc_loaded") == Some("yes");
            Ok((Duration::from_secs_f64(us / 1e6), origin, loaded))
        });
        rows.push(CompileRow {
            cubin,
            ptx,
            stored,
            child,
        });
    }
    remove(&dir);

    println!();
    println!(
        "{:<12} {:<14} {:>9} {:>9} {:>9} {:>14} {:>17} {:>6}",
        "kernel",
        "schedule",
        "cubin ms",
        "cubin KB",
        "ptx ms",
        "+store ms",
        "new process us",
        "nvrtc"
    );
    let mut failures = 0;
    let mut cubin_times = Vec::new();
    let mut child_times = Vec::new();
    for (case, row) in cases().iter().zip(&rows) {
        let (cubin_ms, kb) = match &row.cubin {
            Ok((d, size)) => {
                cubin_times.push(*d);
                (ms(*d), format!("{:.1}", *size as f64 / 1024.0))
            }
            Err(_) => ("FAILED".into(), "-".into()),
        };
        let (child, loaded) = match &row.child {
            Ok((d, origin, loaded)) if origin == "disk" => {
                child_times.push(*d);
                (us(*d), if *loaded { "loaded" } else { "no" })
            }
            Ok((_, origin, _)) => (format!("MISS ({origin})"), "?"),
            Err(_) => ("FAILED".into(), "?"),
        };
        println!(
            "{:<12} {:<14} {:>9} {:>9} {:>9} {:>14} {:>17} {:>6}",
            case.kernel,
            case.schedule,
            cubin_ms,
            kb,
            row.ptx.as_ref().map_or("FAILED".into(), |d| ms(*d)),
            row.stored.as_ref().map_or("FAILED".into(), |d| ms(*d)),
            child,
            loaded
        );
        for e in [
            row.cubin.as_ref().err(),
            row.ptx.as_ref().err(),
            row.stored.as_ref().err(),
            row.child.as_ref().err(),
        ]
        .into_iter()
        .flatten()
        {
            eprintln!("{} / {}: {e}", case.kernel, case.schedule);
        }
        let hit = matches!(&row.child, Ok((_, origin, false)) if origin == "disk");
        failures +=
            usize::from(row.cubin.is_err() || row.ptx.is_err() || row.stored.is_err() || !hit);
    }
    println!();
    println!("cubin/ptx ms: NVRTC compile alone (cache off). +store ms: compile and write the cache entry.");
    println!(
        "new process us: first cache read (key, identity memo, entry, checks) in a fresh process;"
    );
    println!("nvrtc: whether that process loaded libnvrtc (it should not). Needs no GPU.");
    if !cubin_times.is_empty() {
        println!(
            "cold cubin compile: median {} ms, max {} ms, total {} ms",
            ms(median(cubin_times.clone())),
            ms(cubin_times.iter().copied().max().unwrap_or_default()),
            ms(cubin_times.iter().sum())
        );
    }
    if !child_times.is_empty() {
        println!(
            "new-process cache read: median {} us, max {} us",
            us(median(child_times.clone())),
            us(child_times.iter().copied().max().unwrap_or_default())
        );
    }
    println!("{failures} of {} kernels failed", rows.len());
    Ok(failures)
}

/// A fresh process: the first disk-cache read of one kernel (the `--compile-only` measurement).
fn child_compile_only(kernel: &str, schedule: &str, arch: Arch) -> Result<usize, Error> {
    let cases = cases();
    let case = cases
        .iter()
        .find(|c| c.kernel == kernel && c.schedule == schedule)
        .ok_or_else(|| format!("no kernel {kernel} / {schedule}"))?;
    let spec = case.launched();
    let config = CacheConfig::from_env();
    let start = Instant::now();
    let k = cache::load_or_compile(spec.name, spec.source, None, arch, &config)?;
    let first = start.elapsed();
    println!(
        "RESULT first_us={:.1} origin={} nvrtc_loaded={}",
        first.as_secs_f64() * 1e6,
        match k.origin {
            Origin::DiskCache => "disk",
            Origin::Compiled => "compiled",
        },
        if compile::nvrtc_loaded() { "yes" } else { "no" }
    );
    Ok(0)
}

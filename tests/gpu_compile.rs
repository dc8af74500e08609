//! Entry points compiled alone and in parallel: `Gpu::load_entries` compiles the listed entry
//! points of a generated source (each in a module of its own) on threads, and a launch afterwards
//! finds them loaded and runs correctly.
#![cfg(feature = "gpu")]

mod common;
use loops_kernels as kernels;

use loops::check::check_spmv;
use loops::compile::guarded_entries;
use loops::launch::checked_mode;
use loops::launch::KernelDesc;
use loops::prelude::*;

// The project's SpMV under `thread` and `auto` (examples/kernels/spmv.rs).
use kernels::spmv::{auto, thread};

/// The source the generated wrapper launches in this build (plain or bounds-checked).
fn launched(desc: &KernelDesc) -> &'static str {
    if checked_mode(cfg!(debug_assertions)) {
        desc.checked_source
    } else {
        desc.source
    }
}

/// A generated SpMV wrapper.
type Spmv<T> = fn(&Gpu, &DeviceCsr<T>, &DeviceBuffer<T>, &mut DeviceBuffer<T>) -> loops::Result<()>;

/// Runs `spmv` through `launch` on a generated matrix and checks it against the CPU.
fn check<T: Float>(gpu: &Gpu, launch: Spmv<T>) {
    let a = loops::io::generate::uniform::<T>(2000, 1500, 7, 3);
    let x: Vec<T> = loops::io::generate::random_vector(a.cols(), 5);
    let da = gpu.upload_csr(&a).unwrap();
    let dx = gpu.upload(&x).unwrap();
    let mut dy = gpu.zeros::<T>(a.rows()).unwrap();
    gpu.fill(&mut dy, T::POISON).unwrap();
    launch(gpu, &da, &dx, &mut dy).unwrap();
    let check = check_spmv(&a, &x, &gpu.download(&dy).unwrap());
    assert!(check.passed(), "{} {check}", T::RUST_NAME);
}

/// Two entry points (f32 and f64) loaded together, then both launched.
#[test]
fn load_entries_then_launch() {
    let gpu = common::gpu();
    let desc = &thread::spmv::KERNEL;
    let source = launched(desc);
    let entries = ["spmv__f32".to_string(), "spmv__f64".to_string()];
    assert!(
        entries.iter().all(|e| guarded_entries(source).contains(e)),
        "{:?}",
        guarded_entries(source)
    );
    gpu.load_entries(desc.name, source, &entries).unwrap();
    // Loaded: asking again is answered from the process's map.
    gpu.load_entries(desc.name, source, &entries).unwrap();
    for entry in &entries {
        gpu.function(desc.name, source, entry).unwrap();
    }
    check::<f32>(&gpu, thread::spmv);
    check::<f64>(&gpu, thread::spmv);
}

/// Every entry point of `auto`'s source (every candidate's) compiled in parallel, then the kernel
/// launched: whichever candidate it picks is loaded already.
#[test]
fn load_every_auto_entry_then_launch() {
    let gpu = common::gpu();
    let desc = &auto::spmv::KERNEL;
    let source = launched(desc);
    let entries = guarded_entries(source);
    assert!(entries.len() > 4, "{entries:?}");
    let started = std::time::Instant::now();
    gpu.load_entries(desc.name, source, &entries).unwrap();
    eprintln!(
        "auto spmv: {} entry points loaded in {:.0} ms",
        entries.len(),
        started.elapsed().as_secs_f64() * 1e3
    );
    check::<f32>(&gpu, auto::spmv);
    check::<f64>(&gpu, auto::spmv);
}

/// An entry point the source does not define is an error naming it; the others are loaded.
#[test]
fn load_entries_reports_a_missing_entry() {
    let gpu = common::gpu();
    let desc = &thread::spmv::KERNEL;
    let source = launched(desc);
    let entries = ["spmv__f32".to_string(), "spmv__i8".to_string()];
    let err = gpu
        .load_entries(desc.name, source, &entries)
        .unwrap_err()
        .to_string();
    assert!(err.contains("spmv__i8"), "{err}");
    gpu.function(desc.name, source, "spmv__f32").unwrap();
}

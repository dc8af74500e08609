//! NVRTC compiles every kernel of this crate under every schedule it is instantiated with, plain
//! and bounds-checked, to a cubin for sm_90 (ptxas included), on a machine with no GPU: what the
//! macro accepts must load.
//! Without libnvrtc the test says so on stderr and passes, unless LOOPS_REQUIRE_NVRTC=1 (CI).

use std::io::Write;
use std::sync::Mutex;

use loops::compile::{
    compile, guarded_entries, nvrtc_available, Arch, KernelImage, Output, REQUIRE_NVRTC_ENV,
};

/// A kernel's instantiations: (schedule, source), plain or checked.
type Sources = &'static [(&'static str, &'static str)];

/// Every instantiation: (kernel, schedule, plain source, checked source).
fn sources() -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    let kernels: [(&str, Sources, Sources); 11] = [
        (
            "row_argmax",
            user_kernels::argmax::max::SOURCES,
            user_kernels::argmax::max::CHECKED_SOURCES,
        ),
        (
            "row_argmin",
            user_kernels::argmax::min::SOURCES,
            user_kernels::argmax::min::CHECKED_SOURCES,
        ),
        (
            "count_max",
            user_kernels::argmax::count::SOURCES,
            user_kernels::argmax::count::CHECKED_SOURCES,
        ),
        (
            "row_variance",
            user_kernels::variance::SOURCES,
            user_kernels::variance::CHECKED_SOURCES,
        ),
        (
            "l2_normalize",
            user_kernels::normalize::SOURCES,
            user_kernels::normalize::CHECKED_SOURCES,
        ),
        (
            "bfs_pull",
            user_kernels::bfs_pull::SOURCES,
            user_kernels::bfs_pull::CHECKED_SOURCES,
        ),
        (
            "pagerank_pull",
            user_kernels::pagerank::SOURCES,
            user_kernels::pagerank::CHECKED_SOURCES,
        ),
        (
            "row_softmax",
            user_kernels::softmax::SOURCES,
            user_kernels::softmax::CHECKED_SOURCES,
        ),
        (
            "spmv_sigmoid",
            user_kernels::sigmoid::SOURCES,
            user_kernels::sigmoid::CHECKED_SOURCES,
        ),
        (
            "shrink_sum",
            user_kernels::shrink::SOURCES,
            user_kernels::shrink::CHECKED_SOURCES,
        ),
        (
            "count_before_last",
            user_kernels::early_exit::SOURCES,
            user_kernels::early_exit::CHECKED_SOURCES,
        ),
    ];
    kernels
        .iter()
        .flat_map(|(k, plain, checked)| {
            plain
                .iter()
                .zip(checked.iter())
                .map(move |((sch, p), (_, c))| (*k, *sch, *p, *c))
        })
        .collect()
}

#[test]
fn every_kernel_compiles_under_every_schedule() {
    if let Err(e) = nvrtc_available() {
        if std::env::var(REQUIRE_NVRTC_ENV).is_ok_and(|v| v == "1") {
            panic!("{REQUIRE_NVRTC_ENV}=1 but NVRTC cannot be loaded: {e}");
        }
        let _ = writeln!(std::io::stderr(), "skipped: libnvrtc not found ({e})");
        return;
    }
    let work = Mutex::new(sources());
    let failures = Mutex::new(Vec::new());
    let compiled = Mutex::new(0usize);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let Some((kernel, schedule, plain, checked)) = work.lock().unwrap().pop() else {
                    return;
                };
                for source in [plain, checked] {
                    match compile(kernel, source, Arch::SM_90, Output::Cubin) {
                        Ok(image) => {
                            let bytes = match &image {
                                KernelImage::Cubin(bytes) => bytes.as_slice(),
                                KernelImage::Ptx(ptx) => ptx.as_bytes(),
                            };
                            for entry in guarded_entries(source) {
                                // The name, NUL-terminated, in the ELF's string table.
                                let name = format!("\0{entry}\0");
                                let name = name.as_bytes();
                                if !bytes.windows(name.len()).any(|w| w == name) {
                                    failures
                                        .lock()
                                        .unwrap()
                                        .push(format!("{kernel}/{schedule}: no entry {entry}"));
                                }
                            }
                            *compiled.lock().unwrap() += 1;
                        }
                        Err(e) => failures
                            .lock()
                            .unwrap()
                            .push(format!("{kernel}/{schedule}: {e}")),
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_eq!(*compiled.lock().unwrap(), 2 * sources().len());
}

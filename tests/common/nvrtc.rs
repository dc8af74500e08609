//! The one place the compile tests decide whether they can run without libnvrtc. Included by path
//! (`#[path = ...] mod nvrtc;`) by the root crate's tests and by `loops-runtime/tests`, so the skip
//! reads the same everywhere; hence it uses only `loops::compile`, `loops::Result` (in
//! `loops-runtime/tests`, the runtime's own, under the name `loops`) and std, and not the rest of
//! `common`, which needs the rest of the `loops` facade.

use std::io::Write;

use loops::compile::{nvrtc_available, NvrtcInfo, REQUIRE_NVRTC_ENV};

/// The NVRTC in use, or `None` after one line on stderr naming the skipped test. With
/// `LOOPS_REQUIRE_NVRTC=1` a missing libnvrtc panics instead, so CI cannot pass by skipping.
///
/// The line is written to `std::io::stderr()` itself, not with `eprintln!`: libtest captures the
/// print macros of a passing test and shows them only on failure, so a skip reported through them
/// is silent in `cargo test`. A direct write is not captured and shows in the plain output.
pub fn nvrtc_or_skip() -> Option<NvrtcInfo> {
    match nvrtc_available() {
        Ok(info) => Some(info),
        Err(e) if std::env::var(REQUIRE_NVRTC_ENV).is_ok_and(|v| v == "1") => {
            panic!("{REQUIRE_NVRTC_ENV}=1 but NVRTC cannot be loaded: {e}")
        }
        Err(_) => {
            // libtest runs each test on a thread named after it.
            let test = std::thread::current().name().unwrap_or("test").to_owned();
            let line = format!(
                "skipped {test}: libnvrtc not found (set {REQUIRE_NVRTC_ENV}=1 to fail instead)\n"
            );
            // One write of the whole line, so that it does not interleave with the harness's
            // `test ... ok` lines; nothing to do if stderr itself is gone (the test still passes).
            let _ = std::io::stderr().lock().write_all(line.as_bytes());
            None
        }
    }
}

/// Compiles each `(kernel name, source)` of `jobs` to a cubin for sm_90 (NVRTC and ptxas: what a
/// device loads, where PTX would leave ptxas's refusals, too much shared memory among them, to
/// the first launch), on every core, in order.
#[allow(dead_code)]
pub fn cubins(jobs: &[(&str, &str)]) -> Vec<loops::Result<Vec<u8>>> {
    use loops::compile::{compile, Arch, KernelImage, Output};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut done: Vec<(usize, loops::Result<Vec<u8>>)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads.min(jobs.len()))
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&(kernel, source)) = jobs.get(i) else {
                            return mine;
                        };
                        let image = compile(kernel, source, Arch::SM_90, Output::Cubin);
                        mine.push((
                            i,
                            image.map(|image| match image {
                                KernelImage::Cubin(bytes) => bytes,
                                KernelImage::Ptx(ptx) => ptx.into_bytes(),
                            }),
                        ));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a compile thread panicked"))
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// Whether `cubin` defines the entry point `entry`: its name, NUL-terminated, in the ELF's string
/// table (a cubin names each kernel's sections after it too, `.text.NAME`, so a prefix of a
/// longer name does not count: the name must start a string).
#[allow(dead_code)]
pub fn cubin_has_entry(cubin: &[u8], entry: &str) -> bool {
    let mut needle = Vec::with_capacity(entry.len() + 2);
    needle.push(0u8);
    needle.extend_from_slice(entry.as_bytes());
    needle.push(0u8);
    cubin.windows(needle.len()).any(|w| w == needle.as_slice())
}

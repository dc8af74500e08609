//! The one place the compile tests decide whether they can run without libnvrtc. Included by path
//! (`#[path = ...] mod nvrtc;`) by the root crate's tests and by `loops-runtime/tests`, so the skip
//! reads the same everywhere; hence it uses only `loops_runtime` and std, and not the rest of
//! `common`, which needs the `loops` facade.

use std::io::Write;

use loops_runtime::compile::{nvrtc_available, NvrtcInfo, REQUIRE_NVRTC_ENV};

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

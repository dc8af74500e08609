//! Where the tests find real matrices: the one place that resolves them, shared by every test crate
//! of the workspace (`tests/common/mod.rs` has it as `common::data`; `loops-runtime/tests/mtx.rs`
//! and `examples/user_kernels/tests` include this file with `#[path]`). Only `std`.
//!
//! - The small matrices shipped in the repository, `data/matrices` (see its README): always there.
//! - The optional corpus: `$LOOPS_DATA_DIR`, else `../shared/data/matrices` beside the checkout.
//!   Absent, [`corpus_dir`] says `skipped: ...` once per test process, on stderr past the test
//!   harness's capture (so `cargo test` shows it), and the tests run on the small matrices only.
//!   `LOOPS_REQUIRE_DATA=1` (CI) makes an absent corpus a failure; so does a `LOOPS_DATA_DIR` that
//!   names no folder of `.mtx` files (it was asked for).
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Once;

/// The repository's root: the first folder that holds `data/matrices` at or above the test crate's
/// manifest folder as `cargo test` names it when it runs the test (`CARGO_MANIFEST_DIR` at run
/// time), else the current folder (a packed test binary run by hand from the checkout), else the
/// manifest folder the test was built in. So a test binary built in one checkout and run from a
/// copy (a shared target folder) looks beside the copy.
pub fn repo_root() -> PathBuf {
    let starts: Vec<PathBuf> = [
        std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from),
        std::env::current_dir().ok(),
        Some(PathBuf::from(env!("CARGO_MANIFEST_DIR"))),
    ]
    .into_iter()
    .flatten()
    .collect();
    for start in &starts {
        if let Some(root) = start
            .ancestors()
            .find(|d| d.join("data").join("matrices").is_dir())
        {
            return root.to_path_buf();
        }
    }
    panic!("no data/matrices folder at or above {starts:?}: the repository's small matrices are missing")
}

/// The small real matrices shipped in the repository (`data/matrices`).
pub fn small_dir() -> PathBuf {
    repo_root().join("data").join("matrices")
}

/// Every `.mtx` and `.mtx.gz` file directly in `dir`, sorted by path (empty if `dir` cannot be
/// read).
pub fn mtx_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                let name = p.to_string_lossy();
                name.ends_with(".mtx") || name.ends_with(".mtx.gz")
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    files
}

fn env_is(name: &str, value: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| v == value)
}

static SKIPPED: Once = Once::new();

/// The optional corpus of real matrices: `$LOOPS_DATA_DIR`, else `../shared/data/matrices` beside
/// the checkout, when it holds `.mtx` files. Otherwise `None`, after one `skipped: ...` line per
/// process that names what runs instead (`instead`); a panic with `LOOPS_REQUIRE_DATA=1`, or when
/// `LOOPS_DATA_DIR` is set and names no such folder.
pub fn corpus_dir(instead: &str) -> Option<PathBuf> {
    let given = std::env::var_os("LOOPS_DATA_DIR").filter(|d| !d.is_empty());
    let dir = match &given {
        Some(d) => PathBuf::from(d),
        None => {
            let root = repo_root();
            root.parent()
                .unwrap_or(&root)
                .join("shared")
                .join("data")
                .join("matrices")
        }
    };
    if !mtx_files(&dir).is_empty() {
        return Some(dir);
    }
    assert!(
        given.is_none(),
        "LOOPS_DATA_DIR={} holds no .mtx files: point it at the folder of the matrix corpus, or \
         unset it",
        dir.display()
    );
    assert!(
        !env_is("LOOPS_REQUIRE_DATA", "1"),
        "the matrix corpus {} is absent and LOOPS_REQUIRE_DATA=1 requires it: put the shared data \
         beside the checkout, or set LOOPS_DATA_DIR to the folder of .mtx files",
        dir.display()
    );
    SKIPPED.call_once(|| {
        // Straight to the process's stderr: the test harness captures `eprintln!` of passing tests.
        let _ = writeln!(
            std::io::stderr(),
            "skipped: the matrix corpus {} is absent (set LOOPS_DATA_DIR to a folder of .mtx \
             files; LOOPS_REQUIRE_DATA=1 makes this a failure): {instead}",
            dir.display()
        );
    });
    None
}

/// The folder the real-matrix tests run on: the corpus where it is, else the repository's small
/// matrices (after [`corpus_dir`]'s `skipped` line); `true` with the corpus.
pub fn real_matrix_dir() -> (PathBuf, bool) {
    match corpus_dir("the real-matrix tests run on the small matrices of data/matrices only") {
        Some(dir) => (dir, true),
        None => (small_dir(), false),
    }
}

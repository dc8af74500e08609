//! `LOOPS_DUMP_DIR`: each compile's source, log and outcome written out for inspection.

use std::path::Path;

use super::*;

/// `NAME-HASH`: the stem of a kernel's files in `LOOPS_DUMP_DIR` (the kernel name made safe for a
/// file name, and the 64-bit FNV-1a hash of its source, [`compile::source_hash`]).
pub fn dump_file_stem(kernel_name: &str, source: &str) -> String {
    format!(
        "{}-{:016x}",
        file_safe(kernel_name),
        compile::source_hash(source)
    )
}

/// What a compile did, for its `.log` in the dump folder.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CompileRecord<'a> {
    pub(crate) nvrtc_version: (u32, u32),
    pub(crate) target: Target,
    pub(crate) options: &'a [String],
    /// The image's size, or the error.
    pub(crate) outcome: std::result::Result<usize, &'a str>,
    pub(crate) log: &'a str,
}

/// Writes the source and the NVRTC log of a compile to `dir`; a failure is a warning.
pub(crate) fn dump_compile(
    dir: &Path,
    kernel_name: &str,
    source: &str,
    record: &CompileRecord<'_>,
) {
    let (major, minor) = record.nvrtc_version;
    let mut log = format!(
        "kernel: {kernel_name}\nnvrtc: {major}.{minor}\ntarget: {}\noptions: {}\n",
        record.target,
        record.options.join(" ")
    );
    match record.outcome {
        Ok(size) => {
            let _ = writeln!(
                log,
                "result: compiled ({size} bytes of {})",
                record.target.output
            );
        }
        Err(error) if error == record.log => log.push_str("result: FAILED\n"),
        Err(error) => {
            let _ = writeln!(log, "result: FAILED: {error}");
        }
    }
    log.push_str("--- NVRTC log ---\n");
    log.push_str(record.log);
    dump(dir, kernel_name, source, &log);
}

pub(super) fn dump_cache_hit(
    dir: &Path,
    kernel_name: &str,
    source: &str,
    key: &CacheKey,
    path: &Path,
) {
    let log = format!(
        "kernel: {kernel_name}\nresult: loaded from the kernel cache, not compiled: {}\n\
         ({CACHE_ENV}=off compiles it and records NVRTC's log)\n--- key ---\n{}",
        path.display(),
        key.text()
    );
    dump(dir, kernel_name, source, &log);
}

pub(super) fn dump(dir: &Path, kernel_name: &str, source: &str, log: &str) {
    let stem = dump_file_stem(kernel_name, source);
    let written = write_atomic(dir, &format!("{stem}.cu"), source.as_bytes())
        .and_then(|_| write_atomic(dir, &format!("{stem}.log"), log.as_bytes()));
    if let Err(e) = written {
        warn_once(&DUMP_WARNED, format_args!("{DUMP_DIR_ENV}: {e}"));
    }
}

/// `name` with every character but ASCII letters, digits, `_` and `-` replaced by `_`, at most 64
/// characters, never empty.
pub(crate) fn file_safe(name: &str) -> String {
    let safe: String = name
        .chars()
        .take(64)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.is_empty() {
        "kernel".to_string()
    } else {
        safe
    }
}

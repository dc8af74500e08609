//! `LOOPS_DUMP_DIR`: each compile's source, log and outcome written out for inspection.

use std::path::Path;

use super::*;

/// `NAME-HASH`: the stem of a kernel's files in `LOOPS_DUMP_DIR` (the kernel name made safe for a
/// file name, and the 64-bit FNV-1a hash of its source, `compile::source_hash`); `NAME.ENTRY-HASH`
/// for one entry point compiled alone, so that the entry points of one source, compiled at once on
/// several threads, write files of their own.
pub fn dump_file_stem(kernel_name: &str, source: &str, entry: Option<&str>) -> String {
    format!(
        "{}-{:016x}",
        file_stem_name(kernel_name, entry),
        compile::source_hash(source)
    )
}

/// The readable part of a file's name: the kernel name, and `.ENTRY` for one entry point, each
/// made safe for a file name ([`file_safe`]).
pub(super) fn file_stem_name(kernel_name: &str, entry: Option<&str>) -> String {
    match entry {
        Some(entry) => format!("{}.{}", file_safe(kernel_name), file_safe(entry)),
        None => file_safe(kernel_name),
    }
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
    entry: Option<&str>,
    record: &CompileRecord<'_>,
) {
    let (major, minor) = record.nvrtc_version;
    let mut log = format!(
        "kernel: {kernel_name}\n{}nvrtc: {major}.{minor}\ntarget: {}\noptions: {}\n",
        entry_line(entry),
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
    dump(dir, kernel_name, source, entry, &log);
}

/// `entry: NAME` and a newline for one entry point compiled alone; nothing for a whole source.
fn entry_line(entry: Option<&str>) -> String {
    entry.map_or(String::new(), |e| {
        format!("entry: {e} (compiled alone: the others are not in the image)\n")
    })
}

pub(super) fn dump_cache_hit(
    dir: &Path,
    kernel_name: &str,
    source: &str,
    entry: Option<&str>,
    key: &CacheKey,
    path: &Path,
) {
    let log = format!(
        "kernel: {kernel_name}\n{}result: loaded from the kernel cache, not compiled: {}\n\
         ({CACHE_ENV}=off compiles it and records NVRTC's log)\n--- key ---\n{}",
        entry_line(entry),
        path.display(),
        key.text()
    );
    dump(dir, kernel_name, source, entry, &log);
}

/// Writes `NAME-HASH.cu` and `.log`, and beside them the library's headers the source includes
/// (`loops_prelude.cuh`, [`compile::HEADERS`]), so that the `.cu` compiles as it is and its lines
/// are the lines NVRTC's log names.
pub(super) fn dump(dir: &Path, kernel_name: &str, source: &str, entry: Option<&str>, log: &str) {
    let stem = dump_file_stem(kernel_name, source, entry);
    let mut written = write_atomic(dir, &format!("{stem}.cu"), source.as_bytes())
        .and_then(|_| write_atomic(dir, &format!("{stem}.log"), log.as_bytes()));
    for (name, text) in compile::HEADERS {
        if written.is_ok() && includes(source, name) {
            written = write_atomic(dir, name, text.as_bytes());
        }
    }
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

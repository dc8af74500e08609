//! Measured tuning: the persistent cache of the variants that won a timing, and the timing
//! harness they are measured with ([`measure`]: warm-up, the stream hold, CUDA events, medians),
//! shared by `auto` and the ops that time their plans.
//!
//! `schedule = "auto"` times its model's few best candidates the first time a kernel meets a tile
//! set, and keeps the winner here, so that a later process starts tuned. This module is the memory
//! only: it stores and returns winners under a [`TuneKey`]; which variants run, how they are timed
//! and whether a remembered winner can be used are the caller's.
//!
//! # Settings (read once per process by [`TuneCache::global`]; any [`TuneCache`] can be passed
//! explicitly)
//!
//! - `LOOPS_TUNE=off` (or `0`, `false`, `no`): no tuning at all. Nothing is timed, read or written;
//!   `auto` chooses with its model alone (`TuneCache::tuning_enabled` is false).
//! - `LOOPS_TUNE_DIR=DIR`: the folder of the tuning cache. Default: `tune` in the kernel cache's
//!   folder (`$LOOPS_CACHE_DIR/tune`, else `loops-for-rust/tune` in the platform's cache folder, e.g.
//!   `~/.cache/loops-for-rust/tune`), so that clearing the kernel cache clears the winners too.
//!   `LOOPS_CACHE=off` (which means "write nothing to disk") leaves no default folder: winners are
//!   then remembered only within the process, unless `LOOPS_TUNE_DIR` names one.
//!
//! Deleting the folder, or any file in it, is always safe: the next process measures again.
//!
//! # Key
//!
//! A winner is valid and fast only for what it was measured on, so the key is all of that: the
//! kernel's name and the SHA-256 of its generated source, this crate's version, the device (name,
//! compute capability, SM count, driver version), and the call's [`Fingerprint`] (the element type,
//! checked mode, 64-bit offsets, the tile set's tiles, atoms, log2 histogram of tile sizes, longest
//! tile and longest run of empty tiles, and the lengths of its buffers). The key's text is stored in
//! the entry and compared on every read; its SHA-256 names the file, `KERNEL-DIGEST.tune`.
//!
//! # File format (UTF-8 text)
//!
//! ```text
//! loops-for-rust tuning entry, format 1
//! key: 512 bytes
//! <the key text, 512 bytes, ending in a newline>
//! winner: "spmv_group4"
//! timing_us: "spmv_group4" 12.5
//! timing_us: "spmv_merge_path" 14.25
//! crc32: 0a1b2c3d
//! ```
//!
//! Names are written as Rust string literals (quoted, escaped), times in microseconds. The CRC-32
//! covers every byte before its line, which is the file's last. A reader checks the header, the key
//! length and text against its own key, every line's form and the checksum; any mismatch (garbage, a
//! truncated or empty file, another key's entry, a digest collision) is a miss, and the next store
//! replaces the file.
//!
//! # Atomicity
//!
//! Entries are written as the kernel cache's are ([`crate::compile::cache`]): a temporary file in
//! the same folder, fsynced, renamed over the entry. Readers see a whole entry or none; writers racing
//! on one key all succeed and the last rename wins. A folder that cannot be written costs one warning
//! on stderr per process, never an error or a panic.

mod cache;
pub mod measure;
pub mod report;

pub use cache::{DeviceIdentity, Fingerprint, TuneCache, TuneKey, Winner, TUNE_DIR_ENV};
#[cfg(test)]
pub(crate) use cache::{TUNE_ENV, TUNE_SUBDIR};

#[cfg(test)]
mod tests;

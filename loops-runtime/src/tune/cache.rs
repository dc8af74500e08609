//! The tuning cache's types, its settings, and its entries on disk (described in [`crate::tune`]).

use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

use crate::compile::cache::{
    file_safe, hex, means_off, warn_once, write_atomic, CacheConfig, DiskCache, STALE_TEMP_AGE,
};
use crate::device::Gpu;

/// `LOOPS_TUNE=off` turns measured tuning off: `auto` chooses with its model alone.
pub(crate) const TUNE_ENV: &str = "LOOPS_TUNE";
/// `LOOPS_TUNE_DIR=DIR` puts the tuning cache in `DIR`.
pub const TUNE_DIR_ENV: &str = "LOOPS_TUNE_DIR";
/// The tuning cache's folder name inside the kernel cache's folder (its default place).
pub(crate) const TUNE_SUBDIR: &str = "tune";
/// The extension of an entry's file name.
pub(crate) const ENTRY_EXTENSION: &str = "tune";

const ENTRY_HEADER: &str = "loops-for-rust tuning entry, format 1";
const KEY_HEADER: &str = "loops-for-rust tuning key";

static STORE_WARNED: AtomicBool = AtomicBool::new(false);

/// The device a winner was measured on: another device (even another driver) may rank the variants
/// differently.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DeviceIdentity {
    /// The device's name, e.g. "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// Its compute capability (major, minor).
    pub arch: (u32, u32),
    /// Its number of streaming multiprocessors.
    pub sm_count: u32,
    /// The CUDA version the driver supports, as `cuDriverGetVersion` reports it.
    pub driver_version: i32,
}

impl DeviceIdentity {
    /// The identity of the device `gpu` runs on.
    pub fn of(gpu: &Gpu) -> DeviceIdentity {
        DeviceIdentity {
            name: gpu.name().to_string(),
            arch: gpu.compute_capability(),
            sm_count: gpu.limits().sm_count,
            driver_version: gpu.driver_version(),
        }
    }
}

/// What the choice of a variant depends on in one call: the data's shape and the call's mode. Two
/// calls with equal fingerprints (and the same kernel and device) are given the same winner.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Fingerprint {
    /// The element type's key, e.g. `"f32"`.
    pub element: String,
    /// Whether the bounds-checked variant runs.
    pub checked: bool,
    /// Whether the tile set has 64-bit offsets.
    pub wide: bool,
    /// The number of tiles.
    pub tiles: u64,
    /// The number of atoms.
    pub atoms: u64,
    /// `histogram[b]`: how many tiles have a size in bucket `b` of the log2 histogram.
    pub histogram: [u64; 32],
    /// The most atoms in one tile.
    pub longest_tile: u64,
    /// The most consecutive empty tiles.
    pub longest_empty_run: u64,
    /// Anything else the choice depends on, e.g. the lengths of the call's buffers.
    pub extra: Vec<u64>,
}

/// Everything a winner's validity and speed depend on: the kernel (name and source), this crate's
/// version, the device and the call's [`Fingerprint`]. Its text form is the key: stored in the
/// entry, compared on reading, and (its digest) the entry's file name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TuneKey {
    text: String,
    file_name: String,
}

impl TuneKey {
    /// The key of the kernel `kernel`, whose generated CUDA is `source`, called with `fingerprint`
    /// on `device`. The source is hashed here (SHA-256), so a changed kernel body misses.
    pub fn new(
        kernel: &str,
        source: &str,
        device: &DeviceIdentity,
        fingerprint: &Fingerprint,
    ) -> TuneKey {
        let Fingerprint {
            element,
            checked,
            wide,
            tiles,
            atoms,
            histogram,
            longest_tile,
            longest_empty_run,
            extra,
        } = fingerprint;
        // Strings are written as literals ({:?}), so that no name can forge a line.
        let text = format!(
            "{KEY_HEADER}\nkernel: {kernel:?}\nsource: {} bytes, sha256 {}\nruntime: {} {}\n\
             device: {:?}, compute {}.{}, {} SMs, driver {}\nelement: {element:?}\n\
             checked: {checked}\nwide: {wide}\ntiles: {tiles}\natoms: {atoms}\n\
             histogram: {histogram:?}\nlongest tile: {longest_tile}\n\
             longest empty run: {longest_empty_run}\nextra: {extra:?}\n",
            source.len(),
            hex(&Sha256::digest(source.as_bytes())),
            env!("CARGO_PKG_NAME"),
            env!("CARGO_PKG_VERSION"),
            device.name,
            device.arch.0,
            device.arch.1,
            device.sm_count,
            device.driver_version,
        );
        let digest = Sha256::digest(text.as_bytes());
        let file_name = format!(
            "{}-{}.{ENTRY_EXTENSION}",
            file_safe(kernel),
            hex(&digest[..16])
        );
        TuneKey { text, file_name }
    }

    /// The full key, as stored in the entry and compared on reading.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The entry's file name: `KERNEL-DIGEST.tune`.
    pub(crate) fn file_name(&self) -> &str {
        &self.file_name
    }
}

/// What a timing found: the variant that won, and every candidate's time.
///
/// The cache does not know the kernel's variants: a winner read back names whatever was stored. The
/// caller must check that it names a variant of the kernel valid for the call, and choose by its
/// model otherwise.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Winner {
    /// The winning variant's name, e.g. `"spmv_group4"`.
    pub variant: String,
    /// Each candidate timed and its time in microseconds, in the order measured.
    pub timings_us: Vec<(String, f64)>,
}

/// Where winners are remembered, and whether tuning runs at all.
///
/// Three states: tuning off ([`TuneCache::disabled`], `LOOPS_TUNE=off`); tuning on without a folder
/// (nothing persists: [`TuneCache::dir`] is `None`); tuning on with a folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TuneCache {
    enabled: bool,
    dir: Option<PathBuf>,
}

impl TuneCache {
    /// Tuning on, winners kept in `dir` (made on the first store).
    pub fn in_dir(dir: impl Into<PathBuf>) -> TuneCache {
        TuneCache {
            enabled: true,
            dir: Some(dir.into()),
        }
    }

    /// Tuning off: nothing is timed, read or written.
    pub fn disabled() -> TuneCache {
        TuneCache {
            enabled: false,
            dir: None,
        }
    }

    /// Tuning on, but no folder: every process measures again.
    pub fn not_persisted() -> TuneCache {
        TuneCache {
            enabled: true,
            dir: None,
        }
    }

    /// The settings of the process's environment (see [`crate::tune`]).
    pub fn from_env() -> TuneCache {
        TuneCache::from_vars(|name| std::env::var_os(name))
    }

    /// The settings that the variables `var` returns describe: the one place where they are parsed.
    /// An empty variable counts as unset. The default folder follows the kernel cache's settings
    /// (`LOOPS_CACHE_DIR`, `LOOPS_CACHE`), read through `var` as well.
    pub(crate) fn from_vars(var: impl Fn(&str) -> Option<OsString>) -> TuneCache {
        let get = |name: &str| var(name).filter(|v| !v.is_empty());
        if get(TUNE_ENV).is_some_and(|v| means_off(&v)) {
            return TuneCache::disabled();
        }
        let dir = get(TUNE_DIR_ENV).map(PathBuf::from).or_else(|| {
            CacheConfig::from_vars(&var)
                .dir
                .map(|kernels| kernels.join(TUNE_SUBDIR))
        });
        TuneCache { enabled: true, dir }
    }

    /// The process-wide settings, read from the environment on first use.
    pub fn global() -> &'static TuneCache {
        static GLOBAL: OnceLock<TuneCache> = OnceLock::new();
        GLOBAL.get_or_init(TuneCache::from_env)
    }

    /// Whether candidates may be timed. False with `LOOPS_TUNE=off`: then `auto` uses its model
    /// alone.
    pub(crate) fn tuning_enabled(&self) -> bool {
        self.enabled
    }

    /// The folder winners are kept in; `None`: nothing persists (tuning may still run).
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Where the entry of `key` is (`None` without a folder).
    pub fn path(&self, key: &TuneKey) -> Option<PathBuf> {
        self.dir.as_ref().map(|dir| dir.join(key.file_name()))
    }

    /// The winner stored for `key`. `None` when there is none, when tuning is off or nothing
    /// persists, and when the file is not a valid entry for exactly this key (corrupt, truncated,
    /// empty, another key's): the next [`store`](Self::store) replaces it. Never panics.
    ///
    /// The winner's name is not checked against the kernel's variants: see [`Winner`].
    pub fn load(&self, key: &TuneKey) -> Option<Winner> {
        if !self.enabled {
            return None;
        }
        let bytes = fs::read(self.path(key)?).ok()?;
        decode(&bytes, key.text()).ok()
    }

    /// Stores `winner` under `key`, replacing any entry, atomically: a reader sees the old entry or
    /// the new one, whole. Does nothing when tuning is off or nothing persists. A failure (a folder
    /// that cannot be made or written) is one warning on stderr per process; it never panics.
    pub fn store(&self, key: &TuneKey, winner: &Winner) {
        let Some(dir) = self.dir.as_ref().filter(|_| self.enabled) else {
            return;
        };
        match write_atomic(dir, key.file_name(), encode(key.text(), winner).as_bytes()) {
            // Tidy up after writers that crashed, as the kernel cache does on its stores.
            Ok(_) => {
                DiskCache::new(dir).remove_stale_temp_files(STALE_TEMP_AGE);
            }
            Err(e) => warn_once(
                &STORE_WARNED,
                format_args!(
                    "tuning cache: could not {} {}: {} (winners are not remembered across \
                     processes; {TUNE_DIR_ENV} moves the folder)",
                    e.action,
                    e.path.display(),
                    e.source
                ),
            ),
        }
    }
}

/// The text of the entry for `key` holding `winner`.
pub(super) fn encode(key: &str, winner: &Winner) -> String {
    let mut out = format!(
        "{ENTRY_HEADER}\nkey: {} bytes\n{key}winner: {:?}\n",
        key.len(),
        winner.variant
    );
    for (variant, time) in &winner.timings_us {
        let _ = writeln!(out, "timing_us: {variant:?} {time}");
    }
    let _ = writeln!(out, "crc32: {:08x}", crc32fast::hash(out.as_bytes()));
    out
}

/// The winner of an entry for `key`, or why `bytes` is not one.
pub(super) fn decode(bytes: &[u8], key: &str) -> Result<Winner, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())?;
    // The checksum line is the last; everything before it is what it covers.
    let body_len = text
        .strip_suffix('\n')
        .and_then(|t| t.rfind('\n'))
        .map(|at| at + 1)
        .ok_or("no checksum line")?;
    let (body, checksum) = text.split_at(body_len);
    if checksum != format!("crc32: {:08x}\n", crc32fast::hash(body.as_bytes())) {
        return Err("the checksum does not match".into());
    }
    let rest = body
        .strip_prefix(ENTRY_HEADER)
        .and_then(|r| r.strip_prefix('\n'))
        .ok_or("not a tuning entry (wrong header)")?;
    let rest = rest
        .strip_prefix(&format!("key: {} bytes\n", key.len()))
        .and_then(|r| r.strip_prefix(key))
        .ok_or("an entry for another key")?;
    let mut lines = rest.lines();
    let variant = lines
        .next()
        .and_then(|l| l.strip_prefix("winner: "))
        .and_then(|l| match unquote(l)? {
            (name, "") => Some(name),
            _ => None,
        })
        .ok_or("no winner line")?;
    let timings_us = lines
        .map(|line| {
            let (name, time) = line
                .strip_prefix("timing_us: ")
                .and_then(unquote)
                .ok_or_else(|| format!("a malformed line: {line:?}"))?;
            let time = time
                .strip_prefix(' ')
                .and_then(|t| t.parse::<f64>().ok())
                .ok_or_else(|| format!("a malformed time: {line:?}"))?;
            Ok((name, time))
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Winner {
        variant,
        timings_us,
    })
}

/// Reads a string literal as `{:?}` writes it at the start of `s`: the string, and what follows it.
/// `None` for anything else.
fn unquote(s: &str) -> Option<(String, &str)> {
    let mut chars = s.strip_prefix('"')?.char_indices();
    let mut out = String::new();
    while let Some((_, c)) = chars.next() {
        match c {
            '"' => return Some((out, chars.as_str())),
            '\\' => out.push(match chars.next()?.1 {
                'n' => '\n',
                'r' => '\r',
                't' => '\t',
                '0' => '\0',
                '\\' => '\\',
                '"' => '"',
                '\'' => '\'',
                'u' => {
                    let inner = chars.as_str().strip_prefix('{')?;
                    let end = inner.find('}')?;
                    let code = u32::from_str_radix(&inner[..end], 16).ok()?;
                    // Skip past the braces: '{', the digits, '}'.
                    for _ in 0..end + 2 {
                        chars.next();
                    }
                    char::from_u32(code)?
                }
                _ => return None,
            }),
            c if c.is_control() => return None,
            c => out.push(c),
        }
    }
    None
}

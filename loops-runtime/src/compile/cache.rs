//! The on-disk cache of compiled kernels, and source dumps for inspection.
//!
//! # Settings (read once per process, by [`CacheConfig::from_env`])
//!
//! - `LOOPS_CACHE_DIR=DIR`: the cache folder. Default: `loops-for-rust` in the platform's cache folder
//!   (`$XDG_CACHE_HOME` or `~/.cache` on Linux, `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on
//!   Windows).
//! - `LOOPS_CACHE=off` (or `0`, `false`, `no`): no disk cache at all: nothing is read or written.
//! - `LOOPS_DUMP_DIR=DIR`: every kernel compiled writes `NAME-HASH.cu` (its source, and beside it the
//!   library headers it includes, `loops_prelude.cuh`) and `NAME-HASH.log`
//!   (NVRTC's version, the options, the outcome and NVRTC's log) there, whether NVRTC accepts it or
//!   not; a kernel served from the disk cache writes its `.cu` and a `.log` naming the cache file.
//!   One entry point compiled alone writes `NAME.ENTRY-HASH.cu` and `.log`.
//!
//! The API takes a [`CacheConfig`] explicitly ([`load_or_compile`]); only [`crate::device::Gpu`]
//! and [`crate::compile::compile`] use the process-wide one, [`CacheConfig::global`].
//!
//! # Key
//!
//! An entry is keyed by everything that changes the binary: the kernel name (NVRTC's program name,
//! which line info records), the SHA-256 of the source and of the library's headers it may include
//! (the prelude, [`crate::compile::HEADERS`]), the entry point compiled alone (if one is:
//! see [`crate::compile::compile_with_dump`]), the device's architecture, the target
//! (`crate::compile::target_for`: `sm_90` cubin, or PTX), the NVRTC version and the libnvrtc file
//! (path, size, modification time: a patch release changes the file, not always the version), and
//! the NVRTC options. The key's full text is stored in the entry and compared on every read; its
//! SHA-256 names the file: `NAME-DIGEST.cubin` or `.ptx` for a whole source,
//! `NAME.ENTRY-DIGEST.cubin` or `.ptx` for one entry point of it.
//!
//! # Not loading NVRTC on a hit
//!
//! Loading libnvrtc (about 100 MB) costs several milliseconds, more than everything else a warm start
//! does. To build the key without it, the NVRTC identity (version, supported architectures, library
//! file) is remembered in `nvrtc-FINGERPRINT.id`, where the fingerprint covers what decides which
//! libnvrtc the dynamic loader picks: the executable (path, size, time), `LOOPS_NVRTC_LIB`,
//! `LD_LIBRARY_PATH` (and the times of its folders), `/etc/ld.so.cache` and the system library
//! folders' times, and cudarc's list of names. The memo is used only while the library file it names
//! still has the recorded size, time and inode. A miss loads NVRTC, compiles with it, and refreshes
//! the memo if it was stale.
//!
//! # File format (little-endian)
//!
//! ```text
//! 0   magic  "LOOPSKC\0"          8 bytes
//! 8   format version (1)          u32
//! 12  kind: 1 PTX, 2 cubin, 3 NVRTC identity; then 3 zero bytes
//! 16  key text length K           u32
//! 20  payload length P            u64
//! 28  CRC-32 of the payload       u32
//! 32  CRC-32 of bytes 0..32 and the key text   u32
//! 36  key text (UTF-8), then the payload; the file is exactly 36 + K + P bytes
//! ```
//!
//! A reader checks all of it (magic, version, kind, both lengths against the file's, both CRCs, the
//! key text against its own, PTX being UTF-8 without NUL) and treats any mismatch as a miss: the
//! kernel is compiled again and the entry replaced. Nothing read from the cache can panic.
//!
//! # Atomicity and concurrency
//!
//! A writer writes `.NAME.PID-N.tmp` in the cache folder (created exclusively), fsyncs it, renames it
//! over the entry (atomic on POSIX), and fsyncs the folder. Readers open entries by their exact name
//! only, so they see a complete old entry, a complete new one, or none; a crashed writer leaves a
//! `.tmp` file that nothing reads and that a later miss removes once it is an hour old. Two processes
//! compiling the same kernel both succeed; the last rename wins, and both entries are valid. A cache
//! that cannot be read or written is at most one warning on stderr per process, never an error.

use std::ffi::OsString;
use std::fmt::{self, Write as _};
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

use crate::compile::{self, Arch, KernelImage, Output, Target};
use crate::error::Result;

mod dump;
mod identity;

pub use dump::dump_file_stem;
pub(crate) use dump::file_safe;
use dump::{dump_cache_hit, file_stem_name};
pub(crate) use dump::{dump_compile, CompileRecord};
use identity::{remember_identity, remembered_identity};
pub use identity::{LibraryFile, NvrtcIdentity};

/// `LOOPS_CACHE=off` turns the disk cache off.
pub const CACHE_ENV: &str = "LOOPS_CACHE";
/// `LOOPS_CACHE_DIR=DIR` puts the disk cache in `DIR`.
pub const CACHE_DIR_ENV: &str = "LOOPS_CACHE_DIR";
/// `LOOPS_DUMP_DIR=DIR` writes every generated source and its NVRTC log to `DIR`.
pub const DUMP_DIR_ENV: &str = "LOOPS_DUMP_DIR";
/// The cache's folder name inside the platform's cache folder.
pub(crate) const APP_DIR_NAME: &str = "loops-for-rust";

const MAGIC: [u8; 8] = *b"LOOPSKC\0";
const FORMAT_VERSION: u32 = 1;
const HEADER_LEN: usize = 36;
const KIND_PTX: u8 = 1;
const KIND_CUBIN: u8 = 2;
const KIND_IDENTITY: u8 = 3;
const TEMP_SUFFIX: &str = ".tmp";
/// Temporary files older than this are a crashed writer's, and removed.
pub const STALE_TEMP_AGE: Duration = Duration::from_secs(3600);

/// Where the disk cache and the source dumps go. `dir: None` turns the disk cache off.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheConfig {
    /// The folder of the disk cache; `None`: no disk cache.
    pub dir: Option<PathBuf>,
    /// Where every compiled kernel's source and NVRTC log are written; `None`: nowhere.
    pub dump_dir: Option<PathBuf>,
}

impl CacheConfig {
    /// No disk cache, no dumps.
    pub fn disabled() -> CacheConfig {
        CacheConfig::default()
    }

    /// A disk cache in `dir`, no dumps.
    pub fn in_dir(dir: impl Into<PathBuf>) -> CacheConfig {
        CacheConfig {
            dir: Some(dir.into()),
            dump_dir: None,
        }
    }

    /// The same, dumping sources and logs to `dir`.
    pub fn with_dump_dir(self, dir: impl Into<PathBuf>) -> CacheConfig {
        CacheConfig {
            dump_dir: Some(dir.into()),
            ..self
        }
    }

    /// The settings of the process's environment (see the module documentation).
    pub fn from_env() -> CacheConfig {
        CacheConfig::from_vars(|name| std::env::var_os(name))
    }

    /// The settings that the variables `var` returns describe: the one place where they are parsed.
    /// An empty variable counts as unset.
    pub fn from_vars(var: impl Fn(&str) -> Option<OsString>) -> CacheConfig {
        let get = |name: &str| var(name).filter(|v| !v.is_empty());
        let off = get(CACHE_ENV).is_some_and(|v| means_off(&v));
        let dir = if off {
            None
        } else {
            get(CACHE_DIR_ENV).map(PathBuf::from).or_else(default_dir)
        };
        CacheConfig {
            dir,
            dump_dir: get(DUMP_DIR_ENV).map(PathBuf::from),
        }
    }

    /// The process-wide settings, read from the environment on first use.
    pub fn global() -> &'static CacheConfig {
        static GLOBAL: OnceLock<CacheConfig> = OnceLock::new();
        GLOBAL.get_or_init(CacheConfig::from_env)
    }
}

/// Whether a switch variable's value turns its feature off: `off`, `0`, `false` or `no`, in any case,
/// spaces around ignored. Any other value leaves it on.
pub(crate) fn means_off(value: &std::ffi::OsStr) -> bool {
    matches!(
        value.to_string_lossy().trim().to_ascii_lowercase().as_str(),
        "off" | "0" | "false" | "no"
    )
}

/// The default cache folder: `loops-for-rust` in the platform's cache folder (`None` where the
/// platform has none, e.g. no home folder).
pub(crate) fn default_dir() -> Option<PathBuf> {
    dirs::cache_dir().map(|d| d.join(APP_DIR_NAME))
}

/// A cache file that could not be written (or a folder that could not be made).
#[derive(Debug, thiserror::Error)]
#[error("kernel cache: could not {action} {}: {source}", path.display())]
pub struct CacheError {
    /// What was being done (`write`, `create`, ...).
    pub action: &'static str,
    /// The file or folder.
    pub path: PathBuf,
    /// The I/O error.
    #[source]
    pub source: io::Error,
}

impl CacheError {
    fn new(action: &'static str, path: &Path, source: io::Error) -> CacheError {
        CacheError {
            action,
            path: path.to_path_buf(),
            source,
        }
    }
}

/// The key's line for the library's headers `source` includes ([`compile::HEADERS`]: the prelude
/// a generated source includes instead of holding it), each by name, length and SHA-256, so that a
/// new prelude is a new key where the kernel's own source is unchanged. Empty for a source that
/// includes none (hand-written CUDA), whose key is what it was before generated sources included
/// the prelude.
fn headers_line(source: &str) -> String {
    static DIGESTS: OnceLock<Vec<String>> = OnceLock::new();
    let digests = DIGESTS.get_or_init(|| {
        compile::HEADERS
            .iter()
            .map(|(name, text)| {
                let digest = hex(&Sha256::digest(text.as_bytes()));
                format!("{name} {} bytes sha256 {digest}", text.len())
            })
            .collect()
    });
    let included: Vec<&str> = compile::HEADERS
        .iter()
        .zip(digests)
        .filter(|((name, _), _)| includes(source, name))
        .map(|(_, digest)| digest.as_str())
        .collect();
    if included.is_empty() {
        String::new()
    } else {
        format!("headers: {}\n", included.join(", "))
    }
}

/// Whether `source` has the line that includes the library's header `name`.
pub(crate) fn includes(source: &str, name: &str) -> bool {
    let line = kernels_gen::abi::include_line(name);
    source.lines().any(|l| l == line.trim_end())
}

/// An entry's key: the text of everything that changes the binary, and the file name its digest
/// gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheKey {
    text: String,
    file_name: String,
    target: Target,
}

impl CacheKey {
    /// The key of `source` (of its one `entry` point, where that is `Some`), compiled by `nvrtc`
    /// under the name `kernel_name` for `device`. Without an entry, the key of the whole source is
    /// what it was before entry points were compiled alone.
    pub fn new(
        kernel_name: &str,
        source: &str,
        entry: Option<&str>,
        device: Arch,
        nvrtc: &NvrtcIdentity,
    ) -> CacheKey {
        let target = nvrtc.target(device);
        let options = compile::compile_options(target.arch, target.output, entry);
        // The options name the entry already; the line says it where a reader looks first.
        let entry_line = entry.map_or(String::new(), |e| format!("entry: {e:?}\n"));
        let text = format!(
            "loops-for-rust kernel\nkernel: {kernel_name:?}\n{entry_line}source: {} bytes, sha256 {}\n\
             {}device: {device}\ntarget: {target}\nnvrtc: {}\noptions: {:?}\n",
            source.len(),
            hex(&Sha256::digest(source.as_bytes())),
            headers_line(source),
            nvrtc.key_text(),
            options,
        );
        let digest = Sha256::digest(text.as_bytes());
        let file_name = format!(
            "{}-{}.{}",
            file_stem_name(kernel_name, entry),
            hex(&digest[..16]),
            target.output
        );
        CacheKey {
            text,
            file_name,
            target,
        }
    }

    /// The full key, as stored in the entry and compared on reading.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The entry's file name: `NAME-DIGEST.cubin` or `NAME-DIGEST.ptx`, with `NAME.ENTRY` for one
    /// entry point.
    pub fn file_name(&self) -> &str {
        &self.file_name
    }

    /// What the entry holds.
    pub fn target(&self) -> Target {
        self.target
    }
}

/// What a cache read found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// A verified entry.
    Hit(KernelImage),
    /// No entry.
    Missing,
    /// A file that is not a valid entry for this key (corrupt, truncated, foreign, unreadable): it is
    /// not used, and the next store replaces it.
    Rejected(String),
}

/// A cache folder.
#[derive(Clone, Debug)]
pub struct DiskCache {
    dir: PathBuf,
}

impl DiskCache {
    /// The cache in `dir` (made on the first store).
    pub fn new(dir: impl Into<PathBuf>) -> DiskCache {
        DiskCache { dir: dir.into() }
    }

    /// The cache folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the entry of `key` is.
    pub fn path(&self, key: &CacheKey) -> PathBuf {
        self.dir.join(key.file_name())
    }

    /// Reads and verifies the entry of `key`.
    pub fn load(&self, key: &CacheKey) -> Lookup {
        let path = self.path(key);
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Lookup::Missing,
            Err(e) => return Lookup::Rejected(format!("cannot read {}: {e}", path.display())),
        };
        let kind = kind_of(key.target.output);
        match decode(&bytes, kind, &key.text) {
            Err(why) => Lookup::Rejected(format!("{}: {why}", path.display())),
            Ok(payload) => match key.target.output {
                Output::Cubin => Lookup::Hit(KernelImage::Cubin(payload.to_vec())),
                Output::Ptx => match std::str::from_utf8(payload) {
                    Ok(ptx) if !ptx.contains('\0') => {
                        Lookup::Hit(KernelImage::Ptx(ptx.to_string()))
                    }
                    _ => Lookup::Rejected(format!(
                        "{}: the PTX is not UTF-8 text without NUL",
                        path.display()
                    )),
                },
            },
        }
    }

    /// Writes the entry of `key` atomically (replacing any file there); returns its path.
    pub fn store(&self, key: &CacheKey, image: &KernelImage) -> Result<PathBuf, CacheError> {
        if image.output() != key.target.output {
            let why = format!(
                "a {} image under a key for {}",
                image.output(),
                key.target.output
            );
            return Err(CacheError::new(
                "store",
                &self.path(key),
                io::Error::new(io::ErrorKind::InvalidInput, why),
            ));
        }
        let bytes = encode(kind_of(image.output()), &key.text, image.bytes());
        write_atomic(&self.dir, key.file_name(), &bytes)
    }

    /// Removes the temporary files of writers that crashed (those older than `age`); returns how many.
    pub fn remove_stale_temp_files(&self, age: Duration) -> usize {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return 0;
        };
        let now = SystemTime::now();
        let mut removed = 0;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if !(name.starts_with('.') && name.ends_with(TEMP_SUFFIX)) {
                continue;
            }
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| now.duration_since(t).ok())
                .is_some_and(|elapsed| elapsed >= age);
            if old && fs::remove_file(entry.path()).is_ok() {
                removed += 1;
            }
        }
        removed
    }
}

fn kind_of(output: Output) -> u8 {
    match output {
        Output::Ptx => KIND_PTX,
        Output::Cubin => KIND_CUBIN,
    }
}

/// An entry: the header, the key text, the payload.
fn encode(kind: u8, key: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + key.len() + payload.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&[kind, 0, 0, 0]);
    out.extend_from_slice(&(key.len() as u32).to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    let mut header_crc = crc32fast::Hasher::new();
    header_crc.update(&out);
    header_crc.update(key.as_bytes());
    out.extend_from_slice(&header_crc.finalize().to_le_bytes());
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(payload);
    out
}

/// The payload of an entry of `kind` for `key`, or why `bytes` is not one.
fn decode<'a>(bytes: &'a [u8], kind: u8, key: &str) -> std::result::Result<&'a [u8], String> {
    let header = bytes
        .get(..HEADER_LEN)
        .ok_or_else(|| format!("{} bytes: shorter than a header", bytes.len()))?;
    let u32_at = |at: usize| {
        u32::from_le_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
    };
    if header[..8] != MAGIC {
        return Err("not a loops kernel cache file (wrong magic)".into());
    }
    if u32_at(8) != FORMAT_VERSION {
        return Err(format!(
            "format version {}, not {FORMAT_VERSION}",
            u32_at(8)
        ));
    }
    if header[12] != kind || header[13..16] != [0, 0, 0] {
        return Err(format!("kind {} where {kind} was expected", header[12]));
    }
    let key_len = u64::from(u32_at(16));
    let mut payload_len = [0u8; 8];
    payload_len.copy_from_slice(&header[20..28]);
    let payload_len = u64::from_le_bytes(payload_len);
    let expected = (HEADER_LEN as u64)
        .checked_add(key_len)
        .and_then(|n| n.checked_add(payload_len));
    if expected != Some(bytes.len() as u64) {
        return Err(format!(
            "{} bytes where the header says {HEADER_LEN} + {key_len} + {payload_len} (truncated or extended)",
            bytes.len()
        ));
    }
    // The lengths add up to the file's, so they fit in usize.
    let key_end = HEADER_LEN + key_len as usize;
    let (stored_key, payload) = (&bytes[HEADER_LEN..key_end], &bytes[key_end..]);
    let mut header_crc = crc32fast::Hasher::new();
    header_crc.update(&header[..32]);
    header_crc.update(stored_key);
    if header_crc.finalize() != u32_at(32) {
        return Err("the header's checksum does not match".into());
    }
    if stored_key != key.as_bytes() {
        return Err("an entry for another key".into());
    }
    if crc32fast::hash(payload) != u32_at(28) {
        return Err("the payload's checksum does not match".into());
    }
    Ok(payload)
}

/// Writes `bytes` to `dir/name` so that readers see the whole file or none: a temporary file in the
/// same folder, fsync, rename, fsync of the folder.
pub(crate) fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, CacheError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    fs::create_dir_all(dir).map_err(|e| CacheError::new("create the folder", dir, e))?;
    let path = dir.join(name);
    let temp = dir.join(format!(
        ".{name}.{}-{}{TEMP_SUFFIX}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let written = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut file| {
            file.write_all(bytes)?;
            file.sync_all()
        });
    if let Err(e) = written {
        let _ = fs::remove_file(&temp);
        return Err(CacheError::new("write", &temp, e));
    }
    if let Err(e) = fs::rename(&temp, &path) {
        let _ = fs::remove_file(&temp);
        return Err(CacheError::new("rename a new entry to", &path, e));
    }
    // The rename is durable once the folder is synced; a failure here loses at most the entry.
    #[cfg(unix)]
    if let Ok(folder) = fs::File::open(dir) {
        let _ = folder.sync_all();
    }
    Ok(path)
}

/// Prints `message` on stderr, the first time `flag` is raised in this process.
pub(crate) fn warn_once(flag: &AtomicBool, message: fmt::Arguments<'_>) {
    if !flag.swap(true, Ordering::Relaxed) {
        eprintln!("loops: warning: {message}");
    }
}

static STORE_WARNED: AtomicBool = AtomicBool::new(false);
static DUMP_WARNED: AtomicBool = AtomicBool::new(false);

/// Where a kernel came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// NVRTC compiled it in this call.
    Compiled,
    /// Read from the disk cache (NVRTC not needed).
    DiskCache,
}

/// A kernel image for a device, and where it came from.
#[derive(Clone, Debug)]
pub struct CompiledKernel {
    /// The compiled kernel.
    pub image: KernelImage,
    /// What it was compiled for.
    pub target: Target,
    /// Whether it was compiled now or read from the disk cache.
    pub origin: Origin,
    /// The cache entry read, or written (`None`: no disk cache, or it could not be written).
    pub cache_file: Option<PathBuf>,
}

/// The image of `source` for a `device`: from the disk cache of `config` when it holds a valid entry
/// (without loading NVRTC when the NVRTC identity is remembered), else compiled by NVRTC and stored.
/// Errors are NVRTC's (missing, or the source rejected); the cache's own problems are at most a
/// warning.
///
/// With an `entry`, the image holds that entry point of the generated `source` alone, and is cached
/// under its own key; `None` compiles (and caches) every entry point.
pub fn load_or_compile(
    kernel_name: &str,
    source: &str,
    entry: Option<&str>,
    device: Arch,
    config: &CacheConfig,
) -> Result<CompiledKernel> {
    if let Some(dir) = &config.dir {
        let cache = DiskCache::new(dir);
        let identity = if compile::nvrtc_loaded() {
            NvrtcIdentity::of_loaded().ok()
        } else {
            remembered_identity(&cache)
        };
        if let Some(identity) = identity {
            let key = CacheKey::new(kernel_name, source, entry, device, &identity);
            // A rejected file is compiled again below, and replaced.
            if let Lookup::Hit(image) = cache.load(&key) {
                let path = cache.path(&key);
                if let Some(dump) = &config.dump_dir {
                    dump_cache_hit(dump, kernel_name, source, entry, &key, &path);
                }
                return Ok(CompiledKernel {
                    image,
                    target: key.target(),
                    origin: Origin::DiskCache,
                    cache_file: Some(path),
                });
            }
        }
    }
    compile_fresh(kernel_name, source, entry, device, config)
}

/// Compiles `source` for `device` with NVRTC (never reading the disk cache) and stores the result in
/// the disk cache of `config`, replacing any entry: for a cached image that the driver refused.
pub(crate) fn compile_fresh(
    kernel_name: &str,
    source: &str,
    entry: Option<&str>,
    device: Arch,
    config: &CacheConfig,
) -> Result<CompiledKernel> {
    let identity = NvrtcIdentity::of_loaded()?;
    let target = identity.target(device);
    let image = compile::compile_with_dump(
        kernel_name,
        source,
        entry,
        target.arch,
        target.output,
        config.dump_dir.as_deref(),
    )?;
    let mut cache_file = None;
    if let Some(dir) = &config.dir {
        let cache = DiskCache::new(dir);
        let key = CacheKey::new(kernel_name, source, entry, device, &identity);
        let stored = cache.store(&key, &image).and_then(|path| {
            cache_file = Some(path);
            if remembered_identity(&cache).as_ref() != Some(&identity) {
                remember_identity(&cache, &identity)?;
            }
            Ok(())
        });
        match stored {
            Ok(()) => {
                cache.remove_stale_temp_files(STALE_TEMP_AGE);
            }
            Err(e) => warn_once(
                &STORE_WARNED,
                format_args!(
                    "{e} (kernels are compiled without the disk cache; {CACHE_ENV}=off silences this)"
                ),
            ),
        }
    }
    Ok(CompiledKernel {
        image,
        target,
        origin: Origin::Compiled,
        cache_file,
    })
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(2 * bytes.len());
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

#[cfg(test)]
pub(crate) mod tests;

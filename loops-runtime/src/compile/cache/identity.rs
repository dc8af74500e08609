//! Which NVRTC this process compiles with ([`NvrtcIdentity`]): part of every cache key, and
//! remembered in the cache per loader fingerprint so that a cache hit need not load NVRTC.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::UNIX_EPOCH;

use sha2::{Digest, Sha256};

use super::*;

/// A libnvrtc file, as it was when its identity was taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryFile {
    /// The path the dynamic loader found it at.
    pub path: PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since 1970 (0 where the platform cannot tell).
    pub modified_ns: u128,
    /// (device, inode) on Unix.
    pub file_id: Option<(u64, u64)>,
}

impl LibraryFile {
    /// The file at `path` as it is now (following links); `None` if it cannot be read.
    pub(crate) fn stat(path: &Path) -> Option<LibraryFile> {
        let meta = fs::metadata(path).ok()?;
        #[cfg(unix)]
        let file_id = {
            use std::os::unix::fs::MetadataExt;
            Some((meta.dev(), meta.ino()))
        };
        #[cfg(not(unix))]
        let file_id = None;
        Some(LibraryFile {
            path: path.to_path_buf(),
            size: meta.len(),
            modified_ns: modified_ns(&meta),
            file_id,
        })
    }
}

pub(super) fn modified_ns(meta: &fs::Metadata) -> u128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

/// Which NVRTC compiles: what goes into the key, and what decides the target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NvrtcIdentity {
    /// `nvrtcVersion()`, e.g. (13, 0).
    pub version: (u32, u32),
    /// The real architectures it compiles for, as numbers (90 for sm_90).
    pub supported_archs: Vec<u32>,
    /// The library file, where the loader can tell (Unix).
    pub library: Option<LibraryFile>,
}

impl NvrtcIdentity {
    /// The NVRTC of this process, loading it if need be ([`crate::LoopsError::NvrtcMissing`] if it
    /// cannot be loaded).
    pub fn of_loaded() -> Result<NvrtcIdentity> {
        static LOADED: OnceLock<NvrtcIdentity> = OnceLock::new();
        let info = compile::nvrtc_available()?;
        Ok(LOADED
            .get_or_init(|| NvrtcIdentity {
                version: info.version,
                supported_archs: info.supported_archs.clone(),
                library: info.library.as_deref().and_then(LibraryFile::stat),
            })
            .clone())
    }

    /// What a kernel for `device` is compiled to.
    pub fn target(&self, device: Arch) -> Target {
        compile::target_for(&self.supported_archs, device)
    }

    pub(super) fn key_text(&self) -> String {
        let (major, minor) = self.version;
        match &self.library {
            Some(lib) => format!(
                "{major}.{minor}, {:?} ({} bytes, modified {}.{:09})",
                lib.path,
                lib.size,
                lib.modified_ns / 1_000_000_000,
                lib.modified_ns % 1_000_000_000
            ),
            None => format!("{major}.{minor}, library file unknown"),
        }
    }

    /// The memo's payload; `None` when there is nothing to check it against later.
    pub(super) fn to_memo(&self) -> Option<String> {
        let lib = self.library.as_ref()?;
        let path = lib.path.to_str().filter(|p| !p.contains('\n'))?;
        let archs: Vec<String> = self.supported_archs.iter().map(u32::to_string).collect();
        let id = lib
            .file_id
            .map_or("-".to_string(), |(dev, ino)| format!("{dev} {ino}"));
        Some(format!(
            "version {} {}\narchs {}\nsize {}\nmodified {}\nid {id}\npath {path}\n",
            self.version.0,
            self.version.1,
            archs.join(" "),
            lib.size,
            lib.modified_ns,
        ))
    }

    /// Parses a memo and checks that its library file is still the same file.
    pub(super) fn from_memo(text: &str) -> Option<NvrtcIdentity> {
        let mut fields = std::collections::HashMap::new();
        for line in text.lines() {
            let (name, value) = line.split_once(' ')?;
            fields.insert(name, value);
        }
        let numbers = |name: &str| -> Option<Vec<u128>> {
            fields
                .get(name)?
                .split_whitespace()
                .map(|n| n.parse().ok())
                .collect()
        };
        let version = match numbers("version")?.as_slice() {
            &[major, minor] => (u32::try_from(major).ok()?, u32::try_from(minor).ok()?),
            _ => return None,
        };
        let supported_archs = numbers("archs")?
            .into_iter()
            .map(|a| u32::try_from(a).ok())
            .collect::<Option<Vec<u32>>>()?;
        let file_id = match fields.get("id").copied()? {
            "-" => None,
            _ => match numbers("id")?.as_slice() {
                &[dev, ino] => Some((u64::try_from(dev).ok()?, u64::try_from(ino).ok()?)),
                _ => return None,
            },
        };
        let recorded = LibraryFile {
            path: PathBuf::from(fields.get("path")?),
            size: fields.get("size")?.parse().ok()?,
            modified_ns: fields.get("modified")?.parse().ok()?,
            file_id,
        };
        let now = LibraryFile::stat(&recorded.path)?;
        (now == recorded).then_some(NvrtcIdentity {
            version,
            supported_archs,
            library: Some(recorded),
        })
    }
}

/// What decides which libnvrtc the dynamic loader picks in this process (see the module docs).
pub(super) fn loader_fingerprint() -> &'static str {
    static FINGERPRINT: OnceLock<String> = OnceLock::new();
    FINGERPRINT.get_or_init(|| {
        let stamp = |p: &Path| match fs::metadata(p) {
            Ok(m) => format!("{} bytes, modified {}", m.len(), modified_ns(&m)),
            Err(_) => "absent".to_string(),
        };
        let mut s = String::from("loops-for-rust: which libnvrtc this process loads\n");
        if let Ok(exe) = std::env::current_exe() {
            let _ = writeln!(s, "exe {:?} ({})", exe, stamp(&exe));
        }
        let lib = std::env::var_os(compile::NVRTC_LIB_ENV);
        let _ = writeln!(s, "{} {:?}", compile::NVRTC_LIB_ENV, lib);
        if let Some(lib) = lib {
            let _ = writeln!(s, "  ({})", stamp(Path::new(&lib)));
        }
        let path_vars: &[&str] = if cfg!(windows) {
            &["PATH"]
        } else {
            &[
                "LD_LIBRARY_PATH",
                "DYLD_LIBRARY_PATH",
                "DYLD_FALLBACK_LIBRARY_PATH",
            ]
        };
        for var in path_vars {
            let value = std::env::var_os(var);
            let _ = writeln!(s, "{var} {value:?}");
            for dir in value.iter().flat_map(std::env::split_paths) {
                let _ = writeln!(s, "  {:?} ({})", dir, stamp(&dir));
            }
        }
        if cfg!(target_os = "linux") {
            for p in [
                "/etc/ld.so.cache",
                "/lib",
                "/lib64",
                "/usr/lib",
                "/usr/lib64",
                "/lib/x86_64-linux-gnu",
                "/usr/lib/x86_64-linux-gnu",
                "/lib/aarch64-linux-gnu",
                "/usr/lib/aarch64-linux-gnu",
            ] {
                let _ = writeln!(s, "{p} ({})", stamp(Path::new(p)));
            }
        }
        let _ = writeln!(
            s,
            "names {}",
            cudarc::get_lib_name_candidates("nvrtc").join(" ")
        );
        s
    })
}

pub(super) fn memo_name() -> String {
    format!(
        "nvrtc-{}.id",
        hex(&Sha256::digest(loader_fingerprint().as_bytes())[..8])
    )
}

/// The NVRTC identity remembered in `cache` for this process's loader fingerprint, if its library
/// file is unchanged.
pub(super) fn remembered_identity(cache: &DiskCache) -> Option<NvrtcIdentity> {
    let bytes = fs::read(cache.dir.join(memo_name())).ok()?;
    let payload = decode(&bytes, KIND_IDENTITY, loader_fingerprint()).ok()?;
    NvrtcIdentity::from_memo(std::str::from_utf8(payload).ok()?)
}

pub(super) fn remember_identity(cache: &DiskCache, id: &NvrtcIdentity) -> Result<(), CacheError> {
    let Some(memo) = id.to_memo() else {
        return Ok(());
    };
    let bytes = encode(KIND_IDENTITY, loader_fingerprint(), memo.as_bytes());
    write_atomic(&cache.dir, &memo_name(), &bytes).map(|_| ())
}

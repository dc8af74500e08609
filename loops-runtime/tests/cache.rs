//! The on-disk kernel cache and `LOOPS_DUMP_DIR`. No GPU needed. The tests that compile need libnvrtc
//! (as tests/compile.rs: one `skipped` line without it, unless LOOPS_REQUIRE_NVRTC=1). Every test
//! works in its own temporary folder and passes its settings explicitly ([`CacheConfig`]), never
//! through the environment, so they neither race each other nor touch the user's cache.
//!
//! Two tests re-run this test binary as a child process (a test of their own, which does nothing
//! unless `CHILD_ENV` is set): a fresh process reading a warm cache, and two processes filling the
//! same entry at once.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use loops_runtime::compile::cache::{
    self, CacheConfig, CacheKey, DiskCache, Lookup, NvrtcIdentity, Origin, CACHE_DIR_ENV,
    CACHE_ENV, DUMP_DIR_ENV, STALE_TEMP_AGE,
};
use loops_runtime::compile::{self, Arch, KernelImage, Output};
use loops_runtime::LoopsError;

// The skip helper the root crate's compile tests use too; it names the facade's paths
// (`loops::compile`, `loops::Result`), which are this crate's under that name.
extern crate loops_runtime as loops;

#[path = "../../tests/common/nvrtc.rs"]
mod nvrtc;

const SAXPY: &str = r#"extern "C" __global__ void saxpy(float a, const float* __restrict__ x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

/// A syntax error (missing `;`) on line 3.
const BROKEN: &str =
    "extern \"C\" __global__ void broken(float* y) {\n    float v = 1.0f\n    y[0] = v;\n}\n";

/// Set in a child process to the role it plays; `DIR_ENV` names its cache folder.
const CHILD_ENV: &str = "LOOPS_CACHE_TEST_CHILD";
const DIR_ENV: &str = "LOOPS_CACHE_TEST_DIR";

fn nvrtc() -> bool {
    nvrtc::nvrtc_or_skip().is_some()
}

fn temp() -> tempfile::TempDir {
    match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(e) => panic!("cannot make a temporary folder: {e}"),
    }
}

/// An NVRTC that is not loaded: for the tests of the file format, which need no compiler.
fn fake_nvrtc() -> NvrtcIdentity {
    NvrtcIdentity {
        version: (13, 0),
        supported_archs: vec![75, 80, 90],
        library: None,
    }
}

fn real_nvrtc() -> NvrtcIdentity {
    NvrtcIdentity::of_loaded().unwrap_or_else(|e| panic!("NVRTC is loaded, yet: {e}"))
}

fn cubin_key(source: &str) -> CacheKey {
    CacheKey::new("k", source, None, Arch::SM_90, &fake_nvrtc())
}

fn fake_cubin(n: usize) -> KernelImage {
    KernelImage::Cubin((0..n).map(|i| (i * 7 + 3) as u8).collect())
}

/// The names of the files in `dir` (none if it does not exist).
fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn store(cache: &DiskCache, key: &CacheKey, image: &KernelImage) -> PathBuf {
    cache
        .store(key, image)
        .unwrap_or_else(|e| panic!("store failed: {e}"))
}

fn load_or_compile(source: &str, config: &CacheConfig) -> cache::CompiledKernel {
    cache::load_or_compile("saxpy", source, None, Arch::SM_90, config)
        .unwrap_or_else(|e| panic!("load_or_compile failed: {e}"))
}

#[test]
fn round_trip() {
    let dir = temp();
    let cache = DiskCache::new(dir.path());
    let key = cubin_key("source");
    assert_eq!(cache.load(&key), Lookup::Missing);
    let image = fake_cubin(5000);
    let path = store(&cache, &key, &image);
    assert_eq!(path, cache.path(&key));
    assert!(key.file_name().starts_with("k-") && key.file_name().ends_with(".cubin"));
    assert_eq!(cache.load(&key), Lookup::Hit(image));
    // Only the entry: no temporary file left behind.
    assert_eq!(files(dir.path()), [key.file_name()]);

    // PTX: a device NVRTC has no cubin target for gets PTX for the newest architecture below it.
    let key = CacheKey::new("k", "source", None, Arch::new(12, 0), &fake_nvrtc());
    assert_eq!(key.target().output, Output::Ptx);
    assert_eq!(key.target().arch, Arch::SM_90);
    assert!(key.file_name().ends_with(".ptx"));
    let ptx = KernelImage::Ptx(".version 9.0\n.target sm_90\n".into());
    store(&cache, &key, &ptx);
    assert_eq!(cache.load(&key), Lookup::Hit(ptx));
}

#[test]
fn key_covers_everything_that_changes_the_binary() {
    let base = fake_nvrtc();
    let key = |name: &str, source: &str, device: Arch, nvrtc: &NvrtcIdentity| {
        CacheKey::new(name, source, None, device, nvrtc)
    };
    let k = key("k", "s", Arch::SM_90, &base);
    assert_eq!(k, key("k", "s", Arch::SM_90, &base), "deterministic");
    assert!(
        k.text().contains("--gpu-architecture=sm_90"),
        "{}",
        k.text()
    );
    let newer = NvrtcIdentity {
        version: (13, 1),
        ..base.clone()
    };
    let other_file = NvrtcIdentity {
        library: Some(cache::LibraryFile {
            path: "/x/libnvrtc.so.13".into(),
            size: 1,
            modified_ns: 2,
            file_id: None,
        }),
        ..base.clone()
    };
    let no_sm90 = NvrtcIdentity {
        supported_archs: vec![75, 80],
        ..base.clone()
    };
    let others = [
        key("k2", "s", Arch::SM_90, &base),
        key("k", "t", Arch::SM_90, &base),
        key("k", "s", Arch::new(8, 0), &base),
        key("k", "s", Arch::SM_90, &newer),
        key("k", "s", Arch::SM_90, &other_file),
        key("k", "s", Arch::SM_90, &no_sm90), // PTX for compute_80: other options, other output
    ];
    for (i, other) in others.iter().enumerate() {
        assert_ne!(other.text(), k.text(), "{i}");
        assert_ne!(other.file_name(), k.file_name(), "{i}");
    }
    assert_eq!(others[5].target().output, Output::Ptx);
}

#[test]
fn corrupt_foreign_or_truncated_files_are_rejected() {
    let dir = temp();
    let cache = DiskCache::new(dir.path());
    let key = cubin_key("source");
    let other = cubin_key("another source");
    let image = fake_cubin(3000);
    let path = store(&cache, &key, &image);
    let good = fs::read(&path).unwrap_or_default();
    let other_path = store(&cache, &other, &fake_cubin(3000));

    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("garbage", b"this is not a cache entry at all".repeat(10)),
        ("truncated to the header", good[..36].to_vec()),
        ("truncated by one byte", good[..good.len() - 1].to_vec()),
        ("one byte appended", [&good[..], &[0]].concat()),
    ];
    for (what, at) in [
        ("wrong magic", 0),
        ("flipped version", 8),
        ("flipped kind", 12),
        ("flipped key length", 16),
        ("flipped payload length", 20),
        ("flipped payload checksum", 28),
        ("flipped header checksum", 32),
        ("flipped key byte", 40),
        ("flipped payload byte", good.len() - 100),
        ("flipped last byte", good.len() - 1),
    ] {
        let mut bytes = good.clone();
        bytes[at] ^= 0x5a;
        cases.push((what, bytes));
    }
    for (what, bytes) in &cases {
        fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            matches!(cache.load(&key), Lookup::Rejected(_)),
            "{what}: {:?}",
            cache.load(&key)
        );
    }
    // Another key's entry renamed into place.
    fs::rename(&other_path, &path).unwrap_or_else(|e| panic!("{e}"));
    match cache.load(&key) {
        Lookup::Rejected(why) => assert!(why.contains("another key"), "{why}"),
        other => panic!("a foreign entry was not rejected: {other:?}"),
    }
    // A store replaces whatever is there.
    store(&cache, &key, &image);
    assert_eq!(cache.load(&key), Lookup::Hit(image));
}

#[test]
fn ptx_with_nul_is_rejected() {
    // The driver loads PTX as a C string (cudarc would panic on a NUL): such an entry is not used.
    let dir = temp();
    let cache = DiskCache::new(dir.path());
    let key = CacheKey::new("k", "s", None, Arch::new(12, 0), &fake_nvrtc());
    store(&cache, &key, &KernelImage::Ptx("a\0b".into()));
    assert!(matches!(cache.load(&key), Lookup::Rejected(_)));
    // An image of the wrong kind for the key is refused.
    assert!(cache.store(&key, &fake_cubin(10)).is_err());
}

#[test]
fn corrupt_entries_are_rebuilt() {
    if !nvrtc() {
        return;
    }
    let dir = temp();
    let config = CacheConfig::in_dir(dir.path());
    let first = load_or_compile(SAXPY, &config);
    assert_eq!(first.origin, Origin::Compiled);
    assert_eq!(first.target.output, Output::Cubin);
    assert!(matches!(&first.image, KernelImage::Cubin(b) if b.starts_with(b"\x7fELF")));
    let path = first
        .cache_file
        .clone()
        .unwrap_or_else(|| panic!("not stored"));
    let good = fs::read(&path).unwrap_or_default();
    let hit = load_or_compile(SAXPY, &config);
    assert_eq!(hit.origin, Origin::DiskCache);
    assert_eq!(hit.image, first.image);

    // Another kernel's entry, to rename into place.
    let other = cache::load_or_compile(
        "saxpy",
        &SAXPY.replace("a * x", "x"),
        None,
        Arch::SM_90,
        &config,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let other_bytes = fs::read(other.cache_file.unwrap_or_default()).unwrap_or_default();

    let mut flipped = good.clone();
    let middle = good.len() / 2;
    flipped[middle] ^= 1;
    let mut wrong_magic = good.clone();
    wrong_magic[..8].copy_from_slice(b"NOTLOOPS");
    for (what, bytes) in [
        ("a flipped byte", flipped),
        ("truncated", good[..good.len() / 3].to_vec()),
        ("wrong magic", wrong_magic),
        ("another key's file", other_bytes),
        ("empty", Vec::new()),
    ] {
        fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{e}"));
        let rebuilt = load_or_compile(SAXPY, &config);
        assert_eq!(rebuilt.origin, Origin::Compiled, "{what}: not rebuilt");
        assert_eq!(rebuilt.image, first.image, "{what}");
        assert_eq!(
            fs::read(&path).unwrap_or_default(),
            good,
            "{what}: not replaced"
        );
        assert_eq!(load_or_compile(SAXPY, &config).origin, Origin::DiskCache);
    }
}

#[test]
fn temporary_files_of_a_crashed_writer_are_not_loaded() {
    let dir = temp();
    let cache = DiskCache::new(dir.path());
    let key = cubin_key("source");
    let image = fake_cubin(4000);
    // What a writer that died before its rename leaves: a complete and a half-written temporary file.
    let scratch = temp();
    let complete = store(&DiskCache::new(scratch.path()), &key, &image);
    let bytes = fs::read(&complete).unwrap_or_default();
    let crashed = [
        dir.path().join(format!(".{}.4242-0.tmp", key.file_name())),
        dir.path().join(format!(".{}.4242-1.tmp", key.file_name())),
    ];
    fs::write(&crashed[0], &bytes).unwrap_or_else(|e| panic!("{e}"));
    fs::write(&crashed[1], &bytes[..bytes.len() / 2]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(cache.load(&key), Lookup::Missing);

    store(&cache, &key, &image);
    assert_eq!(cache.load(&key), Lookup::Hit(image));

    // An old one is removed, a recent one (perhaps a live writer's) kept.
    let old = SystemTime::now() - STALE_TEMP_AGE - Duration::from_secs(60);
    fs::File::options()
        .write(true)
        .open(&crashed[0])
        .and_then(|f| f.set_modified(old))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(cache.remove_stale_temp_files(STALE_TEMP_AGE), 1);
    assert!(!crashed[0].exists() && crashed[1].exists());
    assert!(cache.path(&key).exists());
}

#[test]
fn threads_writing_one_key_at_once() {
    let dir = temp();
    let cache = DiskCache::new(dir.path());
    let key = cubin_key("source");
    let image = fake_cubin(200_000);
    let done = Arc::new(AtomicBool::new(false));
    std::thread::scope(|s| {
        let readers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut hits = 0;
                    while !done.load(Ordering::Relaxed) {
                        match cache.load(&key) {
                            Lookup::Hit(got) => {
                                assert_eq!(got, image);
                                hits += 1;
                            }
                            Lookup::Missing => {}
                            Lookup::Rejected(why) => panic!("a reader saw a partial entry: {why}"),
                        }
                    }
                    hits
                })
            })
            .collect();
        let writers: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    for _ in 0..20 {
                        store(&cache, &key, &image);
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap_or_else(|_| panic!("a writer panicked"));
        }
        done.store(true, Ordering::Relaxed);
        for r in readers {
            r.join().unwrap_or_else(|_| panic!("a reader panicked"));
        }
    });
    assert_eq!(cache.load(&key), Lookup::Hit(image));
    assert_eq!(files(dir.path()), [key.file_name()], "temporary files left");
}

/// Runs this test binary's test `name` as a child process with `CHILD_ENV=role`, `DIR_ENV=dir`.
fn child(name: &str, role: &str, dir: &Path) -> Command {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("{e}"));
    let mut cmd = Command::new(exe);
    cmd.args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, role)
        .env(DIR_ENV, dir);
    cmd
}

fn check_child(output: std::process::Output, what: &str) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    assert!(stdout.contains("1 passed"), "{what} ran no test:\n{stdout}");
    stdout
}

/// The child side of the two tests below; passes at once in a normal run.
#[test]
fn child_process() {
    let (Some(role), Some(dir)) = (std::env::var_os(CHILD_ENV), std::env::var_os(DIR_ENV)) else {
        return;
    };
    let config = CacheConfig::in_dir(PathBuf::from(dir));
    match role.to_str() {
        Some("warm") => {
            let started = Instant::now();
            let kernel = load_or_compile(SAXPY, &config);
            let elapsed = started.elapsed();
            assert_eq!(
                kernel.origin,
                Origin::DiskCache,
                "not served from the cache"
            );
            assert!(!compile::nvrtc_loaded(), "a cache hit loaded NVRTC");
            println!("CHILD warm hit in {:.0} us", elapsed.as_secs_f64() * 1e6);
        }
        Some("writer") => {
            // Compile (or read) the same kernel as the other writer, then keep replacing and reading
            // its entry while the other does the same.
            let key = CacheKey::new("saxpy", SAXPY, None, Arch::SM_90, &real_nvrtc());
            let kernel = load_or_compile(SAXPY, &config);
            let cache = DiskCache::new(config.dir.clone().unwrap_or_default());
            for _ in 0..30 {
                store(&cache, &key, &kernel.image);
                match cache.load(&key) {
                    Lookup::Hit(image) => assert_eq!(image, kernel.image),
                    other => panic!("a writer read {other:?}"),
                }
            }
            println!("CHILD writer done");
        }
        other => panic!("unknown child role {other:?}"),
    }
}

#[test]
fn a_fresh_process_reads_a_warm_cache_without_nvrtc() {
    if !nvrtc() {
        return;
    }
    let dir = temp();
    let config = CacheConfig::in_dir(dir.path());
    assert_eq!(load_or_compile(SAXPY, &config).origin, Origin::Compiled);
    // The entry and the remembered NVRTC identity.
    let names = files(dir.path());
    assert!(names.iter().any(|n| n.ends_with(".cubin")), "{names:?}");
    assert!(
        names
            .iter()
            .any(|n| n.starts_with("nvrtc-") && n.ends_with(".id")),
        "{names:?}"
    );
    let output = child("child_process", "warm", dir.path())
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stdout = check_child(output, "the warm child");
    if let Some(at) = stdout.find("CHILD") {
        eprintln!("{}", stdout[at..].lines().next().unwrap_or_default());
    }
}

#[test]
fn two_processes_compiling_one_kernel_at_once() {
    if !nvrtc() {
        return;
    }
    let dir = temp();
    let children: Vec<_> = (0..2)
        .map(|_| {
            child("child_process", "writer", dir.path())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap_or_else(|e| panic!("{e}"))
        })
        .collect();
    for c in children {
        let output = c.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
        check_child(output, "a writer");
    }
    let config = CacheConfig::in_dir(dir.path());
    let key = CacheKey::new("saxpy", SAXPY, None, Arch::SM_90, &real_nvrtc());
    assert!(matches!(
        DiskCache::new(dir.path()).load(&key),
        Lookup::Hit(_)
    ));
    assert_eq!(load_or_compile(SAXPY, &config).origin, Origin::DiskCache);
    let names = files(dir.path());
    assert!(!names.iter().any(|n| n.ends_with(".tmp")), "{names:?}");
}

#[test]
fn cache_off_writes_nothing() {
    if !nvrtc() {
        return;
    }
    let dir = temp();
    let vars = |name: &str| match name {
        CACHE_DIR_ENV => Some(dir.path().join("cache").into_os_string()),
        CACHE_ENV => Some("off".into()),
        _ => None,
    };
    let config = CacheConfig::from_vars(vars);
    assert_eq!(config, CacheConfig::disabled());
    for _ in 0..2 {
        let kernel = load_or_compile(SAXPY, &config);
        assert_eq!(kernel.origin, Origin::Compiled);
        assert_eq!(kernel.cache_file, None);
    }
    assert!(files(dir.path()).is_empty(), "{:?}", files(dir.path()));
}

#[test]
fn an_unwritable_cache_is_not_an_error() {
    if !nvrtc() {
        return;
    }
    // A cache folder under a regular file cannot be made, even by root.
    let dir = temp();
    let file = dir.path().join("file");
    fs::write(&file, b"x").unwrap_or_else(|e| panic!("{e}"));
    let config = CacheConfig::in_dir(file.join("cache"));
    let kernel = load_or_compile(SAXPY, &config);
    assert_eq!(kernel.origin, Origin::Compiled);
    assert_eq!(kernel.cache_file, None);
}

#[test]
fn dump_dir_gets_source_and_log() {
    if !nvrtc() {
        return;
    }
    let dir = temp();
    let image = compile::compile_with_dump(
        "saxpy",
        SAXPY,
        None,
        Arch::SM_90,
        Output::Cubin,
        Some(dir.path()),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let stem = cache::dump_file_stem("saxpy", SAXPY, None);
    let cu = fs::read_to_string(dir.path().join(format!("{stem}.cu"))).unwrap_or_default();
    assert_eq!(cu, SAXPY);
    let log = fs::read_to_string(dir.path().join(format!("{stem}.log"))).unwrap_or_default();
    assert!(
        log.contains("options: --std=c++17 -lineinfo --gpu-architecture=sm_90"),
        "{log}"
    );
    assert!(
        log.contains(&format!(
            "result: compiled ({} bytes of cubin)",
            image.bytes().len()
        )),
        "{log}"
    );
    assert_eq!(
        files(dir.path()),
        [format!("{stem}.cu"), format!("{stem}.log")]
    );
}

/// A generated source includes the library's prelude by name: NVRTC gets it with every program,
/// the dump folder gets it beside the source, and `full_source` (the prelude written in place)
/// compiles as well.
#[test]
fn a_source_including_the_prelude_compiles_and_is_dumped_with_it() {
    if !nvrtc() {
        return;
    }
    let source = "// k\n#include \"loops_prelude.cuh\"\n\n\
                  extern \"C\" __global__ void k(float* y) { y[0] = loops_sqrt(y[0]); }\n";
    let dir = temp();
    let image = compile::compile_with_dump(
        "k",
        source,
        None,
        Arch::SM_90,
        Output::Ptx,
        Some(dir.path()),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(image.ptx().is_some_and(|p| p.contains(".entry k(")));
    let stem = cache::dump_file_stem("k", source, None);
    assert_eq!(
        files(dir.path()),
        [
            format!("{stem}.cu"),
            format!("{stem}.log"),
            "loops_prelude.cuh".to_string()
        ]
    );
    let header = fs::read_to_string(dir.path().join("loops_prelude.cuh")).unwrap_or_default();
    assert_eq!(header, compile::PRELUDE);
    let full = compile::full_source("k", source);
    assert!(full.contains(compile::PRELUDE) && !full.contains("#include"));
    let ptx = compile::compile_ptx("k", &full, Arch::SM_90).unwrap_or_else(|e| panic!("{e}"));
    assert!(ptx.contains(".entry k("));
}

#[test]
fn dump_dir_gets_a_failing_compile() {
    if !nvrtc() {
        return;
    }
    let dir = temp();
    let err = compile::compile_with_dump(
        "broken",
        BROKEN,
        None,
        Arch::SM_90,
        Output::Ptx,
        Some(dir.path()),
    )
    .expect_err("the source has a syntax error");
    let LoopsError::Compile { log: error_log, .. } = &err else {
        panic!("not a compile error: {err}");
    };
    let stem = cache::dump_file_stem("broken", BROKEN, None);
    let cu = fs::read_to_string(dir.path().join(format!("{stem}.cu"))).unwrap_or_default();
    assert_eq!(cu, BROKEN);
    let log = fs::read_to_string(dir.path().join(format!("{stem}.log"))).unwrap_or_default();
    assert!(log.contains("result: FAILED"), "{log}");
    assert!(log.contains("--gpu-architecture=compute_90"), "{log}");
    assert!(
        log.contains("broken.cu(3)"),
        "the NVRTC error is not in the log:\n{log}"
    );
    assert!(log.ends_with(error_log.as_str()), "{log}");
}

#[test]
fn dump_dir_with_the_disk_cache() {
    if !nvrtc() {
        return;
    }
    let (cache_dir, dump_dir) = (temp(), temp());
    let config = CacheConfig::in_dir(cache_dir.path()).with_dump_dir(dump_dir.path());
    assert_eq!(load_or_compile(SAXPY, &config).origin, Origin::Compiled);
    let log_path = dump_dir.path().join(format!(
        "{}.log",
        cache::dump_file_stem("saxpy", SAXPY, None)
    ));
    let log = fs::read_to_string(&log_path).unwrap_or_default();
    assert!(log.contains("result: compiled"), "{log}");
    // A hit compiles nothing; its log says where the kernel came from.
    assert_eq!(load_or_compile(SAXPY, &config).origin, Origin::DiskCache);
    let log = fs::read_to_string(&log_path).unwrap_or_default();
    assert!(log.contains("loaded from the kernel cache"), "{log}");
    assert!(dump_dir
        .path()
        .join(format!(
            "{}.cu",
            cache::dump_file_stem("saxpy", SAXPY, None)
        ))
        .exists());
    // The variable's name, for the docs' sake.
    assert_eq!(DUMP_DIR_ENV, "LOOPS_DUMP_DIR");
}

/// Two entry points of one guarded source, each compiled alone: each is its own entry in the
/// cache (`NAME.ENTRY-DIGEST.cubin`) holding that entry point only, read back on the next call;
/// the whole source is a third entry, under the name it always had.
#[test]
fn entry_points_compiled_alone_are_cached_apart() {
    if !nvrtc() {
        return;
    }
    let guard =
        |entry: &str| format!("#if !defined(LOOPS_ONE_ENTRY) || defined(LOOPS_ENTRY_{entry})\n");
    let source = format!(
        "{}extern \"C\" __global__ void scale(float* y) {{ y[0] *= 2.0f; }}\n#endif\n\
         {}extern \"C\" __global__ void shift(float* y) {{ y[0] += 1.0f; }}\n#endif\n",
        guard("scale"),
        guard("shift")
    );
    let dir = temp();
    let config = CacheConfig::in_dir(dir.path());
    let compile = |entry: Option<&str>| {
        cache::load_or_compile("pair", &source, entry, Arch::SM_90, &config)
            .unwrap_or_else(|e| panic!("{entry:?}: {e}"))
    };
    let file_of = |k: &cache::CompiledKernel| {
        let path = k.cache_file.clone().unwrap_or_else(|| panic!("not stored"));
        path.file_name().unwrap().to_string_lossy().into_owned()
    };
    let scale = compile(Some("scale"));
    let shift = compile(Some("shift"));
    let whole = compile(None);
    for k in [&scale, &shift, &whole] {
        assert_eq!(k.origin, Origin::Compiled);
    }
    assert!(
        file_of(&scale).starts_with("pair.scale-"),
        "{}",
        file_of(&scale)
    );
    assert!(
        file_of(&shift).starts_with("pair.shift-"),
        "{}",
        file_of(&shift)
    );
    assert!(
        file_of(&whole).starts_with("pair-") && file_of(&whole).ends_with(".cubin"),
        "{}",
        file_of(&whole)
    );
    // A cubin names its entry points in its symbol table: each alone holds its own only.
    let holds = |k: &cache::CompiledKernel, name: &str| {
        k.image
            .bytes()
            .windows(name.len() + 1)
            .any(|w| w == format!("{name}\0").as_bytes())
    };
    assert!(holds(&scale, "scale") && !holds(&scale, "shift"));
    assert!(holds(&shift, "shift") && !holds(&shift, "scale"));
    assert!(holds(&whole, "scale") && holds(&whole, "shift"));
    assert_eq!(compile(Some("scale")).origin, Origin::DiskCache);
    assert_eq!(compile(Some("shift")).image, shift.image);
    assert_eq!(
        files(dir.path())
            .iter()
            .filter(|f| f.ends_with(".cubin"))
            .count(),
        3
    );
}

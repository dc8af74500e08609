use super::dump::file_safe;
use super::*;

/// An environment of these variables only (for `from_vars`); the tuning cache's tests use it too.
pub(crate) fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
    let pairs: Vec<(String, OsString)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), OsString::from(v)))
        .collect();
    move |name| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }
}

#[test]
fn config_from_vars() {
    let c = CacheConfig::from_vars(vars(&[(CACHE_DIR_ENV, "/x/cache")]));
    assert_eq!(c, CacheConfig::in_dir("/x/cache"));
    for off in ["off", "OFF", "0", "false", "no"] {
        let c = CacheConfig::from_vars(vars(&[(CACHE_DIR_ENV, "/x"), (CACHE_ENV, off)]));
        assert_eq!(c.dir, None, "{off}");
    }
    let c = CacheConfig::from_vars(vars(&[
        (CACHE_DIR_ENV, "/x"),
        (CACHE_ENV, "on"),
        (DUMP_DIR_ENV, "/d"),
    ]));
    assert_eq!(c, CacheConfig::in_dir("/x").with_dump_dir("/d"));
    // Unset or empty: the platform's folder (when there is one), no dumps.
    let c = CacheConfig::from_vars(vars(&[(CACHE_DIR_ENV, ""), (DUMP_DIR_ENV, "")]));
    assert_eq!(c.dir, default_dir());
    assert_eq!(c.dump_dir, None);
    if let Some(dir) = c.dir {
        assert!(dir.ends_with(APP_DIR_NAME), "{dir:?}");
    }
}

#[test]
fn encode_decode() {
    let bytes = encode(KIND_CUBIN, "key", b"payload");
    assert_eq!(bytes.len(), HEADER_LEN + 3 + 7);
    assert_eq!(decode(&bytes, KIND_CUBIN, "key"), Ok(&b"payload"[..]));
    assert!(decode(&bytes, KIND_PTX, "key").is_err());
    assert!(decode(&bytes, KIND_CUBIN, "kez").is_err());
    // Every truncation and every single flipped bit is rejected.
    for len in 0..bytes.len() {
        assert!(decode(&bytes[..len], KIND_CUBIN, "key").is_err(), "{len}");
    }
    for i in 0..bytes.len() {
        for bit in 0..8 {
            let mut b = bytes.clone();
            b[i] ^= 1 << bit;
            assert!(decode(&b, KIND_CUBIN, "key").is_err(), "byte {i} bit {bit}");
        }
    }
    // Lengths that overflow are rejected, not computed with.
    let mut b = bytes.clone();
    b[20..28].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(decode(&b, KIND_CUBIN, "key").is_err());
}

#[test]
fn identity_memo_round_trip() {
    let exe = std::env::current_exe().expect("the test binary's path");
    let id = NvrtcIdentity {
        version: (13, 0),
        supported_archs: vec![75, 90],
        library: LibraryFile::stat(&exe),
    };
    let memo = id.to_memo().expect("a library file");
    assert_eq!(NvrtcIdentity::from_memo(&memo), Some(id.clone()));
    // A library file that changed (here: another size) invalidates the memo.
    let size = id.library.as_ref().map_or(0, |l| l.size);
    let changed = memo.replace(&format!("size {size}"), "size 1");
    assert_eq!(NvrtcIdentity::from_memo(&changed), None);
    assert_eq!(NvrtcIdentity::from_memo("version 13\n"), None);
    assert_eq!(NvrtcIdentity::from_memo(""), None);
}

#[test]
fn names() {
    assert_eq!(file_safe("spmv"), "spmv");
    assert_eq!(file_safe("a/b c\n"), "a_b_c_");
    assert_eq!(file_safe(""), "kernel");
    assert_eq!(file_safe(&"x".repeat(100)).len(), 64);
    assert_eq!(hex(&[0, 0xab, 0x10]), "00ab10");
    assert_eq!(dump_file_stem("spmv", "", None), "spmv-cbf29ce484222325");
}

fn fake_identity() -> NvrtcIdentity {
    NvrtcIdentity {
        version: (13, 0),
        supported_archs: vec![75, 90],
        library: None,
    }
}

#[test]
fn whole_source_key_is_unchanged() {
    let key = CacheKey::new("spmv", "src", None, Arch::SM_90, &fake_identity());
    // The text of a whole-source key, as it was before entry points were compiled alone: entries
    // already in users' caches stay valid.
    let expected = format!(
        "loops-for-rust kernel\nkernel: \"spmv\"\nsource: 3 bytes, sha256 {}\n\
         device: sm_90\ntarget: sm_90 cubin\nnvrtc: 13.0, library file unknown\n\
         options: [\"--std=c++17\", \"-lineinfo\", \"--gpu-architecture=sm_90\"]\n",
        hex(&Sha256::digest(b"src"))
    );
    assert_eq!(key.text(), expected);
    let name = key.file_name();
    let digest = name
        .strip_prefix("spmv-")
        .and_then(|n| n.strip_suffix(".cubin"))
        .unwrap_or_else(|| panic!("{name}"));
    assert_eq!(digest, &hex(&Sha256::digest(key.text().as_bytes()))[..32]);
}

#[test]
fn an_entry_compiled_alone_has_its_own_key() {
    let id = fake_identity();
    let whole = CacheKey::new("spmv", "src", None, Arch::SM_90, &id);
    let entry = |e: &str| CacheKey::new("spmv", "src", Some(e), Arch::SM_90, &id);
    let f32 = entry("spmv_group4__f32");
    let f64 = entry("spmv_group4__f64");
    assert_eq!(f32, entry("spmv_group4__f32"), "deterministic");
    assert_ne!(f32, f64);
    assert_ne!(f32.file_name(), f64.file_name());
    assert_ne!(f32.file_name(), whole.file_name());
    // The entry is in the key text (its own line, and the options that keep it alone) and, readable,
    // in the file name.
    assert!(
        f32.text().contains("entry: \"spmv_group4__f32\"\n"),
        "{}",
        f32.text()
    );
    assert!(
        f32.text()
            .contains("\"-DLOOPS_ONE_ENTRY\", \"-DLOOPS_ENTRY_spmv_group4__f32\"]"),
        "{}",
        f32.text()
    );
    assert!(!whole.text().contains("entry"), "{}", whole.text());
    assert!(
        f32.file_name().starts_with("spmv.spmv_group4__f32-")
            && f32.file_name().ends_with(".cubin"),
        "{}",
        f32.file_name()
    );
    assert_eq!(
        dump_file_stem("spmv", "", Some("spmv_group4__f32")),
        "spmv.spmv_group4__f32-cbf29ce484222325"
    );
}

/// A generated source includes the library's prelude instead of holding it: its key names each
/// header it includes by length and SHA-256, so a new prelude is a new key for an unchanged source.
#[test]
fn a_key_covers_the_headers_the_source_includes() {
    let id = fake_identity();
    let plain = "// k\n#include \"loops_prelude.cuh\"\n\nextern \"C\" __global__ void k() {}\n";
    let checked = "// k\n#include \"loops_prelude.cuh\"\n#include \"loops_checked.cuh\"\n\n";
    let prelude_line = format!(
        "loops_prelude.cuh {} bytes sha256 {}",
        compile::PRELUDE.len(),
        hex(&Sha256::digest(compile::PRELUDE.as_bytes()))
    );
    let checked_line = format!(
        "loops_checked.cuh {} bytes sha256 {}",
        compile::CHECKED_PRELUDE.len(),
        hex(&Sha256::digest(compile::CHECKED_PRELUDE.as_bytes()))
    );
    let key = CacheKey::new("k", plain, None, Arch::SM_90, &id);
    assert!(
        key.text().contains(&format!("headers: {prelude_line}\n")),
        "{}",
        key.text()
    );
    assert!(!key.text().contains("loops_checked.cuh"));
    let key = CacheKey::new("k", checked, None, Arch::SM_90, &id);
    assert!(
        key.text()
            .contains(&format!("headers: {prelude_line}, {checked_line}\n")),
        "{}",
        key.text()
    );
    // A hand-written source includes none: no line (its key is as it was).
    let key = CacheKey::new(
        "k",
        "extern \"C\" __global__ void k() {}",
        None,
        Arch::SM_90,
        &id,
    );
    assert!(!key.text().contains("headers:"));
}

use super::*;

fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
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
    assert_eq!(dump_file_stem("spmv", ""), "spmv-cbf29ce484222325");
}

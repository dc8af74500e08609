use std::collections::HashSet;
use std::fs;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::cache::{decode, encode};
use super::*;
use crate::compile::cache::tests::vars;
use crate::compile::cache::{default_dir, CACHE_DIR_ENV, CACHE_ENV};

fn device() -> DeviceIdentity {
    DeviceIdentity {
        name: "NVIDIA H100 80GB HBM3".into(),
        arch: (9, 0),
        sm_count: 132,
        driver_version: 13000,
    }
}

fn fingerprint() -> Fingerprint {
    let mut histogram = [0; 32];
    histogram[3] = 70;
    histogram[5] = 30;
    Fingerprint {
        element: "f32".into(),
        checked: false,
        wide: false,
        tiles: 100,
        atoms: 1234,
        histogram,
        longest_tile: 40,
        longest_empty_run: 2,
        extra: vec![100, 1000],
    }
}

const SOURCE: &str = "extern \"C\" __global__ void spmv() {}";

fn key() -> TuneKey {
    TuneKey::new("spmv", SOURCE, &device(), &fingerprint())
}

fn winner(variant: &str) -> Winner {
    Winner {
        variant: variant.into(),
        timings_us: vec![
            (variant.into(), 12.5),
            ("spmv_merge_path".into(), 14.25),
            ("spmv_thread".into(), 1e-3),
        ],
    }
}

#[test]
fn every_input_changes_the_key() {
    let base = key();
    assert_eq!(base, key(), "equal inputs, equal keys");
    assert_eq!(base.text(), key().text());
    let mut variants: Vec<(&str, TuneKey)> = Vec::new();
    let with = |f: &dyn Fn(&mut Fingerprint)| {
        let mut fp = fingerprint();
        f(&mut fp);
        TuneKey::new("spmv", SOURCE, &device(), &fp)
    };
    let on = |f: &dyn Fn(&mut DeviceIdentity)| {
        let mut d = device();
        f(&mut d);
        TuneKey::new("spmv", SOURCE, &d, &fingerprint())
    };
    variants.push((
        "kernel",
        TuneKey::new("spmv2", SOURCE, &device(), &fingerprint()),
    ));
    variants.push((
        "source",
        TuneKey::new("spmv", "// other", &device(), &fingerprint()),
    ));
    variants.push(("device name", on(&|d| d.name.push('X'))));
    variants.push(("arch major", on(&|d| d.arch.0 = 10)));
    variants.push(("arch minor", on(&|d| d.arch.1 = 1)));
    variants.push(("sm count", on(&|d| d.sm_count = 114)));
    variants.push(("driver", on(&|d| d.driver_version = 12080)));
    variants.push(("element", with(&|f| f.element = "f64".into())));
    variants.push(("checked", with(&|f| f.checked = true)));
    variants.push(("wide", with(&|f| f.wide = true)));
    variants.push(("tiles", with(&|f| f.tiles += 1)));
    variants.push(("atoms", with(&|f| f.atoms += 1)));
    variants.push(("longest tile", with(&|f| f.longest_tile += 1)));
    variants.push(("longest empty run", with(&|f| f.longest_empty_run += 1)));
    variants.push(("extra value", with(&|f| f.extra[1] += 1)));
    variants.push(("extra length", with(&|f| f.extra.push(0))));
    variants.push(("extra empty", with(&|f| f.extra.clear())));
    for bucket in 0..32 {
        variants.push(("histogram", with(&|f| f.histogram[bucket] += 1)));
    }
    let mut texts = HashSet::new();
    let mut files = HashSet::new();
    texts.insert(base.text().to_string());
    files.insert(base.file_name().to_string());
    for (what, k) in &variants {
        assert!(
            texts.insert(k.text().to_string()),
            "{what} left the key text"
        );
        assert!(
            files.insert(k.file_name().to_string()),
            "{what} left the file name"
        );
    }
}

#[test]
fn key_text_and_file_name() {
    let k = key();
    assert!(k
        .text()
        .starts_with("loops-for-rust tuning key\nkernel: \"spmv\"\n"));
    assert!(k
        .text()
        .contains("device: \"NVIDIA H100 80GB HBM3\", compute 9.0, 132 SMs"));
    assert!(k.text().ends_with("extra: [100, 1000]\n"));
    assert!(k.file_name().starts_with("spmv-"), "{}", k.file_name());
    assert!(k.file_name().ends_with(".tune"));
    // A name cannot forge a line of the key, nor leave the folder.
    let odd = TuneKey::new("a\nsource: x/../..", SOURCE, &device(), &fingerprint());
    assert_eq!(odd.text().lines().count(), k.text().lines().count());
    assert!(!odd.file_name().contains('/'), "{}", odd.file_name());
    assert_eq!(
        odd.file_name().matches('.').count(),
        1,
        "{}",
        odd.file_name()
    );
}

#[test]
fn round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let cache = TuneCache::in_dir(dir.path());
    assert!(cache.tuning_enabled());
    assert_eq!(cache.dir(), Some(dir.path()));
    assert_eq!(cache.load(&key()), None, "missing");
    cache.store(&key(), &winner("spmv_group4"));
    assert_eq!(cache.load(&key()), Some(winner("spmv_group4")));
    let path = cache.path(&key()).unwrap();
    assert!(path.is_file());
    // A later store replaces the winner; other keys are untouched misses.
    cache.store(&key(), &winner("spmv_merge_path"));
    assert_eq!(cache.load(&key()), Some(winner("spmv_merge_path")));
    let other = TuneKey::new("spmv", SOURCE, &device(), &Fingerprint::default());
    assert_eq!(cache.load(&other), None);
    // Only the entry is left in the folder (no temporary files).
    let names: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().collect();
    assert_eq!(names.len(), 1);
}

#[test]
fn names_and_times_round_trip_exactly() {
    let w = Winner {
        variant: "a \"quoted\"\nname\t\\ é \u{200b}\u{0}\u{7f}'".into(),
        timings_us: vec![
            ("".into(), 0.1 + 0.2),
            ("x".into(), f64::MAX),
            ("y".into(), f64::MIN_POSITIVE),
            ("z".into(), f64::INFINITY),
            ("w".into(), -0.0),
        ],
    };
    let text = encode(key().text(), &w);
    let back = decode(text.as_bytes(), key().text()).unwrap();
    assert_eq!(back.variant, w.variant);
    let bits = |w: &Winner| -> Vec<(String, u64)> {
        w.timings_us
            .iter()
            .map(|(n, t)| (n.clone(), t.to_bits()))
            .collect()
    };
    assert_eq!(bits(&back), bits(&w));
    // No timings at all is an entry too.
    let bare = Winner {
        variant: "v".into(),
        timings_us: vec![],
    };
    let text = encode(key().text(), &bare);
    assert_eq!(decode(text.as_bytes(), key().text()), Ok(bare));
}

#[test]
fn every_damage_is_rejected() {
    let k = key();
    let bytes = encode(k.text(), &winner("spmv_group4")).into_bytes();
    assert!(decode(&bytes, k.text()).is_ok());
    for len in 0..bytes.len() {
        assert!(
            decode(&bytes[..len], k.text()).is_err(),
            "truncated to {len}"
        );
    }
    for i in 0..bytes.len() {
        for bit in 0..8 {
            let mut b = bytes.clone();
            b[i] ^= 1 << bit;
            assert!(decode(&b, k.text()).is_err(), "byte {i} bit {bit}");
        }
    }
    let mut extended = bytes.clone();
    extended.extend_from_slice(b"timing_us: \"x\" 1\n");
    assert!(decode(&extended, k.text()).is_err());
    let other = TuneKey::new("spmv", SOURCE, &device(), &Fingerprint::default());
    assert!(decode(&bytes, other.text()).is_err());
}

#[test]
fn bad_files_are_misses_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let cache = TuneCache::in_dir(dir.path());
    let k = key();
    let path = cache.path(&k).unwrap();
    let good = encode(k.text(), &winner("spmv_group4"));
    let other = TuneKey::new("spmv", SOURCE, &device(), &Fingerprint::default());
    let header_changed = good.replacen("format 1", "format 2", 1);
    let bad: Vec<(&str, Vec<u8>)> = vec![
        ("garbage", b"\x00\xffnot an entry at all".to_vec()),
        ("empty", Vec::new()),
        ("truncated", good.as_bytes()[..good.len() / 2].to_vec()),
        (
            "no final newline",
            good.as_bytes()[..good.len() - 1].to_vec(),
        ),
        ("wrong header", header_changed.into_bytes()),
        (
            "another key's entry",
            encode(other.text(), &winner("spmv_group4")).into_bytes(),
        ),
        ("a folder", Vec::new()),
    ];
    for (what, bytes) in bad {
        if what == "a folder" {
            fs::remove_file(&path).unwrap();
            fs::create_dir(&path).unwrap();
        } else {
            fs::write(&path, &bytes).unwrap();
        }
        assert_eq!(cache.load(&k), None, "{what}");
        if what == "a folder" {
            fs::remove_dir(&path).unwrap();
        }
        cache.store(&k, &winner("spmv_thread"));
        assert_eq!(cache.load(&k), Some(winner("spmv_thread")), "{what}");
    }
}

#[test]
fn disabled_and_unpersisted_caches_store_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let off = TuneCache::disabled();
    assert!(!off.tuning_enabled());
    assert_eq!(off.dir(), None);
    off.store(&key(), &winner("spmv_group4"));
    assert_eq!(off.load(&key()), None);
    let memory_only = TuneCache::not_persisted();
    assert!(memory_only.tuning_enabled());
    assert_eq!(memory_only.dir(), None);
    memory_only.store(&key(), &winner("spmv_group4"));
    assert_eq!(memory_only.load(&key()), None);
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn unwritable_folder_does_not_panic() {
    let dir = tempfile::tempdir().unwrap();
    // A folder under a plain file can never be made, even by root.
    let file = dir.path().join("a-file");
    fs::write(&file, "x").unwrap();
    let cache = TuneCache::in_dir(file.join("tune"));
    cache.store(&key(), &winner("spmv_group4"));
    cache.store(&key(), &winner("spmv_group4"));
    assert_eq!(cache.load(&key()), None);
}

#[test]
fn concurrent_writers_and_readers_see_whole_entries() {
    let dir = tempfile::tempdir().unwrap();
    let cache = TuneCache::in_dir(dir.path());
    let k = key();
    let written: Vec<Winner> = (0..8)
        .map(|t| {
            let mut w = winner(&format!("variant_{t}"));
            w.timings_us.push((format!("extra_{t}"), f64::from(t)));
            w
        })
        .collect();
    let writers_done = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for w in &written {
            let (cache, k, writers_done) = (&cache, &k, &writers_done);
            s.spawn(move || {
                for _ in 0..20 {
                    cache.store(k, w);
                }
                writers_done.fetch_add(1, Ordering::SeqCst);
            });
        }
        for _ in 0..2 {
            let (cache, k, written, writers_done) = (&cache, &k, &written, &writers_done);
            s.spawn(move || {
                let mut reads = 0;
                while writers_done.load(Ordering::SeqCst) < written.len() || reads < 50 {
                    if let Some(seen) = cache.load(k) {
                        assert!(written.contains(&seen), "a mixed entry: {seen:?}");
                    }
                    reads += 1;
                }
            });
        }
    });
    let last = cache.load(&k).expect("a valid entry is left");
    assert!(written.contains(&last));
    let left: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().collect();
    assert_eq!(left.len(), 1, "no temporary files are left: {left:?}");
}

#[test]
fn settings_from_vars() {
    for off in ["off", "OFF", "0", "false", "no", " Off "] {
        let c = TuneCache::from_vars(vars(&[(TUNE_ENV, off), (TUNE_DIR_ENV, "/t")]));
        assert_eq!(c, TuneCache::disabled(), "{off:?}");
    }
    for on in ["on", "1", "yes", "measure"] {
        let c = TuneCache::from_vars(vars(&[(TUNE_ENV, on), (TUNE_DIR_ENV, "/t")]));
        assert_eq!(c, TuneCache::in_dir("/t"), "{on:?}");
    }
    // The folder: LOOPS_TUNE_DIR, else `tune` in the kernel cache's folder.
    let c = TuneCache::from_vars(vars(&[(TUNE_DIR_ENV, "/t"), (CACHE_DIR_ENV, "/k")]));
    assert_eq!(c.dir(), Some(std::path::Path::new("/t")));
    let c = TuneCache::from_vars(vars(&[(CACHE_DIR_ENV, "/k")]));
    assert_eq!(c, TuneCache::in_dir("/k/tune"));
    let c = TuneCache::from_vars(vars(&[(TUNE_DIR_ENV, ""), (TUNE_ENV, "")]));
    assert_eq!(
        c.dir(),
        default_dir().map(|d| d.join(TUNE_SUBDIR)).as_deref()
    );
    assert!(c.tuning_enabled());
    // No kernel cache: tuning still runs, and persists only where LOOPS_TUNE_DIR says.
    let c = TuneCache::from_vars(vars(&[(CACHE_ENV, "off")]));
    assert_eq!(c, TuneCache::not_persisted());
    let c = TuneCache::from_vars(vars(&[(CACHE_ENV, "off"), (TUNE_DIR_ENV, "/t")]));
    assert_eq!(c, TuneCache::in_dir("/t"));
}

#[test]
fn entry_layout_is_the_documented_one() {
    let k = key();
    let text = encode(k.text(), &winner("spmv_group4"));
    let expected_start = format!(
        "loops-for-rust tuning entry, format 1\nkey: {} bytes\n{}winner: \"spmv_group4\"\n\
         timing_us: \"spmv_group4\" 12.5\ntiming_us: \"spmv_merge_path\" 14.25\n\
         timing_us: \"spmv_thread\" 0.001\ncrc32: ",
        k.text().len(),
        k.text()
    );
    assert!(text.starts_with(&expected_start), "{text}");
    let checksum = &text[expected_start.len()..];
    assert_eq!(checksum.len(), 9, "{checksum:?}");
    assert!(checksum.ends_with('\n'));
}

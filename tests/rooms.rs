//! The rooms of the house (issue 38): which top-level module of `loops-runtime` and `kernels-gen`
//! imports which. It reads the sources (no build, no GPU), finds each file's imports of other files
//! of its crate (`use crate::..`, `crate::x::y` paths in code, `super::` paths), maps files to rooms
//! (the top-level module: `launch/run/tuning.rs` is in `launch`) and
//!
//! - fails if the rooms of `loops-runtime` import each other in a circle (a circle inside one
//!   room is fine);
//! - checks that `kernels-gen`'s `ir` and `abi` import no other room than `diag`.
//!
//! `cargo test --test rooms -- --nocapture` prints every cross-room import (room -> room: names).
//! Test code (`#[cfg(test)]` items, `tests.rs` files) is not read: a test may reach anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Whether `kernels-gen`'s floor rule (`ir`, `abi` import only `diag`) fails the test or only
/// prints what breaks it: it fails, since the schedule units landed.
const KERNELS_GEN_FLOOR_ENFORCED: bool = true;

/// The rooms that `ir` and `abi` of kernels-gen may import.
const KERNELS_GEN_FLOOR: &[&str] = &["ir", "abi"];
const KERNELS_GEN_FLOOR_MAY_IMPORT: &[&str] = &["diag"];

// ---------------------------------------------------------------------------------------------
// Tokens: identifiers and punctuation, with comments, strings and char literals dropped.

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Path,
    Punct(char),
}

fn tokens(src: &str) -> Vec<Tok> {
    let s: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let skip_string = |mut i: usize| -> usize {
        // `s[i]` is the opening quote of a plain string: returns the index after the closing one.
        i += 1;
        while i < s.len() {
            match s[i] {
                '\\' => i += 2,
                '"' => return i + 1,
                _ => i += 1,
            }
        }
        i
    };
    let skip_raw = |mut i: usize, hashes: usize| -> usize {
        // `s[i]` is the opening quote of a raw string with `hashes` #s.
        i += 1;
        while i < s.len() {
            if s[i] == '"'
                && s[i + 1..]
                    .iter()
                    .take(hashes)
                    .filter(|&&c| c == '#')
                    .count()
                    == hashes
            {
                return i + 1 + hashes;
            }
            i += 1;
        }
        i
    };
    while i < s.len() {
        let c = s[i];
        let next = s.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < s.len() {
                if s[i] == '/' && s.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if s[i] == '*' && s.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            i = skip_string(i);
        } else if c == '\'' {
            // A char literal ('a', '\n', '\u{..}') or a lifetime ('a).
            if next == Some('\\') {
                i += 2;
                while i < s.len() && s[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if s.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < s.len() && (s[i].is_alphanumeric() || s[i] == '_') {
                i += 1;
            }
            let word: String = s[start..i].iter().collect();
            let raw_prefix = word == "r" || word == "br" || word == "cr";
            if (word == "b" || word == "c") && s.get(i) == Some(&'"') {
                i = skip_string(i);
            } else if raw_prefix && (s.get(i) == Some(&'"') || s.get(i) == Some(&'#')) {
                let hashes = s[i..].iter().take_while(|&&c| c == '#').count();
                if s.get(i + hashes) == Some(&'"') {
                    i = skip_raw(i + hashes, hashes);
                } else {
                    // A raw identifier: `r#type`.
                    i += hashes;
                }
            } else {
                out.push(Tok::Ident(word));
            }
        } else if c.is_ascii_digit() {
            while i < s.len() && (s[i].is_alphanumeric() || s[i] == '_' || s[i] == '.') {
                if s[i] == '.' && !s.get(i + 1).is_some_and(|c| c.is_ascii_digit()) {
                    break;
                }
                i += 1;
            }
        } else if c == ':' && next == Some(':') {
            out.push(Tok::Path);
            i += 2;
        } else if c.is_whitespace() {
            i += 1;
        } else {
            out.push(Tok::Punct(c));
            i += 1;
        }
    }
    out
}

fn is_ident(t: Option<&Tok>, word: &str) -> bool {
    matches!(t, Some(Tok::Ident(w)) if w == word)
}

/// Drops items marked `#[cfg(test)]` (a test module, a test-only `use` or function).
fn without_test_items(toks: Vec<Tok>) -> Vec<Tok> {
    let cfg_test = [
        Tok::Punct('#'),
        Tok::Punct('['),
        Tok::Ident("cfg".into()),
        Tok::Punct('('),
        Tok::Ident("test".into()),
        Tok::Punct(')'),
        Tok::Punct(']'),
    ];
    let mut out = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        if toks[i..].starts_with(&cfg_test) {
            i += cfg_test.len();
            // Further attributes of the same item.
            while toks.get(i) == Some(&Tok::Punct('#')) {
                let mut depth = 0;
                while i < toks.len() {
                    match toks[i] {
                        Tok::Punct('[') => depth += 1,
                        Tok::Punct(']') => {
                            depth -= 1;
                            if depth == 0 {
                                i += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
            }
            let is_use = is_ident(toks.get(i), "use")
                || (is_ident(toks.get(i), "pub") && is_ident(toks.get(i + 1), "use"));
            let mut depth = 0;
            while i < toks.len() {
                match toks[i] {
                    Tok::Punct(';') if depth == 0 => {
                        i += 1;
                        break;
                    }
                    Tok::Punct('{') => depth += 1,
                    Tok::Punct('}') => {
                        depth -= 1;
                        if depth == 0 && !is_use {
                            i += 1;
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        } else {
            out.push(toks[i].clone());
            i += 1;
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Paths: what a file names, as written.

/// The paths of one `use` tree starting at `toks[*i]`, each with the prefix `prefix`; `*i` ends
/// after the tree.
fn use_tree(toks: &[Tok], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut path = prefix.to_vec();
    loop {
        match toks.get(*i) {
            Some(Tok::Ident(w)) => {
                *i += 1;
                if w == "self" && path.len() == prefix.len() && !prefix.is_empty() {
                    // `{self, ..}`: the prefix itself.
                } else {
                    path.push(w.clone());
                }
                if toks.get(*i) == Some(&Tok::Path) {
                    *i += 1;
                    continue;
                }
                if is_ident(toks.get(*i), "as") {
                    *i += 2;
                }
                out.push(path);
                return;
            }
            Some(Tok::Path) => {
                // A leading `::`: another crate.
                *i += 1;
                path.push("::".into());
            }
            Some(Tok::Punct('*')) => {
                *i += 1;
                path.push("*".into());
                out.push(path);
                return;
            }
            Some(Tok::Punct('{')) => {
                *i += 1;
                loop {
                    match toks.get(*i) {
                        Some(Tok::Punct('}')) => {
                            *i += 1;
                            return;
                        }
                        Some(Tok::Punct(',')) => *i += 1,
                        None => return,
                        _ => use_tree(toks, i, &path, out),
                    }
                }
            }
            _ => return,
        }
    }
}

/// Every path a file's code names that starts at `crate`, `super` or `self`, or that a `use`
/// imports (relative ones too); as written.
fn named_paths(toks: &[Tok]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let prev = if i > 0 { toks.get(i - 1) } else { None };
        match &toks[i] {
            Tok::Ident(w) if w == "use" && prev != Some(&Tok::Path) => {
                i += 1;
                use_tree(toks, &mut i, &[], &mut out);
            }
            Tok::Ident(w)
                if (w == "crate" || w == "super" || w == "self")
                    && toks.get(i + 1) == Some(&Tok::Path)
                    && prev != Some(&Tok::Path)
                    && prev != Some(&Tok::Punct('$'))
                    && !is_ident(prev, "in") =>
            {
                let mut path = vec![w.clone()];
                i += 1;
                while toks.get(i) == Some(&Tok::Path) {
                    match toks.get(i + 1) {
                        Some(Tok::Ident(w)) => {
                            path.push(w.clone());
                            i += 2;
                        }
                        _ => break,
                    }
                }
                out.push(path);
            }
            _ => i += 1,
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// A crate: its files as modules, its rooms, and the imports between rooms.

/// One file of a crate: its path under `src/` and its text.
struct SourceFile {
    path: String,
    text: String,
}

/// The module path of a file under `src/`: `launch/run/tuning.rs` is `[launch, run, tuning]`,
/// `formats/mod.rs` is `[formats]`, `lib.rs` is `[]`.
fn module_of(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = path
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// An import of one room by a file of another: `from` imports `name` (the path under `to`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct CrossImport {
    from: String,
    to: String,
    file: String,
    name: String,
}

/// The imports that cross rooms, sorted and without repeats.
fn cross_room_imports(files: &[SourceFile]) -> Vec<CrossImport> {
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(&f.path)).collect();
    // The crate root's re-exports (`pub use io::{generate, mtx}`, `pub use error::Result`), by name.
    let mut root_names: BTreeMap<String, Vec<String>> = BTreeMap::new();
    if let Some(root) = files.iter().find(|f| module_of(&f.path).is_empty()) {
        for path in named_paths(&without_test_items(tokens(&root.text))) {
            let path: Vec<String> = match path.first().map(String::as_str) {
                Some("crate" | "self") => path[1..].to_vec(),
                _ => path,
            };
            if let Some(name) = path.last() {
                if path.len() > 1 && modules.contains(&path[..1]) {
                    root_names.insert(name.clone(), path.clone());
                }
            }
        }
    }
    let mut out = BTreeSet::new();
    for file in files {
        if file.path.ends_with("tests.rs") || file.path.contains("/tests/") {
            continue;
        }
        let here = module_of(&file.path);
        let Some(room) = here.first() else {
            continue; // the crate root only hands names on
        };
        for path in named_paths(&without_test_items(tokens(&file.text))) {
            let mut abs: Vec<String> = match path[0].as_str() {
                "crate" => path[1..].to_vec(),
                "self" => here.iter().chain(&path[1..]).cloned().collect(),
                "super" => {
                    let mut base = here.clone();
                    let mut rest = &path[..];
                    while rest.first().map(String::as_str) == Some("super") {
                        base.pop();
                        rest = &rest[1..];
                    }
                    base.into_iter().chain(rest.iter().cloned()).collect()
                }
                // Relative to this module: a child of it, in this room; anything else is another
                // crate.
                _ => continue,
            };
            if abs.is_empty() {
                continue;
            }
            if !modules.contains(&abs[..1]) {
                match root_names.get(&abs[0]) {
                    Some(target) => {
                        abs = target.iter().chain(&abs[1..]).cloned().collect();
                    }
                    None => continue, // another crate, re-exported at the root (`crate::schedule`)
                }
            }
            if &abs[0] != room {
                out.insert(CrossImport {
                    from: room.clone(),
                    to: abs[0].clone(),
                    file: file.path.clone(),
                    name: if abs.len() > 1 {
                        abs[1..].join("::")
                    } else {
                        abs[0].clone()
                    },
                });
            }
        }
    }
    out.into_iter().collect()
}

/// The room graph: room -> the rooms it imports.
fn room_graph(imports: &[CrossImport]) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for import in imports {
        graph
            .entry(import.from.clone())
            .or_default()
            .insert(import.to.clone());
        graph.entry(import.to.clone()).or_default();
    }
    graph
}

/// One circle of the graph (`[a, b, a]`), if it has one.
fn find_circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn visit(
        room: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        marks: &mut BTreeMap<String, Mark>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        marks.insert(room.to_string(), Mark::Open);
        stack.push(room.to_string());
        for next in graph.get(room).into_iter().flatten() {
            match marks.get(next).copied().unwrap_or(Mark::New) {
                Mark::Open => {
                    let start = stack.iter().position(|r| r == next).unwrap();
                    let mut circle = stack[start..].to_vec();
                    circle.push(next.clone());
                    return Some(circle);
                }
                Mark::New => {
                    if let Some(circle) = visit(next, graph, marks, stack) {
                        return Some(circle);
                    }
                }
                Mark::Done => {}
            }
        }
        stack.pop();
        marks.insert(room.to_string(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for room in graph.keys() {
        if marks.get(room).copied().unwrap_or(Mark::New) == Mark::New {
            let mut stack = Vec::new();
            if let Some(circle) = visit(room, graph, &mut marks, &mut stack) {
                return Some(circle);
            }
        }
    }
    None
}

/// The cross-room imports as lines: `room -> room: name, name (file, file)`.
fn report(imports: &[CrossImport]) -> String {
    /// The names one room takes from another, and the files that take them.
    type NamesAndFiles<'a> = (BTreeSet<&'a str>, BTreeSet<&'a str>);
    let mut by_pair: BTreeMap<(&str, &str), NamesAndFiles> = BTreeMap::new();
    for import in imports {
        let entry = by_pair.entry((&import.from, &import.to)).or_default();
        entry.0.insert(&import.name);
        entry.1.insert(&import.file);
    }
    let mut out = String::new();
    for ((from, to), (names, files)) in by_pair {
        let names: Vec<&str> = names.into_iter().collect();
        let files: Vec<&str> = files.into_iter().collect();
        out += &format!(
            "  {from} -> {to}: {} ({})\n",
            names.join(", "),
            files.join(", ")
        );
    }
    out
}

fn read_crate(src: &Path) -> Vec<SourceFile> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<SourceFile>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(root).unwrap();
                let rel = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>();
                out.push(SourceFile {
                    path: rel.join("/"),
                    text: std::fs::read_to_string(&path).unwrap(),
                });
            }
        }
    }
    let mut out = Vec::new();
    walk(src, src, &mut out);
    assert!(!out.is_empty(), "no sources under {}", src.display());
    out
}

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn runtime_rooms_have_no_circle() {
    let imports = cross_room_imports(&read_crate(&workspace().join("loops-runtime/src")));
    println!("loops-runtime, cross-room imports:\n{}", report(&imports));
    if let Some(circle) = find_circle(&room_graph(&imports)) {
        panic!(
            "the rooms of loops-runtime import each other in a circle: {}",
            circle.join(" -> ")
        );
    }
}

#[test]
fn kernels_gen_floor_imports_only_diag() {
    let imports = cross_room_imports(&read_crate(&workspace().join("kernels-gen/src")));
    println!("kernels-gen, cross-room imports:\n{}", report(&imports));
    if let Some(circle) = find_circle(&room_graph(&imports)) {
        println!("kernels-gen has a circle of rooms: {}", circle.join(" -> "));
    }
    let wrong: Vec<&CrossImport> = imports
        .iter()
        .filter(|i| {
            KERNELS_GEN_FLOOR.contains(&i.from.as_str())
                && !KERNELS_GEN_FLOOR_MAY_IMPORT.contains(&i.to.as_str())
        })
        .collect();
    if !wrong.is_empty() {
        let lines: Vec<String> = wrong
            .iter()
            .map(|i| format!("  {} -> {}: {} ({})", i.from, i.to, i.name, i.file))
            .collect();
        let message = format!(
            "kernels-gen's {KERNELS_GEN_FLOOR:?} import rooms other than {KERNELS_GEN_FLOOR_MAY_IMPORT:?}:\n{}",
            lines.join("\n")
        );
        if KERNELS_GEN_FLOOR_ENFORCED {
            panic!("{message}");
        }
        println!("(not enforced yet) {message}");
    }
}

// ---------------------------------------------------------------------------------------------
// The checker on synthetic crates.

fn synthetic(files: &[(&str, &str)]) -> Vec<SourceFile> {
    files
        .iter()
        .map(|(p, t)| SourceFile {
            path: p.to_string(),
            text: t.to_string(),
        })
        .collect()
}

#[test]
fn checker_finds_a_circle() {
    let files = synthetic(&[
        (
            "lib.rs",
            "pub mod a; pub mod b; pub mod c; pub use a::Thing;",
        ),
        (
            "a.rs",
            "use crate::b::{self, x::{Y, Z as W}};\npub struct Thing;",
        ),
        (
            "b/mod.rs",
            "pub mod x; fn f() { let _ = super::c::make(); }",
        ),
        // Through the root's re-export, in code, not in a `use`.
        ("c.rs", "pub fn make() -> crate::Thing { crate::Thing }"),
        ("b/x.rs", "pub struct Y; pub struct Z;"),
    ]);
    let imports = cross_room_imports(&files);
    let pairs: BTreeSet<(String, String)> = imports
        .iter()
        .map(|i| (i.from.clone(), i.to.clone()))
        .collect();
    let expected: BTreeSet<(String, String)> = [("a", "b"), ("b", "c"), ("c", "a")]
        .iter()
        .map(|(f, t)| (f.to_string(), t.to_string()))
        .collect();
    assert_eq!(pairs, expected, "{imports:#?}");
    let names: BTreeSet<&str> = imports.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(
        names,
        BTreeSet::from(["b", "x::Y", "x::Z", "make", "Thing"])
    );
    let circle = find_circle(&room_graph(&imports)).expect("a circle");
    assert_eq!(circle.len(), 4, "{circle:?}");
    assert_eq!(circle.first(), circle.last());
}

#[test]
fn checker_passes_a_house_without_circle() {
    let files = synthetic(&[
        ("lib.rs", "pub mod a; pub mod b; pub mod c;"),
        // Within one room, circles are fine; comments, strings and tests are not imports.
        (
            "a/mod.rs",
            "mod inner; use self::inner::X; // use crate::c::Nope;\nuse crate::b::B;",
        ),
        (
            "a/inner.rs",
            "pub struct X; fn f() { super::super::b::g(); let _ = crate::a::inner::X; }",
        ),
        (
            "b.rs",
            "pub struct B; pub fn g() { let _s = \"crate::c::Nope\"; let _r = r#\"crate::a\"#; }\n\
             #[cfg(test)]\nmod tests { use crate::a::X; use super::super::c::*; }\n\
             /// Docs naming [`crate::a::X`].\npub fn h<'a>(_: &'a str) -> char { 'c' }",
        ),
        ("b/tests.rs", "use crate::c::Anything;"),
        ("c.rs", "use crate::a::X; use crate::b::{self, B};"),
    ]);
    let imports = cross_room_imports(&files);
    let pairs: BTreeSet<(String, String)> = imports
        .iter()
        .map(|i| (i.from.clone(), i.to.clone()))
        .collect();
    let expected: BTreeSet<(String, String)> = [("a", "b"), ("c", "a"), ("c", "b")]
        .iter()
        .map(|(f, t)| (f.to_string(), t.to_string()))
        .collect();
    assert_eq!(pairs, expected, "{imports:#?}");
    assert_eq!(find_circle(&room_graph(&imports)), None);
}

//! The check behind every `entries!` block's unit test (no GPU): the `extern "C"` entry points of
//! a `.cuh` text parsed (its `#define` families, `*_PARAMS` lists and `typedef`s included) and
//! compared with the Rust declarations.

use super::Kind;

/// A declaration's parameters at its two probe types.
pub(crate) type Probed = (Vec<(&'static str, Kind)>, Vec<(&'static str, Kind)>);

/// One parameter of an entry point as the `.cuh` writes it.
#[derive(Debug, PartialEq)]
struct CudaParam {
    name: String,
    /// The type without `const`, `__restrict__` and the pointer (typedefs resolved).
    ty: String,
    /// `Some(mutable)` for a pointer.
    pointer: Option<bool>,
}

/// One `extern "C"` entry point of a `.cuh` text.
#[derive(Debug)]
struct CudaEntry {
    /// Its name; a `#define`d family's with `*` for each macro parameter pasted into it.
    name: String,
    /// The macro parameters of the `#define` it is in.
    macro_params: Vec<String>,
    /// `None` where the parameters cannot be read.
    params: Option<Vec<CudaParam>>,
    /// Whether the list begins with a macro parameter that is a parameter list itself (a
    /// policy's parameters: `LOOPS_SEGSORT_UNPAREN PARAMS, ...`); `params` are those after it.
    after_policy: bool,
}

/// Every `extern "C"` entry point of `source`, whose typedefs may be in `prefix` (the text
/// concatenated before it) too.
fn cuda_entries(prefix: &str, source: &str) -> Vec<CudaEntry> {
    let typedefs = typedefs(&format!("{prefix}\n{source}"));
    // Comments out, continued lines joined: one logical line per `#define`.
    let text: String = source
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
        .replace("\\\n", " ");
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("extern \"C\"") {
        // The logical line it is on: a `#define`'s, for a family.
        let absolute = text.len() - rest.len() + at;
        let line_start = text[..absolute].rfind('\n').map_or(0, |i| i + 1);
        let line = &text[line_start..];
        let line = &line[..line.find('\n').unwrap_or(line.len())];
        let macro_params = define(line).map(|d| d.1).unwrap_or_default();
        {
            rest = &rest[at + "extern \"C\"".len()..];
            let open = rest.find('(').expect("an entry point's parameter list");
            let mut head = &rest[..open];
            let mut after = &rest[open..];
            if head.contains("__launch_bounds__") {
                // Skip the bounds' parentheses to the name's.
                let close = after.find(')').expect("__launch_bounds__(...)");
                after = &after[close + 1..];
                let open = after.find('(').expect("an entry point's parameter list");
                head = &after[..open];
                after = &after[open..];
            }
            let raw_name = head.split_whitespace().last().expect("a name");
            let name: String = raw_name
                .split("##")
                .map(|part| {
                    let part = part.trim();
                    if macro_params.iter().any(|m| m == part) {
                        "*"
                    } else {
                        part
                    }
                })
                .collect();
            let mut depth = 0;
            let mut end = 0;
            for (i, c) in after.char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            end = i;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let mut list = &after[1..end];
            rest = &after[end..];
            // A policy's parameters first: a macro parameter (after an unparenthesizing macro).
            let first = list.split(',').next().unwrap_or("");
            let after_policy = first
                .split_whitespace()
                .last()
                .is_some_and(|w| macro_params.iter().any(|m| m == w));
            if after_policy {
                list = list.split_once(',').map_or("", |(_, tail)| tail);
            }
            let params = parse_params(list, &macro_params, &typedefs);
            out.push(CudaEntry {
                name,
                macro_params: macro_params.clone(),
                params,
                after_policy,
            });
        }
    }
    // Policies' parameter lists: `#define NAME_PARAMS(T) (const T* x, ...)`, named `NAME_PARAMS`.
    for line in text.lines() {
        let Some((name, macro_params, body)) = define(line) else {
            continue;
        };
        let body = body.trim();
        if name.ends_with("_PARAMS") && body.starts_with('(') && body.ends_with(')') {
            let list = &body[1..body.len() - 1];
            out.push(CudaEntry {
                params: parse_params(list, &macro_params, &typedefs),
                name: name.to_string(),
                macro_params,
                after_policy: false,
            });
        }
    }
    out
}

/// A function-like `#define` line's name, parameters and body.
fn define(line: &str) -> Option<(&str, Vec<String>, &str)> {
    let rest = line.trim_start().strip_prefix("#define")?.trim_start();
    let open = rest.find('(')?;
    let name = &rest[..open];
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let close = open + rest[open..].find(')')?;
    let params = rest[open + 1..close]
        .split(',')
        .map(|p| p.trim().to_string())
        .collect();
    Some((name, params, &rest[close + 1..]))
}

/// The `typedef`s of `text`: (alias, type).
fn typedefs(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for piece in text.split("typedef ").skip(1) {
        let decl = piece.split(';').next().unwrap_or("");
        let mut words: Vec<&str> = decl.split_whitespace().collect();
        if let Some(alias) = words.pop() {
            out.push((alias.to_string(), words.join(" ")));
        }
    }
    out
}

fn parse_params(
    list: &str,
    macro_params: &[String],
    typedefs: &[(String, String)],
) -> Option<Vec<CudaParam>> {
    let mut out = Vec::new();
    for param in list.split(',') {
        let spaced = param.replace('*', " * ").replace("__restrict__", " ");
        let words: Vec<&str> = spaced.split_whitespace().collect();
        let (name, ty_words) = words.split_last()?;
        if ty_words.is_empty() || macro_params.iter().any(|m| m == name) {
            return None;
        }
        let stars = ty_words.iter().filter(|w| **w == "*").count();
        let last_star = ty_words.iter().rposition(|w| *w == "*");
        let (pointee, pointer) = match last_star {
            Some(at) if stars == 1 => {
                let pointee = &ty_words[..at];
                (pointee, Some(!pointee.contains(&"const")))
            }
            Some(_) => return None,
            None => (ty_words, None),
        };
        let ty: Vec<&str> = pointee.iter().copied().filter(|w| *w != "const").collect();
        let mut ty = ty.join(" ");
        if let Some((_, real)) = typedefs.iter().find(|(alias, _)| *alias == ty) {
            ty = real.clone();
        }
        out.push(CudaParam {
            name: name.to_string(),
            ty,
            pointer,
        });
    }
    Some(out)
}

/// Checks the declarations `declared` (name, parameters at the two probe types) against the
/// entry points of `source` (whose typedefs may be in `prefix`): see the module documentation.
/// A declared name with `*` is a `#define`d family of that name, or else stands for every entry
/// point whose name it matches (`loops_add_into_*`: `loops_add_into_f32`, `loops_add_into_f64`),
/// each of which must have the parameters of one of the two probe types exactly.
pub(crate) fn check_source(
    prefix: &str,
    source: &str,
    declared: &[(&str, Probed, bool)],
    undeclared: &[&str],
) {
    let entries = cuda_entries(prefix, source);
    assert!(!entries.is_empty(), "no extern \"C\" entry point found");
    for name in undeclared {
        assert!(
            entries.iter().any(|e| e.name == *name),
            "`{name}` is listed as undeclared but the source has no such entry point"
        );
    }
    let covers = |declared: &str, entry: &CudaEntry| {
        declared == entry.name
            || (!entries.iter().any(|e| e.name == declared) && glob(declared, &entry.name))
    };
    for (name, ..) in declared {
        assert!(
            entries.iter().any(|e| covers(name, e)),
            "`{name}` is declared but the source has no such entry point (entry points: {:?})",
            entries.iter().map(|e| &e.name).collect::<Vec<_>>()
        );
    }
    for entry in &entries {
        let matching: Vec<(&Probed, bool)> = declared
            .iter()
            .filter(|(n, ..)| covers(n, entry))
            .map(|(_, p, after)| (p, *after))
            .collect();
        let listed = undeclared.contains(&entry.name.as_str());
        assert!(
            matching.len() + listed as usize == 1,
            "entry point `{}`: declared {} times, {}listed as undeclared (each must be one of them)",
            entry.name,
            matching.len(),
            if listed { "" } else { "not " }
        );
        let Some(((a, b), after_policy)) = matching.first() else {
            continue;
        };
        assert_eq!(
            entry.after_policy, *after_policy,
            "`{}`: a policy's parameters first in the source: {}, declared (`[policy]`): {}",
            entry.name, entry.after_policy, after_policy
        );
        let params = entry
            .params
            .as_ref()
            .unwrap_or_else(|| panic!("`{}`: parameters the test cannot read", entry.name));
        // In a `#define` (a family, or a policy's parameter list): its parameters may be generic.
        if !entry.macro_params.is_empty() {
            if let Err(e) = compare(entry, params, a, b) {
                panic!("{e}");
            }
        } else if let (Err(e), Err(_)) =
            (compare(entry, params, a, a), compare(entry, params, b, b))
        {
            panic!("{e}");
        }
    }
}

/// Whether `name` matches `pattern`, whose `*`s stand for any text.
fn glob(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, tail)) => {
            name.starts_with(head) && (head.len()..=name.len()).any(|i| glob(tail, &name[i..]))
        }
    }
}

/// Compares one entry point's parameters with a declaration's at its two probe types (the same
/// list twice for a concrete entry point).
fn compare(
    entry: &CudaEntry,
    params: &[CudaParam],
    a: &[(&str, Kind)],
    b: &[(&str, Kind)],
) -> Result<(), String> {
    let context = |i: usize| format!("`{}`, parameter {i}", entry.name);
    if params.len() != a.len() {
        return Err(format!(
            "`{}`: {} parameters in the source, {} declared ({params:?})",
            entry.name,
            params.len(),
            a.len()
        ));
    }
    for (i, (cuda, ((name, ka), (_, kb)))) in params.iter().zip(a.iter().zip(b)).enumerate() {
        let name = name.strip_prefix("r#").unwrap_or(name);
        if cuda.name != name {
            return Err(format!(
                "{}: names differ (`{}` in the source, `{name}` declared)",
                context(i),
                cuda.name
            ));
        }
        let (ty_a, ptr_a) = split(*ka);
        let (ty_b, ptr_b) = split(*kb);
        if cuda.pointer != ptr_a || ptr_a != ptr_b {
            return Err(format!(
                "{}: `{}` ({}) in the source, {ka:?} declared",
                context(i),
                cuda.ty,
                match cuda.pointer {
                    None => "by value",
                    Some(false) => "const pointer",
                    Some(true) => "pointer",
                }
            ));
        }
        let generic = entry.macro_params.contains(&cuda.ty);
        if generic && ty_a == ty_b {
            return Err(format!(
                "{}: `{}` is the family's type parameter; the declaration's type is fixed \
                 ({ka:?})",
                context(i),
                cuda.ty
            ));
        }
        if !generic && (cuda.ty != ty_a || cuda.ty != ty_b) {
            return Err(format!(
                "{}: types differ (`{}` in the source, {ka:?} and {kb:?} declared)",
                context(i),
                cuda.ty
            ));
        }
    }
    Ok(())
}

fn split(kind: Kind) -> (&'static str, Option<bool>) {
    match kind {
        Kind::Scalar(ty) => (ty, None),
        Kind::Ptr { ty, mutable } => (ty, Some(mutable)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    // The declarations' side: the `entries!` macro and what it expands to.
    use crate::launch::entry::*;

    const SOURCE: &str = r#"
typedef unsigned long long loops_key;
// extern "C" __global__ void commented_out(int x)
extern "C" __global__ void __launch_bounds__(256) loops_plain(
    const int* __restrict__ offsets, unsigned int* out, const unsigned long long n, loops_key* keys)
{
}
#define LOOPS_FAMILY(T, NAME, V)                                                                \
    extern "C" __global__ void __launch_bounds__(256) loops_family_##NAME##_v##V(                \
        const T* __restrict__ x, T* y, const unsigned int k)                                     \
    {                                                                                            \
    }
#define LOOPS_OPAQUE(NAME, PARAMS)                                                               \
    extern "C" __global__ void loops_opaque_##NAME(UNPAREN PARAMS, const int n) {}
extern "C" __global__ void loops_pair_f32(float* y, const unsigned int n) {}
extern "C" __global__ void loops_pair_f64(double* y, const unsigned int n) {}
#define LOOPS_POLICY_PARAMS(T) (const int* __restrict__ offsets, T* values)
"#;

    #[test]
    fn the_parser_reads_plain_entries_families_and_typedefs() {
        let entries = cuda_entries("", SOURCE);
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "loops_plain",
                "loops_family_*_v*",
                "loops_opaque_*",
                "loops_pair_f32",
                "loops_pair_f64",
                "LOOPS_POLICY_PARAMS",
            ]
        );
        let p = entries[0].params.as_ref().unwrap();
        let kinds: Vec<(&str, &str, Option<bool>)> = p
            .iter()
            .map(|p| (p.name.as_str(), p.ty.as_str(), p.pointer))
            .collect();
        assert_eq!(
            kinds,
            [
                ("offsets", "int", Some(false)),
                ("out", "unsigned int", Some(true)),
                ("n", "unsigned long long", None),
                ("keys", "unsigned long long", Some(true)),
            ]
        );
        assert_eq!(entries[1].macro_params, ["T", "NAME", "V"]);
        assert!(entries[2].after_policy);
        assert_eq!(entries[2].params.as_ref().unwrap()[0].name, "n");
        assert_eq!(entries[5].name, "LOOPS_POLICY_PARAMS");
        assert_eq!(entries[5].params.as_ref().unwrap().len(), 2);
    }

    mod good {
        use super::SOURCE;
        use crate::element::Float;
        crate::launch::entry::entries! {
            source: SOURCE;
            undeclared: [];
            pub(crate) fn loops_plain(offsets: *const i32, out: *mut u32, n: u64, keys: *mut u64);
            pub(crate) fn family<T: Float [f32, f64]> = "loops_family_*_v*" (x: *const T, y: *mut T, k: u32);
            fn pair<T: Float [f32, f64]> = "loops_pair_*" (y: *mut T, n: u32);
            fn policy<T: Float [f32, f64]> = "LOOPS_POLICY_PARAMS" (offsets: *const i32, values: *mut T);
            fn opaque = "loops_opaque_*" [policy] (n: i32);
        }
    }

    #[test]
    #[should_panic(expected = "types differ")]
    fn a_wrong_type_is_caught() {
        check_source(
            "",
            SOURCE,
            &[(
                "loops_family_*_v*",
                (
                    vec![
                        ("x", <*const f32 as Declared>::KIND),
                        ("y", <*mut f32 as Declared>::KIND),
                        ("k", <i32 as Declared>::KIND),
                    ],
                    vec![
                        ("x", <*const f64 as Declared>::KIND),
                        ("y", <*mut f64 as Declared>::KIND),
                        ("k", <i32 as Declared>::KIND),
                    ],
                ),
                false,
            )],
            &["loops_plain", "loops_opaque_*"],
        );
    }

    #[test]
    #[should_panic(expected = "the declaration's type is fixed")]
    fn a_fixed_type_for_the_familys_parameter_is_caught() {
        let p = vec![
            ("x", <*const f32 as Declared>::KIND),
            ("y", <*mut f32 as Declared>::KIND),
            ("k", <u32 as Declared>::KIND),
        ];
        check_source(
            "",
            SOURCE,
            &[("loops_family_*_v*", (p.clone(), p), false)],
            &["loops_plain", "loops_opaque_*"],
        );
    }

    #[test]
    fn args_push_the_declared_kinds_in_order() {
        let (o, u, keys) = (
            DeviceBuffer::<i32>::empty(),
            DeviceBuffer::<u32>::empty(),
            DeviceBuffer::<u64>::empty(),
        );
        let what = |args: &KernelArgs<'_>| -> Vec<String> {
            args.what.iter().map(|w| w.to_string()).collect()
        };
        let args = good::loops_plain::args(&o, &u, 7u64, &keys);
        assert_eq!(
            what(&args),
            [
                "const int*",
                "unsigned int*",
                "unsigned long long",
                "unsigned long long*"
            ]
        );
        assert_eq!(args.sizes(), [8, 8, 8, 8]);
        assert_eq!(args.slots[2], 7);
        let f = DeviceBuffer::<f64>::empty();
        let args = good::family::args(&f, Ptr::at(&f, 0), 3u32);
        assert_eq!(what(&args), ["const double*", "double*", "unsigned int"]);
        assert_eq!(args.sizes(), [8, 8, 4]);
        let args = good::family::args(Ptr::<f32>::null(), Ptr::cast(&u), 3u32);
        assert_eq!(what(&args), ["const float*", "float*", "unsigned int"]);
        assert_eq!(
            good::family::params::<f32>(),
            [
                ("x", <*const f32 as Declared>::KIND),
                ("y", <*mut f32 as Declared>::KIND),
                ("k", Kind::Scalar("unsigned int")),
            ]
        );
    }

    /// Every `.cuh` of the runtime and where its entry points are declared: a new source needs an
    /// `entries!` block (and a line here).
    #[test]
    fn every_cuda_source_has_its_declarations() {
        const DECLARED_IN: [(&str, &str); 11] = [
            ("graph/compact.cuh", "graph/mod.rs"),
            ("graph/near_far.cuh", "graph/near_far/mod.rs"),
            ("launch/binning.cuh", "launch/binning.rs"),
            ("launch/block_ranges.cuh", "launch/block_ranges.rs"),
            ("launch/subset.cuh", "launch/subset.rs"),
            ("multi/exchange.cuh", "multi/mod.rs"),
            ("ops/sddmm.cuh", "ops/sddmm.rs"),
            ("ops/sort.cuh", "ops/sort.rs"),
            ("ops/spmm.cuh", "ops/spmm.rs"),
            ("ops/transpose.cuh", "ops/transpose.rs"),
            // Below `launch`: its one entry point is launched with cudarc, and checked by
            // `tune::measure`'s own test.
            ("tune/hold.cuh", "tune/measure.rs"),
        ];
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut found = Vec::new();
        let mut dirs = vec![src.clone()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "cuh") {
                    let rel = path.strip_prefix(&src).unwrap();
                    found.push(rel.to_string_lossy().replace('\\', "/"));
                }
            }
        }
        found.sort();
        let listed: Vec<&str> = DECLARED_IN.iter().map(|(cuh, _)| *cuh).collect();
        assert_eq!(found, listed, "the runtime's .cuh files changed");
        for (cuh, rs) in DECLARED_IN {
            let text = std::fs::read_to_string(src.join(rs)).unwrap();
            let file = cuh.rsplit('/').next().unwrap();
            let declares = text.contains("entries! {") || rs == "tune/measure.rs";
            assert!(
                declares && text.contains(file),
                "{rs} should declare the entry points of {cuh}"
            );
        }
    }

    #[test]
    fn globs_match() {
        assert!(glob("loops_add_into_*", "loops_add_into_f32"));
        assert!(glob("a*_v*", "a_f32_v4"));
        assert!(!glob("a*_v*", "a_f32_t4"));
        assert!(glob("abc", "abc") && !glob("abc", "abcd"));
    }

    #[test]
    #[should_panic(expected = "declared 0 times, not listed")]
    fn an_entry_left_out_is_caught() {
        check_source("", SOURCE, &[], &["loops_plain"]);
    }

    #[test]
    #[should_panic(expected = "names differ")]
    fn a_wrong_order_is_caught() {
        let p = vec![
            ("out", <*mut u32 as Declared>::KIND),
            ("offsets", <*const i32 as Declared>::KIND),
            ("n", <u64 as Declared>::KIND),
            ("keys", <*mut u64 as Declared>::KIND),
        ];
        check_source(
            "",
            SOURCE,
            &[("loops_plain", (p.clone(), p), false)],
            &["loops_family_*_v*", "loops_opaque_*"],
        );
    }
}

//! Rust's own forms that the kernel language takes (the path forms of the math methods, `if` as a
//! value, an unsuffixed literal typed by its later use, a `let` before a loop around the atom loop
//! under the carry schedules), and the messages that name what to write where it does not.

use kernels_gen::cuda_for;

fn lower(attr: &str, sig: &str, tile_body: &str) -> Result<String, String> {
    let src = format!("fn k{sig} {{ for row in a.tiles() {{ {tile_body} }} }}");
    let item: syn::ItemFn = syn::parse_str(&src).expect("test source parses as Rust");
    cuda_for(attr.parse().unwrap(), &item, "k.rs").map_err(|d| d.message)
}

fn thread(sig: &str, tile_body: &str) -> Result<String, String> {
    lower(r#"schedule = "thread""#, sig, tile_body)
}

/// The user's function as emitted (the `k_body` device function), without the prelude.
fn body_of(src: &str) -> &str {
    let at = src.find("k_body(").expect("a body function");
    &src[at..]
}

const CARRY: &[&str] = &["merge_path", "work_oriented", "split"];
const SIG: &str = "<T: Float>(a: Csr<T>, x: &[T], y: &mut [T])";

#[test]
fn path_forms_of_the_math_methods_emit_what_the_method_forms_emit() {
    let pairs = [
        ("m.max(a.values[nz])", "T::max(m, a.values[nz])"),
        ("a.values[nz].exp()", "T::exp(a.values[nz])"),
        ("a.values[nz].abs().sqrt()", "T::sqrt(T::abs(a.values[nz]))"),
        ("a.values[nz].powi(2)", "T::powi(a.values[nz], 2)"),
        (
            "a.values[nz].mul_add(2.0, m)",
            "T::mul_add(a.values[nz], 2.0, m)",
        ),
        ("m.clamp(0.0, 1.0)", "T::clamp(m, 0.0, 1.0)"),
    ];
    for (method, path) in pairs {
        let body =
            |e: &str| format!("let mut m = 0.0; for nz in a.atoms(row) {{ m = {e}; }} y[row] = m;");
        let want = thread(SIG, &body(method)).unwrap();
        let got = thread(SIG, &body(path)).unwrap_or_else(|e| panic!("`{path}`: {e}"));
        assert_eq!(body_of(&got), body_of(&want), "`{path}` against `{method}`");
    }
    // Concrete types, integers where Rust has the method, literals typed by the named type.
    let sig = "(a: Csr<f32>, y: &mut [f32], z: &mut [f64], n: &mut [u32], i: &mut [i32])";
    let src = thread(
        sig,
        "for nz in a.atoms(row) { y[row] = f32::max(0.0, a.values[nz]); z[row] = f64::exp(1.0); \
         n[row] = u32::count_ones(7) + u32::max(n[row], 2); i[row] = i32::abs(i[row]) + i32::pow(2, 3); }",
    )
    .unwrap();
    assert!(
        src.contains("y[row] = loops_max(0.0f, a_values[nz]);"),
        "{src}"
    );
    assert!(src.contains("z[row] = loops_exp(1.0);"), "{src}");
    assert!(
        src.contains("(loops_count_ones(7u) + loops_max(n[row], 2u))"),
        "{src}"
    );
    assert!(
        src.contains("(loops_abs(i[row]) + loops_pow(2, 3u))"),
        "{src}"
    );
}

#[test]
fn path_forms_that_do_not_exist_are_named() {
    let sig = "(a: Csr<f32>, y: &mut [f32], n: &mut [u32], d: f64)";
    let cases = [
        (
            "n[row] = u32::abs(n[row]);",
            "`u32::abs` does not exist: `abs` needs a float or a signed integer, not `u32`",
        ),
        (
            "n[row] = u32::exp(n[row]);",
            "`u32::exp` does not exist: `exp` needs a float, not `u32`",
        ),
        (
            "y[row] = f32::max(d, 1.0) as f32;",
            "`f32::max` takes a `f32`, found `f64` (convert with `as f32`, or call `f64::max`)",
        ),
        (
            "y[row] = f32::sigmoid(y[row]);",
            "`f32::sigmoid` is not a function the kernel language knows;",
        ),
        (
            "y[row] = f32::sqr(y[row]);",
            "`f32::sqr` is not a function the kernel language knows (did you mean `sqrt`?)",
        ),
        (
            "y[row] = f32::powi(y[row]);",
            "wrong number of arguments for `powi`: write `f32::powi(x, n)`",
        ),
        (
            "y[row] = f32::atomic_add(y[row], 1.0);",
            "`f32::atomic_add` is not a function the kernel language knows",
        ),
    ];
    for (stmt, want) in cases {
        let message = thread(sig, &format!("for nz in a.atoms(row) {{ {stmt} }}")).unwrap_err();
        assert!(message.starts_with(want), "`{stmt}`: {message}");
    }
}

#[test]
fn if_else_is_a_value() {
    let src = thread(
        SIG,
        "let mut s = 0.0; for nz in a.atoms(row) { s += if a.values[nz] > 0.0 { a.values[nz] } else if a.values[nz] < -1.0 { 1.0 } else { 0.0 }; } \
         y[row] = if s > 1.0 { s } else { -s };",
    )
    .unwrap();
    assert!(
        src.contains("s += ((a_values[nz] > T(0.0)) ? a_values[nz] : ((a_values[nz] < T(-1.0)) ? T(1.0) : T(0.0)));"),
        "{src}"
    );
    assert!(src.contains("y[row] = ((s > T(1.0)) ? s : (-s));"), "{src}");
    let cases = [
        (
            "let v = if true { 1.0 };",
            "an `if` used as a value needs an `else`",
        ),
        (
            "let v = if true { let w = 1.0; w } else { 0.0 };",
            "an `if` used as a value takes one expression in each branch",
        ),
        (
            "let v = if true { 1.0f32 } else { 0.0f64 };",
            "`if` and `else` have different types: `f32` and `f64`",
        ),
    ];
    for (stmt, want) in cases {
        let message = thread(
            SIG,
            &format!("{stmt} for nz in a.atoms(row) {{ y[row] = 1.0; }}"),
        )
        .unwrap_err();
        assert!(message.starts_with(want), "`{stmt}`: {message}");
    }
}

/// As in Rust, a slice is indexed by a `usize`; an unsuffixed literal (and a variable it alone
/// initialises) takes the type of its later use.
#[test]
fn indexes_are_usize_and_literals_take_the_type_of_their_use() {
    let sig = "(a: Csr<f32>, x: &[f32], y: &mut [f32], flags: &[u32], counts: &mut [u32], k: u32)";
    let message = thread(
        sig,
        "for nz in a.atoms(row) { y[row] += x[a.col_indices[nz]]; }",
    )
    .unwrap_err();
    assert_eq!(
        message,
        "`x` is indexed by a `usize`, as a Rust slice is, and this index is `i32`: convert it with `as usize`"
    );
    let message = thread(
        sig,
        "for j in 0..k { for nz in a.atoms(row) { y[row] += x[j]; } }",
    )
    .unwrap_err();
    assert!(
        message.starts_with(
            "`x` is indexed by a `usize`, as a Rust slice is, and this index is `u32`"
        ),
        "{message}"
    );
    let message = thread(
        sig,
        "for nz in a.atoms(row) { y[row] += a.values[row as u32]; }",
    )
    .unwrap_err();
    assert!(
        message.starts_with("`a.values` is indexed by a `usize`"),
        "{message}"
    );
    // `c` is a `u32` from its use, `i` a `usize`, `d` follows `c`.
    let src = thread(
        sig,
        "let mut c = 0; let mut i = 0; for nz in a.atoms(row) { c += flags[nz]; i = nz; } let d = c * 2; counts[row] = d; y[row] = x[i];",
    )
    .unwrap();
    assert!(src.contains("unsigned int c = 0u;"), "{src}");
    assert!(src.contains("unsigned long long i = 0ull;"), "{src}");
    assert!(src.contains("const unsigned int d = (c * 2u);"), "{src}");
    // A float literal's default element type gives way to the type it is used with.
    let src = lower(
        r#"schedule = "thread""#,
        "<T: Float>(a: Csr<T>, w: &[f32], y: &mut [f32])",
        "let mut s = 0.0; for nz in a.atoms(row) { s += w[nz]; } y[row] = s;",
    )
    .unwrap();
    assert!(src.contains("float s = 0.0f;"), "{src}");
    // A type Rust would not infer stays an error: `c` is an `i32` from its first use.
    let message = thread(sig, "let mut c = 0; let e: i32 = c; for nz in a.atoms(row) { c += flags[nz]; } counts[row] = e as u32;")
        .unwrap_err();
    assert_eq!(
        message,
        "mismatched types: expected `i32`, found `u32` (convert with `as i32`); `c` is a `u32` from its use on \
         line 1 (an unsuffixed literal takes the type it is used with)"
    );
    // Unchanged where the default fits: the body lowers as before.
    let src = thread(
        sig,
        "let mut c = 0; for nz in a.atoms(row) { c += 1; } y[row] = c as f32;",
    )
    .unwrap();
    assert!(src.contains("int c = 0;"), "{src}");
}

const SPMM_DEG: &str = "let deg = (a.row_offsets[row + 1] - a.row_offsets[row]) as f32; let scale = 2.0f32; \
    for j in 0..k { let mut sum = 0.0f32; for nz in a.atoms(row) { sum += a.values[nz] * b[(a.col_indices[nz] as usize) * k + j]; } \
    c[row * k + j] = scale * sum / deg; }";
const SPMM_SIG: &str = "(a: Csr<f32>, b: &[f32], c: &mut [f32], k: usize)";

/// `let`s before a tile-invariant loop around the atom loop run at the start of each of its
/// iterations (rounds) under the carry schedules.
#[test]
fn lets_before_a_loop_around_the_atom_loop_run_in_each_round() {
    for schedule in CARRY {
        let src = lower(&format!("schedule = \"{schedule}\""), SPMM_SIG, SPMM_DEG)
            .unwrap_or_else(|e| panic!("{schedule}: {e}"));
        let round = src
            .find("loops_round = 0")
            .unwrap_or_else(|| panic!("{schedule}: no rounds\n{src}"));
        let deg = src
            .find("const float deg = ")
            .unwrap_or_else(|| panic!("{schedule}: no deg\n{src}"));
        assert!(
            deg > round,
            "{schedule}: `deg` is computed before the rounds\n{src}"
        );
    }
    let message = lower(r#"schedule = "hierarchical""#, SPMM_SIG, SPMM_DEG).unwrap_err();
    assert!(
        message.starts_with("under `hierarchical` the atom loop cannot sit inside another loop")
            && message.contains("Use `merge_path`, `work_oriented` or `split`"),
        "{message}"
    );
}

#[test]
fn the_shapes_the_carry_schedules_refuse_are_named() {
    let sig = "(a: Csr<f32>, b: &[f32], c: &mut [f32], k: usize, skip: &[u32], total: &mut [f32])";
    let atoms = "for nz in a.atoms(row) { sum += a.values[nz] * b[j]; }";
    let cases = [
        (
            format!("let mut sum = 0.0f32; for j in 0..k {{ {atoms} }} c[row] = sum;"),
            "under `merge_path` a loop around the atom loop runs as rounds of the whole grid, the whole schedule once per iteration, so it must end the tile body: move this statement into the loop",
        ),
        (
            format!("let mut sum = 0.0f32; for j in 0..k {{ {atoms} sum = sum * 0.5; }}"),
            "under `merge_path` a loop around the atom loop runs as rounds of the whole grid, the whole schedule once per iteration, and the `let`s before it run again at the start of every iteration, so `sum`, which the loop assigns, cannot carry a value",
        ),
        (
            format!("let old = c[row]; for j in 0..k {{ let mut sum = 0.0f32; {atoms} c[row] = old + sum; }}"),
            "under `merge_path` a loop around the atom loop runs as rounds of the whole grid, the whole schedule once per iteration, and the `let`s before it run again at the start of every iteration: this one reads `c`, which the loop writes",
        ),
        (
            format!("total[row] = 0.0; for j in 0..k {{ let mut sum = 0.0f32; {atoms} c[row] = sum; }}"),
            "under `merge_path` a loop around the atom loop runs as rounds of the whole grid, the whole schedule once per iteration, and only `let`s may stand before it",
        ),
        (
            format!("if skip[row] == 0 {{ let j = 0; let mut sum = 0.0f32; {atoms} c[row] = sum; }}"),
            "under `merge_path` the atom loop must run once for every tile, not inside an `if`",
        ),
        (
            format!("for j in 0..k {{ if skip[row] == 0 {{ let mut sum = 0.0f32; {atoms} c[row] = sum; }} }}"),
            "under `merge_path` the atom loop must run once for every tile, not inside an `if`",
        ),
    ];
    for (body, want) in cases {
        let message = lower(r#"schedule = "merge_path""#, sig, &body).unwrap_err();
        assert!(message.starts_with(want), "{body}:\n{message}");
        // Every schedule that runs a tile's atoms as written takes it.
        for schedule in ["thread", "warp", "block"] {
            lower(&format!("schedule = \"{schedule}\""), sig, &body)
                .unwrap_or_else(|e| panic!("{schedule}: {body}: {e}"));
        }
    }
}

/// A keyed selection (`if v > m { m = v; .. }`) that does not fit gets the rule it breaks, not
/// the accumulators' message.
#[test]
fn a_selection_that_does_not_fit_gets_its_rule() {
    let sig = "(a: Csr<f32>, at: &mut [i32], y: &mut [f32])";
    let wrap = |inner: &str| {
        format!(
            "let mut m = 0.0f32; let mut c = -1; for nz in a.atoms(row) {{ {inner} }} at[row] = c;"
        )
    };
    let cases = [
        ("if a.values[nz] > m { m = a.values[nz]; c = a.col_indices[nz]; break; }", "a `break` in a selection that updates `m`"),
        ("if a.values[nz] > m { m = a.values[nz]; c = a.col_indices[nz]; } else { break; }", "a `break` in a selection that updates `m`"),
        ("if a.values[nz] > m { m = a.values[nz]; c = a.col_indices[nz]; if m > 10.0 { break; } }", "a `break` in a selection that updates `m`"),
        ("if a.values[nz] > m { m = a.values[nz]; c = a.col_indices[nz]; } else { c = 0; }", "this `if` updates `m` like a selection, but a keyed selection has the shape `if v > m { m = v; c = e; ... }` (or `<`, `>=`, `<=`), without `else`"),
        ("if a.values[nz] > m { m = a.values[nz]; y[row] = 1.0; }", "this `if` updates `m` like a selection, but a keyed selection has the shape `if v > m { m = v; c = e; ... }` (or `<`, `>=`, `<=`): its branch only sets variables"),
        ("let v = a.values[nz]; if v > m { m = a.values[nz]; c = a.col_indices[nz]; }", "this `if` updates `m` like a selection, but a keyed selection has the shape `if v > m { m = v; c = e; ... }` (or `<`, `>=`, `<=`): the branch sets the key `m` to the very candidate"),
    ];
    for schedule in ["warp", "merge_path"] {
        for (inner, want) in cases {
            let message =
                lower(&format!("schedule = \"{schedule}\""), sig, &wrap(inner)).unwrap_err();
            assert!(
                message.starts_with(&format!("under `{schedule}`")) && message.contains(want),
                "{schedule}: {inner}:\n{message}"
            );
            thread(sig, &wrap(inner)).unwrap();
        }
    }
}

#[test]
fn what_the_language_lacks_is_named_with_what_to_write() {
    let sig = "(a: Csr<f32>, x: &[f32], y: &mut [f32])";
    let atoms = |inner: &str| format!("for nz in a.atoms(row) {{ {inner} }}");
    let cases = [
        (atoms("while y[row] > 1.0 { y[row] = y[row] / 2.0; }"), "`while` loops are not supported in a kernel body: write a range loop that stops with `break`, `for step in 0..limit { if !(condition) { break; } ... }`"),
        (atoms("loop { break; }"), "`loop` is not supported in a kernel body: write a range loop that stops with `break`"),
        (atoms("match 1 { _ => {} }"), "`match` is not supported in a kernel body: write `if` / `else if` / `else`"),
        (atoms("let f = |v: f32| v;"), "closures are not supported in a kernel body: write a `#[device]` helper function"),
        ("for (k, nz) in a.atoms(row).enumerate() { y[row] = 1.0; }".to_string(), "`.enumerate()` is not supported in a kernel body: loop over the atoms, `for atom in a.atoms(row)`; the atom's position in its tile is `atom - a.row_offsets[row] as usize`"),
        (atoms("for (i, v) in x.iter().enumerate() { y[row] = *v; }"), "`.enumerate()` is not supported in a kernel body: walk `x` by its indexes, `for i in 0..x.len() { let v = x[i]; ... }`"),
        (atoms("for v in x.iter() { y[row] = 1.0; }"), "iterators are not supported in a kernel body: walk `x` by its indexes"),
        (atoms("for v in x { y[row] = 1.0; }"), "a `for` loop runs over a range (`a..b`) or a tile's atoms (`a.atoms(tile)`): walk the slice `x` by its indexes"),
        (atoms("for i in (0..4).rev() { y[row] = 1.0; }"), "iterators are not supported in a kernel body: for `(a..b).rev()` write `for k in 0..(b - a) { let i = b - 1 - k; ... }`"),
        (atoms("let s = &x[1..3];"), "sub-slices (`&x[a..b]`) are not supported in a kernel body, whose values are scalars: index `x` itself, `x[a + k]` in a loop `for k in 0..b - a`"),
        (atoms("let s = x[1..3];"), "sub-slices (`&x[a..b]`) are not supported in a kernel body"),
        (atoms("y[row] = a.values[nz].sigmoid();"), "`sigmoid` is not a method the kernel language knows; methods: min, max,"),
        (atoms("y[row] = a.values[nz].sqr();"), "`sqr` is not a method the kernel language knows (did you mean `sqrt`?)"),
    ];
    for (body, want) in cases {
        let message = thread(sig, &body).unwrap_err();
        assert!(message.starts_with(want), "{body}:\n{message}");
    }
    let message = thread(sig, &atoms("y[row] = a.values[nz].sigmoid();")).unwrap_err();
    assert!(
        message.ends_with("For a function of your own, write a `#[device]` helper (`#[device] fn sigmoid<T: Float>(x: T) -> T { .. }`) and call it as `sigmoid(x)`"),
        "{message}"
    );
}

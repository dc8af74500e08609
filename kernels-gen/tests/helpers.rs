//! `#[loops::device]` helpers in the front end and the emitter: how calls are typed, what CUDA
//! they become, and what is refused (with which message). The macro's side (fetching a helper's
//! definition) is tested in `frontend/device.rs`.

use kernels_gen::cuda_with_helpers;
use kernels_gen::frontend::HelperItem;

const SQUARE: &str = "fn square<T: Float>(x: T) -> T { x * x }";

fn helpers(sources: &[&str]) -> Vec<HelperItem> {
    sources
        .iter()
        .map(|s| HelperItem {
            item: syn::parse_str(s).expect("helper parses as Rust"),
            file: "math.rs".into(),
        })
        .collect()
}

fn lower(sig: &str, tile_body: &str, helper_sources: &[&str]) -> Result<String, String> {
    let kernel = format!("fn k{sig} {{ for row in a.tiles() {{ {tile_body} }} }}");
    let item: syn::ItemFn = syn::parse_str(&kernel).expect("kernel parses as Rust");
    let attr = r#"schedule = "thread""#.parse().unwrap();
    cuda_with_helpers(attr, &item, &helpers(helper_sources), "k.rs").map_err(|d| d.message)
}

const GENERIC: &str = "<T: Float>(a: Csr<T>, x: &[T], y: &mut [T])";
const F32: &str = "(a: Csr<f32>, x: &[f32], y: &mut [f32], k: u32)";

#[test]
fn a_generic_helper_is_a_template_bound_by_its_arguments() {
    let src = lower(
        GENERIC,
        "let mut s = 0.0; for nz in a.atoms(row) { s += square(a.values[nz]); } y[row] = square(s);",
        &[SQUARE],
    )
    .unwrap();
    assert!(
        src.contains(
            "template <typename T>\nstatic __device__ __forceinline__ T loops_fn_square(const T x) {\n#line 1 \"math.rs\"\n    return (x * x);\n"
        ),
        "{src}"
    );
    assert!(
        src.contains("s += loops_fn_square<T>(a_values[nz]);"),
        "{src}"
    );
    assert!(src.contains("y[row] = loops_fn_square<T>(s);"), "{src}");
    // Concrete arguments bind concrete types; an unsuffixed literal takes the type the others
    // bind, or the one the context expects.
    let src = lower(
        F32,
        "for nz in a.atoms(row) { y[row] = square(x[row]) + square(2.0); }",
        &[SQUARE],
    )
    .unwrap();
    assert!(
        src.contains("(loops_fn_square<float>(x[row]) + loops_fn_square<float>(2.0f))"),
        "{src}"
    );
}

#[test]
fn concrete_parameters_type_their_arguments_like_a_builtin() {
    let scale = "fn scale(v: f32, by: f32, times: u32) -> f32 { let mut s = v; for i in 0..times { s = s * by; } s }";
    let src = lower(
        F32,
        "for nz in a.atoms(row) { y[row] = scale(a.values[nz], 2, 3); }",
        &[scale],
    )
    .unwrap();
    assert!(
        src.contains("y[row] = loops_fn_scale(a_values[nz], 2.0f, 3u);"),
        "{src}"
    );
    assert!(
        src.contains("static __device__ __forceinline__ float loops_fn_scale(const float v, const float by, const unsigned int times) {"),
        "{src}"
    );
    assert!(src.contains("    return s;\n"), "{src}");
}

#[test]
fn helpers_call_helpers_and_each_is_emitted_once_callees_first() {
    let norm = "fn norm2<T: Float>(p: T, q: T) -> T { return square(p) + square(q); }";
    let unused = "fn unused(v: f64) -> f64 { v }";
    let src = lower(
        GENERIC,
        "for nz in a.atoms(row) { y[row] = norm2(x[row], a.values[nz]) + square(x[row]); }",
        &[norm, SQUARE, unused],
    )
    .unwrap();
    let square = src.find("T loops_fn_square(").expect("square emitted");
    let norm2 = src.find("T loops_fn_norm2(").expect("norm2 emitted");
    assert!(square < norm2, "{src}");
    assert_eq!(src.matches("T loops_fn_square(").count(), 1, "{src}");
    assert!(
        src.contains("return (loops_fn_square<T>(p) + loops_fn_square<T>(q));"),
        "{src}"
    );
    assert!(!src.contains("loops_fn_unused"), "{src}");
    assert!(src.find("void k_body(").unwrap() > norm2, "{src}");
}

#[test]
fn returns_in_branches_mutable_parameters_and_bool_results() {
    let clamp = "fn clamp_to(mut v: f64, hi: f64) -> f64 { if v > hi { return hi; } else if v < -hi { v = -hi; } v }";
    let positive = "fn positive(v: f64) -> bool { v > 0.0 }";
    let src = lower(
        "(a: Csr<f64>, y: &mut [f64])",
        "for nz in a.atoms(row) { if positive(a.values[nz]) { y[row] = clamp_to(a.values[nz], 1.0); } }",
        &[clamp, positive],
    )
    .unwrap();
    assert!(
        src.contains("double loops_fn_clamp_to(double v, const double hi) {"),
        "{src}"
    );
    assert!(src.contains("return hi;"), "{src}");
    assert!(
        src.contains("bool loops_fn_positive(const double v) {"),
        "{src}"
    );
    assert!(
        src.contains("if (loops_fn_positive(a_values[nz])) {"),
        "{src}"
    );
}

/// A helper that ends in `if` / `else` whose branches end in values returns the value of the
/// branch taken (statements before it included), as Rust's; `if` / `else` is a value inside an
/// expression too.
#[test]
fn a_final_if_else_returns_its_branches_values() {
    let huber = "fn huber<T: Float>(r: T, d: T) -> T { let a = r.abs(); if a <= d { 0.5 * r * r } else if a > 1e30 { let big = T::MAX; big } else { d * (a - 0.5 * d) } }";
    let sign = "fn sign(v: f32) -> f32 { 2.0 * if v < 0.0 { -1.0 } else { 1.0 } }";
    let src = lower(
        F32,
        "for nz in a.atoms(row) { y[row] = huber(a.values[nz], 1.0) + sign(x[row]); }",
        &[huber, sign],
    )
    .unwrap();
    assert!(src.contains("if ((a <= d)) {"), "{src}");
    assert!(src.contains("return ((T(0.5) * r) * r);"), "{src}");
    assert!(src.contains("const T big = loops_const_max<T>();"), "{src}");
    assert!(src.contains("return big;"), "{src}");
    assert!(src.contains("return (d * (a - (T(0.5) * d)));"), "{src}");
    assert!(
        src.contains("return (2.0f * ((v < 0.0f) ? -1.0f : 1.0f));"),
        "{src}"
    );
}

#[test]
fn errors_name_the_problem() {
    let cases: &[(&str, &str, &[&str], &str)] = &[
        (
            F32,
            "for nz in a.atoms(row) { y[row] = cube(x[row]); }",
            &[],
            "`cube` is not a kernel builtin or a `#[loops::device]` helper in scope",
        ),
        (
            F32,
            "for nz in a.atoms(row) { y[row] = square(x[row], 1.0); }",
            &[SQUARE],
            "`square` takes 1 argument(s), found 2",
        ),
        (
            F32,
            "for nz in a.atoms(row) { y[row] = square(k) as f32; }",
            &[SQUARE],
            "`square` takes a float for `x`",
        ),
        (
            F32,
            "for nz in a.atoms(row) { y[row] = scale(x[row], k); }",
            &["fn scale(v: f32, by: f32) -> f32 { v * by }"],
            "expected `f32`, found `u32`",
        ),
        (
            F32,
            "for nz in a.atoms(row) { y[row] = s(x[row]); }",
            &["fn s(v: f32) { }"],
            "returns a value",
        ),
        (
            F32,
            "for nz in a.atoms(row) { y[row] = s(x); }",
            &["fn s(v: &[f32]) -> f32 { v[0] }"],
            "takes scalars only",
        ),
        (
            F32,
            "for nz in a.atoms(row) { y[row] = s(1.0); }",
            &["fn s(v: f32) -> f32 { s(v) }"],
            "`s` calls itself",
        ),
        (
            F32,
            "for nz in a.atoms(row) { y[row] = f(1.0); }",
            &[
                "fn f(v: f32) -> f32 { g(v) }",
                "fn g(v: f32) -> f32 { f(v) }",
            ],
            "recursive helpers: `f` -> `g` -> `f`",
        ),
        (
            F32,
            "for nz in a.atoms(row) { y[row] = s(1.0); }",
            &["fn s(v: f32) -> f32 { atomic_add(&mut v, 1.0); v }"],
            "a helper is a pure function",
        ),
        (
            F32,
            "for nz in a.atoms(row) { y[row] = s(1.0); }",
            &["fn s(v: f32) -> f32 { if v > 0.0 { v } v }"],
            "write `return <value>;` here",
        ),
        (
            F32,
            "for nz in a.atoms(row) { y[row] = s(1.0); }",
            &["fn s(v: f32) -> f32 { if v > 0.0 { return v; } }"],
            "must end with its value",
        ),
        (
            F32,
            "for nz in a.atoms(row) { y[row] = s(1.0); }",
            &["fn s(v: f32) -> f32 { v = 2.0; v }"],
            "cannot assign to parameter `v`",
        ),
        (
            F32,
            "for nz in a.atoms(row) { y[row] = min(1.0); }",
            &["fn min(v: f32) -> f32 { v }"],
            "kernel builtin",
        ),
        (
            F32,
            "for nz in a.atoms(row) { return; }",
            &[],
            "`return` is not supported in a kernel body",
        ),
        (
            F32,
            "let f = 1.0f32; for nz in a.atoms(row) { y[row] = f(1.0); }",
            &[],
            "`f` is a variable, not a function",
        ),
    ];
    for (sig, body, helper_sources, expected) in cases {
        let message = lower(sig, body, helper_sources).unwrap_err();
        assert!(
            message.contains(expected),
            "for `{body}` with {helper_sources:?}: expected a message containing {expected:?}, got {message:?}"
        );
    }
}

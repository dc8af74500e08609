//! The front end on its own: what it accepts, how it types, and what it rejects (with which message).

use kernels_gen::cuda_for;

fn lower(attr: &str, body: &str) -> Result<String, String> {
    let item: syn::ItemFn = syn::parse_str(body).expect("test source parses as Rust");
    let attr: proc_macro2::TokenStream = attr.parse().unwrap();
    cuda_for(attr, &item, "k.rs").map_err(|d| d.message)
}

fn spmv_with(sig: &str, tile_body: &str) -> String {
    format!("fn k{sig} {{ for row in a.tiles() {{ {tile_body} }} }}")
}

const SPMV_SIG: &str = "<T: Float>(a: Csr<T>, x: &[T], y: &mut [T])";
const SPMV_BODY: &str = "let mut sum = 0.0; for nz in a.atoms(row) { sum += a.values[nz] * x[a.col_indices[nz] as usize]; } y[row] = sum;";

fn ok(tile_body: &str) -> String {
    lower(r#"schedule = "thread""#, &spmv_with(SPMV_SIG, tile_body)).unwrap()
}

fn err(sig: &str, tile_body: &str) -> String {
    lower(r#"schedule = "thread""#, &spmv_with(sig, tile_body)).unwrap_err()
}

#[test]
fn untyped_float_literal_takes_the_element_type() {
    let src = ok(SPMV_BODY);
    assert!(src.contains("T sum = T(0.0);"), "{src}");
}

#[test]
fn untyped_literal_takes_the_other_operands_type() {
    let src = ok(&format!("{SPMV_BODY} y[row] = 2.0 * y[row] + 1.5;"));
    assert!(src.contains("((T(2.0) * y[row]) + T(1.5))"), "{src}");
    let src = lower(
        r#"schedule = "thread""#,
        &spmv_with(
            "(a: Csr<f32>, y: &mut [f32], n: u32)",
            "let k = 3; let m = n + 1; for nz in a.atoms(row) { y[row] += 0.5 * a.values[nz]; }",
        ),
    )
    .unwrap();
    assert!(src.contains("const int k = 3;"), "{src}");
    assert!(src.contains("const unsigned int m = (n + 1u);"), "{src}");
    assert!(src.contains("(0.5f * a_values[nz])"), "{src}");
}

#[test]
fn suffixed_literals_keep_their_type() {
    let src = lower(r#"schedule = "thread""#, &spmv_with("(a: Csr<f64>, y: &mut [f64])", "let mut s = 0.0f64; let c = 7u64; for nz in a.atoms(row) { s += a.values[nz]; } y[row] = s + (c as f64);")).unwrap();
    assert!(src.contains("double s = 0.0;"), "{src}");
    assert!(src.contains("const unsigned long long c = 7ull;"), "{src}");
}

#[test]
fn builtins_as_functions_and_methods() {
    let src = ok("let mut m = 0.0; for nz in a.atoms(row) { m = max(m, a.values[nz].abs()); m = m.min(x[row].sqrt()); } y[row] = m;");
    assert!(
        src.contains("loops_max(m, loops_abs(a_values[nz]))"),
        "{src}"
    );
    assert!(src.contains("loops_min(m, loops_sqrt(x[row]))"), "{src}");
}

#[test]
fn ranges_if_else_and_atomics() {
    let src = lower(
        r#"schedule = "thread""#,
        &spmv_with(
            "(a: Csr<f32>, b: &[f32], c: &mut [f32], k: usize, hits: &mut [u32])",
            "for j in 0..k { let mut s = 0.0f32; for nz in a.atoms(row) { s += a.values[nz] * b[(a.col_indices[nz] as usize) * k + j]; } if s > 0.0 { c[row * k + j] = s; } else if s < 0.0 { c[row * k + j] = -s; } else { atomic_add(&mut hits[0], 1); } }",
        ),
    )
    .unwrap();
    assert!(
        src.contains("for (unsigned long long j = 0ull; j < loops_end"),
        "{src}"
    );
    assert!(
        src.contains("(void)loops_atomic_add(&hits[0ull], 1u);"),
        "{src}"
    );
    assert!(src.contains("else {"), "{src}");
}

#[test]
fn errors_name_the_problem() {
    let cases: &[(&str, &str, &str)] = &[
        (SPMV_SIG, "let mut sum = 0.0f32; let s2 = 1.0f64; for nz in a.atoms(row) { sum += s2; } y[row] = sum;", "mismatched types"),
        (SPMV_SIG, "for nz in a.atoms(row) { y[row] = x[nz].foo(); }", "`foo` is not a method"),
        (SPMV_SIG, "for nz in a.atoms(row) { let f = |v: f32| v; }", "closures are not supported"),
        (SPMV_SIG, "for nz in a.atoms(row) { for m in a.atoms(row) { y[row] = 1.0; } }", "cannot nest"),
        (SPMV_SIG, "let s = 0.0; for nz in a.atoms(row) { s += a.values[nz]; }", "immutable variable `s`"),
        (SPMV_SIG, "for nz in a.atoms(row) { x[row] = 1.0; }", "it is a `&` slice"),
        (SPMV_SIG, "for nz in a.atoms(row) { y[row] = q; }", "cannot find `q`"),
        (SPMV_SIG, "for nz in a.atoms(row) { let row = 1; }", "shadowing is not supported"),
        (SPMV_SIG, "for nz in a.atoms(row) { let loops_x = 1; }", "reserved"),
        (SPMV_SIG, "for nz in a.atoms(row) { let x_len = 1; }", "generated name"),
        (SPMV_SIG, "for nz in a.atoms(row) { y[row] = T::zero(); }", "is not a function the kernel language knows"),
        (SPMV_SIG, "for nz in a.atoms(row) { y[1.5] = 1.0; }", "float literal"),
        (SPMV_SIG, "for nz in a.atoms(row) { a.values[nz] = 1.0; }", "read-only"),
        (SPMV_SIG, "for nz in a.atoms(row) { y[row] = a.tile_of(3); }", "current atom"),
        ("(a: Csr<f32>, s: String)", "for nz in a.atoms(row) {}", "unsupported type `String`"),
        ("(a: Csr<i32>)", "for nz in a.atoms(row) {}", "must be `f32`, `f64`"),
        ("(a: Csr<f32>, v: Vec<f32>)", "for nz in a.atoms(row) {}", "unsupported type"),
    ];
    for (sig, body, expected) in cases {
        let message = err(sig, body);
        assert!(
            message.contains(expected),
            "for `{body}`: expected a message containing {expected:?}, got {message:?}"
        );
    }
}

/// Found by tests/fuzz_frontend.rs. A literal out of its type's range is an error, as in Rust (in
/// the CUDA a larger integer would silently take a wider type, and a float out of range does not
/// compile), while the extremes that fit are taken. A kernel, element type, parameter or variable
/// named like a C++ keyword, a name CUDA defines, a generated name or the element type is an error.
#[test]
fn out_of_range_literals_and_names_that_clash_in_cuda_are_errors() {
    for (body, expected) in [
        ("let z = 4294967296u32;", "literal out of range for `u32`"),
        ("let z = 2147483648;", "literal out of range for `i32`"),
        (
            "let z = -9223372036854775809i64;",
            "literal out of range for `i64`",
        ),
        (
            "let z = 18446744073709551616usize;",
            "literal out of range for `usize`",
        ),
        ("let z = 1e39f32;", "literal out of range for `f32`"),
        ("let z = 1e400;", "literal out of range for `T`"),
    ] {
        let message = err(SPMV_SIG, &format!("{body} {SPMV_BODY}"));
        assert!(message.contains(expected), "for `{body}`: got {message:?}");
    }
    for (body, expected) in [
        ("let atomicAdd = 1;", "CUDA defines"),
        ("let NULL = 1;", "CUDA defines"),
        ("let max = 1;", "CUDA defines"),
        ("let __x = 1;", "CUDA defines"),
        ("let T = 1;", "element type"),
        ("let r#x = 1;", "raw identifiers"),
        ("let ñ = 1;", "ASCII"),
    ] {
        let message = err(SPMV_SIG, &format!("{body} {SPMV_BODY}"));
        assert!(message.contains(expected), "for `{body}`: got {message:?}");
    }
    ok(&format!(
        "let z = -2147483648; let w = 4294967295u32; let v = 18446744073709551615usize; \
         let g = -9223372036854775808i64; let f = 3.4e38f32; let h = 1e300; {SPMV_BODY}"
    ));
    for (function, expected) in [
        ("fn double(a: Csr<f32>, y: &mut [f32])", "keyword in CUDA"),
        (
            "fn k<int: Float>(a: Csr<int>, y: &mut [int])",
            "keyword in CUDA",
        ),
        ("fn loops_k(a: Csr<f32>, y: &mut [f32])", "reserved"),
        ("fn k(a: Csr<f32>, y: &mut [f32], min: f32)", "CUDA defines"),
        (
            "fn k<T: Float>(a: Csr<T>, y: &mut [T], T: u32)",
            "element type",
        ),
        (
            "fn k(a: Csr<f32>, a_rows: &[f32], y: &mut [f32])",
            "a part of `a`",
        ),
        (
            "fn k(a: Csr<f32>, y: &mut [f32], y_len: u32)",
            "a part of `y`",
        ),
        (
            "fn k(a: Csr<f32>, y: &mut [f32], y: &mut [u32])",
            "more than once",
        ),
    ] {
        let item = format!(
            "{function} {{ for r in a.tiles() {{ for nz in a.atoms(r) {{ y[r] = 1.0; }} }} }}"
        );
        let message = lower(r#"schedule = "thread""#, &item).unwrap_err();
        assert!(
            message.contains(expected),
            "for `{function}`: got {message:?}"
        );
    }
}

/// Empty statements (`;`) are taken, as Rust takes them (found by tests/fuzz_frontend.rs: they were
/// an error without a span).
#[test]
fn empty_statements_are_taken() {
    let src = lower(
        r#"schedule = "thread""#,
        &format!("fn k{SPMV_SIG} {{ ; for row in a.tiles() {{ ;; {SPMV_BODY} ; }} ; }}"),
    )
    .unwrap();
    assert!(src.contains("y[row] = sum;"), "{src}");
}

#[test]
fn attribute_errors() {
    let body = spmv_with(SPMV_SIG, SPMV_BODY);
    for (attr, expected) in [
        (r#"schedule = "nope""#, "unknown schedule `nope`"),
        (
            r#"schedule = "thread", group = 3"#,
            "unknown argument `group`",
        ),
        (r#"block_size = 64"#, "needs a schedule"),
        (
            r#"schedule = "thread", block_size = 2000"#,
            "multiple of 32",
        ),
        (r#"schedule = thread"#, "takes a string"),
        (r#"schedule = "thread", schedule = "thread""#, "given twice"),
    ] {
        let message = lower(attr, &body).unwrap_err();
        assert!(message.contains(expected), "for `{attr}`: got {message:?}");
    }
}

#[test]
fn body_must_be_one_tile_loop() {
    let message = lower(r#"schedule = "thread""#, "fn k(a: Csr<f32>) { let z = 1; }").unwrap_err();
    assert!(
        message.contains("must be one `for tile in a.tiles()"),
        "{message}"
    );
    let message = lower(r#"schedule = "thread""#, "fn k(a: Csr<f32>, b: Csr<f32>, y: &mut [f32]) { for r in a.tiles() { for nz in b.atoms(r) { y[r] = 1.0; } } }").unwrap_err();
    assert!(message.contains("the tile loop is over `a`"), "{message}");
}

#[test]
fn work_oriented_scans_where_each_accumulator_folds_one_staged_operand() {
    let attr = "schedule = \"work_oriented\"";
    let scans = |body: &str| {
        lower(attr, &spmv_with(SPMV_SIG, body))
            .expect("lowers")
            .contains("loops_heads")
    };
    assert!(scans(SPMV_BODY));
    // `-=` folds the negated operand with `+`.
    let minus = "let mut sum = 0.0; for nz in a.atoms(row) { sum -= a.values[nz] * x[a.col_indices[nz] as usize]; } y[row] = sum;";
    assert!(scans(minus));
    assert!(lower(attr, &spmv_with(SPMV_SIG, minus))
        .unwrap()
        .contains("= (-((a_values[nz] * x["));
    // Two updates of one accumulator, or an atom loop that writes: the per-thread walks.
    assert!(!scans("let mut sum = 0.0; for nz in a.atoms(row) { sum += a.values[nz]; sum += x[a.col_indices[nz] as usize]; } y[row] = sum;"));
    assert!(!scans("let mut sum = 0.0; for nz in a.atoms(row) { sum += a.values[nz]; y[a.col_indices[nz] as usize] = 1.0; } y[row] = sum;"));
    // No epilogue: nothing to finish, no scan.
    assert!(!scans(
        "for nz in a.atoms(row) { y[a.col_indices[nz] as usize] = a.values[nz]; }"
    ));
}

/// A per-row argmax (`if v > m { m = v; c = col; }`) is a selection: the groups keep each lane's
/// choice with its atom's position and combine them, the carry schedules carry it through their
/// fix-up and look-back, so every schedule takes it: `auto` keeps its thread, group and carry
/// candidates, `lrb` its warp and block mappings.
#[test]
fn argmax_runs_under_every_schedule() {
    let sig = "(a: Csr<f32>, best: &mut [u32])";
    let body = "let mut m = -1.0f32; let mut c = 0u32; \
                for nz in a.atoms(row) { let v = a.values[nz]; if v > m { m = v; c = a.col_indices[nz] as u32; } } \
                best[row] = c;";
    let src = spmv_with(sig, body);
    let auto = lower(r#"schedule = "auto""#, &src).expect("auto keeps every candidate");
    assert!(
        auto.contains("k_thread(") && auto.contains("k_group32(") && auto.contains("k_merge_path("),
        "{auto}"
    );
    let lrb = lower(r#"schedule = "lrb""#, &src).expect("lrb keeps its group mappings");
    assert!(
        lrb.contains("k_lrb_warp(") && lrb.contains("loops_lane"),
        "{lrb}"
    );
    let warp = lower(r#"schedule = "warp""#, &src).expect("a warp combines the lanes' choices");
    // Each lane's choice travels with the position of its atom; a larger key, or an equal key
    // at an earlier atom, wins.
    assert!(
        warp.contains("loops_other_m > m || (loops_other_m == m && loops_other_loops_at"),
        "{warp}"
    );
    lower(r#"schedule = "hierarchical""#, &src).expect("hierarchical keeps any update");
    for attr in [
        r#"schedule = "merge_path""#,
        r#"schedule = "work_oriented""#,
        r#"schedule = "split""#,
    ] {
        let carry = lower(attr, &src).expect("a carry schedule carries the choice");
        // The shares' choices meet in the block's scan by key, then position; a cut row is
        // finished from the values before the loop.
        assert!(
            carry.contains("loops_other_m > loops_run_m || (loops_other_m == loops_run_m"),
            "{attr}: {carry}"
        );
        assert!(
            carry.contains("loops_other_m > m || (loops_other_m == m"),
            "{attr}"
        );
    }
}

/// The value and the count of a maximum (`if v > m { m = v; n = 1; } else if v == m { n += 1; }`)
/// is a selection with a tally: the count moves with the key, and two partials with equal keys
/// add their counts, under every schedule; a tie branch that does not fit is an error naming the
/// schedule.
#[test]
fn count_max_runs_under_every_schedule() {
    let sig = "(a: Csr<f32>, best: &mut [f32], count: &mut [u32], at: &mut [i32])";
    let body = "let mut m = f32::NEG_INFINITY; let mut n = 0u32; let mut c = -1; \
                for nz in a.atoms(row) { let v = a.values[nz]; \
                  if v > m { m = v; n = 1; c = a.col_indices[nz]; } else if v == m { n += 1; } } \
                best[row] = m; count[row] = n; at[row] = c;";
    let src = spmv_with(sig, body);
    let auto = lower(r#"schedule = "auto""#, &src).expect("auto keeps every candidate");
    assert!(
        auto.contains("k_thread(") && auto.contains("k_group32(") && auto.contains("k_merge_path("),
        "{auto}"
    );
    let warp = lower(r#"schedule = "warp""#, &src).expect("a warp combines counts");
    assert!(
        warp.contains("if (loops_other_m > m) {")
            && warp.contains(
                "else if (loops_other_m == m) { n = (n + loops_other_n); if (loops_other_loops_at"
            ),
        "{warp}"
    );
    // The other lanes count from nothing.
    assert!(
        warp.contains("if (loops_lane != 0u) n = ((unsigned int)0);"),
        "{warp}"
    );
    lower(r#"schedule = "block""#, &src).expect("a block combines counts in shared memory");
    lower(r#"schedule = "hierarchical""#, &src).expect("in order");
    lower(r#"schedule = "thread""#, &src).expect("in order");
    for attr in [
        r#"schedule = "merge_path""#,
        r#"schedule = "work_oriented""#,
        r#"schedule = "split""#,
    ] {
        let carry = lower(attr, &src).expect("a carry schedule carries the count");
        assert!(
            carry.contains("else if (loops_other_m == loops_run_m) { loops_run_n = (loops_run_n + loops_other_n);"),
            "{attr}: {carry}"
        );
        // A cut share counts from nothing.
        assert!(carry.contains("n = ((unsigned int)0);"), "{attr}");
    }
    let refused = [
        // Different operators in the two branches.
        (
            "if v > m { m = v; n += 1; } else if v == m { n *= 2; }",
            "shape",
        ),
        // The tally starts from another value than a tie adds.
        (
            "if v > m { m = v; n = 0; } else if v == m { n += 1; }",
            "same value",
        ),
        // `>=`: the tie branch never runs.
        (
            "if v >= m { m = v; n = 1; } else if v == m { n += 1; }",
            "never runs",
        ),
        // A tie of another candidate.
        (
            "if v > m { m = v; n = 1; } else if a.values[nz] * 2.0 == m { n += 1; }",
            "tie of the same candidate",
        ),
        // Subtraction does not combine.
        (
            "if v > m { m = v; n = 1; } else if v == m { n -= 1; }",
            "tally of a selection",
        ),
        // The key is not a tally.
        (
            "if v > m { m = v; n = 1; } else if v == m { m = v; }",
            "only update its tallies",
        ),
    ];
    for (atoms, why) in refused {
        let body = format!(
            "let mut m = f32::NEG_INFINITY; let mut n = 0u32; \
             for nz in a.atoms(row) {{ let v = a.values[nz]; {atoms} }} best[row] = m; count[row] = n;"
        );
        for attr in [r#"schedule = "warp""#, r#"schedule = "merge_path""#] {
            let message = lower(attr, &spmv_with(sig, &body)).unwrap_err();
            assert!(
                message.contains(why)
                    && message.contains(attr.trim_start_matches("schedule = ").trim_matches('"')),
                "{attr} {atoms}: {message}"
            );
        }
    }
}

/// Two atom loops under a carry schedule run as a launch each (under `hierarchical`, as passes
/// each): the first keeps its accumulators
/// in the call's tile state, the second reads them and runs the statements between again. An
/// earlier loop the schedule cannot split rules the schedule out (`auto` leaves it out), and a
/// store between the loops is an error naming the schedule.
#[test]
fn several_atom_loops_under_the_carry_schedules() {
    let sig = "(a: Csr<f32>, y: &mut [f32])";
    let two = "let mut sum = 0.0f32; for nz in a.atoms(row) { sum += a.values[nz]; } \
               let m = sum * 0.5; let mut dev = 0.0f32; \
               for nz in a.atoms(row) { dev += (a.values[nz] - m).abs(); } y[row] = dev;";
    for attr in [
        r#"schedule = "merge_path""#,
        r#"schedule = "work_oriented""#,
        r#"schedule = "split""#,
    ] {
        let src = lower(attr, &spmv_with(sig, two)).expect("two passes");
        assert!(src.contains("if (loops_pass == 0)") && src.contains("if (loops_pass == 1)"));
        assert!(src.contains("const int loops_pass, const int loops_passes, unsigned long long* __restrict__ loops_tile_state"), "{attr}");
        assert!(
            src.contains("= sum;") && src.contains("sum = *reinterpret_cast<const float*>"),
            "{attr}"
        );
    }
    let unsplittable = "let mut sum = 0.0f32; for nz in a.atoms(row) { sum = sum * 0.5 + a.values[nz]; } \
                        let mut dev = 0.0f32; for nz in a.atoms(row) { dev += a.values[nz] - sum; } y[row] = dev;";
    let e = lower(r#"schedule = "merge_path""#, &spmv_with(sig, unsplittable)).unwrap_err();
    assert!(e.contains("`merge_path`"), "{e}");
    let auto = lower(r#"schedule = "auto""#, &spmv_with(sig, unsplittable)).expect("auto");
    assert!(!auto.contains("k_merge_path(") && auto.contains("k_thread("));
    let store = "let mut sum = 0.0f32; for nz in a.atoms(row) { sum += a.values[nz]; } y[row] = sum; \
                 let mut dev = 0.0f32; for nz in a.atoms(row) { dev += a.values[nz]; } y[row] = dev;";
    let e = lower(r#"schedule = "split""#, &spmv_with(sig, store)).unwrap_err();
    assert!(
        e.contains("`split`") && e.contains("between two atom loops"),
        "{e}"
    );
    // `hierarchical` takes each loop's passes in turn, the earlier loops' state kept.
    let h = lower(r#"schedule = "hierarchical""#, &spmv_with(sig, two)).expect("hierarchical");
    assert!(
        h.contains("if (loops_loop == 1)") && h.contains("loops_k * loops_mdt"),
        "{h}"
    );
}

/// A negated negative literal keeps its two minus signs apart: `--1` would be a decrement in C++
/// (found by the front end's fuzz: NVRTC said "expression must be a modifiable lvalue").
#[test]
fn a_double_negation_is_not_a_decrement() {
    let src = lower(
        r#"schedule = "thread""#,
        &spmv_with(
            "(a: Csr<f32>, y: &mut [i32])",
            "let mut c = - - 1; for nz in a.atoms(row) { c += 1; } y[row] = c;",
        ),
    )
    .expect("lowers");
    assert!(src.contains("int c = (-(-1));"), "{src}");
    assert!(!src.contains("--1"), "{src}");
}

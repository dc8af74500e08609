//! `for j in lanes(start..end)`: what each schedule makes of it (a serial loop, or the group's
//! lanes split between the values and the atoms) and what the front end and the schedules refuse,
//! with which message. The split's model is checked in `schedule_models.rs`.

use kernels_gen::cuda_for;

const SPMM: &str = "<T: Float>(a: Csr<T>, b: &[T], c: &mut [T], k: usize)";
const SPMM_BODY: &str = "for j in lanes(0..k) { let mut sum = 0.0; \
    for nz in a.atoms(row) { sum += a.values[nz] * b[(a.col_indices[nz] as usize) * k + j]; } \
    c[row * k + j] = sum; }";

fn lower(attr: &str, sig: &str, tile_body: &str) -> Result<String, String> {
    let kernel = format!("fn k{sig} {{ for row in a.tiles() {{ {tile_body} }} }}");
    let item: syn::ItemFn = syn::parse_str(&kernel).expect("kernel parses as Rust");
    cuda_for(attr.parse().unwrap(), &item, "k.rs").map_err(|d| d.message)
}

/// The kernel's own code, without `#line` directives.
fn code(attr: &str, sig: &str, tile_body: &str) -> String {
    let src = lower(attr, sig, tile_body).unwrap_or_else(|e| panic!("{attr}: {e}"));
    let start = src.find("template <typename T>").unwrap_or(0);
    src[start..]
        .lines()
        .filter(|l| !l.starts_with("#line"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn err(attr: &str, sig: &str, tile_body: &str) -> String {
    match lower(attr, sig, tile_body) {
        Ok(src) => panic!("{attr}: accepted:\n{src}"),
        Err(e) => e,
    }
}

const WARP: &str = r#"schedule = "warp""#;
const THREAD: &str = r#"schedule = "thread""#;
const GROUP64: &str = r#"schedule = "group", group_size = 64"#;
const BLOCK: &str = r#"schedule = "block""#;
const GROUP4: &str = r#"schedule = "group", group_size = 4"#;

#[test]
fn thread_runs_a_lanes_loop_as_written() {
    let src = code(THREAD, SPMM, SPMM_BODY);
    assert!(
        src.contains("for (unsigned long long j = 0ull; j < loops_end1; ++j) {"),
        "{src}"
    );
    assert!(!src.contains("loops_jw"), "{src}");
}

#[test]
fn the_carry_schedules_run_a_lanes_loop_as_rounds() {
    for attr in [
        r#"schedule = "merge_path""#,
        r#"schedule = "work_oriented""#,
        r#"schedule = "split""#,
    ] {
        let src = code(attr, SPMM, SPMM_BODY);
        assert!(!src.contains("loops_jw"), "{attr}: {src}");
        // One round per value, as a plain loop around the atom loop (`for j in 0..k`) runs.
        let plain = code(attr, SPMM, &SPMM_BODY.replace("lanes(0..k)", "0..k"));
        assert_eq!(src, plain, "{attr}");
    }
}

#[test]
fn a_group_splits_its_lanes_between_the_values_and_the_atoms() {
    for (attr, g) in [(GROUP4, 4), (WARP, 32)] {
        let src = code(attr, SPMM, SPMM_BODY);
        for want in [
            format!("while (loops_jw < {g}u && (unsigned long long)loops_jw * 1ull < loops_jn) loops_jw <<= 1;"),
            "const unsigned int loops_jl = loops_lane & (loops_jw - 1u);".into(),
            "const unsigned int loops_al = loops_lane / loops_jw;".into(),
            format!("const unsigned int loops_as = {g}u / loops_jw;"),
            "const unsigned long long loops_jn = loops_je > loops_js ? (unsigned long long)loops_je - (unsigned long long)loops_js : 0ull;".into(),
            "for (unsigned long long loops_jo = 0ull; loops_jo < loops_jn; loops_jo = loops_jn - loops_jo > loops_jstep ? loops_jo + loops_jstep : loops_jn) {".into(),
            "const bool loops_jin = (unsigned long long)loops_jl * 1ull < loops_jn - loops_jo;".into(),
            "const unsigned long long j = (unsigned long long)((unsigned long long)loops_js + loops_jo + (loops_jin ? (unsigned long long)loops_jl * 1ull : 0ull));".into(),
            "if (loops_al != 0u) sum = ((T)0);".into(),
            "nz = a_offsets[row] + (int)loops_al, loops_end7 = loops_jin ? a_offsets[row + 1] : (int)0; nz < loops_end7; nz += (int)loops_as)".into(),
            format!("for (int loops_o = {}; loops_o >= (int)loops_jw; loops_o >>= 1) {{", g / 2),
            format!("sum = (sum + __shfl_down_sync(loops_mask, sum, loops_o, {g}));"),
            format!("sum = __shfl_sync(loops_mask, sum, loops_jl, {g});"),
            "if (loops_al == 0u && loops_jin) c[((row * k) + j)] = sum;".into(),
        ] {
            assert!(src.contains(&want), "{attr}: no `{want}` in\n{src}");
        }
    }
}

#[test]
fn a_group_past_a_warp_meets_in_shared_memory() {
    for (attr, g) in [(GROUP64, 64), (BLOCK, 256)] {
        let src = code(attr, SPMM, SPMM_BODY);
        for want in [
            "for (int loops_o = 16; loops_o >= (int)loops_jw; loops_o >>= 1) {".to_string(),
            "__shared__ T loops_lanes_sum_8[256];".into(),
            "loops_lanes_sum_8[threadIdx.x] = sum;".into(),
            "__shared__ T loops_lanes_c3_sum_6[256];".into(),
            "loops_lanes_c3_sum_6[threadIdx.x] = loops_c3_sum;".into(),
            format!(
                "const unsigned int loops_gb = (threadIdx.x & ~{}u) + loops_jl;",
                g - 1
            ),
            "const unsigned int loops_st = loops_jw > 32u ? loops_jw : 32u;".into(),
            format!(
                "for (unsigned int loops_p = loops_st; loops_p < {g}u; loops_p += loops_st) {{"
            ),
            "sum = (sum + loops_lanes_sum_8[loops_gb + loops_p]);".into(),
            "loops_c1_sum = (loops_c1_sum + loops_lanes_c1_sum_4[loops_gb + loops_p]);".into(),
        ] {
            assert!(src.contains(&want), "{attr}: no `{want}` in\n{src}");
        }
        // On each path (four values per lane, one): written, barrier, read, barrier (the next
        // stride writes again).
        assert_eq!(
            src.matches("__syncthreads();").count() + src.matches("bar.sync").count(),
            4,
            "{attr}: {src}"
        );
    }
}

#[test]
fn a_lanes_loop_without_an_atom_loop_takes_the_whole_group() {
    let body = "let mut s = 0.0; for nz in a.atoms(row) { s += a.values[nz]; } \
                for j in lanes(0..k) { c[row * k + j] = s * b[j]; }";
    let src = code(WARP, SPMM, body);
    assert!(src.contains("const unsigned int loops_jw = 32u;"), "{src}");
    assert!(
        src.contains("if (loops_al == 0u && loops_jin) c[((row * k) + j)] = (s * b[j]);"),
        "{src}"
    );
}

#[test]
fn selections_and_several_accumulators_reduce_per_value() {
    // The column maximum's position and the column sum of each dense column a row gathers.
    let body = "for j in lanes(0..k) { let mut best = T::MIN; let mut at = 0usize; let mut s = 0.0; \
                for nz in a.atoms(row) { let v = b[(a.col_indices[nz] as usize) * k + j]; s += v; \
                if v > best { best = v; at = nz; } } c[row * k + j] = s + best + T::from(at as f64); }";
    for attr in [GROUP4, WARP, GROUP64] {
        let src = code(attr, SPMM, body);
        assert!(src.contains("loops_jl"), "{attr}: {src}");
    }
}

#[test]
fn misuse_is_refused_with_what_to_write() {
    // Inside an atom loop (a sum per atom, `schedule::lanes_reduce`) it must stand in the atom
    // loop's own body under a group.
    let e = err(
        WARP,
        SPMM,
        "for nz in a.atoms(row) { let mut d = 0.0; if nz > 0 { for j in lanes(0..k) { d += b[j]; } } c[row] = d; }",
    );
    assert!(
        e.contains("under `warp` a `lanes` loop inside an atom loop must stand in the atom loop's own body"),
        "{e}"
    );
    let e = err(
        WARP,
        SPMM,
        "for j in lanes(0..k) { for i in lanes(0..k) { c[i] = b[j]; } }",
    );
    assert!(e.contains("`lanes` loops cannot nest"), "{e}");
    let e = err(
        WARP,
        SPMM,
        "for j in lanes(0..k) { if j > 3 { break; } c[j] = b[j]; }",
    );
    assert!(e.contains("`break` and `continue` cannot"), "{e}");
    let e = err(WARP, SPMM, "for j in lanes(0..=k) { c[j] = b[j]; }");
    assert!(e.contains("half-open range"), "{e}");
    let e = err(WARP, SPMM, "for j in lanes(k) { c[j] = b[j]; }");
    assert!(e.contains("`lanes` takes one range"), "{e}");
    // A `break` inside an inner loop leaves that loop, not the lanes loop.
    lower(
        WARP,
        SPMM,
        "for j in lanes(0..k) { let mut s = 0.0; for nz in a.atoms(row) { if a.values[nz] > 1.0 { break; } s += a.values[nz]; } c[j] = s; }",
    )
    .unwrap();
}

#[test]
fn a_group_refuses_an_atom_loop_not_every_lane_of_a_value_reaches() {
    let body = "for j in lanes(0..k) { let mut s = 0.0; if j < 4 { for nz in a.atoms(row) { s += a.values[nz]; } } \
                c[row * k + j] = s; }";
    for attr in [WARP, GROUP64] {
        let e = err(attr, SPMM, body);
        assert!(
            e.contains(
                "an atom loop inside a `lanes` loop must stand in the lanes loop's own body"
            ),
            "{attr}: {e}"
        );
    }
    // `thread` runs the loop as written.
    lower(THREAD, SPMM, body).unwrap();
}

#[test]
fn hierarchical_refuses_a_lanes_loop_around_the_atom_loop_naming_who_takes_it() {
    let e = err(r#"schedule = "hierarchical""#, SPMM, SPMM_BODY);
    assert!(
        e.contains("under `hierarchical` a `lanes` loop cannot hold an atom loop"),
        "{e}"
    );
    assert!(e.contains("`warp`") && e.contains("`merge_path`"), "{e}");
    // A lanes loop after the atom loop is the epilogue's, which it runs in its thread.
    let body = "let mut s = 0.0; for nz in a.atoms(row) { s += a.values[nz]; } \
                for j in lanes(0..k) { c[row * k + j] = s * b[j]; }";
    lower(r#"schedule = "hierarchical""#, SPMM, body).unwrap();
}

/// Where the length is a multiple of 4 a lane takes 4 consecutive values: the body's copies
/// fused, the atom loop once for the four, `b[x + j]` one vector load, `c[x + j] = ..` one
/// vector store; the other lengths take the one-value path.
#[test]
fn four_values_per_lane_fuse_the_copies_and_vectorise_the_accesses() {
    for (attr, g) in [(GROUP4, 4), (WARP, 32), (GROUP64, 64)] {
        let src = code(attr, SPMM, SPMM_BODY);
        for want in [
            if g <= 32 {
                "unsigned int loops_jv = loops_jn > 0ull && loops_jn % 4ull == 0ull ? 4u : 1u;"
            } else {
                "if (loops_jn % 4ull == 0ull) {"
            }
            .to_string(),
            format!("while (loops_jw < {g}u && (unsigned long long)loops_jw * 4ull < loops_jn) loops_jw <<= 1;"),
            "const unsigned long long loops_c0_j = (unsigned long long)((unsigned long long)loops_js + loops_jo + (loops_jin ? (unsigned long long)loops_jl * 4ull : 0ull));".into(),
            "const unsigned long long loops_c3_j = (unsigned long long)((unsigned long long)loops_c0_j + 3ull);".into(),
            "const LoopsVec4<T> loops_vl1 = loops_load4(&b[((((unsigned long long)a_indices[nz]) * k) + loops_c0_j)]);".into(),
            "loops_c2_sum += (a_values[nz] * loops_vl1.v[2]);".into(),
            "if (loops_al == 0u && loops_jin) (void)loops_store4<T>(&c[((row * k) + loops_c0_j)], loops_c0_sum, loops_c1_sum, loops_c2_sum, loops_c3_sum);".into(),
            "else {".into(),
        ] {
            assert!(src.contains(&want), "{attr}: no `{want}` in\n{src}");
        }
        // One atom loop per path: three fused widths up to a warp (one above), the one-value path.
        assert_eq!(
            src.matches("nz += (int)loops_as)").count(),
            if g <= 32 { 4 } else { 2 },
            "{attr}: {src}"
        );
    }
}

/// Where the length is a multiple of 8 (16) and the narrower path's lanes (up to 16 of the group)
/// would not cover it in one stride, each lane takes two (four) vectors: the run-time choice of
/// `lanes::vector_for`, one `loops_load4` per vector from the index of its first copy, one
/// `loops_store4` per vector.
#[test]
fn wider_paths_take_several_vectors_per_lane() {
    let src = code(GROUP64, SPMM, SPMM_BODY);
    assert!(
        !src.contains("loops_jv"),
        "above a warp, four values per lane only:\n{src}"
    );
    for (attr, lanes) in [(GROUP4, 4), (WARP, 16)] {
        let src = code(attr, SPMM, SPMM_BODY);
        for want in [
            format!("if (loops_jv > 1u && loops_jn % 8ull == 0ull && {}ull < loops_jn) loops_jv = 8u;", 4 * lanes),
            format!("if (loops_jv > 1u && loops_jn % 16ull == 0ull && {}ull < loops_jn) loops_jv = 16u;", 8 * lanes),
            "else if (loops_jv == 8u) {".into(),
            "else if (loops_jv == 16u) {".into(),
            "(unsigned long long)loops_jw * 8ull < loops_jn) loops_jw <<= 1;".into(),
            "(unsigned long long)loops_jl * 16ull : 0ull));".into(),
            "const unsigned long long loops_c15_j = (unsigned long long)((unsigned long long)loops_c0_j + 15ull);".into(),
        ] {
            assert!(src.contains(&want), "{attr}: no `{want}` in\n{src}");
        }
        // The 16-wide path: four loads from copies 0, 4, 8, 12 and four stores.
        let path = &src[src.find("else if (loops_jv == 16u) {").unwrap()..];
        let path = &path[..path.find("\n    else {").unwrap_or(path.len())];
        for (h, c) in [(1, 4), (2, 8), (3, 12)] {
            let load = format!("_{h} = loops_load4(&b[((((unsigned long long)a_indices[nz]) * k) + loops_c{c}_j)]);");
            assert!(path.contains(&load), "{attr}: no `{load}` in\n{path}");
            let store = format!("(void)loops_store4<T>(&c[((row * k) + loops_c{c}_j)], loops_c{c}_sum, loops_c{}_sum, loops_c{}_sum, loops_c{}_sum);", c + 1, c + 2, c + 3);
            assert!(path.contains(&store), "{attr}: no `{store}` in\n{path}");
        }
        assert_eq!(path.matches("loops_load4(").count(), 4, "{attr}: {path}");
        assert_eq!(
            path.matches("loops_store4<T>(").count(),
            4,
            "{attr}: {path}"
        );
    }
}

/// No fused path where the copies' order would show or a value could not be split: an
/// assignment to a variable from outside the loop, `break`/`continue` in it, a selection (argmax),
/// the checked variant. Loads whose index is not `x + j` with `x` free of the body's names stay
/// scalar in the fused copies.
#[test]
fn the_fused_path_is_left_out_where_it_would_change_the_result() {
    let outer = "let mut t = 0.0; for j in lanes(0..k) { let mut sum = 0.0; \
                 for nz in a.atoms(row) { sum += a.values[nz]; } t = t + sum; c[row * k + j] = t; }";
    let in_loop = "for j in lanes(0..k) { let mut sum = 0.0; for nz in a.atoms(row) { \
                   if a.values[nz] > 1.0 { break; } sum += a.values[nz]; } c[row * k + j] = sum; }";
    let select = "for j in lanes(0..k) { let mut best = T::MIN; let mut at = 0usize; \
                  for nz in a.atoms(row) { let v = b[(a.col_indices[nz] as usize) * k + j]; \
                  if v > best { best = v; at = nz; } } c[row * k + j] = T::from(at as f64); }";
    for body in [outer, in_loop, select] {
        let src = code(WARP, SPMM, body);
        assert!(src.contains("loops_jw"), "not split:\n{src}");
        assert!(!src.contains("loops_c0_"), "fused:\n{src}");
    }
    // The checked variant keeps the one-value path (its bounds checks are per element).
    let kernel = format!("fn k{SPMM} {{ for row in a.tiles() {{ {SPMM_BODY} }} }}");
    let item: syn::ItemFn = syn::parse_str(&kernel).expect("kernel parses as Rust");
    let config = kernels_gen::frontend::parse_attr(WARP.parse().unwrap()).expect("attribute");
    let lowered = kernels_gen::frontend::lower_kernel(&item, &[], config, "k.rs").expect("lowers");
    let emitted = kernels_gen::emit::emit_kernel(&lowered).expect("emits");
    assert!(emitted.source.contains("loops_c0_"), "{}", emitted.source);
    assert!(
        emitted.checked_source.contains("loops_jw")
            && !emitted.checked_source.contains("loops_c0_"),
        "checked, fused:\n{}",
        emitted.checked_source
    );
    // `b[j * 2]` is not `x + j`; `b[c + j]` with `c` the body's own stays per copy.
    let body = "for j in lanes(0..k) { let mut sum = 0.0; for nz in a.atoms(row) { \
                let c0 = a.col_indices[nz] as usize; sum += b[j * 2] + b[c0 + j]; } c[row * k + j] = sum; }";
    let src = code(WARP, SPMM, body);
    assert!(src.contains("loops_c1_sum"), "{src}");
    assert!(!src.contains("loops_load4"), "{src}");
    assert!(src.contains("b[(loops_c3_c0 + loops_c3_j)]"), "{src}");
}

/// A `lanes` loop inside an atom loop sums over its values per atom: under a group the xor
/// butterfly over the value lanes, under `thread` a serial loop (`schedule::lanes_reduce`).
#[test]
fn a_lanes_loop_inside_an_atom_loop_is_a_sum_per_atom() {
    let body = "for nz in a.atoms(row) { let cl = a.col_indices[nz] as usize; let mut d = 0.0; \
                for j in lanes(0..k) { d += b[row * k + j] * b[cl * k + j]; } c[nz] = d; }";
    for attr in [WARP, GROUP4, GROUP64, BLOCK] {
        let src = code(attr, SPMM, body);
        assert!(src.contains("__shfl_xor_sync"), "{attr}: {src}");
        assert!(src.contains("loops_load4"), "{attr}: {src}");
        assert!(
            src.contains("if (loops_rat && loops_rl == 0u) c["),
            "{attr}: {src}"
        );
    }
    let src = code(THREAD, SPMM, body);
    assert!(!src.contains("__shfl_xor_sync"), "{src}");
}

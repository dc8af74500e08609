//! `#[block_shared] hist: &mut [u32; N]` (`kernels_gen::schedule::block_shared`): what the front
//! end accepts (tile-only bodies under every schedule, any body under `thread`), the CUDA it
//! becomes (a copy per block in shared memory, a barrier, the flush), and what it refuses, with
//! which message. The flush's CPU model and property test are in the module.

use kernels_gen::cuda_for;
use kernels_gen::schedule::SCHEDULES;

fn lower(attr: &str, body: &str) -> Result<String, String> {
    let item: syn::ItemFn = syn::parse_str(body).expect("test source parses as Rust");
    cuda_for(attr.parse().unwrap(), &item, "k.rs").map_err(|d| d.message)
}

/// The kernel's own code (after the prelude's include), for snapshots.
fn own_code(src: &str) -> &str {
    let at = src
        .find("loops_prelude")
        .expect("the source includes the prelude");
    &src[src[at..].find('\n').unwrap() + at + 1..]
}

const HIST: &str = "fn size_hist(a: Offsets, #[block_shared] hist: &mut [u32; 34]) {
    for t in a.tiles() {
        let size = (a.offsets[t + 1] - a.offsets[t]) as u32;
        let mut bin = 0;
        if size > 1 {
            bin = 32 - (size - 1).leading_zeros();
        }
        atomic_add(&mut hist[bin as usize], 1);
        atomic_max(&mut hist[33], size);
    }
}";

const LOWEST: &str = "fn lowest(a: Offsets, vals: &[i64], #[block_shared] low: &mut [i64; 4]) {
    for t in a.tiles() {
        atomic_min(&mut low[t % 4], vals[t]);
    }
}";

const ATOMS: &str = "fn atom_hist(a: Csr<f32>, #[block_shared] hist: &mut [u32; 8]) {
    for row in a.tiles() {
        for nz in a.atoms(row) {
            atomic_add(&mut hist[(a.col_indices[nz] % 8) as usize], 1);
        }
    }
}";

#[test]
fn a_tile_only_body_takes_block_shared_arrays_under_every_schedule() {
    let thread = lower(r#"schedule = "thread""#, HIST).unwrap();
    for named in SCHEDULES {
        for src in [HIST, LOWEST] {
            let cuda = lower(named.attr, src).unwrap_or_else(|e| panic!("{}: {e}", named.name));
            assert_eq!(
                cuda,
                lower(r#"schedule = "thread""#, src).unwrap(),
                "{}",
                named.name
            );
        }
    }
    // The copy, its operation bytes (add and max mixed), the barriers, the flush.
    for want in [
        "__shared__ unsigned int loops_block_hist[34];",
        "__shared__ unsigned char loops_block_hist_op[34];",
        "unsigned int* const hist = loops_block_hist;",
        "const unsigned long long hist_len = 34ull;",
        "__syncthreads();",
        "loops_atomic_add(loops_block_tag(&hist[",
        "if (loops_block_hist_op[loops_i] == 1 && loops_v != 0) loops_atomic_add(&hist[loops_i], loops_v);",
        "if (loops_block_hist_op[loops_i] == 2 && loops_v > hist[loops_i]) loops_atomic_max(&hist[loops_i], loops_v);",
    ] {
        assert!(thread.contains(want), "{want}\n{thread}");
    }
    insta::assert_snapshot!("size_hist__thread", own_code(&thread));
    // One operation: no bytes, the copy starts at the identity of `min`.
    let lowest = lower(r#"schedule = "thread""#, LOWEST).unwrap();
    assert!(!lowest.contains("loops_block_low_op"), "{lowest}");
    assert!(
        lowest.contains("loops_block_low[loops_i] = loops_const_max<long long>();"),
        "{lowest}"
    );
    assert!(
        lowest.contains("if (loops_v < low[loops_i]) loops_atomic_min(&low[loops_i], loops_v);"),
        "{lowest}"
    );
    // An atom loop under `thread` is fine: every thread of a block leaves the tile loop.
    lower(r#"schedule = "thread""#, ATOMS).unwrap();
}

#[test]
fn block_shared_arrays_refuse_what_they_cannot_lower() {
    // An atom loop under a schedule whose threads leave the tile loop at different points.
    for attr in [
        r#"schedule = "work_oriented""#,
        r#"schedule = "warp""#,
        r#"schedule = "lrb""#,
    ] {
        let e = lower(attr, ATOMS).unwrap_err();
        assert!(
            e.contains("`#[block_shared]` array `hist` cannot be lowered under schedule"),
            "{e}"
        );
        assert!(e.contains("schedule = \"thread\""), "{e}");
    }
    let refused = |body: &str, want: &str| {
        let e = lower(r#"schedule = "thread""#, body).unwrap_err();
        assert!(e.contains(want), "{want}\n{e}");
    };
    let read = "fn r(a: Offsets, #[block_shared] h: &mut [u32; 4], out: &mut [u32]) {
        for t in a.tiles() { out[t] = h[0]; }
    }";
    refused(read, "the body may only update it with `atomic_add`");
    let old = "fn r(a: Offsets, #[block_shared] h: &mut [u32; 4], out: &mut [u32]) {
        for t in a.tiles() { out[t] = atomic_add(&mut h[0], 1); }
    }";
    refused(old, "an atomic's old value");
    let store = "fn r(a: Offsets, #[block_shared] h: &mut [u32; 4]) {
        for t in a.tiles() { h[t % 4] = 1; }
    }";
    refused(store, "the body may only update it");
    let mixed = "fn r(a: Offsets, #[block_shared] h: &mut [i32; 4]) {
        for t in a.tiles() { atomic_add(&mut h[0], 1); atomic_max(&mut h[1], t as i32); }
    }";
    refused(mixed, "use one `#[block_shared]` array per operation");
    let min_add = "fn r(a: Offsets, #[block_shared] h: &mut [u32; 4]) {
        for t in a.tiles() { atomic_add(&mut h[0], 1); atomic_min(&mut h[1], t as u32); }
    }";
    refused(min_add, "is updated with atomic_add and atomic_min");
    let float = "fn r(a: Offsets, #[block_shared] h: &mut [f32; 4]) {
        for t in a.tiles() { atomic_add(&mut h[0], 1.0); }
    }";
    refused(float, "a `#[block_shared]` array holds integers");
    let slice = "fn r(a: Offsets, #[block_shared] h: &mut [u32]) {
        for t in a.tiles() { atomic_add(&mut h[0], 1); }
    }";
    refused(slice, "has its length in its type");
    let shared_ref = "fn r(a: Offsets, #[block_shared] h: &[u32; 4]) {
        for t in a.tiles() { }
    }";
    refused(shared_ref, "write `&mut`");
    let big = "fn r(a: Offsets, #[block_shared] h: &mut [u32; 5000]) {
        for t in a.tiles() { atomic_add(&mut h[0], 1); }
    }";
    refused(big, "has 1 to 4096 elements");
    let len = "fn r(a: Offsets, #[block_shared] h: &mut [u32; 4], out: &mut [u32]) {
        for t in a.tiles() { out[t] = h.len() as u32; }
    }";
    refused(len, "`h.len()`");
}

//! Tile-only bodies' aggregated atomics (`kernels_gen::schedule::tile_only::aggregated_atomics`):
//! an `atomic_add`/`atomic_max`/`atomic_min` statement on a tile-invariant integer slot is summed in
//! a register over the thread's tiles and flushed once after the tile loop (a warp's shuffles, one
//! atomic per block); what keeps an atomic per call; and the CPU model of the flush (the same
//! value as the atomics, whatever the grid, with one atomic per block).

use kernels_gen::cuda_for;
use kernels_gen::schedule::{append, thread};
use proptest::prelude::*;

fn lower(body: &str) -> String {
    let item: syn::ItemFn = syn::parse_str(body).expect("test source parses as Rust");
    cuda_for(r#"schedule = "thread""#.parse().unwrap(), &item, "k.rs")
        .map_err(|d| d.message)
        .unwrap()
}

const SUM: &str = "fn degree_sum(g: Offsets, frontier: &[u32], total: &mut [u64], k: usize) {
    for v in g.tiles_in(frontier) {
        atomic_add(&mut total[k - 1], (g.offsets[v + 1] - g.offsets[v]) as u64);
    }
}";

#[test]
fn a_tile_invariant_atomic_statement_is_summed_in_a_register_and_flushed_once_per_block() {
    let cuda = lower(SUM);
    assert!(
        cuda.contains("unsigned long long loops_acc0 = 0;"),
        "{cuda}"
    );
    assert!(
        cuda.contains("loops_acc0 += (decltype(loops_acc0))("),
        "{cuda}"
    );
    assert!(
        cuda.contains("loops_flush_add(&total[(k - 1ull)], loops_acc0, 0, loops_partials0);"),
        "{cuda}"
    );
    // Not one atomic per vertex in the plain variant.
    let body = cuda.split("extern \"C\"").next().unwrap();
    assert!(!body.contains("loops_atomic_add("), "{cuda}");
}

#[test]
fn max_and_min_start_from_their_identity_in_the_element_type() {
    let src = "fn k(g: Offsets, hi: &mut [i32], lo: &mut [i64], wide: &mut [u32]) {
        for v in g.tiles() {
            let d = (g.offsets[v + 1] - g.offsets[v]) as i32;
            atomic_max(&mut hi[0], d);
            atomic_min(&mut lo[1], d as i64);
            if d > 3 {
                atomic_max(&mut wide[0], d as u32);
            }
        }
    }";
    let cuda = lower(src);
    assert!(
        cuda.contains("int loops_acc0 = (-2147483647 - 1);"),
        "{cuda}"
    );
    assert!(
        cuda.contains("long long loops_acc1 = 9223372036854775807ll;"),
        "{cuda}"
    );
    assert!(cuda.contains("unsigned int loops_acc2 = 0;"), "{cuda}");
    assert!(cuda.contains("loops_flush_max(&hi[0ull]"), "{cuda}");
    assert!(cuda.contains("loops_flush_min(&lo[1ull]"), "{cuda}");
    assert!(cuda.contains("loops_flush_max(&wide[0ull]"), "{cuda}");
}

/// What keeps an atomic per call: a slot that depends on the tile (or on a variable of the
/// body), a float, a slot the body also reads, pushes to or updates with another operation, a
/// `#[block_shared]` array, and every atomic of the checked variant.
#[test]
fn what_keeps_an_atomic_per_call() {
    let cases = [
        "fn k(g: Offsets, out: &mut [u32]) { for v in g.tiles() { atomic_add(&mut out[v], 1); } }",
        "fn k(g: Offsets, out: &mut [u32]) { for v in g.tiles() { let i = v % 2; atomic_add(&mut out[i], 1); } }",
        "fn k(g: Offsets, out: &mut [f32]) { for v in g.tiles() { atomic_add(&mut out[0], 1.0); } }",
        "fn k(g: Offsets, out: &mut [u32]) { for v in g.tiles() { if out[0] < 5 { atomic_max(&mut out[0], v as u32); } } }",
        "fn k(g: Offsets, out: &mut [u32]) { for v in g.tiles() { atomic_max(&mut out[0], v as u32); atomic_min(&mut out[1], v as u32); } }",
        "fn k(g: Offsets, list: &mut [u32], out: &mut [u32]) { for v in g.tiles() { push(&mut list, &mut out[0], v as u32); atomic_add(&mut out[1], 1); } }",
        "fn k(g: Offsets, #[block_shared] out: &mut [u32; 4]) { for v in g.tiles() { atomic_add(&mut out[0], 1); } }",
    ];
    for src in cases {
        let cuda = lower(src);
        assert!(!cuda.contains("loops_acc"), "{src}\n{cuda}");
        assert!(!cuda.contains("loops_flush_"), "{src}\n{cuda}");
    }
    // Other slices do not matter; the checked variant keeps its atomics.
    let src = "fn k(g: Offsets, f: &mut [u32], out: &mut [u32]) { for v in g.tiles() { f[v] = 0; atomic_add(&mut out[0], 1); } }";
    assert!(lower(src).contains("loops_flush_add(&out[0ull]"));
    let item: syn::ItemFn = syn::parse_str(src).unwrap();
    let config =
        kernels_gen::frontend::parse_attr(r#"schedule = "thread""#.parse().unwrap()).unwrap();
    let kernel = kernels_gen::frontend::lower_kernel(&item, &[], config, "k.rs").unwrap();
    let checked = kernels_gen::emit::emit_kernel(&kernel)
        .unwrap()
        .checked_source;
    assert!(checked.contains("loops_checked_atomic_add("), "{checked}");
    assert!(!checked.contains("loops_flush_"), "{checked}");
}

proptest! {
    /// The flush's model: each thread sums its tiles (thread's grid-stride mapping), a warp adds
    /// its 32 sums and a block its warps', one atomic per block that has any: the total is the
    /// sequential sum (wrapping), and the atomics at most one per block.
    #[test]
    fn aggregated_add_and_max_equal_the_atomics(
        values in proptest::collection::vec(any::<u32>(), 0..3000),
        threads in 1u64..2000,
        start in any::<u32>(),
        block in (1usize..=32).prop_map(|w| 32 * w),
    ) {
        let tiles = values.len() as u64;
        let per_thread: Vec<Vec<u32>> = (0..threads)
            .map(|t| thread::model_tiles_of_thread(t, threads, tiles).map(|i| values[i as usize]).collect())
            .collect();
        let sum = append::model_aggregated(&per_thread, block, start, append::Combine::Add);
        let want = values.iter().fold(start, |a, v| a.wrapping_add(*v));
        prop_assert_eq!(sum.value, want);
        prop_assert!(sum.atomics as u64 <= threads.div_ceil(block as u64));
        let max = append::model_aggregated(&per_thread, block, start, append::Combine::Max);
        prop_assert_eq!(max.value, values.iter().fold(start, |a, v| a.max(*v)));
        let min = append::model_aggregated(&per_thread, block, start, append::Combine::Min);
        prop_assert_eq!(min.value, values.iter().fold(start, |a, v| a.min(*v)));
        // Each thread's tiles are visited once: every value is counted once.
        prop_assert_eq!(per_thread.iter().map(Vec::len).sum::<usize>(), values.len());
    }
}

const FLAGS: &str =
    "fn flags_to_list(a: Offsets, flags: &mut [u32], list: &mut [u32], count: &mut [u64]) {
    for v in a.tiles() {
        if flags[v] != 0 {
            flags[v] = 0;
            push(&mut list, &mut count[0], v as u32);
        }
    }
}";

/// A tile-only body's `push` statements onto one tile-invariant counter go through a staging
/// area in shared memory, flushed once per block round (one atomic) by every thread of the block.
#[test]
fn push_statements_onto_one_counter_are_staged_per_block() {
    let cuda = lower(FLAGS);
    for part in [
        "__shared__ unsigned int loops_stage[256];",
        "__shared__ unsigned long long loops_stage_base;",
        "for (long long loops_r = (long long)blockIdx.x * blockDim.x; loops_r < a_rows;",
        "if (loops_t < a_rows) {",
        "loops_stage_push(loops_stage, &loops_stage_n, 256u, list, list_len, &count[0ull], ((unsigned int)v));",
        "loops_stage_flush(loops_stage, &loops_stage_n, &loops_stage_base, 256u, list, list_len, &count[0ull]);",
    ] {
        assert!(cuda.contains(part), "{part}\n{cuda}");
    }
    let prelude = kernels_gen::abi::PRELUDE;
    for part in [
        "if (at < cap) stage[at] = (T)v;",
        "else (void)loops_push(list, len, count, v);",
        "*base = atomicAdd(count, (C)m);",
    ] {
        assert!(prelude.contains(part), "{part}");
    }
    // The block size the attribute names sizes the area.
    let item: syn::ItemFn = syn::parse_str(FLAGS).unwrap();
    let cuda = cuda_for(
        r#"schedule = "thread", block_size = 128"#.parse().unwrap(),
        &item,
        "k.rs",
    )
    .unwrap();
    assert!(cuda.contains("loops_stage[128]"), "{cuda}");
}

/// What keeps the warp's push: a counter that depends on the tile, a position used, two lists,
/// a counter or list the body touches otherwise.
#[test]
fn what_keeps_the_warps_push() {
    let cases = [
        "fn k(g: Offsets, list: &mut [u32], count: &mut [u32]) { for v in g.tiles() { push(&mut list, &mut count[v % 2], v as u32); } }",
        "fn k(g: Offsets, list: &mut [u32], count: &mut [u32], out: &mut [u32]) { for v in g.tiles() { let at = push(&mut list, &mut count[0], v as u32); out[v] = at as u32; } }",
        "fn k(g: Offsets, list: &mut [u32], l2: &mut [u32], count: &mut [u32]) { for v in g.tiles() { push(&mut list, &mut count[0], v as u32); push(&mut l2, &mut count[0], v as u32); } }",
        "fn k(g: Offsets, list: &mut [u32], count: &mut [u32]) { for v in g.tiles() { if count[0] < 9 { push(&mut list, &mut count[0], v as u32); } } }",
        "fn k(g: Offsets, list: &mut [u32], count: &mut [u32]) { for v in g.tiles() { list[v] = 0; push(&mut list, &mut count[0], v as u32); } }",
    ];
    for src in cases {
        let cuda = lower(src);
        assert!(!cuda.contains("loops_stage"), "{src}\n{cuda}");
    }
    // Pushes in a range loop, twice per tile: staged (a claim past the area falls back).
    let cuda = lower(
        "fn k(g: Offsets, list: &mut [u32], count: &mut [u32]) { for v in g.tiles() { for j in 0..3 { push(&mut list, &mut count[0], (v + j) as u32); } push(&mut list, &mut count[0], v as u32); } }",
    );
    assert_eq!(cuda.matches("loops_stage_push(").count(), 2, "{cuda}");
}

proptest! {
    /// The staged push's model: every push counted, each at its own position, the values below
    /// the list's length written once each; one atomic per block round that staged any, plus
    /// one per warp issue that overflowed the area.
    #[test]
    fn staged_pushes_keep_the_pushes_meaning(
        rounds in proptest::collection::vec(
            proptest::collection::vec((any::<u32>(), 1usize..4), 0..24),
            0..6,
        ),
        cap in 1u32..70,
        start in 0u64..50,
        len in 0u64..400,
    ) {
        // Each round: issues of warps (a mask, a multiplicity of repeats), values by position.
        let mut next = 0u32;
        let rounds: Vec<Vec<append::Issue>> = rounds
            .iter()
            .map(|issues| {
                issues
                    .iter()
                    .flat_map(|&(mask, times)| std::iter::repeat_n(mask, times))
                    .map(|mask| append::Issue {
                        mask,
                        values: (0..32).map(|_| { next += 1; next }).collect(),
                    })
                    .collect()
            })
            .collect();
        let run = append::model_staged_push(&rounds, cap, start, len);
        let pushed: Vec<u32> = rounds
            .iter()
            .flatten()
            .flat_map(|i| (0..32).filter(|l| i.mask >> l & 1 == 1).map(|l| i.values[l as usize]))
            .collect();
        prop_assert_eq!(run.count, start + pushed.len() as u64);
        let mut positions: Vec<u64> = run.positions.clone();
        positions.sort_unstable();
        positions.dedup();
        prop_assert_eq!(positions.len(), pushed.len());
        prop_assert!(positions.iter().all(|&p| p >= start && p < run.count));
        // What the list holds: exactly the pushes claimed below its length.
        let mut written: Vec<u32> = run.list.iter().flatten().copied().collect();
        written.sort_unstable();
        let below = positions.iter().filter(|&&p| p < len).count();
        prop_assert_eq!(written.len(), below);
        let mut all = pushed.clone();
        all.sort_unstable();
        prop_assert!(written.iter().all(|w| all.binary_search(w).is_ok()));
        prop_assert!(run.atomics <= rounds.len() + rounds.iter().map(Vec::len).sum::<usize>());
        // A round within the area: one atomic.
        for round in &rounds {
            let n: u32 = round.iter().map(|i| i.mask.count_ones()).sum();
            if n <= cap && rounds.len() == 1 {
                prop_assert!(run.atomics <= 1);
            }
        }
    }
}

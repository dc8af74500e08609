//! Tile-only bodies (`for tile in a.tiles()` with no atom loop) and the cooperative append
//! `push(&mut list, &mut count[i], v)`: what the front end accepts under every schedule, the CUDA
//! they become, what is refused (with which message), and the CPU models of both (every tile's
//! body once; every push at its own position).

use kernels_gen::cuda_for;
use kernels_gen::schedule::{append, thread, SCHEDULES};
use proptest::prelude::*;

fn lower(attr: &str, body: &str) -> Result<String, String> {
    let item: syn::ItemFn = syn::parse_str(body).expect("test source parses as Rust");
    cuda_for(attr.parse().unwrap(), &item, "k.rs").map_err(|d| d.message)
}

const DEGREES: &str = "fn degrees(a: Offsets, frontier: &[u32], out: &mut [u32]) {
    for v in a.tiles_in(frontier) {
        out[v] = (a.offsets[v + 1] - a.offsets[v]) as u32;
    }
}";

const FLAGS: &str =
    "fn flags_to_list(a: Offsets, flags: &[u32], list: &mut [u32], count: &mut [u32]) {
    for v in a.tiles() {
        if flags[v] != 0 {
            push(&mut list, &mut count[0], v as u32);
        }
    }
}";

/// A tile-only body is a kernel under every named schedule, and under each it is the `thread`
/// kernel: one thread per tile, grid-stride, the body once per tile.
#[test]
fn a_tile_only_body_runs_one_thread_per_tile_under_every_schedule() {
    let thread = lower(r#"schedule = "thread""#, FLAGS).unwrap();
    assert!(
        thread.contains("schedule thread, block size 256"),
        "{thread}"
    );
    // Grid-stride over rounds of a block (its pushes staged per block: every thread reaches the
    // round's flush); without a staged push over threads.
    assert!(
        thread.contains("loops_r += (long long)blockDim.x * gridDim.x"),
        "{thread}"
    );
    assert!(
        lower(r#"schedule = "thread""#, DEGREES)
            .unwrap()
            .contains("loops_t += (long long)blockDim.x * gridDim.x"),
        "{thread}"
    );
    for named in SCHEDULES {
        for src in [FLAGS, DEGREES] {
            let cuda = lower(named.attr, src).unwrap_or_else(|e| panic!("{}: {e}", named.name));
            // The same source as under `thread`, but for the block size the attribute may set.
            let want = lower(r#"schedule = "thread""#, src).unwrap();
            assert_eq!(cuda, want, "{}", named.name);
        }
    }
    // The block size the attribute names is kept.
    let cuda = lower(r#"schedule = "warp", block_size = 128"#, FLAGS).unwrap();
    assert!(cuda.contains("schedule thread, block size 128"), "{cuda}");
}

/// Over `tiles_in(list)` the tile-only kernel takes the list's length from the device (as the
/// `thread` kernel does): a device loop can run it.
#[test]
fn a_tile_only_subset_kernel_reads_the_list_length_on_the_device() {
    let cuda = lower(r#"schedule = "merge_path""#, DEGREES).unwrap();
    assert!(cuda.contains("loops_list_len == nullptr"), "{cuda}");
    assert!(
        cuda.contains("out[v] = ((unsigned int)(a_offsets[(v + 1ull)] - a_offsets[v]));"),
        "{cuda}"
    );
}

#[test]
fn push_is_a_warp_aggregated_append_and_checked_is_a_fault_on_the_list() {
    // A push whose position is used: the warp's append.
    let used = FLAGS.replace(
        "push(&mut list, &mut count[0], v as u32);",
        "let at = push(&mut list, &mut count[0], v as u32); if at > 5 { flags2[v] = 1; }",
    );
    let used = used.replace(
        "count: &mut [u32])",
        "count: &mut [u32], flags2: &mut [u32])",
    );
    let cuda = lower(r#"schedule = "thread""#, &used).unwrap();
    assert!(
        cuda.contains("loops_push(list, list_len, &count[0ull], ((unsigned int)v));"),
        "{cuda}"
    );
    assert!(!cuda.contains("loops_stage"), "{cuda}");
    let prelude = kernels_gen::abi::PRELUDE;
    for part in [
        "__activemask()",
        "atomicAdd(count, (C)__popc(mask))",
        "__shfl_sync(mask, base, leader)",
        "if (pos < len) list[pos] = (T)v;",
    ] {
        assert!(prelude.contains(part), "{part}");
    }
    // The checked variant: the counter's index checked, the list's site and the line named.
    let item: syn::ItemFn = syn::parse_str(FLAGS).unwrap();
    let config =
        kernels_gen::frontend::parse_attr(r#"schedule = "thread""#.parse().unwrap()).unwrap();
    let kernel = kernels_gen::frontend::lower_kernel(&item, &[], config, "k.rs").unwrap();
    let emitted = kernels_gen::emit::emit_kernel(&kernel).unwrap();
    let sites = &emitted.fault_sites;
    let list_site = sites.iter().position(|s| s == "list").unwrap();
    let count_site = sites.iter().position(|s| s == "count").unwrap();
    assert!(
        emitted.checked_source.contains(&format!(
            "(void)loops_checked_push(list, list_len, loops_ptr(count, (long long)(0ull), count_len, {count_site}, 4, loops_fault), ((unsigned int)v), {list_site}, 4, loops_fault);"
        )),
        "{}",
        emitted.checked_source
    );
}

/// `push` returns the position; in an atom loop every schedule takes it (each atom's push runs once).
#[test]
fn push_in_an_atom_loop_lowers_under_every_schedule() {
    let src =
        "fn heavy(a: Csr<f32>, list: &mut [u32], vals: &mut [f32], count: &mut [u64], t: f32) {
        for row in a.tiles() {
            for nz in a.atoms(row) {
                if a.values[nz] > t {
                    let p = push(&mut list, &mut count[0], nz as u32);
                    if p < vals.len() { vals[p] = a.values[nz]; }
                }
            }
        }
    }";
    for named in SCHEDULES {
        let cuda = lower(named.attr, src).unwrap_or_else(|e| panic!("{}: {e}", named.name));
        assert!(
            cuda.contains("loops_push(list, list_len, &count[0ull], ((unsigned int)nz))"),
            "{}: {cuda}",
            named.name
        );
    }
}

#[test]
fn push_refuses_what_it_cannot_append_with_what_to_write() {
    let sig = "(a: Csr<f32>, x: &[u32], list: &mut [u32], count: &mut [u32], c32: &mut [i32], fc: &mut [f32])";
    let err = |body: &str| {
        lower(
            r#"schedule = "thread""#,
            &format!("fn k{sig} {{ for row in a.tiles() {{ {body} }} }}"),
        )
        .unwrap_err()
    };
    let cases = [
        (
            "push(&mut x, &mut count[0], 1);",
            "must be a `&mut [..]` parameter",
        ),
        (
            "push(&mut list[0], &mut count[0], 1);",
            "named whole (`&mut list`)",
        ),
        ("push(list, &mut count[0], 1);", "the list to append to"),
        ("push(&list, &mut count[0], 1);", "write `&mut`"),
        (
            "push(&mut list, &mut c32[0], 1);",
            "`u32`, `u64` or `usize` element, not `i32`",
        ),
        ("push(&mut list, &mut fc[0], 1);", "not `f32`"),
        (
            "let mut c = 0u32; push(&mut list, &mut c, 1);",
            "not a local variable",
        ),
        ("push(&mut list, count[0], 1);", "the counter"),
        ("push(&mut list, &mut count[0], 1.5);", "expected `u32`"),
        (
            "push(&mut list, &mut count[0]);",
            "`push(&mut list, &mut count[0], v)`",
        ),
        (
            "list.push(1);",
            "`push` is a function, not a method: `push(&mut list, &mut count[0], v)`",
        ),
    ];
    for (body, want) in cases {
        let e = err(body);
        assert!(e.contains(want), "`{body}`: {e}");
    }
}

/// Where a schedule runs the code outside the atom loops on several lanes and its atomics on one,
/// a push's position is not available there: the error names the schedule and what to write.
#[test]
fn push_result_outside_the_atom_loop_under_a_group_is_refused() {
    let src = "fn k(a: Csr<f32>, list: &mut [u32], count: &mut [u32], y: &mut [f32]) {
        for row in a.tiles() {
            let mut s = 0.0;
            for nz in a.atoms(row) { s += a.values[nz]; }
            let p = push(&mut list, &mut count[0], row as u32);
            y[row] = s + p as f32;
        }
    }";
    let e = lower(r#"schedule = "warp""#, src).unwrap_err();
    assert!(e.contains("under `warp`"), "{e}");
    assert!(
        e.contains("make the atomic (or the `push`) a statement of its own"),
        "{e}"
    );
    // As a statement of its own it lowers: on the group's leader only.
    let src = src
        .replace(
            "let p = push(&mut list, &mut count[0], row as u32);",
            "push(&mut list, &mut count[0], row as u32);",
        )
        .replace("s + p as f32", "s");
    let cuda = lower(r#"schedule = "warp""#, &src).unwrap();
    assert!(
        cuda.contains("if (loops_lane == 0u) (void)loops_push(list, list_len, &count[0ull], ((unsigned int)row));"),
        "{cuda}"
    );
    // Before the atom loop under `hierarchical` (run again in every pass), as any atomic.
    let src = "fn k(a: Csr<f32>, list: &mut [u32], count: &mut [u32], y: &mut [f32]) {
        for row in a.tiles() {
            push(&mut list, &mut count[0], row as u32);
            let mut s = 0.0;
            for nz in a.atoms(row) { s += a.values[nz]; }
            y[row] = s;
        }
    }";
    let e = lower(r#"schedule = "hierarchical""#, src).unwrap_err();
    assert!(e.contains("hierarchical") && e.contains("atomics"), "{e}");
}

proptest! {
    /// The tile-only lowering (`thread`'s mapping): every tile's body runs exactly once, for any
    /// grid.
    #[test]
    fn every_tile_runs_once(tiles in 0u64..5000, threads in 1u64..3000) {
        let mut runs = vec![0u32; tiles as usize];
        for t in 0..threads {
            for tile in thread::model_tiles_of_thread(t, threads, tiles) {
                runs[tile as usize] += 1;
            }
        }
        prop_assert!(runs.iter().all(|&r| r == 1));
    }

    /// The warp-aggregated append: whatever lanes push together, in whatever order the warps'
    /// atomics land, every push gets its own position (`start..start + pushes`), the list holds
    /// exactly the pushes below its length, and the counter counts every push.
    #[test]
    fn every_push_gets_its_own_position(
        issues in prop::collection::vec((any::<u32>(), 0u32..1000), 0..80),
        start in 0u64..50,
        len in 0u64..2000,
    ) {
        let issues: Vec<append::Issue> = issues
            .into_iter()
            .map(|(mask, seed)| append::Issue {
                mask,
                values: (0..32).map(|l| seed * 32 + l).collect(),
            })
            .collect();
        let run = append::model_push(&issues, start, len);
        let pushes: u64 = issues.iter().map(|i| i.mask.count_ones() as u64).sum();
        prop_assert_eq!(run.count, start + pushes);
        let mut positions: Vec<u64> = run.positions.iter().flatten().copied().collect();
        positions.sort_unstable();
        prop_assert_eq!(positions, (start..start + pushes).collect::<Vec<_>>());
        for (issue, pos) in issues.iter().zip(&run.positions) {
            // One atomic per issue, the lanes in rank order.
            prop_assert!(pos.windows(2).all(|w| w[1] == w[0] + 1));
            let lanes = (0..32).filter(|l| issue.mask >> l & 1 == 1);
            for (lane, &p) in lanes.zip(pos) {
                let want = (p < len).then_some(issue.values[lane as usize]);
                prop_assert_eq!(run.list.get(p as usize).copied().flatten(), want);
            }
        }
        prop_assert_eq!(run.atomics, issues.iter().filter(|i| i.mask != 0).count());
    }
}

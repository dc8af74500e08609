//! Tile-only bodies and the cooperative append `push` on the GPU (issue 39): the library's
//! frontier kernels (`loops::ops::frontier`: degrees, flag compaction) and a user's kernels written
//! from the README (rows whose largest |value| passes a threshold to a list, entries to a list with
//! their values, a tile-only row test), each under every named schedule, f32 and f64 where values
//! are involved, against CPU references on fresh random inputs (outputs poisoned first), sizes
//! from empty to past a warp of pushes into one counter; a list too short (the counter counts
//! every push, nothing is written past the end; checked mode reports it); and the language's
//! compaction timed against the runtime's hand-written `loops_compact_flags` in the same run.
#![cfg(feature = "gpu")]

mod common;

use std::sync::{RwLock, RwLockReadGuard};

use loops::launch::set_checked_mode;
use loops::ops::frontier::{compaction, degrees};
use loops::prelude::*;
use rand::{Rng, SeedableRng};

/// Checked mode is one setting for the process: the test that turns it on holds this for writing.
static CHECKED_MODE: RwLock<()> = RwLock::new(());

fn checked_mode_unchanged() -> RwLockReadGuard<'static, ()> {
    CHECKED_MODE.read().unwrap_or_else(|e| e.into_inner())
}

const POISON: u32 = 0xDEAD_BEEF;

/// Random out-degrees (many zeros, a few large), as graph offsets.
fn random_offsets(rng: &mut impl Rng, n: usize) -> Vec<usize> {
    let mut offsets = vec![0usize];
    for _ in 0..n {
        let d = match rng.random_range(0..10) {
            0..=2 => 0,
            3..=8 => rng.random_range(1..20),
            _ => rng.random_range(20..3000),
        };
        offsets.push(offsets.last().unwrap() + d);
    }
    offsets
}

const SIZES: [usize; 8] = [0, 1, 31, 32, 33, 1000, 40_000, 300_001];

#[test]
fn frontier_degrees_under_every_schedule() {
    let _mode = checked_mode_unchanged();
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for n in SIZES {
        let offsets = random_offsets(&mut rng, n);
        let g = gpu.upload_offsets(&offsets).unwrap();
        // A frontier of distinct vertices in random order (some of them), and one id past the graph.
        let mut frontier: Vec<u32> = (0..n as u32).filter(|_| rng.random_bool(0.3)).collect();
        for i in (1..frontier.len()).rev() {
            frontier.swap(i, rng.random_range(0..=i));
        }
        frontier.push(n as u32 + 5);
        let df = gpu.upload(&frontier).unwrap();
        let degree = |v: usize| (offsets[v + 1] - offsets[v]) as u32;
        let mut want = vec![POISON; n];
        let mut want_largest = 0;
        for &v in frontier.iter().filter(|&&v| (v as usize) < n) {
            want[v as usize] = degree(v as usize);
            want_largest = want_largest.max(degree(v as usize));
        }
        for schedule in degrees::SCHEDULES {
            let mut out = gpu.upload(&vec![POISON; n]).unwrap();
            let mut largest = gpu.zeros::<u32>(1).unwrap();
            degrees::launch(schedule, &gpu, &g, &df, &mut out, &mut largest)
                .unwrap_or_else(|e| panic!("{schedule}, {n} vertices: {e}"));
            assert_eq!(
                gpu.download(&out).unwrap(),
                want,
                "{schedule}, {n} vertices"
            );
            assert_eq!(
                gpu.download(&largest).unwrap(),
                [want_largest],
                "{schedule}, {n} vertices"
            );
        }
        // The op: the same, with its checks.
        let mut out = gpu.upload(&vec![POISON; n]).unwrap();
        let mut largest = gpu.zeros::<u32>(1).unwrap();
        loops::ops::frontier::frontier_degrees(&gpu, &g, &df, &mut out, &mut largest).unwrap();
        assert_eq!(gpu.download(&out).unwrap(), want);
        let mut short = gpu.zeros::<u32>(n.saturating_sub(1)).unwrap();
        if n > 0 {
            let e = loops::ops::frontier::frontier_degrees(&gpu, &g, &df, &mut short, &mut largest)
                .unwrap_err();
            assert!(e.to_string().contains("degrees"), "{e}");
        }
    }
}

/// The flag compaction of `flags` (density `p`) under `schedule`, from a counter at `start`:
/// every flagged id once after `start`, nothing else written, every flag cleared.
fn check_compaction(gpu: &Gpu, schedule: &str, g: &DeviceOffsets, flags: &[u32], start: u32) {
    let n = flags.len();
    let want: Vec<u32> = (0..n as u32).filter(|&v| flags[v as usize] != 0).collect();
    let mut df = gpu.upload(flags).unwrap();
    let mut list = gpu.upload(&vec![POISON; n + start as usize]).unwrap();
    let mut count = gpu.upload(&[start]).unwrap();
    compaction::launch(schedule, gpu, g, &mut df, &mut list, &mut count)
        .unwrap_or_else(|e| panic!("{schedule}, {n} flags: {e}"));
    let what = format!("{schedule}, {n} flags, {} set, from {start}", want.len());
    let count = gpu.download(&count).unwrap()[0];
    assert_eq!(count as usize, start as usize + want.len(), "{what}");
    let list = gpu.download(&list).unwrap();
    assert!(
        list[..start as usize].iter().all(|&x| x == POISON),
        "{what}: wrote before the counter"
    );
    let mut got = list[start as usize..count as usize].to_vec();
    got.sort_unstable();
    assert_eq!(got, want, "{what}");
    assert!(
        list[count as usize..].iter().all(|&x| x == POISON),
        "{what}: wrote past the count"
    );
    assert!(
        gpu.download(&df).unwrap().iter().all(|&f| f == 0),
        "{what}: flags left set"
    );
}

#[test]
fn flag_compaction_under_every_schedule() {
    let _mode = checked_mode_unchanged();
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for n in SIZES {
        let g = gpu.upload_offsets(&random_offsets(&mut rng, n)).unwrap();
        // Densities from none to all: all set is every lane of every warp pushing into one counter.
        for p in [0.0, 0.02, 0.5, 1.0] {
            let flags: Vec<u32> = (0..n)
                .map(|_| {
                    if rng.random_bool(p) {
                        rng.random_range(1..=u32::MAX)
                    } else {
                        0
                    }
                })
                .collect();
            for schedule in compaction::SCHEDULES {
                check_compaction(&gpu, schedule, &g, &flags, 0);
            }
            check_compaction(&gpu, "warp", &g, &flags, 7);
        }
    }
    // The op refuses a list that could not hold every vertex.
    let g = gpu.upload_offsets(&[0, 1, 2, 3]).unwrap();
    let mut flags = gpu.upload(&[1u32, 1, 1]).unwrap();
    let mut list = gpu.zeros::<u32>(2).unwrap();
    let mut count = gpu.zeros::<u32>(1).unwrap();
    let e = loops::ops::frontier::compact_flags(&gpu, &g, &mut flags, &mut list, &mut count)
        .unwrap_err();
    assert!(e.to_string().contains("list"), "{e}");
}

/// A list too short: the counter counts every push, the list holds distinct flagged ids up to its
/// length and nothing past it is written (plain); checked mode reports the first push past the end
/// as it reports any index out of bounds.
#[test]
fn a_push_past_the_list_is_counted_not_written_and_checked_mode_reports_it() {
    let _mode = CHECKED_MODE.write().unwrap_or_else(|e| e.into_inner());
    let gpu = common::gpu();
    let n = 5000;
    let g = gpu.upload_offsets(&(0..=n).collect::<Vec<_>>()).unwrap();
    let flags: Vec<u32> = (0..n as u32).map(|v| u32::from(v % 3 != 0)).collect();
    let set = flags.iter().filter(|&&f| f != 0).count();
    let room = 1000;
    for checked in [false, true] {
        set_checked_mode(Some(checked));
        let mut df = gpu.upload(&flags).unwrap();
        let mut list = gpu.upload(&vec![POISON; 2 * room]).unwrap();
        list.set_len(room);
        let mut count = gpu.zeros::<u32>(1).unwrap();
        let result = compaction::thread::compact_flags(&gpu, &g, &mut df, &mut list, &mut count);
        if checked {
            let e = result
                .expect_err("checked mode reports the push past the list")
                .to_string();
            assert!(
                e.contains("kernel `compact_flags` indexed `list` at ")
                    && e.contains(&format!("out of bounds for length {room}"))
                    && e.contains("loops-runtime/src/graph/lang.rs:"),
                "{e}"
            );
        } else {
            result.unwrap();
        }
        assert_eq!(
            gpu.download(&count).unwrap(),
            [set as u32],
            "checked {checked}"
        );
        list.set_len(2 * room);
        let list = gpu.download(&list).unwrap();
        assert!(
            list[room..].iter().all(|&x| x == POISON),
            "checked {checked}"
        );
        let mut got = list[..room].to_vec();
        got.sort_unstable();
        got.dedup();
        assert_eq!(got.len(), room, "checked {checked}: distinct ids");
        assert!(
            got.iter().all(|&v| flags[v as usize] != 0),
            "checked {checked}"
        );
    }
    set_checked_mode(None);
}

/// A user's kernels, as the README teaches them, with `push` and a tile-only body (compiled by
/// NVRTC under every schedule in `tests/nvrtc_push.rs`).
#[path = "common/push_kernels.rs"]
mod user;

fn user_kernels<T: Float>(seed: u64) {
    let gpu = common::gpu();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for (name, a) in common::generated_matrices::<T>(seed) {
        let t = T::from_f64(rng.random_range(0.0..1.0));
        let da = gpu.upload_csr(&a).unwrap();
        let rows = a.rows();
        let (offsets, values) = (a.indptr().raw_storage().to_vec(), a.data().to_vec());
        let row_values = |r: usize| &values[offsets[r]..offsets[r + 1]];
        let loud: Vec<u32> = (0..rows as u32)
            .filter(|&r| {
                row_values(r as usize)
                    .iter()
                    .fold(0.0f64, |m, v| m.max(v.to_f64().abs()))
                    > t.to_f64()
            })
            .collect();
        let first: Vec<u32> = (0..rows as u32)
            .filter(|&r| row_values(r as usize).first().is_some_and(|v| *v > t))
            .collect();
        let entries: Vec<u32> = (0..values.len() as u32)
            .filter(|&nz| values[nz as usize].to_f64().abs() > t.to_f64())
            .collect();
        let sorted = |list: &DeviceBuffer<u32>, n: usize| {
            let mut v = gpu.download(list).unwrap();
            assert!(v[n..].iter().all(|&x| x == POISON), "wrote past the count");
            v.truncate(n);
            v.sort_unstable();
            v
        };
        for schedule in user::loud_rows::SCHEDULES {
            let what = format!("{name}, {schedule}, {}", T::RUST_NAME);
            let mut list = gpu.upload(&vec![POISON; rows]).unwrap();
            let mut count = gpu.zeros::<u32>(1).unwrap();
            user::loud_rows::launch(schedule, &gpu, &da, t, &mut list, &mut count)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let n = gpu.download(&count).unwrap()[0] as usize;
            assert_eq!(sorted(&list, n), loud, "loud_rows {what}");

            let mut list = gpu.upload(&vec![POISON; rows]).unwrap();
            let mut count = gpu.zeros::<u32>(1).unwrap();
            user::first_above::launch(schedule, &gpu, &da, t, &mut list, &mut count)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let n = gpu.download(&count).unwrap()[0] as usize;
            assert_eq!(sorted(&list, n), first, "first_above {what}");

            let nnz = values.len();
            let mut list = gpu.upload(&vec![POISON; nnz]).unwrap();
            let mut vals = gpu.upload(&vec![T::from_f64(f64::NAN); nnz]).unwrap();
            let mut count = gpu.zeros::<u64>(1).unwrap();
            user::loud_entries::launch(schedule, &gpu, &da, t, &mut list, &mut vals, &mut count)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let n = gpu.download(&count).unwrap()[0] as usize;
            assert_eq!(n, entries.len(), "loud_entries {what}");
            let (got, got_vals) = (gpu.download(&list).unwrap(), gpu.download(&vals).unwrap());
            // Each position holds an entry and its own value.
            for (p, &nz) in got[..n].iter().enumerate() {
                assert_eq!(
                    got_vals[p].to_f64().to_bits(),
                    values[nz as usize].to_f64().to_bits(),
                    "loud_entries {what} at {p}"
                );
            }
            assert_eq!(sorted(&list, n), entries, "loud_entries {what}");

            let mut list = gpu.upload(&vec![POISON; rows]).unwrap();
            let mut count = gpu.zeros::<u32>(2).unwrap();
            user::parity::launch(schedule, &gpu, &da, &mut list, &mut count)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let want = [rows.div_ceil(2) as u32, (rows / 2) as u32];
            assert_eq!(gpu.download(&count).unwrap(), want, "parity counts {what}");
            let got = gpu.download(&list).unwrap();
            let filled = rows.div_ceil(2);
            assert!(
                got[filled..].iter().all(|&x| x == POISON),
                "parity {what}: past the counts"
            );
            // Every position below a count was written by a row of that position's parity pair.
            assert!(
                got[..filled].iter().all(|&x| (x as usize) < rows),
                "parity {what}"
            );
        }
    }
}

/// A user's tile-only reductions (`tile_stats`: an i32 sum, a u64 largest, an i64 smallest, each
/// summed in registers and flushed once per block) against the CPU's, from 0 tiles to more than
/// the grid's threads (several tiles per thread), into slots that start nonzero.
#[test]
fn a_users_tile_only_reductions_agree_with_the_cpu() {
    let gpu = common::gpu();
    let mut rng = rand::rngs::StdRng::seed_from_u64(common::fresh_seed());
    for tiles in [0usize, 1, 31, 33, 1000, 70_000, 1_500_000] {
        let mut offsets = vec![0usize; tiles + 1];
        for t in 0..tiles {
            let len = if rng.random_range(0..61) == 0 {
                rng.random_range(0..999)
            } else {
                rng.random_range(0..16)
            };
            offsets[t + 1] = offsets[t] + len;
        }
        let lens: Vec<i64> = offsets.windows(2).map(|w| (w[1] - w[0]) as i64).collect();
        let g = gpu.upload_offsets(&offsets).unwrap();
        let k = 2;
        let mut sum = gpu.upload(&[7i32, 7, -5, 7]).unwrap();
        let mut longest = gpu.upload(&[3u64]).unwrap();
        let mut shortest = gpu.upload(&[500i64]).unwrap();
        user::reduce::thread::tile_stats(&gpu, &g, &mut sum, &mut longest, &mut shortest, k)
            .unwrap();
        let want_sum = lens
            .iter()
            .fold(-5i32, |a, l| a.wrapping_add(*l as i32 - 3));
        let want_longest = lens.iter().fold(3u64, |a, l| a.max(*l as u64));
        let want_shortest = lens
            .iter()
            .filter(|l| **l > 0)
            .fold(500i64, |a, l| a.min(*l));
        assert_eq!(
            gpu.download(&sum).unwrap(),
            [7, 7, want_sum, 7],
            "{tiles} tiles"
        );
        assert_eq!(
            gpu.download(&longest).unwrap(),
            [want_longest],
            "{tiles} tiles"
        );
        assert_eq!(
            gpu.download(&shortest).unwrap(),
            [want_shortest],
            "{tiles} tiles"
        );
    }
}

/// A user's tile-only pushes staged per block, past the staging area (`repeat_tiles`: up to 15
/// pushes per tile, so most rounds overflow into the warp's direct push): every push counted, the
/// list holding each pushed value once; a list too short holds distinct pushed values up to its
/// length and the count still counts all.
#[test]
fn a_users_staged_pushes_past_the_staging_area() {
    let gpu = common::gpu();
    let mut rng = rand::rngs::StdRng::seed_from_u64(common::fresh_seed());
    for tiles in [0usize, 1, 33, 1000, 70_000, 1_500_000] {
        let mut offsets = vec![0usize; tiles + 1];
        for t in 0..tiles {
            offsets[t + 1] = offsets[t] + rng.random_range(0..16);
        }
        let mut want: Vec<u32> = (0..tiles)
            .flat_map(|t| (0..(offsets[t + 1] - offsets[t]) as u32).map(move |j| t as u32 * 16 + j))
            .collect();
        want.sort_unstable();
        let g = gpu.upload_offsets(&offsets).unwrap();
        for len in [want.len(), want.len() / 2] {
            let mut list = gpu.upload(&vec![POISON; len + 1]).unwrap();
            let mut count = gpu.upload(&[0u32]).unwrap();
            user::repeat::thread::repeat_tiles(&gpu, &g, &mut list, &mut count).unwrap();
            assert_eq!(
                gpu.download(&count).unwrap(),
                [want.len() as u32],
                "{tiles} tiles, list {len}"
            );
            let mut got = gpu.download(&list).unwrap();
            // The list as the kernel sees it is `len + 1` long: every slot below both written.
            let filled = (len + 1).min(want.len());
            assert!(
                got[filled..].iter().all(|&x| x == POISON),
                "{tiles} tiles: past the count"
            );
            got.truncate(filled);
            got.sort_unstable();
            if filled == want.len() {
                assert_eq!(got, want, "{tiles} tiles");
            } else {
                got.dedup();
                assert_eq!(got.len(), filled, "{tiles} tiles: distinct");
                assert!(
                    got.iter().all(|v| want.binary_search(v).is_ok()),
                    "{tiles} tiles"
                );
            }
        }
    }
}

#[test]
fn a_users_push_kernels_f32() {
    let _mode = checked_mode_unchanged();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    user_kernels::<f32>(seed);
}

#[test]
fn a_users_push_kernels_f64() {
    let _mode = checked_mode_unchanged();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    user_kernels::<f64>(seed);
}

/// The language's flag compaction (`compact_flags`, staged per block: one atomic per block
/// round) against the runtime's hand-written one (`loops::graph::Compaction`: a ballot and a
/// block scan, one atomic per block round), on the same flags in the same run: CUDA events
/// around each launch, 5 warm-up runs, the median of 30. Prints a CSV (and writes it to
/// `$OUT/frontier_compaction.csv` where `OUT` is set).
#[test]
fn compaction_benchmark_language_against_hand_written() {
    let _mode = checked_mode_unchanged();
    let gpu = common::gpu();
    let hand = loops::graph::Compaction::new(&gpu).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(39);
    let mut csv = String::from("device,vertices,density,set,language_ms,hand_written_ms,ratio\n");
    let device = gpu.name().to_string();
    for n in [1usize << 16, 1 << 20, 1 << 24] {
        let g = gpu.upload_offsets(&(0..=n).collect::<Vec<_>>()).unwrap();
        for p in [0.001, 0.05, 0.5, 1.0] {
            let flags: Vec<u32> = (0..n).map(|_| u32::from(rng.random_bool(p))).collect();
            let set = flags.iter().filter(|&&f| f != 0).count();
            let mut df = gpu.upload(&flags).unwrap();
            let mut list = gpu.zeros::<u32>(n).unwrap();
            let mut count = gpu.zeros::<u32>(1).unwrap();
            let timer = gpu.timer().unwrap();
            // A memset of 512 MB queued before each timed launch keeps the GPU busy while the host
            // queues the start event and the launch, so no host time falls between the events.
            let mut busy = gpu.zeros::<u32>(128 << 20).unwrap();
            let mut time = |which: usize| -> f64 {
                let mut samples = Vec::new();
                for rep in 0..35u32 {
                    gpu.write_at(&mut df, 0, &flags).unwrap();
                    gpu.fill(&mut count, 0).unwrap();
                    gpu.fill(&mut busy, rep).unwrap();
                    timer.start().unwrap();
                    if which == 0 {
                        compaction::thread::compact_flags(&gpu, &g, &mut df, &mut list, &mut count)
                            .unwrap();
                    } else {
                        hand.run(&gpu, &mut df, &mut list, &mut count).unwrap();
                    }
                    timer.stop().unwrap();
                    let ms = timer.elapsed_ms().unwrap() as f64;
                    if rep >= 5 {
                        samples.push(ms);
                    }
                }
                assert_eq!(gpu.download(&count).unwrap(), [set as u32]);
                samples.sort_by(f64::total_cmp);
                samples[samples.len() / 2]
            };
            let (language, hand_written) = (time(0), time(1));
            let line = format!(
                "{device},{n},{p},{set},{language:.5},{hand_written:.5},{:.3}\n",
                hand_written / language
            );
            print!("{line}");
            csv.push_str(&line);
        }
    }
    println!("{csv}");
    if let Some(out) = std::env::var_os("OUT") {
        std::fs::write(
            std::path::Path::new(&out).join("frontier_compaction.csv"),
            csv,
        )
        .unwrap();
    }
}

//! Scale: SpMV and SSSP on tile sets of more than 2^31 atoms (64-bit offsets), and the memory
//! errors. Needs a GPU with about 20 GB free and a host with about 20 GB of RAM and several cores;
//! run it in release (`cargo test --release --features gpu --test gpu_scale`): the host generates
//! and checks billions of entries.
//!
//! - SpMV: a generated 2.2e9-nonzero CSR matrix (`f32` values, `u32` column indices uploaded as
//!   they are with `Gpu::upload_csr_parts`: 17.6 GB on the device), under every schedule of
//!   `examples/kernels/spmv.rs`: the tile-mapped ones and `auto` must compute it, the others must
//!   refuse it with `LoopsError::WideUnsupported` and write nothing. Each entry is a function of
//!   its row and position, so the reference of a row needs no stored matrix. Values and `x` are
//!   small integers whose products and sums stay below 2^24: every summation order gives the
//!   exact result, so rows must be equal, not close. Checked: every row written (the output is
//!   poisoned with NaN), the first and last rows, the rows around atom 2^31, every long row and
//!   20,000 random rows.
//! - SSSP: a random graph of 2^24 vertices and more than 2^31 edges (weights 1..=4), under every
//!   schedule of `src/graph/sssp.rs` that takes a wide frontier graph, checked by a
//!   certificate over every edge, with no Dijkstra: `dist[source] == 0`, no edge can lower a
//!   distance, and every reached vertex but the source has an in-edge that attains its distance.
//!   With positive weights that proves the distances are the shortest ones.
//! - A request larger than the device gets `NotEnoughMemory` (the check before allocating) or
//!   `OutOfMemory` (an allocation the driver refuses), and the handle keeps working.
#![cfg(feature = "gpu")]

mod common;
use loops_kernels as kernels;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use loops::graph::{FrontierLoop, Graph, UNREACHED};
use loops::prelude::*;

/// The two big tests take most of the device and the host: one at a time.
static BIG: Mutex<()> = Mutex::new(());

/// Schedules that take 64-bit offsets; every other schedule of a kernel must refuse them.
/// The schedules with 64-bit-offset variants: thread, every group size (warp and block are
/// groups), and auto through them.
/// Whether the kernel stamped under `schedule` has a 64-bit-offsets instantiation: from its
/// generated description (each schedule unit says whether it supports wide offsets), so a new
/// schedule needs no edit here. The one-tile-per-thread and per-group schedules must be among
/// them (checked, so that the test cannot pass by refusing everything).
fn takes_wide(kernels: &[(&str, &loops::__private::KernelDesc)], schedule: &str) -> bool {
    let wide = |name: &str| {
        kernels
            .iter()
            .find(|(n, _)| *n == name)
            .is_some_and(|(_, k)| k.wide_sources.is_some())
    };
    for must in ["thread", "warp", "block"] {
        assert!(
            !kernels.iter().any(|(n, _)| *n == must) || wide(must),
            "{must} lost its wide instantiation"
        );
    }
    wide(schedule)
}

const TARGET_ATOMS: u64 = 2_200_000_000;
const TWO_31: u64 = 1 << 31;

fn mix(mut z: u64) -> u64 {
    // splitmix64's finalizer: a cheap, well-spread hash of the entry's coordinates.
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn log(start: Instant, what: &str) {
    eprintln!(
        "[gpu_scale {:>6.1} s] {what}",
        start.elapsed().as_secs_f64()
    );
}

/// Fills `out` in parallel over `tiles`' ranges: `fill(first_tile, tiles, slice)` writes the atoms
/// of tiles `first_tile..first_tile + n` into `slice` (which starts at the first one's offset).
fn par_fill<T: Send>(offsets: &[u64], out: &mut [T], fill: impl Fn(usize, usize, &mut [T]) + Sync) {
    let tiles = offsets.len() - 1;
    let threads = std::thread::available_parallelism().map_or(4, |n| n.get());
    let per = tiles.div_ceil(threads);
    std::thread::scope(|s| {
        let mut rest = out;
        let mut first = 0;
        while first < tiles {
            let n = per.min(tiles - first);
            let len = (offsets[first + n] - offsets[first]) as usize;
            let (mine, tail) = rest.split_at_mut(len);
            rest = tail;
            let fill = &fill;
            s.spawn(move || fill(first, n, mine));
            first += n;
        }
    });
}

// ---------------------------------------------------------------------------------------------
// SpMV

const COLS: usize = 1 << 24;
/// Every `LONG_EVERY`-th row holds `LONG_ROW` atoms: warps and blocks loop over them, `thread`
/// runs them in one thread.
const LONG_EVERY: usize = 1_000_003;
const LONG_ROW: usize = 50_000;

fn row_len(r: usize) -> usize {
    if r.is_multiple_of(LONG_EVERY) {
        LONG_ROW
    } else {
        1 + (mix(r as u64) % 64) as usize
    }
}

fn col(r: usize, j: usize) -> u32 {
    (mix(((r as u64) << 20) ^ j as u64 ^ 0xC0FF_EE00_0000_0000) % COLS as u64) as u32
}

/// A small integer: products with `x` are at most 18 in magnitude, so a row of 50,000 sums to
/// less than 2^24 whatever the order.
fn value(r: usize, j: usize) -> f32 {
    ((mix(((r as u64) << 20) ^ j as u64) >> 40) % 7) as f32 - 3.0
}

fn x_of(c: usize) -> f32 {
    ((c as u64).wrapping_mul(2_654_435_761) % 13) as f32 - 6.0
}

fn reference(r: usize) -> f64 {
    (0..row_len(r))
        .map(|j| value(r, j) as f64 * x_of(col(r, j) as usize) as f64)
        .sum()
}

#[test]
fn spmv_with_more_than_2_31_nonzeros() {
    let _one = BIG.lock().unwrap_or_else(|e| e.into_inner());
    let start = Instant::now();
    let gpu = common::gpu();
    let mut offsets = vec![0u64];
    while *offsets.last().unwrap() < TARGET_ATOMS {
        let r = offsets.len() - 1;
        offsets.push(offsets[r] + row_len(r) as u64);
    }
    let rows = offsets.len() - 1;
    let nnz = *offsets.last().unwrap() as usize;
    log(
        start,
        &format!("SpMV: {rows} rows, {COLS} columns, {nnz} nonzeros"),
    );
    let a = {
        let mut indices = vec![0u32; nnz];
        let mut values = vec![0f32; nnz];
        par_fill(&offsets, &mut indices, |first, n, out| {
            let mut k = 0;
            for r in first..first + n {
                for j in 0..row_len(r) {
                    out[k] = col(r, j);
                    k += 1;
                }
            }
        });
        par_fill(&offsets, &mut values, |first, n, out| {
            let mut k = 0;
            for r in first..first + n {
                for j in 0..row_len(r) {
                    out[k] = value(r, j);
                    k += 1;
                }
            }
        });
        log(start, "generated; checking and uploading");
        gpu.upload_csr_parts(rows, COLS, &offsets, &indices, &values)
            .expect("upload")
    };
    assert!(a.is_wide() && a.nnz() == nnz);
    log(start, "uploaded");
    let x_host: Vec<f32> = (0..COLS).map(x_of).collect();
    let x = gpu.upload(&x_host).unwrap();
    let mut y = gpu.zeros::<f32>(rows).unwrap();

    // Rows to check: the ends, those around atom 2^31, every long row, and random ones.
    let row_of = |atom: u64| offsets.partition_point(|&o| o <= atom) - 1;
    let mut sample: Vec<usize> = vec![0, 1, rows - 2, rows - 1];
    for atom in [TWO_31 - 2, TWO_31 - 1, TWO_31, TWO_31 + 1] {
        let r = row_of(atom);
        sample.extend([r.saturating_sub(1), r, (r + 1).min(rows - 1)]);
    }
    sample.extend((0..rows).step_by(LONG_EVERY));
    sample.extend((0..20_000u64).map(|i| (mix(i ^ 0x5EED) % rows as u64) as usize));
    sample.sort_unstable();
    sample.dedup();
    let straddles = row_of(TWO_31);
    assert!(offsets[straddles] <= TWO_31 && offsets[straddles + 1] > TWO_31);
    let want: Vec<f64> = sample.iter().map(|&r| reference(r)).collect();

    let mut failures = Vec::new();
    for &schedule in kernels::spmv::SCHEDULES {
        gpu.fill(&mut y, f32::NAN).unwrap();
        let t = Instant::now();
        let launched = kernels::spmv::launch(schedule, &gpu, &a, &x, &mut y);
        if !takes_wide(kernels::spmv::KERNELS, schedule) {
            match launched {
                Err(LoopsError::WideUnsupported { .. }) => {}
                other => failures.push(format!(
                    "{schedule}: expected WideUnsupported, got {other:?}"
                )),
            }
            let got = gpu.download(&y).unwrap();
            if !got[0].is_nan() || !got[rows - 1].is_nan() {
                failures.push(format!("{schedule}: refused, but y was written"));
            }
            log(start, &format!("{schedule}: refused"));
            continue;
        }
        if let Err(e) = launched {
            failures.push(format!("{schedule}: {e}"));
            continue;
        }
        let got = gpu.download(&y).unwrap();
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if let Some(r) = got.iter().position(|v| v.is_nan()) {
            failures.push(format!("{schedule}: row {r} not written"));
        }
        for (&r, &w) in sample.iter().zip(&want) {
            if got[r] as f64 != w {
                failures.push(format!(
                    "{schedule}: row {r} (atoms {}..{}) is {} but should be {w}",
                    offsets[r],
                    offsets[r + 1],
                    got[r]
                ));
                break;
            }
        }
        log(
            start,
            &format!(
                "{schedule}: {ms:.0} ms (launch + download), {} rows checked",
                sample.len()
            ),
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// SSSP

const VERTICES: usize = 1 << 24;

fn degree(v: usize) -> usize {
    100 + (mix(v as u64 ^ 0xDE6) % 64) as usize
}

fn edge(v: usize, j: usize) -> (u32, u32) {
    let h = mix(((v as u64) << 24) ^ j as u64 ^ 0xED6E_0000_0000_0000);
    ((h % VERTICES as u64) as u32, 1 + ((h >> 40) % 4) as u32)
}

/// The shortest-path certificate over every edge (see the module doc); `Err` names the first
/// violation found.
fn certify(offsets: &[u64], dist: &[u32], source: usize) -> Result<(), String> {
    if dist[source] != 0 {
        return Err(format!("dist[source] = {}", dist[source]));
    }
    let tight: Vec<AtomicBool> = (0..dist.len()).map(|_| AtomicBool::new(false)).collect();
    let threads = std::thread::available_parallelism().map_or(4, |n| n.get());
    let per = VERTICES.div_ceil(threads);
    let violations: Vec<Option<String>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..VERTICES)
            .step_by(per)
            .map(|first| {
                let tight = &tight;
                s.spawn(move || {
                    for v in first..(first + per).min(VERTICES) {
                        let dv = dist[v];
                        if dv == UNREACHED {
                            continue;
                        }
                        debug_assert_eq!(offsets[v + 1] - offsets[v], degree(v) as u64);
                        for j in 0..degree(v) {
                            let (u, w) = edge(v, j);
                            let du = dist[u as usize];
                            if du > dv + w {
                                return Some(format!(
                                    "edge {v} -> {u} (weight {w}) lowers dist[{u}] = {du} to {}",
                                    dv + w
                                ));
                            }
                            if du == dv + w {
                                tight[u as usize].store(true, Ordering::Relaxed);
                            }
                        }
                    }
                    None
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    if let Some(v) = violations.into_iter().flatten().next() {
        return Err(v);
    }
    let unsupported = (0..dist.len())
        .find(|&u| u != source && dist[u] != UNREACHED && !tight[u].load(Ordering::Relaxed));
    if let Some(u) = unsupported {
        return Err(format!("dist[{u}] = {} is attained by no in-edge", dist[u]));
    }
    Ok(())
}

#[test]
fn sssp_with_more_than_2_31_edges() {
    let _one = BIG.lock().unwrap_or_else(|e| e.into_inner());
    let start = Instant::now();
    let gpu = common::gpu();
    let mut offsets = Vec::with_capacity(VERTICES + 1);
    offsets.push(0u64);
    for v in 0..VERTICES {
        offsets.push(offsets[v] + degree(v) as u64);
    }
    let edges = offsets[VERTICES] as usize;
    assert!(edges as u64 > TWO_31);
    log(start, &format!("SSSP: {VERTICES} vertices, {edges} edges"));
    let dg = {
        let mut adj = vec![0u32; edges];
        let mut weights = vec![0u32; edges];
        par_fill(&offsets, &mut adj, |first, n, out| {
            let mut k = 0;
            for v in first..first + n {
                for j in 0..degree(v) {
                    out[k] = edge(v, j).0;
                    k += 1;
                }
            }
        });
        par_fill(&offsets, &mut weights, |first, n, out| {
            let mut k = 0;
            for v in first..first + n {
                for j in 0..degree(v) {
                    out[k] = edge(v, j).1;
                    k += 1;
                }
            }
        });
        let offsets_usize: Vec<usize> = offsets.iter().map(|&o| o as usize).collect();
        log(start, "generated; checking and uploading");
        let g = Graph::new(offsets_usize, adj, weights).expect("graph");
        gpu.upload_graph(&g).expect("upload")
    };
    assert!(dg.offsets().is_wide());
    log(start, "uploaded");
    let source = 12_345usize;
    let mut frontier = FrontierLoop::new(&gpu, VERTICES).unwrap();
    let mut dist = gpu.zeros::<u32>(VERTICES).unwrap();
    let mut failures = Vec::new();
    for &schedule in loops::graph::sssp::SCHEDULES {
        gpu.fill(&mut dist, 0xDEAD_BEEF).unwrap();
        let t = Instant::now();
        let ran = loops::graph::sssp::run(
            schedule,
            &gpu,
            &mut frontier,
            loops::graph::LoopOn::Host,
            &dg,
            source as u32,
            &mut dist,
        );
        if !takes_wide(loops::graph::sssp::KERNELS, schedule) {
            match ran {
                Err(LoopsError::WideUnsupported { .. }) => {}
                other => failures.push(format!(
                    "{schedule}: expected WideUnsupported, got {other:?}"
                )),
            }
            log(start, &format!("{schedule}: refused"));
            continue;
        }
        let stats = match ran {
            Ok(stats) => stats,
            Err(e) => {
                failures.push(format!("{schedule}: {e}"));
                continue;
            }
        };
        let got = gpu.download(&dist).unwrap();
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let reached = got.iter().filter(|&&d| d != UNREACHED).count();
        if let Err(e) = certify(&offsets, &got, source) {
            failures.push(format!("{schedule}: {e}"));
        }
        log(
            start,
            &format!(
                "{schedule}: {ms:.0} ms, {} iterations, {reached} vertices reached; certificate checked",
                stats.iterations
            ),
        );
    }
    // The device loop's push run on 64-bit offsets (its compaction's `_wide` entry), walking the
    // out-edges at every level after the first.
    drop(frontier);
    let mut device = FrontierLoop::new(&gpu, VERTICES).unwrap();
    device.set_walk_limit(Some(u64::MAX));
    gpu.fill(&mut dist, 0xDEAD_BEEF).unwrap();
    let t = Instant::now();
    match loops::graph::sssp::run(
        "warp",
        &gpu,
        &mut device,
        loops::graph::LoopOn::DevicePush(&dg),
        &dg,
        source as u32,
        &mut dist,
    ) {
        Ok(stats) => {
            let got = gpu.download(&dist).unwrap();
            if let Err(e) = certify(&offsets, &got, source) {
                failures.push(format!("device loop, push: {e}"));
            }
            if device.walked_levels() + 1 != stats.iterations {
                failures.push(format!(
                    "device loop, push: {} of {} levels walked, expected all but the first",
                    device.walked_levels(),
                    stats.iterations
                ));
            }
            log(
                start,
                &format!(
                    "device loop, push, warp: {:.0} ms, {} iterations; certificate checked",
                    t.elapsed().as_secs_f64() * 1e3,
                    stats.iterations
                ),
            );
        }
        Err(e) => failures.push(format!("device loop, push: {e}")),
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// Memory

#[test]
fn requests_beyond_the_device_get_memory_errors() {
    let gpu = common::gpu();
    let info = gpu.memory_info().unwrap();
    // The check before allocating, with the device's numbers: a CSR matrix of 40e9 nonzeros.
    let needed = loops::io::host::csr_bytes(1 << 30, 40_000_000_000, 4);
    let e = gpu
        .check_memory("a 40e9-nonzero matrix", needed)
        .unwrap_err();
    assert!(
        matches!(&e, LoopsError::NotEnoughMemory { needed_bytes, .. } if *needed_bytes == needed),
        "{e}"
    );
    eprintln!("{e}");
    // An allocation the driver refuses: an error with the numbers, not a crash.
    let e = gpu
        .zeros::<u32>(info.total_bytes as usize / 4 + (1 << 28))
        .unwrap_err();
    assert!(matches!(e, LoopsError::OutOfMemory { .. }), "{e}");
    eprintln!("{e}");
    // The handle still works.
    let b = gpu.upload(&[1.0f32, 2.0]).unwrap();
    assert_eq!(gpu.download(&b).unwrap(), [1.0, 2.0]);
}

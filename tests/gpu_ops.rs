//! The ready-made operations of `loops::ops` (spmv, spmv_transpose, row_reduce, row_argmax) and
//! `transform_segreduce!` kernels (every reduction, every tile set, explicit schedules) on the
//! GPU against f64 CPU references: the generated shapes (power-law rows, empty rows, one huge row,
//! block boundaries) and every real matrix, f32 and f64. Outputs are poisoned (NaN, `i32::MIN`)
//! before each run. Sums are checked within an error bound that grows with the row's length and
//! the magnitudes it adds (like `tests/gpu_spmv.rs`); min, max and the arg-selections exactly.
#![cfg(feature = "gpu")]

mod common;
#[path = "segreduce/kernels.rs"]
mod kernels;

use common::Tally;
use kernels::scheduled;
use loops::check;
use loops::prelude::*;
use sprs::CsMat;

type Checked = loops::Result<(bool, String)>;

/// `2 (n + 1) u · scale`, 0 for no terms: a float sum of `n` terms whose magnitudes add to
/// `scale`, computed in any order (Higham 3.1; the factor 2 as `verify`'s).
fn sum_bound<T: Float>(n: usize, scale: f64) -> f64 {
    if n == 0 {
        0.0
    } else {
        2.0 * (n as f64 + 1.0) * T::UNIT_ROUNDOFF * scale
    }
}

fn close<T: Float>(got: &[T], want: &[f64], bound: &[f64]) -> (bool, String) {
    let check = check::check_rows(got, want, bound);
    (check.passed() && got.len() >= want.len(), check.to_string())
}

/// Equal values (infinities included); NaN, the poison, never passes.
fn exact<T: Float>(got: &[T], want: &[f64]) -> (bool, String) {
    let bad: Vec<usize> = (0..want.len())
        .filter(|&i| got.get(i).map(|g| g.to_f64()) != Some(want[i]))
        .collect();
    match bad.first() {
        None => (true, format!("all {} exact", want.len())),
        Some(&i) => (
            false,
            format!(
                "{} of {} wrong; first: {i} is {:?}, want {}",
                bad.len(),
                want.len(),
                got.get(i).map(|g| g.to_f64()),
                want[i]
            ),
        ),
    }
}

fn exact_at(got: &[i32], want: &[i32]) -> (bool, String) {
    let bad: Vec<usize> = (0..want.len())
        .filter(|&i| got.get(i) != Some(&want[i]))
        .collect();
    match bad.first() {
        None => (true, format!("all {} positions exact", want.len())),
        Some(&i) => (
            false,
            format!(
                "{} of {} positions wrong; first: {i} is {:?}, want {}",
                bad.len(),
                want.len(),
                got.get(i),
                want[i]
            ),
        ),
    }
}

fn both(a: (bool, String), b: (bool, String)) -> (bool, String) {
    (a.0 && b.0, format!("{}; {}", a.1, b.1))
}

fn poisoned<T: Float>(gpu: &Gpu, n: usize) -> loops::Result<DeviceBuffer<T>> {
    let mut b = gpu.zeros::<T>(n)?;
    gpu.fill(&mut b, T::POISON)?;
    Ok(b)
}

fn poisoned_at(gpu: &Gpu, n: usize) -> loops::Result<DeviceBuffer<i32>> {
    let mut b = gpu.zeros::<i32>(n)?;
    gpu.fill(&mut b, i32::MIN)?;
    Ok(b)
}

/// Each tile's entries `(position, value)` in order: rows of a CSR matrix (position: column),
/// or columns (position: row).
fn tiles_of<T: Float>(a: &CsMat<T>) -> Vec<Vec<(usize, f64)>> {
    a.outer_iterator()
        .map(|v| v.iter().map(|(i, &x)| (i, x.to_f64())).collect())
        .collect()
}

/// Each tile's best value by `better` (strictly: the first among equals) and its position
/// (`-1`, `start` for an empty tile or one where nothing beats `start`).
fn select(
    tiles: &[Vec<(usize, f64)>],
    start: f64,
    better: impl Fn(f64, f64) -> bool,
) -> (Vec<f64>, Vec<i32>) {
    tiles
        .iter()
        .map(|t| {
            let (mut best, mut at) = (start, -1);
            for &(i, v) in t {
                if better(v, best) {
                    (best, at) = (v, i as i32);
                }
            }
            (best, at)
        })
        .unzip()
}

/// The row reductions of a CSR matrix, in f64: (sum, scale = Σ|v|, min, max, Σ v²).
struct RowStats {
    n: Vec<usize>,
    sum: Vec<f64>,
    abs: Vec<f64>,
    min: Vec<f64>,
    max: Vec<f64>,
    squares: Vec<f64>,
}

/// One tile's entries: (position, value).
type Tile = [(usize, f64)];

fn row_stats(tiles: &[Vec<(usize, f64)>]) -> RowStats {
    let f = |g: &dyn Fn(&Tile) -> f64| tiles.iter().map(|t| g(t)).collect::<Vec<_>>();
    RowStats {
        n: tiles.iter().map(|t| t.len()).collect(),
        sum: f(&|t| t.iter().map(|e| e.1).sum()),
        abs: f(&|t| t.iter().map(|e| e.1.abs()).sum()),
        min: f(&|t| t.iter().fold(f64::INFINITY, |m, e| m.min(e.1))),
        max: f(&|t| t.iter().fold(f64::NEG_INFINITY, |m, e| m.max(e.1))),
        squares: f(&|t| t.iter().map(|e| e.1 * e.1).sum()),
    }
}

/// `(Σ a x, Σ |a x|)` per tile.
fn dots(tiles: &[Vec<(usize, f64)>], x: &[f64]) -> (Vec<f64>, Vec<f64>) {
    tiles
        .iter()
        .map(|t| {
            let p = t.iter().map(|&(c, v)| v * x[c]);
            (p.clone().sum::<f64>(), p.map(f64::abs).sum::<f64>())
        })
        .unzip()
}

/// The ops of `CsrOps` on one matrix.
fn check_ops<T: Float>(gpu: &Gpu, tally: &mut Tally, name: &str, a: &CsMat<T>, seed: u64) {
    let (rows, cols) = (a.rows(), a.cols());
    let tiles = tiles_of(a);
    let stats = row_stats(&tiles);
    let x: Vec<T> = loops::io::generate::random_vector(cols, seed);
    let xt: Vec<T> = loops::io::generate::random_vector(rows, seed ^ 0x5eed);
    let y0: Vec<T> = loops::io::generate::random_vector(rows, seed ^ 0xbeef);
    let x64: Vec<f64> = x.iter().map(|v| v.to_f64()).collect();
    let (dot, dot_scale) = dots(&tiles, &x64);
    let u = T::UNIT_ROUNDOFF;
    let da = match gpu.upload_csr(a) {
        Ok(da) => da,
        Err(e) => return tally.record(name, "upload", Err(e.to_string())),
    };
    let mut record =
        |key: &str, outcome: Checked| tally.record(name, key, outcome.map_err(|e| e.to_string()));

    // y = 2 A x (beta = 0: the poison in y must not leak).
    record(
        "spmv alpha=2 beta=0",
        (|| {
            let dx = gpu.upload(&x)?;
            let mut dy = poisoned::<T>(gpu, rows)?;
            da.spmv(gpu, T::from_f64(2.0), &dx, T::from_f64(0.0), &mut dy)?;
            let want: Vec<f64> = dot.iter().map(|d| 2.0 * d).collect();
            let bound: Vec<f64> = (0..rows)
                .map(|r| sum_bound::<T>(stats.n[r], 2.0 * dot_scale[r]))
                .collect();
            Ok(close(&gpu.download(&dy)?, &want, &bound))
        })(),
    );
    // y = 1.5 A x - 0.5 y0.
    record(
        "spmv alpha=1.5 beta=-0.5",
        (|| {
            let dx = gpu.upload(&x)?;
            let mut dy = gpu.upload(&y0)?;
            da.spmv(gpu, T::from_f64(1.5), &dx, T::from_f64(-0.5), &mut dy)?;
            let want: Vec<f64> = (0..rows)
                .map(|r| 1.5 * dot[r] - 0.5 * y0[r].to_f64())
                .collect();
            let bound: Vec<f64> = (0..rows)
                .map(|r| {
                    2.0 * (stats.n[r] as f64 + 3.0)
                        * u
                        * (1.5 * dot_scale[r] + 0.5 * y0[r].to_f64().abs())
                })
                .collect();
            Ok(close(&gpu.download(&dy)?, &want, &bound))
        })(),
    );
    // y = Aᵀ xt, into a y one longer than needed whose last entry must stay as it was.
    record(
        "spmv_transpose",
        (|| {
            let mut want = vec![0.0; cols];
            let mut scale = vec![0.0; cols];
            let mut n = vec![0usize; cols];
            for (r, t) in tiles.iter().enumerate() {
                for &(c, v) in t {
                    let p = v * xt[r].to_f64();
                    want[c] += p;
                    scale[c] += p.abs();
                    n[c] += 1;
                }
            }
            let dx = gpu.upload(&xt)?;
            let mut dy = poisoned::<T>(gpu, cols + 1)?;
            da.spmv_transpose(gpu, &dx, &mut dy)?;
            let got = gpu.download(&dy)?;
            let bound: Vec<f64> = (0..cols).map(|c| sum_bound::<T>(n[c], scale[c])).collect();
            let (ok, report) = close(&got, &want, &bound);
            let tail_kept = got[cols].to_f64().is_nan();
            Ok((
                ok && tail_kept,
                format!("{report}; entry past cols left alone: {tail_kept}"),
            ))
        })(),
    );
    for (op, key) in [
        (RowReduction::Sum, "row_reduce Sum"),
        (RowReduction::Max, "row_reduce Max"),
        (RowReduction::Min, "row_reduce Min"),
        (RowReduction::Norm, "row_reduce Norm"),
    ] {
        record(
            key,
            (|| {
                let mut out = poisoned::<T>(gpu, rows)?;
                da.row_reduce(gpu, op, &mut out)?;
                let got = gpu.download(&out)?;
                Ok(match op {
                    RowReduction::Sum => {
                        let bound: Vec<f64> = (0..rows)
                            .map(|r| sum_bound::<T>(stats.n[r], stats.abs[r]))
                            .collect();
                        close(&got, &stats.sum, &bound)
                    }
                    RowReduction::Max => exact(&got, &stats.max),
                    RowReduction::Min => exact(&got, &stats.min),
                    RowReduction::Norm => {
                        let want: Vec<f64> = stats.squares.iter().map(|s| s.sqrt()).collect();
                        // The sum's relative error, halved by the root, plus the root's rounding.
                        let bound: Vec<f64> = (0..rows)
                            .map(|r| (stats.n[r] as f64 + 4.0) * 2.0 * u * want[r])
                            .collect();
                        close(&got, &want, &bound)
                    }
                })
            })(),
        );
    }
    record(
        "row_argmax",
        (|| {
            let mut best = poisoned::<T>(gpu, rows)?;
            let mut at = poisoned_at(gpu, rows)?;
            da.row_argmax(gpu, &mut best, &mut at)?;
            let (want, want_at) = select(&tiles, f64::NEG_INFINITY, |v, b| v > b);
            Ok(both(
                exact(&gpu.download(&best)?, &want),
                exact_at(&gpu.download(&at)?, &want_at),
            ))
        })(),
    );
}

/// The `transform_segreduce!` kernels of `tests/segreduce/kernels.rs` on one matrix.
fn check_segreduce<T: Float>(gpu: &Gpu, tally: &mut Tally, name: &str, a: &CsMat<T>, seed: u64) {
    let (rows, cols) = (a.rows(), a.cols());
    let tiles = tiles_of(a);
    let stats = row_stats(&tiles);
    let x: Vec<T> = loops::io::generate::random_vector(cols, seed);
    let x64: Vec<f64> = x.iter().map(|v| v.to_f64()).collect();
    let (dot, dot_scale) = dots(&tiles, &x64);
    let dot_bound: Vec<f64> = (0..rows)
        .map(|r| sum_bound::<T>(stats.n[r], dot_scale[r]))
        .collect();
    let sum_bounds: Vec<f64> = (0..rows)
        .map(|r| sum_bound::<T>(stats.n[r], stats.abs[r]))
        .collect();
    // Products in precision T, rounded once: what the GPU's `a * x` gives (the f64 product of two
    // f32 is exact, so rounding it is f32's product).
    let products: Vec<Vec<(usize, f64)>> = tiles
        .iter()
        .map(|t| {
            t.iter()
                .map(|&(c, v)| (c, T::from_f64(v * x64[c]).to_f64()))
                .collect()
        })
        .collect();
    let u = T::UNIT_ROUNDOFF;
    let uploads = (|| Ok::<_, loops::LoopsError>((gpu.upload_csr(a)?, gpu.upload(&x)?)))();
    let (da, dx) = match uploads {
        Ok(d) => d,
        Err(e) => return tally.record(name, "upload", Err(e.to_string())),
    };
    let mut record =
        |key: &str, outcome: Checked| tally.record(name, key, outcome.map_err(|e| e.to_string()));
    type Dot<T> =
        fn(&Gpu, &DeviceCsr<T>, &DeviceBuffer<T>, &mut DeviceBuffer<T>) -> loops::Result<()>;
    type Fold<T> = fn(&Gpu, &DeviceCsr<T>, &mut DeviceBuffer<T>) -> loops::Result<()>;
    type Select<T> =
        fn(&Gpu, &DeviceCsr<T>, &mut DeviceBuffer<T>, &mut DeviceBuffer<i32>) -> loops::Result<()>;

    let dots: [(&str, Dot<T>); 5] = [
        ("sum (auto)", kernels::seg_dot),
        ("sum thread", scheduled::dot_thread),
        ("sum warp", scheduled::dot_warp),
        ("sum merge_path", scheduled::dot_merge_path),
        ("sum group64", scheduled::dot_group64),
    ];
    for (key, kernel) in dots {
        record(
            key,
            (|| {
                let mut out = poisoned::<T>(gpu, rows)?;
                kernel(gpu, &da, &dx, &mut out)?;
                Ok(close(&gpu.download(&out)?, &dot, &dot_bound))
            })(),
        );
    }
    record(
        "min (auto) of a x",
        (|| {
            let mut out = poisoned::<T>(gpu, rows)?;
            kernels::seg_min(gpu, &da, &dx, &mut out)?;
            let want: Vec<f64> = products
                .iter()
                .map(|t| t.iter().fold(f64::INFINITY, |m, e| m.min(e.1)))
                .collect();
            Ok(exact(&gpu.download(&out)?, &want))
        })(),
    );
    let folds: [(&str, Fold<T>); 5] = [
        ("product (auto)", kernels::seg_product),
        ("max (auto) of |v|", kernels::seg_max),
        ("min thread", scheduled::min_thread),
        ("min warp", scheduled::min_warp),
        ("min merge_path", scheduled::min_merge_path),
    ];
    for (key, kernel) in folds {
        record(
            key,
            (|| {
                let mut out = poisoned::<T>(gpu, rows)?;
                kernel(gpu, &da, &mut out)?;
                let got = gpu.download(&out)?;
                Ok(if key.starts_with("product") {
                    let want: Vec<f64> = tiles
                        .iter()
                        .map(|t| {
                            t.iter()
                                .map(|e| 1.0 + 0.001 * e.1.clamp(-1.0, 1.0))
                                .product()
                        })
                        .collect();
                    let bound: Vec<f64> = (0..rows)
                        .map(|r| 2.0 * (3.0 * stats.n[r] as f64 + 2.0) * u * want[r].abs())
                        .collect();
                    close(&got, &want, &bound)
                } else if key.starts_with("max") {
                    let want: Vec<f64> = tiles
                        .iter()
                        .map(|t| t.iter().fold(f64::NEG_INFINITY, |m, e| m.max(e.1.abs())))
                        .collect();
                    exact(&got, &want)
                } else {
                    exact(&got, &stats.min)
                })
            })(),
        );
    }
    record(
        "sum (auto) over Coo",
        (|| {
            let mut out = poisoned::<T>(gpu, rows)?;
            kernels::seg_coo_sum(gpu, &gpu.upload_coo(a)?, &mut out)?;
            Ok(close(&gpu.download(&out)?, &stats.sum, &sum_bounds))
        })(),
    );
    record(
        "sum (auto) with finish: 2 sqrt(Σ v²)",
        (|| {
            let mut out = poisoned::<T>(gpu, rows)?;
            kernels::seg_scaled_norm(gpu, &da, T::from_f64(2.0), &mut out)?;
            let want: Vec<f64> = stats.squares.iter().map(|s| 2.0 * s.sqrt()).collect();
            let bound: Vec<f64> = (0..rows)
                .map(|r| (stats.n[r] as f64 + 4.0) * 2.0 * u * want[r])
                .collect();
            Ok(close(&gpu.download(&out)?, &want, &bound))
        })(),
    );
    let (max, max_at) = select(&tiles, f64::NEG_INFINITY, |v, b| v > b);
    let (min, min_at) = select(&tiles, f64::INFINITY, |v, b| v < b);
    let selections: [(&str, Select<T>); 5] = [
        ("argmax (auto)", kernels::seg_argmax),
        ("argmax thread", scheduled::argmax_thread),
        ("argmax warp", scheduled::argmax_warp),
        ("argmax merge_path", scheduled::argmax_merge_path),
        ("argmin (auto)", kernels::seg_argmin),
    ];
    for (key, kernel) in selections {
        record(
            key,
            (|| {
                let mut best = poisoned::<T>(gpu, rows)?;
                let mut at = poisoned_at(gpu, rows)?;
                kernel(gpu, &da, &mut best, &mut at)?;
                let (want, want_at) = if key.starts_with("argmin") {
                    (&min, &min_at)
                } else {
                    (&max, &max_at)
                };
                Ok(both(
                    exact(&gpu.download(&best)?, want),
                    exact_at(&gpu.download(&at)?, want_at),
                ))
            })(),
        );
    }
    record(
        "argmax (auto) of |v| at the atom",
        (|| {
            let mut best = poisoned::<T>(gpu, rows)?;
            let mut at = poisoned_at(gpu, rows)?;
            kernels::seg_argmax_atom(gpu, &da, &mut best, &mut at)?;
            // Positions: the nonzero's index, the row's start plus its place in the row.
            let mut start = 0;
            let atoms: Vec<Vec<(usize, f64)>> = tiles
                .iter()
                .map(|t| {
                    let row = t
                        .iter()
                        .enumerate()
                        .map(|(k, e)| (start + k, e.1.abs()))
                        .collect();
                    start += t.len();
                    row
                })
                .collect();
            let (want, want_at) = select(&atoms, f64::NEG_INFINITY, |v, b| v > b);
            Ok(both(
                exact(&gpu.download(&best)?, &want),
                exact_at(&gpu.download(&at)?, &want_at),
            ))
        })(),
    );
    record(
        "argmax (auto) over Csc: row",
        (|| {
            let csc = a.to_csc();
            let columns = tiles_of(&csc);
            let dc = gpu.upload_csc(a)?;
            let mut best = poisoned::<T>(gpu, cols)?;
            let mut at = poisoned_at(gpu, cols)?;
            kernels::seg_csc_argmax(gpu, &dc, &mut best, &mut at)?;
            let (want, want_at) = select(&columns, f64::NEG_INFINITY, |v, b| v > b);
            Ok(both(
                exact(&gpu.download(&best)?, &want),
                exact_at(&gpu.download(&at)?, &want_at),
            ))
        })(),
    );
    // Offsets over the values array: the same row sums; the argmin's position is the atom.
    record(
        "sum (auto) over Offsets",
        (|| {
            let offsets: Vec<usize> = a.indptr().to_proper().into_owned();
            let g = gpu.upload_offsets(&offsets)?;
            let data = gpu.upload(a.data())?;
            let mut out = poisoned::<T>(gpu, rows)?;
            kernels::seg_offsets_sum(gpu, &g, &data, &mut out)?;
            Ok(close(&gpu.download(&out)?, &stats.sum, &sum_bounds))
        })(),
    );
    record(
        "argmin (auto) over Offsets: atom",
        (|| {
            let offsets: Vec<usize> = a.indptr().to_proper().into_owned();
            let g = gpu.upload_offsets(&offsets)?;
            let data = gpu.upload(a.data())?;
            let mut best = poisoned::<T>(gpu, rows)?;
            let mut at = poisoned_at(gpu, rows)?;
            kernels::seg_offsets_argmin(gpu, &g, &data, &mut best, &mut at)?;
            let atoms: Vec<Vec<(usize, f64)>> = (0..rows)
                .map(|r| {
                    (offsets[r]..offsets[r + 1])
                        .map(|i| (i, a.data()[i].to_f64()))
                        .collect()
                })
                .collect();
            let (want, want_at) = select(&atoms, f64::INFINITY, |v, b| v < b);
            Ok(both(
                exact(&gpu.download(&best)?, &want),
                exact_at(&gpu.download(&at)?, &want_at),
            ))
        })(),
    );
}

type Check<T> = fn(&Gpu, &mut Tally, &str, &CsMat<T>, u64);

fn run_all<T: Float>(matrices: Vec<(String, CsMat<T>)>, check: Check<T>) {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); device {}; {}",
        gpu.name(),
        T::RUST_NAME
    );
    let mut tally = Tally::default();
    let started = std::time::Instant::now();
    for (i, (name, a)) in matrices.iter().enumerate() {
        check(&gpu, &mut tally, name, a, seed.wrapping_add(i as u64));
    }
    println!(
        "{} matrices in {:.1} s",
        matrices.len(),
        started.elapsed().as_secs_f64()
    );
    tally.finish(matrices.len());
}

#[test]
fn ops_generated_f32() {
    run_all(
        common::generated_matrices::<f32>(common::fresh_seed()),
        check_ops::<f32>,
    );
}

#[test]
fn ops_generated_f64() {
    run_all(
        common::generated_matrices::<f64>(common::fresh_seed()),
        check_ops::<f64>,
    );
}

#[test]
fn ops_real_matrices_f32() {
    run_all(common::real_matrices::<f32>(), check_ops::<f32>);
}

#[test]
fn ops_real_matrices_f64() {
    run_all(common::real_matrices::<f64>(), check_ops::<f64>);
}

#[test]
fn segreduce_generated_f32() {
    run_all(
        common::generated_matrices::<f32>(common::fresh_seed()),
        check_segreduce::<f32>,
    );
}

#[test]
fn segreduce_generated_f64() {
    run_all(
        common::generated_matrices::<f64>(common::fresh_seed()),
        check_segreduce::<f64>,
    );
}

#[test]
fn segreduce_real_matrices_f32() {
    run_all(common::real_matrices::<f32>(), check_segreduce::<f32>);
}

#[test]
fn segreduce_real_matrices_f64() {
    run_all(common::real_matrices::<f64>(), check_segreduce::<f64>);
}

/// Kernels of a concrete element type: the output type named (`max<f32>`), or the matrix's.
#[test]
fn segreduce_concrete_types() {
    let gpu = common::gpu();
    let a = loops::io::generate::power_law::<f32>(3000, 3000, 8.0, 2.0, false, 7);
    let offsets: Vec<usize> = a.indptr().to_proper().into_owned();
    let g = gpu.upload_offsets(&offsets).unwrap();
    let data = gpu.upload(a.data()).unwrap();
    let mut out = poisoned::<f32>(&gpu, a.rows()).unwrap();
    kernels::seg_offsets_max_f32(&gpu, &g, &data, &mut out).unwrap();
    let want = row_stats(&tiles_of(&a)).max;
    let (ok, report) = exact(&gpu.download(&out).unwrap(), &want);
    assert!(ok, "max<f32> over Offsets: {report}");

    let a = loops::io::generate::with_empty_rows::<f64>(5000, 4000, 0.5, 6, 8);
    let stats = row_stats(&tiles_of(&a));
    let mut out = poisoned::<f64>(&gpu, a.rows()).unwrap();
    kernels::seg_sum_f64(&gpu, &gpu.upload_csr(&a).unwrap(), &mut out).unwrap();
    let bound: Vec<f64> = (0..a.rows())
        .map(|r| sum_bound::<f64>(stats.n[r], stats.abs[r]))
        .collect();
    let (ok, report) = close(&gpu.download(&out).unwrap(), &stats.sum, &bound);
    assert!(ok, "sum over Csr<f64>: {report}");
}

/// Buffers shorter than the operation needs are errors before launch that name the buffer.
#[test]
fn short_buffers_are_errors() {
    let gpu = common::gpu();
    let a = gpu
        .upload_csr(&loops::io::generate::uniform::<f32>(100, 80, 4, 1))
        .unwrap();
    let x79 = gpu.upload(&vec![1.0f32; 79]).unwrap();
    let x80 = gpu.upload(&vec![1.0f32; 80]).unwrap();
    let x100 = gpu.upload(&vec![1.0f32; 100]).unwrap();
    let mut y99 = gpu.zeros::<f32>(99).unwrap();
    let mut y100 = gpu.zeros::<f32>(100).unwrap();
    let mut y79 = gpu.zeros::<f32>(79).unwrap();
    let mut at99 = gpu.zeros::<i32>(99).unwrap();
    let err = |r: loops::Result<()>| r.unwrap_err().to_string();
    let cases = [
        (
            err(a.spmv(&gpu, 1.0, &x79, 0.0, &mut y100)),
            "`x` has 79 elements but needs at least 80",
        ),
        (
            err(a.spmv(&gpu, 1.0, &x80, 0.0, &mut y99)),
            "`y` has 99 elements but needs at least 100",
        ),
        (
            err(a.spmv_transpose(&gpu, &x80, &mut y100)),
            "`x` has 80 elements but needs at least 100",
        ),
        (
            err(a.spmv_transpose(&gpu, &x100, &mut y79)),
            "`y` has 79 elements but needs at least 80",
        ),
        (
            err(a.row_reduce(&gpu, RowReduction::Norm, &mut y99)),
            "`out` has 99 elements but needs at least 100",
        ),
        (
            err(a.row_argmax(&gpu, &mut y100, &mut at99)),
            "`at` has 99 elements but needs at least 100",
        ),
    ];
    for (got, want) in cases {
        println!("{got}");
        assert!(got.contains(want), "{got}\nwant: {want}");
    }
}

/// The doc examples of `transform_segreduce!` and of the `CsrOps` methods, as written there.
#[test]
fn doc_examples() -> loops::Result<()> {
    loops::transform_segreduce! {
        /// Each row's dot product with `x`.
        pub fn row_dot<T: Float>(a: Csr<T>, x: &[T]) -> sum |row, nz| a.values[nz] * x[a.col_indices[nz] as usize];

        /// Each row's largest magnitude and its column, under the warp-per-row schedule.
        #[load_balanced(schedule = "warp")]
        pub fn row_argmax_abs<T: Float>(a: Csr<T>) -> argmax |row, nz| a.values[nz].abs();
    }
    let gpu = Gpu::new(0)?;
    let a = gpu.upload_csr(&loops::io::generate::uniform::<f32>(1000, 800, 8, 1))?;
    let x = gpu.upload(&vec![1.0f32; 800])?;
    let mut dots = gpu.zeros::<f32>(1000)?;
    row_dot(&gpu, &a, &x, &mut dots)?;
    let (mut best, mut at) = (gpu.zeros::<f32>(1000)?, gpu.zeros::<i32>(1000)?);
    row_argmax_abs(&gpu, &a, &mut best, &mut at)?;
    println!(
        "{:?} {:?}",
        &gpu.download(&dots)?[..4],
        &gpu.download(&at)?[..4]
    );

    // CsrOps (src/ops/mod.rs).
    let host = loops::io::generate::power_law::<f32>(1000, 1000, 8.0, 2.0, false, 1);
    let a = gpu.upload_csr(&host)?;
    let x = gpu.upload(&vec![1.0f32; 1000])?;
    let mut y = gpu.zeros::<f32>(1000)?;
    a.spmv(&gpu, 2.0, &x, 0.0, &mut y)?;
    a.spmv_transpose(&gpu, &x, &mut y)?;
    let mut norms = gpu.zeros::<f32>(1000)?;
    a.row_reduce(&gpu, RowReduction::Norm, &mut norms)?;
    let (mut best, mut at) = (gpu.zeros::<f32>(1000)?, gpu.zeros::<i32>(1000)?);
    a.row_argmax(&gpu, &mut best, &mut at)?;
    println!("{:?}", &gpu.download(&at)?[..4]);
    Ok(())
}

/// The norm in f64, scaled by an exact power of two near the row's largest magnitude (so rows of
/// f64 values near `f64::MAX` or below `1e-160` have an exact-enough reference too); `∞` when a
/// value is infinite. No NaN comes in.
fn scaled_norm_reference(row: &[f64]) -> f64 {
    let m = row.iter().fold(0.0f64, |acc, v| acc.max(v.abs()));
    if m == 0.0 || m.is_infinite() {
        return m;
    }
    let e = (m.log2().floor() as i64).clamp(-1022, 1023);
    let s = f64::from_bits(((e + 1023) as u64) << 52);
    s * row.iter().map(|v| (v / s) * (v / s)).sum::<f64>().sqrt()
}

/// `row_reduce(Norm)` on rows whose squares overflow or underflow `T` while their norms fit (and
/// rows whose norm does not fit, which must give `+∞`): fresh random magnitudes each run, rows of
/// up to 5000 entries so that the schedules share rows between threads, empty and all-zero rows.
/// `big`, `max`, `small`, `tiny`: a large magnitude, `T::MAX`, a magnitude whose square underflows,
/// and `T`'s smallest subnormal.
fn check_norm_near_the_limits<T: Float>(big: f64, max: f64, small: f64, tiny: f64) {
    use rand::{Rng, SeedableRng};
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); {}",
        T::RUST_NAME
    );
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let (rows, cols) = (240, 6000);
    let mut indptr = vec![0usize];
    let mut indices = Vec::new();
    let mut data: Vec<T> = Vec::new();
    let mut kinds = Vec::new();
    for r in 0..rows {
        let kind = r % 10;
        let sign = |rng: &mut rand::rngs::StdRng| if rng.random::<bool>() { 1.0 } else { -1.0 };
        let row: Vec<f64> = match kind {
            0 => vec![],
            1 => vec![0.0; rng.random_range(1..40)],
            // Squares overflow; the norm fits.
            2 => (0..rng.random_range(1..60))
                .map(|_| sign(&mut rng) * big * rng.random_range(0.01..1.0))
                .collect(),
            3 => vec![0.6 * max, -0.6 * max * rng.random_range(0.5..1.0)],
            // The norm does not fit: +∞.
            4 => vec![max, -max, 0.9 * max],
            5 => (0..rng.random_range(3000..5000))
                .map(|_| sign(&mut rng) * big * 1e-2 * rng.random_range(0.1..1.0))
                .collect(),
            // Squares underflow; the norm is a normal number.
            6 => (0..rng.random_range(1..100))
                .map(|_| sign(&mut rng) * small * rng.random_range(0.1..1.0))
                .collect(),
            // Subnormal values.
            7 => (0..rng.random_range(1..20))
                .map(|_| sign(&mut rng) * tiny * rng.random_range(1.0f64..4000.0).floor())
                .collect(),
            8 => vec![big, small, -tiny, -big * 0.5],
            _ => (0..rng.random_range(1..200))
                .map(|_| rng.random_range(-1.0..1.0))
                .collect(),
        };
        let row: Vec<T> = row.into_iter().map(T::from_f64).collect();
        indices.extend(0..row.len());
        data.extend(row);
        indptr.push(indices.len());
        kinds.push(kind);
    }
    let a = CsMat::new((rows, cols), indptr, indices, data);
    let want: Vec<f64> = (0..rows)
        .map(|r| {
            let row: Vec<f64> = a
                .outer_view(r)
                .unwrap()
                .data()
                .iter()
                .map(|v| v.to_f64())
                .collect();
            let n = scaled_norm_reference(&row);
            if n > max {
                f64::INFINITY
            } else {
                n
            }
        })
        .collect();
    let bound: Vec<f64> = (0..rows)
        .map(|r| {
            let n = a.outer_view(r).unwrap().nnz() as f64;
            2.0 * (n + 6.0) * T::UNIT_ROUNDOFF * want[r] + 4.0 * tiny
        })
        .collect();
    for r in 0..rows {
        match kinds[r] {
            4 => assert_eq!(want[r], f64::INFINITY, "row {r}"),
            2 | 3 | 5 | 6 | 8 => assert!(
                want[r].is_finite() && want[r] > 0.0,
                "row {r}: the reference {}",
                want[r]
            ),
            _ => {}
        }
    }
    let da = gpu.upload_csr(&a).unwrap();
    let mut out = poisoned::<T>(&gpu, rows).unwrap();
    da.row_reduce(&gpu, RowReduction::Norm, &mut out).unwrap();
    let got = gpu.download(&out).unwrap();
    let (ok, report) = close(&got, &want, &bound);
    assert!(
        ok,
        "row_reduce Norm near the limits of {}: {report}",
        T::RUST_NAME
    );
    println!(
        "row_reduce Norm near the limits of {}: {report}",
        T::RUST_NAME
    );
}

#[test]
fn row_norm_near_the_limits_f32() {
    check_norm_near_the_limits::<f32>(1e36, f32::MAX as f64, 1e-30, f32::from_bits(1) as f64);
}

#[test]
fn row_norm_near_the_limits_f64() {
    check_norm_near_the_limits::<f64>(1e300, f64::MAX, 1e-200, f64::from_bits(1));
}

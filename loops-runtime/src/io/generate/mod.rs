//! Seeded, deterministic sparse-matrix generators: the built-in defaults of examples, tests and
//! benchmarks.
//!
//! Every generator returns a CSR [`sprs::CsMat`] whose column indices are sorted and distinct within
//! each row. The same arguments give the same matrix on every machine, whatever its thread count:
//! rows are cut into fixed blocks of 4096, and each block draws from its own ChaCha8 stream
//! (`ChaCha8Rng::seed_from_u64(seed)` with `set_stream`), so blocks can be filled in parallel.
//!
//! **Values** are uniform in [-1, 1) on a grid of 2^-23: `k * 2^-23 - 1` for a uniform 24-bit `k`.
//! Every such value is exact in both f32 and f64, so `gen::<f32>` and `gen::<f64>` with the same
//! seed give the same matrix, and no f32 value rounds up to 1.
//!
//! **Arguments** out of range (an exponent that gives no finite mean, an R-MAT scale over 31, a
//! fraction outside [0, 1]) panic with a message: these are programming errors in a test or a
//! benchmark, not run-time conditions.
//!
//! Random columns are drawn with Lemire's multiply-shift (`(u64 * n) >> 64`), whose bias (at most
//! `n / 2^64`) is negligible here.

use std::ops::Range;
use std::sync::Mutex;

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::element::Float;

mod graph500;
mod world;
mod world_set;

pub use graph500::{kronecker, road};
pub use world::{circuit, citation, fem, road_network, snap_power_law, web_graph};
pub use world_set::{world_bandwidth, world_set, WorldSpec, GRAPH_CLASSES, WORLD_CLASSES};

/// Rows per block: the unit of random streams and of parallel work.
const BLOCK_ROWS: usize = 1 << 12;
/// Edges per block of the R-MAT edge list.
const BLOCK_EDGES: usize = 1 << 16;
/// Below this much work, threads cost more than they save.
const PARALLEL_MIN: usize = 1 << 16;

// Stream families: each random draw of a generator comes from exactly one (seed, stream) pair.
const INDEX_STREAMS: u64 = 0;
const VALUE_STREAMS: u64 = 1 << 40;
const LENGTH_STREAM: u64 = 2 << 40;
const EDGE_STREAMS: u64 = 3 << 40;
const VECTOR_STREAM: u64 = 4 << 40;
/// The world classes' per-seed parameters (exponents, means, longest rows).
const PARAM_STREAM: u64 = 5 << 40;
/// The world classes' per-vertex target weights (popularity).
const WEIGHT_STREAM: u64 = 6 << 40;
/// The world classes' row structure (runs of empty rows, hosts).
const LAYOUT_STREAM: u64 = 7 << 40;

fn rng_for(seed: u64, stream: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream);
    rng
}

/// Uniform in [-1, 1) on a grid of 2^-23, exact in f32 and f64.
#[inline]
fn uniform_value<T: Float>(rng: &mut ChaCha8Rng) -> T {
    T::from_f64((rng.next_u32() >> 8) as f64 * (1.0 / (1u64 << 23) as f64) - 1.0)
}

/// Uniform in [0, 1) with 53 random bits.
#[inline]
fn unit_f64(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Uniform in 0..n (n > 0).
#[inline]
fn below(rng: &mut ChaCha8Rng, n: usize) -> usize {
    ((rng.next_u64() as u128 * n as u128) >> 64) as usize
}

/// Fills `out` with `out.len()` distinct values of `0..n`, sorted.
fn sample_sorted(rng: &mut ChaCha8Rng, n: usize, out: &mut [usize]) {
    let k = out.len();
    assert!(k <= n, "cannot draw {k} distinct columns out of {n}");
    if k == 0 {
        return;
    }
    if k == n {
        out.iter_mut().enumerate().for_each(|(i, o)| *o = i);
        return;
    }
    if k >= n / 8 {
        // Dense: selection sampling (Knuth's algorithm S), one draw per candidate.
        let mut need = k;
        let mut w = 0;
        for j in 0..n {
            if below(rng, n - j) < need {
                out[w] = j;
                w += 1;
                need -= 1;
                if need == 0 {
                    break;
                }
            }
        }
        return;
    }
    // Sparse: draw, sort, drop duplicates, draw the missing ones again.
    let mut have = 0;
    while have < k {
        for o in &mut out[have..] {
            *o = below(rng, n);
        }
        out.sort_unstable();
        let mut w = 1;
        for r in 1..k {
            if out[r] != out[w - 1] {
                out[w] = out[r];
                w += 1;
            }
        }
        have = w;
    }
}

/// Runs `f` on every item, on all cores when `work` (a size estimate) is large enough.
fn par_for_each<W: Send>(items: Vec<W>, work: usize, f: impl Fn(W) + Sync) {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len());
    if threads <= 1 || work < PARALLEL_MIN {
        items.into_iter().for_each(f);
        return;
    }
    let queue = Mutex::new(items.into_iter());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let item = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
                match item {
                    Some(w) => f(w),
                    None => break,
                }
            });
        }
    });
}

/// Cuts `data` (laid out by `offsets`) into blocks of `BLOCK_ROWS` rows:
/// `(block, rows, the block's part of data)`.
fn row_blocks<'a, X>(
    offsets: &[usize],
    data: &'a mut [X],
) -> Vec<(usize, Range<usize>, &'a mut [X])> {
    split_blocks(offsets, data, BLOCK_ROWS)
}

/// Cuts `data` (laid out by `offsets`) into blocks of `per_block` rows.
fn split_blocks<'a, X>(
    offsets: &[usize],
    mut data: &'a mut [X],
    per_block: usize,
) -> Vec<(usize, Range<usize>, &'a mut [X])> {
    let rows = offsets.len() - 1;
    let mut out = Vec::with_capacity(rows.div_ceil(per_block));
    for (b, r0) in (0..rows).step_by(per_block).enumerate() {
        let r1 = rows.min(r0 + per_block);
        let (head, tail) = std::mem::take(&mut data).split_at_mut(offsets[r1] - offsets[r0]);
        data = tail;
        out.push((b, r0..r1, head));
    }
    out
}

/// Builds a CSR matrix from its offsets: `fill(rng, row, columns)` writes the sorted, distinct
/// columns of each row (checked here); values are drawn afterwards from their own streams.
fn build<T: Float>(
    rows: usize,
    cols: usize,
    offsets: Vec<usize>,
    seed: u64,
    fill: impl Fn(&mut ChaCha8Rng, usize, &mut [usize]) + Sync,
) -> sprs::CsMat<T> {
    debug_assert_eq!(offsets.len(), rows + 1);
    let nnz = offsets[rows];
    let mut indices = vec![0usize; nnz];
    let offs = &offsets;
    par_for_each(row_blocks(offs, &mut indices), nnz, |(b, range, data)| {
        let mut rng = rng_for(seed, INDEX_STREAMS + b as u64);
        let base = offs[range.start];
        for r in range {
            let seg = &mut data[offs[r] - base..offs[r + 1] - base];
            fill(&mut rng, r, seg);
            // This check is what makes `new_unchecked` below sound.
            assert!(
                seg.windows(2).all(|w| w[0] < w[1]) && seg.last().is_none_or(|&c| c < cols),
                "generator bug: row {r} is not sorted, distinct and within 0..{cols}"
            );
        }
    });
    let mut values = vec![T::default(); nnz];
    par_for_each(row_blocks(offs, &mut values), nnz, |(b, _, data)| {
        let mut rng = rng_for(seed, VALUE_STREAMS + b as u64);
        data.iter_mut().for_each(|v| *v = uniform_value(&mut rng));
    });
    // SAFETY: offsets start at 0 (built by the callers from lengths), are non-decreasing and end at
    // nnz == indices.len() == values.len(); every row was checked above to be strictly increasing
    // and below `cols`.
    unsafe {
        sprs::CsMat::new_unchecked(
            sprs::CompressedStorage::CSR,
            (rows, cols),
            offsets,
            indices,
            values,
        )
    }
}

fn offsets_from_lengths(lengths: impl Iterator<Item = usize>, rows: usize) -> Vec<usize> {
    let mut offsets = Vec::with_capacity(rows + 1);
    let mut total = 0usize;
    offsets.push(0);
    for len in lengths {
        total = total
            .checked_add(len)
            .expect("number of nonzeros overflows usize");
        offsets.push(total);
    }
    debug_assert_eq!(offsets.len(), rows + 1);
    offsets
}

/// `rows x cols`, every row with exactly `min(nnz_per_row, cols)` distinct columns drawn uniformly.
pub fn uniform<T: Float>(
    rows: usize,
    cols: usize,
    nnz_per_row: usize,
    seed: u64,
) -> sprs::CsMat<T> {
    let k = nnz_per_row.min(cols);
    let offsets = offsets_from_lengths((0..rows).map(|_| k), rows);
    build(rows, cols, offsets, seed, |rng, _, seg| {
        sample_sorted(rng, cols, seg)
    })
}

/// Row lengths of [`power_law`]: Pareto with shape `exponent`, scaled so that the mean is
/// `mean_nnz_per_row` before rounding to the nearest integer and capping at `cols`.
fn power_law_lengths(
    rows: usize,
    cols: usize,
    mean_nnz_per_row: f64,
    exponent: f64,
    seed: u64,
) -> Vec<usize> {
    assert!(
        exponent > 1.0,
        "power_law: exponent {exponent} must be > 1 for the row lengths to have a finite mean"
    );
    assert!(
        mean_nnz_per_row >= 0.0 && mean_nnz_per_row.is_finite(),
        "power_law: bad mean {mean_nnz_per_row}"
    );
    // Pareto(x_min, alpha) has mean x_min * alpha / (alpha - 1).
    let alpha = exponent;
    let x_min = mean_nnz_per_row * (alpha - 1.0) / alpha;
    let mut rng = rng_for(seed, LENGTH_STREAM);
    (0..rows)
        .map(|_| {
            let u = 1.0 - unit_f64(&mut rng); // (0, 1]
            let len = (x_min * u.powf(-1.0 / alpha) + 0.5).floor();
            len.min(cols as f64) as usize
        })
        .collect()
}

/// `rows x cols` with power-law row lengths: a few very long rows, many short ones.
///
/// Row lengths follow a Pareto law of shape `exponent` (> 1): `P(len > x) ~ x^-exponent`, a
/// density `~ x^-(exponent + 1)`. Smaller is more skewed; 2 (a graph degree exponent of 3) is a
/// typical heavy tail, 1.5 a very heavy one. Lengths are scaled so that their mean is
/// `mean_nnz_per_row` before rounding to the nearest integer and capping at `cols`, so the actual
/// mean is about that. Long rows land at random positions.
///
/// With `contiguous_columns == false` each row's columns are distinct and uniformly random; with
/// `true` they are one contiguous run starting at a random column (the benchmark's "power-law rows
/// with contiguous columns": irregular rows, coalesced gathers). Both give the same row lengths for
/// the same seed.
///
/// # Panics
/// If `exponent <= 1` or the mean is negative or not finite.
pub fn power_law<T: Float>(
    rows: usize,
    cols: usize,
    mean_nnz_per_row: f64,
    exponent: f64,
    contiguous_columns: bool,
    seed: u64,
) -> sprs::CsMat<T> {
    let lengths = power_law_lengths(rows, cols, mean_nnz_per_row, exponent, seed);
    let offsets = offsets_from_lengths(lengths.into_iter(), rows);
    if contiguous_columns {
        build(rows, cols, offsets, seed, |rng, _, seg| {
            let start = below(rng, cols - seg.len() + 1);
            seg.iter_mut().enumerate().for_each(|(i, c)| *c = start + i);
        })
    } else {
        build(rows, cols, offsets, seed, |rng, _, seg| {
            sample_sorted(rng, cols, seg)
        })
    }
}

/// Graph500 R-MAT probabilities of the four quadrants.
pub const RMAT_ABCD: [f64; 4] = [0.57, 0.19, 0.19, 0.05];

/// An R-MAT graph (Chakrabarti, Zhan, Faloutsos 2004) with the Graph500 parameters
/// a = 0.57, b = 0.19, c = 0.19, d = 0.05: `2^scale` vertices, `edge_factor * 2^scale` edges drawn
/// as directed pairs (row = source, column = destination), then made a **simple directed graph**:
/// self-loops and duplicate edges are dropped, so there are somewhat fewer nonzeros than edges
/// drawn. Vertex labels are not permuted: high-degree vertices have small labels. The matrix is
/// not symmetric.
///
/// # Panics
/// If `scale > 31`.
pub fn rmat<T: Float>(scale: u32, edge_factor: usize, seed: u64) -> sprs::CsMat<T> {
    assert!(
        scale <= 31,
        "rmat: scale {scale} > 31 does not fit 32-bit vertex ids"
    );
    let n = 1usize << scale;
    let m = n
        .checked_mul(edge_factor)
        .expect("rmat: edge count overflows usize");
    // Each level draws 16 random bits: the quadrant probabilities are kept to within 2^-16.
    let t = |p: f64| (p * 65536.0).round() as u64;
    let [a, b, c, _] = RMAT_ABCD;
    let (ta, tab, tabc) = (t(a), t(a + b), t(a + b + c));

    // 1. Edges (source << 32 | destination), drawn in parallel blocks.
    let mut edges = vec![0u64; m];
    let items: Vec<_> = edges.chunks_mut(BLOCK_EDGES).enumerate().collect();
    par_for_each(items, m * scale as usize, |(blk, out)| {
        let mut rng = rng_for(seed, EDGE_STREAMS + blk as u64);
        for e in out.iter_mut() {
            let (mut u, mut v) = (0u64, 0u64);
            let mut bits = 0u64;
            for (k, level) in (0..scale).rev().enumerate() {
                if k % 4 == 0 {
                    bits = rng.next_u64();
                }
                let r = bits & 0xffff;
                bits >>= 16;
                // Quadrant 0 (a), 1 (b: column half), 2 (c: row half), 3 (d: both), without branches.
                let q = (r >= ta) as u64 + (r >= tab) as u64 + (r >= tabc) as u64;
                u |= (q >> 1) << level;
                v |= (q & 1) << level;
            }
            *e = u << 32 | v;
        }
    });

    // 2. Bucket destinations by source: partition the edges by the top bits of their source (one
    // cache-friendly pass), then a counting sort within each partition, in parallel.
    let part_bits = scale.min(8);
    let shift = scale - part_bits;
    let parts = 1usize << part_bits;
    let per_part = 1usize << shift;
    let mut pstart = vec![0usize; parts + 1];
    for &e in &edges {
        pstart[(e >> (32 + shift)) as usize + 1] += 1;
    }
    for p in 0..parts {
        pstart[p + 1] += pstart[p];
    }
    let mut partitioned = vec![0u64; m];
    let mut pnext = pstart.clone();
    for &e in &edges {
        let p = (e >> (32 + shift)) as usize;
        partitioned[pnext[p]] = e;
        pnext[p] += 1;
    }
    drop((edges, pnext));
    let mut start = vec![0usize; n + 1];
    let mut bucket = vec![0u32; m];
    let items: Vec<_> = split_blocks(&pstart, &mut bucket, 1)
        .into_iter()
        .zip(start[1..].chunks_mut(per_part))
        .collect();
    let (ps, part) = (&pstart, &partitioned);
    par_for_each(items, m, |((p, _, out), ends)| {
        let edges = &part[ps[p]..ps[p + 1]];
        let first = p * per_part;
        let mut next = vec![0usize; per_part];
        for &e in edges {
            next[(e >> 32) as usize - first] += 1;
        }
        let mut sum = 0;
        for (nx, end) in next.iter_mut().zip(ends.iter_mut()) {
            let count = *nx;
            *nx = sum;
            sum += count;
            *end = ps[p] + sum;
        }
        for &e in edges {
            let slot = &mut next[(e >> 32) as usize - first];
            out[*slot] = e as u32;
            *slot += 1;
        }
    });
    drop(partitioned);

    // 3. Per row: sort, drop duplicates and the self-loop, compacting to the front of the bucket.
    let mut lengths = vec![0usize; n];
    let items: Vec<_> = row_blocks(&start, &mut bucket)
        .into_iter()
        .zip(lengths.chunks_mut(BLOCK_ROWS))
        .collect();
    let st = &start;
    par_for_each(items, m, |((_, range, data), lens)| {
        let base = st[range.start];
        for (k, r) in range.enumerate() {
            let row = &mut data[st[r] - base..st[r + 1] - base];
            row.sort_unstable();
            let mut w = 0;
            for i in 0..row.len() {
                let c = row[i];
                if c as usize != r && (w == 0 || row[w - 1] != c) {
                    row[w] = c;
                    w += 1;
                }
            }
            lens[k] = w;
        }
    });

    // 4. Compact into CSR.
    let offsets = offsets_from_lengths(lengths.into_iter(), n);
    let bucket = &bucket;
    build(n, n, offsets, seed, |_, r, seg| {
        let from = &bucket[st[r]..st[r] + seg.len()];
        seg.iter_mut().zip(from).for_each(|(o, &c)| *o = c as usize);
    })
}

/// `rows x rows`, every row a contiguous run of `min(bandwidth, rows)` columns centred on the
/// diagonal (`r - bandwidth / 2 ..`), shifted inwards at the first and last rows so that every row
/// has the same length. The seed only drives the values.
pub fn banded<T: Float>(rows: usize, bandwidth: usize, seed: u64) -> sprs::CsMat<T> {
    let k = bandwidth.min(rows);
    let half = k / 2;
    let offsets = offsets_from_lengths((0..rows).map(|_| k), rows);
    build(rows, rows, offsets, seed, |_, r, seg| {
        let start = r.saturating_sub(half).min(rows - k);
        seg.iter_mut().enumerate().for_each(|(i, c)| *c = start + i);
    })
}

/// The 5-point stencil of a `width x height` grid (a road-like graph): vertex `(x, y)` is row
/// `y * width + x`, with its diagonal and its up to 4 neighbours. `width * height` rows and
/// columns; all values random, as elsewhere.
pub fn grid2d<T: Float>(width: usize, height: usize, seed: u64) -> sprs::CsMat<T> {
    let n = width
        .checked_mul(height)
        .expect("grid2d: width * height overflows usize");
    let neighbours = |r: usize| {
        let (x, y) = (r % width, r / width);
        [
            (y > 0).then(|| r - width),
            (x > 0).then(|| r - 1),
            Some(r),
            (x + 1 < width).then(|| r + 1),
            (y + 1 < height).then(|| r + width),
        ]
    };
    let offsets = offsets_from_lengths((0..n).map(|r| neighbours(r).iter().flatten().count()), n);
    build(n, n, offsets, seed, |_, r, seg| {
        seg.iter_mut()
            .zip(neighbours(r).into_iter().flatten())
            .for_each(|(o, c)| *o = c);
    })
}

/// `n x n` arrow matrix: row 0 and column 0 dense, plus the diagonal: `3n - 2` nonzeros (for
/// `n >= 1`). The extreme of row-length imbalance: one row of `n`, the rest of 2.
pub fn arrow<T: Float>(n: usize, seed: u64) -> sprs::CsMat<T> {
    let offsets = offsets_from_lengths((0..n).map(|r| if r == 0 { n } else { 2 }), n);
    build(n, n, offsets, seed, |_, r, seg| {
        if r == 0 {
            seg.iter_mut().enumerate().for_each(|(i, c)| *c = i);
        } else {
            seg.copy_from_slice(&[0, r]);
        }
    })
}

/// `rows x cols` with no nonzeros.
pub fn empty<T: Float>(rows: usize, cols: usize) -> sprs::CsMat<T> {
    build(rows, cols, vec![0; rows + 1], 0, |_, _, _| {})
}

/// `rows x cols` where the first and last rows are empty and every other row is empty with
/// probability `empty_fraction`, otherwise has `min(nnz_per_row, cols)` distinct random columns:
/// runs of empty rows mixed with non-empty ones, at both ends too.
///
/// # Panics
/// If `empty_fraction` is not in [0, 1].
pub fn with_empty_rows<T: Float>(
    rows: usize,
    cols: usize,
    empty_fraction: f64,
    nnz_per_row: usize,
    seed: u64,
) -> sprs::CsMat<T> {
    assert!(
        (0.0..=1.0).contains(&empty_fraction),
        "with_empty_rows: fraction {empty_fraction} not in [0, 1]"
    );
    let k = nnz_per_row.min(cols);
    let mut rng = rng_for(seed, LENGTH_STREAM);
    let lengths = (0..rows).map(|r| {
        let empty = unit_f64(&mut rng) < empty_fraction || r == 0 || r + 1 == rows;
        if empty {
            0
        } else {
            k
        }
    });
    let offsets = offsets_from_lengths(lengths, rows);
    build(rows, cols, offsets, seed, |rng, _, seg| {
        sample_sorted(rng, cols, seg)
    })
}

/// `rows x cols` where row `rows / 2` has `min(huge_len, cols)` distinct random columns and every
/// other row `min(2, cols)`.
pub fn one_huge_row<T: Float>(
    rows: usize,
    cols: usize,
    huge_len: usize,
    seed: u64,
) -> sprs::CsMat<T> {
    let huge = rows / 2;
    let lengths = (0..rows).map(|r| {
        if r == huge {
            huge_len.min(cols)
        } else {
            2.min(cols)
        }
    });
    let offsets = offsets_from_lengths(lengths, rows);
    build(rows, cols, offsets, seed, |rng, _, seg| {
        sample_sorted(rng, cols, seg)
    })
}

/// `n` values uniform in [-1, 1) (the matrices' distribution), from the seed's own stream.
pub fn random_vector<T: Float>(n: usize, seed: u64) -> Vec<T> {
    let mut rng = rng_for(seed, VECTOR_STREAM);
    (0..n).map(|_| uniform_value(&mut rng)).collect()
}

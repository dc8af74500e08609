//! Generators that stand for classes of real matrices (issue 24): SNAP social graphs, citation
//! graphs, web graphs, circuits, road networks and 3-D finite-element meshes. Each is a function of
//! `(rows, seed)`; the seed draws the class's parameters (exponents, means, longest rows) from the
//! ranges documented on the function as well as the matrix, so that seeds differ in shape, not
//! only in noise. The documented ranges are what `tests/generate.rs` checks.
//!
//! Three ways of drawing columns are used:
//! - exact row lengths first, then distinct columns from a skewed proposal ([`fill_distinct`]);
//! - free-form rows (a stencil, a few neighbours plus dense columns), sorted and deduplicated
//!   ([`build_rows`]);
//! - symmetric structure (roads, meshes) decided per *edge* by a hash of the seed and the edge, so
//!   that both endpoints agree without sharing state between threads ([`edge_hash`]).

use rand::RngCore;
use rand_chacha::ChaCha8Rng;

use super::{
    below, build, offsets_from_lengths, par_for_each, rng_for, sample_sorted, unit_f64, BLOCK_ROWS,
    INDEX_STREAMS, LAYOUT_STREAM, LENGTH_STREAM, PARAM_STREAM, WEIGHT_STREAM,
};
use crate::element::Float;

/// Rounds of drawing from a skewed proposal before the rest of a row is drawn uniformly: a row
/// that wants more distinct hub columns than the proposal readily gives still finishes.
const SKEWED_ROUNDS: usize = 6;

/// Uniform in `lo..hi` (f64).
fn between(rng: &mut ChaCha8Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * unit_f64(rng)
}

/// Log-uniform in `lo..=hi` (integers, `1 <= lo <= hi`).
fn log_between(rng: &mut ChaCha8Rng, lo: usize, hi: usize) -> usize {
    let (l, h) = ((lo as f64).ln(), ((hi + 1) as f64).ln());
    ((l + (h - l) * unit_f64(rng)).exp() as usize).clamp(lo, hi)
}

/// Exponential with mean `scale`, floored.
fn exponential(rng: &mut ChaCha8Rng, scale: f64) -> usize {
    (-(1.0 - unit_f64(rng)).ln() * scale) as usize
}

/// SplitMix64's finaliser: a well-mixed 64-bit hash.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Uniform in [0, 1), a function of the seed, a salt and an (unordered) edge `{a, b}`: both
/// endpoints of an edge compute the same value, in any thread.
fn edge_hash(seed: u64, salt: u64, a: usize, b: usize) -> f64 {
    let (lo, hi) = (a.min(b) as u64, a.max(b) as u64);
    let h = mix(mix(mix(seed ^ salt.wrapping_mul(0x9e37_79b9_7f4a_7c15)) ^ lo) ^ hi);
    (h >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Fills `out` with `out.len()` distinct sorted values of `0..n`, proposed by `draw` (a skewed
/// distribution); duplicates are drawn again, from `draw` for [`SKEWED_ROUNDS`] rounds and then
/// uniformly. Rows of at least `n / 8` are drawn uniformly from the start (a skewed proposal
/// would mostly repeat itself).
fn fill_distinct(
    rng: &mut ChaCha8Rng,
    n: usize,
    out: &mut [usize],
    mut draw: impl FnMut(&mut ChaCha8Rng) -> usize,
) {
    let k = out.len();
    assert!(k <= n, "cannot draw {k} distinct columns out of {n}");
    if k == 0 {
        return;
    }
    if k >= n / 8 {
        sample_sorted(rng, n, out);
        return;
    }
    let mut have = 0;
    let mut round = 0;
    while have < k {
        for o in &mut out[have..] {
            *o = if round < SKEWED_ROUNDS {
                draw(rng)
            } else {
                below(rng, n)
            };
        }
        out.sort_unstable();
        have = dedup_sorted(out);
        round += 1;
    }
}

/// Compacts the distinct values of a sorted slice to its front; returns how many there are.
fn dedup_sorted(v: &mut [usize]) -> usize {
    if v.is_empty() {
        return 0;
    }
    let mut w = 1;
    for r in 1..v.len() {
        if v[r] != v[w - 1] {
            v[w] = v[r];
            w += 1;
        }
    }
    w
}

/// Cumulative integer weights: `cum[i]` is the sum of `weights[..=i]`.
fn cumulative(weights: impl Iterator<Item = u64>) -> Vec<u64> {
    let mut total = 0u64;
    weights
        .map(|w| {
            total += w;
            total
        })
        .collect()
}

/// A draw from `0..k` with probability proportional to the weights whose cumulative sums are
/// `cum[..k]` (`k >= 1`, `cum[k - 1] > 0`).
fn weighted_below(rng: &mut ChaCha8Rng, cum: &[u64], k: usize) -> usize {
    let u = ((rng.next_u64() as u128 * cum[k - 1] as u128) >> 64) as u64;
    cum[..k].partition_point(|&c| c <= u)
}

/// The mean of `floor(min(X, cap))` for a Pareto `X` of shape `alpha` and scale `x_min`:
/// `sum over k in 1..=cap of P(X >= k)`.
fn capped_pareto_mean(x_min: f64, alpha: f64, cap: usize) -> f64 {
    (1..=cap)
        .map(|k| (x_min / k as f64).powf(alpha).min(1.0))
        .sum()
}

/// Row lengths `floor(min(X, cap))`, `X` Pareto of shape `alpha` whose scale is solved (bisection)
/// so that the mean length is `mean`: a power-law degree distribution of density exponent
/// `alpha + 1`, with rows of length 0 where the scale is below 1.
fn pareto_lengths(
    rng: &mut ChaCha8Rng,
    rows: usize,
    mean: f64,
    alpha: f64,
    cap: usize,
) -> Vec<usize> {
    let (mut lo, mut hi) = (1e-3, mean.max(1.0) * 4.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if capped_pareto_mean(mid, alpha, cap) < mean {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let x_min = 0.5 * (lo + hi);
    (0..rows)
        .map(|_| {
            let u = 1.0 - unit_f64(rng); // (0, 1]
            (x_min * u.powf(-1.0 / alpha)).min(cap as f64) as usize
        })
        .collect()
}

/// Gives `lengths` its longest row, `longest`, at a random row, and `1 + rows / 20000` more hubs
/// of 20-100% of it: the celebrities a sample of Pareto lengths of this size would rarely reach.
fn plant_hubs(rng: &mut ChaCha8Rng, lengths: &mut [usize], longest: usize) {
    let rows = lengths.len();
    if rows == 0 {
        return;
    }
    lengths[below(rng, rows)] = longest;
    for _ in 0..1 + rows / 20_000 {
        let r = below(rng, rows);
        lengths[r] = lengths[r].max((longest as f64 * between(rng, 0.2, 1.0)) as usize);
    }
}

/// Builds a CSR matrix whose rows are written free-form: `row(rng, r, out)` appends row `r`'s
/// columns (any order, duplicates allowed, all below `cols`); they are sorted and deduplicated
/// here. Blocks of rows run in parallel, each with its own random stream.
fn build_rows<T: Float>(
    rows: usize,
    cols: usize,
    seed: u64,
    work: usize,
    row: impl Fn(&mut ChaCha8Rng, usize, &mut Vec<usize>) + Sync,
) -> sprs::CsMat<T> {
    let blocks = rows.div_ceil(BLOCK_ROWS);
    let mut parts: Vec<(Vec<usize>, Vec<usize>)> = vec![(Vec::new(), Vec::new()); blocks];
    let items: Vec<_> = parts.iter_mut().enumerate().collect();
    par_for_each(items, work, |(b, (lengths, columns))| {
        let mut rng = rng_for(seed, INDEX_STREAMS + b as u64);
        let r0 = b * BLOCK_ROWS;
        for r in r0..rows.min(r0 + BLOCK_ROWS) {
            let start = columns.len();
            row(&mut rng, r, columns);
            let tail = &mut columns[start..];
            tail.sort_unstable();
            let kept = dedup_sorted(tail);
            columns.truncate(start + kept);
            lengths.push(kept);
        }
    });
    let offsets = offsets_from_lengths(parts.iter().flat_map(|p| p.0.iter().copied()), rows);
    let flat: Vec<usize> = parts.into_iter().flat_map(|p| p.1).collect();
    let (offs, flat) = (offsets.clone(), &flat);
    build(rows, cols, offsets, seed, |_, r, seg| {
        seg.copy_from_slice(&flat[offs[r]..offs[r + 1]])
    })
}

/// A SNAP-like social or communication graph (soc-*, wiki-Vote, email-*, com-*, p2p-*): `rows x
/// rows`, vertices in random order.
///
/// - Out-degrees: power law of density exponent 2.1..2.5 (Pareto shape 1.1..1.5, floored, so
///   some vertices have none), mean 3..9, capped at the longest row, 10^3..10^4 (at most
///   `rows / 2`), which one vertex has; `1 + rows / 20000` more hubs have 20-100% of it.
/// - Targets: distinct, drawn with probability proportional to the target's own out-degree + 1
///   (hubs are also the most linked-to; every vertex can be a target).
pub fn snap_power_law<T: Float>(rows: usize, seed: u64) -> sprs::CsMat<T> {
    let mut p = rng_for(seed, PARAM_STREAM);
    let alpha = between(&mut p, 1.1, 1.5);
    let mean = between(&mut p, 3.0, 9.0);
    let longest = (10f64.powf(between(&mut p, 3.0, 4.0)) as usize).min(rows / 2);
    let mut rng = rng_for(seed, LENGTH_STREAM);
    let mut lengths = pareto_lengths(&mut rng, rows, mean, alpha, longest);
    plant_hubs(&mut rng, &mut lengths, longest);
    let cum = cumulative(lengths.iter().map(|&l| l as u64 + 1));
    let offsets = offsets_from_lengths(lengths.into_iter(), rows);
    let cum = &cum;
    build(rows, rows, offsets, seed, |rng, _, seg| {
        fill_distinct(rng, rows, seg, |rng| weighted_below(rng, cum, rows))
    })
}

/// A citation graph (cit-HepPh, cit-Patents, bibliographies): `rows x rows`, strictly lower
/// triangular (row `r` cites only older rows `c < r`: a DAG in time order).
///
/// - Citations per paper: Pareto of shape 1.8..2.5 (moderate skew), mean 5..15, capped at the
///   longest row, 500..1500 (and at `r`); one paper in the later half has that many.
/// - Cited: with probability 0.3..0.6 a recent paper (`r - 1 - Exp(20..200)`), else an older
///   paper drawn by its fame (a Pareto weight of shape 1.5: a few classics collect most).
pub fn citation<T: Float>(rows: usize, seed: u64) -> sprs::CsMat<T> {
    let mut p = rng_for(seed, PARAM_STREAM);
    let alpha = between(&mut p, 1.8, 2.5);
    let mean = between(&mut p, 5.0, 15.0);
    let longest = (between(&mut p, 500.0, 1500.0) as usize).min(rows / 2);
    let recent = between(&mut p, 0.3, 0.6);
    let window = between(&mut p, 20.0, 200.0);
    let mut rng = rng_for(seed, LENGTH_STREAM);
    let mut lengths = pareto_lengths(&mut rng, rows, mean, alpha, longest);
    if rows > 1 {
        lengths[rows / 2 + below(&mut rng, rows - rows / 2)] = longest;
    }
    lengths
        .iter_mut()
        .enumerate()
        .for_each(|(r, l)| *l = (*l).min(r));
    let mut w = rng_for(seed, WEIGHT_STREAM);
    let fame = cumulative(
        (0..rows).map(|_| (8.0 * (1.0 - unit_f64(&mut w)).powf(-1.0 / 1.5)).min(1e6) as u64),
    );
    let offsets = offsets_from_lengths(lengths.into_iter(), rows);
    let fame = &fame;
    build(rows, rows, offsets, seed, |rng, r, seg| {
        fill_distinct(rng, r, seg, |rng| {
            if unit_f64(rng) < recent {
                (r - 1).saturating_sub(exponential(rng, window))
            } else {
                weighted_below(rng, fame, r)
            }
        })
    })
}

/// Runs of empty rows (dangling pages): `true` per empty row. Runs are log-uniform in
/// `10..=min(10^4, rows / 20)`; each is followed by a run of non-empty rows `e * (1 - f) / f` long
/// (times 0.5..1.5), so that about a fraction `f` of the rows are empty.
fn dangling_runs(rng: &mut ChaCha8Rng, rows: usize, f: f64) -> Vec<bool> {
    let longest_run = (rows / 20).clamp(10, 10_000);
    let mut empty = Vec::with_capacity(rows);
    let mut in_empty = unit_f64(rng) < f;
    let mut last_empty_run = log_between(rng, 10, longest_run);
    while empty.len() < rows {
        let run = if in_empty {
            last_empty_run = log_between(rng, 10, longest_run);
            last_empty_run
        } else {
            ((last_empty_run as f64 * (1.0 - f) / f * between(rng, 0.5, 1.5)) as usize).max(1)
        };
        let run = run.min(rows - empty.len());
        empty.extend(std::iter::repeat_n(in_empty, run));
        in_empty = !in_empty;
    }
    empty
}

/// A web graph (web-Google, web-Stanford, web-BerkStan, uk-2002): `rows x rows`, pages numbered
/// host by host (hosts of log-uniform 10..10^4 pages).
///
/// - Dangling pages: 25..55% of the rows are empty, in runs of 10..10^4 (at most `rows / 20`).
/// - Out-degrees of the other pages: Pareto of shape 1.2..1.6, mean 6..14, capped at the longest
///   row, 10^3..10^4 (at most `rows / 4`), which one page has.
/// - Links: with probability 0.7..0.9 within the page's host, near the page (a run of nearby
///   columns: two-sided exponential offsets of scale 4..64), else to any page by its popularity
///   (a Pareto weight of shape 1.5).
pub fn web_graph<T: Float>(rows: usize, seed: u64) -> sprs::CsMat<T> {
    let mut p = rng_for(seed, PARAM_STREAM);
    let empty_fraction = between(&mut p, 0.25, 0.55);
    let alpha = between(&mut p, 1.2, 1.6);
    let mean = between(&mut p, 6.0, 14.0);
    let longest = (10f64.powf(between(&mut p, 3.0, 4.0)) as usize).min(rows / 4);
    let local = between(&mut p, 0.7, 0.9);
    let spread = between(&mut p, 4.0, 64.0);

    let mut layout = rng_for(seed, LAYOUT_STREAM);
    let empty = dangling_runs(&mut layout, rows, empty_fraction);
    // Host `h` is rows `host_ends[h - 1]..host_ends[h]`.
    let mut host_ends = Vec::new();
    let mut end = 0;
    while end < rows {
        end = (end + log_between(&mut layout, 10, 10_000)).min(rows);
        host_ends.push(end);
    }

    let mut rng = rng_for(seed, LENGTH_STREAM);
    let mut lengths = pareto_lengths(&mut rng, rows, mean, alpha, longest);
    lengths.iter_mut().for_each(|l| *l = (*l).max(1));
    let linked: Vec<usize> = (0..rows).filter(|&r| !empty[r]).collect();
    if !linked.is_empty() {
        lengths[linked[below(&mut rng, linked.len())]] = longest.max(1);
    }
    lengths.iter_mut().zip(&empty).for_each(|(l, &e)| {
        if e {
            *l = 0
        }
    });
    let mut w = rng_for(seed, WEIGHT_STREAM);
    let popularity = cumulative(
        (0..rows).map(|_| (8.0 * (1.0 - unit_f64(&mut w)).powf(-1.0 / 1.5)).min(1e6) as u64),
    );
    let offsets = offsets_from_lengths(lengths.into_iter(), rows);
    let (popularity, host_ends) = (&popularity, &host_ends);
    build(rows, rows, offsets, seed, |rng, r, seg| {
        let h = host_ends.partition_point(|&e| e <= r);
        let (lo, hi) = (if h == 0 { 0 } else { host_ends[h - 1] }, host_ends[h]);
        fill_distinct(rng, rows, seg, |rng| {
            if unit_f64(rng) < local {
                let step = exponential(rng, spread) + 1;
                let c = if rng.next_u32() & 1 == 0 {
                    r.saturating_sub(step)
                } else {
                    r + step
                };
                c.clamp(lo, hi - 1)
            } else {
                weighted_below(rng, popularity, rows)
            }
        })
    })
}

/// A circuit simulation matrix (ASIC_*, rajat*, G3_circuit's irregular cousins, memchip):
/// `rows x rows`.
///
/// - Most rows: the diagonal and 1..5 more entries, near the diagonal (offsets `1 + Exp(8)`)
///   nine times out of ten, anywhere otherwise: 2..6 entries.
/// - Supply and ground nets: 1..3 dense columns; every row hits the first with probability
///   0.3..0.6 and each other one with probability 0.05..0.2.
/// - 1..4 dense rows (a net's own equation) of log-uniform 10^3..10^5 entries (at most
///   `rows / 2`), at random rows.
pub fn circuit<T: Float>(rows: usize, seed: u64) -> sprs::CsMat<T> {
    let mut p = rng_for(seed, PARAM_STREAM);
    let nets: Vec<(usize, f64)> = (0..1 + below(&mut p, 3))
        .map(|i| {
            let share = if i == 0 {
                between(&mut p, 0.3, 0.6)
            } else {
                between(&mut p, 0.05, 0.2)
            };
            (below(&mut p, rows.max(1)), share)
        })
        .collect();
    let dense_cap = (rows / 2).clamp(1, 100_000);
    let dense: Vec<(usize, usize)> = (0..1 + below(&mut p, 4))
        .map(|_| {
            let len = log_between(&mut p, 1_000.min(dense_cap), dense_cap);
            (below(&mut p, rows.max(1)), len)
        })
        .collect();
    let (nets, dense) = (&nets, &dense);
    build_rows(rows, rows, seed, rows * 6, |rng, r, out| {
        if let Some(&(_, len)) = dense.iter().find(|d| d.0 == r) {
            let start = out.len();
            out.resize(start + len, 0);
            sample_sorted(rng, rows, &mut out[start..]);
            return;
        }
        out.push(r);
        for _ in 0..1 + below(rng, 5) {
            let c = if unit_f64(rng) < 0.9 {
                let step = 1 + exponential(rng, 8.0);
                if rng.next_u32() & 1 == 0 {
                    r.saturating_sub(step)
                } else {
                    (r + step).min(rows - 1)
                }
            } else {
                below(rng, rows)
            };
            out.push(c);
        }
        for &(column, share) in nets {
            if unit_f64(rng) < share {
                out.push(column);
            }
        }
    })
}

/// Interleaves the bits of `x` and `y` (Morton / Z order).
fn morton(x: u32, y: u32) -> u64 {
    let spread = |v: u32| {
        let mut v = v as u64;
        v = (v | (v << 16)) & 0x0000_ffff_0000_ffff;
        v = (v | (v << 8)) & 0x00ff_00ff_00ff_00ff;
        v = (v | (v << 4)) & 0x0f0f_0f0f_0f0f_0f0f;
        v = (v | (v << 2)) & 0x3333_3333_3333_3333;
        (v | (v << 1)) & 0x5555_5555_5555_5555
    };
    spread(x) | (spread(y) << 1)
}

/// A road network (roadNet-CA/PA/TX, DIMACS USA roads, europe_osm, luxembourg_osm): `rows x rows`,
/// symmetric, no diagonal.
///
/// Intersections are the first `rows` cells of a `w`-wide grid (`w = ceil(sqrt(rows))`); each grid
/// street (right and down) exists with probability 0.52..0.62 and each diagonal (down-right) with
/// probability 0.03..0.12, so degrees are 1..6 with mean about 2.2..2.7; an intersection left with
/// no street gets one to its first grid neighbour. Vertices are numbered in Morton (Z) order of
/// their cells: near vertices have near numbers, with the jumps of a real locality-preserving
/// numbering.
pub fn road_network<T: Float>(rows: usize, seed: u64) -> sprs::CsMat<T> {
    let mut p = rng_for(seed, PARAM_STREAM);
    let street = between(&mut p, 0.52, 0.62);
    let diagonal = between(&mut p, 0.03, 0.12);
    let n = rows;
    let w = ((n as f64).sqrt().ceil() as usize).max(1);
    // The grid neighbours of a cell, each with whether its street is drawn (before the fix for
    // isolated cells): right, left, down, up, down-right, up-left.
    let neighbours = move |i: usize| {
        let (x, y) = (i % w, i / w);
        let right = (x + 1 < w && i + 1 < n).then(|| i + 1);
        let left = (x > 0).then(|| i - 1);
        let down = (i + w < n).then(|| i + w);
        let up = (y > 0).then(|| i - w);
        let down_right = (x + 1 < w && i + w + 1 < n).then(|| i + w + 1);
        let up_left = (x > 0 && y > 0).then(|| i - w - 1);
        let drawn = |j: usize, p: f64, salt: u64| edge_hash(seed, salt, i, j) < p;
        [
            right.map(|j| (j, drawn(j, street, 1))),
            left.map(|j| (j, drawn(j, street, 1))),
            down.map(|j| (j, drawn(j, street, 2))),
            up.map(|j| (j, drawn(j, street, 2))),
            down_right.map(|j| (j, drawn(j, diagonal, 3))),
            up_left.map(|j| (j, drawn(j, diagonal, 3))),
        ]
    };
    // The street an isolated cell gets: to its first grid neighbour.
    let forced = move |i: usize| {
        let all = neighbours(i);
        if all.iter().flatten().any(|&(_, d)| d) {
            None
        } else {
            all.iter().flatten().next().map(|&(j, _)| j)
        }
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by_key(|&i| morton((i % w) as u32, (i / w) as u32));
    let mut label = vec![0usize; n];
    order.iter().enumerate().for_each(|(l, &i)| label[i] = l);
    let (order, label) = (&order, &label);
    build_rows(n, n, seed, n * 4, |_, r, out| {
        let i = order[r];
        let mine = forced(i);
        for &(j, drawn) in neighbours(i).iter().flatten() {
            if drawn || mine == Some(j) || forced(j) == Some(i) {
                out.push(label[j]);
            }
        }
    })
}

/// A 3-D finite-element matrix (structural and CFD meshes: audikw_1, Serena, thermal, Emilia):
/// `rows x rows`, structurally symmetric.
///
/// Nodes are the first `rows` points of an `s x s x ..` grid (`s = round(cbrt(rows))`), numbered
/// plane by plane (banded: the band is about `2 s^2` wide). Each row has its diagonal, each of the
/// 26 neighbours of the 27-point stencil unless that coupling is dropped (probability
/// 0.05..0.3), and each of the 6 second neighbours along an axis with probability 0.1..0.5
/// (higher-order elements): 19..29 entries on average inside the mesh, at most 33, fewer on
/// its faces.
pub fn fem<T: Float>(rows: usize, seed: u64) -> sprs::CsMat<T> {
    let mut p = rng_for(seed, PARAM_STREAM);
    let dropped = between(&mut p, 0.05, 0.3);
    let second = between(&mut p, 0.1, 0.5);
    let n = rows;
    let s = ((n as f64).cbrt().round() as usize).max(2);
    let plane = s * s;
    build_rows(n, n, seed, n * 27, |_, r, out| {
        let (x, y, z) = (
            (r % s) as isize,
            ((r / s) % s) as isize,
            (r / plane) as isize,
        );
        let at = |dx: isize, dy: isize, dz: isize| {
            let (a, b, c) = (x + dx, y + dy, z + dz);
            let inside = (0..s as isize).contains(&a) && (0..s as isize).contains(&b) && c >= 0;
            inside
                .then(|| (c as usize) * plane + (b as usize) * s + a as usize)
                .filter(|&j| j < n)
        };
        out.push(r);
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    if let Some(j) = at(dx, dy, dz) {
                        if j != r && edge_hash(seed, 1, r, j) >= dropped {
                            out.push(j);
                        }
                    }
                }
            }
        }
        for (dx, dy, dz) in [
            (2, 0, 0),
            (-2, 0, 0),
            (0, 2, 0),
            (0, -2, 0),
            (0, 0, 2),
            (0, 0, -2),
        ] {
            if let Some(j) = at(dx, dy, dz) {
                if edge_hash(seed, 2, r, j) < second {
                    out.push(j);
                }
            }
        }
    })
}

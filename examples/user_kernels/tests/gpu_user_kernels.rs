//! Every kernel of this crate under every schedule it is instantiated with, on the GPU, against a
//! CPU reference written here: generated matrices (fresh random values each run, power-law rows
//! with rows longer than 4096 atoms, many empty rows, uniform, and matrices whose values come from a
//! few levels so that ties are common) and every `.mtx` of the data folder; f32 and f64 for the
//! generic kernels. Outputs are poisoned before each launch (NaN, or `POISON_INDEX` for integers), so
//! an output a schedule forgets to write fails.
//!
//! What is exact is compared exactly: argmax/argmin value and column (the tie rule: the first atom
//! among equal values wins under every schedule), the largest value of a row with how many atoms
//! hold it, BFS depth and parent. Sums are compared within a
//! bound from the element type's unit roundoff that holds for any summation order (see `gamma`).
//!
//! A failure prints the seed; `LOOPS_SEED=<seed>` replays it. `LOOPS_MATRIX_FILTER=a,b` keeps the
//! matrices whose name contains one of the parts. Without a GPU every test fails: none skips.
#![cfg(feature = "gpu")]

use std::fmt::Debug;

use loops::check::check_rows;
use loops::io::host::{expected_error_bound, spmv_reference};
use loops::prelude::*;
use rand::{Rng, SeedableRng};
use sprs::CsMat;
use user_kernels::{
    argmax, bfs_pull, early_exit, normalize, pagerank, shrink, sigmoid, softmax, variance,
};

/// What integer outputs are filled with before a launch: no kernel of this crate writes it.
const POISON_INDEX: i32 = i32::MIN + 7;

// ----------------------------------------------------------------------------------------------
// The checks: one function per kernel, each the reference, a launch per schedule, the comparison.
// ----------------------------------------------------------------------------------------------

/// A check of one kernel on one matrix under all its schedules.
type Check<T> = fn(&mut Run, &CsMat<T>, &DeviceCsr<T>);

/// The generic kernels' checks.
fn checks<T: Float>() -> [Check<T>; 9] {
    [
        check_row_argmax::<T>,
        check_row_argmin::<T>,
        check_count_max::<T>,
        check_row_variance::<T>,
        check_l2_normalize::<T>,
        check_pagerank_pull::<T>,
        check_row_softmax::<T>,
        check_spmv_sigmoid::<T>,
        check_shrink_sum::<T>,
    ]
}

fn check_shrink_sum<T: Float>(run: &mut Run, a: &CsMat<T>, da: &DeviceCsr<T>) {
    let x = loops::io::generate::random_vector::<T>(a.cols(), run.seed ^ 0x5a71);
    let t = T::from_f64(0.25);
    let (want, bound) = shrink_sum_reference(a, &x, t);
    run.each_schedule("shrink_sum", shrink::SCHEDULES, |gpu, schedule| {
        let x = gpu.upload(&x)?;
        let mut y = poisoned::<T>(gpu, a.rows())?;
        shrink::launch(schedule, gpu, da, &x, t, &mut y)?;
        Ok(outside_bound(&gpu.download(&y)?, &want, &bound))
    });
}

/// `y[row] = sum over the row of soft_threshold(a * x[col], t)` in f64, and the bound for a kernel
/// computing it in `T`. The soft threshold moves a value by at most its own change (it is
/// 1-Lipschitz), so each term carries the product's rounding and the subtraction's (2u |a x|),
/// and the sum adds its own: the SpMV bound of the row with twice the unit roundoff.
fn shrink_sum_reference<T: Float>(a: &CsMat<T>, x: &[T], t: T) -> (Vec<f64>, Vec<f64>) {
    let soft = |v: f64, t: f64| v.signum() * (v.abs() - t).max(0.0);
    let (mut want, mut bound) = (vec![0.0; a.rows()], vec![0.0; a.rows()]);
    for (r, row) in a.outer_iterator().enumerate() {
        let (mut sum, mut scale) = (0.0f64, 0.0f64);
        for (c, v) in row.iter() {
            let p = v.to_f64() * x[c].to_f64();
            sum += soft(p, t.to_f64());
            scale += p.abs();
        }
        want[r] = sum;
        bound[r] =
            2.0 * expected_error_bound::<T>(row.nnz() + 2, scale) + 2.0 * smallest_normal::<T>();
    }
    (want, bound)
}

fn check_row_softmax<T: Float>(run: &mut Run, a: &CsMat<T>, da: &DeviceCsr<T>) {
    let (want, bound) = softmax_rows_reference(a);
    run.each_schedule("row_softmax", softmax::SCHEDULES, |gpu, schedule| {
        let mut out = poisoned::<T>(gpu, a.nnz())?;
        softmax::launch(schedule, gpu, da, &mut out)?;
        Ok(outside_bound(&gpu.download(&out)?, &want, &bound))
    });
}

fn check_spmv_sigmoid<T: Float>(run: &mut Run, a: &CsMat<T>, da: &DeviceCsr<T>) {
    let x = loops::io::generate::random_vector::<T>(a.cols(), run.seed ^ 0x5161);
    let (want, bound) = spmv_sigmoid_reference(a, &x);
    run.each_schedule("spmv_sigmoid", sigmoid::SCHEDULES, |gpu, schedule| {
        let x = gpu.upload(&x)?;
        let mut y = poisoned::<T>(gpu, a.rows())?;
        sigmoid::launch(schedule, gpu, da, &x, &mut y)?;
        Ok(outside_bound(&gpu.download(&y)?, &want, &bound))
    });
}

fn check_row_argmax<T: Float>(run: &mut Run, a: &CsMat<T>, da: &DeviceCsr<T>) {
    // The kernel starts from -infinity and column -1 and replaces on a strictly larger value.
    let (want_best, want_at) = row_select(a, T::from_f64(f64::NEG_INFINITY), |v, best| v > best);
    run.each_schedule("row_argmax", argmax::max::SCHEDULES, |gpu, schedule| {
        let mut best = poisoned::<T>(gpu, a.rows())?;
        let mut at = poisoned_index(gpu, a.rows())?;
        argmax::max::launch(schedule, gpu, da, &mut best, &mut at)?;
        let (best, at) = (gpu.download(&best)?, gpu.download(&at)?);
        Ok(first_difference("best", &best, &want_best)
            .or_else(|| first_difference("at", &at, &want_at)))
    });
}

fn check_row_argmin<T: Float>(run: &mut Run, a: &CsMat<T>, da: &DeviceCsr<T>) {
    let (want_best, want_at) = row_select(a, T::from_f64(f64::INFINITY), |v, best| v < best);
    run.each_schedule("row_argmin", argmax::min::SCHEDULES, |gpu, schedule| {
        let mut best = poisoned::<T>(gpu, a.rows())?;
        let mut at = poisoned_index(gpu, a.rows())?;
        argmax::min::launch(schedule, gpu, da, &mut best, &mut at)?;
        let (best, at) = (gpu.download(&best)?, gpu.download(&at)?);
        Ok(first_difference("best", &best, &want_best)
            .or_else(|| first_difference("at", &at, &want_at)))
    });
}

fn check_count_max<T: Float>(run: &mut Run, a: &CsMat<T>, da: &DeviceCsr<T>) {
    // In order: a strictly larger value restarts the count at 1 and takes the column, an equal
    // value adds 1 (NaNs are neither).
    let (mut want_best, mut want_count, mut want_at) = (
        vec![T::from_f64(f64::NEG_INFINITY); a.rows()],
        vec![0u32; a.rows()],
        vec![-1i32; a.rows()],
    );
    for (r, row) in a.outer_iterator().enumerate() {
        for (c, &v) in row.iter() {
            if v > want_best[r] {
                (want_best[r], want_count[r], want_at[r]) = (v, 1, c as i32);
            } else if v == want_best[r] {
                want_count[r] += 1;
            }
        }
    }
    run.each_schedule("count_max", argmax::count::SCHEDULES, |gpu, schedule| {
        let mut best = poisoned::<T>(gpu, a.rows())?;
        let mut count = gpu.upload(&vec![u32::MAX - 7; a.rows()])?;
        let mut at = poisoned_index(gpu, a.rows())?;
        argmax::count::launch(schedule, gpu, da, &mut best, &mut count, &mut at)?;
        let (best, count, at) = (
            gpu.download(&best)?,
            gpu.download(&count)?,
            gpu.download(&at)?,
        );
        Ok(first_difference("best", &best, &want_best)
            .or_else(|| first_difference("count", &count, &want_count))
            .or_else(|| first_difference("at", &at, &want_at)))
    });
}

fn check_row_variance<T: Float>(run: &mut Run, a: &CsMat<T>, da: &DeviceCsr<T>) {
    let (want, bound) = row_variance_reference(a);
    run.each_schedule("row_variance", variance::SCHEDULES, |gpu, schedule| {
        let mut var = poisoned::<T>(gpu, a.rows())?;
        variance::launch(schedule, gpu, da, &mut var)?;
        Ok(outside_bound(&gpu.download(&var)?, &want, &bound))
    });
}

fn check_l2_normalize<T: Float>(run: &mut Run, a: &CsMat<T>, da: &DeviceCsr<T>) {
    let (want, bound) = l2_normalize_reference(a);
    run.each_schedule("l2_normalize", normalize::SCHEDULES, |gpu, schedule| {
        let mut out = poisoned::<T>(gpu, a.nnz())?;
        normalize::launch(schedule, gpu, da, &mut out)?;
        Ok(outside_bound(&gpu.download(&out)?, &want, &bound))
    });
}

fn check_pagerank_pull<T: Float>(run: &mut Run, a: &CsMat<T>, da: &DeviceCsr<T>) {
    // Row v of the matrix lists the vertices v pulls from; u's out-degree is how many rows list it.
    let rank: Vec<T> = loops::io::generate::random_vector::<T>(a.cols(), run.seed ^ 0x7a11)
        .into_iter()
        .map(|r| T::from_f64(r.to_f64().abs()))
        .collect();
    let inv_out_degree = inverse_out_degrees(a);
    let damping = T::from_f64(0.85);
    let teleport = T::from_f64(0.15 / a.rows().max(1) as f64);
    let (want, bound) = pagerank_pull_reference(a, &rank, &inv_out_degree, damping, teleport);
    run.each_schedule("pagerank_pull", pagerank::SCHEDULES, |gpu, schedule| {
        let (rank, inv_out_degree) = (gpu.upload(&rank)?, gpu.upload(&inv_out_degree)?);
        let mut next = poisoned::<T>(gpu, a.rows())?;
        pagerank::launch(
            schedule,
            gpu,
            da,
            &rank,
            &inv_out_degree,
            &mut next,
            damping,
            teleport,
        )?;
        Ok(outside_bound(&gpu.download(&next)?, &want, &bound))
    });
}

/// A whole BFS from one source, one `bfs_pull` launch per level, the frontier flags rebuilt on the
/// host from the depths after each level.
///
/// The graph is the matrix as it is, read as in-edge lists: row v lists the vertices with an edge
/// into v (pull over in-edges), so a directed matrix (R-MAT, the general real matrices) is a
/// directed graph, and a symmetric one (every symmetric file, expanded when read) an undirected
/// graph. Nothing is symmetrised: the kernel sees exactly the rows the reference walks. A
/// rectangular matrix gets empty rows or unused columns up to a square first (`square`).
fn check_bfs_pull(run: &mut Run, g: &CsMat<f32>, dg: &DeviceCsr<f32>) {
    let n = g.rows();
    if n == 0 {
        return;
    }
    // A vertex with out-edges (the column of a random entry) reaches something; else vertex 0.
    let source = match g.nnz() {
        0 => 0,
        nnz => g.indices()[rand::rngs::StdRng::seed_from_u64(run.seed).random_range(0..nnz)],
    };
    let (want_depth, want_parent) = bfs_reference(g, source);
    run.each_schedule("bfs_pull", bfs_pull::SCHEDULES, |gpu, schedule| {
        let mut depth_host = vec![-1i32; n];
        depth_host[source] = 0;
        let mut parent_host = vec![POISON_INDEX; n];
        parent_host[source] = source as i32;
        let (mut depth, mut parent) = (gpu.upload(&depth_host)?, gpu.upload(&parent_host)?);
        // Level `level` reaches the vertices with an in-neighbour at depth `level - 1`; the search
        // ends at the first level that reaches nothing (at most n levels).
        for level in 1..=n as i32 {
            let flags: Vec<u32> = depth_host
                .iter()
                .map(|&d| (d == level - 1) as u32)
                .collect();
            let in_frontier = gpu.upload(&flags)?;
            bfs_pull::launch(
                schedule,
                gpu,
                dg,
                &in_frontier,
                &mut depth,
                &mut parent,
                level,
            )?;
            depth_host = gpu.download(&depth)?;
            if !depth_host.contains(&level) {
                break;
            }
        }
        let parent_host = gpu.download(&parent)?;
        Ok(first_difference("depth", &depth_host, &want_depth)
            .or_else(|| first_difference("parent", &parent_host, &want_parent)))
    });
}

// ----------------------------------------------------------------------------------------------
// CPU references: plain loops over the rows in storage order (the atoms' order on the GPU).
// ----------------------------------------------------------------------------------------------

/// Per row: the value and column a scan in row order keeps when it starts from `(start, -1)` and
/// replaces only when `better(value, kept)`: with a strict comparison, the first of equal values.
fn row_select<T: Float>(
    a: &CsMat<T>,
    start: T,
    better: impl Fn(T, T) -> bool,
) -> (Vec<T>, Vec<i32>) {
    let (mut best, mut at) = (vec![start; a.rows()], vec![-1; a.rows()]);
    for (r, row) in a.outer_iterator().enumerate() {
        for (c, &v) in row.iter() {
            if better(v, best[r]) {
                best[r] = v;
                at[r] = c as i32;
            }
        }
    }
    (best, at)
}

/// `gamma_k = k u / (1 - k u)` for `T`'s unit roundoff u: the relative error of `k` roundings in a
/// row (Higham, Accuracy and Stability of Numerical Algorithms, 3.1), which bounds a sum of `k`
/// terms in any order, tree or atomic. Infinite once `k u >= 1/2`, where no useful bound holds.
fn gamma<T: Float>(k: usize) -> f64 {
    let ku = k as f64 * T::UNIT_ROUNDOFF;
    if ku >= 0.5 {
        f64::INFINITY
    } else {
        ku / (1.0 - ku)
    }
}

/// The smallest normal value of `T`: what each rounding may lose in absolute terms when a result
/// underflows (also where subnormals are flushed to zero).
fn smallest_normal<T: Float>() -> f64 {
    match T::RUST_NAME {
        "f32" => f32::MIN_POSITIVE as f64,
        _ => f64::MIN_POSITIVE,
    }
}

/// Each row's variance, `sum (v - mean)^2 / n` (0 for an empty row), and how far a kernel computing
/// it in `T` in two passes may be from it.
///
/// The bound: with the mean off by `d` (`|d| <= gamma_{n+1} * mean|v|`), the kernel's squares sum to
/// `n (var + d^2)` (the deviations from the true mean sum to zero), each term rounded 3 times and
/// the sum `n - 1` times in some order, then divided: `|var_T - var| <= gamma_{n+3} var + 2 d^2`.
/// The f64 reference has the same error with f64's u; the bound is twice the sum of the two.
fn row_variance_reference<T: Float>(a: &CsMat<T>) -> (Vec<f64>, Vec<f64>) {
    fn error<U: Float>(n: usize, var: f64, mean_abs: f64) -> f64 {
        let d = gamma::<U>(n + 1) * mean_abs;
        gamma::<U>(n + 3) * var + 2.0 * d * d + (n + 3) as f64 * smallest_normal::<U>()
    }
    let (mut want, mut bound) = (vec![0.0; a.rows()], vec![0.0; a.rows()]);
    for (r, row) in a.outer_iterator().enumerate() {
        let n = row.nnz();
        if n == 0 {
            continue;
        }
        let values: Vec<f64> = row.data().iter().map(|v| v.to_f64()).collect();
        let mean = values.iter().sum::<f64>() / n as f64;
        let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64;
        let mean_abs = values.iter().map(|v| v.abs()).sum::<f64>() / n as f64;
        want[r] = var;
        bound[r] = 2.0 * (error::<T>(n, var, mean_abs) + error::<f64>(n, var, mean_abs));
    }
    (want, bound)
}

/// Each stored value divided by its row's L2 norm (0 where the norm is 0), by atom, and the bound.
///
/// The kernel's sum of squares is off by at most `gamma_n` relatively (plus what underflow loses,
/// `n` smallest normals); its square root halves that and adds a rounding, the division adds one:
/// each result is within `gamma_{n+3}` of the true one, relatively, and so is the f64 reference
/// with f64's u. The bound is twice the sum.
fn l2_normalize_reference<T: Float>(a: &CsMat<T>) -> (Vec<f64>, Vec<f64>) {
    fn error<U: Float>(n: usize, squares: f64) -> f64 {
        gamma::<U>(n + 3) + n as f64 * smallest_normal::<U>() / squares
    }
    let (mut want, mut bound) = (Vec::with_capacity(a.nnz()), Vec::with_capacity(a.nnz()));
    for row in a.outer_iterator() {
        let n = row.nnz();
        let squares: f64 = row.data().iter().map(|v| v.to_f64() * v.to_f64()).sum();
        let relative = 2.0 * (error::<T>(n, squares) + error::<f64>(n, squares));
        for v in row.data() {
            let out = if squares > 0.0 {
                v.to_f64() / squares.sqrt()
            } else {
                0.0
            };
            want.push(out);
            bound.push(relative * out.abs());
        }
    }
    (want, bound)
}

/// `1 / out-degree` of every vertex (column), 0 for a vertex no row lists, rounded to `T`: the
/// kernel and the reference read the same values.
fn inverse_out_degrees<T: Float>(a: &CsMat<T>) -> Vec<T> {
    let mut degree = vec![0usize; a.cols()];
    for &c in a.indices() {
        degree[c] += 1;
    }
    degree
        .iter()
        .map(|&d| T::from_f64(if d == 0 { 0.0 } else { 1.0 / d as f64 }))
        .collect()
}

/// `next[v] = teleport + damping * sum over row v of rank[u] * inv_out_degree[u]`, and the bound:
/// the sum of `n` products is within `gamma_{n+2} * sum |terms|` in any order (a rounding per
/// product, `n - 1` in the sum, one more for the odd FMA), the scaling and the teleport add two.
fn pagerank_pull_reference<T: Float>(
    a: &CsMat<T>,
    rank: &[T],
    inv_out_degree: &[T],
    damping: T,
    teleport: T,
) -> (Vec<f64>, Vec<f64>) {
    let (damping, teleport) = (damping.to_f64(), teleport.to_f64());
    let (mut want, mut bound) = (vec![0.0; a.rows()], vec![0.0; a.rows()]);
    for (v, row) in a.outer_iterator().enumerate() {
        let (mut sum, mut scale) = (0.0, 0.0);
        for (u, _) in row.iter() {
            let term = rank[u].to_f64() * inv_out_degree[u].to_f64();
            sum += term;
            scale += term.abs();
        }
        let n = row.nnz();
        want[v] = teleport + damping * sum;
        let magnitude = teleport.abs() + damping.abs() * scale;
        bound[v] = 2.0 * (gamma::<T>(n + 4) + gamma::<f64>(n + 4)) * magnitude;
    }
    (want, bound)
}

/// BFS over in-edge lists (row v lists v's in-neighbours): the depth of every vertex (-1 where the
/// source does not reach it), from a first-in-first-out search over out-edges, and the parent the
/// pull step must pick: the first vertex of row v, in row order, at depth `depth[v] - 1`. The source
/// is its own parent; unreached vertices keep `POISON_INDEX` (the kernel must not write them).
fn bfs_reference(g: &CsMat<f32>, source: usize) -> (Vec<i32>, Vec<i32>) {
    let n = g.rows();
    let mut out_edges = vec![Vec::new(); n];
    for (v, row) in g.outer_iterator().enumerate() {
        for (u, _) in row.iter() {
            out_edges[u].push(v);
        }
    }
    let mut depth = vec![-1i32; n];
    depth[source] = 0;
    let mut queue = std::collections::VecDeque::from([source]);
    while let Some(u) = queue.pop_front() {
        for &v in &out_edges[u] {
            if depth[v] < 0 {
                depth[v] = depth[u] + 1;
                queue.push_back(v);
            }
        }
    }
    let mut parent = vec![POISON_INDEX; n];
    parent[source] = source as i32;
    for (v, row) in g.outer_iterator().enumerate() {
        if depth[v] > 0 {
            let first = row.iter().find(|&(u, _)| depth[u] == depth[v] - 1);
            parent[v] = first.expect("a reached vertex has a parent one level up").0 as i32;
        }
    }
    (depth, parent)
}

/// Softmax of each row's stored values, by atom: `exp(v - max) / sum exp(v_j - max)`, and the bound
/// for a kernel computing it in `T`.
///
/// `v - max` is rounded once (an absolute error of `u |v - max|`, relative after `exp`), `exp` is
/// within 2 ulps (4u) in CUDA; the sum adds `gamma_n` and the division a rounding. Each result is
/// within `gamma_{n+12} + u (|v - max| + max_j |v_j - max|)` of the true one, relatively; the bound
/// is twice that plus the f64 reference's own, plus what underflow loses: an `exp` below the
/// smallest normal, and the sum's terms (the sum is at least 1, the max's own term).
fn softmax_rows_reference<T: Float>(a: &CsMat<T>) -> (Vec<f64>, Vec<f64>) {
    let (mut want, mut bound) = (Vec::with_capacity(a.nnz()), Vec::with_capacity(a.nnz()));
    for row in a.outer_iterator() {
        let values: Vec<f64> = row.data().iter().map(|v| v.to_f64()).collect();
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let spread = values.iter().map(|v| max - v).fold(0.0, f64::max);
        let sum: f64 = values.iter().map(|v| (v - max).exp()).sum();
        let n = values.len();
        for v in &values {
            let out = (v - max).exp() / sum;
            let relative = |u: f64, gamma_n: f64| gamma_n + u * ((max - v) + spread);
            let error = relative(T::UNIT_ROUNDOFF, gamma::<T>(n + 12))
                + relative(f64::EPSILON / 2.0, gamma::<f64>(n + 12));
            want.push(out);
            bound.push(2.0 * error * out + (n + 2) as f64 * smallest_normal::<T>());
        }
    }
    (want, bound)
}

/// `y = sigmoid(A x) = 1 / (1 + exp(-(A x)))` by row, and the bound for a kernel computing it in `T`.
///
/// The product is within [`expected_error_bound`] of the f64 one; the sigmoid's slope is
/// `s (1 - s) <= 1/4`, so that error shrinks; `exp` (4u relative, through the same slope) and the
/// add and divide (a rounding each) add `s (1 - s) 4u + 2u s`. Where `exp(-(A x))` overflows, the
/// kernel's 0 is within two smallest normals of the true `s`.
fn spmv_sigmoid_reference<T: Float>(a: &CsMat<T>, x: &[T]) -> (Vec<f64>, Vec<f64>) {
    let (ax, scale) = spmv_reference(a, x);
    let (mut want, mut bound) = (vec![0.0; a.rows()], vec![0.0; a.rows()]);
    for (r, row) in a.outer_iterator().enumerate() {
        let s = 1.0 / (1.0 + (-ax[r]).exp());
        let slope = s * (1.0 - s);
        let u = T::UNIT_ROUNDOFF;
        let product = expected_error_bound::<T>(row.nnz(), scale[r]);
        want[r] = s;
        bound[r] = 2.0 * (slope * (product + 4.0 * u) + 2.0 * u * s) + 2.0 * smallest_normal::<T>();
    }
    (want, bound)
}

// ----------------------------------------------------------------------------------------------
// Comparisons.
// ----------------------------------------------------------------------------------------------

/// `None` when `got` equals `want` element for element (a NaN never does), else how many differ
/// and the first.
fn first_difference<X: PartialEq + Debug>(what: &str, got: &[X], want: &[X]) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!("{what}: {} values, want {}", got.len(), want.len()));
    }
    let wrong = got.iter().zip(want).filter(|(g, w)| g != w).count();
    let (i, (g, w)) = got
        .iter()
        .zip(want)
        .enumerate()
        .find(|(_, (g, w))| g != w)?;
    Some(format!(
        "{what}: {wrong} of {} wrong; first [{i}] = {g:?}, want {w:?}",
        want.len()
    ))
}

/// `None` when every element is within its bound of the f64 reference (a NaN never is).
fn outside_bound<T: Float>(got: &[T], want: &[f64], bound: &[f64]) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!("{} values, want {}", got.len(), want.len()));
    }
    let check = check_rows(got, want, bound);
    (!check.passed()).then(|| check.to_string())
}

fn poisoned<T: Float>(gpu: &Gpu, len: usize) -> loops::Result<DeviceBuffer<T>> {
    let mut buffer = gpu.zeros::<T>(len)?;
    gpu.fill(&mut buffer, T::POISON)?;
    Ok(buffer)
}

fn poisoned_index(gpu: &Gpu, len: usize) -> loops::Result<DeviceBuffer<i32>> {
    let mut buffer = gpu.zeros::<i32>(len)?;
    gpu.fill(&mut buffer, POISON_INDEX)?;
    Ok(buffer)
}

// ----------------------------------------------------------------------------------------------
// A run: the device, the seed, the outcome of every (kernel, schedule) on every matrix.
// ----------------------------------------------------------------------------------------------

struct Run {
    gpu: Gpu,
    seed: u64,
    matrix: String,
    /// (kernel / schedule, passed, run).
    counts: Vec<(String, usize, usize)>,
    failures: Vec<String>,
}

impl Run {
    fn new(seed: u64, what: &str) -> Run {
        // No GPU is a failure: these tests never skip.
        let gpu = Gpu::new(0)
            .unwrap_or_else(|e| panic!("the `gpu` feature's tests need a CUDA device: {e}"));
        println!(
            "{what} on {}: seed {seed} (replay with LOOPS_SEED={seed})",
            gpu.name()
        );
        Run {
            gpu,
            seed,
            matrix: String::new(),
            counts: Vec::new(),
            failures: Vec::new(),
        }
    }

    /// Runs `launch_and_compare` under each schedule and records its outcome.
    fn each_schedule(
        &mut self,
        kernel: &str,
        schedules: &[&str],
        mut launch_and_compare: impl FnMut(&Gpu, &str) -> loops::Result<Option<String>>,
    ) {
        for &schedule in schedules {
            let outcome = launch_and_compare(&self.gpu, schedule);
            self.record(kernel, schedule, outcome);
        }
    }

    /// One launch's outcome: `Ok(None)` passed, `Ok(Some(why))` wrong results, `Err` no results.
    fn record(&mut self, kernel: &str, schedule: &str, outcome: loops::Result<Option<String>>) {
        let key = format!("{kernel} / {schedule}");
        let i = match self.counts.iter().position(|(k, _, _)| *k == key) {
            Some(i) => i,
            None => {
                self.counts.push((key.clone(), 0, 0));
                self.counts.len() - 1
            }
        };
        self.counts[i].2 += 1;
        match outcome {
            Ok(None) => self.counts[i].1 += 1,
            Ok(Some(why)) => self
                .failures
                .push(format!("{} / {key}: {why}", self.matrix)),
            Err(e) => self
                .failures
                .push(format!("{} / {key}: error: {e}", self.matrix)),
        }
    }

    /// Prints passed / run by kernel and schedule; fails with every failure and the seed.
    fn finish(self, matrices: usize) {
        println!("kernel / schedule: passed / run ({matrices} matrices)");
        for (key, passed, run) in &self.counts {
            println!("  {key:<28} {passed} / {run}");
        }
        let cases: usize = self.counts.iter().map(|(_, _, run)| run).sum();
        assert!(cases > 0, "no case ran");
        assert!(
            self.failures.is_empty(),
            "{} of {cases} cases failed (seed {}, replay with LOOPS_SEED={}):\n{}",
            self.failures.len(),
            self.seed,
            self.seed,
            self.failures.join("\n")
        );
    }
}

/// Every generic kernel under every schedule on every matrix, in `T`.
fn run_generic<T: Float>(what: &str, seed: u64, matrices: Vec<(String, CsMat<T>)>) {
    let mut run = Run::new(seed, &format!("{what} {}", T::RUST_NAME));
    for (name, a) in &matrices {
        run.matrix = name.clone();
        println!("  {name}: {}", describe(a));
        let da = run
            .gpu
            .upload_csr(a)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        for check in checks::<T>() {
            check(&mut run, a, &da);
        }
    }
    run.finish(matrices.len());
}

/// The shape, and how many rows hold their largest value more than once (where the tie rule
/// decides the argmax).
fn describe<T: Float>(a: &CsMat<T>) -> String {
    let (mut longest, mut tied) = (0, 0);
    for row in a.outer_iterator() {
        longest = longest.max(row.nnz());
        let max = row
            .data()
            .iter()
            .copied()
            .reduce(|m, v| if v > m { v } else { m });
        tied += (row.data().iter().filter(|&&v| Some(v) == max).count() > 1) as usize;
    }
    format!(
        "{}x{}, {} nnz, longest row {longest}, {tied} rows with a tied max",
        a.rows(),
        a.cols(),
        a.nnz()
    )
}

/// A whole BFS under every schedule on every matrix, read as a graph.
fn run_bfs(what: &str, seed: u64, matrices: Vec<(String, CsMat<f32>)>) {
    let mut run = Run::new(seed, what);
    for (name, a) in &matrices {
        run.matrix = name.clone();
        let g = square(a);
        let dg = run
            .gpu
            .upload_csr(&g)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        check_bfs_pull(&mut run, &g, &dg);
        check_count_before_last(&mut run, &g, &dg);
    }
    run.finish(matrices.len());
}

/// `break` and `continue` (`early_exit`): each row's atoms in even columns, its last atom left
/// out, the same under every schedule (only the piece holding a row's last atom breaks).
fn check_count_before_last(run: &mut Run, a: &CsMat<f32>, da: &DeviceCsr<f32>) {
    let want: Vec<u32> = a
        .outer_iterator()
        .map(|row| {
            let cols: Vec<usize> = row.indices().to_vec();
            let before_last = cols.len().saturating_sub(1);
            cols[..before_last].iter().filter(|&&c| c % 2 == 0).count() as u32
        })
        .collect();
    run.each_schedule(
        "count_before_last",
        early_exit::SCHEDULES,
        |gpu, schedule| {
            let mut counts = gpu.upload(&vec![u32::MAX - 7; a.rows()])?;
            early_exit::launch(schedule, gpu, da, &mut counts)?;
            Ok(first_difference("counts", &gpu.download(&counts)?, &want))
        },
    );
}

#[test]
fn every_kernel_and_schedule_generated_f32() {
    let seed = fresh_seed();
    run_generic("generated", seed, generated_matrices::<f32>(seed));
}

#[test]
fn every_kernel_and_schedule_generated_f64() {
    let seed = fresh_seed();
    run_generic("generated", seed, generated_matrices::<f64>(seed));
}

#[test]
fn every_kernel_and_schedule_real_matrices_f32() {
    run_generic("real matrices", fresh_seed(), real_matrices::<f32>());
}

#[test]
fn every_kernel_and_schedule_real_matrices_f64() {
    run_generic("real matrices", fresh_seed(), real_matrices::<f64>());
}

#[test]
fn bfs_pull_every_schedule_generated() {
    let seed = fresh_seed();
    run_bfs("bfs generated", seed, generated_matrices::<f32>(seed));
}

#[test]
fn bfs_pull_every_schedule_real_matrices() {
    run_bfs("bfs real matrices", fresh_seed(), real_matrices::<f32>());
}

// ----------------------------------------------------------------------------------------------
// The matrices.
// ----------------------------------------------------------------------------------------------

/// A seed that differs on every run, unless `LOOPS_SEED` gives one.
fn fresh_seed() -> u64 {
    if let Some(seed) = std::env::var("LOOPS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        return seed;
    }
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("a clock after 1970")
        .as_nanos() as u64
}

/// The generated shapes. The large ones have more than 65,536 rows, so that `lrb` uses all its
/// mappings, and rows of more than 4096 atoms, so that its block and long-tile mappings and the
/// groups' multi-warp paths run. The "levels" matrices draw values from six levels, so ties are
/// common: with extremes rare, the first of several equal maxima lies anywhere in a long row.
fn generated_matrices<T: Float>(seed: u64) -> Vec<(String, CsMat<T>)> {
    use loops::io::generate as g;
    let long_rows = [4097, 8191, 33_000, 70_000];
    let power_law = || {
        let a = g::power_law(70_000, 70_000, 8.0, 1.8, false, seed);
        with_long_rows(a, &long_rows, seed.wrapping_add(1))
    };
    let mut all_ones = power_law();
    all_ones.data_mut().fill(T::from_f64(1.0));
    // Rows of 0, 1, and one less, equal and one more than a warp, two warps, a block and lrb's
    // block bin's limit, three times: where a group's lanes, warps or a bin end. `with_long_rows`
    // over as many empty rows as lengths gives row i the i-th length.
    let mut boundaries = vec![0, 1];
    for edge in [32, 64, 256, 4096] {
        boundaries.extend([edge - 1, edge, edge + 1]);
    }
    let boundaries = boundaries.repeat(3);
    let boundary_rows = with_long_rows(
        g::empty(boundaries.len(), 8192),
        &boundaries,
        seed.wrapping_add(13),
    );
    filtered(vec![
        ("power-law 70000 + long rows".into(), power_law()),
        (
            "power-law 70000 + long rows, levels (extremes 1/512)".into(),
            with_levels(power_law(), 1.0 / 512.0, seed.wrapping_add(2)),
        ),
        ("power-law 70000 + long rows, all values 1".into(), all_ones),
        (
            "many empty rows 100000 + long rows".into(),
            with_long_rows(
                g::with_empty_rows(100_000, 100_000, 0.9, 6, seed.wrapping_add(3)),
                &[5000, 40_000],
                seed.wrapping_add(4),
            ),
        ),
        (
            "uniform 20000 x16".into(),
            g::uniform(20_000, 20_000, 16, seed.wrapping_add(5)),
        ),
        (
            "uniform 20000 x40, levels (extremes 1/4)".into(),
            with_levels(
                g::uniform(20_000, 20_000, 40, seed.wrapping_add(6)),
                0.25,
                seed.wrapping_add(7),
            ),
        ),
        (
            "one huge row 3000 (2^17 atoms), levels (extremes 1/4096)".into(),
            with_levels(
                g::one_huge_row(3_000, 1 << 17, 1 << 17, seed.wrapping_add(8)),
                1.0 / 4096.0,
                seed.wrapping_add(9),
            ),
        ),
        (
            "rmat scale 14".into(),
            g::rmat(14, 8, seed.wrapping_add(10)),
        ),
        (
            "grid 100x90".into(),
            g::grid2d(100, 90, seed.wrapping_add(11)),
        ),
        (
            "rows at group and bin boundaries, levels (extremes 1/8)".into(),
            with_levels(boundary_rows, 0.125, seed.wrapping_add(14)),
        ),
        ("0 nnz 1000x1000".into(), g::empty(1_000, 1_000)),
        ("0 rows".into(), g::empty(0, 10)),
        ("1x1".into(), g::uniform(1, 1, 1, seed.wrapping_add(12))),
    ])
}

/// `a` with rows of the given lengths (random distinct columns, random values) in place of rows
/// spread evenly over it.
fn with_long_rows<T: Float>(a: CsMat<T>, lengths: &[usize], seed: u64) -> CsMat<T> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let (rows, cols) = a.shape();
    let replaced: Vec<(usize, usize)> = lengths
        .iter()
        .enumerate()
        .map(|(i, &len)| ((i + 1) * rows / (lengths.len() + 1), len.min(cols)))
        .collect();
    let (mut offsets, mut indices, mut values) = (vec![0], Vec::new(), Vec::new());
    for (r, row) in a.outer_iterator().enumerate() {
        match replaced.iter().find(|&&(at, _)| at == r) {
            Some(&(_, len)) => {
                let mut columns = rand::seq::index::sample(&mut rng, cols, len).into_vec();
                columns.sort_unstable();
                indices.extend(columns);
                values.extend(loops::io::generate::random_vector::<T>(len, rng.random()));
            }
            None => {
                indices.extend_from_slice(row.indices());
                values.extend_from_slice(row.data());
            }
        }
        offsets.push(indices.len());
    }
    CsMat::new((rows, cols), offsets, indices, values)
}

/// `a` with each value drawn from six levels: 1 and -1 each with probability `extremes`, else one
/// of -0.5, -0.25, 0.25, 0.5.
fn with_levels<T: Float>(mut a: CsMat<T>, extremes: f64, seed: u64) -> CsMat<T> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for v in a.data_mut() {
        let u: f64 = rng.random();
        let level = if u < extremes {
            1.0
        } else if u < 2.0 * extremes {
            -1.0
        } else {
            [-0.5, -0.25, 0.25, 0.5][rng.random_range(0..4)]
        };
        *v = T::from_f64(level);
    }
    a
}

/// Where the real matrices are: one helper for every test crate of the workspace.
#[path = "../../../tests/common/data.rs"]
mod data;

/// Every `.mtx` file of the real-matrix folder (the corpus, else the repository's `data/matrices`
/// after one `skipped` line: see `tests/common/data.rs`), by name (symmetric files expanded).
fn real_matrices<T: Float>() -> Vec<(String, CsMat<T>)> {
    let (dir, _) = data::real_matrix_dir();
    let paths = data::mtx_files(&dir);
    assert!(!paths.is_empty(), "no .mtx files in {}", dir.display());
    let all = paths
        .iter()
        .map(|p| {
            let a =
                loops::io::mtx::read_csr::<T>(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.file_name().unwrap().to_string_lossy().into_owned(), a)
        })
        .collect();
    filtered(all)
}

/// `LOOPS_MATRIX_FILTER=a,b` keeps the matrices whose name contains one of the parts (for slow
/// tools such as compute-sanitizer); unset, all of them.
fn filtered<T>(matrices: Vec<(String, CsMat<T>)>) -> Vec<(String, CsMat<T>)> {
    let Ok(filter) = std::env::var("LOOPS_MATRIX_FILTER") else {
        return matrices;
    };
    let kept: Vec<_> = matrices
        .into_iter()
        .filter(|(name, _)| filter.split(',').any(|part| name.contains(part)))
        .collect();
    assert!(
        !kept.is_empty(),
        "LOOPS_MATRIX_FILTER={filter} keeps no matrix"
    );
    kept
}

/// A rectangular matrix made square for BFS: empty rows added below, or columns no row uses
/// added to the right, so every column index is a vertex with a row.
fn square(a: &CsMat<f32>) -> CsMat<f32> {
    let n = a.rows().max(a.cols());
    let mut offsets = a.indptr().to_proper().into_owned();
    offsets.resize(n + 1, a.nnz());
    CsMat::new((n, n), offsets, a.indices().to_vec(), a.data().to_vec())
}

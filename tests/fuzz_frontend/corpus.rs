//! The seeds of the front-end fuzz: valid kernels, one per construct of the kernel language, that
//! the mutations start from. Each is accepted under some schedule, so a few mutations away from it
//! lie both kernels the macro accepts and kernels it must reject with a message.

/// `(name, kernel function)`: the function without its attribute.
pub const SEEDS: &[(&str, &str)] = &[
    (
        "spmv",
        "pub fn spmv<T: Float>(a: Csr<T>, x: &[T], y: &mut [T]) {
            for row in a.tiles() {
                let mut sum = 0.0;
                for nz in a.atoms(row) {
                    sum += a.values[nz] * x[a.col_indices[nz] as usize];
                }
                y[row] = sum;
            }
        }",
    ),
    (
        "row max",
        "pub fn row_max_abs<T: Float>(a: Csr<T>, m: &mut [T]) {
            for row in a.tiles() {
                let mut best = 0.0;
                for nz in a.atoms(row) {
                    best = max(best, a.values[nz].abs());
                }
                m[row] = best;
            }
        }",
    ),
    (
        "column sums (atomics over all atoms)",
        "pub fn column_sums<T: Float>(a: Csr<T>, colsum: &mut [T]) {
            for nz in a.all_atoms() {
                atomic_add(&mut colsum[a.col_indices[nz] as usize], a.values[nz]);
            }
        }",
    ),
    (
        "COO atoms with tile_of",
        "pub fn spmv_coo_atoms<T: Float>(a: Coo<T>, x: &[T], y: &mut [T]) {
            for nz in a.all_atoms() {
                let row = a.tile_of(nz);
                atomic_add(&mut y[row], a.values[nz] * x[a.col_indices[nz] as usize]);
            }
        }",
    ),
    (
        "two atom loops",
        "pub fn row_variance<T: Float>(a: Csr<T>, var: &mut [T]) {
            for row in a.tiles() {
                let mut sum = 0.0;
                let mut n = 0.0;
                for nz in a.atoms(row) {
                    sum += a.values[nz];
                    n += 1.0;
                }
                let mut squares = 0.0;
                for nz2 in a.atoms(row) {
                    let d = a.values[nz2] - sum / n;
                    squares += d * d;
                }
                if n > 0.0 {
                    var[row] = squares / n;
                } else {
                    var[row] = 0.0;
                }
            }
        }",
    ),
    (
        "argmax",
        "pub fn row_argmax<T: Float>(a: Csr<T>, best: &mut [T], at: &mut [i32]) {
            for row in a.tiles() {
                let mut m = -1.0e30;
                let mut c = -1;
                for nz in a.atoms(row) {
                    let v = a.values[nz];
                    let col = a.col_indices[nz];
                    if v > m {
                        m = v;
                        c = col;
                    }
                }
                best[row] = m;
                at[row] = c;
            }
        }",
    ),
    (
        "the value and the count of a maximum (a tally)",
        "pub fn count_max<T: Float>(a: Csr<T>, best: &mut [T], count: &mut [u32]) {
            for row in a.tiles() {
                let mut m = -1.0e30;
                let mut n = 0u32;
                for nz in a.atoms(row) {
                    let v = a.values[nz];
                    if v > m {
                        m = v;
                        n = 1;
                    } else if v == m {
                        n += 1;
                    }
                }
                best[row] = m;
                count[row] = n;
            }
        }",
    ),
    (
        "first match with break",
        "pub fn bfs_pull(g: Csr<f32>, in_frontier: &[u32], depth: &mut [i32], parent: &mut [i32], level: i32) {
            for v in g.tiles() {
                let visited = depth[v] >= 0;
                let mut p = -1;
                for nz in g.atoms(v) {
                    if visited {
                        break;
                    }
                    let u = g.col_indices[nz];
                    if in_frontier[u as usize] != 0 {
                        p = u;
                        break;
                    }
                }
                if p >= 0 {
                    depth[v] = level;
                    parent[v] = p;
                }
            }
        }",
    ),
    (
        "continue",
        "pub fn positive_sums(a: Csr<f64>, y: &mut [f64], counts: &mut [u32]) {
            for row in a.tiles() {
                let mut sum = 0.0f64;
                let mut n = 0u32;
                for nz in a.atoms(row) {
                    if a.values[nz] <= 0.0 {
                        continue;
                    }
                    sum += a.values[nz];
                    n += 1;
                }
                y[row] = sum;
                counts[row] = n;
            }
        }",
    ),
    (
        "range loops",
        "pub fn powers(a: Csr<f32>, x: &[f32], y: &mut [f32], k: u32) {
            for row in a.tiles() {
                let mut sum = 0.0f32;
                for nz in a.atoms(row) {
                    let mut p = 1.0f32;
                    for e in 1..=3 {
                        p *= x[a.col_indices[nz] as usize] + (e as f32);
                    }
                    for j in 0..k {
                        p += (j as f32) * 0.5;
                    }
                    sum += a.values[nz] * p;
                }
                y[row] = sum;
            }
        }",
    ),
    (
        "tile subset",
        "pub fn spmv_frontier<T: Float>(a: Csr<T>, frontier: &[u32], x: &[T], y: &mut [T]) {
            for row in a.tiles_in(frontier) {
                let mut sum = 0.0;
                for nz in a.atoms(row) {
                    sum += a.values[nz] * x[a.col_indices[nz] as usize];
                }
                y[row] = sum;
            }
        }",
    ),
    (
        "sssp over a subset, integer atomics",
        "pub fn sssp(g: Offsets, adj: &[u32], weights: &[u32], frontier: &[u32], dist: &mut [u32], next: &mut [u32]) {
            for v in g.tiles_in(frontier) {
                let dv = dist[v];
                for e in g.atoms(v) {
                    let u = adj[e] as usize;
                    let nd = dv + weights[e];
                    if nd < dist[u] {
                        let old = atomic_min(&mut dist[u], nd);
                        if nd < old {
                            next[u] = 1;
                        }
                    }
                }
            }
        }",
    ),
    (
        "spmm (a loop around the atom loop)",
        "pub fn spmm<T: Float>(a: Csr<T>, b: &[T], c: &mut [T], k: usize) {
            for row in a.tiles() {
                for j in 0..k {
                    let mut sum = 0.0;
                    for nz in a.atoms(row) {
                        sum += a.values[nz] * b[(a.col_indices[nz] as usize) * k + j];
                    }
                    c[row * k + j] = sum;
                }
            }
        }",
    ),
    (
        "CSC scatter",
        "pub fn spmv_csc<T: Float>(a: Csc<T>, x: &[T], y: &mut [T]) {
            for col in a.tiles() {
                let xc = x[col];
                for nz in a.atoms(col) {
                    atomic_add(&mut y[a.row_indices[nz] as usize], a.values[nz] * xc);
                }
            }
        }",
    ),
    (
        "segment sums (offsets)",
        "pub fn segment_sums<T: Float>(g: Offsets, data: &[T], sums: &mut [T]) {
            for s in g.tiles() {
                let mut sum = 0.0;
                for i in g.atoms(s) {
                    sum += data[i];
                }
                sums[s] = sum;
            }
        }",
    ),
    (
        "scalars, sizes, bit operators",
        "pub fn axpby_bits(a: Csr<f64>, x: &[f64], y: &mut [f64], alpha: f64, beta: f64, mask: u64, flip: bool, shift: i64) {
            for row in a.tiles() {
                let mut sum = 0.0;
                let mut bits = 0u64;
                for nz in a.atoms(row) {
                    sum += a.values[nz] * x[a.col_indices[nz] as usize];
                    bits |= (1u64 << ((a.col_indices[nz] as u64) & 63)) & mask;
                }
                let n = a.rows() + a.cols() + a.nnz() + a.num_tiles() + a.num_atoms() + x.len();
                if flip && !(bits == 0) || n % 2 == 1 {
                    y[row] = alpha * sum + beta * y[row] - (((shift >> 1) ^ 3) as f64);
                } else if bits > 7 {
                    y[row] = min(sqrt(sum.abs()), -alpha);
                } else {
                    y[row] = sum.max(beta) / (n as f64);
                }
            }
        }",
    ),
    (
        "atomic max on a COO",
        "pub fn coo_row_max(a: Coo<f32>, m: &mut [f32], hits: &mut [i64]) {
            for row in a.tiles() {
                for nz in a.atoms(row) {
                    atomic_max(&mut m[a.row_indices[nz] as usize], a.values[nz]);
                    atomic_add(&mut hits[row], 1);
                }
            }
        }",
    ),
    (
        "helper calls",
        "pub fn row_huber<T: Float>(a: Csr<T>, x: &[T], y: &mut [T], delta: T) {
            for row in a.tiles() {
                let mut loss = 0.0;
                for nz in a.atoms(row) {
                    let r = a.values[nz] - x[a.col_indices[nz] as usize];
                    loss += huber(r, delta);
                }
                y[row] = square(loss) + soft(loss, delta) + (bump(row as i32) as T);
            }
        }",
    ),
    (
        "float builtins and constants",
        "pub fn row_logsumexp<T: Float>(a: Csr<T>, out: &mut [T]) {
            for row in a.tiles() {
                let mut m = T::NEG_INFINITY;
                for nz in a.atoms(row) {
                    m = m.max(a.values[nz]);
                }
                let mut s = 0.0;
                for nz2 in a.atoms(row) {
                    s += (a.values[nz2] - m).exp();
                }
                out[row] = m + s.ln() * T::from(0.5).powi(2).mul_add(T::EPSILON, 1.0);
            }
        }",
    ),
    (
        "integer builtins and constants",
        "pub fn bit_stats(g: Offsets, words: &[u64], ones: &mut [u32], top: &mut [u32], scale: f32, out: &mut [f32]) {
            for s in g.tiles() {
                let mut n = 0u32;
                let mut lz = u32::MAX;
                for i in g.atoms(s) {
                    n += words[i].count_ones();
                    lz = min(lz, words[i].leading_zeros());
                }
                ones[s] = n.wrapping_mul(3).pow(2);
                top[s] = lz;
                let x = (n as f32).mul_add(scale, 1.0).powf(2.0).clamp(0.0, f32::MAX);
                if !x.is_nan() && x.is_finite() {
                    out[s] = x.sqrt().signum() * hypot(x, scale).tanh() + f32::from(1u32);
                }
            }
        }",
    ),
    (
        "Rust's forms: a `let` before a loop around the atom loop, path forms, `if` as a value, a literal typed by its use",
        "pub fn spmm_mean<T: Float>(a: Csr<T>, b: &[T], c: &mut [T], flags: &[u32], count: &mut [u32], k: usize) {
            for row in a.tiles() {
                let deg = a.row_offsets[row + 1] - a.row_offsets[row];
                let scale = if deg > 0 { T::recip(T::from(deg)) } else { 0.0 };
                for j in 0..k {
                    let mut sum = 0.0;
                    let mut n = 0;
                    for nz in a.atoms(row) {
                        sum += T::max(a.values[nz], 0.0) * b[(a.col_indices[nz] as usize) * k + j];
                        n += flags[nz];
                    }
                    c[row * k + j] = sum * scale;
                    count[row] = u32::max(n, 1);
                }
            }
        }",
    ),
];

/// `#[loops::device]` helpers, in scope for every kernel (one of them mutated in each case):
/// generic and concrete, calling builtins and each other, a `mut` parameter, an early `return`, and
/// one that calls itself (refused).
pub const HELPERS: &[&str] = &[
    "fn square<T: Float>(x: T) -> T {
        x * x
    }",
    "fn huber<T: Float>(r: T, delta: T) -> T {
        let a = abs(r);
        if a <= delta {
            return 0.5 * square(r);
        }
        delta * (a - 0.5 * delta)
    }",
    "fn soft<T: Float>(v: T, t: T) -> T {
        signum(v) * max(abs(v) - t, 0.0)
    }",
    "fn bump(mut i: i32) -> i32 {
        if i < 0 {
            i = -i;
        }
        i + 1
    }",
    "fn ouroboros(x: f32) -> f32 {
        ouroboros(x) + 1.0
    }",
];

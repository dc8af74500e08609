//! The graphs of issue 26's graph benchmarks: Graph500's Kronecker graphs ([`kronecker`]), the
//! low-diameter, skewed end, and road networks ([`road`]), the low-degree, large-diameter end.
//!
//! Both are undirected: the matrix is symmetric (an edge `u -> v` for each `v -> u`), with no
//! diagonal (no self-loops) and no repeated entries.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use rand::RngCore;

use super::{
    below, build, offsets_from_lengths, par_for_each, rng_for, row_blocks, BLOCK_EDGES, BLOCK_ROWS,
    RMAT_ABCD,
};
use crate::element::Float;

/// The Kronecker generator's edges, one ChaCha8 stream per block of `BLOCK_EDGES` (a family of
/// streams of its own: see the stream constants of the parent module).
const KRONECKER_EDGE_STREAMS: u64 = 8 << 40;
/// The Kronecker generator's relabelling of the vertices.
const KRONECKER_LABEL_STREAM: u64 = 9 << 40;

/// A Graph500 Kronecker graph (the benchmark's specification, section "Graph Generation"):
/// `2^scale` vertices and `edge_factor * 2^scale` edges (Graph500 uses 16), each drawn by
/// descending `scale` levels of the 2 x 2 initiator `[[A, B], [C, D]]` with A = 0.57, B = 0.19,
/// C = 0.19, D = 0.05 ([`RMAT_ABCD`], each level drawn with 16 random bits); the vertex labels
/// are then permuted at random (so that a vertex's id says nothing of its degree, unlike
/// [`super::rmat`]), and the edge list is made an **undirected simple graph**: each edge stored
/// in both directions, self-loops and repeated edges dropped. The result is a symmetric matrix
/// with an empty diagonal; some vertices have no edges (about a quarter at scale 20, as in the
/// benchmark's own generator). Seeded: the same matrix on every machine and thread count.
///
/// # Panics
/// If `scale > 31` (vertex ids are 32-bit).
pub fn kronecker<T: Float>(scale: u32, edge_factor: usize, seed: u64) -> sprs::CsMat<T> {
    assert!(
        scale <= 31,
        "kronecker: scale {scale} > 31 does not fit 32-bit vertex ids"
    );
    let n = 1usize << scale;
    let m = n
        .checked_mul(edge_factor)
        .expect("kronecker: edge count overflows usize");
    let label = random_labels(n, seed);

    // 1. The edges, relabelled: `u << 32 | v`, in parallel blocks, each from its own stream.
    let threshold = |p: f64| (p * 65536.0).round() as u64;
    let [a, b, c, _] = RMAT_ABCD;
    let (ta, tab, tabc) = (threshold(a), threshold(a + b), threshold(a + b + c));
    let mut edges = vec![0u64; m];
    let items: Vec<_> = edges.chunks_mut(BLOCK_EDGES).enumerate().collect();
    par_for_each(items, m * scale as usize, |(block, out)| {
        let mut rng = rng_for(seed, KRONECKER_EDGE_STREAMS + block as u64);
        for e in out.iter_mut() {
            let (mut u, mut v) = (0usize, 0usize);
            let mut bits = 0u64;
            for level in 0..scale {
                if level % 4 == 0 {
                    bits = rng.next_u64();
                }
                let r = bits & 0xffff;
                bits >>= 16;
                // The quadrant: 0 (A), 1 (B: the right half), 2 (C: the lower half), 3 (D).
                let quadrant = (r >= ta) as usize + (r >= tab) as usize + (r >= tabc) as usize;
                u = u << 1 | quadrant >> 1;
                v = v << 1 | (quadrant & 1);
            }
            *e = (label[u] as u64) << 32 | label[v] as u64;
        }
    });
    drop(label);

    // 2. Each edge in both directions, bucketed by its tail: degrees, their prefix sums, then a
    // scatter through per-vertex cursors. The order within a row depends on the threads, but each
    // row is sorted in step 3, so the matrix does not.
    let ends = |e: u64| ((e >> 32) as usize, (e & 0xffff_ffff) as usize);
    let degree: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
    let blocks: Vec<&[u64]> = edges.chunks(BLOCK_EDGES).collect();
    par_for_each(blocks.clone(), m, |block| {
        for &e in block {
            let (u, v) = ends(e);
            if u != v {
                degree[u].fetch_add(1, Ordering::Relaxed);
                degree[v].fetch_add(1, Ordering::Relaxed);
            }
        }
    });
    let start = offsets_from_lengths(degree.into_iter().map(|d| d.into_inner() as usize), n);
    let cursor: Vec<AtomicUsize> = start[..n].iter().map(|&s| AtomicUsize::new(s)).collect();
    let adjacency: Vec<AtomicU32> = (0..start[n]).map(|_| AtomicU32::new(0)).collect();
    par_for_each(blocks, m, |block| {
        for &e in block {
            let (u, v) = ends(e);
            if u != v {
                adjacency[cursor[u].fetch_add(1, Ordering::Relaxed)]
                    .store(v as u32, Ordering::Relaxed);
                adjacency[cursor[v].fetch_add(1, Ordering::Relaxed)]
                    .store(u as u32, Ordering::Relaxed);
            }
        }
    });
    drop((edges, cursor));
    let mut adjacency: Vec<u32> = adjacency.into_iter().map(AtomicU32::into_inner).collect();

    // 3. Each row sorted, its repeats dropped (compacted to the front of its bucket).
    let mut lengths = vec![0usize; n];
    let items: Vec<_> = row_blocks(&start, &mut adjacency)
        .into_iter()
        .zip(lengths.chunks_mut(BLOCK_ROWS))
        .collect();
    let st = &start;
    par_for_each(items, st[n], |((_, rows, data), lens)| {
        let base = st[rows.start];
        for (k, r) in rows.enumerate() {
            let row = &mut data[st[r] - base..st[r + 1] - base];
            row.sort_unstable();
            let mut w = 0;
            for i in 0..row.len() {
                if w == 0 || row[w - 1] != row[i] {
                    row[w] = row[i];
                    w += 1;
                }
            }
            lens[k] = w;
        }
    });

    // 4. Compacted into CSR (values drawn as by every generator).
    let offsets = offsets_from_lengths(lengths.into_iter(), n);
    let adjacency = &adjacency;
    build(n, n, offsets, seed, |_, r, seg| {
        let from = &adjacency[st[r]..st[r] + seg.len()];
        seg.iter_mut().zip(from).for_each(|(o, &c)| *o = c as usize);
    })
}

/// A random permutation of `0..n` (Fisher-Yates from the seed's own stream): `label[v]` is the
/// new id of the generator's vertex `v`.
fn random_labels(n: usize, seed: u64) -> Vec<u32> {
    let mut rng = rng_for(seed, KRONECKER_LABEL_STREAM);
    let mut label: Vec<u32> = (0..n as u64).map(|v| v as u32).collect();
    for i in (1..n).rev() {
        label.swap(i, below(&mut rng, i + 1));
    }
    label
}

/// A road network of `vertices` intersections: [`super::road_network`] under the name the graph
/// benchmarks use. Symmetric, no diagonal, degrees 1..6 with mean about 2.2..2.7 (real road
/// networks: 2.4..2.8), a diameter that grows as the square root of the vertex count (as on a
/// map), vertices numbered along a Z-order curve of their positions.
pub fn road<T: Float>(vertices: usize, seed: u64) -> sprs::CsMat<T> {
    super::road_network(vertices, seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{bfs_levels, Graph, UNREACHED};

    fn is_symmetric_simple(m: &sprs::CsMat<f32>) -> bool {
        let t = m.transpose_view().to_csr();
        let no_diagonal = m
            .outer_iterator()
            .enumerate()
            .all(|(r, row)| row.indices().iter().all(|&c| c != r));
        no_diagonal
            && m.indices() == t.indices()
            && m.indptr().raw_storage() == t.indptr().raw_storage()
    }

    #[test]
    fn kronecker_is_a_symmetric_simple_skewed_graph() {
        let m = kronecker::<f32>(12, 16, 3);
        assert_eq!(m.shape(), (4096, 4096));
        assert!(is_symmetric_simple(&m));
        for row in m.outer_iterator() {
            assert!(
                row.indices().windows(2).all(|w| w[0] < w[1]),
                "sorted, distinct"
            );
        }
        // 2 * 16 * 4096 entries drawn; repeats and self-loops drop a good share of them.
        let nnz = m.nnz();
        assert!((60_000..2 * 16 * 4096).contains(&nnz), "{nnz}");
        let degrees: Vec<usize> = m.outer_iterator().map(|r| r.nnz()).collect();
        let max = *degrees.iter().max().unwrap();
        let isolated = degrees.iter().filter(|&&d| d == 0).count();
        assert!(max > 400, "a hub: {max}");
        assert!(
            (400..2000).contains(&isolated),
            "{isolated} isolated vertices"
        );
        // Permuted: the hubs are not the small ids (R-MAT without the permutation puts them at 0).
        let top = (0..4096).max_by_key(|&v| degrees[v]).unwrap();
        assert_ne!(top, 0);
        let unpermuted = super::super::rmat::<f32>(12, 16, 3);
        assert!(unpermuted.outer_view(0).unwrap().nnz() > 200);
    }

    #[test]
    fn kronecker_is_seeded() {
        let a = kronecker::<f64>(10, 8, 5);
        let b = kronecker::<f64>(10, 8, 5);
        let c = kronecker::<f64>(10, 8, 6);
        assert_eq!(a, b);
        assert_ne!(a.indices(), c.indices());
        let f = kronecker::<f32>(10, 8, 5);
        assert_eq!(a.indices(), f.indices());
        assert_eq!(kronecker::<f32>(0, 16, 1).shape(), (1, 1));
        assert_eq!(
            kronecker::<f32>(0, 16, 1).nnz(),
            0,
            "every edge is a self-loop"
        );
        assert_eq!(kronecker::<f32>(4, 0, 1).nnz(), 0);
    }

    /// The labels are a permutation.
    #[test]
    fn random_labels_permute() {
        let mut l = random_labels(1000, 9);
        assert_ne!(l, (0..1000).collect::<Vec<u32>>());
        l.sort_unstable();
        assert_eq!(l, (0..1000).collect::<Vec<u32>>());
        assert_eq!(random_labels(1, 9), [0]);
        assert!(random_labels(0, 9).is_empty());
    }

    /// The mean degree and a lower bound of the diameter of the largest component (of a road graph
    /// whose streets exist with probability just over percolation's threshold): the double sweep,
    /// the eccentricity of the vertex farthest from the vertex of largest degree.
    fn degree_and_diameter(n: usize, seed: u64) -> (f64, u32) {
        let m = road::<f32>(n, seed);
        assert!(is_symmetric_simple(&m));
        let g = Graph::from_pattern(&m, 1, seed).unwrap();
        let mean_degree = g.edges() as f64 / n as f64;
        let levels = bfs_levels(&g, g.max_degree_vertex().unwrap());
        let reached = levels.iter().filter(|&&l| l != UNREACHED).count();
        assert!(
            reached > n / 2,
            "{reached} of {n} reached: not the giant component"
        );
        let far = (0..n)
            .filter(|&v| levels[v] != UNREACHED)
            .max_by_key(|&v| levels[v]);
        let levels = bfs_levels(&g, far.unwrap() as u32);
        (
            mean_degree,
            *levels.iter().filter(|&&l| l != UNREACHED).max().unwrap(),
        )
    }

    /// Mean degree about 2.5, and a diameter that grows as sqrt(n): 4x the vertices, about twice
    /// the diameter (a Kronecker graph of this size has a diameter under 10).
    #[test]
    fn road_has_road_statistics_and_a_diameter_growing_as_sqrt_n() {
        for seed in [1, 2] {
            let (d1, e1) = degree_and_diameter(10_000, seed);
            let (d4, e4) = degree_and_diameter(40_000, seed);
            for d in [d1, d4] {
                assert!((2.2..=2.8).contains(&d), "mean degree {d}");
            }
            // At least the grid's side (100, 200): the shortest way along streets is longer.
            assert!(e1 >= 100 && e4 >= 200, "diameters {e1}, {e4}");
            let ratio = e4 as f64 / e1 as f64;
            assert!((1.6..=2.4).contains(&ratio), "{e1} -> {e4}: ratio {ratio}");
        }
    }
}

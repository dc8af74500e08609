//! A graph made part by part, larger than one GPU, and the Graph500 way of checking a BFS on it
//! without a BFS on the CPU.
//!
//! [`RandomMatchings`]: `degree` random perfect matchings of `2^scale` vertices, each vertex's
//! edge of matching `k` to `f_k(u) = P_k⁻¹(P_k(u) xor 1)`, where `P_k` is a permutation of the
//! vertices (a Feistel network of hashes). `f_k` is an involution, so the graph is undirected
//! (`v` is a neighbour of `u` exactly when `u` is one of `v`), and any vertex's neighbours are
//! computed from the vertex alone: a part's rows are made where they are uploaded, in any order,
//! and the check recomputes a sampled vertex's. One vertex in 64 (by a hash) is isolated, so a
//! search leaves vertices unreached. An R-MAT or Kronecker graph has no such local rule (a
//! vertex's edges come from the whole edge list, which every part would generate again).
//!
//! [`graph500_check`]: the validation of the Graph500 benchmark on sampled vertices: the source
//! has level 0 and is the only one; the levels of the two ends of each sampled edge differ by at
//! most one when both are reached, and never is one end reached and the other not; each sampled
//! reached vertex of level `L > 0` has a neighbour of level `L - 1`.

use std::borrow::Cow;
use std::ops::Range;

use super::GraphRows;
use crate::graph::UNREACHED;

/// `degree` random perfect matchings of `2^scale` vertices, one vertex in 64 isolated (see the
/// module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RandomMatchings {
    /// `log2` of the vertices (at most 31).
    pub scale: u32,
    /// Matchings: every vertex not isolated has at most this many edges (fewer where a
    /// matching pairs it with an isolated vertex).
    pub degree: u32,
    /// Tells graphs apart.
    pub seed: u64,
}

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const ROUNDS: u64 = 4;

impl RandomMatchings {
    /// The vertices, `2^scale`.
    pub fn vertices(&self) -> usize {
        assert!(self.scale <= 31, "scale {} past 31", self.scale);
        1usize << self.scale
    }

    /// The directed edges (twice the undirected ones), counted over every vertex's row.
    pub fn edges_bound(&self) -> u64 {
        self.vertices() as u64 * self.degree as u64
    }

    /// Bits of each Feistel half: the permutation runs over `4^half >= vertices`, walking the
    /// cycle until it lands below the vertices.
    fn half(&self) -> u32 {
        self.scale.div_ceil(2).max(1)
    }

    fn round(&self, k: u32, r: u64, x: u64) -> u64 {
        let mask = (1u64 << self.half()) - 1;
        mix(x ^ mix(self.seed ^ ((k as u64) << 8 | r) ^ 0x5bd1_e995)) & mask
    }

    fn feistel(&self, k: u32, x: u64) -> u64 {
        let h = self.half();
        let mask = (1u64 << h) - 1;
        let (mut l, mut r) = (x >> h, x & mask);
        for i in 0..ROUNDS {
            (l, r) = (r, l ^ self.round(k, i, r));
        }
        l << h | r
    }

    fn feistel_inverse(&self, k: u32, x: u64) -> u64 {
        let h = self.half();
        let mask = (1u64 << h) - 1;
        let (mut l, mut r) = (x >> h, x & mask);
        for i in (0..ROUNDS).rev() {
            (l, r) = (r ^ self.round(k, i, l), l);
        }
        l << h | r
    }

    /// `P_k(u)`: a permutation of the vertices (cycle walking keeps it inside them).
    fn permute(&self, k: u32, u: u64) -> u64 {
        let mut x = self.feistel(k, u);
        while x >= self.vertices() as u64 {
            x = self.feistel(k, x);
        }
        x
    }

    fn unpermute(&self, k: u32, u: u64) -> u64 {
        let mut x = self.feistel_inverse(k, u);
        while x >= self.vertices() as u64 {
            x = self.feistel_inverse(k, x);
        }
        x
    }

    /// Whether `u` has no edges.
    pub fn isolated(&self, u: u32) -> bool {
        mix(u as u64 ^ self.seed.rotate_left(17) ^ 0x1234_5678).is_multiple_of(64)
    }

    /// `u`'s partner in matching `k` (`f_k(u)`, an involution).
    pub fn partner(&self, k: u32, u: u32) -> u32 {
        self.unpermute(k, self.permute(k, u as u64) ^ 1) as u32
    }

    /// `u`'s neighbours, one per matching whose partner is not isolated (none if `u` is).
    pub fn neighbours(&self, u: u32) -> impl Iterator<Item = u32> + '_ {
        let alone = self.isolated(u);
        (0..self.degree)
            .filter(move |_| !alone)
            .map(move |k| self.partner(k, u))
            .filter(move |&v| !self.isolated(v))
    }

    /// The rows of vertices `rows` in CSR (offsets from 0), made on every core.
    pub fn rows(&self, rows: Range<usize>) -> GraphRows<'static> {
        assert!(rows.end <= self.vertices());
        let threads = std::thread::available_parallelism().map_or(8, |t| t.get());
        let chunk = rows.len().div_ceil(threads).max(1);
        let pieces: Vec<(Vec<u32>, Vec<u32>)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let first = (rows.start + t * chunk).min(rows.end);
                    let last = (first + chunk).min(rows.end);
                    s.spawn(move || {
                        let mut degrees = Vec::with_capacity(last - first);
                        let mut adj = Vec::with_capacity((last - first) * self.degree as usize);
                        for u in first..last {
                            let before = adj.len();
                            adj.extend(self.neighbours(u as u32));
                            degrees.push((adj.len() - before) as u32);
                        }
                        (degrees, adj)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a row maker panicked"))
                .collect()
        });
        let total: usize = pieces.iter().map(|(_, a)| a.len()).sum();
        let mut offsets = Vec::with_capacity(rows.len() + 1);
        offsets.push(0u64);
        for (degrees, _) in &pieces {
            for &d in degrees {
                offsets.push(offsets.last().expect("one at least") + d as u64);
            }
        }
        let mut adj = vec![0u32; total];
        std::thread::scope(|s| {
            let mut rest = adj.as_mut_slice();
            for (_, piece) in &pieces {
                let (here, after) = rest.split_at_mut(piece.len());
                rest = after;
                s.spawn(move || here.copy_from_slice(piece));
            }
        });
        GraphRows {
            offsets,
            adj: Cow::Owned(adj),
        }
    }
}

/// What [`graph500_check`] looked at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Graph500Check {
    /// Sampled vertices.
    pub vertices: usize,
    /// Of them, reached.
    pub reached: usize,
    /// Edges of the sampled vertices checked.
    pub edges: u64,
}

/// Checks BFS `levels` (any number of vertices; [`UNREACHED`] where none) from `source` the
/// Graph500 way on the vertices `sample` and every edge of theirs (`neighbours(u)`: `u`'s, of an
/// undirected graph): see the module documentation. The first violation is the error.
pub fn graph500_check<N: IntoIterator<Item = u32>>(
    level: impl Fn(u32) -> u32,
    source: u32,
    sample: impl IntoIterator<Item = u32>,
    neighbours: impl Fn(u32) -> N,
) -> Result<Graph500Check, String> {
    if level(source) != 0 {
        return Err(format!(
            "the source {source} has level {}, not 0",
            level(source)
        ));
    }
    let mut seen = Graph500Check::default();
    for u in sample {
        seen.vertices += 1;
        let lu = level(u);
        if lu == 0 && u != source {
            return Err(format!(
                "vertex {u} has level 0 but is not the source {source}"
            ));
        }
        let reached = lu != UNREACHED;
        seen.reached += reached as usize;
        let mut parent = lu == 0;
        for v in neighbours(u) {
            seen.edges += 1;
            let lv = level(v);
            match (reached, lv != UNREACHED) {
                (true, true) if lu.abs_diff(lv) > 1 => {
                    return Err(format!(
                        "edge ({u}, {v}): levels {lu} and {lv} differ by more than one"
                    ))
                }
                (true, true) => parent |= lv + 1 == lu,
                (true, false) | (false, true) => {
                    let (a, b) = if reached { (u, v) } else { (v, u) };
                    return Err(format!(
                        "edge ({u}, {v}): {a} is reached (level {}) and its neighbour {b} is not",
                        level(a)
                    ));
                }
                (false, false) => {}
            }
        }
        if reached && !parent {
            return Err(format!(
                "vertex {u} of level {lu} has no neighbour of level {}",
                lu - 1
            ));
        }
    }
    Ok(seen)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    fn cpu_bfs(g: &RandomMatchings, source: u32) -> Vec<u32> {
        let mut levels = vec![UNREACHED; g.vertices()];
        levels[source as usize] = 0;
        let mut queue = VecDeque::from([source]);
        while let Some(u) = queue.pop_front() {
            for v in g.neighbours(u) {
                if levels[v as usize] == UNREACHED {
                    levels[v as usize] = levels[u as usize] + 1;
                    queue.push_back(v);
                }
            }
        }
        levels
    }

    fn source_of(g: &RandomMatchings) -> u32 {
        (0..g.vertices() as u32)
            .find(|&u| !g.isolated(u))
            .expect("a vertex with edges")
    }

    #[test]
    fn the_matchings_are_undirected_and_the_rows_agree() {
        for (scale, degree, seed) in [(10, 6, 1), (11, 4, 2), (1, 3, 3), (13, 9, 4)] {
            let g = RandomMatchings {
                scale,
                degree,
                seed,
            };
            let n = g.vertices() as u32;
            for k in 0..degree {
                let mut hit = vec![false; n as usize];
                for u in 0..n {
                    let v = g.partner(k, u);
                    assert!(v < n && v != u, "{scale} {k} {u} -> {v}");
                    assert_eq!(g.partner(k, v), u, "an involution");
                    assert!(
                        !std::mem::replace(&mut hit[v as usize], true),
                        "a permutation"
                    );
                }
            }
            for u in 0..n {
                for v in g.neighbours(u) {
                    assert!(g.neighbours(v).any(|w| w == u), "{u} - {v} both ways");
                }
            }
            // A part's rows are the neighbours, in order.
            let rows = g.rows(n as usize / 3..n as usize);
            let mut at = 0;
            for (i, u) in (n / 3..n).enumerate() {
                let want: Vec<u32> = g.neighbours(u).collect();
                assert_eq!(rows.offsets[i], at as u64);
                assert_eq!(&rows.adj[at..at + want.len()], &want[..]);
                at += want.len();
            }
            assert_eq!(*rows.offsets.last().unwrap(), rows.adj.len() as u64);
            if scale >= 10 {
                let isolated = (0..n).filter(|&u| g.isolated(u)).count();
                assert!(isolated > 0 && isolated < n as usize / 16, "{isolated}");
            }
        }
    }

    #[test]
    fn the_check_passes_a_bfs_and_fails_corrupted_levels() {
        let g = RandomMatchings {
            scale: 12,
            degree: 5,
            seed: 7,
        };
        let source = source_of(&g);
        let good = cpu_bfs(&g, source);
        let all = || 0..g.vertices() as u32;
        let check = |levels: &[u32]| {
            graph500_check(|v| levels[v as usize], source, all(), |u| g.neighbours(u))
        };
        let seen = check(&good).unwrap();
        assert_eq!(seen.vertices, g.vertices());
        assert!(seen.reached > g.vertices() / 2 && seen.reached < g.vertices());
        assert!(seen.edges > 0);
        // Sampled: the first 100 and the source's neighbours pass too.
        graph500_check(
            |v| good[v as usize],
            source,
            (0..100).chain(g.neighbours(source)),
            |u| g.neighbours(u),
        )
        .unwrap();

        let far = all()
            .max_by_key(|&v| (good[v as usize] != UNREACHED, good[v as usize]))
            .unwrap();
        let isolated = all().find(|&v| g.isolated(v)).unwrap();
        let corrupt = |f: &dyn Fn(&mut Vec<u32>)| {
            let mut bad = good.clone();
            f(&mut bad);
            check(&bad)
        };
        let wrong: Vec<(&str, Result<Graph500Check, String>)> = vec![
            ("source level 1", corrupt(&|l| l[source as usize] = 1)),
            (
                "a vertex one level too deep",
                corrupt(&|l| l[far as usize] += 1),
            ),
            (
                "a vertex two levels too shallow",
                corrupt(&|l| l[far as usize] -= 2),
            ),
            (
                "a reached vertex unreached",
                corrupt(&|l| l[far as usize] = UNREACHED),
            ),
            ("a second level 0", corrupt(&|l| l[far as usize] = 0)),
            (
                "an isolated vertex reached",
                corrupt(&|l| l[isolated as usize] = 3),
            ),
            (
                "every level one deeper",
                corrupt(&|l| {
                    l.iter_mut()
                        .filter(|x| **x != UNREACHED && **x > 0)
                        .for_each(|x| *x += 1)
                }),
            ),
        ];
        for (what, outcome) in wrong {
            assert!(outcome.is_err(), "{what}: the check passed");
        }
        // An isolated vertex reached at level 3 has no neighbour of level 2: that rule caught
        // it, not the edge rule (it has no edges).
        assert!(corrupt(&|l| l[isolated as usize] = 3)
            .unwrap_err()
            .contains("no neighbour"));
    }
}

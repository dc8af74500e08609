//! Splitting a square CSR matrix's rows over `parts` GPUs by atoms, and each part's two blocks.
//!
//! Part `p` owns the rows `starts[p]..starts[p + 1]` and, the matrix being square, the same range
//! of `x`'s entries. Its rows are stored twice over, as Ginkgo and PETSc store a distributed
//! matrix: the **local block** holds the entries whose column part `p` owns (columns renumbered
//! from 0 at `starts[p]`), the **remote block** the others, with their columns renumbered to a
//! compact *ghost* range: the `k`-th distinct foreign column the part reads, in ascending global
//! order. Because owners hold contiguous column ranges, the ghosts owned by part `q` form one
//! contiguous run of the ghost range, so part `q` can send exactly that run in one message and the
//! receiver can take it in place.

use std::ops::Range;

use crate::host::Csr32;

/// Row boundaries of the parts: part `p` owns rows (and `x` entries) `starts[p]..starts[p + 1]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowPartition {
    starts: Vec<usize>,
}

impl RowPartition {
    /// `parts` ranges over the rows of `offsets` (`rows + 1` CSR offsets) such that each holds
    /// about `nnz / parts` atoms: part `p` starts at the first row whose offset reaches
    /// `p · nnz / parts` (balancing atoms, not rows, so that a part of long rows gets fewer of
    /// them). A row is never cut, so one row longer than a share leaves its part heavier; a part
    /// may be empty when the matrix has fewer rows than parts.
    ///
    /// # Panics
    /// Never for a valid CSR (offsets non-decreasing, at least one entry); `parts == 0` is
    /// treated as one part.
    pub(crate) fn by_atoms(offsets: &[i32], parts: usize) -> RowPartition {
        Self::balanced(offsets.len(), parts, |r| offsets[r].max(0) as u64)
    }

    /// [`RowPartition::by_atoms`] for `usize` offsets (a graph's).
    pub(crate) fn by_edges(offsets: &[usize], parts: usize) -> RowPartition {
        Self::balanced(offsets.len(), parts, |r| offsets[r] as u64)
    }

    fn balanced(len: usize, parts: usize, offset: impl Fn(usize) -> u64) -> RowPartition {
        let parts = parts.max(1);
        let rows = len.saturating_sub(1);
        let nnz = if len == 0 { 0 } else { offset(rows) as u128 };
        let mut starts = Vec::with_capacity(parts + 1);
        starts.push(0);
        for p in 1..parts {
            let target = (nnz * p as u128 / parts as u128) as u64;
            // The first row whose start reaches the target; rows before it belong to earlier parts.
            let (mut lo, mut hi) = (0, rows);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if offset(mid) < target {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            starts.push(lo.max(*starts.last().unwrap()));
        }
        starts.push(rows);
        RowPartition { starts }
    }

    /// From explicit boundaries (`parts + 1` non-decreasing values from 0 to the row count).
    pub fn from_starts(starts: Vec<usize>) -> Option<RowPartition> {
        let ok = starts.len() >= 2 && starts[0] == 0 && starts.windows(2).all(|w| w[0] <= w[1]);
        ok.then_some(RowPartition { starts })
    }

    /// The number of parts.
    pub fn parts(&self) -> usize {
        self.starts.len() - 1
    }

    /// The rows (and `x` entries) part `p` owns.
    pub fn range(&self, p: usize) -> Range<usize> {
        self.starts[p]..self.starts[p + 1]
    }

    /// The part owning row (or column) `i`.
    pub(crate) fn owner(&self, i: usize) -> usize {
        // The last part whose start is <= i (empty parts share their start with the next one).
        self.starts[1..].partition_point(|&s| s <= i)
    }

    /// The boundaries, `parts + 1` of them.
    pub fn starts(&self) -> &[usize] {
        &self.starts
    }
}

/// A block of a part: CSR with 64-bit offsets, since one part of a matrix larger than a GPU may
/// hold more than `i32::MAX` entries (it is uploaded with 32-bit offsets when they fit).
#[derive(Clone, Debug, PartialEq)]
pub struct Block<T> {
    /// The rows.
    pub rows: usize,
    /// The columns.
    pub cols: usize,
    /// `rows + 1` offsets.
    pub offsets: Vec<u64>,
    /// The column of each entry.
    pub indices: Vec<i32>,
    /// The value of each entry.
    pub values: Vec<T>,
}

impl<T> Block<T> {
    /// The entries.
    pub fn nnz(&self) -> usize {
        self.indices.len()
    }
}

/// One part's rows as its local and remote blocks.
#[derive(Clone, Debug, PartialEq)]
pub struct PartBlocks<T> {
    /// The rows (and `x` entries) the part owns.
    pub rows: Range<usize>,
    /// `rows.len() × rows.len()`: the entries whose column the part owns, columns from 0.
    pub local: Block<T>,
    /// `rows.len() × ghosts.len()`: the other entries, columns numbered by ghost.
    pub remote: Block<T>,
    /// The global column of each ghost, ascending.
    pub ghosts: Vec<u32>,
    /// For each part `q`, the run of `ghosts` that `q` owns (empty for the part itself).
    pub ghosts_from: Vec<Range<usize>>,
}

/// A matrix split into parts, with what each part sends to the others per product.
#[cfg(test)]
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Partitioned<T> {
    /// The row boundaries.
    pub partition: RowPartition,
    /// Each part's blocks.
    pub parts: Vec<PartBlocks<T>>,
}

#[cfg(test)]
impl<T: Copy + Send + Sync> Partitioned<T> {
    /// Splits `a` (square, valid CSR) by `partition`.
    ///
    /// # Panics
    /// If `a` is not square or `partition` does not cover its rows: callers check both first.
    pub fn split(a: &Csr32<T>, partition: RowPartition) -> Partitioned<T> {
        assert_eq!(a.rows, a.cols, "a distributed matrix is square");
        assert_eq!(*partition.starts.last().unwrap(), a.rows);
        let parts = (0..partition.parts())
            .map(|p| blocks(a, &partition, p))
            .collect();
        Partitioned { partition, parts }
    }

    /// The local indices (into part `from`'s `x` entries) that part `from` sends to part `to`,
    /// in `to`'s ghost order: the run `to.ghosts_from[from]`, shifted to `from`'s numbering.
    pub(crate) fn sends(&self, from: usize, to: usize) -> Vec<u32> {
        let start = self.partition.range(from).start as u32;
        let run = self.parts[to].ghosts_from[from].clone();
        self.parts[to].ghosts[run]
            .iter()
            .map(|&g| g - start)
            .collect()
    }
}

/// Part `p`'s blocks of the whole matrix `a`.
pub(crate) fn blocks<T: Copy + Send + Sync>(
    a: &Csr32<T>,
    partition: &RowPartition,
    p: usize,
) -> PartBlocks<T> {
    let rows = partition.range(p);
    let offsets: Vec<u64> = a.offsets[rows.start..=rows.end]
        .iter()
        .map(|&o| o as u64)
        .collect();
    PartBlocks::of_rows(partition, p, &offsets, &a.indices, &a.values)
}

/// Rows a thread of [`PartBlocks::of_rows`] takes at a time.
const CHUNK_ROWS: usize = 1 << 16;

impl<T: Copy + Send + Sync> PartBlocks<T> {
    /// Part `p`'s blocks from its own rows alone: `offsets` (`rows + 1` of them, from any base)
    /// index `indices` (global columns) and `values`. A process of a group that spans several
    /// processes, or a generator that makes each part's rows where they are needed, never holds
    /// the whole matrix. Large parts are split on every core, in chunks of rows.
    ///
    /// # Panics
    /// If `offsets` does not hold one more entry than part `p`'s rows, or points outside
    /// `indices`/`values`: callers check both first.
    pub fn of_rows(
        partition: &RowPartition,
        p: usize,
        offsets: &[u64],
        indices: &[i32],
        values: &[T],
    ) -> PartBlocks<T> {
        Self::of_rows_in_chunks(partition, p, offsets, indices, values, CHUNK_ROWS)
    }

    fn of_rows_in_chunks(
        partition: &RowPartition,
        p: usize,
        offsets: &[u64],
        indices: &[i32],
        values: &[T],
        chunk_rows: usize,
    ) -> PartBlocks<T> {
        let rows = partition.range(p);
        assert_eq!(offsets.len(), rows.len() + 1, "a part's rows and offsets");
        let own = rows.start as i64..rows.end as i64;
        let chunks: Vec<Range<usize>> = (0..rows.len().div_ceil(chunk_rows))
            .map(|c| c * chunk_rows..((c + 1) * chunk_rows).min(rows.len()))
            .collect();
        let entries = |r: &Range<usize>| offsets[r.start] as usize..offsets[r.end] as usize;
        // Pass 1, per chunk: its foreign columns (sorted, distinct) and its local entries.
        let firsts: Vec<(Vec<u32>, usize)> = on_every_core(&chunks, |r| {
            let mut foreign: Vec<u32> = Vec::new();
            let mut local = 0;
            for &c in &indices[entries(r)] {
                if own.contains(&(c as i64)) {
                    local += 1;
                } else {
                    foreign.push(c as u32);
                }
            }
            foreign.sort_unstable();
            foreign.dedup();
            (foreign, local)
        });
        let ghosts = merge_distinct(firsts.iter().map(|(f, _)| f.as_slice()).collect());
        // Where each chunk's entries start in the two blocks.
        let (mut at_local, mut at_remote) = (vec![0usize], vec![0usize]);
        for (r, (_, local)) in chunks.iter().zip(&firsts) {
            at_local.push(at_local.last().unwrap() + local);
            at_remote.push(at_remote.last().unwrap() + entries(r).len() - local);
        }
        let (nl, nr) = (*at_local.last().unwrap(), *at_remote.last().unwrap());
        let mut local = Block::with_len(rows.len(), rows.len(), nl, values.first().copied());
        let mut remote = Block::with_len(rows.len(), ghosts.len(), nr, values.first().copied());
        // Pass 2, per chunk: its rows of both blocks, written in place.
        {
            let mut work = Vec::new();
            let (mut lo, mut li, mut lv) = (
                &mut local.offsets[1..],
                &mut local.indices[..],
                &mut local.values[..],
            );
            let (mut ro, mut ri, mut rv) = (
                &mut remote.offsets[1..],
                &mut remote.indices[..],
                &mut remote.values[..],
            );
            for (c, r) in chunks.iter().enumerate() {
                let (nl, nr) = (
                    at_local[c + 1] - at_local[c],
                    at_remote[c + 1] - at_remote[c],
                );
                let (a, b) = std::mem::take(&mut lo).split_at_mut(r.len());
                lo = b;
                let (c1, d1) = std::mem::take(&mut li).split_at_mut(nl);
                li = d1;
                let (e1, f1) = std::mem::take(&mut lv).split_at_mut(nl);
                lv = f1;
                let (g, h) = std::mem::take(&mut ro).split_at_mut(r.len());
                ro = h;
                let (i1, j1) = std::mem::take(&mut ri).split_at_mut(nr);
                ri = j1;
                let (k1, l1) = std::mem::take(&mut rv).split_at_mut(nr);
                rv = l1;
                work.push((
                    r.clone(),
                    at_local[c],
                    at_remote[c],
                    (a, c1, e1),
                    (g, i1, k1),
                ));
            }
            let ghosts = &ghosts;
            let own = &own;
            std::thread::scope(|s| {
                let threads = std::thread::available_parallelism().map_or(4, |t| t.get());
                let mut per: Vec<Vec<_>> = (0..threads).map(|_| Vec::new()).collect();
                for (i, w) in work.into_iter().enumerate() {
                    per[i % threads].push(w);
                }
                for batch in per {
                    s.spawn(move || {
                        for (r, base_l, base_r, (lo, li, lv), (ro, ri, rv)) in batch {
                            let (mut nl, mut nr) = (0, 0);
                            for (row, (lo, ro)) in r.clone().zip(lo.iter_mut().zip(ro.iter_mut())) {
                                for nz in offsets[row] as usize..offsets[row + 1] as usize {
                                    let c = indices[nz] as i64;
                                    if own.contains(&c) {
                                        li[nl] = (c - own.start) as i32;
                                        lv[nl] = values[nz];
                                        nl += 1;
                                    } else {
                                        let g = ghosts
                                            .binary_search(&(c as u32))
                                            .expect("every foreign column is a ghost");
                                        ri[nr] = g as i32;
                                        rv[nr] = values[nz];
                                        nr += 1;
                                    }
                                }
                                *lo = (base_l + nl) as u64;
                                *ro = (base_r + nr) as u64;
                            }
                        }
                    });
                }
            });
        }
        let ghosts_from = (0..partition.parts())
            .map(|q| {
                let r = partition.range(q);
                let lo = ghosts.partition_point(|&g| (g as usize) < r.start);
                let hi = ghosts.partition_point(|&g| (g as usize) < r.end);
                lo..hi
            })
            .collect();
        PartBlocks {
            rows,
            local,
            remote,
            ghosts,
            ghosts_from,
        }
    }
}

impl<T: Copy> Block<T> {
    /// `rows × cols` with room for `nnz` entries (filled with `fill`, then overwritten).
    fn with_len(rows: usize, cols: usize, nnz: usize, fill: Option<T>) -> Block<T> {
        Block {
            rows,
            cols,
            offsets: vec![0; rows + 1],
            indices: vec![0; nnz],
            values: fill.map_or_else(Vec::new, |v| vec![v; nnz]),
        }
    }
}

/// The distinct values of sorted, distinct `lists`, ascending: on every core, each taking a range
/// of values from every list.
fn merge_distinct(lists: Vec<&[u32]>) -> Vec<u32> {
    let total: usize = lists.iter().map(|l| l.len()).sum();
    let most = lists
        .iter()
        .filter_map(|l| l.last())
        .max()
        .copied()
        .unwrap_or(0) as u64;
    let pieces = if total < 1 << 20 { 1 } else { 64 };
    let bounds: Vec<Range<usize>> = (0..pieces)
        .map(|i| i * (most as usize + 1) / pieces..(i + 1) * (most as usize + 1) / pieces)
        .collect();
    let merged = on_every_core(&bounds, |values| {
        let mut out: Vec<u32> = lists
            .iter()
            .flat_map(|l| {
                let lo = l.partition_point(|&v| (v as usize) < values.start);
                let hi = l.partition_point(|&v| (v as usize) < values.end);
                l[lo..hi].iter().copied()
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    });
    merged.concat()
}

/// `work` on each chunk, the chunks spread over the cores; the results in chunk order.
fn on_every_core<R: Send>(
    chunks: &[Range<usize>],
    work: impl Fn(&Range<usize>) -> R + Sync,
) -> Vec<R> {
    if chunks.len() <= 1 {
        return chunks.iter().map(&work).collect();
    }
    let threads = std::thread::available_parallelism()
        .map_or(4, |t| t.get())
        .min(chunks.len());
    let work = &work;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    (t..chunks.len())
                        .step_by(threads)
                        .map(|c| (c, work(&chunks[c])))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<(usize, R)> = handles
            .into_iter()
            .flat_map(|h| h.join().expect("a splitting thread"))
            .collect();
        all.sort_by_key(|(c, _)| *c);
        all.into_iter().map(|(_, r)| r).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn empty<T>(rows: usize, cols: usize) -> Csr32<T> {
        Csr32 {
            rows,
            cols,
            offsets: vec![0],
            indices: Vec::new(),
            values: Vec::new(),
        }
    }

    /// A random square CSR of `n` rows with sorted, distinct columns.
    fn random_csr(n: usize, seed: u64, mean: usize) -> Csr32<f64> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut m = empty::<f64>(n, n);
        for _ in 0..n {
            // Heavy-tailed lengths: a few long rows, some empty.
            let len = if rng.random_bool(0.05) {
                rng.random_range(0..=n.min(8 * mean))
            } else {
                rng.random_range(0..=mean)
            };
            let mut cols: Vec<i32> = (0..len).map(|_| rng.random_range(0..n as i32)).collect();
            cols.sort_unstable();
            cols.dedup();
            for c in cols {
                m.indices.push(c);
                m.values.push(rng.random_range(-1.0..1.0));
            }
            m.offsets.push(m.indices.len() as i32);
        }
        m
    }

    fn spmv(a: &Csr32<f64>, x: &[f64]) -> Vec<f64> {
        let offsets: Vec<u64> = a.offsets.iter().map(|&o| o as u64).collect();
        spmv_parts(&offsets, &a.indices, &a.values, x)
    }

    fn spmv_parts(offsets: &[u64], indices: &[i32], values: &[f64], x: &[f64]) -> Vec<f64> {
        offsets
            .windows(2)
            .map(|w| {
                (w[0] as usize..w[1] as usize)
                    .map(|nz| values[nz] * x[indices[nz] as usize])
                    .sum()
            })
            .collect()
    }

    fn block_spmv(b: &Block<f64>, x: &[f64]) -> Vec<f64> {
        spmv_parts(&b.offsets, &b.indices, &b.values, x)
    }

    fn narrow(b: &Block<f64>) -> Result<Csr32<f64>, crate::host::MatrixError> {
        let offsets = b.offsets.iter().map(|&o| o as i32).collect();
        Csr32::from_parts(b.rows, b.cols, offsets, b.indices.clone(), b.values.clone())
    }

    /// The distributed product as the GPUs compute it: each part gathers what it sends, each
    /// receiver lays the messages out in ghost order, then local + remote per part.
    fn distributed_spmv(d: &Partitioned<f64>, x: &[f64]) -> Vec<f64> {
        let x_parts: Vec<&[f64]> = (0..d.parts.len())
            .map(|p| &x[d.partition.range(p)])
            .collect();
        let mut y = Vec::new();
        for (p, b) in d.parts.iter().enumerate() {
            let mut ghost_x = vec![f64::NAN; b.ghosts.len()];
            for q in 0..d.parts.len() {
                let msg: Vec<f64> = d
                    .sends(q, p)
                    .iter()
                    .map(|&i| x_parts[q][i as usize])
                    .collect();
                ghost_x[b.ghosts_from[q].clone()].copy_from_slice(&msg);
            }
            let local = block_spmv(&b.local, x_parts[p]);
            let remote = block_spmv(&b.remote, &ghost_x);
            y.extend(local.iter().zip(&remote).map(|(l, r)| l + r));
        }
        y
    }

    proptest! {
        #[test]
        fn every_atom_lands_on_exactly_one_part_and_the_product_is_unchanged(
            n in 1usize..300, parts in 1usize..9, seed in any::<u64>(), mean in 0usize..12,
        ) {
            let a = random_csr(n, seed, mean);
            let partition = RowPartition::by_atoms(&a.offsets, parts);
            prop_assert_eq!(partition.parts(), parts);
            let d = Partitioned::split(&a, partition.clone());
            // Split in chunks of 3 rows on several threads: the same blocks.
            for (p, b) in d.parts.iter().enumerate() {
                let r = partition.range(p);
                let offsets: Vec<u64> = a.offsets[r.start..=r.end].iter().map(|&o| o as u64).collect();
                let chunked = PartBlocks::of_rows_in_chunks(&partition, p, &offsets, &a.indices, &a.values, 3);
                prop_assert_eq!(&chunked, b);
            }
            // Rows covered once, in order; atoms counted once.
            prop_assert_eq!(partition.starts()[0], 0);
            prop_assert_eq!(*partition.starts().last().unwrap(), n);
            let atoms: usize = d.parts.iter().map(|b| b.local.indices.len() + b.remote.indices.len()).sum();
            prop_assert_eq!(atoms, a.indices.len());
            for (p, b) in d.parts.iter().enumerate() {
                prop_assert!(narrow(&b.local).is_ok());
                prop_assert!(narrow(&b.remote).is_ok());
                // Ghosts: ascending, foreign, each run owned by the part it names.
                prop_assert!(b.ghosts.windows(2).all(|w| w[0] < w[1]));
                prop_assert!(b.ghosts_from[p].is_empty());
                let covered: usize = b.ghosts_from.iter().map(|r| r.len()).sum();
                prop_assert_eq!(covered, b.ghosts.len());
                for (q, run) in b.ghosts_from.iter().enumerate() {
                    for &g in &b.ghosts[run.clone()] {
                        prop_assert_eq!(partition.owner(g as usize), q);
                    }
                }
                for r in b.rows.clone() {
                    prop_assert_eq!(partition.owner(r), p);
                }
            }
            let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
            let (want, got) = (spmv(&a, &x), distributed_spmv(&d, &x));
            for (w, g) in want.iter().zip(&got) {
                prop_assert!((w - g).abs() <= 1e-12 * (1.0 + w.abs()), "{} vs {}", w, g);
            }
        }
    }

    /// Over 2^20 values the merge runs in 64 ranges of values on several threads: the same as a
    /// sort of everything.
    #[test]
    fn distinct_values_merge_on_every_core() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let lists: Vec<Vec<u32>> = (0..40)
            .map(|_| {
                let mut l: Vec<u32> = (0..40_000)
                    .map(|_| rng.random_range(0..3_000_000))
                    .collect();
                l.sort_unstable();
                l.dedup();
                l
            })
            .collect();
        let mut want: Vec<u32> = lists.concat();
        want.sort_unstable();
        want.dedup();
        let got = merge_distinct(lists.iter().map(|l| l.as_slice()).collect());
        assert_eq!(got, want);
        assert_eq!(merge_distinct(vec![]), Vec::<u32>::new());
        assert_eq!(
            merge_distinct(vec![&[0, u32::MAX][..], &[5][..]]),
            vec![0, 5, u32::MAX]
        );
    }

    #[test]
    fn atoms_not_rows_are_balanced() {
        // Row 0 holds half the atoms: with two parts it is a part of its own.
        let mut offsets = vec![0, 1000];
        offsets.extend((1..=1000).map(|i| 1000 + i));
        let p = RowPartition::by_atoms(&offsets, 2);
        assert_eq!(p.starts(), &[0, 1, 1001]);
        assert_eq!(p.owner(0), 0);
        assert_eq!(p.owner(1), 1);
        assert_eq!(p.owner(1000), 1);
    }

    #[test]
    fn more_parts_than_rows_leave_parts_empty() {
        let p = RowPartition::by_atoms(&[0, 3, 6], 4);
        assert_eq!(p.parts(), 4);
        assert_eq!(p.starts().first(), Some(&0));
        assert_eq!(p.starts().last(), Some(&2));
        let sizes: usize = (0..4).map(|q| p.range(q).len()).sum();
        assert_eq!(sizes, 2);
        for r in 0..2 {
            assert!(p.range(p.owner(r)).contains(&r));
        }
    }
}

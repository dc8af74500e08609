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

use crate::formats::host::Csr32;

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
    pub fn by_atoms(offsets: &[i32], parts: usize) -> RowPartition {
        Self::balanced(offsets.len(), parts, |r| offsets[r].max(0) as u64)
    }

    /// [`RowPartition::by_atoms`] for `usize` offsets (a graph's).
    pub fn by_edges(offsets: &[usize], parts: usize) -> RowPartition {
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
    pub fn owner(&self, i: usize) -> usize {
        // The last part whose start is <= i (empty parts share their start with the next one).
        self.starts[1..].partition_point(|&s| s <= i)
    }

    /// The boundaries, `parts + 1` of them.
    pub fn starts(&self) -> &[usize] {
        &self.starts
    }
}

/// One part's rows as its local and remote blocks.
#[derive(Clone, Debug, PartialEq)]
pub struct PartBlocks<T> {
    /// The rows (and `x` entries) the part owns.
    pub rows: Range<usize>,
    /// `rows.len() × rows.len()`: the entries whose column the part owns, columns from 0.
    pub local: Csr32<T>,
    /// `rows.len() × ghosts.len()`: the other entries, columns numbered by ghost.
    pub remote: Csr32<T>,
    /// The global column of each ghost, ascending.
    pub ghosts: Vec<u32>,
    /// For each part `q`, the run of `ghosts` that `q` owns (empty for the part itself).
    pub ghosts_from: Vec<Range<usize>>,
}

/// A matrix split into parts, with what each part sends to the others per product.
#[derive(Clone, Debug, PartialEq)]
pub struct Partitioned<T> {
    /// The row boundaries.
    pub partition: RowPartition,
    /// Each part's blocks.
    pub parts: Vec<PartBlocks<T>>,
}

impl<T: Copy> Partitioned<T> {
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
    pub fn sends(&self, from: usize, to: usize) -> Vec<u32> {
        let start = self.partition.range(from).start as u32;
        let run = self.parts[to].ghosts_from[from].clone();
        self.parts[to].ghosts[run]
            .iter()
            .map(|&g| g - start)
            .collect()
    }

    /// The `x` entries exchanged per product, summed over parts (each ghost is received once).
    pub fn ghost_entries(&self) -> usize {
        self.parts.iter().map(|b| b.ghosts.len()).sum()
    }
}

fn blocks<T: Copy>(a: &Csr32<T>, partition: &RowPartition, p: usize) -> PartBlocks<T> {
    let rows = partition.range(p);
    let own = rows.start as i64..rows.end as i64;
    let entries = a.offsets[rows.start] as usize..a.offsets[rows.end] as usize;
    let mut ghosts: Vec<u32> = a.indices[entries.clone()]
        .iter()
        .filter(|&&c| !own.contains(&(c as i64)))
        .map(|&c| c as u32)
        .collect();
    ghosts.sort_unstable();
    ghosts.dedup();
    let (mut local, mut remote) = (
        empty(rows.len(), rows.len()),
        empty(rows.len(), ghosts.len()),
    );
    for r in rows.clone() {
        for nz in a.offsets[r] as usize..a.offsets[r + 1] as usize {
            let c = a.indices[nz] as i64;
            if own.contains(&c) {
                local.indices.push((c - own.start) as i32);
                local.values.push(a.values[nz]);
            } else {
                let g = ghosts
                    .binary_search(&(c as u32))
                    .expect("every foreign column is a ghost");
                remote.indices.push(g as i32);
                remote.values.push(a.values[nz]);
            }
        }
        local.offsets.push(local.indices.len() as i32);
        remote.offsets.push(remote.indices.len() as i32);
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

fn empty<T>(rows: usize, cols: usize) -> Csr32<T> {
    Csr32 {
        rows,
        cols,
        offsets: vec![0],
        indices: Vec::new(),
        values: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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
        (0..a.rows)
            .map(|r| {
                (a.offsets[r] as usize..a.offsets[r + 1] as usize)
                    .map(|nz| a.values[nz] * x[a.indices[nz] as usize])
                    .sum()
            })
            .collect()
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
            let local = spmv(&b.local, x_parts[p]);
            let remote = spmv(&b.remote, &ghost_x);
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
            // Rows covered once, in order; atoms counted once.
            prop_assert_eq!(partition.starts()[0], 0);
            prop_assert_eq!(*partition.starts().last().unwrap(), n);
            let atoms: usize = d.parts.iter().map(|b| b.local.indices.len() + b.remote.indices.len()).sum();
            prop_assert_eq!(atoms, a.indices.len());
            for (p, b) in d.parts.iter().enumerate() {
                prop_assert!(Csr32::from_parts(b.local.rows, b.local.cols, b.local.offsets.clone(), b.local.indices.clone(), b.local.values.clone()).is_ok());
                prop_assert!(Csr32::from_parts(b.remote.rows, b.remote.cols, b.remote.offsets.clone(), b.remote.indices.clone(), b.remote.values.clone()).is_ok());
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

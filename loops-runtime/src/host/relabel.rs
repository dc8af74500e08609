//! Relabelling a square matrix's vertices by degree: `P A Pᵀ` with the highest-degree vertices
//! first, so that the columns most nonzeros gather from are neighbours in `x` and share sectors
//! and cache lines (issue 42: on power-law graphs an SpMV's gathers, not its stream, bound it).
//! The caller runs on the relabelled matrix with `x` permuted by [`Relabelling::permute`] and
//! reads `y` back through [`Relabelling::unpermute`]; the benchmark reports the relabelling's
//! cost and how many products repay it.

/// A permutation of a square matrix's vertices: `new_of[old]` and `old_of[new]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relabelling {
    /// The new label of each old vertex.
    pub new_of: Vec<usize>,
    /// The old label of each new vertex.
    pub old_of: Vec<usize>,
}

impl Relabelling {
    /// `v` in the new order: `out[new] = v[old_of[new]]`.
    pub fn permute<T: Copy>(&self, v: &[T]) -> Vec<T> {
        self.old_of.iter().map(|&o| v[o]).collect()
    }

    /// `v` back in the old order: `out[old] = v[new_of[old]]`.
    pub fn unpermute<T: Copy>(&self, v: &[T]) -> Vec<T> {
        self.new_of.iter().map(|&n| v[n]).collect()
    }
}

/// Which degree orders the vertices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Degree {
    /// Nonzeros per column: how often a vertex's `x` entry is gathered.
    In,
    /// Nonzeros per row.
    Out,
}

/// Relabels the square `a` so that vertices come in decreasing `degree` (ties keep their order),
/// returning `P A Pᵀ` (columns sorted within each row) and the permutation. `None` if `a` is not
/// square.
pub fn relabel_by_degree<T: Copy + Default>(
    a: &sprs::CsMat<T>,
    degree: Degree,
) -> Option<(sprs::CsMat<T>, Relabelling)> {
    let n = a.rows();
    if a.cols() != n {
        return None;
    }
    let owned;
    let a = if a.is_csr() {
        a
    } else {
        owned = a.to_csr();
        &owned
    };
    let offsets = a.indptr().to_proper().to_vec();
    let mut deg = vec![0usize; n];
    match degree {
        Degree::In => a.indices().iter().for_each(|&c| deg[c] += 1),
        Degree::Out => (0..n).for_each(|r| deg[r] = offsets[r + 1] - offsets[r]),
    }
    let mut old_of: Vec<usize> = (0..n).collect();
    old_of.sort_by_key(|&v| std::cmp::Reverse(deg[v]));
    let mut new_of = vec![0usize; n];
    for (new, &old) in old_of.iter().enumerate() {
        new_of[old] = new;
    }
    let mut indptr = Vec::with_capacity(n + 1);
    let mut indices = Vec::with_capacity(a.nnz());
    let mut data = Vec::with_capacity(a.nnz());
    let mut row: Vec<(usize, T)> = Vec::new();
    indptr.push(0);
    for &old in &old_of {
        let (b, e) = (offsets[old], offsets[old + 1]);
        row.clear();
        row.extend(
            a.indices()[b..e]
                .iter()
                .zip(&a.data()[b..e])
                .map(|(&c, &v)| (new_of[c], v)),
        );
        row.sort_unstable_by_key(|&(c, _)| c);
        indices.extend(row.iter().map(|&(c, _)| c));
        data.extend(row.iter().map(|&(_, v)| v));
        indptr.push(indices.len());
    }
    let m = sprs::CsMat::new((n, n), indptr, indices, data);
    Some((m, Relabelling { new_of, old_of }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spmv(a: &sprs::CsMat<f64>, x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; a.rows()];
        for (v, (r, c)) in a.iter() {
            y[r] += v * x[c];
        }
        y
    }

    #[test]
    fn the_relabelled_product_is_the_permuted_product() {
        // A skewed random graph: column c drawn with probability falling with c.
        let n = 1024;
        let mut t = sprs::TriMat::new((n, n));
        let mut s = 12345u64;
        for r in 0..n {
            for _ in 0..(1 + r % 9) {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let u = (s >> 33) as f64 / (1u64 << 31) as f64;
                let c = ((u * u * u) * n as f64) as usize % n;
                t.add_triplet(n - 1 - r, (c * 7) % n, 1.0 + u);
            }
        }
        let a: sprs::CsMat<f64> = crate::host::csr_from_triplets(&t);
        let x: Vec<f64> = (0..a.cols()).map(|i| (i as f64 * 0.37).sin()).collect();
        for degree in [Degree::In, Degree::Out] {
            let (b, p) = relabel_by_degree(&a, degree).unwrap();
            assert_eq!(b.nnz(), a.nnz());
            let y = p.unpermute(&spmv(&b, &p.permute(&x)));
            let want = spmv(&a, &x);
            for (g, w) in y.iter().zip(&want) {
                assert!((g - w).abs() <= 1e-12 * (1.0 + w.abs()), "{g} vs {w}");
            }
            // Degrees decrease along the new labels.
            let deg = |m: &sprs::CsMat<f64>, v: usize| match degree {
                Degree::In => m.indices().iter().filter(|&&c| c == v).count(),
                Degree::Out => m.outer_view(v).unwrap().nnz(),
            };
            assert!((1..40).all(|v| deg(&b, v - 1) >= deg(&b, v)));
            // Columns sorted within rows: a valid CSR for the checked formats.
            let o = b.indptr().to_proper().to_vec();
            let sorted = |r: usize| b.indices()[o[r]..o[r + 1]].windows(2).all(|w| w[0] < w[1]);
            assert!((0..b.rows()).all(sorted));
        }
    }

    #[test]
    fn non_square_and_empty_matrices() {
        let a: sprs::CsMat<f32> = sprs::CsMat::zero((3, 4));
        assert!(relabel_by_degree(&a, Degree::In).is_none());
        let e: sprs::CsMat<f32> = sprs::CsMat::zero((0, 0));
        let (b, p) = relabel_by_degree(&e, Degree::In).unwrap();
        assert_eq!((b.rows(), b.nnz(), p.old_of.len()), (0, 0, 0));
    }
}

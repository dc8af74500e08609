//! One PageRank pull step: each vertex sums the rank its in-neighbours send it.

use loops::prelude::*;

#[for_schedules(
    core,
    except(group2, split, hierarchical),
    group4,
    split3,
    hierarchical3
)]
pub fn pagerank_pull<T: Float>(
    g: Csr<T>,
    rank: &[T],
    inv_out_degree: &[T],
    next: &mut [T],
    damping: T,
    teleport: T,
) {
    for v in g.tiles() {
        let mut sum = 0.0;
        for nz in g.atoms(v) {
            let u = g.col_indices[nz] as usize;
            sum += rank[u] * inv_out_degree[u];
        }
        next[v] = teleport + damping * sum;
    }
}

//! One level of a pull BFS: every unvisited vertex looks through its neighbours and stops at the
//! first one in the frontier, which becomes its parent. Under every schedule the parent is the
//! first such neighbour in the row, as the loop run in order finds it.

use loops::prelude::*;

#[for_schedules(
    core,
    except(group2, split, hierarchical),
    group4,
    split3,
    hierarchical3
)]
pub fn bfs_pull(
    g: Csr<f32>,
    in_frontier: &[u32],
    depth: &mut [i32],
    parent: &mut [i32],
    level: i32,
) {
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
}

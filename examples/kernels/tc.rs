//! Triangle counting by sorted adjacency intersections (the application LRB was made for). The
//! graph is first oriented on the host ([`oriented_by_degree`]): the simple undirected view, each
//! edge kept once from its end of lower degree to the other, vertices renumbered in that order, so
//! every edge `v -> u` has `u > v` and the heads are sorted. A triangle `v < u < w` is then found
//! once, at the edge `v -> u`, as a `w` in both `v`'s heads after `u` and `u`'s heads: for each of
//! `u`'s heads the kernel binary-searches `v`'s remaining heads, from where the last search ended.
//! Each vertex's count goes to `counts`, summed over runs of vertices on the device ([`total`]).

use loops::graph::Graph;
use loops::prelude::*;

use super::graph_host::{chunk_offsets, oriented_by_degree};

/// The per-vertex count, under every schedule.
pub mod count {
    use super::*;
    /// `counts[v]`: the triangles whose lowest vertex is `v`, on an oriented graph with sorted heads.
    #[for_schedules(core)]
    pub fn triangles(g: Offsets, adj: &[u32], counts: &mut [u64]) {
        for v in g.tiles() {
            let mut found = 0u64;
            let end = g.offsets[v + 1] as usize;
            for e in g.atoms(v) {
                let u = adj[e] as usize;
                // v's heads after e are the vertices above u, sorted.
                let mut lo = e + 1;
                for j in g.offsets[u]..g.offsets[u + 1] {
                    let w = adj[j as usize];
                    // The first of v's heads in lo..end that is not below w.
                    let mut hi = end;
                    for step in 0..32 {
                        if lo >= hi {
                            break;
                        }
                        let mid = lo + (hi - lo) / 2;
                        if adj[mid] < w {
                            lo = mid + 1;
                        } else {
                            hi = mid;
                        }
                    }
                    if lo == end {
                        break;
                    }
                    if adj[lo] == w {
                        found += 1;
                    }
                }
            }
            counts[v] = found;
        }
    }
}

/// The sum of the counts: one block per run of vertices.
pub mod total {
    use super::*;
    /// `total[0] +=` the counts, one atomic per run of vertices (`chunks`).
    #[for_schedules(block)]
    pub fn triangles_total(chunks: Offsets, counts: &[u64], total: &mut [u64]) {
        for c in chunks.tiles() {
            let mut sum = 0u64;
            for v in chunks.atoms(c) {
                sum += counts[v];
            }
            atomic_add(&mut total[0], sum);
        }
    }
}

/// Vertices per run of the sum.
pub const CHUNK: usize = 2048;

/// A graph ready for triangle counting: its oriented form on the device and the buffers.
pub struct Triangles {
    oriented: loops::graph::DeviceGraph,
    chunks: DeviceOffsets,
    counts: DeviceBuffer<u64>,
    total: DeviceBuffer<u64>,
}

impl Triangles {
    /// Orients `g` (its simple undirected view) on the host and uploads it.
    pub fn new(gpu: &Gpu, g: &Graph) -> loops::Result<Triangles> {
        let oriented = oriented_by_degree(g);
        let n = oriented.vertices();
        Ok(Triangles {
            oriented: gpu.upload_graph(&oriented)?,
            chunks: gpu.upload_offsets(&chunk_offsets(n, CHUNK))?,
            counts: gpu.zeros(n)?,
            total: gpu.zeros(1)?,
        })
    }

    /// The oriented graph's edges: the simple undirected view's edges, each once.
    pub fn edges(&self) -> usize {
        self.oriented.edges()
    }

    /// The per-vertex counts of the last run, by the oriented graph's vertex numbers.
    pub fn counts(&self) -> &DeviceBuffer<u64> {
        &self.counts
    }
}

/// The triangles of the graph, counted under `schedule`.
pub fn run(schedule: &str, gpu: &Gpu, tc: &mut Triangles) -> loops::Result<u64> {
    count::launch(
        schedule,
        gpu,
        tc.oriented.offsets(),
        tc.oriented.adj(),
        &mut tc.counts,
    )?;
    gpu.fill(&mut tc.total, 0)?;
    total::launch("block", gpu, &tc.chunks, &tc.counts, &mut tc.total)?;
    Ok(gpu.download(&tc.total)?[0])
}

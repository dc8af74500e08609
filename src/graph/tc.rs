//! Triangle counting ([`triangles`](fn@super::triangles)) by sorted adjacency intersections (the application LRB was made for). The
//! graph is first oriented on the host ([`oriented_by_degree`]): the simple undirected view, each
//! edge kept once from its end of lower degree to the other, vertices renumbered in that order, so
//! every edge `v -> u` has `u > v` and the heads are sorted. A triangle `v < u < w` is then found
//! once, at the edge `v -> u`, as a `w` in both `v`'s heads after `u` and `u`'s heads: for each of
//! `u`'s heads the kernel binary-searches `v`'s remaining heads, from where the last search ended.
//! Each vertex's count goes to `counts`, summed over runs of vertices on the device ([`total`]).

use loops_runtime::graph::{DeviceGraph, Graph};

use super::driver::{chunk_offsets, timed, GraphStats, Strategy};
use crate::prelude::*;

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
    oriented: DeviceGraph,
    chunks: DeviceOffsets,
    counts: DeviceBuffer<u64>,
    total: DeviceBuffer<u64>,
}

impl Triangles {
    /// Orients `g` (its simple undirected view) on the host and uploads it.
    pub fn new(gpu: &Gpu, g: &Graph) -> crate::Result<Triangles> {
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
pub fn run(schedule: &str, gpu: &Gpu, tc: &mut Triangles) -> crate::Result<u64> {
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

/// [`run`] under `schedule`, or under `auto` the fastest of
/// [`auto::TRIANGLE_SCHEDULES`](super::auto::TRIANGLE_SCHEDULES) for a graph of this shape:
/// measured on the first call on this very state (`loops::graph::auto`), kept for later calls;
/// the schedule that ran and the count. Where nothing is measured (`LOOPS_TUNE=off`), `auto`,
/// which picks a schedule per launch.
pub fn run_auto<'s>(
    schedule: &'s str,
    gpu: &Gpu,
    tc: &mut Triangles,
) -> crate::Result<(&'s str, u64)> {
    let candidates = super::auto::picks(super::auto::Algorithm::Triangles, schedule);
    let choice = super::auto::Choice {
        algorithm: "triangles",
        schedule,
        element: "u64",
        shape: crate::TileSet::stats(tc.oriented.offsets()),
        extra: Vec::new(),
    };
    let measured = super::auto::measured(gpu, &choice, &candidates, |pick| {
        run(pick.schedule, gpu, tc).map(|count| (pick.schedule, count))
    })?;
    match measured {
        Some(r) => Ok(r),
        None => run(schedule, gpu, tc).map(|count| (schedule, count)),
    }
}

/// What [`triangles`](fn@super::triangles) is asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrianglesOptions {
    /// The counting step's schedule, a name of `loops::SCHEDULES` (default `auto`: measured
    /// among [`auto::TRIANGLE_SCHEDULES`](super::auto::TRIANGLE_SCHEDULES), [`run_auto`]).
    pub schedule: String,
}

impl Default for TrianglesOptions {
    fn default() -> TrianglesOptions {
        TrianglesOptions {
            schedule: "auto".to_string(),
        }
    }
}

/// What [`triangles`](fn@super::triangles) found.
pub struct TrianglesResult {
    /// The triangles of the graph's simple undirected view.
    pub count: u64,
    /// What the run did (one iteration; the orientation on the host and the upload are not
    /// timed).
    pub stats: GraphStats,
}

/// The triangles of the simple undirected view of `graph` (no self-loops, each edge once),
/// counted on the GPU under `options.schedule` ([`run_auto`]) after orienting the graph by degree on the host
/// ([`oriented_by_degree`]). The CPU reference is `loops::graph::reference::triangles`.
///
/// ```no_run
/// use loops::graph::{triangles, Graph, TrianglesOptions};
/// # fn main() -> loops::Result<()> {
/// let gpu = loops::Gpu::new(0)?;
/// let g = Graph::from_edges(4, &[(0, 1, 1), (1, 2, 1), (2, 0, 1), (2, 3, 1)])?;
/// assert_eq!(triangles(&gpu, &g, &TrianglesOptions::default())?.count, 1);
/// # Ok(())
/// # }
/// ```
pub fn triangles(
    gpu: &Gpu,
    graph: &Graph,
    options: &TrianglesOptions,
) -> crate::Result<TrianglesResult> {
    let mut tc = Triangles::new(gpu, graph)?;
    let schedule = options.schedule.as_str();
    let ((ran, count), time) = timed(gpu, || run_auto(schedule, gpu, &mut tc))?;
    let mut stats = GraphStats::new("triangles", ran, Strategy::Host);
    stats.iterations = 1;
    stats.time = time;
    Ok(TrianglesResult { count, stats })
}

/// The simple undirected view of `g` (no self-loops, no repeated edges) with each edge kept once,
/// from the endpoint of lower degree to the one of higher degree (ties: lower id first), and the
/// vertices renumbered in that order, so each edge goes from a lower to a higher id and a vertex
/// has at most about `sqrt(2 * edges)` out-edges; heads sorted. Triangle counting on it counts
/// each triangle once, at its lowest vertex.
pub fn oriented_by_degree(g: &Graph) -> Graph {
    let n = g.vertices();
    let simple = g.symmetric();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&v| (simple.degree(v), v));
    let mut rank = vec![0u32; n];
    for (r, &v) in order.iter().enumerate() {
        rank[v] = r as u32;
    }
    let mut edges: Vec<(u32, u32, u32)> = (0..n)
        .flat_map(|v| simple.out_edges(v).map(move |(u, _)| (v, u)))
        .filter(|&(v, u)| rank[v] < rank[u])
        .map(|(v, u)| (rank[v], rank[u], 1))
        .collect();
    // By tail, then head: `from_edges` keeps each vertex's edges in this order.
    edges.sort_unstable();
    Graph::from_edges(n, &edges).expect("ranks are vertices")
}

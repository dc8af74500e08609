//! Gunrock's published times, beside this run's rows where the graph is of the class they were
//! measured on.

/// A published Gunrock number (examples/bench/README.md cites each).
#[derive(Clone, Copy)]
pub struct Gunrock {
    pub ms: f64,
    pub what: &'static str,
}

/// Gunrock 1.x's published times where this run's graph is of the class they were measured on
/// (issue 26's anchors): Kronecker scale 21 and soc-orkut, on a V100.
pub fn gunrock_published(graph: &str, algorithm: &str) -> Option<Gunrock> {
    let kronecker = graph.starts_with("rmat_") || graph.contains("kron");
    let orkut = graph.contains("orkut");
    let (ms, what) = match (algorithm, kronecker, orkut) {
        ("bfs-do", true, _) => (1.06, "Gunrock 1.x DO-BFS, V100, Kronecker scale 21"),
        ("bfs-push", true, _) => (23.7, "Gunrock 1.x push BFS, V100, Kronecker scale 21"),
        ("bfs-do", _, true) => (5.7, "Gunrock 1.x DO-BFS, V100, soc-orkut"),
        ("bfs-push", _, true) => (29.9, "Gunrock 1.x push BFS, V100, soc-orkut"),
        _ => return None,
    };
    Some(Gunrock { ms, what })
}

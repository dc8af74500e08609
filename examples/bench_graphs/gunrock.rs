//! Gunrock's published numbers, beside this run's rows where the graph is of the class they were
//! measured on (Kronecker/R-MAT, power-law social graphs, road networks), the published graph
//! nearest in size chosen and named with its size.
//!
//! Every value is copied verbatim from the published result tables of the Gunrock project (the
//! "Fastest Gunrock 1.0+ runs" plots of the `gunrock/io` results, and the TOPC 2017 "Comparison on
//! Different GPUs" table of Gunrock 0.4); examples/bench/README.md lists them with their sources.
//! The grid and the arrow have no published counterpart; nor, among the rows taken, do SSSP and
//! forward-only BFS on a power-law graph or triangle counting on a Kronecker or power-law graph.

/// The unit of a published number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Milliseconds for the whole traversal or count.
    Ms,
    /// Milliseconds per PageRank iteration (the plot's axis: "Per_iteration runtime (ms)").
    MsPerIteration,
    /// Millions of edges per second, as Gunrock counts its edges.
    Mteps,
}

impl Unit {
    pub fn name(self) -> &'static str {
        match self {
            Unit::Ms => "ms",
            Unit::MsPerIteration => "ms per iteration",
            Unit::Mteps => "MTEPS",
        }
    }
}

/// The graph classes the published numbers cover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// Graph500 Kronecker and R-MAT graphs.
    Kronecker,
    /// Power-law social graphs.
    PowerLaw,
    Road,
}

/// Gunrock's primitives, as its result tables name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Primitive {
    /// "Direction-Optimized BFS".
    DoBfs,
    /// "Forward-Only BFS".
    PushBfs,
    Sssp,
    PageRank,
    Components,
    Triangles,
}

impl Primitive {
    fn name(self) -> &'static str {
        match self {
            Primitive::DoBfs => "direction-optimized BFS",
            Primitive::PushBfs => "forward-only BFS",
            Primitive::Sssp => "SSSP",
            Primitive::PageRank => "PageRank",
            Primitive::Components => "CC",
            Primitive::Triangles => "triangle counting",
        }
    }

    /// The primitive a row of this benchmark is compared with.
    fn of_row(algorithm: &str) -> Option<Primitive> {
        Some(match algorithm {
            "bfs-do" => Primitive::DoBfs,
            "bfs" | "bfs-push" => Primitive::PushBfs,
            "sssp" | "sssp-delta" => Primitive::Sssp,
            "pagerank" => Primitive::PageRank,
            "cc" => Primitive::Components,
            "tc" => Primitive::Triangles,
            _ => return None,
        })
    }
}

/// A published Gunrock number (examples/bench/README.md cites each).
#[derive(Clone, Copy, Debug)]
pub struct Gunrock {
    pub value: f64,
    pub unit: Unit,
    primitive: Primitive,
    /// Gunrock's version as the table gives it.
    pub version: &'static str,
    /// The dataset's name in the table.
    dataset: &'static str,
    /// The dataset and its size, as the table gives them.
    pub graph: &'static str,
    class: Class,
    vertices: f64,
    /// The GPU's full name in the table.
    pub gpu: &'static str,
    pub source: &'static str,
}

impl Gunrock {
    /// What was measured, on what, where: for the table and the CSV.
    pub fn describe(&self) -> String {
        format!(
            "Gunrock {} {} on {}, {} ({})",
            self.version,
            self.primitive.name(),
            self.graph,
            self.gpu,
            self.source
        )
    }

    /// Gunrock's primitive, by the name its tables give it.
    pub fn primitive_name(&self) -> &'static str {
        self.primitive.name()
    }

    /// The number with its unit.
    pub fn value_text(&self) -> String {
        match self.unit {
            Unit::Mteps => format!("{:.0} {}", self.value, self.unit.name()),
            _ => format!("{:.3} {}", self.value, self.unit.name()),
        }
    }
}

const DOBFS_TABLE: &str = "https://gh.baival.xx.kg/jdwapman/io/blob/0a8d8c49126a853a3c7ca2099287a5640bf7ee14/plots/gunrock_primitives_dobfs_avg_process_time_best.json";
const BFS_TABLE: &str = "https://gh.baival.xx.kg/jdwapman/io/blob/0a8d8c49126a853a3c7ca2099287a5640bf7ee14/plots/gunrock_primitives_bfs_avg_process_time_best.json";
const SSSP_TABLE: &str = "https://gh.baival.xx.kg/jdwapman/io/blob/0a8d8c49126a853a3c7ca2099287a5640bf7ee14/plots/gunrock_primitives_sssp_avg_process_time_best.json";
const TC_TABLE: &str = "https://gh.baival.xx.kg/jdwapman/io/blob/0a8d8c49126a853a3c7ca2099287a5640bf7ee14/plots/gunrock_primitives_tc_avg_process_time_best.json";
const PR_TABLE: &str = "https://gh.baival.xx.kg/gunrock/io/blob/ed9a5c282b632559fd9f198f396fb043752ea3b2/plots/gunrock_primitives_pr_avg_process_time_best.json";
const TOPC_GPUS_TABLE: &str = "https://gh.baival.xx.kg/gunrock/gunrock/blob/550d01ca0dad35eb8de3c0c59f5c3aafabca86ca/doc/stats/gunrock_gpus_table_html.md";

const GV100: &str = "Quadro GV100";
const V100_DGXS: &str = "Tesla V100-DGXS-32GB";
const V100_PCIE: &str = "Tesla V100-PCIE-32GB";
const P100: &str = "Tesla P100-PCIE-16GB";

const KRON_20: &str = "kron_g500-logn20 (1,048,576 vertices, 89,238,804 edges)";
const KRON_21: &str = "kron_g500-logn21 (2,097,152 vertices, 182,081,864 edges)";
const RMAT_22_64: &str = "rmat_n22_e64 (4,194,304 vertices, 249,884,387 edges)";
const RMAT_23_32: &str = "rmat_n23_e32 (8,388,608 vertices)";
const RMAT_24_16: &str = "rmat_n24_e16 (16,777,216 vertices)";
const ORKUT: &str = "soc-orkut (2,997,166 vertices, 212,698,418 edges)";
const LIVEJOURNAL: &str = "soc-LiveJournal1 (4,847,571 vertices, 85,702,474 edges)";
const ROADNET_CA: &str = "roadNet-CA (1,971,281 vertices, 5,533,214 edges)";
const ROAD_USA: &str = "road_usa (23,947,347 vertices, 57,708,624 edges)";
const EUROPE_OSM: &str = "europe_osm (50,912,018 vertices, 108,109,320 edges)";

/// A published dataset: its name, its description with its size, its class, its vertices.
type Dataset = (&'static str, &'static str, Class, f64);

/// One published number; the table's digits as they stand.
const fn entry(
    primitive: Primitive,
    value: f64,
    unit: Unit,
    version: &'static str,
    (dataset, graph, class, vertices): Dataset,
    gpu: &'static str,
    source: &'static str,
) -> Gunrock {
    Gunrock {
        value,
        unit,
        primitive,
        version,
        dataset,
        graph,
        class,
        vertices,
        gpu,
        source,
    }
}

const D_KRON_20: Dataset = ("kron_g500-logn20", KRON_20, Class::Kronecker, 1_048_576.0);
const D_KRON_21: Dataset = ("kron_g500-logn21", KRON_21, Class::Kronecker, 2_097_152.0);
const D_RMAT_22_64: Dataset = ("rmat_n22_e64", RMAT_22_64, Class::Kronecker, 4_194_304.0);
const D_RMAT_23_32: Dataset = ("rmat_n23_e32", RMAT_23_32, Class::Kronecker, 8_388_608.0);
const D_RMAT_24_16: Dataset = ("rmat_n24_e16", RMAT_24_16, Class::Kronecker, 16_777_216.0);
const D_ORKUT: Dataset = ("soc-orkut", ORKUT, Class::PowerLaw, 2_997_166.0);
const D_LIVEJOURNAL: Dataset = (
    "soc-LiveJournal1",
    LIVEJOURNAL,
    Class::PowerLaw,
    4_847_571.0,
);
const D_ROADNET_CA: Dataset = ("roadNet-CA", ROADNET_CA, Class::Road, 1_971_281.0);
const D_ROAD_USA: Dataset = ("road_usa", ROAD_USA, Class::Road, 23_947_347.0);
const D_EUROPE_OSM: Dataset = ("europe_osm", EUROPE_OSM, Class::Road, 50_912_018.0);

use Primitive::{Components, DoBfs, PageRank, PushBfs, Sssp, Triangles};
use Unit::{Ms, MsPerIteration, Mteps};

/// The numbers, by primitive; within one, the first of two datasets equally near in size wins.
// One line per number reads better than rustfmt's eight.
#[rustfmt::skip]
static PUBLISHED: &[Gunrock] = &[
    // "Direction-Optimized BFS: Fastest Gunrock 1.0+ runs, combining all options (measured in ms)".
    entry(DoBfs, 0.6478548049926758, Ms, "1.0.0", D_KRON_20, GV100, DOBFS_TABLE),
    entry(DoBfs, 1.0348955790201824, Ms, "1.0.0", D_KRON_21, GV100, DOBFS_TABLE),
    entry(DoBfs, 1.3516743977864583, Ms, "1.0.0", D_RMAT_22_64, GV100, DOBFS_TABLE),
    entry(DoBfs, 3.9858102798461914, Ms, "1.0.0", D_ORKUT, GV100, DOBFS_TABLE),
    entry(DoBfs, 3.0209753248426647, Ms, "1.0.0", D_LIVEJOURNAL, GV100, DOBFS_TABLE),
    entry(DoBfs, 51.0866641998291, Ms, "1.0.0", D_ROADNET_CA, GV100, DOBFS_TABLE),
    entry(DoBfs, 515.0510787963867, Ms, "1.0.0", D_ROAD_USA, GV100, DOBFS_TABLE),
    entry(DoBfs, 1444.5459047953289, Ms, "1.0.0", D_EUROPE_OSM, GV100, DOBFS_TABLE),
    // "Forward-Only BFS: Fastest Gunrock 1.0+ runs, combining all options (measured in ms)".
    entry(PushBfs, 6.030480066935222, Ms, "1.0.0", D_KRON_20, GV100, BFS_TABLE),
    entry(PushBfs, 23.10795783996582, Ms, "1.0.0", D_KRON_21, GV100, BFS_TABLE),
    entry(PushBfs, 20.980310440063477, Ms, "1.0.0", D_RMAT_22_64, GV100, BFS_TABLE),
    entry(PushBfs, 50.95500946044922, Ms, "1.0.0", D_ROADNET_CA, GV100, BFS_TABLE),
    entry(PushBfs, 512.6492977142334, Ms, "1.0.0", D_ROAD_USA, GV100, BFS_TABLE),
    entry(PushBfs, 1442.095094256931, Ms, "1.0.0", D_EUROPE_OSM, GV100, BFS_TABLE),
    // "SSSP: Fastest Gunrock 1.0+ runs, combining all options (measured in ms)".
    entry(Sssp, 8.074151145087349, Ms, "1.0.0", D_KRON_20, GV100, SSSP_TABLE),
    entry(Sssp, 47.56206936306424, Ms, "1.0.0", D_ROADNET_CA, GV100, SSSP_TABLE),
    entry(Sssp, 485.52176687452527, Ms, "1.0.0", D_ROAD_USA, GV100, SSSP_TABLE),
    // "PageRank: Fastest Gunrock 1.0+ runs, combining all options (measured in ms)", axis
    // "Per_iteration runtime (ms)".
    entry(PageRank, 5.777200063069661, MsPerIteration, "1.2.0", D_KRON_20, V100_DGXS, PR_TABLE),
    entry(PageRank, 12.027254811039677, MsPerIteration, "1.2.0", D_KRON_21, V100_DGXS, PR_TABLE),
    entry(PageRank, 18.96436126143844, MsPerIteration, "1.2.0", D_RMAT_23_32, V100_DGXS, PR_TABLE),
    entry(PageRank, 21.423922644721134, MsPerIteration, "1.2.0", D_RMAT_24_16, V100_DGXS, PR_TABLE),
    entry(PageRank, 7.3159535725911455, MsPerIteration, "1.2.0", D_ORKUT, V100_DGXS, PR_TABLE),
    entry(PageRank, 5.33143679300944, MsPerIteration, "1.2.0", D_LIVEJOURNAL, V100_DGXS, PR_TABLE),
    entry(PageRank, 0.7762379116482205, MsPerIteration, "1.2.0", D_ROADNET_CA, V100_DGXS, PR_TABLE),
    entry(PageRank, 4.415434378164786, MsPerIteration, "1.2.0", D_ROAD_USA, V100_DGXS, PR_TABLE),
    entry(PageRank, 8.25633826079192, MsPerIteration, "1.2.0", D_EUROPE_OSM, V100_DGXS, PR_TABLE),
    // TOPC 2017, "Comparison on Different GPUs" (its plot's axis: MTEPS).
    entry(Components, 4152.362793, Mteps, "0.4.0", D_RMAT_22_64, P100, TOPC_GPUS_TABLE),
    entry(Components, 3266.633301, Mteps, "0.4.0", D_RMAT_23_32, P100, TOPC_GPUS_TABLE),
    entry(Components, 2570.968262, Mteps, "0.4.0", D_RMAT_24_16, P100, TOPC_GPUS_TABLE),
    entry(Components, 3875.772461, Mteps, "0.4.0", D_ORKUT, P100, TOPC_GPUS_TABLE),
    entry(Components, 2709.746338, Mteps, "0.4.0", D_LIVEJOURNAL, P100, TOPC_GPUS_TABLE),
    entry(Components, 778.845032, Mteps, "0.4.0", D_ROAD_USA, P100, TOPC_GPUS_TABLE),
    // "Triangle Counting: Fastest Gunrock 1.0+ runs, combining all options (measured in ms)".
    entry(Triangles, 0.24432606167263454, Ms, "1.1.0", D_ROADNET_CA, V100_PCIE, TC_TABLE),
    entry(Triangles, 3.938627243041992, Ms, "1.1.0", D_ROAD_USA, V100_PCIE, TC_TABLE),
    entry(Triangles, 5.192465252346462, Ms, "1.1.0", D_EUROPE_OSM, V100_PCIE, TC_TABLE),
];

/// The class and vertices of one of this benchmark's generated graphs, from its name
/// (`cases.rs`: `rmat_<scale>`, `kron_<scale>`, `powerlaw_<n>`, `road_<n>`).
fn generated_class(graph: &str) -> Option<(Class, f64)> {
    let number = |prefix: &str| graph.strip_prefix(prefix)?.parse::<u64>().ok();
    if let Some(scale) = number("rmat_").or_else(|| number("kron_")) {
        return Some((Class::Kronecker, 2f64.powi(scale.min(62) as i32)));
    }
    if let Some(n) = number("powerlaw_") {
        return Some((Class::PowerLaw, n as f64));
    }
    number("road_").map(|n| (Class::Road, n as f64))
}

/// Gunrock's published number for `algorithm` (a row's `algorithm`) on the published graph of
/// `graph`'s class nearest it in size, or on that very graph where a `--matrix` file is named
/// after one of the published datasets (`soc-orkut.mtx`).
pub fn gunrock_published(graph: &str, algorithm: &str) -> Option<Gunrock> {
    let primitive = Primitive::of_row(algorithm)?;
    let candidates = PUBLISHED.iter().filter(|g| g.primitive == primitive);
    if let Some(same) = candidates.clone().find(|g| graph.contains(g.dataset)) {
        return Some(*same);
    }
    let (class, vertices) = generated_class(graph)?;
    let distance = |g: &Gunrock| (g.vertices / vertices).ln().abs();
    candidates
        .filter(|g| g.class == class)
        .fold(None::<&Gunrock>, |best, g| match best {
            Some(b) if distance(b) <= distance(g) => Some(b),
            _ => Some(g),
        })
        .copied()
}

// The file stands alone: `rustc --edition 2021 --test examples/bench_graphs/gunrock.rs` runs these.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_published_graph_of_the_class() {
        let on =
            |graph: &str, algorithm: &str| gunrock_published(graph, algorithm).map(|g| g.dataset);
        assert_eq!(on("kron_20", "bfs-do"), Some("kron_g500-logn20"));
        assert_eq!(on("rmat_21", "bfs-push"), Some("kron_g500-logn21"));
        assert_eq!(on("rmat_22", "bfs-do"), Some("rmat_n22_e64"));
        assert_eq!(on("rmat_22", "sssp"), Some("kron_g500-logn20"));
        assert_eq!(on("powerlaw_2097152", "pagerank"), Some("soc-orkut"));
        assert_eq!(on("road_1000000", "sssp-delta"), Some("roadNet-CA"));
        assert_eq!(on("road_1000000", "cc"), Some("road_usa"));
        assert_eq!(
            on("soc-LiveJournal1.mtx", "bfs-do"),
            Some("soc-LiveJournal1")
        );
        assert_eq!(on("road_usa.mtx", "tc"), Some("road_usa"));
        assert_eq!(on("grid_2048x2048", "bfs"), None);
        assert_eq!(on("arrow_1000000", "bfs"), None);
        assert_eq!(on("powerlaw_2097152", "sssp"), None);
    }
}

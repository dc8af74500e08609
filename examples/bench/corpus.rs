//! The matrices a run measures: the generated default set (seeded, `loops::io::generate`), or every
//! Matrix Market file of a folder.

use std::fmt;
use std::path::{Path, PathBuf};

use loops::io::generate::WorldSpec;
use loops::Float;

use super::world::WorldTag;

/// One matrix of a set, not yet built or read.
#[derive(Clone, Debug, PartialEq)]
pub enum Spec {
    /// `generate::banded(rows, bandwidth, seed)`.
    Banded { rows: usize, bandwidth: usize },
    /// `generate::power_law(rows, rows, mean, exponent, contiguous, seed)`.
    PowerLaw {
        rows: usize,
        mean: f64,
        exponent: f64,
        contiguous: bool,
    },
    /// `generate::uniform(rows, cols, per_row, seed)`.
    Uniform {
        rows: usize,
        cols: usize,
        per_row: usize,
    },
    /// `generate::rmat(scale, edge_factor, seed)`.
    Rmat { scale: u32, edge_factor: usize },
    /// `generate::kronecker(scale, edge_factor, seed)` (Graph500's parameters, symmetric).
    Kronecker { scale: u32, edge_factor: usize },
    /// `generate::snap_power_law(rows, seed)`: the SNAP-like class of the world set, scaled up.
    Snap { rows: usize },
    /// `generate::grid2d(width, height, seed)`.
    Grid { width: usize, height: usize },
    /// `generate::arrow(n, seed)`.
    Arrow { n: usize },
    /// A matrix of the world set (`generate::world_set`): its own class, size and seed.
    World(WorldSpec),
    /// A Matrix Market file (`.mtx` or `.mtx.gz`).
    File(PathBuf),
}

/// A named matrix of a set.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub name: String,
    pub spec: Spec,
}

impl Entry {
    fn generated(name: &str, spec: Spec) -> Entry {
        Entry {
            name: name.to_string(),
            spec,
        }
    }

    /// The class and half of a matrix of the world set.
    pub fn world_tag(&self) -> Option<WorldTag> {
        match &self.spec {
            Spec::World(w) => Some(WorldTag {
                class: w.class.to_string(),
                held_out: w.held_out,
            }),
            _ => None,
        }
    }

    /// Builds (seeded; a world matrix with its own seed) or reads the matrix.
    pub fn load<T: Float>(&self, seed: u64) -> Result<sprs::CsMat<T>, loops::LoopsError> {
        use loops::io::generate as g;
        Ok(match self.spec {
            Spec::Banded { rows, bandwidth } => g::banded(rows, bandwidth, seed),
            Spec::PowerLaw {
                rows,
                mean,
                exponent,
                contiguous,
            } => g::power_law(rows, rows, mean, exponent, contiguous, seed),
            Spec::Uniform {
                rows,
                cols,
                per_row,
            } => g::uniform(rows, cols, per_row, seed),
            Spec::Rmat { scale, edge_factor } => g::rmat(scale, edge_factor, seed),
            Spec::Kronecker { scale, edge_factor } => g::kronecker(scale, edge_factor, seed),
            Spec::Snap { rows } => g::snap_power_law(rows, seed),
            Spec::Grid { width, height } => g::grid2d(width, height, seed),
            Spec::Arrow { n } => g::arrow(n, seed),
            Spec::World(ref w) => w.matrix(),
            Spec::File(ref path) => loops::io::mtx::read_csr(path)?,
        })
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Spec::Banded { rows, bandwidth } => write!(f, "banded({rows}, {bandwidth})"),
            Spec::PowerLaw {
                rows,
                mean,
                exponent,
                contiguous,
            } => write!(
                f,
                "power_law({rows}, {rows}, {mean}, {exponent}, contiguous_columns: {contiguous})"
            ),
            Spec::Uniform {
                rows,
                cols,
                per_row,
            } => write!(f, "uniform({rows}, {cols}, {per_row})"),
            Spec::Rmat { scale, edge_factor } => write!(f, "rmat({scale}, {edge_factor})"),
            Spec::Kronecker { scale, edge_factor } => {
                write!(f, "kronecker({scale}, {edge_factor})")
            }
            Spec::Snap { rows } => write!(f, "snap_power_law({rows})"),
            Spec::Grid { width, height } => write!(f, "grid2d({width}, {height})"),
            Spec::Arrow { n } => write!(f, "arrow({n})"),
            Spec::World(w) => write!(f, "{}({}, seed {})", w.class, w.rows, w.seed),
            Spec::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// The generated default set, smallest first: the shapes of the design's measured anchors (banded
/// 8.4M rows x 16, power-law rows with contiguous columns, random columns, a 20K-row matrix), the
/// spmv example's power-law matrix, an R-MAT graph, a 2-D grid and an arrow matrix. About 290M
/// nonzeros in all; each is built when its turn comes and dropped after.
pub fn default_set() -> Vec<Entry> {
    vec![
        Entry::generated(
            "uniform_20K_8",
            Spec::Uniform {
                rows: 20_000,
                cols: 20_000,
                per_row: 8,
            },
        ),
        Entry::generated("arrow_1M", Spec::Arrow { n: 1_000_000 }),
        Entry::generated(
            "grid2d_2048",
            Spec::Grid {
                width: 2048,
                height: 2048,
            },
        ),
        Entry::generated(
            "uniform_2M_16",
            Spec::Uniform {
                rows: 1 << 21,
                cols: 1 << 21,
                per_row: 16,
            },
        ),
        Entry::generated(
            "powerlaw_random_2M",
            Spec::PowerLaw {
                rows: 1 << 21,
                mean: 16.0,
                exponent: 2.0,
                contiguous: false,
            },
        ),
        Entry::generated(
            "rmat_21",
            Spec::Rmat {
                scale: 21,
                edge_factor: 16,
            },
        ),
        Entry::generated(
            "powerlaw_contig_4M",
            Spec::PowerLaw {
                rows: 1 << 22,
                mean: 16.0,
                exponent: 2.0,
                contiguous: true,
            },
        ),
        Entry::generated(
            "banded_8.4M_16",
            Spec::Banded {
                rows: 8_400_000,
                bandwidth: 16,
            },
        ),
    ]
}

/// Large power-law graphs (issue 42), smallest first: the SNAP-like class at 4M rows, R-MAT 22,
/// power-law rows with random columns at 4M, Kronecker 21 and 22 (Graph500), each >= 1e7
/// nonzeros, and two controls where locality is already good (banded, a 2-D grid).
pub fn powerlaw_set() -> Vec<Entry> {
    vec![
        Entry::generated("snap_4M", Spec::Snap { rows: 1 << 22 }),
        Entry::generated(
            "powerlaw_random_4M",
            Spec::PowerLaw {
                rows: 1 << 22,
                mean: 16.0,
                exponent: 2.0,
                contiguous: false,
            },
        ),
        Entry::generated(
            "rmat_22",
            Spec::Rmat {
                scale: 22,
                edge_factor: 16,
            },
        ),
        Entry::generated(
            "kron_21",
            Spec::Kronecker {
                scale: 21,
                edge_factor: 16,
            },
        ),
        Entry::generated(
            "kron_22",
            Spec::Kronecker {
                scale: 22,
                edge_factor: 16,
            },
        ),
        Entry::generated(
            "grid2d_2048",
            Spec::Grid {
                width: 2048,
                height: 2048,
            },
        ),
        Entry::generated(
            "banded_8.4M_16",
            Spec::Banded {
                rows: 8_400_000,
                bandwidth: 16,
            },
        ),
    ]
}

/// The world set (`generate::world_set`) with seeds `0..seeds`: smallest first; each matrix built
/// with its own seed, whatever `--seed` says.
pub fn world_set(seeds: u64) -> Vec<Entry> {
    loops::io::generate::world_set(seeds)
        .into_iter()
        .map(|w| Entry {
            name: w.name.clone(),
            spec: Spec::World(w),
        })
        .collect()
}

/// Every `.mtx` and `.mtx.gz` file directly in `dir`, by name.
pub fn from_dir(dir: &Path) -> std::io::Result<Vec<Entry>> {
    let mut entries = Vec::new();
    for item in std::fs::read_dir(dir)? {
        let path = item?.path();
        if !path.is_file() {
            continue;
        }
        let Some(file) = path.file_name().and_then(|f| f.to_str()) else {
            continue;
        };
        if let Some(stem) = file
            .strip_suffix(".mtx")
            .or_else(|| file.strip_suffix(".mtx.gz"))
        {
            entries.push(Entry {
                name: stem.to_string(),
                spec: Spec::File(path.clone()),
            });
        }
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(entries)
}

/// A short name for the set, used in the output file names: `generated`, or the folder's name.
pub fn set_name(dir: Option<&Path>) -> String {
    match dir {
        None => "generated".to_string(),
        Some(d) => {
            let name = d
                .canonicalize()
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| "corpus".to_string());
            let clean: String = name
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            if clean.is_empty() {
                "corpus".to_string()
            } else {
                clean
            }
        }
    }
}

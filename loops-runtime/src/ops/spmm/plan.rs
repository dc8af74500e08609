//! The SpMM plan: vector width, lanes over `k` and over nonzeros, the mapping of long rows
//! ([`spmm_plan`]), and the neighbours the first call measures ([`spmm_candidates`]).

/// How the groups of lanes are laid over the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpmmMapping {
    /// Chosen by [`spmm_plan`] from the row lengths.
    Auto,
    /// One group per row.
    Rows,
    /// One group per row for its first `piece` nonzeros, then one group per `piece` nonzeros of
    /// what is left of the long rows (atomics).
    Split,
}

/// What one SpMM launch runs: see the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpmmPlan {
    /// [`SpmmMapping::Rows`] or [`SpmmMapping::Split`].
    pub mapping: SpmmMapping,
    /// Elements per load (1, 2 or 4).
    pub vector: u32,
    /// Vectors per lane and k tile (1, 2 or 4).
    pub tile_vectors: u32,
    /// log2 of the lanes over k.
    pub log_lanes_k: u32,
    /// log2 of the lanes over nonzeros.
    pub log_lanes_nz: u32,
    /// Under `Split`, the nonzeros of a row the first kernel does and of each piece of the second
    /// (0 under `Rows`).
    pub piece: u32,
}

impl SpmmPlan {
    /// Lanes per group.
    pub fn group(&self) -> u32 {
        1 << (self.log_lanes_k + self.log_lanes_nz)
    }

    /// The entry point of `spmm.cuh` this plan launches first, for element type `precision`
    /// ("f32" or "f64").
    pub fn entry(&self, precision: &str) -> String {
        format!(
            "loops_spmm_rows_{precision}_v{}_t{}",
            self.vector, self.tile_vectors
        )
    }

    /// The plan as text: `mapping:vVECTOR:kLANES_K:nLANES_NZ:tTILE_VECTORS`, and `:pPIECE` under
    /// `Split` (`rows:v4:k8:n4:t1`, `split:v4:k8:n4:t1:p2016`). `SpmmPlan::from_label` reads it
    /// back (the tuning cache stores winners so).
    pub fn label(&self) -> String {
        let mapping = match self.mapping {
            SpmmMapping::Auto => "auto",
            SpmmMapping::Rows => "rows",
            SpmmMapping::Split => "split",
        };
        let mut label = format!(
            "{mapping}:v{}:k{}:n{}:t{}",
            self.vector,
            1u64 << self.log_lanes_k,
            1u64 << self.log_lanes_nz,
            self.tile_vectors
        );
        if self.mapping == SpmmMapping::Split {
            label.push_str(&format!(":p{}", self.piece));
        }
        label
    }

    /// The plan [`SpmmPlan::label`] wrote, or `None` for any other text (lane counts must be
    /// powers of two; nothing else is checked: see [`check_plan`]).
    pub(crate) fn from_label(label: &str) -> Option<SpmmPlan> {
        let mut parts = label.split(':');
        let mapping = match parts.next()? {
            "rows" => SpmmMapping::Rows,
            "split" => SpmmMapping::Split,
            _ => return None,
        };
        let mut number = |prefix: char| -> Option<u32> {
            let part = parts.next()?.strip_prefix(prefix)?;
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            part.parse().ok()
        };
        let vector = number('v')?;
        let lanes_k = number('k')?;
        let lanes_nz = number('n')?;
        let tile_vectors = number('t')?;
        let piece = match mapping {
            SpmmMapping::Split => number('p')?,
            _ => 0,
        };
        if parts.next().is_some() || !lanes_k.is_power_of_two() || !lanes_nz.is_power_of_two() {
            return None;
        }
        Some(SpmmPlan {
            mapping,
            vector,
            tile_vectors,
            log_lanes_k: lanes_k.trailing_zeros(),
            log_lanes_nz: lanes_nz.trailing_zeros(),
            piece,
        })
    }

    /// The entry point that finishes the long rows under `Split` (None under `Rows`).
    pub fn tails_entry(&self, precision: &str) -> Option<String> {
        (self.mapping == SpmmMapping::Split).then(|| {
            format!(
                "loops_spmm_tails_{precision}_v{}_t{}",
                self.vector, self.tile_vectors
            )
        })
    }
}

/// What [`spmm_plan`] looks at: the matrix's shape, `k`, the element size and the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpmmShape {
    /// Rows of `A`.
    pub rows: usize,
    /// Stored entries of `A`.
    pub nnz: usize,
    /// Nonzeros of the longest row.
    pub max_row: usize,
    /// Columns of `B` and `C`.
    pub k: usize,
    /// 4 (f32) or 8 (f64).
    pub element_bytes: usize,
    /// The device's multiprocessors.
    pub sm_count: u32,
    /// Threads each multiprocessor holds at once.
    pub max_threads_per_sm: u32,
}

/// Elements per load for rows of `k` elements of `element_bytes` each: 16 bytes where `k` allows,
/// then 8, then one element.
pub(crate) fn vector_width(k: usize, element_bytes: usize) -> u32 {
    let mut v = (16 / element_bytes.max(1)).max(1);
    while v > 1 && !k.is_multiple_of(v) {
        v /= 2;
    }
    v as u32
}

/// The largest power of two at most `n` (1 for 0).
fn floor_pow2(n: usize) -> usize {
    if n <= 1 {
        1
    } else {
        1 << (usize::BITS - 1 - n.leading_zeros())
    }
}

/// The launch plan for `shape` under `mapping` ([`SpmmMapping::Auto`] chooses): see the module
/// documentation.
pub fn spmm_plan(shape: SpmmShape, mapping: SpmmMapping) -> SpmmPlan {
    let vector = vector_width(shape.k, shape.element_bytes);
    let kv = (shape.k / vector as usize).max(1);
    let lanes_k = kv.next_power_of_two().min(32);
    let tiles = kv.div_ceil(lanes_k);
    let tile_vectors = if tiles >= 4 {
        4
    } else {
        tiles.next_power_of_two() as u32
    };
    let mean = shape.nnz / shape.rows.max(1);
    let lanes_nz = floor_pow2(mean / 2).clamp(1, 32 / lanes_k);
    let group = lanes_k * lanes_nz;
    let threads = (shape.sm_count.max(1) as usize) * (shape.max_threads_per_sm.max(32) as usize);
    let groups_at_once = (threads / group).max(1);
    let balanced = shape.nnz / groups_at_once;
    // A balanced share of the nonzeros per group, neither so short that the tails' binary
    // searches dominate nor so long that a few groups finish last.
    let split_piece = balanced.clamp(32, 4096).next_multiple_of(32);
    let mapping = match mapping {
        SpmmMapping::Auto => {
            let long = shape.max_row > 16 * mean.max(1) && shape.max_row > 4 * split_piece;
            if long {
                SpmmMapping::Split
            } else {
                SpmmMapping::Rows
            }
        }
        chosen => chosen,
    };
    let piece = match mapping {
        SpmmMapping::Split => split_piece as u32,
        _ => 0,
    };
    SpmmPlan {
        mapping,
        vector,
        tile_vectors,
        log_lanes_k: lanes_k.trailing_zeros(),
        log_lanes_nz: lanes_nz.trailing_zeros(),
        piece,
    }
}

/// The most plans the first call's first round times.
pub(crate) const MAX_LANE_CANDIDATES: usize = 6;

/// The second round of the first call's measurement: how the lanes of a group are laid, with the
/// mapping and piece of the first round's winner `base` (whose lanes are the model's). `base`
/// first, then, where they apply and differ from it, at most [`MAX_LANE_CANDIDATES`] in all, in
/// this order:
/// - half the lanes over k with twice the vectors each, the lanes freed going to the nonzeros
///   (same group), then the same in a group of half the lanes (more groups per warp);
/// - a quarter of the lanes over k with four times the vectors, same group (`k` of 16 vectors or
///   more);
/// - twice the lanes over nonzeros; four times, when even that leaves the device less than full
///   (small matrices, where latency rules);
/// - half, then a quarter of, the lanes over nonzeros (rows mostly shorter than the mean).
pub(crate) fn lane_candidates(shape: SpmmShape, base: SpmmPlan) -> Vec<SpmmPlan> {
    let model = base;
    let mut out = vec![model];
    let mut add = |plan: SpmmPlan| {
        if !out.contains(&plan) && out.len() < MAX_LANE_CANDIDATES {
            out.push(plan);
        }
    };
    let kv = shape.k / model.vector as usize;
    if model.log_lanes_k > 0 && model.tile_vectors < 4 {
        let fewer_k = SpmmPlan {
            log_lanes_k: model.log_lanes_k - 1,
            tile_vectors: model.tile_vectors * 2,
            ..model
        };
        add(SpmmPlan {
            log_lanes_nz: model.log_lanes_nz + 1,
            ..fewer_k
        });
        add(fewer_k);
    }
    if kv >= 16 && model.log_lanes_k > 1 && model.tile_vectors == 1 {
        add(SpmmPlan {
            log_lanes_k: model.log_lanes_k - 2,
            log_lanes_nz: model.log_lanes_nz + 2,
            tile_vectors: 4,
            ..model
        });
    }
    let lanes = model.log_lanes_k + model.log_lanes_nz;
    if lanes < 5 {
        add(SpmmPlan {
            log_lanes_nz: model.log_lanes_nz + 1,
            ..model
        });
    }
    if lanes < 4 && shape.rows.saturating_mul(4 << lanes) <= device_threads(shape) {
        add(SpmmPlan {
            log_lanes_nz: model.log_lanes_nz + 2,
            ..model
        });
    }
    for fewer in 1..=2 {
        if model.log_lanes_nz >= fewer {
            add(SpmmPlan {
                log_lanes_nz: model.log_lanes_nz - fewer,
                ..model
            });
        }
    }
    out
}

/// Threads the device holds at once.
fn device_threads(shape: SpmmShape) -> usize {
    shape.sm_count.max(1) as usize * shape.max_threads_per_sm.max(32) as usize
}

/// The first round of the first call's measurement: how long rows are shared, with the lanes of
/// `lanes` (the model's plan, which comes first). Under the model's `Split`, a quarter and
/// a sixteenth of its piece (the model's piece balances the work; smaller pieces trade atomics for
/// shorter chains); under `Rows`, `Split` with pieces of 8 and 2 mean rows where the longest row
/// is over 8 mean rows (and 64 nonzeros), or pieces of half a mean row where rows of 24 nonzeros
/// or more leave the device less than half full (latency: a row's chain of nonzeros cut in two).
/// Just `lanes` where none applies: then there is no first round. (Rows first, lanes second: the
/// other order measured worse on R-MAT and power-law rows, where the lanes the model's long pieces
/// want are not those that smaller pieces want.)
pub(crate) fn sharing_candidates(shape: SpmmShape, lanes: SpmmPlan) -> Vec<SpmmPlan> {
    let model = spmm_plan(shape, SpmmMapping::Auto);
    let mean = (shape.nnz / shape.rows.max(1)).max(1);
    let split = |piece: usize| SpmmPlan {
        mapping: SpmmMapping::Split,
        piece: piece.clamp(32, 4096).next_multiple_of(32) as u32,
        ..lanes
    };
    let mut out = vec![lanes];
    let mut add = |plan: SpmmPlan| {
        if !out.contains(&plan) {
            out.push(plan);
        }
    };
    match model.mapping {
        SpmmMapping::Split => {
            add(split(model.piece as usize / 4));
            add(split(model.piece as usize / 16));
        }
        _ if shape.max_row > 8 * mean && shape.max_row >= 64 => {
            add(split((8 * mean).max(64)));
            add(split(2 * mean));
        }
        _ if mean >= 24
            && shape.rows.saturating_mul(2 * lanes.group() as usize) <= device_threads(shape) =>
        {
            add(split(mean / 2));
        }
        _ => {}
    }
    out
}

/// Every plan the first call may pick for `shape`: the model's first, then the first round's
/// candidates, then every second-round candidate of each (`sharing_candidates`,
/// `lane_candidates`).
pub fn spmm_candidates(shape: SpmmShape) -> Vec<SpmmPlan> {
    let mut out: Vec<SpmmPlan> = Vec::new();
    let sharing = sharing_candidates(shape, spmm_plan(shape, SpmmMapping::Auto));
    for plan in sharing
        .iter()
        .copied()
        .chain(sharing.iter().flat_map(|&s| lane_candidates(shape, s)))
    {
        if !out.contains(&plan) {
            out.push(plan);
        }
    }
    out
}

/// Whether `plan` fits `k`, elements of `element_bytes` and the kernels: a vector width of 1, 2
/// or 4 that divides `k` and loads at most 16 bytes, a group of at most a warp, tile vectors of
/// 1, 2 or 4, a mapping of `Rows` or `Split`, and under `Split` a piece that is a positive
/// multiple of 32 up to `i32::MAX`.
pub(crate) fn check_plan(plan: SpmmPlan, k: usize, element_bytes: usize) -> bool {
    [1, 2, 4].contains(&plan.vector)
        && plan.vector as usize * element_bytes <= 16
        && k.is_multiple_of(plan.vector as usize)
        && [1, 2, 4].contains(&plan.tile_vectors)
        && plan.log_lanes_k + plan.log_lanes_nz <= 5
        && match plan.mapping {
            SpmmMapping::Rows => plan.piece == 0,
            SpmmMapping::Split => {
                plan.piece > 0 && plan.piece.is_multiple_of(32) && plan.piece <= i32::MAX as u32
            }
            SpmmMapping::Auto => false,
        }
}

//! `flat`: the atoms of the whole tile set cut into equal pieces of consecutive atoms, a warp
//! each, across tile boundaries, for a tile body whose atoms are independent: one atom loop alone
//! whose body sums a `lanes` loop ([`super::pieces::atoms_alone`], the sampled dense-dense
//! product's dot product per nonzero). No tile is too long or too short for it: a warp's lanes
//! split between its piece's atoms and the values as under `warp` ([`super::lanes_reduce`]), the
//! atom lanes of one step taking consecutive atoms whichever tiles they belong to.
//!
//! The steps, for one piece (of [`piece_atoms`] atoms, the last shorter): a binary search of the
//! tile offsets gives the tile of the piece's first atom; each lane then steps its tile forward
//! while the next tile starts at or before its atom (its atoms only increase), so every lane reads
//! the tile its atom belongs to. One launch, no scratch, no prefix sum: what the hand-written SDDMM
//! of `loops-runtime` (`ops/sddmm.cuh`) does, in the language's lowering.
//!
//! No name of its own: `auto` emits it among its candidates for such a body (and always times it,
//! [`super::auto::shortlist`]). Not over a tile subset (its atoms are not one range).

use super::{DeviceLimits, ScheduleConfig, ScheduleUnit, TileSetShape};

/// No named schedule: `auto` runs it.
pub const NAMED: &[super::NamedSchedule] = &[];

/// Lanes per piece: a warp.
pub const GROUP: u32 = 32;

/// The fewest atoms per piece (a warp's lanes each get one atom at `k` = 1).
pub const MIN_PIECE: u64 = 32;

/// The most atoms per piece: a piece is walked in sequence, so a very large set is cut into more
/// pieces than two per warp slot rather than into longer ones.
pub const MAX_PIECE: u64 = 8192;

/// `flat`.
pub struct Flat;

/// Its settings, each one of `auto`'s candidates: at most 4 values a lane at once (one 16-byte
/// load of `f32`) in a kernel held to the registers of a full SM (`__launch_bounds__` of 8 blocks
/// of 256), and up to 16 (the fused paths of [`super::lanes_reduce`]) with the registers they
/// take. Measured on an H200 (`examples/bench/results/h200/stop53/sd/`): at k = 1..32 on 16.8M
/// power-law nonzeros the first took 100-720 us against the second's 158-1056 us (44 registers,
/// 5 blocks an SM); at k = 128 on the small `arrow` and `Groebner` the second took 31-35 us
/// against the first's 51-55 (a 16-byte spill in the hot loop).
pub const VECTORS: [u32; 2] = [4, 16];

fn vector(schedule: super::Schedule) -> u32 {
    match schedule {
        super::Schedule::Flat { vector } => vector,
        other => unreachable!("the flat unit asked about {other:?}"),
    }
}

/// Whether `schedule` is a `flat` held to a full SM's blocks (the emitter's launch bounds).
pub fn full_occupancy(schedule: super::Schedule) -> bool {
    matches!(schedule, super::Schedule::Flat { vector } if vector <= crate::schedule::lanes::VECTOR)
}

/// Atoms per piece for a set of `atoms` atoms: about two pieces per warp the device holds at once
/// (a second wave hides the first's tail), at least [`MIN_PIECE`], at most [`MAX_PIECE`], a
/// multiple of 32. The plan of the hand-written SDDMM (`loops-runtime`'s `sddmm_plan`).
pub fn piece_atoms(atoms: u64, limits: DeviceLimits) -> u64 {
    let warps_at_once =
        (limits.sm_count.max(1) as u64 * limits.max_threads_per_sm.max(32) as u64 / 32).max(1);
    (atoms / (2 * warps_at_once))
        .clamp(MIN_PIECE, MAX_PIECE)
        .next_multiple_of(32)
}

/// The piece each warp takes, as the kernel computes it from the launch: the atoms over the
/// launch's warps, rounded up to a multiple of 32 (at most [`piece_atoms`] where the grid is
/// [`Flat::blocks_wanted`]'s).
pub fn launch_piece(atoms: u64, warps: u64) -> u64 {
    atoms.div_ceil(warps.max(1)).max(1).next_multiple_of(32)
}

/// The model of the mapping: the atoms warp `warp` of `warps` takes, in order (the piece of
/// [`launch_piece`] atoms of its number: `warps` of them cover the set), each with its tile (the last tile whose offset is at or
/// before the atom, as the kernel's search and steps find it).
pub fn model_atoms_of_warp(warp: u64, warps: u64, offsets: &[u64]) -> Vec<(u64, u64)> {
    let atoms = offsets.last().copied().unwrap_or(0);
    let piece = launch_piece(atoms, warps);
    let mut out = Vec::new();
    let mut v = warp;
    while v * piece < atoms {
        let (b, e) = (v * piece, ((v + 1) * piece).min(atoms));
        // The binary search: the largest tile below the last with its offset at or before `b`.
        let rows = offsets.len().saturating_sub(1);
        let mut tile = offsets[..rows]
            .partition_point(|&o| o <= b)
            .saturating_sub(1);
        for a in b..e {
            while offsets[tile + 1] <= a {
                tile += 1;
            }
            out.push((a, tile as u64));
        }
        v += warps.max(1);
    }
    out
}

impl ScheduleUnit for Flat {
    fn names(&self) -> &'static [&'static str] {
        &[]
    }

    /// Errors name the schedule the user wrote: only `auto` runs it.
    fn name_as_written(&self, _config: ScheduleConfig) -> &'static str {
        "auto"
    }

    fn describe(&self, schedule: super::Schedule) -> String {
        format!(
            "flat: pieces of consecutive atoms across tiles, a warp each, up to {} values a lane",
            vector(schedule)
        )
    }

    /// `flat` (4 values a lane at most), `flat16`.
    fn short_name(&self, schedule: super::Schedule) -> String {
        match vector(schedule) {
            4 => "flat".into(),
            v => format!("flat{v}"),
        }
    }

    fn fits_block(&self, _schedule: super::Schedule, block_size: u32) -> bool {
        block_size.is_multiple_of(GROUP)
    }

    fn why_not_in_device_loop(&self) -> &'static str {
        "its pieces are ranges of the whole set's atoms, not of a list's tiles"
    }

    /// A warp per piece of [`piece_atoms`].
    fn blocks_wanted(
        &self,
        config: ScheduleConfig,
        shape: TileSetShape,
        limits: DeviceLimits,
    ) -> u64 {
        let warps = shape.atoms.div_ceil(piece_atoms(shape.atoms, limits));
        warps.div_ceil((config.block_size / GROUP).max(1) as u64)
    }

    #[cfg(feature = "frontend")]
    fn parse(&self, args: &super::AttrArgs) -> crate::diag::DResult<super::Schedule> {
        crate::diag::bail!(
            args.name_span,
            "`flat` is one of `auto`'s candidates, not a schedule of its own: write `schedule = \"auto\"`"
        )
    }

    #[cfg(feature = "frontend")]
    fn lowering(&self, config: ScheduleConfig) -> Box<dyn super::Lowering> {
        Box::new(lowering::FlatLowering {
            group: super::group::GroupLowering {
                group_size: GROUP,
                block_size: config.block_size,
            },
            widest: vector(config.schedule),
        })
    }
}

#[cfg(feature = "frontend")]
mod lowering {
    use crate::diag::{bail, DResult};
    use crate::emit::{AtomLoop, Cx};
    use crate::ir::TileLoop;
    use crate::schedule::group::GroupLowering;
    use crate::schedule::{Kernel, Lowering};

    pub struct FlatLowering {
        pub group: GroupLowering,
        /// The most values a lane takes at once.
        pub widest: u32,
    }

    impl Lowering for FlatLowering {
        fn check(&self, kernel: &Kernel) -> DResult<()> {
            if kernel.body.subset.is_some() {
                bail!(
                    kernel.body.span,
                    "`flat` cuts the whole set's atoms into pieces: it cannot run over a list of tiles"
                );
            }
            if !super::super::pieces::atoms_alone(kernel) {
                bail!(
                    kernel.body.span,
                    "`flat` runs a tile body of one atom loop alone whose body holds a `lanes` loop \
                     (each atom's result its own)"
                );
            }
            self.group.check(kernel)
        }

        fn tile_loop(&self, cx: &mut Cx<'_>, tiles: &TileLoop) -> DResult<()> {
            let set = &tiles.set;
            cx.line_directive(tiles.line);
            cx.line(format!(
                "const unsigned int loops_lane = threadIdx.x & {}u;",
                super::GROUP - 1
            ));
            cx.line("const unsigned int loops_mask = 0xffffffffu;");
            let off = cx.offset_type();
            cx.line(format!("const {off} loops_fn = {set}_offsets[{set}_rows];"));
            cx.line(format!(
                "const long long loops_fw = (long long)gridDim.x * (blockDim.x / {});",
                super::GROUP
            ));
            // `launch_piece`: the atoms over the launch's warps, a multiple of 32, so the
            // launch's warps cover every atom: one piece a warp, no loop.
            cx.line(
                "const long long loops_fp = (((long long)loops_fn + loops_fw - 1ll) / loops_fw + 31ll) / 32ll * 32ll;",
            );
            cx.line(format!(
                "const long long loops_fv = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / {};",
                super::GROUP
            ));
            cx.open("if (loops_fv * loops_fp < (long long)loops_fn)");
            cx.line(format!(
                "const {off} loops_fb = ({off})(loops_fv * loops_fp);"
            ));
            cx.line(format!(
                "const {off} loops_fe = ({off})min((long long)loops_fn, (long long)loops_fb + loops_fp);"
            ));
            // The tile of the piece's first atom: the last (below the end) starting at or before it.
            cx.line(format!("int loops_lo = 0, loops_hi = (int){set}_rows - 1;"));
            cx.open("while (loops_lo < loops_hi)");
            cx.line("const int loops_mid = loops_lo + (loops_hi - loops_lo + 1) / 2;");
            cx.line(format!(
                "if ({set}_offsets[loops_mid] <= loops_fb) loops_lo = loops_mid; else loops_hi = loops_mid - 1;"
            ));
            cx.close();
            // Each lane steps it forward to its atom's tile ([`Self::atom_loop`]).
            cx.line(format!("int {} = loops_lo;", tiles.tile));
            cx.guarded_block("loops_lane == 0u", &tiles.body)?;
            cx.close();
            Ok(())
        }

        fn atom_loop(&self, cx: &mut Cx<'_>, atoms: AtomLoop<'_>) -> DResult<()> {
            let set = atoms.set;
            let tile = cx.expr(atoms.tile);
            let var = atoms.var;
            let (first, last) = ("loops_fb".to_string(), "loops_fe".to_string());
            let step = format!("while ({set}_offsets[{tile} + 1] <= {var}) ++{tile};");
            crate::schedule::lanes_reduce::group_atom_loop_with_lanes_in(
                &self.group,
                cx,
                atoms,
                Some((&first, &last)),
                Some(&step),
                self.widest,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H200: DeviceLimits = DeviceLimits {
        sm_count: 132,
        max_threads_per_sm: 2048,
        l2_bytes: 60 << 20,
    };

    /// Every atom is taken by exactly one warp, with the tile it belongs to, whatever the number
    /// of warps, with empty tiles anywhere.
    #[test]
    fn every_atom_once_with_its_tile() {
        let mut seed = 11u64;
        for case in 0..200 {
            let rows = (case % 37) as usize;
            let mut offsets = vec![0u64];
            for _ in 0..rows {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let size = match (seed >> 33) % 5 {
                    0 => 0,
                    1 => (seed >> 40) % 3,
                    2 => (seed >> 40) % 40,
                    3 => (seed >> 40) % 300,
                    _ => (seed >> 40) % 2000,
                };
                offsets.push(offsets.last().unwrap() + size);
            }
            let atoms = *offsets.last().unwrap();
            for warps in [1u64, 2, 3, 8, 64, 1000] {
                let mut seen = vec![0u32; atoms as usize];
                for w in 0..warps {
                    for (a, t) in model_atoms_of_warp(w, warps, &offsets) {
                        seen[a as usize] += 1;
                        let t = t as usize;
                        assert!(offsets[t] <= a && a < offsets[t + 1], "atom {a} tile {t}");
                    }
                }
                assert!(seen.iter().all(|&c| c == 1), "case {case} warps {warps}");
            }
        }
    }

    /// The grid `blocks_wanted` asks for gives pieces no longer than the plan's.
    #[test]
    fn the_launch_piece_is_at_most_the_plan() {
        for atoms in [1u64, 31, 32, 33, 4054, 1 << 16, 5_000_000, 1 << 31] {
            let config = ScheduleConfig::new(super::super::Schedule::Flat { vector: 4 });
            let shape = TileSetShape { tiles: 10, atoms };
            let blocks = Flat.blocks_wanted(config, shape, H200);
            let warps = blocks * (config.block_size / GROUP) as u64;
            let plan = piece_atoms(atoms, H200);
            assert!(launch_piece(atoms, warps) <= plan, "atoms {atoms}");
            assert!((MIN_PIECE..=MAX_PIECE).contains(&plan) && plan.is_multiple_of(32));
            assert!(warps * plan >= atoms);
        }
    }
}

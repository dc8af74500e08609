//! `group` (and its aliases `warp` = 32 and `block` = the block size): a group of `group_size`
//! threads takes one tile at a time, grid-stride over tiles. Every lane runs the tile body, so values
//! outside the atom loops are the same on every lane and control flow stays uniform in the group;
//! stores and atomics outside the atom loops run on the group's leader only. The lanes stride over the
//! tile's atoms together; after the loop each accumulator is reduced across the group (warp shuffles up
//! to 32 lanes, shared memory and a barrier above) and every lane gets the total. So the code after the
//! atom loop runs once per tile, on the complete accumulator, whatever the body looks like.

use super::{resident_grid, DeviceLimits, Schedule, ScheduleConfig, ScheduleUnit, TileSetShape};

/// Its named schedules ([`super::SCHEDULES`]): groups of 2 to 64, the warp and the block.
pub const NAMED: &[super::NamedSchedule] = &[
    group_of(
        "group2",
        r#"schedule = "group", group_size = 2"#,
        "one tile per pair of threads; the lanes stride over its atoms and reduce",
        true,
    ),
    group_of(
        "group4",
        r#"schedule = "group", group_size = 4"#,
        "one tile per group of 4 threads; the lanes stride over its atoms and reduce",
        false,
    ),
    group_of(
        "group8",
        r#"schedule = "group", group_size = 8"#,
        "one tile per group of 8 threads; the lanes stride over its atoms and reduce",
        false,
    ),
    group_of(
        "group16",
        r#"schedule = "group", group_size = 16"#,
        "one tile per group of 16 threads; the lanes stride over its atoms and reduce",
        false,
    ),
    group_of(
        "warp",
        r#"schedule = "warp""#,
        "one tile per warp (32 threads); warp-shuffle reduction",
        true,
    ),
    group_of(
        "group64",
        r#"schedule = "group", group_size = 64"#,
        "one tile per 64 threads (two warps); shuffles, then shared memory and a named barrier",
        true,
    ),
    group_of(
        "block",
        r#"schedule = "block""#,
        "one tile per block (`block_size` threads, 256 by default); shared-memory reduction",
        true,
    ),
];

const fn group_of(
    name: &'static str,
    attr: &'static str,
    about: &'static str,
    core: bool,
) -> super::NamedSchedule {
    super::NamedSchedule {
        name,
        attr,
        about,
        core,
    }
}

/// `schedule = "group"`, `"warp"`, `"block"`.
pub struct Group;

impl ScheduleUnit for Group {
    fn names(&self) -> &'static [&'static str] {
        &["group", "warp", "block"]
    }

    fn arg_keys(&self, name: &str) -> &'static [&'static str] {
        match name {
            "group" => &["group_size"],
            _ => &[],
        }
    }

    fn name_as_written(&self, config: ScheduleConfig) -> &'static str {
        match group_size(config.schedule) {
            32 => "warp",
            g if g == config.block_size => "block",
            _ => "group",
        }
    }

    fn describe(&self, schedule: Schedule) -> String {
        format!("group {}", group_size(schedule))
    }

    fn short_name(&self, schedule: Schedule) -> String {
        format!("group{}", group_size(schedule))
    }

    fn supports_wide_offsets(&self) -> bool {
        true
    }

    fn lanes(&self, schedule: Schedule) -> Option<u32> {
        Some(group_size(schedule))
    }

    /// Groups of up to a warp, the block, or few enough to take a named barrier each.
    fn fits_block(&self, schedule: Schedule, block_size: u32) -> bool {
        let g = group_size(schedule);
        g <= block_size
            && (g <= 32 || g == block_size || block_size / g <= MAX_GROUPS_WITH_BARRIERS)
    }

    /// Over a tile subset, the list's length may live on the device: the tile loop is grid-stride,
    /// so the grid need not depend on it.
    fn hidden_params(
        &self,
        _schedule: super::Schedule,
        over_subset: bool,
    ) -> &'static [super::Hidden] {
        if over_subset {
            &[super::Hidden::ListLen]
        } else {
            &[]
        }
    }

    /// A group per tile, no more blocks than the device holds at once (the loop is grid-stride).
    fn blocks_wanted(
        &self,
        config: ScheduleConfig,
        shape: TileSetShape,
        limits: DeviceLimits,
    ) -> u64 {
        let block = config.block_size;
        blocks_wanted(shape, block, group_size(config.schedule))
            .min(resident_grid(limits, block) as u64)
    }

    #[cfg(feature = "frontend")]
    fn parse(&self, args: &super::AttrArgs) -> crate::diag::DResult<Schedule> {
        parse(args)
    }

    #[cfg(feature = "frontend")]
    fn lowering(&self, config: ScheduleConfig) -> Box<dyn super::Lowering> {
        Box::new(GroupLowering {
            group_size: group_size(config.schedule),
            block_size: config.block_size,
        })
    }
}

fn group_size(schedule: Schedule) -> u32 {
    match schedule {
        Schedule::Group { group_size } => group_size,
        other => unreachable!("the group unit asked about {other:?}"),
    }
}

/// `warp` is a group of 32, `block` one of the block size; `group` needs its `group_size`.
#[cfg(feature = "frontend")]
fn parse(args: &super::AttrArgs) -> crate::diag::DResult<Schedule> {
    use crate::diag::bail;
    let block_size = args.block_size;
    let g = match args.name.as_str() {
        "warp" => 32,
        "block" => block_size,
        _ => {
            let Some((g, span)) = args.get("group_size") else {
                bail!(
                    args.name_span,
                    "`schedule = \"group\"` needs a `group_size`, e.g. group_size = 64"
                );
            };
            let g = g as u32;
            if !g.is_power_of_two() || !(2..=block_size).contains(&g) {
                bail!(span, "`group_size` must be a power of two from 2 to the block size ({block_size}), not {g}");
            }
            if g > 32 && g < block_size && block_size / g > MAX_GROUPS_WITH_BARRIERS {
                bail!(
                    span,
                    "{} groups of {g} in a block of {block_size} would need {} named barriers; CUDA has {MAX_GROUPS_WITH_BARRIERS}: \
                     raise `group_size` or lower `block_size`",
                    block_size / g,
                    block_size / g
                );
            }
            g
        }
    };
    Ok(Schedule::Group { group_size: g })
}

/// Blocks needed to give every tile its own group.
pub fn blocks_wanted(shape: TileSetShape, block: u32, group_size: u32) -> u64 {
    (shape.tiles * group_size as u64).div_ceil(block as u64)
}

/// CUDA has 16 named barriers per block, and barrier 0 is `__syncthreads`: groups of more than a
/// warp but less than a block each take one of the other 15.
pub const MAX_GROUPS_WITH_BARRIERS: u32 = 15;

/// The model of the mapping: the tiles group `group` visits when `groups` groups run over `tiles`,
/// and, for one tile, the atoms lane `lane` visits.
pub fn model_tiles_of_group(group: u64, groups: u64, tiles: u64) -> impl Iterator<Item = u64> {
    (group..tiles).step_by(groups.max(1) as usize)
}

pub fn model_atoms_of_lane(
    lane: u64,
    group_size: u64,
    begin: u64,
    end: u64,
) -> impl Iterator<Item = u64> {
    (begin + lane..end).step_by(group_size as usize)
}

#[cfg(feature = "frontend")]
pub use lowering::GroupLowering;
#[cfg(feature = "frontend")]
pub(crate) use lowering::{combine_all, reduced_vars_typed, start_from_identity};

#[cfg(feature = "frontend")]
mod lowering {
    use crate::analysis::{has_atomic, reductions, stmt_exprs, Accumulator, Selection};
    use crate::diag::{bail, DResult};
    use crate::emit::{AtomLoop, Cx};
    use crate::ir::{StmtKind, TileLoop};
    use crate::schedule::Kernel;
    use crate::schedule::Lowering;

    pub struct GroupLowering {
        pub group_size: u32,
        pub block_size: u32,
    }

    impl GroupLowering {
        pub(crate) fn barrier(&self) -> String {
            if self.group_size == self.block_size {
                "__syncthreads();".into()
            } else {
                format!("asm volatile(\"bar.sync %0, %1;\" :: \"r\"(loops_barrier), \"r\"({}) : \"memory\");", self.group_size)
            }
        }
    }

    impl Lowering for GroupLowering {
        fn check(&self, kernel: &Kernel) -> DResult<()> {
            // Outside the atom loops only the leader runs atomics, so their results exist on one lane.
            check_tile_scope(&kernel.body.body, kernel.config.name())?;
            // An atom loop in a `lanes` loop is reached by every lane of its value.
            crate::schedule::lanes::check_group(kernel)?;
            // A `lanes` loop in an atom loop: its atom lanes all reach its sum.
            crate::schedule::lanes_reduce::check_group(kernel)?;
            // Each atom loop's accumulators are reduced across the group: the same analysis as
            // the emission's, so that `auto` and `lrb` leave out a group they cannot lower.
            let name = kernel.config.name();
            crate::analysis::visit_stmts(&kernel.body.body, &mut |s| match &s.kind {
                StmtKind::ForAtoms { var, body, .. } => {
                    reductions(body, var, name, &mut |s| s.to_string()).map(|_| ())
                }
                _ => Ok(()),
            })
        }

        fn tile_loop(&self, cx: &mut Cx<'_>, tiles: &TileLoop) -> DResult<()> {
            let g = self.group_size;
            let set = &tiles.set;
            cx.line_directive(tiles.line);
            cx.line(format!(
                "const unsigned int loops_lane = threadIdx.x & {}u;",
                g - 1
            ));
            if g < 32 {
                cx.line(format!(
                    "const unsigned int loops_mask = 0x{:x}u << ((threadIdx.x & 31u) & ~{}u);",
                    (1u64 << g) - 1,
                    g - 1
                ));
            } else if g == 32 {
                cx.line("const unsigned int loops_mask = 0xffffffffu;");
            } else if g < self.block_size {
                cx.line(format!(
                    "const unsigned int loops_barrier = 1u + threadIdx.x / {g}u;"
                ));
            }
            cx.open(format!(
                "for (long long loops_t = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / {g}; loops_t < {set}_rows; \
                 loops_t += (long long)gridDim.x * (blockDim.x / {g}))"
            ));
            cx.line(format!("const int {} = (int)loops_t;", tiles.tile));
            cx.guarded_block("loops_lane == 0u", &tiles.body)?;
            cx.close();
            Ok(())
        }

        /// Spread over the group's lanes ([`crate::schedule::lanes`]).
        fn lanes_loop(&self, cx: &mut Cx<'_>, lanes: crate::emit::RangeLoop<'_>) -> DResult<()> {
            crate::schedule::lanes::group_lanes_loop(self, cx, lanes)
        }

        fn atom_loop(&self, cx: &mut Cx<'_>, atoms: AtomLoop<'_>) -> DResult<()> {
            if let Some(split) = cx.lanes.clone() {
                return crate::schedule::lanes::group_atom_loop(self, cx, atoms, &split);
            }
            if crate::schedule::lanes_reduce::atom_loop_holds_lanes(atoms.body) {
                return crate::schedule::lanes_reduce::group_atom_loop_with_lanes(self, cx, atoms);
            }
            let g = self.group_size;
            let name = cx.kernel.config.name();
            let red = reductions(atoms.body, atoms.var, name, &mut |s| cx.fresh(s))?;
            let (accs, sels) = (&red.accumulators, &red.selections);
            // Lane 0 carries the value from before the loop; the others start from the identity.
            start_from_identity(cx, accs, sels, "loops_lane != 0u");
            let (set, var) = (atoms.set, atoms.var);
            let tile = cx.expr(atoms.tile);
            let end = cx.fresh("end");
            // `int`, or `long long` in the 64-bit-offsets instantiation.
            let off = cx.offset_type();
            cx.open(format!(
                "for ({off} {var} = {set}_offsets[{tile}] + ({off})loops_lane, {end} = {set}_offsets[{tile} + 1]; {var} < {end}; {var} += {g})"
            ));
            let outer = cx.guard.take();
            let result = cx.block(&red.body);
            cx.guard = outer;
            result?;
            cx.close();
            if accs.is_empty() && sels.is_empty() {
                return Ok(());
            }
            if g <= 32 {
                cx.open(format!(
                    "for (int loops_o = {}; loops_o > 0; loops_o >>= 1)",
                    g / 2
                ));
                let shfl = |v: &str| format!("__shfl_down_sync(loops_mask, {v}, loops_o, {g})");
                combine_all(cx, accs, sels, &shfl);
                cx.close();
                for v in reduced_vars(accs, sels) {
                    cx.line(format!("{v} = __shfl_sync(loops_mask, {v}, 0, {g});"));
                }
                return Ok(());
            }
            // Above a warp: reduce in each warp, meet in shared memory, every lane combines the warps of
            // its group in the same order (so all lanes hold bit-identical totals).
            cx.open("for (int loops_o = 16; loops_o > 0; loops_o >>= 1)");
            let shfl = |v: &str| format!("__shfl_down_sync(0xffffffffu, {v}, loops_o)");
            combine_all(cx, accs, sels, &shfl);
            cx.close();
            let warps_in_block = self.block_size / 32;
            let mut slots = Vec::new();
            for (v, ty) in reduced_vars_typed(accs, sels) {
                let slot = cx.fresh(&format!("partials_{}_", v.trim_start_matches("loops_")));
                cx.shared(&ty, &slot, Some(warps_in_block), false);
                cx.line(format!(
                    "if ((threadIdx.x & 31u) == 0u) {slot}[threadIdx.x >> 5] = {v};"
                ));
                slots.push((v, slot));
            }
            cx.line(self.barrier());
            // Fresh per atom loop: a tile body may hold several.
            let first = cx.fresh("first_warp");
            cx.line(format!(
                "const unsigned int {first} = (threadIdx.x >> 5) & ~{}u;",
                g / 32 - 1
            ));
            let slot_of = |v: &str| {
                slots
                    .iter()
                    .find(|(n, _)| n == v)
                    .map(|(_, s)| s.clone())
                    .expect("a slot per reduced variable")
            };
            for (v, slot) in &slots {
                cx.line(format!("{v} = {slot}[{first}];"));
            }
            cx.open(format!(
                "for (unsigned int loops_w = 1; loops_w < {}u; ++loops_w)",
                g / 32
            ));
            let other = |v: &str| format!("{}[{first} + loops_w]", slot_of(v));
            combine_all(cx, accs, sels, &other);
            cx.close();
            // The slots are reused by the next tile: nobody writes them before everyone has read.
            cx.line(self.barrier());
            Ok(())
        }
    }

    /// Where `not_first` holds (every lane but the one that carries the values from before the
    /// atom loop), the accumulators, selection keys and tallies start from their identity; every
    /// lane's selection position starts at none.
    pub(crate) fn start_from_identity(
        cx: &mut Cx<'_>,
        accs: &[Accumulator],
        sels: &[Selection],
        not_first: &str,
    ) {
        for a in accs {
            cx.line(format!(
                "if ({not_first}) {} = {};",
                a.name,
                a.op.identity(&a.ty)
            ));
        }
        for s in sels {
            cx.line(format!("long long {} = {};", s.at, s.none_at()));
            if let Some(k) = &s.key {
                let worst = if k.larger {
                    crate::analysis::CombineOp::Max
                } else {
                    crate::analysis::CombineOp::Min
                };
                cx.line(format!(
                    "if ({not_first}) {} = {};",
                    k.name,
                    worst.identity(&k.ty)
                ));
            }
            // A tally counts from nothing on the lanes whose key starts from the worst.
            for t in &s.tallies {
                cx.line(format!(
                    "if ({not_first}) {} = {};",
                    t.name,
                    t.op.identity(&t.ty)
                ));
            }
        }
    }

    /// Combines each accumulator and selection with another lane's or warp's, `other(name)`
    /// naming its copy of a variable.
    pub(crate) fn combine_all(
        cx: &mut Cx<'_>,
        accs: &[Accumulator],
        sels: &[Selection],
        other: &dyn Fn(&str) -> String,
    ) {
        for a in accs {
            let o = other(&a.name);
            cx.line(format!("{} = {};", a.name, a.op.combine(&a.name, &o)));
        }
        for s in sels {
            // Every lane reads the other's choice (shuffles are collective), then keeps the better.
            cx.open("");
            let mut copies = vec![(s.at.clone(), "long long".to_string())];
            copies.extend(
                s.vars
                    .iter()
                    .map(|(v, t)| (v.clone(), t.cuda_name().to_string())),
            );
            for (v, ty) in &copies {
                cx.line(format!("const {ty} loops_other_{v} = {};", other(v)));
            }
            cx.line(s.keep_better(&|v| format!("loops_other_{v}"), &|v| v.to_string()));
            cx.close();
        }
    }

    /// Every variable the group reduces: accumulators, selections' variables and positions.
    fn reduced_vars(accs: &[Accumulator], sels: &[Selection]) -> Vec<String> {
        reduced_vars_typed(accs, sels)
            .into_iter()
            .map(|(v, _)| v)
            .collect()
    }

    pub(crate) fn reduced_vars_typed(
        accs: &[Accumulator],
        sels: &[Selection],
    ) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = accs
            .iter()
            .map(|a| (a.name.clone(), a.ty.cuda_name().to_string()))
            .collect();
        for s in sels {
            out.push((s.at.clone(), "long long".to_string()));
            out.extend(
                s.vars
                    .iter()
                    .map(|(v, t)| (v.clone(), t.cuda_name().to_string())),
            );
        }
        out
    }

    fn check_tile_scope(block: &crate::ir::Block, name: &str) -> DResult<()> {
        for s in block {
            match &s.kind {
                StmtKind::ForAtoms { .. } => continue,
                StmtKind::Expr(_) => continue,
                StmtKind::If {
                    then, otherwise, ..
                } => {
                    check_tile_scope(then, name)?;
                    check_tile_scope(otherwise, name)?;
                }
                StmtKind::ForRange { body, .. } => check_tile_scope(body, name)?,
                _ => {}
            }
            let mut atomic = false;
            stmt_exprs(s, &mut |e| atomic |= has_atomic(e));
            if atomic {
                bail!(
                    s.span,
                    "under `{name}`, code outside the atom loop runs on every lane of the group but its stores and \
                     atomics on the leader only, so an atomic's result (or a `push`'s position) is not available here: \
                     make the atomic (or the `push`) a statement of its own or move it into the atom loop"
                );
            }
        }
        Ok(())
    }
}

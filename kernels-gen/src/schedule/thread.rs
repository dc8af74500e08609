//! `thread`: one tile per thread, grid-stride over tiles; each thread runs its tile's atoms in order.
//! Also what tile-only bodies and flat atom-major loops are lowered under (`tile_only`): a flat
//! loop is grid-stride over the atoms; a tile-only body's staged pushes run the tiles in rounds
//! of a block.

use super::{resident_grid, DeviceLimits, ScheduleConfig, ScheduleUnit, TileSetShape};

/// Its named schedule ([`super::SCHEDULES`]).
pub const NAMED: &[super::NamedSchedule] = &[super::NamedSchedule {
    name: "thread",
    attr: r#"schedule = "thread""#,
    about: "one tile per thread, grid-stride over tiles; a tile's atoms in sequence",
    core: true,
}];

/// `schedule = "thread"`.
pub struct Thread;

impl ScheduleUnit for Thread {
    fn names(&self) -> &'static [&'static str] {
        &["thread"]
    }

    fn lanes(&self, _schedule: super::Schedule) -> Option<u32> {
        Some(1)
    }

    fn supports_wide_offsets(&self) -> bool {
        true
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

    /// A thread per tile, no more blocks than the device holds at once (the loop is grid-stride).
    fn blocks_wanted(
        &self,
        config: ScheduleConfig,
        shape: TileSetShape,
        limits: DeviceLimits,
    ) -> u64 {
        let block = config.block_size;
        blocks_wanted(shape, block).min(resident_grid(limits, block) as u64)
    }

    #[cfg(feature = "frontend")]
    fn parse(&self, _args: &super::AttrArgs) -> crate::diag::DResult<super::Schedule> {
        Ok(super::Schedule::Thread)
    }

    #[cfg(feature = "frontend")]
    fn lowering(&self, _config: ScheduleConfig) -> Box<dyn super::Lowering> {
        Box::new(ThreadLowering)
    }
}

/// Blocks needed to give every tile its own thread.
pub fn blocks_wanted(shape: TileSetShape, block: u32) -> u64 {
    shape.tiles.div_ceil(block as u64)
}

/// The pure-Rust model of the mapping: the tiles thread `thread` visits, in order, when `threads`
/// threads run over `tiles` tiles. Every atom of a visited tile is visited by that thread.
pub fn model_tiles_of_thread(thread: u64, threads: u64, tiles: u64) -> impl Iterator<Item = u64> {
    (thread..tiles).step_by(threads.max(1) as usize)
}

#[cfg(feature = "frontend")]
pub use lowering::ThreadLowering;

#[cfg(feature = "frontend")]
mod lowering {
    use crate::diag::DResult;
    use crate::emit::{AtomLoop, Cx};
    use crate::ir::{Expr, ExprKind, SetProperty, Stmt, StmtKind, TileLoop, Ty};
    use crate::schedule::{tile_only, Lowering};

    pub struct ThreadLowering;

    /// A flat atom-major loop (`TileLoop::flat`, `kernels_gen::schedule::tile_only`): every
    /// atom of the set once, grid-stride, one atom per thread at a time.
    fn flat_loop(cx: &mut Cx<'_>, tiles: &TileLoop) -> DResult<()> {
        let [Stmt {
            kind: StmtKind::ForAtoms { var, set, body, .. },
            span,
            ..
        }] = &tiles.body[..]
        else {
            unreachable!("a flat tile loop is one atom loop");
        };
        let atoms = cx.expr(&Expr {
            kind: ExprKind::SetProperty {
                set: set.clone(),
                property: SetProperty::Atoms,
            },
            ty: Ty::Usize,
            span: *span,
        });
        // `int`, or `long long` in the 64-bit-offsets instantiation; the counter is 64-bit so
        // that `a + stride` cannot overflow.
        let off = cx.offset_type();
        cx.open(format!(
            "for (long long loops_a = (long long)blockIdx.x * blockDim.x + threadIdx.x; loops_a < (long long)({atoms}); \
             loops_a += (long long)blockDim.x * gridDim.x)"
        ));
        cx.line(format!("const {off} {var} = ({off})loops_a;"));
        cx.block(body)?;
        cx.close();
        Ok(())
    }

    /// After the tile loop, the aggregated atomics' flushes, one atomic per block (every thread of
    /// the block reaches them: no statement leaves the kernel from the loop).
    fn flush_aggregated(cx: &mut Cx<'_>, aggregated: &[tile_only::Aggregated<'_>]) -> DResult<()> {
        cx.aggregated.clear();
        for (i, a) in aggregated.iter().enumerate() {
            let (ty, init, flush) = tile_only::accumulator(a);
            let target = cx.expr(a.target);
            // A warp's partial each (32 warps of 1024 threads at most).
            cx.shared(ty, &format!("loops_partials{i}"), Some(32), false);
            cx.line(format!(
                "{flush}(&{target}, loops_acc{i}, {init}, loops_partials{i});"
            ));
        }
        Ok(())
    }

    impl Lowering for ThreadLowering {
        fn tile_loop(&self, cx: &mut Cx<'_>, tiles: &TileLoop) -> DResult<()> {
            if tiles.flat {
                cx.line_directive(tiles.line);
                return flat_loop(cx, tiles);
            }
            let set = &tiles.set;
            // A tile-only body's tile-invariant atomic statements: a register each, flushed after
            // the loop (`tile_only::aggregated_atomics`); the checked variant keeps the atomics.
            let aggregated = if cx.is_checked() {
                Vec::new()
            } else {
                tile_only::aggregated_atomics(cx.kernel, tiles)
            };
            for (i, a) in aggregated.iter().enumerate() {
                let (ty, init, _) = tile_only::accumulator(a);
                let acc = format!("loops_acc{i}");
                cx.line(format!("{ty} {acc} = {init};"));
                cx.aggregated
                    .push((a.call as *const Expr as usize, acc, a.op));
            }
            // A tile-only body's `push` statements onto one tile-invariant counter: staged in
            // shared memory, one atomic per block round (`tile_only::staged_pushes`).
            let staged = if cx.is_checked() {
                None
            } else {
                tile_only::staged_pushes(cx.kernel, tiles)
            };
            let Some(staged) = staged else {
                cx.line_directive(tiles.line);
                // 64-bit counter: `t + stride` must not overflow near 2^31 tiles.
                cx.open(format!(
                    "for (long long loops_t = (long long)blockIdx.x * blockDim.x + threadIdx.x; loops_t < {set}_rows; \
                     loops_t += (long long)blockDim.x * gridDim.x)"
                ));
                cx.line(format!("const int {} = (int)loops_t;", tiles.tile));
                cx.block(&tiles.body)?;
                cx.close();
                return flush_aggregated(cx, &aggregated);
            };
            let cap = cx.kernel.config.block_size;
            cx.shared(staged.elem.cuda_name(), "loops_stage", Some(cap), false);
            cx.shared("unsigned int", "loops_stage_n", None, false);
            cx.shared(
                staged.counter_ty.cuda_name(),
                "loops_stage_base",
                None,
                false,
            );
            cx.line("if (threadIdx.x == 0) loops_stage_n = 0u;");
            cx.line("__syncthreads();");
            cx.staged = staged
                .calls
                .iter()
                .map(|c| *c as *const Expr as usize)
                .collect();
            cx.line_directive(tiles.line);
            // Rounds of a block (the bound tested inside): every thread reaches each flush.
            cx.open(format!(
                "for (long long loops_r = (long long)blockIdx.x * blockDim.x; loops_r < {set}_rows; \
                 loops_r += (long long)blockDim.x * gridDim.x)"
            ));
            cx.line("const long long loops_t = loops_r + threadIdx.x;");
            cx.open(format!("if (loops_t < {set}_rows)"));
            cx.line(format!("const int {} = (int)loops_t;", tiles.tile));
            cx.block(&tiles.body)?;
            cx.close();
            let (list, counter) = (&staged.list, cx.expr(staged.counter));
            cx.line(format!(
                "loops_stage_flush(loops_stage, &loops_stage_n, &loops_stage_base, {cap}u, {list}, {list}_len, &{counter});"
            ));
            cx.close();
            cx.staged.clear();
            flush_aggregated(cx, &aggregated)
        }

        fn atom_loop(&self, cx: &mut Cx<'_>, atoms: AtomLoop<'_>) -> DResult<()> {
            // (A flat atom loop's own is emitted by `flat_loop`.)
            let (set, var) = (atoms.set, atoms.var);
            let tile = cx.expr(atoms.tile);
            let end = cx.fresh("end");
            // `int`, or `long long` in the 64-bit-offsets instantiation.
            let off = cx.offset_type();
            cx.open(format!(
                "for ({off} {var} = {set}_offsets[{tile}], {end} = {set}_offsets[{tile} + 1]; {var} < {end}; ++{var})"
            ));
            cx.block(atoms.body)?;
            cx.close();
            Ok(())
        }
    }
}

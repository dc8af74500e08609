//! `thread`: one tile per thread, grid-stride over tiles; each thread runs its tile's atoms in order.

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
    use crate::schedule::Lowering;

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

    impl Lowering for ThreadLowering {
        fn tile_loop(&self, cx: &mut Cx<'_>, tiles: &TileLoop) -> DResult<()> {
            let set = &tiles.set;
            cx.line_directive(tiles.line);
            if tiles.flat {
                return flat_loop(cx, tiles);
            }
            // 64-bit counter: `t + stride` must not overflow near 2^31 tiles.
            cx.open(format!(
                "for (long long loops_t = (long long)blockIdx.x * blockDim.x + threadIdx.x; loops_t < {set}_rows; \
                 loops_t += (long long)blockDim.x * gridDim.x)"
            ));
            cx.line(format!("const int {} = (int)loops_t;", tiles.tile));
            cx.block(&tiles.body)?;
            cx.close();
            Ok(())
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

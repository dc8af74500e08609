//! Step 3: the in-block fold. The thread holding a head combines the tails of the threads before
//! it that hold the same tile (a segmented scan of the tails), then finishes the tile; the block
//! publishes its record for the blocks after it; a head of a tile begun in an earlier block waits
//! for the look-back (`lookback.rs`).

use super::lookback::{publish_record, start_record};
use super::lowering::{choose_each, declare_each, fold_earlier, Carried, TileBody};
use super::CarryLowering;
use crate::diag::DResult;
use crate::emit::Cx;

impl CarryLowering {
    /// Step 3 and the look-back after the walk: the tails folded across the block; the block's
    /// record; each head finished, or (its tile began in an earlier block) left to the look-back.
    /// `off(x)` reads the offsets of the walk's tile set.
    pub(super) fn fixup(
        &self,
        cx: &mut Cx<'_>,
        body: &TileBody<'_>,
        off: &dyn Fn(&str) -> String,
        accs: &Carried,
    ) -> DResult<()> {
        if accs.is_empty() {
            // Nothing to carry: the thread that holds a tile's end finishes it, wherever the
            // tile began. No records, no look-back.
            cx.open("if (loops_head_tile >= 0)");
            self.finish_tile(cx, body, "loops_head_tile", accs)?;
            cx.close();
            return Ok(());
        }
        self.fold_tails(cx, accs);
        // The block's record, for the blocks after it: the partials of the tile in progress
        // at the block's end, as *inclusive* partials where the tile began in this block, else
        // (the block lies inside one tile) as its *aggregate*. Written as soon as known, with
        // no fence: each word carries the launch's stamp.
        start_record(cx, accs, false);
        cx.open("if (threadIdx.x == blockDim.x - 1)");
        publish_record(cx, accs, "run");
        cx.close();
        self.finish_heads(cx, body, off, accs)?;
        cx.line("__syncthreads();");
        self.look_back(cx, body, accs)
    }

    /// The in-block fold: an inclusive segmented scan of the threads' tails into
    /// `loops_run_<acc>`, a run of threads whose tails are the same tile being one segment (tiles
    /// only grow with the thread, so a lane `o` back with the same tile means every lane between
    /// has it too). Shuffles within each warp, then a run that reaches back past its warp's first
    /// lane adds the earlier warps' parts from their summaries: a few steps where a serial walk
    /// over the threads took up to one per thread of the block. Declares the block's shared
    /// partials the heads and the look-back use.
    fn fold_tails(&self, cx: &mut Cx<'_>, accs: &Carried) {
        let warps = self.block_size / 32;
        cx.line(
            "const int loops_lane = (int)threadIdx.x & 31, loops_warp = (int)threadIdx.x >> 5;",
        );
        declare_each(cx, accs, "run", |a, _| format!("loops_tail_{}", a.name));
        cx.line("#pragma unroll");
        cx.open("for (int loops_o = 1; loops_o < 32; loops_o <<= 1)");
        Self::shuffle_up(
            cx,
            accs,
            "up",
            "loops_o",
            ("int", "tile", "loops_tail_tile"),
        );
        cx.open("if (loops_lane >= loops_o && loops_up_tile == loops_tail_tile)");
        fold_earlier(cx, accs, "run", |v| format!("loops_up_{v}"));
        cx.close();
        cx.close();
        cx.shared("int", "loops_warp_last", Some(warps), false);
        for f in accs.fields() {
            let (ty, name) = (&f.ty, &f.name);
            cx.shared(ty, &format!("loops_warp_{name}"), Some(warps), false);
            cx.shared(ty, &format!("loops_cross_{name}"), None, false);
            cx.shared(ty, &format!("loops_block_{name}"), None, false);
        }
        cx.shared("int", "loops_cross_tile", None, false);
        cx.line("const int loops_first_tile = __shfl_sync(0xffffffffu, loops_tail_tile, 0);");
        cx.open("if (loops_lane == 31)");
        cx.line("loops_warp_last[loops_warp] = loops_tail_tile;");
        for f in accs.fields() {
            cx.line(format!(
                "loops_warp_{0}[loops_warp] = loops_run_{0};",
                f.name
            ));
        }
        cx.close();
        cx.line("if (threadIdx.x == 0) loops_cross_tile = -1;");
        cx.line("__syncthreads();");
        if warps > 1 {
            cx.open("if (loops_warp > 0 && loops_first_tile == loops_tail_tile)");
            declare_each(cx, accs, "part", |a, _| format!("loops_run_{}", a.name));
            Self::earlier_warps(cx, accs, "loops_tail_tile");
            for f in accs.fields() {
                cx.line(format!("loops_run_{0} = loops_part_{0};", f.name));
            }
            cx.close();
        }
    }

    /// A head: this thread holds the end of a tile that began before its segment. The threads
    /// before it that hold the same tile are the run ending at the lane before it (a shuffle), or,
    /// for a warp's first lane, in the earlier warps' summaries. A tile that began in the block is
    /// finished here; one that began before it is handed to the look-back (`loops_cross_*`).
    fn finish_heads(
        &self,
        cx: &mut Cx<'_>,
        body: &TileBody<'_>,
        off: &dyn Fn(&str) -> String,
        accs: &Carried,
    ) -> DResult<()> {
        Self::shuffle_up(cx, accs, "prev", "1", ("int", "tile", "loops_tail_tile"));
        cx.open("if (loops_head_tile >= 0)");
        declare_each(cx, accs, "part", |a, _| format!("loops_head_{}", a.name));
        cx.open("if (loops_lane > 0)");
        cx.open("if (loops_prev_tile == loops_head_tile)");
        fold_earlier(cx, accs, "part", |v| format!("loops_prev_{v}"));
        cx.close();
        cx.close();
        if self.block_size / 32 > 1 {
            cx.open("else");
            Self::earlier_warps(cx, accs, "loops_head_tile");
            cx.close();
        }
        cx.open(format!("if ({} < loops_by0)", off("loops_head_tile")));
        cx.line("loops_cross_tile = loops_head_tile;");
        for f in accs.fields() {
            cx.line(format!("loops_cross_{0} = loops_part_{0};", f.name));
        }
        cx.close();
        cx.open("else");
        self.finish_tile(cx, body, "loops_head_tile", accs)?;
        cx.close();
        cx.close();
        Ok(())
    }

    /// Folds into `loops_part_<acc>` the parts of the run of tile `tile` in the warps before
    /// this one, from their summaries: back while a warp's last lane holds the tile. Tail tiles
    /// do not decrease from thread to thread (but for -1, none, at the set's end), so a run that
    /// began inside a warp ends the walk at the warp before it.
    fn earlier_warps(cx: &mut Cx<'_>, accs: &Carried, tile: &str) {
        cx.open(format!(
            "for (int loops_v = loops_warp - 1; loops_v >= 0 && loops_warp_last[loops_v] == {tile}; --loops_v)"
        ));
        fold_earlier(cx, accs, "part", |v| format!("loops_warp_{v}[loops_v]"));
        cx.close();
    }

    /// Finishes tile `tile_value`: binds the tile variable, recomputes the prologue (for a
    /// subset, the tile id from the list first: a tile with a head has atoms, so it is in the
    /// set), adds the combined partials `loops_part_<acc>` to the initial values (a selection's
    /// initial values are a choice made before every atom), runs the epilogue.
    pub(super) fn finish_tile(
        &self,
        cx: &mut Cx<'_>,
        body: &TileBody<'_>,
        tile_value: &str,
        accs: &Carried,
    ) -> DResult<()> {
        cx.line(format!("const int {} = {tile_value};", body.tile));
        if let Some(id) = body.tile_id {
            cx.stmt(id)?;
        }
        body.run_prologue(cx, tile_value)?;
        for a in &accs.accs {
            let c = a.op.combine(&a.name, &format!("loops_part_{}", a.name));
            cx.line(format!("{} = {c};", a.name));
        }
        // The values before the loop are a choice at no atom: the position no choice has.
        for s in &accs.sels {
            cx.line(format!("{} = {};", s.at, s.none_at()));
        }
        choose_each(cx, &accs.sels, &|v| v.to_string(), &|v| {
            format!("loops_part_{v}")
        });
        body.run_epilogue(cx, tile_value)
    }
}

//! Step 4: a block's record in global scratch and the look-back over the records before it
//! (Merrill and Garland's decoupled look-back), which finishes a tile begun in an earlier block.

use super::lowering::{declare_each, fold_earlier};
use super::CarryLowering;
use crate::analysis::Accumulator;
use crate::diag::DResult;
use crate::emit::Cx;
use crate::ir::Stmt;

/// Scratch slots (8-byte words) per block and round: the block's own partial of each
/// accumulator (its *aggregate*), then each one's *inclusive* partial, from the tile's start;
/// two words per value, each holding 32 bits of it under the launch's stamp (`loops_publish`),
/// the second unused by 4-byte types. No accumulators, no records: nothing to carry.
pub(super) fn slots_per_block(accumulators: usize) -> u32 {
    4 * accumulators as u32
}

/// The first word of accumulator `i`'s aggregate, and of its inclusive partial, in a record.
pub(super) fn aggregate_word(i: usize) -> usize {
    2 * i
}

pub(super) fn inclusive_word(accs: usize, i: usize) -> usize {
    2 * (accs + i)
}

impl CarryLowering {
    /// Step 4: the look-back. Needs in scope `loops_cross_tile` (-1 for none) and
    /// `loops_cross_<acc>` (the block's part of that tile), `loops_inside`, `loops_block_<acc>`
    /// (the block's aggregate), `loops_data`, `loops_mine` and `loops_stamp`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn look_back(
        &self,
        cx: &mut Cx<'_>,
        tile: &str,
        tile_id: Option<&Stmt>,
        prologue: &[Stmt],
        epilogue: &[Stmt],
        accs: &[Accumulator],
    ) -> DResult<()> {
        let slots = slots_per_block(accs.len());
        let (aggregate, inclusive) = (aggregate_word, |i| inclusive_word(accs.len(), i));
        // The look-back, by the first warp (Merrill and Garland's decoupled look-back): 32
        // earlier records at a time, each waited for (its block has started, and waits only on
        // blocks before it), summed up to the nearest inclusive one. A block with a head of a
        // tile begun earlier finishes that tile with it; a block inside one tile adds its own
        // aggregate and publishes the result as inclusive, so that the blocks after it inside
        // the same long tile stop there instead of walking back to the tile's start (on a row
        // of a million atoms, 500 blocks: 16 rounds of dependent loads for the block at its end).
        cx.open("if ((loops_cross_tile >= 0 || loops_inside) && threadIdx.x < 32)");
        declare_each(cx, accs, "look", |a, _| a.op.identity(&a.ty));
        cx.open("for (long long loops_c0 = loops_chunk - 1; ; loops_c0 -= 32)");
        cx.line("const long long loops_c = loops_c0 - (long long)threadIdx.x;");
        // The whole record in registers (one sector for one accumulator), read again until
        // every word of its inclusive or of its aggregate partials carries this launch's stamp.
        cx.line(format!("unsigned long long loops_w[{slots}] = {{}};"));
        cx.line("bool loops_complete = true;");
        cx.open("if (loops_c >= 0)");
        cx.line(format!(
            "const volatile unsigned long long* const loops_theirs = loops_data + loops_c * {slots};"
        ));
        cx.open("for (;;)");
        cx.line("#pragma unroll");
        cx.line(format!(
            "for (int loops_k = 0; loops_k < {slots}; ++loops_k) loops_w[loops_k] = loops_theirs[loops_k];"
        ));
        let ready = |word: &dyn Fn(usize) -> usize| {
            accs.iter()
                .enumerate()
                .map(|(i, a)| {
                    format!(
                        "loops_ready<{}>(&loops_w[{}], loops_stamp)",
                        a.ty.cuda_name(),
                        word(i)
                    )
                })
                .collect::<Vec<_>>()
                .join(" && ")
        };
        cx.line(format!("if ({}) break;", ready(&inclusive)));
        cx.open(format!("if ({})", ready(&aggregate)));
        cx.line("loops_complete = false;");
        cx.line("break;");
        cx.close();
        cx.line("__nanosleep(32);");
        cx.close();
        cx.close();
        cx.line("const unsigned int loops_stops = __ballot_sync(0xffffffffu, loops_complete);");
        cx.line("const bool loops_in = loops_c >= 0 && (loops_stops == 0u || (int)threadIdx.x <= __ffs(loops_stops) - 1);");
        declare_each(cx, accs, "part", |a, i| {
            let ty = a.ty.cuda_name();
            format!(
                "!loops_in ? {} : loops_complete ? loops_value<{ty}>(&loops_w[{}]) : loops_value<{ty}>(&loops_w[{}])",
                a.op.identity(&a.ty),
                inclusive(i),
                aggregate(i),
            )
        });
        cx.open("for (int loops_o = 16; loops_o > 0; loops_o >>= 1)");
        for a in accs {
            let other = format!(
                "__shfl_xor_sync(0xffffffffu, loops_part_{}, loops_o)",
                a.name
            );
            let c = a.op.combine(&format!("loops_part_{}", a.name), &other);
            cx.line(format!("loops_part_{} = {c};", a.name));
        }
        cx.close();
        fold_earlier(cx, accs, "look", |a, _| format!("loops_part_{}", a.name));
        cx.line("if (loops_stops != 0u) break;");
        cx.close();
        cx.open("if (threadIdx.x == 0 && loops_inside)");
        for (i, a) in accs.iter().enumerate() {
            let c = a.op.combine(
                &format!("loops_look_{}", a.name),
                &format!("loops_block_{}", a.name),
            );
            cx.line(format!(
                "loops_publish(loops_mine + {}, loops_stamp, {c});",
                inclusive(i)
            ));
        }
        cx.close();
        cx.open("else if (threadIdx.x == 0)");
        declare_each(cx, accs, "part", |a, _| {
            a.op.combine(
                &format!("loops_look_{}", a.name),
                &format!("loops_cross_{}", a.name),
            )
        });
        self.finish_tile(
            cx,
            tile,
            tile_id,
            "loops_cross_tile",
            prologue,
            epilogue,
            accs,
        )?;
        cx.close();
        cx.close();
        Ok(())
    }
}

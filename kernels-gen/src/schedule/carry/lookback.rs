//! Step 4: a block's record in global scratch and the look-back over the records before it
//! (Merrill and Garland's decoupled look-back), which finishes a tile begun in an earlier block.
//! The read of the records is fixed CUDA, in `lookback.cuh`.

use super::fixed;
use super::lowering::{declare_each, fold_earlier, TileBody};
use super::CarryLowering;
use crate::analysis::Accumulator;
use crate::diag::DResult;
use crate::emit::Cx;

/// Scratch slots (8-byte words) per block and round: the block's own partial of each
/// accumulator (its *aggregate*), then each one's *inclusive* partial, from the tile's start;
/// two words per value, each holding 32 bits of it under the launch's stamp (`loops_publish`),
/// the second unused by 4-byte types. No accumulators, no records: nothing to carry.
pub(super) fn slots_per_block(accumulators: usize) -> u32 {
    4 * accumulators as u32
}

/// The first word of accumulator `i`'s aggregate, and of its inclusive partial, in a record.
fn aggregate_word(i: usize) -> usize {
    2 * i
}

fn inclusive_word(accs: usize, i: usize) -> usize {
    2 * (accs + i)
}

/// Declares what the block's record is written with: `loops_stamp` (the launch's stamp, from its
/// epoch), `loops_mine` (the block's record in `loops_data`, which `data` declares first: one
/// round, records from the scratch's second word) and `loops_inside` (the block lies inside one
/// tile: its record is an aggregate).
pub(super) fn start_record(cx: &mut Cx<'_>, accs: &[Accumulator], data: bool) {
    cx.line(
        "const unsigned int loops_stamp = (unsigned int)loops_epoch | (unsigned int)(loops_epoch >> 32);",
    );
    if data {
        cx.line("unsigned long long* const loops_data = loops_scratch + 1;");
    }
    cx.line(format!(
        "unsigned long long* const loops_mine = loops_data + loops_chunk * {};",
        slots_per_block(accs.len())
    ));
    cx.line("const bool loops_inside = loops_bx0 == loops_bx1;");
}

/// Publishes `loops_<var>_<acc>`, the partials of the tile in progress at the block's end, as the
/// block's aggregate where it lies inside one tile, else as its inclusive partials; and keeps
/// them in `loops_block_<acc>` for the look-back.
pub(super) fn publish_record(cx: &mut Cx<'_>, accs: &[Accumulator], var: &str) {
    for (i, a) in accs.iter().enumerate() {
        cx.line(format!(
            "loops_publish(loops_mine + (loops_inside ? {} : {}), loops_stamp, loops_{var}_{});",
            aggregate_word(i),
            inclusive_word(accs.len(), i),
            a.name
        ));
        cx.line(format!("loops_block_{0} = loops_{var}_{0};", a.name));
    }
}

impl CarryLowering {
    /// Step 4: the look-back. Needs in scope `loops_cross_tile` (-1 for none) and
    /// `loops_cross_<acc>` (the block's part of that tile), `loops_inside`, `loops_block_<acc>`
    /// (the block's aggregate), `loops_data`, `loops_mine` and `loops_stamp`.
    ///
    /// By the first warp (Merrill and Garland's decoupled look-back): 32 earlier records at a
    /// time, each waited for (its block has started, and waits only on blocks before it), summed
    /// up to the nearest inclusive one. A block with a head of a tile begun earlier finishes that
    /// tile with it; a block inside one tile adds its own aggregate and publishes the result as
    /// inclusive, so that the blocks after it inside the same long tile stop there instead of
    /// walking back to the tile's start (on a row of a million atoms, 500 blocks: 16 rounds of
    /// dependent loads for the block at its end).
    pub(super) fn look_back(
        &self,
        cx: &mut Cx<'_>,
        body: &TileBody<'_>,
        accs: &[Accumulator],
    ) -> DResult<()> {
        cx.open("if ((loops_cross_tile >= 0 || loops_inside) && threadIdx.x < 32)");
        declare_each(cx, accs, "look", |a, _| a.op.identity(&a.ty));
        cx.open("for (long long loops_c0 = loops_chunk - 1; ; loops_c0 -= 32)");
        read_records(cx, accs);
        sum_records(cx, accs);
        cx.line("if (loops_stops != 0u) break;");
        cx.close();
        let inclusive = |i| inclusive_word(accs.len(), i);
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
        self.finish_tile(cx, body, "loops_cross_tile", accs)?;
        cx.close();
        cx.close();
        Ok(())
    }
}

/// Each lane's record of the round, waited for (`lookback.cuh`): declares `loops_w` (the record),
/// `loops_complete` (it is inclusive), `loops_stops` and `loops_in` (the lane is summed).
fn read_records(cx: &mut Cx<'_>, accs: &[Accumulator]) {
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
    let slots = slots_per_block(accs.len()).to_string();
    let inclusive_ready = ready(&|i| inclusive_word(accs.len(), i));
    let aggregate_ready = ready(&aggregate_word);
    fixed::emit(
        cx,
        include_str!("lookback.cuh"),
        &[
            ("slots", &slots),
            ("inclusive_ready", &inclusive_ready),
            ("aggregate_ready", &aggregate_ready),
        ],
    );
}

/// Sums the round's records that are in (`loops_in`) across the warp, each lane's inclusive or
/// aggregate partial, and folds the sum into `loops_look_<acc>`, earlier than what it holds.
fn sum_records(cx: &mut Cx<'_>, accs: &[Accumulator]) {
    declare_each(cx, accs, "part", |a, i| {
        let ty = a.ty.cuda_name();
        format!(
            "!loops_in ? {} : loops_complete ? loops_value<{ty}>(&loops_w[{}]) : loops_value<{ty}>(&loops_w[{}])",
            a.op.identity(&a.ty),
            inclusive_word(accs.len(), i),
            aggregate_word(i),
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
}

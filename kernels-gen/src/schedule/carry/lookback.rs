//! Step 4: a block's record in global scratch and the look-back over the records before it
//! (Merrill and Garland's decoupled look-back), which finishes a tile begun in an earlier block.
//! The read of the records is fixed CUDA, in `lookback.cuh`.

use super::fixed;
use super::lowering::{choose_each, declare_each, fold_earlier, Carried, TileBody};
use super::CarryLowering;
use crate::diag::DResult;
use crate::emit::Cx;

/// Scratch slots (8-byte words) per block and round, for a partial of `fields` values
/// ([`Carried::fields`]: each accumulator; each selection's position and variables): the block's
/// own partial (its *aggregate*), then the *inclusive* partial, from the tile's start; two words
/// per value, each holding 32 bits of it under the launch's stamp (`loops_publish`), the second
/// unused by 4-byte types. Nothing carried, no records.
pub(super) fn slots_per_block(fields: usize) -> u32 {
    4 * fields as u32
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
pub(super) fn start_record(cx: &mut Cx<'_>, accs: &Carried, data: bool) {
    cx.line(
        "const unsigned int loops_stamp = (unsigned int)loops_epoch | (unsigned int)(loops_epoch >> 32);",
    );
    if data {
        cx.line("unsigned long long* const loops_data = loops_scratch + 1;");
    }
    cx.line(format!(
        "unsigned long long* const loops_mine = loops_data + loops_chunk * {};",
        slots_per_block(accs.fields().len())
    ));
    cx.line("const bool loops_inside = loops_bx0 == loops_bx1;");
}

/// Publishes `loops_<var>_<acc>`, the partials of the tile in progress at the block's end, as the
/// block's aggregate where it lies inside one tile, else as its inclusive partials; and keeps
/// them in `loops_block_<acc>` for the look-back.
pub(super) fn publish_record(cx: &mut Cx<'_>, accs: &Carried, var: &str) {
    let fields = accs.fields();
    for (i, f) in fields.iter().enumerate() {
        cx.line(format!(
            "loops_publish(loops_mine + (loops_inside ? {} : {}), loops_stamp, loops_{var}_{});",
            aggregate_word(i),
            inclusive_word(fields.len(), i),
            f.name
        ));
        cx.line(format!("loops_block_{0} = loops_{var}_{0};", f.name));
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
        accs: &Carried,
    ) -> DResult<()> {
        cx.open("if ((loops_cross_tile >= 0 || loops_inside) && threadIdx.x < 32)");
        declare_each(cx, accs, "look", |f, _| f.identity.clone());
        cx.open("for (long long loops_c0 = loops_chunk - 1; ; loops_c0 -= 32)");
        read_records(cx, accs);
        sum_records(cx, accs);
        cx.line("if (loops_stops != 0u) break;");
        cx.close();
        let fields = accs.fields();
        let inclusive = |i| inclusive_word(fields.len(), i);
        cx.open("if (threadIdx.x == 0 && loops_inside)");
        for (i, a) in accs.accs.iter().enumerate() {
            let c = a.op.combine(
                &format!("loops_look_{}", a.name),
                &format!("loops_block_{}", a.name),
            );
            cx.line(format!(
                "loops_publish(loops_mine + {}, loops_stamp, {c});",
                inclusive(i)
            ));
        }
        if !accs.sels.is_empty() {
            // A selection's inclusive choice: the better of the look-back's and the block's.
            let sels = Carried {
                accs: Vec::new(),
                sels: accs.sels.clone(),
            };
            declare_each(cx, &sels, "incl", |f, _| format!("loops_block_{}", f.name));
            choose_each(cx, &accs.sels, &|v| format!("loops_incl_{v}"), &|v| {
                format!("loops_look_{v}")
            });
            for (i, f) in fields.iter().enumerate().skip(accs.accs.len()) {
                cx.line(format!(
                    "loops_publish(loops_mine + {}, loops_stamp, loops_incl_{});",
                    inclusive(i),
                    f.name
                ));
            }
        }
        cx.close();
        cx.open("else if (threadIdx.x == 0)");
        declare_each(cx, accs, "part", |f, i| match accs.accs.get(i) {
            Some(a) => a.op.combine(
                &format!("loops_look_{}", a.name),
                &format!("loops_cross_{}", a.name),
            ),
            None => format!("loops_cross_{}", f.name),
        });
        choose_each(cx, &accs.sels, &|v| format!("loops_part_{v}"), &|v| {
            format!("loops_look_{v}")
        });
        self.finish_tile(cx, body, "loops_cross_tile", accs)?;
        cx.close();
        cx.close();
        Ok(())
    }
}

/// Each lane's record of the round, waited for (`lookback.cuh`): declares `loops_w` (the record),
/// `loops_complete` (it is inclusive), `loops_stops` and `loops_in` (the lane is summed).
fn read_records(cx: &mut Cx<'_>, accs: &Carried) {
    let fields = accs.fields();
    let ready = |word: &dyn Fn(usize) -> usize| {
        fields
            .iter()
            .enumerate()
            .map(|(i, f)| format!("loops_ready<{}>(&loops_w[{}], loops_stamp)", f.ty, word(i)))
            .collect::<Vec<_>>()
            .join(" && ")
    };
    let slots = slots_per_block(fields.len()).to_string();
    let inclusive_ready = ready(&|i| inclusive_word(fields.len(), i));
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
fn sum_records(cx: &mut Cx<'_>, accs: &Carried) {
    let n = accs.fields().len();
    declare_each(cx, accs, "part", |f, i| {
        let ty = &f.ty;
        format!(
            "!loops_in ? {} : loops_complete ? loops_value<{ty}>(&loops_w[{}]) : loops_value<{ty}>(&loops_w[{}])",
            f.identity,
            inclusive_word(n, i),
            aggregate_word(i),
        )
    });
    cx.open("for (int loops_o = 16; loops_o > 0; loops_o >>= 1)");
    for a in &accs.accs {
        let other = format!(
            "__shfl_xor_sync(0xffffffffu, loops_part_{}, loops_o)",
            a.name
        );
        let c = a.op.combine(&format!("loops_part_{}", a.name), &other);
        cx.line(format!("loops_part_{} = {c};", a.name));
    }
    choose_each(cx, &accs.sels, &|v| format!("loops_part_{v}"), &|v| {
        format!("__shfl_xor_sync(0xffffffffu, loops_part_{v}, loops_o)")
    });
    cx.close();
    fold_earlier(cx, accs, "look", |v| format!("loops_part_{v}"));
}

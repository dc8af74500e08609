//! Steps 2 and 3 for `work_oriented` where every accumulator folds one staged operand: a
//! segmented scan of the block's atoms instead of per-thread tile walks.

use super::lookback::{publish_record, start_record};
use super::lowering::{declare_each, fold_earlier, Carried, TileBody};
use super::{CarryLowering, Partition};
use crate::analysis::{carry_body, reductions, staged_updates, Accumulator, StagedUpdate};
use crate::diag::DResult;
use crate::emit::Cx;
use crate::ir::StmtKind;
use crate::schedule::Kernel;

/// Whether each accumulator has exactly one staged update: then a position's staged operand is
/// all its atom contributes, and a scan over the positions gives every tile's fold.
fn one_update_each(staged: &[StagedUpdate<'_>], accs: &[Accumulator]) -> bool {
    staged.len() == accs.len()
        && accs
            .iter()
            .all(|a| staged.iter().filter(|u| u.acc == a.name).count() == 1)
}

impl CarryLowering {
    /// Whether this lowering runs the kernel's tile loop as a segmented scan
    /// (`segmented_scan`): `work_oriented` over a whole tile set, no rounds, an
    /// epilogue, and every accumulator folding one staged operand that fits in shared memory.
    pub fn scans(&self, kernel: &Kernel) -> bool {
        if self.partition != Partition::WorkOriented || kernel.body.subset.is_some() {
            return false;
        }
        let name = kernel.config.name();
        let Ok(parts) = carry_body(kernel, kernel.body.user_body(), name) else {
            return false;
        };
        let StmtKind::ForAtoms { var, body, .. } = &parts.atoms.kind else {
            return false;
        };
        // A selection is not a fold of one operand per atom.
        let Ok(red) = reductions(body, var, name, &mut |s| s.to_string()) else {
            return false;
        };
        if !red.selections.is_empty() {
            return false;
        }
        let accs = red.accumulators;
        // Several atom loops run as passes of the per-thread walk.
        if parts.rounds.is_some()
            || !parts.earlier.is_empty()
            || parts.epilogue.is_empty()
            || accs.is_empty()
        {
            return false;
        }
        staged_updates(kernel, body, var, &[]).is_some_and(|staged| {
            self.scan_fits(staged.len(), accs.len()) && one_update_each(&staged, &accs)
        })
    }

    /// `work_oriented` where every accumulator folds one staged operand: the in-block work is a
    /// segmented scan over the block's atoms instead of per-thread tile walks.
    ///
    /// 1. The block stages its atoms' operands (coalesced) and marks, in `loops_heads`, each
    ///    atom where a tile starts (a strided loop over the range's tiles).
    /// 2. Each thread scans its `items_per_thread` consecutive atoms in registers, segmented by
    ///    the heads; the threads' totals are scanned by shuffles, then across warps; every
    ///    atom's inclusive partial (back to its tile's start, or the block's) goes back in place.
    /// 3. Each tile ending in the block is then one read: its last atom's partial. The block's
    ///    threads take the tiles in turn (`tile = bx0 + threadIdx.x + k * blockDim.x`), so
    ///    prologues, epilogues and their writes run side by side, coalesced, and empty tiles
    ///    cost a thread one step.
    ///
    /// The records and the look-back are the other schedules' ([`Self::look_back`]). Measured on an
    /// H100 against the per-thread walks: fewer instructions, no divergence in the walks.
    pub(super) fn segmented_scan(
        &self,
        cx: &mut Cx<'_>,
        set: &str,
        body: &TileBody<'_>,
        staged: &[StagedUpdate<'_>],
        accs: &[Accumulator],
    ) -> DResult<()> {
        let off = |i: &str| format!("{set}_offsets[{i}]");
        // The accumulators in the order of their staged operands: `loops_stage_<i>` is the
        // operand of the `i`th, and so is its place in the block's record.
        let accs: Vec<Accumulator> = staged
            .iter()
            .map(|u| {
                let a = accs.iter().find(|a| a.name == u.acc);
                a.expect("one update each").clone()
            })
            .collect();
        let carried = Carried::scalars(&accs);
        let accs = &carried;
        // 1. The block's range, its atoms' operands and the heads of its tiles.
        self.block_range(cx, set, true, true);
        cx.line("const int loops_n = loops_by1 - loops_by0;");
        self.stage(cx, body.atom, staged, false, true);
        self.mark_heads(cx, &off);
        // 2. The thread's atoms `p0..p0 + ipt`: heads, then an inclusive segmented scan.
        cx.line(
            "const int loops_lane = (int)threadIdx.x & 31, loops_warp = (int)threadIdx.x >> 5;",
        );
        cx.line(format!(
            "const int loops_p0 = (int)threadIdx.x * {};",
            self.items_per_thread
        ));
        let heads = HeadWords::new(self.items_per_thread);
        heads.load(cx);
        self.scan_thread_atoms(cx, &heads, &accs.accs);
        self.scan_threads(cx, accs);
        self.carry_in(cx, &heads, accs);
        self.scan_record(cx, &off, accs);
        // 3. The tiles that end in the block; the one that began in an earlier block after the
        // look-back.
        self.finish_ended_tiles(cx, body, &off, accs)?;
        self.look_back(cx, body, accs)
    }

    /// Marks in `loops_heads` each of the block's atoms where a tile starts. Tile `bx0` starts at
    /// or before the block; the others up to `bx1` may start inside.
    fn mark_heads(&self, cx: &mut Cx<'_>, off: &dyn Fn(&str) -> String) {
        cx.open(format!(
            "for (int loops_t = loops_bx0 + 1 + (int)threadIdx.x; loops_t <= loops_bx1; loops_t += {})",
            self.block_size
        ));
        cx.line(format!(
            "const int loops_s = {} - loops_by0;",
            off("loops_t")
        ));
        cx.line("if (loops_s > 0 && loops_s < loops_n) loops_heads[loops_s] = 1;");
        cx.close();
        cx.line("__syncthreads();");
    }

    /// The inclusive segmented scan of the thread's own atoms in registers: `loops_acc_<acc>[j]`
    /// is atom `p0 + j`'s partial back to the nearest head in the thread (or its first atom);
    /// `loops_f`: the thread has a head.
    fn scan_thread_atoms(&self, cx: &mut Cx<'_>, heads: &HeadWords, accs: &[Accumulator]) {
        let ipt = self.items_per_thread;
        cx.line("bool loops_f = false;");
        for a in accs {
            cx.line(format!("{} loops_acc_{}[{ipt}];", a.ty.cuda_name(), a.name));
        }
        // Unrolled by hand: the heads are register fields at constant shifts.
        for j in 0..ipt {
            cx.open("");
            cx.line(format!("const int loops_p = loops_p0 + {j};"));
            cx.line(format!("const bool loops_head = {} != 0;", heads.at(j)));
            cx.line("loops_f = loops_f || loops_head;");
            for (i, a) in accs.iter().enumerate() {
                // The operand is read once, then selected: read in both arms of the head
                // test, it compiled to a divergent branch per atom (H100 SASS: 74 branches
                // against 29).
                let v = format!("loops_v_{}", a.name);
                cx.line(format!(
                    "const {} {v} = loops_p < loops_n ? loops_stage_{i}[{}] : {};",
                    a.ty.cuda_name(),
                    pad("loops_p"),
                    a.op.identity(&a.ty)
                ));
                let folded = if j == 0 {
                    v
                } else {
                    format!(
                        "loops_head ? {v} : {}",
                        a.op.combine(&format!("loops_acc_{}[{}]", a.name, j - 1), &v)
                    )
                };
                cx.line(format!("loops_acc_{}[{j}] = {folded};", a.name));
            }
            cx.close();
        }
    }

    /// The threads' totals (has a head, partial since the last one) scanned by shuffles up,
    /// segmented, into `loops_run_<acc>`; each warp's last lane leaves the warp's in shared
    /// memory.
    fn scan_threads(&self, cx: &mut Cx<'_>, accs: &Carried) {
        let ipt = self.items_per_thread;
        declare_each(cx, accs, "run", |a, _| {
            format!("loops_acc_{}[{}]", a.name, ipt - 1)
        });
        cx.line("#pragma unroll");
        cx.open("for (int loops_o = 1; loops_o < 32; loops_o <<= 1)");
        Self::shuffle_up(cx, accs, "up", "loops_o", ("bool", "f", "loops_f"));
        cx.open("if (loops_lane >= loops_o)");
        cx.open("if (!loops_f)");
        fold_earlier(cx, accs, "run", |v| format!("loops_up_{v}"));
        cx.close();
        cx.line("loops_f = loops_f || loops_up_f;");
        cx.close();
        cx.close();
        let warps = self.block_size / 32;
        cx.shared("bool", "loops_warp_head", Some(warps), false);
        for a in &accs.accs {
            let name = format!("loops_warp_{}", a.name);
            cx.shared(a.ty.cuda_name(), &name, Some(warps), false);
        }
        cx.open("if (loops_lane == 31)");
        cx.line("loops_warp_head[loops_warp] = loops_f;");
        for a in &accs.accs {
            cx.line(format!(
                "loops_warp_{0}[loops_warp] = loops_run_{0};",
                a.name
            ));
        }
        cx.close();
    }

    /// What comes before the thread's first atom, back to the nearest head (`loops_in_<acc>`):
    /// the lane before it, then, while no head was met, the earlier warps' totals. It reaches
    /// the atoms before the thread's first head; every atom's partial goes back in place. The
    /// block's last atom's (`loops_last_<acc>`) is its record.
    fn carry_in(&self, cx: &mut Cx<'_>, heads: &HeadWords, accs: &Carried) {
        Self::shuffle_up(cx, accs, "prev", "1", ("bool", "f", "loops_f"));
        cx.line("bool loops_in_f = loops_lane > 0 && loops_prev_f;");
        declare_each(cx, accs, "in", |f, _| {
            format!("loops_lane > 0 ? loops_prev_{} : {}", f.name, f.identity)
        });
        cx.line("__syncthreads();");
        cx.open("if (!loops_in_f)");
        cx.open("for (int loops_v = loops_warp - 1; loops_v >= 0; --loops_v)");
        fold_earlier(cx, accs, "in", |v| format!("loops_warp_{v}[loops_v]"));
        cx.line("if (loops_warp_head[loops_v]) break;");
        cx.close();
        cx.close();
        cx.line("bool loops_open = true;");
        declare_each(cx, accs, "last", |f, _| f.identity.clone());
        for j in 0..self.items_per_thread {
            cx.open("");
            cx.line(format!("const int loops_p = loops_p0 + {j};"));
            cx.line(format!("if ({} != 0) loops_open = false;", heads.at(j)));
            for (i, a) in accs.accs.iter().enumerate() {
                let c = a.op.combine(
                    &format!("loops_in_{}", a.name),
                    &format!("loops_acc_{}[{j}]", a.name),
                );
                cx.line(format!("if (loops_open) loops_acc_{}[{j}] = {c};", a.name));
                cx.line(format!(
                    "if (loops_p < loops_n) loops_stage_{i}[{}] = loops_acc_{}[{j}];",
                    pad("loops_p"),
                    a.name
                ));
                cx.line(format!(
                    "if (loops_p == loops_n - 1) loops_last_{0} = loops_acc_{0}[{j}];",
                    a.name
                ));
            }
            cx.close();
        }
    }

    /// The block's record: the partial of the tile in progress at the block's end (nothing of it
    /// here if it starts at the next block), inclusive where it began in the block; published by
    /// the thread holding the block's last atom.
    fn scan_record(&self, cx: &mut Cx<'_>, off: &dyn Fn(&str) -> String, accs: &Carried) {
        start_record(cx, accs, true);
        for a in &accs.accs {
            let name = format!("loops_block_{}", a.name);
            cx.shared(a.ty.cuda_name(), &name, None, false);
        }
        cx.open(format!(
            "if ((int)threadIdx.x == max(loops_n - 1, 0) / {})",
            self.items_per_thread
        ));
        cx.open(format!(
            "if (!loops_inside && {} >= loops_by1)",
            off("loops_bx1")
        ));
        for a in &accs.accs {
            cx.line(format!("loops_last_{} = {};", a.name, a.op.identity(&a.ty)));
        }
        cx.close();
        publish_record(cx, accs, "last");
        cx.close();
        cx.line("__syncthreads();");
    }

    /// The tiles that end in the block, a thread each in turn: each is one read, its last atom's
    /// partial. Tile `bx0`, if it began in an earlier block, is finished after the look-back
    /// instead: declares it and the block's part of it for [`Self::look_back`].
    fn finish_ended_tiles(
        &self,
        cx: &mut Cx<'_>,
        body: &TileBody<'_>,
        off: &dyn Fn(&str) -> String,
        accs: &Carried,
    ) -> DResult<()> {
        cx.line(format!(
            "const bool loops_cross = !loops_inside && {} < loops_by0;",
            off("loops_bx0")
        ));
        cx.open(format!(
            "for (int loops_t = loops_bx0 + (loops_cross ? 1 : 0) + (int)threadIdx.x; loops_t < loops_bx1; loops_t += {})",
            self.block_size
        ));
        cx.line(format!("const int {} = loops_t;", body.tile));
        cx.block(body.prologue)?;
        cx.line(format!(
            "const int loops_e = {} - loops_by0;",
            off("loops_t + 1")
        ));
        cx.open(format!("if (loops_e > {} - loops_by0)", off("loops_t")));
        for (i, a) in accs.accs.iter().enumerate() {
            let c =
                a.op.combine(&a.name, &format!("loops_stage_{i}[{}]", pad("loops_e - 1")));
            cx.line(format!("{} = {c};", a.name));
        }
        cx.close();
        cx.block(body.epilogue)?;
        cx.close();
        cx.line("const int loops_cross_tile = loops_cross ? loops_bx0 : -1;");
        cx.line(format!(
            "const int loops_cross_end = loops_cross ? {} - 1 - loops_by0 : 0;",
            off("loops_bx0 + 1")
        ));
        for (i, a) in accs.accs.iter().enumerate() {
            cx.line(format!(
                "const {} loops_cross_{} = loops_stage_{i}[{}];",
                a.ty.cuda_name(),
                a.name,
                pad("loops_cross_end")
            ));
        }
        Ok(())
    }
}

/// Position `p` of the staged operands: one pad slot per 32 ([`CarryLowering::stage`]).
fn pad(p: &str) -> String {
    format!("({p}) + (({p}) >> 5)")
}

/// How a thread reads the head flags of its atoms: as whole words, 8 bytes where the thread's
/// run is 8-aligned (fewer live registers through the scan: at 16 items per thread, 8 bytes of
/// spills instead of 24), else 4; else byte by byte.
struct HeadWords {
    items_per_thread: u32,
    /// Bytes, CUDA type and literal suffix of a word.
    word: Option<(u32, &'static str, &'static str)>,
}

impl HeadWords {
    fn new(items_per_thread: u32) -> HeadWords {
        let word = [(8, "unsigned long long", "ull"), (4, "unsigned int", "u")]
            .into_iter()
            .find(|(bytes, _, _)| items_per_thread.is_multiple_of(*bytes));
        HeadWords {
            items_per_thread,
            word,
        }
    }

    /// Loads the thread's words into `loops_hw`.
    fn load(&self, cx: &mut Cx<'_>) {
        if let Some((bytes, ty, _)) = self.word {
            let words = self.items_per_thread / bytes;
            cx.line(format!("{ty} loops_hw[{words}];"));
            cx.line("#pragma unroll");
            cx.line(format!(
                "for (int loops_k = 0; loops_k < {words}; ++loops_k) loops_hw[loops_k] = reinterpret_cast<const {ty}*>(loops_heads)[threadIdx.x * {words} + loops_k];"
            ));
        }
    }

    /// The head flag of the thread's atom `j`.
    fn at(&self, j: u32) -> String {
        match self.word {
            Some((bytes, _, suffix)) => format!(
                "((loops_hw[{}] >> {}) & 0xff{suffix})",
                j / bytes,
                8 * (j % bytes)
            ),
            None => format!("loops_heads[loops_p0 + {j}]"),
        }
    }
}

//! Step 1, where the atom loop only folds operands that depend on the atom: the block computes
//! those operands for its atoms into shared memory, coalesced, if they fit there.

use super::CarryLowering;
use crate::analysis::StagedUpdate;
use crate::emit::Cx;
use crate::ir::BinOp;

/// Static shared memory a block may take (of CUDA's 48 KiB per block without opting in to
/// more): enough to stage the operands of 12 items per thread in f64.
const SHARED_BUDGET: u32 = 46 * 1024;

impl CarryLowering {
    /// Shared memory of everything but the staged operands: the offsets window, the warps'
    /// summaries of the in-block scan, the block's cross and tail partials.
    fn fixed_shared(&self, accs: usize) -> u32 {
        let warps = self.block_size / 32;
        (self.block_items() + 2) * 4 + warps * (8 + 8 * accs as u32) + 16 * accs as u32 + 32
    }

    /// Shared memory of everything but the staged operands under [`Self::segmented_scan`]: a
    /// byte per atom for the tile heads instead of the offsets window, the warps' heads and
    /// totals, the block's total, the ticket and the searched range.
    fn scan_fixed_shared(&self, accs: usize) -> u32 {
        let warps = self.block_size / 32;
        self.block_items() + warps * (1 + 8 * accs as u32) + 8 * accs as u32 + 32
    }

    /// Bytes of `updates` staged operands (8 bytes each at most, padded a word per 32).
    fn staged_shared(&self, updates: usize) -> u32 {
        updates as u32 * (self.block_items() * 33 / 32) * 8
    }

    /// Whether `updates` staged operands fit beside the rest.
    pub(super) fn stage_fits(&self, updates: usize, accs: usize) -> bool {
        self.fixed_shared(accs) + self.staged_shared(updates) <= SHARED_BUDGET
    }

    /// [`Self::stage_fits`] for the segmented scan, which keeps no offsets window: 16 items per
    /// thread fit in f64 there (38 KB), not beside a window.
    pub(super) fn scan_fits(&self, updates: usize, accs: usize) -> bool {
        self.scan_fixed_shared(accs) + self.staged_shared(updates) <= SHARED_BUDGET
    }

    /// Computes the operands of the block's atoms into shared memory, each atom by the thread
    /// `atom % blockDim.x` (coalesced), for the segments to fold in; then a barrier if
    /// `barrier` (else the caller emits one before the segments read them). `folded`: each
    /// operand is stored ready to fold with its accumulator's combine (`acc -= e` stores `-e`),
    /// for a scan that folds them without the update's own operator.
    pub(super) fn stage(
        &self,
        cx: &mut Cx<'_>,
        var: &str,
        staged: &[StagedUpdate<'_>],
        barrier: bool,
        folded: bool,
    ) {
        for (i, u) in staged.iter().enumerate() {
            // One pad slot per 32: threads read their segments' operands at a stride of about
            // `items_per_thread`, which would otherwise fall into a few banks.
            cx.shared(
                u.ty.cuda_name(),
                &format!("loops_stage_{i}"),
                Some(self.block_items() + self.block_items() / 32),
                false,
            );
        }
        // Where the runtime says the launch streams past L2, the tile set's arrays are loaded
        // evict-first: the entry point's constant `loops_streamed` picks one of two loops, so
        // each entry holds one ([`crate::schedule::RangeEntry`]).
        if cx.kernel.takes_block_starts() && !cx.is_checked() {
            cx.open("if (loops_streamed)");
            cx.streamed_atom = Some(var.to_string());
            self.stage_loop(cx, var, staged, folded);
            cx.streamed_atom = None;
            cx.close();
            cx.open("else");
            self.stage_loop(cx, var, staged, folded);
            cx.close();
        } else {
            self.stage_loop(cx, var, staged, folded);
        }
        if barrier {
            cx.line("__syncthreads();");
        }
    }

    /// The staging loop of [`Self::stage`]: each thread's operands at a stride of the block.
    fn stage_loop(&self, cx: &mut Cx<'_>, var: &str, staged: &[StagedUpdate<'_>], folded: bool) {
        // `items_per_thread` trips, unrolled, so that each thread's loads (and the gathers that
        // depend on them) are all in flight at once.
        cx.line("#pragma unroll");
        cx.open(format!(
            "for (int loops_r = 0; loops_r < {}; ++loops_r)",
            self.items_per_thread
        ));
        cx.line(format!(
            "const int loops_k = (int)threadIdx.x + loops_r * {};",
            self.block_size
        ));
        cx.open("if (loops_k < loops_by1 - loops_by0)");
        cx.line(format!("const int {var} = loops_by0 + loops_k;"));
        for (i, u) in staged.iter().enumerate() {
            let v = cx.expr(u.operand);
            let v = if folded && u.op == Some(BinOp::Sub) {
                format!("(-({v}))")
            } else {
                v
            };
            cx.line(format!("loops_stage_{i}[loops_k + (loops_k >> 5)] = {v};"));
        }
        cx.close();
        cx.close();
    }
}

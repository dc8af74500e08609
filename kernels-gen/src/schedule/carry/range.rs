//! Step 1: the block's range of the tile set (kept block starts, or two warps' searches), with a
//! ticket for its place in the look-back's order where there are partials to carry; the range's
//! offsets in shared memory; the thread's segment of the range. The ticket and the two searches
//! are fixed CUDA: `ticket.cuh`, `warp_search.cuh`, `thread_search.cuh`.

use super::{fixed, CarryLowering, Partition};
use crate::emit::Cx;

/// The shared-memory search of a block's segment (`thread_search.cuh`): the largest `x` in
/// `lo..=hi` with `offsets[x] + slope * x <= bound`, where `off(x)` reads the offsets.
fn search(off: &dyn Fn(&str) -> String, lo: &str, hi: &str, bound: &str, slope: u32) -> String {
    let probe = if slope == 0 {
        format!("(long long){}", off("mid"))
    } else {
        format!("(long long){} + mid", off("mid"))
    };
    fixed::one_line(
        include_str!("thread_search.cuh"),
        &[("lo", lo), ("hi", hi), ("probe", &probe), ("bound", bound)],
    )
}

impl CarryLowering {
    /// Offset `x` of the tile set as a thread reads it after the range is found: from the window
    /// in shared memory ([`Self::offsets_window`]); under `work_oriented` from global memory where
    /// the range has more empty tiles than the window holds; under `split`, which keeps no window,
    /// from global memory.
    pub(super) fn window_offset(&self, set: &str, x: &str) -> String {
        match self.partition {
            Partition::MergePath => format!("loops_offs[({x}) - loops_bx0]"),
            Partition::WorkOriented => {
                format!("(loops_windowed ? loops_offs[({x}) - loops_bx0] : {set}_offsets[{x}])")
            }
            Partition::Split { .. } => format!("{set}_offsets[{x}]"),
        }
    }

    /// Declares the block's range of the tile set (kept block starts, or two warps' searches):
    /// `loops_bx0, loops_by0` (where it starts) and `loops_bx1, loops_by1` (where it ends). With
    /// partials to carry, a block takes its place in the order (`loops_chunk`) from a ticket, so
    /// that every block it looks back at has started; otherwise it is `blockIdx.x`. The offsets
    /// window follows ([`Self::offsets_window`]).
    pub(super) fn block_range(&self, cx: &mut Cx<'_>, set: &str, carries: bool, heads: bool) {
        let items = self.block_items();
        let split = matches!(self.partition, Partition::Split { .. });
        if heads {
            // Zeroed before the ticket's barrier, marked after it: no barrier of their own.
            let b = self.block_size;
            cx.shared("unsigned char", "loops_heads", Some(items), true);
            cx.line("#pragma unroll");
            cx.line(format!(
                "for (int loops_r = 0; loops_r < {}; ++loops_r) {{ const int loops_i = (int)threadIdx.x + loops_r * {b}; \
                 if (loops_i < {}) reinterpret_cast<unsigned int*>(loops_heads)[loops_i] = 0u; }}",
                (items / 4).div_ceil(b),
                items / 4
            ));
        } else if !split {
            cx.shared("int", "loops_offs", Some(items + 2), false);
        }
        if carries {
            cx.shared("unsigned long long", "loops_ticket", None, false);
            fixed::emit(cx, include_str!("ticket.cuh"), &[]);
        } else {
            cx.line("const long long loops_chunk = blockIdx.x;");
        }
        // `split` searches the prefix sum of the tiles' piece counts instead of their offsets.
        let searched = if split {
            "loops_pieces".to_string()
        } else {
            format!("{set}_offsets")
        };
        cx.line(fixed::one_line(
            include_str!("warp_search.cuh"),
            &[("searched", &searched)],
        ));
        // The first warp finds where the block's range starts, the second where it ends.
        cx.shared("int", "loops_range", Some(2), false);
        match self.partition {
            Partition::MergePath => {
                cx.line(format!(
                    "const long long loops_total = (long long){set}_rows + {set}_nnz;"
                ));
                cx.line(format!(
                    "const long long loops_bd0 = min(loops_chunk * {items}, loops_total);"
                ));
                cx.line(format!(
                    "const long long loops_bd1 = min(loops_bd0 + {items}, loops_total);"
                ));
                self.find_range(
                    cx,
                    "const long long loops_d = loops_end ? loops_bd1 : loops_bd0;",
                    // Over all tiles, not only those the diagonal can reach: every block's
                    // search then walks the same tree of probes from the top, whose upper
                    // levels stay in L1 for the blocks after the first on an SM.
                    &format!("loops_warp_search(0, {set}_rows, loops_d, 1)"),
                );
                cx.line("const int loops_bx0 = loops_r0, loops_bx1 = loops_r1;");
                cx.line("const int loops_by0 = (int)(loops_bd0 - loops_bx0);");
                cx.line("const int loops_by1 = (int)(loops_bd1 - loops_bx1);");
            }
            Partition::WorkOriented => {
                cx.line(format!(
                    "const int loops_by0 = (int)min(loops_chunk * {items}, (long long){set}_nnz);"
                ));
                cx.line(format!(
                    "const int loops_by1 = (int)min((long long)loops_by0 + {items}, (long long){set}_nnz);"
                ));
                // A tile belongs to the range holding its end; the first range also takes the
                // empty tiles before the first atom, the last one those after the last atom.
                self.find_range(
                    cx,
                    "const int loops_p = loops_end ? loops_by1 : loops_by0;",
                    &format!("loops_warp_search(0, {set}_rows, loops_p, 0)"),
                );
                cx.line("const int loops_bx0 = loops_chunk == 0 ? 0 : loops_r0;");
                cx.line(format!(
                    "const int loops_bx1 = loops_by1 == {set}_nnz ? {set}_rows : loops_r1;"
                ));
            }
            Partition::Split { .. } => {
                // The block's virtual tiles `loops_bi0..loops_bi1`, one per thread; a range
                // starts in the last tile whose first piece is at or before it.
                cx.line(format!(
                    "const long long loops_pieces_total = loops_pieces[{set}_rows];"
                ));
                cx.line(format!(
                    "const long long loops_bi0 = min(loops_chunk * {items}, loops_pieces_total);"
                ));
                cx.line(format!(
                    "const long long loops_bi1 = min(loops_bi0 + {items}, loops_pieces_total);"
                ));
                self.two_warp_searches(
                    cx,
                    "const long long loops_i = loops_end ? loops_bi1 : loops_bi0;",
                    &format!("loops_warp_search(0, {set}_rows, loops_i, 0)"),
                );
                cx.line("__syncthreads();");
                cx.line("const int loops_bx0 = loops_range[0], loops_bx1 = loops_range[1];");
                for (end, i) in [("0", "loops_bi0"), ("1", "loops_bi1")] {
                    cx.line(format!(
                        "const int loops_by{end} = (int)({set}_offsets[loops_bx{end}] + ({i} - loops_pieces[loops_bx{end}]) * (long long)loops_mdt);"
                    ));
                }
            }
        }
    }

    /// The offsets `loops_bx0..=loops_bx1 + 1` in shared memory (`loops_offs`), without the
    /// barrier that must follow before they are read. `split` has none (its segments read the
    /// offsets where they need them, and its range ends with a barrier): false.
    pub(super) fn offsets_window(&self, cx: &mut Cx<'_>, set: &str) -> bool {
        let items = self.block_items();
        let window = format!("min(loops_bx1 + 1, {set}_rows) - loops_bx0 + 1");
        match self.partition {
            Partition::MergePath => cx.line(format!("const int loops_window = {window};")),
            Partition::Split { .. } => return false,
            Partition::WorkOriented => {
                // A range of atoms may hold any number of empty tiles: past the window's size,
                // the offsets are read from global memory.
                cx.line(format!("const int loops_window = {window};"));
                cx.line(format!(
                    "const bool loops_windowed = loops_window <= {};",
                    items + 2
                ));
            }
        }
        let guard = match self.partition {
            Partition::MergePath | Partition::Split { .. } => "",
            Partition::WorkOriented => "if (loops_windowed) ",
        };
        // A fixed trip count, unrolled: every thread issues all its loads before the first
        // one returns (a loop bounded by `loops_window` waited for each load in turn).
        let b = self.block_size;
        let trips = (self.block_items() + 2).div_ceil(b);
        cx.line(format!("{guard}{{"));
        cx.line("#pragma unroll");
        cx.line(format!("for (int loops_r = 0; loops_r < {trips}; ++loops_r) {{ const int loops_i = (int)threadIdx.x + loops_r * {b}; if (loops_i < loops_window) loops_offs[loops_i] = {set}_offsets[loops_bx0 + loops_i]; }}"));
        cx.line("}");
        true
    }

    /// Declares the first tile of the block's range as `loops_r0` and its last as `loops_r1`: from
    /// `loops_block_starts` where the runtime kept them (a whole tile set: computed once per
    /// tile set, two loads instead of two searches of dependent loads on every block's critical
    /// path), else by [`Self::two_warp_searches`]. Which, is the body's template constant
    /// `loops_kept` ([`crate::schedule::RangeEntry`]).
    fn find_range(&self, cx: &mut Cx<'_>, bound: &str, search: &str) {
        if !cx.kernel.takes_block_starts() {
            self.two_warp_searches(cx, bound, search);
            cx.line("__syncthreads();");
            cx.line("const int loops_r0 = loops_range[0], loops_r1 = loops_range[1];");
            return;
        }
        // Every thread loads both starts (one broadcast transaction per warp) into registers:
        // no barrier between the load and the loads that depend on it.
        cx.line("int loops_r0, loops_r1;");
        cx.open("if (loops_kept)");
        cx.line("loops_r0 = loops_block_starts[loops_chunk];");
        cx.line("loops_r1 = loops_block_starts[loops_chunk + 1];");
        cx.close();
        // A constant of the entry point: the barrier is legal here.
        cx.open("else");
        self.two_warp_searches(cx, bound, search);
        cx.line("__syncthreads();");
        cx.line("loops_r0 = loops_range[0];");
        cx.line("loops_r1 = loops_range[1];");
        cx.close();
    }

    /// Runs `search` for the range's start (`loops_end` false) and end (true) into
    /// `loops_range[0]` and `[1]`: on two warps at once, or one after the other in a block of one
    /// warp. `bound` declares what `search` reads from `loops_end`.
    fn two_warp_searches(&self, cx: &mut Cx<'_>, bound: &str, search: &str) {
        if self.block_size >= 64 {
            cx.open("if (threadIdx.x < 64)");
            cx.line("const bool loops_end = threadIdx.x >= 32;");
            cx.line(bound);
            cx.line(format!("const int loops_x = {search};"));
            cx.line("if ((threadIdx.x & 31) == 0) loops_range[loops_end] = loops_x;");
            cx.close();
        } else {
            cx.open("for (int loops_end = 0; loops_end < 2; ++loops_end)");
            cx.line(bound);
            cx.line(format!("const int loops_x = {search};"));
            cx.line("if (threadIdx.x == 0) loops_range[loops_end] = loops_x;");
            cx.close();
        }
    }

    /// Declares `loops_x0, loops_y0, loops_x1, loops_y1`: this thread's segment of the block's
    /// range, by binary search in the shared offsets.
    pub(super) fn thread_segment(&self, cx: &mut Cx<'_>, set: &str, off: &dyn Fn(&str) -> String) {
        let s = self.items_per_thread;
        match self.partition {
            Partition::MergePath => {
                cx.line(format!(
                    "const long long loops_d0 = min(loops_bd0 + (long long)threadIdx.x * {s}, loops_bd1);"
                ));
                cx.line(format!(
                    "const long long loops_d1 = min(loops_d0 + {s}, loops_bd1);"
                ));
                for which in ["0", "1"] {
                    let d = format!("loops_d{which}");
                    let x = search(
                        off,
                        &format!("max((long long)loops_bx0, {d} - {set}_nnz)"),
                        &format!("min((long long)loops_bx1, {d})"),
                        &d,
                        1,
                    );
                    cx.line(format!("const int loops_x{which} = {x};"));
                    cx.line(format!(
                        "const int loops_y{which} = (int)({d} - loops_x{which});"
                    ));
                }
            }
            Partition::WorkOriented => {
                cx.line(format!(
                    "const int loops_last_thread = max(0, (loops_by1 - loops_by0 + {}) / {s} - 1);",
                    s - 1
                ));
                cx.line("const bool loops_active = (int)threadIdx.x <= loops_last_thread;");
                cx.line(format!(
                    "const int loops_y0 = loops_active ? loops_by0 + (int)threadIdx.x * {s} : loops_by1;"
                ));
                cx.line(format!(
                    "const int loops_y1 = loops_active ? min(loops_y0 + {s}, loops_by1) : loops_by1;"
                ));
                let ended_by = |p: &str| search(off, "loops_bx0", "loops_bx1", p, 0);
                cx.line(format!(
                    "const int loops_x0 = !loops_active ? loops_bx1 : threadIdx.x == 0 ? loops_bx0 : {};",
                    ended_by("loops_y0")
                ));
                cx.line(format!(
                    "const int loops_x1 = (!loops_active || (int)threadIdx.x == loops_last_thread) ? loops_bx1 : {};",
                    ended_by("loops_y1")
                ));
            }
            Partition::Split { .. } => {
                // Virtual tile `loops_i`: piece `loops_i - pieces[x0]` of tile x0; after it, the
                // same tile is in progress, or (its last piece) the next tile with pieces.
                let pieces = |i: &str| format!("loops_pieces[{i}]");
                cx.line("const long long loops_i = loops_bi0 + (long long)threadIdx.x;");
                cx.line("const bool loops_active = loops_i < loops_bi1;");
                cx.line(format!(
                    "const int loops_x0 = !loops_active ? loops_bx1 : {};",
                    search(&pieces, "loops_bx0", "loops_bx1", "loops_i", 0)
                ));
                cx.line(format!(
                    "const int loops_y0 = !loops_active ? loops_by1 : (int)({} + (loops_i - loops_pieces[loops_x0]) * (long long)loops_mdt);",
                    off("loops_x0")
                ));
                cx.line(format!(
                    "const int loops_x1 = !loops_active ? loops_bx1 : {};",
                    search(&pieces, "loops_x0", "loops_bx1", "loops_i + 1", 0)
                ));
                cx.line(format!(
                    "const int loops_y1 = !loops_active ? loops_by1 : loops_x1 == loops_x0 ? loops_y0 + loops_mdt : {};",
                    off("loops_x1")
                ));
            }
        }
    }
}

//! What `merge_path` and `work_oriented` share: each thread gets one contiguous *segment* of the tile
//! set (tiles `x0..=x1`, atoms `y0..y1`), and a tile cut by a segment boundary is finished by a carry
//! fix-up, so the tile's epilogue runs exactly once, with the complete accumulators:
//!
//! 1. Each thread runs its segment. A tile it holds whole gets its epilogue at once. For a tile cut at
//!    the segment's start whose end is in the segment (its *head*), and for the tile in progress at the
//!    segment's end (its *tail*), it keeps the partial accumulators, started from the operator's
//!    identity.
//! 2. In the block, the thread holding a head combines the tails of the threads before it that hold
//!    the same tile, recomputes the tile's prologue (side-effect-free `let`s) for the initial values,
//!    and runs the epilogue. If the tile began in an earlier block, it leaves the partial in global
//!    scratch instead, and the block's last thread leaves the block's tail there too.
//! 3. The last block to finish (a ticket counter in scratch) combines the cross-block heads with the
//!    tails of the blocks before and runs their epilogues. No block ever waits for another.
//!
//! The partition is the only difference between the two schedules; [`model_run`] replays the whole
//! protocol in Rust for the property tests.

/// How the tile set is cut into segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partition {
    /// Equal shares of tiles + atoms along the merge path (Merrill and Garland, SC'16).
    MergePath,
    /// Equal shares of atoms; a tile belongs to the segment that holds its end.
    WorkOriented,
}

/// One thread's segment: it completes tiles `x0..x1` and processes atoms `y0..y1`; tile `x1` (if it
/// exists) is in progress at the segment's end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub x0: u64,
    pub y0: u64,
    pub x1: u64,
    pub y1: u64,
}

/// The largest `x` in `lo..=hi` with `offsets[x] <= bound(x)`; `bound` decreases as `x` grows so the
/// predicate is true up to some point and false after. This is the search the CUDA does too.
fn search(offsets: &[u64], mut lo: u64, mut hi: u64, bound: impl Fn(u64) -> u64) -> u64 {
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if offsets[mid as usize] <= bound(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

impl Partition {
    /// Threads the partition uses: every item of the set covered, at least one thread.
    pub fn threads(self, tiles: u64, atoms: u64, items_per_thread: u32) -> u64 {
        let items = match self {
            Partition::MergePath => tiles + atoms,
            Partition::WorkOriented => atoms,
        };
        items.div_ceil(items_per_thread as u64).max(1)
    }

    /// The segment of thread `thread`. `offsets` has `tiles + 1` entries.
    pub fn segment(self, thread: u64, items_per_thread: u32, offsets: &[u64]) -> Segment {
        let tiles = offsets.len() as u64 - 1;
        let atoms = offsets[tiles as usize];
        let s = items_per_thread as u64;
        match self {
            Partition::MergePath => {
                let total = tiles + atoms;
                let at = |d: u64| {
                    let x = search(offsets, d.saturating_sub(atoms), d.min(tiles), |x| d - x);
                    (x, d - x)
                };
                let (x0, y0) = at((thread * s).min(total));
                let (x1, y1) = at((thread * s + s).min(total));
                Segment { x0, y0, x1, y1 }
            }
            Partition::WorkOriented => {
                let threads = self.threads(tiles, atoms, items_per_thread);
                if thread >= threads {
                    return Segment {
                        x0: tiles,
                        y0: atoms,
                        x1: tiles,
                        y1: atoms,
                    };
                }
                // Tiles whose end is at or before atom `p`: a tile belongs to the segment holding its end.
                let ended_by = |p: u64| search(offsets, 0, tiles, |_| p);
                let y0 = thread * s;
                let y1 = (y0 + s).min(atoms);
                let x0 = if thread == 0 { 0 } else { ended_by(y0) };
                let x1 = if thread == threads - 1 {
                    tiles
                } else {
                    ended_by(y1)
                };
                Segment { x0, y0, x1, y1 }
            }
        }
    }

    pub fn blocks_wanted(self, tiles: u64, atoms: u64, items_per_thread: u32, block: u32) -> u64 {
        self.threads(tiles, atoms, items_per_thread)
            .div_ceil(block as u64)
    }
}

/// What the model saw: how often each atom was visited and each tile's epilogue ran, and the total
/// each epilogue saw when every atom contributes `value(atom)` to a sum.
#[derive(Debug, Default)]
pub struct ModelRun {
    pub atom_visits: Vec<u32>,
    pub epilogues: Vec<u32>,
    pub epilogue_sums: Vec<u64>,
}

/// Replays the protocol (segments, in-block heads and tails, cross-block fix-up by the last block)
/// for `blocks` blocks of `block` threads, with the same rules the emitted CUDA follows.
pub fn model_run(
    partition: Partition,
    items_per_thread: u32,
    block: u32,
    offsets: &[u64],
    value: impl Fn(u64) -> u64,
) -> ModelRun {
    let tiles = offsets.len() - 1;
    let atoms = offsets[tiles] as usize;
    let threads = partition.threads(tiles as u64, atoms as u64, items_per_thread);
    let blocks = threads.div_ceil(block as u64).max(1);
    let mut run = ModelRun {
        atom_visits: vec![0; atoms],
        epilogues: vec![0; tiles],
        epilogue_sums: vec![0; tiles],
    };
    // Per block: (head tile, partial) and (tail tile, partial), as in global scratch.
    let mut block_heads: Vec<Option<(u64, u64)>> = vec![None; blocks as usize];
    let mut block_tails: Vec<Option<(u64, u64)>> = vec![None; blocks as usize];
    for b in 0..blocks {
        let first = b * block as u64;
        let mut tails: Vec<Option<(u64, u64)>> = Vec::new();
        let mut heads: Vec<Option<(u64, u64)>> = Vec::new();
        let block_y0 = partition.segment(first, items_per_thread, offsets).y0;
        for lane in 0..block as u64 {
            let seg = partition.segment(first + lane, items_per_thread, offsets);
            let (mut head, mut tail) = (None, None);
            let mut nz = seg.y0;
            let mut t = seg.x0;
            while t <= seg.x1 && t < tiles as u64 {
                let cut_start = offsets[t as usize] < seg.y0;
                let is_tail = t == seg.x1;
                let stop = if is_tail {
                    seg.y1
                } else {
                    offsets[t as usize + 1]
                };
                let mut acc = 0;
                while nz < stop {
                    run.atom_visits[nz as usize] += 1;
                    acc += value(nz);
                    nz += 1;
                }
                if is_tail {
                    tail = Some((t, acc));
                } else if cut_start {
                    head = Some((t, acc));
                } else {
                    run.epilogues[t as usize] += 1;
                    run.epilogue_sums[t as usize] = acc;
                }
                t += 1;
            }
            tails.push(tail);
            heads.push(head);
        }
        for (lane, head) in heads.iter().enumerate() {
            let Some((t, mut part)) = *head else { continue };
            let mut j = lane as i64 - 1;
            while j >= 0 && tails[j as usize].map(|(tt, _)| tt) == Some(t) {
                part += tails[j as usize].unwrap().1;
                j -= 1;
            }
            if j < 0 && offsets[t as usize] < block_y0 {
                block_heads[b as usize] = Some((t, part));
            } else {
                run.epilogues[t as usize] += 1;
                run.epilogue_sums[t as usize] = part;
            }
        }
        let last_lane = block as usize - 1;
        if let Some((t, mut part)) = tails[last_lane] {
            let mut j = last_lane as i64 - 1;
            while j >= 0 && tails[j as usize].map(|(tt, _)| tt) == Some(t) {
                part += tails[j as usize].unwrap().1;
                j -= 1;
            }
            block_tails[b as usize] = Some((t, part));
        }
    }
    for (b, head) in block_heads.iter().enumerate() {
        let Some((t, mut part)) = *head else {
            continue;
        };
        let mut c = b as i64 - 1;
        while c >= 0 && block_tails[c as usize].map(|(tt, _)| tt) == Some(t) {
            part += block_tails[c as usize].unwrap().1;
            c -= 1;
        }
        run.epilogues[t as usize] += 1;
        run.epilogue_sums[t as usize] = part;
    }
    run
}

#[cfg(feature = "frontend")]
pub use lowering::CarryLowering;

#[cfg(feature = "frontend")]
mod lowering {
    use super::Partition;
    use crate::analysis::{accumulators, carry_body, Accumulator};
    use crate::diag::{bail, DResult};
    use crate::emit::{AtomLoop, Cx};
    use crate::ir::{Kernel, Stmt, StmtKind, TileLoop};
    use crate::schedule::Lowering;

    pub struct CarryLowering {
        pub partition: Partition,
        pub items_per_thread: u32,
        pub block_size: u32,
    }

    /// Scratch slots per block: head tile, head partials, tail tile, tail partials.
    pub fn slots_per_block(accumulators: usize) -> u32 {
        2 + 2 * accumulators as u32
    }

    impl Lowering for CarryLowering {
        fn check(&self, kernel: &Kernel) -> DResult<()> {
            carry_body(kernel, &kernel.body.body, kernel.config.name()).map(|_| ())
        }

        fn tile_loop(&self, cx: &mut Cx<'_>, tiles: &TileLoop) -> DResult<()> {
            let name = cx.kernel.config.name();
            let parts = carry_body(cx.kernel, &tiles.body, name)?;
            let StmtKind::ForAtoms {
                var,
                body: atom_body,
                ..
            } = &parts.atoms.kind
            else {
                unreachable!("carry_body returns the atom loop")
            };
            let accs = accumulators(atom_body, var, name)?;
            let set = tiles.set.as_str();
            let tile = tiles.tile.as_str();
            cx.line_directive(tiles.line);
            self.segment(cx, set);
            // Without an epilogue there is nothing to finish: atoms do their own work.
            let fixup = !parts.epilogue.is_empty();
            let slots = slots_per_block(accs.len());
            // Each round (iteration of a tile-invariant loop around the atom loop) is the whole
            // protocol again, with its own scratch region.
            if let Some(r) = &parts.rounds {
                let (start, end) = (cx.expr(r.start), cx.expr(r.end));
                let t = r.ty.cuda_name();
                cx.line_directive(r.line);
                cx.line(format!("const {t} loops_round_end = {end};"));
                cx.open(format!(
                    "for ({t} {0} = {start}, loops_round = 0; {0} < loops_round_end; ++{0}, ++loops_round)",
                    r.var
                ));
                // Scratch: every round's ticket counter first (the runtime zeroes them), then each
                // round's per-block slots.
                if fixup {
                    cx.line(
                        "unsigned long long* const loops_counter = loops_scratch + loops_round;",
                    );
                    cx.line(format!(
                        "unsigned long long* const loops_data = loops_scratch + (loops_round_end > {start} ? loops_round_end - {start} : 0) \
                         + (long long)loops_round * gridDim.x * {slots};"
                    ));
                }
            } else if fixup {
                cx.line("unsigned long long* const loops_counter = loops_scratch;");
                cx.line("unsigned long long* const loops_data = loops_scratch + 1;");
            }
            if fixup {
                for a in &accs {
                    let (ty, id) = (a.ty.cuda_name(), a.op.identity(&a.ty));
                    cx.line(format!(
                        "{ty} loops_head_{0} = {id}, loops_tail_{0} = {id};",
                        a.name
                    ));
                }
                cx.line("int loops_head_tile = -1, loops_tail_tile = -1;");
            }
            cx.line("int loops_nz = loops_y0;");
            cx.open(format!("for (int loops_t = loops_x0; loops_t <= loops_x1 && loops_t < {set}_rows; ++loops_t)"));
            cx.line(format!("const int {tile} = loops_t;"));
            cx.block(parts.prologue)?;
            cx.line(format!(
                "const bool loops_cut = {set}_offsets[loops_t] < loops_y0;"
            ));
            cx.line("const bool loops_is_tail = loops_t == loops_x1;");
            cx.line(format!(
                "const int loops_stop = loops_is_tail ? loops_y1 : {set}_offsets[loops_t + 1];"
            ));
            if fixup && !accs.is_empty() {
                cx.open("if (loops_cut || loops_is_tail)");
                for a in &accs {
                    cx.line(format!("{} = {};", a.name, a.op.identity(&a.ty)));
                }
                cx.close();
            }
            cx.line_directive(parts.atoms.line);
            cx.open("for (; loops_nz < loops_stop; ++loops_nz)");
            cx.line(format!("const int {var} = loops_nz;"));
            cx.block(atom_body)?;
            cx.close();
            if fixup {
                cx.open("if (loops_is_tail)");
                cx.line("loops_tail_tile = loops_t;");
                for a in &accs {
                    cx.line(format!("loops_tail_{0} = {0};", a.name));
                }
                cx.close();
                cx.open("else if (loops_cut)");
                cx.line("loops_head_tile = loops_t;");
                for a in &accs {
                    cx.line(format!("loops_head_{0} = {0};", a.name));
                }
                cx.close();
                cx.open("else");
                cx.block(parts.epilogue)?;
                cx.close();
            } else {
                cx.block(parts.epilogue)?;
            }
            cx.close();
            if fixup {
                cx.scratch_slots_per_block = slots;
                self.fixup(cx, set, tile, parts.prologue, parts.epilogue, &accs)?;
            }
            if parts.rounds.is_some() {
                cx.close();
            }
            Ok(())
        }

        fn atom_loop(&self, _cx: &mut Cx<'_>, atoms: AtomLoop<'_>) -> DResult<()> {
            bail!(
                atoms.tile.span,
                "internal error: the carry schedules lower the atom loop with the tile loop"
            )
        }
    }

    /// `T loops_part_<acc> = <from(acc, i)>;` for each accumulator: a partial result being combined.
    fn declare_parts(
        cx: &mut Cx<'_>,
        accs: &[Accumulator],
        from: impl Fn(&Accumulator, usize) -> String,
    ) {
        for (i, a) in accs.iter().enumerate() {
            cx.line(format!(
                "{} loops_part_{} = {};",
                a.ty.cuda_name(),
                a.name,
                from(a, i)
            ));
        }
    }

    /// `loops_part_<acc> = <earlier(acc, i)> op loops_part_<acc>;`: folds in the partial of an earlier
    /// thread or block (earlier first, the order of the sequential loop).
    fn fold_earlier(
        cx: &mut Cx<'_>,
        accs: &[Accumulator],
        earlier: impl Fn(&Accumulator, usize) -> String,
    ) {
        for (i, a) in accs.iter().enumerate() {
            let c =
                a.op.combine(&earlier(a, i), &format!("loops_part_{}", a.name));
            cx.line(format!("loops_part_{} = {c};", a.name));
        }
    }

    /// Stores each `loops_part_<acc>` in its 8-byte scratch slot, `target[first + i]`.
    fn store_parts(cx: &mut Cx<'_>, accs: &[Accumulator], target: &str, first: usize) {
        for (i, a) in accs.iter().enumerate() {
            cx.line(format!(
                "*reinterpret_cast<{}*>(&{target}[{}]) = loops_part_{};",
                a.ty.cuda_name(),
                first + i,
                a.name
            ));
        }
    }

    impl CarryLowering {
        /// Declares `loops_x0, loops_y0, loops_x1, loops_y1`: this thread's segment.
        fn segment(&self, cx: &mut Cx<'_>, set: &str) {
            let s = self.items_per_thread;
            cx.line(
                "const long long loops_thread = (long long)blockIdx.x * blockDim.x + threadIdx.x;",
            );
            // The search of `Partition::segment`: the largest x in lo..=hi with offsets[x] <= bound(x).
            let search = |lo: &str, hi: &str, bound: &str| {
                format!(
                    "[&]() {{ long long lo = {lo}, hi = {hi}; while (lo < hi) {{ const long long mid = (lo + hi + 1) >> 1; \
                     if ((long long){set}_offsets[mid] <= {bound}) lo = mid; else hi = mid - 1; }} return (int)lo; }}()"
                )
            };
            match self.partition {
                Partition::MergePath => {
                    cx.line(format!(
                        "const long long loops_total = (long long){set}_rows + {set}_nnz;"
                    ));
                    for (which, d) in [
                        ("0", format!("loops_thread * {s}")),
                        ("1", format!("loops_thread * {s} + {s}")),
                    ] {
                        cx.line(format!(
                            "const long long loops_d{which} = min({d}, loops_total);"
                        ));
                        let x = search(
                            &format!("max(0ll, loops_d{which} - {set}_nnz)"),
                            &format!("min(loops_d{which}, (long long){set}_rows)"),
                            &format!("loops_d{which} - mid"),
                        );
                        cx.line(format!("const int loops_x{which} = {x};"));
                        cx.line(format!(
                            "const int loops_y{which} = (int)(loops_d{which} - loops_x{which});"
                        ));
                    }
                }
                Partition::WorkOriented => {
                    cx.line(format!("const long long loops_threads = max(1ll, ((long long){set}_nnz + {}) / {s});", s - 1));
                    cx.line("const bool loops_active = loops_thread < loops_threads;");
                    cx.line(format!("const int loops_y0 = loops_active ? (int)(loops_thread * {s}) : {set}_nnz;"));
                    cx.line(format!("const int loops_y1 = loops_active ? (int)min(loops_thread * {s} + {s}, (long long){set}_nnz) : {set}_nnz;"));
                    let ended_by = |p: &str| search("0", &format!("{set}_rows"), p);
                    cx.line(format!(
                        "const int loops_x0 = !loops_active ? {set}_rows : loops_thread == 0 ? 0 : {};",
                        ended_by("loops_y0")
                    ));
                    cx.line(format!(
                        "const int loops_x1 = (!loops_active || loops_thread == loops_threads - 1) ? {set}_rows : {};",
                        ended_by("loops_y1")
                    ));
                }
            }
        }

        /// Steps 2 and 3 of the protocol: in-block heads, cross-block heads by the last block.
        fn fixup(
            &self,
            cx: &mut Cx<'_>,
            set: &str,
            tile: &str,
            prologue: &[Stmt],
            epilogue: &[Stmt],
            accs: &[Accumulator],
        ) -> DResult<()> {
            let b = self.block_size;
            let n = accs.len() as u32;
            let slots = slots_per_block(accs.len());
            cx.line(format!("__shared__ int loops_tail_tiles[{b}];"));
            for a in accs {
                cx.line(format!(
                    "__shared__ {} loops_tails_{}[{b}];",
                    a.ty.cuda_name(),
                    a.name
                ));
            }
            cx.line("__shared__ int loops_block_y0;");
            cx.line("__shared__ bool loops_last_block;");
            cx.line("loops_tail_tiles[threadIdx.x] = loops_tail_tile;");
            for a in accs {
                cx.line(format!(
                    "loops_tails_{0}[threadIdx.x] = loops_tail_{0};",
                    a.name
                ));
            }
            // Scratch (`loops_data`): per block [head tile, heads.., tail tile, tails..].
            cx.line(format!("unsigned long long* const loops_mine = loops_data + (long long)blockIdx.x * {slots};"));
            cx.open("if (threadIdx.x == 0)");
            cx.line("loops_block_y0 = loops_y0;");
            cx.line("loops_mine[0] = (unsigned long long)(long long)-1;");
            cx.close();
            cx.line("__syncthreads();");

            // A head: this thread holds the end of a tile that began before its segment.
            cx.open("if (loops_head_tile >= 0)");
            declare_parts(cx, accs, |a, _| format!("loops_head_{}", a.name));
            cx.line("int loops_j = (int)threadIdx.x - 1;");
            cx.open(
                "for (; loops_j >= 0 && loops_tail_tiles[loops_j] == loops_head_tile; --loops_j)",
            );
            fold_earlier(cx, accs, |a, _| format!("loops_tails_{}[loops_j]", a.name));
            cx.close();
            cx.open(format!(
                "if (loops_j < 0 && {set}_offsets[loops_head_tile] < loops_block_y0)"
            ));
            cx.line("loops_mine[0] = (unsigned long long)(long long)loops_head_tile;");
            store_parts(cx, accs, "loops_mine", 1);
            cx.close();
            cx.open("else");
            self.finish_tile(cx, tile, "loops_head_tile", prologue, epilogue, accs)?;
            cx.close();
            cx.close();

            // The block's tail: the tile in progress at the block's end, for the block after it.
            cx.open("if (threadIdx.x == blockDim.x - 1)");
            declare_parts(cx, accs, |a, _| format!("loops_tail_{}", a.name));
            cx.open("for (int loops_j = (int)threadIdx.x - 1; loops_tail_tile >= 0 && loops_j >= 0 && loops_tail_tiles[loops_j] == loops_tail_tile; --loops_j)");
            fold_earlier(cx, accs, |a, _| format!("loops_tails_{}[loops_j]", a.name));
            cx.close();
            cx.line(format!(
                "loops_mine[{}] = (unsigned long long)(long long)loops_tail_tile;",
                1 + n
            ));
            store_parts(cx, accs, "loops_mine", 2 + n as usize);
            cx.close();

            // The last block to get here finishes the tiles that cross block boundaries.
            cx.line("__threadfence();");
            cx.line("__syncthreads();");
            cx.line("if (threadIdx.x == 0) loops_last_block = atomicAdd(reinterpret_cast<unsigned int*>(loops_counter), 1u) == gridDim.x - 1;");
            cx.line("__syncthreads();");
            cx.open("if (loops_last_block)");
            cx.line("__threadfence();");
            cx.open(
                "for (long long loops_b = threadIdx.x; loops_b < gridDim.x; loops_b += blockDim.x)",
            );
            cx.line(format!(
                "const unsigned long long* const loops_theirs = loops_data + loops_b * {slots};"
            ));
            cx.line("const int loops_cross_tile = (int)(long long)__ldcg(&loops_theirs[0]);");
            cx.line("if (loops_cross_tile < 0) continue;");
            declare_parts(cx, accs, |a, i| {
                let ty = a.ty.cuda_name();
                format!(
                    "__ldcg(reinterpret_cast<const {ty}*>(&loops_theirs[{}]))",
                    1 + i
                )
            });
            cx.open(format!(
                "for (long long loops_c = loops_b - 1; loops_c >= 0 && (int)(long long)__ldcg(&loops_data[loops_c * {slots} + {}]) == loops_cross_tile; --loops_c)",
                1 + n
            ));
            fold_earlier(cx, accs, |a, i| {
                let ty = a.ty.cuda_name();
                format!(
                    "__ldcg(reinterpret_cast<const {ty}*>(&loops_data[loops_c * {slots} + {}]))",
                    2 + n as usize + i
                )
            });
            cx.close();
            self.finish_tile(cx, tile, "loops_cross_tile", prologue, epilogue, accs)?;
            cx.close();
            // Ready for the next launch.
            cx.line("if (threadIdx.x == 0) *reinterpret_cast<unsigned int*>(loops_counter) = 0u;");
            cx.close();
            Ok(())
        }

        /// Recomputes a tile's prologue, adds the combined partials to the initial values, runs the epilogue.
        fn finish_tile(
            &self,
            cx: &mut Cx<'_>,
            tile: &str,
            tile_value: &str,
            prologue: &[Stmt],
            epilogue: &[Stmt],
            accs: &[Accumulator],
        ) -> DResult<()> {
            cx.line(format!("const int {tile} = {tile_value};"));
            cx.block(prologue)?;
            for a in accs {
                let c = a.op.combine(&a.name, &format!("loops_part_{}", a.name));
                cx.line(format!("{} = {c};", a.name));
            }
            cx.block(epilogue)
        }
    }
}

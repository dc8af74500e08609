//! The CUDA lowering of `hierarchical`: the generic passes (a thread per tile, in order) and the
//! levels (a group of lanes, then a warp, then a block per tile).

use crate::abi::STATE_HEADER_SLOTS;
use crate::analysis::{carry_body, has_atomic, stmt_exprs, visit_stmts, Reductions};
use crate::diag::{bail, DResult};
use crate::emit::{AtomLoop, Cx};
use crate::ir::{Stmt, StmtKind, TileLoop, Ty};
use crate::schedule::group::{combine_all, reduced_vars_typed, start_from_identity};
use crate::schedule::Kernel;
use crate::schedule::Lowering;

pub struct HierarchicalLowering {
    pub block_size: u32,
}

/// Whether the passes of `body` run as levels (group, warp, block: [`super::level_range`]):
/// one atom loop, no `break` in it, and its state reduces across threads (the `group`
/// analysis, [`crate::analysis::reductions`]). Otherwise a tile's atoms run in order on one
/// thread a pass, whatever the update.
pub fn levels(kernel: &Kernel, body: &[Stmt]) -> bool {
    let Ok(parts) = parts(kernel, body) else {
        return false;
    };
    let [part] = parts.loops.as_slice() else {
        return false;
    };
    !crate::analysis::breaks_out(part.atom_body)
        && crate::analysis::reductions(part.atom_body, part.var, "hierarchical", &mut |s| {
            s.to_string()
        })
        .is_ok()
}

/// Counters of the state's header (32-bit, after the three the passes rotate; zeroed before
/// the first pass): the block pass's next list entry, and how many long tiles the warp pass
/// put at the back of that list.
const CURSOR: usize = 4;
const LONG_COUNT: usize = 5;
/// Tiles with more atoms than this left for the block pass are taken first by it.
const LONG_TILE: u64 = 4096;
/// The pieces the block pass's long tiles are cut into, allocated by the pass before it (their
/// partials' slots and the map from a piece to its tile are indexed by piece).
const PIECES: usize = 6;
const _: () = assert!(PIECES < 2 * STATE_HEADER_SLOTS);

/// The lanes that share a tile in a levels pass.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    /// The first pass: [`super::thread_pass_lanes`] lanes (`loops_g`), one for a set of short tiles.
    Group,
    Warp,
    Block,
}

/// A variable of the tile body that its atom loop updates: kept across passes.
struct StateVar {
    name: String,
    ty: Ty,
}

/// The tile body split as the lowering needs it.
struct Parts<'k> {
    prologue: &'k [Stmt],
    /// The atom loops in order (one, or several: each takes its passes in turn).
    loops: Vec<LoopPart<'k>>,
    epilogue: &'k [Stmt],
}

/// One atom loop of the tile body.
struct LoopPart<'k> {
    var: &'k str,
    set: &'k str,
    tile: &'k crate::ir::Expr,
    atom_body: &'k [Stmt],
    line: usize,
    /// The variables it updates, kept between its passes and, once it is done, for the
    /// later loops: in the state slots from `first_slot` on.
    state: Vec<StateVar>,
    first_slot: usize,
    /// The statements between it and the next loop (side-effect free: they run again in
    /// every later pass).
    after: &'k [Stmt],
}

fn parts<'k>(kernel: &Kernel, body: &'k [Stmt]) -> DResult<Parts<'k>> {
    check_prologue(body)?;
    if let Some(atoms) = crate::analysis::atoms_in_a_loop(body) {
        bail!(
            atoms.span,
            "under `hierarchical` the atom loop cannot sit inside another loop: a tile's state is \
             kept between passes for one atom loop. Use `merge_path`, `work_oriented` or `split`, which run \
             such a loop as rounds of the whole grid, or `thread`, `group`, `warp`, `block`, `lrb` or `auto`"
        );
    }
    let split = carry_body(kernel, body, "hierarchical")?;
    let std::borrow::Cow::Borrowed(prologue) = split.prologue else {
        unreachable!("only a loop around the atom loop, refused above, gathers the prologue")
    };
    let mut stmts: Vec<(&Stmt, &[Stmt])> = split.earlier.clone();
    stmts.push((split.atoms, &[]));
    // The `let`s a loop's state may be declared by: the prologue's, and those between the
    // loops before it.
    let mut declared: Vec<&Stmt> = prologue.iter().collect();
    let mut loops = Vec::new();
    let mut first_slot = 0;
    for (atoms, after) in stmts {
        let Stmt {
            kind:
                StmtKind::ForAtoms {
                    var,
                    set,
                    tile,
                    body: atom_body,
                },
            line,
            ..
        } = atoms
        else {
            unreachable!("carry_body returns atom loops")
        };
        let state = state_vars(&declared, atom_body);
        let n = state.len();
        loops.push(LoopPart {
            var,
            set,
            tile,
            atom_body,
            line: *line,
            state,
            first_slot,
            after,
        });
        first_slot += n;
        declared.extend(after.iter());
    }
    Ok(Parts {
        prologue,
        loops,
        epilogue: split.epilogue,
    })
}

/// The statements before the atom loop run again in every pass: no atomics there (checked
/// before the shape, so the error gives this reason).
fn check_prologue(body: &[Stmt]) -> DResult<()> {
    let before = body
        .iter()
        .take_while(|s| !matches!(s.kind, StmtKind::ForAtoms { .. }));
    for stmt in before {
        let mut atomic = false;
        stmt_exprs(stmt, &mut |e| atomic |= has_atomic(e));
        if atomic {
            bail!(
                stmt.span,
                "under `hierarchical` the statements before the atom loop run again in every pass: \
                 they may not use atomics (`atomic_add`, `push`, ...): move it after the atom loop or into it"
            );
        }
    }
    Ok(())
}

/// The variables declared by `declared` that the atom loop assigns, in the order they are
/// declared.
fn state_vars(declared: &[&Stmt], atom_body: &[Stmt]) -> Vec<StateVar> {
    let mut assigned = Vec::new();
    let _ = visit_stmts(atom_body, &mut |s| {
        if let StmtKind::Assign { place, .. } = &s.kind {
            if let crate::ir::ExprKind::Var(name) = &place.kind {
                assigned.push(name.clone());
            }
        }
        Ok(())
    });
    declared
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Let { name, ty, .. } if assigned.contains(name) => Some(StateVar {
                name: name.clone(),
                ty: ty.clone(),
            }),
            _ => None,
        })
        .collect()
}

impl Lowering for HierarchicalLowering {
    fn check(&self, kernel: &Kernel) -> DResult<()> {
        crate::schedule::lanes::refuse_around_atoms(kernel.body.user_body(), "hierarchical")?;
        parts(kernel, kernel.body.user_body()).map(|_| ())
    }

    fn tile_loop(&self, cx: &mut Cx<'_>, tiles: &TileLoop) -> DResult<()> {
        let parts = parts(cx.kernel, tiles.user_body())?;
        let kept: usize = parts.loops.iter().map(|l| l.state.len()).sum();
        cx.state_slots_per_tile = 1 + kept as u32;
        if levels(cx.kernel, tiles.user_body()) {
            // Per position besides the list and the kept state: a partial per reduced variable
            // and a map entry per piece of a cut tile, and a counter of its finished pieces.
            let part = &parts.loops[0];
            let red =
                crate::analysis::reductions(part.atom_body, part.var, "hierarchical", &mut |s| {
                    s.to_string()
                })?;
            let reduced = reduced_vars_typed(&red.accumulators, &red.selections).len();
            cx.state_slots_per_tile = 1 + (kept + reduced) as u32 + 2;
            // The block pass's branch must not cost the first pass occupancy (its registers
            // would: 40 against 32 for SpMV, a quarter fewer blocks an SM).
            cx.full_sm = true;
            return self.levels_tile_loop(cx, tiles, &parts, kept, reduced);
        }
        // With several atom loops, the call's passes are each loop's in turn: `loops_k` is
        // the pass within the loop (its atoms `k * mdt ..`, its list: all tiles at 0), the
        // lists and counters rotate with the call's pass.
        let several = parts.loops.len() > 1;
        let k = if several { "loops_k" } else { "loops_pass" };
        let pos = &tiles.tile;
        state_header(cx, tiles);
        if several {
            cx.line(format!(
                "const int loops_chunks = loops_passes / {};",
                parts.loops.len()
            ));
            cx.line("const int loops_loop = loops_pass / loops_chunks, loops_k = loops_pass % loops_chunks;");
        }
        cx.line(format!(
            "const long long loops_count = {k} == 0 ? loops_n : (long long)loops_counts[loops_pass % 3];"
        ));
        cx.line(
            "if (blockIdx.x == 0 && threadIdx.x == 0) loops_counts[(loops_pass + 2) % 3] = 0u;",
        );
        cx.open(
            "for (long long loops_i = (long long)blockIdx.x * blockDim.x + threadIdx.x; loops_i < loops_count; \
             loops_i += (long long)blockDim.x * gridDim.x)",
        );
        cx.line(format!(
            "const int {pos} = {k} == 0 ? (int)loops_i : (int)loops_in[loops_i];"
        ));
        match tiles.subset_guard() {
            Some((id, cond, _)) => {
                cx.stmt(id)?;
                let cond = cx.expr(cond);
                cx.open(format!("if ({cond})"));
                self.tile_bodies(cx, &parts, pos)?;
                cx.close();
            }
            None => self.tile_bodies(cx, &parts, pos)?,
        }
        cx.close();
        Ok(())
    }

    fn atom_loop(&self, _cx: &mut Cx<'_>, atoms: AtomLoop<'_>) -> DResult<()> {
        let span = atoms.tile.span;
        bail!(
            span,
            "under `hierarchical` an atom loop must stand in the tile body itself"
        )
    }
}

impl HierarchicalLowering {
    /// The tile loop of a call whose passes are levels: pass 0 a group of lanes per tile of the
    /// set (or subset; [`super::thread_pass_lanes`] of them, computed from the atom loop's set),
    /// pass 1 a warp per tile of its list, pass 2 a block per tile of its list.
    fn levels_tile_loop(
        &self,
        cx: &mut Cx<'_>,
        tiles: &TileLoop,
        parts: &Parts<'_>,
        kept: usize,
        reduced: usize,
    ) -> DResult<()> {
        let pos = &tiles.tile;
        state_header(cx, tiles);
        cx.line(
            "const long long loops_count = loops_pass == 0 ? loops_n : (long long)loops_counts[loops_pass % 3];",
        );
        cx.line(
            "if (blockIdx.x == 0 && threadIdx.x == 0) loops_counts[(loops_pass + 2) % 3] = 0u;",
        );
        // After the kept state: the pieces' partials, the map from a piece to its tile and the
        // tile's first piece, and each cut tile's count of finished pieces.
        cx.line(format!(
            "unsigned long long* const loops_part = loops_state + {kept} * loops_n;"
        ));
        cx.line(format!(
            "unsigned long long* const loops_map = loops_part + {reduced} * loops_n;"
        ));
        cx.line("unsigned long long* const loops_done = loops_map + loops_n;");
        let aset = parts.loops[0].set;
        let levels = [
            (
                "if (loops_pass == 0)",
                Level::Group,
                "for (long long loops_i = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> loops_gs; loops_i < loops_count; \
                 loops_i += ((long long)blockDim.x * gridDim.x) >> loops_gs)",
            ),
            (
                "else if (loops_pass == 1)",
                Level::Warp,
                "for (long long loops_i = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; loops_i < loops_count; \
                 loops_i += ((long long)blockDim.x * gridDim.x) >> 5)",
            ),
            (
                "else",
                Level::Block,
                // Each block takes the next piece or tile of the list when it is done with one
                // (the pieces of the cut tiles first, then the long tiles): a hub is cut across
                // blocks.
                "for (;;)",
            ),
        ];
        for (branch, level, each) in levels {
            cx.open(branch);
            match level {
                Level::Group => {
                    // The group's lanes, as `thread_pass_lanes` counts them from the set's mean
                    // tile: `loops_gs` is their log2.
                    let (small, per_lane) = (super::SMALL_SET_TILES, super::GROUP_LANE_ATOMS);
                    cx.line(format!("const long long loops_rows = {aset}_rows;"));
                    cx.line(format!(
                        "const long long loops_mean = loops_rows > 0 ? (long long){aset}_nnz / loops_rows : 0;"
                    ));
                    cx.line(format!(
                        "const long long loops_want = loops_rows < {small} ? loops_mean : loops_mean / {per_lane};"
                    ));
                    cx.line(format!(
                        "const int loops_gs = loops_want >= 32 ? 5 : loops_want <= 1 ? 0 : loops_rows < {small} ? 32 - __clz((int)loops_want - 1) : 31 - __clz((int)loops_want);"
                    ));
                    cx.line("const unsigned int loops_g = 1u << loops_gs;");
                    cx.line("const unsigned int loops_lane = threadIdx.x & (loops_g - 1u);");
                    cx.line("const unsigned int loops_mask = loops_gs == 5 ? 0xffffffffu : ((1u << loops_g) - 1u) << ((threadIdx.x & 31u) & ~(loops_g - 1u));");
                }
                Level::Warp => {
                    cx.line("const unsigned int loops_lane = threadIdx.x & 31u;");
                }
                Level::Block => {
                    cx.line("const unsigned int loops_lane = threadIdx.x;");
                    cx.line(format!(
                        "const long long loops_long = (long long)loops_counts[{LONG_COUNT}];"
                    ));
                    // Pieces past the slots were never cut (their tiles are listed).
                    cx.line(format!(
                        "const long long loops_pieces = (long long)loops_counts[{PIECES}] < loops_n ? (long long)loops_counts[{PIECES}] : loops_n;"
                    ));
                    cx.line(piece_line(aset));
                    cx.shared("unsigned int", "loops_next", None, false);
                }
            }
            cx.open(each);
            match level {
                Level::Group => cx.line(format!("const int {pos} = (int)loops_i;")),
                Level::Warp => cx.line(format!("const int {pos} = (int)loops_in[loops_i];")),
                Level::Block => {
                    cx.line(format!(
                        "if (threadIdx.x == 0u) loops_next = atomicAdd(&loops_counts[{CURSOR}], 1u);"
                    ));
                    cx.line("__syncthreads();");
                    cx.line("const long long loops_i = (long long)loops_next;");
                    cx.line("__syncthreads();");
                    cx.line("if (loops_i >= loops_pieces + loops_long + loops_count) break;");
                    // A piece: its slot `loops_q`, its tile's first piece `loops_s`.
                    cx.line("const long long loops_q = loops_i < loops_pieces ? loops_i : -1;");
                    cx.line("const unsigned long long loops_m = loops_q >= 0 ? loops_map[loops_q] : 0ull;");
                    // A slot taken by a tile whose pieces did not all fit: nothing.
                    cx.line("if (loops_m == 0xffffffffffffffffull) continue;");
                    cx.line("const long long loops_s = (long long)(loops_m >> 32);");
                    cx.line("const long long loops_t = loops_i - loops_pieces;");
                    cx.line(format!(
                        "const int {pos} = loops_q >= 0 ? (int)(unsigned int)loops_m : (int)(loops_t < loops_long ? loops_in[loops_n - 1 - loops_t] : loops_in[loops_t - loops_long]);"
                    ));
                }
            }
            match tiles.subset_guard() {
                Some((id, cond, _)) => {
                    cx.stmt(id)?;
                    let cond = cx.expr(cond);
                    cx.open(format!("if ({cond})"));
                    self.level_body(cx, parts, pos, level)?;
                    cx.close();
                }
                None => self.level_body(cx, parts, pos, level)?,
            }
            cx.close();
            cx.close();
        }
        Ok(())
    }

    /// One tile's share of a levels pass: its `let`s and kept state, its atoms of the pass
    /// ([`super::level_range`]) on the level's lanes, the lanes' partials reduced into lane
    /// 0, which keeps the state and lists the tile for the next pass, or runs the epilogue.
    fn level_body(
        &self,
        cx: &mut Cx<'_>,
        parts: &Parts<'_>,
        pos: &str,
        level: Level,
    ) -> DResult<()> {
        let part = &parts.loops[0];
        cx.block(parts.prologue)?;
        let slot = |i: usize| format!("loops_state[{i} * loops_n + {pos}]");
        if level != Level::Group {
            // Every lane reads the kept state; all but lane 0 then start from the identity.
            for (i, v) in part.state.iter().enumerate() {
                let ty = v.ty.cuda_name();
                cx.line(format!(
                    "{} = *reinterpret_cast<const {ty}*>(&{});",
                    v.name,
                    slot(i)
                ));
            }
        }
        let (set, var) = (part.set, part.var);
        let tile = cx.expr(part.tile);
        let off = cx.offset_type();
        cx.line_directive(part.line);
        cx.line(format!(
            "const {off} loops_b = {set}_offsets[{tile}], loops_e = {set}_offsets[{tile} + 1];"
        ));
        let warp = super::WARP_PASS_ATOMS;
        let name = cx.kernel.config.name();
        let red = crate::analysis::reductions(part.atom_body, var, name, &mut |s| cx.fresh(s))?;
        let reduced = reduced_vars_typed(&red.accumulators, &red.selections);
        if level == Level::Block {
            // Lane 0's start, for the block that finishes a cut tile: the kept state is read
            // again from its slots; any other reduced variable is kept here.
            for (v, ty) in &reduced {
                let kept = part.state.iter().any(|k| &k.name == v);
                if !kept && !red.selections.iter().any(|s| &s.at == v) {
                    cx.line(format!("const {ty} loops_kept_{v} = {v};"));
                }
            }
        }
        // Lane 0 carries the kept state (of atoms before this pass's: at position -1, "before
        // every atom", for a selection), or in the first pass the `let`s' values; the others
        // start from the identity, and so do all lanes of a piece of a cut tile.
        let not_first = if level == Level::Block {
            "loops_lane != 0u || loops_q >= 0"
        } else {
            "loops_lane != 0u"
        };
        start_from_identity(cx, &red.accumulators, &red.selections, not_first);
        // The atoms the earlier passes ran, and this pass's bound.
        match level {
            Level::Group => {
                cx.line(format!("const {off} loops_lo = loops_b;"));
                cx.line(format!(
                    "const {off} loops_hi = loops_e - loops_b > loops_mdt ? loops_b + loops_mdt : loops_e;"
                ));
            }
            Level::Warp => {
                cx.line(format!("const {off} loops_lo = loops_e - loops_b > ({off})loops_mdt ? loops_b + ({off})loops_mdt : loops_e;"));
                cx.line(format!(
                    "const {off} loops_hi = loops_e - loops_lo > {warp} ? loops_lo + {warp} : loops_e;"
                ));
            }
            Level::Block => {
                // The atoms left after the group (and warp) pass, whole or the piece's share
                // (`piece_range`; `split_pieces` as the pass before cut it).
                cx.line(format!(
                    "const {off} loops_skip = ({off})loops_mdt + {warp};"
                ));
                cx.line(format!(
                    "const {off} loops_start = loops_e - loops_b > loops_skip ? loops_b + loops_skip : loops_e;"
                ));
                // A piece: `loops_piece` atoms from its place in the tile, the last to the end.
                cx.line("const long long loops_j = loops_q >= 0 ? loops_q - loops_s : 0;");
                cx.line(format!(
                    "const {off} loops_lo = loops_q >= 0 ? loops_start + ({off})(loops_j * loops_piece) : loops_start;"
                ));
                cx.line(format!(
                    "const {off} loops_hi = loops_q >= 0 && loops_e - loops_lo > ({off})loops_piece ? loops_lo + ({off})loops_piece : loops_e;"
                ));
            }
        }
        let step = match level {
            Level::Group => "loops_g",
            Level::Warp => "32",
            Level::Block => "blockDim.x",
        };
        cx.open(format!(
            "for ({off} {var} = loops_lo + ({off})loops_lane; {var} < loops_hi; {var} += {step})"
        ));
        cx.block(&red.body)?;
        cx.close();
        self.reduce(cx, &red, level);
        if level == Level::Block {
            self.block_finish(cx, parts, pos, &red, &reduced)?;
            // The partials' slots are reused by the block's next tile.
            cx.line("__syncthreads();");
            return Ok(());
        }
        cx.open("if (loops_lane == 0u)");
        cx.open("if (loops_hi < loops_e)");
        for (i, v) in part.state.iter().enumerate() {
            let ty = v.ty.cuda_name();
            cx.line(format!(
                "*reinterpret_cast<{ty}*>(&{}) = {};",
                slot(i),
                v.name
            ));
        }
        match level {
            // Before the block pass: cut the long tiles (out of line; the first pass's branch
            // has no call, so its tile loop keeps its registers).
            Level::Warp => list_for_block_pass(cx, pos, part.set),
            _ => cx.line(format!(
                "loops_out[atomicAdd(&loops_counts[(loops_pass + 1) % 3], 1u)] = (unsigned int){pos};"
            )),
        }
        cx.close();
        if !parts.epilogue.is_empty() {
            cx.open("else");
            cx.block(parts.epilogue)?;
            cx.close();
        }
        // The lane 0 guard.
        cx.close();
        Ok(())
    }

    /// The end of a tile's share of the block pass, on thread 0: a whole tile runs its
    /// epilogue; a piece of a cut tile keeps its partial in its slots, and the block that
    /// finishes the tile's last piece (by the tile's count of finished pieces) starts again from
    /// the kept state, combines the pieces' partials in piece order and runs the epilogue, once.
    fn block_finish(
        &self,
        cx: &mut Cx<'_>,
        parts: &Parts<'_>,
        pos: &str,
        red: &Reductions,
        reduced: &[(String, String)],
    ) -> DResult<()> {
        let part_slot = |i: usize, q: &str| format!("loops_part[{i} * loops_n + {q}]");
        cx.open("if (loops_lane == 0u)");
        cx.line("bool loops_finish = true;");
        cx.open("if (loops_q >= 0)");
        for (i, (v, ty)) in reduced.iter().enumerate() {
            cx.line(format!(
                "*reinterpret_cast<{ty}*>(&{}) = {v};",
                part_slot(i, "loops_q")
            ));
        }
        cx.line("__threadfence();");
        // The tile's pieces in the high half (the pass before wrote them), the finished in the low.
        cx.line("const unsigned long long loops_was = atomicAdd(&loops_done[loops_s], 1ull);");
        cx.line("const unsigned int loops_c = (unsigned int)(loops_was >> 32);");
        cx.line("loops_finish = (unsigned int)loops_was == loops_c - 1u;");
        cx.open("if (loops_finish)");
        cx.line("__threadfence();");
        let state = &parts.loops[0].state;
        for (v, ty) in reduced {
            if let Some(s) = red.selections.iter().find(|s| &s.at == v) {
                cx.line(format!("{v} = {};", s.none_at()));
            } else if let Some(i) = state.iter().position(|k| &k.name == v) {
                cx.line(format!(
                    "{v} = *reinterpret_cast<const {ty}*>(&loops_state[{i} * loops_n + {pos}]);"
                ));
            } else {
                cx.line(format!("{v} = loops_kept_{v};"));
            }
        }
        cx.open("for (unsigned int loops_k = 0u; loops_k < loops_c; ++loops_k)");
        let other = |v: &str| {
            let (i, (_, ty)) = reduced
                .iter()
                .enumerate()
                .find(|(_, (n, _))| n == v)
                .expect("a slot per reduced variable");
            format!(
                "*reinterpret_cast<const volatile {ty}*>(&{})",
                part_slot(i, "loops_s + loops_k")
            )
        };
        combine_all(cx, &red.accumulators, &red.selections, &other);
        cx.close();
        cx.close();
        cx.close();
        if !parts.epilogue.is_empty() {
            cx.open("if (loops_finish)");
            cx.block(parts.epilogue)?;
            cx.close();
        }
        cx.close();
        Ok(())
    }

    /// The lanes' partials of a warp or block pass, reduced into lane 0: shuffles within
    /// each warp, then (a block) each warp's total through shared memory, combined by
    /// thread 0 in warp order.
    fn reduce(&self, cx: &mut Cx<'_>, red: &Reductions, level: Level) {
        let (accs, sels) = (&red.accumulators, &red.selections);
        if accs.is_empty() && sels.is_empty() {
            return;
        }
        if level == Level::Group {
            // Within the group: its lanes' mask, shuffles of its width.
            cx.open("for (int loops_o = (int)(loops_g >> 1); loops_o > 0; loops_o >>= 1)");
            let shfl =
                |v: &str| format!("__shfl_down_sync(loops_mask, {v}, loops_o, (int)loops_g)");
            combine_all(cx, accs, sels, &shfl);
            cx.close();
            return;
        }
        cx.open("for (int loops_o = 16; loops_o > 0; loops_o >>= 1)");
        let shfl = |v: &str| format!("__shfl_down_sync(0xffffffffu, {v}, loops_o)");
        combine_all(cx, accs, sels, &shfl);
        cx.close();
        if level == Level::Warp {
            return;
        }
        let warps = self.block_size / 32;
        let mut slots = Vec::new();
        for (v, ty) in reduced_vars_typed(accs, sels) {
            let slot = cx.fresh(&format!("partials_{}_", v.trim_start_matches("loops_")));
            cx.shared(&ty, &slot, Some(warps), false);
            cx.line(format!(
                "if ((threadIdx.x & 31u) == 0u) {slot}[threadIdx.x >> 5] = {v};"
            ));
            slots.push((v, slot));
        }
        cx.line("__syncthreads();");
        cx.open("if (threadIdx.x == 0u)");
        cx.open(format!(
            "for (unsigned int loops_w = 1; loops_w < {warps}u; ++loops_w)"
        ));
        let other = |v: &str| {
            let slot = slots
                .iter()
                .find(|(n, _)| n == v)
                .map(|(_, s)| s.as_str())
                .expect("a slot per reduced variable");
            format!("{slot}[loops_w]")
        };
        combine_all(cx, accs, sels, &other);
        cx.close();
        cx.close();
    }
    /// One tile's share of a pass: of its one atom loop, or of the loop whose passes these
    /// are (`loops_loop`).
    fn tile_bodies(&self, cx: &mut Cx<'_>, parts: &Parts<'_>, pos: &str) -> DResult<()> {
        if parts.loops.len() == 1 {
            return self.tile_body(cx, parts, 0, pos);
        }
        for l in 0..parts.loops.len() {
            cx.open(format!("if (loops_loop == {l})"));
            self.tile_body(cx, parts, l, pos)?;
            cx.close();
        }
        Ok(())
    }

    /// One tile's share of a pass of its atom loop `l`: its `let`s (and, after the first
    /// loop, the earlier loops' kept results and the statements between the loops), its
    /// kept state, at most `mdt` of its atoms, then, if the loop is done, the epilogue (the
    /// last loop) or its results kept for the later loops; else its state kept and the tile
    /// on the next list.
    fn tile_body(&self, cx: &mut Cx<'_>, parts: &Parts<'_>, l: usize, pos: &str) -> DResult<()> {
        let several = parts.loops.len() > 1;
        let k = if several { "loops_k" } else { "loops_pass" };
        let last = l + 1 == parts.loops.len();
        let part = &parts.loops[l];
        cx.block(parts.prologue)?;
        let slot = |i: usize| format!("loops_state[{i} * loops_n + {pos}]");
        for earlier in &parts.loops[..l] {
            for (i, v) in earlier.state.iter().enumerate() {
                let ty = v.ty.cuda_name();
                cx.line(format!(
                    "{} = *reinterpret_cast<const {ty}*>(&{});",
                    v.name,
                    slot(earlier.first_slot + i)
                ));
            }
            cx.block(earlier.after)?;
        }
        let slot = |i: usize| slot(part.first_slot + i);
        if !part.state.is_empty() {
            cx.open(format!("if ({k} > 0)"));
            for (i, v) in part.state.iter().enumerate() {
                let ty = v.ty.cuda_name();
                cx.line(format!(
                    "{} = *reinterpret_cast<const {ty}*>(&{});",
                    v.name,
                    slot(i)
                ));
            }
            cx.close();
        }
        let (set, var) = (part.set, part.var);
        let tile = cx.expr(part.tile);
        let off = cx.offset_type();
        cx.line_directive(part.line);
        cx.line(format!(
            "const {off} loops_b = {set}_offsets[{tile}], loops_e = {set}_offsets[{tile} + 1];"
        ));
        cx.line(format!(
            "const {off} loops_lo = loops_b + ({off}){k} * loops_mdt;"
        ));
        cx.line(format!(
            "const {off} loops_hi = loops_e - loops_lo > loops_mdt ? loops_lo + loops_mdt : loops_e;"
        ));
        let breaks = crate::analysis::breaks_out(part.atom_body);
        if breaks {
            // The position is read after the loop: a `break` (stopped before `loops_hi`)
            // finishes the tile, as it does when its atoms run in one loop.
            cx.line(format!("{off} {var} = loops_lo;"));
            cx.open(format!("for (; {var} < loops_hi; ++{var})"));
        } else {
            cx.open(format!(
                "for ({off} {var} = loops_lo; {var} < loops_hi; ++{var})"
            ));
        }
        cx.block(part.atom_body)?;
        cx.close();
        if breaks {
            cx.open(format!("if ({var} >= loops_hi && loops_hi < loops_e)"));
        } else {
            cx.open("if (loops_hi < loops_e)");
        }
        let keep = |cx: &mut Cx<'_>| {
            for (i, v) in part.state.iter().enumerate() {
                let ty = v.ty.cuda_name();
                cx.line(format!(
                    "*reinterpret_cast<{ty}*>(&{}) = {};",
                    slot(i),
                    v.name
                ));
            }
        };
        keep(cx);
        cx.line(format!(
            "loops_out[atomicAdd(&loops_counts[(loops_pass + 1) % 3], 1u)] = (unsigned int){pos};"
        ));
        cx.close();
        if !last {
            // Done with this loop: its results for the later loops.
            if !part.state.is_empty() {
                cx.open("else");
                keep(cx);
                cx.close();
            }
        } else if !parts.epilogue.is_empty() {
            cx.open("else");
            cx.block(parts.epilogue)?;
            cx.close();
        }
        Ok(())
    }
}

/// What both tile loops of a call begin with: the set's tiles (`loops_n`), the pass counters, the
/// two lists of tiles and the per-tile state after them in `loops_tile_state`, and this pass's
/// list (`loops_in`) and the next's (`loops_out`).
fn state_header(cx: &mut Cx<'_>, tiles: &TileLoop) {
    let set = &tiles.set;
    cx.line_directive(tiles.line);
    cx.line(format!("const long long loops_n = {set}_rows;"));
    cx.line("unsigned int* const loops_counts = (unsigned int*)loops_tile_state;");
    cx.line(format!(
        "unsigned int* const loops_lists = (unsigned int*)(loops_tile_state + {STATE_HEADER_SLOTS});"
    ));
    cx.line(format!(
        "unsigned long long* const loops_state = loops_tile_state + {STATE_HEADER_SLOTS} + loops_n;"
    ));
    cx.line("const unsigned int* const loops_in = loops_lists + (loops_pass & 1) * loops_n;");
    cx.line("unsigned int* const loops_out = loops_lists + ((loops_pass + 1) & 1) * loops_n;");
}

/// Lane 0 of the pass before the block pass, for a tile with atoms left (the prelude's
/// `loops_hier_list`, out of line): cut it into pieces across blocks where it has at least two
/// pieces' atoms ([`super::split_pieces`] of `loops_piece`) and they fit the slots (`loops_n`
/// pieces in all), each piece mapped to the tile and its first piece, the tile's piece count
/// written and its count of finished pieces zeroed; otherwise list it, at the back of the list
/// (taken first) where it has more than `LONG_TILE` atoms left. The pieces are taken by one
/// `atomicAdd` on their count (no retries under contention); a tile whose pieces run past the
/// slots marks the slots it took empty and is listed whole.
fn list_for_block_pass(cx: &mut Cx<'_>, pos: &str, aset: &str) {
    cx.line(piece_line(aset));
    cx.line(format!(
        "loops_hier_list(loops_counts, loops_out, loops_map, loops_done, loops_n, (long long)(loops_e - loops_hi), loops_piece, (unsigned int){pos}, (loops_pass + 1) % 3, {PIECES}, {LONG_COUNT}, {LONG_TILE});"
    ));
}

/// `loops_piece`: [`super::piece_atoms`] of the atom loop's set `aset` (at least
/// [`super::PIECE_ATOMS`], at least twice its mean tile), where a pass needs it.
fn piece_line(aset: &str) -> String {
    // In double: no 64-bit integer division (its registers cost the first pass occupancy).
    format!(
        "const long long loops_piece = {aset}_rows > 0 && 2.0 * ceil((double){aset}_nnz / (double){aset}_rows) > {piece}.0 ? 2 * (long long)ceil((double){aset}_nnz / (double){aset}_rows) : {piece};",
        piece = super::PIECE_ATOMS
    )
}

use super::{CHUNK, GROUP};
use crate::analysis::reductions;
use crate::diag::{bail, DResult};
use crate::emit::{AtomLoop, Cx, RangeLoop};
use crate::ir::{Block, StmtKind, TileLoop};
use crate::schedule::group::{combine_all, reduced_vars_typed, start_from_identity, GroupLowering};
use crate::schedule::lanes::{lanes_paths, reduce_values, strides, Fusion};
use crate::schedule::{Kernel, Lowering};
use std::cell::Cell;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The piece's partials.
    Partial,
    /// The last piece of a chunk of [`CHUNK`]: the chunk's partials combined into its first
    /// piece's slot.
    Chunk,
    /// The last chunk of a tile: the chunks' partials (or the pieces' where the tile has
    /// one chunk) combined, then the epilogue.
    Combine,
}

pub struct PiecesLowering {
    group: GroupLowering,
    phase: Cell<Phase>,
    /// Values the atom loop reduces (accumulators), set by its lowering.
    fields: Cell<usize>,
}

impl PiecesLowering {
    /// One path of the lanes loop: the partials, the tickets, the combinations.
    fn steps(
        &self,
        cx: &mut Cx<'_>,
        range: &RangeLoop<'_>,
        partial: &Block,
        fusion: Option<&Fusion>,
    ) -> DResult<()> {
        let cut = RangeLoop {
            body: partial,
            ..*range
        };
        self.phase.set(Phase::Partial);
        strides(&self.group, cx, &cut, fusion)?;
        // The piece is done: its partials are visible before its count. Then the chunk of
        // [`CHUNK`] pieces it belongs to: the last of a chunk combines the chunk's partials
        // into its first piece's slot (where the tile has more than one chunk), and the last
        // chunk of the tile runs the epilogue.
        let fields = self.fields.get();
        cx.open("");
        cx.line("const long long loops_tp = (long long)loops_pieces[loops_pp + 1] - (long long)loops_pieces[loops_pp];");
        cx.line(format!(
            "const long long loops_nc = (loops_tp + {CHUNK}ll - 1ll) / {CHUNK}ll;"
        ));
        cx.line(format!(
            "const long long loops_cf = (long long)loops_pieces[loops_pp] + loops_pk / {CHUNK}ll * {CHUNK}ll;"
        ));
        cx.line(format!(
            "const long long loops_cn = min({CHUNK}ll, loops_tp - loops_pk / {CHUNK}ll * {CHUNK}ll);"
        ));
        cx.line(format!(
            "unsigned long long* const loops_tickets = loops_scratch + 1ull + (unsigned long long)loops_np * {fields}ull * loops_jn;"
        ));
        cx.line("unsigned int loops_last = 0u;");
        ticket(cx, "loops_tickets + loops_cf", "loops_cn");
        cx.open("if (loops_last)");
        cx.open("if (loops_nc > 1ll)");
        cx.line("__threadfence();");
        self.phase.set(Phase::Chunk);
        let result = strides(&self.group, cx, &cut, fusion);
        self.phase.set(Phase::Partial);
        result?;
        ticket(
            cx,
            "loops_tickets + (unsigned long long)loops_np + (unsigned long long)loops_pp",
            "loops_nc",
        );
        cx.close();
        cx.open("if (loops_last)");
        cx.line("__threadfence();");
        self.phase.set(Phase::Combine);
        let result = strides(&self.group, cx, range, fusion);
        self.phase.set(Phase::Partial);
        result?;
        cx.close();
        cx.close();
        cx.close();
        Ok(())
    }

    pub fn new(block_size: u32) -> Self {
        PiecesLowering {
            group: GroupLowering {
                group_size: GROUP,
                block_size,
            },
            phase: Cell::new(Phase::Partial),
            fields: Cell::new(0),
        }
    }
}

/// The scratch word of accumulator `field` (of `fields`) of piece `piece` for the value this
/// lane holds in the stride (`loops_jo + loops_jl`, of `loops_jn`).
fn slot(piece: &str, field: usize, fields: usize) -> String {
    format!(
        "(loops_scratch + 1ull + ((unsigned long long)({piece}) * {fields}ull + {field}ull) * loops_jn + loops_jo + (unsigned long long)loops_jl)"
    )
}

/// Counts one more done on the epoch-stamped ticket at `at` (a word of a zeroed or earlier
/// launch's scratch: a stamp other than this launch's counts as 0); `loops_last` (declared
/// before) becomes whether this made `count`, on every lane of the warp. The warp's partials
/// are made visible first.
fn ticket(cx: &mut Cx<'_>, at: &str, count: &str) {
    cx.line("__threadfence();");
    cx.line("__syncwarp();");
    cx.open("if (loops_lane == 0u)");
    cx.line(format!("unsigned long long* const loops_tk = {at};"));
    cx.line("unsigned long long loops_old = *(volatile unsigned long long*)loops_tk, loops_was;");
    cx.line("unsigned int loops_n;");
    cx.open("for (;;)");
    cx.line("loops_was = loops_old;");
    cx.line("loops_n = ((unsigned int)(loops_was >> 32) == loops_stamp ? (unsigned int)loops_was : 0u) + 1u;");
    cx.line("loops_old = atomicCAS(loops_tk, loops_was, ((unsigned long long)loops_stamp << 32) | loops_n);");
    cx.line("if (loops_old == loops_was) break;");
    cx.close();
    cx.line(format!(
        "loops_last = (long long)loops_n == (long long)({count}) ? 1u : 0u;"
    ));
    cx.close();
    cx.line("loops_last = __shfl_sync(0xffffffffu, loops_last, 0);");
}

impl Lowering for PiecesLowering {
    fn check(&self, kernel: &Kernel) -> DResult<()> {
        super::check(kernel)
    }

    fn tile_loop(&self, cx: &mut Cx<'_>, tiles: &TileLoop) -> DResult<()> {
        let set = &tiles.set;
        cx.line_directive(tiles.line);
        cx.line(format!(
            "const unsigned int loops_lane = threadIdx.x & {}u;",
            GROUP - 1
        ));
        cx.line("const unsigned int loops_mask = 0xffffffffu;");
        // Every block takes a ticket of the scratch's counter (`carry/ticket.cuh`'s
        // protocol): the launch's epoch stamps the tiles' tickets. Independent pieces
        // ([`super::atoms_alone`]) take none.
        if !super::atoms_alone(cx.kernel) {
            cx.shared("unsigned long long", "loops_ticket", None, false);
            cx.open("if (threadIdx.x == 0)");
            cx.line("const unsigned long long loops_t = atomicAdd(loops_scratch, 1ull);");
            cx.line(
                "if ((unsigned int)loops_t == gridDim.x - 1u) atomicAdd(loops_scratch, (1ull << 32) - gridDim.x);",
            );
            cx.line("loops_ticket = loops_t;");
            cx.close();
            cx.line("__syncthreads();");
            cx.line(
                "const unsigned int loops_stamp = (unsigned int)((loops_ticket >> 32) + 1ull);",
            );
        }
        cx.line(format!(
            "const long long loops_pv = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / {GROUP};"
        ));
        cx.line(format!(
            "const long long loops_np = loops_pieces[{set}_rows];"
        ));
        cx.open("if (loops_pv < loops_np)");
        // The piece's list position: the last whose first piece is at or before it.
        cx.line(format!("int loops_lo = 0, loops_hi = (int){set}_rows;"));
        cx.open("while (loops_hi - loops_lo > 1)");
        cx.line("const int loops_mid = loops_lo + (loops_hi - loops_lo) / 2;");
        cx.line("if ((long long)loops_pieces[loops_mid] <= loops_pv) loops_lo = loops_mid; else loops_hi = loops_mid;");
        cx.close();
        cx.line("const int loops_pp = loops_lo;");
        cx.line("const long long loops_pk = loops_pv - (long long)loops_pieces[loops_pp];");
        cx.line(format!("const int {} = loops_pp;", tiles.tile));
        cx.guarded_block("loops_lane == 0u", &tiles.body)?;
        cx.close();
        Ok(())
    }

    /// The partials, the ticket, and on the last piece the lanes loop again, whole.
    fn lanes_loop(&self, cx: &mut Cx<'_>, range: RangeLoop<'_>) -> DResult<()> {
        let Some(at) = range
            .body
            .iter()
            .position(|s| matches!(s.kind, StmtKind::ForAtoms { .. }))
        else {
            // A `lanes` loop without an atom loop (check allows one only where none holds an
            // atom loop elsewhere: it does not reach here).
            return crate::schedule::lanes::group_lanes_loop(&self.group, cx, range);
        };
        // Each path of the lanes loop (one value per lane, or fused values: as under `warp`)
        // runs the three steps with its own layout of partials.
        let partial: Block = range.body[..=at].to_vec();
        lanes_paths(&self.group, cx, &range, &mut |cx, fusion| {
            self.steps(cx, &range, &partial, fusion)
        })
    }

    fn atom_loop(&self, cx: &mut Cx<'_>, atoms: AtomLoop<'_>) -> DResult<()> {
        if cx.lanes.is_none() && crate::schedule::lanes_reduce::atom_loop_holds_lanes(atoms.body) {
            // An independent piece: its atoms as `warp` runs a tile's.
            let set = atoms.set;
            let tile = cx.expr(atoms.tile);
            let off = cx.offset_type();
            cx.line(format!(
                "const {off} loops_pb = {set}_offsets[{tile}] + ({off})(loops_pk * (long long)loops_mdt);"
            ));
            cx.line(format!(
                "const {off} loops_pe = min(loops_pb + ({off})loops_mdt, {set}_offsets[{tile} + 1]);"
            ));
            return crate::schedule::lanes_reduce::group_atom_loop_with_lanes_in(
                &self.group,
                cx,
                atoms,
                Some(("loops_pb", "loops_pe")),
                None,
                u32::MAX,
            );
        }
        let Some(split) = cx.lanes.clone() else {
            bail!(
                atoms.body.first().map_or(cx.kernel.body.span, |s| s.span),
                "under `lrb` the pieces of a long tile need its atom loop inside a `lanes` loop"
            );
        };
        let name = cx.kernel.config.name();
        let red = reductions(atoms.body, atoms.var, name, &mut |s| cx.fresh(s))?;
        let (accs, sels) = (&red.accumulators, &red.selections);
        let fields = reduced_vars_typed(accs, sels);
        self.fields.set(fields.len());
        // The widest path's fields size the scratch.
        cx.scratch_slots_per_block = cx
            .scratch_slots_per_block
            .max((self.group.block_size / GROUP).max(1) * (fields.len() as u32 + 2));
        let (al, als, jin) = (&split.atom_lane, &split.atom_lanes, &split.in_range);
        match self.phase.get() {
            Phase::Partial => {
                start_from_identity(cx, accs, sels, "true");
                let (set, var) = (atoms.set, atoms.var);
                let tile = cx.expr(atoms.tile);
                let off = cx.offset_type();
                cx.line(format!(
                    "const {off} loops_pb = {set}_offsets[{tile}] + ({off})(loops_pk * (long long)loops_mdt);"
                ));
                cx.line(format!(
                    "const {off} loops_pe = min(loops_pb + ({off})loops_mdt, {set}_offsets[{tile} + 1]);"
                ));
                let end = cx.fresh("end");
                cx.open(format!(
                    "for ({off} {var} = loops_pb + ({off}){al}, {end} = {jin} ? loops_pe : loops_pb; {var} < {end}; {var} += ({off}){als})"
                ));
                let outer = cx.guard.take();
                let result = cx.block(&red.body);
                cx.guard = outer;
                result?;
                cx.close();
                reduce_values(&self.group, cx, accs, sels, &split);
                cx.open(format!("if ({al} == 0u && {jin})"));
                for (i, (v, ty)) in fields.iter().enumerate() {
                    cx.line(format!(
                        "*({ty}*){} = {v};",
                        slot("loops_pv", i, fields.len())
                    ));
                }
                cx.close();
            }
            Phase::Chunk | Phase::Combine => {
                let chunk = self.phase.get() == Phase::Chunk;
                // Atom lane 0 of the tile's combination carries the value from before the
                // loop; a chunk's starts from the identity.
                let not_first = if chunk {
                    "true".to_string()
                } else {
                    format!("{al} != 0u")
                };
                start_from_identity(cx, accs, sels, &not_first);
                // The slots combined: the chunk's pieces, or the heads of the tile's chunks
                // (its pieces where it has one chunk), in order, strided over the atom lanes.
                let (first, end, step) = if chunk {
                    ("loops_cf", "loops_cf + loops_cn", "1ll")
                } else {
                    (
                        "(long long)loops_pieces[loops_pp]",
                        "(long long)loops_pieces[loops_pp + 1]",
                        "loops_hs",
                    )
                };
                cx.open(format!("if ({jin})"));
                if !chunk {
                    cx.line(format!(
                        "const long long loops_hs = loops_nc > 1ll ? {CHUNK}ll : 1ll;"
                    ));
                }
                cx.open(format!(
                    "for (long long loops_q = {first} + (long long){al} * {step}; loops_q < {end}; loops_q += (long long){als} * {step})"
                ));
                let n = fields.len();
                let other = |v: &str| {
                    let (i, (_, ty)) = fields
                        .iter()
                        .enumerate()
                        .find(|(_, (f, _))| f == v)
                        .expect("a slot per reduced variable");
                    format!("__ldcg(({ty}*){})", slot("loops_q", i, n))
                };
                combine_all(cx, accs, sels, &other);
                cx.close();
                cx.close();
                reduce_values(&self.group, cx, accs, sels, &split);
                if chunk {
                    cx.open(format!("if ({al} == 0u && {jin})"));
                    for (i, (v, ty)) in fields.iter().enumerate() {
                        cx.line(format!(
                            "*({ty}*){} = {v};",
                            slot("loops_cf", i, fields.len())
                        ));
                    }
                    cx.close();
                }
            }
        }
        Ok(())
    }
}

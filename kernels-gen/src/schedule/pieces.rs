//! `pieces`: how `lrb` runs its long tiles (bins above [`super::lrb::WARP_MAX_BIN`], more than
//! 256 atoms) where the tile body is a `for j in lanes(..)` loop around a reducing atom loop (the
//! language's SpMM, a GNN aggregation): each tile is cut into pieces of [`PIECE_ATOMS`] atoms and a
//! warp takes one (tile, piece). The merge path (`lrb`'s mapping of such tiles otherwise) runs a
//! loop around the atom loop as rounds of the whole grid, one per value, each walking every atom
//! again; here one warp walks its piece once per stride of values, its lanes split between the
//! values and the atoms as under `warp` ([`super::lanes`]).
//!
//! The steps, for one piece (`loops_pv`, of list position `loops_pp`, the `loops_pk`-th of its
//! tile; the pieces are numbered by the prefix sum of the tiles' piece counts, `loops_pieces`,
//! which the runtime computes as for `split`, and a warp finds its position by a binary search):
//! 1. *partials*: the lanes loop runs with its body cut after the atom loop (the `let`s before it
//!    and the atom loop, over the piece's atoms only, every lane starting from the identity); each
//!    value's reduced accumulators go to global scratch, `[piece][accumulator][value]` (so the
//!    lanes of consecutive values write consecutive words);
//! 2. *ticket*: the warp counts its piece done on its tile's ticket (a word stamped with the
//!    launch's epoch, so the scratch needs no reset: the epoch is the carry schedules' counter in
//!    scratch slot 0, which every block takes a ticket of);
//! 3. *epilogue*: the piece that completes the count runs the lanes loop again, whole: the `let`s,
//!    then instead of the atom loop the tile's partials, each value's atom lanes striding over the
//!    pieces in order from the value before the loop, reduced over the lanes as after an atom
//!    loop (a fixed order: the result does not depend on which piece finished last), then the
//!    statements after the atom loop (the store, a bias, a ReLU) once per (tile, value).
//!
//! The scratch is sized by the runtime per round of the loop around the atom loop
//! ([`super::ScheduleUnit::scratch_per_round`]): `1 + rounds * grid * slots` words with
//! `slots = warps per block * (fields + 2)`: the partials of `pieces <= grid * warps` pieces, then
//! a ticket per piece (those of the chunks' first pieces are used) and one per listed tile. [`model_run`] is the pure-Rust model of what a launch computes.
//!
//! It has no name of its own: `lrb` emits its longest bin under it where [`check`]'s rules hold
//! (else under the merge path, as before).

use super::{DeviceLimits, Hidden, Schedule, ScheduleConfig, ScheduleUnit, TileSetShape};

/// No named schedule: only `lrb` launches it.
pub const NAMED: &[super::NamedSchedule] = &[];

/// Atoms per piece: a warp of `k = 128` values (32 value lanes, four strides) reads its piece's
/// indices and values four times and gathers 128 bytes a value lane per atom.
pub const PIECE_ATOMS: u32 = 256;

/// Lanes per piece: a warp.
pub const GROUP: u32 = 32;

/// Pieces per chunk: the last piece of a chunk combines its partials, the last chunk of a tile
/// the chunks', so no warp combines more than `CHUNK` slots per value, or a tile's chunks
/// (a row of 500K atoms: 1954 pieces, 62 chunks).
pub const CHUNK: u64 = 32;

/// A tile of `atoms` atoms cut into pieces of `piece` atoms: at least one (an empty tile's
/// epilogue still runs).
pub fn pieces_of(atoms: u64, piece: u64) -> u64 {
    super::split::pieces(atoms, piece)
}

/// The internal unit behind `lrb`'s long tiles.
pub struct Pieces;

fn piece_atoms(schedule: Schedule) -> u32 {
    match schedule {
        Schedule::Pieces { piece_atoms } => piece_atoms,
        other => unreachable!("the pieces unit asked about {other:?}"),
    }
}

impl ScheduleUnit for Pieces {
    fn names(&self) -> &'static [&'static str] {
        &[]
    }

    /// Errors name the schedule the user wrote: only `lrb` runs it.
    fn name_as_written(&self, _config: ScheduleConfig) -> &'static str {
        "lrb"
    }

    fn describe(&self, schedule: Schedule) -> String {
        format!("pieces of {} atoms, a warp each", piece_atoms(schedule))
    }

    fn short_name(&self, _schedule: Schedule) -> String {
        "pieces".into()
    }

    /// The prefix sum of the listed tiles' piece counts is taken over the list's own offsets
    /// (after the subset's prefix sum, as `split`'s), and the piece size.
    fn hidden_params(&self, _schedule: Schedule, over_subset: bool) -> &'static [Hidden] {
        if over_subset {
            &[Hidden::SubsetOffsets, Hidden::SplitPieces, Hidden::Mdt]
        } else {
            &[Hidden::SplitPieces, Hidden::Mdt]
        }
    }

    fn piece_atoms(&self, schedule: Schedule) -> Option<u32> {
        Some(piece_atoms(schedule))
    }

    fn scratch_per_round(&self) -> bool {
        true
    }

    fn why_not_in_device_loop(&self) -> &'static str {
        "it sizes each launch by a prefix sum of the listed tiles' piece counts, read back on the host"
    }

    /// A warp per piece: the runtime passes the pieces as the shape's atoms.
    fn blocks_wanted(
        &self,
        config: ScheduleConfig,
        shape: TileSetShape,
        _limits: DeviceLimits,
    ) -> u64 {
        shape
            .atoms
            .div_ceil((config.block_size / GROUP).max(1) as u64)
    }

    #[cfg(feature = "frontend")]
    fn parse(&self, args: &super::AttrArgs) -> crate::diag::DResult<Schedule> {
        crate::diag::bail!(
            args.name_span,
            "`pieces` is `lrb`'s mapping of its longest tiles, not a schedule of its own: write `schedule = \"lrb\"`"
        )
    }

    #[cfg(feature = "frontend")]
    fn lowering(&self, config: ScheduleConfig) -> Box<dyn super::Lowering> {
        Box::new(lowering::PiecesLowering::new(config.block_size))
    }
}

/// What one launch computes, as the model sees it: for each listed tile (`list`, ids into
/// `offsets`) and value `j < values`, how many times its epilogue ran and with what total; and how
/// many times each (atom, value) was read.
#[derive(Clone, Debug, PartialEq)]
pub struct PiecesRun {
    /// `[atom * values + j]`.
    pub atom_visits: Vec<u32>,
    /// `[tile * values + j]`.
    pub epilogues: Vec<u32>,
    /// `[tile * values + j]`: the total the epilogue saw.
    pub totals: Vec<f64>,
}

/// The shape of a launch the model replays: atoms per piece, the lanes loop's values, and the
/// lanes over the values in a warp ([`super::lanes::width`]).
#[derive(Clone, Copy, Debug)]
pub struct ModelShape {
    pub piece: u64,
    pub values: u64,
    pub width: u32,
}

/// Replays a launch over the tiles `list` of `offsets`, with pieces of `piece` atoms, a warp
/// (`GROUP` lanes, `width` of them over the values: [`super::lanes::width`]) each, the pieces
/// finishing in the order `finish` (a permutation of the pieces; the ticket's count decides which
/// one runs the epilogue). `initial` is each value's accumulator before the atom loop, `value(atom,
/// j)` an atom's term. The steps are the emitted ones: each piece's atom lanes stride over its
/// atoms and reduce ([`super::lanes::model_reduce`]'s order is a fixed tree: here its sum);
/// the last piece combines the tile's partials, each value's atom lanes striding over the pieces
/// in order from `initial` (atom lane 0) or 0, then reduces over the atom lanes in the same
/// fixed order.
pub fn model_run(
    offsets: &[u64],
    list: &[u64],
    ModelShape {
        piece,
        values,
        width,
    }: ModelShape,
    finish: &[u64],
    initial: f64,
    value: impl Fn(u64, u64) -> f64,
) -> PiecesRun {
    let tiles = offsets.len() - 1;
    let atoms = offsets[tiles] as usize;
    let v = values as usize;
    let mut run = PiecesRun {
        atom_visits: vec![0; atoms * v],
        epilogues: vec![0; tiles * v],
        totals: vec![0.0; tiles * v],
    };
    // The prefix sum of the piece counts over the list (the runtime's `loops_pieces`).
    let mut first = vec![0u64];
    for &t in list {
        let t = t as usize;
        first.push(first.last().unwrap() + pieces_of(offsets[t + 1] - offsets[t], piece));
    }
    let total = *first.last().unwrap();
    assert_eq!(finish.len() as u64, total, "finish orders every piece");
    let atom_lanes = (GROUP / width) as u64;
    // Reduces one value's lanes' partials: the shuffles' fixed tree over the atom lanes.
    let reduce = |parts: &[f64]| -> f64 {
        let mut p = parts.to_vec();
        let mut o = p.len() / 2;
        while o >= 1 {
            for l in 0..o {
                p[l] += p[l + o];
            }
            o /= 2;
        }
        p[0]
    };
    let mut partial = vec![0.0f64; total as usize * v];
    let mut chunk_done = vec![0u64; total as usize];
    let mut chunks_done = vec![0u64; list.len()];
    // One value's combination of the slots `first, first + step, ..` below `end`, atom lane 0
    // starting from `from`: as emitted, strided over the atom lanes, then the fixed tree.
    let combine = |partial: &[f64], j: usize, first: u64, end: u64, step: u64, from: f64| {
        let parts: Vec<f64> = (0..atom_lanes)
            .map(|al| {
                let mut acc = if al == 0 { from } else { 0.0 };
                let mut q = first + al * step;
                while q < end {
                    acc += partial[q as usize * v + j];
                    q += atom_lanes * step;
                }
                acc
            })
            .collect();
        reduce(&parts)
    };
    for &pv in finish {
        // The warp's list position: the last whose first piece is at or before it.
        let pos = first.partition_point(|&f| f <= pv) - 1;
        let t = list[pos] as usize;
        let pk = pv - first[pos];
        let begin = offsets[t] + pk * piece;
        let end = (begin + piece).min(offsets[t + 1]);
        for j in 0..values {
            let parts: Vec<f64> = (0..atom_lanes)
                .map(|al| {
                    (begin + al..end)
                        .step_by(atom_lanes as usize)
                        .map(|a| {
                            run.atom_visits[a as usize * v + j as usize] += 1;
                            value(a, j)
                        })
                        .sum()
                })
                .collect();
            partial[pv as usize * v + j as usize] = reduce(&parts);
        }
        // The chunk's ticket, then (several chunks) the chunk's combination and the tile's.
        let tp = first[pos + 1] - first[pos];
        let nc = tp.div_ceil(CHUNK);
        let cf = first[pos] + pk / CHUNK * CHUNK;
        let cn = CHUNK.min(tp - pk / CHUNK * CHUNK);
        chunk_done[cf as usize] += 1;
        if chunk_done[cf as usize] != cn {
            continue;
        }
        if nc > 1 {
            for j in 0..v {
                partial[cf as usize * v + j] = combine(&partial, j, cf, cf + cn, 1, 0.0);
            }
            chunks_done[pos] += 1;
            if chunks_done[pos] != nc {
                continue;
            }
        }
        let step = if nc > 1 { CHUNK } else { 1 };
        for j in 0..v {
            run.epilogues[t * v + j] += 1;
            run.totals[t * v + j] = combine(&partial, j, first[pos], first[pos + 1], step, initial);
        }
    }
    run
}

/// Whether `kernel` can run its long tiles in pieces (the lowering's check): see [`check`].
#[cfg(feature = "frontend")]
pub fn takes(kernel: &crate::schedule::Kernel) -> bool {
    check(kernel).is_ok()
}

/// The body `pieces` takes, with a spanned error naming what stands in the way: the carry
/// schedules' shape ([`crate::analysis::carry_body`]: `let`s free of side effects, one loop with
/// tile-invariant bounds ending the tile body, in it `let`s, the one atom loop and the epilogue),
/// the loop a `lanes` loop, an atom loop without `break`, `continue` or `return` whose state is
/// plain accumulators (no argmin/argmax selection), and what `warp` takes.
#[cfg(feature = "frontend")]
pub fn check(kernel: &crate::schedule::Kernel) -> crate::diag::DResult<()> {
    use crate::analysis::{carry_body, reductions, visit_stmts};
    use crate::diag::bail;
    use crate::ir::StmtKind;
    use crate::schedule::Lowering;
    let name = kernel.config.name();
    let what = "its long tiles (more than 256 atoms) are cut into pieces, one warp each, whose \
                partials the last piece to finish combines";
    if atoms_alone(kernel) {
        // Each atom's result is its own (a `lanes` loop summed inside the atom loop): the
        // pieces share nothing, the group's rules are the whole check.
        return group::GroupLowering {
            group_size: GROUP,
            block_size: kernel.config.block_size,
        }
        .check(kernel);
    }
    let body = carry_body(kernel, kernel.body.user_body(), name)?;
    if let Some((first, _)) = body.earlier.first() {
        bail!(
            first.span,
            "under `{name}` {what}, so the tile body holds one atom loop: write one loop (or use `thread`, `warp` or `block`)"
        );
    }
    let Some(rounds) = &body.rounds else {
        bail!(
            body.atoms.span,
            "under `{name}` {what}: for a `lanes` loop's values. This atom loop is in none: write \
             `for j in lanes(0..n) {{ .. }}` around it, or use `thread`, `warp` or `block`"
        );
    };
    let lanes_loop = kernel
        .body
        .user_body()
        .iter()
        .find(|s| matches!(&s.kind, StmtKind::ForRange { var, .. } if var == rounds.var));
    if let Some(s) = lanes_loop {
        if !matches!(s.kind, StmtKind::ForRange { lanes: true, .. }) {
            bail!(
                s.span,
                "under `{name}` {what}: for a `lanes` loop's values. Write this loop `for {} in lanes(..)`",
                rounds.var
            );
        }
    }
    let StmtKind::ForAtoms {
        var, body: atoms, ..
    } = &body.atoms.kind
    else {
        unreachable!("carry_body returns an atom loop")
    };
    visit_stmts(atoms, &mut |s| match &s.kind {
        StmtKind::Break | StmtKind::Continue | StmtKind::Return(_) => bail!(
            s.span,
            "under `{name}` {what}: all pieces run at once, so no atom can stop the loop. Test the \
             condition inside the atom loop instead of leaving it (`if cond {{ sum += .. }}`), or \
             use `thread`, `warp` or `block`"
        ),
        _ => Ok(()),
    })?;
    let red = reductions(atoms, var, name, &mut |s| s.to_string())?;
    if !red.selections.is_empty() {
        bail!(
            body.atoms.span,
            "under `{name}` {what}, which add up plain accumulators: this atom loop selects an \
             atom (argmin/argmax). Use `thread`, `warp` or `block`"
        );
    }
    group::GroupLowering {
        group_size: GROUP,
        block_size: kernel.config.block_size,
    }
    .check(kernel)
}

#[cfg(feature = "frontend")]
use super::group;

/// Whether the tile body is one atom loop alone whose body holds a `lanes` loop
/// ([`super::lanes_reduce`], SDDMM's dot product per nonzero): then the pieces of a long tile
/// are independent (no partials, no tickets), a warp runs its piece's atoms as `warp` runs a
/// tile's, its lanes split between the atoms and the values.
#[cfg(feature = "frontend")]
pub fn atoms_alone(kernel: &crate::schedule::Kernel) -> bool {
    use crate::ir::StmtKind;
    match kernel.body.user_body() {
        [s] => matches!(&s.kind, StmtKind::ForAtoms { body, .. }
            if super::lanes_reduce::atom_loop_holds_lanes(body)),
        _ => false,
    }
}

#[cfg(feature = "frontend")]
mod lowering;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The pieces' reading of the lanes split: `lanes::width` of a warp over `values`.
    fn width_of(values: u64) -> u32 {
        super::super::lanes::width(values, GROUP, true)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(150))]

        /// Every (atom, value) of a listed tile is read once, every (listed tile, value) gets
        /// one epilogue with its whole total, unlisted tiles nothing; and the totals are the
        /// same bits whatever order the pieces finish in (the combination's order is fixed).
        #[test]
        fn every_value_of_every_listed_tile_is_finished_once(
            sizes in prop::collection::vec(
                prop_oneof![
                    2 => Just(0u64),
                    4 => 1u64..40,
                    2 => 40u64..400,
                    1 => 400u64..3000,
                    // `lrb`'s bins 9..=12 (257-4096 atoms), which it runs in pieces too.
                    1 => 257u64..=4096,
                ],
                1..12,
            ),
            keep in prop::collection::vec(any::<bool>(), 12),
            piece in prop::sample::select(vec![1u64, 3, 8, 64, PIECE_ATOMS as u64]),
            values in 0u64..6,
            seed in any::<u64>(),
        ) {
            let mut offsets = vec![0u64];
            for s in &sizes {
                offsets.push(offsets.last().unwrap() + s);
            }
            let list: Vec<u64> = (0..sizes.len() as u64).filter(|&t| keep[t as usize]).collect();
            let total: u64 = list
                .iter()
                .map(|&t| pieces_of(sizes[t as usize], piece))
                .sum();
            // Two finishing orders: in order, and shuffled by the seed.
            let in_order: Vec<u64> = (0..total).collect();
            let mut shuffled = in_order.clone();
            let mut x = seed | 1;
            for i in (1..shuffled.len()).rev() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                shuffled.swap(i, (x % (i as u64 + 1)) as usize);
            }
            let term = |a: u64, j: u64| 1.0 / (1.0 + a as f64) + j as f64 * 0.125;
            let w = width_of(values);
            let shape = ModelShape { piece, values, width: w };
            let a = model_run(&offsets, &list, shape, &in_order, 0.5, term);
            let b = model_run(&offsets, &list, shape, &shuffled, 0.5, term);
            prop_assert_eq!(&a.epilogues, &b.epilogues);
            prop_assert!(a.totals.iter().zip(&b.totals).all(|(x, y)| x.to_bits() == y.to_bits()));
            let v = values as usize;
            for t in 0..sizes.len() {
                let listed = list.contains(&(t as u64));
                for j in 0..v {
                    prop_assert_eq!(a.epilogues[t * v + j], listed as u32, "tile {} value {}", t, j);
                    if listed {
                        let want: f64 = 0.5
                            + (offsets[t]..offsets[t + 1]).map(|at| term(at, j as u64)).sum::<f64>();
                        prop_assert!((a.totals[t * v + j] - want).abs() <= 1e-9 * want.abs().max(1.0));
                    }
                }
                for at in offsets[t]..offsets[t + 1] {
                    for j in 0..v {
                        prop_assert_eq!(a.atom_visits[at as usize * v + j], listed as u32);
                    }
                }
            }
        }
    }

    /// A row of more than [`CHUNK`] pieces combines in two levels; the model's counts agree with
    /// the emitted slots: partials of every piece, chunk heads every `CHUNK` pieces.
    #[test]
    fn a_long_row_combines_by_chunks() {
        let offsets = [0u64, 5, 5 + 100 * CHUNK + 7];
        let list = [1u64, 0];
        let pieces = pieces_of(100 * CHUNK + 7, 1) + pieces_of(5, 1);
        let finish: Vec<u64> = (0..pieces).rev().collect();
        let shape = ModelShape {
            piece: 1,
            values: 3,
            width: width_of(3),
        };
        let run = model_run(&offsets, &list, shape, &finish, 0.0, |_, _| 1.0);
        assert_eq!(run.epilogues, [1, 1, 1, 1, 1, 1]);
        assert_eq!(run.totals, [5.0, 5.0, 5.0, 3207.0, 3207.0, 3207.0]);
    }

    #[cfg(feature = "frontend")]
    mod frontend {
        use crate::schedule::{Schedule, ScheduleConfig};

        fn kernel(body: &str) -> crate::schedule::Kernel {
            let item: syn::ItemFn = syn::parse_str(&format!(
                "fn spmm<T: Float>(a: Csr<T>, b: &[T], bias: &[T], c: &mut [T], k: usize) {{ {body} }}"
            ))
            .unwrap();
            let mut kernel = crate::frontend::lower_kernel(
                &item,
                &[],
                crate::frontend::parse_attr(r#"schedule = "lrb""#.parse().unwrap()).unwrap(),
                "spmm.rs",
            )
            .unwrap();
            kernel.config = ScheduleConfig {
                schedule: Schedule::Pieces {
                    piece_atoms: super::PIECE_ATOMS,
                },
                block_size: kernel.config.block_size,
            };
            kernel
        }

        fn error(body: &str) -> String {
            super::super::check(&kernel(body)).unwrap_err().message
        }

        const SAGE: &str = "for row in a.tiles() { for j in lanes(0..k) { let mut sum = bias[j]; \
             for nz in a.atoms(row) { sum += a.values[nz] * b[(a.col_indices[nz] as usize) * k + j]; } \
             c[row * k + j] = if sum > 0.0 { sum } else { 0.0 }; } }";

        #[test]
        fn a_lanes_loop_around_a_reducing_atom_loop_is_taken() {
            assert!(super::super::check(&kernel(SAGE)).is_ok());
        }

        #[test]
        fn lrb_emits_its_long_bin_in_pieces_where_the_body_takes_them() {
            let item: syn::ItemFn = syn::parse_str(&format!(
                "fn spmm<T: Float>(a: Csr<T>, b: &[T], bias: &[T], c: &mut [T], k: usize) {{ {SAGE} }}"
            ))
            .unwrap();
            let src =
                crate::cuda_for(r#"schedule = "lrb""#.parse().unwrap(), &item, "spmm.rs").unwrap();
            assert!(src.contains("bins 13..=31 as pieces of 256 atoms"), "{src}");
            assert!(src.contains("; bins 9..=31 as pieces"), "{src}");
            assert!(src.contains("spmm_lrb_lanes8__f32(") && src.contains("spmm_lrb_lanes__f32("));
            assert!(src.contains("spmm_lrb_long__f32(") && src.contains("loops_pieces"));
            // A body the pieces cannot take: the merge path, as before.
            let item: syn::ItemFn = syn::parse_str(
                "fn spmv<T: Float>(a: Csr<T>, x: &[T], y: &mut [T]) { for row in a.tiles() { \
                 let mut sum = 0.0; for nz in a.atoms(row) { sum += a.values[nz] * x[a.col_indices[nz] as usize]; } \
                 y[row] = sum; } }",
            )
            .unwrap();
            let src =
                crate::cuda_for(r#"schedule = "lrb""#.parse().unwrap(), &item, "spmv.rs").unwrap();
            assert!(src.contains("bins 13..=31 as merge_path"), "{src}");
        }

        /// A `lanes` loop summed inside the atom loop (SDDMM): the pieces are independent, a
        /// warp runs its piece's atoms (no tickets, no partials), bins 9..=31 in pieces.
        #[test]
        fn lrb_runs_an_sddmm_body_in_independent_pieces() {
            let item: syn::ItemFn = syn::parse_str(
                "fn sddmm<T: Float>(a: Csr<T>, x: &[T], y: &[T], k: usize, out: &mut [T]) { \
                 for row in a.tiles() { for nz in a.atoms(row) { let c = a.col_indices[nz] as usize; \
                 let mut d = 0.0; for j in lanes(0..k) { d += x[row * k + j] * y[c * k + j]; } \
                 out[nz] = d; } } }",
            )
            .unwrap();
            let src =
                crate::cuda_for(r#"schedule = "lrb""#.parse().unwrap(), &item, "sddmm.rs").unwrap();
            assert!(src.contains("bins 13..=31 as pieces of 256 atoms"), "{src}");
            assert!(src.contains("; bins 9..=31 as pieces"), "{src}");
            let long = &src[src.find("sddmm_lrb_long_body").unwrap()..];
            let long = &long[..long.find("extern \"C\"").unwrap()];
            assert!(
                long.contains("loops_pb") && long.contains("loops_pieces"),
                "{long}"
            );
            assert!(!long.contains("loops_ticket"), "{long}");
            // One short group (of 8), whatever `k`.
            assert!(
                src.contains("sddmm_lrb_lanes8__f32(") && !src.contains("sddmm_lrb_lanes__f32(")
            );
        }

        #[test]
        fn bodies_it_cannot_take_are_named() {
            let e = error(
                "for row in a.tiles() { for j in lanes(0..k) { let mut sum = 0.0; \
                 for nz in a.atoms(row) { if a.values[nz] > 1.0 { break; } sum += a.values[nz]; } \
                 c[row * k + j] = sum; } }",
            );
            assert!(
                e.contains("under `lrb`") && e.contains("no atom can stop the loop"),
                "{e}"
            );
            let e = error(
                "for row in a.tiles() { let mut sum = 0.0; for nz in a.atoms(row) { sum += a.values[nz]; } \
                 c[row] = sum; }",
            );
            assert!(
                e.contains("`lanes` loop") && e.contains("for j in lanes(0..n)"),
                "{e}"
            );
            let e = error(
                "for row in a.tiles() { for j in 0..k { let mut sum = 0.0; \
                 for nz in a.atoms(row) { sum += a.values[nz]; } c[row * k + j] = sum; } }",
            );
            assert!(e.contains("Write this loop `for j in lanes(..)`"), "{e}");
        }
    }
}

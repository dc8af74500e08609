//! `for j in lanes(start..end)`: a loop of the tile body whose values a group of lanes takes
//! together ([`crate::ir::StmtKind::ForRange`] with `lanes`). What each schedule does with it:
//!
//! - `group`, `warp`, `block` (and the group variants of `mean_group`, `lrb` and `auto`): the
//!   group's `G` lanes split into `W` lanes over the values and `G / W` lanes over the atoms
//!   ([`width`]): `W` is the power of two at or above the loop's length, at most `G`, chosen at run
//!   time (the length is a run-time value); a body with no atom loop takes the whole group over
//!   the values. Lane `l` takes the value offset `l % W` and the atom lane `l / W`
//!   ([`split_of_lane`]), so consecutive lanes read consecutive values (coalesced). The group
//!   walks the range in strides of `W`; a lane past its end runs the stride clamped to its first
//!   value, reads no atoms and stores nothing. In each stride the atom loops stride over the
//!   tile's atoms by `G / W` from the atom lane, and their accumulators are reduced over the lanes
//!   of one value (shuffles down from `G / 2` to `W` within a warp; above a warp, then through
//!   shared memory, every lane combining the warps in the same order: [`model_reduce`]), so each
//!   lane holds its value's total. Stores and atomics outside the atom loops run on the lanes of
//!   atom lane 0 whose value is in range.
//!
//!   The length `n` and the strides' offsets are 64-bit unsigned from the start, the step clamped
//!   at `n`, the value converted back to the loop's type: a range ending at the top of its type
//!   (`lanes(s..i32::MAX)`) ends ([`model_vectors_of_lane`]).
//!
//!   *Four values per lane* ([`VECTOR`]): where the body fuses (no `break`, `continue` or
//!   `return`, no assignment to a variable declared outside it, atom loops that reduce plain
//!   accumulators (no argmin/argmax selection); not in the checked variant) a
//!   second path is emitted and taken when `n % 4 == 0`: lane offset `l` takes the values
//!   `4 l .. 4 l + 4` of each stride of `4 W` (`W` = the power of two at or above `n / 4`, at most
//!   `G`: [`width_for`]), running four renamed copies of the body: the copies of each statement
//!   one after another, those of an atom loop's body in ONE atom loop (each atom's index and value
//!   read once for the four values, four accumulators reduced), a load `x[i + j]` (`i` free of the
//!   body's names) read once for the four values, and a store `y[i + j] = v` made once
//!   (`loops_load4`/`loops_store4` of the prelude: one 16-byte access, two for 8-byte types,
//!   where the address is 16-byte aligned, else four). Lanes of one value reduce as above. This is
//!   the op's vector width; the rows per warp are the group size (`group4`, `group8`, ..).
//!
//!   *Several vectors per lane* ([`VECTORS`], groups up to a warp): where `n` is a multiple of 8
//!   (16) and the narrower path's lanes (`min(G, 16)` of them, [`TARGET_LANES`]) would not cover
//!   it in one stride, each lane takes 8 (16) consecutive values, the same fused copies with one
//!   `loops_load4` / `loops_store4` per 4 of them ([`vector_for`], chosen at run time): at
//!   `n = 128` a warp runs 16 lanes of two 16-byte loads and two atom lanes (the op's `k16:t2`),
//!   `group8` one stride of 16 values per lane. Above a warp only four values per lane (the
//!   shared-memory reduction takes one slot array per value of a lane).
//! - `thread`, `merge_path`, `work_oriented`, `split` (and their variants): a serial loop in the
//!   thread, as written; the carry schedules run a `lanes` loop around the atom loop as rounds of
//!   the whole grid, one per value, as any loop around it ([`crate::analysis::carry_body`]).
//! - `lrb`'s long bins (more than 256 atoms): pieces of a warp each, the lanes split as under
//!   `warp` over the piece's atoms; the last piece of a tile combines the partials and runs the
//!   statements after the atom loop once per value ([`super::pieces`]).
//! - A `lanes` loop *inside* an atom loop (a sum over its values per atom, SDDMM's dot product)
//!   is [`super::lanes_reduce`]'s.
//! - `hierarchical`: refused around an atom loop (it keeps one atom loop's state between passes),
//!   with an error naming `lanes` and the schedules that take it ([`refuse_around_atoms`]).

/// The schedules that take a `lanes` loop around an atom loop, for messages.
pub const TAKE_LANES: &str =
    "`thread`, `group`, `warp`, `block`, `mean_group`, `lrb`, `auto`, `merge_path`, \
                              `work_oriented` or `split`";

/// Values per lane on the narrowest fused path of a `lanes` loop under a group: where the body can
/// be fused (no `break`/`continue`, no assignment to a variable from outside it, not the checked
/// variant) and the length is a multiple of it (tested at run time), each lane takes this many
/// consecutive values, the body's copies fused so that the atom loop reads each atom once for them
/// and a load `x[i + j]` is one vector load (16 bytes where aligned); otherwise one value per lane.
/// Wider paths take several such vectors per lane ([`VECTORS`]).
pub const VECTOR: u32 = 4;

/// The values per lane of the fused paths, narrowest first: one, two or four vectors of
/// [`VECTOR`] (for `f32`, one to four 16-byte loads per lane and atom). [`vector_for`] picks one
/// at run time.
pub const VECTORS: &[u32] = &[4, 8, 16];

/// The lanes over the values a wider path aims for: the widest path is taken only while a
/// narrower one would need more than this many lanes (at most the group) for one stride, so that
/// at `n = 128` a warp runs 16 lanes of 8 values and 2 atom lanes, the op's `k16:t2` plan.
pub const TARGET_LANES: u32 = 16;

/// Values per lane for a loop of `n` values whose body fuses (`fuses`): [`VECTOR`] where `n` is a
/// positive multiple of it, else 1 (the four-wide rule alone; see [`vector_for`]).
pub fn vector_of(n: u64, fuses: bool) -> u32 {
    if fuses && n > 0 && n.is_multiple_of(VECTOR as u64) {
        VECTOR
    } else {
        1
    }
}

/// Values per lane for a loop of `n` values under a group of `group_size`, as emitted (run time):
/// 1 where the body does not fuse or `n` is not a positive multiple of 4; else the narrowest of
/// [`VECTORS`] dividing `n` whose lanes (`L = min(group, TARGET_LANES)` of them) cover `n` in one
/// stride (`v * L >= n`), or the widest dividing `n` where none does. Each wider path is tried in
/// turn: `v` moves from `w` to `2 w` where `2 w` divides `n` and `w * L < n`.
pub fn vector_for(n: u64, fuses: bool, group_size: u32) -> u32 {
    let mut v = vector_of(n, fuses);
    if v == 1 {
        return 1;
    }
    let lanes = group_size.min(TARGET_LANES) as u64;
    for &wider in &vectors(group_size)[1..] {
        if n.is_multiple_of(wider as u64) && (wider as u64 / 2) * lanes < n {
            v = wider;
        }
    }
    v
}

/// The fused paths a group of `group_size` emits: all of [`VECTORS`] up to a warp; above a warp
/// only [`VECTOR`] (their reductions meet in shared memory, one slot array per value of a lane:
/// the wider paths would multiply the block's shared memory; four values per lane already leave
/// a block of 256 eight atom lanes at `n = 128`).
pub fn vectors(group_size: u32) -> &'static [u32] {
    if group_size <= 32 {
        VECTORS
    } else {
        &VECTORS[..1]
    }
}

/// Lanes over the values of a `lanes` loop of `n` values in a group of `group_size` (a power of
/// two): the power of two at or above `n` (at least 1), at most the group; the whole group where
/// the loop's body has no atom loop (`atoms` false).
pub fn width(n: u64, group_size: u32, atoms: bool) -> u32 {
    width_for(n, group_size, atoms, 1)
}

/// [`width`] where each lane takes `vector` consecutive values: the power of two at or above
/// `n / vector` lanes, at most the group.
pub fn width_for(n: u64, group_size: u32, atoms: bool, vector: u32) -> u32 {
    if !atoms {
        return group_size;
    }
    let mut w = 1u32;
    while w < group_size && (w as u64) * (vector as u64) < n {
        w <<= 1;
    }
    w
}

/// The value offset and the atom lane of lane `lane` (in its group) where `width` lanes run over
/// the values.
pub fn split_of_lane(lane: u32, width: u32) -> (u32, u32) {
    (lane & (width - 1), lane / width)
}

/// The values lane `lane` takes in each stride of a `lanes` loop over `start..end` (strides of
/// `width`): `(value, in range)`, a lane past the end clamped to the stride's first value.
pub fn model_values_of_lane(lane: u32, width: u32, start: u64, end: u64) -> Vec<(u64, bool)> {
    model_vectors_of_lane(lane, width, 1, start, end)
}

/// [`model_values_of_lane`] with `vector` values per lane (`end - start` a multiple of it): in each
/// stride of `width * vector` values, lane `lane` takes `vector` consecutive values from the
/// returned first one, as emitted (offsets from `start` in 64-bit unsigned arithmetic, the step
/// clamped at the length, so no stride wraps); a lane past the end is clamped to the stride's
/// first value (its values are all in range: the length is a multiple of `vector`).
pub fn model_vectors_of_lane(
    lane: u32,
    width: u32,
    vector: u32,
    start: u64,
    end: u64,
) -> Vec<(u64, bool)> {
    let (offset, _) = split_of_lane(lane, width);
    let n = end.saturating_sub(start);
    let step = width as u64 * vector as u64;
    let mut out = Vec::new();
    let mut o = 0u64;
    while o < n {
        let mine = offset as u64 * vector as u64;
        let inside = mine < n - o;
        out.push((start + o + if inside { mine } else { 0 }, inside));
        o = if n - o > step { o + step } else { n };
    }
    out
}

/// The atoms of a tile (`begin..end`) that lane `lane` visits in one stride, `in_range` its value.
pub fn model_atoms_of_lane(
    lane: u32,
    group_size: u32,
    width: u32,
    begin: u64,
    end: u64,
    in_range: bool,
) -> impl Iterator<Item = u64> {
    let (_, atom_lane) = split_of_lane(lane, width);
    let end = if in_range { end } else { begin };
    (begin + atom_lane as u64..end).step_by((group_size / width) as usize)
}

/// The reduction after an atom loop in a `lanes` loop, as emitted: each lane's partial in,
/// each lane's total out (the sum over the lanes of its value offset). Up to a warp: shuffles down
/// from `G / 2` to `width` within the group (a lane past the group's end reads itself), then every
/// lane reads the total from the lane of its offset. Above a warp: the same shuffles within each
/// warp (from 16), each lane's value to a shared slot, then every lane combines the slots of its
/// offset, one per warp (or per `width` lanes past a warp), in order.
pub fn model_reduce(group_size: u32, width: u32, partials: &[u64]) -> Vec<u64> {
    let g = group_size as usize;
    let w = width as usize;
    assert_eq!(partials.len(), g);
    let seg = g.min(32);
    let mut v = partials.to_vec();
    let mut o = seg / 2;
    while o >= w && o > 0 {
        let before = v.clone();
        for (l, x) in v.iter_mut().enumerate() {
            let src = if l % seg + o < seg { l + o } else { l };
            *x += before[src];
        }
        o >>= 1;
    }
    if g <= 32 {
        return (0..g).map(|l| v[l & (w - 1)]).collect();
    }
    let stride = w.max(32);
    (0..g)
        .map(|l| {
            let off = l & (w - 1);
            (0..g).step_by(stride).map(|p| v[p + off]).sum()
        })
        .collect()
}

#[cfg(feature = "frontend")]
pub use lowering::{check_group, group_atom_loop, group_lanes_loop, refuse_around_atoms};
#[cfg(feature = "frontend")]
pub(crate) use lowering::{copy_name, lanes_paths, reduce_values, strides, Fusion};

#[cfg(feature = "frontend")]
mod lowering;

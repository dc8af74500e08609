//! The kernel ABI, described once: the parameters a generated entry point takes after the user's,
//! in order. The emitter declares and forwards them from this list, the expansion counts them, and
//! the runtime pushes a value for each, so the three cannot disagree.
//!
//! A kernel's user parameters come first, each as its parts (a `Csr<T>` named `a`: `a_rows,
//! a_cols, a_nnz, a_offsets, a_indices, a_values`; a slice `x`: `x, x_len`; a scalar: its value),
//! then the *hidden* ones:
//!
//! | [`Hidden`] | C declaration | taken by |
//! |---|---|---|
//! | [`Hidden::ListLen`] | `const unsigned int* loops_list_len` | a schedule whose tile loop is grid-stride (`thread`, `group`, `warp`, `block`) over a tile subset: null, or the list's length on the device, of which the kernel reads `min(*loops_list_len, {list}_len)` positions (a frontier loop that stays on the GPU: the size of its frontier is known to the device only) |
//! | [`Hidden::SubsetOffsets`] | `const int* loops_subset_offsets` | a carry schedule over a tile subset (or a bin list of `lrb`): the prefix sum of the listed tiles' sizes |
//! | [`Hidden::BlockStarts`] | `const int* loops_block_starts` | `merge_path`, `work_oriented` over a whole set: each block's first tile, or null (search) |
//! | [`Hidden::SplitPieces`] | `const int* loops_pieces` | `split`: the prefix sum of each tile's piece count; the launch then runs a thread per piece (its shape's atoms are the pieces) |
//! | [`Hidden::Mdt`] | `const int loops_mdt` | `split`, `hierarchical`: atoms per piece, or per pass |
//! | [`Hidden::Pass`] | `const int loops_pass, const int loops_passes` | a schedule whose plan launches the kernel several times in a row (`hierarchical`; a carry schedule over a body of several atom loops, a launch per loop): this launch's index and the count |
//! | [`Hidden::TileState`] | `unsigned long long* loops_tile_state` | the same: [`STATE_HEADER_SLOTS`] slots zeroed before the first launch of a call of several, then `state_slots_per_tile` slots per tile of the call, kept across its launches |
//! | [`Hidden::Fault`] | `unsigned long long* loops_fault` | the bounds-checked variant: the fault record |
//! | [`Hidden::Scratch`] | `unsigned long long* loops_scratch` | every entry point, last: the carry schedules' records (null when none) |
//!
//! `lrb` launches its mappings over a list of tile ids: that list is a slice parameter of the
//! emitted variants (`loops_bin`, pointer and length), right after the user's parameters.
//!
//! Each entry point's definition is guarded by [`entry_macro`], so that the runtime can compile
//! one entry point of a source alone (with [`ONE_ENTRY_MACRO`] defined).

/// The macro that, defined, keeps only the entry points whose own macro ([`entry_macro`]) is
/// defined too. A source holds many entry points (`auto`: every candidate x element type x launch
/// form) and one NVRTC compile instantiates every one of them; the runtime compiles one entry
/// point per module with `-DLOOPS_ONE_ENTRY -DLOOPS_ENTRY_<entry>`. With no macro defined, a source
/// compiles whole, as before.
pub const ONE_ENTRY_MACRO: &str = "LOOPS_ONE_ENTRY";

/// The macro that keeps entry point `entry` when [`ONE_ENTRY_MACRO`] is defined:
/// `LOOPS_ENTRY_<entry>` (entry names are C identifiers, so this is one too).
pub fn entry_macro(entry: &str) -> String {
    format!("LOOPS_ENTRY_{entry}")
}

/// The line that opens the guard of one entry point's definition (closed by `#endif`).
pub fn entry_guard_open(entry: &str) -> String {
    format!(
        "#if !defined({ONE_ENTRY_MACRO}) || defined({})\n",
        entry_macro(entry)
    )
}

/// The entry points a generated source guards ([`entry_macro`]), in source order: what can be
/// compiled alone. Empty for a source with no guards (hand-written CUDA).
pub fn guarded_entries(source: &str) -> Vec<String> {
    let opening = format!(
        "#if !defined({ONE_ENTRY_MACRO}) || defined({}",
        entry_macro("")
    );
    source
        .lines()
        .filter_map(|line| line.strip_prefix(opening.as_str())?.strip_suffix(')'))
        .map(str::to_string)
        .collect()
}

/// The library's prelude: the device functions behind the builtins of the kernel-body language,
/// overloaded per type so one generic body serves f32 and f64. Written with intrinsics only: no
/// system header, so NVRTC needs no include path. A generated source does not hold it: it includes
/// it by [`PRELUDE_NAME`], and the runtime hands NVRTC this text under that name (once for every
/// kernel of a binary, instead of a copy in every source).
pub const PRELUDE: &str = include_str!("emit/prelude.cuh");

/// The name a generated source includes [`PRELUDE`] by: `#include "loops_prelude.cuh"`.
pub const PRELUDE_NAME: &str = "loops_prelude.cuh";

/// The bounds checks of the checked variant, after [`PRELUDE`]. `loops_fault` is five 8-byte
/// slots, zero when the launch starts: [fault flag, site code, index, length, Rust line]. The first
/// out-of-range access of the launch wins the flag and fills the rest; every out-of-range access is
/// skipped (a read yields 0, a store or an atomic does nothing and returns 0), so the kernel never
/// touches memory out of bounds. A checked source includes it by [`CHECKED_PRELUDE_NAME`].
pub const CHECKED_PRELUDE: &str = include_str!("emit/checked.cuh");

/// The name a checked source includes [`CHECKED_PRELUDE`] by.
pub const CHECKED_PRELUDE_NAME: &str = "loops_checked.cuh";

/// The headers a generated source may include, by name: what the runtime hands NVRTC with every
/// program (a source that includes none ignores them).
pub const HEADERS: [(&str, &str); 2] = [
    (PRELUDE_NAME, PRELUDE),
    (CHECKED_PRELUDE_NAME, CHECKED_PRELUDE),
];

/// The line that includes header `name` (one of [`HEADERS`]) in a generated source.
pub fn include_line(name: &str) -> String {
    format!("#include \"{name}\"\n")
}

/// `source` with each line that includes one of [`HEADERS`] replaced by the header's text: one
/// translation unit that any CUDA compiler takes as it is (the runtime compiles the source with the
/// headers handed to NVRTC instead, which is the same program). `#line` directives around each
/// inlined header keep the lines after it where the source's own directives and NVRTC's messages
/// put them: the header's lines are named after it (`loops_prelude.cuh`), the rest after the
/// program, `file` (NVRTC's name for it: `<kernel>.cu`).
pub fn full_source(source: &str, file: &str) -> String {
    let extra: usize = HEADERS.iter().map(|(_, text)| text.len() + 64).sum();
    let mut out = String::with_capacity(source.len() + extra);
    for (index, line) in source.split_inclusive('\n').enumerate() {
        let header = HEADERS
            .iter()
            .find(|(name, _)| line.trim_end() == include_line(name).trim_end());
        match header {
            Some((name, text)) => {
                out.push_str(&format!("#line 1 \"{name}\"\n"));
                out.push_str(text);
                // `index` is 0-based: the line after the include is line `index + 2`.
                out.push_str(&format!("#line {} \"{file}\"\n", index + 2));
            }
            None => out.push_str(line),
        }
    }
    out
}

/// Slots at the front of [`Hidden::TileState`] that the runtime zeroes before the first launch
/// of a call of several launches (counters the launches share; a pass 0 reads none of them, so a
/// call of one launch is not zeroed); the per-tile state follows them.
pub const STATE_HEADER_SLOTS: usize = 4;

/// A parameter of every entry point of a kernel that the user did not write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Hidden {
    /// `const unsigned int* loops_list_len`.
    ListLen,
    /// `const int* loops_subset_offsets`.
    SubsetOffsets,
    /// `const int* loops_block_starts`.
    BlockStarts,
    /// `const int* loops_pieces`.
    SplitPieces,
    /// `const int loops_mdt`.
    Mdt,
    /// `const int loops_pass, const int loops_passes`.
    Pass,
    /// `unsigned long long* loops_tile_state`.
    TileState,
    /// `unsigned long long* loops_fault`.
    Fault,
    /// `unsigned long long* loops_scratch`.
    Scratch,
}

impl Hidden {
    /// The C parameters this one is made of: `(declaration, name)` each.
    pub fn parts(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Hidden::ListLen => &[(
                "const unsigned int* __restrict__ loops_list_len",
                "loops_list_len",
            )],
            Hidden::SubsetOffsets => &[(
                "const int* __restrict__ loops_subset_offsets",
                "loops_subset_offsets",
            )],
            Hidden::BlockStarts => &[(
                "const int* __restrict__ loops_block_starts",
                "loops_block_starts",
            )],
            Hidden::SplitPieces => &[("const int* __restrict__ loops_pieces", "loops_pieces")],
            Hidden::Mdt => &[("const int loops_mdt", "loops_mdt")],
            Hidden::Pass => &[
                ("const int loops_pass", "loops_pass"),
                ("const int loops_passes", "loops_passes"),
            ],
            Hidden::TileState => &[(
                "unsigned long long* __restrict__ loops_tile_state",
                "loops_tile_state",
            )],
            Hidden::Fault => &[(
                "unsigned long long* __restrict__ loops_fault",
                "loops_fault",
            )],
            Hidden::Scratch => &[(
                "unsigned long long* __restrict__ loops_scratch",
                "loops_scratch",
            )],
        }
    }
}

/// What the ABI asks of a schedule: its own hidden parameters. The schedules implement it (the
/// ABI names none of them), each from its unit's `hidden_params` and `hidden_params_in_passes`.
pub trait OwnHidden: Copy {
    /// The schedule's own hidden parameters for a variant whose call is `passes` launches of one
    /// atom loop each (1: one launch, or the schedule's own passes); `over_subset`: the tile loop
    /// runs over a list of tiles.
    fn own_hidden(self, over_subset: bool, passes: u32) -> &'static [Hidden];
}

/// The schedule's own hidden parameters ([`OwnHidden::own_hidden`]).
pub fn schedule_hidden(
    schedule: impl OwnHidden,
    over_subset: bool,
    passes: u32,
) -> &'static [Hidden] {
    schedule.own_hidden(over_subset, passes)
}

/// The hidden parameters of an entry point, in order: the schedule's own ([`schedule_hidden`]),
/// then the fault record in the checked variant, then the scratch pointer.
pub fn hidden_params(
    schedule: impl OwnHidden,
    over_subset: bool,
    passes: u32,
    checked: bool,
) -> Vec<Hidden> {
    let mut params = schedule_hidden(schedule, over_subset, passes).to_vec();
    if checked {
        params.push(Hidden::Fault);
    }
    params.push(Hidden::Scratch);
    params
}

/// Whether a kernel of `schedule` over a tile subset can take the subset's length from the device
/// ([`Hidden::ListLen`]): its launch needs no host-side sizing but the list's capacity, so a frontier
/// whose size only the GPU knows can be its list.
pub fn takes_device_list_len(schedule: impl OwnHidden) -> bool {
    schedule.own_hidden(true, 1).contains(&Hidden::ListLen)
}

/// How many C parameters `hidden` adds.
pub fn count(hidden: &[Hidden]) -> usize {
    hidden.iter().map(|h| h.parts().len()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_guards_name_their_entry() {
        assert_eq!(
            entry_guard_open("spmv_group4__f32__wide"),
            "#if !defined(LOOPS_ONE_ENTRY) || defined(LOOPS_ENTRY_spmv_group4__f32__wide)\n"
        );
        let source = format!(
            "template <typename T> void body() {{}}\n{}void a() {{}}\n#endif\n{}void b() {{}}\n#endif\n",
            entry_guard_open("a__f32"),
            entry_guard_open("b__f64")
        );
        assert_eq!(guarded_entries(&source), ["a__f32", "b__f64"]);
        assert!(guarded_entries("extern \"C\" __global__ void k() {}").is_empty());
    }
}

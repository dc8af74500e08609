//! A schedule's launch plan: what the runtime launches for one call of a kernel. The plan is the
//! schedule's ([`super::ScheduleUnit::plan`]); the runtime carries it out through [`Launcher`],
//! which gives it the facts it may look at (the tile set's statistics, the variants emitted, the
//! device) and the two things it may do: bin the tiles, and launch a variant.

use super::auto::TileStats;
use super::{DeviceLimits, ScheduleConfig};

/// One variant of a generated kernel: the kernel itself, or one of `auto`'s candidates or
/// `lrb`'s mappings, each emitted under its own schedule and named after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// The schedule it was emitted under.
    pub config: ScheduleConfig,
    /// Its name: its entry points are `{name}__{element type}` (`spmv_group4__f32`), or `{name}`
    /// for a kernel that is not generic.
    pub name: &'static str,
    /// 8-byte slots of global scratch per block it needs (besides the ticket counter); 0 for none.
    pub scratch_slots_per_block: u32,
    /// 8-byte slots of state per tile it keeps across the passes of one call
    /// ([`crate::abi::Hidden::TileState`]); 0 for none.
    pub state_slots_per_tile: u32,
    /// Bytes of dynamic shared memory each of its launches passes: its shared arrays where they
    /// are past the 48 KiB a block may declare statically (a launch over 48 KiB opts into more);
    /// 0 where they are static.
    pub dynamic_shared_bytes: u32,
    /// Whether it runs its tiles as a segmented scan (`work_oriented` where every accumulator
    /// folds one staged operand): runs of empty tiles cost it nothing.
    pub scans: bool,
    /// Whether it has a 64-bit-offsets instantiation (the `__wide` entry points of the kernel's
    /// wide source), for tile sets of more than `i32::MAX` atoms.
    pub wide: bool,
    /// The C parameters of its user parameters ([`crate::abi`]): its hidden ones follow.
    pub user_params: u32,
    /// Whether its tile loop runs over a list of tiles (the call's subset, or `lrb`'s bin list):
    /// it then takes the hidden parameters of a list ([`crate::abi::hidden_params`]).
    pub over_list: bool,
    /// Whether its body calls an atomic (a traversal's relaxations, a scatter): each atom's step
    /// waits on a read-modify-write, which `auto`'s model weighs.
    pub atomics: bool,
    /// The launches one run of it takes, one per atom loop of the tile body (a carry schedule
    /// over several atom loops, [`crate::abi::schedule_hidden`]); 1 otherwise. The runtime makes
    /// every launch of the variant that many, passes `0..passes`.
    pub passes: u32,
    /// Whether its later passes run a listed tile on a warp, then on a block (`hierarchical`
    /// where the atom loop's state reduces across threads: at most three passes a call).
    pub pass_levels: bool,
}

impl Variant {
    /// The schedule's own hidden parameters of its entry points ([`crate::abi::schedule_hidden`]).
    pub fn schedule_hidden(&self) -> &'static [crate::abi::Hidden] {
        let schedule = self.config.schedule;
        crate::abi::schedule_hidden(schedule, self.over_list, self.passes)
    }
}

/// The tiles one launch runs over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tiles {
    /// The call's tiles: the whole tile set, or the call's subset.
    Call,
    /// Positions `range` of the order [`Launcher::bin`] sorted the call's tiles into.
    Binned(std::ops::Range<usize>),
}

/// One launch of a plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The index of the variant to launch.
    pub variant: usize,
    pub tiles: Tiles,
    /// For a plan that launches one variant several times in a row over the same tiles: this
    /// launch's index and the count (the kernel's `loops_pass`, `loops_passes`).
    pub pass: Option<(u32, u32)>,
    /// Atoms per piece for this launch (the kernel's `loops_mdt`), where the plan chooses it
    /// rather than the variant's schedule or the tile set.
    pub piece_atoms: Option<u64>,
}

impl Launch {
    /// Variant `variant` over the call's tiles, once.
    pub fn whole(variant: usize) -> Self {
        Launch {
            variant,
            tiles: Tiles::Call,
            pass: None,
            piece_atoms: None,
        }
    }
}

/// The plan could not go on: the runtime holds the error, and returns it from the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stop;

/// What the runtime offers a plan.
pub trait Launcher {
    /// The variants of the kernel, in emission order.
    fn variants(&self) -> &[Variant];
    /// The statistics of the call's tile set (over a subset: of the whole set).
    fn stats(&self) -> TileStats;
    /// The statistics of the call's tiles: of the whole set, or of the subset's tiles (counted on
    /// the device where the set has tiles too long for one warp, else estimated from the set's).
    fn call_stats(&mut self) -> Result<TileStats, Stop>;
    /// The variant to launch among `shortlist` (variant indices, the model's best first): the
    /// runtime may time them on the call's tiles (without touching the call's outputs) and
    /// remember the winner; by default, and where it does not time, the first.
    fn tune(&mut self, shortlist: &[usize]) -> Result<usize, Stop> {
        shortlist.first().copied().ok_or(Stop)
    }
    /// Whether the tile set has 64-bit offsets: only variants with [`Variant::wide`] may run.
    fn is_wide(&self) -> bool;
    /// The device's limits.
    fn limits(&self) -> DeviceLimits;
    /// The piece size chosen for the tile set from its size histogram when it was uploaded
    /// ([`super::split::choose_mdt`]).
    fn tile_set_mdt(&self) -> u64;
    /// The rounds of the call: the trip count of a loop with tile-invariant bounds around the
    /// atom loop (a `lanes` loop's length: SpMM's `k`), where a variant's scratch is sized by it
    /// ([`super::ScheduleUnit::scratch_per_round`]); 1 where none is.
    fn rounds(&self) -> u64 {
        1
    }
    /// Sorts the call's tiles by `ceil(log2(atoms))` on the GPU (`lrb`'s binning pass; kept with a
    /// whole tile set) and returns where each bin starts in that order (`BINS + 1` entries).
    fn bin(&mut self) -> Result<[u32; super::lrb::BINS + 1], Stop>;
    /// Makes ready (compiles, at once, where they are not yet) the variants a plan is about to
    /// launch; by default nothing (a launch compiles its variant).
    fn prepare(&mut self, variants: &[usize]) -> Result<(), Stop> {
        let _ = variants;
        Ok(())
    }
    /// Queues one launch.
    fn launch(&mut self, launch: Launch) -> Result<(), Stop>;
}

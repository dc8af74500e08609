//! Schedules: how the tiles and atoms of a tile set are mapped onto GPU threads.
//!
//! Every schedule is one unit behind [`ScheduleUnit`], in its own file (the carry schedules share
//! [`carry`]). A unit owns everything about its mapping: the attribute's arguments, its CUDA
//! lowering of the tile and atom loops ([`Lowering`]), the hidden parameters its kernels take
//! ([`crate::abi`]), its launch geometry and plan (what the runtime launches for one call:
//! [`ScheduleUnit::plan`]), and its pure-Rust model (which thread visits which tile and atom), so
//! the model, the runtime and the emitted code share one source for every constant. Registering a
//! schedule is its line in the `registry!` below (its variant of [`Schedule`] and its unit), which
//! makes [`Schedule`], [`Schedule::unit`], [`UNITS`] and, from each unit file's `NAMED`,
//! [`SCHEDULES`]: the named schedules users test with (`group4`, `merge_path12`), each with its
//! attribute's text. Nothing outside this folder matches on a [`Schedule`]'s variants: what the
//! runtime, the emitter and `auto`'s model ask of a schedule are [`ScheduleUnit`]'s methods.

pub mod append;
pub mod auto;
pub mod block_shared;
pub mod carry;
pub mod flat;
pub mod group;
pub mod hierarchical;
#[cfg(feature = "frontend")]
mod kernel;
pub mod lanes;
pub mod lanes_reduce;
pub mod lrb;
pub mod mean_group;
pub mod merge_path;
pub mod pieces;
mod plan;
pub mod split;
pub mod thread;
#[cfg(feature = "frontend")]
pub mod tile_only;
pub mod work_oriented;

pub use crate::abi::Hidden;
#[cfg(feature = "frontend")]
pub use kernel::Kernel;
pub use plan::{Launch, Launcher, Stop, Tiles, Variant};

/// The shape of a tile set at launch time: what the launch geometry depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileSetShape {
    /// Number of tiles (rows of a CSR matrix).
    pub tiles: u64,
    /// Number of atoms (nonzeros).
    pub atoms: u64,
}

/// What the launch geometry needs to know about the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    pub sm_count: u32,
    pub max_threads_per_sm: u32,
    /// Bytes of L2 cache (for [`streams_past_l2`]).
    pub l2_bytes: u64,
}

/// The entry points of one instantiation of a kernel that `Kernel::takes_block_starts`: how its
/// blocks find their ranges, and how they load their staged operands, are fixed per entry point
/// (template arguments of the body), so that neither choice costs the kernel a branch. Measured on
/// an H100 against one entry point that chose both at run time: powerlaw_contig 4M rows, SpMV under
/// `work_oriented16`, 0.2532 -> 0.2402 ms. The runtime picks one per launch ([`Self::choose`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeEntry {
    /// Reads the block starts kept with the tile set; plain loads.
    Kept,
    /// Reads the kept block starts; the staged operands are loaded evict-first (`__ldcs`), for
    /// launches that [`streams_past_l2`] says stream past the L2.
    Streamed,
    /// No block starts were kept (the pointer is null): the blocks search the offsets.
    Searched,
}

impl RangeEntry {
    /// Every entry point of the plain variant; the checked variant has no `Streamed` one.
    pub const ALL: [RangeEntry; 3] = [Self::Kept, Self::Streamed, Self::Searched];

    /// The entry point for a launch: the searched one where no starts were kept; the streamed one
    /// where the launch streams past L2, except in the checked variant (which has none).
    pub fn choose(kept: bool, streamed: bool, checked: bool) -> Self {
        match (kept, streamed && !checked) {
            (false, _) => Self::Searched,
            (true, true) => Self::Streamed,
            (true, false) => Self::Kept,
        }
    }

    /// Whether the checked variant has this entry point.
    pub fn in_checked(self) -> bool {
        self != Self::Streamed
    }

    /// The body template's arguments `loops_kept, loops_streamed`.
    pub fn template_args(self) -> &'static str {
        match self {
            Self::Kept => "true, false",
            Self::Streamed => "true, true",
            Self::Searched => "false, false",
        }
    }

    /// The entry point's name, from the instantiation's (`spmv__f32` -> `spmv__f32__stream`).
    pub fn entry_name(self, entry: &str) -> String {
        match self {
            Self::Kept => entry.to_string(),
            Self::Streamed => format!("{entry}__stream"),
            Self::Searched => format!("{entry}__searched"),
        }
    }
}

/// Whether a `merge_path` or `work_oriented` launch loads its staged operands (the tile set's
/// arrays, read once at each atom) evict-first (`ld.global.cs`): where they pass through L2 at
/// least 4 times its size while the slices the kernel only reads (`&[T]`, what it gathers) fit in
/// half of it. The stream would otherwise push the gathered vector out between its reuses.
/// The atoms are counted at 8 bytes each (a 4-byte index and a value).
///
/// Measured (H100, 50 MB of L2; the generated `work_oriented` SpMV with the hint off and on, at 8
/// and at 16 items per thread): power-law rows with contiguous columns (4M rows, 67M entries, `x`
/// 16 MB) 0.325 -> 0.310 ms and 0.319 -> 0.273; random columns -8% and -4%; uniform rows +2% and
/// -5%; R-MAT 21 within 1%. Left off where the gathered vector is large (banded, 8.4M rows of 16,
/// `x` 34 MB: 14% slower with it) and on small sets (arrow, 1M rows, 3M entries: 4-10% slower).
/// The rule sees sizes only: a banded matrix of 2M rows (`x` 8 MB), whose gathers are local, gets
/// the hint and was 8% (and 2%) slower with it.
pub fn streams_past_l2(atoms: u64, read_only_bytes: u64, limits: DeviceLimits) -> bool {
    let l2 = limits.l2_bytes;
    l2 > 0 && atoms.saturating_mul(8) >= l2.saturating_mul(4) && read_only_bytes <= l2 / 2
}

/// Grid and block of one launch, and the dynamic shared memory it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchDims {
    pub grid: u32,
    pub block: u32,
    pub shared_bytes: u32,
}

/// A schedule by name, as users test kernels with them: the attribute's text for one setting of a
/// unit's arguments. Each unit's file declares its own (`NAMED`); [`SCHEDULES`] lists them all.
/// `#[loops::for_schedules(..)]` makes one module per name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NamedSchedule {
    /// The name: an identifier, the module name `#[for_schedules]` gives the kernel under it
    /// (`group4`).
    pub name: &'static str,
    /// The arguments of `#[load_balanced(..)]` that select it: `schedule = "group", group_size = 4`.
    pub attr: &'static str,
    /// One line of what it does.
    pub about: &'static str,
    /// In the core set (`#[for_schedules(core)]`): what a kernel is usually tested under, every
    /// unit at least once. A new unit's first named schedule belongs in it, so that the kernels
    /// stamped under `core` are tested under it without a change to their lists.
    pub core: bool,
}

/// Lists every unit once: its variant of [`Schedule`] (with its arguments, each a `u32`), and the
/// unit behind it, whose module's `NAMED` holds its named schedules. Makes [`Schedule`],
/// [`Schedule::unit`], [`Schedule::constructor_tokens`], [`UNITS`] and [`SCHEDULES`] from that
/// one list.
macro_rules! registry {
    ($(
        $(#[$doc:meta])*
        $variant:ident $({ $($field:ident),+ $(,)? })? => $module:ident :: $unit:ident
    ),+ $(,)?) => {
        /// The schedule named by the attribute, with its arguments. Each variant is one unit behind
        /// [`ScheduleUnit`] (its own file in this folder); [`Schedule::unit`] maps a variant to it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Schedule {
            $($(#[$doc])* $variant $({ $($field: u32),+ })?,)+
        }

        impl Schedule {
            /// The unit that implements this schedule.
            pub fn unit(self) -> &'static dyn ScheduleUnit {
                match self {
                    $(Schedule::$variant { .. } => &$module::$unit,)+
                }
            }

            /// The constructor of this value as tokens, under `path` (the enum's path where the
            /// tokens are compiled: `::loops::__private::Schedule`): what the macro's expansion
            /// writes into the kernel's constant.
            #[cfg(feature = "frontend")]
            pub fn constructor_tokens(
                self,
                path: &proc_macro2::TokenStream,
            ) -> proc_macro2::TokenStream {
                match self {
                    $(Schedule::$variant $({ $($field),+ })? => {
                        $($(let $field = proc_macro2::Literal::u32_unsuffixed($field);)+)?
                        quote::quote!(#path::$variant $({ $($field: #$field),+ })?)
                    })+
                }
            }
        }

        /// Every schedule unit, in the order the attribute's error message lists them.
        pub const UNITS: &[&dyn ScheduleUnit] = &[$(&$module::$unit),+];

        /// Each unit's named schedules, in the order of [`UNITS`].
        pub const NAMED_BY_UNIT: &[&[NamedSchedule]] = &[$($module::NAMED),+];
    };
}

registry!(
    /// One tile per thread, grid-stride over tiles; a tile's atoms run in sequence in its thread.
    Thread => thread::Thread,
    /// One tile per group of `group_size` threads (a power of two up to the block size); the group
    /// strides over the tile's atoms and reduces. `warp` is 32, `block` is the block size.
    Group { group_size } => group::Group,
    /// A group per tile of the lanes the call's mean tile wants, up to `max_group_size`
    /// ([`mean_group`]).
    MeanGroup { max_group_size } => mean_group::MeanGroup,
    /// An equal share of atoms per thread; cut tiles are finished by a carry fix-up.
    WorkOriented { items_per_thread } => work_oriented::WORK_ORIENTED,
    /// An equal share of tiles + atoms per thread along the merge path; carry fix-up.
    MergePath { items_per_thread } => merge_path::MERGE_PATH,
    /// Node splitting: tiles cut into virtual tiles of at most `mdt` atoms (0: chosen from the tile
    /// set's size histogram, [`split::choose_mdt`]), one per thread; cut tiles finished by the carry
    /// fix-up.
    Split { mdt } => split::Split,
    /// Hierarchical processing: per pass (one launch) each tile processes at most `mdt` atoms
    /// (0: chosen from the tile set's size histogram); tiles with atoms left keep their state and
    /// go on to the next pass's worklist.
    Hierarchical { mdt } => hierarchical::Hierarchical,
    /// Logarithmic radix binning: each launch bins the tiles by `ceil(log2(atoms))` on the GPU and
    /// runs every bin's tiles under the mapping fit for their size ([`lrb::Mapping`]), one launch
    /// per mapping.
    Lrb => lrb::Lrb,
    /// `lrb`'s longest tiles where the body is a `lanes` loop around a reducing atom loop: cut into
    /// pieces of `piece_atoms` atoms, a warp each; the last piece of a tile combines the partials
    /// and runs the epilogue ([`pieces`]). No name of its own.
    Pieces { piece_atoms } => pieces::Pieces,
    /// The whole set's atoms in equal pieces of consecutive atoms across tiles, a warp each, for a
    /// body whose atoms are independent ([`flat`]), at most `vector` values a lane at once: one of
    /// `auto`'s candidates, no name of its own.
    Flat { vector } => flat::Flat,
    /// Emitted under each of [`auto::candidates`]; each call runs the one the runtime picks among the model's best ([`auto::model`]).
    Auto => auto::Auto,
);

/// Every named schedule, unit by unit in the order of [`UNITS`]: its name, the attribute's
/// arguments that select it, and one line of what it does. Made from the units' own lists.
pub const SCHEDULES: &[NamedSchedule] = &flatten::<{ count(NAMED_BY_UNIT) }>(NAMED_BY_UNIT);

const fn count(parts: &[&[NamedSchedule]]) -> usize {
    let (mut i, mut n) = (0, 0);
    while i < parts.len() {
        n += parts[i].len();
        i += 1;
    }
    n
}

const fn flatten<const N: usize>(parts: &[&[NamedSchedule]]) -> [NamedSchedule; N] {
    let mut out = [NamedSchedule {
        name: "",
        attr: "",
        about: "",
        core: false,
    }; N];
    let (mut i, mut k) = (0, 0);
    while i < parts.len() {
        let mut j = 0;
        while j < parts[i].len() {
            out[k] = parts[i][j];
            j += 1;
            k += 1;
        }
        i += 1;
    }
    out
}

/// The named schedule called `name`, if any.
pub fn named(name: &str) -> Option<&'static NamedSchedule> {
    SCHEDULES.iter().find(|s| s.name == name)
}

/// The candidate closest to `name` where it is close enough to be a slip (`mergepath` ->
/// `merge_path`, `grop4` -> `group4`, `wrap` -> `warp`): at most a third of the name's letters
/// (at least one) wrong, missing, extra or swapped, not counting case, underscores and hyphens.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let squash = |s: &str| -> Vec<char> {
        s.chars()
            .filter(|c| *c != '_' && *c != '-')
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let want = squash(name);
    let limit = (want.len() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (edit_distance(&squash(c), &want), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// Edits (a letter changed, added, removed, or two neighbours swapped) from `a` to `b`.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let w = b.len() + 1;
    let mut d: Vec<usize> = vec![0; (a.len() + 1) * w];
    for i in 0..=a.len() {
        for j in 0..=b.len() {
            d[i * w + j] = if i == 0 || j == 0 {
                i + j
            } else {
                let sub = d[(i - 1) * w + j - 1] + usize::from(a[i - 1] != b[j - 1]);
                let mut best = sub.min(d[(i - 1) * w + j] + 1).min(d[i * w + j - 1] + 1);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    best = best.min(d[(i - 2) * w + j - 2] + 1);
                }
                best
            };
        }
    }
    d[a.len() * w + b.len()]
}

impl Schedule {
    /// Whether the schedule cuts tiles between threads and finishes them with the carry fix-up
    /// ([`carry`]): `work_oriented`, `merge_path`, `split`.
    pub fn carries(self) -> bool {
        self.unit().carries()
    }

    /// Whether the schedule runs on a tile set of more than `i32::MAX` atoms (64-bit tile
    /// offsets): see [`ScheduleUnit::supports_wide_offsets`].
    pub fn supports_wide_offsets(self) -> bool {
        self.unit().supports_wide_offsets()
    }

    /// The partition and items per thread of the schedules whose blocks find their ranges by
    /// searching the tile offsets: see [`ScheduleUnit::searched_partition`].
    pub fn searched_partition(self) -> Option<(carry::Partition, u32)> {
        self.unit().searched_partition(self)
    }

    /// The lanes it gives each tile, where it maps tiles to groups of lanes: see
    /// [`ScheduleUnit::lanes`].
    pub fn lanes(self) -> Option<u32> {
        self.unit().lanes(self)
    }
}

/// The ABI's question, answered by the unit: [`ScheduleUnit::hidden_params`], or for a call of
/// several launches of one atom loop each [`ScheduleUnit::hidden_params_in_passes`].
impl crate::abi::OwnHidden for Schedule {
    fn own_hidden(self, over_subset: bool, passes: u32) -> &'static [Hidden] {
        let unit = self.unit();
        if passes > 1 {
            unit.hidden_params_in_passes(self, over_subset)
        } else {
            unit.hidden_params(self, over_subset)
        }
    }
}

/// One schedule: how the tiles and atoms of a tile set are mapped onto GPU threads, everything in
/// one place. The methods without the `frontend` feature are what the runtime asks at launch
/// time; the others are how the macro lowers a body under it.
pub trait ScheduleUnit: Sync {
    /// The names the attribute accepts for it (`"group"`, `"warp"`, `"block"`); the first is its
    /// own.
    fn names(&self) -> &'static [&'static str];

    /// The attribute's arguments it takes besides `schedule` and `block_size`, when written as
    /// `name` (one of [`Self::names`]).
    fn arg_keys(&self, name: &str) -> &'static [&'static str] {
        let _ = name;
        &[]
    }

    /// Its name as written in the attribute (one of [`Self::names`]): errors should name what
    /// the user wrote (`warp` and `block` are groups of 32 and of the block size).
    fn name_as_written(&self, config: ScheduleConfig) -> &'static str {
        let _ = config;
        self.names()[0]
    }

    /// The name with its arguments, for tables and generated-code headers.
    fn describe(&self, schedule: Schedule) -> String {
        let _ = schedule;
        self.names()[0].to_string()
    }

    /// A short name that tells candidates apart (`group16`), usable in an identifier.
    fn short_name(&self, schedule: Schedule) -> String {
        let _ = schedule;
        self.names()[0].to_string()
    }

    /// Whether it cuts tiles between threads and finishes them with the carry fix-up ([`carry`]).
    fn carries(&self) -> bool {
        false
    }

    /// The lanes it gives each tile where it maps every tile to a group of lanes (`thread`: 1,
    /// `group`: its size); `None` where it shares work out otherwise (cutting tiles). `auto`'s
    /// model takes the two for different families; a device loop gives a frontier the lanes its
    /// tiles need.
    fn lanes(&self, schedule: Schedule) -> Option<u32> {
        let _ = schedule;
        None
    }

    /// Its estimated time for one launch, in nanoseconds, for `auto`'s model ([`auto::model`]).
    /// By default the formula of its family ([`Self::lanes`]): a group of lanes per tile, or
    /// equal shares of [`DEFAULT_ITEMS_PER_THREAD`] atoms per thread.
    fn estimate_ns(&self, schedule: Schedule, input: &auto::model::Input) -> f64 {
        match self.lanes(schedule) {
            Some(g) => auto::model::tiles_ns(input, g),
            None => auto::model::shares_ns(
                input,
                auto::model::Shares::of_atoms(input, DEFAULT_ITEMS_PER_THREAD),
            ),
        }
    }

    /// Whether this setting of it can run in blocks of `block_size` threads (the attribute's
    /// rules): `auto` keeps only such candidates.
    fn fits_block(&self, schedule: Schedule, block_size: u32) -> bool {
        let _ = (schedule, block_size);
        true
    }

    /// Whether its plan runs one of its variants, picked per call (`auto`): over a list whose
    /// length lives on the device, one of its variants that takes that length may run.
    fn picks_a_variant(&self) -> bool {
        false
    }

    /// Why it cannot run over a list whose length lives on the device (where its
    /// [`Self::hidden_params`] over a subset lack [`Hidden::ListLen`]): the runtime's error says it.
    /// By default: the carry schedules' prefix sum, or the host's sizing.
    fn why_not_in_device_loop(&self) -> &'static str {
        if self.carries() {
            "it sizes each launch by a prefix sum of the listed tiles' sizes, read back on the host"
        } else {
            "it sizes its launch on the host from the list"
        }
    }

    /// Whether a tile body of several atom loops runs them in launches of their own (each but the
    /// last one's results kept in the tile state): the carry schedules, a launch per loop, and
    /// `hierarchical`, in passes of its own ([`Kernel::atom_passes`]).
    fn splits_atom_loops(&self) -> bool {
        self.carries()
    }

    /// Whether the runtime sizes its scratch per round of a tile-invariant loop around the atom
    /// loop (the wrapper's `carry_rounds`, computed on the host from the loop's bounds): the carry
    /// schedules, and [`pieces`] (a partial per piece and value).
    fn scratch_per_round(&self) -> bool {
        self.carries()
    }

    /// Whether it runs on a tile set of more than `i32::MAX` atoms (64-bit tile offsets): the
    /// tile-mapped schedules, whose only atom positions are the loop variable and the tile's
    /// bounds. The carry schedules, `lrb` and `auto`'s merge path keep atom positions in 32-bit
    /// prefix sums, block starts and shared memory, so they refuse such a set.
    fn supports_wide_offsets(&self) -> bool {
        false
    }

    /// The parameters its entry points take after the user's, before the fault record and the
    /// scratch pointer ([`crate::abi`]); `over_subset`: the tile loop runs over a list of tiles.
    fn hidden_params(&self, schedule: Schedule, over_subset: bool) -> &'static [Hidden] {
        let _ = (schedule, over_subset);
        &[]
    }

    /// [`Self::hidden_params`] for a kernel whose call is several launches, one per atom loop of
    /// its tile body (a carry schedule: [`crate::abi::schedule_hidden`]): the schedule's own, then
    /// the pass and the call's tile state. By default the same as with one.
    fn hidden_params_in_passes(&self, schedule: Schedule, over_subset: bool) -> &'static [Hidden] {
        self.hidden_params(schedule, over_subset)
    }

    /// The partition and items per thread where its blocks find their ranges by searching the
    /// tile offsets (`merge_path`, `work_oriented`). Over a whole tile set the runtime computes
    /// where every block's range starts once and keeps it with the tile set
    /// ([`carry::Partition::block_starts`]); the kernel takes it as `loops_block_starts`.
    fn searched_partition(&self, schedule: Schedule) -> Option<(carry::Partition, u32)> {
        let _ = schedule;
        None
    }

    /// Atoms per piece where it cuts tiles into pieces counted before the launch (`split`):
    /// `Some(0)` means the tile set's own choice ([`split::choose_mdt`]).
    fn piece_atoms(&self, schedule: Schedule) -> Option<u32> {
        let _ = schedule;
        None
    }

    /// Blocks a launch over a tile set of this shape wants (the runtime bounds it to at least 1).
    fn blocks_wanted(
        &self,
        config: ScheduleConfig,
        shape: TileSetShape,
        limits: DeviceLimits,
    ) -> u64;

    /// The launches of one call: by default one launch of the kernel over the call's tiles.
    /// `auto` chooses a variant first, `lrb` bins the tiles and launches a variant per group of
    /// bins.
    fn plan(&self, config: ScheduleConfig, run: &mut dyn Launcher) -> Result<(), Stop> {
        let _ = config;
        run.launch(Launch::whole(0))
    }

    /// Parses the attribute's arguments into this schedule (`args.name` is one of [`Self::names`]).
    #[cfg(feature = "frontend")]
    fn parse(&self, args: &AttrArgs) -> crate::diag::DResult<Schedule>;

    /// The lowering of the two loops that differ between schedules.
    #[cfg(feature = "frontend")]
    fn lowering(&self, config: ScheduleConfig) -> Box<dyn Lowering>;

    /// Whether `kernel` (configured with this schedule) runs its tiles as a segmented scan, where
    /// runs of empty tiles cost nothing (`work_oriented` where every accumulator folds one staged
    /// operand); `auto`'s choice takes it into account.
    #[cfg(feature = "frontend")]
    fn scans(&self, kernel: &crate::schedule::Kernel) -> bool {
        let _ = kernel;
        false
    }

    /// Whether `kernel`'s later passes run each listed tile on a warp, then on a block, instead
    /// of on a thread (`hierarchical` where the atom loop's state reduces across threads); its
    /// plan reads it from the variant ([`plan::Variant::pass_levels`]).
    #[cfg(feature = "frontend")]
    fn pass_levels(&self, kernel: &crate::schedule::Kernel) -> bool {
        let _ = kernel;
        false
    }

    /// Where the kernel is emitted as several variants in one source (`auto`'s candidates, `lrb`'s
    /// mappings): those variants, named and configured, and the description of the whole.
    #[cfg(feature = "frontend")]
    fn variants(&self, kernel: &crate::schedule::Kernel) -> Option<Variants> {
        let _ = kernel;
        None
    }
}

/// A kernel emitted as several variants ([`ScheduleUnit::variants`]).
#[cfg(feature = "frontend")]
pub struct Variants {
    /// Each variant: the kernel renamed (its entry points are named after it) and configured.
    pub kernels: Vec<crate::schedule::Kernel>,
    /// The source header's description (`auto: thread, group2, ...`).
    pub describe: String,
    /// Where the variants that can take 64-bit tile offsets get a wide source too: the name its
    /// header gives the whole (`auto`: the header lists the wide candidates after it).
    pub wide: Option<&'static str>,
}

/// The attribute's arguments, as written, for [`ScheduleUnit::parse`].
#[cfg(feature = "frontend")]
pub struct AttrArgs {
    /// The schedule's name as written.
    pub name: String,
    pub name_span: proc_macro2::Span,
    pub block_size: u32,
    /// The other arguments: key, value, span of the value.
    pub args: Vec<(String, u64, proc_macro2::Span)>,
}

#[cfg(feature = "frontend")]
impl AttrArgs {
    /// The value of argument `key`, if given.
    pub fn get(&self, key: &str) -> Option<(u64, proc_macro2::Span)> {
        self.args
            .iter()
            .find(|(k, _, _)| k == key)
            .map(|&(_, v, span)| (v, span))
    }
}

/// Items per thread of the carry schedules unless the attribute says otherwise.
pub const DEFAULT_ITEMS_PER_THREAD: u32 = 8;

/// A schedule and the block size it is launched with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScheduleConfig {
    pub schedule: Schedule,
    pub block_size: u32,
}

/// The default threads per block: a multiple of the warp size that keeps several blocks resident per
/// SM on every architecture from Volta on.
pub const DEFAULT_BLOCK_SIZE: u32 = 256;

/// The largest grid any schedule launches: enough resident blocks to fill the device several times
/// over; grid-stride loops cover the rest. Bounded so the grid always fits CUDA's x-dimension limit.
pub fn resident_grid(limits: DeviceLimits, block: u32) -> u32 {
    let per_sm = (limits.max_threads_per_sm / block.max(1)).max(1);
    (limits.sm_count.max(1) * per_sm * 4).min(i32::MAX as u32)
}

impl ScheduleConfig {
    pub const fn new(schedule: Schedule) -> Self {
        ScheduleConfig {
            schedule,
            block_size: DEFAULT_BLOCK_SIZE,
        }
    }

    /// The schedule's name as written in the attribute: `warp` and `block` for groups of 32 and
    /// of the block size, as errors should name what the user wrote.
    pub fn name(&self) -> &'static str {
        self.schedule.unit().name_as_written(*self)
    }

    /// The name with its arguments, for tables and generated-code headers.
    pub fn describe(&self) -> String {
        self.schedule.unit().describe(self.schedule)
    }

    /// A short name that tells candidates apart (`group16`), usable in an identifier.
    pub fn short_name(&self) -> String {
        self.schedule.unit().short_name(self.schedule)
    }

    /// Grid and block for a launch over a tile set of this shape. Never a zero grid: an empty tile set
    /// still gets one block, which finds no work.
    pub fn launch_dims(&self, shape: TileSetShape, limits: DeviceLimits) -> LaunchDims {
        let grid = self.schedule.unit().blocks_wanted(*self, shape, limits);
        LaunchDims {
            grid: grid.clamp(1, i32::MAX as u64) as u32,
            block: self.block_size,
            shared_bytes: 0,
        }
    }

    /// The lowering of this configuration.
    #[cfg(feature = "frontend")]
    pub fn lowering(&self) -> Box<dyn Lowering> {
        self.schedule.unit().lowering(*self)
    }
}

/// How a schedule lowers the two loops that differ between schedules. Everything else (parameters,
/// statements, expressions, the prelude) is the emitter's.
#[cfg(feature = "frontend")]
pub trait Lowering {
    /// Rejects, with a span, what this schedule cannot lower correctly.
    fn check(&self, _kernel: &crate::schedule::Kernel) -> crate::diag::DResult<()> {
        Ok(())
    }
    /// Emits the loop that runs the tile body once per tile.
    fn tile_loop(
        &self,
        cx: &mut crate::emit::Cx<'_>,
        tiles: &crate::ir::TileLoop,
    ) -> crate::diag::DResult<()>;
    /// Emits one atom loop inside the tile body.
    fn atom_loop(
        &self,
        cx: &mut crate::emit::Cx<'_>,
        atoms: crate::emit::AtomLoop<'_>,
    ) -> crate::diag::DResult<()>;
    /// Emits a `for j in lanes(start..end)` loop of the tile body. By default a serial loop in
    /// the thread that runs the tile body: what `thread` and the carry schedules (whose threads
    /// each hold their own share of a tile) do, the carry schedules running a loop around the atom
    /// loop as rounds. `group` spreads the values over its lanes ([`group`]).
    fn lanes_loop(
        &self,
        cx: &mut crate::emit::Cx<'_>,
        lanes: crate::emit::RangeLoop<'_>,
    ) -> crate::diag::DResult<()> {
        cx.range_loop(lanes)
    }
}

#[cfg(test)]
mod tests;

//! The arguments of one launch: the builder the generated wrapper fills (the user's parameters in
//! ABI order, an [`ArgList`]), what the launch does with them, and the runtime's hidden arguments
//! ([`kernels_gen::abi`]) that [`Gpu::launch`](crate::device::Gpu::launch) appends.

use std::ops::{Deref, DerefMut};

use super::preprocess::TileSetCache;
use crate::args::ArgList;
pub(crate) use crate::args::Param;
use crate::device::DeviceBuffer;
use crate::element::Float;
use crate::formats::{DeviceCsr, TileSet};

/// The arguments of one launch: its parameters in ABI order (the [`ArgList`] it derefs to, whose
/// pushes it has), and what the launch computes first or passes in hidden parameters. A plan of
/// several launches gives each a copy of the user's arguments.
#[derive(Clone, Default)]
pub struct KernelArgs<'a> {
    /// The parameters pushed.
    list: ArgList<'a>,
    /// Rounds of the carry fix-up (a tile-invariant loop around the atom loop runs one per
    /// iteration); each needs its own scratch region. 0 means 1.
    pub(super) carry_rounds: u64,
    /// A tile subset whose prefix sum the launch computes first (see [`crate::launch::subset`]).
    pub(crate) subset: Option<crate::launch::subset::SubsetArgs<'a>>,
    /// The tile offsets and piece size of a launch under `split` (see [`crate::launch::subset`]).
    pub(crate) split: Option<crate::launch::subset::SplitArgs<'a>>,
    /// Where the launch keeps those prefix sums when they are over a whole tile set (see
    /// [`crate::launch::preprocess`]).
    pub(crate) preprocessed: Option<&'a TileSetCache>,
    /// The offsets of the whole tile set a `merge_path` or `work_oriented` launch runs over: with
    /// `preprocessed`, its blocks' range starts are kept there (see [`crate::launch::block_ranges`]).
    pub(crate) ranges_of: Option<&'a DeviceBuffer<i32>>,
    /// This launch's index among the launches of its plan over the same tiles, and their count
    /// (`loops_pass`, `loops_passes`), for a kernel that takes them.
    pub(crate) pass: Option<(u32, u32)>,
    /// Atoms per piece (`loops_mdt`), for a kernel that takes it.
    pub(crate) mdt: Option<u32>,
    /// The call's per-tile state (`loops_tile_state`), for a kernel that takes it.
    pub(crate) tile_state: Option<cudarc::driver::sys::CUdeviceptr>,
    /// Where the device holds the length of the call's tile list (`loops_list_len`; null when
    /// `None`): a frontier of [`crate::graph::FrontierLoop`].
    pub(crate) list_len: Option<cudarc::driver::sys::CUdeviceptr>,
}

impl<'a> Deref for KernelArgs<'a> {
    type Target = ArgList<'a>;
    fn deref(&self) -> &ArgList<'a> {
        &self.list
    }
}

impl<'a> DerefMut for KernelArgs<'a> {
    fn deref_mut(&mut self) -> &mut ArgList<'a> {
        &mut self.list
    }
}

impl<'a> KernelArgs<'a> {
    /// No arguments yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the number of carry rounds the kernel runs (the trip count of the tile-invariant loop
    /// around its atom loop, for the segment schedules); the runtime gives each its own scratch.
    pub fn carry_rounds(&mut self, rounds: u64) -> &mut Self {
        self.carry_rounds = rounds;
        self
    }

    /// The launch's prefix sums ([`KernelArgs::split_pieces`], and [`KernelArgs::tile_subset_range`]
    /// over `cache`'s own bins) are of data that stays as it is for the tile set's life: they are
    /// computed by the first launch and kept in `cache`, the tile set's.
    pub(crate) fn preprocessed(&mut self, cache: &'a TileSetCache) -> &mut Self {
        self.preprocessed = Some(cache);
        self
    }

    /// A launch over the whole tile set whose offsets are `offsets`: under `merge_path` and
    /// `work_oriented`, each block's range start is computed by the first launch of a geometry,
    /// kept in the [`KernelArgs::preprocessed`] cache and passed to the kernel, which then need not
    /// search for it. Without either, the kernel's blocks search.
    pub(crate) fn block_ranges(&mut self, offsets: &'a DeviceBuffer<i32>) -> &mut Self {
        self.ranges_of = Some(offsets);
        self
    }

    /// The launch is pass `pass.0` of `pass.1` of its plan over the same tiles (the kernel's
    /// `loops_pass`, `loops_passes`).
    pub fn pass(&mut self, pass: (u32, u32)) -> &mut Self {
        self.pass = Some(pass);
        self
    }

    /// Atoms per piece (`loops_mdt`) of a kernel that takes it without the pieces of `split`
    /// ([`KernelArgs::split_pieces`] sets it too). At least 1.
    pub(crate) fn mdt(&mut self, mdt: u64) -> &mut Self {
        self.mdt = Some(mdt.clamp(1, i32::MAX as u64) as u32);
        self
    }

    /// A tile set: its parameters in ABI order (for a CSR matrix `rows, cols, nnz, offsets,
    /// indices, values`; [`TileSet::push_args`]).
    pub fn tile_set<S: TileSet + ?Sized>(&mut self, set: &'a S) -> &mut Self {
        set.push_args(&mut self.list);
        self
    }

    /// A CSR matrix: its parameters in ABI order ([`KernelArgs::tile_set`]).
    pub fn csr<T: Float>(&mut self, m: &'a DeviceCsr<T>) -> &mut Self {
        self.tile_set(m)
    }
}

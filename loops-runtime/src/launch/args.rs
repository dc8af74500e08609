//! The arguments of one launch: the builder the generated wrapper fills (the user's parameters in
//! ABI order), and the runtime's hidden arguments ([`kernels_gen::abi`]) that [`Gpu::launch`]
//! appends.

use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::CudaStream;

use super::preprocess::TileSetCache;
use crate::device::DeviceBuffer;
use crate::element::{Element, Float};
use crate::formats::DeviceCsr;

/// A value a kernel takes by value. Implemented for the element types, `bool` (1 byte, C++ `bool`)
/// and `usize` (passed as `unsigned long long`).
pub trait ScalarArg: Copy + sealed::Sealed {
    /// The CUDA C++ spelling of the parameter's type.
    const CUDA_NAME: &'static str;
    /// Writes the value's bytes, as the kernel reads them, to the start of `slot`; returns how many.
    fn store(self, slot: &mut u64) -> usize;
}

mod sealed {
    pub trait Sealed {}
}

/// Writes `v` at the start of `slot` (as the kernel reads it: the driver copies `size_of::<T>()`
/// bytes from the slot's address).
fn store_raw<T: Copy>(v: T, slot: &mut u64) -> usize {
    const { assert!(std::mem::size_of::<T>() <= 8 && std::mem::align_of::<T>() <= 8) };
    // SAFETY: `T` fits in the slot and its alignment is at most the slot's (asserted above).
    unsafe { (slot as *mut u64).cast::<T>().write(v) };
    std::mem::size_of::<T>()
}

macro_rules! scalar_arg {
    ($($t:ty => $cuda:literal),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl ScalarArg for $t {
            const CUDA_NAME: &'static str = $cuda;
            fn store(self, slot: &mut u64) -> usize {
                store_raw(self, slot)
            }
        }
    )*};
}
scalar_arg!(f32 => "float", f64 => "double", i32 => "int", u32 => "unsigned int",
            i64 => "long long", u64 => "unsigned long long", bool => "bool");

impl sealed::Sealed for usize {}
impl ScalarArg for usize {
    const CUDA_NAME: &'static str = "unsigned long long";
    fn store(self, slot: &mut u64) -> usize {
        store_raw(self as u64, slot)
    }
}

/// The arguments of one launch, in parameter order. Holds the buffers borrowed (shared or exclusive,
/// as the kernel reads or writes them) until the launch. A plan of several launches gives each a
/// copy of the user's arguments.
#[derive(Clone, Default)]
pub struct KernelArgs<'a> {
    /// One 8-byte slot per parameter; the driver reads `sizes[i]` bytes from the start of slot `i`.
    pub(super) slots: Vec<u64>,
    pub(super) sizes: Vec<usize>,
    /// What each parameter is, for error messages.
    pub(super) what: Vec<Param>,
    /// (parameter, the stream of the buffer's allocation): buffers of another handle's stream are
    /// ordered with it around the launch, those of another context refused.
    pub(super) streams: Vec<(usize, &'a Arc<CudaStream>)>,
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
    /// Bytes of the slices passed read-only (`&[T]`): what the kernel may gather, for
    /// [`kernels_gen::schedule::streams_past_l2`].
    pub(crate) read_only_bytes: u64,
    /// This launch's index among the launches of its plan over the same tiles, and their count
    /// (`loops_pass`, `loops_passes`), for a kernel that takes them.
    pub(crate) pass: Option<(u32, u32)>,
    /// Atoms per piece (`loops_mdt`), for a kernel that takes it.
    pub(crate) mdt: Option<u32>,
    /// The call's per-tile state (`loops_tile_state`), for a kernel that takes it.
    pub(crate) tile_state: Option<cudarc::driver::sys::CUdeviceptr>,
    /// Where the device holds the length of the call's tile list (`loops_list_len`; null when
    /// `None`): a frontier of [`crate::graph::FrontierLoopOnDevice`].
    pub(crate) list_len: Option<cudarc::driver::sys::CUdeviceptr>,
    /// The buffers the kernel may write, where they were pushed: what `auto`'s tuning runs its
    /// candidates on copies of.
    pub(crate) outputs: Vec<OutputArg>,
    _borrows: PhantomData<&'a mut ()>,
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

    /// The number of parameters pushed so far.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether no parameter was pushed yet.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The byte size of each parameter pushed so far.
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    pub(crate) fn push_value<S: ScalarArg>(&mut self, v: S, what: Param) {
        let mut slot = 0u64;
        let size = v.store(&mut slot);
        self.slots.push(slot);
        self.sizes.push(size);
        self.what.push(what);
    }

    /// A device pointer whose allocation belongs to `stream` (ordered like a buffer's).
    pub(crate) fn push_foreign_ptr(
        &mut self,
        ptr: cudarc::driver::sys::CUdeviceptr,
        stream: Option<&'a Arc<CudaStream>>,
        what: Param,
    ) {
        if let Some(s) = stream {
            self.streams.push((self.slots.len(), s));
        }
        self.push_value(ptr, what);
    }

    pub(crate) fn push_buffer<T>(&mut self, b: &'a DeviceBuffer<T>, what: Param) {
        if let Some(s) = b.cuda_slice() {
            self.streams.push((self.slots.len(), s.stream()));
        }
        self.push_value(b.device_ptr(), what);
    }

    /// A CSR matrix: rows, cols, nnz (`int`), offsets, indices, values (pointers). A wide matrix
    /// ([`TileSet::is_wide`](crate::formats::TileSet::is_wide)) passes nnz as `long long` and its 64-bit offsets, as the
    /// 64-bit-offsets instantiation of a kernel takes them.
    pub fn csr<T: Float>(&mut self, m: &'a DeviceCsr<T>) -> &mut Self {
        let int = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
        self.push_value(int(m.rows()), Param::Csr("int rows"));
        self.push_value(int(m.cols()), Param::Csr("int cols"));
        match m.wide_offsets() {
            Some(wide) => {
                self.push_value(m.nnz() as i64, Param::Csr("long long nnz"));
                self.push_buffer(wide, Param::Csr("const long long* offsets"));
            }
            None => {
                self.push_value(int(m.nnz()), Param::Csr("int nnz"));
                self.push_buffer(m.offsets(), Param::Csr("const int* offsets"));
            }
        }
        self.push_buffer(m.indices(), Param::Csr("const int* indices"));
        self.push_buffer(m.values(), Param::CsrValues(T::CUDA_NAME));
        self
    }

    /// A buffer the kernel reads: pointer, then length (`unsigned long long`).
    pub fn slice<T: Element>(&mut self, b: &'a DeviceBuffer<T>) -> &mut Self {
        self.read_only_bytes += (b.len() * std::mem::size_of::<T>()) as u64;
        self.push_buffer(
            b,
            Param::Ptr {
                ty: T::CUDA_NAME,
                mutable: false,
            },
        );
        self.push_value(b.len() as u64, Param::Len);
        self
    }

    /// The entries `range` of a buffer the kernel reads (clamped to the buffer): pointer to the
    /// first, then the count (`unsigned long long`).
    pub(crate) fn slice_range<T: Element>(
        &mut self,
        b: &'a DeviceBuffer<T>,
        range: std::ops::Range<usize>,
    ) -> &mut Self {
        let range = range.start.min(b.len())..range.end.min(b.len());
        self.read_only_bytes += (range.len() * std::mem::size_of::<T>()) as u64;
        let ptr = if range.is_empty() {
            0
        } else {
            b.device_ptr() + (range.start * std::mem::size_of::<T>()) as u64
        };
        self.push_foreign_ptr(
            ptr,
            b.cuda_slice().map(|s| s.stream()),
            Param::Ptr {
                ty: T::CUDA_NAME,
                mutable: false,
            },
        );
        self.push_value(range.len() as u64, Param::Len);
        self
    }

    /// A buffer the kernel writes: pointer, then length (`unsigned long long`).
    pub fn slice_mut<T: Element>(&mut self, b: &'a mut DeviceBuffer<T>) -> &mut Self {
        self.outputs.push(OutputArg {
            slot: self.slots.len(),
            ptr: b.device_ptr(),
            bytes: b.len() * std::mem::size_of::<T>(),
        });
        self.push_buffer(
            b,
            Param::Ptr {
                ty: T::CUDA_NAME,
                mutable: true,
            },
        );
        self.push_value(b.len() as u64, Param::Len);
        self
    }

    /// A value.
    pub fn scalar<T: ScalarArg>(&mut self, v: T) -> &mut Self {
        self.push_value(v, Param::Scalar(T::CUDA_NAME));
        self
    }
}

/// A buffer a kernel may write, as pushed: its parameter slot, its address and its size.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OutputArg {
    pub slot: usize,
    pub ptr: cudarc::driver::sys::CUdeviceptr,
    pub bytes: usize,
}

/// What a parameter is, for error messages.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Param {
    Scalar(&'static str),
    Ptr { ty: &'static str, mutable: bool },
    Len,
    Csr(&'static str),
    CsrValues(&'static str),
    Scratch,
    Fault,
    SubsetOffsets,
    SplitPieces,
    BlockStarts,
    TileState,
    ListLen,
}

impl std::fmt::Display for Param {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Param::Scalar(ty) => write!(f, "{ty}"),
            Param::Ptr { ty, mutable: false } => write!(f, "const {ty}*"),
            Param::Ptr { ty, mutable: true } => write!(f, "{ty}*"),
            Param::Len => write!(f, "unsigned long long len"),
            Param::Csr(what) => write!(f, "{what}"),
            Param::CsrValues(ty) => write!(f, "const {ty}* values"),
            Param::Scratch => write!(f, "unsigned long long* loops_scratch"),
            Param::SubsetOffsets => write!(f, "const int* loops_subset_offsets"),
            Param::SplitPieces => write!(f, "const int* loops_pieces"),
            Param::BlockStarts => write!(f, "const int* loops_block_starts"),
            Param::TileState => write!(f, "unsigned long long* loops_tile_state"),
            Param::ListLen => write!(f, "const unsigned int* loops_list_len"),
            Param::Fault => write!(f, "unsigned long long* loops_fault"),
        }
    }
}

//! The argument ABI of a kernel launch: the list of its parameters in ABI order (8-byte slots,
//! their sizes, what each is, the streams of the buffers) that a tile set ([`crate::formats`]), a
//! generated wrapper or a hand-written launch pushes to, and [`crate::launch`] passes to the
//! driver. Below the formats and the launch; above the device's buffers.

use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::CudaStream;

use crate::device::DeviceBuffer;
use crate::element::{Element, ScalarArg};

/// A kernel's parameters in ABI order, as they are pushed. Holds the buffers borrowed (shared or
/// exclusive, as the kernel reads or writes them) until the launch. [`crate::launch::KernelArgs`]
/// is this list and what the launch does with it.
#[derive(Clone, Default)]
pub struct ArgList<'a> {
    /// One 8-byte slot per parameter; the driver reads `sizes[i]` bytes from the start of slot `i`.
    pub(crate) slots: Vec<u64>,
    pub(crate) sizes: Vec<usize>,
    /// What each parameter is, for error messages.
    pub(crate) what: Vec<Param>,
    /// (parameter, the stream of the buffer's allocation): buffers of another handle's stream are
    /// ordered with it around the launch, those of another context refused.
    pub(crate) streams: Vec<(usize, &'a Arc<CudaStream>)>,
    /// Bytes of the slices passed read-only (`&[T]`): what the kernel may gather, for
    /// [`kernels_gen::schedule::streams_past_l2`].
    pub(crate) read_only_bytes: u64,
    /// The buffers the kernel may write, where they were pushed: what `auto`'s tuning runs its
    /// candidates on copies of.
    pub(crate) outputs: Vec<OutputArg>,
    _borrows: PhantomData<&'a mut ()>,
}

impl<'a> ArgList<'a> {
    /// No arguments yet.
    pub fn new() -> Self {
        Self::default()
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
    pub fn slice_range<T: Element>(
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

//! The one error type every fallible runtime call returns.

use std::path::PathBuf;

pub type Result<T, E = LoopsError> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoopsError {
    /// libcuda could not be loaded: no NVIDIA driver on this machine.
    #[error("no CUDA driver: {detail}")]
    NoDriver { detail: String },

    /// The driver is there but the requested device is not.
    #[error("no CUDA device {ordinal}: this machine has {count}")]
    NoDevice { ordinal: usize, count: usize },

    /// A CUDA driver call failed.
    #[error("CUDA driver error while {context}: {source}")]
    Driver {
        context: String,
        #[source]
        source: cudarc::driver::DriverError,
    },

    /// libnvrtc could not be loaded, so no kernel can be compiled.
    #[error("NVRTC (libnvrtc) not found; searched {searched:?}. Install the CUDA toolkit or `pip install nvidia-cuda-nvrtc`, and put its lib folder on LD_LIBRARY_PATH (or set LOOPS_NVRTC_LIB)")]
    NvrtcMissing { searched: Vec<String> },

    /// NVRTC rejected the generated source. Holds the log and the source, whose `#line` directives
    /// point into the user's Rust file.
    #[error("NVRTC could not compile kernel `{kernel}`:\n{log}")]
    Compile {
        kernel: String,
        log: String,
        source_code: String,
    },

    /// A buffer passed to a kernel is shorter than the tile set needs.
    #[error(
        "kernel `{kernel}`: `{param}` has {len} elements but needs at least {required} ({why})"
    )]
    BufferTooShort {
        kernel: String,
        param: String,
        len: usize,
        required: usize,
        why: String,
    },

    /// A buffer made by one `Gpu` handle was given to another: each handle orders its work on its own
    /// stream, so using the buffer there would race.
    #[error("{context}: the buffer belongs to another Gpu handle; use buffers with the Gpu that made them")]
    ForeignBuffer { context: String },

    /// The arguments given to a kernel do not match the parameters of its entry point.
    #[error(
        "kernel `{kernel}`: the arguments do not match the entry point's parameters: {detail}"
    )]
    KernelArguments { kernel: String, detail: String },

    /// A checked kernel (debug builds, or `LOOPS_CHECKED=1`) indexed out of range. The access was
    /// not made.
    #[error("kernel `{kernel}` indexed `{array}` at {index}, out of bounds for length {len}, at {file}:{line}")]
    IndexOutOfBounds {
        kernel: String,
        array: String,
        index: i64,
        len: u64,
        file: String,
        line: u64,
    },

    /// A tile set too large for the device formats, whose offsets and indices are 32-bit (64-bit
    /// offsets are not implemented). Returned by every upload before anything is allocated. For an
    /// `Offsets` layout, `rows` counts its tiles, `cols` is 0 and `nnz` counts its atoms.
    #[error("{format} with {rows} rows, {cols} columns and {nnz} stored entries does not fit the device format: its {what} exceeds i32::MAX = {max} (offsets and indices are 32-bit)", max = i32::MAX)]
    TooLarge {
        format: &'static str,
        rows: usize,
        cols: usize,
        nnz: usize,
        what: crate::host::Dimension,
    },

    /// The list of a tile subset (`a.tiles_in(list)`) has more entries than a launch indexes with
    /// 32 bits.
    #[error("kernel `{kernel}`: the tile subset's list has {len} entries, more than i32::MAX = {max}", max = i32::MAX)]
    SubsetTooLarge { kernel: String, len: usize },

    /// A graph that breaks the invariants of `graph::Graph`, or a frontier run given bad input.
    #[error("invalid graph: {detail}")]
    InvalidGraph { detail: String },

    /// A frontier loop still had work after its iteration limit (e.g. a distance that keeps falling).
    #[error("the frontier loop did not converge: {iterations} iterations, the frontier still holds {frontier} vertices")]
    NoConvergence { iterations: u64, frontier: usize },

    /// A sparse matrix breaks the invariants of its format.
    #[error(transparent)]
    InvalidMatrix(#[from] crate::host::MatrixError),

    /// A Matrix Market file could not be read.
    #[error(transparent)]
    MatrixMarket(#[from] crate::mtx::MtxError),

    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl LoopsError {
    pub(crate) fn driver(
        context: impl Into<String>,
    ) -> impl FnOnce(cudarc::driver::DriverError) -> LoopsError {
        let context = context.into();
        move |source| LoopsError::Driver { context, source }
    }
}

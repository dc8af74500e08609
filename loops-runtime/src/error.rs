//! The one error type every fallible runtime call returns.

use std::path::PathBuf;

/// The result of every fallible runtime call: [`LoopsError`] unless said otherwise.
pub type Result<T, E = LoopsError> = std::result::Result<T, E>;

/// What went wrong in a runtime call: the driver, NVRTC, a size, a buffer, a kernel's bounds
/// check, an input file. Every variant's message names what it is about.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoopsError {
    /// libcuda could not be loaded: no NVIDIA driver on this machine.
    #[error("no CUDA driver: {detail}")]
    NoDriver {
        /// Which library names were searched.
        detail: String,
    },

    /// The driver is there but the requested device is not.
    #[error("no CUDA device {ordinal}: this machine has {count}")]
    NoDevice {
        /// The ordinal asked for.
        ordinal: usize,
        /// The number of devices the driver reports.
        count: usize,
    },

    /// A CUDA driver call failed.
    #[error("CUDA driver error while {context}: {source}")]
    Driver {
        /// What the runtime was doing.
        context: String,
        /// The driver's error.
        #[source]
        source: cudarc::driver::DriverError,
    },

    /// libnvrtc could not be loaded, so no kernel can be compiled.
    #[error("NVRTC (libnvrtc) not found; searched {searched:?}. Install the CUDA toolkit or `pip install nvidia-cuda-nvrtc`, and put its lib folder on LD_LIBRARY_PATH (or set LOOPS_NVRTC_LIB)")]
    NvrtcMissing {
        /// The library names and paths tried.
        searched: Vec<String>,
    },

    /// NVRTC rejected the generated source. Holds the log and the source, whose `#line` directives
    /// point a user statement's code into the user's Rust file and generated code at its own line
    /// in the source.
    #[error("NVRTC could not compile kernel `{kernel}`:\n{log}")]
    Compile {
        /// The kernel's name.
        kernel: String,
        /// NVRTC's log.
        log: String,
        /// The CUDA source that was compiled.
        source_code: String,
    },

    /// A buffer passed to a kernel is shorter than the tile set needs.
    #[error(
        "kernel `{kernel}`: `{param}` has {len} elements but needs at least {required} ({why})"
    )]
    BufferTooShort {
        /// The kernel's name.
        kernel: String,
        /// The parameter the buffer was passed as.
        param: String,
        /// The buffer's length.
        len: usize,
        /// The length the tile set needs.
        required: usize,
        /// What the length is needed for.
        why: String,
    },

    /// An argument a ready-made operation (`loops::ops`) cannot take: `k == 0`, a size whose
    /// product overflows, a matrix format it does not handle.
    #[error("{op}: {detail}")]
    InvalidArgument {
        /// The operation (`spmm`, `sddmm`).
        op: &'static str,
        /// What is wrong with the argument.
        detail: String,
    },

    /// A buffer made on one device (CUDA context) was given to a handle of another. Buffers of
    /// handles of the same context (`Gpu::fork` siblings, other `Gpu::new` handles of the device) are
    /// accepted, and ordered across the two streams by the runtime.
    #[error("{context}: the buffer belongs to a Gpu handle of another device (CUDA context); copy it through the host, or use it with a handle of its own device")]
    ForeignBuffer {
        /// The call and the argument the buffer was given as.
        context: String,
    },

    /// The device has no room for an allocation (an upload, `zeros`, the carry schedules' scratch).
    /// Nothing was allocated; the handle remains usable. `free_bytes` and `total_bytes` are the
    /// device's as `cuMemGetInfo` reported them just after the failure (`None` if it could not say);
    /// `requested_bytes` is `u64::MAX` for a size that overflows.
    #[error("out of device memory while {what}: {requested} requested, {free} free of {total}",
        requested = bytes_text(*requested_bytes),
        free = free_bytes.map_or("unknown".into(), bytes_text),
        total = total_bytes.map_or("unknown".into(), bytes_text))]
    OutOfMemory {
        /// What was being allocated.
        what: String,
        /// The bytes asked for.
        requested_bytes: u64,
        /// The device's free bytes just after the failure.
        free_bytes: Option<u64>,
        /// The device's total bytes.
        total_bytes: Option<u64>,
    },

    /// The arguments given to a kernel do not match the parameters of its entry point.
    #[error(
        "kernel `{kernel}`: the arguments do not match the entry point's parameters: {detail}"
    )]
    KernelArguments {
        /// The kernel's name.
        kernel: String,
        /// Which argument differs from its parameter, and how.
        detail: String,
    },

    /// A checked kernel (debug builds, or `LOOPS_CHECKED=1`) indexed out of range. The access was
    /// not made.
    #[error("kernel `{kernel}` indexed `{array}` at {index}, out of bounds for length {len}, at {file}:{line}")]
    IndexOutOfBounds {
        /// The kernel's name.
        kernel: String,
        /// The array indexed, as the kernel body names it (`x`, `a.col_indices`).
        array: String,
        /// The index.
        index: i64,
        /// The array's length.
        len: u64,
        /// The Rust file of the kernel body.
        file: String,
        /// The line of the access in that file.
        line: u64,
    },

    /// A tile set too large for the device format. Indices, rows and columns are 32-bit in every
    /// format; CSR matrices and `Offsets` layouts take more than `i32::MAX` atoms with 64-bit
    /// offsets (see [`crate::formats::wide`]), CSC and COO do not. Returned by every upload before anything
    /// is allocated. For an `Offsets` layout, `rows` counts its tiles, `cols` is 0 and `nnz` counts
    /// its atoms.
    #[error("{format} with {rows} rows, {cols} columns and {nnz} stored entries does not fit the device format: its {what} exceeds i32::MAX = {max} (indices are 32-bit; only CSR and Offsets take 64-bit offsets for more entries)", max = i32::MAX)]
    TooLarge {
        /// The format (`Csr`, `Csc`, `Coo`, `Offsets`).
        format: &'static str,
        /// Its rows (tiles of an `Offsets` layout).
        rows: usize,
        /// Its columns (0 for an `Offsets` layout).
        cols: usize,
        /// Its stored entries (atoms).
        nnz: usize,
        /// Which of the sizes is too large.
        what: crate::host::Dimension,
    },

    /// A generated kernel whose block needs more shared memory than this device gives one block
    /// (its arrays in dynamic shared memory; 227 KiB on sm_90, 99 KiB on sm_86 and sm_89). The
    /// macro refuses what no GPU can hold; this is a kernel that fits larger GPUs. Returned before
    /// anything is launched.
    #[error("kernel `{kernel}` (schedule {schedule}, blocks of {block} threads) needs {needed} bytes of shared memory per block, and {device} gives a block at most {max}; write fewer `items_per_thread`, a smaller `block_size`, or a schedule that keeps no per-item state in shared memory (`split`, `hierarchical`, `warp`, `thread`)")]
    SharedMemory {
        /// The kernel's name.
        kernel: String,
        /// The schedule of the variant launched.
        schedule: String,
        /// Threads per block.
        block: u32,
        /// The bytes of shared memory a block needs.
        needed: u32,
        /// The most the device gives a block (opted into).
        max: u32,
        /// The device's name.
        device: String,
    },

    /// A tile set of more than `i32::MAX` atoms (64-bit offsets) given to a kernel that has no
    /// 64-bit-offsets instantiation: a schedule that keeps atom positions in 32-bit prefix sums
    /// or worklists (`work_oriented`, `merge_path`, `split`, `hierarchical`, `lrb`), a body that
    /// reads the offsets array, or a
    /// second tile-set parameter. Returned before anything is launched.
    #[error("kernel `{kernel}` (schedule {schedule}) cannot run on `{param}`, a tile set of {atoms} atoms: more than i32::MAX = {max} needs 64-bit offsets, and {why}; the schedules thread, group, warp, block and auto take 64-bit offsets", max = i32::MAX)]
    WideUnsupported {
        /// The kernel's name.
        kernel: String,
        /// The kernel's schedule.
        schedule: String,
        /// The tile-set parameter.
        param: String,
        /// The tile set's atoms.
        atoms: usize,
        /// Why this kernel has no 64-bit-offsets instantiation.
        why: String,
    },

    /// An upload that does not fit the device's free memory, found before allocating anything
    /// (see `crate::formats::wide::check_memory`). Nothing was allocated.
    #[error("{what} needs {needed} of device memory but {free} is free (of {total}; {reserve} kept for kernels and scratch)",
        needed = bytes_text(*needed_bytes),
        free = bytes_text(*free_bytes),
        total = bytes_text(*total_bytes),
        reserve = bytes_text(*reserve_bytes))]
    NotEnoughMemory {
        /// What was being uploaded.
        what: String,
        /// The bytes it needs.
        needed_bytes: u64,
        /// The device's free bytes.
        free_bytes: u64,
        /// The device's total bytes.
        total_bytes: u64,
        /// The bytes an upload leaves free for what comes after it
        /// (`formats::wide::MEMORY_RESERVE_BYTES`).
        reserve_bytes: u64,
    },

    /// The list of a tile subset (`a.tiles_in(list)`) has more entries than a launch indexes with
    /// 32 bits.
    #[error("kernel `{kernel}`: the tile subset's list has {len} entries, more than i32::MAX = {max}", max = i32::MAX)]
    SubsetTooLarge {
        /// The kernel's name.
        kernel: String,
        /// The list's entries.
        len: usize,
    },

    /// The tiles of a subset hold more atoms together than 32-bit offsets reach (a list that repeats
    /// long tiles), under a schedule that needs them at contiguous offsets.
    #[error("kernel `{kernel}`: the tiles of the subset's list hold {atoms} atoms together, more than i32::MAX = {max};              split the list, or use a schedule that maps tiles (thread, group, warp, block)", max = i32::MAX)]
    SubsetAtomsTooLarge {
        /// The kernel's name.
        kernel: String,
        /// The atoms of the listed tiles together.
        atoms: u64,
    },

    /// Under `split`, more pieces than 32-bit offsets reach (a tiny `mdt` on a huge tile set).
    #[error("kernel `{kernel}`: cutting the tiles into pieces of at most {mdt} atoms makes {pieces} pieces, \
             more than i32::MAX = {max}; raise `mdt`", max = i32::MAX)]
    TooManyPieces {
        /// The kernel's name.
        kernel: String,
        /// The pieces the tiles would be cut into.
        pieces: u64,
        /// The largest piece, in atoms.
        mdt: u32,
    },

    /// A graph that breaks the invariants of `graph::Graph`, or a frontier run given bad input.
    #[error("invalid graph: {detail}")]
    InvalidGraph {
        /// Which invariant is broken, and where.
        detail: String,
    },

    /// A frontier loop still had work after its iteration limit (e.g. a distance that keeps falling).
    #[error("the frontier loop did not converge: {iterations} iterations, the frontier still holds {frontier} vertices")]
    NoConvergence {
        /// The iterations run.
        iterations: u64,
        /// The vertices still in the frontier.
        frontier: usize,
    },

    /// A kernel launched over the frontier of a `graph::FrontierLoop` on the device cannot run there: its
    /// schedule sizes its launches on the host from the frontier, whose size only the device
    /// knows, or checked mode asks to wait for every launch.
    #[error("kernel `{kernel}` cannot run in the device frontier loop: {detail}")]
    LoopOnDevice {
        /// The kernel.
        kernel: String,
        /// Why, and what can.
        detail: String,
    },

    /// `Gpu::bin_tiles` was given offsets that do not match the tile count, or more items than its
    /// `u32` positions reach.
    #[error("binning tiles: {detail}")]
    InvalidBinning {
        /// Which size is wrong.
        detail: String,
    },

    /// A distributed matrix or product (`multi`) was given parts that do not fit, or NCCL failed.
    #[error("distributed product: {detail}")]
    Distributed {
        /// What does not fit, or what NCCL said.
        detail: String,
    },

    /// A sparse matrix breaks the invariants of its format.
    #[error(transparent)]
    InvalidMatrix(#[from] crate::host::MatrixError),

    /// A Matrix Market file could not be read.
    #[error(transparent)]
    MatrixMarket(#[from] crate::io::mtx::MtxError),

    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// `123456789 bytes (117.7 MiB)`.
fn bytes_text(b: u64) -> String {
    if b == u64::MAX {
        return "more than 2^64 bytes".into();
    }
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = b as f64;
    let mut unit = "";
    for u in UNITS {
        if v < 1024.0 {
            break;
        }
        v /= 1024.0;
        unit = u;
    }
    if unit.is_empty() {
        format!("{b} bytes")
    } else {
        format!("{b} bytes ({v:.1} {unit})")
    }
}

impl LoopsError {
    pub(crate) fn driver(
        context: impl Into<String>,
    ) -> impl FnOnce(cudarc::driver::DriverError) -> LoopsError {
        let context = context.into();
        move |source| LoopsError::Driver { context, source }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_memory_message() {
        let e = LoopsError::OutOfMemory {
            what: "allocating 1099511627776 zeroed elements of f64".into(),
            requested_bytes: 1 << 43,
            free_bytes: Some(80 << 30),
            total_bytes: None,
        };
        assert_eq!(
            e.to_string(),
            "out of device memory while allocating 1099511627776 zeroed elements of f64: \
             8796093022208 bytes (8.0 TiB) requested, 85899345920 bytes (80.0 GiB) free of unknown"
        );
        assert_eq!(bytes_text(10), "10 bytes");
        assert_eq!(bytes_text(1536), "1536 bytes (1.5 KiB)");
        assert_eq!(bytes_text(u64::MAX), "more than 2^64 bytes");
    }
}

/// An error and its chain of sources, joined by `separator`: `": "` for one line, or
/// `"\n  caused by: "` for one cause per line (what the examples print before exiting).
pub fn error_chain(e: &dyn std::error::Error, separator: &str) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(separator);
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod chain_tests {
    use super::*;

    /// An error whose source is a `LoopsError`.
    #[derive(Debug, thiserror::Error)]
    #[error("running the example")]
    struct Outer(#[source] LoopsError);

    #[test]
    fn the_chain_names_every_cause() {
        let inner = || LoopsError::NoDevice {
            ordinal: 1,
            count: 0,
        };
        assert_eq!(
            error_chain(&Outer(inner()), ": "),
            "running the example: no CUDA device 1: this machine has 0"
        );
        assert_eq!(
            error_chain(&Outer(inner()), "\n  caused by: "),
            "running the example\n  caused by: no CUDA device 1: this machine has 0"
        );
        assert_eq!(
            error_chain(&inner(), ": "),
            "no CUDA device 1: this machine has 0"
        );
    }
}

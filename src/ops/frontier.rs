//! Frontier operations of graph traversals, written in the loops language with its tile-only
//! bodies and its cooperative append (`push`):
//!
//! - [`frontier_degrees`]: each listed vertex's out-degree, and the largest (what a traversal
//!   reads to plan its next level's mapping): a tile-only body over `tiles_in(frontier)`.
//! - [`compact_flags`]: the vertices whose flag is set, appended to a list and their flags cleared
//!   (the next frontier of a step that flags vertices): a tile-only body with a `push`.
//!
//! A tile-only body runs one thread per tile under every schedule
//! ([`kernels_gen::schedule::tile_only`](../../kernels_gen/schedule/tile_only/index.html)), so
//! each kernel is stamped under every named schedule (`#[for_schedules(all)]`, for the tests) and
//! the calls here run the `thread` one.
//!
//! These compute what `compact.cuh`'s `loops_compact_flags` and the degree reads of
//! `loops_compact_flags_degrees` compute in the runtime's graph room. The kernels are written in
//! the runtime (`loops-runtime/src/graph/lang.rs`), which uses the attributes as a user crate does,
//! so the runtime's own loops can call them; they are re-exported here (see
//! `tests/gpu_frontier.rs` for the comparison with the hand-written kernels on the GPU).

use crate::{DeviceBuffer, DeviceOffsets, Gpu, LoopsError, Result, TileSet};

/// The kernels, written in the language inside the runtime (`loops-runtime/src/graph/lang.rs`),
/// stamped under every schedule.
pub use loops_runtime::graph::lang::{compaction, degrees};

/// The CUDA of the kernels above (under `thread`, what the calls run), for the NVRTC compile
/// test: (name, plain, bounds-checked).
pub(super) const SOURCES: &[(&str, &str, &str)] = &[
    (
        "frontier_degrees",
        degrees::thread::frontier_degrees::CUDA_SOURCE,
        degrees::thread::frontier_degrees::CUDA_SOURCE_CHECKED,
    ),
    (
        "compact_flags",
        compaction::thread::compact_flags::CUDA_SOURCE,
        compaction::thread::compact_flags::CUDA_SOURCE_CHECKED,
    ),
];

fn too_short(kernel: &str, param: &str, len: usize, required: usize, why: &str) -> Result<()> {
    if len < required {
        return Err(LoopsError::BufferTooShort {
            kernel: kernel.into(),
            param: param.into(),
            len,
            required,
            why: why.into(),
        });
    }
    Ok(())
}

/// For each vertex `v` of `frontier` (ids of `graph`'s tiles; ids past them are skipped),
/// `degrees[v]` = its out-degree (`offsets[v + 1] - offsets[v]`), and `largest[0]` = the larger of
/// itself and the largest of them (zero it first for the frontier's own). Other entries of
/// `degrees` are left alone. Errors if `degrees` is shorter than the graph's vertices or
/// `largest` is empty; a graph of 64-bit offsets is refused (the kernel reads the offsets as
/// `i32`).
///
/// ```no_run
/// # fn main() -> loops::Result<()> {
/// let gpu = loops::Gpu::new(0)?;
/// let graph = gpu.upload_offsets(&[0, 2, 2, 5])?; // out-degrees 2, 0, 3
/// let frontier = gpu.upload(&[2u32, 0])?;
/// let mut degrees = gpu.zeros::<u32>(3)?;
/// let mut largest = gpu.zeros::<u32>(1)?;
/// loops::ops::frontier::frontier_degrees(&gpu, &graph, &frontier, &mut degrees, &mut largest)?;
/// assert_eq!(gpu.download(&degrees)?, [2, 0, 3]);
/// assert_eq!(gpu.download(&largest)?, [3]);
/// # Ok(())
/// # }
/// ```
pub fn frontier_degrees(
    gpu: &Gpu,
    graph: &DeviceOffsets,
    frontier: &DeviceBuffer<u32>,
    degrees: &mut DeviceBuffer<u32>,
    largest: &mut DeviceBuffer<u32>,
) -> Result<()> {
    let n = graph.num_tiles();
    too_short(
        "frontier_degrees",
        "degrees",
        degrees.len(),
        n,
        "one per vertex",
    )?;
    too_short(
        "frontier_degrees",
        "largest",
        largest.len(),
        1,
        "the largest degree",
    )?;
    degrees::thread::frontier_degrees(gpu, graph, frontier, degrees, largest)
}

/// The flag compaction: the ids of the vertices of `graph` (its tiles) whose flag in `flags` is
/// non-zero are appended to `list` in no given order, starting at `count[0]`, which they
/// advance; their flags are cleared. One thread per vertex, the appends staged per block: one
/// atomic per block round on the counter.
/// Errors (before anything runs) if `flags` is shorter than the vertices, `list` shorter than
/// them (then every flagged vertex fits), or `count` is empty.
///
/// ```no_run
/// # fn main() -> loops::Result<()> {
/// let gpu = loops::Gpu::new(0)?;
/// let graph = gpu.upload_offsets(&[0, 1, 1, 2, 4])?;
/// let mut flags = gpu.upload(&[1u32, 0, 1, 0])?;
/// let mut list = gpu.zeros::<u32>(4)?;
/// let mut count = gpu.zeros::<u32>(1)?;
/// loops::ops::frontier::compact_flags(&gpu, &graph, &mut flags, &mut list, &mut count)?;
/// let n = gpu.download(&count)?[0] as usize;
/// let mut ids = gpu.download(&list)?[..n].to_vec();
/// ids.sort();
/// assert_eq!(ids, [0, 2]);
/// assert_eq!(gpu.download(&flags)?, [0, 0, 0, 0]);
/// # Ok(())
/// # }
/// ```
pub fn compact_flags(
    gpu: &Gpu,
    graph: &DeviceOffsets,
    flags: &mut DeviceBuffer<u32>,
    list: &mut DeviceBuffer<u32>,
    count: &mut DeviceBuffer<u32>,
) -> Result<()> {
    let n = graph.num_tiles();
    too_short("compact_flags", "flags", flags.len(), n, "one per vertex")?;
    too_short(
        "compact_flags",
        "list",
        list.len(),
        n,
        "room for every vertex",
    )?;
    too_short("compact_flags", "count", count.len(), 1, "the counter")?;
    compaction::thread::compact_flags(gpu, graph, flags, list, count)
}

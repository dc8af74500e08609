//! Breadth-first search over the GPUs of a [`GpuGroup`]: each part owns the vertices of its rows
//! (split by edges, like a matrix by atoms), keeps a level per vertex (right for the vertices it
//! owns; for the others only what it reached itself), and runs the user's push step (a
//! `#[load_balanced]` kernel over `g.tiles_in(frontier)`, the same one a single GPU runs) on the
//! frontier vertices it owns. Per level:
//! 1. each part's step flags the vertices it reached (a `u32` per vertex, any owner);
//! 2. a pack kernel turns the flags into a byte per vertex, one slot per owning part, and clears
//!    them; a reduce-scatter (NCCL's max over bytes, or on one device ORs and copies) gives each
//!    part the bytes of its own vertices, a quarter of the flags' size and a `1/parts` share.
//!    With `LOOPS_MULTI_PEER=1`, where every part is in this process on a device of its own and
//!    the devices reach each other's memory (NVLink), each part instead sends its flags to their
//!    owners over the link, a byte per reached vertex into the owner's `incoming` bytes
//!    (`loops_bfs_forward`: it walks the frontier's out-edges where they are few, reading the
//!    frontier's size on the device; a level the host knows to have many out-edges takes the
//!    reduce-scatter, whose coalesced slots beat millions of single bytes over the link), and
//!    every part's stream waits for every part's send (events, no NCCL call);
//! 3. each part settles its own flagged vertices not settled before (another part may reach a
//!    vertex its owner already had), which form its next frontier; its length and its largest
//!    out-degree are counted on the device;
//! 4. the host reads each part's count (one small read a part) and, in a group of processes, the
//!    sum over every part from an NCCL all-reduce of the counts, which ends the search in every
//!    process at once.
//!
//! Step 4 is a wait per level, which a graph of many small levels (a road network: 1,813 levels
//! on 1M vertices, a few hundred frontier vertices each) pays at every level. So after the first
//! [`HOST_LEVELS`] levels (a power-law graph's whole search, whose hub levels want a step told
//! the frontier's size, e.g. [`ByDegree`]'s load-balanced one) the levels are queued in batches
//! (8, 16, 32, then [`DistGraph::set_levels_per_check`], 64 by default) with the frontier sizes
//! kept on the device: each part's step is launched over its frontier with the length read from
//! the device ([`PushStep::push_on_device`]; the grid-stride schedules `thread`, `group`, `warp`,
//! `block` and `auto` can), each settle counts its next frontier into a slot of its own, and the
//! host reads every slot of the batch back once, after the batch. A search that ends inside a
//! batch runs its remaining levels empty (their launches, and an exchange of flags that are all
//! zero); NCCL calls are stream-ordered, so every part's levels are queued before the one wait.
//! A step that cannot run so (its schedule sizes its launches on the host) is refused before
//! anything is queued, and the search goes on one level a wait.
//!
//! One part alone settles its step's flags directly. The levels stay on the devices: the search
//! returns them as a [`DistDense`] split like the vertices (each part's own), downloaded only when
//! asked ([`GpuGroup::gather`], or a part at a time).
//!
//! The step may differ per level and per part: [`PushStep::push`] is told the frontier's size and
//! its largest out-degree ([`Frontier`]), and [`ByDegree`] runs a load-balanced step where one
//! warp per vertex would leave a hub's edges to one warp (the first level of a power-law graph),
//! a cheaper step elsewhere (every level of a road network).

//!
//! Rooms: `step` (the push step), `upload` (the graph split over the group), `levels` (the search
//! and its batches), `exchange` (the flags to their owners, the settle), `tests`.

use cudarc::driver::CudaEvent;

use super::RowPartition;
use crate::device::DeviceBuffer;
use crate::error::Result;
use crate::formats::DeviceOffsets;

mod exchange;
mod levels;
mod step;
#[cfg(test)]
mod tests;
mod upload;

pub use step::{ByDegree, PushStep, HUB_DEGREE};

/// A graph split over a [`GpuGroup`](crate::multi::GpuGroup) by its vertices' out-edges.
pub struct DistGraph {
    partition: RowPartition,
    vertices: usize,
    /// The slot of each part in the packed flags: the largest part's vertices, rounded up to 4.
    pad: usize,
    /// This process's parts.
    parts: Vec<GraphPart>,
    group: usize,
    /// Every part in this process on its own device, each reaching the others' memory: each
    /// part sends its flags to their owners over NVLink (no NCCL call on the level's path).
    peer: bool,
    /// Where the peer exchange walks the frontier's out-edges instead of scanning every flag:
    /// at most this many (the frontier's size times its largest out-degree).
    walk_limit: u64,
    /// Page-locked host words the parts' counts are copied into, all copies queued before the
    /// first wait.
    counts: Counts,
    /// The most levels queued between two waits of the host ([`DistGraph::set_levels_per_check`]).
    levels_per_check: usize,
    /// One event a part (the peer-read exchange): its pack of a level done.
    events: Vec<CudaEvent>,
}

/// The levels after which the host checks every frontier once per batch instead of once per level.
pub const HOST_LEVELS: u32 = 8;
/// The most levels a batch queues, unless [`DistGraph::set_levels_per_check`] says otherwise.
pub const DEFAULT_LEVELS_PER_CHECK: usize = 64;
/// The most [`DistGraph::set_levels_per_check`] takes.
pub const MAX_LEVELS_PER_CHECK: usize = 256;
/// The first batch's levels; each next batch doubles it, up to the graph's levels per check.
const FIRST_BATCH: usize = 8;
/// A part's words of device counts in a batch: 4 a level (the frontier's length, its largest
/// out-degree, two unused), for the batch's levels and the frontier after them.
const SLOT_WORDS: usize = 4 * (MAX_LEVELS_PER_CHECK + 1);

/// The levels the next wait of the host covers, after `levels_run` levels and `batches_run`
/// batches, with at most `max` a batch: 1 (the host reads the frontier's size before the next
/// step, which may choose its launch by it) for the first [`HOST_LEVELS`] levels or where `max`
/// is 1, else 8, 16, 32 ... up to `max`.
pub fn levels_before_check(levels_run: u32, batches_run: u32, max: usize) -> usize {
    if max <= 1 || levels_run < HOST_LEVELS {
        return 1;
    }
    FIRST_BATCH
        .checked_shl(batches_run.min(16))
        .unwrap_or(usize::MAX)
        .min(max)
        .max(1)
}

/// A batch's outcome from the sums over every part of its frontiers' sizes (`totals[j]`: the
/// frontier that level `j` of the batch expands; the last: the frontier after the batch): the
/// levels that expanded a frontier (those before the first empty one) and whether the search
/// ended. A frontier after an empty one must be empty (nothing settles without a frontier): an
/// error otherwise, as is an empty first frontier (a batch starts only from a nonempty one).
pub fn batch_outcome(totals: &[u64]) -> std::result::Result<(u32, bool), String> {
    let levels = totals.len().saturating_sub(1);
    if levels == 0 || totals[0] == 0 {
        return Err(format!(
            "a batch of frontier sizes {totals:?}: none, or its first empty"
        ));
    }
    let expanded = totals[..levels].iter().take_while(|&&t| t > 0).count();
    let after_empty = if expanded < levels {
        expanded + 1
    } else {
        totals.len()
    };
    if let Some(j) = (after_empty..totals.len()).find(|&j| totals[j] > 0) {
        return Err(format!(
            "frontier {j} of a batch has {} vertices after an empty one ({totals:?})",
            totals[j]
        ));
    }
    Ok((expanded as u32, totals[levels] == 0))
}

/// [`SLOT_WORDS`] page-locked `u32`s a part, twice (its own counts, then in a group of processes
/// their sums over every part).
struct Counts {
    host: *mut u32,
    parts: usize,
}

// SAFETY: a page-locked allocation owned by this value alone; written by copies that the owner
// waits for before reading, under the group's collective lock.
unsafe impl Send for Counts {}
unsafe impl Sync for Counts {}

impl Counts {
    fn new(parts: usize) -> Result<Counts> {
        // SAFETY: a plain page-locked allocation, freed on drop; portable, so page-locked for
        // every device's context.
        let host = unsafe {
            cudarc::driver::result::malloc_host(
                2 * 4 * SLOT_WORDS * parts.max(1),
                cudarc::driver::sys::CU_MEMHOSTALLOC_PORTABLE,
            )
        }
        .map_err(crate::error::LoopsError::driver(
            "allocating the BFS counts' host words",
        ))?;
        Ok(Counts {
            host: host.cast(),
            parts,
        })
    }

    /// Where part `i`'s words begin (`sums`: its sums over every part).
    fn at(&self, i: usize, sums: bool) -> *mut u32 {
        assert!(i < self.parts);
        // SAFETY: inside the allocation of `2 * SLOT_WORDS * parts` words.
        unsafe {
            self.host
                .add(2 * SLOT_WORDS * i + if sums { SLOT_WORDS } else { 0 })
        }
    }

    /// Part `i`'s first `words` words (after its copy was waited for).
    fn read(&self, i: usize, sums: bool, words: usize) -> Vec<u32> {
        assert!(words <= SLOT_WORDS);
        let at = self.at(i, sums);
        // SAFETY: inside the allocation; the copy into it has completed (the caller waited).
        (0..words)
            .map(|k| unsafe { std::ptr::read_volatile(at.add(k)) })
            .collect()
    }
}

impl Drop for Counts {
    fn drop(&mut self) {
        // SAFETY: allocated by `malloc_host` in `Counts::new`; every copy into it was waited for.
        let _ = unsafe { cudarc::driver::result::free_host(self.host.cast()) };
    }
}

impl DistGraph {
    /// The vertex ranges of the parts.
    pub fn partition(&self) -> &RowPartition {
        &self.partition
    }

    /// The vertices.
    pub fn vertices(&self) -> usize {
        self.vertices
    }

    /// At most `levels` levels queued between two waits of the host once the first
    /// [`HOST_LEVELS`] have run (1: a wait every level, as a step told each frontier's size needs).
    /// Clamped to `1..=`[`MAX_LEVELS_PER_CHECK`].
    pub fn set_levels_per_check(&mut self, levels: usize) {
        self.levels_per_check = levels.clamp(1, MAX_LEVELS_PER_CHECK);
    }

    /// The most levels queued between two waits of the host.
    pub fn levels_per_check(&self) -> usize {
        self.levels_per_check
    }
}

/// One part's rows of a graph
/// ([`GpuGroup::upload_graph_rows`](crate::multi::GpuGroup::upload_graph_rows)): its vertices'
/// out-edges in CSR, `offsets` from 0 (one more than the vertices), `adj` the heads (global vertex
/// ids).
pub struct GraphRows<'a> {
    /// Where each vertex's edges begin in `adj`, and their end.
    pub offsets: Vec<u64>,
    /// The heads of the edges.
    pub adj: std::borrow::Cow<'a, [u32]>,
}

struct GraphPart {
    /// Every vertex is a tile, only the owned ones have edges: the step's frontier holds global
    /// ids and `levels` is indexed by them, as on one GPU.
    offsets: DeviceOffsets,
    adj: DeviceBuffer<u32>,
    levels: DeviceBuffer<u32>,
    flags: DeviceBuffer<u32>,
    frontier: DeviceBuffer<u32>,
    /// The owned vertices' out-degrees (and one more word: see `source_degree`).
    degrees: DeviceBuffer<u32>,
    /// The flags packed, a slot of `pad` bytes per part (several parts only).
    packed: DeviceBuffer<u32>,
    /// This part's slot after the reduce-scatter (several parts only).
    mine: DeviceBuffer<u32>,
    /// The parts' starts, for the pack kernel.
    starts: DeviceBuffer<u64>,
    /// The peer exchange (`LOOPS_MULTI_PEER`): a byte per owned vertex that any part reached at
    /// the level, written by the parts over NVLink; two copies (levels alternate), `pad` bytes
    /// each.
    incoming: DeviceBuffer<u32>,
    /// Every part's `incoming` (device addresses), copy 0 of each part then copy 1.
    incoming_ptrs: DeviceBuffer<u64>,
    /// The part's next frontier's length, its largest out-degree, then (in a group of processes)
    /// the sum of every part's length.
    count: DeviceBuffer<u32>,
    /// A batch's frontier sizes and largest out-degrees, 4 words a level ([`SLOT_WORDS`]).
    slots: DeviceBuffer<u32>,
    /// In a group of processes, their sums over every part (an NCCL all-reduce after a batch).
    summed: DeviceBuffer<u32>,
}

/// What a distributed BFS did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DistBfsStats {
    /// Levels run (frontiers expanded).
    pub levels: u32,
    /// Bytes each part sent combining the flags, summed over parts and levels (the
    /// reduce-scatter's ring traffic: `parts - 1` slots of packed flags per part per level), the
    /// empty levels at the end of the last batch included.
    pub exchanged_bytes: u64,
    /// Levels queued: `levels`, and the empty ones run at the end of the last batch.
    pub queued_levels: u32,
    /// Times the host waited for the frontiers' sizes (once a level, then once a batch).
    pub host_waits: u32,
}

/// A part's frontier at one level, as the host knows it before the step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frontier {
    /// The level being expanded (1 for the source's neighbours).
    pub level: u32,
    /// The part's frontier vertices.
    pub len: usize,
    /// The largest out-degree among them.
    pub max_degree: u32,
}

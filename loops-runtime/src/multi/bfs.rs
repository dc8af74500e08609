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

use super::{dims, distributed, DistDense, GpuGroup, RowPartition, EXCHANGE_SOURCE};
use cudarc::driver::CudaEvent;

use crate::device::{DeviceBuffer, DeviceList, Gpu};
use crate::error::{LoopsError, Result};
use crate::formats::DeviceOffsets;
use crate::graph::{Graph, UNREACHED};
use crate::launch::entry::Ptr;

/// A graph split over a [`GpuGroup`] by its vertices' out-edges.
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

/// One part's rows of a graph ([`GpuGroup::upload_graph_rows`]): its vertices' out-edges in CSR,
/// `offsets` from 0 (one more than the vertices), `adj` the heads (global vertex ids).
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

/// A push step: `bfs(g: Offsets, adj: &[u32], frontier: &[u32], levels: &mut [u32], next: &mut
/// [u32])`'s launch wrapper (any closure or function of that signature is one), or a choice of
/// wrappers per level ([`ByDegree`]).
pub trait PushStep {
    /// Runs one level on one part: `frontier` holds the part's frontier (global ids), `levels`
    /// and `next` (the flags) are indexed by vertex.
    #[allow(clippy::too_many_arguments)] // the launch wrapper's six, and the frontier
    fn push(
        &self,
        gpu: &Gpu,
        g: &DeviceOffsets,
        adj: &DeviceBuffer<u32>,
        frontier: &DeviceBuffer<u32>,
        levels: &mut DeviceBuffer<u32>,
        next: &mut DeviceBuffer<u32>,
        at: Frontier,
    ) -> Result<()>;

    /// Runs one level on one part where only the device knows the frontier's length: `gpu`
    /// launches over `frontier` (whose host length is its capacity) read its length from the
    /// device, which the grid-stride schedules can; any other schedule's launch is refused with
    /// [`LoopsError::LoopOnDevice`] before anything is queued (the search then waits for every
    /// level). `at` has the level, the capacity as `len` and `max_degree` 0 (unknown). By
    /// default [`PushStep::push`].
    #[allow(clippy::too_many_arguments)] // as `push`
    fn push_on_device(
        &self,
        gpu: &Gpu,
        g: &DeviceOffsets,
        adj: &DeviceBuffer<u32>,
        frontier: &DeviceBuffer<u32>,
        levels: &mut DeviceBuffer<u32>,
        next: &mut DeviceBuffer<u32>,
        at: Frontier,
    ) -> Result<()> {
        self.push(gpu, g, adj, frontier, levels, next, at)
    }
}

impl<F> PushStep for F
where
    F: Fn(
        &Gpu,
        &DeviceOffsets,
        &DeviceBuffer<u32>,
        &DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
    ) -> Result<()>,
{
    fn push(
        &self,
        gpu: &Gpu,
        g: &DeviceOffsets,
        adj: &DeviceBuffer<u32>,
        frontier: &DeviceBuffer<u32>,
        levels: &mut DeviceBuffer<u32>,
        next: &mut DeviceBuffer<u32>,
        _at: Frontier,
    ) -> Result<()> {
        self(gpu, g, adj, frontier, levels, next)
    }
}

/// A step chosen at run time (`&dyn PushStep`, e.g. from a benchmark's list).
impl PushStep for &dyn PushStep {
    fn push(
        &self,
        gpu: &Gpu,
        g: &DeviceOffsets,
        adj: &DeviceBuffer<u32>,
        frontier: &DeviceBuffer<u32>,
        levels: &mut DeviceBuffer<u32>,
        next: &mut DeviceBuffer<u32>,
        at: Frontier,
    ) -> Result<()> {
        (**self).push(gpu, g, adj, frontier, levels, next, at)
    }

    fn push_on_device(
        &self,
        gpu: &Gpu,
        g: &DeviceOffsets,
        adj: &DeviceBuffer<u32>,
        frontier: &DeviceBuffer<u32>,
        levels: &mut DeviceBuffer<u32>,
        next: &mut DeviceBuffer<u32>,
        at: Frontier,
    ) -> Result<()> {
        (**self).push_on_device(gpu, g, adj, frontier, levels, next, at)
    }
}

/// `heavy` where the frontier holds a vertex of at least `heavy_from` out-edges, else `light`:
/// e.g. a `warp` step (one warp a vertex, no preparation) and a `work_oriented` or `merge_path`
/// one (equal shares of edges, after a prefix sum of the frontier's degrees and a read-back of
/// its total, tens of microseconds a level). One warp takes a hub of `d` edges in `d / 32`
/// rounds of atomics (a vertex of 407K edges: 11 ms on an H200).
#[derive(Clone, Copy, Debug)]
pub struct ByDegree<L, H> {
    /// The step of levels without a hub.
    pub light: L,
    /// The step of levels with one.
    pub heavy: H,
    /// The out-degree from which a vertex is a hub.
    pub heavy_from: u32,
}

/// [`ByDegree`]'s threshold where the measurements put it: below 1024 edges a warp takes at
/// most 32 rounds, about what a load-balanced step's preparation costs.
pub const HUB_DEGREE: u32 = 1024;

impl<L: PushStep, H: PushStep> PushStep for ByDegree<L, H> {
    fn push(
        &self,
        gpu: &Gpu,
        g: &DeviceOffsets,
        adj: &DeviceBuffer<u32>,
        frontier: &DeviceBuffer<u32>,
        levels: &mut DeviceBuffer<u32>,
        next: &mut DeviceBuffer<u32>,
        at: Frontier,
    ) -> Result<()> {
        if at.max_degree >= self.heavy_from {
            self.heavy.push(gpu, g, adj, frontier, levels, next, at)
        } else {
            self.light.push(gpu, g, adj, frontier, levels, next, at)
        }
    }

    /// The light step: a batch's levels come after the hubs' (see the module documentation).
    fn push_on_device(
        &self,
        gpu: &Gpu,
        g: &DeviceOffsets,
        adj: &DeviceBuffer<u32>,
        frontier: &DeviceBuffer<u32>,
        levels: &mut DeviceBuffer<u32>,
        next: &mut DeviceBuffer<u32>,
        at: Frontier,
    ) -> Result<()> {
        self.light
            .push_on_device(gpu, g, adj, frontier, levels, next, at)
    }
}

impl GpuGroup {
    /// Splits `g` over the group by out-edges and uploads each part's vertices and edges.
    pub fn upload_graph(&self, g: &Graph) -> Result<DistGraph> {
        let partition = RowPartition::by_edges(g.offsets(), self.parts());
        self.upload_graph_rows(g.vertices(), partition, |_, own| {
            let (first, last) = (g.offsets()[own.start], g.offsets()[own.end]);
            Ok(GraphRows {
                offsets: g.offsets()[own.start..=own.end]
                    .iter()
                    .map(|&o| (o - first) as u64)
                    .collect(),
                adj: std::borrow::Cow::Borrowed(&g.adj()[first..last]),
            })
        })
    }

    /// A graph of `n` vertices whose out-edges `partition` splits, each part's rows made by
    /// `part(p, vertices)` for this process's parts only, in order, on a thread of its own: the
    /// next part is made while one is uploaded, and dropped once uploaded, so the host holds at
    /// most two parts' edges and one GPU one part's (plus, on each GPU, a few words a vertex:
    /// offsets, levels, flags): the graph may be larger than any one GPU.
    pub fn upload_graph_rows<'a>(
        &self,
        n: usize,
        partition: RowPartition,
        part: impl Fn(usize, std::ops::Range<usize>) -> Result<GraphRows<'a>> + Sync,
    ) -> Result<DistGraph> {
        if n > u32::MAX as usize - 1 {
            return Err(distributed(format!("{n} vertices do not fit u32 ids")));
        }
        if partition.parts() != self.parts() || partition.starts().last() != Some(&n) {
            return Err(distributed(format!(
                "a partition of {} parts over {:?} vertices for a group of {} parts and {n} \
                 vertices",
                partition.parts(),
                partition.starts().last(),
                self.parts()
            )));
        }
        let pad = (0..self.parts())
            .map(|p| partition.range(p).len())
            .max()
            .unwrap_or(0)
            .next_multiple_of(4)
            .max(4);
        let several = self.parts() > 1 || self.uses_nccl();
        let across_processes = self.members.len() < self.size;
        let peer = self.peer_access();
        let starts: Vec<u64> = partition.starts().iter().map(|&s| s as u64).collect();
        let local: Vec<usize> = self.local_parts().collect();
        let made = |rx: &std::sync::mpsc::Receiver<Result<GraphRows<'a>>>| {
            rx.recv()
                .map_err(|_| distributed("the thread making the graph's parts stopped"))?
        };
        let (part, partition_ref) = (&part, &partition);
        let mut parts = Vec::with_capacity(self.members.len());
        std::thread::scope(|s| -> Result<()> {
            // A rendezvous: the next part is made while this one uploads, no further.
            let (tx, rx) = std::sync::mpsc::sync_channel(0);
            s.spawn(move || {
                for &p in &local {
                    let rows = part(p, partition_ref.range(p));
                    let failed = rows.is_err();
                    if tx.send(rows).is_err() || failed {
                        break;
                    }
                }
            });
            for (m, p) in self.members.iter().zip(self.local_parts()) {
                let own = partition.range(p);
                let rows = made(&rx)?;
                let edges = rows.adj.len();
                let fits = rows.offsets.len() == own.len() + 1
                    && rows.offsets.first() == Some(&0)
                    && rows.offsets.last() == Some(&(edges as u64))
                    && rows.offsets.windows(2).all(|w| w[0] <= w[1]);
                if !fits {
                    return Err(distributed(format!(
                        "part {p}'s rows do not match its {} vertices and {edges} edges (offsets \
                     from 0 to the edges, ascending, one more than the vertices)",
                        own.len()
                    )));
                }
                let threads = std::thread::available_parallelism().map_or(8, |t| t.get());
                let chunk = edges.div_ceil(threads).max(1);
                let past_end = std::thread::scope(|s| {
                    let checks: Vec<_> = rows
                        .adj
                        .chunks(chunk)
                        .map(|c| s.spawn(move || c.iter().any(|&v| v as usize >= n)))
                        .collect();
                    checks.into_iter().any(|c| c.join().unwrap_or(true))
                });
                if past_end {
                    return Err(distributed(format!(
                        "part {p} has an edge to a vertex past the graph's {n}"
                    )));
                }
                // Offsets of every vertex: 0 before the owned rows, the owned rows' edges, then flat.
                let mut offsets = vec![0usize; n + 1];
                for (o, &r) in offsets[own.start..=own.end].iter_mut().zip(&rows.offsets) {
                    *o = r as usize;
                }
                offsets[own.end + 1..].fill(edges);
                let mut degrees: Vec<u32> = rows
                    .offsets
                    .windows(2)
                    .map(|w| (w[1] - w[0]).min(u32::MAX as u64) as u32)
                    .collect();
                degrees.push(0);
                let gpu = &m.gpu;
                let device_offsets = gpu.upload_offsets(&offsets)?;
                drop(offsets);
                parts.push(GraphPart {
                    offsets: device_offsets,
                    adj: gpu.upload(&rows.adj)?,
                    levels: gpu.zeros(n)?,
                    flags: gpu.zeros(n)?,
                    frontier: gpu.zeros(own.len().max(1))?,
                    degrees: gpu.upload(&degrees)?,
                    packed: gpu.zeros(if several { self.parts() * pad / 4 } else { 0 })?,
                    mine: gpu.zeros(if several { pad / 4 } else { 0 })?,
                    starts: gpu.upload(&starts)?,
                    incoming: gpu.zeros(if peer { 2 * pad / 4 } else { 0 })?,
                    incoming_ptrs: DeviceBuffer::empty(),
                    count: gpu.zeros(3)?,
                    slots: gpu.zeros(SLOT_WORDS)?,
                    summed: gpu.zeros(if across_processes { SLOT_WORDS } else { 0 })?,
                });
                // The part's rows are dropped here, once uploaded.
                drop(rows);
                gpu.synchronize()?;
            }
            Ok(())
        })?;
        let mut events = Vec::new();
        if peer {
            let incoming: Vec<u64> = (0..2u64)
                .flat_map(|c| {
                    parts
                        .iter()
                        .map(move |p| p.incoming.device_ptr() + c * pad as u64)
                })
                .collect();
            for (m, part) in self.members.iter().zip(&mut parts) {
                part.incoming_ptrs = m.gpu.upload(&incoming)?;
                events.push(
                    m.gpu
                        .stream()
                        .context()
                        .new_event(None)
                        .map_err(LoopsError::driver("making a part's BFS event"))?,
                );
            }
        }
        Ok(DistGraph {
            partition,
            vertices: n,
            pad,
            parts,
            group: self.id(),
            peer,
            counts: Counts::new(self.members.len())?,
            levels_per_check: DEFAULT_LEVELS_PER_CHECK,
            events,
            walk_limit: (n / 8) as u64,
        })
    }

    /// BFS levels from `source` (`UNREACHED` where none), with `step` run on each part's frontier
    /// at every level. The levels stay on the devices, split like the vertices (each part's own;
    /// in a group of processes, this process's parts): [`GpuGroup::gather`] downloads them all,
    /// `group.gpu(p).download(levels.part(p))` one part. Returns once the search has ended (the
    /// host reads each level's frontier sizes); the levels' copy out of the search's buffers may
    /// still be queued (a download waits for it).
    pub fn bfs<K: PushStep>(
        &self,
        g: &mut DistGraph,
        source: u32,
        step: K,
    ) -> Result<(DistDense<u32>, DistBfsStats)> {
        if g.group != self.id() || g.parts.len() != self.members.len() {
            return Err(distributed(
                "the distributed graph was uploaded by another GPU group",
            ));
        }
        let n = g.vertices;
        if source as usize >= n {
            return Err(distributed(format!(
                "source {source} of a graph of {n} vertices"
            )));
        }
        let _one_at_a_time = self.lock();
        let owner = g.partition.owner(source as usize);
        let mut at: Vec<Frontier> = (0..self.members.len())
            .map(|_| Frontier {
                level: 1,
                len: 0,
                max_degree: 0,
            })
            .collect();
        let mut total = 1;
        for ((p, m), part) in self.local_parts().zip(&self.members).zip(&mut g.parts) {
            m.gpu.fill(&mut part.levels, UNREACHED)?;
            m.gpu.write_at(&mut part.levels, source as usize, &[0])?;
            m.gpu.fill(&mut part.flags, 0)?;
            m.gpu.fill(&mut part.incoming, 0)?;
            let i = p - self.first;
            if p == owner {
                m.gpu.write_at(&mut part.frontier, 0, &[source])?;
                at[i].len = 1;
                at[i].max_degree =
                    source_degree(&m.gpu, part, source as usize - g.partition.range(p).start)?;
            }
            // The first frontier's size on the device too (the peer exchange reads it there).
            m.gpu
                .write_at(&mut part.count, 0, &[at[i].len as u32, at[i].max_degree, 0])?;
        }
        let several = self.parts() > 1 || self.uses_nccl();
        let mut stats = DistBfsStats::default();
        // The reduce-scatter's bytes; the peer exchange's (a byte for each vertex reached by a
        // part other than its owner) are not counted.
        let ring = if several {
            (self.parts() as u64 - 1) * self.parts() as u64 * g.pad as u64
        } else {
            0
        };
        // LOOPS_MULTI_TRACE=1: each level's phases on stderr, every GPU waited for after each
        // (which serialises the phases: a diagnosis, not a timing of the overlapped loop).
        let trace = std::env::var_os("LOOPS_MULTI_TRACE").is_some();
        let wait_all = |members: &[super::Member]| -> Result<()> {
            for m in members {
                m.gpu.synchronize()?;
                m.exchange.synchronize()?;
            }
            Ok(())
        };
        // Batches once the first levels have run (not while tracing, which waits every phase).
        let (mut batches, mut batching) = (0u32, !trace);
        while total > 0 {
            let count = if batching {
                levels_before_check(stats.levels, batches, g.levels_per_check)
            } else {
                1
            };
            if count > 1 {
                match self.queue_levels(g, &step, &mut at, stats.levels + 1, count)? {
                    None => batching = false,
                    Some((expanded, left)) => {
                        stats.levels += expanded;
                        stats.queued_levels += count as u32;
                        stats.host_waits += 1;
                        if !g.peer {
                            stats.exchanged_bytes += ring * count as u64;
                        }
                        total = left;
                        batches += 1;
                    }
                }
                continue;
            }
            let began = std::time::Instant::now();
            let mut marks = Vec::new();
            for ((m, part), &here) in self.members.iter().zip(&mut g.parts).zip(&at) {
                if here.len > 0 {
                    part.frontier.set_len(here.len);
                    step.push(
                        &m.gpu,
                        &part.offsets,
                        &part.adj,
                        &part.frontier,
                        &mut part.levels,
                        &mut part.flags,
                        here,
                    )?;
                }
            }
            let mut parts_done = Vec::new();
            if trace {
                marks.push(began.elapsed());
                for m in &self.members {
                    m.gpu.synchronize()?;
                    parts_done.push(began.elapsed().as_secs_f64() * 1e3);
                }
                marks.push(began.elapsed());
            }
            let reached = stats.levels + 1;
            // A frontier of many out-edges takes the dense exchange (see `exchange_flags`).
            let dense = at
                .iter()
                .any(|a| a.len as u64 * a.max_degree as u64 > g.walk_limit);
            if several {
                self.exchange_flags(g, 0, dense, |part| part.count.device_ptr())?;
            }
            if trace {
                wait_all(&self.members)?;
                marks.push(began.elapsed());
            }
            for (m, part) in self.members.iter().zip(&mut g.parts) {
                m.gpu.fill(&mut part.count, 0)?;
            }
            self.settle(g, reached, 0, dense, |part| part.count.device_ptr())?;
            let lens_before: Vec<usize> = if trace {
                at.iter().map(|a| a.len).collect()
            } else {
                Vec::new()
            };
            let frontier: usize = lens_before.iter().sum();
            total = self.count_frontiers(g, &mut at, reached + 1)?;
            if trace {
                let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
                let done = ms(began.elapsed());
                let [launched, stepped, combined] = [ms(marks[0]), ms(marks[1]), ms(marks[2])];
                eprintln!(
                    "multi bfs level {}: frontier {frontier} (this process's parts {lens_then:?}), \
                     steps launched in {launched:.3} ms and done at {stepped:.3} (each part's \
                     {parts_done:.3?}), flags exchanged at {combined:.3}, settled and counted at \
                     {done:.3}",
                    stats.levels + 1,
                    lens_then = lens_before,
                );
            }
            stats.levels += 1;
            stats.queued_levels += 1;
            stats.host_waits += 1;
            if !g.peer || dense {
                stats.exchanged_bytes += ring;
            }
        }
        // Each part's own levels out of its search buffer, on its stream.
        let parts = self
            .local_parts()
            .zip(&self.members)
            .zip(&g.parts)
            .map(|((p, m), part)| {
                let own = g.partition.range(p);
                let out = m.gpu.uninit::<u32>(own.len())?;
                if !own.is_empty() {
                    m.gpu.copy_device(
                        part.levels.device_ptr() + 4 * own.start as u64,
                        out.device_ptr(),
                        4 * own.len(),
                        "copying a part's BFS levels",
                    )?;
                }
                Ok(out)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok((DistDense::new(parts, 1, self.first), stats))
    }

    /// Queues `count` levels from level `first` (the level the first one's frontier reaches) on
    /// every part with the frontier sizes on the device (see the module documentation), then waits
    /// once. `at` holds each local part's frontier before the batch and, after it, the one after
    /// it. Returns the levels that expanded a frontier and the size of the frontier after the
    /// batch summed over every part, or `None` where the step cannot run with its frontier's
    /// length on the device (refused before anything of the level was queued).
    fn queue_levels<K: PushStep>(
        &self,
        g: &mut DistGraph,
        step: &K,
        at: &mut [Frontier],
        first: u32,
        count: usize,
    ) -> Result<Option<(u32, usize)>> {
        assert!((1..=MAX_LEVELS_PER_CHECK).contains(&count));
        let several = self.parts() > 1 || self.uses_nccl();
        let across_processes = self.members.len() < self.size;
        for ((m, part), here) in self.members.iter().zip(&mut g.parts).zip(at.iter()) {
            m.gpu.fill(&mut part.slots, 0)?;
            m.gpu
                .write_at(&mut part.slots, 0, &[here.len as u32, here.max_degree])?;
        }
        for l in 0..count {
            let reached = first + l as u32;
            for (i, (m, part)) in self.members.iter().zip(&mut g.parts).enumerate() {
                let capacity = part.frontier.capacity();
                part.frontier.set_len(capacity);
                let slot = part.slots.device_ptr() + 16 * l as u64;
                let gpu = m.gpu.in_device_loop(DeviceList {
                    list: part.frontier.device_ptr(),
                    len: slot,
                    capturing: false,
                    blocks: None,
                });
                let here = Frontier {
                    level: reached,
                    len: capacity,
                    max_degree: 0,
                };
                let pushed = step.push_on_device(
                    &gpu,
                    &part.offsets,
                    &part.adj,
                    &part.frontier,
                    &mut part.levels,
                    &mut part.flags,
                    here,
                );
                match pushed {
                    // The first launch of the batch: nothing of the level is queued yet.
                    Err(LoopsError::LoopOnDevice { .. }) if l == 0 && i == 0 => return Ok(None),
                    other => other?,
                }
            }
            let slot = |part: &GraphPart| part.slots.device_ptr() + 16 * l as u64;
            if several {
                self.exchange_flags(g, l % 2, false, slot)?;
            }
            let next = |part: &GraphPart| part.slots.device_ptr() + 16 * (l as u64 + 1);
            self.settle(g, reached, l % 2, false, next)?;
        }
        let words = 4 * (count + 1);
        if across_processes {
            let super::Transport::Nccl(comms) = &self.transport else {
                unreachable!("a group of processes exchanges through NCCL");
            };
            use cudarc::nccl::result as nccl;
            use cudarc::nccl::sys::{ncclDataType_t::ncclUint32, ncclRedOp_t::ncclSum};
            let fail = |e| distributed(format!("NCCL all-reduce of a BFS batch's sizes: {e:?}"));
            nccl::group_start().map_err(fail)?;
            let mut outcome = Ok(());
            for ((m, part), comm) in self.members.iter().zip(&g.parts).zip(comms) {
                let (send, recv) = (part.slots.device_ptr(), part.summed.device_ptr());
                let s = m.gpu.stream().cu_stream() as _;
                if let Err(e) = unsafe {
                    nccl::all_reduce(send as _, recv as _, words, ncclUint32, ncclSum, comm.0, s)
                } {
                    outcome = Err(fail(e));
                }
            }
            nccl::group_end().map_err(fail)?;
            outcome?;
        }
        // Every part's copies queued, then each waited for.
        for (i, (m, part)) in self.members.iter().zip(&g.parts).enumerate() {
            let stream = m.gpu.stream();
            let what = "reading a BFS batch's frontier sizes";
            stream
                .context()
                .bind_to_thread()
                .map_err(LoopsError::driver(what))?;
            let mut copies = vec![(g.counts.at(i, false), part.slots.device_ptr())];
            if across_processes {
                copies.push((g.counts.at(i, true), part.summed.device_ptr()));
            }
            for (host, device) in copies {
                // SAFETY: `words` (at most SLOT_WORDS) words of a live device buffer of
                // SLOT_WORDS into the part's page-locked words, ordered on the stream that wrote
                // them and waited for below.
                unsafe {
                    cudarc::driver::sys::cuMemcpyDtoHAsync_v2(
                        host.cast(),
                        device,
                        4 * words,
                        stream.cu_stream(),
                    )
                }
                .result()
                .map_err(LoopsError::driver(what))?;
            }
        }
        let mut totals = vec![0u64; count + 1];
        for (i, (here, m)) in at.iter_mut().zip(&self.members).enumerate() {
            m.gpu.synchronize()?;
            let own = g.counts.read(i, false, words);
            let summed = if across_processes {
                g.counts.read(i, true, words)
            } else {
                own.clone()
            };
            for (j, total) in totals.iter_mut().enumerate() {
                if across_processes {
                    *total = summed[4 * j] as u64;
                } else {
                    *total += summed[4 * j] as u64;
                }
            }
            *here = Frontier {
                level: first + count as u32,
                len: own[4 * count] as usize,
                max_degree: own[4 * count + 1],
            };
        }
        let (expanded, _ended) = batch_outcome(&totals).map_err(distributed)?;
        Ok(Some((expanded, totals[count] as usize)))
    }

    /// Each local part's next frontier into `at` (for level `level`); returns the sum over every
    /// part. One small read a part; in a group of processes the sum comes from an NCCL all-reduce
    /// of the lengths, in one process from the host.
    fn count_frontiers(&self, g: &mut DistGraph, at: &mut [Frontier], level: u32) -> Result<usize> {
        let across_processes = self.members.len() < self.size;
        if across_processes {
            let super::Transport::Nccl(comms) = &self.transport else {
                unreachable!("a group of processes exchanges through NCCL");
            };
            use cudarc::nccl::result as nccl;
            use cudarc::nccl::sys::{ncclDataType_t::ncclUint32, ncclRedOp_t::ncclSum};
            let fail = |e| distributed(format!("NCCL all-reduce of BFS frontier sizes: {e:?}"));
            nccl::group_start().map_err(fail)?;
            let mut outcome = Ok(());
            for ((m, part), comm) in self.members.iter().zip(&g.parts).zip(comms) {
                let ptr = part.count.device_ptr();
                let s = m.gpu.stream().cu_stream() as _;
                if let Err(e) = unsafe {
                    nccl::all_reduce(ptr as _, (ptr + 8) as _, 1, ncclUint32, ncclSum, comm.0, s)
                } {
                    outcome = Err(fail(e));
                }
            }
            nccl::group_end().map_err(fail)?;
            outcome?;
        }
        // Every part's copy queued, then each waited for: the parts' waits overlap.
        for (i, (m, part)) in self.members.iter().zip(&g.parts).enumerate() {
            let stream = m.gpu.stream();
            let what = "reading a part's BFS frontier size";
            stream
                .context()
                .bind_to_thread()
                .map_err(crate::error::LoopsError::driver(what))?;
            // SAFETY: 12 bytes of the part's live count buffer into its 16 page-locked bytes,
            // ordered on the stream that wrote them and waited for below.
            unsafe {
                cudarc::driver::sys::cuMemcpyDtoHAsync_v2(
                    g.counts.at(i, false).cast(),
                    part.count.device_ptr(),
                    12,
                    stream.cu_stream(),
                )
            }
            .result()
            .map_err(crate::error::LoopsError::driver(what))?;
        }
        let mut total = 0;
        for (i, (here, m)) in at.iter_mut().zip(&self.members).enumerate() {
            m.gpu.synchronize()?;
            let count = g.counts.read(i, false, 3);
            *here = Frontier {
                level,
                len: count[0] as usize,
                max_degree: count[1],
            };
            total += count[0] as usize;
            if across_processes {
                total = count[2] as usize;
            }
        }
        Ok(total)
    }

    /// Whether `LOOPS_MULTI_PEER` is set, every part is in this process on a device of its own
    /// and each device can read the others' memory, which is then enabled (NVLink peer access and
    /// the stream-ordered pools' access; NCCL enables the former too). Else the BFS combines its
    /// flags through NCCL's reduce-scatter.
    fn peer_access(&self) -> bool {
        use cudarc::driver::sys;
        if !self.uses_nccl()
            || self.members.len() != self.size
            || self.size < 2
            || std::env::var_os("LOOPS_MULTI_PEER").is_none()
        {
            return false;
        }
        for a in &self.members {
            for b in &self.members {
                let (ca, cb) = (a.gpu.stream().context(), b.gpu.stream().context());
                if ca.cu_device() == cb.cu_device() {
                    continue;
                }
                let mut can = 0;
                // SAFETY: two valid device handles and an out-parameter.
                let asked =
                    unsafe { sys::cuDeviceCanAccessPeer(&mut can, ca.cu_device(), cb.cu_device()) };
                if asked != sys::CUresult::CUDA_SUCCESS || can == 0 || ca.bind_to_thread().is_err()
                {
                    return false;
                }
                // SAFETY: `a`'s context is current; `b`'s is a live context of another device.
                match unsafe { sys::cuCtxEnablePeerAccess(cb.cu_ctx(), 0) } {
                    sys::CUresult::CUDA_SUCCESS
                    | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => {}
                    _ => return false,
                }
                // Buffers come from `b`'s stream-ordered pool, which peer access does not open:
                // the pool grants `a`'s device access itself.
                let mut pool = std::ptr::null_mut();
                let access = sys::CUmemAccessDesc {
                    location: sys::CUmemLocation {
                        type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                        id: ca.cu_device(),
                    },
                    flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
                };
                // SAFETY: a valid device handle, an out-parameter, then one access descriptor.
                let granted = unsafe {
                    sys::cuDeviceGetMemPool(&mut pool, cb.cu_device())
                        == sys::CUresult::CUDA_SUCCESS
                        && sys::cuMemPoolSetAccess(pool, &access, 1) == sys::CUresult::CUDA_SUCCESS
                };
                if !granted {
                    return false;
                }
            }
        }
        true
    }

    /// Each part's flags of the level that reaches `reached`, combined (`mine`, or `incoming`
    /// copy `parity` in the peer exchange; one part: its own flags), settled into its levels and
    /// next frontier, counted at the device address `count(part)`.
    fn settle(
        &self,
        g: &mut DistGraph,
        reached: u32,
        parity: usize,
        dense: bool,
        count: impl Fn(&GraphPart) -> u64,
    ) -> Result<()> {
        let n = g.vertices;
        let several = self.parts() > 1 || self.uses_nccl();
        for ((p, m), part) in self.local_parts().zip(&self.members).zip(&mut g.parts) {
            let counted = Ptr::<u32>::address(count(part));
            let capacity = part.frontier.capacity();
            part.frontier.set_len(capacity);
            let own = g.partition.range(p);
            let d = dims(&m.gpu, if several { own.len() } else { n });
            if g.peer && !dense {
                let entry = "loops_bfs_settle_incoming";
                let f = m.gpu.function(entry, EXCHANGE_SOURCE, entry)?;
                let args = super::loops_bfs_settle_incoming::args(
                    Ptr::<u32>::address(part.incoming.device_ptr() + (parity * g.pad) as u64),
                    &part.levels,
                    reached,
                    own.start as u64,
                    own.len() as u64,
                    &part.degrees,
                    &part.frontier,
                    counted,
                );
                m.gpu.launch_function(entry, &f, d, args)?;
            } else if several {
                let entry = "loops_bfs_settle_own";
                let f = m.gpu.function(entry, EXCHANGE_SOURCE, entry)?;
                let args = super::loops_bfs_settle_own::args(
                    &part.mine,
                    &part.levels,
                    reached,
                    own.start as u64,
                    own.len() as u64,
                    &part.degrees,
                    &part.frontier,
                    counted,
                );
                m.gpu.launch_function(entry, &f, d, args)?;
            } else {
                let entry = "loops_bfs_settle";
                let f = m.gpu.function(entry, EXCHANGE_SOURCE, entry)?;
                let args = super::loops_bfs_settle::args(
                    &part.flags,
                    &part.levels,
                    reached,
                    n as u64,
                    &part.degrees,
                    &part.frontier,
                    counted,
                );
                m.gpu.launch_function(entry, &f, d, args)?;
            }
        }
        Ok(())
    }

    /// Each part's flags packed, and every part's slot combined into its owner's `mine`. The
    /// peer-read exchange packs into copy `parity` (0 or 1) of its packed flags: levels queued
    /// without a wait alternate, so that a part packing level `l + 1` never overwrites what
    /// another still reads of level `l` (its pack of `l + 2` comes after its read of `l + 1`,
    /// which waited for every part's pack of `l + 1`, each after that part's read of `l`).
    ///
    /// The peer exchange instead sends each part's flags to their owners' `incoming` copy
    /// `parity` over NVLink (`loops_bfs_forward`, which reads the frontier's size at the device
    /// address `count(part)`), then orders every part after every part's send. Levels queued
    /// without a wait alternate copies: a part sending level `l + 2` into copy `l % 2` has
    /// settled `l + 1`, which waited for every part's send of `l + 1`, each after that part's
    /// settle of `l`, the last read of the copy.
    ///
    /// `dense` (a level whose frontier the host knows to have many out-edges): the peer exchange
    /// takes the reduce-scatter too, whose coalesced slots beat a byte sent over NVLink for each
    /// of millions of reached vertices.
    fn exchange_flags(
        &self,
        g: &mut DistGraph,
        parity: usize,
        dense: bool,
        count: impl Fn(&GraphPart) -> u64,
    ) -> Result<()> {
        let pad = g.pad;
        let parts = self.parts();
        if g.peer && !dense {
            let n = g.vertices;
            for (m, part) in self.members.iter().zip(&g.parts) {
                let entry = "loops_bfs_forward";
                let f = m.gpu.function(entry, EXCHANGE_SOURCE, entry)?;
                let (narrow, wide) = match part.offsets.wide_offsets() {
                    Some(w) => (Ptr::null(), Ptr::at(w, 0)),
                    None => (Ptr::at(part.offsets.offsets(), 0), Ptr::null()),
                };
                let args = super::loops_bfs_forward::args(
                    &part.flags,
                    n as u64,
                    Ptr::at(&part.frontier, 0),
                    Ptr::<u32>::address(count(part)),
                    narrow,
                    wide,
                    &part.adj,
                    Ptr::<u64>::address(
                        part.incoming_ptrs.device_ptr() + (8 * parity * parts) as u64,
                    ),
                    &part.starts,
                    parts as u32,
                    g.walk_limit,
                );
                m.gpu.launch_function(entry, &f, dims(&m.gpu, n), args)?;
            }
            // Every part after every part's send: one event a part, recorded again every level
            // (a wait takes the record made before it).
            for (m, done) in self.members.iter().zip(&g.events) {
                done.record(m.gpu.stream())
                    .map_err(LoopsError::driver("ordering the parts' BFS flags"))?;
            }
            for (q, m) in self.members.iter().enumerate() {
                for (p, done) in g.events.iter().enumerate() {
                    if p != q {
                        m.gpu
                            .stream()
                            .wait(done)
                            .map_err(LoopsError::driver("ordering BFS flags"))?;
                    }
                }
            }
            return Ok(());
        }
        for (m, part) in self.members.iter().zip(&mut g.parts) {
            let f = m
                .gpu
                .function("loops_bfs_pack", EXCHANGE_SOURCE, "loops_bfs_pack")?;
            let args = super::loops_bfs_pack::args(
                &part.flags,
                &part.packed,
                &part.starts,
                parts as u32,
                pad as u64,
            );
            let d = dims(&m.gpu, parts * pad / 4);
            m.gpu.launch_function("loops_bfs_pack", &f, d, args)?;
        }
        match &self.transport {
            super::Transport::OneDevice => {
                let x = &self.members[0].exchange;
                for m in &self.members {
                    super::join(x, &m.gpu)?;
                }
                let f = x.function("loops_or_into_u32", EXCHANGE_SOURCE, "loops_or_into_u32")?;
                for q in 0..parts {
                    let slot = |p: usize| g.parts[p].packed.device_ptr() + (q * pad) as u64;
                    let mine = g.parts[q].mine.device_ptr();
                    x.copy_device(slot(q), mine, pad, "combining BFS flags")?;
                    for p in (0..parts).filter(|&p| p != q) {
                        let args = super::loops_or_into_u32::args(
                            Ptr::<u32>::address(mine),
                            Ptr::<u32>::address(slot(p)),
                            (pad / 4) as u64,
                        );
                        x.launch_function("loops_or_into_u32", &f, dims(x, pad / 4), args)?;
                    }
                }
                for m in &self.members {
                    super::join(&m.gpu, x)?;
                }
                Ok(())
            }
            super::Transport::Nccl(comms) => {
                use cudarc::nccl::result as nccl;
                use cudarc::nccl::sys::{ncclDataType_t::ncclUint8, ncclRedOp_t::ncclMax};
                let fail = |e| distributed(format!("NCCL reduce-scatter of BFS flags: {e:?}"));
                nccl::group_start().map_err(fail)?;
                let mut outcome = Ok(());
                for ((m, part), comm) in self.members.iter().zip(&g.parts).zip(comms) {
                    let (send, recv) = (part.packed.device_ptr(), part.mine.device_ptr());
                    let s = m.gpu.stream().cu_stream() as _;
                    if let Err(e) = unsafe {
                        nccl::reduce_scatter(
                            send as _, recv as _, pad, ncclUint8, ncclMax, comm.0, s,
                        )
                    } {
                        outcome = Err(fail(e));
                    }
                }
                nccl::group_end().map_err(fail)?;
                outcome
            }
        }
    }
}

/// The out-degree of a part's `i`-th own vertex, read from its degrees (an 8-byte read, aligned
/// down: the buffer holds one word more than the part's vertices).
fn source_degree(gpu: &Gpu, part: &GraphPart, i: usize) -> Result<u32> {
    let mut slot = [0u64];
    let ptr = part.degrees.device_ptr() + 4 * (i & !1) as u64;
    gpu.read_slots(ptr, &mut slot, "reading the BFS source's degree")?;
    let words = slot[0].to_ne_bytes();
    let half = if i.is_multiple_of(2) {
        &words[..4]
    } else {
        &words[4..]
    };
    Ok(u32::from_ne_bytes(half.try_into().expect("4 bytes")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_begin_after_the_host_levels_and_double() {
        let run: Vec<usize> = (0..6)
            .map(|b| levels_before_check(HOST_LEVELS, b, 64))
            .collect();
        assert_eq!(run, [8, 16, 32, 64, 64, 64]);
        assert_eq!(levels_before_check(HOST_LEVELS - 1, 3, 64), 1);
        assert_eq!(levels_before_check(100, 3, 1), 1);
        assert_eq!(levels_before_check(100, 0, 5), 5);
        assert_eq!(levels_before_check(100, 40, 256), 256);
    }

    #[test]
    fn a_batch_counts_the_levels_before_its_first_empty_frontier() {
        assert_eq!(batch_outcome(&[5, 3, 4]), Ok((2, false)));
        assert_eq!(batch_outcome(&[5, 3, 0]), Ok((2, true)));
        assert_eq!(batch_outcome(&[5, 0, 0, 0]), Ok((1, true)));
        assert_eq!(batch_outcome(&[1, 0]), Ok((1, true)));
        assert!(batch_outcome(&[5, 0, 2]).is_err());
        assert!(batch_outcome(&[0, 0]).is_err());
        assert!(batch_outcome(&[3]).is_err());
    }

    /// The search's loop on the CPU: levels one at a time, then batches, over a graph whose
    /// frontiers have the sizes `sizes` (the source's first, then each level's next): the levels
    /// counted, those queued and the host's waits.
    fn model(sizes: &[u64], max: usize) -> (u32, u32, u32) {
        let frontier = |l: usize| sizes.get(l).copied().unwrap_or(0);
        let (mut levels, mut queued, mut waits, mut batches) = (0u32, 0u32, 0u32, 0u32);
        let mut total = frontier(0);
        while total > 0 {
            let count = levels_before_check(levels, batches, max);
            if count == 1 {
                levels += 1;
                total = frontier(levels as usize);
            } else {
                let totals: Vec<u64> = (0..=count).map(|j| frontier(levels as usize + j)).collect();
                let (expanded, ended) = batch_outcome(&totals).unwrap();
                assert_eq!(ended, totals[count] == 0);
                levels += expanded;
                total = totals[count];
                batches += 1;
            }
            queued += count as u32;
            waits += 1;
        }
        (levels, queued, waits)
    }

    #[test]
    fn batched_searches_count_their_levels_and_run_few_empty_ones() {
        for depth in [1usize, 2, 7, 8, 9, 15, 16, 17, 40, 100, 1813] {
            for max in [1usize, 2, 7, 64, 256] {
                let sizes: Vec<u64> = (0..depth).map(|l| 1 + (l as u64 * 7919) % 300).collect();
                let (levels, queued, waits) = model(&sizes, max);
                assert_eq!(levels as usize, depth, "depth {depth}, max {max}");
                assert!(
                    queued >= levels && queued - levels < max as u32,
                    "{queued} {levels}"
                );
                if max == 1 || depth <= HOST_LEVELS as usize {
                    assert_eq!(waits as usize, depth);
                } else {
                    // The host levels, then one wait a batch of at least 8 (or `max`) levels.
                    let batch = FIRST_BATCH.min(max);
                    let rest = depth - HOST_LEVELS as usize;
                    assert!(waits as usize <= HOST_LEVELS as usize + rest.div_ceil(batch));
                }
            }
        }
    }
}

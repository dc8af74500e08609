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
//!    the devices reach each other's memory (NVLink), each owner instead reads its slot of every
//!    part's packed flags over the link and ORs them (no NCCL call; measured on 4 H200s it was
//!    no faster: see `examples/bench/README.md`);
//! 3. each part settles its own flagged vertices not settled before (another part may reach a
//!    vertex its owner already had), which form its next frontier; its length and its largest
//!    out-degree are counted on the device;
//! 4. the host reads each part's count (one small read a part, the only wait of the level) and,
//!    in a group of processes, the sum over every part from an NCCL all-reduce of the counts, which
//!    ends the search in every process at once.
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
use crate::device::{DeviceBuffer, Gpu};
use crate::error::Result;
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
    /// Every part in this process on its own device, each reaching the others' memory: the
    /// flags are combined by reading the peers' slots (no NCCL call on the level's path).
    peer: bool,
    /// Page-locked host words the parts' counts are copied into, all copies queued before the
    /// first wait.
    counts: Counts,
}

/// `4 * parts` page-locked `u32`s (a part's count at `4 * i`).
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
                16 * parts.max(1),
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

    /// Part `i`'s three words (after its copy was waited for).
    fn read(&self, i: usize) -> [u32; 3] {
        assert!(i < self.parts);
        // SAFETY: inside the allocation; the copy into it has completed (the caller waited).
        std::array::from_fn(|k| unsafe { std::ptr::read_volatile(self.host.add(4 * i + k)) })
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
    /// Every part's `packed` (device addresses), where the parts read each other's memory.
    peers: DeviceBuffer<u64>,
    /// The part's next frontier's length, its largest out-degree, then (in a group of processes)
    /// the sum of every part's length.
    count: DeviceBuffer<u32>,
}

/// What a distributed BFS did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DistBfsStats {
    /// Levels run (frontiers expanded).
    pub levels: u32,
    /// Bytes each part sent combining the flags, summed over parts and levels (the
    /// reduce-scatter's ring traffic: `parts - 1` slots of packed flags per part per level).
    pub exchanged_bytes: u64,
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
}

impl GpuGroup {
    /// Splits `g` over the group by out-edges and uploads each part's vertices and edges.
    pub fn upload_graph(&self, g: &Graph) -> Result<DistGraph> {
        let n = g.vertices();
        if n > u32::MAX as usize - 1 {
            return Err(distributed(format!("{n} vertices do not fit u32 ids")));
        }
        let partition = RowPartition::by_edges(g.offsets(), self.parts());
        let pad = (0..self.parts())
            .map(|p| partition.range(p).len())
            .max()
            .unwrap_or(0)
            .next_multiple_of(4)
            .max(4);
        let several = self.parts() > 1 || self.uses_nccl();
        let starts: Vec<u64> = partition.starts().iter().map(|&s| s as u64).collect();
        let parts = self
            .members
            .iter()
            .zip(self.local_parts())
            .map(|(m, p)| {
                let own = partition.range(p);
                let (first, last) = (g.offsets()[own.start], g.offsets()[own.end]);
                // Offsets of every vertex: 0 before the owned rows, the owned rows' edges, then flat.
                let offsets: Vec<usize> = g
                    .offsets()
                    .iter()
                    .map(|&o| o.clamp(first, last) - first)
                    .collect();
                let mut degrees: Vec<u32> = own.clone().map(|v| g.degree(v) as u32).collect();
                degrees.push(0);
                let gpu = &m.gpu;
                Ok(GraphPart {
                    offsets: gpu.upload_offsets(&offsets)?,
                    adj: gpu.upload(&g.adj()[first..last])?,
                    levels: gpu.zeros(n)?,
                    flags: gpu.zeros(n)?,
                    frontier: gpu.zeros(own.len().max(1))?,
                    degrees: gpu.upload(&degrees)?,
                    packed: gpu.zeros(if several { self.parts() * pad / 4 } else { 0 })?,
                    mine: gpu.zeros(if several { pad / 4 } else { 0 })?,
                    starts: gpu.upload(&starts)?,
                    peers: DeviceBuffer::empty(),
                    count: gpu.zeros(3)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut parts = parts;
        let peer = self.peer_access();
        if peer {
            let packed: Vec<u64> = parts.iter().map(|p| p.packed.device_ptr()).collect();
            for (m, part) in self.members.iter().zip(&mut parts) {
                part.peers = m.gpu.upload(&packed)?;
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
            if p == owner {
                m.gpu.write_at(&mut part.frontier, 0, &[source])?;
                let i = p - self.first;
                at[i].len = 1;
                at[i].max_degree =
                    source_degree(&m.gpu, part, source as usize - g.partition.range(p).start)?;
            }
        }
        let several = self.parts() > 1 || self.uses_nccl();
        let mut stats = DistBfsStats::default();
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
        while total > 0 {
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
            if several {
                self.exchange_flags(g)?;
            }
            if trace {
                wait_all(&self.members)?;
                marks.push(began.elapsed());
            }
            for ((p, m), part) in self.local_parts().zip(&self.members).zip(&mut g.parts) {
                m.gpu.fill(&mut part.count, 0)?;
                let capacity = part.frontier.capacity();
                part.frontier.set_len(capacity);
                let own = g.partition.range(p);
                if several {
                    let f = m.gpu.function(
                        "loops_bfs_settle_own",
                        EXCHANGE_SOURCE,
                        "loops_bfs_settle_own",
                    )?;
                    let args = super::loops_bfs_settle_own::args(
                        &part.mine,
                        &part.levels,
                        reached,
                        own.start as u64,
                        own.len() as u64,
                        &part.degrees,
                        &part.frontier,
                        &part.count,
                    );
                    let d = dims(&m.gpu, own.len());
                    m.gpu.launch_function("loops_bfs_settle_own", &f, d, args)?;
                } else {
                    let f =
                        m.gpu
                            .function("loops_bfs_settle", EXCHANGE_SOURCE, "loops_bfs_settle")?;
                    let args = super::loops_bfs_settle::args(
                        &part.flags,
                        &part.levels,
                        reached,
                        n as u64,
                        &part.degrees,
                        &part.frontier,
                        &part.count,
                    );
                    m.gpu
                        .launch_function("loops_bfs_settle", &f, dims(&m.gpu, n), args)?;
                }
            }
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
            stats.exchanged_bytes += ring;
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
                    g.counts.host.add(4 * i).cast(),
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
            let count = g.counts.read(i);
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

    /// Each part's flags packed, and every part's slot combined into its owner's `mine`.
    fn exchange_flags(&self, g: &mut DistGraph) -> Result<()> {
        let pad = g.pad;
        let parts = self.parts();
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
        if g.peer {
            // Each owner waits for every part's pack, then reads its slot of each.
            let flags = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DISABLE_TIMING);
            let fail = crate::error::LoopsError::driver("ordering the parts' BFS flags");
            let packed = self
                .members
                .iter()
                .map(|m| m.gpu.stream().record_event(flags))
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(fail)?;
            for (q, (m, part)) in self.members.iter().zip(&g.parts).enumerate() {
                for (p, done) in packed.iter().enumerate() {
                    if p != q {
                        m.gpu
                            .stream()
                            .wait(done)
                            .map_err(crate::error::LoopsError::driver("ordering BFS flags"))?;
                    }
                }
                let f = m.gpu.function(
                    "loops_bfs_gather_own",
                    EXCHANGE_SOURCE,
                    "loops_bfs_gather_own",
                )?;
                let words = pad / 4;
                let args = super::loops_bfs_gather_own::args(
                    &part.mine,
                    &part.peers,
                    parts as u32,
                    (q * words) as u64,
                    words as u64,
                );
                m.gpu
                    .launch_function("loops_bfs_gather_own", &f, dims(&m.gpu, words), args)?;
            }
            return Ok(());
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

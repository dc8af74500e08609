//! Breadth-first search over the GPUs of a [`GpuGroup`]: each part owns the vertices of its rows
//! (split by edges, like a matrix by atoms), keeps a copy of every vertex's level, and runs the
//! user's push step (a `#[load_balanced]` kernel over `g.tiles_in(frontier)`, the same one a single
//! GPU runs) on the frontier vertices it owns. Per level, the flags of the vertices each part
//! reached are combined over the parts (NCCL's max all-reduce, or on one device a max and copies),
//! every part gives the reached vertices their level in its copy, and each keeps the ones it owns
//! as its next frontier. The host reads one count per part per level, with the sum over every
//! part (an NCCL all-reduce beside the flags'), which ends the search in every process at once.

use super::{dims, distributed, join, GpuGroup, RowPartition, EXCHANGE_SOURCE};
use crate::device::{DeviceBuffer, Gpu};
use crate::error::{LoopsError, Result};
use crate::formats::DeviceOffsets;
use crate::graph::{Graph, UNREACHED};

/// A graph split over a [`GpuGroup`] by its vertices' out-edges.
pub struct DistGraph {
    partition: RowPartition,
    vertices: usize,
    /// This process's parts.
    parts: Vec<GraphPart>,
    group: usize,
}

impl DistGraph {
    /// The vertex ranges of the parts.
    pub fn partition(&self) -> &RowPartition {
        &self.partition
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
    /// The part's next frontier's length, then the sum of every part's.
    count: DeviceBuffer<u32>,
}

/// What a distributed BFS did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DistBfsStats {
    /// Levels run (frontiers expanded).
    pub levels: u32,
    /// Bytes each part sent and received combining the flags, summed over parts and levels (the
    /// all-reduce's ring traffic: `2 (parts - 1) / parts` of the flags per part per level).
    pub exchanged_bytes: u64,
}

/// A push step's launch wrapper: `(gpu, g, adj, frontier, levels, next)`, the signature of
/// `bfs(g: Offsets, adj: &[u32], frontier: &[u32], levels: &mut [u32], next: &mut [u32])`.
pub trait PushStep:
    Fn(
    &Gpu,
    &DeviceOffsets,
    &DeviceBuffer<u32>,
    &DeviceBuffer<u32>,
    &mut DeviceBuffer<u32>,
    &mut DeviceBuffer<u32>,
) -> Result<()>
{
}

impl<F> PushStep for F where
    F: Fn(
        &Gpu,
        &DeviceOffsets,
        &DeviceBuffer<u32>,
        &DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
    ) -> Result<()>
{
}

impl GpuGroup {
    /// Splits `g` over the group by out-edges and uploads each part's vertices and edges.
    pub fn upload_graph(&self, g: &Graph) -> Result<DistGraph> {
        let n = g.vertices();
        if n > u32::MAX as usize - 1 {
            return Err(distributed(format!("{n} vertices do not fit u32 ids")));
        }
        let partition = RowPartition::by_edges(g.offsets(), self.parts());
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
                let gpu = &m.gpu;
                Ok(GraphPart {
                    offsets: gpu.upload_offsets(&offsets)?,
                    adj: gpu.upload(&g.adj()[first..last])?,
                    levels: gpu.zeros(n)?,
                    flags: gpu.zeros(n)?,
                    frontier: gpu.zeros(own.len().max(1))?,
                    count: gpu.zeros(2)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(DistGraph {
            partition,
            vertices: n,
            parts,
            group: self.id(),
        })
    }

    /// BFS levels from `source` (`UNREACHED` where none), with `step` run on each part's frontier.
    pub fn bfs<K: PushStep>(
        &self,
        g: &mut DistGraph,
        source: u32,
        step: K,
    ) -> Result<(Vec<u32>, DistBfsStats)> {
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
        let mut lens = vec![0usize; self.members.len()];
        let mut total = 1;
        for ((p, m), part) in self.local_parts().zip(&self.members).zip(&mut g.parts) {
            m.gpu.fill(&mut part.levels, UNREACHED)?;
            m.gpu.write_at(&mut part.levels, source as usize, &[0])?;
            m.gpu.fill(&mut part.flags, 0)?;
            if p == owner {
                m.gpu.write_at(&mut part.frontier, 0, &[source])?;
                lens[p - self.first] = 1;
            }
        }
        let mut stats = DistBfsStats::default();
        let ring = 2 * (self.parts() as u64 - 1) * (n as u64 * 4) / self.parts() as u64;
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
            for ((m, part), &len) in self.members.iter().zip(&mut g.parts).zip(&lens) {
                if len > 0 {
                    part.frontier.set_len(len);
                    step(
                        &m.gpu,
                        &part.offsets,
                        &part.adj,
                        &part.frontier,
                        &mut part.levels,
                        &mut part.flags,
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
            self.combine_flags(g)?;
            if trace {
                wait_all(&self.members)?;
                marks.push(began.elapsed());
            }
            let reached = stats.levels + 1;
            for ((p, m), part) in self.local_parts().zip(&self.members).zip(&mut g.parts) {
                join(&m.gpu, &m.exchange)?;
                m.gpu.fill(&mut part.count, 0)?;
                let capacity = part.frontier.capacity();
                part.frontier.set_len(capacity);
                let own = g.partition.range(p);
                let f = m
                    .gpu
                    .function("loops_bfs_settle", EXCHANGE_SOURCE, "loops_bfs_settle")?;
                let args = super::loops_bfs_settle::args(
                    &part.flags,
                    &part.levels,
                    reached,
                    n as u64,
                    own.start as u64,
                    own.end as u64,
                    &part.frontier,
                    &part.count,
                );
                m.gpu
                    .launch_function("loops_bfs_settle", &f, dims(&m.gpu, n), args)?;
            }
            let lens_before = if trace { lens.clone() } else { Vec::new() };
            let frontier: usize = lens_before.iter().sum();
            total = self.count_frontiers(g, &mut lens)?;
            if trace {
                let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
                let done = ms(began.elapsed());
                let [launched, stepped, combined] = [ms(marks[0]), ms(marks[1]), ms(marks[2])];
                eprintln!(
                    "multi bfs level {}: frontier {frontier} (this process's parts {lens_then:?}), \
                     steps launched in {launched:.3} ms and done at {stepped:.3} (each part's \
                     {parts_done:.3?}), flags combined at {combined:.3}, settled and counted at \
                     {done:.3}",
                    stats.levels + 1,
                    lens_then = lens_before,
                );
            }
            stats.levels += 1;
            stats.exchanged_bytes += ring;
        }
        let levels = self.members[0].gpu.download(&g.parts[0].levels)?;
        Ok((levels, stats))
    }

    /// Each part's levels copy, for checking that the parts agree.
    pub fn bfs_copies(&self, g: &DistGraph) -> Result<Vec<Vec<u32>>> {
        self.members
            .iter()
            .zip(&g.parts)
            .map(|(m, p)| m.gpu.download(&p.levels))
            .collect()
    }

    /// Each local part's next frontier length into `lens`; returns the sum over every part.
    fn count_frontiers(&self, g: &mut DistGraph, lens: &mut [usize]) -> Result<usize> {
        if let super::Transport::Nccl(comms) = &self.transport {
            use cudarc::nccl::result as nccl;
            use cudarc::nccl::sys::{ncclDataType_t::ncclUint32, ncclRedOp_t::ncclSum};
            let fail = |e| distributed(format!("NCCL all-reduce of BFS frontier sizes: {e:?}"));
            nccl::group_start().map_err(fail)?;
            let mut outcome = Ok(());
            for ((m, part), comm) in self.members.iter().zip(&g.parts).zip(comms) {
                let ptr = part.count.device_ptr();
                let s = m.gpu.stream().cu_stream() as _;
                if let Err(e) = unsafe {
                    nccl::all_reduce(ptr as _, (ptr + 4) as _, 1, ncclUint32, ncclSum, comm.0, s)
                } {
                    outcome = Err(fail(e));
                }
            }
            nccl::group_end().map_err(fail)?;
            outcome?;
        }
        let mut total = 0;
        for (len, (m, part)) in lens.iter_mut().zip(self.members.iter().zip(&g.parts)) {
            let count = m.gpu.download(&part.count)?;
            *len = count[0] as usize;
            total += count[0] as usize;
            if self.uses_nccl() {
                total = count[1] as usize;
            }
        }
        Ok(total)
    }

    /// Every part's flags become the maximum over the parts.
    fn combine_flags(&self, g: &mut DistGraph) -> Result<()> {
        let n = g.vertices;
        match &self.transport {
            super::Transport::OneDevice => {
                let x = &self.members[0].exchange;
                for m in &self.members {
                    join(x, &m.gpu)?;
                }
                let f = x.function("loops_max_into_u32", EXCHANGE_SOURCE, "loops_max_into_u32")?;
                let (first, rest) = g.parts.split_at_mut(1);
                for part in rest.iter() {
                    let args =
                        super::loops_max_into_u32::args(&first[0].flags, &part.flags, n as u64);
                    x.launch_function("loops_max_into_u32", &f, dims(x, n), args)?;
                }
                for part in rest.iter() {
                    unsafe {
                        cudarc::driver::result::memcpy_dtod_async(
                            part.flags.device_ptr(),
                            first[0].flags.device_ptr(),
                            n * 4,
                            x.stream().cu_stream(),
                        )
                    }
                    .map_err(LoopsError::driver("copying BFS flags between parts"))?;
                }
                for m in &self.members {
                    join(&m.exchange, x)?;
                }
                Ok(())
            }
            super::Transport::Nccl(comms) => {
                use cudarc::nccl::result as nccl;
                use cudarc::nccl::sys::{ncclDataType_t::ncclUint32, ncclRedOp_t::ncclMax};
                let fail = |e| distributed(format!("NCCL all-reduce of BFS flags: {e:?}"));
                for m in &self.members {
                    join(&m.exchange, &m.gpu)?;
                }
                nccl::group_start().map_err(fail)?;
                let mut outcome = Ok(());
                for ((m, part), comm) in self.members.iter().zip(&g.parts).zip(comms) {
                    let ptr = part.flags.device_ptr();
                    let s = m.exchange.stream().cu_stream() as _;
                    if let Err(e) = unsafe {
                        nccl::all_reduce(ptr as _, ptr as _, n, ncclUint32, ncclMax, comm.0, s)
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

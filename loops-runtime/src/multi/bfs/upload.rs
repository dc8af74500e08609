//! A graph split over the group: [`GpuGroup::upload_graph`], [`GpuGroup::upload_graph_rows`].

use super::{Counts, DistGraph, GraphPart, GraphRows, DEFAULT_LEVELS_PER_CHECK, SLOT_WORDS};
use crate::device::DeviceBuffer;
use crate::error::{LoopsError, Result};
use crate::graph::Graph;
use crate::multi::{distributed, GpuGroup, RowPartition};

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
}

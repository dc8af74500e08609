//! The search: [`GpuGroup::bfs`], its batches of levels queued with the frontier sizes on the
//! device, and the reads of those sizes.

use super::exchange::source_degree;
use super::{
    batch_outcome, levels_before_check, DistBfsStats, DistGraph, Frontier, GraphPart, PushStep,
    MAX_LEVELS_PER_CHECK, SLOT_WORDS,
};
use crate::device::DeviceList;
use crate::error::{LoopsError, Result};
use crate::graph::UNREACHED;
use crate::multi::{distributed, DistDense, GpuGroup};

impl GpuGroup {
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
        if g.peer {
            // The first level's sends write into other parts' `incoming`: after their reset.
            self.order_parts(g)?;
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
        let wait_all = |members: &[crate::multi::Member]| -> Result<()> {
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
                    part.push(&step, &m.gpu, here, false)?;
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
                match part.push(step, &gpu, here, true) {
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
            self.all_reduce_counts(g, words, "a BFS batch's sizes", |part| {
                (part.slots.device_ptr(), part.summed.device_ptr())
            })?;
        }
        // Every part's copies queued, then each waited for.
        self.queue_count_reads(g, words, "reading a BFS batch's frontier sizes", |part| {
            let mut copies = vec![(false, part.slots.device_ptr())];
            if across_processes {
                copies.push((true, part.summed.device_ptr()));
            }
            copies
        })?;
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
            self.all_reduce_counts(g, 1, "BFS frontier sizes", |part| {
                let ptr = part.count.device_ptr();
                (ptr, ptr + 8)
            })?;
        }
        // Every part's copy queued, then each waited for: the parts' waits overlap. The part's
        // count buffer: its length, its largest out-degree, the sum over every part.
        self.queue_count_reads(g, 3, "reading a part's BFS frontier size", |part| {
            vec![(false, part.count.device_ptr())]
        })?;
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

    /// In a group of processes: `words` `u32`s from the first address `at(part)` gives, summed over
    /// every part of the group into the second (one NCCL all-reduce, on each local part's
    /// stream). `what` names the counts in errors.
    fn all_reduce_counts(
        &self,
        g: &DistGraph,
        words: usize,
        what: &str,
        at: impl Fn(&GraphPart) -> (u64, u64),
    ) -> Result<()> {
        let crate::multi::Transport::Nccl(comms) = &self.transport else {
            unreachable!("a group of processes exchanges through NCCL");
        };
        use cudarc::nccl::result as nccl;
        use cudarc::nccl::sys::{ncclDataType_t::ncclUint32, ncclRedOp_t::ncclSum};
        let fail = |e| distributed(format!("NCCL all-reduce of {what}: {e:?}"));
        nccl::group_start().map_err(fail)?;
        let mut outcome = Ok(());
        for ((m, part), comm) in self.members.iter().zip(&g.parts).zip(comms) {
            let (send, recv) = at(part);
            let s = m.gpu.stream().cu_stream() as _;
            if let Err(e) = unsafe {
                nccl::all_reduce(send as _, recv as _, words, ncclUint32, ncclSum, comm.0, s)
            } {
                outcome = Err(fail(e));
            }
        }
        nccl::group_end().map_err(fail)?;
        outcome
    }

    /// Queues on each local part's stream the read-backs `copies(part)` lists: `words` `u32`s
    /// from each device address into the part's page-locked words (`true`: its sums' words, see
    /// [`Counts`](super::Counts)), without waiting; the caller waits for each part's stream
    /// before it reads them. `what` names the read in errors.
    fn queue_count_reads(
        &self,
        g: &DistGraph,
        words: usize,
        what: &str,
        copies: impl Fn(&GraphPart) -> Vec<(bool, u64)>,
    ) -> Result<()> {
        assert!(words <= SLOT_WORDS);
        for (i, (m, part)) in self.members.iter().zip(&g.parts).enumerate() {
            let stream = m.gpu.stream();
            stream
                .context()
                .bind_to_thread()
                .map_err(LoopsError::driver(what))?;
            for (sums, device) in copies(part) {
                // SAFETY: `words` (at most SLOT_WORDS) words of one of the part's live device
                // buffers into its page-locked words (SLOT_WORDS of them), ordered on the stream
                // that wrote them and waited for by the caller before it reads them.
                unsafe {
                    cudarc::driver::sys::cuMemcpyDtoHAsync_v2(
                        g.counts.at(i, sums).cast(),
                        device,
                        4 * words,
                        stream.cu_stream(),
                    )
                }
                .result()
                .map_err(LoopsError::driver(what))?;
            }
        }
        Ok(())
    }
}

//! Matrices and vectors split over a group: [`DistCsr`] (uploaded by rows, with the send lists of
//! the exchange) and [`DistDense`], scattered and gathered.

use std::ops::Range;

use sprs::CsMat;

use super::{
    distributed, local_index, partition, GpuGroup, Member, PartBlocks, RowPartition, Transport,
};
use crate::device::DeviceBuffer;
use crate::element::{Element, Float};
use crate::error::Result;
use crate::formats::DeviceCsr;
use crate::host::Csr32;

impl GpuGroup {
    /// Splits `a` (square) over the group by atoms and uploads each part's blocks. In a group of
    /// processes every process passes the same matrix and uploads only its own parts.
    pub fn upload_csr<T: Float>(&self, a: &CsMat<T>) -> Result<DistCsr<T>> {
        if a.rows() != a.cols() {
            return Err(distributed(format!(
                "a distributed matrix must be square (rows own the x entries of the same \
                 numbers); this one is {} x {}",
                a.rows(),
                a.cols()
            )));
        }
        let host = Csr32::from_sprs(a)?;
        let partition = RowPartition::by_atoms(&host.offsets, self.parts());
        let split = partition.clone();
        self.upload_rows(a.rows(), partition, |p, _| {
            Ok(partition::blocks(&host, &split, p))
        })
    }

    /// An `n × n` matrix whose rows `partition` splits, each part's blocks made by `part(p, rows)`
    /// for this process's parts only (e.g. with [`PartBlocks::of_rows`] from rows generated or
    /// read where they are needed): in a group of processes, one part each, no process holds the
    /// whole matrix, so it may be larger than any one GPU or host. A process with several parts
    /// holds their blocks on the host until all of them are made, then uploads them (the whole
    /// matrix, for a group of one process). Which part sends which `x` rows to which is settled
    /// here, through NCCL where parts live in other processes. Blocks that do not fit the
    /// partition are an error before anything is uploaded or exchanged.
    pub fn upload_rows<T: Float>(
        &self,
        n: usize,
        partition: RowPartition,
        part: impl Fn(usize, Range<usize>) -> Result<PartBlocks<T>>,
    ) -> Result<DistCsr<T>> {
        if partition.parts() != self.parts() || partition.starts().last() != Some(&n) {
            return Err(distributed(format!(
                "a partition of {} parts over {:?} rows for a group of {} parts and {n} rows",
                partition.parts(),
                partition.starts().last(),
                self.parts()
            )));
        }
        let _one_at_a_time = self.lock();
        let blocks = self
            .local_parts()
            .map(|p| {
                let b = part(p, partition.range(p))?;
                // The ghosts: ascending, each run of `ghosts_from` owned by its part, the runs
                // covering them in order (what the send lists and the exchange rely on).
                let mut at = 0;
                let runs_fit = b.ghosts.windows(2).all(|w| w[0] < w[1])
                    && b.ghosts_from.iter().enumerate().all(|(q, r)| {
                        let ok = r.start == at
                            && r.end <= b.ghosts.len()
                            && (q != p || r.is_empty())
                            && b.ghosts[r.clone()]
                                .iter()
                                .all(|&g| partition.range(q).contains(&(g as usize)));
                        at = r.end;
                        ok
                    })
                    && at == b.ghosts.len();
                let fits = b.rows == partition.range(p)
                    && b.ghosts_from.len() == self.parts()
                    && b.local.rows == b.rows.len()
                    && b.local.cols == b.rows.len()
                    && b.remote.rows == b.rows.len()
                    && b.remote.cols == b.ghosts.len()
                    && b.local.offsets.len() == b.rows.len() + 1
                    && b.remote.offsets.len() == b.rows.len() + 1
                    && b.remote.offsets[0] == 0
                    && runs_fit;
                if !fits {
                    return Err(distributed(format!(
                        "part {p}'s blocks do not match its rows {:?} of the partition",
                        partition.range(p)
                    )));
                }
                Ok(b)
            })
            .collect::<Result<Vec<_>>>()?;
        // reads[p][q]: the ghost rows part p reads from part q, for every part of the group.
        let reads = self.all_read_counts(&blocks)?;
        let pad = (0..self.parts())
            .map(|p| partition.range(p).len())
            .max()
            .unwrap_or(0);
        if self.parts() as u64 * pad as u64 > u32::MAX as u64 {
            return Err(distributed(format!(
                "{} parts of up to {pad} rows: the all-gather's slots pass u32 row numbers",
                self.parts()
            )));
        }
        let sends = self.send_lists(&partition, &blocks, &reads)?;
        let parts = blocks
            .iter()
            .zip(sends)
            .zip(&self.members)
            .map(|((b, (send_idx, send_to)), m)| {
                let gpu = &m.gpu;
                // What only the exchange reads lives on the exchange stream (a buffer of another
                // stream would order the exchange after the local product, see `Member`).
                let ex = &m.exchange;
                // Where each ghost sits in the all-gathered rows: its owner's slot, then its row.
                let ghost_src: Vec<u32> = b
                    .ghosts
                    .iter()
                    .map(|&g| {
                        let q = partition.owner(g as usize);
                        (q * pad + g as usize - partition.range(q).start) as u32
                    })
                    .collect();
                let upload = |b: &partition::Block<T>, offsets: &[u64]| {
                    let rows = offsets.len() - 1;
                    gpu.upload_csr_parts(rows, b.cols, offsets, &b.indices, &b.values)
                };
                // The remote block keeps only the rows that read another part, when that is at
                // most half of them (a banded matrix: the rows near the part's edges).
                let reading: Vec<u32> = (0..b.remote.rows)
                    .filter(|&r| b.remote.offsets[r + 1] > b.remote.offsets[r])
                    .map(|r| r as u32)
                    .collect();
                let compact = 2 * reading.len() <= b.remote.rows;
                let remote_offsets: Vec<u64> = match compact {
                    true => std::iter::once(0)
                        .chain(reading.iter().map(|&r| b.remote.offsets[r as usize + 1]))
                        .collect(),
                    false => Vec::new(),
                };
                Ok(DevicePart {
                    rows: b.rows.clone(),
                    local: upload(&b.local, &b.local.offsets)?,
                    remote: match (b.ghosts.len(), compact) {
                        (0, _) => None,
                        (_, true) => Some(upload(&b.remote, &remote_offsets)?),
                        (_, false) => Some(upload(&b.remote, &b.remote.offsets)?),
                    },
                    remote_rows: gpu.upload(if compact { &reading } else { &[] })?,
                    ghosts: b.ghosts.len(),
                    ghosts_from: b.ghosts_from.clone(),
                    send_idx: ex.upload(&send_idx)?,
                    send_to,
                    ghost_src: ex.upload(&ghost_src)?,
                    scratch: None,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(DistCsr {
            partition,
            parts,
            ghost_counts: reads.iter().map(|r| r.iter().sum()).collect(),
            first: self.first,
            pad,
            group: self.id,
        })
    }

    /// `reads[p][q]`: the ghost rows part `p` reads from part `q`, for every part; gathered over
    /// NCCL when some parts live in other processes.
    fn all_read_counts<T>(&self, blocks: &[PartBlocks<T>]) -> Result<Vec<Vec<usize>>> {
        let mine: Vec<Vec<usize>> = blocks
            .iter()
            .map(|b| b.ghosts_from.iter().map(|r| r.len()).collect())
            .collect();
        if self.members.len() == self.size {
            return Ok(mine);
        }
        let Transport::Nccl(comms) = &self.transport else {
            unreachable!("a group across processes talks through NCCL");
        };
        let parts = self.size;
        let fail = |e| distributed(format!("NCCL all-gather of the parts' read counts: {e:?}"));
        let mut all = Vec::new();
        for ((m, comm), row) in self.members.iter().zip(comms).zip(&mine) {
            let counts: Vec<u64> = row.iter().map(|&c| c as u64).collect();
            let send = m.gpu.upload(&counts)?;
            let recv = m.gpu.zeros::<u64>(parts * parts)?;
            use cudarc::nccl::{result as nccl, sys::ncclDataType_t::ncclUint64};
            unsafe {
                nccl::all_gather(
                    send.device_ptr() as _,
                    recv.device_ptr() as _,
                    parts,
                    ncclUint64,
                    comm.0,
                    m.gpu.stream().cu_stream() as _,
                )
            }
            .map_err(fail)?;
            all = m.gpu.download(&recv)?;
        }
        Ok(all
            .chunks(parts)
            .map(|r| r.iter().map(|&c| c as usize).collect())
            .collect())
    }

    /// Each local part's send list (indices into its own rows, every receiver's run in turn) and
    /// the runs. A part sends `q` the run of `q`'s ghosts that it owns; where `q` is in another
    /// process, `q` sends that run over first.
    #[allow(clippy::type_complexity)]
    fn send_lists<T>(
        &self,
        partition: &RowPartition,
        blocks: &[PartBlocks<T>],
        reads: &[Vec<usize>],
    ) -> Result<Vec<(Vec<u32>, Vec<Range<usize>>)>> {
        let local = self.local_parts();
        let runs = |p: usize| {
            let mut at = 0;
            (0..self.size)
                .map(|q| {
                    let r = at..at + reads[q][p];
                    at = r.end;
                    r
                })
                .collect::<Vec<_>>()
        };
        if local.len() == self.size {
            return Ok((0..self.size)
                .map(|p| {
                    let start = partition.range(p).start as u32;
                    let idx = (0..self.size)
                        .flat_map(|q| {
                            let b = &blocks[q];
                            b.ghosts[b.ghosts_from[p].clone()]
                                .iter()
                                .map(|&g| g - start)
                        })
                        .collect();
                    (idx, runs(p))
                })
                .collect());
        }
        let Transport::Nccl(comms) = &self.transport else {
            unreachable!("a group across processes talks through NCCL");
        };
        use cudarc::nccl::{result as nccl, sys::ncclDataType_t::ncclUint32};
        let fail = |e| distributed(format!("NCCL exchange of the parts' ghost lists: {e:?}"));
        let mut ghosts = Vec::new();
        let mut received = Vec::new();
        for (b, m) in blocks.iter().zip(&self.members) {
            ghosts.push(m.gpu.upload(&b.ghosts)?);
        }
        for (i, m) in self.members.iter().enumerate() {
            let p = local.start + i;
            received.push(m.gpu.zeros::<u32>(runs(p).last().map_or(0, |r| r.end))?);
        }
        nccl::group_start().map_err(fail)?;
        let mut outcome = Ok(());
        for (i, (m, comm)) in self.members.iter().zip(comms).enumerate() {
            let p = local.start + i;
            let s = m.gpu.stream().cu_stream() as _;
            let word = 4u64;
            for (q, run) in runs(p).into_iter().enumerate() {
                if q == p {
                    continue;
                }
                let mine = &blocks[i].ghosts_from[q];
                let result = unsafe {
                    let send = (!mine.is_empty()).then(|| {
                        let src = ghosts[i].device_ptr() + mine.start as u64 * word;
                        nccl::send(src as _, mine.len(), ncclUint32, q as i32, comm.0, s)
                    });
                    let recv = (!run.is_empty()).then(|| {
                        let dst = received[i].device_ptr() + run.start as u64 * word;
                        nccl::recv(dst as _, run.len(), ncclUint32, q as i32, comm.0, s)
                    });
                    send.transpose().and(recv.transpose())
                };
                if let Err(e) = result {
                    outcome = Err(fail(e));
                }
            }
        }
        nccl::group_end().map_err(fail)?;
        outcome?;
        let mut lists = Vec::new();
        for (i, m) in self.members.iter().enumerate() {
            let p = local.start + i;
            let start = partition.range(p).start as u32;
            let mut idx = m.gpu.download(&received[i])?;
            // The part's own run (from itself) is empty: it reads its own rows locally.
            idx.iter_mut().for_each(|g| *g -= start);
            lists.push((idx, runs(p)));
        }
        Ok(lists)
    }

    /// `x` (row-major, `rows × k`, every row) split by the matrix's partition onto the parts (in
    /// a group of processes, onto this process's parts).
    pub fn scatter<T: Float>(&self, a: &DistCsr<T>, x: &[T], k: usize) -> Result<DistDense<T>> {
        self.check(a)?;
        let n = a.partition.starts().last().copied().unwrap_or(0);
        if k == 0 || x.len() != n * k {
            return Err(distributed(format!(
                "scatter: {} values for {n} rows of {k} columns",
                x.len()
            )));
        }
        let parts = self
            .local_parts()
            .zip(&self.members)
            .map(|(p, m)| {
                let r = a.partition.range(p);
                m.gpu.upload(&x[r.start * k..r.end * k])
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(DistDense {
            parts,
            k,
            first: self.first,
        })
    }

    /// Zeros shaped like the matrix's rows, `k` columns.
    pub fn zeros<T: Float>(&self, a: &DistCsr<T>, k: usize) -> Result<DistDense<T>> {
        self.check(a)?;
        let parts = self
            .local_parts()
            .zip(&self.members)
            .map(|(p, m)| m.gpu.zeros(a.partition.range(p).len() * k))
            .collect::<Result<Vec<_>>>()?;
        Ok(DistDense {
            parts,
            k,
            first: self.first,
        })
    }

    /// The parts of `v` downloaded and joined, in row order: every row, or in a group of
    /// processes the rows of this process's parts (see [`DistCsr::local_rows`]). Also a
    /// distributed BFS's levels ([`GpuGroup::bfs`]); one part alone is
    /// `group.gpu(p).download(v.part(p))`.
    pub fn gather<T: Element>(&self, v: &DistDense<T>) -> Result<Vec<T>> {
        let mut out = Vec::new();
        for (m, part) in self.members.iter().zip(&v.parts) {
            out.extend(m.gpu.download(part)?);
        }
        Ok(out)
    }

    pub(super) fn check<T>(&self, a: &DistCsr<T>) -> Result<()> {
        if a.group != self.id || a.parts.len() != self.members.len() {
            return Err(distributed(
                "the distributed matrix was uploaded by another GPU group",
            ));
        }
        Ok(())
    }
}

/// A square CSR matrix split over a [`GpuGroup`] (see the module documentation).
pub struct DistCsr<T> {
    pub(super) partition: RowPartition,
    /// This process's parts, from part `first` on.
    pub(super) parts: Vec<DevicePart<T>>,
    pub(super) first: usize,
    /// Every part's ghost rows (also the parts of other processes).
    pub(super) ghost_counts: Vec<usize>,
    /// The largest part's rows: the slot size of the all-gather.
    pub(super) pad: usize,
    /// The group it was uploaded by (its address).
    pub(super) group: usize,
}

impl<T> DistCsr<T> {
    /// The row boundaries of the parts.
    pub fn partition(&self) -> &RowPartition {
        &self.partition
    }

    /// Part `p`'s local block (its own columns) on its GPU.
    ///
    /// # Panics
    /// If part `p` lives in another process.
    pub fn local(&self, p: usize) -> &DeviceCsr<T> {
        &self.parts[local_index(self.first, self.parts.len(), p)].local
    }

    /// Part `p`'s remote block (the other parts' columns, numbered by ghost), if it reads any: one
    /// row per row of the part, or, when at most half of them read another part, only those rows.
    ///
    /// # Panics
    /// If part `p` lives in another process.
    pub fn remote(&self, p: usize) -> Option<&DeviceCsr<T>> {
        self.parts[local_index(self.first, self.parts.len(), p)]
            .remote
            .as_ref()
    }

    /// The ghost rows part `p` reads from other parts.
    pub fn ghosts(&self, p: usize) -> usize {
        self.ghost_counts[p]
    }

    /// The rows this process's parts own: what [`GpuGroup::gather`] returns.
    pub fn local_rows(&self) -> Range<usize> {
        let start = self.parts.first().map_or(0, |b| b.rows.start);
        start..self.parts.last().map_or(0, |b| b.rows.end)
    }
}

pub(super) struct DevicePart<T> {
    pub(super) rows: Range<usize>,
    pub(super) local: DeviceCsr<T>,
    /// `None` when the part reads no other part's rows.
    pub(super) remote: Option<DeviceCsr<T>>,
    /// The rows of `remote`, when it keeps only those that read another part (else empty: all).
    pub(super) remote_rows: DeviceBuffer<u32>,
    pub(super) ghosts: usize,
    /// For each part, the run of the ghost rows that part sends here.
    pub(super) ghosts_from: Vec<Range<usize>>,
    /// What this part sends, every receiver's run in turn (indices into its own rows).
    pub(super) send_idx: DeviceBuffer<u32>,
    pub(super) send_to: Vec<Range<usize>>,
    /// Each ghost's row in the all-gathered rows.
    pub(super) ghost_src: DeviceBuffer<u32>,
    pub(super) scratch: Option<Scratch<T>>,
}

/// A part's buffers for products with `k` columns.
pub(super) struct Scratch<T> {
    pub(super) k: usize,
    pub(super) send: DeviceBuffer<T>,
    pub(super) ghost_x: DeviceBuffer<T>,
    pub(super) partial: DeviceBuffer<T>,
    /// The all-gather's rows (allocated on its first use, `gathered_len` of them).
    pub(super) gathered: DeviceBuffer<T>,
    pub(super) gathered_len: usize,
}

impl<T: Float> DevicePart<T> {
    pub(super) fn ensure_scratch(
        &mut self,
        m: &Member,
        k: usize,
        pad: usize,
        parts: usize,
    ) -> Result<()> {
        if self.scratch.as_ref().is_some_and(|s| s.k == k) {
            return Ok(());
        }
        let ex = &m.exchange;
        self.scratch = Some(Scratch {
            k,
            send: ex.zeros(self.send_idx.len() * k)?,
            ghost_x: ex.zeros(self.ghosts * k)?,
            partial: m
                .gpu
                .zeros(self.remote.as_ref().map_or(0, |r| r.rows()) * k)?,
            gathered: DeviceBuffer::empty(),
            gathered_len: if self.ghosts > 0 { pad * parts * k } else { 0 },
        });
        Ok(())
    }

    pub(super) fn scratch_ref(&self) -> &Scratch<T> {
        self.scratch.as_ref().expect("made by product")
    }
}

/// Row-major dense rows split like a [`DistCsr`]'s rows: `x`, `y` of SpMV (`k == 1`), `B`, `C` of
/// SpMM; or a value per vertex split like a [`DistGraph`](crate::multi::DistGraph)'s vertices (a
/// BFS's levels).
pub struct DistDense<T> {
    /// This process's parts, from part `first` on.
    pub(super) parts: Vec<DeviceBuffer<T>>,
    pub(super) k: usize,
    pub(super) first: usize,
}

impl<T> DistDense<T> {
    pub(crate) fn new(parts: Vec<DeviceBuffer<T>>, k: usize, first: usize) -> Self {
        DistDense { parts, k, first }
    }

    /// Part `p`'s rows.
    ///
    /// # Panics
    /// If part `p` lives in another process.
    pub fn part(&self, p: usize) -> &DeviceBuffer<T> {
        &self.parts[local_index(self.first, self.parts.len(), p)]
    }

    /// Part `p`'s rows, to write (e.g. to fill them before a product).
    ///
    /// # Panics
    /// If part `p` lives in another process.
    pub fn part_mut(&mut self, p: usize) -> &mut DeviceBuffer<T> {
        let i = local_index(self.first, self.parts.len(), p);
        &mut self.parts[i]
    }

    /// The columns.
    pub fn k(&self) -> usize {
        self.k
    }
}

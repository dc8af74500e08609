//! Past one GPU: a square CSR matrix split over the GPUs of one host by rows, balanced by atoms,
//! and products with it that run any `#[load_balanced]` kernel on each GPU's share.
//!
//! Each part keeps a *local block* (the columns it owns) and a *remote block* (the others,
//! renumbered to a compact ghost range; see `partition`). A product `Y = A X` (SpMV, or SpMM
//! with `k` columns) then runs, per part:
//! 1. the local block's product on the part's own stream, at once;
//! 2. meanwhile, on an exchange stream, the `x` rows other parts read are gathered and sent, and
//!    the ghost rows this part reads are received: grouped NCCL send/recv
//!    ([`Exchange::PointToPoint`], only what is read moves), or an all-gather of every part's
//!    rows ([`Exchange::AllGather`], the simple path, for comparison);
//! 3. the remote block's product into scratch, added to `Y`.
//!
//! A group on one device ([`GpuGroup::on_one_gpu`]) runs the same plan with device-to-device
//! copies in place of NCCL: one part is a plain product, several parts on one GPU test the
//! partition and the exchange where no second GPU is at hand. A group over several devices
//! ([`GpuGroup::new`]) uses NCCL (libnccl is loaded at run time, like the rest of CUDA; NVLink
//! multicast is turned off, see [`GpuGroup::new`]).
//!
//! A group may also span processes, one GPU each, on one host or several
//! ([`GpuGroup::join`], [`GpuGroup::from_env`]): each process then holds its own part of every
//! distributed matrix and vector, and the parts meet only through NCCL. The ranks find each other
//! through `bootstrap` (rank 0's address or a shared file). Part numbers are global: a
//! process's parts are [`GpuGroup::local_parts`].

pub(crate) mod bfs;
pub(crate) mod bootstrap;
pub(crate) mod partition;
pub mod synthetic;

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use cudarc::driver::CudaStream;
use kernels_gen::schedule::LaunchDims;
use sprs::CsMat;

pub use bfs::{
    batch_outcome, levels_before_check, ByDegree, DistBfsStats, DistGraph, Frontier, GraphRows,
    PushStep, DEFAULT_LEVELS_PER_CHECK, HOST_LEVELS, HUB_DEGREE, MAX_LEVELS_PER_CHECK,
};
pub use bootstrap::{Bootstrap, Rank};
pub use partition::{Block, PartBlocks, RowPartition};

use crate::device::{DeviceBuffer, Gpu};
use crate::element::{Element, Float};
use crate::error::{LoopsError, Result};
use crate::formats::DeviceCsr;
use crate::host::Csr32;
use crate::launch::entry::{entries, Ptr};

/// A product kernel's launch wrapper run on one block: `(gpu, block, x rows, y rows)`.
type BlockProduct<'a, T> =
    dyn Fn(&Gpu, &DeviceCsr<T>, &DeviceBuffer<T>, &mut DeviceBuffer<T>) -> Result<()> + 'a;

/// The gather and add kernels of the exchange.
pub const EXCHANGE_SOURCE: &str = include_str!("exchange.cuh");

entries! {
    source: EXCHANGE_SOURCE;
    undeclared: [];
    /// `out[i * k + j] = x[idx[i] * k + j]`, by 4-byte (`_4`) or 8-byte (`_8`) words.
    fn gather_rows<W: Element [u32, u64]> = "loops_gather_rows_*" (
        out: *mut W, x: *const W, idx: *const u32, count: u64, k: u32,
    );
    /// `y += part`.
    fn add_into<T: Float [f32, f64]> = "loops_add_into_*" (y: *mut T, part: *const T, n: u64);
    /// One part's BFS level settled: its flagged vertices take the level and form its frontier.
    fn loops_bfs_settle(
        flags: *mut u32, levels: *mut u32, reached: u32, n: u64, degrees: *const u32,
        frontier: *mut u32, count: *mut u32,
    );
    /// A part's BFS flags packed into a byte a vertex, a slot per owner, for the reduce-scatter.
    fn loops_bfs_pack(flags: *mut u32, packed: *mut u32, starts: *const u64, parts: u32, pad: u64);
    /// `dst |= src`: the one-device stand-in for NCCL's max reduce-scatter of packed flags.
    fn loops_or_into_u32(dst: *mut u32, src: *const u32, words: u64);
    /// A part's BFS flags sent to their owners' `incoming` bytes over NVLink (the frontier's
    /// out-edges walked where few, else every flag scanned), and cleared.
    fn loops_bfs_forward(
        flags: *mut u32, n: u64, frontier: *const u32, count: *const u32, offsets: *const i32,
        wide_offsets: *const i64, adj: *const u32, incoming: *const u64, starts: *const u64,
        parts: u32, walk_limit: u64,
    );
    /// A part's `incoming` bytes settled into levels and its next frontier, and cleared.
    fn loops_bfs_settle_incoming(
        incoming: *mut u32, levels: *mut u32, reached: u32, own_start: u64, own_len: u64,
        degrees: *const u32, frontier: *mut u32, count: *mut u32,
    );
    /// A BFS level's combined flags of a part's own vertices settled into levels and its frontier.
    fn loops_bfs_settle_own(
        mine: *const u32, levels: *mut u32, reached: u32, own_start: u64, own_len: u64,
        degrees: *const u32, frontier: *mut u32, count: *mut u32,
    );
    /// `y[rows[i] * k + j] += part[i * k + j]`.
    fn add_rows<T: Float [f32, f64]> = "loops_add_rows_*" (
        y: *mut T, part: *const T, rows: *const u32, count: u64, k: u32,
    );
}

/// How the `x` rows a part reads but does not own reach it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Exchange {
    /// Each part sends each other part exactly the rows that part's remote block reads (grouped
    /// NCCL send/recv).
    #[default]
    PointToPoint,
    /// Every part that reads other parts' rows receives all of them (an all-gather, made of
    /// grouped send/recv because parts differ in size; each lands in a slot padded to the largest
    /// part), then picks its ghosts out: more bytes, no send lists.
    AllGather,
}

/// The GPUs a distributed matrix lives on, and how their parts exchange rows of `x`.
pub struct GpuGroup {
    /// This process's parts: `first..first + members.len()` of `size`.
    members: Vec<Member>,
    first: usize,
    size: usize,
    transport: Transport,
    /// Tells this group's matrices from another's.
    id: usize,
    /// Held across each collective section (an upload's settling, a product, an exchange, a
    /// BFS): NCCL calls on one communicator must not interleave between threads.
    collective: std::sync::Mutex<()>,
}

/// Group ids (an address would change when a group is moved).
static NEXT_GROUP: AtomicUsize = AtomicUsize::new(1);

struct Member {
    /// The part's products run here.
    gpu: Gpu,
    /// The part's exchange (gathers, NCCL calls) runs here, beside the local product, on a
    /// stream of the highest priority: its blocks take SMs as the local product's blocks retire
    /// instead of waiting for the whole product.
    exchange: Gpu,
}

enum Transport {
    /// Every part on one device: the exchange is device-to-device copies.
    OneDevice,
    /// One part per device, a communicator per local part.
    Nccl(Vec<NcclComm>),
}

/// A communicator of `ncclCommInitAll` or `ncclCommInitRank`, destroyed on drop.
struct NcclComm(cudarc::nccl::sys::ncclComm_t);

// An NCCL communicator may be used from any thread, one call at a time; `GpuGroup` makes its
// calls inside sections that hold its `collective` lock, one thread at a time per group.
unsafe impl Send for NcclComm {}
unsafe impl Sync for NcclComm {}

impl Drop for NcclComm {
    fn drop(&mut self) {
        // Nothing to report to: a failed destroy leaves the communicator to process exit.
        let _ = unsafe { cudarc::nccl::result::comm_destroy(self.0) };
    }
}

/// libnccl is loaded, and NVLink multicast (NVLS) is off unless `NCCL_NVLS_ENABLE` is already
/// set: on shared hosts a program using it can take the GPUs out of service.
fn nccl_ready() -> Result<()> {
    if !unsafe { cudarc::nccl::sys::is_culib_present() } {
        return Err(distributed(
            "libnccl could not be loaded (install NCCL, e.g. the nvidia-nccl-cu13 wheel, and \
             put its lib folder on LD_LIBRARY_PATH)",
        ));
    }
    if std::env::var_os("NCCL_NVLS_ENABLE").is_none() {
        std::env::set_var("NCCL_NVLS_ENABLE", "0");
    }
    Ok(())
}

fn distributed(detail: impl Into<String>) -> LoopsError {
    LoopsError::Distributed {
        detail: detail.into(),
    }
}

impl GpuGroup {
    /// One part per listed device (distinct ordinals), exchanging through NCCL when there are
    /// several. NVLink multicast (NVLS) is turned off unless `NCCL_NVLS_ENABLE` is already set:
    /// on shared hosts a program using it can take the GPUs out of service.
    pub fn new(ordinals: &[usize]) -> Result<GpuGroup> {
        Self::with_transport(ordinals, false)
    }

    /// [`GpuGroup::new`], with NCCL even for one device: a one-GPU machine runs NCCL's calls (a
    /// one-rank communicator: the reduce-scatter of BFS runs, no send has a peer) and so checks that
    /// libnccl loads and works there.
    pub fn new_nccl(ordinals: &[usize]) -> Result<GpuGroup> {
        Self::with_transport(ordinals, true)
    }

    fn with_transport(ordinals: &[usize], nccl_always: bool) -> Result<GpuGroup> {
        if ordinals.is_empty() {
            return Err(distributed("a GPU group needs at least one device"));
        }
        let mut seen = ordinals.to_vec();
        seen.sort_unstable();
        seen.dedup();
        if seen.len() != ordinals.len() {
            return Err(distributed(format!(
                "devices {ordinals:?} name one device twice: NCCL takes one part per device \
                 (use GpuGroup::on_one_gpu for several parts on one device)"
            )));
        }
        let members = ordinals
            .iter()
            .map(|&o| {
                let gpu = Gpu::new(o)?;
                let exchange = gpu.fork_urgent()?;
                Ok(Member { gpu, exchange })
            })
            .collect::<Result<Vec<_>>>()?;
        if members.len() == 1 && !nccl_always {
            return Ok(GpuGroup::local(members, Transport::OneDevice));
        }
        nccl_ready()?;
        let devices: Vec<i32> = ordinals.iter().map(|&o| o as i32).collect();
        let mut raw = vec![std::ptr::null_mut(); devices.len()];
        unsafe {
            cudarc::nccl::result::comm_init_all(
                raw.as_mut_ptr(),
                devices.len() as i32,
                devices.as_ptr(),
            )
        }
        .map_err(|e| distributed(format!("ncclCommInitAll over devices {ordinals:?}: {e:?}")))?;
        Ok(GpuGroup::local(
            members,
            Transport::Nccl(raw.into_iter().map(NcclComm).collect()),
        ))
    }

    /// Every part in this process.
    fn local(members: Vec<Member>, transport: Transport) -> GpuGroup {
        GpuGroup {
            first: 0,
            size: members.len(),
            members,
            transport,
            id: NEXT_GROUP.fetch_add(1, Ordering::Relaxed),
            collective: std::sync::Mutex::new(()),
        }
    }

    /// This process's part of a group of processes, one GPU each (on one host or several): rank
    /// 0 makes NCCL's id and hands it to the others through `rank.bootstrap`, then every rank
    /// joins one communicator. Every process must call this (NCCL waits for all ranks), then
    /// make the same calls in the same order: uploads and products are collective.
    pub fn join(rank: &Rank) -> Result<GpuGroup> {
        let gpu = Gpu::new(rank.device)?;
        let exchange = gpu.fork_urgent()?;
        nccl_ready()?;
        let id = rank.unique_id(|| {
            cudarc::nccl::result::get_uniqueid()
                .map_err(|e| distributed(format!("ncclGetUniqueId: {e:?}")))
        })?;
        gpu.stream()
            .context()
            .bind_to_thread()
            .map_err(LoopsError::driver("making the group's device current"))?;
        let mut comm = std::ptr::null_mut();
        unsafe {
            cudarc::nccl::result::comm_init_rank(&mut comm, rank.size as i32, id, rank.rank as i32)
        }
        .map_err(|e| {
            distributed(format!(
                "ncclCommInitRank (rank {} of {} on device {}): {e:?}",
                rank.rank, rank.size, rank.device
            ))
        })?;
        rank.joined();
        Ok(GpuGroup {
            members: vec![Member { gpu, exchange }],
            first: rank.rank,
            size: rank.size,
            transport: Transport::Nccl(vec![NcclComm(comm)]),
            id: NEXT_GROUP.fetch_add(1, Ordering::Relaxed),
            collective: std::sync::Mutex::new(()),
        })
    }

    /// [`GpuGroup::join`] with this process's place read from the environment (`LOOPS_RANK`,
    /// `LOOPS_WORLD_SIZE`, `LOOPS_BOOTSTRAP`, optionally `LOOPS_DEVICE`; see `bootstrap`).
    pub fn from_env() -> Result<GpuGroup> {
        GpuGroup::join(&Rank::from_env(Gpu::count()?)?)
    }

    /// Every device of the host, one part each.
    pub fn all() -> Result<GpuGroup> {
        let n = Gpu::count()?;
        GpuGroup::new(&(0..n).collect::<Vec<_>>())
    }

    /// `parts` parts on `gpu`'s device, each with its own streams, exchanging by device-to-device
    /// copies: the distributed plan without NCCL (one part: a plain product).
    pub fn on_one_gpu(gpu: &Gpu, parts: usize) -> Result<GpuGroup> {
        if parts == 0 {
            return Err(distributed("a GPU group needs at least one part"));
        }
        let members = (0..parts)
            .map(|_| {
                Ok(Member {
                    gpu: gpu.fork()?,
                    exchange: gpu.fork_urgent()?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(GpuGroup::local(members, Transport::OneDevice))
    }

    /// The number of parts, over every process of the group.
    pub fn parts(&self) -> usize {
        self.size
    }

    /// The parts this process holds (all of them unless the group spans processes).
    pub fn local_parts(&self) -> Range<usize> {
        self.first..self.first + self.members.len()
    }

    /// Part `p`'s GPU handle (its products run on its stream).
    ///
    /// # Panics
    /// If part `p` lives in another process (see [`GpuGroup::local_parts`]).
    pub fn gpu(&self, p: usize) -> &Gpu {
        &self.members[local_index(self.first, self.members.len(), p)].gpu
    }

    /// Whether the parts exchange through NCCL.
    pub fn uses_nccl(&self) -> bool {
        matches!(self.transport, Transport::Nccl(_))
    }

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

    /// `y = A x` with `kernel` (an SpMV kernel's launch wrapper, e.g. `spmv::<f32>` of a
    /// `#[load_balanced]` function `spmv(a: Csr<T>, x: &[T], y: &mut [T])`) run on each part's
    /// local and remote blocks. Returns when every part's work is queued; `synchronize` waits.
    pub fn spmv<T: Float, K>(
        &self,
        a: &mut DistCsr<T>,
        kernel: K,
        x: &DistDense<T>,
        y: &mut DistDense<T>,
        exchange: Exchange,
    ) -> Result<()>
    where
        K: Fn(&Gpu, &DeviceCsr<T>, &DeviceBuffer<T>, &mut DeviceBuffer<T>) -> Result<()>,
    {
        self.product(a, 1, x, y, exchange, &kernel)
    }

    /// `C = A B` with `B` and `C` row-major with `k` columns, and `kernel` an SpMM kernel's launch
    /// wrapper (`spmm(gpu, a, b, c, k)`, e.g. the paper's Listing 4 in `examples/kernels/spmm.rs`).
    pub fn spmm<T: Float, K>(
        &self,
        a: &mut DistCsr<T>,
        kernel: K,
        b: &DistDense<T>,
        c: &mut DistDense<T>,
        exchange: Exchange,
    ) -> Result<()>
    where
        K: Fn(&Gpu, &DeviceCsr<T>, &DeviceBuffer<T>, &mut DeviceBuffer<T>, usize) -> Result<()>,
    {
        let k = b.k;
        self.product(a, k, b, c, exchange, &|gpu, m, b, c| {
            kernel(gpu, m, b, c, k)
        })
    }

    /// The exchange of a product with `x`'s `k` columns alone (gathers, transfers, and under
    /// [`Exchange::AllGather`] the picking of the ghosts), queued on the exchange streams: what a
    /// benchmark times to tell how much of it a product hides behind its local blocks.
    pub fn exchange_alone<T: Float>(
        &self,
        a: &mut DistCsr<T>,
        x: &DistDense<T>,
        exchange: Exchange,
    ) -> Result<()> {
        self.check(a)?;
        let _one_at_a_time = self.lock();
        let k = x.k;
        if x.parts.len() != self.members.len()
            || (a.parts.iter().zip(&x.parts)).any(|(p, v)| v.len() != p.rows.len() * k)
        {
            return Err(distributed(
                "x is not shaped like the matrix's parts (make it with GpuGroup::scatter)",
            ));
        }
        let pad = a.pad;
        for (m, part) in self.members.iter().zip(&mut a.parts) {
            part.ensure_scratch(m, k, pad, self.size)?;
            join(&m.exchange, &m.gpu)?;
        }
        match exchange {
            Exchange::PointToPoint => self.exchange_p2p(a, k, x)?,
            Exchange::AllGather => self.exchange_all(a, k, x)?,
        }
        // Later writes of x wait for the exchange's reads.
        for m in &self.members {
            join(&m.gpu, &m.exchange)?;
        }
        Ok(())
    }

    /// Waits for every part's work.
    pub fn synchronize(&self) -> Result<()> {
        for m in &self.members {
            m.gpu.synchronize()?;
            m.exchange.synchronize()?;
        }
        Ok(())
    }

    /// The bytes one product with `k` columns moves between parts.
    pub fn exchange_bytes<T: Float>(&self, a: &DistCsr<T>, k: usize, exchange: Exchange) -> usize {
        let rows: usize = match exchange {
            Exchange::PointToPoint => a.ghost_counts.iter().sum(),
            Exchange::AllGather => {
                let n = a.partition.starts().last().copied().unwrap_or(0);
                let reading = (0..self.parts()).filter(|&p| a.ghost_counts[p] > 0);
                reading.map(|p| n - a.partition.range(p).len()).sum()
            }
        };
        rows * k * std::mem::size_of::<T>()
    }

    /// Tells this group's matrices and graphs from another's.
    pub(crate) fn id(&self) -> usize {
        self.id
    }

    /// The group's collective lock (a panic in another section leaves nothing half-done that
    /// this one relies on: each section starts from the streams' order).
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, ()> {
        self.collective
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn check<T>(&self, a: &DistCsr<T>) -> Result<()> {
        if a.group != self.id || a.parts.len() != self.members.len() {
            return Err(distributed(
                "the distributed matrix was uploaded by another GPU group",
            ));
        }
        Ok(())
    }

    fn product<T: Float>(
        &self,
        a: &mut DistCsr<T>,
        k: usize,
        x: &DistDense<T>,
        y: &mut DistDense<T>,
        exchange: Exchange,
        kernel: &BlockProduct<'_, T>,
    ) -> Result<()> {
        self.check(a)?;
        let _one_at_a_time = self.lock();
        for (what, v) in [("x", x), ("y", &*y)] {
            let fits = v.k == k
                && v.parts.len() == self.members.len()
                && (a.parts.iter().zip(&v.parts)).all(|(p, v)| v.len() == p.rows.len() * k);
            if !fits {
                return Err(distributed(format!(
                    "{what} is not shaped like the matrix's parts with {k} columns (make it with \
                     GpuGroup::scatter or GpuGroup::zeros)"
                )));
            }
        }
        let pad = a.pad;
        for (m, part) in self.members.iter().zip(&mut a.parts) {
            part.ensure_scratch(m, k, pad, self.size)?;
        }
        // The exchange streams wait for what came before (x written, last product's reads of the
        // ghost and send rows); the local products then start beside the exchange.
        for m in &self.members {
            join(&m.exchange, &m.gpu)?;
        }
        for (p, (m, part)) in self.members.iter().zip(&a.parts).enumerate() {
            if !part.rows.is_empty() {
                kernel(&m.gpu, &part.local, &x.parts[p], &mut y.parts[p])?;
            }
        }
        match exchange {
            Exchange::PointToPoint => self.exchange_p2p(a, k, x)?,
            Exchange::AllGather => self.exchange_all(a, k, x)?,
        }
        for (p, (m, part)) in self.members.iter().zip(&mut a.parts).enumerate() {
            join(&m.gpu, &m.exchange)?;
            if let Some(remote) = &part.remote {
                let s = part.scratch.as_mut().expect("made above");
                kernel(&m.gpu, remote, &s.ghost_x, &mut s.partial)?;
                match part.remote_rows.is_empty() {
                    true => add_into(&m.gpu, &mut y.parts[p], &s.partial)?,
                    false => add_rows(&m.gpu, &mut y.parts[p], &s.partial, &part.remote_rows, k)?,
                }
            }
        }
        Ok(())
    }

    /// Gathers what each part sends, then moves each run to its receiver's ghost rows.
    fn exchange_p2p<T: Float>(&self, a: &mut DistCsr<T>, k: usize, x: &DistDense<T>) -> Result<()> {
        for (i, (m, part)) in self.members.iter().zip(&mut a.parts).enumerate() {
            let s = part.scratch.as_mut().expect("made by product");
            // x is read through its address: the exchange stream was ordered after x's writes by
            // the product's first join, and the product's last join orders later writes after it.
            gather_rows(
                &m.exchange,
                &mut s.send,
                x.parts[i].device_ptr(),
                &part.send_idx,
                k,
            )?;
        }
        let size = (std::mem::size_of::<T>() * k) as u64;
        let mut messages = Vec::new();
        for (i, part) in a.parts.iter().enumerate() {
            let p = self.first + i;
            let s = part.scratch_ref();
            for q in (0..self.size).filter(|&q| q != p) {
                let (out, got) = (&part.send_to[q], &part.ghosts_from[q]);
                if !out.is_empty() {
                    let src = s.send.device_ptr() + out.start as u64 * size;
                    messages.push(Message::send(p, q, src, out.len() as u64 * size));
                }
                if !got.is_empty() {
                    let dst = s.ghost_x.device_ptr() + got.start as u64 * size;
                    messages.push(Message::recv(p, q, dst, got.len() as u64 * size));
                }
            }
        }
        self.move_bytes(&messages)
    }

    /// Pads each part's rows into its slot of every part's gathered rows, then picks the ghosts.
    fn exchange_all<T: Float>(&self, a: &mut DistCsr<T>, k: usize, x: &DistDense<T>) -> Result<()> {
        for (m, part) in self.members.iter().zip(&mut a.parts) {
            let s = part.scratch.as_mut().expect("made by product");
            if s.gathered.len() < s.gathered_len {
                s.gathered = m.exchange.zeros(s.gathered_len)?;
            }
        }
        let size = (std::mem::size_of::<T>() * k) as u64;
        let slot = a.pad as u64 * size;
        let mut messages = Vec::new();
        for (i, part) in a.parts.iter().enumerate() {
            let p = self.first + i;
            for q in (0..self.size).filter(|&q| q != p) {
                // A part reading no other part's rows takes nothing; no part reads its own slot.
                if a.ghost_counts[q] > 0 && !part.rows.is_empty() {
                    let bytes = part.rows.len() as u64 * size;
                    messages.push(Message::send(p, q, x.parts[i].device_ptr(), bytes));
                }
                let theirs = a.partition.range(q).len() as u64 * size;
                if part.ghosts > 0 && theirs > 0 {
                    let dst = part.scratch_ref().gathered.device_ptr() + q as u64 * slot;
                    messages.push(Message::recv(p, q, dst, theirs));
                }
            }
        }
        self.move_bytes(&messages)?;
        for (m, part) in self.members.iter().zip(&mut a.parts) {
            if part.ghosts > 0 {
                let s = part.scratch.as_mut().expect("made by product");
                let gathered = s.gathered.device_ptr();
                gather_rows(&m.exchange, &mut s.ghost_x, gathered, &part.ghost_src, k)?;
            }
        }
        Ok(())
    }

    /// Carries out the messages of the local parts: on one device, each receive is a copy from
    /// its sender's matching send, queued on the receiver's exchange stream after every sender's;
    /// through NCCL, one group of sends and receives on each part's exchange stream.
    fn move_bytes(&self, messages: &[Message]) -> Result<()> {
        match &self.transport {
            Transport::OneDevice => {
                for (p, m) in self.members.iter().enumerate() {
                    for q in 0..self.members.len() {
                        if q != p {
                            join(&m.exchange, &self.members[q].exchange)?;
                        }
                    }
                }
                for recv in messages.iter().filter(|m| !m.send) {
                    let send = messages
                        .iter()
                        .find(|m| m.send && m.part == recv.peer && m.peer == recv.part)
                        .expect("every receive has its send on one device");
                    debug_assert_eq!(send.bytes, recv.bytes);
                    let stream = self.members[recv.part].exchange.stream();
                    unsafe {
                        cudarc::driver::result::memcpy_dtod_async(
                            recv.ptr,
                            send.ptr,
                            recv.bytes as usize,
                            stream.cu_stream(),
                        )
                    }
                    .map_err(LoopsError::driver("copying x rows between parts"))?;
                }
                // A sender reuses its rows in the next product only after every copy read them.
                for (q, m) in self.members.iter().enumerate() {
                    for p in 0..self.members.len() {
                        if p != q {
                            join(&m.exchange, &self.members[p].exchange)?;
                        }
                    }
                }
                Ok(())
            }
            Transport::Nccl(comms) => {
                use cudarc::nccl::{result as nccl, sys::ncclDataType_t::ncclUint8};
                let fail = |e| distributed(format!("NCCL exchange of x rows: {e:?}"));
                nccl::group_start().map_err(fail)?;
                let mut outcome = Ok(());
                for m in messages {
                    let i = m.part - self.first;
                    let stream = self.members[i].exchange.stream().cu_stream() as _;
                    let (comm, peer, bytes) = (comms[i].0, m.peer as i32, m.bytes as usize);
                    let done = unsafe {
                        if m.send {
                            nccl::send(m.ptr as _, bytes, ncclUint8, peer, comm, stream)
                        } else {
                            nccl::recv(m.ptr as _, bytes, ncclUint8, peer, comm, stream)
                        }
                    };
                    if let Err(e) = done {
                        outcome = Err(fail(e));
                    }
                }
                // The group is closed whatever happened inside it.
                nccl::group_end().map_err(fail)?;
                outcome
            }
        }
    }
}

/// One side of a transfer between two parts (global part numbers).
struct Message {
    part: usize,
    peer: usize,
    send: bool,
    ptr: u64,
    bytes: u64,
}

impl Message {
    fn send(part: usize, peer: usize, ptr: u64, bytes: u64) -> Message {
        Message {
            part,
            peer,
            send: true,
            ptr,
            bytes,
        }
    }

    fn recv(part: usize, peer: usize, ptr: u64, bytes: u64) -> Message {
        Message {
            part,
            peer,
            send: false,
            ptr,
            bytes,
        }
    }
}

/// A square CSR matrix split over a [`GpuGroup`] (see the module documentation).
pub struct DistCsr<T> {
    partition: RowPartition,
    /// This process's parts, from part `first` on.
    parts: Vec<DevicePart<T>>,
    first: usize,
    /// Every part's ghost rows (also the parts of other processes).
    ghost_counts: Vec<usize>,
    /// The largest part's rows: the slot size of the all-gather.
    pad: usize,
    /// The group it was uploaded by (its address).
    group: usize,
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

struct DevicePart<T> {
    rows: Range<usize>,
    local: DeviceCsr<T>,
    /// `None` when the part reads no other part's rows.
    remote: Option<DeviceCsr<T>>,
    /// The rows of `remote`, when it keeps only those that read another part (else empty: all).
    remote_rows: DeviceBuffer<u32>,
    ghosts: usize,
    /// For each part, the run of the ghost rows that part sends here.
    ghosts_from: Vec<Range<usize>>,
    /// What this part sends, every receiver's run in turn (indices into its own rows).
    send_idx: DeviceBuffer<u32>,
    send_to: Vec<Range<usize>>,
    /// Each ghost's row in the all-gathered rows.
    ghost_src: DeviceBuffer<u32>,
    scratch: Option<Scratch<T>>,
}

/// A part's buffers for products with `k` columns.
struct Scratch<T> {
    k: usize,
    send: DeviceBuffer<T>,
    ghost_x: DeviceBuffer<T>,
    partial: DeviceBuffer<T>,
    /// The all-gather's rows (allocated on its first use, `gathered_len` of them).
    gathered: DeviceBuffer<T>,
    gathered_len: usize,
}

impl<T: Float> DevicePart<T> {
    fn ensure_scratch(&mut self, m: &Member, k: usize, pad: usize, parts: usize) -> Result<()> {
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

    fn scratch_ref(&self) -> &Scratch<T> {
        self.scratch.as_ref().expect("made by product")
    }
}

/// Row-major dense rows split like a [`DistCsr`]'s rows: `x`, `y` of SpMV (`k == 1`), `B`, `C` of
/// SpMM; or a value per vertex split like a [`DistGraph`]'s vertices (a BFS's levels).
pub struct DistDense<T> {
    /// This process's parts, from part `first` on.
    parts: Vec<DeviceBuffer<T>>,
    k: usize,
    first: usize,
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

/// Where global part `p` sits among a process's `len` parts numbered from `first`.
///
/// # Panics
/// If part `p` lives in another process: the caller asked for a part it cannot reach.
fn local_index(first: usize, len: usize, p: usize) -> usize {
    let local = first..first + len;
    assert!(
        local.contains(&p),
        "part {p} lives in another process; this one holds parts {local:?}"
    );
    p - first
}

/// `waiter`'s stream waits for the work queued so far on `on`'s stream.
fn join(waiter: &Gpu, on: &Gpu) -> Result<()> {
    let (w, o): (&Arc<CudaStream>, &Arc<CudaStream>) = (waiter.stream(), on.stream());
    w.join(o)
        .map_err(LoopsError::driver("ordering a part's streams"))
}

fn dims(gpu: &Gpu, n: usize) -> LaunchDims {
    let limits = gpu.limits();
    let wave = (limits.sm_count as usize * (limits.max_threads_per_sm as usize / 256)).max(1);
    LaunchDims {
        grid: n.div_ceil(256).clamp(1, wave) as u32,
        block: 256,
        shared_bytes: 0,
    }
}

/// `out[i] = x[idx[i]]` by rows of `k`; `x` by address (the caller orders its writes).
fn gather_rows<T: Float>(
    gpu: &Gpu,
    out: &mut DeviceBuffer<T>,
    x: u64,
    idx: &DeviceBuffer<u32>,
    k: usize,
) -> Result<()> {
    if idx.is_empty() {
        return Ok(());
    }
    // Elements moved as 4- or 8-byte words.
    let (count, width) = (idx.len() as u64, k as u32);
    let (entry, args) = match std::mem::size_of::<T>() {
        4 => (
            "loops_gather_rows_4",
            gather_rows::args(Ptr::<u32>::cast(out), Ptr::address(x), idx, count, width),
        ),
        _ => (
            "loops_gather_rows_8",
            gather_rows::args(Ptr::<u64>::cast(out), Ptr::address(x), idx, count, width),
        ),
    };
    let f = gpu.function("loops_gather_rows", EXCHANGE_SOURCE, entry)?;
    gpu.launch_function("loops_gather_rows", &f, dims(gpu, idx.len() * k), args)
}

fn add_rows<T: Float>(
    gpu: &Gpu,
    y: &mut DeviceBuffer<T>,
    part: &DeviceBuffer<T>,
    rows: &DeviceBuffer<u32>,
    k: usize,
) -> Result<()> {
    let entry = format!("loops_add_rows_{}", T::RUST_NAME);
    let f = gpu.function("loops_add_rows", EXCHANGE_SOURCE, &entry)?;
    let args = add_rows::args(y, part, rows, rows.len() as u64, k as u32);
    gpu.launch_function("loops_add_rows", &f, dims(gpu, rows.len() * k), args)
}

fn add_into<T: Float>(gpu: &Gpu, y: &mut DeviceBuffer<T>, part: &DeviceBuffer<T>) -> Result<()> {
    if y.is_empty() {
        return Ok(());
    }
    let entry = format!("loops_add_into_{}", T::RUST_NAME);
    let f = gpu.function("loops_add_into", EXCHANGE_SOURCE, &entry)?;
    let args = add_into::args(&*y, part, y.len() as u64);
    gpu.launch_function("loops_add_into", &f, dims(gpu, y.len()), args)
}

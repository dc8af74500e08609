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
mod dist;
pub(crate) mod partition;
mod product;
pub mod synthetic;

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use cudarc::driver::CudaStream;
use kernels_gen::schedule::LaunchDims;

pub use bfs::{
    batch_outcome, levels_before_check, ByDegree, DistBfsStats, DistGraph, Frontier, GraphRows,
    PushStep, DEFAULT_LEVELS_PER_CHECK, HOST_LEVELS, HUB_DEGREE, MAX_LEVELS_PER_CHECK,
};
pub use bootstrap::{Bootstrap, Rank};
pub use dist::{DistCsr, DistDense};
pub use partition::{Block, PartBlocks, RowPartition};

use crate::device::Gpu;
use crate::element::{Element, Float};
use crate::error::{LoopsError, Result};
use crate::launch::entry::entries;

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

    /// Waits for every part's work.
    pub fn synchronize(&self) -> Result<()> {
        for m in &self.members {
            m.gpu.synchronize()?;
            m.exchange.synchronize()?;
        }
        Ok(())
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

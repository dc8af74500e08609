//! Past one GPU: a square CSR matrix split over the GPUs of one host by rows, balanced by atoms,
//! and products with it that run any `#[load_balanced]` kernel on each GPU's share.
//!
//! Each part keeps a *local block* (the columns it owns) and a *remote block* (the others,
//! renumbered to a compact ghost range; see [`partition`]). A product `Y = A X` (SpMV, or SpMM
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

pub mod bfs;
pub mod partition;

use std::ops::Range;
use std::sync::Arc;

use cudarc::driver::CudaStream;
use kernels_gen::schedule::LaunchDims;
use sprs::CsMat;

pub use bfs::{DistBfsStats, DistGraph, PushStep};
pub use partition::{PartBlocks, Partitioned, RowPartition};

use crate::device::{DeviceBuffer, Gpu};
use crate::element::Float;
use crate::error::{LoopsError, Result};
use crate::formats::host::Csr32;
use crate::formats::DeviceCsr;
use crate::launch::{KernelArgs, Param};

/// A product kernel's launch wrapper run on one block: `(gpu, block, x rows, y rows)`.
type BlockProduct<'a, T> =
    dyn Fn(&Gpu, &DeviceCsr<T>, &DeviceBuffer<T>, &mut DeviceBuffer<T>) -> Result<()> + 'a;

/// The gather and add kernels of the exchange.
pub const EXCHANGE_SOURCE: &str = include_str!("exchange.cuh");

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
    members: Vec<Member>,
    transport: Transport,
}

struct Member {
    /// The part's products run here.
    gpu: Gpu,
    /// The part's exchange (gathers, NCCL calls) runs here, beside the local product.
    exchange: Gpu,
}

enum Transport {
    /// Every part on one device: the exchange is device-to-device copies.
    OneDevice,
    /// One part per device, a communicator per part.
    Nccl(Vec<NcclComm>),
}

/// A communicator of `ncclCommInitAll`, destroyed on drop.
struct NcclComm(cudarc::nccl::sys::ncclComm_t);

// An NCCL communicator may be used from any thread, one call at a time; `GpuGroup` makes its
// calls from `&self` methods on one thread at a time per group (see `product`'s `&mut DistCsr`).
unsafe impl Send for NcclComm {}
unsafe impl Sync for NcclComm {}

impl Drop for NcclComm {
    fn drop(&mut self) {
        // Nothing to report to: a failed destroy leaves the communicator to process exit.
        let _ = unsafe { cudarc::nccl::result::comm_destroy(self.0) };
    }
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
    /// one-rank communicator: the all-reduce of BFS runs, no send has a peer) and so checks that
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
                let exchange = gpu.fork()?;
                Ok(Member { gpu, exchange })
            })
            .collect::<Result<Vec<_>>>()?;
        if members.len() == 1 && !nccl_always {
            return Ok(GpuGroup {
                members,
                transport: Transport::OneDevice,
            });
        }
        if !unsafe { cudarc::nccl::sys::is_culib_present() } {
            return Err(distributed(
                "libnccl could not be loaded (install NCCL, e.g. the nvidia-nccl-cu13 wheel, and \
                 put its lib folder on LD_LIBRARY_PATH)",
            ));
        }
        if std::env::var_os("NCCL_NVLS_ENABLE").is_none() {
            std::env::set_var("NCCL_NVLS_ENABLE", "0");
        }
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
        Ok(GpuGroup {
            members,
            transport: Transport::Nccl(raw.into_iter().map(NcclComm).collect()),
        })
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
                    exchange: gpu.fork()?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(GpuGroup {
            members,
            transport: Transport::OneDevice,
        })
    }

    /// The number of parts.
    pub fn parts(&self) -> usize {
        self.members.len()
    }

    /// Part `p`'s GPU handle (its products run on its stream).
    pub fn gpu(&self, p: usize) -> &Gpu {
        &self.members[p].gpu
    }

    /// Whether the parts exchange through NCCL.
    pub fn uses_nccl(&self) -> bool {
        matches!(self.transport, Transport::Nccl(_))
    }

    /// Splits `a` (square) over the group by atoms and uploads each part's blocks.
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
        self.upload_partitioned(&Partitioned::split(&host, partition))
    }

    /// Uploads a matrix already split (by [`Partitioned::split`]) into as many parts as the group.
    pub fn upload_partitioned<T: Float>(&self, d: &Partitioned<T>) -> Result<DistCsr<T>> {
        if d.parts.len() != self.parts() {
            return Err(distributed(format!(
                "a matrix split into {} parts on a group of {}",
                d.parts.len(),
                self.parts()
            )));
        }
        let pad = (0..self.parts())
            .map(|p| d.partition.range(p).len())
            .max()
            .unwrap_or(0);
        let parts = d
            .parts
            .iter()
            .enumerate()
            .map(|(p, b)| {
                let gpu = &self.members[p].gpu;
                let mut send_idx = Vec::new();
                let mut send_to = Vec::new();
                for q in 0..self.parts() {
                    let start = send_idx.len();
                    send_idx.extend(d.sends(p, q));
                    send_to.push(start..send_idx.len());
                }
                // Where each ghost sits in the all-gathered rows: its owner's slot, then its row.
                let ghost_src: Vec<u32> = b
                    .ghosts
                    .iter()
                    .map(|&g| {
                        let q = d.partition.owner(g as usize);
                        (q * pad + g as usize - d.partition.range(q).start) as u32
                    })
                    .collect();
                Ok(DevicePart {
                    rows: b.rows.clone(),
                    local: gpu.upload_csr32(&b.local)?,
                    remote: match b.ghosts.len() {
                        0 => None,
                        _ => Some(gpu.upload_csr32(&b.remote)?),
                    },
                    ghosts: b.ghosts.len(),
                    ghosts_from: b.ghosts_from.clone(),
                    send_idx: gpu.upload(&send_idx)?,
                    send_to,
                    ghost_src: gpu.upload(&ghost_src)?,
                    scratch: None,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(DistCsr {
            partition: d.partition.clone(),
            parts,
            pad,
            group: self.id(),
        })
    }

    /// `x` (row-major, `rows × k`) split by the matrix's partition onto the parts.
    pub fn scatter<T: Float>(&self, a: &DistCsr<T>, x: &[T], k: usize) -> Result<DistDense<T>> {
        self.check(a)?;
        let n = a.partition.starts().last().copied().unwrap_or(0);
        if k == 0 || x.len() != n * k {
            return Err(distributed(format!(
                "scatter: {} values for {n} rows of {k} columns",
                x.len()
            )));
        }
        let parts = (0..self.parts())
            .map(|p| {
                let r = a.partition.range(p);
                self.members[p].gpu.upload(&x[r.start * k..r.end * k])
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(DistDense { parts, k })
    }

    /// Zeros shaped like the matrix's rows, `k` columns.
    pub fn zeros<T: Float>(&self, a: &DistCsr<T>, k: usize) -> Result<DistDense<T>> {
        self.check(a)?;
        let parts = (0..self.parts())
            .map(|p| self.members[p].gpu.zeros(a.partition.range(p).len() * k))
            .collect::<Result<Vec<_>>>()?;
        Ok(DistDense { parts, k })
    }

    /// The parts of `v` downloaded and joined, in row order.
    pub fn gather<T: Float>(&self, v: &DistDense<T>) -> Result<Vec<T>> {
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
            Exchange::PointToPoint => a.parts.iter().map(|p| p.ghosts).sum(),
            Exchange::AllGather => {
                let n = a.partition.starts().last().copied().unwrap_or(0);
                let parts = a.parts.iter().filter(|p| p.ghosts > 0);
                parts.map(|p| n - p.rows.len()).sum()
            }
        };
        rows * k * std::mem::size_of::<T>()
    }

    fn id(&self) -> usize {
        self as *const GpuGroup as usize
    }

    fn check<T>(&self, a: &DistCsr<T>) -> Result<()> {
        if a.group != self.id() || a.parts.len() != self.parts() {
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
        for (what, v) in [("x", x), ("y", &*y)] {
            let fits = v.k == k
                && v.parts.len() == self.parts()
                && (0..self.parts()).all(|p| v.parts[p].len() == a.partition.range(p).len() * k);
            if !fits {
                return Err(distributed(format!(
                    "{what} is not shaped like the matrix's parts with {k} columns (make it with \
                     GpuGroup::scatter or GpuGroup::zeros)"
                )));
            }
        }
        let pad = a.pad;
        for (m, part) in self.members.iter().zip(&mut a.parts) {
            part.ensure_scratch(&m.gpu, k, pad, self.parts())?;
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
                add_into(&m.gpu, &mut y.parts[p], &s.partial)?;
            }
        }
        Ok(())
    }

    /// Gathers what each part sends, then moves each run to its receiver's ghost rows.
    fn exchange_p2p<T: Float>(&self, a: &mut DistCsr<T>, k: usize, x: &DistDense<T>) -> Result<()> {
        for (p, (m, part)) in self.members.iter().zip(&mut a.parts).enumerate() {
            let s = part.scratch.as_mut().expect("made by product");
            gather_rows(&m.exchange, &mut s.send, &x.parts[p], &part.send_idx, k)?;
        }
        let size = std::mem::size_of::<T>() * k;
        // (receiver, sender, destination pointer, source pointer, bytes) of every message.
        let mut moves = Vec::new();
        for (p, part) in a.parts.iter().enumerate() {
            for (q, run) in part.ghosts_from.iter().enumerate() {
                if run.is_empty() {
                    continue;
                }
                let from = &a.parts[q];
                let src = from.send_to[p].start;
                debug_assert_eq!(from.send_to[p].len(), run.len());
                let (dst_buf, src_buf) = (&part.scratch_ref().ghost_x, &from.scratch_ref().send);
                moves.push((
                    p,
                    q,
                    dst_buf.device_ptr() + (run.start * size) as u64,
                    src_buf.device_ptr() + (src * size) as u64,
                    run.len() * size,
                ));
            }
        }
        self.move_bytes(&moves)
    }

    /// Pads each part's rows into its slot of every part's gathered rows, then picks the ghosts.
    fn exchange_all<T: Float>(&self, a: &mut DistCsr<T>, k: usize, x: &DistDense<T>) -> Result<()> {
        let size = std::mem::size_of::<T>() * k;
        let slot = a.pad * size;
        let mut moves = Vec::new();
        for p in 0..a.parts.len() {
            // A part reading no other part's rows takes nothing; no part reads its own slot.
            if a.parts[p].ghosts == 0 {
                continue;
            }
            for q in 0..a.parts.len() {
                let len = a.partition.range(q).len() * size;
                if len > 0 && q != p {
                    let dst = a.parts[p].scratch_ref().gathered.device_ptr() + (q * slot) as u64;
                    moves.push((p, q, dst, x.parts[q].device_ptr(), len));
                }
            }
        }
        self.move_bytes(&moves)?;
        for (m, part) in self.members.iter().zip(&mut a.parts) {
            if part.ghosts > 0 {
                let s = part.scratch.as_mut().expect("made by product");
                gather_rows(&m.exchange, &mut s.ghost_x, &s.gathered, &part.ghost_src, k)?;
            }
        }
        Ok(())
    }

    /// Carries out `(receiver, sender, dst, src, bytes)` messages: copies on the receiver's
    /// exchange stream after every sender's exchange stream (one device), or one NCCL group.
    fn move_bytes(&self, moves: &[(usize, usize, u64, u64, usize)]) -> Result<()> {
        match &self.transport {
            Transport::OneDevice => {
                for (p, m) in self.members.iter().enumerate() {
                    for q in 0..self.members.len() {
                        if q != p {
                            join(&m.exchange, &self.members[q].exchange)?;
                        }
                    }
                }
                for &(p, _, dst, src, bytes) in moves {
                    let stream = self.members[p].exchange.stream();
                    unsafe {
                        cudarc::driver::result::memcpy_dtod_async(
                            dst,
                            src,
                            bytes,
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
                for &(p, q, dst, src, bytes) in moves {
                    let (sp, sq) = (
                        self.members[p].exchange.stream().cu_stream() as _,
                        self.members[q].exchange.stream().cu_stream() as _,
                    );
                    let sent =
                        unsafe { nccl::send(src as _, bytes, ncclUint8, p as i32, comms[q].0, sq) };
                    let got =
                        unsafe { nccl::recv(dst as _, bytes, ncclUint8, q as i32, comms[p].0, sp) };
                    if let Err(e) = sent.and(got) {
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

/// A square CSR matrix split over a [`GpuGroup`] (see the module documentation).
pub struct DistCsr<T> {
    partition: RowPartition,
    parts: Vec<DevicePart<T>>,
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
    pub fn local(&self, p: usize) -> &DeviceCsr<T> {
        &self.parts[p].local
    }

    /// The ghost rows part `p` reads from other parts.
    pub fn ghosts(&self, p: usize) -> usize {
        self.parts[p].ghosts
    }
}

struct DevicePart<T> {
    rows: Range<usize>,
    local: DeviceCsr<T>,
    /// `None` when the part reads no other part's rows.
    remote: Option<DeviceCsr<T>>,
    ghosts: usize,
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
    /// The all-gather's rows (allocated on its first use).
    gathered: DeviceBuffer<T>,
}

impl<T: Float> DevicePart<T> {
    fn ensure_scratch(&mut self, gpu: &Gpu, k: usize, pad: usize, parts: usize) -> Result<()> {
        if self.scratch.as_ref().is_some_and(|s| s.k == k) {
            return Ok(());
        }
        self.scratch = Some(Scratch {
            k,
            send: gpu.zeros(self.send_idx.len() * k)?,
            ghost_x: gpu.zeros(self.ghosts * k)?,
            partial: gpu.zeros(self.rows.len() * k)?,
            gathered: gpu.zeros(if self.ghosts > 0 { pad * parts * k } else { 0 })?,
        });
        Ok(())
    }

    fn scratch_ref(&self) -> &Scratch<T> {
        self.scratch.as_ref().expect("made by product")
    }
}

/// Row-major dense rows split like a [`DistCsr`]'s rows: `x`, `y` of SpMV (`k == 1`), `B`, `C` of
/// SpMM.
pub struct DistDense<T> {
    parts: Vec<DeviceBuffer<T>>,
    k: usize,
}

impl<T> DistDense<T> {
    /// Part `p`'s rows.
    pub fn part(&self, p: usize) -> &DeviceBuffer<T> {
        &self.parts[p]
    }

    /// Part `p`'s rows, to write (e.g. to fill them before a product).
    pub fn part_mut(&mut self, p: usize) -> &mut DeviceBuffer<T> {
        &mut self.parts[p]
    }

    /// The columns.
    pub fn k(&self) -> usize {
        self.k
    }
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

fn gather_rows<T: Float>(
    gpu: &Gpu,
    out: &mut DeviceBuffer<T>,
    x: &DeviceBuffer<T>,
    idx: &DeviceBuffer<u32>,
    k: usize,
) -> Result<()> {
    if idx.is_empty() {
        return Ok(());
    }
    let (entry, word) = match std::mem::size_of::<T>() {
        4 => ("loops_gather_rows_4", "unsigned int"),
        _ => ("loops_gather_rows_8", "unsigned long long"),
    };
    let f = gpu.function("loops_gather_rows", EXCHANGE_SOURCE, entry)?;
    let mut args = KernelArgs::new();
    args.push_buffer(
        out,
        Param::Ptr {
            ty: word,
            mutable: true,
        },
    );
    args.push_buffer(
        x,
        Param::Ptr {
            ty: word,
            mutable: false,
        },
    );
    args.push_buffer(
        idx,
        Param::Ptr {
            ty: "unsigned int",
            mutable: false,
        },
    );
    args.scalar(idx.len() as u64).scalar(k as u32);
    gpu.launch_function("loops_gather_rows", &f, dims(gpu, idx.len() * k), args)
}

fn add_into<T: Float>(gpu: &Gpu, y: &mut DeviceBuffer<T>, part: &DeviceBuffer<T>) -> Result<()> {
    if y.is_empty() {
        return Ok(());
    }
    let (entry, ty) = match T::RUST_NAME {
        "f32" => ("loops_add_into_f32", "float"),
        _ => ("loops_add_into_f64", "double"),
    };
    let f = gpu.function("loops_add_into", EXCHANGE_SOURCE, entry)?;
    let mut args = KernelArgs::new();
    args.push_buffer(y, Param::Ptr { ty, mutable: true });
    args.push_buffer(part, Param::Ptr { ty, mutable: false });
    args.scalar(y.len() as u64);
    gpu.launch_function("loops_add_into", &f, dims(gpu, y.len()), args)
}

//! A level's flags to their owners (the reduce-scatter, or the peer exchange over NVLink) and the
//! settle that makes each part's next frontier.

use super::{DistGraph, GraphPart};
use crate::device::Gpu;
use crate::error::{LoopsError, Result};
use crate::launch::entry::Ptr;
use crate::multi::{dims, distributed, GpuGroup, EXCHANGE_SOURCE};

impl GpuGroup {
    /// Whether `LOOPS_MULTI_PEER` is set, every part is in this process on a device of its own
    /// and each device can read the others' memory, which is then enabled (NVLink peer access and
    /// the stream-ordered pools' access; NCCL enables the former too). Else the BFS combines its
    /// flags through NCCL's reduce-scatter.
    pub(super) fn peer_access(&self) -> bool {
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
    pub(super) fn settle(
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
                let args = crate::multi::loops_bfs_settle_incoming::args(
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
                let args = crate::multi::loops_bfs_settle_own::args(
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
                let args = crate::multi::loops_bfs_settle::args(
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

    /// Every part's stream after everything queued so far on every part's stream: one event a
    /// part, recorded again at each call (a wait takes the record made before it). The peer
    /// exchange's sends write into other parts' `incoming` bytes, so they must also come after
    /// those parts' reset at the start of a run.
    pub(super) fn order_parts(&self, g: &DistGraph) -> Result<()> {
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
    pub(super) fn exchange_flags(
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
                let args = crate::multi::loops_bfs_forward::args(
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
            // Every part after every part's send.
            return self.order_parts(g);
        }
        for (m, part) in self.members.iter().zip(&mut g.parts) {
            let f = m
                .gpu
                .function("loops_bfs_pack", EXCHANGE_SOURCE, "loops_bfs_pack")?;
            let args = crate::multi::loops_bfs_pack::args(
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
            crate::multi::Transport::OneDevice => {
                let x = &self.members[0].exchange;
                for m in &self.members {
                    crate::multi::join(x, &m.gpu)?;
                }
                let f = x.function("loops_or_into_u32", EXCHANGE_SOURCE, "loops_or_into_u32")?;
                for q in 0..parts {
                    let slot = |p: usize| g.parts[p].packed.device_ptr() + (q * pad) as u64;
                    let mine = g.parts[q].mine.device_ptr();
                    x.copy_device(slot(q), mine, pad, "combining BFS flags")?;
                    for p in (0..parts).filter(|&p| p != q) {
                        let args = crate::multi::loops_or_into_u32::args(
                            Ptr::<u32>::address(mine),
                            Ptr::<u32>::address(slot(p)),
                            (pad / 4) as u64,
                        );
                        x.launch_function("loops_or_into_u32", &f, dims(x, pad / 4), args)?;
                    }
                }
                for m in &self.members {
                    crate::multi::join(&m.gpu, x)?;
                }
                Ok(())
            }
            crate::multi::Transport::Nccl(comms) => {
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
pub(super) fn source_degree(gpu: &Gpu, part: &GraphPart, i: usize) -> Result<u32> {
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

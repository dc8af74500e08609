//! Products with a split matrix ([`GpuGroup::spmv`], [`GpuGroup::spmm`]): the local block's
//! product beside the exchange of the rows other parts read (point to point, or an all-gather),
//! then the remote block's.

use super::dist::DistDense;
use super::{
    add_into, add_rows, dims, distributed, gather_rows, join, DistCsr, Exchange, GpuGroup,
    Transport, EXCHANGE_SOURCE,
};
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Float;
use crate::error::{LoopsError, Result};
use crate::formats::DeviceCsr;
use crate::launch::entry::Ptr;

/// A product kernel's launch wrapper run on one block: `(gpu, block, x rows, y rows)`.
type BlockProduct<'a, T> =
    dyn Fn(&Gpu, &DeviceCsr<T>, &DeviceBuffer<T>, &mut DeviceBuffer<T>) -> Result<()> + 'a;

impl GpuGroup {
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
pub(super) struct Message {
    pub(super) part: usize,
    pub(super) peer: usize,
    pub(super) send: bool,
    pub(super) ptr: u64,
    pub(super) bytes: u64,
}

impl Message {
    pub(super) fn send(part: usize, peer: usize, ptr: u64, bytes: u64) -> Message {
        Message {
            part,
            peer,
            send: true,
            ptr,
            bytes,
        }
    }

    pub(super) fn recv(part: usize, peer: usize, ptr: u64, bytes: u64) -> Message {
        Message {
            part,
            peer,
            send: false,
            ptr,
            bytes,
        }
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

//! How the processes of one [`GpuGroup`](super::GpuGroup) meet: rank 0 makes NCCL's unique id and
//! hands it to every other rank, through a small TCP exchange (what several hosts need) or a file
//! (a shared folder). Nothing else passes through it: after the id, NCCL connects the ranks itself.
//!
//! The environment of [`Bootstrap::from_env`], set for every process of a job:
//!
//! | variable | meaning |
//! |---|---|
//! | `LOOPS_RANK` | this process's rank, `0..LOOPS_WORLD_SIZE` |
//! | `LOOPS_WORLD_SIZE` | the number of processes (one GPU each) |
//! | `LOOPS_BOOTSTRAP` | `HOST:PORT` (rank 0 listens there, the others connect) or `file:PATH` (a path all ranks see, fresh for each job) |
//! | `LOOPS_DEVICE` | the GPU this process uses (default: the rank modulo the host's GPUs) |
//! | `LOOPS_BOOTSTRAP_TIMEOUT` | seconds to wait for the other ranks (default 120) |

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use cudarc::nccl::sys::ncclUniqueId;

use super::distributed;
use crate::error::Result;

/// The bytes before the id: a tag and the world size, so that ranks of different jobs, or of
/// one job started with different sizes, fail instead of joining.
const MAGIC: &[u8; 8] = b"LOOPSID1";

/// How rank 0's NCCL id reaches the other ranks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bootstrap {
    /// Rank 0 listens on this `HOST:PORT`; the others connect to it.
    Tcp(String),
    /// Rank 0 writes the id to this path (atomically); the others wait for it. Use a fresh path
    /// for each job: a file left by an earlier job would hand out a dead id.
    File(PathBuf),
}

/// One process's place in a group that spans processes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rank {
    /// This process's rank.
    pub rank: usize,
    /// The number of processes.
    pub size: usize,
    /// The device this process uses.
    pub device: usize,
    /// How the processes meet.
    pub bootstrap: Bootstrap,
    /// How long to wait for the others.
    pub timeout: Duration,
}

impl Bootstrap {
    /// `HOST:PORT`, or `file:PATH`.
    pub fn parse(text: &str) -> Result<Bootstrap> {
        if let Some(path) = text.strip_prefix("file:") {
            if path.is_empty() {
                return Err(distributed("LOOPS_BOOTSTRAP=file: names no path"));
            }
            return Ok(Bootstrap::File(PathBuf::from(path)));
        }
        if text
            .rsplit_once(':')
            .is_none_or(|(host, port)| host.is_empty() || port.parse::<u16>().is_err())
        {
            return Err(distributed(format!(
                "LOOPS_BOOTSTRAP={text:?}: expected HOST:PORT (rank 0's address) or file:PATH"
            )));
        }
        Ok(Bootstrap::Tcp(text.to_string()))
    }
}

impl Rank {
    /// This process's place from `LOOPS_RANK`, `LOOPS_WORLD_SIZE`, `LOOPS_BOOTSTRAP`, and
    /// optionally `LOOPS_DEVICE` and `LOOPS_BOOTSTRAP_TIMEOUT` (see the module documentation);
    /// `devices` is the host's GPU count, for the default device.
    pub fn from_env(devices: usize) -> Result<Rank> {
        let var = |name: &str| std::env::var(name).ok();
        let number = |name: &str| -> Result<Option<usize>> {
            var(name)
                .map(|v| {
                    v.trim().parse::<usize>().map_err(|_| {
                        distributed(format!("{name}={v:?} is not a non-negative integer"))
                    })
                })
                .transpose()
        };
        let (Some(rank), Some(size)) = (number("LOOPS_RANK")?, number("LOOPS_WORLD_SIZE")?) else {
            return Err(distributed(
                "a group across processes needs LOOPS_RANK and LOOPS_WORLD_SIZE (and \
                 LOOPS_BOOTSTRAP=HOST:PORT or file:PATH) in every process's environment",
            ));
        };
        let bootstrap = Bootstrap::parse(&var("LOOPS_BOOTSTRAP").ok_or_else(|| {
            distributed("LOOPS_BOOTSTRAP is unset: HOST:PORT of rank 0, or file:PATH")
        })?)?;
        let device = match number("LOOPS_DEVICE")? {
            Some(d) => d,
            None if devices > 0 => rank % devices,
            None => return Err(distributed("no GPU is visible to this process")),
        };
        let timeout = Duration::from_secs(number("LOOPS_BOOTSTRAP_TIMEOUT")?.unwrap_or(120) as u64);
        Rank::new(rank, size, device, bootstrap, timeout)
    }

    /// A checked place: `rank < size`.
    pub fn new(
        rank: usize,
        size: usize,
        device: usize,
        bootstrap: Bootstrap,
        timeout: Duration,
    ) -> Result<Rank> {
        if size == 0 || rank >= size {
            return Err(distributed(format!(
                "rank {rank} of a group of {size} processes"
            )));
        }
        Ok(Rank {
            rank,
            size,
            device,
            bootstrap,
            timeout,
        })
    }

    /// Rank 0 makes the id with `make` and hands it out; the others receive it.
    pub(crate) fn unique_id(
        &self,
        make: impl FnOnce() -> Result<ncclUniqueId>,
    ) -> Result<ncclUniqueId> {
        if self.rank == 0 {
            let id = make()?;
            self.hand_out(&id)?;
            Ok(id)
        } else {
            self.receive()
        }
    }

    fn message(&self, id: &ncclUniqueId) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        bytes.extend((self.size as u64).to_le_bytes());
        bytes.extend(id.internal.iter().map(|&c| c as u8));
        bytes
    }

    fn parse_message(&self, bytes: &[u8], from: &str) -> Result<ncclUniqueId> {
        let want = MAGIC.len() + 8 + 128;
        if bytes.len() != want || &bytes[..MAGIC.len()] != MAGIC {
            return Err(distributed(format!(
                "{from} did not hold a loops NCCL id ({} bytes)",
                bytes.len()
            )));
        }
        let size = u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes")) as usize;
        if size != self.size {
            return Err(distributed(format!(
                "{from}: rank 0 runs a group of {size} processes, this rank ({}) was started \
                 with LOOPS_WORLD_SIZE={}",
                self.rank, self.size
            )));
        }
        let mut id = ncclUniqueId { internal: [0; 128] };
        for (d, &b) in id.internal.iter_mut().zip(&bytes[16..]) {
            *d = b as _;
        }
        Ok(id)
    }

    fn hand_out(&self, id: &ncclUniqueId) -> Result<()> {
        let message = self.message(id);
        match &self.bootstrap {
            Bootstrap::File(path) => {
                let tmp = path.with_extension(format!("tmp{}", std::process::id()));
                std::fs::write(&tmp, &message)
                    .and_then(|()| std::fs::rename(&tmp, path))
                    .map_err(|e| {
                        distributed(format!("writing the NCCL id to {}: {e}", path.display()))
                    })
            }
            Bootstrap::Tcp(addr) => {
                let listener = TcpListener::bind(addr.as_str()).map_err(|e| {
                    distributed(format!("rank 0 listening on {addr} (LOOPS_BOOTSTRAP): {e}"))
                })?;
                listener
                    .set_nonblocking(true)
                    .map_err(|e| distributed(format!("bootstrap socket: {e}")))?;
                let deadline = Instant::now() + self.timeout;
                // Each rank says who it is first; a connection that does not (a port probe, a
                // rank of another job or size) is dropped and not counted.
                let mut served = vec![false; self.size];
                served[0] = true;
                while served.iter().any(|&s| !s) {
                    match listener.accept() {
                        Ok((mut peer, _)) => {
                            if let Some(r) = self.hello_from(&mut peer) {
                                if !served[r] {
                                    peer.write_all(&message).map_err(|e| {
                                        distributed(format!("sending the NCCL id to rank {r}: {e}"))
                                    })?;
                                    served[r] = true;
                                }
                            }
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                            if Instant::now() > deadline {
                                let missing: Vec<usize> =
                                    (0..self.size).filter(|&r| !served[r]).collect();
                                return Err(distributed(format!(
                                    "rank 0 on {addr}: ranks {missing:?} did not connect within \
                                     {:?} (LOOPS_BOOTSTRAP_TIMEOUT)",
                                    self.timeout
                                )));
                            }
                            std::thread::sleep(Duration::from_millis(5));
                        }
                        Err(e) => return Err(distributed(format!("bootstrap accept: {e}"))),
                    }
                }
                Ok(())
            }
        }
    }

    /// A rank's greeting: the tag, its rank and the world size. `None` for anything else.
    fn hello_from(&self, peer: &mut TcpStream) -> Option<usize> {
        peer.set_nonblocking(false).ok()?;
        peer.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
        let mut hello = [0u8; 24];
        peer.read_exact(&mut hello).ok()?;
        let word = |i: usize| u64::from_le_bytes(hello[i..i + 8].try_into().expect("8 bytes"));
        let (rank, size) = (word(8) as usize, word(16) as usize);
        (&hello[..8] == MAGIC && size == self.size && (1..size).contains(&rank)).then_some(rank)
    }

    /// This rank's greeting to rank 0.
    fn hello(&self) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        bytes.extend((self.rank as u64).to_le_bytes());
        bytes.extend((self.size as u64).to_le_bytes());
        bytes
    }

    /// Once every rank has joined NCCL's communicator (so each has read the id): rank 0 removes
    /// the id file, which a later job must not find.
    pub(crate) fn joined(&self) {
        if let (0, Bootstrap::File(path)) = (self.rank, &self.bootstrap) {
            let _ = std::fs::remove_file(path);
        }
    }

    fn receive(&self) -> Result<ncclUniqueId> {
        let deadline = Instant::now() + self.timeout;
        let late = |what: &str| {
            distributed(format!(
                "rank {}: {what} within {:?} (is rank 0 running? LOOPS_BOOTSTRAP_TIMEOUT)",
                self.rank, self.timeout
            ))
        };
        match &self.bootstrap {
            Bootstrap::File(path) => loop {
                if let Ok(bytes) = std::fs::read(path) {
                    return self.parse_message(&bytes, &path.display().to_string());
                }
                if Instant::now() > deadline {
                    return Err(late(&format!("no NCCL id appeared at {}", path.display())));
                }
                std::thread::sleep(Duration::from_millis(10));
            },
            Bootstrap::Tcp(addr) => loop {
                let target = addr
                    .to_socket_addrs()
                    .map_err(|e| distributed(format!("LOOPS_BOOTSTRAP={addr}: {e}")))?
                    .next()
                    .ok_or_else(|| distributed(format!("LOOPS_BOOTSTRAP={addr}: no address")))?;
                match TcpStream::connect_timeout(&target, Duration::from_secs(1)) {
                    Ok(mut stream) => {
                        stream
                            .write_all(&self.hello())
                            .map_err(|e| distributed(format!("greeting rank 0 at {addr}: {e}")))?;
                        let left = deadline.saturating_duration_since(Instant::now());
                        stream
                            .set_read_timeout(Some(left.max(Duration::from_millis(100))))
                            .map_err(|e| distributed(format!("bootstrap socket: {e}")))?;
                        let mut bytes = Vec::new();
                        stream.read_to_end(&mut bytes).map_err(|e| {
                            distributed(format!("reading the NCCL id from {addr}: {e}"))
                        })?;
                        return self.parse_message(&bytes, addr);
                    }
                    Err(_) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(20))
                    }
                    Err(e) => return Err(late(&format!("could not reach rank 0 at {addr} ({e})"))),
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(fill: u8) -> ncclUniqueId {
        ncclUniqueId {
            internal: [fill as _; 128],
        }
    }

    fn rank(r: usize, size: usize, bootstrap: Bootstrap) -> Rank {
        Rank::new(r, size, 0, bootstrap, Duration::from_secs(20)).unwrap()
    }

    #[test]
    fn addresses_parse_or_say_what_is_expected() {
        assert_eq!(
            Bootstrap::parse("10.0.0.1:2900").unwrap(),
            Bootstrap::Tcp("10.0.0.1:2900".into())
        );
        assert_eq!(
            Bootstrap::parse("file:/tmp/id").unwrap(),
            Bootstrap::File("/tmp/id".into())
        );
        for bad in ["", "host", "host:", ":80", "host:99999", "file:"] {
            assert!(Bootstrap::parse(bad).is_err(), "{bad:?}");
        }
        assert!(Rank::new(2, 2, 0, Bootstrap::File("x".into()), Duration::ZERO).is_err());
    }

    /// Three ranks over loopback TCP: every one ends with rank 0's id.
    #[test]
    fn tcp_hands_rank_zeros_id_to_every_rank() {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let how = Bootstrap::Tcp(format!("127.0.0.1:{port}"));
        let ids: Vec<ncclUniqueId> = std::thread::scope(|s| {
            s.spawn(|| {
                // A probe that connects and leaves, not counted as a rank.
                for _ in 0..200 {
                    if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
            });
            let handles: Vec<_> = (0..3)
                .map(|r| {
                    let how = how.clone();
                    s.spawn(move || rank(r, 3, how).unique_id(|| Ok(id(7))).unwrap())
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(ids.iter().all(|i| *i == id(7)));
    }

    /// Through a file; a rank started with another world size is refused, naming both sizes.
    #[test]
    fn a_file_hands_out_the_id_and_sizes_must_agree() {
        let dir = std::env::temp_dir().join(format!("loops-boot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("id");
        let _ = std::fs::remove_file(&path);
        let how = Bootstrap::File(path.clone());
        rank(0, 2, how.clone()).unique_id(|| Ok(id(3))).unwrap();
        assert_eq!(
            rank(1, 2, how.clone())
                .unique_id(|| unreachable!())
                .unwrap(),
            id(3)
        );
        rank(1, 2, how.clone()).joined();
        assert!(path.exists(), "only rank 0 removes the id");
        let e = rank(1, 4, how.clone())
            .unique_id(|| unreachable!())
            .unwrap_err();
        assert!(e.to_string().contains("LOOPS_WORLD_SIZE=4"), "{e}");
        rank(0, 2, how).joined();
        assert!(
            !path.exists(),
            "rank 0 removes the id once every rank joined"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_rank_zero_times_out_with_a_message() {
        let how = Bootstrap::File(std::env::temp_dir().join("loops-boot-never-written"));
        let r = Rank::new(1, 2, 0, how, Duration::from_millis(50)).unwrap();
        let e = r.unique_id(|| unreachable!()).unwrap_err();
        assert!(e.to_string().contains("is rank 0 running"), "{e}");
    }
}

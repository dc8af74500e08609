//! `--do-profile`: where a direction-optimizing BFS's time goes, level by level. For each graph
//! (from the usual `--scale`/`--kron-scale`/... flags) and the max-degree source: the whole
//! `loops::graph::bfs` call (device queue, the median of `--reps`), then each level's state
//! rebuilt from the CPU reference levels (every vertex above the level unreached) and each step
//! that could run there timed alone between CUDA events (the median of `--reps`, state restored
//! before each run, outside the timing): the library's push step (`bfs_push_queue`) and pull step
//! (`bfs_pull_queue`), and hand-written pull variants (a frontier bitmap for the membership test,
//! four edges' loads at once, groups of lanes per vertex, a list of the unvisited vertices with
//! edges in place of every vertex), with the found vertices of each (which must agree). Also the
//! fixed costs of the call: the two allocations of the result and the `bfs_do_finish` copy.

use cudarc::driver::{CudaFunction, LaunchConfig, PushKernelArg};
use loops::graph::bfs_do::{finish, pull_queue, push_queue};
use loops::graph::reference::bfs_levels;
use loops::graph::{bfs, BfsOptions, Graph, Strategy, Switch};
use loops::prelude::*;

use crate::{cases, Args, BoxError};

const NONE: u32 = u32::MAX;

const SOURCE: &str = r#"
#define NONE 0xffffffffu
#define FULL 0xffffffffu
__device__ __forceinline__ void append(bool found, unsigned v, unsigned* next, unsigned* next_size) {
  unsigned m = __ballot_sync(FULL, found);
  if (m == 0) return;
  unsigned lane = threadIdx.x & 31, leader = __ffs(m) - 1, base = 0;
  if (lane == leader) base = atomicAdd(next_size, __popc(m));
  base = __shfl_sync(FULL, base, leader);
  if (found) next[base + __popc(m & ((1u << lane) - 1))] = v;
}
extern "C" __global__ void p_copy(unsigned* dst, const unsigned* src, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) dst[i] = src[i];
}
extern "C" __global__ void p_bits(const unsigned* levels, unsigned* bits, unsigned n, unsigned depth) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  bool b = v < n && levels[v] == depth;
  unsigned m = __ballot_sync(FULL, b);
  if ((threadIdx.x & 31) == 0 && v < n) bits[v >> 5] = m;
}
template <bool BITS>
__device__ __forceinline__ bool in_frontier(unsigned u, const unsigned* levels, const unsigned* __restrict__ bits, unsigned depth) {
  if (BITS) return (__ldg(&bits[u >> 5]) >> (u & 31)) & 1u;
  return levels[u] == depth;
}
template <bool BITS, int ILP, bool LIST = true>
__device__ __forceinline__ void pull_thread(const int* __restrict__ off, const unsigned* __restrict__ adj,
    const unsigned* __restrict__ list, unsigned len, unsigned* levels, unsigned* parents,
    unsigned* next, unsigned* next_size, const unsigned* __restrict__ bits, unsigned depth) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  bool in = i < len;
  unsigned v = in ? (LIST ? list[i] : i) : 0;
  unsigned parent = NONE;
  if (in && levels[v] == NONE) {
    int b = off[v], e = off[v + 1];
    for (int k = b; k < e; k += ILP) {
      unsigned u[ILP];
#pragma unroll
      for (int j = 0; j < ILP; ++j) u[j] = (k + j < e) ? adj[k + j] : NONE;
      bool hit[ILP];
#pragma unroll
      for (int j = 0; j < ILP; ++j) hit[j] = u[j] != NONE && in_frontier<BITS>(u[j], levels, bits, depth);
#pragma unroll
      for (int j = ILP - 1; j >= 0; --j) if (hit[j]) parent = u[j];
      if (parent != NONE) break;
    }
  }
  bool found = parent != NONE;
  if (found) { levels[v] = depth + 1; parents[v] = parent; }
  append(found, v, next, next_size);
}
template <bool BITS, int G>
__device__ __forceinline__ void pull_group(const int* __restrict__ off, const unsigned* __restrict__ adj,
    const unsigned* __restrict__ list, unsigned len, unsigned* levels, unsigned* parents,
    unsigned* next, unsigned* next_size, const unsigned* __restrict__ bits, unsigned depth) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned i = t / G, sub = t % G, lane = threadIdx.x & 31, gbase = lane & ~(G - 1);
  bool in = i < len;
  unsigned v = in ? list[i] : 0;
  bool active = in && levels[v] == NONE;
  int b = 0, e = 0;
  if (active) { b = off[v]; e = off[v + 1]; }
  if (b >= e) active = false;
  unsigned parent = NONE;
  int k = b + (int)sub;
  while (__any_sync(FULL, active)) {
    bool hit = false; unsigned u = NONE;
    if (active && k < e) { u = adj[k]; hit = in_frontier<BITS>(u, levels, bits, depth); }
    unsigned m = __ballot_sync(FULL, hit);
    unsigned gm = (G == 32) ? m : ((m >> gbase) & ((1u << G) - 1));
    unsigned src = gm ? gbase + __ffs(gm) - 1 : lane;
    unsigned pu = __shfl_sync(FULL, u, src);
    if (active) {
      if (gm) { parent = pu; active = false; }
      else { k += G; if (k - (int)sub >= e) active = false; }
    }
  }
  bool found = parent != NONE && sub == 0;
  if (found) { levels[v] = depth + 1; parents[v] = parent; }
  append(found, v, next, next_size);
}
#define ARGS const int* off, const unsigned* adj, const unsigned* list, unsigned len, unsigned* levels, unsigned* parents, unsigned* next, unsigned* next_size, const unsigned* bits, unsigned depth
#define PASS off, adj, list, len, levels, parents, next, next_size, bits, depth
extern "C" __global__ void p_t1(ARGS) { pull_thread<false, 1>(PASS); }
extern "C" __global__ void p_t1n(ARGS) { pull_thread<false, 1, false>(PASS); }
extern "C" __global__ void p_b4n(ARGS) { pull_thread<true, 4, false>(PASS); }
extern "C" __global__ void p_t4(ARGS) { pull_thread<false, 4>(PASS); }
extern "C" __global__ void p_b1(ARGS) { pull_thread<true, 1>(PASS); }
extern "C" __global__ void p_b4(ARGS) { pull_thread<true, 4>(PASS); }
extern "C" __global__ void p_g4(ARGS) { pull_group<false, 4>(PASS); }
extern "C" __global__ void p_g8b(ARGS) { pull_group<true, 8>(PASS); }
extern "C" __global__ void p_g4b(ARGS) { pull_group<true, 4>(PASS); }
"#;

/// The pull variants: name, entry, lanes per vertex, over the unvisited list (else every vertex).
const VARIANTS: &[(&str, &str, u32, bool)] = &[
    ("t1", "p_t1", 1, false),
    ("t1n", "p_t1n", 1, false),
    ("t4", "p_t4", 1, false),
    ("b1", "p_b1", 1, false),
    ("b4", "p_b4", 1, false),
    ("b4n", "p_b4n", 1, false),
    ("g4", "p_g4", 4, false),
    ("g4b", "p_g4b", 4, false),
    ("g8b", "p_g8b", 8, false),
    ("t1L", "p_t1", 1, true),
    ("b4L", "p_b4", 1, true),
    ("g4bL", "p_g4b", 4, true),
];

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

struct Raw<'a> {
    gpu: &'a Gpu,
    fns: Vec<(String, CudaFunction)>,
}

impl Raw<'_> {
    fn f(&self, name: &str) -> &CudaFunction {
        &self.fns.iter().find(|(n, _)| n == name).expect("loaded").1
    }
    /// Launches `entry` over `threads` threads (blocks of 256) with `args` as 64-bit words or u32s.
    fn launch(&self, entry: &str, threads: u64, args: &[Arg]) -> Result<(), BoxError> {
        let stream = self.gpu.stream();
        let f = self.f(entry);
        let mut b = stream.launch_builder(f);
        for a in args {
            match a {
                Arg::P(p) => b.arg(p),
                Arg::U(u) => b.arg(u),
            };
        }
        let blocks = threads.div_ceil(256).max(1) as u32;
        unsafe { b.launch(LaunchConfig::for_num_elems(0).with_grid(blocks)) }?;
        Ok(())
    }
}

enum Arg {
    P(u64),
    U(u32),
}

trait WithGrid {
    fn with_grid(self, blocks: u32) -> LaunchConfig;
}
impl WithGrid for LaunchConfig {
    fn with_grid(self, blocks: u32) -> LaunchConfig {
        LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        }
    }
}

/// The `--do-profile` run.
pub fn run(args: &Args) -> Result<usize, BoxError> {
    let gpu = Gpu::new(0)?;
    gpu.set_programmatic_launch(!args.no_programmatic);
    println!("device: {}", gpu.name());
    let entries = [
        "p_copy", "p_bits", "p_t1", "p_t1n", "p_b4n", "p_t4", "p_b1", "p_b4", "p_g4", "p_g8b",
        "p_g4b",
    ];
    let mut fns = Vec::new();
    for e in entries {
        fns.push((e.to_string(), gpu.function("do_profile", SOURCE, e)?));
    }
    let raw = Raw { gpu: &gpu, fns };
    let reps = args.reps.max(5);
    let timer = gpu.timer()?;
    let mut wrong = 0;
    for case in cases::cases(args) {
        let m = (case.build)()?;
        let g = Graph::from_pattern(&m, args.max_weight, args.seed)?;
        drop(m);
        let s = g.symmetric();
        drop(g);
        let n = s.vertices();
        let source = s.max_degree_vertex().ok_or("no vertices")?;
        let ds = gpu.upload_graph(&s)?;
        let want = bfs_levels(&s, source);
        let depth = want
            .iter()
            .filter(|&&l| l != NONE)
            .max()
            .copied()
            .unwrap_or(0);
        println!(
            "== {} vertices {} edges {} source {} (degree {}) levels {}",
            case.name,
            n,
            s.edges(),
            source,
            s.degree(source as usize),
            depth + 1
        );
        // The whole call, as `--library` times it.
        let options = BfsOptions {
            strategy: Strategy::DeviceQueue,
            direction: Some(Switch::BEAMER),
            ..BfsOptions::default()
        };
        let push_only = BfsOptions {
            strategy: Strategy::Host,
            ..BfsOptions::default()
        };
        for (name, o) in [("bfs-do device-queue", &options), ("bfs host", &push_only)] {
            let _ = bfs(&gpu, &ds, source, o)?;
            let mut t = Vec::new();
            let mut pulls = 0;
            for _ in 0..reps {
                timer.start()?;
                let r = bfs(&gpu, &ds, source, o)?;
                timer.stop()?;
                pulls = r.stats.pull_levels;
                t.push(timer.elapsed_ms()? as f64 * 1e3);
            }
            let mut sorted = t.clone();
            sorted.sort_by(f64::total_cmp);
            println!(
                "call {name}: median {:.1} us (min {:.1} max {:.1}), pull levels {pulls}",
                median(t),
                sorted[0],
                sorted[sorted.len() - 1]
            );
        }
        // Fixed costs: the result's two zeroed buffers, the finish copy.
        {
            let mut t = Vec::new();
            for _ in 0..reps {
                timer.start()?;
                let a = gpu.zeros::<u32>(n)?;
                let b = gpu.zeros::<u32>(n)?;
                timer.stop()?;
                t.push(timer.elapsed_ms()? as f64 * 1e3);
                drop((a, b));
            }
            println!("fixed: two zeros(n) {:.1} us", median(t));
            let lv = gpu.upload(&want)?;
            let par = gpu.upload(&want)?;
            let mut ol = gpu.zeros::<u32>(n)?;
            let mut op = gpu.zeros::<u32>(n)?;
            for find in [0u32, 1] {
                let mut t = Vec::new();
                for _ in 0..reps {
                    timer.start()?;
                    finish::launch(
                        "thread",
                        &gpu,
                        ds.offsets(),
                        ds.adj(),
                        &lv,
                        &par,
                        &mut ol,
                        &mut op,
                        find,
                    )?;
                    timer.stop()?;
                    t.push(timer.elapsed_ms()? as f64 * 1e3);
                }
                println!("fixed: finish (find_parents {find}) {:.1} us", median(t));
            }
        }
        // Per level.
        let ids: Vec<u32> = (0..n as u32).collect();
        let ids_d = gpu.upload(&ids)?;
        let mut lv = gpu.zeros::<u32>(n)?;
        let mut par = gpu.zeros::<u32>(n)?;
        let mut next = gpu.zeros::<u32>(n)?;
        let mut next_size = gpu.zeros::<u32>(1)?;
        let mut edges = gpu.zeros::<u32>(1)?;
        let bits = gpu.zeros::<u32>(n.div_ceil(32) + 1)?;
        let zero = gpu.zeros::<u32>(1)?;
        let mut rest = gpu.zeros::<u32>(n)?;
        let mut rest_size = gpu.zeros::<u32>(1)?;
        let offs = s.offsets();
        let total_edges = s.edges() as u64;
        let mut unexplored = total_edges;
        println!(
            "{:>3} {:>9} {:>11} {:>9} {:>11} {:>6} | {:>8} {:>8} {:>8} {:>8} | {:>7} pull: lib_thread lib_thread_list then variants (us, found)",
            "lvl",
            "frontier",
            "f_edges",
            "unvisit",
            "pull_edges",
            "rule",
            "push_au",
            "push_wp",
            "push_th",
            "push_mp",
            "bits",
        );
        let mut last_pull = false;
        let mut last_frontier = 0u64;
        for d in 0..depth {
            // The state before the level: every vertex above `d` unreached.
            let base: Vec<u32> = want
                .iter()
                .map(|&l| if l <= d { l } else { NONE })
                .collect();
            let frontier: Vec<u32> = (0..n as u32).filter(|&v| want[v as usize] == d).collect();
            let f_edges: u64 = frontier.iter().map(|&v| s.degree(v as usize) as u64).sum();
            let unvisited: Vec<u32> = (0..n as u32)
                .filter(|&v| base[v as usize] == NONE && s.degree(v as usize) > 0)
                .collect();
            let mut pull_edges = 0u64;
            for &v in &unvisited {
                let r = offs[v as usize]..offs[v as usize + 1];
                let mut k = 0u64;
                for &u in &s.adj()[r] {
                    k += 1;
                    if want[u as usize] == d {
                        break;
                    }
                }
                pull_edges += k;
            }
            // Beamer's rule, on exact counts (the host loop's `next_direction`).
            let rule = if d == 0 {
                "push"
            } else if !last_pull {
                if f_edges * 14 > unexplored {
                    "pull"
                } else {
                    "push"
                }
            } else if frontier.len() as u64 >= last_frontier
                || frontier.len() as u64 * 24 > n as u64
            {
                "pull"
            } else {
                "push"
            };
            let pulled = rule == "pull";
            if !pulled {
                unexplored = unexplored.saturating_sub(f_edges);
            }
            last_pull = pulled;
            last_frontier = frontier.len() as u64;
            let base_d = gpu.upload(&base)?;
            let frontier_d = gpu.upload(&frontier)?;
            let unvisited_d = gpu.upload(&unvisited)?;
            let level_d = gpu.upload(&[d])?;
            let rs_p = rest_size.device_ptr();
            let (lv_p, ns_p, e_p, zero_p, bits_p) = (
                lv.device_ptr(),
                next_size.device_ptr(),
                edges.device_ptr(),
                zero.device_ptr(),
                bits.device_ptr(),
            );
            let reset = || -> Result<(), BoxError> {
                let copy = |to: u64, from: u64, len: usize| {
                    raw.launch(
                        "p_copy",
                        len as u64,
                        &[Arg::P(to), Arg::P(from), Arg::U(len as u32)],
                    )
                };
                copy(lv_p, base_d.device_ptr(), n)?;
                copy(ns_p, zero_p, 1)?;
                copy(e_p, zero_p, 1)?;
                copy(rs_p, zero_p, 1)?;
                Ok(())
            };
            let time = |f: &mut dyn FnMut() -> Result<(), BoxError>| -> Result<f64, BoxError> {
                let mut t = Vec::new();
                for _ in 0..reps {
                    reset()?;
                    timer.start()?;
                    f()?;
                    timer.stop()?;
                    t.push(timer.elapsed_ms()? as f64 * 1e3);
                }
                Ok(median(t))
            };
            // Push steps over the frontier.
            let mut push_t = Vec::new();
            for sched in ["auto", "warp", "thread", "merge_path"] {
                let t = time(&mut || {
                    push_queue::launch(
                        sched,
                        &gpu,
                        ds.offsets(),
                        ds.adj(),
                        &frontier_d,
                        &mut lv,
                        &mut par,
                        &mut next,
                        &mut next_size,
                        &mut edges,
                    )?;
                    Ok(())
                })?;
                let f = gpu.download(&next_size)?[0];
                push_t.push(format!("{t:>8.1}"));
                if f as u64 != want.iter().filter(|&&l| l == d + 1).count() as u64 {
                    push_t.push(format!("(push {sched} found {f}!)"));
                    wrong += 1;
                }
            }
            // The bitmap of the frontier, built from the levels.
            let bits_t = time(&mut || {
                raw.launch(
                    "p_bits",
                    n as u64,
                    &[Arg::P(lv_p), Arg::P(bits_p), Arg::U(n as u32), Arg::U(d)],
                )
            })?;
            // Pull steps.
            let mut pull_t = Vec::new();
            let mut founds = Vec::new();
            for (list, len) in [(&ids_d, n), (&unvisited_d, unvisited.len())] {
                if len == 0 {
                    pull_t.push("-".to_string());
                    continue;
                }
                let t = time(&mut || {
                    pull_queue::launch(
                        "thread",
                        &gpu,
                        ds.offsets(),
                        ds.adj(),
                        list,
                        &mut lv,
                        &mut par,
                        &mut next,
                        &mut next_size,
                        &level_d,
                        &mut rest,
                        &mut rest_size,
                    )?;
                    Ok(())
                })?;
                let f = gpu.download(&next_size)?[0];
                pull_t.push(format!("{t:.1}"));
                founds.push(f);
            }
            for &(name, entry, lanes, on_list) in VARIANTS {
                let (list, len) = if on_list {
                    (&unvisited_d, unvisited.len())
                } else {
                    (&ids_d, n)
                };
                if len == 0 {
                    continue;
                }
                // The bitmap is built before each run (outside the timing: its time is `bits`).
                let mut t = Vec::new();
                for _ in 0..reps {
                    reset()?;
                    raw.launch(
                        "p_bits",
                        n as u64,
                        &[Arg::P(lv_p), Arg::P(bits_p), Arg::U(n as u32), Arg::U(d)],
                    )?;
                    timer.start()?;
                    raw.launch(
                        entry,
                        len as u64 * lanes as u64,
                        &[
                            Arg::P(ds.offsets().offsets().device_ptr()),
                            Arg::P(ds.adj().device_ptr()),
                            Arg::P(list.device_ptr()),
                            Arg::U(len as u32),
                            Arg::P(lv_p),
                            Arg::P(par.device_ptr()),
                            Arg::P(next.device_ptr()),
                            Arg::P(ns_p),
                            Arg::P(bits_p),
                            Arg::U(d),
                        ],
                    )?;
                    timer.stop()?;
                    t.push(timer.elapsed_ms()? as f64 * 1e3);
                }
                let f = gpu.download(&next_size)?[0];
                pull_t.push(format!("{name} {:.1}", median(t)));
                founds.push(f);
            }
            let expect = want.iter().filter(|&&l| l == d + 1).count() as u32;
            let agree = founds.iter().all(|&f| f == expect);
            if !agree {
                wrong += 1;
            }
            println!(
                "{:>3} {:>9} {:>11} {:>9} {:>11} {:>6} | {} | {:>7.1} {} {}",
                d,
                frontier.len(),
                f_edges,
                unvisited.len(),
                pull_edges,
                rule,
                push_t.join(" "),
                bits_t,
                pull_t.join(", "),
                if agree {
                    format!("(all found {expect})")
                } else {
                    format!("FOUND {founds:?} want {expect}")
                }
            );
        }
    }
    Ok(wrong)
}

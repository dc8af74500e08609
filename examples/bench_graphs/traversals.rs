//! The SSSP and BFS rows: every schedule in the host and the device frontier loop (near-far SSSP in
//! `NearFarLoop` on the host and the device, with `--sweep-deltas` over deltas and hops), the naive
//! vertex-per-thread kernels beside them, the edges each SSSP relaxes, the best schedule per
//! graph, and on the world set auto against the best fixed schedule.

use std::time::Instant;

use loops::graph::{
    near_far_model_hops, traversed_edges, DeviceGraph, FrontierLoop, Graph, Hops, LoopOn,
    LoopStats, NearFarLoop, NearFarOn, NearFarStats, UNREACHED,
};
use loops::launch::KernelArgs;
use loops::prelude::*;
use loops::schedule::LaunchDims;

use crate::bench::world::{self, WorldRow};
use crate::cases::Case;
use crate::graph_app::{time_runs, Algorithm};
use crate::output::{LoopKind, Row};
use crate::{Bench, BoxError, Loops, MIN_REPS};

/// The baseline: one thread per frontier vertex, its edges in sequence; the same relaxation as the
/// generated kernels (read, then `atomicMin` only where it may lower, flag on a lowering).
pub const NAIVE_SOURCE: &str = r#"// bench_graphs: naive vertex-per-thread baselines.
extern "C" __global__ void __launch_bounds__(256) naive_sssp(
    const unsigned int* __restrict__ frontier, const unsigned long long frontier_len,
    const int* __restrict__ offsets, const unsigned long long offsets_len,
    const unsigned int* __restrict__ adj, const unsigned long long adj_len,
    const unsigned int* __restrict__ weights, const unsigned long long weights_len,
    unsigned int* __restrict__ dist, const unsigned long long dist_len,
    unsigned int* __restrict__ next, const unsigned long long next_len)
{
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= frontier_len) return;
    const unsigned int v = frontier[i];
    const unsigned int dv = dist[v];
    const int end = offsets[v + 1];
    for (int e = offsets[v]; e < end; ++e) {
        const unsigned int u = adj[e];
        const unsigned int nd = dv + weights[e];
        if (nd < dist[u] && nd < atomicMin(&dist[u], nd)) next[u] = 1u;
    }
}

extern "C" __global__ void __launch_bounds__(256) naive_bfs(
    const unsigned int* __restrict__ frontier, const unsigned long long frontier_len,
    const int* __restrict__ offsets, const unsigned long long offsets_len,
    const unsigned int* __restrict__ adj, const unsigned long long adj_len,
    unsigned int* __restrict__ levels, const unsigned long long levels_len,
    unsigned int* __restrict__ next, const unsigned long long next_len,
    const unsigned int depth)
{
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= frontier_len) return;
    const unsigned int v = frontier[i];
    const int end = offsets[v + 1];
    for (int e = offsets[v]; e < end; ++e) {
        const unsigned int u = adj[e];
        if (levels[u] > depth + 1u && atomicMin(&levels[u], depth + 1u) > depth + 1u) next[u] = 1u;
    }
}
"#;

/// The schedules of `kernels` that run in a device loop (their frontier's size read on the
/// device).
fn device_loop_schedules(
    kernels: &'static [(&'static str, &'static loops::__private::KernelDesc)],
) -> Vec<&'static str> {
    kernels
        .iter()
        .filter(|(_, k)| k.runs_in_device_loop())
        .map(|&(s, _)| s)
        .collect()
}

/// One traversal with the naive kernel.
fn run_naive(
    algorithm: Algorithm,
    gpu: &Gpu,
    func: &cudarc::driver::CudaFunction,
    frontier: &mut FrontierLoop,
    g: &DeviceGraph,
    source: u32,
    out: &mut DeviceBuffer<u32>,
) -> loops::Result<LoopStats> {
    gpu.fill(out, UNREACHED)?;
    gpu.write_at(out, source as usize, &[0])?;
    let name = match algorithm {
        // No naive kernel is made for `SsspDelta` (see `run`), so this never runs it.
        Algorithm::Sssp | Algorithm::SsspDelta => "naive_sssp",
        Algorithm::Bfs => "naive_bfs",
    };
    frontier.run(gpu, LoopOn::Host, &[source], |gpu, current, next, level| {
        let next = next.flags()?;
        let depth = level.number.expect("the host loop numbers its levels");
        let mut args = KernelArgs::new();
        args.slice(current)
            .slice(g.offsets().offsets())
            .slice(g.adj());
        if algorithm == Algorithm::Sssp {
            args.slice(g.weights());
        }
        args.slice_mut(out).slice_mut(next);
        if algorithm == Algorithm::Bfs {
            args.scalar(depth);
        }
        let dims = LaunchDims {
            grid: current.len().div_ceil(256) as u32,
            block: 256,
            shared_bytes: 0,
        };
        gpu.launch_function(name, func, dims, args)
    })
}

/// The edges an SSSP kernel relaxes (the out-degrees of its frontiers, summed on the device), from
/// one more, untimed run; `None` for BFS and the naive kernel.
fn relaxed_edges(
    algorithm: Algorithm,
    kernel: &str,
    gpu: &Gpu,
    (frontier, near_far): (&mut FrontierLoop, &mut NearFarLoop),
    g: &DeviceGraph,
    source: u32,
    dist: &mut DeviceBuffer<u32>,
) -> loops::Result<Option<u64>> {
    match algorithm {
        _ if kernel == "naive" => Ok(None),
        Algorithm::SsspDelta => {
            near_far.set_count_edges(true);
            let on = NearFarOn::Host;
            let stats =
                loops::graph::sssp_near_far::run(kernel, gpu, near_far, on, g, source, dist);
            near_far.set_count_edges(false);
            Ok(Some(stats?.relaxed_edges))
        }
        Algorithm::Sssp => {
            near_far.reset_edge_count(gpu)?;
            gpu.fill(dist, UNREACHED)?;
            gpu.write_at(dist, source as usize, &[0])?;
            frontier.run(gpu, LoopOn::Host, &[source], |gpu, current, next, _| {
                near_far.count_frontier_edges(gpu, g, current)?;
                loops::graph::sssp::launch(
                    kernel,
                    gpu,
                    g.offsets(),
                    g.adj(),
                    g.weights(),
                    current,
                    dist,
                    next.flags()?,
                )
            })?;
            Ok(Some(near_far.edge_count(gpu)?))
        }
        Algorithm::Bfs => Ok(None),
    }
}

impl Bench<'_> {
    /// Every algorithm under every kernel on one graph.
    pub fn graph(&mut self, case: &Case, g: &Graph) -> Result<(), BoxError> {
        let gpu = self.gpu;
        let source = g.max_degree_vertex().ok_or("a graph with no vertices")?;
        let dg = gpu.upload_graph(g)?;
        let mut frontier = FrontierLoop::new(gpu, g.vertices())?;
        // One loop for every strategy: the device options apply to its device runs only.
        let device_frontier = &mut frontier;
        let a = &self.args;
        if let Some(limit) = a.walk_limit {
            device_frontier.set_walk_limit(Some(limit));
        }
        device_frontier.set_step_blocks(a.step_blocks);
        device_frontier.set_compact_blocks(a.compact_blocks);
        if let Some(levels) = a.levels_per_replay {
            device_frontier.set_levels_per_replay(levels);
        }
        let mut near_far = NearFarLoop::new(gpu, g.vertices())?;
        near_far.set_delta(self.args.delta);
        // The device rows' loop: the device options (hops, blocks, scan) are its alone.
        let mut device_near_far = NearFarLoop::new(gpu, g.vertices())?;
        device_near_far.set_delta(a.delta);
        device_near_far.set_hops(a.hops.map(|h| self.hops(h)));
        device_near_far.set_step_blocks(a.step_blocks);
        device_near_far.set_compact_blocks(a.compact_blocks);
        device_near_far.set_wide_scan(!a.narrow_scan);
        if let Some(levels) = a.levels_per_replay {
            device_near_far.set_levels_per_replay(levels);
        }
        // The device near-far rows' relaxed edges, from the CPU model (once per graph).
        let mut model_edges: Option<u64> = None;
        let mut out = gpu.zeros::<u32>(g.vertices())?;
        let (host, device) = match self.args.loops {
            Loops::Host => (true, false),
            Loops::Device => (false, true),
            Loops::Both => (true, true),
        };
        let traversals: &[Algorithm] = if self.args.no_traversals {
            &[]
        } else {
            &[Algorithm::Sssp, Algorithm::SsspDelta, Algorithm::Bfs]
        };
        let asked = |a: &Algorithm| {
            self.args.traversals.is_empty() || self.args.traversals.iter().any(|t| t == a.name())
        };
        for &algorithm in traversals.iter().filter(|a| asked(a)) {
            let want = algorithm.reference(g, source);
            let edges = traversed_edges(g, &want);
            // A handle of its own (the rows are pushed while it is in use).
            let naive = self
                .naive
                .iter()
                .find(|n| n.0 == algorithm)
                .map(|n| n.1.clone());
            let mut kernels: Vec<(&str, LoopKind)> =
                naive.iter().map(|_| ("naive", LoopKind::Host)).collect();
            // Near-far also runs its built-in round (`lanes`), in both loops.
            let (on_device, built_in) = if algorithm == Algorithm::SsspDelta {
                let mut on_device = device_loop_schedules(loops::graph::sssp_near_far::KERNELS);
                on_device.extend_from_slice(loops::graph::sssp_near_far::LANES);
                (on_device, loops::graph::sssp_near_far::LANES)
            } else {
                (algorithm.device_schedules(), &[][..])
            };
            for &schedule in algorithm.schedules().iter().chain(built_in) {
                if host {
                    kernels.push((schedule, LoopKind::Host));
                }
                if device && on_device.contains(&schedule) {
                    kernels.push((schedule, LoopKind::Device));
                }
                if device
                    && algorithm == Algorithm::Bfs
                    && loops::graph::bfs::queue::SCHEDULES.contains(&schedule)
                {
                    kernels.push((schedule, LoopKind::QueueOnDevice));
                }
            }
            let mut naive_ms = f64::NAN;
            let first = self.rows.len();
            for (kernel, loop_kind) in kernels {
                let mut last_near_far = NearFarStats::default();
                let mut once = || match (&naive, loop_kind) {
                    (Some(func), _) if kernel == "naive" => {
                        run_naive(algorithm, gpu, func, &mut frontier, &dg, source, &mut out)
                    }
                    (_, LoopKind::Host) if algorithm == Algorithm::SsspDelta => {
                        loops::graph::sssp_near_far::run(
                            kernel,
                            gpu,
                            &mut near_far,
                            NearFarOn::Host,
                            &dg,
                            source,
                            &mut out,
                        )
                        .map(LoopStats::from)
                    }
                    (_, LoopKind::Host) => algorithm.run(
                        kernel,
                        gpu,
                        &mut frontier,
                        LoopOn::Host,
                        &dg,
                        source,
                        &mut out,
                    ),
                    (_, LoopKind::Device) if algorithm == Algorithm::SsspDelta => {
                        loops::graph::sssp_near_far::run(
                            kernel,
                            gpu,
                            &mut device_near_far,
                            NearFarOn::Device,
                            &dg,
                            source,
                            &mut out,
                        )
                        .map(|s| {
                            last_near_far = s;
                            LoopStats::from(s)
                        })
                    }
                    (_, LoopKind::QueueOnDevice) => algorithm.run(
                        kernel,
                        gpu,
                        &mut frontier,
                        LoopOn::DeviceQueue,
                        &dg,
                        source,
                        &mut out,
                    ),
                    (_, LoopKind::Device) => algorithm.run(
                        kernel,
                        gpu,
                        &mut frontier,
                        LoopOn::DevicePush(&dg),
                        &dg,
                        source,
                        &mut out,
                    ),
                };
                // The first warm-up, timed on the host (each frontier step reads a count back, so
                // the host waits for the traversal), sizes the rest.
                let t = Instant::now();
                once()?;
                let first_ms = t.elapsed().as_secs_f64() * 1e3;
                let runs = self.args.warmup + self.args.reps;
                let reps = if first_ms * runs as f64 > self.args.kernel_budget_ms {
                    ((self.args.kernel_budget_ms / first_ms) as usize)
                        .clamp(MIN_REPS, self.args.reps.max(MIN_REPS))
                } else {
                    for _ in 2..self.args.warmup {
                        once()?;
                    }
                    self.args.reps
                };
                // `time_runs` does one more warm-up run.
                let timing = time_runs(reps, gpu, &mut once)?;
                let device_near_far_row =
                    loop_kind == LoopKind::Device && algorithm == Algorithm::SsspDelta;
                if device_near_far_row {
                    let (delta, hops) = (
                        device_near_far.delta_for(NearFarOn::Device, &dg),
                        device_near_far.hops_for(NearFarOn::Device, &dg),
                    );
                    let s = last_near_far;
                    let levels = s.rounds + s.advances + 1;
                    eprintln!(
                        "  sssp-delta {kernel} device loop: delta {delta}, {} hop(s) through \
                         degree <= {}: {} rounds, {} advances, {levels} levels, {} frontier \
                         vertices, {:.2} us/level",
                        hops.hops,
                        hops.max_degree,
                        s.rounds,
                        s.advances,
                        s.frontier_vertices,
                        timing.median_ms * 1e3 / levels as f64
                    );
                } else if loop_kind == LoopKind::Device {
                    eprintln!(
                        "  {} {kernel} device loop: {} levels walked (the rest scanned), {} \
                         frontier vertices",
                        algorithm.name(),
                        frontier.walked_levels(),
                        timing.stats.frontier_vertices
                    );
                }
                let check = loops::graph::compare(kernel, &want, &gpu.download(&out)?);
                // The built-in round counts its edges on the GPU (one more, untimed run); the
                // generated rounds' come from the CPU model.
                let counted = if device_near_far_row {
                    loops::graph::sssp_near_far::device_relaxed_edges(
                        kernel,
                        gpu,
                        &mut device_near_far,
                        &dg,
                        source,
                        &mut out,
                    )?
                } else {
                    None
                };
                let relaxed_edges = if counted.is_some() {
                    counted
                } else if device_near_far_row {
                    let delta = device_near_far.delta_for(NearFarOn::Device, &dg);
                    let hops = device_near_far.hops_for(NearFarOn::Device, &dg);
                    Some(*model_edges.get_or_insert_with(|| {
                        near_far_model_hops(g, source, delta, hops).1.relaxed_edges
                    }))
                } else {
                    relaxed_edges(
                        algorithm,
                        kernel,
                        gpu,
                        (&mut frontier, &mut near_far),
                        &dg,
                        source,
                        &mut out,
                    )?
                };
                if kernel == "naive" {
                    naive_ms = timing.median_ms;
                }
                let row = Row {
                    graph: case.name.clone(),
                    vertices: g.vertices(),
                    edges: g.edges(),
                    algorithm: algorithm.name(),
                    kernel: kernel.to_string(),
                    loop_kind,
                    median_ms: timing.median_ms,
                    mteps: edges as f64 / (timing.median_ms * 1e3),
                    iterations: timing.stats.iterations,
                    speedup_vs_naive: naive_ms / timing.median_ms,
                    ok: check.is_ok(),
                    tag: case.tag.clone(),
                    relaxed_edges,
                    pull_levels: None,
                    gunrock: None,
                };
                self.push_row(row, &check)?;
            }
            self.close_algorithm(case, algorithm, first);
        }
        if !self.args.sweep_deltas.is_empty() {
            self.near_far_sweep(case, g, &dg, source, &mut device_near_far, &mut out)?;
        }
        if !self.args.world && !self.args.no_algorithms {
            self.algorithms(case, g)?;
        }
        Ok(())
    }

    /// `hops` hops through heads of at most `--hop-degree` out-edges.
    fn hops(&self, hops: u32) -> Hops {
        Hops {
            hops: hops.clamp(1, 16),
            max_degree: if hops > 1 { self.args.hop_degree } else { 0 },
        }
    }

    /// `--sweep-deltas`: the device near-far under each of `--sweep-schedules` with each delta
    /// (in mean weights) and hops, a line each, every result checked.
    fn near_far_sweep(
        &mut self,
        case: &Case,
        g: &Graph,
        dg: &DeviceGraph,
        source: u32,
        near_far: &mut NearFarLoop,
        out: &mut DeviceBuffer<u32>,
    ) -> Result<(), BoxError> {
        let gpu = self.gpu;
        let want = loops::graph::dijkstra(g, source);
        let mean_weight = dg.weight_sum() as f64 / g.edges().max(1) as f64;
        let args = self.args;
        let mut configs = Vec::new();
        for schedule in &args.sweep_schedules {
            for &h in &args.sweep_hops {
                let degrees: &[u32] = if h > 1 { &args.sweep_hop_degrees } else { &[0] };
                for &max_degree in degrees {
                    let hops = Hops {
                        hops: h.clamp(1, 16),
                        max_degree,
                    };
                    for &scale in &args.sweep_deltas {
                        configs.push((schedule.as_str(), hops, scale));
                    }
                }
            }
        }
        for (schedule, hops, scale) in configs {
            near_far.set_hops(Some(hops));
            let delta = (mean_weight * scale)
                .round()
                .clamp(1.0, (u32::MAX / 2) as f64) as u32;
            near_far.set_delta(Some(delta));
            let mut last = NearFarStats::default();
            let mut once = || {
                let on = NearFarOn::Device;
                loops::graph::sssp_near_far::run(schedule, gpu, near_far, on, dg, source, out).map(
                    |s| {
                        last = s;
                        LoopStats::from(s)
                    },
                )
            };
            once()?;
            let timing = time_runs(args.reps.clamp(MIN_REPS, 5), gpu, &mut once)?;
            let check = loops::graph::compare("sweep", &want, &gpu.download(out)?);
            if check.is_err() {
                self.wrong += 1;
            }
            let levels = last.rounds + last.advances + 1;
            println!(
                "sweep {:<16} {schedule:<7} hops {} (degree <= {:>2}) delta {delta:>7} \
                 ({scale:>6} x mean weight): {:>8.3} ms, {levels:>6} levels ({:>6} rounds, \
                 {:>5} advances, {:>9} frontier vertices), {:.2} us/level{}",
                case.name,
                hops.hops,
                hops.max_degree,
                timing.median_ms,
                last.rounds,
                last.advances,
                last.frontier_vertices,
                timing.median_ms * 1e3 / levels as f64,
                if check.is_ok() { "" } else { " WRONG" }
            );
        }
        near_far.set_delta(self.args.delta);
        near_far.set_hops(self.args.hops.map(|h| self.hops(h)));
        Ok(())
    }

    /// After every kernel of one algorithm on one graph (rows `first..`): its best schedule, and
    /// auto against it on the world set.
    fn close_algorithm(&mut self, case: &Case, algorithm: Algorithm, first: usize) {
        let runs = &self.rows[first..];
        // None where no kernel of the algorithm ran (none of its schedules runs in the loops asked
        // for).
        let Some(best) = runs
            .iter()
            .filter(|r| r.kernel != "naive")
            .min_by(|a, b| a.median_ms.total_cmp(&b.median_ms))
        else {
            return;
        };
        let versus = if best.speedup_vs_naive.is_nan() {
            String::new()
        } else {
            format!(", {:.2}x the naive kernel", best.speedup_vs_naive)
        };
        println!(
            "{:<24} {:<5} best: {} ({} loop) {:.3} ms{versus}",
            case.name,
            algorithm.name(),
            best.kernel,
            best.loop_kind.name(),
            best.median_ms
        );
        if let Some(tag) = &case.tag {
            // The world summary compares schedules in one loop: the host's.
            let times: Vec<(&str, f64)> = runs
                .iter()
                .filter(|r| r.ok && r.loop_kind == LoopKind::Host)
                .map(|r| (r.kernel.as_str(), r.median_ms))
                .collect();
            let row = WorldRow::from_times(&case.name, tag.clone(), &times, &["naive"]);
            self.world.push((algorithm.name(), row));
        }
    }

    /// Auto against the best fixed schedule per class and half, BFS then SSSP.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        for algorithm in [Algorithm::Bfs, Algorithm::Sssp, Algorithm::SsspDelta] {
            let rows: Vec<WorldRow> = self
                .world
                .iter()
                .filter(|(a, _)| *a == algorithm.name())
                .map(|(_, r)| r.clone())
                .collect();
            s.push_str(&world::summary(
                &rows,
                &format!("graphs ({})", algorithm.name().to_uppercase()),
            ));
            s.push('\n');
        }
        s
    }
}

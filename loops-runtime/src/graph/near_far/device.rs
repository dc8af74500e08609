//! The loop that stays on the device (levels recorded and replayed) and its defaults (delta, hops).

use cudarc::driver::CudaFunction;

use super::{loops_near_far_level, Hops, NearFarStats, NearFarStep, Settings, NEAR_FAR_SOURCE};
use crate::device::{DeviceBuffer, DeviceList, Gpu};
use crate::error::{LoopsError, Result};
use crate::graph::frontier::replay::{replay_levels, wave_dims, LevelsOnDevice};
use crate::graph::{DeviceGraph, UNREACHED};
use crate::graph::{FrontierLoop, Level, LoopOn, Next};

/// The slots of the device loop's state (`loops_near_far_level` in `near_far.cuh`): three
/// rotating slots each of the near frontier's size, the far vertices an advance left, their
/// smallest distance, and whether the level was an advance; then the rounds, the advances, the
/// frontier vertices added up (two halves), the largest frontier, whether the loop is done, and
/// the levels that did something.
const NF_MIN: usize = 6;
const NF_ROUNDS: usize = 12;
const NF_ADVANCES: usize = 13;
const NF_VERTICES: usize = 14;
const NF_MAX_FRONTIER: usize = 16;
const NF_DONE: usize = 17;
const NF_STATE_SLOTS: usize = 20;

/// The default hops of the device loop for a graph of `vertices` vertices and `edges` edges:
/// eight through heads of at most 8 out-edges where the mean out-degree is below 8 (road networks
/// and meshes: the hop depth of their shortest paths sets the rounds, a sixth of them with eight
/// hops; the generated rounds stop at three, a third), else one (on a power-law graph a few rounds
/// reach every vertex anyway, and relaxing a second vertex's edges in the same round only
/// stretches it). Eight was fitted with [`NearFarRelax`] (one vertex per warp) on the road network
/// of 10^6 vertices (8 and 12 hops within 1%, 16 7% slower, 3 hops 1.4x) and the 2048^2 grid (6
/// and 8 within 1%, 12 15% slower); held out: the road networks of 10^5 and 3 x 10^5 vertices.
pub(crate) fn default_hops(vertices: usize, edges: usize) -> Hops {
    if vertices != 0 && (edges as f64 / vertices as f64) < 8.0 {
        Hops {
            hops: 8,
            max_degree: 8,
        }
    } else {
        Hops::ONE
    }
}

/// The default delta of the device loop: [`UNREACHED`] (one bucket: Bellman-Ford) from a
/// mean out-degree of [`DEVICE_ONE_BUCKET_DEGREE`], else `DEVICE_DELTA_SCALE * mean weight / mean
/// out-degree^2` ([`default_delta`]'s rule with a scale 16 times larger), at least
/// [`DEVICE_DELTA_MIN_WEIGHTS`] mean weights. A device round costs some microseconds whatever it
/// relaxes, up to a wave of work, so where the rounds are many (low degree: road networks,
/// meshes) they set the time and want a wide bucket: about 250 mean weights on a road network
/// (with eight hops 128 and 256 within 1%), 64 on a 2-D grid (128 4-7% slower). A dense graph's
/// few rounds each relax much of the graph, and a round more costs about what a narrower bucket
/// saves (Kronecker scale 20: within 7% from 0.5 to 1024 mean weights, every bucket from 64 on
/// taking Bellman-Ford's rounds and an advance), so it gets one bucket: Bellman-Ford's rounds
/// without the advance, run as Bellman-Ford ([`NearFarLoop::run`](super::NearFarLoop::run)). Fitted
/// on an H100 (`bench_graphs --sweep-deltas`) on a road network of 10^6 vertices, the 2048^2 grid
/// and a Kronecker graph of scale 20; held out: the class of power-law graphs of random heads, and
/// road networks of 10^5 and 3 x 10^5 vertices.
pub(crate) fn default_device_delta(vertices: usize, edges: usize, weight_sum: u64) -> u32 {
    if vertices == 0 || edges == 0 {
        return 1;
    }
    let mean_weight = weight_sum as f64 / edges as f64;
    let mean_degree = (edges as f64 / vertices as f64).max(1.0);
    if mean_degree >= DEVICE_ONE_BUCKET_DEGREE {
        return UNREACHED;
    }
    let delta = mean_weight
        * (DEVICE_DELTA_SCALE / (mean_degree * mean_degree)).max(DEVICE_DELTA_MIN_WEIGHTS);
    delta.round().clamp(1.0, (u32::MAX / 2) as f64) as u32
}

/// The mean out-degree from which [`default_device_delta`] is [`UNREACHED`]: one bucket that holds
/// every distance, so the run is Bellman-Ford's rounds and no advance (the level kernel ends the
/// run at the first empty frontier, as [`crate::graph::FrontierLoop`] does). On the dense
/// graphs of the fit (Kronecker scale 20, degree 32 with repeats) a bucket of 64 mean weights
/// already took Bellman-Ford's rounds plus an advance, and narrower ones cost more rounds than
/// their edges save.
pub(crate) const DEVICE_ONE_BUCKET_DEGREE: f64 = 8.0;

/// The narrowest default bucket of [`default_device_delta`], in mean weights.
pub(crate) const DEVICE_DELTA_MIN_WEIGHTS: f64 = 64.0;

/// See [`default_device_delta`].
pub(crate) const DEVICE_DELTA_SCALE: f64 = 1600.0;

/// The loop that stays on the device ([`NearFarOn::Device`](super::NearFarOn::Device)): the rounds
/// and the bucket advances of the host loop without a host round trip between them, recorded as
/// CUDA graphs and replayed as [`crate::graph::FrontierLoop`]'s levels are (the first 30 launched
/// directly in batches of 6, then
/// [`NearFarLoop::set_levels_per_replay`](super::NearFarLoop::set_levels_per_replay) at a time, the
/// state read back after each).
///
/// Every level is two launches: the step over the near frontier (its size on the device, as in
/// [`crate::graph::FrontierLoop`]: the schedules whose tile loop is grid-stride) under the
/// threshold in a one-element device buffer, then `loops_near_far_level`, which compacts the near
/// flags into the next frontier, or, when the frontier it was given is empty (so the step did
/// nothing), does the bucket advance: it appends the far vertices of the next bucket to the next
/// frontier itself and raises the threshold on the device (the jump past empty buckets, and the
/// end, are decided by the level after, from what the advance counted). A level is therefore the
/// same two launches whatever it does, and a run takes `rounds + advances + 1` levels.
pub(crate) struct DeviceNearFar {
    vertices: usize,
    frontiers: [DeviceBuffer<u32>; 2],
    near_flags: DeviceBuffer<u32>,
    far_flags: DeviceBuffer<u32>,
    /// The threshold of even and odd levels: each level's compaction writes the next one's.
    thresholds: [DeviceBuffer<u32>; 2],
    state: DeviceBuffer<u32>,
    level_kernel: CudaFunction,
    /// The frontier loop that runs a one-bucket run (delta [`UNREACHED`]), made at the first.
    one_bucket: Option<FrontierLoop>,
    /// The threshold of a one-bucket run's rounds: [`UNREACHED`], written once.
    unbounded: DeviceBuffer<u32>,
}

impl DeviceNearFar {
    /// Buffers for graphs of up to `vertices` vertices; compiles (once per process, or reads from
    /// the disk cache) the level kernel.
    pub(crate) fn new(gpu: &Gpu, vertices: usize) -> Result<DeviceNearFar> {
        Ok(DeviceNearFar {
            vertices,
            frontiers: [gpu.zeros(vertices.max(1))?, gpu.zeros(vertices.max(1))?],
            near_flags: gpu.zeros(vertices.max(1))?,
            far_flags: gpu.zeros(vertices.max(1))?,
            thresholds: [gpu.zeros(1)?, gpu.zeros(1)?],
            state: gpu.zeros(NF_STATE_SLOTS)?,
            level_kernel: gpu.function(
                "loops_near_far",
                NEAR_FAR_SOURCE,
                "loops_near_far_level",
            )?,
            one_bucket: None,
            unbounded: gpu.upload(&[UNREACHED])?,
        })
    }

    /// A run of [`NearFarLoop::run`](super::NearFarLoop::run) on the device, with `delta` and
    /// `hops` decided and the run checked.
    ///
    /// With delta [`UNREACHED`] (one bucket, the default on dense graphs) the run is Bellman-Ford
    /// and a [`FrontierLoop`] (made at the first such run) runs it: the step gets that
    /// loop's frontier and flags as `frontier` and `near_flags` (its compaction, which walks small
    /// frontiers' out-edges with one hop), `threshold[0]` is [`UNREACHED`], no far flag may be set,
    /// and the statistics count no advance.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run<F: NearFarStep>(
        &mut self,
        gpu: &Gpu,
        g: &DeviceGraph,
        source: u32,
        dist: &mut DeviceBuffer<u32>,
        step: F,
        (delta, hops): (u32, Hops),
        settings: &Settings,
    ) -> Result<NearFarStats> {
        let n = g.vertices();
        // A capture records this handle's stream only: another stream's buffers would have to be
        // waited for.
        if self
            .state
            .cuda_stream()
            .is_some_and(|s| !std::sync::Arc::ptr_eq(s, gpu.stream()))
        {
            return Err(LoopsError::InvalidGraph {
                detail: "a device near-far loop runs on the Gpu handle that made it".into(),
            });
        }
        gpu.fill(dist, UNREACHED)?;
        gpu.write_at(dist, source as usize, &[0])?;
        let max = settings.max_iterations.unwrap_or(4 * (n as u64 + 1) + 2);
        if delta == UNREACHED {
            return self.run_one_bucket(gpu, g, source, dist, step, hops, max, settings);
        }
        // A run that failed half-way may have left flags set.
        gpu.fill(&mut self.near_flags, 0)?;
        gpu.fill(&mut self.far_flags, 0)?;
        gpu.write_at(&mut self.frontiers[0], 0, &[source])?;
        gpu.write_at(&mut self.thresholds[0], 0, &[delta])?;
        let mut state = [0u32; NF_STATE_SLOTS];
        state[0] = 1;
        state[NF_MIN..NF_MIN + 3].fill(UNREACHED);
        gpu.write_at(&mut self.state, 0, &state)?;
        let per_replay = settings.levels_per_replay as u64;
        let mut levels = NearFarLevels {
            lp: self,
            n,
            delta,
            hops,
            settings,
            dist,
            step,
            stats: NearFarStats::default(),
        };
        replay_levels(gpu, &mut levels, per_replay, max, "device near-far loop")?;
        Ok(levels.stats)
    }
}

impl DeviceNearFar {
    /// A run whose one bucket holds every distance (delta [`UNREACHED`]): no round flags a vertex
    /// far and no advance is due, so near-far is Bellman-Ford, and the frontier loop runs it
    /// ([`FrontierLoop`], `max` levels at most): its compaction is the near flags', and with
    /// one hop (every flagged vertex the head of an out-edge of the frontier) a push run's, which
    /// walks small frontiers' out-edges instead of scanning every flag. `dist` is initialised.
    #[allow(clippy::too_many_arguments)]
    fn run_one_bucket<F: NearFarStep>(
        &mut self,
        gpu: &Gpu,
        g: &DeviceGraph,
        source: u32,
        dist: &mut DeviceBuffer<u32>,
        mut step: F,
        hops: Hops,
        max: u64,
        settings: &Settings,
    ) -> Result<NearFarStats> {
        if self.one_bucket.is_none() {
            self.one_bucket = Some(FrontierLoop::new(gpu, self.vertices)?);
        }
        let DeviceNearFar {
            one_bucket: Some(bf),
            far_flags,
            unbounded,
            ..
        } = self
        else {
            unreachable!("made above");
        };
        bf.set_max_iterations(Some(max));
        bf.set_levels_per_replay(settings.levels_per_replay);
        bf.set_step_blocks(settings.step_blocks);
        bf.set_compact_blocks(settings.compact_blocks);
        let threshold = &*unbounded;
        let relax = |gpu: &Gpu, frontier: &DeviceBuffer<u32>, near: Next<'_>, _: Level<'_>| {
            step(
                gpu,
                frontier,
                dist,
                near.flags()?,
                far_flags,
                threshold,
                hops,
            )
        };
        let on = if hops.hops <= 1 {
            LoopOn::DevicePush(g)
        } else {
            LoopOn::DeviceScan
        };
        let s = bf.run(gpu, on, &[source], relax)?;
        Ok(NearFarStats {
            rounds: s.iterations,
            advances: 0,
            frontier_vertices: s.frontier_vertices,
            max_frontier: s.max_frontier,
            relaxed_edges: 0,
        })
    }
}

/// One run of a [`DeviceNearFar`], as [`replay_levels`] drives it.
struct NearFarLevels<'a, F> {
    lp: &'a mut DeviceNearFar,
    n: usize,
    delta: u32,
    hops: Hops,
    settings: &'a Settings,
    dist: &'a mut DeviceBuffer<u32>,
    step: F,
    stats: NearFarStats,
}

impl<F: NearFarStep> LevelsOnDevice for NearFarLevels<'_, F> {
    fn queue_level(&mut self, gpu: &Gpu, level: u64, capturing: bool) -> Result<()> {
        let lp = &mut *self.lp;
        let (current, next) = ((level % 2) as usize, ((level + 1) % 2) as usize);
        let slot = |k: u64| ((level + k) % 3) as u32;
        // The step and the level kernel launch on the handle in the level's context (see
        // `FrontierLoop::level`).
        let gpu = &gpu.in_device_loop(DeviceList {
            list: lp.frontiers[current].device_ptr(),
            len: lp.state.device_ptr() + 4 * slot(0) as u64,
            capturing,
            blocks: self.settings.step_blocks,
        });
        (self.step)(
            gpu,
            &lp.frontiers[current],
            self.dist,
            &mut lp.near_flags,
            &mut lp.far_flags,
            &lp.thresholds[current],
            self.hops,
        )?;
        let args = loops_near_far_level::args(
            &lp.near_flags,
            &lp.far_flags,
            &*self.dist,
            self.n as u32,
            &lp.frontiers[next],
            &lp.state,
            slot(0),
            slot(1),
            slot(2),
            &lp.thresholds[current],
            &lp.thresholds[next],
            self.delta,
            self.settings.wide_scan as u32,
        );
        // The level kernel begins with `loops_grid_dependency`, as the generated kernels do.
        gpu.launch_function_with(
            "loops_near_far_level",
            &lp.level_kernel,
            wave_dims(gpu, self.n, self.settings.compact_blocks),
            args,
            gpu.programmatic_launch(),
        )
    }

    fn read_back(&mut self, gpu: &Gpu, issued: u64) -> Result<Option<usize>> {
        let state = gpu.download(&self.lp.state)?;
        let size = state[(issued % 3) as usize] as usize;
        if size > self.n {
            return Err(LoopsError::InvalidGraph {
                detail: format!("the compaction counted {size} vertices of {}", self.n),
            });
        }
        self.stats = NearFarStats {
            rounds: state[NF_ROUNDS],
            advances: state[NF_ADVANCES],
            frontier_vertices: (state[NF_VERTICES + 1] as u64) << 32 | state[NF_VERTICES] as u64,
            max_frontier: state[NF_MAX_FRONTIER] as usize,
            relaxed_edges: 0,
        };
        Ok((state[NF_DONE] == 0).then_some(size))
    }
}

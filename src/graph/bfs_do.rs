//! Direction-optimizing BFS (`loops::graph::bfs` with `BfsOptions::direction`; Beamer, Asanović, Patterson, SC'12): level-synchronous, each level
//! either a push step over the frontier (every unvisited neighbour of a frontier vertex joins the
//! next level) or a pull step over the unvisited vertices (every one looks through its
//! neighbours and stops at the first one in the frontier). Push costs the frontier's edges, pull
//! at most the unvisited vertices' edges and usually far less, since a vertex stops at its first
//! parent: pull wins while the frontier is a large part of the graph.
//!
//! The pull step reads a vertex's out-edges as its in-edges, so the graph must be undirected
//! (symmetric: an edge `v -> u` for every `u -> v`); symmetrise a directed graph first.
//!
//! Levels are `u32` ([`UNREACHED`] where no path goes), parents the vertex a level was reached
//! from (the source is its own parent, [`UNREACHED`] for an unreached vertex). A vertex is in the
//! frontier of level `depth` exactly when `levels[u] == depth`: the pull step tests that instead of
//! a separate flag array, which is race-free because a step only changes levels from
//! [`UNREACHED`] to `depth + 1`, neither of them `depth`.
//!
//! The host loop ([`run`] with `Strategy::Host`): after each step the flags of the newly reached vertices are compacted
//! into the next frontier on the GPU ([`Compaction`]), and one 8-byte read-back brings the next
//! frontier's size and, after a push step, its out-edges (summed by the push step, one atomic per
//! frontier vertex that reached any); [`next_direction`] then chooses the next step.
//!
//! The device queue ([`run`] with `Strategy::DeviceQueue`, `FrontierLoop::run_directed_kept`):
//! the first level pushes alone, then batches of 6 levels, each level the decision on the device
//! and a pull or a push step, or past the switch's reach a push-only batch (the plain step), then
//! recorded replays of 48 levels. A run of the same key (graph, buffers, schedules, switch) as
//! the last one replays what that one recorded, and records each batch of 6 levels the second
//! time it comes: from the third run on, a Kronecker graph's BFS is the start, the first level and
//! one CUDA graph launch. A pull level goes over a pull list: every vertex at the first pull, then
//! the vertices with edges the last pull left unreached (`bfs_pull_queue` appends them, the loop
//! makes them the next list), so that a power-law graph's later pulls skip the millions of
//! vertices the first one reached. [`bfs`](fn@super::bfs) keeps that state, and the levels and
//! parents the runs write, per thread and handle ([`run_kept`]), and copies them out after each
//! run.

// Kernels of many parameters: a graph, its arrays, the state, the level.
#![allow(clippy::too_many_arguments)]

use loops_runtime::graph::{compaction_walks, default_walk_limit};
use loops_runtime::graph::{Compaction, DeviceGraph, FrontierLoop, LoopStats, UNREACHED};

use super::driver::{unsupported, Strategy};

mod host;
mod kept;

use host::{run_host, HostBuffers};
pub use kept::{release_kept, run_kept};

use crate::prelude::*;

/// Which way a BFS level goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Push,
    Pull,
}

/// Beamer's switch: push to pull once the frontier's out-edges exceed the unexplored edges /
/// `alpha`; pull back to push once the frontier shrinks to `vertices / beta` or below.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Switch {
    pub alpha: u64,
    pub beta: u64,
}

impl Switch {
    /// The paper's values (alpha 14, beta 24).
    pub const BEAMER: Switch = Switch {
        alpha: 14,
        beta: 24,
    };
    /// Never pull: the push-only BFS, through the same loop.
    pub const PUSH_ONLY: Switch = Switch { alpha: 0, beta: 0 };
    /// Pull from the second level on, to the end (to test the pull step).
    pub const PULL_ALWAYS: Switch = Switch {
        alpha: u64::MAX,
        beta: u64::MAX,
    };
}

impl Default for Switch {
    fn default() -> Switch {
        Switch::BEAMER
    }
}

/// What the BFS loop knows after a level, to choose the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelCounts {
    /// The graph's vertices.
    pub vertices: u64,
    /// The next frontier's vertices.
    pub frontier: u64,
    /// The frontier just expanded.
    pub previous_frontier: u64,
    /// The next frontier's out-edges (counted by push steps only).
    pub frontier_edges: u64,
    /// The out-edges of the vertices no push step has reached yet: the graph's edges less those of
    /// the frontiers push steps found. Pull steps do not count theirs (that would cost an atomic
    /// per vertex they reach), so after a pull phase this is too large, which only makes a second
    /// turn to pull later.
    pub unexplored_edges: u64,
}

/// The direction of the next level, after a level that went `now`. Push turns to pull when
/// `frontier_edges > unexplored_edges / alpha`; pull stays while the frontier grows or holds more
/// than `vertices / beta` vertices. `alpha` 0 never pulls.
pub fn next_direction(switch: Switch, now: Direction, c: LevelCounts) -> Direction {
    match now {
        Direction::Push => {
            let weighed = c.frontier_edges as u128 * switch.alpha as u128;
            if switch.alpha > 0 && c.frontier_edges > 0 && weighed > c.unexplored_edges as u128 {
                Direction::Pull
            } else {
                Direction::Push
            }
        }
        Direction::Pull => {
            let growing = c.frontier >= c.previous_frontier;
            let large = c.frontier as u128 * switch.beta as u128 > c.vertices as u128;
            if c.frontier > 0 && (growing || large) {
                Direction::Pull
            } else {
                Direction::Push
            }
        }
    }
}

/// The push step, under every schedule.
pub mod push {
    use super::*;
    /// One push level: `frontier` holds the vertices at level `depth`; each vertex it reaches
    /// first gets level `depth + 1`, its parent and a flag in `next`; `counts[1]` gains the
    /// out-degrees of the reached vertices.
    #[for_schedules(core)]
    pub fn bfs_push(
        g: Offsets,
        adj: &[u32],
        frontier: &[u32],
        levels: &mut [u32],
        parents: &mut [u32],
        next: &mut [u32],
        counts: &mut [u32],
        depth: u32,
    ) {
        for v in g.tiles_in(frontier) {
            let mut reached_edges = 0u32;
            for e in g.atoms(v) {
                let u = adj[e] as usize;
                if levels[u] > depth + 1 {
                    let old = atomic_min(&mut levels[u], depth + 1);
                    if old > depth + 1 {
                        parents[u] = v as u32;
                        next[u] = 1;
                        reached_edges += (g.offsets[u + 1] - g.offsets[u]) as u32;
                    }
                }
            }
            if reached_edges > 0 {
                atomic_add(&mut counts[1], reached_edges);
            }
        }
    }
}

/// The pull step, under every schedule that takes a selection with `break` (not the carry
/// schedules, which cut a vertex's edges between threads).
pub mod pull {
    use super::*;
    /// One pull level: every unvisited vertex takes its first neighbour at level `depth` as its
    /// parent, gets level `depth + 1` and a flag in `next`.
    #[for_schedules(thread, group2, warp, group64, block, hierarchical, lrb, auto)]
    pub fn bfs_pull(
        g: Offsets,
        adj: &[u32],
        levels: &mut [u32],
        parents: &mut [u32],
        next: &mut [u32],
        depth: u32,
    ) {
        for v in g.tiles() {
            let visited = levels[v] != u32::MAX;
            let mut parent = u32::MAX;
            for e in g.atoms(v) {
                if visited {
                    break;
                }
                let u = adj[e];
                if levels[u as usize] == depth {
                    parent = u;
                    break;
                }
            }
            if parent != u32::MAX {
                levels[v] = depth + 1;
                parents[v] = parent;
                next[v] = 1;
            }
        }
    }
}

/// The push step of the loop on the device ([`run`] in the device queue), which appends its next frontier itself
/// (the language's warp-aggregated `push`), over a frontier whose size is on the device.
pub mod push_queue {
    use super::*;

    /// One push level over `frontier` (the vertices at one level): each unreached neighbour gets
    /// the next level, its parent, and is appended to `next` at `next_size[0]`; `edges[0]` gains
    /// the out-degrees of the vertices appended (Beamer's `m_f`, which the device's choice of the
    /// next level's direction reads).
    #[for_schedules(thread, group2, warp, group64, block, merge_path, auto)]
    pub fn bfs_push_queue(
        g: Offsets,
        adj: &[u32],
        frontier: &[u32],
        levels: &mut [u32],
        parents: &mut [u32],
        next: &mut [u32],
        next_size: &mut [u32],
        edges: &mut [u32],
    ) {
        for v in g.tiles_in(frontier) {
            let reached = levels[v] + 1;
            let mut reached_edges = 0u32;
            for e in g.atoms(v) {
                let u = adj[e] as usize;
                if levels[u] > reached {
                    let old = atomic_min(&mut levels[u], reached);
                    if old > reached {
                        parents[u] = v as u32;
                        push(&mut next, &mut next_size[0], u as u32);
                        reached_edges += (g.offsets[u + 1] - g.offsets[u]) as u32;
                    }
                }
            }
            if reached_edges > 0 {
                atomic_add(&mut edges[0], reached_edges);
            }
        }
    }
}

/// The start of a run on the device ([`run`] in the device queue): one launch for what was
/// two fills, three copies from the host and a launch.
pub mod start {
    use super::*;

    /// Every vertex unreached and without a parent but `source` (level 0, its own parent, and
    /// `first[0]`: the first level's list of a hub), and `ids[v] = v` for every vertex `v` (the
    /// pull list, which a run leaves holding the vertices its last pull left:
    /// `FrontierLoop::run_directed`).
    #[for_schedules(thread)]
    pub fn bfs_do_start(
        g: Offsets,
        levels: &mut [u32],
        parents: &mut [u32],
        ids: &mut [u32],
        first: &mut [u32],
        source: u32,
    ) {
        for v in g.tiles() {
            let mut level = u32::MAX;
            let mut parent = u32::MAX;
            if v as u32 == source {
                level = 0;
                parent = source;
                first[0] = source;
            }
            levels[v] = level;
            parents[v] = parent;
            ids[v] = v as u32;
        }
    }
}

/// The end of a run of [`bfs`](fn@super::bfs) on the device from the state it keeps: the run's
/// levels and parents copied into the caller's buffers, the parents of push-only levels found on
/// the way (one pass, as the copies alone would be).
pub mod finish {
    use super::*;

    /// `out_levels[v] = levels[v]` and `out_parents[v] = parents[v]` for every vertex `v`, but
    /// where `find_parents` is not 0 a vertex with a level and no parent (reached by a push-only
    /// level) takes its first neighbour one level above as its parent, as
    /// [`super::parents::bfs_parents_from_levels`] does.
    #[for_schedules(thread)]
    pub fn bfs_do_finish(
        g: Offsets,
        adj: &[u32],
        levels: &[u32],
        parents: &[u32],
        out_levels: &mut [u32],
        out_parents: &mut [u32],
        find_parents: u32,
    ) {
        for v in g.tiles() {
            let level = levels[v];
            let mut parent = parents[v];
            let done = find_parents == 0 || level == u32::MAX || parent != u32::MAX;
            for e in g.atoms(v) {
                if done {
                    break;
                }
                let u = adj[e];
                if levels[u as usize] == level - 1 {
                    parent = u;
                    break;
                }
            }
            out_levels[v] = level;
            out_parents[v] = parent;
        }
    }
}

/// The parents of the vertices that the push-only levels of a run on the device reached: those
/// levels run `bfs::queue::bfs_queue`, the plain BFS's step, which writes no parent (so that a
/// road network's hundreds of push-only levels cost what a plain BFS's do), and this pass gives
/// each such vertex one after the run.
pub mod parents {
    use super::*;

    /// Each vertex with a level and no parent takes its first neighbour one level above as its
    /// parent (one exists: the vertex that reached it). Vertices with a parent, and unreached
    /// ones, stop at once.
    #[for_schedules(thread)]
    pub fn bfs_parents_from_levels(g: Offsets, adj: &[u32], levels: &[u32], parents: &mut [u32]) {
        for v in g.tiles() {
            let level = levels[v];
            let done = level == u32::MAX || parents[v] != u32::MAX;
            let mut parent = u32::MAX;
            for e in g.atoms(v) {
                if done {
                    break;
                }
                let u = adj[e];
                if levels[u as usize] == level - 1 {
                    parent = u;
                    break;
                }
            }
            if parent != u32::MAX {
                parents[v] = parent;
            }
        }
    }
}

/// The pull step of the loop on the device ([`run`] in the device queue), over a list of vertices
/// whose length is on the device (0 at the levels that push).
pub mod pull_queue {
    use super::*;

    /// One pull level over `vertices` (the pull list: every vertex id of the graph at the first
    /// pull, then those the last pull left): each unreached vertex takes its first neighbour at
    /// level `level[0]` as its parent, gets the next level and is appended to `next` at
    /// `next_size[0]`; each unreached vertex with edges that finds none is appended to `rest` at
    /// `rest_size[0]` (the next pull's list; a vertex without edges is never reached by a pull,
    /// and a reached one never needs one). Race-free as [`super::pull::bfs_pull`]: a level only
    /// changes levels from unreached to `level[0] + 1`, neither of which is `level[0]`.
    #[for_schedules(thread, warp, block, auto)]
    pub fn bfs_pull_queue(
        g: Offsets,
        adj: &[u32],
        vertices: &[u32],
        levels: &mut [u32],
        parents: &mut [u32],
        next: &mut [u32],
        next_size: &mut [u32],
        level: &[u32],
        rest: &mut [u32],
        rest_size: &mut [u32],
    ) {
        for v in g.tiles_in(vertices) {
            let depth = level[0];
            let visited = levels[v] != u32::MAX;
            let mut parent = u32::MAX;
            for e in g.atoms(v) {
                if visited {
                    break;
                }
                let u = adj[e];
                if levels[u as usize] == depth {
                    parent = u;
                    break;
                }
            }
            if parent != u32::MAX {
                levels[v] = depth + 1;
                parents[v] = parent;
                push(&mut next, &mut next_size[0], v as u32);
            } else if !visited && g.offsets[v + 1] > g.offsets[v] {
                push(&mut rest, &mut rest_size[0], v as u32);
            }
        }
    }
}

/// The pull schedule of the device loop for a push schedule: the same where the device pull step
/// has it but for `auto`, else [`FAST_PULL`] (see there).
pub fn device_pull_schedule_for(push_schedule: &str) -> &'static str {
    pull_queue::SCHEDULES
        .iter()
        .copied()
        .find(|&s| s == push_schedule && s != "auto")
        .unwrap_or(FAST_PULL)
}

/// The push schedules [`run`] takes in the device queue: those of [`push_queue::SCHEDULES`] whose tile loop
/// takes the frontier's size from the device (all but `merge_path`, which only the first level of
/// a hub runs, as in `bfs::run`).
pub const DEVICE_PUSH_SCHEDULES: &[&str] =
    &["thread", "group2", "warp", "group64", "block", "auto"];

/// [`run`] in the loop on the device (`FrontierLoop::run_directed`): each level's
/// direction chosen on the device by `switch` from the device's counters (the frontier's size,
/// the out-edges push steps reached), the levels recorded as a CUDA graph and replayed, the host
/// reading the state back once per replay. `push_schedule` must be one of
/// [`DEVICE_PUSH_SCHEDULES`] and `pull_schedule` one of
/// [`pull_queue::SCHEDULES`] (the others cannot take a frontier whose size is on the
/// device: `LoopsError::LoopOnDevice`). Returns the run's statistics and its pull levels.
fn run_on_device(
    push_schedule: &str,
    pull_schedule: &str,
    switch: Switch,
    gpu: &Gpu,
    device: &mut DeviceState,
    g: &DeviceGraph,
    source: u32,
    levels: &mut DeviceBuffer<u32>,
    parents: &mut DeviceBuffer<u32>,
) -> crate::Result<LoopStats> {
    let n = g.vertices();
    if levels.len() < n || parents.len() < n || source as usize >= n {
        return Err(LoopsError::InvalidGraph {
            detail: format!(
                "{} levels and {} parents from source {source} on a graph of {n} vertices",
                levels.len(),
                parents.len()
            ),
        });
    }
    let DeviceState {
        lp,
        ids: vertices,
        first: first_list,
    } = device;
    vertices.set_len(n);
    start::launch(
        "thread",
        gpu,
        g.offsets(),
        levels,
        parents,
        vertices,
        first_list,
        source,
    )?;
    // The source as a list the host knows the length of (written by the start), for the first
    // level of a hub (`super::bfs::HUB_DEGREE`): level 0 always pushes.
    let stats = g.offsets().stats();
    let hub_first = stats.max_tile_atoms > super::bfs::HUB_DEGREE;
    let mut first = true;
    let (levels, parents) = (
        std::cell::RefCell::new(levels),
        std::cell::RefCell::new(parents),
    );
    // What the run's launches depend on besides the loop's own buffers: the graph, the levels
    // and parents, the schedules (by name) and the switch (the loop adds its own).
    let name = |s: &str| {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        s.hash(&mut h);
        h.finish()
    };
    let key = [
        g.offsets().offsets().device_ptr(),
        g.offsets().wide_offsets().map_or(0, |w| w.device_ptr()),
        g.adj().device_ptr(),
        levels.borrow().device_ptr(),
        parents.borrow().device_ptr(),
        name(push_schedule),
        name(pull_schedule),
        stats.tiles,
        stats.atoms,
        stats.max_tile_atoms,
        stats.longest_empty_run,
        name(&format!("{:?} {}", stats.histogram, stats.empty_tiles)),
    ];
    let ran = lp.run_directed_kept(
        gpu,
        vertices,
        g.edges(),
        source,
        (switch.alpha, switch.beta),
        Some(&key),
        |loop_gpu, frontier, next, next_size, _level, edges| {
            // The first call is level 0's, launched directly (never recorded): the handle
            // captured here sizes a `merge_path` launch over the source on the host.
            let (schedule, gpu, frontier) = match (std::mem::take(&mut first), hub_first) {
                (true, true) => ("merge_path", gpu, &*first_list),
                _ => (push_schedule, loop_gpu, frontier),
            };
            let (offsets, adj) = (g.offsets(), g.adj());
            let (levels, parents) = (&mut levels.borrow_mut(), &mut parents.borrow_mut());
            match edges {
                Some(edges) => push_queue::launch(
                    schedule, gpu, offsets, adj, frontier, levels, parents, next, next_size, edges,
                ),
                None => super::bfs::queue::launch(
                    schedule, gpu, offsets, adj, frontier, levels, next, next_size,
                ),
            }
        },
        |gpu, vertices, next, next_size, level, rest, rest_size| {
            pull_queue::launch(
                pull_schedule,
                gpu,
                g.offsets(),
                g.adj(),
                vertices,
                &mut levels.borrow_mut(),
                &mut parents.borrow_mut(),
                next,
                next_size,
                level,
                rest,
                rest_size,
            )
        },
    )?;
    Ok(ran)
}

/// The pull step's schedule for timed runs: a thread per vertex. A pull level is an early-exit scan
/// per unvisited vertex, most of which stop at their first few neighbours; measured on an H100 on
/// R-MAT scale 22 (symmetrised), a pull level took 55-120 us under `thread`, 300-450 under `auto`,
/// 550-780 under `warp` and 1,400-1,800 under `group64`, whatever the push schedule
/// (examples/bench/README.md).
pub const FAST_PULL: &str = "thread";

/// The schedule of a small push level: one whose frontier fits one wave of a warp per vertex
/// (at most the device's resident warps) and whose vertices have at most [`SMALL_PUSH_DEGREE`]
/// edges each. Such a level is a warp's 32 strided iterations at most, while the schedules that cut
/// edge lists across threads (merge path, work-oriented, split) first prefix-sum the frontier's
/// sizes and read the total back (about 25 us on an H100): in the tail of an R-MAT BFS that was
/// 60-70 us a level against 30-40 under `warp`. The frontier's largest degree comes from the
/// previous level's compaction ([`Compaction::run_with_degrees`]); the first level, whose degree
/// the host does not know, runs under the schedule given.
pub const SMALL_PUSH: &str = "warp";

/// The most edges a vertex of a small push level ([`SMALL_PUSH`]) has: 32 lanes x 32 iterations.
pub const SMALL_PUSH_DEGREE: u32 = 1024;

/// The schedule of the pull step to pair with a push schedule: the same where the pull step has
/// it, else `warp` (the carry schedules cannot take the pull step's selection).
pub fn pull_schedule_for(push_schedule: &str) -> &'static str {
    pull::SCHEDULES
        .iter()
        .copied()
        .find(|&s| s == push_schedule)
        .unwrap_or("warp")
}

/// The buffers of a direction-optimizing BFS, reusable across runs on graphs of up to `vertices`
/// vertices, and what the last run did level by level.
pub struct DoBfs {
    vertices: usize,
    /// The push schedule of small push levels (see [`SMALL_PUSH`]), or `None`: every push level
    /// under the schedule [`run`] is given.
    pub small_push: Option<&'static str>,
    /// The host loop's buffers, made by its first run (a device run needs none of them: on a
    /// graph of 2M vertices their allocation cost a `bfs` call on the device 0.1 ms).
    host: Option<HostBuffers>,
    /// The loop of the device runs, the ids of the vertices (the pull step's list) and the first
    /// level's list, made by the first one.
    device: Option<DeviceState>,
    /// The last host run's levels: each one's direction, the size of the frontier it expanded (for a
    /// pull level, the vertices at `depth`), and its wall time in microseconds on the host (the
    /// step, the compaction and the read-back that ends the level: each level waits for the GPU).
    pub trace: Vec<(Direction, u32, f64)>,
}

/// The levels of a replay of [`DoBfs`]'s device runs (the loop's default is 48): a run keeps its
/// recorded replays ([`run`]), so a longer one costs no more to record after the first run, and
/// it halves the read-backs of a long traversal (each one leaves the GPU idle while the host reads
/// the state and launches the next replay), for up to 95 empty levels (one launch each that
/// returns at once) at the end instead of 47.
pub const DEVICE_LEVELS_PER_REPLAY: usize = 96;

/// The buffers of [`DoBfs`]'s device runs.
struct DeviceState {
    lp: FrontierLoop,
    /// The pull list (`ids[v] = v` from the start of each run).
    ids: DeviceBuffer<u32>,
    /// The source (one element), the first level's list of a hub.
    first: DeviceBuffer<u32>,
}

impl DoBfs {
    /// The state of runs on graphs of up to `vertices` vertices; the buffers of each loop are
    /// made by its first run.
    pub fn new(_gpu: &Gpu, vertices: usize) -> crate::Result<DoBfs> {
        Ok(DoBfs {
            vertices,
            small_push: Some(SMALL_PUSH),
            host: None,
            device: None,
            trace: Vec::new(),
        })
    }

    /// The loop of the device runs (made by the first), to set its options.
    pub fn device_loop(&mut self, gpu: &Gpu) -> crate::Result<&mut FrontierLoop> {
        Ok(&mut self.device_state(gpu)?.lp)
    }

    /// The state of the device runs, made by the first call.
    fn device_state(&mut self, gpu: &Gpu) -> crate::Result<&mut DeviceState> {
        if self.device.is_none() {
            let mut lp = FrontierLoop::new(gpu, self.vertices)?;
            lp.set_levels_per_replay(DEVICE_LEVELS_PER_REPLAY);
            self.device = Some(DeviceState {
                lp,
                ids: gpu.zeros(self.vertices.max(1))?,
                first: gpu.zeros(1)?,
            });
        }
        Ok(self.device.as_mut().expect("made above"))
    }

    /// The levels that pulled in the last host run.
    pub fn pull_levels(&self) -> usize {
        self.trace
            .iter()
            .filter(|(d, _, _)| *d == Direction::Pull)
            .count()
    }
}

/// BFS levels and parents from `source` on the undirected graph `g` (at most `state`'s vertices),
/// push steps under `push_schedule` and pull steps under `pull_schedule`, switched by `switch`,
/// in the loop of `strategy`: [`Strategy::Host`] (the host chooses each level's direction from
/// the counts it reads back; [`DoBfs::trace`] keeps the levels) or [`Strategy::DeviceQueue`]
/// (the device chooses, `FrontierLoop::run_directed` on the state's loop; `push_schedule` one of
/// [`DEVICE_PUSH_SCHEDULES`], `pull_schedule` one of [`pull_queue::SCHEDULES`]). `levels` and
/// `parents` (one element per vertex) are initialized here. Returns the run's statistics, its
/// pull levels among them. Errors if `source` is not a vertex or the graph does not fit `state` or has
/// `u32::MAX` edges or more (the device counts frontier edges in 32 bits), or for another
/// strategy.
pub fn run(
    strategy: Strategy,
    push_schedule: &str,
    pull_schedule: &str,
    switch: Switch,
    gpu: &Gpu,
    state: &mut DoBfs,
    g: &DeviceGraph,
    source: u32,
    levels: &mut DeviceBuffer<u32>,
    parents: &mut DeviceBuffer<u32>,
) -> crate::Result<LoopStats> {
    match strategy {
        Strategy::Host => {
            let stats = run_host(
                push_schedule,
                pull_schedule,
                switch,
                gpu,
                state,
                g,
                source,
                levels,
                parents,
            )?;
            Ok(LoopStats {
                pull_levels: state.pull_levels() as u32,
                ..stats
            })
        }
        Strategy::DeviceQueue => {
            if g.vertices() > state.vertices {
                return Err(LoopsError::InvalidGraph {
                    detail: format!(
                        "a graph of {} vertices for a BFS of {}",
                        g.vertices(),
                        state.vertices
                    ),
                });
            }
            let device = state.device_state(gpu)?;
            let ran = run_on_device(
                push_schedule,
                pull_schedule,
                switch,
                gpu,
                device,
                g,
                source,
                levels,
                parents,
            )?;
            // The push-only levels ran the plain step, which writes no parent.
            if device.lp.directed_pushed_only() {
                parents::launch("thread", gpu, g.offsets(), g.adj(), &*levels, parents)?;
            }
            Ok(ran)
        }
        other => Err(unsupported(
            "direction-optimizing bfs",
            other,
            "the host loop and the device queue",
        )),
    }
}

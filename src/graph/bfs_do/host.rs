//! The host loop of a direction-optimizing BFS ([`run`](super::run) with `Strategy::Host`): each
//! level's direction chosen on the host from the counts it reads back.

use super::*;

/// The buffers of [`DoBfs`]'s host loop.
pub(super) struct HostBuffers {
    pub(super) current: DeviceBuffer<u32>,
    pub(super) next: DeviceBuffer<u32>,
    pub(super) flags: DeviceBuffer<u32>,
    pub(super) counts: DeviceBuffer<u32>,
    pub(super) compaction: Compaction,
}

/// The host loop of [`run`](super::run).
pub(super) fn run_host(
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
    let n = g.vertices();
    let invalid = |detail: String| Err(LoopsError::InvalidGraph { detail });
    if n > state.vertices {
        return invalid(format!(
            "a graph of {n} vertices for a BFS of {}",
            state.vertices
        ));
    }
    if levels.len() < n || parents.len() < n {
        return invalid(format!(
            "{} levels and {} parents for a graph of {n} vertices",
            levels.len(),
            parents.len()
        ));
    }
    if source as usize >= n {
        return invalid(format!("source {source} of a graph of {n} vertices"));
    }
    if g.edges() >= u32::MAX as usize {
        return invalid(format!(
            "{} edges: frontier edges are counted in 32 bits",
            g.edges()
        ));
    }
    gpu.fill(levels, UNREACHED)?;
    gpu.fill(parents, UNREACHED)?;
    gpu.write_at(levels, source as usize, &[0])?;
    gpu.write_at(parents, source as usize, &[source])?;
    if state.host.is_none() {
        state.host = Some(HostBuffers {
            current: gpu.zeros(state.vertices.max(1))?,
            next: gpu.zeros(state.vertices.max(1))?,
            flags: gpu.zeros(state.vertices)?,
            counts: gpu.zeros(3)?,
            compaction: Compaction::new(gpu)?,
        });
    }
    let DoBfs {
        small_push,
        host,
        trace,
        ..
    } = state;
    let h = host.as_mut().expect("made above");
    // A run that failed half-way may have left flags set.
    h.flags.set_len(n);
    gpu.fill(&mut h.flags, 0)?;
    h.current.set_len(1);
    gpu.write_at(&mut h.current, 0, &[source])?;
    trace.clear();
    let mut stats = LoopStats::default();
    let mut direction = Direction::Push;
    let mut frontier = 1u64;
    let mut unexplored_edges = g.edges() as u64;
    let mut depth = 0u32;
    // The largest out-degree in the frontier: unknown for the sources.
    let mut max_degree = u32::MAX;
    let limits = gpu.limits();
    let resident_warps = limits.sm_count as u64 * (limits.max_threads_per_sm as u64 / 32);
    while frontier > 0 {
        if depth as usize > n {
            return Err(LoopsError::NoConvergence {
                iterations: depth as u64,
                frontier: frontier as usize,
            });
        }
        stats.frontier_vertices += frontier;
        stats.max_frontier = stats.max_frontier.max(frontier as usize);
        let level_start = std::time::Instant::now();
        gpu.fill(&mut h.counts, 0)?;
        match direction {
            Direction::Push => push::launch(
                match *small_push {
                    Some(small)
                        if frontier <= resident_warps && max_degree <= SMALL_PUSH_DEGREE =>
                    {
                        small
                    }
                    _ => push_schedule,
                },
                gpu,
                g.offsets(),
                g.adj(),
                &h.current,
                levels,
                parents,
                &mut h.flags,
                &mut h.counts,
                depth,
            )?,
            Direction::Pull => pull::launch(
                pull_schedule,
                gpu,
                g.offsets(),
                g.adj(),
                levels,
                parents,
                &mut h.flags,
                depth,
            )?,
        }
        h.next.set_len(n);
        // A push level's flags are heads of its frontier's out-edges: while those are few, the
        // compaction walks them instead of scanning every vertex's flag. It needs the frontier's
        // largest degree, which the last compaction read in full for a frontier this small.
        let walk = direction == Direction::Push
            && frontier <= resident_warps
            && g.offsets().wide_offsets().is_none()
            && compaction_walks(frontier as u32, max_degree, default_walk_limit(n));
        if walk {
            h.compaction.run_walk(
                gpu,
                &mut h.flags,
                &h.current,
                max_degree,
                &mut h.next,
                &mut h.counts,
                g,
            )?;
        } else {
            h.compaction.run_with_degrees(
                gpu,
                &mut h.flags,
                &mut h.next,
                &mut h.counts,
                g,
                // Only a frontier that small may be a small push level, or walk.
                resident_warps.min(u32::MAX as u64) as u32 + 1,
            )?;
        }
        let counts = gpu.download(&h.counts)?;
        let level_us = level_start.elapsed().as_secs_f64() * 1e6;
        trace.push((direction, frontier as u32, level_us));
        let (next_frontier, frontier_edges) = (counts[0] as u64, counts[1] as u64);
        max_degree = counts[2];
        if next_frontier > n as u64 {
            return invalid(format!(
                "the compaction counted {next_frontier} vertices of {n}"
            ));
        }
        if direction == Direction::Push {
            unexplored_edges = unexplored_edges.saturating_sub(frontier_edges);
        }
        let level = LevelCounts {
            vertices: n as u64,
            frontier: next_frontier,
            previous_frontier: frontier,
            frontier_edges,
            unexplored_edges,
        };
        direction = next_direction(switch, direction, level);
        std::mem::swap(&mut h.current, &mut h.next);
        h.current.set_len(next_frontier as usize);
        frontier = next_frontier;
        depth += 1;
    }
    stats.iterations = depth;
    Ok(stats)
}

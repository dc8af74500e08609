//! The graph room's kernels written in the loops language (tile-only bodies and the cooperative
//! append `push`), with `#[for_schedules]` as a user crate writes them: the runtime depends on
//! `loops-macros` and names itself `loops` (see the crate root), so the expansion's `::loops::..`
//! paths resolve here. The facade re-exports them (`loops::ops::frontier`).
//!
//! - [`degrees`]: each listed vertex's out-degree, and the largest;
//! - [`compaction`]: the set flags appended to a list and cleared (`compact.cuh`'s
//!   `loops_compact_flags`);
//! - [`compaction_degrees`]: the same, and the largest out-degree of the vertices appended below
//!   a position (`loops_compact_flags_degrees`);
//! - [`degree_sum`]: the out-degrees of a frontier added to a 64-bit count (`near_far.cuh`'s
//!   `loops_frontier_degrees`).
//!
//! A tile-only body runs one thread per tile under every schedule, so each kernel is stamped
//! under every named schedule (`#[for_schedules(all)]`, for the tests) or under `thread` alone
//! where only the runtime calls it.

/// The frontier-degree kernel, stamped under every schedule.
pub mod degrees {
    use loops_macros::for_schedules;

    /// `degrees[v]` = the out-degree of each vertex `v` listed in `frontier` (ids outside the graph
    /// are skipped), and the largest max-ed into `largest[0]` (read first, so that most vertices
    /// cost no atomic).
    #[for_schedules(all)]
    pub fn frontier_degrees(
        g: Offsets,
        frontier: &[u32],
        degrees: &mut [u32],
        largest: &mut [u32],
    ) {
        for v in g.tiles_in(frontier) {
            let d = (g.offsets[v + 1] - g.offsets[v]) as u32;
            degrees[v] = d;
            if d > largest[0] {
                atomic_max(&mut largest[0], d);
            }
        }
    }
}

/// The flag compaction kernel, stamped under every schedule.
pub mod compaction {
    use loops_macros::for_schedules;

    /// The ids of the vertices of `g` whose flag is set, appended to `list` at `count[0]` (staged
    /// per block: one atomic per block round, `kernels_gen::schedule::tile_only::staged_pushes`),
    /// their flags cleared. Every set flag is counted; a list too short for
    /// them gets the first ones only (the count tells).
    #[for_schedules(all)]
    pub fn compact_flags(g: Offsets, flags: &mut [u32], list: &mut [u32], count: &mut [u32]) {
        for v in g.tiles() {
            if flags[v] != 0 {
                flags[v] = 0;
                push(&mut list, &mut count[0], v as u32);
            }
        }
    }
}

/// The flag compaction that keeps the largest degree, under `thread`.
pub mod compaction_degrees {
    use loops_macros::for_schedules;

    /// [`compact_flags`](super::compaction::thread::compact_flags) over `counters`: the count at
    /// `counters[0]`, and the largest out-degree of the vertices appended below position
    /// `degrees_below` max-ed into `counters[2]` (`counters[1]` is the caller's).
    #[for_schedules(thread)]
    pub fn compact_flags_degrees(
        g: Offsets,
        flags: &mut [u32],
        list: &mut [u32],
        counters: &mut [u32],
        degrees_below: u32,
    ) {
        for v in g.tiles() {
            if flags[v] != 0 {
                flags[v] = 0;
                let at = push(&mut list, &mut counters[0], v as u32);
                if at < degrees_below as usize {
                    let d = (g.offsets[v + 1] - g.offsets[v]) as u32;
                    if d > counters[2] {
                        atomic_max(&mut counters[2], d);
                    }
                }
            }
        }
    }
}

/// The sum of a frontier's out-degrees, under `thread`.
pub mod degree_sum {
    use loops_macros::for_schedules;

    /// Adds the out-degrees of the vertices listed in `frontier` (ids outside the graph are
    /// skipped) to `total[0]`: the tile-only lowering sums a thread's vertices in a register and
    /// adds a block's sum with one atomic (`kernels_gen::schedule::tile_only::aggregated_atomics`;
    /// an atomic per vertex on one counter serialises: 3 ms for 4M vertices).
    #[for_schedules(thread)]
    pub fn frontier_degree_sum(g: Offsets, frontier: &[u32], total: &mut [u64]) {
        for v in g.tiles_in(frontier) {
            atomic_add(&mut total[0], (g.offsets[v + 1] - g.offsets[v]) as u64);
        }
    }
}

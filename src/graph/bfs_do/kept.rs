//! What [`bfs`](fn@crate::graph::bfs) keeps between its direction-optimizing calls
//! ([`run_kept`], [`release_kept`]).

use super::*;

/// What [`bfs`](fn@crate::graph::bfs) keeps between its direction-optimizing calls on one `Gpu`
/// handle (per thread): the state of the runs and, for the device queue, the levels and parents
/// the runs write, whose addresses the recorded launches hold.
struct Kept {
    /// The handle's stream (the kept buffers hold it, so it outlives them).
    stream: usize,
    state: DoBfs,
    work: Option<(DeviceBuffer<u32>, DeviceBuffer<u32>)>,
}

/// The handles whose state a thread keeps (the most recently used first).
const KEPT_HANDLES: usize = 4;

thread_local! {
    static KEPT: std::cell::RefCell<Vec<Kept>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Frees what [`bfs`](fn@crate::graph::bfs) keeps on this thread between its direction-optimizing
/// calls (the loop's buffers and recorded levels, about 6 words a vertex of the largest graph run
/// on each handle).
pub fn release_kept() {
    KEPT.with(|k| k.borrow_mut().clear());
}

/// [`run`] from the state kept on this thread for `gpu` (made by the first call on a graph that
/// large), as [`bfs`](fn@crate::graph::bfs) runs it: a second call on the same graph allocates
/// nothing and, in the device queue, records its batches of 6 levels, which later calls replay
/// (see [`run`]); there the runs write the kept levels and parents, copied into `levels` and
/// `parents` after each run (one pass, which also finds the parents of push-only levels).
pub fn run_kept(
    strategy: Strategy,
    push_schedule: &str,
    pull_schedule: &str,
    switch: Switch,
    gpu: &Gpu,
    g: &DeviceGraph,
    source: u32,
    levels: &mut DeviceBuffer<u32>,
    parents: &mut DeviceBuffer<u32>,
) -> crate::Result<LoopStats> {
    let n = g.vertices();
    let stream = std::sync::Arc::as_ptr(gpu.stream()) as usize;
    let found = KEPT.with(|k| {
        let mut k = k.borrow_mut();
        let at = k.iter().position(|e| e.stream == stream)?;
        Some(k.remove(at))
    });
    let mut kept = match found {
        Some(kept) if kept.state.vertices >= n => kept,
        _ => Kept {
            stream,
            state: DoBfs::new(gpu, n)?,
            work: None,
        },
    };
    let ran = match strategy {
        Strategy::DeviceQueue => {
            if kept.work.is_none() {
                let v = kept.state.vertices.max(1);
                kept.work = Some((gpu.zeros(v)?, gpu.zeros(v)?));
            }
            let (work_levels, work_parents) = kept.work.as_mut().expect("made above");
            let device = kept.state.device_state(gpu)?;
            let ran = run_on_device(
                push_schedule,
                pull_schedule,
                switch,
                gpu,
                device,
                g,
                source,
                work_levels,
                work_parents,
            )?;
            let find_parents = device.lp.directed_pushed_only() as u32;
            finish::launch(
                "thread",
                gpu,
                g.offsets(),
                g.adj(),
                &*work_levels,
                &*work_parents,
                levels,
                parents,
                find_parents,
            )?;
            ran
        }
        _ => run(
            strategy,
            push_schedule,
            pull_schedule,
            switch,
            gpu,
            &mut kept.state,
            g,
            source,
            levels,
            parents,
        )?,
    };
    KEPT.with(|k| {
        let mut k = k.borrow_mut();
        k.insert(0, kept);
        k.truncate(KEPT_HANDLES);
    });
    Ok(ran)
}

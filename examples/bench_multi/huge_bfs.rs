//! A BFS on a graph no one GPU holds (`loops::multi::synthetic::RandomMatchings`): each part's
//! rows made on the host where that part is uploaded, then dropped; the levels checked the
//! Graph500 way on sampled vertices and all their edges.

use super::*;
use loops::multi::synthetic::{graph500_check, RandomMatchings};
use loops::multi::{ByDegree, RowPartition};

pub fn run(
    scale: u32,
    degree: u32,
    group: &GpuGroup,
    reps: usize,
    out: &mut Vec<Row>,
) -> Result<(), Box<dyn std::error::Error>> {
    let g = RandomMatchings {
        scale,
        degree,
        seed: 41,
    };
    let n = g.vertices();
    let parts = group.parts();
    let card = group.gpu(0).memory_info()?.total_bytes as f64 / 1e9;
    let starts: Vec<usize> = (0..=parts).map(|p| p * n / parts).collect();
    let partition = RowPartition::from_starts(starts).ok_or("a partition")?;
    let t = Instant::now();
    let edges = std::sync::atomic::AtomicU64::new(0);
    let mut dg = group.upload_graph_rows(n, partition, |p, rows| {
        let t = Instant::now();
        let part = g.rows(rows.clone());
        edges.fetch_add(part.adj.len() as u64, std::sync::atomic::Ordering::Relaxed);
        println!(
            "huge BFS: part {p}: vertices {rows:?}, {} edges ({:.1} GB) made in {:.1} s",
            part.adj.len(),
            part.adj.len() as f64 * 4.0 / 1e9,
            t.elapsed().as_secs_f64()
        );
        Ok(part)
    })?;
    let edges = edges.into_inner();
    let gb = edges as f64 * 4.0 / 1e9;
    println!(
        "huge BFS: {n} vertices, {edges} directed edges ({gb:.1} GB of u32 heads; one GPU \
         holds {card:.1} GB) over {parts} GPU(s), made and uploaded in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    type Step = fn(
        &Gpu,
        &loops::DeviceOffsets,
        &DeviceBuffer<u32>,
        &DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
    ) -> loops::Result<()>;
    // Parts of more than i32::MAX edges have 64-bit offsets: `thread` and `warp` take them.
    let step = ByDegree {
        light: loops::graph::bfs::warp::bfs as Step,
        heavy: loops::graph::bfs::warp::bfs as Step,
        heavy_from: u32::MAX,
    };
    let source = (0..n as u32).find(|&u| !g.isolated(u)).ok_or("no source")?;
    let (levels, stats) = group.bfs(&mut dg, source, step)?;
    group.synchronize()?;
    let t = Instant::now();
    let host = group.gather(&levels)?;
    drop(levels);
    let download = t.elapsed().as_secs_f64();
    // Graph500: sampled vertices (and the source's neighbours) with all their edges.
    let mix = |z: u64| {
        let mut z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let sample: Vec<u32> = (0..200_000u64)
        .map(|s| (mix(s ^ 0x6a09) % n as u64) as u32)
        .chain(g.neighbours(source))
        .collect();
    let t = Instant::now();
    let seen = graph500_check(|v| host[v as usize], source, sample, |u| g.neighbours(u))
        .map_err(|e| format!("huge BFS: the Graph500 check failed: {e}"))?;
    let reached = host
        .iter()
        .filter(|&&l| l != loops::graph::UNREACHED)
        .count();
    let depth = host
        .iter()
        .filter(|&&l| l != loops::graph::UNREACHED)
        .max()
        .copied()
        .unwrap_or(0);
    println!(
        "huge BFS: Graph500 check passed on {} sampled vertices ({} reached) and their {} \
         edges in {:.1} s; {reached} of {n} vertices reached, depth {depth}, {} levels; \
         levels downloaded in {download:.1} s",
        seen.vertices,
        seen.reached,
        seen.edges,
        t.elapsed().as_secs_f64(),
        stats.levels
    );
    drop(host);
    let ms = median_ms(reps.min(5), || {
        group.bfs(&mut dg, source, step)?;
        group.synchronize()
    })?;
    record(
        out,
        Row {
            case: format!(
                "huge BFS 2^{scale} vertices, {edges} edges ({gb:.0} GB), {} levels",
                stats.levels
            ),
            gpus: parts,
            exchange: "reduce-scatter",
            ms,
            speedup: f64::NAN,
            bytes: (stats.exchanged_bytes / stats.queued_levels.max(1) as u64) as usize,
            hidden: None,
            phases: None,
            download: Some(download * 1e3),
            per_level_us: Some(ms * 1e3 / stats.levels.max(1) as f64),
        },
    );
    println!(
        "huge BFS: {:.2} G edges traversed a second (directed edges of the reached vertices \
         over the median time)",
        edges as f64 * reached as f64 / n as f64 / (ms * 1e-3) / 1e9
    );
    Ok(())
}

//! A matrix no one GPU holds: each part's rows are generated on the host where that part is
//! uploaded, then dropped, so neither one GPU nor the host ever holds the whole matrix.

use super::*;
use loops::multi::{Block, PartBlocks, RowPartition};

const PER_ROW: usize = 16;
const NEAR: u64 = 1024;

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Row `i`'s entries (column, value): the same wherever and whenever it is made.
fn row(i: usize, n: usize) -> impl Iterator<Item = (i32, f64)> {
    (0..PER_ROW).map(move |e| {
        let h = mix(((i as u64) << 5) | e as u64);
        let col = if h.is_multiple_of(10) {
            (h >> 8) % n as u64
        } else {
            let near = (h >> 8) % (2 * NEAR + 1);
            (i as u64 + near).saturating_sub(NEAR).min(n as u64 - 1)
        };
        (col as i32, ((h >> 40) % 1000) as f64 / 1000.0 - 0.5)
    })
}

fn x(j: usize) -> f64 {
    (mix(j as u64 ^ 0xabcdef) % 2000) as f64 / 1000.0 - 1.0
}

/// Part rows `rows` in CSR, made on every core.
fn make(rows: std::ops::Range<usize>, n: usize) -> Block<f64> {
    let len = rows.len();
    let threads = std::thread::available_parallelism().map_or(8, |t| t.get());
    let mut indices = vec![0i32; len * PER_ROW];
    let mut values = vec![0f64; len * PER_ROW];
    let chunk = len.div_ceil(threads).max(1);
    std::thread::scope(|s| {
        for ((c, ind), val) in indices
            .chunks_mut(chunk * PER_ROW)
            .enumerate()
            .zip(values.chunks_mut(chunk * PER_ROW))
        {
            let first = rows.start + c * chunk;
            s.spawn(move || {
                let rows = ind.chunks_mut(PER_ROW).zip(val.chunks_mut(PER_ROW));
                for (r, (ind, val)) in rows.enumerate() {
                    for (e, (col, v)) in row(first + r, n).enumerate() {
                        ind[e] = col;
                        val[e] = v;
                    }
                }
            });
        }
    });
    Block {
        rows: len,
        cols: n,
        offsets: (0..=len).map(|r| (r * PER_ROW) as u64).collect(),
        indices,
        values,
    }
}

pub fn run(
    nnz: usize,
    group: &GpuGroup,
    out: &mut Vec<Row>,
) -> Result<(), Box<dyn std::error::Error>> {
    let n = nnz / PER_ROW;
    let parts = group.parts();
    if n > i32::MAX as usize {
        return Err(format!(
            "--huge-nnz {nnz}: {n} rows; at most {} (32-bit columns)",
            i32::MAX
        )
        .into());
    }
    let bytes = nnz as f64 * 12.0 / 1e9;
    let card = group.gpu(0).memory_info()?.total_bytes as f64 / 1e9;
    println!(
        "huge: {n} rows, {nnz} nonzeros (f64: {bytes:.1} GB of matrix; one GPU holds \
         {card:.1} GB) over {parts} GPU(s)"
    );
    let starts: Vec<usize> = (0..=parts)
        .map(|p| (p * n).div_ceil(parts).min(n))
        .collect();
    let partition = RowPartition::from_starts(starts).ok_or("a partition")?;
    let t = Instant::now();
    let split = partition.clone();
    let mut da = group.upload_rows(n, partition, |p, rows| {
        let t = Instant::now();
        let host = make(rows.clone(), n);
        let made = t.elapsed().as_secs_f64();
        let b = PartBlocks::of_rows(&split, p, &host.offsets, &host.indices, &host.values);
        println!(
            "huge: part {p}: rows {rows:?} made in {made:.1} s, split in {:.1} s, {} ghosts",
            t.elapsed().as_secs_f64() - made,
            b.ghosts.len()
        );
        Ok(b)
    })?;
    println!("huge: uploaded in {:.1} s", t.elapsed().as_secs_f64());
    let x: Vec<f64> = (0..n).map(x).collect();
    let dx = group.scatter(&da, &x, 1)?;
    let mut dy = group.zeros(&da, 1)?;
    // A part of more than i32::MAX entries has 64-bit offsets, which `thread` handles.
    let spmv = kernels::spmv::thread::spmv::<f64>;
    for (exchange, label) in [
        (Exchange::PointToPoint, "p2p"),
        (Exchange::AllGather, "all-gather"),
    ] {
        for p in group.local_parts() {
            group.gpu(p).fill(dy.part_mut(p), f64::NAN)?;
        }
        group.spmv(&mut da, spmv, &dx, &mut dy, exchange)?;
        group.synchronize()?;
        let y = group.gather(&dy)?;
        // Sampled rows against the CPU, the first and last of every part among them.
        let mut sample: Vec<usize> = (0..100_000).map(|s| (mix(s) % n as u64) as usize).collect();
        let edges = da.partition().starts().iter();
        sample.extend(edges.flat_map(|&s| [s.saturating_sub(1), s.min(n - 1)]));
        let mut worst = 0f64;
        for &i in &sample {
            let want: f64 = row(i, n).map(|(c, v)| v * x[c as usize]).sum();
            let scale: f64 = row(i, n).map(|(c, v)| (v * x[c as usize]).abs()).sum();
            let err = (y[i] - want).abs() / scale.max(1e-300);
            if err.is_nan() || err > 1e-12 {
                return Err(format!("huge, {label}: row {i}: {} against {want}", y[i]).into());
            }
            worst = worst.max(err);
        }
        println!(
            "huge, {label}: {} sampled rows match the CPU (worst relative error {worst:.1e})",
            sample.len()
        );
        let ms = median_ms(10, || {
            group.spmv(&mut da, spmv, &dx, &mut dy, exchange)?;
            group.synchronize()
        })?;
        record(
            out,
            Row {
                case: format!("huge f64 SpMV {n} rows, {nnz} nnz ({bytes:.0} GB)"),
                gpus: parts,
                exchange: label,
                ms,
                speedup: f64::NAN,
                bytes: group.exchange_bytes(&da, 1, exchange),
                hidden: None,
                phases: None,
                download: None,
                per_level_us: None,
            },
        );
    }
    Ok(())
}

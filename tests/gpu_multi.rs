//! The distributed products (`loops::multi`) on the GPU: every generated and real square
//! matrix split into 1, 2, 3 and 5 parts on this machine's first GPU (the parts exchange by
//! device-to-device copies), SpMV and SpMM (k = 3 and 8) under three schedules, both exchanges,
//! f32 and f64, outputs poisoned, against the CPU reference and the single-GPU product. Then the
//! group over every device of the host: NCCL where there are several, one part where there is one.
#![cfg(feature = "gpu")]

mod common;
use loops_kernels as kernels;

use loops::check;
use loops::multi::{Exchange, GpuGroup};
use loops::prelude::*;
use loops::LoopsError;

type SpmvFn<T> =
    fn(&Gpu, &DeviceCsr<T>, &DeviceBuffer<T>, &mut DeviceBuffer<T>) -> loops::Result<()>;
type SpmmFn<T> =
    fn(&Gpu, &DeviceCsr<T>, &DeviceBuffer<T>, &mut DeviceBuffer<T>, usize) -> loops::Result<()>;

fn spmv_kernels<T: Float>() -> Vec<(&'static str, SpmvFn<T>)> {
    use kernels::spmv;
    vec![
        ("thread", spmv::thread::spmv::<T>),
        ("merge_path", spmv::merge_path::spmv::<T>),
        ("auto", spmv::auto::spmv::<T>),
    ]
}

fn spmm_kernels<T: Float>() -> Vec<(&'static str, SpmmFn<T>)> {
    use kernels::spmm;
    vec![
        ("warp", spmm::warp::spmm::<T>),
        ("merge_path", spmm::merge_path::spmm::<T>),
    ]
}

/// `C = A B` column by column against the CPU reference (row-major B, C with `k` columns).
fn check_product<T: Float>(a: &sprs::CsMat<T>, b: &[T], c: &[T], k: usize) -> Result<(), String> {
    for j in 0..k {
        let x: Vec<T> = (0..a.cols()).map(|i| b[i * k + j]).collect();
        let y: Vec<T> = (0..a.rows()).map(|i| c[i * k + j]).collect();
        let check = check::check_spmv(a, &x, &y);
        if !check.passed() {
            return Err(format!("column {j}: {check}"));
        }
    }
    Ok(())
}

/// One matrix on the group's parts: every kernel, both exchanges, SpMV and SpMM; the result is
/// checked against the CPU and against the same kernel on the whole matrix on one GPU.
fn run_one<T: Float>(
    gpu: &Gpu,
    group: &GpuGroup,
    a: &sprs::CsMat<T>,
    seed: u64,
) -> Result<String, String> {
    let e = |e: LoopsError| e.to_string();
    let mut da = group.upload_csr(a).map_err(e)?;
    let whole = gpu.upload_csr(a).map_err(e)?;
    let mut checks = 0;
    for exchange in [Exchange::PointToPoint, Exchange::AllGather] {
        for k in [1usize, 3, 8] {
            let b: Vec<T> = loops::io::generate::random_vector(a.cols() * k, seed + k as u64);
            let db = group.scatter(&da, &b, k).map_err(e)?;
            let one_b = gpu.upload(&b).map_err(e)?;
            let runs: Vec<&str> = if k == 1 {
                spmv_kernels::<T>().iter().map(|(n, _)| *n).collect()
            } else {
                spmm_kernels::<T>().iter().map(|(n, _)| *n).collect()
            };
            for (i, name) in runs.iter().enumerate() {
                let mut dc = group.zeros(&da, k).map_err(e)?;
                for p in 0..group.parts() {
                    group.gpu(p).fill(dc.part_mut(p), T::POISON).map_err(e)?;
                }
                let mut one_c = gpu.zeros::<T>(a.rows() * k).map_err(e)?;
                gpu.fill(&mut one_c, T::POISON).map_err(e)?;
                if k == 1 {
                    let kernel = spmv_kernels::<T>()[i].1;
                    group
                        .spmv(&mut da, kernel, &db, &mut dc, exchange)
                        .map_err(e)?;
                    kernel(gpu, &whole, &one_b, &mut one_c).map_err(e)?;
                } else {
                    let kernel = spmm_kernels::<T>()[i].1;
                    group
                        .spmm(&mut da, kernel, &db, &mut dc, exchange)
                        .map_err(e)?;
                    kernel(gpu, &whole, &one_b, &mut one_c, k).map_err(e)?;
                }
                group.synchronize().map_err(e)?;
                let c = group.gather(&dc).map_err(e)?;
                let one = gpu.download(&one_c).map_err(e)?;
                let what = |m: String| format!("{name} k={k} {exchange:?}: {m}");
                check_product(a, &b, &c, k).map_err(what)?;
                check_product(a, &b, &one, k).map_err(|m| what(format!("one GPU: {m}")))?;
                checks += 1;
            }
        }
    }
    Ok(format!(
        "{checks} products, {} ghost rows, {} bytes per SpMV step exchanged point to point, {} by all-gather",
        (0..group.parts()).map(|p| da.ghosts(p)).sum::<usize>(),
        group.exchange_bytes(&da, 1, Exchange::PointToPoint),
        group.exchange_bytes(&da, 1, Exchange::AllGather),
    ))
}

fn run_all<T: Float>(matrices: Vec<(String, sprs::CsMat<T>)>) {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); device {}",
        gpu.name()
    );
    let mut failures = Vec::new();
    let mut square = 0;
    for parts in [1, 2, 3, 5] {
        let group = GpuGroup::on_one_gpu(&gpu, parts).expect("a group on one GPU");
        for (i, (name, a)) in matrices.iter().enumerate() {
            if a.rows() != a.cols() {
                // Refused with the distributed error, never split.
                match group.upload_csr(a) {
                    Err(LoopsError::Distributed { detail }) if detail.contains("square") => {
                        continue
                    }
                    other => {
                        failures.push(format!(
                            "{name}: a non-square matrix gave {:?}",
                            other.err()
                        ));
                        continue;
                    }
                }
            }
            square += 1;
            let line = format!(
                "{name:<36} {:>7} {:>8} {:<4} {parts} parts",
                a.rows(),
                a.nnz(),
                T::RUST_NAME
            );
            match run_one(&gpu, &group, a, seed.wrapping_add(i as u64)) {
                Ok(m) => println!("ok   {line}: {m}"),
                Err(m) => {
                    println!("FAIL {line}: {m}");
                    failures.push(format!("{line}: {m}"));
                }
            }
        }
    }
    assert!(square > 0, "no square matrix was checked");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn parts_on_one_gpu_match_the_cpu_on_generated_matrices() {
    let seed = common::fresh_seed();
    run_all(common::generated_matrices::<f32>(seed));
    run_all(common::generated_matrices::<f64>(seed));
}

#[test]
fn parts_on_one_gpu_match_the_cpu_on_real_matrices() {
    run_all(common::real_matrices::<f32>());
    run_all(common::real_matrices::<f64>());
}

/// Every device of the host, one part each, through NCCL (a one-rank communicator on a one-GPU
/// machine; libnccl must load: the test fails without it). The products are checked.
#[test]
fn the_group_of_every_device_matches_the_cpu() {
    let gpu = common::gpu();
    let devices: Vec<usize> = (0..Gpu::count().unwrap()).collect();
    let group = GpuGroup::new_nccl(&devices).expect("an NCCL group over every device");
    println!(
        "{} devices, {}",
        group.parts(),
        if group.uses_nccl() {
            "NCCL"
        } else {
            "no NCCL (one device)"
        }
    );
    let seed = common::fresh_seed();
    let a: sprs::CsMat<f32> =
        loops::io::generate::power_law(30_000, 30_000, 12.0, 2.0, false, seed);
    match run_one(&gpu, &group, &a, seed) {
        Ok(m) => println!("ok   power-law 30000: {m}"),
        Err(m) => panic!("power-law 30000 over {} devices: {m}", group.parts()),
    }
}

/// Buffers from another group or of the wrong shape are errors, and nothing is launched.
#[test]
fn misshapen_inputs_are_refused() {
    let gpu = common::gpu();
    let g2 = GpuGroup::on_one_gpu(&gpu, 2).unwrap();
    let g3 = GpuGroup::on_one_gpu(&gpu, 3).unwrap();
    let a: sprs::CsMat<f32> = loops::io::generate::power_law(1000, 1000, 6.0, 2.0, false, 5);
    let mut d2 = g2.upload_csr(&a).unwrap();
    let x = g2.scatter(&d2, &vec![1.0; 1000], 1).unwrap();
    let mut y = g2.zeros(&d2, 1).unwrap();
    let spmv = kernels::spmv::thread::spmv::<f32>;
    assert!(matches!(
        g3.spmv(&mut d2, spmv, &x, &mut y, Exchange::PointToPoint),
        Err(LoopsError::Distributed { .. })
    ));
    let mut y4 = g2.zeros(&d2, 4).unwrap();
    assert!(matches!(
        g2.spmv(&mut d2, spmv, &x, &mut y4, Exchange::PointToPoint),
        Err(LoopsError::Distributed { .. })
    ));
    assert!(matches!(
        g2.scatter(&d2, &[1.0; 999], 1),
        Err(LoopsError::Distributed { .. })
    ));
    assert!(matches!(
        GpuGroup::new(&[0, 0]),
        Err(LoopsError::Distributed { .. })
    ));
    g2.spmv(&mut d2, spmv, &x, &mut y, Exchange::PointToPoint)
        .unwrap();
    g2.synchronize().unwrap();
    let y = g2.gather(&y).unwrap();
    assert!(check::check_spmv(&a, &vec![1.0; 1000], &y).passed());
}

/// BFS over 1, 2, 3 and 5 parts of one GPU and over every device (NCCL's reduce-scatter of the
/// packed flags where there are several, then each part sending its flags to their owners over NVLink): the user's
/// push step (`bfs` under `thread`, `warp` and
/// `merge_path`, and a choice per level and part, `warp` below a small hub degree and
/// `work_oriented` from it) on each part's frontier, from vertex 0 and from the largest hub, twice
/// on one uploaded graph. The levels stay on the devices: gathered, and each part downloaded
/// alone, they equal the CPU's.
#[test]
fn distributed_bfs_matches_the_cpu() {
    use loops::graph::{bfs_levels, compare, Graph};
    use loops::multi::{ByDegree, PushStep};
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed} (replay with LOOPS_SEED={seed})");
    let graphs: Vec<(&str, Graph)> = vec![
        (
            "kronecker 14",
            Graph::from_pattern(
                &loops::io::generate::kronecker::<f32>(14, 16, seed),
                1,
                seed,
            )
            .unwrap(),
        ),
        (
            "road 20000",
            Graph::from_pattern(&loops::io::generate::road::<f32>(20_000, seed), 1, seed).unwrap(),
        ),
        (
            "grid 100x100",
            Graph::from_pattern(&loops::io::generate::grid2d::<f32>(100, 100, seed), 1, seed)
                .unwrap(),
        ),
        (
            "rmat 12 (directed)",
            Graph::from_pattern(&loops::io::generate::rmat::<f32>(12, 8, seed), 1, seed).unwrap(),
        ),
    ];
    type Step = fn(
        &Gpu,
        &DeviceOffsets,
        &DeviceBuffer<u32>,
        &DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
    ) -> loops::Result<()>;
    let by_degree = ByDegree {
        light: loops::graph::bfs::warp::bfs as Step,
        heavy: loops::graph::bfs::work_oriented::bfs as Step,
        heavy_from: 24,
    };
    let steps: [(&str, &dyn PushStep); 4] = [
        ("thread", &(loops::graph::bfs::thread::bfs as Step)),
        ("warp", &(loops::graph::bfs::warp::bfs as Step)),
        ("merge_path", &(loops::graph::bfs::merge_path::bfs as Step)),
        ("warp / work_oriented from degree 24", &by_degree),
    ];
    let mut groups: Vec<GpuGroup> = [1, 2, 3, 5]
        .iter()
        .map(|&p| GpuGroup::on_one_gpu(&gpu, p).unwrap())
        .collect();
    let devices: Vec<usize> = (0..Gpu::count().unwrap()).collect();
    groups.push(GpuGroup::new_nccl(&devices).unwrap());
    groups.push(GpuGroup::new_nccl(&devices).unwrap());
    println!(
        "{} GPU(s) visible: the last two groups run {} part(s) on {} device(s) through NCCL, the \
         last one reading the peers' flags over NVLink where there are several",
        devices.len(),
        devices.len(),
        devices.len()
    );
    let mut failures = Vec::new();
    for (i, group) in groups.iter().enumerate() {
        for (name, g) in &graphs {
            // The last group's graphs are uploaded with the peer-read exchange asked for.
            let peer = i + 1 == groups.len();
            if peer {
                std::env::set_var("LOOPS_MULTI_PEER", "1");
            }
            let mut dg = group.upload_graph(g).unwrap();
            std::env::remove_var("LOOPS_MULTI_PEER");
            for source in common::graph_sources(g) {
                let want = bfs_levels(g, source);
                for (schedule, step) in steps {
                    let (levels, stats) = group.bfs(&mut dg, source, step).unwrap();
                    let got = group.gather(&levels).unwrap();
                    let line = format!(
                        "{name} from {source}, {} parts{}, {schedule}: {} levels, {} bytes \
                         exchanged",
                        group.parts(),
                        if group.uses_nccl() { " (NCCL)" } else { "" },
                        stats.levels,
                        stats.exchanged_bytes
                    );
                    let each_part = group.local_parts().find_map(|p| {
                        let own = dg.partition().range(p);
                        let part = group.gpu(p).download(levels.part(p)).unwrap();
                        (part != want[own.clone()]).then(|| format!("part {p} ({own:?}) differs"))
                    });
                    match (compare("levels", &want, &got), each_part) {
                        (Ok(()), None) => println!("ok   {line}"),
                        (Ok(()), Some(e)) => failures.push(format!("{line}: {e}")),
                        (Err(e), _) => failures.push(format!("{line}: {e}")),
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The levels queued in batches with the frontier sizes on the device (`levels_per_check` 7 and
/// 64) against one wait a level (1), on graphs of many levels (a grid, a road network) and on
/// random matchings uploaded part by part (`upload_graph_rows`), over 1 and 3 parts of one GPU
/// and over every device (NCCL's reduce-scatter, then each part's flags sent to their owners over NVLink): the
/// levels equal the CPU's, the levels counted equal its depth, a `warp` step waits once a batch
/// and a `merge_path` step (which sizes its launches on the host) falls back to a wait a level.
/// The matchings' levels also pass the Graph500 check on every vertex.
#[test]
fn batched_bfs_matches_the_cpu_and_waits_once_a_batch() {
    use loops::graph::{bfs_levels, compare, Graph, UNREACHED};
    use loops::multi::synthetic::{graph500_check, RandomMatchings};
    use loops::multi::{ByDegree, PushStep, RowPartition, HOST_LEVELS};
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed} (replay with LOOPS_SEED={seed})");
    let matchings = RandomMatchings {
        scale: 14,
        degree: 3,
        seed,
    };
    // The matchings as a host graph too, for the CPU's BFS.
    let rows = matchings.rows(0..matchings.vertices());
    let offsets: Vec<usize> = rows.offsets.iter().map(|&o| o as usize).collect();
    let weights = vec![1; rows.adj.len()];
    let matchings_graph = Graph::new(offsets, rows.adj.to_vec(), weights).unwrap();
    let graphs: Vec<(&str, Graph, bool)> = vec![
        (
            "grid 150x150",
            Graph::from_pattern(&loops::io::generate::grid2d::<f32>(150, 150, seed), 1, seed)
                .unwrap(),
            false,
        ),
        (
            "road 20000",
            Graph::from_pattern(&loops::io::generate::road::<f32>(20_000, seed), 1, seed).unwrap(),
            false,
        ),
        ("random matchings 2^14, degree 3", matchings_graph, true),
    ];
    type Step = fn(
        &Gpu,
        &DeviceOffsets,
        &DeviceBuffer<u32>,
        &DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
    ) -> loops::Result<()>;
    let by_degree = ByDegree {
        light: loops::graph::bfs::warp::bfs as Step,
        heavy: loops::graph::bfs::work_oriented::bfs as Step,
        heavy_from: loops::multi::HUB_DEGREE,
    };
    let steps: [(&str, &dyn PushStep, bool); 3] = [
        ("warp / work_oriented", &by_degree, true),
        ("thread", &(loops::graph::bfs::thread::bfs as Step), true),
        (
            "merge_path",
            &(loops::graph::bfs::merge_path::bfs as Step),
            false,
        ),
    ];
    let devices: Vec<usize> = (0..Gpu::count().unwrap()).collect();
    let mut groups: Vec<(GpuGroup, bool)> = vec![
        (GpuGroup::on_one_gpu(&gpu, 1).unwrap(), false),
        (GpuGroup::on_one_gpu(&gpu, 3).unwrap(), false),
        (GpuGroup::new_nccl(&devices).unwrap(), false),
    ];
    if devices.len() > 1 {
        groups.push((GpuGroup::new_nccl(&devices).unwrap(), true));
    }
    println!(
        "{} GPU(s) visible: {}",
        devices.len(),
        if devices.len() > 1 {
            format!(
                "the last two groups run {} parts on {} devices, through NCCL, then sending \
                 each part's flags to their owners over NVLink",
                devices.len(),
                devices.len()
            )
        } else {
            "the last group runs one part through NCCL (one device: no several-device path)".into()
        }
    );
    let mut failures = Vec::new();
    for (group, peer) in &groups {
        for (name, g, generated) in &graphs {
            if *peer {
                std::env::set_var("LOOPS_MULTI_PEER", "1");
            }
            let mut dg = if *generated {
                // Part by part, as a graph larger than one GPU is.
                let n = matchings.vertices();
                let starts = (0..=group.parts()).map(|p| p * n / group.parts()).collect();
                let partition = RowPartition::from_starts(starts).unwrap();
                group
                    .upload_graph_rows(n, partition, |_, own| Ok(matchings.rows(own)))
                    .unwrap()
            } else {
                group.upload_graph(g).unwrap()
            };
            std::env::remove_var("LOOPS_MULTI_PEER");
            let source = (0..g.vertices() as u32)
                .find(|&v| g.degree(v as usize) > 0)
                .unwrap();
            let want = bfs_levels(g, source);
            let depth = want.iter().filter(|&&l| l != UNREACHED).max().unwrap() + 1;
            for per_check in [1usize, 7, 64] {
                dg.set_levels_per_check(per_check);
                for (schedule, step, on_device) in steps {
                    let (levels, stats) = group.bfs(&mut dg, source, step).unwrap();
                    let got = group.gather(&levels).unwrap();
                    let line = format!(
                        "{name}, {} parts{}{}, {per_check} levels a check, {schedule}: {} levels, \
                         {} queued, {} host waits",
                        group.parts(),
                        if group.uses_nccl() { " (NCCL)" } else { "" },
                        if *peer { " (peer reads)" } else { "" },
                        stats.levels,
                        stats.queued_levels,
                        stats.host_waits
                    );
                    let batched = per_check > 1 && on_device && depth > HOST_LEVELS;
                    let mut wrong = compare("levels", &want, &got).err().map(|e| e.to_string());
                    if stats.levels != depth {
                        wrong = Some(format!(
                            "{} levels counted, the CPU's depth {depth}",
                            stats.levels
                        ));
                    } else if batched == (stats.host_waits == stats.levels) {
                        wrong = Some(format!("batched {batched}, {} waits", stats.host_waits));
                    } else if stats.queued_levels < stats.levels
                        || stats.queued_levels - stats.levels >= per_check as u32
                    {
                        wrong = Some(format!("{} levels queued", stats.queued_levels));
                    }
                    if *generated && wrong.is_none() {
                        let check = graph500_check(
                            |v| got[v as usize],
                            source,
                            0..g.vertices() as u32,
                            |u| matchings.neighbours(u),
                        );
                        wrong = check.err();
                    }
                    match wrong {
                        None => println!("ok   {line}"),
                        Some(e) => failures.push(format!("{line}: {e}")),
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A group across processes, one GPU each, as over several hosts: the test starts this binary
/// again as each rank (`LOOPS_RANK`, `LOOPS_WORLD_SIZE`, `LOOPS_BOOTSTRAP`, `LOOPS_DEVICE`), with 2
/// and 4 processes where the host has that many GPUs (one process on a one-GPU host), TCP and a
/// file in turn to hand out NCCL's id. Each rank uploads only its own parts, runs SpMV (both
/// exchanges), SpMM (k = 8) and BFS, and checks its own rows against the CPU.
#[test]
fn processes_form_one_group() {
    if std::env::var_os("LOOPS_RANK").is_some() {
        return one_rank();
    }
    let devices = Gpu::count().unwrap();
    let mut sizes: Vec<usize> = [2, 4].into_iter().filter(|&s| s <= devices).collect();
    if sizes.is_empty() {
        sizes.push(1);
    }
    println!("{devices} GPU(s) visible: groups of {sizes:?} processes");
    let seed = common::fresh_seed();
    let exe = std::env::current_exe().unwrap();
    for (i, &size) in sizes.iter().enumerate() {
        let bootstrap = if i % 2 == 0 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            format!("127.0.0.1:{port}")
        } else {
            let path = std::env::temp_dir().join(format!(
                "loops-nccl-id-{}-{size}-{seed}",
                std::process::id()
            ));
            let _ = std::fs::remove_file(&path);
            format!("file:{}", path.display())
        };
        // Each rank's output goes to files (a full pipe would stall a rank inside NCCL); when one
        // rank fails or the time is up, the others are killed rather than left waiting in NCCL.
        let logs = std::env::temp_dir().join(format!("loops-ranks-{}-{size}", std::process::id()));
        std::fs::create_dir_all(&logs).unwrap();
        let file = |r: usize, what: &str| logs.join(format!("rank{r}.{what}"));
        let mut children: Vec<_> = (0..size)
            .map(|r| {
                std::process::Command::new(&exe)
                    .args(["--exact", "processes_form_one_group", "--nocapture"])
                    .env("LOOPS_RANK", r.to_string())
                    .env("LOOPS_WORLD_SIZE", size.to_string())
                    .env("LOOPS_BOOTSTRAP", &bootstrap)
                    .env("LOOPS_DEVICE", r.to_string())
                    .env("LOOPS_SEED", seed.to_string())
                    .env("LOOPS_BOOTSTRAP_TIMEOUT", "60")
                    .env("NCCL_NVLS_ENABLE", "0")
                    .stdout(std::fs::File::create(file(r, "out")).unwrap())
                    .stderr(std::fs::File::create(file(r, "err")).unwrap())
                    .spawn()
                    .expect("starting a rank")
            })
            .collect();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(240);
        let mut status = vec![None; size];
        while status.iter().any(|s| s.is_none()) {
            for (r, child) in children.iter_mut().enumerate() {
                if status[r].is_none() {
                    status[r] = child.try_wait().expect("a rank's status");
                }
            }
            let one_failed = status.iter().flatten().any(|s| !s.success());
            if one_failed || std::time::Instant::now() > deadline {
                // Give the others a moment to fail on their own, then end them.
                std::thread::sleep(std::time::Duration::from_secs(5));
                for (r, child) in children.iter_mut().enumerate() {
                    if status[r].is_none() {
                        let _ = child.kill();
                        status[r] = child.wait().ok();
                    }
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let mut failed = Vec::new();
        for (r, s) in status.iter().enumerate() {
            let text = std::fs::read_to_string(file(r, "out")).unwrap_or_default();
            for line in text.lines().filter(|l| l.starts_with("rank ")) {
                println!("{size} processes ({bootstrap}): {line}");
            }
            if !s.is_some_and(|s| s.success()) {
                let err = std::fs::read_to_string(file(r, "err")).unwrap_or_default();
                failed.push(format!(
                    "rank {r} of {size} ({bootstrap}) ended with {s:?} (killed after 240 s or \
                     after another rank failed):\n{text}\n{err}"
                ));
            }
        }
        let _ = std::fs::remove_dir_all(&logs);
        assert!(failed.is_empty(), "{}", failed.join("\n"));
    }
}

/// One rank of `processes_form_one_group`: every process makes the same matrix and graph.
fn one_rank() {
    let group = GpuGroup::from_env().expect("joining the group");
    let seed: u64 = std::env::var("LOOPS_SEED").unwrap().parse().unwrap();
    let rank = group.local_parts().start;
    let a: sprs::CsMat<f32> =
        loops::io::generate::power_law(40_000, 40_000, 12.0, 2.0, false, seed);
    let mut da = group.upload_csr(&a).unwrap();
    let rows = da.local_rows();
    let mine = a.slice_outer(rows.clone()).to_owned();
    for k in [1usize, 8] {
        let b: Vec<f32> = loops::io::generate::random_vector(a.cols() * k, seed + k as u64);
        let db = group.scatter(&da, &b, k).unwrap();
        for exchange in [Exchange::PointToPoint, Exchange::AllGather] {
            let mut dc = group.zeros(&da, k).unwrap();
            group.gpu(rank).fill(dc.part_mut(rank), f32::NAN).unwrap();
            if k == 1 {
                group
                    .spmv(
                        &mut da,
                        kernels::spmv::merge_path::spmv::<f32>,
                        &db,
                        &mut dc,
                        exchange,
                    )
                    .unwrap();
            } else {
                group
                    .spmm(
                        &mut da,
                        kernels::spmm::warp::spmm::<f32>,
                        &db,
                        &mut dc,
                        exchange,
                    )
                    .unwrap();
            }
            group.synchronize().unwrap();
            let c = group.gather(&dc).unwrap();
            if let Err(m) = check_product(&mine, &b, &c, k) {
                panic!("rank {rank}, rows {rows:?}, k={k} {exchange:?}: {m}");
            }
        }
    }
    let g = loops::graph::Graph::from_pattern(
        &loops::io::generate::kronecker::<f32>(13, 16, seed),
        1,
        seed,
    )
    .unwrap();
    let source = common::graph_sources(&g)[0];
    let mut dg = group.upload_graph(&g).unwrap();
    let (levels, stats) = group
        .bfs(&mut dg, source, loops::graph::bfs::warp::bfs)
        .unwrap();
    let own = dg.partition().range(rank);
    let want = loops::graph::bfs_levels(&g, source);
    loops::graph::compare("levels", &want[own], &group.gather(&levels).unwrap())
        .unwrap_or_else(|e| panic!("rank {rank}: BFS {e}"));
    // A grid of many levels: batches of levels, their sizes summed over the processes.
    let grid = loops::graph::Graph::from_pattern(
        &loops::io::generate::grid2d::<f32>(60, 60, seed),
        1,
        seed,
    )
    .unwrap();
    let mut dgrid = group.upload_graph(&grid).unwrap();
    let (levels, batched) = group
        .bfs(&mut dgrid, 0, loops::graph::bfs::warp::bfs)
        .unwrap();
    let own = dgrid.partition().range(rank);
    let want = loops::graph::bfs_levels(&grid, 0);
    loops::graph::compare("levels", &want[own], &group.gather(&levels).unwrap())
        .unwrap_or_else(|e| panic!("rank {rank}: BFS on the grid {e}"));
    let depth = want.iter().max().unwrap() + 1;
    assert!(
        batched.levels == depth && batched.host_waits < batched.levels,
        "rank {rank}: grid BFS {batched:?}, depth {depth}"
    );
    println!(
        "rank {rank} of {}: rows {rows:?}, {} ghost rows, SpMV and SpMM (k = 8) over both exchanges \
         and BFS ({} levels; a grid's {} levels in {} waits) match the CPU",
        group.parts(),
        da.ghosts(rank),
        stats.levels,
        batched.levels,
        batched.host_waits
    );
}

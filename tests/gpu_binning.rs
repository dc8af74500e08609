//! The binning pass of logarithmic radix binning on the GPU (`Gpu::bin_tiles`, loops-runtime's
//! `binning` module) against the CPU model (`kernels_gen::schedule::lrb`): the order must be a
//! permutation of the items, every item must lie in the bin `lrb::bin_of` gives its size, and the
//! bin starts must be the model's. The order within a bin is not checked: it depends on which block
//! round's atomics land first, as the model's `bin_tiles_with_arrival` allows.
//!
//! Tile sets: every file of ../shared/data/matrices (as CSR rows, CSC columns and COO rows), the
//! generated shapes of `common::generated_matrices` (power-law, arrow, one huge row, empty rows, 0
//! rows, ...), 3 million random tiles (many block rounds per block), tiles at every bin's edges up to
//! `i32::MAX` atoms, offsets no upload lets through (decreasing, 2^32 - 1 apart), and the empty set.
//! Subsets: lists of u32, i32 (negative and out-of-range ids), i64 and u64 ids (ids that alias a
//! tile if truncated to 32 bits), duplicates, one id repeated, the empty list. A printed seed
//! replays a failure (`LOOPS_SEED`).
#![cfg(feature = "gpu")]

mod common;

use loops::launch::binning::{SubsetIds, TileBins};
use loops::prelude::*;
use loops::schedule::lrb::{self, bin_of, BINS};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The bin the GPU gives a tile whose offsets are `size` apart: `bin_of` for the sizes a tile set
/// can have (0..=i32::MAX); a negative size (decreasing offsets) is 0, a larger one the last bin.
fn expected_bin(size: i64) -> usize {
    if size > i32::MAX as i64 {
        BINS - 1
    } else {
        bin_of(size.max(0) as u64)
    }
}

/// The size of tile `id` (already sign-extended to 64 bits, as the GPU reads ids) of `offsets`, 0 if
/// `id` is not a tile.
fn size_of_id(offsets: &[i32], id: u64) -> i64 {
    let tiles = offsets.len() as u64 - 1;
    if id >= tiles {
        return 0;
    }
    offsets[id as usize + 1] as i64 - offsets[id as usize] as i64
}

/// Checks a binning of items of sizes `sizes` (item i of size `sizes[i]`); `None` if it is right,
/// else what is wrong.
fn check(gpu: &Gpu, sizes: &[i64], got: &TileBins) -> Option<String> {
    let n = sizes.len();
    // The model's bin starts: a histogram and its exclusive scan (Algorithm 1's steps 1 and 2).
    let mut counts = [0u64; BINS];
    for &s in sizes {
        counts[expected_bin(s)] += 1;
    }
    let want = lrb::exclusive_scan(&counts);
    // Where every size is a tile set's, the whole model over the items as a tile set agrees.
    if sizes.iter().all(|&s| (0..=i32::MAX as i64).contains(&s)) {
        let mut offsets = vec![0u64];
        for &s in sizes {
            offsets.push(offsets.last().unwrap() + s as u64);
        }
        let model = lrb::bin_tiles(&offsets, 7);
        assert_eq!(
            model.bin_offsets, want,
            "the CPU model disagrees with itself"
        );
    }
    let starts: Vec<u64> = got.bin_starts.iter().map(|&s| s as u64).collect();
    if starts != want {
        return Some(format!(
            "bin starts {:?}, expected {want:?}",
            got.bin_starts
        ));
    }
    if got.range(0..=BINS - 1) != (0..n) {
        return Some(format!("range(0..=31) is {:?}", got.range(0..=BINS - 1)));
    }
    let order = match gpu.download(&got.order) {
        Ok(o) => o,
        Err(e) => return Some(format!("download: {e}")),
    };
    if order.len() != n {
        return Some(format!(
            "{} entries in the order, expected {n}",
            order.len()
        ));
    }
    let mut seen = vec![false; n];
    for b in 0..BINS {
        for p in got.range(b..=b) {
            let item = order[p] as usize;
            if item >= n {
                return Some(format!("order[{p}] = {item}, not an item of {n}"));
            }
            if std::mem::replace(&mut seen[item], true) {
                return Some(format!("item {item} twice in the order (again at {p})"));
            }
            let want_bin = expected_bin(sizes[item]);
            if want_bin != b {
                return Some(format!(
                    "item {item} (size {}) at {p}, in bin {b}; expected bin {want_bin}",
                    sizes[item]
                ));
            }
        }
    }
    None
}

/// The checks run so far and their failures.
#[derive(Default)]
struct Report {
    run: usize,
    failures: Vec<String>,
}

impl Report {
    /// Bins `tiles` tiles of `offsets` (device) whose host copy is `host`, with `list` (whose ids,
    /// sign-extended, are `ids`) or without, and checks the result.
    fn bin(
        &mut self,
        gpu: &Gpu,
        what: &str,
        offsets: &DeviceBuffer<i32>,
        host: &[i32],
        list: Option<(SubsetIds<'_>, Vec<u64>)>,
    ) {
        self.run += 1;
        let tiles = host.len() - 1;
        let ids = list.as_ref().map(|(_, ids)| ids.clone());
        let (list, sizes): (Option<SubsetIds<'_>>, Vec<i64>) = match list {
            Some((l, ids)) => (
                Some(l),
                ids.iter().map(|&id| size_of_id(host, id)).collect(),
            ),
            None => (
                None,
                (0..tiles as u64).map(|t| size_of_id(host, t)).collect(),
            ),
        };
        match gpu.bin_tiles(offsets, tiles, list) {
            Ok(bins) => {
                if let Some(e) = check(gpu, &sizes, &bins) {
                    self.failures.push(format!("{what}: {e}"));
                }
                // A subset's ids in bin order: list[order[k]], u32::MAX outside the set.
                if let (Some(list), Some(ids)) = (list, ids) {
                    let got = gpu
                        .binned_tile_ids(&bins, tiles, list)
                        .and_then(|b| gpu.download(&b));
                    let order = gpu.download(&bins.order).unwrap_or_default();
                    match got {
                        Ok(got) => {
                            let want = order.iter().map(|&o| {
                                let id = ids[o as usize];
                                if id < tiles as u64 {
                                    id as u32
                                } else {
                                    u32::MAX
                                }
                            });
                            if got.len() != ids.len() || !got.iter().copied().eq(want) {
                                self.failures.push(format!(
                                    "{what}: binned_tile_ids differ from list[order[k]]"
                                ));
                            }
                        }
                        Err(e) => self.failures.push(format!("{what}: binned_tile_ids: {e}")),
                    }
                }
            }
            Err(e) => self.failures.push(format!("{what}: error: {e}")),
        }
    }

    /// Bins the tiles of offsets already on the device (downloads them for the reference).
    fn all_tiles(&mut self, gpu: &Gpu, what: &str, offsets: &DeviceBuffer<i32>) {
        let host = gpu.download(offsets).expect("download the offsets");
        self.bin(gpu, what, offsets, &host, None);
    }
}

#[test]
fn bins_agree_with_the_model() {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed} (LOOPS_SEED={seed} replays it)");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut report = Report::default();

    // Real matrices: rows (CSR, COO) and columns (CSC).
    let real = common::real_matrices::<f32>();
    for (name, m) in &real {
        let csr = gpu.upload_csr(m).expect("upload csr");
        report.all_tiles(&gpu, &format!("{name} csr rows"), csr.offsets());
        let csc = gpu.upload_csc(m).expect("upload csc");
        report.all_tiles(&gpu, &format!("{name} csc columns"), csc.col_offsets());
        let coo = gpu.upload_coo(m).expect("upload coo");
        report.all_tiles(&gpu, &format!("{name} coo rows"), coo.row_offsets());
    }

    // Generated shapes: skewed (power-law, arrow, one huge row), sparse, empty, 0 rows.
    for (name, m) in common::generated_matrices::<f32>(seed) {
        let csr = gpu.upload_csr(&m).expect("upload csr");
        report.all_tiles(&gpu, &format!("{name} csr rows"), csr.offsets());
        let csc = gpu.upload_csc(&m).expect("upload csc");
        report.all_tiles(&gpu, &format!("{name} csc columns"), csc.col_offsets());
    }
    let power = loops::io::generate::power_law::<f32>(200_000, 200_000, 6.0, 1.8, false, seed ^ 1);
    let power = gpu.upload_csr(&power).expect("upload");
    report.all_tiles(&gpu, "power-law 200000 csr rows", power.offsets());
    let arrow = loops::io::generate::arrow::<f32>(100_000, seed ^ 2);
    let arrow = gpu.upload_csr(&arrow).expect("upload");
    report.all_tiles(&gpu, "arrow 100000 csr rows", arrow.offsets());

    // 3 million tiles of random sizes up to 4096 (a random power of two, then uniform below it):
    // many block rounds per block, every bin up to 12. Offsets only, no atoms allocated.
    let mut big = vec![0usize];
    for _ in 0..3_000_001 {
        let top = 1usize << rng.random_range(0..=12);
        let size = rng.random_range(0..=top);
        big.push(big.last().unwrap() + size);
    }
    let big_tiles = gpu.upload_offsets(&big).expect("upload offsets");
    report.all_tiles(&gpu, "3000001 random tiles", big_tiles.offsets());

    // Every bin's edges: sizes 0, 1, then 2^(b-1) + 1 and 2^b for b up to 28 (shuffled), then the
    // bins above (alone, the sums must fit i32) and a tile of i32::MAX atoms.
    let mut sizes = vec![0usize, 1];
    for b in 1..=28 {
        sizes.extend([(1 << (b - 1)) + 1, 1 << b]);
    }
    for i in (1..sizes.len()).rev() {
        sizes.swap(i, rng.random_range(0..=i));
    }
    for (what, sizes) in [
        ("bin edges 0..=28", sizes),
        (
            "bins 29, 30, 31",
            vec![(1 << 28) + 1, (1 << 29) + 1, (1 << 30) + 1],
        ),
        ("one tile of i32::MAX atoms", vec![i32::MAX as usize]),
    ] {
        let mut offsets = vec![0usize];
        for s in sizes {
            offsets.push(offsets.last().unwrap() + s);
        }
        let set = gpu.upload_offsets(&offsets).expect("upload offsets");
        report.all_tiles(&gpu, what, set.offsets());
    }

    // Offsets no upload lets through: decreasing (size < 0: bin 0) and 2^32 - 1 apart (last bin).
    let bad = [10, 3, i32::MIN, i32::MAX, 0, 7, 7, 100];
    let bad_dev = gpu.upload(&bad).expect("upload");
    report.bin(&gpu, "malformed offsets", &bad_dev, &bad, None);

    // The empty set: no tiles, nothing launched.
    let empty = gpu.upload_offsets(&[0]).expect("upload offsets");
    report.all_tiles(&gpu, "0 tiles", empty.offsets());
    let none = gpu
        .bin_tiles(empty.offsets(), 0, None)
        .expect("bin 0 tiles");
    assert_eq!(none.bin_starts, [0; BINS + 1]);
    assert!(none.order.is_empty());

    // Subsets of the 3 million random tiles and of the power-law matrix.
    let host_big: Vec<i32> = gpu.download(big_tiles.offsets()).expect("download");
    let host_power: Vec<i32> = gpu.download(power.offsets()).expect("download");
    for (set, dev, host) in [
        ("3000001 random tiles", big_tiles.offsets(), &host_big),
        ("power-law 200000", power.offsets(), &host_power),
    ] {
        let tiles = host.len() as u64 - 1;
        let valid = |rng: &mut StdRng| rng.random_range(0..tiles);

        // u32: valid ids, duplicates (a small range drawn from often), ids past the end.
        let ids: Vec<u32> = (0..500_000)
            .map(|i| match i % 10 {
                0 => rng.random_range(0..64) as u32,
                1 => tiles as u32,
                2 => u32::MAX - rng.random_range(0..3),
                _ => valid(&mut rng) as u32,
            })
            .collect();
        let buf = gpu.upload(&ids).expect("upload");
        let wide = ids.iter().map(|&i| i as u64).collect();
        report.bin(
            &gpu,
            &format!("{set}, u32 list"),
            dev,
            host,
            Some(((&buf).into(), wide)),
        );

        // i32: negative ids (-1, i32::MIN, random) and out-of-range ones among valid ones.
        let ids: Vec<i32> = (0..300_001)
            .map(|i| match i % 7 {
                0 => -1,
                1 => i32::MIN,
                2 => -rng.random_range(1..1_000_000),
                3 => i32::MAX,
                4 => tiles as i32 + rng.random_range(0..5),
                _ => valid(&mut rng) as i32,
            })
            .collect();
        let buf = gpu.upload(&ids).expect("upload");
        let wide = ids.iter().map(|&i| i as i64 as u64).collect();
        report.bin(
            &gpu,
            &format!("{set}, i32 list"),
            dev,
            host,
            Some(((&buf).into(), wide)),
        );

        // u64: ids that would alias a valid tile if truncated to 32 bits, 2^63 (negative as i64),
        // u64::MAX.
        let ids: Vec<u64> = (0..200_003)
            .map(|i| match i % 5 {
                0 => (1u64 << 32) + valid(&mut rng),
                1 => 1u64 << 63,
                2 => u64::MAX,
                _ => valid(&mut rng),
            })
            .collect();
        let buf = gpu.upload(&ids).expect("upload");
        report.bin(
            &gpu,
            &format!("{set}, u64 list"),
            dev,
            host,
            Some(((&buf).into(), ids)),
        );

        // i64: negative and huge ids among valid ones.
        let ids: Vec<i64> = (0..100_000)
            .map(|i| match i % 4 {
                0 => -(rng.random_range(1..1i64 << 40)),
                1 => i64::MIN,
                2 => (1i64 << 32) + valid(&mut rng) as i64,
                _ => valid(&mut rng) as i64,
            })
            .collect();
        let buf = gpu.upload(&ids).expect("upload");
        let wide = ids.iter().map(|&i| i as u64).collect();
        report.bin(
            &gpu,
            &format!("{set}, i64 list"),
            dev,
            host,
            Some(((&buf).into(), wide)),
        );

        // One id repeated: every item in one bin (the aggregated atomics all on one cursor).
        let one = valid(&mut rng) as u32;
        let ids = vec![one; 1_000_003];
        let buf = gpu.upload(&ids).expect("upload");
        let wide = ids.iter().map(|&i| i as u64).collect();
        report.bin(
            &gpu,
            &format!("{set}, tile {one} repeated"),
            dev,
            host,
            Some(((&buf).into(), wide)),
        );

        // The empty list.
        let buf = gpu.upload::<u32>(&[]).expect("upload");
        report.bin(
            &gpu,
            &format!("{set}, empty list"),
            dev,
            host,
            Some(((&buf).into(), vec![])),
        );
    }

    // Lengths are checked before anything runs.
    match gpu.bin_tiles(power.offsets(), host_power.len(), None) {
        Err(LoopsError::InvalidBinning { .. }) => {}
        other => report.failures.push(format!(
            "offsets one short: expected InvalidBinning, got {other:?}"
        )),
    }

    println!(
        "{} binnings checked ({} real matrices)",
        report.run,
        real.len()
    );
    assert!(
        report.failures.is_empty(),
        "{} failures (seed {seed}):\n{}",
        report.failures.len(),
        report.failures.join("\n")
    );
}

//! The pure-Rust models of every schedule's mapping: every atom of every tile is visited exactly once
//! and every tile's epilogue runs exactly once, with the complete reduction, for random tile sizes with
//! empty tiles, a huge tile, and sizes around the group and block boundaries.

use kernels_gen::schedule::carry::{
    model_fold, model_run, subset_offsets, Fold, ModelRun, Partition,
};
use kernels_gen::schedule::{group, hierarchical, lrb, split, thread};
use proptest::prelude::*;

/// Tile sizes that stress the boundaries: runs of empty tiles, sizes near powers of two, one huge tile.
fn tile_sizes() -> impl Strategy<Value = Vec<u64>> {
    let size = prop_oneof![
        4 => Just(0u64),
        6 => 1u64..6,
        2 => prop::sample::select(vec![31u64, 32, 33, 63, 64, 65, 255, 256, 257]),
        1 => 500u64..3000,
    ];
    prop::collection::vec(size, 0..200)
}

fn offsets_of(sizes: &[u64]) -> Vec<u64> {
    let mut offsets = vec![0];
    for s in sizes {
        offsets.push(offsets.last().unwrap() + s);
    }
    offsets
}

/// What every schedule must keep: every atom visited once, every tile's epilogue run once, with the
/// complete sum of `value` over its atoms.
fn check_run(
    run: &ModelRun,
    offsets: &[u64],
    value: impl Fn(u64) -> u64,
    what: &str,
) -> Result<(), TestCaseError> {
    for (atom, &v) in run.atom_visits.iter().enumerate() {
        prop_assert_eq!(v, 1, "atom {} visited {} times ({})", atom, v, what);
    }
    for t in 0..offsets.len() - 1 {
        prop_assert_eq!(
            run.epilogues[t],
            1,
            "tile {} epilogue ran {} times ({})",
            t,
            run.epilogues[t],
            what
        );
        let want: u64 = (offsets[t]..offsets[t + 1]).map(&value).sum();
        prop_assert_eq!(
            run.epilogue_sums[t],
            want,
            "tile {} saw a partial sum ({})",
            t,
            what
        );
    }
    Ok(())
}

fn value(atom: u64) -> u64 {
    atom * 7 + 1
}

fn check_carry(
    partition: Partition,
    ipt: u32,
    block: u32,
    sizes: &[u64],
) -> Result<(), TestCaseError> {
    let offsets = offsets_of(sizes);
    let run = model_run(partition, ipt, block, &offsets, value);
    check_run(
        &run,
        &offsets,
        value,
        &format!("{partition:?}, ipt {ipt}, block {block}"),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn merge_path_visits_every_atom_once_and_finishes_every_tile_once(
        sizes in tile_sizes(), ipt in prop::sample::select(vec![1u32, 3, 8]), block in prop::sample::select(vec![32u32, 64, 256]),
    ) {
        check_carry(Partition::MergePath, ipt, block, &sizes)?;
    }

    #[test]
    fn work_oriented_visits_every_atom_once_and_finishes_every_tile_once(
        sizes in tile_sizes(), ipt in prop::sample::select(vec![1u32, 3, 8]), block in prop::sample::select(vec![32u32, 64, 256]),
    ) {
        check_carry(Partition::WorkOriented, ipt, block, &sizes)?;
    }

    /// The block starts the runtime keeps per tile set are what each block's searches find: the
    /// last tile that starts by the range's first item (by brute force), and on the merge path the
    /// first tile of the segment of the block's first thread.
    #[test]
    fn block_starts_are_where_each_blocks_search_lands(
        sizes in tile_sizes(), ipt in prop::sample::select(vec![1u32, 3, 8]), block in prop::sample::select(vec![32u32, 64, 256]),
    ) {
        let offsets = offsets_of(&sizes);
        let tiles = sizes.len() as u64;
        let atoms = offsets[tiles as usize];
        for (partition, slope, items) in [(Partition::MergePath, 1, tiles + atoms), (Partition::WorkOriented, 0, atoms)] {
            let blocks = partition.blocks_wanted(tiles, atoms, ipt, block);
            let per_block = (ipt * block) as u64;
            let starts = partition.block_starts(&offsets, per_block, blocks).expect("a searched partition");
            prop_assert_eq!(starts.len() as u64, blocks + 1);
            for (b, &start) in starts.iter().enumerate() {
                let bound = (b as u64 * per_block).min(items);
                let want = (0..=tiles).filter(|&x| offsets[x as usize] + slope * x <= bound).max().unwrap();
                prop_assert_eq!(start, want, "{:?} boundary {}", partition, b);
                if partition == Partition::MergePath && (b as u64) < blocks {
                    let first = partition.segment(b as u64 * block as u64, ipt, &offsets);
                    prop_assert_eq!(start, first.x0, "merge path block {}", b);
                }
            }
        }
        let split = Partition::Split { mdt: 4 };
        prop_assert!(split.block_starts(&offsets, 8, 1).is_none(), "split searches its piece counts");
    }

    #[test]
    fn split_visits_every_atom_once_and_finishes_every_tile_once(
        sizes in tile_sizes(), mdt in prop::sample::select(vec![1u64, 4, 16, 33, 1000]), block in prop::sample::select(vec![32u32, 64, 256]),
    ) {
        check_carry(Partition::Split { mdt }, 1, block, &sizes)?;
    }

    #[test]
    fn thread_and_group_cover_every_tile_and_atom_once(
        sizes in tile_sizes(), threads in 1u64..600, group_size in prop::sample::select(vec![2u64, 32, 64, 256]),
    ) {
        let offsets = offsets_of(&sizes);
        let tiles = sizes.len() as u64;
        let mut seen = vec![0u32; tiles as usize];
        for t in 0..threads {
            for tile in thread::model_tiles_of_thread(t, threads, tiles) {
                seen[tile as usize] += 1;
            }
        }
        prop_assert!(seen.iter().all(|&n| n == 1), "thread: {:?}", seen);

        let groups = threads.div_ceil(group_size);
        let mut atoms = vec![0u32; *offsets.last().unwrap() as usize];
        let mut tiles_seen = vec![0u32; tiles as usize];
        for g in 0..groups {
            for tile in group::model_tiles_of_group(g, groups, tiles) {
                tiles_seen[tile as usize] += 1;
                for lane in 0..group_size {
                    for a in group::model_atoms_of_lane(lane, group_size, offsets[tile as usize], offsets[tile as usize + 1]) {
                        atoms[a as usize] += 1;
                    }
                }
            }
        }
        prop_assert!(tiles_seen.iter().all(|&n| n == 1), "group tiles: {:?}", tiles_seen);
        prop_assert!(atoms.iter().all(|&n| n == 1), "group atoms");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A tile subset (repeats, ids outside the set, any order) run on its virtual offsets: each
    /// listed position's epilogue runs once with its real tile's sum; an id outside the set has
    /// no atoms.
    #[test]
    fn carry_schedules_over_a_subset_finish_each_listed_tile_once(
        sizes in tile_sizes(),
        picks in prop::collection::vec(0u64..260, 0..120),
        partition in prop::sample::select(vec![Partition::MergePath, Partition::WorkOriented, Partition::Split { mdt: 4 }]),
        ipt in prop::sample::select(vec![1u32, 3, 8]),
        block in prop::sample::select(vec![32u32, 64]),
    ) {
        let offsets = offsets_of(&sizes);
        let tiles = sizes.len() as u64;
        let virtual_offsets = subset_offsets(&offsets, &picks);
        // The real atom behind each virtual one.
        let mut real = Vec::new();
        for &id in &picks {
            if id < tiles {
                real.extend(offsets[id as usize]..offsets[id as usize + 1]);
            }
        }
        prop_assert_eq!(real.len() as u64, *virtual_offsets.last().unwrap());
        let run = model_run(partition, ipt, block, &virtual_offsets, |v| value(real[v as usize]));
        for (p, &id) in picks.iter().enumerate() {
            let want = if id < tiles {
                (offsets[id as usize]..offsets[id as usize + 1]).map(value).sum()
            } else {
                0
            };
            prop_assert_eq!(run.epilogues[p], 1, "position {} (tile {})", p, id);
            prop_assert_eq!(run.epilogue_sums[p], want, "position {} (tile {})", p, id);
        }
        prop_assert!(run.atom_visits.iter().all(|&v| v == 1));
    }
}

/// The segments of both partitions tile the item space without gaps or overlaps.
#[test]
fn segments_are_contiguous() {
    let offsets = offsets_of(&[0, 0, 5, 1, 0, 40, 0, 3, 0, 0]);
    for partition in [Partition::MergePath, Partition::WorkOriented] {
        let threads = partition.threads(10, 49, 4);
        let mut previous: Option<kernels_gen::schedule::carry::Segment> = None;
        for t in 0..threads {
            let s = partition.segment(t, 4, &offsets);
            if let Some(p) = previous {
                assert_eq!((p.x1, p.y1), (s.x0, s.y0), "{partition:?} thread {t}");
            } else {
                assert_eq!((s.x0, s.y0), (0, 0));
            }
            previous = Some(s);
        }
        let last = previous.unwrap();
        assert_eq!((last.x1, last.y1), (10, 49), "{partition:?}");
    }
}

/// A single tile larger than many blocks: the cross-block fix-up carries it.
#[test]
fn one_tile_across_many_blocks() {
    for partition in [Partition::MergePath, Partition::WorkOriented] {
        check_carry(partition, 2, 32, &[3, 10_000, 0, 1]).unwrap();
    }
}

// ---- lrb ----

/// Thresholds small enough that `tile_sizes()` reaches every mapping, pieces of 8 atoms included.
const SMALL_THRESHOLDS: lrb::Thresholds = lrb::Thresholds {
    thread_max_bin: 1,
    warp_max_bin: 3,
    block_max_bin: 5,
    split_piece_atoms: 8,
};

fn thresholds() -> impl Strategy<Value = lrb::Thresholds> {
    prop::sample::select(vec![lrb::Thresholds::DEFAULT, SMALL_THRESHOLDS])
}

/// The binning is Algorithm 1's (counts, exclusive scan, every tile placed once in its own bin), the
/// non-empty tiles of a bin are within 2x of each other, each mapping's tiles are one contiguous
/// range, and the run visits every atom once and finishes every tile once.
fn check_lrb(
    offsets: &[u64],
    plan: &lrb::LrbPlan,
    threads: u64,
    block: u32,
) -> Result<(), TestCaseError> {
    let tiles = offsets.len() - 1;
    let size = |t: u64| offsets[t as usize + 1] - offsets[t as usize];
    let b = &plan.binning;
    prop_assert_eq!(b.bin_offsets, lrb::exclusive_scan(&b.counts));
    prop_assert_eq!(b.bin_offsets[lrb::BINS], tiles as u64);
    let mut placed = vec![0u32; tiles];
    for bin in 0..lrb::BINS {
        let members = plan.bin(bin);
        prop_assert_eq!(members.len() as u64, b.counts[bin], "bin {} count", bin);
        for &t in members {
            placed[t as usize] += 1;
            prop_assert_eq!(lrb::bin_of(size(t)), bin, "tile {} in bin {}", t, bin);
        }
        let nonempty = members.iter().map(|&t| size(t)).filter(|&s| s > 0);
        if let (Some(lo), Some(hi)) = (nonempty.clone().min(), nonempty.max()) {
            prop_assert!(hi <= 2 * lo, "bin {} holds sizes {} and {}", bin, lo, hi);
        }
    }
    prop_assert!(placed.iter().all(|&n| n == 1), "tile order: {:?}", b.order);
    // The mappings' ranges follow each other and cover the order.
    let mut at = 0;
    for m in [
        lrb::Mapping::Thread,
        lrb::Mapping::Warp,
        lrb::Mapping::Block,
        lrb::Mapping::Split,
    ] {
        let r = plan.range(m);
        if !r.is_empty() {
            prop_assert_eq!(r.start, at, "{:?} range", m);
            at = r.end;
        }
        for &t in &b.order[r.start as usize..r.end as usize] {
            prop_assert_eq!(plan.mappings[lrb::bin_of(size(t))], m);
        }
    }
    prop_assert_eq!(at, tiles as u64);
    let run = lrb::model_run(offsets, plan, threads, block, value);
    check_run(
        &run,
        offsets,
        value,
        &format!(
            "lrb, {:?}, threads {threads}, block {block}",
            plan.thresholds
        ),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn lrb_bins_every_tile_once_and_finishes_every_tile_once(
        sizes in tile_sizes(),
        workers in 1u64..24,
        arrival in prop::collection::vec(0u64..24, 0..300),
        thresholds in thresholds(),
        threads in 1u64..600,
        block in prop::sample::select(vec![32u32, 64, 256]),
    ) {
        let offsets = offsets_of(&sizes);
        let plan = lrb::LrbPlan::from_binning(
            lrb::bin_tiles_with_arrival(&offsets, workers, &arrival),
            thresholds,
        );
        // The global counts are the sum of the workers' local histograms.
        let mut counts = [0u64; lrb::BINS];
        for w in 0..workers {
            for (c, l) in counts.iter_mut().zip(lrb::local_counts(&offsets, w, workers)) {
                *c += l;
            }
        }
        prop_assert_eq!(counts, plan.binning.counts);
        check_lrb(&offsets, &plan, threads, block)?;
    }
}

/// Algorithm 1 by hand: 10 tiles over 3 workers (chunks of 4, 4 and 2 tiles).
#[test]
fn lrb_algorithm_1_by_hand() {
    // Sizes 0 1 2 3 | 4 5 9 0 | 17 2; bins 0 0 1 2 | 2 3 4 0 | 5 1.
    let offsets = offsets_of(&[0, 1, 2, 3, 4, 5, 9, 0, 17, 2]);
    let local: Vec<_> = (0..3)
        .map(|w| lrb::local_counts(&offsets, w, 3)[..6].to_vec())
        .collect();
    assert_eq!(
        local,
        [
            vec![2, 1, 1, 0, 0, 0],
            vec![1, 0, 1, 1, 1, 0],
            vec![0, 1, 0, 0, 0, 1]
        ]
    );
    let b = lrb::bin_tiles(&offsets, 3);
    assert_eq!(b.counts[..6], [3, 2, 2, 1, 1, 1]);
    assert!(b.counts[6..].iter().all(|&c| c == 0));
    assert_eq!(b.bin_offsets[..7], [0, 3, 5, 7, 8, 9, 10]);
    assert!(b.bin_offsets[7..].iter().all(|&o| o == 10));
    // Round-robin atomics: w0 t0, w1 t4, w2 t8, w0 t1, w1 t5, w2 t9, w0 t2, w1 t6, w0 t3, w1 t7.
    assert_eq!(b.order, [0, 1, 7, 9, 2, 4, 3, 5, 6, 8]);
    // Worker 1's four atomics land first: the same bins, another order inside bin 0.
    let b1 = lrb::bin_tiles_with_arrival(&offsets, 3, &[1, 1, 1, 1]);
    assert_eq!((b1.counts, b1.bin_offsets), (b.counts, b.bin_offsets));
    assert_eq!(b1.order, [7, 0, 1, 9, 2, 4, 3, 5, 6, 8]);
    // Every mapping, and a tile split into pieces, with the default thresholds.
    let offsets = offsets_of(&[3, 0, 100, 1000, 10_000, 5, 4097]);
    let plan = lrb::LrbPlan::new(&offsets, 2, lrb::Thresholds::DEFAULT);
    assert_eq!(plan.range(lrb::Mapping::Thread), 0..3);
    assert_eq!(plan.range(lrb::Mapping::Warp), 3..4);
    assert_eq!(plan.range(lrb::Mapping::Block), 4..5);
    assert_eq!(plan.range(lrb::Mapping::Split), 5..7);
    for block in [32, 256] {
        check_lrb(&offsets, &plan, 300, block).unwrap();
    }
}

/// The properties bite: a plan whose bin offsets are an inclusive scan is caught, and so is a racy
/// scatter (a cursor bumped without an atomic, so two tiles of a bin take the same slot) by the run's
/// checks alone.
#[test]
fn lrb_broken_variants_are_caught() {
    let mut runner = proptest::test_runner::TestRunner::default();
    let inclusive = runner.run(&tile_sizes(), |sizes| {
        let offsets = offsets_of(&sizes);
        let mut plan = lrb::LrbPlan::new(&offsets, 4, SMALL_THRESHOLDS);
        let counts = plan.binning.counts;
        for (o, c) in plan.binning.bin_offsets.iter_mut().zip(counts) {
            *o += c;
        }
        check_lrb(&offsets, &plan, 64, 32)
    });
    assert!(inclusive.is_err(), "the inclusive scan passed");

    let racy = runner.run(&tile_sizes(), |sizes| {
        let offsets = offsets_of(&sizes);
        let mut plan = lrb::LrbPlan::new(&offsets, 4, SMALL_THRESHOLDS);
        let o = plan.binning.bin_offsets;
        if let Some(bin) = (0..lrb::BINS).find(|&b| o[b + 1] - o[b] >= 2) {
            let first = o[bin] as usize;
            plan.binning.order[first + 1] = plan.binning.order[first];
        }
        let run = lrb::model_run(&offsets, &plan, 64, 32, value);
        check_run(&run, &offsets, value, "lrb, racy scatter")
    });
    assert!(racy.is_err(), "the racy scatter passed");
}

// ---- split ----

fn check_split(offsets: &[u64], mdt: u64, threads: u64) -> Result<(), TestCaseError> {
    let vts = split::virtual_tiles(offsets, mdt);
    check_virtual_tiles(offsets, mdt, &vts)?;
    let run = split::model_run(offsets, &vts, threads, value);
    check_run(
        &run,
        offsets,
        value,
        &format!("split, mdt {mdt}, threads {threads}"),
    )
}

/// Each parent is covered exactly, in order, by non-empty pieces of at most `mdt` atoms (an empty
/// parent by one empty piece).
fn check_virtual_tiles(
    offsets: &[u64],
    mdt: u64,
    vts: &[split::VirtualTile],
) -> Result<(), TestCaseError> {
    let tiles = offsets.len() - 1;
    let mut next = vec![None::<u64>; tiles];
    let mut count = vec![0u64; tiles];
    for v in vts {
        let p = v.parent as usize;
        prop_assert!(v.start <= v.end && v.end - v.start <= mdt, "{:?}", v);
        let want = next[p].unwrap_or(offsets[p]);
        prop_assert_eq!(v.start, want, "gap or overlap in tile {}", p);
        prop_assert!(
            v.start < v.end || offsets[p] == offsets[p + 1],
            "empty piece {:?}",
            v
        );
        next[p] = Some(v.end);
        count[p] += 1;
    }
    for p in 0..tiles {
        let size = offsets[p + 1] - offsets[p];
        prop_assert_eq!(next[p], Some(offsets[p + 1]), "tile {} not covered", p);
        prop_assert_eq!(count[p], split::pieces(size, mdt), "tile {} pieces", p);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn split_covers_every_parent_and_finishes_it_once(
        sizes in tile_sizes(), mdt in 1u64..300, threads in 1u64..600,
    ) {
        let offsets = offsets_of(&sizes);
        check_split(&offsets, mdt, threads)?;
        check_split(&offsets, split::choose_mdt(&offsets), threads)?;
    }

    #[test]
    fn chosen_mdt_is_in_range_and_keeps_the_typical_tile_whole(sizes in tile_sizes()) {
        let offsets = offsets_of(&sizes);
        let mdt = split::choose_mdt(&offsets);
        let largest = sizes.iter().copied().max().unwrap_or(0);
        prop_assert!(mdt >= 1 && mdt <= largest.max(1), "mdt {} largest {}", mdt, largest);
        let mut histogram = [0u64; lrb::BINS];
        for &s in sizes.iter().filter(|&&s| s > 0) {
            histogram[lrb::bin_of(s)] += 1;
        }
        if largest > 0 {
            let bin = lrb::bin_of(mdt);
            prop_assert_eq!(histogram[bin], *histogram.iter().max().unwrap(), "bin {}", bin);
            prop_assert!(sizes.iter().all(|&s| lrb::bin_of(s) != bin || s <= mdt));
            prop_assert!(mdt == largest || mdt == lrb::bin_upper_edge(bin));
        }
    }
}

/// The properties bite: cutting `size / mdt` pieces (dropping the short remainder) is caught.
#[test]
fn split_dropping_the_remainder_is_caught() {
    let mut runner = proptest::test_runner::TestRunner::default();
    let found = runner.run(&(tile_sizes(), 1u64..300), |(sizes, mdt)| {
        let offsets = offsets_of(&sizes);
        let vts: Vec<_> = split::virtual_tiles(&offsets, mdt)
            .into_iter()
            .filter(|v| v.end - v.start == mdt || v.start == v.end)
            .collect();
        let run = split::model_run(&offsets, &vts, 64, value);
        check_run(&run, &offsets, value, "split, broken")
    });
    assert!(found.is_err(), "the broken cut passed");
}

/// One tile far longer than the threshold, among empty ones.
#[test]
fn split_one_huge_tile() {
    let offsets = offsets_of(&[0, 10_000, 0, 1, 0]);
    check_split(&offsets, 7, 5).unwrap();
    check_split(&offsets, split::choose_mdt(&offsets), 1).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Hierarchical processing: every atom once, each tile's epilogue once with its whole sum, in
    /// `ceil(longest / mdt)` passes, pass `k` over exactly the tiles of more than `k * mdt` atoms.
    #[test]
    fn hierarchical_visits_every_atom_once_and_finishes_every_tile_once(
        sizes in tile_sizes(), mdt in prop::sample::select(vec![1u64, 4, 16, 33, 1000]),
    ) {
        let offsets = offsets_of(&sizes);
        let (run, lengths) = hierarchical::model_run(&offsets, None, mdt, value);
        prop_assert!(run.atom_visits.iter().all(|&v| v == 1));
        prop_assert!(run.epilogues.iter().all(|&e| e == 1));
        for (t, w) in offsets.windows(2).enumerate() {
            prop_assert_eq!(run.epilogue_sums[t], (w[0]..w[1]).map(value).sum::<u64>());
        }
        let longest = sizes.iter().copied().max().unwrap_or(0);
        let per_pass = hierarchical::effective_mdt(mdt, longest);
        prop_assert_eq!(lengths.len(), hierarchical::passes(longest, per_pass) as usize);
        prop_assert!(lengths.len() as u64 <= hierarchical::MAX_PASSES);
        for (k, &len) in lengths.iter().enumerate() {
            let longer = sizes.iter().filter(|&&s| k == 0 || s > k as u64 * per_pass).count();
            prop_assert_eq!(len, longer, "pass {}", k);
        }
    }

    /// Over a list (repeats, ids outside the set): each listed position keeps its own state, so a
    /// tile listed twice is finished twice, each time with its whole sum.
    #[test]
    fn hierarchical_over_a_subset_finishes_each_listed_tile_once(
        sizes in tile_sizes(),
        picks in prop::collection::vec(0u64..260, 0..120),
        mdt in prop::sample::select(vec![1u64, 4, 33]),
    ) {
        let offsets = offsets_of(&sizes);
        let tiles = sizes.len();
        let (run, _) = hierarchical::model_run(&offsets, Some(&picks), mdt, value);
        for t in 0..tiles {
            let listed = picks.iter().filter(|&&p| p == t as u64).count() as u32;
            prop_assert_eq!(run.epilogues[t], listed);
            for a in offsets[t]..offsets[t + 1] {
                prop_assert_eq!(run.atom_visits[a as usize], listed);
            }
            if listed > 0 {
                let whole = (offsets[t]..offsets[t + 1]).map(value).sum::<u64>();
                prop_assert_eq!(run.epilogue_sums[t], whole);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Hierarchical processing where the state reduces (passes as levels: a group, a warp, a
    /// block per tile, or a piece of a long tile per block): every atom once, each tile's
    /// epilogue once with its whole sum, in the plan's passes (at most three), pass 1 over the
    /// tiles longer than the first pass's share and the block pass over those longer than the
    /// warp pass's too; a tile cut into pieces only where they fit the positions.
    #[test]
    fn hierarchical_levels_visit_every_atom_once_and_finish_every_tile_once(
        sizes in tile_sizes(),
        mdt in prop::sample::select(vec![1u64, 3, 16, 33, 1000]),
        block in prop::sample::select(vec![32u64, 64, 256]),
        fit in any::<bool>(),
        hubs in prop::collection::vec((0usize..200, 4000u64..20_000), 0..3),
    ) {
        // Hubs long enough for the block pass to cut into pieces.
        let mut sizes = sizes;
        for (at, hub) in hubs {
            sizes.insert(at.min(sizes.len()), hub);
        }
        let offsets = offsets_of(&sizes);
        let (run, lengths, pieces) =
            hierarchical::model_levels_run(&offsets, None, mdt, block, fit, value);
        prop_assert!(run.atom_visits.iter().all(|&v| v == 1));
        prop_assert!(run.epilogues.iter().all(|&e| e == 1));
        for (t, w) in offsets.windows(2).enumerate() {
            prop_assert_eq!(run.epilogue_sums[t], (w[0]..w[1]).map(value).sum::<u64>());
        }
        prop_assert!(pieces <= sizes.len() as u64);
        let longest = sizes.iter().copied().max().unwrap_or(0);
        let atoms: u64 = sizes.iter().sum();
        let lanes = hierarchical::thread_pass_lanes(sizes.len() as u64, atoms);
        let plan = hierarchical::level_plan(longest, mdt, lanes, fit);
        prop_assert_eq!(lengths.len(), plan.passes as usize);
        prop_assert!(lengths.len() <= 3);
        prop_assert!(plan.first >= mdt);
        let left_after = [0, plan.first, plan.first + hierarchical::WARP_PASS_ATOMS];
        for (k, &len) in lengths.iter().enumerate() {
            let longer = sizes.iter().filter(|&&s| k == 0 || s > left_after[k]).count();
            prop_assert_eq!(len, longer, "pass {}", k);
        }
    }

    /// Levels over a list (repeats, ids outside the set): each listed position keeps its own state.
    #[test]
    fn hierarchical_levels_over_a_subset_finish_each_listed_tile_once(
        sizes in tile_sizes(),
        picks in prop::collection::vec(0u64..260, 0..120),
        mdt in prop::sample::select(vec![1u64, 4, 33]),
    ) {
        let offsets = offsets_of(&sizes);
        let (run, _, _) =
            hierarchical::model_levels_run(&offsets, Some(&picks), mdt, 64, false, value);
        for t in 0..sizes.len() {
            let listed = picks.iter().filter(|&&p| p == t as u64).count() as u32;
            prop_assert_eq!(run.epilogues[t], listed);
            for a in offsets[t]..offsets[t + 1] {
                prop_assert_eq!(run.atom_visits[a as usize], listed);
            }
            if listed > 0 {
                let whole = (offsets[t]..offsets[t + 1]).map(value).sum::<u64>();
                prop_assert_eq!(run.epilogue_sums[t], whole);
            }
        }
    }
}

/// A hub far past the warp pass, among short tiles: three passes, the hub cut into pieces across
/// blocks in the last.
#[test]
fn hierarchical_levels_one_hub() {
    let offsets = offsets_of(&[0, 10_000, 3, 17, 300, 0]);
    let (run, lengths, pieces) =
        hierarchical::model_levels_run(&offsets, None, 16, 256, false, value);
    assert_eq!(lengths, [6, 3, 2]);
    // 10,000 - 272 atoms left, in pieces of 3,440 (twice the mean tile).
    assert_eq!(pieces, 3);
    assert!(run.atom_visits.iter().all(|&v| v == 1));
    assert_eq!(run.epilogues, [1; 6]);
    // Among many short tiles (the group a thread): the hub's pieces of 2048 atoms.
    let mut sizes = vec![1u64; 60_000];
    sizes[7] = 50_000;
    sizes[9] = 600;
    let offsets = offsets_of(&sizes);
    let (run, lengths, pieces) =
        hierarchical::model_levels_run(&offsets, None, 16, 256, true, value);
    assert_eq!(lengths, [60_000, 2, 2]);
    assert_eq!(pieces, (50_000u64 - 16 - 256).div_ceil(2048));
    assert!(run.atom_visits.iter().all(|&v| v == 1));
    assert_eq!(run.epilogues, vec![1; 60_000]);
    assert_eq!(
        run.epilogue_sums[7],
        (offsets[7]..offsets[8]).map(value).sum::<u64>()
    );
    assert_eq!(hierarchical::level_mdt(None, 2, 1), 16);
    assert_eq!(hierarchical::level_mdt(None, 2, 4), 64);
    assert_eq!(hierarchical::level_mdt(None, 100, 4), 100);
    assert_eq!(hierarchical::level_mdt(Some(3), 2, 4), 3);
    let plan = hierarchical::level_plan(10_000, 16, 4, false);
    assert_eq!((plan.first, plan.passes), (16, 3));
    assert_eq!(
        hierarchical::level_range(&plan, 2, 100, 100, 4, 256),
        (100, 100, 256)
    );
    assert_eq!(
        hierarchical::level_range(&plan, 0, 10, 100, 4, 256),
        (10, 26, 4)
    );
    assert_eq!(
        hierarchical::level_range(&plan, 2, 0, 10_000, 4, 256),
        (272, 10_000, 256)
    );
}

/// Fewer launches: a longest tile at most `LAUNCH_ROUNDS` rounds of its group past the first
/// pass's share runs whole in the first pass (one launch, no memset), unless the attribute set
/// `mdt`; the pieces of a cut tile are `piece` atoms (the last what remains), at least
/// `PIECE_ATOMS` and twice the mean tile.
#[test]
fn hierarchical_level_plan_fits_and_pieces() {
    let rounds = hierarchical::LAUNCH_ROUNDS;
    // Groebner's shape: 4,967 rows, mean 35 (a warp a row, mdt 512), longest 829.
    let plan = hierarchical::level_plan(829, 512, 32, true);
    assert_eq!((plan.first, plan.passes), (829, 1));
    let plan = hierarchical::level_plan(829, 512, 32, false);
    assert_eq!((plan.first, plan.passes), (512, 3));
    let plan = hierarchical::level_plan(512 + 256 + 32 * rounds + 1, 512, 32, true);
    assert_eq!((plan.first, plan.passes), (512, 3));
    let plan = hierarchical::level_plan(16 + rounds, 16, 1, true);
    assert_eq!((plan.first, plan.passes), (16 + rounds, 1));
    let plan = hierarchical::level_plan(16 + rounds + 1, 16, 1, true);
    assert_eq!((plan.first, plan.passes), (16, 2));
    assert_eq!(hierarchical::piece_atoms(46_500, 139_498), 2048);
    assert_eq!(hierarchical::piece_atoms(1000, 3_000_000), 6000);
    assert_eq!(hierarchical::piece_atoms(0, 0), 2048);
    assert_eq!(hierarchical::split_pieces(4095, 2048), 1);
    assert_eq!(hierarchical::split_pieces(4096, 2048), 2);
    assert_eq!(hierarchical::split_pieces(46_228, 2048), 23);
    let (mut at, left) = (1000u64, 46_228u64);
    for j in 0..23 {
        let (lo, hi) = hierarchical::piece_range(1000, left, j, 2048);
        assert_eq!(lo, at);
        assert!(hi - lo == 2048 || (j == 22 && hi - lo == 46_228 - 22 * 2048));
        at = hi;
    }
    assert_eq!(at, 1000 + left);
}

/// The first pass's group: on a large set about 4 atoms of the mean tile per lane (rows of 5 on a
/// thread, of 16 on 4 lanes, of 30 on 4), on a small one the mean tile's lanes; at most a warp.
#[test]
fn hierarchical_first_pass_lanes() {
    let big = hierarchical::SMALL_SET_TILES;
    assert_eq!(hierarchical::thread_pass_lanes(big, big * 5), 1);
    assert_eq!(hierarchical::thread_pass_lanes(big, big * 16), 4);
    assert_eq!(hierarchical::thread_pass_lanes(big, big * 30), 4);
    assert_eq!(hierarchical::thread_pass_lanes(big, big * 1000), 32);
    assert_eq!(hierarchical::thread_pass_lanes(big, 0), 1);
    assert_eq!(hierarchical::thread_pass_lanes(1000, 3600), 4);
    assert_eq!(hierarchical::thread_pass_lanes(1000, 35_000), 32);
    assert_eq!(hierarchical::thread_pass_lanes(1000, 500), 1);
    assert_eq!(hierarchical::thread_pass_lanes(0, 0), 1);
    // Every group size, each lane over its strided share of a tile: the model's sums are whole.
    for mean in [1u64, 2, 3, 5, 9, 17, 33, 100] {
        let sizes: Vec<u64> = (0..40)
            .map(|t| (t * 7 % 11) * mean / 5 + mean / 2)
            .collect();
        let offsets = offsets_of(&sizes);
        let (run, _, _) = hierarchical::model_levels_run(&offsets, None, 16, 64, false, value);
        assert!(run.atom_visits.iter().all(|&v| v == 1), "mean {mean}");
        for (t, w) in offsets.windows(2).enumerate() {
            assert_eq!(run.epilogue_sums[t], (w[0]..w[1]).map(value).sum::<u64>());
        }
    }
}

/// The selections under `group` (`kernels_gen::analysis::Selection`): each lane runs its strided
/// share of a tile's atoms in order, keeping the value and the position of the atom it chose (lane
/// 0 starting from the value before the loop at position -1, the others from the worst key), and
/// the lanes' choices meet in the shuffle tree by key, then by position. The result must be the
/// loop's in order: for `v > m` the first atom with the largest value, for `v >= m` the last; for
/// a match with `break` the first matching atom, without it the last.
#[derive(Clone, Copy, Debug)]
enum Rule {
    /// `if v > m` (or `>=` with `ties_late`): larger wins; `<` and `<=` are its mirror.
    Keyed { larger: bool, ties_late: bool },
    /// `if v == target { x = pos; break; }` (`first`) or without the `break`.
    Match { first: bool },
}

/// The selection run in order over `atoms` (positions and values), from the key `start` at the
/// position `at`: what one thread computes.
fn in_order(
    rule: Rule,
    atoms: impl Iterator<Item = (usize, i32)>,
    start: i32,
    at: i64,
) -> (i32, i64) {
    let (mut m, mut at) = (start, at);
    for (i, v) in atoms {
        match rule {
            Rule::Keyed { larger, ties_late } => {
                let take = if larger {
                    v > m || (ties_late && v == m)
                } else {
                    v < m || (ties_late && v == m)
                };
                if take {
                    m = v;
                    at = i as i64;
                }
            }
            Rule::Match { first } => {
                if v == 3 {
                    at = i as i64;
                    if first {
                        break;
                    }
                }
            }
        }
    }
    (m, at)
}

fn sequential(rule: Rule, values: &[i32], start: i32) -> (i32, i64) {
    in_order(rule, values.iter().copied().enumerate(), start, -1)
}

fn grouped(rule: Rule, values: &[i32], start: i32, g: usize) -> (i32, i64) {
    let none_at = match rule {
        Rule::Match { first: true } => i64::MAX,
        _ => -1,
    };
    let worst = match rule {
        Rule::Keyed { larger: true, .. } => i32::MIN,
        _ => i32::MAX,
    };
    let mut lanes: Vec<(i32, i64)> = (0..g)
        .map(|lane| {
            let own = group::model_atoms_of_lane(lane as u64, g as u64, 0, values.len() as u64)
                .map(|a| (a as usize, values[a as usize]));
            in_order(rule, own, if lane == 0 { start } else { worst }, none_at)
        })
        .collect();
    let later_wins = match rule {
        Rule::Keyed { ties_late, .. } => ties_late,
        Rule::Match { first } => !first,
    };
    let better = |o: (i32, i64), me: (i32, i64)| {
        let by_pos = if later_wins { o.1 > me.1 } else { o.1 < me.1 };
        match rule {
            Rule::Keyed { larger, .. } => {
                (if larger { o.0 > me.0 } else { o.0 < me.0 }) || (o.0 == me.0 && by_pos)
            }
            Rule::Match { .. } => by_pos,
        }
    };
    // The shuffle-down tree: lane i combines with lane i + o (itself past the group's end).
    let mut o = g / 2;
    while o > 0 {
        let before = lanes.clone();
        for (i, lane) in lanes.iter_mut().enumerate() {
            let other = before[if i + o < g { i + o } else { i }];
            if better(other, *lane) {
                *lane = other;
            }
        }
        o /= 2;
    }
    lanes[0]
}

proptest! {
    #[test]
    fn a_group_keeps_what_the_loop_in_order_selects(
        values in prop::collection::vec(0i32..6, 0..300),
        start in -1i32..7,
        g in prop::sample::select(vec![2usize, 4, 8, 32]),
        rule in prop::sample::select(vec![
            Rule::Keyed { larger: true, ties_late: false },
            Rule::Keyed { larger: true, ties_late: true },
            Rule::Keyed { larger: false, ties_late: false },
            Rule::Keyed { larger: false, ties_late: true },
            Rule::Match { first: true },
            Rule::Match { first: false },
        ]),
    ) {
        let want = sequential(rule, &values, start);
        let got = grouped(rule, &values, start, g);
        match rule {
            // A match keeps only the position; a lane that matched nothing keeps the start.
            Rule::Match { .. } => {
                let matched = |at: i64| (0..i64::MAX).contains(&at).then_some(at);
                prop_assert_eq!(matched(got.1), matched(want.1), "{:?} g={}", rule, g)
            }
            Rule::Keyed { .. } => prop_assert_eq!(got, want, "{:?} g={}", rule, g),
        }
    }
}

/// The selections under the carry schedules: a share of a cut tile starts from no choice (the
/// worst key at the position no atom has), the shares' choices meet in the block's segmented scan,
/// the records and the look-back by key, then position, and the tile is finished from the values
/// before the loop and that choice (`carry::model_fold`). Each tile's result must be the loop's in
/// order, ties included.
fn check_carry_selection(
    partition: Partition,
    ipt: u32,
    block: u32,
    sizes: &[u64],
    rule: Rule,
    start: i32,
    seed: u64,
) -> Result<(), TestCaseError> {
    let offsets = offsets_of(sizes);
    // Few distinct values, so that ties are common.
    let value = |atom: u64| ((atom.wrapping_add(seed).wrapping_mul(0x9e37_79b9) >> 11) % 6) as i32;
    let none_at = match rule {
        Rule::Match { first: true } => i64::MAX,
        _ => -1,
    };
    let worst = match rule {
        Rule::Keyed { larger: true, .. } => i32::MIN,
        Rule::Keyed { larger: false, .. } => i32::MAX,
        // No key: the model's `m` stays the start.
        Rule::Match { .. } => start,
    };
    let later_wins = match rule {
        Rule::Keyed { ties_late, .. } => ties_late,
        Rule::Match { first } => !first,
    };
    let better = |o: &(i32, i64), me: &(i32, i64)| {
        let by_pos = if later_wins { o.1 > me.1 } else { o.1 < me.1 };
        match rule {
            Rule::Keyed { larger, .. } => {
                (if larger { o.0 > me.0 } else { o.0 < me.0 }) || (o.0 == me.0 && by_pos)
            }
            Rule::Match { .. } => by_pos,
        }
    };
    let step = |p: &(i32, i64), atom: u64| match rule {
        // The share's `break` after its first match: it stops there.
        Rule::Match { first: true } if p.1 != none_at => *p,
        _ => in_order(
            rule,
            std::iter::once((atom as usize, value(atom))),
            p.0,
            p.1,
        ),
    };
    let combine = |earlier: &(i32, i64), later: &(i32, i64)| {
        if better(later, earlier) {
            *later
        } else {
            *earlier
        }
    };
    let fold = Fold {
        initial: (start, none_at),
        identity: (worst, none_at),
        step: &step,
        combine: &combine,
    };
    let (run, results) = model_fold(partition, ipt, block, &offsets, &fold);
    let what = format!("{partition:?}, ipt {ipt}, block {block}, {rule:?}, start {start}");
    for t in 0..sizes.len() {
        prop_assert_eq!(run.epilogues[t], 1, "tile {} ({})", t, &what);
        let atoms = (offsets[t]..offsets[t + 1]).map(|a| (a as usize, value(a)));
        let want = in_order(rule, atoms, start, none_at);
        prop_assert_eq!(results[t], Some(want), "tile {} ({})", t, &what);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn the_carry_schedules_keep_what_the_loop_in_order_selects(
        sizes in tile_sizes(),
        partition in prop::sample::select(vec![
            Partition::MergePath, Partition::WorkOriented, Partition::Split { mdt: 3 }, Partition::Split { mdt: 40 },
        ]),
        ipt in prop::sample::select(vec![1u32, 3, 8]),
        block in prop::sample::select(vec![32u32, 64]),
        start in -1i32..7,
        seed in any::<u64>(),
        rule in prop::sample::select(vec![
            Rule::Keyed { larger: true, ties_late: false },
            Rule::Keyed { larger: true, ties_late: true },
            Rule::Keyed { larger: false, ties_late: false },
            Rule::Keyed { larger: false, ties_late: true },
            Rule::Match { first: true },
            Rule::Match { first: false },
        ]),
    ) {
        check_carry_selection(partition, ipt, block, &sizes, rule, start, seed)?;
    }
}

/// A keyed selection with a tally (`Selection::tallies`): the value and the count of a maximum
/// (or minimum) with the position of its first atom,
/// `if v > m { m = v; n = 1; at = i; } else if v == m { n += 1; }`. A partial is
/// `(key, count, position)`.
type Tallied = (i32, u32, i64);

/// One atom folded into a partial, as the loop does.
fn tally_step(larger: bool, p: Tallied, i: usize, v: i32) -> Tallied {
    let (m, n, at) = p;
    if (larger && v > m) || (!larger && v < m) {
        (v, 1, i as i64)
    } else if v == m {
        (m, n + 1, at)
    } else {
        p
    }
}

/// Two partials combined as `Selection::keep_better` emits it: the better key's, or on equal
/// keys the counts added and the earlier position's key and payload.
fn tally_combine(larger: bool, mine: Tallied, other: Tallied) -> Tallied {
    if (larger && other.0 > mine.0) || (!larger && other.0 < mine.0) {
        other
    } else if other.0 == mine.0 {
        let n = mine.1 + other.1;
        if other.2 < mine.2 {
            (other.0, n, other.2)
        } else {
            (mine.0, n, mine.2)
        }
    } else {
        mine
    }
}

fn tally_worst(larger: bool) -> Tallied {
    (if larger { i32::MIN } else { i32::MAX }, 0, -1)
}

fn tally_in_order(
    larger: bool,
    atoms: impl Iterator<Item = (usize, i32)>,
    start: Tallied,
) -> Tallied {
    atoms.fold(start, |p, (i, v)| tally_step(larger, p, i, v))
}

proptest! {
    /// Under `group` each lane counts its strided share (lane 0 from the values before the loop,
    /// the others from the worst key and no count), and the shuffle tree adds the counts of equal
    /// keys: the loop's value, count and first position in order, with keys from few levels.
    #[test]
    fn a_group_keeps_the_value_and_the_count_of_a_maximum(
        values in prop::collection::vec(0i32..4, 0..300),
        start in -1i32..5,
        start_count in 0u32..3,
        g in prop::sample::select(vec![2usize, 4, 8, 32]),
        larger in any::<bool>(),
    ) {
        let initial = (start, start_count, -1);
        let want = tally_in_order(larger, values.iter().copied().enumerate(), initial);
        let mut lanes: Vec<Tallied> = (0..g)
            .map(|lane| {
                let own = group::model_atoms_of_lane(lane as u64, g as u64, 0, values.len() as u64)
                    .map(|a| (a as usize, values[a as usize]));
                tally_in_order(larger, own, if lane == 0 { initial } else { tally_worst(larger) })
            })
            .collect();
        let mut o = g / 2;
        while o > 0 {
            let before = lanes.clone();
            for (i, lane) in lanes.iter_mut().enumerate() {
                let other = before[if i + o < g { i + o } else { i }];
                *lane = tally_combine(larger, *lane, other);
            }
            o /= 2;
        }
        prop_assert_eq!(lanes[0], want, "larger {} g={}", larger, g);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Under the carry schedules a cut share counts from the worst key and no count, the shares
    /// meet in the block's scan, the records and the look-back (`carry::model_fold`), and the tile
    /// is finished from the values before the loop: the loop's value, count and position in order.
    #[test]
    fn the_carry_schedules_keep_the_value_and_the_count_of_a_maximum(
        sizes in tile_sizes(),
        partition in prop::sample::select(vec![
            Partition::MergePath, Partition::WorkOriented, Partition::Split { mdt: 3 }, Partition::Split { mdt: 40 },
        ]),
        ipt in prop::sample::select(vec![1u32, 3, 8]),
        block in prop::sample::select(vec![32u32, 64]),
        start in -1i32..5,
        start_count in 0u32..3,
        seed in any::<u64>(),
        larger in any::<bool>(),
    ) {
        let offsets = offsets_of(&sizes);
        // Few levels, so that ties are common.
        let value = |atom: u64| ((atom.wrapping_add(seed).wrapping_mul(0x9e37_79b9) >> 11) % 4) as i32;
        let step = |p: &Tallied, atom: u64| tally_step(larger, *p, atom as usize, value(atom));
        // `model_fold` combines (earlier, later); the emitted code keeps the earlier in `mine`
        // where it folds a later share into it, or the later where it folds an earlier one:
        // the result is the same either way, as the tie rule is symmetric.
        let combine = |earlier: &Tallied, later: &Tallied| tally_combine(larger, *later, *earlier);
        let initial = (start, start_count, -1);
        let fold = Fold { initial, identity: tally_worst(larger), step: &step, combine: &combine };
        let (run, results) = model_fold(partition, ipt, block, &offsets, &fold);
        for t in 0..sizes.len() {
            prop_assert_eq!(run.epilogues[t], 1);
            let atoms = (offsets[t]..offsets[t + 1]).map(|a| (a as usize, value(a)));
            let want = tally_in_order(larger, atoms, initial);
            prop_assert_eq!(results[t], Some(want), "tile {} ({:?}, ipt {}, block {}, larger {})", t, partition, ipt, block, larger);
        }
    }
}

/// Two atom loops under a carry schedule: a launch per loop, the first keeping each tile's
/// complete result in the call's tile state, the second folding each atom with its tile's kept
/// result (as a variance's second loop reads the mean). Each pass finishes every tile once, and
/// the second sees the first's complete result, as the two loops run in order.
fn check_carry_two_loops(
    partition: Partition,
    ipt: u32,
    block: u32,
    sizes: &[u64],
) -> Result<(), TestCaseError> {
    let offsets = offsets_of(sizes);
    let sum = |value: &dyn Fn(u64) -> u64| {
        let step = |acc: &u64, atom: u64| acc.wrapping_add(value(atom));
        let add = |a: &u64, b: &u64| a.wrapping_add(*b);
        let fold = Fold {
            initial: 0u64,
            identity: 0u64,
            step: &step,
            combine: &add,
        };
        model_fold(partition, ipt, block, &offsets, &fold)
    };
    let (first, kept) = sum(&value);
    let tile_of = |atom: u64| offsets.partition_point(|&o| o <= atom) - 1;
    let kept: Vec<u64> = kept.into_iter().map(|k| k.unwrap_or(u64::MAX)).collect();
    let (second, results) = sum(&|atom| value(atom).wrapping_mul(kept[tile_of(atom)]));
    let what = format!("{partition:?}, ipt {ipt}, block {block}");
    for t in 0..sizes.len() {
        prop_assert_eq!(
            (first.epilogues[t], second.epilogues[t]),
            (1, 1),
            "tile {} ({})",
            t,
            &what
        );
        let atoms = offsets[t]..offsets[t + 1];
        let mean_like: u64 = atoms.clone().map(value).fold(0, u64::wrapping_add);
        let want = atoms
            .map(|a| value(a).wrapping_mul(mean_like))
            .fold(0, u64::wrapping_add);
        prop_assert_eq!(results[t], Some(want), "tile {} ({})", t, &what);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn two_atom_loops_under_the_carry_schedules_see_the_first_loops_totals(
        sizes in tile_sizes(),
        partition in prop::sample::select(vec![
            Partition::MergePath, Partition::WorkOriented, Partition::Split { mdt: 3 },
        ]),
        ipt in prop::sample::select(vec![1u32, 3, 8]),
        block in prop::sample::select(vec![32u32, 64]),
    ) {
        check_carry_two_loops(partition, ipt, block, &sizes)?;
    }
}

/// A `lanes` loop over `start..end` under a group of `g` ([`lanes`]), each lane taking `vector`
/// consecutive values (1, or one of [`lanes::VECTORS`] where the length is a multiple of it: the
/// fused paths, [`lanes::vector_for`]): in each stride every pair of a value in range and an atom of the tile is visited by
/// exactly one lane, each value is stored exactly once (by atom lane 0), and after the reduction
/// (one per value copy) every lane of a value in range holds the value's total over the tile's
/// atoms.
// The strides index every lane's list of values in step.
#[allow(clippy::needless_range_loop)]
fn check_lanes(g: u32, start: u64, n: u64, atoms: u64, fuses: bool) -> Result<(), TestCaseError> {
    use kernels_gen::schedule::lanes;
    let end = start + n;
    let v = lanes::vector_for(n, fuses, g);
    prop_assert!(v == 1 || (n.is_multiple_of(v as u64) && n > 0));
    // The run-time choice, said declaratively: the narrowest fused width dividing `n` whose
    // lanes (up to 16 of the group) cover it in one stride, else the widest dividing it; four
    // values only above a warp.
    let lanes_over = g.min(lanes::TARGET_LANES) as u64;
    let dividing: Vec<u32> = lanes::vectors(g)
        .iter()
        .copied()
        .filter(|&x| n > 0 && n.is_multiple_of(x as u64))
        .collect();
    let want = if !fuses || dividing.is_empty() {
        1
    } else {
        dividing
            .iter()
            .copied()
            .find(|&x| x as u64 * lanes_over >= n)
            .unwrap_or(*dividing.last().unwrap())
    };
    prop_assert_eq!(v, want, "n {} g {}", n, g);
    if g > 32 {
        prop_assert!(v <= lanes::VECTOR);
    }
    let w = lanes::width_for(n, g, true, v);
    prop_assert!(
        w.is_power_of_two() && w <= g && ((w * v) as u64 >= n || w == g),
        "width {} for {} values of {} per lane",
        w,
        n,
        v
    );
    if v == 1 {
        prop_assert_eq!(w, lanes::width(n, g, true));
    }
    let value = |atom: u64, j: u64| atom * 1000 + j + 1;
    let mut visits = vec![0u32; (n * atoms) as usize];
    let mut stores = vec![0u32; n as usize];
    let per_lane: Vec<Vec<(u64, bool)>> = (0..g)
        .map(|l| lanes::model_vectors_of_lane(l, w, v, start, end))
        .collect();
    let strides = per_lane[0].len();
    prop_assert!(
        per_lane.iter().all(|x| x.len() == strides),
        "strides differ between lanes"
    );
    for s in 0..strides {
        for c in 0..v as u64 {
            let mut partials = vec![0u64; g as usize];
            for l in 0..g {
                let (first, in_range) = per_lane[l as usize][s];
                let j = first + c;
                prop_assert!(
                    (start..end).contains(&j),
                    "lane {} reads value {} outside the range",
                    l,
                    j
                );
                for a in lanes::model_atoms_of_lane(l, g, w, 0, atoms, in_range) {
                    visits[(a * n + (j - start)) as usize] += 1;
                    partials[l as usize] += value(a, j);
                }
            }
            let totals = lanes::model_reduce(g, w, &partials);
            for l in 0..g {
                let (first, in_range) = per_lane[l as usize][s];
                if !in_range {
                    continue;
                }
                let j = first + c;
                let want: u64 = (0..atoms).map(|a| value(a, j)).sum();
                prop_assert_eq!(
                    totals[l as usize],
                    want,
                    "lane {} value {} (g {}, w {}, v {})",
                    l,
                    j,
                    g,
                    w,
                    v
                );
                if lanes::split_of_lane(l, w).1 == 0 {
                    stores[(j - start) as usize] += 1;
                }
            }
        }
    }
    prop_assert!(
        visits.iter().all(|&x| x == 1),
        "g {} w {} v {}: visits {:?}",
        g,
        w,
        v,
        visits
    );
    prop_assert!(
        stores.iter().all(|&x| x == 1),
        "g {} w {} v {}: stores {:?}",
        g,
        w,
        v,
        stores
    );
    Ok(())
}

proptest! {
    #[test]
    fn a_lanes_loop_visits_every_value_and_atom_once_and_reduces_per_value(
        g in prop::sample::select(vec![2u32, 4, 8, 16, 32, 64, 128, 256]),
        start in 0u64..5,
        n in prop_oneof![0u64..40, prop::sample::select(vec![48u64, 63, 64, 65, 80, 96, 100, 127, 128, 129, 160, 255, 256, 257, 300, 512, 1028])],
        atoms in prop_oneof![0u64..10, 30u64..70],
        fuses in any::<bool>(),
    ) {
        check_lanes(g, start, n, atoms, fuses)?;
    }
}

/// The strides' offsets are 64-bit unsigned from the start, the step clamped at the length: a
/// range ending at the top of its type (`i32::MAX`, `u64::MAX`) ends, every value once.
#[test]
fn lanes_strides_end_at_the_top_of_the_type() {
    use kernels_gen::schedule::lanes::model_vectors_of_lane;
    for (start, end) in [
        (i32::MAX as u64 - 7, i32::MAX as u64),
        (i32::MAX as u64 - 100, i32::MAX as u64),
        (u64::MAX - 7, u64::MAX),
        (u64::MAX - 100, u64::MAX),
        (i32::MAX as u64 - 96, i32::MAX as u64),
        (u64::MAX - 96, u64::MAX),
    ] {
        for (w, v) in [(8u32, 1u32), (32, 1), (32, 4), (2, 4), (16, 8), (4, 16)] {
            if !(end - start).is_multiple_of(v as u64) {
                continue;
            }
            let mut seen = vec![0u32; (end - start) as usize];
            for l in 0..w {
                for (first, inside) in model_vectors_of_lane(l, w, v, start, end) {
                    if inside {
                        for c in 0..v as u64 {
                            seen[(first + c - start) as usize] += 1;
                        }
                    }
                }
            }
            assert!(
                seen.iter().all(|&x| x == 1),
                "{start}..{end} w {w} v {v}: {seen:?}"
            );
        }
    }
}

#[test]
fn a_lanes_loop_without_atoms_takes_the_whole_group() {
    use kernels_gen::schedule::lanes::width;
    assert_eq!(width(3, 32, false), 32);
    assert_eq!(
        (width(0, 32, true), width(1, 32, true), width(3, 32, true)),
        (1, 1, 4)
    );
    assert_eq!(
        (
            width(32, 32, true),
            width(100, 32, true),
            width(100, 256, true)
        ),
        (32, 32, 128)
    );
}

use super::*;

#[test]
fn bins_are_ceil_log2() {
    let want = [
        (0, 0),
        (1, 0),
        (2, 1),
        (3, 2),
        (4, 2),
        (5, 3),
        (8, 3),
        (9, 4),
        (16, 4),
        (17, 5),
        (4096, 12),
        (4097, 13),
        (i32::MAX as u64, 31),
    ];
    for (size, bin) in want {
        assert_eq!(bin_of(size), bin, "size {size}");
    }
    for b in 1..BINS {
        assert_eq!(bin_of(bin_upper_edge(b).min(i32::MAX as u64)), b);
        assert_eq!(bin_of(bin_upper_edge(b - 1) + 1), b);
    }
}

/// The wrapper launches each launch on `range(bins)` of the binned order: every bin must be in
/// exactly one launch, in order, on large sets and on small ones alike; and every launch must
/// stay inside one of the paper's mappings (the model's plan), refined, never merged.
#[test]
fn launches_cover_every_bin_once() {
    for block_size in [32, 64, 256, 1024] {
        let launches = launches(block_size);
        let large: Vec<_> = launches.iter().map(|l| l.bins.clone()).collect();
        let small: Vec<_> = launches
            .iter()
            .filter_map(|l| l.small_set_bins.clone())
            .collect();
        for plan in [&large, &small] {
            let mut next = 0;
            for bins in plan.iter() {
                assert_eq!(*bins.start(), next, "{plan:?}");
                assert!(bins.start() <= bins.end(), "{plan:?}");
                next = bins.end() + 1;
            }
            assert_eq!(next, BINS, "{plan:?}");
        }
        let t = Thresholds::DEFAULT;
        for bins in &large {
            assert_eq!(
                t.mapping_of_bin(*bins.start()),
                t.mapping_of_bin(*bins.end()),
                "{bins:?}"
            );
        }
        let small_mappings: Vec<_> = small
            .iter()
            .map(|b| (t.mapping_of_bin(*b.start()), t.mapping_of_bin(*b.end())))
            .collect();
        assert_eq!(
            small_mappings,
            [
                Mapping::Thread,
                Mapping::Warp,
                Mapping::Block,
                Mapping::Split
            ]
            .map(|m| (m, m))
        );
    }
}

/// A launcher that records the plan's launches over given bin starts.
struct Recorder {
    variants: Vec<super::super::Variant>,
    rounds: u64,
    starts: [u32; BINS + 1],
    launched: Vec<(usize, Range<usize>)>,
    /// The long launch's piece size.
    piece_atoms: Option<u64>,
}

impl super::super::Launcher for Recorder {
    fn variants(&self) -> &[super::super::Variant] {
        &self.variants
    }
    fn stats(&self) -> super::super::auto::TileStats {
        Default::default()
    }
    fn call_stats(&mut self) -> Result<super::super::auto::TileStats, Stop> {
        Ok(Default::default())
    }
    fn is_wide(&self) -> bool {
        false
    }
    fn limits(&self) -> DeviceLimits {
        DeviceLimits {
            sm_count: 132,
            max_threads_per_sm: 2048,
            l2_bytes: 50 << 20,
        }
    }
    fn tile_set_mdt(&self) -> u64 {
        1
    }
    fn rounds(&self) -> u64 {
        self.rounds
    }
    fn bin(&mut self) -> Result<[u32; BINS + 1], Stop> {
        Ok(self.starts)
    }
    fn launch(&mut self, launch: super::super::Launch) -> Result<(), Stop> {
        if launch.piece_atoms.is_some() || launch.variant == launches(256).len() - 1 {
            self.piece_atoms = launch.piece_atoms;
        }
        match launch.tiles {
            Tiles::Binned(range) => self.launched.push((launch.variant, range)),
            Tiles::Call => panic!("lrb launches bins"),
        }
        Ok(())
    }
}

/// With its long bins in pieces (a kernel with the short bins' two groups as variants), a
/// loop of 16 values or more runs bins `0..=5` under the group of 16, of 4 to 15 under the
/// group of 8, fewer under the thread and small groups; and every bin above 8 (257 atoms and
/// up) runs in pieces, none a block per tile. Without those variants the plan is as it was.
/// Every binned tile is launched once either way, on large sets and small ones.
#[test]
fn a_lanes_body_runs_its_short_bins_over_the_values_and_its_long_bins_in_pieces() {
    let variant = super::super::Variant {
        config: ScheduleConfig::new(Schedule::Thread),
        name: "k",
        scratch_slots_per_block: 0,
        state_slots_per_tile: 0,
        dynamic_shared_bytes: 0,
        scans: false,
        wide: false,
        user_params: 0,
        over_list: true,
        atomics: false,
        passes: 1,
        pass_levels: false,
    };
    let n = launches(256).len();
    let (block, long) = (n - 2, n - 1);
    for per_bin in [SMALL_SET_TILES / 16, 3] {
        // `per_bin` tiles in every bin: a large set (the groups of 2 and 4 launch on their
        // own) and a small one (the paper's four mappings).
        let mut starts = [0u32; BINS + 1];
        for (b, s) in starts.iter_mut().enumerate() {
            *s = b as u32 * per_bin;
        }
        let total = starts[BINS] as usize;
        for (extra, rounds, short) in [
            (2, 16, Some(n)),
            (2, 128, Some(n)),
            (2, 8, Some(n + 1)),
            (2, 4, Some(n + 1)),
            (2, 3, None),
            (2, 1, None),
            (0, 128, None),
            (0, 8, None),
            // A `lanes` loop inside the atom loop: its one short group, whatever the rounds.
            (1, 1, Some(n)),
            (1, 128, Some(n)),
        ] {
            let mut run = Recorder {
                variants: vec![variant; n + extra],
                rounds,
                starts,
                launched: Vec::new(),
                piece_atoms: None,
            };
            Lrb.plan(ScheduleConfig::new(Schedule::Lrb), &mut run)
                .unwrap();
            let mut covered = vec![0; total];
            for (_, r) in &run.launched {
                r.clone().for_each(|i| covered[i] += 1);
            }
            let case = format!("rounds {rounds}, extra {extra}: {:?}", run.launched);
            assert!(covered.iter().all(|&c| c == 1), "{case}");
            let short_end = starts[LANES_SHORT_MAX_BIN + 1] as usize;
            if let Some(v) = short {
                assert!(run.launched.contains(&(v, 0..short_end)), "{case}");
                assert!(!run.launched.iter().any(|(v, _)| *v == 0), "{case}");
            } else {
                assert!(run.launched.iter().all(|(v, _)| *v < n), "{case}");
            }
            let small = starts[BINS] < SMALL_SET_TILES;
            let pieces_from = starts[WARP_MAX_BIN + 1] as usize;
            let blocks = run.launched.iter().any(|(v, _)| *v == block);
            let in_pieces = run.launched.contains(&(long, pieces_from..total));
            assert_eq!((blocks, in_pieces), (extra == 0, extra > 0), "{case}");
            // The plan's piece size: its own on a small set, else the variant's.
            let want = (extra > 0 && small).then_some(SMALL_SET_PIECE_ATOMS);
            assert_eq!(run.piece_atoms, want, "{case}");
        }
    }
}

/// The model of the plans a `lanes` body gets (no block mapping: bins above `WARP_MAX_BIN`
/// split in pieces of [`super::super::pieces::PIECE_ATOMS`], on a small set of
/// `SMALL_SET_PIECE_ATOMS`) reads every atom once
/// and finishes every tile once with its whole sum, on tiles of every bin up to 12 and beyond.
#[test]
fn the_lanes_plan_finishes_every_tile_once() {
    let large = Thresholds {
        block_max_bin: WARP_MAX_BIN,
        split_piece_atoms: super::super::pieces::PIECE_ATOMS as u64,
        ..Thresholds::DEFAULT
    };
    let small = Thresholds {
        block_max_bin: WARP_MAX_BIN,
        split_piece_atoms: SMALL_SET_PIECE_ATOMS,
        ..Thresholds::DEFAULT
    };
    assert_eq!(large.mapping_of_bin(WARP_MAX_BIN + 1), Mapping::Split);
    assert_eq!(small.mapping_of_bin(WARP_MAX_BIN + 1), Mapping::Split);
    for t in [large, small] {
        the_plan_finishes_every_tile_once(t);
    }
}

fn the_plan_finishes_every_tile_once(t: Thresholds) {
    let sizes = [
        0u64, 1, 2, 17, 33, 64, 65, 128, 129, 256, 257, 300, 511, 512, 513, 1000, 2048, 2049, 4095,
        4096, 4097, 9000,
    ];
    let mut offsets = vec![0u64];
    for s in sizes {
        offsets.push(offsets.last().unwrap() + s);
    }
    for workers in [1, 3, 7] {
        let plan = LrbPlan::new(&offsets, workers, t);
        let run = model_run(&offsets, &plan, 1000, 256, |a| a + 1);
        assert!(run.atom_visits.iter().all(|&v| v == 1));
        assert!(run.epilogues.iter().all(|&e| e == 1));
        for (i, sum) in run.epilogue_sums.iter().enumerate() {
            let want: u64 = (offsets[i]..offsets[i + 1]).map(|a| a + 1).sum();
            assert_eq!(*sum, want, "tile {i}");
        }
    }
}

#[test]
fn default_mappings() {
    let t = Thresholds::DEFAULT;
    let m = |size| t.mapping_of_bin(bin_of(size));
    assert_eq!(
        [m(0), m(16), m(17), m(256), m(257), m(4096), m(4097)],
        [
            Mapping::Thread,
            Mapping::Thread,
            Mapping::Warp,
            Mapping::Warp,
            Mapping::Block,
            Mapping::Block,
            Mapping::Split
        ]
    );
}

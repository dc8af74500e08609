//! The pure-Rust models of every schedule's mapping: every atom of every tile is visited exactly once
//! and every tile's epilogue runs exactly once, with the complete reduction, for random tile sizes with
//! empty tiles, a huge tile, and sizes around the group and block boundaries.

use kernels_gen::schedule::carry::{model_run, Partition};
use kernels_gen::schedule::{group, thread};
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

fn check_carry(
    partition: Partition,
    ipt: u32,
    block: u32,
    sizes: &[u64],
) -> Result<(), TestCaseError> {
    let offsets = offsets_of(sizes);
    let value = |atom: u64| atom * 7 + 1;
    let run = model_run(partition, ipt, block, &offsets, value);
    for (atom, &v) in run.atom_visits.iter().enumerate() {
        prop_assert_eq!(
            v,
            1,
            "atom {} visited {} times ({:?}, ipt {}, block {})",
            atom,
            v,
            partition,
            ipt,
            block
        );
    }
    for t in 0..sizes.len() {
        prop_assert_eq!(
            run.epilogues[t],
            1,
            "tile {} epilogue ran {} times ({:?})",
            t,
            run.epilogues[t],
            partition
        );
        let want: u64 = (offsets[t]..offsets[t + 1]).map(value).sum();
        prop_assert_eq!(
            run.epilogue_sums[t],
            want,
            "tile {} saw a partial sum ({:?})",
            t,
            partition
        );
    }
    Ok(())
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

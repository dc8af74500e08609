use super::*;

#[test]
fn batches_begin_after_the_host_levels_and_double() {
    let run: Vec<usize> = (0..6)
        .map(|b| levels_before_check(HOST_LEVELS, b, 64))
        .collect();
    assert_eq!(run, [8, 16, 32, 64, 64, 64]);
    assert_eq!(levels_before_check(HOST_LEVELS - 1, 3, 64), 1);
    assert_eq!(levels_before_check(100, 3, 1), 1);
    assert_eq!(levels_before_check(100, 0, 5), 5);
    assert_eq!(levels_before_check(100, 40, 256), 256);
}

#[test]
fn a_batch_counts_the_levels_before_its_first_empty_frontier() {
    assert_eq!(batch_outcome(&[5, 3, 4]), Ok((2, false)));
    assert_eq!(batch_outcome(&[5, 3, 0]), Ok((2, true)));
    assert_eq!(batch_outcome(&[5, 0, 0, 0]), Ok((1, true)));
    assert_eq!(batch_outcome(&[1, 0]), Ok((1, true)));
    assert!(batch_outcome(&[5, 0, 2]).is_err());
    assert!(batch_outcome(&[0, 0]).is_err());
    assert!(batch_outcome(&[3]).is_err());
}

/// The search's loop on the CPU: levels one at a time, then batches, over a graph whose
/// frontiers have the sizes `sizes` (the source's first, then each level's next): the levels
/// counted, those queued and the host's waits.
fn model(sizes: &[u64], max: usize) -> (u32, u32, u32) {
    let frontier = |l: usize| sizes.get(l).copied().unwrap_or(0);
    let (mut levels, mut queued, mut waits, mut batches) = (0u32, 0u32, 0u32, 0u32);
    let mut total = frontier(0);
    while total > 0 {
        let count = levels_before_check(levels, batches, max);
        if count == 1 {
            levels += 1;
            total = frontier(levels as usize);
        } else {
            let totals: Vec<u64> = (0..=count).map(|j| frontier(levels as usize + j)).collect();
            let (expanded, ended) = batch_outcome(&totals).unwrap();
            assert_eq!(ended, totals[count] == 0);
            levels += expanded;
            total = totals[count];
            batches += 1;
        }
        queued += count as u32;
        waits += 1;
    }
    (levels, queued, waits)
}

#[test]
fn batched_searches_count_their_levels_and_run_few_empty_ones() {
    for depth in [1usize, 2, 7, 8, 9, 15, 16, 17, 40, 100, 1813] {
        for max in [1usize, 2, 7, 64, 256] {
            let sizes: Vec<u64> = (0..depth).map(|l| 1 + (l as u64 * 7919) % 300).collect();
            let (levels, queued, waits) = model(&sizes, max);
            assert_eq!(levels as usize, depth, "depth {depth}, max {max}");
            assert!(
                queued >= levels && queued - levels < max as u32,
                "{queued} {levels}"
            );
            if max == 1 || depth <= HOST_LEVELS as usize {
                assert_eq!(waits as usize, depth);
            } else {
                // The host levels, then one wait a batch of at least 8 (or `max`) levels.
                let batch = FIRST_BATCH.min(max);
                let rest = depth - HOST_LEVELS as usize;
                assert!(waits as usize <= HOST_LEVELS as usize + rest.div_ceil(batch));
            }
        }
    }
}

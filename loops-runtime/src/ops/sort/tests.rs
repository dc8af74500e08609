use super::*;

/// Bin starts from per-bin counts.
fn starts(counts: &[(usize, u32)]) -> [u32; BINS + 1] {
    let mut per_bin = [0u32; BINS];
    for &(b, c) in counts {
        per_bin[b] = c;
    }
    let mut s = [0u32; BINS + 1];
    for b in 0..BINS {
        s[b + 1] = s[b] + per_bin[b];
    }
    s
}

#[test]
fn the_plan_maps_bins_to_kernels() {
    let s = starts(&[(0, 5), (1, 2), (5, 3), (6, 1), (12, 4), (13, 2), (15, 1)]);
    let steps = plan(&s, false);
    assert_eq!(
        steps,
        vec![
            // Bins 1 and 5: one launch.
            Step::Groups {
                first_bin: 1,
                starts: [0, 5, 7, 7, 7, 7, 10]
            },
            Step::Block {
                keys: 64,
                threads: 32,
                first: 10,
                count: 1
            },
            Step::Block {
                keys: 4096,
                threads: 256,
                first: 11,
                count: 4
            },
            // Bins 13, 14 (empty) and 15: three passes, the second and third over bin 15 only.
            Step::Long {
                first: 15,
                count: 3,
                pass_firsts: vec![15, 17, 17]
            },
        ]
    );
    // A transpose launches for bin 0 too.
    assert_eq!(
        plan(&s, true)[0],
        Step::Groups {
            first_bin: 0,
            starts: [0, 5, 7, 7, 7, 7, 10]
        }
    );
    // Blocks: bin 0's 5 segments of one lane, bin 1's 2 of two, bin 5's 3 of 32.
    assert_eq!(group_blocks(0, &[0, 5, 7, 7, 7, 7, 10]), 3);
    assert_eq!(group_blocks(1, &[0, 300, 700, 700, 700, 700, 700]), 4);
    // One group bin: its own launch.
    assert_eq!(
        plan(&starts(&[(0, 9), (3, 4)]), false),
        vec![Step::Group {
            lanes: 8,
            first: 9,
            count: 4
        }]
    );
    assert!(plan(&starts(&[(0, 9)]), false).is_empty());
}

#[test]
fn the_reference_sorts_rows_stably() {
    let offsets = [0, 4, 4, 5, 9];
    let mut indices = [3, 1, 3, 0, 7, 2, 2, 1, 2];
    let mut values = [0, 1, 2, 3, 4, 5, 6, 7, 8];
    sort_rows_reference(&offsets, &mut indices, &mut values);
    assert_eq!(indices, [0, 1, 3, 3, 7, 1, 2, 2, 2]);
    assert_eq!(values, [3, 1, 0, 2, 4, 7, 5, 6, 8]);
    // Shuffling keeps each row's entries (as pairs) and the rows' bounds.
    let mut shuffled_i = indices;
    let mut shuffled_v = values;
    shuffle_rows(&offsets, &mut shuffled_i, &mut shuffled_v, 7);
    for w in offsets.windows(2) {
        let r = w[0] as usize..w[1] as usize;
        let mut a: Vec<_> = indices[r.clone()].iter().zip(&values[r.clone()]).collect();
        let mut b: Vec<_> = shuffled_i[r.clone()].iter().zip(&shuffled_v[r]).collect();
        a.sort();
        b.sort();
        assert_eq!(a, b);
    }
}

/// `loops_segsort_shared`: the pairs of one step are disjoint, so running them in turn is
/// what the block's threads do at once.
fn model_shared(s: &mut [u64]) {
    let n = s.len();
    let mut k = 2;
    while k <= n {
        let mut j = k >> 1;
        while j > 0 {
            for p in 0..n / 2 {
                let i = ((p & !(j - 1)) << 1) | (p & (j - 1));
                let l = i | j;
                let (a, b) = (s[i], s[l]);
                if (a > b) == (i & k == 0) {
                    s[i] = b;
                    s[l] = a;
                }
            }
            j >>= 1;
        }
        k <<= 1;
    }
}

/// `loops_segsort_group`: every lane reads its partner's key of the step before.
fn model_group(keys: &mut [u64]) {
    let g = keys.len();
    let mut k = 2;
    while k <= g {
        let mut j = k >> 1;
        while j > 0 {
            let old = keys.to_vec();
            for (lane, key) in keys.iter_mut().enumerate() {
                let other = old[lane ^ j];
                let (lo, hi) = (old[lane].min(other), old[lane].max(other));
                *key = if (lane & j == 0) == (lane & k == 0) {
                    lo
                } else {
                    hi
                };
            }
            j >>= 1;
        }
        k <<= 1;
    }
}

/// `loops_segsort_merge_path`.
fn merge_path(a: &[u64], b: &[u64], diag: usize) -> usize {
    let (mut lo, mut hi) = (diag.saturating_sub(b.len()), diag.min(a.len()));
    while lo < hi {
        let mid = (lo + hi) / 2;
        if a[mid] < b[diag - 1 - mid] {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// `loops_segsort_merge` on one segment: its tiles in turn, each tile's threads in turn.
fn model_merge(from: &[u64], to: &mut [u64], width: usize) {
    let len = from.len();
    // Every output is written exactly once.
    let mut writes = vec![0u8; len];
    for out0 in (0..len).step_by(MERGE_TILE) {
        let out1 = (out0 + MERGE_TILE).min(len);
        let pair_start = out0 / (2 * width) * (2 * width);
        let a_end = (pair_start + width).min(len);
        let b_end = (pair_start + 2 * width).min(len);
        let (a, b) = (&from[pair_start..a_end], &from[a_end..b_end]);
        let (d0, d1) = (out0 - pair_start, out1 - pair_start);
        let (a0, a1) = (merge_path(a, b, d0), merge_path(a, b, d1));
        let (tile_a, tile_len, b0) = (a1 - a0, d1 - d0, d0 - a0);
        let tile: Vec<u64> = (0..tile_len)
            .map(|i| {
                if i < tile_a {
                    a[a0 + i]
                } else {
                    b[b0 + i - tile_a]
                }
            })
            .collect();
        let tile_b = tile_len - tile_a;
        for thread in 0..LONG_BLOCK as usize {
            let k0 = (thread * MERGE_ITEMS).min(tile_len);
            let mut ak = merge_path(&tile[..tile_a], &tile[tile_a..], k0);
            let mut bk = k0 - ak;
            for k in k0..(k0 + MERGE_ITEMS).min(tile_len) {
                let take_a = ak < tile_a && (bk >= tile_b || tile[ak] < tile[tile_a + bk]);
                to[out0 + k] = if take_a { tile[ak] } else { tile[tile_a + bk] };
                writes[out0 + k] += 1;
                if take_a {
                    ak += 1;
                } else {
                    bk += 1;
                }
            }
        }
    }
    assert!(writes.iter().all(|&w| w == 1), "an output not written once");
}

/// The kernels' path for one segment of `cols` (its bin's kernel, or chunks, passes and the
/// finish's parity), as sorted keys.
fn model_segment(cols: &[i32]) -> Vec<u64> {
    const PAD: u64 = u64::MAX;
    let len = cols.len();
    let key = |i: usize| ((cols[i] as u32 as u64) << 32) | i as u64;
    let bin = if len <= 1 {
        0
    } else {
        (len - 1).ilog2() as usize + 1
    };
    if bin <= CHUNK_LOG2 {
        let mut s: Vec<u64> = (0..1usize << bin)
            .map(|i| if i < len { key(i) } else { PAD })
            .collect();
        if bin <= LAST_GROUP_BIN {
            model_group(&mut s);
        } else {
            model_shared(&mut s);
        }
        s.truncate(len);
        return s;
    }
    let mut even = vec![0u64; len];
    for base in (0..len).step_by(CHUNK) {
        let chunk_len = (len - base).min(CHUNK);
        let mut s: Vec<u64> = (0..CHUNK)
            .map(|i| if i < chunk_len { key(base + i) } else { PAD })
            .collect();
        model_shared(&mut s);
        even[base..base + chunk_len].copy_from_slice(&s[..chunk_len]);
    }
    let mut odd = vec![0u64; len];
    let passes = bin - CHUNK_LOG2;
    for p in 0..passes {
        if p % 2 == 0 {
            model_merge(&even, &mut odd, CHUNK << p);
        } else {
            model_merge(&odd, &mut even, CHUNK << p);
        }
    }
    if passes % 2 == 1 {
        odd
    } else {
        even
    }
}

#[test]
fn the_kernels_model_sorts_stably_at_every_length() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let mut lengths: Vec<usize> = (0..=70).collect();
    lengths.extend([
        127, 128, 129, 1000, 2048, 4095, 4096, 4097, 5000, 8193, 20_000, 70_000,
    ]);
    for len in lengths {
        // Few distinct columns: many repeats, so stability shows.
        let distinct = (len / 3).max(1) as i32;
        let cols: Vec<i32> = (0..len).map(|_| rng.random_range(0..distinct)).collect();
        let sorted = model_segment(&cols);
        let mut expected: Vec<(i32, usize)> = cols.iter().copied().zip(0..).collect();
        expected.sort_by_key(|&(c, _)| c);
        let got: Vec<(i32, usize)> = sorted
            .iter()
            .map(|&k| ((k >> 32) as i32, (k & 0xffff_ffff) as usize))
            .collect();
        assert_eq!(got, expected, "length {len}");
    }
}

#[test]
fn blocks_per_segment_fill_the_device_without_idle_blocks() {
    assert_eq!(blocks_per_segment(1, 1 << 17, CHUNK, 132), 32);
    assert_eq!(blocks_per_segment(1, 1 << 17, MERGE_TILE, 132), 64);
    assert_eq!(blocks_per_segment(1, 1 << 30, CHUNK, 132), 1056);
    assert_eq!(blocks_per_segment(10_000, 1 << 13, CHUNK, 132), 1);
    assert_eq!(blocks_per_segment(0, 0, 0, 0), 1);
}

#[test]
fn the_source_agrees_with_the_rust_constants() {
    for (name, value) in [
        ("LOOPS_SEGSORT_CHUNK", CHUNK),
        ("LOOPS_SEGSORT_CHUNK_LOG2", CHUNK_LOG2),
        ("LOOPS_SEGSORT_WARP_BLOCK", GROUP_BLOCK as usize),
        ("LOOPS_SEGSORT_LONG_BLOCK", LONG_BLOCK as usize),
        ("LOOPS_SEGSORT_MERGE_ITEMS", MERGE_ITEMS),
        ("LOOPS_SEGSORT_MERGE_TILE", MERGE_TILE),
    ] {
        assert!(
            SORT_SOURCE.contains(&format!("#define {name} {value}\n")),
            "#define {name} {value}"
        );
    }
    assert_eq!(1 << CHUNK_LOG2, CHUNK);
    assert_eq!((2 * CHUNK) % MERGE_TILE, 0);
    // Every block kernel the plan can name is instantiated with the plan's thread count.
    for b in LAST_GROUP_BIN + 1..=CHUNK_LOG2 {
        let keys = 1u32 << b;
        let threads = (keys / 2).min(256);
        assert!(
            SORT_SOURCE.contains(&format!("ARGS, {keys}, {threads})")),
            "block {keys}"
        );
    }
}

use super::plan::MAX_LANE_CANDIDATES;
use super::*;

fn shape(rows: usize, nnz: usize, max_row: usize, k: usize, bytes: usize) -> SpmmShape {
    SpmmShape {
        rows,
        nnz,
        max_row,
        k,
        element_bytes: bytes,
        sm_count: 132,
        max_threads_per_sm: 2048,
    }
}

#[test]
fn vector_width_follows_k() {
    assert_eq!(vector_width(128, 4), 4);
    assert_eq!(vector_width(6, 4), 2);
    assert_eq!(vector_width(33, 4), 1);
    assert_eq!(vector_width(64, 8), 2);
    assert_eq!(vector_width(5, 8), 1);
}

#[test]
fn plans_cover_k_with_lanes_and_tiles() {
    for k in 1..=300 {
        for bytes in [4, 8] {
            let p = spmm_plan(shape(1000, 16_000, 40, k, bytes), SpmmMapping::Auto);
            let kv = k / p.vector as usize;
            assert_eq!(kv * p.vector as usize, k, "k {k}: vectors cover k");
            assert!(p.group() <= 32 && p.group().is_power_of_two());
            assert!([1, 2, 4].contains(&p.tile_vectors));
            // One tile covers the row when k is at most 4 tiles of a warp's lanes.
            let tile = (1usize << p.log_lanes_k) * p.tile_vectors as usize;
            if kv <= 128 {
                assert!(tile >= kv, "k {k}: tile {tile} < {kv} vectors");
            }
            assert_eq!(p.mapping, SpmmMapping::Rows);
        }
    }
}

#[test]
fn long_rows_get_split() {
    // An arrow: one dense row of a million nonzeros among rows of 2.
    let p = spmm_plan(shape(1 << 20, 3 << 20, 1 << 20, 32, 4), SpmmMapping::Auto);
    assert_eq!(p.mapping, SpmmMapping::Split);
    assert_eq!(
        p.tails_entry("f32").as_deref(),
        Some("loops_spmm_tails_f32_v4_t1")
    );
    assert!(p.piece >= 32 && p.piece.is_multiple_of(32));
    // A banded matrix stays on rows.
    let p = spmm_plan(shape(1 << 20, 16 << 20, 16, 32, 4), SpmmMapping::Auto);
    assert_eq!(p.mapping, SpmmMapping::Rows);
    assert_eq!(p.piece, 0);
    // Forced.
    assert_eq!(p.tails_entry("f32"), None);
    let p = spmm_plan(shape(100, 1600, 16, 8, 8), SpmmMapping::Split);
    assert_eq!(p.mapping, SpmmMapping::Split);
    assert_eq!(p.entry("f64"), "loops_spmm_rows_f64_v2_t1");
    assert_eq!(p.piece, 32);
}

#[test]
fn candidates_start_with_the_model_and_all_fit() {
    let shapes = [
        shape(1000, 16_000, 40, 0, 4),
        shape(3000, 150_000, 400, 0, 4),
        shape(1 << 20, 16 << 20, 20_000, 0, 4),
        shape(1 << 20, 3 << 20, 1 << 20, 0, 8),
        shape(500, 1000, 2, 0, 8),
    ];
    for base in shapes {
        for k in [2, 3, 4, 5, 8, 16, 31, 32, 33, 64, 128, 300] {
            let s = SpmmShape { k, ..base };
            let c = spmm_candidates(s);
            assert_eq!(c[0], spmm_plan(s, SpmmMapping::Auto));
            let sharing = sharing_candidates(s, c[0]);
            assert!(sharing.len() <= 3);
            for base in &sharing {
                let lanes = lane_candidates(s, *base);
                assert_eq!(lanes[0], *base);
                assert!(lanes.len() <= MAX_LANE_CANDIDATES);
                assert!(lanes.iter().all(|p| c.contains(p)));
            }
            for (i, p) in c.iter().enumerate() {
                assert!(check_plan(*p, k, s.element_bytes), "{s:?}: {p:?}");
                assert!(!c[..i].contains(p), "{s:?}: {p:?} twice");
                assert_eq!(SpmmPlan::from_label(&p.label()), Some(*p));
            }
        }
    }
    // k >= 32 gets fewer lanes over k; a small matrix more lanes over nonzeros.
    let lanes_of = |s: SpmmShape| lane_candidates(s, spmm_plan(s, SpmmMapping::Auto));
    let c = lanes_of(shape(1 << 20, 16 << 20, 40, 64, 4));
    assert!(c.iter().any(|p| p.log_lanes_k < c[0].log_lanes_k));
    let c = lanes_of(shape(2000, 32_000, 40, 4, 4));
    assert!(c.iter().any(|p| p.log_lanes_nz == c[0].log_lanes_nz + 2));
    // Long rows get another piece size or mapping, with the lanes given.
    let s = shape(1 << 20, 16 << 20, 5000, 32, 4);
    let lanes = lanes_of(s)[1];
    let c = sharing_candidates(s, lanes);
    assert_eq!(c[0].mapping, SpmmMapping::Rows);
    assert_eq!(c.len(), 3);
    assert!(c[1..].iter().all(|p| p.mapping == SpmmMapping::Split
        && p.log_lanes_k == lanes.log_lanes_k
        && p.tile_vectors == lanes.tile_vectors));
    let s = shape(1 << 20, 3 << 20, 1 << 20, 32, 4);
    let c = sharing_candidates(s, spmm_plan(s, SpmmMapping::Auto));
    assert!(c.iter().all(|p| p.mapping == SpmmMapping::Split));
    assert!(c.len() >= 2);
    assert!(c.windows(2).all(|w| w[1].piece < w[0].piece));
    // Rows of 40 on a small matrix: pieces of half a row; a large one: no second round.
    let c = sharing_candidates(
        shape(2000, 80_000, 60, 128, 4),
        spmm_plan(shape(2000, 80_000, 60, 128, 4), SpmmMapping::Auto),
    );
    assert_eq!((c.len(), c[1].piece), (2, 32));
    let s = shape(1 << 20, 40 << 20, 60, 128, 4);
    assert_eq!(
        sharing_candidates(s, spmm_plan(s, SpmmMapping::Auto)).len(),
        1
    );
}

#[test]
fn labels_read_back_and_reject_garbage() {
    let p = spmm_plan(shape(1 << 20, 3 << 20, 1 << 20, 32, 4), SpmmMapping::Auto);
    assert!(p.label().starts_with("split:v4:k8:"), "{}", p.label());
    assert_eq!(SpmmPlan::from_label(&p.label()), Some(p));
    for bad in [
        "",
        "rows",
        "auto:v4:k8:n4:t1",
        "rows:v4:k8:n4",
        "rows:v4:k6:n4:t1",
        "rows:v4:k8:n4:t1:p32",
        "split:v4:k8:n4:t1",
        "rows:v+4:k8:n4:t1",
        "rows:v4:k8:n4:t1x",
    ] {
        assert_eq!(SpmmPlan::from_label(bad), None, "{bad}");
    }
    let q = SpmmPlan::from_label("rows:v4:k64:n1:t1").unwrap();
    assert!(!check_plan(q, 128, 4), "a group wider than a warp");
    assert!(!check_plan(SpmmPlan { vector: 4, ..p }, 6, 4));
    assert!(!check_plan(SpmmPlan { vector: 4, ..p }, 8, 8));
}

#[test]
fn k_is_checked() {
    assert!(check_k("spmm", 0, 4, 4).is_err());
    assert!(check_k("spmm", 1, 4, 4).is_ok());
    assert!(check_k("spmm", usize::MAX / 4, 100, 4).is_err());
    assert!(check_k("spmm", i32::MAX as usize + 1, 1, 1).is_err());
}

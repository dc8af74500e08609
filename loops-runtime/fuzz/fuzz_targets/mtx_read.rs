//! The Matrix Market reader on arbitrary bytes: it must return a matrix or an error, never panic,
//! hang or exhaust memory (libFuzzer's -rss_limit_mb catches the last). For a matrix it returns:
//! every triplet lies inside its shape, the compressed form writes and reads back unchanged, and the
//! COO upload's host conversion accepts it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loops_runtime::formats::Coo32;
use loops_runtime::mtx;

/// Building compressed forms allocates `rows + 1` offsets: only for shapes a test machine holds.
const MAX_OUTER: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let m = match mtx::read(data) {
        Ok(m) => m,
        Err(e) => {
            // The message names a line (or says why not) and formats without panicking.
            let _ = e.to_string();
            return;
        }
    };
    let t = &m.triplets;
    assert_eq!((t.rows(), t.cols()), (m.rows, m.cols));
    for (&r, &c) in t.row_inds().iter().zip(t.col_inds()) {
        assert!(
            r < m.rows && c < m.cols,
            "triplet ({r}, {c}) outside {}x{}",
            m.rows,
            m.cols
        );
    }
    assert!(
        t.data().iter().all(|v| v.is_finite()),
        "the reader rejects non-finite values"
    );
    if m.rows > MAX_OUTER || m.cols > MAX_OUTER {
        return;
    }
    let coo = Coo32::from_trimat(t).expect("a matrix read from a file fits the COO upload");
    assert_eq!(coo.nnz(), t.nnz());
    let csr = m.to_csr::<f64>();
    let mut out = Vec::new();
    // Summed duplicates may overflow to infinity, which the writer refuses: nothing to round-trip.
    if mtx::write(&mut out, &csr).is_err() {
        assert!(csr.data().iter().any(|v| !v.is_finite()));
        return;
    }
    let again = mtx::read(&out[..]).expect("what the writer writes reads back");
    assert_eq!(
        again.to_csr::<f64>(),
        csr,
        "write then read changed the matrix"
    );
});

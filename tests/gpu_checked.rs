//! Checked mode (issue: "safe to index"): a kernel body that indexes out of range on purpose. Checked,
//! the access is not made and the launch returns an error naming the kernel, the array, the index, the
//! length and the Rust line; unchecked (release builds, unless `LOOPS_CHECKED=1`), no check runs.
#![cfg(feature = "gpu")]

mod common;

use loops::prelude::*;
use loops::runtime::launch::set_checked_mode;

macro_rules! shift_down {
    ($($schedule:tt)*) => {
        /// `y[row + 1] = (A x)[row]`: the last row writes one past the end of `y`.
        #[load_balanced($($schedule)*)]
        pub fn shift_down(a: Csr<f32>, x: &[f32], y: &mut [f32]) {
            for row in a.tiles() {
                let mut sum = 0.0f32;
                for nz in a.atoms(row) {
                    sum += a.values[nz] * x[a.col_indices[nz] as usize];
                }
                y[row + 1] = sum;
            }
        }
    };
}

mod thread {
    use super::*;
    shift_down!(schedule = "thread");
}
mod warp {
    use super::*;
    shift_down!(schedule = "warp");
}
mod merge_path {
    use super::*;
    shift_down!(schedule = "merge_path");
}

/// `y[row] = x[row + 1]`: the last row reads one past the end of `x`.
#[load_balanced(schedule = "thread")]
pub fn peek(a: Csr<f32>, x: &[f32], y: &mut [f32]) {
    for row in a.tiles() {
        let mut count = 0.0f32;
        for nz in a.atoms(row) {
            count += a.values[nz];
        }
        y[row] = count + x[row + 1];
    }
}

fn line_of(needle: &str) -> usize {
    include_str!("gpu_checked.rs")
        .lines()
        .position(|l| l.contains(needle))
        .expect("the line is in this file")
        + 1
}

/// One test, so that the process-wide checked-mode switch is not shared between test threads.
#[test]
fn out_of_range_indices_are_errors_when_checked_and_unchecked_otherwise() {
    let gpu = common::gpu();
    let rows = 1000;
    let a = loops::generate::uniform::<f32>(rows, rows, 5, 11);
    let x: Vec<f32> = loops::generate::random_vector(rows, 12);
    let da = gpu.upload_csr(&a).unwrap();
    let dx = gpu.upload(&x).unwrap();

    set_checked_mode(Some(true));
    let store_line = line_of("y[row + 1] = sum;");
    type Launch =
        fn(&Gpu, &DeviceCsr<f32>, &DeviceBuffer<f32>, &mut DeviceBuffer<f32>) -> loops::Result<()>;
    let launches: [(&str, Launch); 3] = [
        ("thread", thread::shift_down),
        ("warp", warp::shift_down),
        ("merge_path", merge_path::shift_down),
    ];
    for (schedule, launch) in launches {
        let mut dy = gpu.zeros::<f32>(rows).unwrap();
        gpu.fill(&mut dy, f32::NAN).unwrap();
        let err = launch(&gpu, &da, &dx, &mut dy)
            .expect_err("a checked launch reports the out-of-range store");
        let text = err.to_string();
        let want = format!("kernel `shift_down` indexed `y` at {rows}, out of bounds for length {rows}, at tests/gpu_checked.rs:{store_line}");
        assert_eq!(text, want, "{schedule}");
        // The other rows were written: y[r + 1] = (A x)[r].
        let y = gpu.download(&dy).unwrap();
        let check = loops::runtime::verify::check_spmv(&a, &x, &y);
        assert_eq!(
            check.first_bad.as_ref().map(|b| b.row),
            Some(0),
            "{schedule}: only y[0] stays unwritten: {check}"
        );
        // The record was cleared: the next good launch succeeds.
        let mut big = gpu.zeros::<f32>(rows + 1).unwrap();
        launch(&gpu, &da, &dx, &mut big).unwrap_or_else(|e| panic!("{schedule}: {e}"));
    }

    // A read out of range is skipped (it reads 0) and reported too.
    let mut dy = gpu.zeros::<f32>(rows).unwrap();
    let err = peek(&gpu, &da, &dx, &mut dy).unwrap_err().to_string();
    let read_line = line_of("y[row] = count + x[row + 1];");
    assert!(err.ends_with(&format!("indexed `x` at {rows}, out of bounds for length {rows}, at tests/gpu_checked.rs:{read_line}")), "{err}");

    // Unchecked: no check runs and the launch succeeds (the read one past the end stays inside the
    // allocation's granularity). Under compute-sanitizer (tests/sanitize.sh sets
    // LOOPS_UNDER_SANITIZER), that deliberate read is left out: memcheck reports it, rightly.
    set_checked_mode(Some(false));
    if std::env::var_os("LOOPS_UNDER_SANITIZER").is_none() {
        peek(&gpu, &da, &dx, &mut dy).expect("no bounds checks when unchecked");
        gpu.synchronize().unwrap();
    }
    set_checked_mode(None);
}

//! Checked mode (issue: "safe to index"): kernel bodies that index out of range on purpose
//! (examples/kernels/out_of_range.rs, where NVRTC compiles them in tests/nvrtc_compile.rs too).
//! Checked, the access is not made and the launch returns an error naming the kernel, the array, the
//! index, the length and the Rust line; unchecked (release builds, unless `LOOPS_CHECKED=1`), no
//! check runs.
#![cfg(feature = "gpu")]

mod common;
use loops_kernels as kernels;

use kernels::out_of_range::{peek, shift_down};
use loops::launch::set_checked_mode;
use loops::DeviceBuffer;

/// The line of `needle` in the kernels' file, and the file as the kernels' `#line`s name it.
fn line_of(needle: &str) -> (usize, &'static str) {
    let line = include_str!("../examples/kernels/out_of_range.rs")
        .lines()
        .position(|l| l.contains(needle))
        .expect("the line is in the kernels' file")
        + 1;
    (line, shift_down::thread::shift_down::KERNEL.file)
}

/// One test, so that the process-wide checked-mode switch is not shared between test threads.
#[test]
fn out_of_range_indices_are_errors_when_checked_and_unchecked_otherwise() {
    let gpu = common::gpu();
    let rows = 1000;
    let a = loops::io::generate::uniform::<f32>(rows, rows, 5, 11);
    let x: Vec<f32> = loops::io::generate::random_vector(rows, 12);
    let da = gpu.upload_csr(&a).unwrap();
    let dx = gpu.upload(&x).unwrap();

    set_checked_mode(Some(true));
    let (store_line, file) = line_of("y[row + 1] = sum;");
    assert!(file.ends_with("examples/kernels/out_of_range.rs"), "{file}");
    for schedule in shift_down::SCHEDULES {
        let launch = |y: &mut DeviceBuffer<f32>| shift_down::launch(schedule, &gpu, &da, &dx, y);
        let mut dy = gpu.zeros::<f32>(rows).unwrap();
        gpu.fill(&mut dy, f32::NAN).unwrap();
        let err = launch(&mut dy).expect_err("a checked launch reports the out-of-range store");
        let text = err.to_string();
        let want = format!("kernel `shift_down` indexed `y` at {rows}, out of bounds for length {rows}, at {file}:{store_line}");
        assert_eq!(text, want, "{schedule}");
        // The other rows were written: y[r + 1] = (A x)[r].
        let y = gpu.download(&dy).unwrap();
        let check = loops::check::check_spmv(&a, &x, &y);
        assert_eq!(
            check.first_bad.as_ref().map(|b| b.row),
            Some(0),
            "{schedule}: only y[0] stays unwritten: {check}"
        );
        // The record was cleared: the next good launch succeeds.
        let mut big = gpu.zeros::<f32>(rows + 1).unwrap();
        launch(&mut big).unwrap_or_else(|e| panic!("{schedule}: {e}"));
    }

    // A read out of range is skipped (it reads 0) and reported too.
    let mut dy = gpu.zeros::<f32>(rows).unwrap();
    let err = peek::thread::peek(&gpu, &da, &dx, &mut dy)
        .unwrap_err()
        .to_string();
    let (read_line, file) = line_of("y[row] = count + x[row + 1];");
    assert!(
        err.ends_with(&format!(
            "indexed `x` at {rows}, out of bounds for length {rows}, at {file}:{read_line}"
        )),
        "{err}"
    );

    // Unchecked: no check runs and the launch succeeds (the read one past the end stays inside the
    // allocation's granularity). Under compute-sanitizer (tests/sanitize.sh sets
    // LOOPS_UNDER_SANITIZER), that deliberate read is left out: memcheck reports it, rightly.
    set_checked_mode(Some(false));
    if std::env::var_os("LOOPS_UNDER_SANITIZER").is_none() {
        peek::thread::peek(&gpu, &da, &dx, &mut dy).expect("no bounds checks when unchecked");
        gpu.synchronize().unwrap();
    }
    set_checked_mode(None);
}

//! Device handle behaviour that needs no GPU: on a machine without libcuda, `Gpu::new` is an error,
//! never a panic. Where libcuda is present the same tests assert what a machine with a driver must
//! answer instead, so neither path can pass by accident on the other.

use loops_runtime::device::Gpu;
use loops_runtime::launch::check_len;
use loops_runtime::LoopsError;

/// Whether libcuda can be loaded, asked of the dynamic loader directly rather than through the code
/// under test.
fn libcuda_loadable() -> bool {
    let names: &[&str] = if cfg!(windows) {
        &["nvcuda.dll"]
    } else {
        &["libcuda.so.1", "libcuda.so"]
    };
    // SAFETY: loading (and unloading) the driver library runs only its initializers.
    names
        .iter()
        .any(|n| unsafe { libloading::Library::new(n) }.is_ok())
}

#[test]
fn gpu_new_without_driver_is_an_error_not_a_panic() {
    let result = Gpu::new(0);
    if libcuda_loadable() {
        match result {
            Ok(gpu) => assert!(!gpu.name().is_empty()),
            Err(LoopsError::NoDevice {
                ordinal: 0,
                count: 0,
            }) => {}
            Err(e) => panic!("libcuda is present: expected a device or NoDevice, got {e:?}"),
        }
    } else {
        match result {
            Err(LoopsError::NoDriver { detail }) => assert!(detail.contains("libcuda"), "{detail}"),
            Err(e) => panic!("no libcuda here: expected NoDriver, got {e:?}"),
            Ok(gpu) => panic!("no libcuda here, yet Gpu::new gave {gpu:?}"),
        }
    }
}

#[test]
fn device_count_and_missing_ordinal() {
    let ordinal = 9999;
    let result = Gpu::new(ordinal);
    if libcuda_loadable() {
        let count = Gpu::count().expect("a driver is present");
        match result {
            Err(LoopsError::NoDevice {
                ordinal: o,
                count: c,
            }) => assert_eq!((o, c), (ordinal, count)),
            other => panic!("expected NoDevice for ordinal {ordinal}, got {other:?}"),
        }
    } else {
        assert!(matches!(Gpu::count(), Err(LoopsError::NoDriver { .. })));
        assert!(
            matches!(result, Err(LoopsError::NoDriver { .. })),
            "{result:?}"
        );
    }
}

#[test]
fn no_driver_message_says_what_was_searched() {
    if libcuda_loadable() {
        return; // The message of a missing driver cannot be produced where there is one.
    }
    let msg = Gpu::new(0).unwrap_err().to_string();
    assert!(msg.starts_with("no CUDA driver:"), "{msg}");
    assert!(msg.contains("libcuda.so"), "{msg}");
}

#[test]
fn check_len_accepts_long_enough_buffers() {
    assert!(check_len("spmv", "x", 10, 10, "x has one element per column").is_ok());
    assert!(check_len("spmv", "x", 11, 10, "x has one element per column").is_ok());
    assert!(check_len("spmv", "y", 0, 0, "y has one element per row").is_ok());
}

#[test]
fn check_len_names_kernel_param_and_reason() {
    let err = check_len("spmv", "y", 3, 5, "one element per row of `a`").unwrap_err();
    match &err {
        LoopsError::BufferTooShort {
            kernel,
            param,
            len,
            required,
            why,
        } => {
            assert_eq!(
                (kernel.as_str(), param.as_str(), *len, *required),
                ("spmv", "y", 3, 5)
            );
            assert_eq!(why, "one element per row of `a`");
        }
        other => panic!("expected BufferTooShort, got {other:?}"),
    }
    assert_eq!(
        err.to_string(),
        "kernel `spmv`: `y` has 3 elements but needs at least 5 (one element per row of `a`)"
    );
}

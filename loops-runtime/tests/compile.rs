//! NVRTC compiles without a GPU. These tests need libnvrtc: put the lib folder of
//! `pip install "nvidia-cuda-nvrtc==13.0.*"` on LD_LIBRARY_PATH, or name the library in
//! LOOPS_NVRTC_LIB. Without it each prints one `skipped` line on stderr and passes, unless
//! LOOPS_REQUIRE_NVRTC=1 (set by CI), which makes them fail.

// The skip helper the root crate's compile tests use too; it names the facade's paths
// (`loops::compile`, `loops::Result`), which are this crate's under that name.
extern crate loops_runtime as loops;

#[path = "../../tests/common/nvrtc.rs"]
mod nvrtc;

use loops_runtime::compile::{compile, compile_ptx, Arch, KernelImage, Output};
use loops_runtime::LoopsError;

const SAXPY: &str = r#"extern "C" __global__ void saxpy(float a, const float* __restrict__ x, unsigned long long x_len,
                                  float* y, unsigned long long y_len) {
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < y_len;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        y[i] = a * x[i] + y[i];
    }
}
"#;

/// A syntax error (missing `;`) on line 3.
const BROKEN: &str =
    "extern \"C\" __global__ void broken(float* y) {\n    float v = 1.0f\n    y[0] = v;\n}\n";

#[test]
fn nvrtc_is_loaded_and_knows_hopper() {
    let Some(info) = nvrtc::nvrtc_or_skip() else {
        return;
    };
    assert!(info.version.0 >= 12, "NVRTC {:?} is too old", info.version);
    assert!(
        info.supports(Arch::SM_90),
        "sm_90 missing from {:?}",
        info.supported_archs
    );
}

#[test]
fn compiles_ptx_for_sm90() {
    if nvrtc::nvrtc_or_skip().is_none() {
        return;
    }
    let ptx = compile_ptx("saxpy", SAXPY, Arch::SM_90).expect("saxpy compiles");
    assert!(ptx.contains(".entry"), "no .entry in PTX:\n{ptx}");
    assert!(ptx.contains("saxpy"), "entry point name missing from PTX");
    assert!(
        ptx.contains(".target sm_90"),
        "PTX not for sm_90:\n{}",
        &ptx[..ptx.len().min(600)]
    );
    // -lineinfo: the PTX refers to the source file by the kernel's name.
    assert!(
        ptx.contains(".file") && ptx.contains("saxpy.cu"),
        "no line info in PTX"
    );
}

#[test]
fn compiles_cubin_for_sm90() {
    if nvrtc::nvrtc_or_skip().is_none() {
        return;
    }
    match compile("saxpy", SAXPY, Arch::SM_90, Output::Cubin).expect("saxpy compiles") {
        KernelImage::Cubin(bytes) => assert_eq!(&bytes[..4], b"\x7fELF", "a cubin is an ELF file"),
        other => panic!("asked for a cubin, got {other:?}"),
    }
}

#[test]
fn syntax_error_gives_the_log_with_the_line() {
    if nvrtc::nvrtc_or_skip().is_none() {
        return;
    }
    let err =
        compile_ptx("broken", BROKEN, Arch::SM_90).expect_err("the source has a syntax error");
    match &err {
        LoopsError::Compile {
            kernel,
            log,
            source_code,
        } => {
            assert_eq!(kernel, "broken");
            assert_eq!(source_code, BROKEN);
            assert!(
                log.contains("broken.cu(3)"),
                "log does not point at line 3:\n{log}"
            );
            assert!(log.contains("error"), "log has no error:\n{log}");
        }
        other => panic!("expected LoopsError::Compile, got {other:?}"),
    }
    // The message shows the log.
    assert!(err.to_string().contains("broken.cu(3)"), "{err}");
}

#[test]
fn nul_byte_in_source_is_an_error_not_a_panic() {
    if nvrtc::nvrtc_or_skip().is_none() {
        return;
    }
    let err = compile_ptx("nul", "extern \"C\" __global__ void k() {}\0", Arch::SM_90).unwrap_err();
    assert!(
        matches!(err, LoopsError::Compile { ref log, .. } if log.contains("NUL")),
        "{err:?}"
    );
}

#[test]
fn unknown_architecture_is_a_compile_error() {
    if nvrtc::nvrtc_or_skip().is_none() {
        return;
    }
    let err = compile_ptx("saxpy", SAXPY, Arch::new(1, 0)).unwrap_err();
    match err {
        LoopsError::Compile { log, .. } => assert!(log.contains("compute_10"), "{log}"),
        other => panic!("expected LoopsError::Compile, got {other:?}"),
    }
}

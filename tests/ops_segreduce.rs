//! Without a GPU: the CUDA that `transform_segreduce!` generates compiles with NVRTC for every
//! reduction, tile set and schedule of `tests/segreduce/kernels.rs`, and so do the language
//! kernels of `loops::ops`; the kernels' wrappers take the outputs last.

#[path = "common/cubin_check.rs"]
mod cubin_check;
#[path = "segreduce/kernels.rs"]
mod kernels;
#[path = "common/nvrtc.rs"]
mod nvrtc;

use cubin_check::compile_and_check;
use nvrtc::nvrtc_or_skip;

/// Compiles each kernel's plain and checked source to a cubin for sm_90 (ptxas included); the
/// number compiled.
fn compile_all(all: &[(&str, &str, &str)]) -> usize {
    let jobs: Vec<(String, &str)> = all
        .iter()
        .flat_map(|&(name, plain, checked)| {
            [
                (format!("{name} (plain)"), plain),
                (format!("{name} (checked)"), checked),
            ]
        })
        .collect();
    compile_and_check(&jobs);
    jobs.len()
}

#[test]
fn every_segreduce_kernel_compiles_for_sm90() {
    if nvrtc_or_skip().is_none() {
        return;
    }
    assert_eq!(compile_all(kernels::SOURCES), 2 * kernels::SOURCES.len());
}

#[test]
fn ops_language_kernels_compile_for_sm90() {
    if nvrtc_or_skip().is_none() {
        return;
    }
    let sources = loops::ops::language_kernel_sources();
    // spmv 2, reductions 6, frontier 2, relabel 5, SDDMM (`sddmm_lang`: `auto`, `flat` among
    // its candidates) 1, transpose (`transpose_lang`) 3.
    assert_eq!(sources.len(), 19);
    assert_eq!(compile_all(&sources), 38);
}

/// The generated kernels are the loops the macro's docs show: the accumulator starts at the
/// reduction's identity and the result goes through the finishing expression.
#[test]
fn generated_code_has_the_reductions_shape() {
    let norm = kernels::seg_scaled_norm::CUDA_KERNEL;
    assert!(norm.contains("segreduce_acc"), "{norm}");
    assert!(norm.contains("sqrt"), "{norm}");
    let min = kernels::seg_min::CUDA_KERNEL;
    assert!(min.contains("loops_min"), "{min}");
    let argmin = kernels::seg_argmin::CUDA_KERNEL;
    assert!(argmin.contains("segreduce_position"), "{argmin}");
}

/// The outputs come last in the wrapper, after the kernel's own parameters: this only has to
/// type-check (it never runs).
#[allow(dead_code, clippy::too_many_arguments)]
fn wrappers_take_the_outputs_last(
    gpu: &loops::Gpu,
    a: &loops::DeviceCsr<f32>,
    csc: &loops::DeviceCsc<f64>,
    g: &loops::DeviceOffsets,
    x: &loops::DeviceBuffer<f32>,
    out: &mut loops::DeviceBuffer<f32>,
    out64: &mut loops::DeviceBuffer<f64>,
    at: &mut loops::DeviceBuffer<i32>,
) -> loops::Result<()> {
    kernels::seg_dot(gpu, a, x, out)?;
    kernels::seg_scaled_norm(gpu, a, 2.0, out)?;
    kernels::seg_argmax(gpu, a, out, at)?;
    kernels::seg_csc_argmax(gpu, csc, out64, at)?;
    kernels::seg_offsets_argmin(gpu, g, x, out, at)?;
    kernels::seg_offsets_max_f32(gpu, g, x, out)?;
    kernels::scheduled::argmax_merge_path(gpu, a, out, at)
}

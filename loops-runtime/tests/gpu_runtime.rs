//! The runtime on a real GPU: buffers, fills, the kernel cache, launches with the kernel ABI.
//! Behind the `gpu` feature; every test FAILS (never skips) when no GPU is present.
#![cfg(feature = "gpu")]

use std::sync::Arc;

use loops_runtime::device::{DeviceBuffer, Gpu};
use loops_runtime::formats::TileSet;
use loops_runtime::launch::{KernelArgs, KernelSpec};
use loops_runtime::schedule::{LaunchDims, Schedule, ScheduleConfig, TileSetShape};
use loops_runtime::LoopsError;

fn gpu() -> Gpu {
    match Gpu::new(0) {
        Ok(gpu) => gpu,
        Err(e) => panic!("the gpu tests need a GPU: {e}"),
    }
}

/// `y = a * x + y` over `y_len` elements, grid-stride: the slice ABI (`const T* __restrict__ x,
/// unsigned long long x_len, T* y, unsigned long long y_len`) with a scalar first, and the trailing
/// scratch pointer `Gpu::launch` passes. `saxpy_plain`, without it, is for `launch_function`.
const SAXPY: &str = r#"
__device__ void saxpy_body(float a, const float* __restrict__ x, float* y, unsigned long long y_len) {
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < y_len;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        y[i] = a * x[i] + y[i];
    }
}
extern "C" __global__ void saxpy(float a, const float* __restrict__ x, unsigned long long x_len,
                                 float* y, unsigned long long y_len,
                                 unsigned long long* __restrict__ loops_scratch) {
    if (loops_scratch != nullptr) return;  // this kernel asks for no scratch
    saxpy_body(a, x, y, y_len);
}
extern "C" __global__ void saxpy_plain(float a, const float* __restrict__ x, unsigned long long x_len,
                                       float* y, unsigned long long y_len) {
    saxpy_body(a, x, y, y_len);
}
"#;

/// The scratch protocol of the carry schedules: every block writes its slots, the last block to take
/// a ticket sums them into `out[0]` and resets the ticket for the next launch.
const TICKET: &str = r#"
extern "C" __global__ void ticket(unsigned long long* out, unsigned long long out_len,
                                  unsigned long long* __restrict__ loops_scratch) {
    __shared__ bool last;
    unsigned long long* mine = loops_scratch + 1 + (long long)blockIdx.x * 2;
    if (threadIdx.x == 0) { mine[0] = blockIdx.x + 1; mine[1] = 7; }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(reinterpret_cast<unsigned int*>(loops_scratch), 1u) == gridDim.x - 1;
    __syncthreads();
    if (last && threadIdx.x == 0) {
        __threadfence();
        unsigned long long s = 0;
        for (unsigned int b = 0; b < gridDim.x; ++b) s += __ldcg(&loops_scratch[1 + 2 * b]) + __ldcg(&loops_scratch[2 + 2 * b]);
        out[0] = s;
        *reinterpret_cast<unsigned int*>(loops_scratch) = 0u;
    }
}
"#;

/// One row per thread over the CSR ABI, and every scalar type of the ABI (checked on the device: a
/// wrong value or a wrong size shifts everything after it).
const SPMV: &str = r#"
template <typename T>
__device__ void spmv(int a_rows, int a_cols, int a_nnz, const int* a_offsets, const int* a_indices,
                     const T* a_values, const T* __restrict__ x, unsigned long long x_len, T* y,
                     unsigned long long y_len, T alpha, bool negate, int i, unsigned int u, long long l,
                     unsigned long long ul) {
    bool ok = i == -7 && u == 7u && l == -(1ll << 40) && ul == (1ull << 41) && a_nnz == a_offsets[a_rows];
    for (long long row = blockIdx.x * (long long)blockDim.x + threadIdx.x; row < a_rows;
         row += (long long)gridDim.x * blockDim.x) {
        T sum = 0;
        for (int k = a_offsets[row]; k < a_offsets[row + 1]; ++k) sum += a_values[k] * x[a_indices[k]];
        sum = alpha * sum;
        y[row] = ok ? (negate ? -sum : sum) : (T)12345;
    }
}
extern "C" __global__ void spmv__f32(int a_rows, int a_cols, int a_nnz, const int* a_offsets,
        const int* a_indices, const float* a_values, const float* __restrict__ x,
        unsigned long long x_len, float* y, unsigned long long y_len, float alpha, bool negate, int i,
        unsigned int u, long long l, unsigned long long ul, unsigned long long* loops_scratch) {
    spmv<float>(a_rows, a_cols, a_nnz, a_offsets, a_indices, a_values, x, x_len, y, y_len, alpha, negate, i, u, l, ul);
}
extern "C" __global__ void spmv__f64(int a_rows, int a_cols, int a_nnz, const int* a_offsets,
        const int* a_indices, const double* a_values, const double* __restrict__ x,
        unsigned long long x_len, double* y, unsigned long long y_len, double alpha, bool negate, int i,
        unsigned int u, long long l, unsigned long long ul, unsigned long long* loops_scratch) {
    spmv<double>(a_rows, a_cols, a_nnz, a_offsets, a_indices, a_values, x, x_len, y, y_len, alpha, negate, i, u, l, ul);
}
"#;

const THREAD: ScheduleConfig = ScheduleConfig::new(Schedule::Thread);
const SAXPY_SPEC: KernelSpec = KernelSpec {
    name: "saxpy",
    source: SAXPY,
    config: THREAD,
    scratch_slots_per_block: 0,
    dynamic_shared_bytes: 0,
    param_count: 6,
    checked: false,
    fault_sites: &[],
    file: "tests/gpu_runtime.rs",
    hidden: &[],
};
const SPMV_SPEC: KernelSpec = KernelSpec {
    name: "spmv",
    source: SPMV,
    config: THREAD,
    scratch_slots_per_block: 0,
    dynamic_shared_bytes: 0,
    param_count: 17,
    checked: false,
    fault_sites: &[],
    file: "tests/gpu_runtime.rs",
    hidden: &[],
};
const TICKET_SPEC: KernelSpec = KernelSpec {
    name: "ticket",
    source: TICKET,
    config: THREAD,
    scratch_slots_per_block: 2,
    dynamic_shared_bytes: 0,
    param_count: 3,
    checked: false,
    fault_sites: &[],
    file: "tests/gpu_runtime.rs",
    hidden: &[],
};

fn saxpy_args<'a>(
    a: f32,
    x: &'a DeviceBuffer<f32>,
    y: &'a mut DeviceBuffer<f32>,
) -> KernelArgs<'a> {
    let mut args = KernelArgs::new();
    args.scalar(a).slice(x).slice_mut(y);
    args
}

#[test]
fn device_facts() {
    let gpu = gpu();
    assert!(!gpu.name().is_empty());
    let (major, _) = gpu.compute_capability();
    assert!(
        major >= 7,
        "compute capability {:?}",
        gpu.compute_capability()
    );
    let limits = gpu.limits();
    assert!(
        limits.sm_count > 0 && limits.max_threads_per_sm >= 1024,
        "{limits:?}"
    );
    assert!(
        gpu.driver_version() >= 12000,
        "driver {}",
        gpu.driver_version()
    );
    eprintln!("{gpu:?}");
}

#[test]
fn upload_download_roundtrip() {
    let gpu = gpu();
    let f: Vec<f32> = (0..1000).map(|i| i as f32 * 0.5 - 3.0).collect();
    assert_eq!(gpu.download(&gpu.upload(&f).unwrap()).unwrap(), f);
    let d: Vec<f64> = (0..777).map(|i| (i as f64).sqrt()).collect();
    assert_eq!(gpu.download(&gpu.upload(&d).unwrap()).unwrap(), d);
    let i: Vec<i32> = (-50..50).collect();
    let b = gpu.upload(&i).unwrap();
    assert_eq!(b.len(), 100);
    assert_eq!(gpu.download(&b).unwrap(), i);
    let u: Vec<u64> = (0..33).map(|k| u64::MAX - k).collect();
    assert_eq!(gpu.download(&gpu.upload(&u).unwrap()).unwrap(), u);
}

#[test]
fn zeros_and_fill() {
    let gpu = gpu();
    let mut z = gpu.zeros::<f32>(1025).unwrap();
    assert!(gpu.download(&z).unwrap().iter().all(|&v| v == 0.0));
    gpu.fill(&mut z, f32::NAN).unwrap();
    assert!(gpu.download(&z).unwrap().iter().all(|v| v.is_nan()));
    gpu.fill(&mut z, -2.25).unwrap();
    assert!(gpu.download(&z).unwrap().iter().all(|&v| v == -2.25));

    // 8-byte elements: halves that differ (two strided memsets) and halves that agree.
    let n = (1 << 20) + 3;
    let mut d = gpu.zeros::<f64>(n).unwrap();
    for value in [
        f64::NAN,
        1.5,
        -0.0,
        0.0,
        f64::from_bits(0x0123_4567_89ab_cdef),
    ] {
        gpu.fill(&mut d, value).unwrap();
        let host = gpu.download(&d).unwrap();
        assert_eq!(host.len(), n);
        assert!(
            host.iter().all(|v| v.to_bits() == value.to_bits()),
            "fill with {value:?}"
        );
    }
    let mut l = gpu.zeros::<i64>(5).unwrap();
    gpu.fill(&mut l, -1).unwrap();
    assert_eq!(gpu.download(&l).unwrap(), [-1; 5]);
    let mut u = gpu.zeros::<u32>(3).unwrap();
    gpu.fill(&mut u, 0xdead_beef).unwrap();
    assert_eq!(gpu.download(&u).unwrap(), [0xdead_beef; 3]);
}

#[test]
fn zero_length_buffers() {
    let gpu = gpu();
    let mut e = gpu.upload::<f32>(&[]).unwrap();
    assert!(e.is_empty());
    assert_eq!(e.len(), 0);
    assert_eq!(e.device_ptr(), 0);
    gpu.fill(&mut e, 1.0).unwrap();
    assert_eq!(gpu.download(&e).unwrap(), Vec::<f32>::new());
    let mut z = gpu.zeros::<f64>(0).unwrap();
    gpu.fill(&mut z, f64::NAN).unwrap();
    assert!(gpu.download(&z).unwrap().is_empty());

    // A launch over nothing: null pointers with length 0, one block that finds no work.
    let x = gpu.upload::<f32>(&[]).unwrap();
    let mut y = gpu.zeros::<f32>(0).unwrap();
    gpu.launch(
        &SAXPY_SPEC,
        "saxpy",
        TileSetShape { tiles: 0, atoms: 0 },
        saxpy_args(2.0, &x, &mut y),
    )
    .unwrap();
    gpu.synchronize().unwrap();
}

#[test]
fn saxpy_through_launch() {
    let gpu = gpu();
    let n = 100_003;
    let xs: Vec<f32> = (0..n).map(|i| (i % 97) as f32).collect();
    let ys: Vec<f32> = (0..n).map(|i| (i % 13) as f32 - 6.0).collect();
    let x = gpu.upload(&xs).unwrap();
    let mut y = gpu.upload(&ys).unwrap();
    let shape = TileSetShape {
        tiles: n as u64,
        atoms: 0,
    };
    gpu.launch(&SAXPY_SPEC, "saxpy", shape, saxpy_args(3.0, &x, &mut y))
        .unwrap();
    let got = gpu.download(&y).unwrap();
    for i in 0..n {
        assert_eq!(got[i], 3.0 * xs[i] + ys[i], "element {i}");
    }
}

#[test]
fn saxpy_through_function_with_explicit_geometry() {
    let gpu = gpu();
    let f = gpu.function("saxpy", SAXPY, "saxpy_plain").unwrap();
    let x = gpu.upload(&[1.0f32, 2.0, 3.0]).unwrap();
    let mut y = gpu.upload(&[10.0f32, 20.0, 30.0]).unwrap();
    // One block of 32 threads; a grid of 1 over 3 elements.
    let dims = LaunchDims {
        grid: 1,
        block: 32,
        shared_bytes: 0,
    };
    gpu.launch_function("saxpy", &f, dims, saxpy_args(-1.0, &x, &mut y))
        .unwrap();
    assert_eq!(gpu.download(&y).unwrap(), [9.0, 18.0, 27.0]);
}

#[test]
fn scratch_is_passed_grown_and_reused() {
    let gpu = gpu();
    let mut out = gpu.zeros::<u64>(1).unwrap();
    let block = THREAD.block_size as u64;
    // Grid sizes that grow the scratch, then shrink; each twice, so a ticket left behind would show.
    for grid in [1u64, 3, 100, 2000, 3, 2000] {
        let shape = TileSetShape {
            tiles: grid * block,
            atoms: 0,
        };
        assert_eq!(THREAD.launch_dims(shape, gpu.limits()).grid as u64, grid);
        for _ in 0..2 {
            gpu.fill(&mut out, 0).unwrap();
            let mut args = KernelArgs::new();
            args.slice_mut(&mut out);
            gpu.launch(&TICKET_SPEC, "ticket", shape, args).unwrap();
            assert_eq!(
                gpu.download(&out).unwrap(),
                [grid * (grid + 1) / 2 + 7 * grid],
                "grid {grid}"
            );
        }
    }
}

#[test]
fn kernels_are_compiled_and_loaded_once() {
    let gpu = gpu();
    let a = gpu.function("saxpy", SAXPY, "saxpy").unwrap();
    let b = gpu.function("saxpy", SAXPY, "saxpy").unwrap();
    assert_eq!(a.cu_function(), b.cu_function());
    // The same text at another address shares the module (cache keyed by the source's hash).
    let copy: &'static str = Box::leak(SAXPY.to_string().into_boxed_str());
    let c = gpu.function("saxpy-copy", copy, "saxpy").unwrap();
    assert_eq!(a.cu_function(), c.cu_function());
}

#[test]
fn spmv_csr_abi_and_every_scalar_type() {
    let gpu = gpu();
    // 4x5 with an empty row.
    let m = sprs::CsMat::new(
        (4, 5),
        vec![0, 2, 2, 5, 6],
        vec![0, 4, 1, 2, 3, 4],
        vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0],
    );
    let xs = [1.0, 10.0, 100.0, 1000.0, 10000.0];
    let want = [
        2.0 * (1.0 + 2e4),
        0.0,
        2.0 * (30.0 + 400.0 + 5000.0),
        2.0 * 6e4,
    ];
    let a = gpu.upload_csr(&m).unwrap();
    assert_eq!((a.rows(), a.cols(), a.nnz()), (4, 5, 6));
    let x = gpu.upload(&xs).unwrap();
    let mut y = gpu.zeros::<f64>(4).unwrap();
    gpu.fill(&mut y, f64::NAN).unwrap();
    for negate in [false, true] {
        let mut args = KernelArgs::new();
        args.csr(&a).slice(&x).slice_mut(&mut y);
        args.scalar(2.0f64)
            .scalar(negate)
            .scalar(-7i32)
            .scalar(7u32)
            .scalar(-(1i64 << 40))
            .scalar(1usize << 41);
        gpu.launch(&SPMV_SPEC, "spmv__f64", a.shape(), args)
            .unwrap();
        let sign = if negate { -1.0 } else { 1.0 };
        let got = gpu.download(&y).unwrap();
        assert_eq!(got, want.map(|w| sign * w), "negate = {negate}");
    }

    // f32, and a matrix with no nonzeros (null index and value pointers).
    let m = sprs::CsMat::<f32>::new((3, 2), vec![0, 0, 0, 0], vec![], vec![]);
    let a = gpu.upload_csr(&m).unwrap();
    assert!(a.values().is_empty() && a.indices().is_empty() && a.offsets().len() == 4);
    let x = gpu.upload(&[1.0f32, 2.0]).unwrap();
    let mut y = gpu.upload(&[f32::NAN; 3]).unwrap();
    let mut args = KernelArgs::new();
    args.csr(&a).slice(&x).slice_mut(&mut y);
    args.scalar(1.0f32)
        .scalar(false)
        .scalar(-7i32)
        .scalar(7u32)
        .scalar(-(1i64 << 40))
        .scalar(1usize << 41);
    gpu.launch(&SPMV_SPEC, "spmv__f32", a.shape(), args)
        .unwrap();
    assert_eq!(gpu.download(&y).unwrap(), [0.0; 3]);
}

#[test]
fn wrong_arguments_are_refused() {
    let gpu = gpu();
    let x = gpu.upload(&[1.0f32]).unwrap();
    let mut y = gpu.upload(&[1.0f32]).unwrap();
    let shape = TileSetShape { tiles: 1, atoms: 0 };
    // Missing the scalar.
    let mut args = KernelArgs::new();
    args.slice(&x).slice_mut(&mut y);
    let err = gpu.launch(&SAXPY_SPEC, "saxpy", shape, args).unwrap_err();
    assert!(matches!(err, LoopsError::KernelArguments { .. }), "{err:?}");
    assert!(
        err.to_string().contains("has 6 parameters, 5 arguments"),
        "{err}"
    );
    // A double where a float is expected.
    let mut args = KernelArgs::new();
    args.scalar(3.0f64).slice(&x).slice_mut(&mut y);
    let err = gpu.launch(&SAXPY_SPEC, "saxpy", shape, args).unwrap_err();
    assert!(
        err.to_string()
            .contains("parameter 0 of `saxpy` is 4 bytes, argument 0 (double) is 8"),
        "{err}"
    );
}

/// A buffer of one handle used by another handle of the same device: the runtime orders the two
/// streams around the call (the user writes nothing). Checked with a forked sibling and with a
/// second `Gpu::new` handle (same primary context).
#[test]
fn buffers_of_other_handles_of_the_device_are_ordered() {
    let one = gpu();
    for (i, two) in [one.fork().unwrap(), gpu()].into_iter().enumerate() {
        assert_eq!(two.is_sibling(&one), i == 0);
        let n = 1 << 20;
        let ones = one.upload(&vec![1.0f32; n]).unwrap();
        let mut y = one.zeros::<f32>(n).unwrap();
        let shape = TileSetShape {
            tiles: n as u64,
            atoms: 0,
        };
        // Queue a lot of work on `one`'s stream, then use its result on `two`'s at once: `two` must
        // wait for all of it.
        for _ in 0..50 {
            one.launch(&SAXPY_SPEC, "saxpy", shape, saxpy_args(1.0, &ones, &mut y))
                .unwrap();
        }
        two.launch(&SAXPY_SPEC, "saxpy", shape, saxpy_args(2.0, &ones, &mut y))
            .unwrap();
        // `one`'s next work waits for `two`'s launch.
        one.launch(&SAXPY_SPEC, "saxpy", shape, saxpy_args(1.0, &ones, &mut y))
            .unwrap();
        assert!(one.download(&y).unwrap().iter().all(|&v| v == 53.0));
        // Fills, downloads and writes through the other handle.
        two.fill(&mut y, 4.0).unwrap();
        one.launch(&SAXPY_SPEC, "saxpy", shape, saxpy_args(1.0, &ones, &mut y))
            .unwrap();
        assert!(two.download(&y).unwrap().iter().all(|&v| v == 5.0));
        // A buffer dropped right after `two` used it: its free (on `one`'s stream) waits for `two`.
        let x = one.upload(&vec![3.0f32; n]).unwrap();
        let mut z = two.zeros::<f32>(n).unwrap();
        for _ in 0..20 {
            two.launch(&SAXPY_SPEC, "saxpy", shape, saxpy_args(1.0, &x, &mut z))
                .unwrap();
        }
        drop(x);
        assert!(two.download(&z).unwrap().iter().all(|&v| v == 60.0));
        one.synchronize().unwrap();
        two.synchronize().unwrap();
    }
}

#[test]
fn forked_handles_share_kernels_not_streams() {
    let gpu = gpu();
    let fork = gpu.fork().unwrap();
    let grandchild = fork.fork().unwrap();
    assert!(fork.is_sibling(&gpu) && grandchild.is_sibling(&gpu));
    assert!(!self::gpu().is_sibling(&gpu));
    assert!(!Arc::ptr_eq(gpu.stream(), fork.stream()));
    assert!(!Arc::ptr_eq(fork.stream(), grandchild.stream()));
    assert_eq!(fork.name(), gpu.name());
    assert_eq!(fork.limits(), gpu.limits());
    // One module, loaded once, for every sibling.
    let a = grandchild.function("saxpy", SAXPY, "saxpy").unwrap();
    let b = gpu.function("saxpy", SAXPY, "saxpy").unwrap();
    assert_eq!(a.cu_function(), b.cu_function());
    // The fork outlives its parent.
    drop(gpu);
    let x = fork.upload(&[1.0f32, 2.0]).unwrap();
    let mut y = fork.upload(&[1.0f32, 1.0]).unwrap();
    let shape = TileSetShape { tiles: 2, atoms: 0 };
    fork.launch(&SAXPY_SPEC, "saxpy", shape, saxpy_args(3.0, &x, &mut y))
        .unwrap();
    assert_eq!(fork.download(&y).unwrap(), [4.0, 7.0]);
}

/// The scratch protocol (a ticket counter and per-block records) on 8 forked handles at once, from 8
/// threads: each handle has its own scratch, so no launch sees another's ticket or records.
#[test]
fn forked_handles_have_their_own_scratch() {
    let gpu = gpu();
    let block = THREAD.block_size as u64;
    std::thread::scope(|s| {
        for t in 0..8u64 {
            let handle = gpu.fork().unwrap();
            s.spawn(move || {
                let mut out = handle.zeros::<u64>(1).unwrap();
                for i in 0..200u64 {
                    let grid = 50 + (t * 37 + i * 11) % 1500;
                    let shape = TileSetShape {
                        tiles: grid * block,
                        atoms: 0,
                    };
                    handle.fill(&mut out, 0).unwrap();
                    let mut args = KernelArgs::new();
                    args.slice_mut(&mut out);
                    handle.launch(&TICKET_SPEC, "ticket", shape, args).unwrap();
                    if i % 10 == 9 {
                        assert_eq!(
                            handle.download(&out).unwrap(),
                            [grid * (grid + 1) / 2 + 7 * grid],
                            "thread {t}, launch {i}, grid {grid}"
                        );
                    }
                }
                handle.synchronize().unwrap();
            });
        }
    });
}

/// Asking for more memory than the device has is an error that says so, and the handle still works.
#[test]
fn out_of_memory_is_an_error_and_the_handle_survives() {
    let gpu = gpu();
    let total = gpu.memory_info().unwrap().total_bytes;
    let err = gpu.zeros::<f64>(1 << 40).unwrap_err();
    match &err {
        LoopsError::OutOfMemory {
            requested_bytes,
            free_bytes,
            total_bytes,
            what,
        } => {
            assert_eq!(*requested_bytes, 8 << 40);
            assert!(free_bytes.is_some_and(|f| f <= total), "{err}");
            assert_eq!(*total_bytes, Some(total));
            assert!(what.contains("zeroed elements of f64"), "{err}");
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    eprintln!("{err}");
    // A size that overflows is the same error, before any driver call.
    assert!(matches!(
        gpu.zeros::<f64>(usize::MAX / 4),
        Err(LoopsError::OutOfMemory {
            requested_bytes: u64::MAX,
            ..
        })
    ));
    // The handle still allocates, launches and downloads.
    let x = gpu.upload(&[1.0f32, 2.0]).unwrap();
    let mut y = gpu.upload(&[1.0f32, 1.0]).unwrap();
    let shape = TileSetShape { tiles: 2, atoms: 0 };
    gpu.launch(&SAXPY_SPEC, "saxpy", shape, saxpy_args(2.0, &x, &mut y))
        .unwrap();
    assert_eq!(gpu.download(&y).unwrap(), [3.0, 5.0]);
    gpu.synchronize().unwrap();
}

#[test]
fn compile_and_load_errors_name_the_kernel() {
    let gpu = gpu();
    let err = gpu
        .function("broken", "extern \"C\" __global__ void k() { oops }", "k")
        .unwrap_err();
    match err {
        LoopsError::Compile { kernel, log, .. } => {
            assert_eq!(kernel, "broken");
            assert!(log.contains("broken.cu(1)"), "{log}");
        }
        other => panic!("expected Compile, got {other:?}"),
    }
    let err = gpu.function("saxpy", SAXPY, "no_such_entry").unwrap_err();
    assert!(matches!(err, LoopsError::Driver { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains("`no_such_entry` of kernel `saxpy`"),
        "{err}"
    );
}

#[test]
fn launch_errors_name_the_kernel() {
    let gpu = gpu();
    let x = gpu.upload(&[1.0f32]).unwrap();
    let mut y = gpu.upload(&[1.0f32]).unwrap();
    let spec = KernelSpec {
        config: ScheduleConfig {
            schedule: Schedule::Thread,
            block_size: 4096,
        },
        ..SAXPY_SPEC
    };
    let err = gpu
        .launch(
            &spec,
            "saxpy",
            TileSetShape { tiles: 1, atoms: 0 },
            saxpy_args(1.0, &x, &mut y),
        )
        .unwrap_err();
    assert!(matches!(err, LoopsError::Driver { .. }), "{err:?}");
    assert!(
        err.to_string().contains("launching kernel `saxpy`")
            && err.to_string().contains("block 4096"),
        "{err}"
    );
    // The failed launch is not sticky: the handle still works.
    gpu.launch(
        &SAXPY_SPEC,
        "saxpy",
        TileSetShape { tiles: 1, atoms: 0 },
        saxpy_args(1.0, &x, &mut y),
    )
    .unwrap();
    assert_eq!(gpu.download(&y).unwrap(), [2.0]);
}

#[test]
fn timer_measures_work() {
    let gpu = gpu();
    let n = 1 << 22;
    let x = gpu.zeros::<f32>(n).unwrap();
    let mut y = gpu.zeros::<f32>(n).unwrap();
    let shape = TileSetShape {
        tiles: n as u64,
        atoms: 0,
    };
    gpu.launch(&SAXPY_SPEC, "saxpy", shape, saxpy_args(1.0, &x, &mut y))
        .unwrap(); // warm-up
    let timer = gpu.timer().unwrap();
    timer.start().unwrap();
    for _ in 0..10 {
        gpu.launch(&SAXPY_SPEC, "saxpy", shape, saxpy_args(1.0, &x, &mut y))
            .unwrap();
    }
    timer.stop().unwrap();
    let ms = timer.elapsed_ms().unwrap();
    assert!(ms > 0.0 && ms < 10_000.0, "{ms} ms");
}

#[test]
fn one_handle_from_many_threads() {
    let gpu = Arc::new(gpu());
    std::thread::scope(|s| {
        for t in 0..8 {
            let gpu = gpu.clone();
            s.spawn(move || {
                let n = 1000 + t;
                let x = gpu.upload(&vec![t as f32; n]).unwrap();
                let mut y = gpu.upload(&vec![1.0f32; n]).unwrap();
                let shape = TileSetShape {
                    tiles: n as u64,
                    atoms: 0,
                };
                gpu.launch(&SAXPY_SPEC, "saxpy", shape, saxpy_args(2.0, &x, &mut y))
                    .unwrap();
                assert!(gpu
                    .download(&y)
                    .unwrap()
                    .iter()
                    .all(|&v| v == 2.0 * t as f32 + 1.0));
            });
        }
    });
    gpu.synchronize().unwrap();
}

/// `Gpu::block_starts` finds, for every block boundary, the tile the block's own searches would
/// find: checked against the CPU model (`Partition::block_starts`) on fresh random tile sizes (runs
/// of empty tiles, one tile of a million atoms, sizes at the block boundaries), on the merge path
/// and `work_oriented`, for two block geometries, with the output poisoned first.
#[test]
fn block_starts_match_the_model() {
    use loops_runtime::launch::block_ranges::RangeJob;
    use loops_runtime::schedule::carry::Partition;
    use rand::{Rng, SeedableRng};
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    println!("seed {seed}");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let gpu = gpu();
    let mut shapes: Vec<Vec<usize>> = vec![vec![], vec![0; 5000], vec![1_000_000], vec![2048; 3]];
    for tiles in [1usize, 1000, 300_000] {
        shapes.push(
            (0..tiles)
                .map(|_| match rng.random_range(0..10) {
                    0..=3 => 0,
                    4..=7 => rng.random_range(1..40),
                    8 => rng.random_range(2040..2060),
                    _ => rng.random_range(0..20_000),
                })
                .collect(),
        );
    }
    let mut checked = 0;
    for sizes in &shapes {
        let mut offsets = vec![0usize];
        for s in sizes {
            offsets.push(offsets.last().unwrap() + s);
        }
        let device = gpu.upload_offsets(&offsets).unwrap();
        let model_offsets: Vec<u64> = offsets.iter().map(|&o| o as u64).collect();
        let (tiles, atoms) = (sizes.len() as u64, *offsets.last().unwrap() as u64);
        for partition in [Partition::MergePath, Partition::WorkOriented] {
            for (per_thread, block) in [(8u32, 256u32), (12, 256), (3, 64)] {
                let blocks = partition
                    .blocks_wanted(tiles, atoms, per_thread, block)
                    .max(1);
                let job = RangeJob {
                    partition,
                    items_per_block: (per_thread * block) as u64,
                    blocks,
                };
                let want = partition
                    .block_starts(&model_offsets, job.items_per_block, blocks)
                    .unwrap();
                let mut starts = gpu.zeros::<i32>(blocks as usize + 1).unwrap();
                gpu.fill(&mut starts, -7).unwrap();
                gpu.block_starts_into(device.tile_offsets(), job, &mut starts)
                    .unwrap();
                let got = gpu.download(&starts).unwrap();
                let got: Vec<u64> = got.iter().map(|&s| s as u64).collect();
                assert_eq!(
                    got, want,
                    "{partition:?} {job:?}, {tiles} tiles, {atoms} atoms"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, shapes.len() * 2 * 3);
    // The allocating form, and a buffer one short.
    let offsets = gpu.upload_offsets(&[0, 3, 3, 9]).unwrap();
    let job = RangeJob {
        partition: Partition::MergePath,
        items_per_block: 4,
        blocks: 4,
    };
    let starts = gpu
        .block_starts(offsets.tile_offsets(), job)
        .unwrap()
        .unwrap();
    assert_eq!(gpu.download(&starts).unwrap(), vec![0, 1, 2, 3, 3]);
    let mut short = gpu.zeros::<i32>(4).unwrap();
    let err = gpu
        .block_starts_into(offsets.tile_offsets(), job, &mut short)
        .unwrap_err();
    assert!(matches!(err, LoopsError::BufferTooShort { .. }), "{err}");
    let split = RangeJob {
        partition: Partition::Split { mdt: 4 },
        items_per_block: 256,
        blocks: 1,
    };
    let offsets = gpu.upload_offsets(&[0, 3]).unwrap();
    assert!(gpu
        .block_starts(offsets.tile_offsets(), split)
        .unwrap()
        .is_none());
}

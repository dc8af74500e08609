//! The L1 / shared-memory split launches ask for (`loops::launch::set_carveout`, issue 42): under
//! each split every SpMV schedule still gives the CPU reference's result (outputs poisoned, fresh
//! random inputs, a Kronecker graph relabelled by in-degree and a grid), and the split asked for is
//! the launched function's attribute, back to the driver's choice (-1) when asked.
//! One test: the split is a process-wide setting.
#![cfg(feature = "gpu")]

mod common;
#[path = "../examples/kernels/mod.rs"]
mod kernels;

use cudarc::driver::sys::CUfunction_attribute;
use kernels::spmv;
use loops::check;
use loops::launch::{carveout, set_carveout, Carveout};
use loops::prelude::*;

#[test]
fn every_split_gives_the_same_results_and_is_set_on_the_launched_function() {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); device {}",
        gpu.name()
    );
    let kron: sprs::CsMat<f32> = loops::io::generate::kronecker(14, 16, seed);
    let (kron_deg, _) = loops::io::host::relabel_by_degree(&kron, loops::io::host::Degree::In)
        .expect("a square matrix");
    let matrices = [
        ("kron_14@deg", kron_deg),
        ("grid2d_128", loops::io::generate::grid2d(128, 128, seed)),
    ];
    let splits = [
        Carveout::MaxL1,
        Carveout::MaxShared,
        Carveout::Percent(50),
        Carveout::Driver,
    ];
    let mut failures = Vec::new();
    let mut runs = 0;
    for (m, (name, a)) in matrices.iter().enumerate() {
        let da = gpu.upload_csr(a).unwrap();
        for (s, &split) in splits.iter().enumerate() {
            set_carveout(Some(split));
            assert_eq!(carveout(), Some(split));
            for &schedule in spmv::SCHEDULES {
                let x: Vec<f32> = loops::io::generate::random_vector(
                    a.cols(),
                    seed ^ (((m * 64 + s) as u64) << 8),
                );
                let dx = gpu.upload(&x).unwrap();
                let mut dy = gpu.zeros::<f32>(a.rows()).unwrap();
                gpu.fill(&mut dy, f32::POISON).unwrap();
                spmv::launch(schedule, &gpu, &da, &dx, &mut dy).unwrap();
                let check = check::check_spmv(a, &x, &gpu.download(&dy).unwrap());
                runs += 1;
                if !check.passed() {
                    failures.push(format!("{name} {schedule} under {split:?}: {check}"));
                }
            }
            // The plain entry point of `thread` is what its launch loaded: its attribute is the
            // split asked for.
            let f = gpu
                .function(
                    spmv::thread::spmv::KERNEL.name,
                    spmv::thread::spmv::KERNEL.source,
                    "spmv__f32",
                )
                .unwrap();
            let got = f
                .get_attribute(
                    CUfunction_attribute::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                )
                .unwrap();
            assert_eq!(got, split.attribute_value(), "{name} under {split:?}");
        }
    }
    set_carveout(None);
    println!("{runs} runs, {} failed", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

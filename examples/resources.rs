//! What ptxas makes of every kernel of examples/kernels under every schedule: registers per
//! thread, spills, stack and static shared memory, and the resident blocks per SM that follow
//! from them (H100 limits: 65,536 registers, 228 KiB shared memory, 2,048 threads per SM).
//!
//! ```text
//! cargo run --release --example resources              # needs only libnvrtc; sm_90 by default
//! cargo run --release --example resources -- --arch 80
//! ```
//!
//! Compiles with NVRTC and `--ptxas-options=-v`; no GPU needed. Exits non-zero if a compile fails.

use loops_kernels as kernels;

use std::process::ExitCode;

use clap::Parser;
use loops::compile::{self, Arch};

#[derive(Parser)]
#[command(about = "ptxas resource use of every kernel under every schedule")]
struct Args {
    /// Compute capability to compile for, as digits (90 = sm_90).
    #[arg(long, default_value_t = 90)]
    arch: u32,
}

/// Resident blocks per SM of `block` threads with this resource use (registers allocated per warp
/// in units of 256, shared memory per block plus 1 KiB reserved by the driver).
fn blocks_per_sm(registers: u32, shared: u32, block: u32) -> u32 {
    let warps = block.div_ceil(32);
    let regs_per_warp = (registers.max(1) * 32).div_ceil(256) * 256;
    let by_regs = 65_536 / (regs_per_warp * warps);
    let by_threads = 2_048 / block;
    let by_shared = if shared == 0 {
        u32::MAX
    } else {
        (228 * 1024) / (shared + 1024)
    };
    by_regs.min(by_threads).min(by_shared).min(32)
}

fn main() -> ExitCode {
    let args = Args::parse();
    let arch = Arch::new(args.arch / 10, args.arch % 10);
    let all: &[(&str, &[(&str, &str)])] = &[
        ("spmv", kernels::spmv::SOURCES),
        ("spmv_axpby", kernels::spmv_axpby::SOURCES),
        ("spmm", kernels::spmm::SOURCES),
        ("row_max_abs", kernels::row_max_abs::SOURCES),
        ("column_sums", kernels::column_sums::SOURCES),
    ];
    println!(
        "{:<12} {:<14} {:<24} {:>5} {:>7} {:>6} {:>7} {:>7} {:>11}",
        "kernel", "schedule", "entry", "regs", "smem B", "stack", "spill S", "spill L", "blocks/SM"
    );
    let mut failed = false;
    for (kernel, sources) in all {
        for (schedule, source) in *sources {
            match compile::resource_usage(kernel, source, arch) {
                Ok(usage) => {
                    for u in usage {
                        println!(
                            "{:<12} {:<14} {:<24} {:>5} {:>7} {:>6} {:>7} {:>7} {:>11}",
                            kernel,
                            schedule,
                            u.entry,
                            u.registers,
                            u.shared_bytes,
                            u.stack_bytes,
                            u.spill_stores,
                            u.spill_loads,
                            blocks_per_sm(u.registers, u.shared_bytes, 256)
                        );
                    }
                }
                Err(e) => {
                    eprintln!("{kernel} under {schedule}: {e}");
                    failed = true;
                }
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

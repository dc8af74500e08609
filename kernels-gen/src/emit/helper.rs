//! `#[loops::device]` helpers in CUDA: one `__device__` function each, a template where the helper
//! is generic, named [`helper_cuda_name`], written once per source (before the kernels' bodies,
//! callees before callers). Helpers take scalars only, so the bounds-checked source holds them
//! unchanged.

use super::Cx;
use crate::diag::DResult;
use crate::ir::*;
use crate::schedule::Kernel;

/// The helpers `kernel` calls, in CUDA ("" where it calls none).
pub(super) fn helpers_source(kernel: &Kernel) -> DResult<String> {
    if kernel.helpers.is_empty() {
        return Ok(String::new());
    }
    let lowering = kernel.config.lowering();
    let mut out = String::from("// ---- #[loops::device] helpers ----\n");
    for helper in &kernel.helpers {
        // `#line` names the file the helper is written in.
        let in_its_file = Kernel {
            file: helper.file.clone(),
            ..kernel.clone()
        };
        let mut cx = Cx {
            out: String::new(),
            indent: 0,
            kernel: &in_its_file,
            lowering: lowering.as_ref(),
            fresh: 0,
            guard: None,
            scratch_slots_per_block: 0,
            state_slots_per_tile: 0,
            full_sm: false,
            shared: super::SharedMemory::default(),
            checked: false,
            wide: false,
            line: 0,
            presumed: super::lines::Presumed::Generated,
            statement: None,
            next_line_from: None,
            loop_head_from: None,
            force_rust_directive: false,
            streamed_atom: None,
            lanes: None,
            aggregated: Vec::new(),
            staged: Vec::new(),
        };
        if !helper.type_params.is_empty() {
            let tps: Vec<String> = helper
                .type_params
                .iter()
                .map(|t| format!("typename {t}"))
                .collect();
            cx.line(format!("template <{}>", tps.join(", ")));
        }
        let params: Vec<String> = helper
            .params
            .iter()
            .map(|(name, ty, mutable)| {
                let c = if *mutable { "" } else { "const " };
                format!("{c}{} {name}", ty.cuda_name())
            })
            .collect();
        cx.open(format!(
            "static __device__ __forceinline__ {} {}({})",
            helper.ret.cuda_name(),
            helper_cuda_name(&helper.name),
            params.join(", ")
        ));
        cx.block(&helper.body)?;
        cx.close();
        cx.line("");
        out.push_str(&cx.out);
    }
    Ok(out)
}

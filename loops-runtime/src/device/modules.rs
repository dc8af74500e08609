//! Loading kernels on a [`Gpu`]: a source compiled (or read from the disk cache) for the device's
//! architecture, whole or one entry point alone, each module in its own slot (see the device
//! module's documentation), and the sizes of a loaded function's parameters.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use cudarc::driver::sys::{self, CUresult};
use cudarc::driver::{CudaFunction, CudaModule, DriverError};

use super::{lock, version_text, Gpu};
use crate::compile::cache::{self, CacheConfig, Origin};
use crate::compile::{self, Arch, KernelImage, Output};
use crate::error::{LoopsError, Result};

/// What one module holds: a source compiled for an architecture, whole (`entry: None`) or one
/// entry point of it alone.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct ModuleKey {
    source_hash: u64,
    entry: Option<String>,
    arch: Arch,
}

/// A module, once loaded. Locked across its compile, so that the threads that want it wait for the
/// one compiling it; empty again after a failed compile, which the next use retries.
pub(super) type ModuleSlot = Arc<Mutex<Option<Arc<CudaModule>>>>;

/// The entry point to compile alone for `entry` of `source`: `entry` where the source guards its
/// definition (generated code), `None` (the whole source) where it does not (hand-written CUDA, or
/// a name the source does not define: the whole source is compiled, and the load reports it
/// missing as before).
fn compiled_alone<'e>(source: &str, entry: &'e str) -> Option<&'e str> {
    let guard = format!("defined({})", kernels_gen::abi::entry_macro(entry));
    source.contains(&guard).then_some(entry)
}

/// A loaded entry point and the sizes of its parameters (when the driver can tell: CUDA 12.4+).
pub(crate) struct LoadedFunction {
    pub(crate) func: CudaFunction,
    pub(crate) param_sizes: Option<Vec<usize>>,
}

impl Gpu {
    /// The entry point `entry` of the kernel `source`, compiled (once per process per device, for this
    /// device's architecture; or read from the disk cache) and loaded. A generated source's entry
    /// point is compiled alone, a hand-written source whole (see the module documentation).
    /// `kernel_name` names the kernel in errors.
    pub fn function(
        &self,
        kernel_name: &str,
        source: &'static str,
        entry: &str,
    ) -> Result<CudaFunction> {
        Ok(self
            .loaded_function(kernel_name, source, entry, None)?
            .func
            .clone())
    }

    /// `param_count`, where the caller knows it (generated kernels), lets each launch check its
    /// arguments against the entry point's parameter sizes.
    pub(crate) fn loaded_function(
        &self,
        kernel_name: &str,
        source: &'static str,
        entry: &str,
        param_count: Option<usize>,
    ) -> Result<Arc<LoadedFunction>> {
        let key = (source.as_ptr() as usize, source.len());
        if let Some(f) = lock(&self.shared.functions)
            .get(&key)
            .and_then(|m| m.get(entry))
        {
            return Ok(f.clone());
        }
        let context = || format!("loading entry point `{entry}` of kernel `{kernel_name}`");
        if entry.contains('\0') {
            return Err(LoopsError::driver(context())(DriverError(
                CUresult::CUDA_ERROR_INVALID_VALUE,
            )));
        }
        let module = self.module(kernel_name, source, compiled_alone(source, entry))?;
        let func = module
            .load_function(entry)
            .map_err(LoopsError::driver(context()))?;
        let param_sizes = param_count.and_then(|n| param_sizes(&func, n));
        let loaded = Arc::new(LoadedFunction { func, param_sizes });
        lock(&self.shared.functions)
            .entry(key)
            .or_default()
            .entry(entry.to_string())
            .or_insert(loaded.clone());
        Ok(loaded)
    }

    /// Loads the entry points `entries` of the kernel `source` (see [`Gpu::function`]), compiling
    /// those not yet loaded (nor in the disk cache) at the same time, on up to
    /// [`std::thread::available_parallelism`] threads: each entry point of a generated source is a
    /// module of its own, so a tuner that will time several candidates pays for one compile's
    /// wall time per thread rather than for all of them in a row. Afterwards a launch of any of
    /// them finds it loaded. Returns the error of the first entry (in `entries`' order) that could
    /// not be loaded; the others are loaded as far as they could be. Only the modules are loaded:
    /// each entry point is looked up by its first launch, which knows its parameter count (and so
    /// checks its arguments).
    ///
    /// NVRTC is called from several threads at once, each thread with its own `nvrtcProgram` that
    /// never leaves it. What was found on NVRTC's thread safety (searching its documentation for
    /// "nvrtc thread safe"): no statement in the NVRTC user guide's text that the search reached
    /// (the separate PTX Compiler API guide has a thread-safety section; NVRTC's did not turn up),
    /// and one reported problem, arrayfire PR 2770 (CUDA 10): a segfault at process exit when
    /// NVRTC's first program was made on a thread other than the main one. What this relies on is
    /// that NVRTC keeps a compile's state in its program, so that distinct programs may compile
    /// concurrently; the NVRTC tests compile a source's entry points on two threads at once
    /// (`tests/nvrtc_compile.rs`). The module loads run on the same threads: the driver API is
    /// thread-safe, and cudarc makes the context current on each thread.
    pub fn load_entries(
        &self,
        kernel_name: &str,
        source: &'static str,
        entries: &[String],
    ) -> Result<()> {
        let mut missing: Vec<&str> = {
            let functions = lock(&self.shared.functions);
            let loaded = functions.get(&(source.as_ptr() as usize, source.len()));
            entries
                .iter()
                .map(String::as_str)
                .filter(|e| !loaded.is_some_and(|m| m.contains_key(*e)))
                .collect()
        };
        let mut seen = std::collections::HashSet::new();
        missing.retain(|e| seen.insert(*e));
        let threads = std::thread::available_parallelism()
            .map_or(1, std::num::NonZeroUsize::get)
            .min(missing.len());
        let load = |entry: &str| {
            let module = self.module(kernel_name, source, compiled_alone(source, entry))?;
            // Found now, so that a name the source lacks is this call's error; kept by the launch.
            module
                .load_function(entry)
                .map(drop)
                .map_err(LoopsError::driver(format!(
                    "loading entry point `{entry}` of kernel `{kernel_name}`"
                )))
        };
        if threads <= 1 {
            return missing.into_iter().try_for_each(load);
        }
        // Each thread takes the next entry not yet taken; after a failure no new one is started.
        let next = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let work = || {
            let mut done = Vec::new();
            while !failed.load(Ordering::Relaxed) {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(entry) = missing.get(i) else { break };
                let outcome = load(entry);
                if outcome.is_err() {
                    failed.store(true, Ordering::Relaxed);
                }
                done.push((i, outcome));
            }
            done
        };
        let outcomes: Vec<(usize, Result<()>)> = std::thread::scope(|scope| {
            let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
            // The calling thread is one of the workers, and takes the first entry.
            let mut outcomes = work();
            for helper in helpers {
                outcomes.extend(
                    helper
                        .join()
                        .unwrap_or_else(|p| std::panic::resume_unwind(p)),
                );
            }
            outcomes
        });
        outcomes
            .into_iter()
            .filter_map(|(i, outcome)| outcome.err().map(|e| (i, e)))
            .min_by_key(|(i, _)| *i)
            .map_or(Ok(()), |(_, e)| Err(e))
    }

    /// The module of `source` (of its one `entry` point alone, where that is `Some`) for this
    /// device, loaded on first use: from the disk cache, else compiled. Compiled outside the map's
    /// lock, under its slot's (see the module documentation).
    fn module(
        &self,
        kernel_name: &str,
        source: &str,
        entry: Option<&str>,
    ) -> Result<Arc<CudaModule>> {
        let key = ModuleKey {
            source_hash: compile::source_hash(source),
            entry: entry.map(str::to_string),
            arch: self.shared.arch,
        };
        let slot = lock(&self.shared.modules).entry(key).or_default().clone();
        let mut slot = lock(&slot);
        if let Some(m) = slot.as_ref() {
            return Ok(m.clone());
        }
        let (arch, config) = (self.shared.arch, CacheConfig::global());
        let kernel = cache::load_or_compile(kernel_name, source, entry, arch, config)?;
        let module = match self.load_image(kernel_name, kernel.image) {
            Ok(module) => module,
            // An entry the driver refuses (it was valid for its key, so this is unexpected) is
            // compiled afresh and replaced; only the fresh image's failure is reported.
            Err(_) if kernel.origin == Origin::DiskCache => {
                let fresh = cache::compile_fresh(kernel_name, source, entry, arch, config)?;
                self.load_image(kernel_name, fresh.image)?
            }
            Err(e) => return Err(e),
        };
        *slot = Some(module.clone());
        Ok(module)
    }

    /// Loads a compiled kernel into a module of this handle's context.
    fn load_image(&self, kernel_name: &str, image: KernelImage) -> Result<Arc<CudaModule>> {
        let output = image.output();
        self.shared.ctx.load_module(image.into_cudarc()).map_err(|e| {
            let hint = match (e.0, output) {
                (CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION, _) => format!(
                    " (the driver, CUDA {}, is older than NVRTC)",
                    version_text(self.shared.driver_version)
                ),
                (CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU, Output::Cubin) => format!(
                    " (a cubin for {} that the driver cannot load: is it, CUDA {}, older than NVRTC?)",
                    self.shared.arch,
                    version_text(self.shared.driver_version)
                ),
                _ => String::new(),
            };
            LoopsError::driver(format!(
                "loading the module ({output}) of kernel `{kernel_name}` for {}{hint}",
                self.shared.arch
            ))(e)
        })
    }
}

/// The byte sizes of `func`'s `count` parameters, in order, by `cuFuncGetParamInfo` (CUDA 12.4+);
/// `None` where the driver lacks it. Only valid indices are asked for: a query past the last
/// parameter is an API error that compute-sanitizer reports, in every user's program.
pub(crate) fn param_sizes(func: &CudaFunction, count: usize) -> Option<Vec<usize>> {
    // SAFETY: a symbol lookup; the driver library is loaded (a function exists).
    let present = unsafe { sys::culib().get::<*const ()>(b"cuFuncGetParamInfo").is_ok() };
    if !present {
        return None;
    }
    let mut sizes = Vec::with_capacity(count);
    for index in 0..count {
        let (mut offset, mut size) = (0usize, 0usize);
        // SAFETY: `func` is a loaded function with `count` parameters; the out-pointers are valid.
        let r =
            unsafe { sys::cuFuncGetParamInfo(func.cu_function(), index, &mut offset, &mut size) };
        if r != CUresult::CUDA_SUCCESS {
            return None;
        }
        sizes.push(size);
    }
    Some(sizes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_entries_compile_alone() {
        let guarded = "template <typename T> void body() {}\n\
            #if !defined(LOOPS_ONE_ENTRY) || defined(LOOPS_ENTRY_k__f32)\nvoid k__f32() {}\n#endif\n\
            #if !defined(LOOPS_ONE_ENTRY) || defined(LOOPS_ENTRY_k__f32__wide)\nvoid k__f32__wide() {}\n#endif\n";
        assert_eq!(compiled_alone(guarded, "k__f32"), Some("k__f32"));
        assert_eq!(
            compiled_alone(guarded, "k__f32__wide"),
            Some("k__f32__wide")
        );
        // Not a guarded entry (a prefix of one, or absent): the whole source.
        assert_eq!(compiled_alone(guarded, "k__f"), None);
        assert_eq!(compiled_alone(guarded, "k__f64"), None);
        // Hand-written CUDA: compiled whole, once for all its entry points.
        assert_eq!(
            compiled_alone("extern \"C\" __global__ void k__f32() {}", "k__f32"),
            None
        );
    }
}

//! Run-time compilation of generated CUDA C++ with NVRTC.
//!
//! Needs libnvrtc, not a GPU: CI compiles every generated kernel for `sm_90` on machines with no
//! driver. cudarc loads libnvrtc lazily and *panics* when it cannot, so every entry point here first
//! makes sure the library is there ([`nvrtc_available`]) and turns its absence into
//! [`LoopsError::NvrtcMissing`].
//!
//! Finding the library: if the environment variable `LOOPS_NVRTC_LIB` names a file, that file is
//! loaded first (globally, and never unloaded), so that cudarc's own load by soname
//! (`libnvrtc.so.13`) finds the library already in the process. Otherwise the dynamic loader's usual
//! search applies (`LD_LIBRARY_PATH`, the system's library folders).
//!
//! A device's kernels are compiled for its own architecture: a cubin (`sm_XY`) where this NVRTC
//! supports it, else PTX for the newest virtual architecture NVRTC supports that is not newer than the
//! device (`target_for`). The on-disk cache and `LOOPS_DUMP_DIR` are in [`crate::compile::cache`].

use std::ffi::{c_char, CString};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cudarc::nvrtc::{result as nvrtc, sys};

use crate::error::{LoopsError, Result};

pub mod cache;

/// The entry points of a generated source that can be compiled alone (see [`compile_with_dump`]).
pub use kernels_gen::abi::guarded_entries;

/// The library's prelude and the checked variant's ([`kernels_gen::abi::HEADERS`]): a generated
/// source includes them by name (`#include "loops_prelude.cuh"`), and every compile here hands
/// them to NVRTC, so the binary holds one copy of each, not one per kernel variant.
pub use kernels_gen::abi::{CHECKED_PRELUDE, HEADERS, PRELUDE};

/// A generated source (`CUDA_SOURCE`, `CUDA_SOURCE_CHECKED`, ...) with the library's headers it
/// includes written in place: the whole translation unit NVRTC compiles under the name
/// `kernel_name.cu`, for a reader or another CUDA compiler. `#line` directives around each header
/// keep every line of the source where NVRTC's messages and the source's own directives put it.
/// A source that includes no header (hand-written CUDA) comes back as it is.
pub fn full_source(kernel_name: &str, source: &str) -> String {
    kernels_gen::abi::full_source(source, &format!("{kernel_name}.cu"))
}

/// The environment variable that may name the libnvrtc file to use.
pub(crate) const NVRTC_LIB_ENV: &str = "LOOPS_NVRTC_LIB";

/// A GPU architecture: a compute capability such as 9.0 (Hopper).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Arch {
    /// The major version of the compute capability (9 for sm_90).
    pub major: u32,
    /// The minor version (0 for sm_90).
    pub minor: u32,
}

impl Arch {
    /// Hopper (H100, H200): the architecture of the GPU machine, and what CI compiles for.
    pub const SM_90: Arch = Arch::new(9, 0);

    /// The architecture of compute capability `major.minor`.
    pub const fn new(major: u32, minor: u32) -> Arch {
        Arch { major, minor }
    }

    /// The architecture as NVRTC numbers it: 9.0 -> 90.
    pub const fn number(self) -> u32 {
        self.major * 10 + self.minor
    }

    /// The architecture NVRTC numbers `n`: 90 -> 9.0, 120 -> 12.0.
    pub const fn from_number(n: u32) -> Arch {
        Arch::new(n / 10, n % 10)
    }

    /// The real architecture, `sm_90`: what a cubin is compiled for.
    pub(crate) fn sm(self) -> String {
        format!("sm_{}", self.number())
    }

    /// The virtual architecture, `compute_90`: what PTX is compiled for.
    pub fn compute(self) -> String {
        format!("compute_{}", self.number())
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}", self.number())
    }
}

/// What NVRTC produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Output {
    /// PTX for the virtual architecture (`compute_XY`); the driver JIT-compiles it at module load.
    Ptx,
    /// A cubin for the real architecture (`sm_XY`); loads without JIT, only on that architecture.
    Cubin,
}

impl fmt::Display for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Output::Ptx => "ptx",
            Output::Cubin => "cubin",
        })
    }
}

/// What a kernel is compiled to: an architecture and an output kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// The architecture.
    pub arch: Arch,
    /// PTX or a cubin.
    pub output: Output,
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.output {
            Output::Cubin => write!(f, "{} cubin", self.arch.sm()),
            Output::Ptx => write!(f, "{} ptx", self.arch.compute()),
        }
    }
}

/// What to compile for a `device`, given the real architectures an NVRTC supports (as numbers): a
/// cubin for the device's own architecture where it is supported (no JIT at module load); else PTX
/// for the newest supported architecture not newer than the device (the driver JIT-compiles it for a
/// device newer than NVRTC); else (a device older than every supported architecture) PTX for the
/// device's own, which NVRTC rejects with a message naming it.
pub(crate) fn target_for(supported_archs: &[u32], device: Arch) -> Target {
    if supported_archs.contains(&device.number()) {
        return Target {
            arch: device,
            output: Output::Cubin,
        };
    }
    let arch = supported_archs
        .iter()
        .copied()
        .filter(|&n| n <= device.number())
        .max()
        .map_or(device, Arch::from_number);
    Target {
        arch,
        output: Output::Ptx,
    }
}

/// A compiled kernel, ready to be loaded into a module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelImage {
    /// PTX text (without the trailing NUL).
    Ptx(String),
    /// An ELF cubin.
    Cubin(Vec<u8>),
}

impl KernelImage {
    /// The PTX text, if this is PTX.
    pub fn ptx(&self) -> Option<&str> {
        match self {
            KernelImage::Ptx(s) => Some(s),
            KernelImage::Cubin(_) => None,
        }
    }

    /// The PTX text or the cubin's bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            KernelImage::Ptx(s) => s.as_bytes(),
            KernelImage::Cubin(b) => b,
        }
    }

    /// What kind of output this is.
    pub fn output(&self) -> Output {
        match self {
            KernelImage::Ptx(_) => Output::Ptx,
            KernelImage::Cubin(_) => Output::Cubin,
        }
    }

    /// The image as cudarc's loader takes it.
    pub(crate) fn into_cudarc(self) -> cudarc::nvrtc::Ptx {
        match self {
            KernelImage::Ptx(s) => cudarc::nvrtc::Ptx::from_src(s),
            KernelImage::Cubin(b) => cudarc::nvrtc::Ptx::from_binary(b),
        }
    }
}

/// What is known about the loaded libnvrtc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NvrtcInfo {
    /// `nvrtcVersion()`: (major, minor), e.g. (13, 0).
    pub version: (u32, u32),
    /// The real architectures this NVRTC can compile for, as numbers (75, 80, ..., 90, ...).
    pub supported_archs: Vec<u32>,
    /// The file named by `LOOPS_NVRTC_LIB`, when it was set and loaded.
    pub preloaded: Option<PathBuf>,
    /// Whether the library cudarc uses is the preloaded one (false when `LOOPS_NVRTC_LIB` was not used,
    /// or when another libnvrtc earlier in cudarc's list of names was found first).
    pub preloaded_in_use: bool,
    /// The file of the libnvrtc in use, as the dynamic loader found it (`None` where it cannot tell).
    pub library: Option<PathBuf>,
}

impl NvrtcInfo {
    /// Whether NVRTC can compile a cubin for `arch`.
    pub fn supports(&self, arch: Arch) -> bool {
        self.supported_archs.contains(&arch.number())
    }

    /// What kernels for `device` are compiled to with this NVRTC (see `target_for`).
    pub fn target(&self, device: Arch) -> Target {
        target_for(&self.supported_archs, device)
    }
}

/// The result of the one attempt to load libnvrtc in this process.
static NVRTC: OnceLock<std::result::Result<NvrtcInfo, Vec<String>>> = OnceLock::new();

/// Loads libnvrtc (once per process) and reports its version; [`LoopsError::NvrtcMissing`] if it
/// cannot be loaded. Never panics.
pub fn nvrtc_available() -> Result<NvrtcInfo> {
    NVRTC
        .get_or_init(probe)
        .clone()
        .map_err(|searched| LoopsError::NvrtcMissing { searched })
}

/// Whether libnvrtc has been loaded in this process (by [`nvrtc_available`] or a compile). Loading it
/// costs milliseconds, so a launch served from the disk cache does not; this tells whether it did.
pub fn nvrtc_loaded() -> bool {
    matches!(NVRTC.get(), Some(Ok(_)))
}

/// The handle of the library named by `LOOPS_NVRTC_LIB`, kept (leaked) for the life of the process.
#[cfg(unix)]
type Preloaded = libloading::os::unix::Library;
#[cfg(not(unix))]
type Preloaded = libloading::Library;

fn preload(path: &std::path::Path) -> std::result::Result<Preloaded, libloading::Error> {
    #[cfg(unix)]
    unsafe {
        use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
        Library::open(Some(path), RTLD_NOW | RTLD_GLOBAL)
    }
    #[cfg(not(unix))]
    unsafe {
        libloading::Library::new(path)
    }
}

/// libnvrtc loads `libnvrtc-builtins.so.X.Y` by name when it first compiles, which fails when its
/// folder is not on the loader's search path. Loading the builtins next to the named libnvrtc first
/// (globally, never unloaded) lets that later load find them by soname. Failures are left for NVRTC
/// to report.
fn preload_builtins(nvrtc: &std::path::Path) {
    let (Some(dir), Some(name)) = (nvrtc.parent(), nvrtc.file_name().and_then(|n| n.to_str()))
    else {
        return;
    };
    let prefix = if name.contains(".alt.") {
        "libnvrtc-builtins.alt."
    } else {
        "libnvrtc-builtins."
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(file) = file.to_str() else { continue };
        let shared_object =
            file.contains(".so") || file.ends_with(".dll") || file.ends_with(".dylib");
        if file.starts_with(prefix) && shared_object {
            if let Ok(lib) = preload(&entry.path()) {
                std::mem::forget(lib);
            }
        }
    }
}

fn probe() -> std::result::Result<NvrtcInfo, Vec<String>> {
    let mut searched = Vec::new();
    let mut preloaded: Option<(PathBuf, &'static Preloaded)> = None;
    if let Some(path) = std::env::var_os(NVRTC_LIB_ENV).map(PathBuf::from) {
        if path.is_file() {
            match preload(&path) {
                // Leaked on purpose: the library must stay loaded for cudarc's later load by name.
                Ok(lib) => {
                    preload_builtins(&path);
                    preloaded = Some((path, Box::leak(Box::new(lib))));
                }
                Err(e) => searched.push(format!(
                    "{} (${NVRTC_LIB_ENV}; could not load: {e})",
                    path.display()
                )),
            }
        } else {
            searched.push(format!("{} (${NVRTC_LIB_ENV}; not a file)", path.display()));
        }
    }
    for name in cudarc::get_lib_name_candidates("nvrtc") {
        if !searched.contains(&name) {
            searched.push(name);
        }
    }
    // SAFETY: only loads and unloads the library; cudarc's loader panics unless this returned true.
    if !unsafe { sys::is_culib_present() } {
        if let Some((path, _)) = &preloaded {
            let note = "loaded, but cudarc loads libnvrtc by name and its soname is none of the names below";
            searched.insert(0, format!("{} (${NVRTC_LIB_ENV}; {note})", path.display()));
        }
        return Err(searched);
    }

    let (mut major, mut minor) = (0, 0);
    // SAFETY: the library is present (checked above); the out-pointers are valid.
    let version = unsafe { sys::nvrtcVersion(&mut major, &mut minor) };
    if version.result().is_err() {
        searched.push(format!(
            "(a libnvrtc was found, but nvrtcVersion failed: {version:?})"
        ));
        return Err(searched);
    }

    let mut supported_archs = Vec::new();
    let mut count = 0;
    // SAFETY: the library is present; the buffer has room for `count` ints.
    unsafe {
        if sys::nvrtcGetNumSupportedArchs(&mut count).result().is_ok() && count > 0 {
            let mut archs = vec![0; count as usize];
            if sys::nvrtcGetSupportedArchs(archs.as_mut_ptr())
                .result()
                .is_ok()
            {
                supported_archs = archs.into_iter().map(|a| a as u32).collect();
            }
        }
    }

    let preloaded_in_use = preloaded.as_ref().is_some_and(|(_, lib)| {
        // SAFETY: looking up a symbol address; the symbol is not called.
        unsafe {
            let ours = lib.get::<*const ()>(b"nvrtcVersion").map(|s| *s);
            let theirs = sys::culib().get::<*const ()>(b"nvrtcVersion").map(|s| *s);
            matches!((ours, theirs), (Ok(a), Ok(b)) if a == b)
        }
    });

    Ok(NvrtcInfo {
        version: (major as u32, minor as u32),
        supported_archs,
        preloaded: preloaded.map(|(p, _)| p),
        preloaded_in_use,
        library: loaded_library_file(),
    })
}

/// The file the libnvrtc that cudarc uses was loaded from, by `dladdr` on one of its symbols.
#[cfg(unix)]
fn loaded_library_file() -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    // SAFETY: the library is loaded (checked by the caller); the symbol's address is only passed to
    // dladdr, which writes `info`; `dli_fname`, when not null, is a NUL-terminated string owned by the
    // loader, valid while the library stays loaded (cudarc never unloads it), and copied at once.
    unsafe {
        let symbol = sys::culib().get::<*const ()>(b"nvrtcVersion").ok()?;
        let mut info: libc::Dl_info = std::mem::zeroed();
        if libc::dladdr(*symbol as *const libc::c_void, &mut info) == 0 || info.dli_fname.is_null()
        {
            return None;
        }
        let name = std::ffi::CStr::from_ptr(info.dli_fname);
        Some(PathBuf::from(std::ffi::OsStr::from_bytes(name.to_bytes())))
    }
}

#[cfg(not(unix))]
fn loaded_library_file() -> Option<PathBuf> {
    None
}

/// The NVRTC options a kernel is compiled with. Generated code includes no headers, so there are no
/// include paths. With an `entry`, only that entry point of a generated source is compiled: its
/// definitions are guarded by [`kernels_gen::abi::entry_macro`], and these options define
/// [`kernels_gen::abi::ONE_ENTRY_MACRO`] and the entry's macro. A source without the guards
/// (hand-written CUDA) ignores them and compiles whole.
pub(crate) fn compile_options(arch: Arch, output: Output, entry: Option<&str>) -> Vec<String> {
    let gpu_arch = match output {
        Output::Ptx => arch.compute(),
        Output::Cubin => arch.sm(),
    };
    let mut options = vec![
        "--std=c++17".into(),
        "-lineinfo".into(),
        format!("--gpu-architecture={gpu_arch}"),
    ];
    if let Some(entry) = entry {
        options.push(format!("-D{}", kernels_gen::abi::ONE_ENTRY_MACRO));
        options.push(format!("-D{}", kernels_gen::abi::entry_macro(entry)));
    }
    options
}

/// Compiles `source` to PTX for `arch` (as `compute_XY`), every entry point of it. `kernel_name`
/// names the kernel in errors and is the program's file name in NVRTC's log
/// (`kernel_name.cu(LINE): error: ...`).
pub fn compile_ptx(kernel_name: &str, source: &str, arch: Arch) -> Result<String> {
    match compile(kernel_name, source, arch, Output::Ptx)? {
        KernelImage::Ptx(ptx) => Ok(ptx),
        KernelImage::Cubin(_) => Err(LoopsError::Compile {
            kernel: kernel_name.to_string(),
            log: "asked NVRTC for PTX and got a cubin".into(),
            source_code: source.to_string(),
        }),
    }
}

/// Compiles `source` (every entry point of it) for `arch` to the requested output. On rejection the
/// error is [`LoopsError::Compile`] with NVRTC's log and the source. With `LOOPS_DUMP_DIR` set (see
/// [`crate::compile::cache`]), the source and NVRTC's log are also written there.
pub fn compile(kernel_name: &str, source: &str, arch: Arch, output: Output) -> Result<KernelImage> {
    let dump_dir = crate::compile::cache::CacheConfig::global()
        .dump_dir
        .as_deref();
    compile_with_dump(kernel_name, source, None, arch, output, dump_dir)
}

/// [`compile`], of one `entry` point of a generated source where it is `Some` (see
/// `compile_options`; the image then holds that entry point alone), with the dump folder given:
/// when `dump_dir` is `Some`, `STEM.cu` (the source) and `STEM.log` (NVRTC's version, the options,
/// the outcome and NVRTC's log) are written there, whether the compile succeeds or fails
/// ([`crate::compile::cache::dump_file_stem`] gives `STEM`). A dump that cannot be written is a
/// warning on stderr, never an error.
pub fn compile_with_dump(
    kernel_name: &str,
    source: &str,
    entry: Option<&str>,
    arch: Arch,
    output: Output,
    dump_dir: Option<&Path>,
) -> Result<KernelImage> {
    let info = nvrtc_available()?;
    let options = compile_options(arch, output, entry);
    let (result, log) = compile_program(kernel_name, source, arch, output, &options);
    if let Some(dir) = dump_dir {
        crate::compile::cache::dump_compile(
            dir,
            kernel_name,
            source,
            entry,
            &crate::compile::cache::CompileRecord {
                nvrtc_version: info.version,
                target: Target { arch, output },
                options: &options,
                outcome: result
                    .as_ref()
                    .map(|image| image.bytes().len())
                    .map_err(String::as_str),
                log: &log,
            },
        );
    }
    result.map_err(|log| LoopsError::Compile {
        kernel: kernel_name.to_string(),
        log,
        source_code: source.to_string(),
    })
}

/// What ptxas reports of each entry point of `source` compiled to a cubin for `arch`: registers,
/// spills, shared and constant memory, stack. Needs libnvrtc, not a GPU.
pub fn resource_usage(kernel_name: &str, source: &str, arch: Arch) -> Result<Vec<ResourceUsage>> {
    nvrtc_available()?;
    let mut options = compile_options(arch, Output::Cubin, None);
    options.push("--ptxas-options=-v".into());
    let (result, log) = compile_program(kernel_name, source, arch, Output::Cubin, &options);
    result.map_err(|log| LoopsError::Compile {
        kernel: kernel_name.to_string(),
        log,
        source_code: source.to_string(),
    })?;
    Ok(ResourceUsage::parse_log(&log))
}

/// One entry point's resources, as ptxas reports them with `-v`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourceUsage {
    /// The entry point.
    pub entry: String,
    /// Registers per thread.
    pub registers: u32,
    /// Static shared memory per block, in bytes.
    pub shared_bytes: u32,
    /// Stack frame per thread, in bytes.
    pub stack_bytes: u32,
    /// Bytes of spill stores.
    pub spill_stores: u32,
    /// Bytes of spill loads.
    pub spill_loads: u32,
}

impl ResourceUsage {
    /// Reads ptxas's `-v` lines: `Compiling entry function 'NAME'`, then
    /// `N bytes stack frame, N bytes spill stores, N bytes spill loads` and
    /// `Used N registers, ... N bytes smem, ...`.
    pub(crate) fn parse_log(log: &str) -> Vec<ResourceUsage> {
        let number_before = |line: &str, unit: &str| -> u32 {
            let Some(at) = line.find(unit) else { return 0 };
            line[..at]
                .trim_end()
                .rsplit(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0)
        };
        let mut out: Vec<ResourceUsage> = Vec::new();
        for line in log.lines() {
            if let Some(rest) = line.split("Compiling entry function '").nth(1) {
                let entry = rest.split('\'').next().unwrap_or_default().to_string();
                out.push(ResourceUsage {
                    entry,
                    ..Default::default()
                });
            } else if let Some(current) = out.last_mut() {
                if line.contains("stack frame") {
                    current.stack_bytes = number_before(line, "bytes stack frame");
                    current.spill_stores = number_before(line, "bytes spill stores");
                    current.spill_loads = number_before(line, "bytes spill loads");
                } else if line.contains("Used") && line.contains("registers") {
                    current.registers = number_before(line, "registers");
                    current.shared_bytes = number_before(line, "bytes smem");
                }
            }
        }
        out
    }
}

/// Runs NVRTC (which must be loaded): the image or the error text, and NVRTC's log (empty when it
/// has none).
fn compile_program(
    kernel_name: &str,
    source: &str,
    arch: Arch,
    output: Output,
    options: &[String],
) -> (std::result::Result<KernelImage, String>, String) {
    let src = match CString::new(source) {
        Ok(src) => src,
        Err(e) => {
            let why = format!(
                "the source contains a NUL byte at offset {}",
                e.nul_position()
            );
            return (Err(why), String::new());
        }
    };
    // NUL bytes replaced, so this cannot fail; an empty name would do if it did.
    let file = CString::new(format!("{}.cu", kernel_name.replace('\0', "_"))).unwrap_or_default();

    // The library's headers, which a generated source includes by name ([`HEADERS`]): NUL-free
    // constants, so these cannot fail.
    let header_texts: Vec<CString> = HEADERS
        .iter()
        .map(|(_, text)| CString::new(*text).unwrap_or_default())
        .collect();
    let header_names: Vec<CString> = HEADERS
        .iter()
        .map(|(name, _)| CString::new(*name).unwrap_or_default())
        .collect();
    let texts: Vec<*const c_char> = header_texts.iter().map(|h| h.as_ptr()).collect();
    let names: Vec<*const c_char> = header_names.iter().map(|h| h.as_ptr()).collect();
    let mut prog = std::mem::MaybeUninit::uninit();
    // SAFETY: NVRTC is loaded (the callers check); every pointer is a NUL-terminated string that
    // outlives the call (NVRTC copies them), and both arrays hold `HEADERS.len()` of them.
    let created = unsafe {
        sys::nvrtcCreateProgram(
            prog.as_mut_ptr(),
            src.as_ptr(),
            file.as_ptr(),
            HEADERS.len() as std::ffi::c_int,
            texts.as_ptr(),
            names.as_ptr(),
        )
        .result()
    };
    let prog = match created {
        // SAFETY: nvrtcCreateProgram succeeded, so it wrote the program.
        Ok(()) => Program(unsafe { prog.assume_init() }),
        Err(e) => {
            return (
                Err(format!("nvrtcCreateProgram failed: {e:?}")),
                String::new(),
            )
        }
    };
    // SAFETY: `prog` is a live program (destroyed only by `Program`'s drop); the options hold no NUL.
    let compiled = unsafe { nvrtc::compile_program(prog.0, options) };
    // SAFETY: as above.
    let log = unsafe { nvrtc::get_program_log(prog.0) }
        .map(|l| c_text(&l))
        .unwrap_or_default();
    if let Err(e) = compiled {
        let error = if e.0 == sys::nvrtcResult::NVRTC_ERROR_COMPILATION {
            log.clone()
        } else {
            format!(
                "nvrtcCompileProgram failed: {e:?} (options: {})\n{log}",
                options.join(" ")
            )
        };
        return (Err(error), log);
    }
    (read_output(&prog, arch, output), log)
}

/// The PTX or cubin of a compiled program.
fn read_output(
    prog: &Program,
    arch: Arch,
    output: Output,
) -> std::result::Result<KernelImage, String> {
    match output {
        Output::Ptx => {
            // SAFETY: `prog` is live and compiled.
            let ptx = unsafe { nvrtc::get_ptx(prog.0) }
                .map_err(|e| format!("nvrtcGetPTX failed: {e:?}"))?;
            Ok(KernelImage::Ptx(c_text(&ptx)))
        }
        Output::Cubin => {
            // SAFETY: `prog` is live and compiled; the buffer has the size NVRTC reported.
            let cubin = unsafe {
                let mut size = 0usize;
                sys::nvrtcGetCUBINSize(prog.0, &mut size)
                    .result()
                    .map_err(|e| format!("nvrtcGetCUBINSize failed: {e:?}"))?;
                let mut buf = vec![0u8; size];
                sys::nvrtcGetCUBIN(prog.0, buf.as_mut_ptr().cast())
                    .result()
                    .map_err(|e| format!("nvrtcGetCUBIN failed: {e:?}"))?;
                buf
            };
            if cubin.is_empty() {
                return Err(format!("NVRTC produced no cubin for {arch}"));
            }
            Ok(KernelImage::Cubin(cubin))
        }
    }
}

/// Owns an `nvrtcProgram` and destroys it on drop.
struct Program(sys::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: created by `create_program`, destroyed only here. A failure leaks the program; there
        // is nothing better to do in a drop.
        let _ = unsafe { nvrtc::destroy_program(self.0) };
    }
}

/// NUL-terminated C text (as NVRTC returns logs and PTX) to a `String`.
fn c_text(bytes: &[c_char]) -> String {
    let bytes: Vec<u8> = bytes
        .iter()
        .map(|&c| c as u8)
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A 64-bit FNV-1a hash of a kernel's source: the in-process module cache's key, and part of the
/// names of `LOOPS_DUMP_DIR` files. Deterministic across processes and builds (unlike
/// `DefaultHasher`). The on-disk cache keys on SHA-256 instead.
pub(crate) fn source_hash(source: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in source.as_bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The environment variable that makes a missing libnvrtc fatal in the compile tests, which
/// otherwise say they skip (`tests/common/nvrtc.rs`). CI sets it.
pub const REQUIRE_NVRTC_ENV: &str = "LOOPS_REQUIRE_NVRTC";

#[cfg(test)]
mod tests {
    #[test]
    fn ptxas_verbose_log_is_read() {
        let log = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Compiling entry function 'spmv__f32' for 'sm_90'\n\
ptxas info    : Function properties for spmv__f32\n\
    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n\
ptxas info    : Used 40 registers, used 1 barriers, 19480 bytes smem, 432 bytes cmem[0]\n\
ptxas info    : Compiling entry function 'spmv__f64' for 'sm_90'\n\
ptxas info    : Used 32 registers, 380 bytes cmem[0]\n";
        let usage = ResourceUsage::parse_log(log);
        assert_eq!(usage.len(), 2);
        assert_eq!(
            usage[0],
            ResourceUsage {
                entry: "spmv__f32".into(),
                registers: 40,
                shared_bytes: 19480,
                stack_bytes: 8,
                spill_stores: 4,
                spill_loads: 12,
            }
        );
        assert_eq!(usage[1].registers, 32);
        assert_eq!(usage[1].shared_bytes, 0);
    }

    use super::*;

    #[test]
    fn arch_names() {
        assert_eq!(Arch::SM_90.sm(), "sm_90");
        assert_eq!(Arch::new(8, 6).compute(), "compute_86");
        assert_eq!(Arch::new(12, 0).to_string(), "sm_120");
    }

    #[test]
    fn options() {
        assert_eq!(
            compile_options(Arch::SM_90, Output::Ptx, None),
            ["--std=c++17", "-lineinfo", "--gpu-architecture=compute_90"]
        );
        assert_eq!(
            compile_options(Arch::SM_90, Output::Cubin, None)[2],
            "--gpu-architecture=sm_90"
        );
        // One entry point: the whole-source options, then the two macros that keep it alone.
        assert_eq!(
            compile_options(Arch::SM_90, Output::Cubin, Some("spmv_group4__f32__wide")),
            [
                "--std=c++17",
                "-lineinfo",
                "--gpu-architecture=sm_90",
                "-DLOOPS_ONE_ENTRY",
                "-DLOOPS_ENTRY_spmv_group4__f32__wide"
            ]
        );
    }

    #[test]
    fn targets() {
        let cuda13 = [75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121];
        let t = target_for(&cuda13, Arch::SM_90);
        assert_eq!((t.arch, t.output), (Arch::SM_90, Output::Cubin));
        assert_eq!(t.to_string(), "sm_90 cubin");
        // A device newer than NVRTC: PTX for the newest architecture NVRTC knows below it.
        let t = target_for(&[75, 80, 86, 89, 90], Arch::new(12, 0));
        assert_eq!((t.arch, t.output), (Arch::SM_90, Output::Ptx));
        assert_eq!(t.to_string(), "compute_90 ptx");
        // Older than everything: PTX for itself (NVRTC will say it is unsupported).
        let t = target_for(&cuda13, Arch::new(6, 0));
        assert_eq!((t.arch, t.output), (Arch::new(6, 0), Output::Ptx));
        assert_eq!(Arch::from_number(121), Arch::new(12, 1));
    }

    #[test]
    fn hash_is_fnv1a() {
        assert_eq!(source_hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(source_hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(source_hash("ab"), source_hash("ba"));
    }

    #[test]
    fn c_text_stops_at_nul() {
        let raw: Vec<c_char> = b"hello\0junk".iter().map(|&b| b as c_char).collect();
        assert_eq!(c_text(&raw), "hello");
    }
}

//! `#[load_balanced(schedule = "...")]`: a thin shell. All the work (parsing, checking, CUDA emission,
//! the expansion itself) is in `kernels-gen`, where it can be unit- and snapshot-tested.

use proc_macro::TokenStream;

/// Turns a function whose body loops over the tiles and atoms of a tile set into a GPU kernel.
///
/// The function becomes a launch wrapper with the same name taking `&Gpu` and device buffers
/// (`Csr<T>` -> `&DeviceCsr<T>`, `&[T]` -> `&DeviceBuffer<T>`, `&mut [T]` -> `&mut DeviceBuffer<T>`,
/// scalars unchanged) and returning `loops::Result<()>`; a module of the same name holds the generated
/// CUDA (`name::CUDA_SOURCE`). Arguments: `schedule = "thread"`, `block_size = 256`.
#[proc_macro_attribute]
pub fn load_balanced(attr: TokenStream, item: TokenStream) -> TokenStream {
    kernels_gen::frontend::expand(attr.into(), item.into()).into()
}

/// Stamps one kernel under several named schedules: `#[for_schedules(all)]`, a list of names of
/// `loops::SCHEDULES` (`#[for_schedules(thread, warp, merge_path12)]`), or of sets (`all`, `core`:
/// every unit at least once) and names, less `except(..)` (`#[for_schedules(core, except(lrb))]`).
/// Each becomes a module of
/// that name holding the kernel under `#[load_balanced(..)]` with the schedule's arguments
/// (`spmv::group4::spmv`); beside them `SCHEDULES` (the module names), `SOURCES` and
/// `CHECKED_SOURCES` (the generated CUDA, by schedule), `KERNELS` (the kernels' descriptions) and
/// `launch(schedule, gpu, ..)`, which runs the kernel under the schedule named at run time. One
/// stamped kernel per module: put two in modules of their own.
#[proc_macro_attribute]
pub fn for_schedules(attr: TokenStream, item: TokenStream) -> TokenStream {
    kernels_gen::frontend::for_schedules(attr.into(), item.into()).into()
}

/// Marks a helper function, written in the kernel language, that kernels (and other helpers) call:
/// scalar parameters (`f32`, `f64`, integers, `bool`, a generic `T: Float`), a scalar result, its
/// value as the final expression or `return e;`. It becomes a CUDA `__device__` function in the
/// source of each kernel that calls it. A kernel sees the helpers in scope where it is written:
/// those defined in its module or a parent module above it, and those imported
/// (`use crate::math::square;`). See kernels-gen/README.md, "Helper functions".
#[proc_macro_attribute]
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    kernels_gen::frontend::device(attr.into(), item.into()).into()
}

/// `#[load_balanced]` with the `#[loops::device]` helpers fetched so far: what a helper's macro
/// hands a kernel back to. Not a stable API.
#[doc(hidden)]
#[proc_macro]
pub fn load_balanced_with(input: TokenStream) -> TokenStream {
    kernels_gen::frontend::load_balanced_with(input.into()).into()
}

/// The check of a `#[loops::device]` helper's body with the signatures of the helpers it calls.
/// Not a stable API.
#[doc(hidden)]
#[proc_macro]
pub fn device_check(input: TokenStream) -> TokenStream {
    kernels_gen::frontend::device_check(input.into()).into()
}

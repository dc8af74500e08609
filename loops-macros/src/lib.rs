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

//! Typed declarations of the runtime's hand-written entry points (the `extern "C" __global__`
//! functions of the `.cuh` files beside the rooms that launch them).
//!
//! Each entry point's signature is written once in Rust, in an `entries!` block beside the code
//! that launches it (one block per `.cuh` and Rust module):
//!
//! ```ignore
//! entries! {
//!     source: EXCHANGE_SOURCE;   // `source: include_str!("x.cuh"), after PREFIX;` for a part
//!     undeclared: [];            // entry points left to hand-pushed arguments
//!     /// `dst[i] = max(dst[i], src[i])`.
//!     fn loops_max_into_u32(dst: *mut u32, src: *const u32, n: u64);
//!     /// `y += part`: one entry point per element type (`*` in the name: what differs).
//!     fn add_into<T: Float [f32, f64]> = "loops_add_into_*" (y: *mut T, part: *const T, n: u64);
//!     /// A policy's parameter list (`#define LOOPS_SEGSORT_CSR_PARAMS(T) (...)`), and entry
//!     /// points that take one first (`[policy]`).
//!     fn csr_policy<T: Float [f32, f64]> = "LOOPS_SEGSORT_CSR_PARAMS" (offsets: *const i32, ...);
//!     fn loops_segsort_block = "loops_segsort_block*_*" [policy] (order: *const u32, first: u32);
//! }
//! ```
//!
//! which makes, per entry, a module of that name with
//! - `args(...)`: the [`KernelArgs`] of one launch, one argument per parameter, typed as declared:
//!   a `*const T` or `*mut T` takes a `&DeviceBuffer<T>` (or `&mut`, or a [`Ptr`]), a scalar its
//!   own type ([`ScalarArg`]), so a call site cannot pass another kind, type or order;
//!   `after(args, ...)` pushes them after `args` (a policy's);
//! - `NAME` (a family's: the pattern) and `params()`, the declared names and [`Kind`]s.
//!
//! and a unit test (no GPU) that parses `source` (the `.cuh` text, its `#define` families,
//! `*_PARAMS` lists and `typedef`s included) and checks every `extern "C"` entry point in it: a
//! declared one must have the declared names, order and kinds (for a family, the parameters whose
//! type is a macro parameter of its `#define`, such as `T`, must be those whose declared type
//! varies with the family's type parameter, tried at its two types; a name with `*` that is no
//! family's covers the entry points it matches, each of one probe type); every other one must be
//! listed in `undeclared` (and every name there must exist). So the Rust and CUDA signatures
//! cannot drift (the parser and the check: `entry/check.rs`, test builds only).
//! `every_cuda_source_has_its_declarations` checks that every `.cuh` has a block.

use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::CudaStream;

use super::args::{KernelArgs, Param};
use super::ScalarArg;
use crate::device::DeviceBuffer;
use crate::element::Element;

/// A declared parameter's kind, as the `.cuh` spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Passed by value: the CUDA type (`unsigned int`).
    Scalar(&'static str),
    /// A device pointer to `ty` (`const ty*` unless `mutable`).
    Ptr {
        /// The pointee's CUDA type.
        ty: &'static str,
        /// Whether the kernel may write through it.
        mutable: bool,
    },
}

/// A type a declaration may give a parameter: a [`ScalarArg`], or `*const T` / `*mut T` of an
/// [`Element`].
pub trait Declared {
    /// Its kind.
    const KIND: Kind;
}

impl<T: Element> Declared for *const T {
    const KIND: Kind = Kind::Ptr {
        ty: T::CUDA_NAME,
        mutable: false,
    };
}

impl<T: Element> Declared for *mut T {
    const KIND: Kind = Kind::Ptr {
        ty: T::CUDA_NAME,
        mutable: true,
    };
}

impl<S: ScalarArg> Declared for S {
    const KIND: Kind = Kind::Scalar(S::CUDA_NAME);
}

/// A value a call site may give a parameter declared `D`.
pub trait Pass<'a, D> {
    /// Pushes it onto `args`.
    fn pass(self, args: &mut KernelArgs<'a>);
}

impl<'a, S: ScalarArg> Pass<'a, S> for S {
    fn pass(self, args: &mut KernelArgs<'a>) {
        args.push_value(self, Param::Scalar(S::CUDA_NAME));
    }
}

impl<'a, T: Element> Pass<'a, *const T> for &'a DeviceBuffer<T> {
    fn pass(self, args: &mut KernelArgs<'a>) {
        args.push_buffer(
            self,
            Param::Ptr {
                ty: T::CUDA_NAME,
                mutable: false,
            },
        );
    }
}

impl<'a, T: Element> Pass<'a, *const T> for &'a mut DeviceBuffer<T> {
    fn pass(self, args: &mut KernelArgs<'a>) {
        let shared: &'a DeviceBuffer<T> = self;
        Pass::<'a, *const T>::pass(shared, args);
    }
}

/// A buffer the kernel writes, passed shared: the buffers a launch writes are borrowed shared where
/// the caller's own structures hold them (the kernel writes through the device pointer).
impl<'a, T: Element> Pass<'a, *mut T> for &'a DeviceBuffer<T> {
    fn pass(self, args: &mut KernelArgs<'a>) {
        args.push_buffer(
            self,
            Param::Ptr {
                ty: T::CUDA_NAME,
                mutable: true,
            },
        );
    }
}

impl<'a, T: Element> Pass<'a, *mut T> for &'a mut DeviceBuffer<T> {
    fn pass(self, args: &mut KernelArgs<'a>) {
        let shared: &'a DeviceBuffer<T> = self;
        Pass::<'a, *mut T>::pass(shared, args);
    }
}

impl<'a, T: Element> Pass<'a, *const T> for Ptr<'a, T> {
    fn pass(self, args: &mut KernelArgs<'a>) {
        self.push(args, false);
    }
}

impl<'a, T: Element> Pass<'a, *mut T> for Ptr<'a, T> {
    fn pass(self, args: &mut KernelArgs<'a>) {
        self.push(args, true);
    }
}

/// A device pointer to `T` that is not a whole `DeviceBuffer<T>`: an offset into one, or a buffer
/// of another element type read as `T`s, or a null pointer.
#[derive(Clone, Copy)]
pub struct Ptr<'a, T> {
    ptr: CUdeviceptr,
    stream: Option<&'a Arc<CudaStream>>,
    _t: PhantomData<&'a T>,
}

impl<'a, T: Element> Ptr<'a, T> {
    /// `buffer`'s memory read as `T`s (the kernel's view of it: 4-byte words of any 4- or 8-byte
    /// element, say).
    pub fn cast<U>(buffer: &'a DeviceBuffer<U>) -> Self {
        Ptr {
            ptr: buffer.device_ptr(),
            stream: buffer.cuda_slice().map(|s| s.stream()),
            _t: PhantomData,
        }
    }

    /// The address of `buffer[first]` (`first` at most its length).
    pub fn at(buffer: &'a DeviceBuffer<T>, first: usize) -> Self {
        debug_assert!(first <= buffer.len());
        let base = buffer.device_ptr();
        Ptr {
            ptr: if base == 0 {
                0
            } else {
                base + (first * std::mem::size_of::<T>()) as u64
            },
            stream: buffer.cuda_slice().map(|s| s.stream()),
            _t: PhantomData,
        }
    }

    /// The device address `ptr`, whose allocation and writes the caller orders with the launch
    /// (no stream is joined for it).
    pub fn address(ptr: CUdeviceptr) -> Self {
        Ptr {
            ptr,
            stream: None,
            _t: PhantomData,
        }
    }

    /// A null pointer (a parameter the kernel does not read in this launch).
    pub fn null() -> Self {
        Ptr {
            ptr: 0,
            stream: None,
            _t: PhantomData,
        }
    }

    fn push(self, args: &mut KernelArgs<'a>, mutable: bool) {
        let what = Param::Ptr {
            ty: T::CUDA_NAME,
            mutable,
        };
        args.push_foreign_ptr(self.ptr, self.stream, what);
    }
}

/// Declares the hand-written entry points of one `.cuh` source: see the [module
/// documentation](crate::launch::entry). One block per Rust module (it adds a test module there).
macro_rules! entries {
    (
        source: $source:expr $(, after $prefix:expr)?;
        undeclared: [$($undeclared:literal),* $(,)?];
        $(
            $(#[$meta:meta])*
            $vis:vis fn $name:ident
                $(< $g:ident : $bound:path [$probe_a:ty, $probe_b:ty] >)?
                $(= $pattern:literal)?
                $([$policy:ident])?
                ( $($p:ident : $ty:ty),* $(,)? );
        )*
    ) => {
        $(
            $(#[$meta])*
            #[allow(non_snake_case, dead_code)]
            $vis mod $name {
                #[allow(unused_imports)]
                use super::*;
                #[allow(unused_imports)]
                use $crate::launch::entry::{Declared, Pass};

                /// The entry point's name; a family's, with `*` for what its instances add.
                pub(crate) const NAME: &str = $crate::launch::entry::entries!(@name $name $($pattern)?);

                /// The declared parameters: names and kinds.
                pub(crate) fn params $(<$g: $bound>)? () -> Vec<(&'static str, $crate::launch::entry::Kind)> {
                    vec![$((stringify!($p), <$ty as Declared>::KIND)),*]
                }

                /// Whether the entry point takes a policy's parameters first (`[policy]`).
                pub(crate) const AFTER_POLICY: bool = $crate::launch::entry::entries!(@flag $($policy)?);

                /// The arguments of one launch, in the declared order and types.
                #[allow(non_camel_case_types, clippy::too_many_arguments)]
                pub(crate) fn args<'a, $($g: $bound,)? $($p: Pass<'a, $ty>),*>(
                    $($p: $p),*
                ) -> $crate::launch::KernelArgs<'a> {
                    after($crate::launch::KernelArgs::new(), $($p),*)
                }

                /// The declared parameters pushed after `args` (for a `[policy]` entry point, the
                /// policy's).
                #[allow(non_camel_case_types, clippy::too_many_arguments)]
                pub(crate) fn after<'a, $($g: $bound,)? $($p: Pass<'a, $ty>),*>(
                    mut args: $crate::launch::KernelArgs<'a>,
                    $($p: $p),*
                ) -> $crate::launch::KernelArgs<'a> {
                    $(Pass::<'a, $ty>::pass($p, &mut args);)*
                    args
                }

                /// The declared parameters at the family's two probe types (the same list twice
                /// when it has no type parameter).
                #[cfg(test)]
                pub(crate) fn probed() -> $crate::launch::entry::Probed {
                    $crate::launch::entry::entries!(@probe $($g [$probe_a, $probe_b])?)
                }
            }
        )*

        #[cfg(test)]
        mod entry_declarations {
            #[allow(unused_imports)]
            use super::*;

            #[test]
            fn declarations_match_the_cuda_source() {
                $crate::launch::entry::check_source(
                    $crate::launch::entry::entries!(@prefix $($prefix)?),
                    $source,
                    &[$((super::$name::NAME, super::$name::probed(), super::$name::AFTER_POLICY)),*],
                    &[$($undeclared),*],
                );
            }
        }
    };
    (@flag) => { false };
    (@flag $policy:ident) => { true };
    (@prefix) => { "" };
    (@prefix $prefix:expr) => { $prefix };
    (@name $name:ident) => { stringify!($name) };
    (@name $name:ident $pattern:literal) => { $pattern };
    (@probe) => { (params(), params()) };
    (@probe $g:ident [$a:ty, $b:ty]) => { (params::<$a>(), params::<$b>()) };
}
pub(crate) use entries;

#[cfg(test)]
mod check;
#[cfg(test)]
pub(crate) use check::{check_source, Probed};

//! Element types a kernel can be instantiated with, and the values a kernel takes by value
//! ([`ScalarArg`]): the ground floor of the runtime, which imports none of its rooms.

use cudarc::driver::{DeviceRepr, ValidAsZeroBits};

/// A type that can live in a device buffer, be passed to a kernel by value, and be named in
/// generated CUDA.
pub trait Element:
    DeviceRepr + ValidAsZeroBits + ScalarArg + Copy + Default + Send + Sync + std::fmt::Debug + 'static
{
    /// The Rust spelling, which is also the suffix of a generic kernel's entry point (`spmv__f32`).
    const RUST_NAME: &'static str;
}

/// A floating-point element: the values of a sparse matrix.
pub trait Float:
    Element + PartialOrd + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self>
{
    /// The nearest value of this type to `v`.
    fn from_f64(v: f64) -> Self;
    /// The value as an f64 (exact for f32 and f64).
    fn to_f64(self) -> f64;
    /// Unit roundoff (half the machine epsilon), for error bounds against an f64 reference.
    const UNIT_ROUNDOFF: f64;
    /// A value no kernel computes by accident: outputs are filled with it before a run.
    const POISON: Self;
}

macro_rules! element {
    ($($t:ty),* $(,)?) => {$(
        impl Element for $t {
            const RUST_NAME: &'static str = stringify!($t);
        }
    )*};
}
// The CUDA spelling comes with `ScalarArg::CUDA_NAME`.
element!(f32, f64, i32, u32, i64, u64);

impl Float for f32 {
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    const UNIT_ROUNDOFF: f64 = f32::EPSILON as f64 / 2.0;
    const POISON: Self = f32::NAN;
}

impl Float for f64 {
    fn from_f64(v: f64) -> Self {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
    const UNIT_ROUNDOFF: f64 = f64::EPSILON / 2.0;
    const POISON: Self = f64::NAN;
}

/// A value a kernel takes by value. Implemented for the element types, `bool` (1 byte, C++ `bool`)
/// and `usize` (passed as `unsigned long long`).
pub trait ScalarArg: Copy + sealed::Sealed {
    /// The CUDA C++ spelling of the parameter's type.
    const CUDA_NAME: &'static str;
    /// Writes the value's bytes, as the kernel reads them, to the start of `slot`; returns how many.
    fn store(self, slot: &mut u64) -> usize;
}

mod sealed {
    pub trait Sealed {}
}

/// Writes `v` at the start of `slot` (as the kernel reads it: the driver copies `size_of::<T>()`
/// bytes from the slot's address).
fn store_raw<T: Copy>(v: T, slot: &mut u64) -> usize {
    const { assert!(std::mem::size_of::<T>() <= 8 && std::mem::align_of::<T>() <= 8) };
    // SAFETY: `T` fits in the slot and its alignment is at most the slot's (asserted above).
    unsafe { (slot as *mut u64).cast::<T>().write(v) };
    std::mem::size_of::<T>()
}

macro_rules! scalar_arg {
    ($($t:ty => $cuda:literal),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl ScalarArg for $t {
            const CUDA_NAME: &'static str = $cuda;
            fn store(self, slot: &mut u64) -> usize {
                store_raw(self, slot)
            }
        }
    )*};
}
scalar_arg!(f32 => "float", f64 => "double", i32 => "int", u32 => "unsigned int",
            i64 => "long long", u64 => "unsigned long long", bool => "bool");

impl sealed::Sealed for usize {}
impl ScalarArg for usize {
    const CUDA_NAME: &'static str = "unsigned long long";
    fn store(self, slot: &mut u64) -> usize {
        store_raw(self as u64, slot)
    }
}

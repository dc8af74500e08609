//! Element types a kernel can be instantiated with.

use cudarc::driver::{DeviceRepr, ValidAsZeroBits};

use crate::launch::ScalarArg;

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

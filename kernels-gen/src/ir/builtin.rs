//! The builtins of the kernel language, in two tables: the functions a body may call
//! ([`BUILTINS`]) and the constants it may name ([`CONSTANTS`]), each with its Rust name, the types
//! it takes, its result and its CUDA spelling. The front end types calls and writes its lists of
//! names from these tables, the emitter writes the CUDA spelling, and the prelude
//! (`emit/prelude.cuh`) defines what it names, one overload per type.

use super::Ty;

/// The types a builtin's first operand (the receiver of its method form) may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    Float,
    Integer,
    /// A float or a signed integer (`abs`, `signum`).
    Signed,
    /// Any number (not `bool`).
    Number,
}

impl Operand {
    pub fn accepts(self, ty: &Ty) -> bool {
        match self {
            Operand::Float => ty.is_float(),
            Operand::Integer => ty.is_integer(),
            Operand::Signed => ty.is_float() || ty.is_signed_integer(),
            Operand::Number => ty.is_float() || ty.is_integer(),
        }
    }

    /// "a float", for "`exp` needs a float, not `u32`".
    pub fn describe(self) -> &'static str {
        match self {
            Operand::Float => "a float",
            Operand::Integer => "an integer",
            Operand::Signed => "a float or a signed integer",
            Operand::Number => "a number",
        }
    }
}

/// An argument after the first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    /// Of the first operand's type.
    Same,
    /// Of a fixed type, whatever the first operand's: `powi`'s `i32` exponent. The second field
    /// names the argument in messages.
    Fixed(Ty, &'static str),
}

/// The type of a builtin's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returns {
    /// The first operand's type.
    Same,
    Bool,
    U32,
    /// A position (`push`'s).
    Usize,
}

/// How a builtin is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// As a free function (`exp(x)`, receiver first) or as a method (`x.exp()`), as Rust names it.
    Math,
    /// `atomic_add(&mut place, value)`: a free function whose first argument is a slice element to
    /// update; it returns the old value.
    Atomic,
    /// `push(&mut list, &mut count[i], value)`: appends `value` to the slice `list` at the position
    /// an atomic add of 1 to the counter claims, aggregated per warp (one atomic for all the lanes
    /// that push together); returns the position. A position past the list's end is claimed (the
    /// counter counts it) but not written.
    Push,
}

/// One row of [`BUILTINS`].
#[derive(Clone, Debug)]
pub struct BuiltinSpec {
    pub builtin: Builtin,
    /// The Rust name, as a function and as a method.
    pub name: &'static str,
    pub form: Form,
    pub operand: Operand,
    pub args: &'static [Arg],
    pub returns: Returns,
    /// The prelude function the emitter calls.
    pub cuda: &'static str,
}

impl BuiltinSpec {
    pub fn arity(&self) -> usize {
        1 + self.args.len()
    }
}

/// Defines [`Builtin`] and [`BUILTINS`] from one list, so a builtin is added in one place (and
/// its overloads in the prelude).
macro_rules! builtins {
    ($($variant:ident $name:literal $form:ident $operand:ident ($($arg:expr),*) -> $returns:ident;)*) => {
        /// The functions a kernel body may call: one per row of [`BUILTINS`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Builtin { $($variant),* }

        /// Every builtin, in the order of [`Builtin`]'s variants.
        pub const BUILTINS: &[BuiltinSpec] = &[$(BuiltinSpec {
            builtin: Builtin::$variant,
            name: $name,
            form: Form::$form,
            operand: Operand::$operand,
            args: &[$($arg),*],
            returns: Returns::$returns,
            cuda: concat!("loops_", $name),
        }),*];
    };
}

use Arg::{Fixed, Same};

builtins! {
    Min "min" Math Number(Same) -> Same;
    Max "max" Math Number(Same) -> Same;
    Abs "abs" Math Signed() -> Same;
    Signum "signum" Math Signed() -> Same;
    Clamp "clamp" Math Number(Same, Same) -> Same;
    Sqrt "sqrt" Math Float() -> Same;
    Cbrt "cbrt" Math Float() -> Same;
    Recip "recip" Math Float() -> Same;
    Exp "exp" Math Float() -> Same;
    Exp2 "exp2" Math Float() -> Same;
    ExpM1 "exp_m1" Math Float() -> Same;
    Ln "ln" Math Float() -> Same;
    Log2 "log2" Math Float() -> Same;
    Log10 "log10" Math Float() -> Same;
    Ln1p "ln_1p" Math Float() -> Same;
    Powf "powf" Math Float(Same) -> Same;
    Powi "powi" Math Float(Fixed(Ty::I32, "exponent")) -> Same;
    MulAdd "mul_add" Math Float(Same, Same) -> Same;
    Floor "floor" Math Float() -> Same;
    Ceil "ceil" Math Float() -> Same;
    Round "round" Math Float() -> Same;
    Trunc "trunc" Math Float() -> Same;
    Sin "sin" Math Float() -> Same;
    Cos "cos" Math Float() -> Same;
    Tan "tan" Math Float() -> Same;
    Sinh "sinh" Math Float() -> Same;
    Cosh "cosh" Math Float() -> Same;
    Tanh "tanh" Math Float() -> Same;
    Atan2 "atan2" Math Float(Same) -> Same;
    Hypot "hypot" Math Float(Same) -> Same;
    Copysign "copysign" Math Float(Same) -> Same;
    IsNan "is_nan" Math Float() -> Bool;
    IsFinite "is_finite" Math Float() -> Bool;
    Pow "pow" Math Integer(Fixed(Ty::U32, "exponent")) -> Same;
    CountOnes "count_ones" Math Integer() -> U32;
    LeadingZeros "leading_zeros" Math Integer() -> U32;
    WrappingAdd "wrapping_add" Math Integer(Same) -> Same;
    WrappingSub "wrapping_sub" Math Integer(Same) -> Same;
    WrappingMul "wrapping_mul" Math Integer(Same) -> Same;
    WrappingNeg "wrapping_neg" Math Integer() -> Same;
    AtomicAdd "atomic_add" Atomic Number(Same) -> Same;
    AtomicMin "atomic_min" Atomic Number(Same) -> Same;
    AtomicMax "atomic_max" Atomic Number(Same) -> Same;
    Push "push" Push Number(Same, Same) -> Usize;
}

impl Builtin {
    pub fn from_name(name: &str) -> Option<Builtin> {
        BUILTINS.iter().find(|s| s.name == name).map(|s| s.builtin)
    }

    pub fn spec(self) -> &'static BuiltinSpec {
        &BUILTINS[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.spec().name
    }

    pub fn arity(self) -> usize {
        self.spec().arity()
    }

    /// An atomic update (`atomic_add`) or an append (`push`): a call with an effect, which the
    /// schedules run once per atom or tile as they run atomics.
    pub fn is_atomic(self) -> bool {
        matches!(self.spec().form, Form::Atomic | Form::Push)
    }

    /// The prelude function the emitter calls for it.
    pub fn cuda(self) -> &'static str {
        self.spec().cuda
    }
}

/// The builtins of a form, comma-separated, for messages: `min, max, abs, ...`.
pub fn builtin_names(form: Form) -> String {
    let names: Vec<&str> = BUILTINS
        .iter()
        .filter(|s| s.form == form)
        .map(|s| s.name)
        .collect();
    names.join(", ")
}

/// The numeric constants a body may name on a number type: `T::INFINITY`, `u32::MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Constant {
    Max,
    Min,
    Infinity,
    NegInfinity,
    Nan,
    Epsilon,
    MinPositive,
}

/// One row of [`CONSTANTS`].
#[derive(Clone, Debug)]
pub struct ConstantSpec {
    pub constant: Constant,
    /// The Rust name (`NEG_INFINITY`).
    pub name: &'static str,
    /// Whether integer types have it too (every constant is a float type's).
    pub on_integers: bool,
    /// The prelude function template the emitter calls, `loops_const_max<T>()`.
    pub cuda: &'static str,
}

/// Every constant, in the order of [`Constant`]'s variants. Each has Rust's value for its type:
/// `f32::MAX` the largest finite f32, `f32::MIN` its negation, `EPSILON` the distance from 1.0 to
/// the next value, `MIN_POSITIVE` the smallest normal value.
pub const CONSTANTS: &[ConstantSpec] = &[
    constant(Constant::Max, "MAX", true, "loops_const_max"),
    constant(Constant::Min, "MIN", true, "loops_const_min"),
    constant(
        Constant::Infinity,
        "INFINITY",
        false,
        "loops_const_infinity",
    ),
    constant(
        Constant::NegInfinity,
        "NEG_INFINITY",
        false,
        "loops_const_neg_infinity",
    ),
    constant(Constant::Nan, "NAN", false, "loops_const_nan"),
    constant(Constant::Epsilon, "EPSILON", false, "loops_const_epsilon"),
    constant(
        Constant::MinPositive,
        "MIN_POSITIVE",
        false,
        "loops_const_min_positive",
    ),
];

const fn constant(
    constant: Constant,
    name: &'static str,
    on_integers: bool,
    cuda: &'static str,
) -> ConstantSpec {
    ConstantSpec {
        constant,
        name,
        on_integers,
        cuda,
    }
}

impl Constant {
    pub fn from_name(name: &str) -> Option<Constant> {
        CONSTANTS
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.constant)
    }

    pub fn spec(self) -> &'static ConstantSpec {
        &CONSTANTS[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// Whether a type has this constant: every float type has all, an integer type `MAX` and `MIN`.
    pub fn applies_to(self, ty: &Ty) -> bool {
        ty.is_float() || (ty.is_integer() && self.spec().on_integers)
    }

    /// Its CUDA spelling for `ty`: `loops_const_max<T>()`.
    pub fn cuda(self, ty: &Ty) -> String {
        format!("{}<{}>()", self.spec().cuda, ty.cuda_name())
    }
}

/// The constants of floats or of integers, for messages: `` `MAX`, `MIN`, `INFINITY`, ... ``.
pub fn constant_names(integers: bool) -> String {
    let names: Vec<String> = CONSTANTS
        .iter()
        .filter(|c| !integers || c.on_integers)
        .map(|c| format!("`{}`", c.name))
        .collect();
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_table_row_sits_at_its_variants_index() {
        for (i, spec) in BUILTINS.iter().enumerate() {
            assert_eq!(spec.builtin as usize, i, "{}", spec.name);
            assert_eq!(Builtin::from_name(spec.name), Some(spec.builtin));
        }
        for (i, spec) in CONSTANTS.iter().enumerate() {
            assert_eq!(spec.constant as usize, i, "{}", spec.name);
            assert_eq!(Constant::from_name(spec.name), Some(spec.constant));
            assert_eq!(
                spec.cuda,
                format!("loops_const_{}", spec.name.to_lowercase())
            );
        }
    }

    /// Every builtin and constant the tables name is defined in the prelude.
    #[test]
    fn the_prelude_defines_every_builtin_and_constant() {
        let prelude = include_str!("../emit/prelude.cuh");
        for spec in BUILTINS {
            let defined = prelude.contains(&format!("{}(", spec.cuda))
                || prelude.contains(&format!("LOOPS_FLOAT_MATH{}({},", spec.arity(), spec.name));
            assert!(defined, "the prelude lacks `{}`", spec.cuda);
        }
        for spec in CONSTANTS {
            assert!(
                prelude.contains(&format!("LOOPS_CONST(float, {},", spec.name.to_lowercase())),
                "the prelude lacks `{}`",
                spec.cuda
            );
        }
    }
}

//! The builtins of the kernel language: the functions a body may call, their arity and their
//! CUDA spelling.

/// The functions a kernel body may call, as free functions or (where Rust has them) as methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    Min,
    Max,
    Abs,
    Sqrt,
    /// `atomic_add(&mut place, value)`: returns the old value.
    AtomicAdd,
    AtomicMin,
    AtomicMax,
}

impl Builtin {
    pub fn from_name(name: &str) -> Option<Builtin> {
        Some(match name {
            "min" => Builtin::Min,
            "max" => Builtin::Max,
            "abs" => Builtin::Abs,
            "sqrt" => Builtin::Sqrt,
            "atomic_add" => Builtin::AtomicAdd,
            "atomic_min" => Builtin::AtomicMin,
            "atomic_max" => Builtin::AtomicMax,
            _ => return None,
        })
    }

    pub fn arity(self) -> usize {
        match self {
            Builtin::Abs | Builtin::Sqrt => 1,
            _ => 2,
        }
    }

    pub fn is_atomic(self) -> bool {
        matches!(
            self,
            Builtin::AtomicAdd | Builtin::AtomicMin | Builtin::AtomicMax
        )
    }

    /// The prelude function the emitter calls for it.
    pub fn cuda(self) -> &'static str {
        match self {
            Builtin::Min => "loops_min",
            Builtin::Max => "loops_max",
            Builtin::Abs => "loops_abs",
            Builtin::Sqrt => "loops_sqrt",
            Builtin::AtomicAdd => "loops_atomic_add",
            Builtin::AtomicMin => "loops_atomic_min",
            Builtin::AtomicMax => "loops_atomic_max",
        }
    }
}

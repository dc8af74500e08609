//! The kernel IR: what the front end makes of a `#[load_balanced]` function and what the emitter and
//! the schedules read. It holds no syntax, only meaning; spans are kept so that a schedule that
//! cannot lower a construct can point at it.

use proc_macro2::Span;

use crate::schedule::ScheduleConfig;

/// A whole kernel: its parameters, its tile loop, and the schedule it is lowered with.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub name: String,
    /// Generic element types (`T` in `fn spmv<T: Float>`). A generic kernel is emitted once as a
    /// template and instantiated for f32 and f64.
    pub type_params: Vec<String>,
    pub params: Vec<Param>,
    pub body: TileLoop,
    pub config: ScheduleConfig,
    /// The Rust source file, named in `#line` directives.
    pub file: String,
}

impl Kernel {
    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }

    /// The entry points to emit: one per instantiation of the generic element types.
    pub fn instantiations(&self) -> Vec<Instantiation> {
        if self.type_params.is_empty() {
            return vec![Instantiation {
                entry: self.name.clone(),
                types: vec![],
            }];
        }
        // Every type parameter is an element type; all are instantiated together with the same float
        // type, which is what a kernel over one matrix needs.
        [Ty::F32, Ty::F64]
            .into_iter()
            .map(|ty| Instantiation {
                entry: entry_name(&self.name, &[ty.rust_name()]),
                types: vec![ty; self.type_params.len()],
            })
            .collect()
    }
}

/// The name of a generic kernel's entry point for the given element type names (`spmv__f32`).
pub fn entry_name(kernel: &str, types: &[&str]) -> String {
    if types.is_empty() {
        kernel.to_string()
    } else {
        format!("{kernel}__{}", types.join("_"))
    }
}

/// One entry point of a kernel.
#[derive(Clone, Debug)]
pub struct Instantiation {
    pub entry: String,
    pub types: Vec<Ty>,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ParamKind {
    /// A sparse matrix in CSR: tiles are rows, atoms are nonzeros.
    Csr { elem: Ty },
    /// A device buffer, read-only or written.
    Slice { elem: Ty, mutable: bool },
    /// A value passed by copy.
    Scalar(Ty),
}

/// Scalar types of the kernel-body language.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    F32,
    F64,
    I32,
    U32,
    I64,
    U64,
    Usize,
    Bool,
    /// A generic element type parameter (`T`).
    Param(String),
}

impl Ty {
    pub fn from_rust(name: &str) -> Option<Ty> {
        Some(match name {
            "f32" => Ty::F32,
            "f64" => Ty::F64,
            "i32" => Ty::I32,
            "u32" => Ty::U32,
            "i64" => Ty::I64,
            "u64" => Ty::U64,
            "usize" => Ty::Usize,
            "bool" => Ty::Bool,
            _ => return None,
        })
    }

    pub fn rust_name(&self) -> &str {
        match self {
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::I32 => "i32",
            Ty::U32 => "u32",
            Ty::I64 => "i64",
            Ty::U64 => "u64",
            Ty::Usize => "usize",
            Ty::Bool => "bool",
            Ty::Param(p) => p,
        }
    }

    /// The CUDA C++ spelling; a type parameter stays a template parameter.
    pub fn cuda_name(&self) -> &str {
        match self {
            Ty::F32 => "float",
            Ty::F64 => "double",
            Ty::I32 => "int",
            Ty::U32 => "unsigned int",
            Ty::I64 => "long long",
            Ty::U64 | Ty::Usize => "unsigned long long",
            Ty::Bool => "bool",
            Ty::Param(p) => p,
        }
    }

    /// Element type parameters are floats: `Csr<T>` values are f32 or f64.
    pub fn is_float(&self) -> bool {
        matches!(self, Ty::F32 | Ty::F64 | Ty::Param(_))
    }

    pub fn is_integer(&self) -> bool {
        matches!(self, Ty::I32 | Ty::U32 | Ty::I64 | Ty::U64 | Ty::Usize)
    }

    pub fn is_signed_integer(&self) -> bool {
        matches!(self, Ty::I32 | Ty::I64)
    }
}

/// `for tile in set.tiles() { body }`: the outermost loop of every kernel. An atom-major kernel
/// (`for atom in set.all_atoms()`) is made into one of these by the front end.
#[derive(Clone, Debug)]
pub struct TileLoop {
    /// The tile-set parameter (`a`).
    pub set: String,
    /// The tile variable (`row`).
    pub tile: String,
    pub body: Block,
    pub span: Span,
    pub line: usize,
}

pub type Block = Vec<Stmt>;

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
    /// 1-based line in the Rust source, for `#line`.
    pub line: usize,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    Let {
        name: String,
        mutable: bool,
        ty: Ty,
        init: Expr,
    },
    /// `place = value` or `place op= value`.
    Assign {
        place: Expr,
        op: Option<BinOp>,
        value: Expr,
    },
    /// An expression evaluated for its effect (an atomic).
    Expr(Expr),
    If {
        cond: Expr,
        then: Block,
        otherwise: Block,
    },
    /// `for var in start..end` (or `..=`).
    ForRange {
        var: String,
        ty: Ty,
        start: Expr,
        end: Expr,
        inclusive: bool,
        body: Block,
    },
    /// `for var in set.atoms(tile)`: the loop the schedules split.
    ForAtoms {
        var: String,
        set: String,
        tile: Expr,
        body: Block,
    },
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Ty,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A literal, already in CUDA spelling for its type (`1.5f`, `2ull`, `true`).
    Lit(String),
    Var(String),
    /// `base[index]`.
    Index {
        base: Indexed,
        index: Box<Expr>,
    },
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Unary {
        op: UnOp,
        expr: Box<Expr>,
    },
    Cast {
        expr: Box<Expr>,
        to: Ty,
    },
    Call {
        builtin: Builtin,
        args: Vec<Expr>,
    },
    /// A property of a tile set: `a.rows()`, `a.cols()`, `a.nnz()`.
    SetProperty {
        set: String,
        property: SetProperty,
    },
    /// `x.len()` of a slice parameter.
    SliceLen(String),
}

/// What an index expression indexes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Indexed {
    Slice(String),
    /// One of a tile set's own arrays: `a.values`, `a.col_indices`, `a.row_offsets`.
    SetArray {
        set: String,
        array: SetArray,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetArray {
    Values,
    ColIndices,
    RowOffsets,
}

impl SetArray {
    pub fn rust_name(self) -> &'static str {
        match self {
            SetArray::Values => "values",
            SetArray::ColIndices => "col_indices",
            SetArray::RowOffsets => "row_offsets",
        }
    }

    /// The suffix of the kernel parameter that carries the array (`a_offsets`).
    pub fn param_suffix(self) -> &'static str {
        match self {
            SetArray::Values => "values",
            SetArray::ColIndices => "indices",
            SetArray::RowOffsets => "offsets",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetProperty {
    Rows,
    Cols,
    Nnz,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinOp {
    pub fn cuda(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::And => "&&",
            BinOp::Or => "||",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
        }
    }

    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }

    pub fn is_logical(self) -> bool {
        matches!(self, BinOp::And | BinOp::Or)
    }

    pub fn is_shift(self) -> bool {
        matches!(self, BinOp::Shl | BinOp::Shr)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
}

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

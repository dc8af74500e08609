//! The kernel IR: what the front end makes of a `#[load_balanced]` function and what the emitter and
//! the schedules read. It holds no syntax, only meaning; spans are kept so that a schedule that
//! cannot lower a construct can point at it.

use proc_macro2::Span;

mod builtin;
pub use builtin::{
    builtin_names, constant_names, Arg, Builtin, BuiltinSpec, Constant, Form, Operand, Returns,
    BUILTINS, CONSTANTS,
};
mod helper;
pub use helper::{helper_cuda_name, Helper};

/// A whole kernel: its parameters, its tile loop, and the schedule it is lowered with. The IR holds
/// the attribute's configuration (`C`) without knowing what one is: the schedule module names
/// `Kernel<ScheduleConfig>` its `Kernel`, and what a schedule makes of a kernel (its hidden
/// parameters, its passes, its wide variant) is said there.
#[derive(Clone, Debug)]
pub struct Kernel<C> {
    pub name: String,
    /// Generic element types (`T` in `fn spmv<T: Float>`). A generic kernel is emitted once as a
    /// template and instantiated for f32 and f64.
    pub type_params: Vec<String>,
    pub params: Vec<Param>,
    pub body: TileLoop,
    pub config: C,
    /// The Rust source file, named in `#line` directives.
    pub file: String,
    /// The `#[loops::device]` helpers the body calls, directly or through each other, callees
    /// before their callers: emitted once per source, before the body.
    pub helpers: Vec<Helper>,
}

impl<C> Kernel<C> {
    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }

    /// The tile-set parameter the tile loop runs over (for a subset, the set it is a subset of).
    pub fn loop_set(&self) -> &str {
        match &self.body.subset {
            Some(sub) => &sub.set,
            None => &self.body.set,
        }
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

/// The entry point of the 64-bit-offsets instantiation of `entry` (`spmv__f32__wide`).
pub fn wide_entry_name(entry: &str) -> String {
    format!("{entry}__wide")
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
    /// `#[block_shared] hist: &mut [u32; N]`: the length `N` of an integer array whose atomics
    /// go to a copy in each block's shared memory, flushed into the slice once per block
    /// ([`crate::schedule::block_shared`]); `None` for every other parameter.
    pub block_shared: Option<u32>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ParamKind {
    /// A tile set: a sparse matrix (`Csr<T>`, `Csc<T>`, `Coo<T>`) or a plain `Offsets` layout. Every
    /// format has the same core the schedules read (tile count, atom count, tile offsets) and its own
    /// named arrays; `elem` is the value type (`None` for `Offsets`, which has no values).
    TileSet { format: Format, elem: Option<Ty> },
    /// A device buffer, read-only or written.
    Slice { elem: Ty, mutable: bool },
    /// A value passed by copy.
    Scalar(Ty),
}

/// The layout of a tile set parameter. In the generated CUDA every tile set `a` has the same core,
/// which is all a schedule reads: `a_rows` (the number of **tiles**), `a_nnz` (the number of
/// **atoms**) and `a_offsets` (`a_rows + 1` tile offsets); then the format's own arrays. So every
/// schedule lowers every format unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Compressed sparse rows: tiles are rows, atoms are nonzeros.
    Csr,
    /// Compressed sparse columns: tiles are columns, atoms are nonzeros. The core's `a_rows` is the
    /// number of columns (tiles) and `a_cols` the number of rows: a CSC matrix is the CSR of its
    /// transpose.
    Csc,
    /// Coordinates: atoms are entries, tiles are rows (entries sorted by row on upload, which builds
    /// the row offsets).
    Coo,
    /// Tiles given by an offsets array alone: atoms are the indices `offsets[t]..offsets[t + 1]`,
    /// for user-defined work on user arrays.
    Offsets,
}

impl Format {
    pub fn from_rust(name: &str) -> Option<Format> {
        Some(match name {
            "Csr" => Format::Csr,
            "Csc" => Format::Csc,
            "Coo" => Format::Coo,
            "Offsets" => Format::Offsets,
            _ => return None,
        })
    }

    pub fn rust_name(self) -> &'static str {
        match self {
            Format::Csr => "Csr",
            Format::Csc => "Csc",
            Format::Coo => "Coo",
            Format::Offsets => "Offsets",
        }
    }

    /// What the tiles and atoms of this format are, for error messages.
    pub fn describe(self) -> &'static str {
        match self {
            Format::Csr => "tiles are rows, atoms are nonzeros",
            Format::Csc => "tiles are columns, atoms are nonzeros",
            Format::Coo => "tiles are rows, atoms are entries",
            Format::Offsets => "tiles are given by an offsets array, atoms are indices",
        }
    }

    /// Whether the format holds values (a matrix) and so takes a value type: `Csr<T>`.
    pub fn has_values(self) -> bool {
        !matches!(self, Format::Offsets)
    }

    /// A matrix has `rows()`, `cols()` and `nnz()`; every tile set has `num_tiles()`, `num_atoms()`.
    pub fn is_matrix(self) -> bool {
        self.has_values()
    }

    /// The arrays a kernel body may index, in bounds-check site order.
    pub fn arrays(self) -> &'static [SetArray] {
        match self {
            Format::Csr => &[SetArray::Values, SetArray::ColIndices, SetArray::RowOffsets],
            Format::Csc => &[SetArray::Values, SetArray::RowIndices, SetArray::ColOffsets],
            Format::Coo => &[SetArray::Values, SetArray::RowIndices, SetArray::ColIndices],
            Format::Offsets => &[SetArray::Offsets],
        }
    }

    /// The suffixes of the generated CUDA parameters, in kernel-argument order: the core first
    /// (`rows`, `cols` for matrices, `nnz`, `offsets`), then the format's arrays.
    pub fn cuda_parts(self) -> &'static [&'static str] {
        match self {
            Format::Csr | Format::Csc => &["rows", "cols", "nnz", "offsets", "indices", "values"],
            Format::Coo => &[
                "rows",
                "cols",
                "nnz",
                "offsets",
                "row_indices",
                "col_indices",
                "values",
            ],
            Format::Offsets => &["rows", "nnz", "offsets"],
        }
    }

    /// The suffix of the CUDA parameter that carries `array` (`a_offsets`, `a_indices`).
    pub fn cuda_suffix(self, array: SetArray) -> &'static str {
        match (self, array) {
            (_, SetArray::Values) => "values",
            (_, SetArray::RowOffsets | SetArray::ColOffsets | SetArray::Offsets) => "offsets",
            (Format::Coo, SetArray::RowIndices) => "row_indices",
            (Format::Coo, SetArray::ColIndices) => "col_indices",
            (_, SetArray::RowIndices | SetArray::ColIndices) => "indices",
        }
    }

    /// The CUDA spelling of a property of a tile set of this format named `set`.
    pub fn cuda_property(self, set: &str, property: SetProperty) -> String {
        let field = match (self, property) {
            (_, SetProperty::Tiles) => "rows",
            (_, SetProperty::Atoms | SetProperty::Nnz) => "nnz",
            // The core's `rows` counts tiles: a CSC matrix's columns.
            (Format::Csc, SetProperty::Rows) => "cols",
            (Format::Csc, SetProperty::Cols) => "rows",
            (_, SetProperty::Rows) => "rows",
            (_, SetProperty::Cols) => "cols",
        };
        format!("((unsigned long long){set}_{field})")
    }
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
    /// `for v in a.tiles_in(list)`: the loop runs over the tile ids in a slice parameter. Then `set`
    /// is [`SUBSET_SET`] (its `_rows` is the list's length), `tile` the position in the list, and the
    /// body starts with `let v = list[tile] as usize; if v < a.num_tiles() { .. }`.
    pub subset: Option<Subset>,
    /// An atom-major loop (`for atom in set.all_atoms()`) whose body never asks its atom's tile
    /// (no `set.tile_of(atom)`, no `break` out of the atoms, no `return`): every atom once, in any
    /// order, on any thread. Every schedule lowers it as one flat grid-stride loop over the atoms,
    /// one atom per thread at a time (`kernels_gen::schedule::tile_only`); the body is one
    /// [`StmtKind::ForAtoms`] over the tile variable.
    pub flat: bool,
}

/// The name the generated CUDA gives a tile subset: the schedules loop over its `_rows` positions.
pub const SUBSET_SET: &str = "loops_subset";

/// The position in a tile subset's list: the tile variable of the loop the schedules lower.
pub const LIST_POSITION: &str = "loops_pos";

/// The `u32` list parameter of tile ids each `lrb` bin is launched on.
pub const BIN_LIST: &str = "loops_bin";

impl TileLoop {
    /// The user's tile body. For a subset that is the body inside the front end's
    /// `let v = list[pos] as usize; if v < a.num_tiles() { .. }`, returned as the `let`, the
    /// condition and the body.
    pub fn subset_guard(&self) -> Option<(&Stmt, &Expr, &[Stmt])> {
        self.subset.as_ref()?;
        match &self.body[..] {
            [id @ Stmt {
                kind: StmtKind::Let { .. },
                ..
            }, Stmt {
                kind:
                    StmtKind::If {
                        cond,
                        then,
                        otherwise,
                    },
                ..
            }] if otherwise.is_empty() => Some((id, cond, then)),
            _ => unreachable!("the front end builds a subset's body as `let` + `if`"),
        }
    }

    /// The loop `for tile in set.tiles_in(list)` lowers to: the position [`LIST_POSITION`] runs
    /// over `list` (of `elem` ids), and `body` runs inside `let tile = list[pos] as usize; if tile
    /// < set.num_tiles() { body }`, so ids outside the set are skipped. `span` marks the guard,
    /// `loop_span` the loop.
    #[allow(clippy::too_many_arguments)]
    pub fn over_list(
        set: &str,
        tile: &str,
        list: &str,
        elem: Ty,
        body: Block,
        span: Span,
        loop_span: Span,
        line: usize,
    ) -> TileLoop {
        let mk = |kind, ty| Expr { kind, ty, span };
        let id = mk(
            ExprKind::Cast {
                expr: Box::new(mk(
                    ExprKind::Index {
                        base: Indexed::Slice(list.to_string()),
                        index: Box::new(mk(ExprKind::Var(LIST_POSITION.to_string()), Ty::Usize)),
                    },
                    elem,
                )),
                to: Ty::Usize,
            },
            Ty::Usize,
        );
        let in_set = mk(
            ExprKind::Binary {
                op: BinOp::Lt,
                lhs: Box::new(mk(ExprKind::Var(tile.to_string()), Ty::Usize)),
                rhs: Box::new(mk(
                    ExprKind::SetProperty {
                        set: set.to_string(),
                        property: SetProperty::Tiles,
                    },
                    Ty::Usize,
                )),
            },
            Ty::Bool,
        );
        let stmt = |kind| Stmt { kind, span, line };
        TileLoop {
            set: SUBSET_SET.to_string(),
            tile: LIST_POSITION.to_string(),
            body: vec![
                stmt(StmtKind::Let {
                    name: tile.to_string(),
                    mutable: false,
                    ty: Ty::Usize,
                    init: id,
                }),
                stmt(StmtKind::If {
                    cond: in_set,
                    then: body,
                    otherwise: vec![],
                }),
            ],
            span: loop_span,
            line,
            flat: false,
            subset: Some(Subset {
                set: set.to_string(),
                list: list.to_string(),
                tile: tile.to_string(),
                span,
            }),
        }
    }

    /// This loop run over the tiles whose ids the `u32` slice parameter `list` holds, as
    /// `tiles_in(list)` runs ([`TileLoop::over_list`]). A subset's own list is replaced (`list`
    /// then holds ids taken from it). `lrb` launches each bin so, on the ids of its tiles.
    pub fn over_id_list(&self, list: &str) -> TileLoop {
        let (set, tile) = match &self.subset {
            Some(sub) => (&sub.set, &sub.tile),
            None => (&self.set, &self.tile),
        };
        TileLoop::over_list(
            set,
            tile,
            list,
            Ty::U32,
            self.user_body().to_vec(),
            self.span,
            self.span,
            self.line,
        )
    }

    /// The user's tile body: inside the subset guard for a subset, else the whole body.
    pub fn user_body(&self) -> &[Stmt] {
        match self.subset_guard() {
            Some((_, _, body)) => body,
            None => &self.body,
        }
    }
}

/// A tile loop over a subset of a tile set's tiles.
#[derive(Clone, Debug)]
pub struct Subset {
    /// The tile set (`a`).
    pub set: String,
    /// The slice parameter holding the tile ids (`frontier`).
    pub list: String,
    /// The user's tile variable (`v`).
    pub tile: String,
    pub span: Span,
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
    /// `for var in start..end` (or `..=`); `for var in lanes(start..end)` with `lanes` set.
    ForRange {
        var: String,
        ty: Ty,
        start: Expr,
        end: Expr,
        inclusive: bool,
        body: Block,
        /// `lanes(start..end)`: the iterations are independent, and a schedule that maps a tile
        /// to a group of lanes may spread them over its lanes ([`crate::schedule::Lowering::lanes_loop`]);
        /// every other schedule runs the loop as written.
        lanes: bool,
    },
    /// `for var in set.atoms(tile)`: the loop the schedules split.
    ForAtoms {
        var: String,
        set: String,
        tile: Expr,
        body: Block,
    },
    /// `break` out of the innermost atom or range loop. Where a schedule splits a tile's atoms
    /// across threads, each thread's share stops on its own.
    Break,
    /// `continue` with the next atom or value of the innermost loop.
    Continue,
    /// `return value;` (and a helper's final expression): only in a [`Helper`]'s body.
    Return(Expr),
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
    /// A call of a `#[loops::device]` helper (one of [`Kernel::helpers`]): a pure function of its
    /// scalar arguments. `type_args` binds the helper's type parameters, in order.
    HelperCall {
        name: String,
        type_args: Vec<Ty>,
        args: Vec<Expr>,
    },
    /// A property of a tile set: `a.rows()`, `a.cols()`, `a.nnz()`, `a.num_tiles()`, `a.num_atoms()`.
    SetProperty {
        set: String,
        property: SetProperty,
    },
    /// `x.len()` of a slice parameter.
    SliceLen(String),
    /// A number type's constant (`T::MAX`, `f32::INFINITY`), of the expression's type.
    Const(Constant),
    /// `if cond { then } else { otherwise }` as a value: one of the two is evaluated.
    Select {
        cond: Box<Expr>,
        then: Box<Expr>,
        otherwise: Box<Expr>,
    },
}

/// What an index expression indexes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Indexed {
    Slice(String),
    /// One of a tile set's own arrays: `a.values`, `a.col_indices`, `a.row_offsets`, ... (see
    /// [`Format::arrays`]).
    SetArray {
        set: String,
        format: Format,
        array: SetArray,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetArray {
    Values,
    ColIndices,
    RowIndices,
    RowOffsets,
    ColOffsets,
    /// The tile offsets of an `Offsets` layout.
    Offsets,
}

impl SetArray {
    pub fn rust_name(self) -> &'static str {
        match self {
            SetArray::Values => "values",
            SetArray::ColIndices => "col_indices",
            SetArray::RowIndices => "row_indices",
            SetArray::RowOffsets => "row_offsets",
            SetArray::ColOffsets => "col_offsets",
            SetArray::Offsets => "offsets",
        }
    }

    pub fn from_rust(name: &str) -> Option<SetArray> {
        Some(match name {
            "values" => SetArray::Values,
            "col_indices" => SetArray::ColIndices,
            "row_indices" => SetArray::RowIndices,
            "row_offsets" => SetArray::RowOffsets,
            "col_offsets" => SetArray::ColOffsets,
            "offsets" => SetArray::Offsets,
            _ => return None,
        })
    }

    /// The tile offsets (one more than the tiles) rather than one element per atom.
    pub fn is_offsets(self) -> bool {
        matches!(
            self,
            SetArray::RowOffsets | SetArray::ColOffsets | SetArray::Offsets
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetProperty {
    /// A matrix's rows, columns and stored entries.
    Rows,
    Cols,
    Nnz,
    /// Any tile set's tiles and atoms.
    Tiles,
    Atoms,
}

impl SetProperty {
    pub fn from_rust(name: &str) -> Option<SetProperty> {
        Some(match name {
            "rows" => SetProperty::Rows,
            "cols" => SetProperty::Cols,
            "nnz" => SetProperty::Nnz,
            "num_tiles" => SetProperty::Tiles,
            "num_atoms" => SetProperty::Atoms,
            _ => return None,
        })
    }

    pub fn rust_name(self) -> &'static str {
        match self {
            SetProperty::Rows => "rows",
            SetProperty::Cols => "cols",
            SetProperty::Nnz => "nnz",
            SetProperty::Tiles => "num_tiles",
            SetProperty::Atoms => "num_atoms",
        }
    }
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

//! [`Cx`], the emission state the emitter and the schedules' lowerings write through (lines,
//! indentation, shared memory, the names of the current loops), and the loop descriptions it
//! hands to them ([`AtomLoop`], [`RangeLoop`], [`LanesSplit`]).

use super::*;
use crate::diag::DResult;
use crate::schedule::Kernel;
use crate::schedule::{Lowering, RangeEntry};

/// Emission state, handed to the schedule's lowering for the parts it writes.
pub struct Cx<'a> {
    pub(super) out: String,
    pub(super) indent: usize,
    pub kernel: &'a Kernel,
    pub(super) lowering: &'a dyn Lowering,
    pub(super) fresh: usize,
    /// When set, stores and atomics are emitted under `if (guard)`: a schedule that runs tile-scope
    /// code on several lanes lets only one of them write.
    pub guard: Option<String>,
    /// Set by a schedule that keeps carries in global scratch.
    pub scratch_slots_per_block: u32,
    /// Set by a schedule that keeps per-tile state across the passes of a call
    /// ([`crate::abi::Hidden::TileState`]).
    pub state_slots_per_tile: u32,
    /// Set by a schedule whose rare paths (a later pass's branch) must not cost its common one
    /// occupancy: the entry asks for a full SM's worth of blocks (`__launch_bounds__`), so that
    /// ptxas holds every branch to the registers that allows.
    pub full_sm: bool,
    /// The shared memory declared so far ([`Cx::shared`]).
    pub(super) shared: SharedMemory,
    /// Emitting the bounds-checked variant.
    pub(super) checked: bool,
    /// Emitting the 64-bit-offsets instantiation ([`Emitted::wide`]).
    pub(super) wide: bool,
    /// The Rust line of the statement being emitted, for the checked variant's fault records.
    pub(super) line: usize,
    /// Where the compiler believes the next line written comes from (after the `#line`
    /// directives so far).
    pub(super) presumed: Presumed,
    /// The Rust line of the user statement whose own text is being written; `None` while writing
    /// generated code (a schedule's, or the atom loop's lowering inside a user's statement).
    pub(super) statement: Option<usize>,
    /// The Rust line the next line written comes from, once ([`Cx::line_directive`]).
    pub(super) next_line_from: Option<usize>,
    /// The Rust line of the atom loop being lowered: its loop head (the next block opened) comes
    /// from it.
    pub(super) loop_head_from: Option<usize>,
    /// The next line from Rust gets its directive even where the presumed line is already right:
    /// each user statement shows its line.
    pub(super) force_rust_directive: bool,
    /// While set, loads of a tile set's arrays at exactly this atom are emitted evict-first
    /// (`__ldcs`): the staged operands of a launch whose stream would push out what it gathers
    /// (see [`crate::schedule::streams_past_l2`]).
    pub streamed_atom: Option<String>,
    /// Inside a `lanes` loop spread over a group's lanes: how the lanes are split.
    pub lanes: Option<LanesSplit>,
    /// The atomic statements accumulated in registers by a tile-only body's lowering
    /// ([`crate::schedule::tile_only::aggregated_atomics`]): each call's address, the
    /// accumulator's name and its operation. Empty elsewhere.
    pub aggregated: Vec<(usize, String, crate::ir::Builtin)>,
    /// The `push` statements a tile-only body's lowering stages per block
    /// ([`crate::schedule::tile_only::staged_pushes`]): each call's address. Empty elsewhere.
    pub staged: Vec<usize>,
}

/// The shared memory of the kernel being emitted: declared as `__shared__` variables, or (past
/// [`STATIC_SHARED_MAX`]) carved out of one region of dynamic shared memory, where the code of
/// passes that never run in the same launch reuses the same bytes ([`Cx::shared_exclusive`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct SharedMemory {
    /// Carved out of `loops_dynamic_shared` instead of declared `__shared__`.
    pub(super) dynamic: bool,
    /// Where the next variable goes: in static shared memory the bytes declared so far.
    pub(super) at: u32,
    /// The most bytes in use at once (static: all of them).
    pub(super) peak: u32,
}

/// The name of the region of dynamic shared memory ([`SharedMemory::dynamic`]).
pub(super) const DYNAMIC_SHARED: &str = "loops_dynamic_shared";

/// Bytes of one value of the CUDA type `ty` in shared memory; a type parameter (`T`) and any other
/// name counts as 8, the largest element type.
pub(super) fn shared_size_of(ty: &str) -> u32 {
    match ty {
        "bool" | "char" | "unsigned char" | "signed char" => 1,
        "short" | "unsigned short" => 2,
        "int" | "unsigned int" | "float" => 4,
        _ => 8,
    }
}

impl<'a> Cx<'a> {
    /// Declares a variable of block-shared memory, of CUDA type `ty`, an array of `len` or (for
    /// `None`) one value; `align16` asks for 16-byte alignment. Statically that is
    /// `__shared__ [__align__(16)] TY NAME[LEN];`. In dynamic shared memory it is a pointer (a
    /// reference for one value) into the block's region, at an offset aligned to 16 bytes, read
    /// and written as the variable would be. Either way its bytes are counted: an upper bound on
    /// what ptxas allocates (each variable rounded up to 16 bytes, a type parameter counted as 8).
    pub fn shared(&mut self, ty: &str, name: &str, len: Option<u32>, align16: bool) {
        let bytes = (shared_size_of(ty) * len.unwrap_or(1)).next_multiple_of(16);
        let at = self.shared.at;
        self.shared.at = at + bytes;
        self.shared.peak = self.shared.peak.max(self.shared.at);
        let line = match (self.shared.dynamic, len) {
            (false, _) => {
                let align = if align16 { "__align__(16) " } else { "" };
                let dims = len.map(|n| format!("[{n}]")).unwrap_or_default();
                format!("__shared__ {align}{ty} {name}{dims};")
            }
            (true, Some(_)) => {
                format!("{ty}* const {name} = reinterpret_cast<{ty}*>({DYNAMIC_SHARED} + {at});")
            }
            (true, None) => {
                format!("{ty}& {name} = *reinterpret_cast<{ty}*>({DYNAMIC_SHARED} + {at});")
            }
        };
        self.line(line);
    }

    /// Emits, with `emit`, code that never runs in the same launch as the code emitted after it
    /// (one pass of a body of several atom loops): in dynamic shared memory, the variables that
    /// code declares take the same bytes as those declared after it. Static `__shared__`
    /// variables never share bytes.
    pub fn shared_exclusive<R>(&mut self, emit: impl FnOnce(&mut Self) -> R) -> R {
        let at = self.shared.at;
        let result = emit(self);
        if self.shared.dynamic {
            self.shared.at = at;
        }
        result
    }

    /// Whether this is the bounds-checked variant.
    pub fn is_checked(&self) -> bool {
        self.checked
    }

    /// Writes one line at the current indentation, after the `#line` directive it needs: a line
    /// of a user statement maps to the statement's Rust line, any other line is generated code and
    /// maps to itself in the generated source. So a schedule cannot leave generated code under the
    /// last user statement's mapping.
    pub fn line(&mut self, text: impl AsRef<str>) {
        let from = match self.next_line_from.take().or(self.statement) {
            Some(line) if line > 0 => Presumed::Rust(line),
            // A statement with no known line is mapped as generated code: that is its true place.
            _ => Presumed::Generated,
        };
        self.map_next_line(from);
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text.as_ref());
        self.out.push('\n');
    }

    /// Opens a `{` block after `head`.
    /// `head {` and one level deeper; an empty `head` opens a bare scope.
    pub fn open(&mut self, head: impl AsRef<str>) {
        if let Some(line) = self.loop_head_from.take() {
            self.next_line_from = Some(line);
        }
        let head = head.as_ref();
        self.line(if head.is_empty() {
            "{".to_string()
        } else {
            format!("{head} {{")
        });
        self.indent += 1;
    }

    pub fn close(&mut self) {
        self.indent -= 1;
        self.line("}");
    }

    /// A name no user identifier can take (users may not start names with `loops_`).
    pub fn fresh(&mut self, stem: &str) -> String {
        self.fresh += 1;
        format!("loops_{stem}{}", self.fresh)
    }

    /// The C type of atom positions and of the tile loop's set's offsets: `int`, or `long long` in
    /// the 64-bit-offsets instantiation. Schedules spell atom loop variables with it.
    pub fn offset_type(&self) -> &'static str {
        if self.wide {
            "long long"
        } else {
            "int"
        }
    }

    pub(super) fn param_list(&self, types: &[(String, Ty)]) -> String {
        let subst = |ty: &Ty| -> String {
            match ty {
                Ty::Param(p) => types
                    .iter()
                    .find(|(name, _)| name == p)
                    .map(|(_, t)| t.cuda_name().to_string())
                    .unwrap_or_else(|| p.clone()),
                t => t.cuda_name().to_string(),
            }
        };
        let mut parts = Vec::new();
        let loop_set = self.kernel.loop_set();
        for p in &self.kernel.params {
            let n = &p.name;
            match &p.kind {
                ParamKind::TileSet { format, elem } => {
                    // Only the tile loop's set is wide: its atom count and offsets.
                    let wide = self.wide && n == loop_set;
                    for part in format.cuda_parts() {
                        parts.push(match *part {
                            "nnz" if wide => format!("const long long {n}_nnz"),
                            "offsets" if wide => {
                                format!("const long long* __restrict__ {n}_offsets")
                            }
                            "rows" | "cols" | "nnz" => format!("const int {n}_{part}"),
                            "values" => format!(
                                "const {}* __restrict__ {n}_values",
                                subst(elem.as_ref().expect("a format with values has a type"))
                            ),
                            _ => format!("const int* __restrict__ {n}_{part}"),
                        });
                    }
                }
                ParamKind::Slice { elem, mutable } => {
                    let c = if *mutable { "" } else { "const " };
                    parts.push(format!("{c}{}* __restrict__ {n}", subst(elem)));
                    parts.push(format!("const unsigned long long {n}_len"));
                }
                ParamKind::Scalar(ty) => parts.push(format!("const {} {n}", subst(ty))),
            }
        }
        for hidden in self.kernel.hidden_params(self.checked) {
            parts.extend(hidden.parts().iter().map(|(decl, _)| decl.to_string()));
        }
        parts.join(", ")
    }

    pub(super) fn arg_list(&self) -> String {
        let mut args: Vec<String> = self
            .kernel
            .params
            .iter()
            .flat_map(derived_param_names)
            .collect();
        for hidden in self.kernel.hidden_params(self.checked) {
            args.extend(hidden.parts().iter().map(|(_, name)| name.to_string()));
        }
        args.join(", ")
    }

    pub(super) fn body_template(&mut self) -> DResult<()> {
        let k = self.kernel;
        let mut tps: Vec<String> = k
            .type_params
            .iter()
            .map(|t| format!("typename {t}"))
            .collect();
        if k.takes_block_starts() {
            // One body per entry point of [`RangeEntry`]: constants, not branches.
            tps.push("bool loops_kept".into());
            tps.push("bool loops_streamed".into());
        }
        if !tps.is_empty() {
            self.line(format!("template <{}>", tps.join(", ")));
        }
        let identity: Vec<(String, Ty)> = vec![];
        let params = self.param_list(&identity);
        self.open(format!(
            "static __device__ __forceinline__ void {}_body({params})",
            k.name
        ));
        if self.shared.dynamic {
            self.line(
                "// Shared arrays past the 48 KiB a block may declare statically: carved out of \
                 the launch's dynamic shared memory",
            );
            self.line(format!(
                "extern __shared__ __align__(16) unsigned char {DYNAMIC_SHARED}[];"
            ));
        }
        for p in &k.params {
            if let ParamKind::TileSet { format, .. } = p.kind {
                if format != Format::Csr {
                    let n = &p.name;
                    self.line(format!(
                        "// tile set `{n}`, format {} ({}): {n}_rows counts its tiles, {n}_nnz its \
                         atoms, {n}_offsets holds its {n}_rows + 1 tile offsets",
                        format.rust_name(),
                        format.describe()
                    ));
                }
            }
        }
        if let Some(sub) = &k.body.subset {
            // The schedule loops over the positions of the subset's list; the body reads the tile id.
            self.line(format!(
                "// `{}.tiles_in({})`: the tile loop runs over the positions of `{}`",
                sub.set, sub.list, sub.list
            ));
            let list = &sub.list;
            if self
                .kernel
                .hidden_params(self.checked)
                .contains(&crate::abi::Hidden::ListLen)
            {
                self.line(format!(
                    "// `loops_list_len`, unless null, holds the list's length on the device: at most `{list}_len`"
                ));
                self.line(format!(
                    "const long long {SUBSET_SET}_rows = loops_list_len == nullptr ? (long long){list}_len \
                     : (long long)(*loops_list_len < {list}_len ? *loops_list_len : {list}_len);"
                ));
            } else {
                self.line(format!(
                    "const long long {SUBSET_SET}_rows = (long long){list}_len;"
                ));
            }
        }
        let l = self.lowering;
        let block_shared = crate::schedule::block_shared::emit_prologue(self);
        l.tile_loop(self, &k.body)?;
        if block_shared {
            crate::schedule::block_shared::emit_epilogue(self);
        }
        self.close();
        self.line("");
        Ok(())
    }

    pub(super) fn entry_point(&mut self, inst: &Instantiation) {
        let k = self.kernel;
        let types: Vec<(String, Ty)> = k
            .type_params
            .iter()
            .cloned()
            .zip(inst.types.iter().cloned())
            .collect();
        let params = self.param_list(&types);
        let targs: Vec<&str> = types.iter().map(|(_, t)| t.cuda_name()).collect();
        // The carry schedules ask for a full SM's worth of blocks: without it ptxas spends 40+
        // registers on them and the SM holds a quarter fewer blocks (measured: R-MAT SpMV 12%
        // slower).
        // Their f64 variants are held to 7 blocks by shared memory anyway; asking for 6 leaves
        // ptxas the registers to avoid spills.
        let full = (2048 / k.config.block_size).max(1);
        let mut blocks = if inst.types.contains(&Ty::F64) {
            (full * 3 / 4).max(1)
        } else {
            full
        };
        if self.shared.dynamic {
            // No more blocks than the SM's shared memory holds: asking for more would only cost
            // the kernel registers.
            let per_block = self.shared.peak + 1024;
            blocks = blocks.min(SM_SHARED / per_block).max(1);
        }
        let bounds = match k.config.schedule {
            // `flat` of one 16-byte load a lane too: a gather of short dot products, bound by the
            // loads in flight (`schedule::flat`).
            s if s.carries() || crate::schedule::flat::full_occupancy(s) => {
                format!("{}, {blocks}", k.config.block_size)
            }
            _ if self.full_sm => format!("{}, {full}", k.config.block_size),
            _ => k.config.block_size.to_string(),
        };
        let entry = if self.wide {
            wide_entry_name(&inst.entry)
        } else {
            inst.entry.clone()
        };
        let args = self.arg_list();
        let open = |cx: &mut Self, entry: &str, targs: &[&str]| {
            cx.raw_generated(&crate::abi::entry_guard_open(entry));
            cx.open(format!(
                "extern \"C\" __global__ void __launch_bounds__({bounds}) {entry}({params})"
            ));
            let targs = if targs.is_empty() {
                String::new()
            } else {
                format!("<{}>", targs.join(", "))
            };
            cx.line("loops_grid_dependency();");
            cx.line(format!("{}_body{targs}({args});", k.name));
            cx.close();
            cx.raw_generated("#endif\n");
        };
        if !k.takes_block_starts() {
            return open(self, &entry, &targs);
        }
        for range in RangeEntry::ALL {
            if self.checked && !range.in_checked() {
                continue;
            }
            let mut targs = targs.clone();
            targs.push(range.template_args());
            open(self, &range.entry_name(&entry), &targs);
        }
    }
}

/// One atom loop, as the schedule sees it.
pub struct AtomLoop<'b> {
    pub var: &'b str,
    pub set: &'b str,
    pub tile: &'b Expr,
    pub body: &'b Block,
}

/// A range loop handed to [`Cx::range_loop`], or a `lanes` loop to the schedule's
/// [`Lowering::lanes_loop`].
pub struct RangeLoop<'b> {
    pub var: &'b str,
    pub ty: &'b Ty,
    pub start: &'b Expr,
    pub end: &'b Expr,
    pub inclusive: bool,
    pub body: &'b Block,
}

/// Inside a `lanes` loop that a group schedule spreads over its lanes: the CUDA names of the
/// lanes' split, which the group's atom loops read ([`crate::schedule::group`]).
#[derive(Clone, Debug)]
pub struct LanesSplit {
    /// Lanes over the loop's values (a power of two, chosen at run time).
    pub width: String,
    /// This lane's offset among them (`lane % width`).
    pub offset: String,
    /// This lane's place among the lanes that share a value (`lane / width`).
    pub atom_lane: String,
    /// The lanes that share a value (`group_size / width`): the atom loops' stride.
    pub atom_lanes: String,
    /// Whether this lane's value is in the range (lanes past its end run clamped and idle).
    pub in_range: String,
}

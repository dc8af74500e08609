//! Statements and expressions of the kernel body, in CUDA: what every schedule's lowering emits
//! through [`Cx::block`], [`Cx::stmt`] and [`Cx::expr`], with the checked variant's bounds checks.

use super::{fault_sites, AtomLoop, Cx, RangeLoop};
use crate::diag::DResult;
use crate::ir::*;

impl Cx<'_> {
    /// Emits a block of user statements.
    pub fn block(&mut self, block: &[Stmt]) -> DResult<()> {
        for stmt in block {
            self.stmt(stmt)?;
        }
        Ok(())
    }

    /// Emits a block of user statements whose stores and atomics outside the atom loops run only
    /// where `guard` holds (a group's lane 0: [`Cx::guard`]), the outer guard restored after.
    pub fn guarded_block(&mut self, guard: &str, block: &[Stmt]) -> DResult<()> {
        let outer = self.guard.replace(guard.into());
        let result = self.block(block);
        self.guard = outer;
        result
    }

    /// Emits a user statement: its lines map to its Rust line ([`Cx::line`]).
    pub fn stmt(&mut self, stmt: &Stmt) -> DResult<()> {
        self.line = stmt.line;
        let is_atom_loop = matches!(stmt.kind, StmtKind::ForAtoms { .. });
        self.user_statement(stmt.line, is_atom_loop, |cx| cx.stmt_text(stmt))
    }

    fn stmt_text(&mut self, stmt: &Stmt) -> DResult<()> {
        match &stmt.kind {
            StmtKind::Let {
                name,
                mutable,
                ty,
                init,
            } => {
                let c = if *mutable { "" } else { "const " };
                let init = self.expr(init);
                self.line(format!("{c}{} {name} = {init};", ty.cuda_name()));
            }
            StmtKind::Assign { place, op, value } => {
                let op = op.map(|o| o.cuda()).unwrap_or("");
                if let (true, ExprKind::Index { base, index }) = (self.checked, &place.kind) {
                    // The element's address, or null (and a fault record) when out of range.
                    let guard = self.guard_prefix();
                    let ptr = self.checked_ptr(base, index);
                    let value = self.expr(value);
                    self.line(format!("{guard}{{ auto* const loops_p = {ptr}; if (loops_p) *loops_p {op}= {value}; }}"));
                    return Ok(());
                }
                let guard = match place.kind {
                    ExprKind::Index { .. } => self.guard_prefix(),
                    _ => String::new(),
                };
                let place = self.expr(place);
                let value = self.expr(value);
                self.line(format!("{guard}{place} {op}= {value};"));
            }
            StmtKind::Expr(e) => {
                let at = e as *const Expr as usize;
                if let Some((_, acc, op)) = self.aggregated.iter().find(|a| a.0 == at).cloned() {
                    let ExprKind::Call { args, .. } = &e.kind else {
                        unreachable!("an aggregated statement is an atomic call")
                    };
                    let value = self.expr(&args[1]);
                    self.line(match op {
                        // The accumulator is unsigned (wrapping, as the atomic does).
                        Builtin::AtomicAdd => format!("{acc} += (decltype({acc}))({value});"),
                        Builtin::AtomicMax => {
                            format!("{{ const decltype({acc}) loops_v = {value}; if (loops_v > {acc}) {acc} = loops_v; }}")
                        }
                        _ => format!("{{ const decltype({acc}) loops_v = {value}; if (loops_v < {acc}) {acc} = loops_v; }}"),
                    });
                    return Ok(());
                }
                if self.staged.contains(&at) {
                    let ExprKind::Call { args, .. } = &e.kind else {
                        unreachable!("a staged statement is a push")
                    };
                    let ExprKind::SliceLen(list) = &args[0].kind else {
                        unreachable!("the front end names `push`'s list whole")
                    };
                    let counter = self.expr(&args[1]);
                    let value = self.expr(&args[2]);
                    let cap = self.kernel.config.block_size;
                    self.line(format!(
                        "loops_stage_push(loops_stage, &loops_stage_n, {cap}u, {list}, {list}_len, &{counter}, {value});"
                    ));
                    return Ok(());
                }
                let guard = self.guard_prefix();
                let e = self.expr(e);
                self.line(format!("{guard}(void){e};"));
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                let cond = self.expr(cond);
                self.open(format!("if ({cond})"));
                self.block(then)?;
                self.close();
                if !otherwise.is_empty() {
                    self.open("else");
                    self.block(otherwise)?;
                    self.close();
                }
            }
            StmtKind::ForRange {
                var,
                ty,
                start,
                end,
                inclusive,
                body,
                lanes,
            } => {
                let range = RangeLoop {
                    var,
                    ty,
                    start,
                    end,
                    inclusive: *inclusive,
                    body,
                };
                if *lanes {
                    let l = self.lowering;
                    l.lanes_loop(self, range)?;
                } else {
                    self.range_loop(range)?;
                }
            }
            StmtKind::Break => self.line("break;"),
            StmtKind::Continue => self.line("continue;"),
            StmtKind::Return(value) => {
                let value = self.expr(value);
                self.line(format!("return {value};"));
            }
            StmtKind::ForAtoms {
                var,
                set,
                tile,
                body,
            } => {
                let l = self.lowering;
                l.atom_loop(
                    self,
                    AtomLoop {
                        var,
                        set,
                        tile,
                        body,
                    },
                )?;
            }
        }
        Ok(())
    }

    /// Emits `for var in start..end` (or `..=`) as a serial loop in this thread: a plain range
    /// loop, and a `lanes` loop under a schedule that does not spread it over lanes.
    pub fn range_loop(&mut self, range: RangeLoop<'_>) -> DResult<()> {
        let RangeLoop {
            var,
            ty,
            start,
            end,
            inclusive,
            body,
        } = range;
        // The bounds are evaluated once, as Rust evaluates a range once.
        let (start, end) = (self.expr(start), self.expr(end));
        let t = ty.cuda_name();
        let end_var = self.fresh("end");
        self.open("");
        self.line(format!("const {t} {end_var} = {end};"));
        if inclusive {
            // `a..=MAX` must not wrap: the step tests for the last value before the
            // increment, and a `continue` in the body runs the step too.
            let more = self.fresh("more");
            self.line(format!("{t} {var} = {start};"));
            self.line(format!("bool {more} = {var} <= {end_var};"));
            self.open(format!(
                "for (; {more}; {more} = {var} != {end_var} && (++{var}, true))"
            ));
            self.block(body)?;
        } else {
            self.open(format!(
                "for ({t} {var} = {start}; {var} < {end_var}; ++{var})"
            ));
            self.block(body)?;
        }
        self.close();
        self.close();
        Ok(())
    }

    fn guard_prefix(&self) -> String {
        self.guard
            .as_ref()
            .map(|g| format!("if ({g}) "))
            .unwrap_or_default()
    }

    /// `loops_ptr(...)`: the checked address of `base[index]` in the checked variant.
    fn checked_ptr(&mut self, base: &Indexed, index: &Expr) -> String {
        let index = self.expr(index);
        let sites = fault_sites(self.kernel);
        let (ptr, len, site) = match base {
            Indexed::Slice(s) => (s.clone(), format!("{s}_len"), s.clone()),
            Indexed::SetArray { set, format, array } => {
                let len = if array.is_offsets() {
                    format!("(unsigned long long){set}_rows + 1ull")
                } else {
                    format!("(unsigned long long){set}_nnz")
                };
                (
                    format!("{set}_{}", format.cuda_suffix(*array)),
                    len,
                    format!("{set}.{}", array.rust_name()),
                )
            }
        };
        let code = sites
            .iter()
            .position(|x| *x == site)
            .expect("every indexed array has a site");
        format!(
            "loops_ptr({ptr}, (long long)({index}), {len}, {code}, {}, loops_fault)",
            self.line
        )
    }

    /// CUDA text of an expression, fully parenthesised where precedence could differ from Rust's.
    pub fn expr(&mut self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Lit(text) => text.clone(),
            ExprKind::Var(name) => name.clone(),
            ExprKind::Index { base, index } if self.checked => {
                let ptr = self.checked_ptr(base, index);
                format!("loops_load({ptr})")
            }
            ExprKind::Index { base, index } => {
                let streamed = matches!((&index.kind, &self.streamed_atom),
                    (ExprKind::Var(v), Some(atom)) if v == atom);
                let index = self.expr(index);
                match base {
                    Indexed::Slice(s) => format!("{s}[{index}]"),
                    Indexed::SetArray { set, format, array } if streamed => {
                        format!("__ldcs(&{set}_{}[{index}])", format.cuda_suffix(*array))
                    }
                    Indexed::SetArray { set, format, array } => {
                        format!("{set}_{}[{index}]", format.cuda_suffix(*array))
                    }
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (l, r) = (self.expr(lhs), self.expr(rhs));
                format!("({l} {} {r})", op.cuda())
            }
            ExprKind::Unary { op, expr } => {
                let inner = self.expr(expr);
                match op {
                    // `- -1` must not become `--1`, a decrement in C++.
                    UnOp::Neg if inner.starts_with('-') => format!("(-({inner}))"),
                    UnOp::Neg => format!("(-{inner})"),
                    // Rust's `!` is logical on bool and bitwise on integers.
                    UnOp::Not if expr.ty == Ty::Bool => format!("(!{inner})"),
                    UnOp::Not => format!("(~{inner})"),
                }
            }
            ExprKind::Cast { expr, to } => {
                let inner = self.expr(expr);
                format!("(({}){inner})", to.cuda_name())
            }
            ExprKind::Call {
                builtin: Builtin::Push,
                args,
            } => self.push(args),
            ExprKind::Call { builtin, args } if self.checked && builtin.is_atomic() => {
                let ExprKind::Index { base, index } = &args[0].kind else {
                    unreachable!("the front end makes an atomic's target a slice element")
                };
                let mut ptr = self.checked_ptr(base, index);
                if let Some(tag) = self.block_tag(&args[0], *builtin) {
                    ptr = tag(&ptr);
                }
                let value = self.expr(&args[1]);
                // A skipped atomic returns 0 as the old value.
                format!(
                    "loops_checked_{}({ptr}, {value})",
                    builtin.cuda().trim_start_matches("loops_")
                )
            }
            ExprKind::Call { builtin, args } => {
                let mut parts = Vec::new();
                for (i, a) in args.iter().enumerate() {
                    let text = self.expr(a);
                    parts.push(if i == 0 && builtin.is_atomic() {
                        match self.block_tag(a, *builtin) {
                            Some(tag) => tag(&format!("&{text}")),
                            None => format!("&{text}"),
                        }
                    } else if a.ty == Ty::Usize && matches!(a.kind, ExprKind::Var(_)) {
                        // A schedule may declare the tile and atom variables `int`: the prelude's
                        // overloads are per type, so the call names the `usize` one.
                        format!("(unsigned long long){text}")
                    } else {
                        text
                    });
                }
                format!("{}({})", builtin.cuda(), parts.join(", "))
            }
            ExprKind::HelperCall {
                name,
                type_args,
                args,
            } => {
                let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                let targs: Vec<&str> = type_args.iter().map(Ty::cuda_name).collect();
                let targs = if targs.is_empty() {
                    String::new()
                } else {
                    format!("<{}>", targs.join(", "))
                };
                format!("{}{targs}({})", helper_cuda_name(name), args.join(", "))
            }
            ExprKind::SetProperty { set, property } => {
                let format = match self.kernel.param(set).map(|p| &p.kind) {
                    Some(ParamKind::TileSet { format, .. }) => *format,
                    _ => unreachable!("the front end checked `{set}` is a tile set"),
                };
                format.cuda_property(set, *property)
            }
            ExprKind::SliceLen(s) => format!("{s}_len"),
            ExprKind::Const(c) => c.cuda(&e.ty),
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                let (c, t, o) = (self.expr(cond), self.expr(then), self.expr(otherwise));
                format!("({c} ? {t} : {o})")
            }
        }
    }

    /// For an atomic on a `#[block_shared]` array that mixes operations, what wraps its target's
    /// pointer to record the operation in the slot's byte (`kernels_gen::schedule::block_shared`):
    /// `ptr` to `loops_block_tag(ptr, base, tags, op)`.
    fn block_tag(&self, target: &Expr, builtin: Builtin) -> Option<impl Fn(&str) -> String> {
        use crate::schedule::block_shared::{ops_of, tag_name, Combine};
        let ExprKind::Index {
            base: Indexed::Slice(s),
            ..
        } = &target.kind
        else {
            return None;
        };
        self.kernel.param(s)?.block_shared?;
        if ops_of(self.kernel, s).len() < 2 {
            return None;
        }
        let op = match builtin {
            Builtin::AtomicAdd => Combine::Add,
            Builtin::AtomicMax => Combine::Max,
            Builtin::AtomicMin => Combine::Min,
            _ => return None,
        };
        let (base, tags, op) = (s.clone(), tag_name(s), op.tag());
        Some(move |ptr: &str| format!("loops_block_tag({ptr}, {base}, {tags}, {op})"))
    }

    /// `push(&mut list, &mut count[i], v)`: the prelude's warp-aggregated append
    /// (`loops_push`), which writes the value only below the list's length; in the checked variant
    /// a push past it is a fault on the list, as any index out of range is, and a counter out of
    /// range skips the push.
    fn push(&mut self, args: &[Expr]) -> String {
        let [list, count, value] = args else {
            unreachable!("the front end makes `push`'s three operands")
        };
        let ExprKind::SliceLen(list) = &list.kind else {
            unreachable!("the front end names `push`'s list whole")
        };
        let ExprKind::Index { base, index } = &count.kind else {
            unreachable!("the front end makes `push`'s counter a slice element")
        };
        let value = self.expr(value);
        if self.checked {
            let counter = self.checked_ptr(base, index);
            let site = fault_sites(self.kernel)
                .iter()
                .position(|x| x == list)
                .expect("every slice has a site");
            format!(
                "loops_checked_push({list}, {list}_len, {counter}, {value}, {site}, {}, loops_fault)",
                self.line
            )
        } else {
            let counter = self.expr(count);
            format!("loops_push({list}, {list}_len, &{counter}, {value})")
        }
    }
}

//! `#[block_shared] hist: &mut [u32; N]`: a small integer array whose atomics go to a copy in
//! each block's shared memory, flushed into the slice once per block. What a histogram, a count
//! or an extreme over many tiles needs: the tiles' atomics land on a handful of counters, which
//! in global memory serialise (an atomic per tile on the same few addresses costs more than the
//! rest of a transpose), and in shared memory cost what any shared atomic does.
//!
//! The lowering (the emitter's, around the schedule's tile loop): the block's copy is declared
//! `__shared__` and set to the identity of its operation (0 for `atomic_add`, the type's
//! `MIN` for `atomic_max`, `MAX` for `atomic_min`), a barrier, then the tile loop with `hist`
//! (and `hist.len()`, for the checked variant's bounds) naming the copy, a barrier, and the
//! flush: each slot the block changed is added to (or maxed or mined into) the slice with one
//! global atomic. The flush is exact: integer addition, `max` and `min` are associative and
//! commutative, so the slice ends as if every atomic had gone to it (the model below, checked
//! against applying them in order). A slot whose copy is at the identity is skipped, and so is a
//! `max` (`min`) no larger (smaller) than the slice already holds.
//!
//! The array may mix `atomic_add` and `atomic_max` where its elements are unsigned (both start
//! at 0): each atomic also writes its operation into a byte per slot, which the flush reads.
//! Any other mix has no common starting value and is refused (use one array per operation).
//!
//! Where it lowers: under `thread`, which is the lowering of every tile-only body (see
//! [`super::tile_only`]) whatever the schedule named, and of `schedule = "thread"`. Every thread
//! of a block reaches the end of its grid-stride tile loop, so the barrier before the flush is
//! sound. Refused with a spanned error under the other schedules of a kernel with an atom loop:
//! their threads leave the tile loop at different points (a group's lanes, passes, bins and
//! carries), and a block's copy would be flushed before some of its atomics. The body may only
//! update the array with `atomic_add`, `atomic_max` or `atomic_min` as statements: a read, a
//! store, an atomic's old value or a `push` would see the block's partial copy, not the slice.

/// An operation on a `#[block_shared]` array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Combine {
    Add,
    Max,
    Min,
}

impl Combine {
    /// The tag the byte per slot of a mixed array holds (0: the slot was not updated).
    pub fn tag(self) -> u8 {
        match self {
            Combine::Add => 1,
            Combine::Max => 2,
            Combine::Min => 3,
        }
    }

    pub fn rust_name(self) -> &'static str {
        match self {
            Combine::Add => "atomic_add",
            Combine::Max => "atomic_max",
            Combine::Min => "atomic_min",
        }
    }
}

/// One atomic of the model: the slot, the operation and the value (any integer type widened).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Update {
    pub slot: usize,
    pub op: Combine,
    pub value: i128,
}

/// What [`model_block_shared`] leaves: the slice and the global atomics the flushes issued.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flushed {
    pub slice: Vec<i128>,
    pub atomics: usize,
}

/// The lowering's effect on `slice` (the integers of a `#[block_shared]` array of `slice.len()`
/// elements, `min` and `max` the bounds of their type): each block applies its updates to a copy
/// that starts at each slot's identity, then flushes each slot it changed with one atomic (an add
/// of the copy, or a max/min with it where it improves on the slice). `blocks` run one after
/// another; within a block, the order of the updates does not matter (see the tests).
pub fn model_block_shared(slice: &[i128], min: i128, max: i128, blocks: &[Vec<Update>]) -> Flushed {
    let width = max - min + 1;
    let wrap = |v: i128| (v - min).rem_euclid(width) + min;
    let identity = |op: Combine| match op {
        Combine::Add => 0,
        Combine::Max => min,
        Combine::Min => max,
    };
    let mut out = Flushed {
        slice: slice.to_vec(),
        atomics: 0,
    };
    for block in blocks {
        // The slot's operation, as its tag byte holds it (every update of a slot has the same).
        let mut ops: Vec<Option<Combine>> = vec![None; slice.len()];
        let mut copy: Vec<i128> = vec![0; slice.len()];
        for u in block {
            if ops[u.slot].is_none() {
                copy[u.slot] = identity(u.op);
            }
            ops[u.slot] = Some(u.op);
            let c = &mut copy[u.slot];
            *c = match u.op {
                Combine::Add => wrap(*c + u.value),
                Combine::Max => (*c).max(u.value),
                Combine::Min => (*c).min(u.value),
            };
        }
        for (slot, op) in ops.iter().enumerate() {
            let (Some(op), v) = (*op, copy[slot]) else {
                continue;
            };
            let g = &mut out.slice[slot];
            let flush = match op {
                Combine::Add => v != 0,
                Combine::Max => v > *g,
                Combine::Min => v < *g,
            };
            if flush {
                out.atomics += 1;
                *g = match op {
                    Combine::Add => wrap(*g + v),
                    Combine::Max => (*g).max(v),
                    Combine::Min => (*g).min(v),
                };
            }
        }
    }
    out
}

/// The updates applied to `slice` one by one, as global atomics would: what the flush must equal.
pub fn model_direct(slice: &[i128], min: i128, max: i128, updates: &[Update]) -> Vec<i128> {
    let width = max - min + 1;
    let mut out = slice.to_vec();
    for u in updates {
        let g = &mut out[u.slot];
        *g = match u.op {
            Combine::Add => (*g + u.value - min).rem_euclid(width) + min,
            Combine::Max => (*g).max(u.value),
            Combine::Min => (*g).min(u.value),
        };
    }
    out
}

#[cfg(feature = "frontend")]
pub use lowering::{check, emit_epilogue, emit_prologue, ops_of, tag_name};

#[cfg(feature = "frontend")]
mod lowering {
    use super::Combine;
    use crate::analysis::{stmt_exprs, visit_stmts};
    use crate::diag::{bail, DResult};
    use crate::emit::Cx;
    use crate::ir::{Block, Builtin, Expr, ExprKind, Indexed, Param, StmtKind, Ty};
    use crate::schedule::{Kernel, Schedule};

    fn combine_of(builtin: Builtin) -> Option<Combine> {
        match builtin {
            Builtin::AtomicAdd => Some(Combine::Add),
            Builtin::AtomicMax => Some(Combine::Max),
            Builtin::AtomicMin => Some(Combine::Min),
            _ => None,
        }
    }

    /// The `#[block_shared]` parameter an atomic statement updates, and its operation.
    fn updated(e: &Expr, kernel: &Kernel) -> Option<(String, Combine)> {
        let ExprKind::Call { builtin, args } = &e.kind else {
            return None;
        };
        let op = combine_of(*builtin)?;
        let ExprKind::Index {
            base: Indexed::Slice(s),
            ..
        } = &args.first()?.kind
        else {
            return None;
        };
        kernel.param(s)?.block_shared?;
        Some((s.clone(), op))
    }

    /// The operations the body applies to the `#[block_shared]` array `name`, in a fixed order.
    pub fn ops_of(kernel: &Kernel, name: &str) -> Vec<Combine> {
        let mut ops = Vec::new();
        let _ = visit_stmts(&kernel.body.body, &mut |s| {
            if let StmtKind::Expr(e) = &s.kind {
                if let Some((s, op)) = updated(e, kernel) {
                    if s == name && !ops.contains(&op) {
                        ops.push(op);
                    }
                }
            }
            Ok(())
        });
        ops.sort_by_key(|op| op.tag());
        ops
    }

    /// The byte array of a mixed array's operations per slot.
    pub fn tag_name(name: &str) -> String {
        format!("loops_block_{name}_op")
    }

    fn copy_name(name: &str) -> String {
        format!("loops_block_{name}")
    }

    /// The refusals of the module docs, each pointing at what it refuses.
    pub fn check(kernel: &Kernel) -> DResult<()> {
        let shared: Vec<&Param> = kernel
            .params
            .iter()
            .filter(|p| p.block_shared.is_some())
            .collect();
        let Some(first) = shared.first() else {
            return Ok(());
        };
        if kernel.config.schedule != Schedule::Thread {
            let name = kernel.config.name();
            bail!(
                first.span,
                "`#[block_shared]` array `{}` cannot be lowered under schedule `{name}`: its copy in shared \
                 memory is flushed once every thread of the block has left the tile loop, and under `{name}` \
                 a block's threads leave it at different points. It lowers under `schedule = \"thread\"` and \
                 in tile-only bodies (no atom loop) under every schedule; or drop `#[block_shared]` and \
                 update the slice with its atomics directly",
                first.name
            );
        }
        // Every use of the array: the target of an atomic statement, nothing else.
        let mut allowed: Vec<*const Expr> = Vec::new();
        visit_stmts(&kernel.body.body, &mut |s| {
            if let StmtKind::Expr(e) = &s.kind {
                if updated(e, kernel).is_some() {
                    if let ExprKind::Call { args, .. } = &e.kind {
                        allowed.push(&args[0] as *const Expr);
                    }
                }
            }
            Ok(())
        })?;
        check_uses(&kernel.body.body, kernel, &allowed)?;
        for p in shared {
            let ops = ops_of(kernel, &p.name);
            let elem = match &p.kind {
                crate::ir::ParamKind::Slice { elem, .. } => elem.clone(),
                _ => unreachable!("the front end makes a `#[block_shared]` parameter a slice"),
            };
            let unsigned = matches!(elem, Ty::U32 | Ty::U64 | Ty::Usize);
            let mixable = ops
                .iter()
                .all(|op| matches!(op, Combine::Add | Combine::Max));
            if ops.len() > 1 && !(unsigned && mixable) {
                let names: Vec<&str> = ops.iter().map(|op| op.rust_name()).collect();
                bail!(
                    p.span,
                    "`#[block_shared]` array `{}` is updated with {}: a block's copy starts each slot at its \
                     operation's identity, and these have none in common{}; use one `#[block_shared]` array \
                     per operation",
                    p.name,
                    names.join(" and "),
                    if unsigned {
                        ""
                    } else {
                        " (only an unsigned array may mix `atomic_add` and `atomic_max`, both starting at 0)"
                    }
                );
            }
        }
        Ok(())
    }

    fn check_uses(block: &Block, kernel: &Kernel, allowed: &[*const Expr]) -> DResult<()> {
        let mut bad: Option<(proc_macro2::Span, String, bool)> = None;
        visit_stmts(block, &mut |s| {
            stmt_exprs(s, &mut |e| {
                if bad.is_some() {
                    return;
                }
                let (name, is_len) = match &e.kind {
                    ExprKind::Index {
                        base: Indexed::Slice(n),
                        ..
                    } => (n, false),
                    ExprKind::SliceLen(n) => (n, true),
                    _ => return,
                };
                let shared = kernel.param(name).is_some_and(|p| p.block_shared.is_some());
                if shared && !allowed.contains(&(e as *const Expr)) {
                    bad = Some((e.span, name.clone(), is_len));
                }
            });
            Ok(())
        })?;
        if let Some((span, name, is_len)) = bad {
            if is_len {
                bail!(
                    span,
                    "`{name}` is a `#[block_shared]` array: its length is the `N` of its type; `{name}.len()` \
                     and `push` onto it are not supported"
                );
            }
            bail!(
                span,
                "`{name}` is a `#[block_shared]` array: the body may only update it with `atomic_add`, \
                 `atomic_max` or `atomic_min` as statements (`atomic_add(&mut {name}[i], v);`); a read, a store, \
                 an atomic's old value or a `push` counter would see the block's partial copy, not `{name}`"
            );
        }
        Ok(())
    }

    /// The CUDA of each slot's starting value.
    fn identity(ops: &[Combine], ty: &Ty) -> String {
        match ops {
            [Combine::Max] if ty.is_signed_integer() => {
                format!("loops_const_min<{}>()", ty.cuda_name())
            }
            [Combine::Min] => format!("loops_const_max<{}>()", ty.cuda_name()),
            _ => format!("({})0", ty.cuda_name()),
        }
    }

    fn arrays(kernel: &Kernel) -> Vec<(String, Ty, u32, Vec<Combine>)> {
        kernel
            .params
            .iter()
            .filter_map(|p| {
                let n = p.block_shared?;
                let crate::ir::ParamKind::Slice { elem, .. } = &p.kind else {
                    return None;
                };
                Some((p.name.clone(), elem.clone(), n, ops_of(kernel, &p.name)))
            })
            .collect()
    }

    /// Before the tile loop: each array's copy (and a mixed one's operation bytes) declared and
    /// set, a barrier, and a scope whose `hist` and `hist_len` name the copy. Returns whether it
    /// opened one (to be closed by [`emit_epilogue`]).
    pub fn emit_prologue(cx: &mut Cx<'_>) -> bool {
        let arrays = arrays(cx.kernel);
        if arrays.is_empty() {
            return false;
        }
        for (name, ty, n, ops) in &arrays {
            cx.line(format!(
                "// `#[block_shared] {name}`: the block's copy, flushed into `{name}` after the tile loop \
                 (kernels_gen::schedule::block_shared)"
            ));
            let copy = copy_name(name);
            cx.shared(ty.cuda_name(), &copy, Some(*n), false);
            let mixed = ops.len() > 1;
            if mixed {
                cx.shared("unsigned char", &tag_name(name), Some(*n), false);
            }
            cx.open(format!(
                "for (int loops_i = threadIdx.x; loops_i < {n}; loops_i += blockDim.x)"
            ));
            cx.line(format!("{copy}[loops_i] = {};", identity(ops, ty)));
            if mixed {
                cx.line(format!("{}[loops_i] = 0;", tag_name(name)));
            }
            cx.close();
        }
        cx.line("__syncthreads();");
        cx.open("");
        for (name, ty, n, _) in &arrays {
            cx.line(format!(
                "{}* const {name} = {};",
                ty.cuda_name(),
                copy_name(name)
            ));
            cx.line(format!("const unsigned long long {name}_len = {n}ull;"));
        }
        true
    }

    /// After the tile loop: the scope closed, a barrier, and each slot the block changed flushed
    /// into the slice with one atomic.
    pub fn emit_epilogue(cx: &mut Cx<'_>) {
        let arrays = arrays(cx.kernel);
        cx.close();
        cx.line("__syncthreads();");
        for (name, ty, n, ops) in &arrays {
            let copy = copy_name(name);
            cx.open(format!(
                "for (int loops_i = threadIdx.x; loops_i < {n} && (unsigned long long)loops_i < {name}_len; loops_i += blockDim.x)"
            ));
            cx.line(format!(
                "const {} loops_v = {copy}[loops_i];",
                ty.cuda_name()
            ));
            // The condition under which the slot is flushed, and the flush.
            let flush = |op: Combine| match op {
                Combine::Add => (
                    "loops_v != 0".to_string(),
                    format!("loops_atomic_add(&{name}[loops_i], loops_v);"),
                ),
                Combine::Max => (
                    format!("loops_v > {name}[loops_i]"),
                    format!("loops_atomic_max(&{name}[loops_i], loops_v);"),
                ),
                Combine::Min => (
                    format!("loops_v < {name}[loops_i]"),
                    format!("loops_atomic_min(&{name}[loops_i], loops_v);"),
                ),
            };
            match ops.as_slice() {
                [] => {}
                [op] => {
                    let (cond, action) = flush(*op);
                    cx.line(format!("if ({cond}) {action}"));
                }
                many => {
                    let tags = tag_name(name);
                    for op in many {
                        let (cond, action) = flush(*op);
                        cx.line(format!(
                            "if ({tags}[loops_i] == {} && {cond}) {action}",
                            op.tag()
                        ));
                    }
                }
            }
            cx.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn update() -> impl Strategy<Value = Update> {
        (0usize..6, -40i128..40).prop_map(|(slot, value)| Update {
            slot,
            // Slots 0..4 add (the histogram), 4 maxes, 5 mins: one operation per slot.
            op: match slot {
                4 => Combine::Max,
                5 => Combine::Min,
                _ => Combine::Add,
            },
            value,
        })
    }

    proptest! {
        /// The flush of every block's copy leaves the slice exactly as the atomics applied to it
        /// one by one, for signed and unsigned 8-bit ranges (wrapping adds included).
        #[test]
        fn the_flush_equals_the_atomics_applied_in_order(
            blocks in prop::collection::vec(prop::collection::vec(update(), 0..40), 0..8),
            start in prop::collection::vec(-20i128..20, 6),
            signed in any::<bool>(),
        ) {
            let (min, max) = if signed { (-128, 127) } else { (0, 255) };
            let start: Vec<i128> = start.iter().map(|v| if signed { *v } else { v.abs() }).collect();
            let blocks: Vec<Vec<Update>> = blocks
                .into_iter()
                .map(|b| b.into_iter().map(|mut u| {
                    if !signed { u.value = u.value.abs(); }
                    u
                }).collect())
                .collect();
            let all: Vec<Update> = blocks.iter().flatten().copied().collect();
            let flushed = model_block_shared(&start, min, max, &blocks);
            prop_assert_eq!(&flushed.slice, &model_direct(&start, min, max, &all));
            // At most one atomic per block and slot.
            prop_assert!(flushed.atomics <= blocks.len() * start.len());
            // The order within a block does not matter.
            let reversed: Vec<Vec<Update>> =
                blocks.iter().map(|b| b.iter().rev().copied().collect()).collect();
            prop_assert_eq!(model_block_shared(&start, min, max, &reversed).slice, flushed.slice);
        }
    }

    /// A histogram of 1000 values in 8 bins from 4 blocks: at most 4 x 8 global atomics, where
    /// atomics on the slice would be 1000.
    #[test]
    fn a_histogram_costs_an_atomic_per_block_and_bin() {
        let blocks: Vec<Vec<Update>> = (0..4)
            .map(|b| {
                (0..250)
                    .map(|i| Update {
                        slot: (i * 7 + b) % 8,
                        op: Combine::Add,
                        value: 1,
                    })
                    .collect()
            })
            .collect();
        let flushed = model_block_shared(&[0; 8], 0, u32::MAX as i128, &blocks);
        assert_eq!(flushed.slice.iter().sum::<i128>(), 1000);
        assert!(flushed.atomics <= 32, "{}", flushed.atomics);
    }
}

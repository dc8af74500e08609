//! What a schedule makes of a kernel of the IR: its hidden parameters, its launches per call, its
//! 64-bit-offsets variant. The IR holds the configuration as data ([`crate::schedule::Kernel`]'s `C`);
//! what it means is said here, where the schedules are.

use crate::ir::{ExprKind, Format, Indexed, ParamKind};

/// A kernel of the IR under a schedule configuration: what the front end makes and the emitter
/// and the schedules read.
pub type Kernel = crate::ir::Kernel<super::ScheduleConfig>;

impl Kernel {
    /// Whether the kernel gets a second instantiation with 64-bit tile offsets (the `__wide` entry
    /// points), for tile sets of more than `i32::MAX` atoms: under a schedule that supports it
    /// ([`super::Schedule::supports_wide_offsets`]), over a format the runtime uploads
    /// wide (CSR, `Offsets`), and for a body that does not read the offsets array itself (the
    /// language types its elements `i32`, which a wide offset would not fit).
    pub fn has_wide_variant(&self) -> bool {
        let set = self.loop_set();
        let format_ok = self.params.iter().any(|p| {
            p.name == set
                && matches!(
                    p.kind,
                    ParamKind::TileSet {
                        format: Format::Csr | Format::Offsets,
                        ..
                    }
                )
        });
        if !format_ok || !self.config.schedule.supports_wide_offsets() {
            return false;
        }
        let mut reads_offsets = false;
        let _ = crate::analysis::visit_stmts(&self.body.body, &mut |s| {
            crate::analysis::stmt_exprs(s, &mut |e| {
                reads_offsets |= matches!(
                    &e.kind,
                    ExprKind::Index {
                        base: Indexed::SetArray { array, .. },
                        ..
                    } if array.is_offsets()
                );
            });
            Ok(())
        });
        !reads_offsets
    }

    /// The parameters its entry points take after the user's ([`crate::abi`]), in order.
    pub fn hidden_params(&self, checked: bool) -> Vec<crate::abi::Hidden> {
        let over_subset = self.body.subset.is_some();
        crate::abi::hidden_params(
            self.config.schedule,
            over_subset,
            self.atom_passes(),
            checked,
        )
    }

    /// The atom loops of the tile body that run in launches of their own: under a schedule that
    /// [`super::ScheduleUnit::splits_atom_loops`] (a carry schedule runs each of several atom loops
    /// in a launch of its own, `hierarchical` in passes of its own), 1 + those before the last;
    /// 1 otherwise.
    pub fn atom_passes(&self) -> u32 {
        if !self.config.schedule.unit().splits_atom_loops() {
            return 1;
        }
        crate::analysis::carry_body(self, self.body.user_body(), self.config.name())
            .map_or(1, |b| 1 + b.earlier.len() as u32)
    }

    /// Whether the entry points take `loops_block_starts`: where each block's range of a whole tile
    /// set starts under `merge_path` and `work_oriented`, which the runtime computes once per tile
    /// set; a null pointer makes the blocks search for their ranges, as they do over a subset.
    pub fn takes_block_starts(&self) -> bool {
        self.hidden_params(false)
            .contains(&crate::abi::Hidden::BlockStarts)
    }
}

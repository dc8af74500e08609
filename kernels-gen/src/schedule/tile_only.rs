//! Tile-only bodies: `for tile in a.tiles() { .. }` (or `a.tiles_in(list)`) with no atom loop,
//! per-tile work such as a frontier's degrees, zeroing, or flags to a list.
//!
//! The lowering: **one thread per tile, whatever the schedule named**. The schedules differ only in
//! how they spread a tile's atoms over threads (a group's lanes, equal shares cut across tiles,
//! passes, bins); a body without atoms has nothing for them to spread, and any mapping that gave
//! a tile more than one thread would leave all but one idle (a group's lanes), or cost a launch of
//! its own for nothing (`lrb`'s binning, `split`'s pieces, the carry schedules' prefix sums and
//! fix-ups, `auto`'s measurement). So the front end lowers such a kernel under `thread` (keeping
//! the block size): every tile's body runs exactly once, on one thread, grid-stride over the
//! tiles, and the kernel is a `thread` kernel for the runtime too (its launch plan, its hidden
//! parameters: over `tiles_in(list)` it takes the list's length from the device, so a device loop
//! can run it). `#[for_schedules(all)]` stamps it under every name; each is the same kernel. The
//! launch wrapper's documentation says so.
//!
//! Flat atom loops: an atom-major body (`for atom in a.all_atoms()`) that never asks its atom's
//! tile ([`atoms_are_flat`]: no `a.tile_of(atom)`, no `break` out of the atoms, no `return`) is
//! every atom once, in no particular order. The schedules' machinery (a tile's atoms spread over
//! lanes, equal shares of atoms found by searching the offsets and their carry fix-ups, bins)
//! only serves to know which tile an atom is in; such a body needs none of it. So it too is
//! lowered under `thread` ([`config_for`]), as one grid-stride loop over the atoms
//! (`0..num_atoms`) instead of the tiles: a column count or histogram is one thread per entry,
//! coalesced, with no search. The grid is `thread`'s (a thread per tile, up to the device's
//! resident blocks), each thread taking every grid-th atom.

use super::{Schedule, ScheduleConfig};
use crate::ir::{Block, StmtKind, TileLoop};

/// Whether the tile loop's body has no atom loop.
pub fn is_tile_only(tiles: &TileLoop) -> bool {
    !contains_atom_loop(&tiles.body)
}

/// The configuration a kernel over `tiles` is lowered with: `config`, or for a tile-only body the
/// `thread` schedule with `config`'s block size (see the module docs).
pub fn config_for(config: ScheduleConfig, tiles: &TileLoop) -> ScheduleConfig {
    if is_tile_only(tiles) || tiles.flat {
        ScheduleConfig {
            schedule: Schedule::Thread,
            block_size: config.block_size,
        }
    } else {
        config
    }
}

/// Whether an atom-major loop's body (`atom_body`, its tile variable `tile`) is flat (see the
/// module docs): it never reads `tile` (what `a.tile_of(atom)` lowers to), cannot `break` out of
/// the atoms and has no `return`.
pub fn atoms_are_flat(atom_body: &Block, tile: &str) -> bool {
    use crate::analysis::{breaks_out, stmt_exprs, visit_expr, visit_stmts};
    use crate::ir::ExprKind;
    if breaks_out(atom_body) {
        return false;
    }
    let mut flat = true;
    let _ = visit_stmts(atom_body, &mut |s| {
        if matches!(s.kind, StmtKind::Return(_)) {
            flat = false;
        }
        stmt_exprs(s, &mut |e| {
            visit_expr(e, &mut |x| {
                if matches!(&x.kind, ExprKind::Var(v) if v == tile) {
                    flat = false;
                }
            })
        });
        Ok(())
    });
    flat
}

fn contains_atom_loop(block: &Block) -> bool {
    block.iter().any(|s| match &s.kind {
        StmtKind::ForAtoms { .. } => true,
        StmtKind::If {
            then, otherwise, ..
        } => contains_atom_loop(then) || contains_atom_loop(otherwise),
        StmtKind::ForRange { body, .. } => contains_atom_loop(body),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    /// The CUDA of `body` (a kernel over `a: Csr<T>` with slices `out` and `x`) under `schedule`.
    fn cuda(schedule: &str, body: &str) -> String {
        let attr: proc_macro2::TokenStream = format!("schedule = \"{schedule}\"").parse().unwrap();
        let item: syn::ItemFn = syn::parse_str(&format!(
            "pub fn k<T: Float>(a: Csr<T>, x: &[T], out: &mut [T]) {{ {body} }}"
        ))
        .unwrap();
        crate::cuda_for(attr, &item, "k.rs").unwrap()
    }

    const FLAT_LOOP: &str = "for (long long loops_a = ";

    #[test]
    fn an_atom_major_body_that_never_asks_its_tile_is_one_flat_loop_under_every_schedule() {
        let body = "for nz in a.all_atoms() { \
                    atomic_add(&mut out[a.col_indices[nz] as usize], a.values[nz] * x[0]); }";
        for schedule in [
            "thread",
            "warp",
            "merge_path",
            "work_oriented",
            "lrb",
            "auto",
            "split",
        ] {
            let src = cuda(schedule, body);
            assert!(src.contains(FLAT_LOOP), "{schedule}:\n{src}");
            assert!(src.contains("(schedule thread, "), "{schedule}");
            assert!(src.contains("loops_a < (long long)(((unsigned long long)a_nnz))"));
            // No search of the offsets, no tile loop.
            assert!(!src.contains("loops_t "), "{schedule}:\n{src}");
        }
    }

    #[test]
    fn asking_the_tile_breaking_or_the_tile_form_keeps_the_schedule() {
        for body in [
            "for nz in a.all_atoms() { atomic_add(&mut out[a.tile_of(nz)], a.values[nz]); }",
            "for nz in a.all_atoms() { if a.values[nz] > x[0] { break; } \
             atomic_add(&mut out[a.col_indices[nz] as usize], a.values[nz]); }",
            "for row in a.tiles() { for nz in a.atoms(row) { \
             atomic_add(&mut out[a.col_indices[nz] as usize], a.values[nz]); } }",
        ] {
            let src = cuda("work_oriented", body);
            assert!(!src.contains(FLAT_LOOP), "{body}:\n{src}");
            assert!(src.contains("(schedule work_oriented"), "{body}");
        }
    }
}

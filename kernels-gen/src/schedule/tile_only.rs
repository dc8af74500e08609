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

use super::{Schedule, ScheduleConfig};
use crate::ir::{Block, StmtKind, TileLoop};

/// Whether the tile loop's body has no atom loop.
pub fn is_tile_only(tiles: &TileLoop) -> bool {
    !contains_atom_loop(&tiles.body)
}

/// The configuration a kernel over `tiles` is lowered with: `config`, or for a tile-only body the
/// `thread` schedule with `config`'s block size (see the module docs).
pub fn config_for(config: ScheduleConfig, tiles: &TileLoop) -> ScheduleConfig {
    if is_tile_only(tiles) {
        ScheduleConfig {
            schedule: Schedule::Thread,
            block_size: config.block_size,
        }
    } else {
        config
    }
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

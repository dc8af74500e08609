//! `work_oriented`: an equal share of atoms per thread; a tile belongs to the thread holding its end,
//! found by binary search of the offsets. Balances atoms, not tiles: a run of empty tiles lands on one
//! thread. Cut tiles are finished by the carry fix-up of [`super::carry`].
//!
//! Where every accumulator folds one operand that depends on the atom alone (SpMV and its kin), the
//! block instead scans its atoms, segmented at tile starts, and its threads take the tiles that end
//! in it in turn (`CarryLowering::segmented_scan`): no searches, no per-thread walks, empty tiles
//! spread over the block.

pub use super::carry::Partition;

/// The partition this schedule uses.
pub const PARTITION: Partition = Partition::WorkOriented;

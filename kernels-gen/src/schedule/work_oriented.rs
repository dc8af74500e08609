//! `work_oriented`: an equal share of atoms per thread; a tile belongs to the thread holding its end,
//! found by binary search of the offsets. Balances atoms, not tiles: a run of empty tiles lands on one
//! thread. Cut tiles are finished by the carry fix-up of [`super::carry`].

pub use super::carry::Partition;

/// The partition this schedule uses.
pub const PARTITION: Partition = Partition::WorkOriented;

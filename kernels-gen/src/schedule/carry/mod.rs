//! What `merge_path` and `work_oriented` share: each block takes one contiguous *range* of the tile
//! set, each of its threads one contiguous *segment* of that range (tiles `x0..=x1`, atoms `y0..y1`),
//! and a tile cut by a segment boundary is finished by a carry fix-up, so the tile's epilogue runs
//! exactly once, with the complete accumulators:
//!
//! 1. The block finds its range (over a whole tile set, in the block starts the runtime keeps with
//!    it, [`Partition::block_starts`]; else by two 32-way warp searches of the offsets), copies the
//!    range's offsets to shared memory, and each thread finds its
//!    segment there. Where the atom loop only folds operands that depend on the atom, the block
//!    first computes those operands for its atoms into shared memory, coalesced.
//! 2. Each thread runs its segment. A tile it holds whole gets its epilogue at once. For a tile cut at
//!    the segment's start whose end is in the segment (its *head*), and for the tile in progress at the
//!    segment's end (its *tail*), it keeps the partial accumulators, started from the operator's
//!    identity.
//! 3. In the block, the thread holding a head combines the tails of the threads before it that hold
//!    the same tile (a segmented scan of the tails: shuffles within each warp, then the warps'
//!    summaries), recomputes the tile's prologue (side-effect-free `let`s) for the initial values,
//!    and runs the epilogue. The block publishes a *record* in global scratch: the partial of the tile
//!    in progress at its end, as its *inclusive* partial when the tile began in the block, else as its
//!    *aggregate*. Each 32-bit half of a partial is its own 8-byte word under the launch's stamp, so
//!    records need no fence: a reader that sees this launch's stamp in a word sees the value in it.
//! 4. A head whose tile began in an earlier block is finished by a *look-back* (Merrill and Garland's
//!    single-pass scan): the block's first warp adds the records before it, 32 at a time, back to the
//!    nearest inclusive one. Blocks take their place in the order from a ticket when they start, so a
//!    block only ever waits for blocks that are already running, and those never wait for it.
//!
//! A selection (argmax, first match) is carried like an accumulator, as its variables and the
//! position of the atom it chose, two partials keeping the better by key, then position. A body of
//! several atom loops runs the protocol once per loop, a launch each (`loops_pass`), the results of
//! each loop kept per tile in the call's tile state for the later ones (`lowering.rs`).
//!
//! The partition is the only difference between the two schedules; [`model_run`] replays the whole
//! protocol in Rust for the property tests ([`model_fold`] for any associative fold). `work_oriented` replaces steps 2 and 3 by a segmented
//! scan of the block's staged operands where the body allows it (`CarryLowering::scans`); the
//! block's range, its record and the look-back are the same.
//!
//! One file per phase: `partition.rs` (the segments and block starts on the host) and `model.rs`
//! (the replay); for the CUDA, `lowering.rs` (the entry point and the helpers the phases share),
//! `range.rs` and `stage.rs` (step 1), `walk.rs` (step 2), `fixup.rs` (step 3), `scan.rs` (the
//! segmented scan), `lookback.rs` (the records and step 4). The CUDA that does not depend on the
//! kernel body (the ticket, the searches, the look-back's read of the records) is in the `.cuh`
//! files beside them (`fixed.rs` says how they are emitted).

mod model;
mod partition;

#[cfg(feature = "frontend")]
mod fixed;
#[cfg(feature = "frontend")]
mod fixup;
#[cfg(feature = "frontend")]
mod lookback;
#[cfg(feature = "frontend")]
mod lowering;
#[cfg(feature = "frontend")]
mod range;
#[cfg(feature = "frontend")]
mod scan;
#[cfg(feature = "frontend")]
mod stage;
#[cfg(feature = "frontend")]
mod walk;

pub use model::{model_fold, model_run, Fold, ModelRun};
pub use partition::{subset_offsets, Partition, Segment};

#[cfg(feature = "frontend")]
pub use lowering::CarryLowering;

//! Tile sets of more than `i32::MAX` atoms: 64-bit ("wide") tile offsets.
//!
//! Rows, columns and indices stay 32-bit everywhere. Only a tile set's offsets and atom count
//! become 64-bit, and only when its atoms do not fit `i32`: a [`DeviceCsr`] or
//! [`crate::formats::DeviceOffsets`] then holds `i64` offsets ([`TileSet::is_wide`](crate::formats::TileSet::is_wide)), and a
//! kernel launched on it runs its 64-bit-offsets instantiation (the `__wide` entry points, a
//! separate source compiled on first use, so 32-bit kernels are the code they were). The schedules
//! `thread`, `group`, `warp`, `block` and `auto` (among those) have one; the others refuse a wide
//! set with [`LoopsError::WideUnsupported`] before launching.
//!
//! Uploads of that size check the device's free memory first (`check_memory`, a pure function of
//! the byte counts) and return [`LoopsError::NotEnoughMemory`] rather than fail half-way; an
//! allocation the driver still refuses is [`LoopsError::OutOfMemory`].

use crate::device::{DeviceBuffer, Gpu};
use crate::element::Float;
use crate::error::{LoopsError, Result};
use crate::formats::{DeviceCsr, TileCore};
use crate::host::{Dimension, MatrixError};

/// Device memory an upload leaves free for what comes after it: modules, the carry scratch, the
/// kernel's other buffers are the caller's business, but a matrix that fills the device to the
/// last byte leaves no room to launch anything on it.
pub(crate) const MEMORY_RESERVE_BYTES: u64 = 256 << 20;

/// [`LoopsError::NotEnoughMemory`] unless `needed_bytes` plus [`MEMORY_RESERVE_BYTES`] fit in
/// `free_bytes`. Pure: the uploads call it with [`Gpu::memory_info`]'s numbers before allocating.
pub(crate) fn check_memory(
    what: &str,
    needed_bytes: u64,
    free_bytes: u64,
    total_bytes: u64,
) -> Result<()> {
    // A sum that overflows does not fit any device.
    if needed_bytes
        .checked_add(MEMORY_RESERVE_BYTES)
        .is_some_and(|n| n <= free_bytes)
    {
        return Ok(());
    }
    Err(LoopsError::NotEnoughMemory {
        what: what.to_string(),
        needed_bytes,
        free_bytes,
        total_bytes,
        reserve_bytes: MEMORY_RESERVE_BYTES,
    })
}

/// Whether a tile set of `atoms` atoms needs 64-bit offsets.
pub(crate) fn needs_wide(atoms: usize) -> bool {
    atoms > i32::MAX as usize
}

/// An offset type [`Gpu::upload_csr_parts`] takes.
pub trait OffsetValue: Copy + Send + Sync + sealed::Sealed {
    /// The offset as a u64 (offsets are checked non-negative first).
    fn to_u64(self) -> u64;
}

/// A column-index type [`Gpu::upload_csr_parts`] takes. 4-byte ones are uploaded as they are
/// (checked to lie in `0..cols`, so their bits are those of the `i32` the kernels read); `usize`
/// ones are converted.
pub trait IndexValue: Copy + Send + Sync + sealed::Sealed {
    /// The index as an i64, for the range checks.
    fn to_i64(self) -> i64;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for usize {}
    impl Sealed for u64 {}
    impl Sealed for u32 {}
    impl Sealed for i32 {}
}

impl OffsetValue for usize {
    fn to_u64(self) -> u64 {
        self as u64
    }
}
impl OffsetValue for u64 {
    fn to_u64(self) -> u64 {
        self
    }
}
impl IndexValue for u32 {
    fn to_i64(self) -> i64 {
        self as i64
    }
}
impl IndexValue for i32 {
    fn to_i64(self) -> i64 {
        self as i64
    }
}
impl IndexValue for usize {
    fn to_i64(self) -> i64 {
        i64::try_from(self).unwrap_or(i64::MAX)
    }
}

/// Runs `f` on about equal chunks of `items` on the machine's cores; the results in chunk order
/// with each chunk's start.
fn par_chunks<T: Sync, R: Send>(items: &[T], f: impl Fn(usize, &[T]) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(items.len() / (1 << 20) + 1);
    let chunk = items.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .enumerate()
            .map(|(i, c)| {
                let f = &f;
                s.spawn(move || f(i * chunk, c))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a checking thread panicked"))
            .collect()
    })
}

/// Checks every invariant of a CSR matrix given as parts, without copying them: `rows` and `cols`
/// at most `i32::MAX`, `offsets.len() == rows + 1`, `offsets[0] == 0`, offsets non-decreasing,
/// the last offset equal to `indices.len()` and `values_len`, every index in `0..cols` (checked
/// on all cores). The number of nonzeros may exceed `i32::MAX`.
pub(crate) fn check_csr_parts<O: OffsetValue, I: IndexValue>(
    rows: usize,
    cols: usize,
    offsets: &[O],
    indices: &[I],
    values_len: usize,
) -> Result<()> {
    let too_large = |what, value: usize| -> Result<()> {
        if value > i32::MAX as usize {
            return Err(MatrixError::TooLarge {
                what,
                value,
                excess: value - i32::MAX as usize,
            }
            .into());
        }
        Ok(())
    };
    too_large(Dimension::Rows, rows)?;
    too_large(Dimension::Cols, cols)?;
    if offsets.len() != rows + 1 {
        return Err(MatrixError::OffsetsLength {
            rows,
            len: offsets.len(),
            expected: rows + 1,
        }
        .into());
    }
    let clamp = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    if offsets[0].to_u64() != 0 {
        return Err(MatrixError::FirstOffset {
            value: clamp(offsets[0].to_u64()),
        }
        .into());
    }
    // Windows overlap chunk borders: each chunk checks its pairs from its first entry on, and the
    // pair across a border belongs to the chunk of its second entry.
    let decrease = par_chunks(&offsets[1..], |start, c| {
        let mut previous = offsets[start].to_u64();
        for (k, o) in c.iter().enumerate() {
            let v = o.to_u64();
            if v < previous {
                return Some((start + k + 1, v, previous));
            }
            previous = v;
        }
        None
    });
    if let Some((position, value, previous)) = decrease.into_iter().flatten().next() {
        return Err(MatrixError::OffsetsDecrease {
            position,
            value: clamp(value),
            previous: clamp(previous),
        }
        .into());
    }
    let last = offsets[rows].to_u64();
    if last != indices.len() as u64 || indices.len() != values_len {
        return Err(MatrixError::NnzMismatch {
            rows,
            last: clamp(last),
            indices: indices.len(),
            values: values_len,
        }
        .into());
    }
    let bad = par_chunks(indices, |start, c| {
        c.iter()
            .position(|&x| {
                let v = x.to_i64();
                v < 0 || v as u64 >= cols as u64
            })
            .map(|k| start + k)
    });
    if let Some(position) = bad.into_iter().flatten().next() {
        // The row holding it: the last row whose offset is at most its position.
        let row = offsets.partition_point(|o| o.to_u64() <= position as u64) - 1;
        return Err(MatrixError::IndexOutOfRange {
            position,
            row,
            value: indices[position].to_i64(),
            cols,
        }
        .into());
    }
    Ok(())
}

/// Device bytes of a CSR matrix of `rows` rows and `nnz` entries of `value_bytes` each: the
/// offsets (4 or 8 bytes each, 8 when `nnz` needs it), 4-byte indices and the values.
pub fn csr_bytes(rows: usize, nnz: usize, value_bytes: usize) -> u64 {
    let offset_bytes = if needs_wide(nnz) { 8 } else { 4 };
    (rows as u64 + 1) * offset_bytes + nnz as u64 * (4 + value_bytes as u64)
}

impl Gpu {
    /// `check_memory` against this device's free memory now.
    pub fn check_memory(&self, what: &str, needed_bytes: u64) -> Result<()> {
        let info = self.memory_info()?;
        check_memory(what, needed_bytes, info.free_bytes, info.total_bytes)
    }

    /// Uploads a CSR matrix from its parts, checked first (`check_csr_parts`) and then against the
    /// device's free memory, with no host copy of the indices or values (4-byte indices) and
    /// nothing allocated when a check fails. A matrix of more than `i32::MAX` nonzeros gets 64-bit
    /// offsets; rows and columns stay at most `i32::MAX`.
    pub fn upload_csr_parts<T: Float, O: OffsetValue, I: IndexValue>(
        &self,
        rows: usize,
        cols: usize,
        offsets: &[O],
        indices: &[I],
        values: &[T],
    ) -> Result<DeviceCsr<T>> {
        check_csr_parts(rows, cols, offsets, indices, values.len())?;
        let nnz = indices.len();
        let what = format!(
            "uploading a CSR matrix of {rows} rows, {cols} columns and {nnz} nonzeros ({})",
            T::RUST_NAME
        );
        self.check_memory(&what, csr_bytes(rows, nnz, std::mem::size_of::<T>()))?;
        let sizes = super::tile_sizes_of(offsets.len(), |i| offsets[i].to_u64());
        let (narrow, wide) = if needs_wide(nnz) {
            let host: Vec<i64> = offsets.iter().map(|o| o.to_u64() as i64).collect();
            (DeviceBuffer::empty(), Some(self.upload(&host)?))
        } else {
            let host: Vec<i32> = offsets.iter().map(|o| o.to_u64() as i32).collect();
            (self.upload(&host)?, None)
        };
        let device_indices = if std::mem::size_of::<I>() == 4 {
            // SAFETY: `I` is `u32` or `i32` (sealed), 4 bytes and 4-aligned like `i32`, every bit
            // pattern valid; checked above to lie in `0..cols`, `cols <= i32::MAX`, so each is
            // the same number read as `i32`.
            let as_i32 = unsafe { std::slice::from_raw_parts(indices.as_ptr() as *const i32, nnz) };
            self.upload(as_i32)?
        } else {
            let converted: Vec<i32> = indices.iter().map(|&c| c.to_i64() as i32).collect();
            self.upload(&converted)?
        };
        let device_values = self.upload(values)?;
        Ok(DeviceCsr {
            core: TileCore::new(rows, nnz, sizes),
            cols,
            offsets: narrow,
            wide_offsets: wide,
            indices: device_indices,
            values: device_values,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_check_is_pure_arithmetic() {
        let gib = 1u64 << 30;
        assert!(check_memory("x", 10 * gib, 20 * gib, 80 * gib).is_ok());
        // The reserve counts.
        assert!(check_memory("x", 20 * gib - MEMORY_RESERVE_BYTES, 20 * gib, 80 * gib).is_ok());
        let e = check_memory("uploading y", 20 * gib, 20 * gib, 80 * gib).unwrap_err();
        match &e {
            LoopsError::NotEnoughMemory {
                needed_bytes,
                free_bytes,
                total_bytes,
                ..
            } => assert_eq!(
                (*needed_bytes, *free_bytes, *total_bytes),
                (20 * gib, 20 * gib, 80 * gib)
            ),
            other => panic!("{other:?}"),
        }
        let text = e.to_string();
        assert!(
            text.contains("uploading y needs 21474836480 bytes (20.0 GiB)"),
            "{text}"
        );
        assert!(text.contains("(20.0 GiB) is free"), "{text}");
        // No overflow at the extremes.
        assert!(check_memory("x", u64::MAX, u64::MAX, u64::MAX).is_err());
    }

    #[test]
    fn refusal_names_kernel_schedule_and_what_to_use() {
        let e = LoopsError::WideUnsupported {
            kernel: "spmv".into(),
            schedule: "merge_path (8 items per thread)".into(),
            param: "a".into(),
            atoms: 2_200_000_000,
            why: "this schedule keeps atom positions in 32-bit prefix sums".into(),
        };
        let text = e.to_string();
        for part in [
            "kernel `spmv`",
            "merge_path",
            "`a`, a tile set of 2200000000 atoms",
            "thread, group, warp, block and auto",
        ] {
            assert!(text.contains(part), "{part}: {text}");
        }
    }

    #[test]
    fn csr_bytes_widen_offsets_past_i32() {
        assert_eq!(csr_bytes(2, 3, 4), 3 * 4 + 3 * 8);
        let big = i32::MAX as usize + 1;
        assert_eq!(csr_bytes(9, big, 4), 10 * 8 + big as u64 * 8);
    }

    #[test]
    fn raw_parts_are_checked() {
        let ok = check_csr_parts(2, 3, &[0usize, 2, 3], &[0u32, 2, 1], 3);
        assert!(ok.is_ok());
        let err = |r| match r {
            Err(LoopsError::InvalidMatrix(m)) => m,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            err(check_csr_parts(2, 3, &[0usize, 2], &[0u32, 2], 2)),
            MatrixError::OffsetsLength {
                rows: 2,
                len: 2,
                expected: 3
            }
        );
        assert_eq!(
            err(check_csr_parts(1, 3, &[1u64, 2], &[0u32], 1)),
            MatrixError::FirstOffset { value: 1 }
        );
        assert_eq!(
            err(check_csr_parts(2, 3, &[0usize, 2, 1], &[0u32], 1)),
            MatrixError::OffsetsDecrease {
                position: 2,
                value: 1,
                previous: 2
            }
        );
        assert_eq!(
            err(check_csr_parts(1, 3, &[0usize, 2], &[0u32, 1], 3)),
            MatrixError::NnzMismatch {
                rows: 1,
                last: 2,
                indices: 2,
                values: 3
            }
        );
        assert_eq!(
            err(check_csr_parts(2, 3, &[0usize, 1, 3], &[0u32, 1, 3], 3)),
            MatrixError::IndexOutOfRange {
                position: 2,
                row: 1,
                value: 3,
                cols: 3
            }
        );
        assert_eq!(
            err(check_csr_parts(1, 3, &[0usize, 1], &[-1i32], 1)),
            MatrixError::IndexOutOfRange {
                position: 0,
                row: 0,
                value: -1,
                cols: 3
            }
        );
        assert!(matches!(
            err(check_csr_parts(
                1,
                i32::MAX as usize + 1,
                &[0usize, 0],
                &[0u32; 0],
                0
            )),
            MatrixError::TooLarge {
                what: Dimension::Cols,
                ..
            }
        ));
    }

    /// The parallel checks find the first bad entry wherever the chunk borders fall.
    #[test]
    fn parallel_checks_find_the_first_bad_entry() {
        let n = 5 << 20;
        let mut offsets: Vec<usize> = (0..=n).collect();
        let mut indices = vec![1u32; n];
        indices[3 << 20] = 7;
        indices[4 << 20] = 9;
        let e = check_csr_parts(n, 5, &offsets, &indices, n).unwrap_err();
        assert!(
            matches!(&e, LoopsError::InvalidMatrix(MatrixError::IndexOutOfRange { position, row, value: 7, .. })
                if *position == 3 << 20 && *row == 3 << 20),
            "{e}"
        );
        indices[3 << 20] = 1;
        indices[4 << 20] = 1;
        offsets[2 << 20] = 0;
        let e = check_csr_parts(n, 5, &offsets, &indices, n).unwrap_err();
        assert!(
            matches!(&e, LoopsError::InvalidMatrix(MatrixError::OffsetsDecrease { position, .. })
                if *position == 2 << 20),
            "{e}"
        );
    }
}

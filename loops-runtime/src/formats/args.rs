//! How each format reaches a kernel: its parameters in ABI order ([`TileSet::push_args`]), the
//! format's counts, then its arrays; what the generated code of a tile-set parameter takes
//! (`kernels_gen::abi`). Counts are `int`; a wide set (64-bit offsets) passes its atoms as
//! `long long` and its 64-bit offsets, as a kernel's 64-bit-offsets instantiation takes them.

use super::{DeviceCoo, DeviceCsc, DeviceCsr, DeviceOffsets, TileSet};
use crate::args::{ArgList, Param};
use crate::element::Float;

/// A count as the kernel's `int` (a size past `i32::MAX` was refused by the upload).
fn int(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// A CSR matrix: rows, cols, nnz (`int`), offsets, indices, values (pointers).
pub(super) fn csr<'a, T: Float>(args: &mut ArgList<'a>, m: &'a DeviceCsr<T>) {
    args.push_value(int(m.rows()), Param::Csr("int rows"));
    args.push_value(int(m.cols()), Param::Csr("int cols"));
    match m.wide_offsets() {
        Some(wide) => {
            args.push_value(m.nnz() as i64, Param::Csr("long long nnz"));
            args.push_buffer(wide, Param::Csr("const long long* offsets"));
        }
        None => {
            args.push_value(int(m.nnz()), Param::Csr("int nnz"));
            args.push_buffer(m.offsets(), Param::Csr("const int* offsets"));
        }
    }
    args.push_buffer(m.indices(), Param::Csr("const int* indices"));
    args.push_buffer(m.values(), Param::CsrValues(T::CUDA_NAME));
}

/// A CSC matrix, as the CSR of its transpose: tiles (its columns), the other dimension (its
/// rows), nnz (`int`), column offsets, row indices, values (pointers).
pub(super) fn csc<'a, T: Float>(args: &mut ArgList<'a>, m: &'a DeviceCsc<T>) {
    args.push_value(int(m.cols()), Param::Csr("int rows (tiles: the columns)"));
    args.push_value(int(m.rows()), Param::Csr("int cols (the rows)"));
    args.push_value(int(m.nnz()), Param::Csr("int nnz"));
    args.push_buffer(m.col_offsets(), Param::Csr("const int* offsets"));
    args.push_buffer(m.row_indices(), Param::Csr("const int* indices"));
    args.push_buffer(m.values(), Param::CsrValues(T::CUDA_NAME));
}

/// A COO matrix: rows, cols, nnz (`int`), row offsets, row indices, column indices, values.
pub(super) fn coo<'a, T: Float>(args: &mut ArgList<'a>, m: &'a DeviceCoo<T>) {
    args.push_value(int(m.rows()), Param::Csr("int rows"));
    args.push_value(int(m.cols()), Param::Csr("int cols"));
    args.push_value(int(m.nnz()), Param::Csr("int nnz"));
    args.push_buffer(m.row_offsets(), Param::Csr("const int* offsets"));
    args.push_buffer(m.row_indices(), Param::Csr("const int* row_indices"));
    args.push_buffer(m.col_indices(), Param::Csr("const int* col_indices"));
    args.push_buffer(m.values(), Param::CsrValues(T::CUDA_NAME));
}

/// An offsets layout: tiles, atoms (`int`), offsets.
pub(super) fn offsets<'a>(args: &mut ArgList<'a>, m: &'a DeviceOffsets) {
    args.push_value(int(m.num_tiles()), Param::Csr("int rows (tiles)"));
    match m.wide_offsets() {
        Some(wide) => {
            args.push_value(m.num_atoms() as i64, Param::Csr("long long nnz (atoms)"));
            args.push_buffer(wide, Param::Csr("const long long* offsets"));
        }
        None => {
            args.push_value(int(m.num_atoms()), Param::Csr("int nnz (atoms)"));
            args.push_buffer(m.offsets(), Param::Csr("const int* offsets"));
        }
    }
}

//! Matrix Market reader and writer.
//!
//! # What is read
//!
//! The banner `%%MatrixMarket matrix <format> <field> <symmetry>` (keywords case-insensitive):
//!
//! * format `coordinate` (sparse triplets) or `array` (dense, column-major);
//! * field `real`, `double` (a synonym of `real`), `integer` or `pattern` (coordinate only; every
//!   entry gets the value 1.0). `complex` is rejected: complex matrices are not supported;
//! * symmetry `general`, `symmetric`, `skew-symmetric` or `hermitian`. A hermitian matrix equals
//!   its conjugate transpose; with real (or integer, or pattern) values that is its transpose, so a
//!   `hermitian` file of those fields is read as `symmetric` (and reported as [`Symmetry::Symmetric`]).
//!
//! Symmetric files are expanded: each off-diagonal entry `(i, j, v)` also gives `(j, i, v)`.
//! Skew-symmetric files give `(j, i, -v)`; a diagonal entry there is an error. Entries of a
//! symmetric coordinate file may lie in either triangle (the standard asks for the lower one, but
//! real files such as SuiteSparse's `USPowerGrid` store the upper one); a file that stores both
//! triangles of a symmetric matrix therefore counts every off-diagonal value twice. A symmetric
//! `array` file stores the lower triangle column by column, diagonal included; a skew-symmetric one
//! the strict lower triangle. Zeros of an `array` file are not stored in the sparse result.
//!
//! Comment lines (first non-blank character `%`) and blank lines may appear anywhere after the
//! banner. A UTF-8 byte-order mark before the banner is ignored; line ends may be `\n` or `\r\n`.
//! Fortran exponents (`1.5D+03`) are read as `1.5e+03`.
//!
//! # Policies
//!
//! * **Duplicates** are kept as separate triplets in [`MatrixMarket::triplets`] and **summed** when a
//!   compressed matrix is built ([`read_csr`], [`MatrixMarket::to_csr`]), in file order, in f64.
//! * **NaN and infinities are rejected** (so is a literal such as `1e400` that overflows f64): a
//!   non-finite value in a matrix is almost always corruption, and no result computed from it can be
//!   checked against a reference. The writer rejects them too, so whatever it writes reads back.
//! * Values of `integer` files must be integers (optional sign, digits) that fit an i64 (one that
//!   does not is [`MtxErrorKind::IntegerOutOfRange`]); they are converted to f64 (exactly up to
//!   2^53).
//! * Files compressed with gzip are recognised by their magic bytes (`1f 8b`), whatever their name.
//!
//! # Errors
//!
//! Every malformed input gives an [`MtxError`] naming the 1-based line number and what was
//! expected; nothing is returned half-built and nothing panics. A file that ends too early
//! ([`MtxErrorKind::Truncated`]) reports the line after its last one.

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::element::Float;

mod lex;
mod read;

use read::read_plain;

/// The field of a Matrix Market file that was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// `real` or `double`.
    Real,
    /// `integer`: values are whole numbers within i64, read as f64.
    Integer,
    /// Structure only: every entry is 1.0.
    Pattern,
}

/// The symmetry of a Matrix Market file that was read (the matrix returned is always expanded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Symmetry {
    /// Every entry is stored.
    General,
    /// Only one triangle is stored; each off-diagonal entry stands for its mirror too. Also a
    /// `hermitian` file, whose values are real.
    Symmetric,
    /// Like symmetric, the mirror negated; the diagonal is zero and not stored.
    SkewSymmetric,
}

/// The storage format of a Matrix Market file that was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Sparse: one `row column [value]` line per entry.
    Coordinate,
    /// Dense, column-major: one value per line.
    Array,
}

/// A Matrix Market file, read.
#[derive(Debug)]
pub struct MatrixMarket {
    /// Rows, from the size line.
    pub rows: usize,
    /// Columns, from the size line.
    pub cols: usize,
    /// The storage format of the file.
    pub format: Format,
    /// The field of the file.
    pub field: Field,
    /// The symmetry of the file (the triplets are expanded).
    pub symmetry: Symmetry,
    /// Entries stored in the file (for `coordinate`, the count on the size line; for `array`, the
    /// number of values of the stored triangle or of the whole matrix).
    pub entries_in_file: usize,
    /// The entries, expanded by symmetry, 0-based, in file order, duplicates not yet summed.
    pub triplets: sprs::TriMat<f64>,
}

impl MatrixMarket {
    /// The matrix in CSR storage, duplicates summed in f64 and then rounded to `T`.
    pub fn to_csr<T: Float>(&self) -> sprs::CsMat<T> {
        let m = crate::host::csr_from_triplets(&self.triplets);
        let shape = m.shape();
        let (indptr, indices, data) = m.into_raw_storage();
        let data: Vec<T> = data.into_iter().map(T::from_f64).collect();
        // SAFETY: the structure comes unchanged from a valid CSR matrix; only values were converted.
        unsafe {
            sprs::CsMat::new_unchecked(sprs::CompressedStorage::CSR, shape, indptr, indices, data)
        }
    }
}

/// What went wrong in reading or writing a Matrix Market file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MtxErrorKind {
    /// Reading or writing failed.
    #[error("I/O error: {0}")]
    Io(#[source] std::io::Error),
    /// Nothing at all in the file.
    #[error("empty file: expected the banner `%%MatrixMarket matrix <format> <field> <symmetry>`")]
    Empty,
    /// The first line is not a Matrix Market banner.
    #[error(
        "expected the banner `%%MatrixMarket matrix <format> <field> <symmetry>`, found `{found}`"
    )]
    BadBanner {
        /// The first line.
        found: String,
    },
    /// A banner word that is not one of the words allowed there.
    #[error("banner: expected {expected}, found `{found}`")]
    UnknownKeyword {
        /// What the banner allows there.
        expected: &'static str,
        /// The word found.
        found: String,
    },
    /// The banner ends early.
    #[error("banner: missing {expected}")]
    MissingKeyword {
        /// The word missing.
        expected: &'static str,
    },
    /// A word after the symmetry.
    #[error("banner: unexpected extra word `{found}` after the symmetry")]
    ExtraKeyword {
        /// The word.
        found: String,
    },
    /// A complex field.
    #[error("complex matrices are not supported (the banner says `{keyword}`)")]
    Complex {
        /// The banner word.
        keyword: String,
    },
    /// Banner words that do not go together (e.g. `array pattern`).
    #[error("banner: {0}")]
    InvalidCombination(&'static str),
    /// No size line.
    #[error("missing size line `{expected}`: the file ends after the banner and comments")]
    MissingSizeLine {
        /// What the size line holds for this format.
        expected: &'static str,
    },
    /// A size line that is not the integers it must be.
    #[error("bad size line: expected `{expected}` (non-negative integers), found `{found}`")]
    BadSizeLine {
        /// What the size line holds for this format.
        expected: &'static str,
        /// The line.
        found: String,
    },
    /// A symmetric or skew-symmetric matrix that is not square.
    #[error("a {symmetry} matrix must be square, but the size line says {rows} x {cols}")]
    NotSquare {
        /// The symmetry.
        symmetry: &'static str,
        /// Rows, from the size line.
        rows: usize,
        /// Columns, from the size line.
        cols: usize,
    },
    /// An `array` file with more entries than `usize` counts.
    #[error("a dense {rows} x {cols} array has more entries than this machine can address")]
    SizeOverflow {
        /// Rows, from the size line.
        rows: usize,
        /// Columns, from the size line.
        cols: usize,
    },
    /// Fewer entries than the size line says.
    #[error("the file ends after {found} of the {expected} entries the size line declares (truncated file?)")]
    Truncated {
        /// Entries the size line declares.
        expected: usize,
        /// Entries read.
        found: usize,
    },
    /// More entries than the size line says.
    #[error("more entries than the {expected} the size line declares: found `{found}`")]
    ExtraEntries {
        /// Entries the size line declares.
        expected: usize,
        /// The first extra line.
        found: String,
    },
    /// An entry line that ends early.
    #[error("missing {what}: each entry line must read `{line_format}`")]
    MissingToken {
        /// The token missing (`row index`, `value`, ...).
        what: &'static str,
        /// What an entry line holds for this format.
        line_format: &'static str,
    },
    /// An entry line with more tokens than its format has.
    #[error("unexpected `{found}` after the entry: each entry line must read `{line_format}`")]
    ExtraToken {
        /// The first extra token.
        found: String,
        /// What an entry line holds for this format.
        line_format: &'static str,
    },
    /// An `integer` value past the i64 range.
    #[error("value `{found}` does not fit an i64 ({min}..={max}), which `integer` values are read as", min = i64::MIN, max = i64::MAX)]
    IntegerOutOfRange {
        /// The value as written.
        found: String,
    },
    /// A token that is not the number it must be.
    #[error("{what} `{found}` is not {expected}")]
    BadToken {
        /// What the token is (`row index`, `value`, ...).
        what: &'static str,
        /// The token.
        found: String,
        /// What it must be.
        expected: &'static str,
    },
    /// An index outside the matrix.
    #[error("{what} {index} is out of range 1..={max} (Matrix Market indices are 1-based)")]
    IndexOutOfRange {
        /// Which index (`row index`, `column index`).
        what: &'static str,
        /// The 1-based index.
        index: u64,
        /// The largest index allowed.
        max: usize,
    },
    /// A diagonal entry in a skew-symmetric file.
    #[error("diagonal entry ({index}, {index}) in a skew-symmetric matrix, whose diagonal is zero and not stored")]
    SkewDiagonal {
        /// Its 1-based row (and column).
        index: usize,
    },
    /// A NaN or infinite value (or one that overflows f64).
    #[error("value `{found}` is not finite: NaN and infinities are rejected")]
    NonFinite {
        /// The value as written.
        found: String,
    },
    /// A line too long to be Matrix Market.
    #[error("line longer than {max} bytes: not a Matrix Market file")]
    LineTooLong {
        /// The longest line accepted, in bytes.
        max: usize,
    },
    /// A non-finite value that the writer refuses.
    #[error("cannot write the non-finite value {value} at ({row}, {col}) (1-based): it would not read back")]
    NonFiniteValue {
        /// Its 1-based row.
        row: usize,
        /// Its 1-based column.
        col: usize,
        /// The value.
        value: f64,
    },
}

/// A Matrix Market file could not be read or written: where (file, 1-based line) and what
/// ([`MtxErrorKind`]). Displays as `path:line: message`.
#[derive(Debug)]
pub struct MtxError {
    path: Option<PathBuf>,
    line: Option<usize>,
    kind: MtxErrorKind,
}

impl MtxError {
    fn new(line: Option<usize>, kind: MtxErrorKind) -> Self {
        MtxError {
            path: None,
            line,
            kind,
        }
    }
    fn at(line: usize, kind: MtxErrorKind) -> Self {
        MtxError::new(Some(line), kind)
    }
    fn with_path(mut self, path: &Path) -> Self {
        self.path = Some(path.to_path_buf());
        self
    }
    /// What went wrong.
    pub fn kind(&self) -> &MtxErrorKind {
        &self.kind
    }
    /// The 1-based line the error is about, where there is one (not for a file that cannot be
    /// opened, nor for writing).
    pub fn line(&self) -> Option<usize> {
        self.line
    }
    /// The file, for errors from [`read_path`], [`read_csr`] and [`write_path`].
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }
}

impl fmt::Display for MtxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.path, self.line) {
            (Some(p), Some(l)) => write!(f, "{}:{l}: ", p.display())?,
            (Some(p), None) => write!(f, "{}: ", p.display())?,
            (None, Some(l)) => write!(f, "line {l}: ")?,
            (None, None) => {}
        }
        write!(f, "{}", self.kind)
    }
}

impl std::error::Error for MtxError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.kind)
    }
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const BUF_CAPACITY: usize = 1 << 20;
/// Preallocate at most this many triplets from the size line: a lying size line must not make a
/// tiny file allocate gigabytes.
const MAX_PREALLOC: usize = 1 << 22;
/// Longest line accepted: more is surely not a Matrix Market file (and must not exhaust memory).
const MAX_LINE: usize = 1 << 24;

/// Reads a Matrix Market file, plain or gzip-compressed (recognised by its magic bytes). Errors name
/// the path and the line.
pub fn read_path(path: impl AsRef<Path>) -> Result<MatrixMarket, MtxError> {
    let path = path.as_ref();
    let file =
        File::open(path).map_err(|e| MtxError::new(None, MtxErrorKind::Io(e)).with_path(path))?;
    read(BufReader::with_capacity(BUF_CAPACITY, file)).map_err(|e| e.with_path(path))
}

/// Reads a Matrix Market stream, plain or gzip-compressed (recognised by its magic bytes).
pub fn read<R: BufRead>(mut reader: R) -> Result<MatrixMarket, MtxError> {
    let head = reader
        .fill_buf()
        .map_err(|e| MtxError::at(1, MtxErrorKind::Io(e)))?;
    if head.starts_with(&GZIP_MAGIC) {
        return read_plain(flate2::bufread::MultiGzDecoder::new(reader));
    }
    read_plain(reader)
}

/// Reads a Matrix Market file into CSR storage: duplicates summed (in f64, then rounded to `T`),
/// symmetric files expanded, column indices sorted within each row.
pub fn read_csr<T: Float>(path: impl AsRef<Path>) -> Result<sprs::CsMat<T>, MtxError> {
    Ok(read_path(path)?.to_csr())
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/// Writes `m` to `path` as `coordinate real general`, gzip-compressed if the file name ends in
/// `.gz`. Values are written as the shortest decimal that reads back to the same f64, so
/// [`read_csr`] returns exactly `m` (for either `T`). Non-finite values are an error, found before
/// anything is written.
pub fn write_path<T: Float>(path: impl AsRef<Path>, m: &sprs::CsMat<T>) -> Result<(), MtxError> {
    let path = path.as_ref();
    let io = |e: std::io::Error| MtxError::new(None, MtxErrorKind::Io(e)).with_path(path);
    check_finite(m).map_err(|e| e.with_path(path))?;
    let file = File::create(path).map_err(io)?;
    let gz = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    if gz {
        let mut enc = flate2::write::GzEncoder::new(file, flate2::Compression::default());
        write(&mut enc, m).map_err(|e| e.with_path(path))?;
        enc.finish().map_err(io)?.sync_all().map_err(io)
    } else {
        write(file, m).map_err(|e| e.with_path(path))
    }
}

fn check_finite<T: Float>(m: &sprs::CsMat<T>) -> Result<(), MtxError> {
    for (v, (r, c)) in m.iter() {
        let v = v.to_f64();
        if !v.is_finite() {
            return Err(MtxError::new(
                None,
                MtxErrorKind::NonFiniteValue {
                    row: r + 1,
                    col: c + 1,
                    value: v,
                },
            ));
        }
    }
    Ok(())
}

/// Writes `m` as `%%MatrixMarket matrix coordinate real general`, entries in storage order, values
/// as the shortest decimal that reads back to the same f64 (`{:e}`). Non-finite values are an
/// error, found before anything is written.
pub fn write<W: Write, T: Float>(w: W, m: &sprs::CsMat<T>) -> Result<(), MtxError> {
    check_finite(m)?;
    let io = |e: std::io::Error| MtxError::new(None, MtxErrorKind::Io(e));
    let mut w = BufWriter::with_capacity(BUF_CAPACITY, w);
    writeln!(w, "%%MatrixMarket matrix coordinate real general").map_err(io)?;
    writeln!(w, "% written by loops-runtime").map_err(io)?;
    writeln!(w, "{} {} {}", m.rows(), m.cols(), m.nnz()).map_err(io)?;
    let mut line = Vec::with_capacity(64);
    for (v, (r, c)) in m.iter() {
        line.clear();
        push_usize(&mut line, r + 1);
        line.push(b' ');
        push_usize(&mut line, c + 1);
        line.push(b' ');
        write!(line, "{:e}", v.to_f64()).map_err(io)?;
        line.push(b'\n');
        w.write_all(&line).map_err(io)?;
    }
    w.flush().map_err(io)
}

fn push_usize(out: &mut Vec<u8>, mut v: usize) {
    let mut digits = [0u8; 20];
    let mut n = 0;
    loop {
        digits[n] = b'0' + (v % 10) as u8;
        n += 1;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend(digits[..n].iter().rev());
}

#[cfg(test)]
mod tests;

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
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::element::Float;

/// The field of a Matrix Market file that was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// `real` or `double`.
    Real,
    Integer,
    /// Structure only: every entry is 1.0.
    Pattern,
}

/// The symmetry of a Matrix Market file that was read (the matrix returned is always expanded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Symmetry {
    General,
    Symmetric,
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
    pub rows: usize,
    pub cols: usize,
    pub format: Format,
    pub field: Field,
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
        let m = crate::formats::host::csr_from_triplets(&self.triplets);
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
    #[error("I/O error: {0}")]
    Io(#[source] std::io::Error),
    #[error("empty file: expected the banner `%%MatrixMarket matrix <format> <field> <symmetry>`")]
    Empty,
    #[error(
        "expected the banner `%%MatrixMarket matrix <format> <field> <symmetry>`, found `{found}`"
    )]
    BadBanner { found: String },
    #[error("banner: expected {expected}, found `{found}`")]
    UnknownKeyword {
        expected: &'static str,
        found: String,
    },
    #[error("banner: missing {expected}")]
    MissingKeyword { expected: &'static str },
    #[error("banner: unexpected extra word `{found}` after the symmetry")]
    ExtraKeyword { found: String },
    #[error("complex matrices are not supported (the banner says `{keyword}`)")]
    Complex { keyword: String },
    #[error("banner: {0}")]
    InvalidCombination(&'static str),
    #[error("missing size line `{expected}`: the file ends after the banner and comments")]
    MissingSizeLine { expected: &'static str },
    #[error("bad size line: expected `{expected}` (non-negative integers), found `{found}`")]
    BadSizeLine {
        expected: &'static str,
        found: String,
    },
    #[error("a {symmetry} matrix must be square, but the size line says {rows} x {cols}")]
    NotSquare {
        symmetry: &'static str,
        rows: usize,
        cols: usize,
    },
    #[error("a dense {rows} x {cols} array has more entries than this machine can address")]
    SizeOverflow { rows: usize, cols: usize },
    #[error("the file ends after {found} of the {expected} entries the size line declares (truncated file?)")]
    Truncated { expected: usize, found: usize },
    #[error("more entries than the {expected} the size line declares: found `{found}`")]
    ExtraEntries { expected: usize, found: String },
    #[error("missing {what}: each entry line must read `{line_format}`")]
    MissingToken {
        what: &'static str,
        line_format: &'static str,
    },
    #[error("unexpected `{found}` after the entry: each entry line must read `{line_format}`")]
    ExtraToken {
        found: String,
        line_format: &'static str,
    },
    #[error("value `{found}` does not fit an i64 ({min}..={max}), which `integer` values are read as", min = i64::MIN, max = i64::MAX)]
    IntegerOutOfRange { found: String },
    #[error("{what} `{found}` is not {expected}")]
    BadToken {
        what: &'static str,
        found: String,
        expected: &'static str,
    },
    #[error("{what} {index} is out of range 1..={max} (Matrix Market indices are 1-based)")]
    IndexOutOfRange {
        what: &'static str,
        index: u64,
        max: usize,
    },
    #[error("diagonal entry ({index}, {index}) in a skew-symmetric matrix, whose diagonal is zero and not stored")]
    SkewDiagonal { index: usize },
    #[error("value `{found}` is not finite: NaN and infinities are rejected")]
    NonFinite { found: String },
    #[error("line longer than {max} bytes: not a Matrix Market file")]
    LineTooLong { max: usize },
    #[error("cannot write the non-finite value {value} at ({row}, {col}) (1-based): it would not read back")]
    NonFiniteValue { row: usize, col: usize, value: f64 },
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

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

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

/// Lines of a stream, read in large chunks and cut without copying.
struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    /// First byte not yet returned.
    start: usize,
    /// End of the bytes read.
    end: usize,
    eof: bool,
    /// 1-based number of the last line returned.
    number: usize,
}

impl<R: Read> Lines<R> {
    fn new(reader: R) -> Self {
        Lines {
            reader,
            buf: vec![0; BUF_CAPACITY],
            start: 0,
            end: 0,
            eof: false,
            number: 0,
        }
    }

    /// The next line without its line end (`\n` or `\r\n`), or `None` at the end of the stream.
    fn next(&mut self) -> Result<Option<&[u8]>, MtxError> {
        Ok(self.next_range()?.map(|r| &self.buf[r]))
    }

    /// Where in `buf` the next line lies, without its line end.
    #[inline]
    fn next_range(&mut self) -> Result<Option<Range<usize>>, MtxError> {
        let mut searched = 0; // bytes of the current line already known to hold no newline
        loop {
            let from = self.start + searched;
            if let Some(p) = find_newline(&self.buf[from..self.end]) {
                let line = self.start..from + p;
                self.start = from + p + 1;
                self.number += 1;
                return Ok(Some(self.trim_cr(line)));
            }
            searched = self.end - self.start;
            if self.eof {
                if self.start == self.end {
                    return Ok(None);
                }
                let line = self.start..self.end;
                self.start = self.end;
                self.number += 1;
                return Ok(Some(self.trim_cr(line)));
            }
            self.refill()?;
        }
    }

    /// Moves the partial line to the front of the buffer and reads more after it.
    #[cold]
    fn refill(&mut self) -> Result<(), MtxError> {
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        if self.end == self.buf.len() {
            if self.buf.len() >= MAX_LINE {
                return Err(MtxError::at(
                    self.number + 1,
                    MtxErrorKind::LineTooLong { max: MAX_LINE },
                ));
            }
            self.buf.resize(self.buf.len() * 2, 0);
        }
        loop {
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.end += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(MtxError::at(self.number + 1, MtxErrorKind::Io(e))),
            }
            return Ok(());
        }
    }

    #[inline]
    fn trim_cr(&self, line: Range<usize>) -> Range<usize> {
        if line.end > line.start && self.buf[line.end - 1] == b'\r' {
            line.start..line.end - 1
        } else {
            line
        }
    }

    /// The next line that is neither blank nor a comment, with its 1-based number.
    fn next_data(&mut self) -> Result<Option<(usize, &[u8])>, MtxError> {
        loop {
            let Some(range) = self.next_range()? else {
                return Ok(None);
            };
            let line = &self.buf[range.clone()];
            if line
                .iter()
                .find(|b| !is_space(**b))
                .is_some_and(|&b| b != b'%')
            {
                return Ok(Some((self.number, &self.buf[range])));
            }
        }
    }
}

/// The first `\n` in `h`, eight bytes at a time.
#[inline]
fn find_newline(h: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    const NL: u64 = LO * b'\n' as u64;
    let mut chunks = h.chunks_exact(8);
    let mut i = 0;
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().unwrap()) ^ NL;
        // Nonzero iff some byte of w is zero; the lowest flagged byte is the first zero byte.
        let z = w.wrapping_sub(LO) & !w & HI;
        if z != 0 {
            return Some(i + (z.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == b'\n')
        .map(|p| i + p)
}

#[inline]
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c')
}

/// Whitespace-separated tokens of a line.
struct Tokens<'a> {
    s: &'a [u8],
    pos: usize,
}

impl<'a> Tokens<'a> {
    fn new(s: &'a [u8]) -> Self {
        Tokens { s, pos: 0 }
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a [u8];
    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let s = self.s;
        let mut i = self.pos;
        while i < s.len() && is_space(s[i]) {
            i += 1;
        }
        if i == s.len() {
            self.pos = i;
            return None;
        }
        let start = i;
        while i < s.len() && !is_space(s[i]) {
            i += 1;
        }
        self.pos = i;
        Some(&s[start..i])
    }
}

fn lossy(token: &[u8]) -> String {
    const MAX: usize = 64;
    let mut s = String::from_utf8_lossy(&token[..token.len().min(MAX)]).into_owned();
    if token.len() > MAX {
        s.push('…');
    }
    s
}

/// A non-negative decimal integer: digits only.
#[inline]
fn parse_u64(t: &[u8]) -> Option<u64> {
    if t.is_empty() || t.len() > 20 {
        return None;
    }
    if t.len() == 20 {
        // Only 20-digit numbers can overflow.
        let high = parse_u64(&t[..19])?;
        let d = t[19].wrapping_sub(b'0');
        return if d > 9 {
            None
        } else {
            high.checked_mul(10)?.checked_add(d as u64)
        };
    }
    let mut v: u64 = 0;
    for &b in t {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + d as u64;
    }
    Some(v)
}

#[inline]
fn parse_i64(t: &[u8]) -> Option<i64> {
    let (neg, digits) = match t.first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let v = parse_u64(digits)?;
    if neg {
        0i64.checked_sub_unsigned(v)
    } else {
        i64::try_from(v).ok()
    }
}

/// Whether `t` is spelled as an integer (optional sign, then digits), whatever its size: what tells
/// an `integer` value past the i64 range from one that is no integer at all.
fn is_integer_literal(t: &[u8]) -> bool {
    let digits = t
        .strip_prefix(b"-")
        .or_else(|| t.strip_prefix(b"+"))
        .unwrap_or(t);
    !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
}

/// A real number: a decimal with optional sign, fraction and exponent (`e`, `E`, or Fortran's `d`,
/// `D`), or `inf`, `nan` and the like. `None` if it is not a number; a non-finite result is left to
/// the caller. Parsed by `fast-float2` (Eisel-Lemire, correctly rounded).
#[inline]
fn parse_f64(t: &[u8]) -> Option<f64> {
    match fast_float2::parse::<f64, _>(t) {
        Ok(v) => Some(v),
        Err(_) => parse_fortran(t),
    }
}

/// `1.5D+03`: a Fortran exponent letter.
#[cold]
fn parse_fortran(t: &[u8]) -> Option<f64> {
    let at = t.iter().position(|&b| b == b'd' || b == b'D')?;
    let mut s = t.to_vec();
    s[at] = b'e';
    fast_float2::parse::<f64, _>(&s).ok()
}

struct Header {
    format: Format,
    field: Field,
    symmetry: Symmetry,
}

fn parse_banner(line: &[u8]) -> Result<Header, MtxErrorKind> {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let mut t = Tokens::new(line);
    let first = t.next().unwrap_or(b"");
    if !first.eq_ignore_ascii_case(b"%%MatrixMarket") {
        return Err(MtxErrorKind::BadBanner { found: lossy(line) });
    }
    let mut word =
        |expected: &'static str| t.next().ok_or(MtxErrorKind::MissingKeyword { expected });
    let object = word("the object `matrix`")?;
    if !object.eq_ignore_ascii_case(b"matrix") {
        return Err(MtxErrorKind::UnknownKeyword {
            expected: "the object `matrix`",
            found: lossy(object),
        });
    }
    const FORMAT: &str = "the format `coordinate` or `array`";
    const FIELD: &str = "the field `real`, `double`, `integer`, `pattern` or `complex`";
    const SYMMETRY: &str = "the symmetry `general`, `symmetric`, `skew-symmetric` or `hermitian`";
    let format = word(FORMAT)?.to_ascii_lowercase();
    let field = word(FIELD)?.to_ascii_lowercase();
    let symmetry = word(SYMMETRY)?.to_ascii_lowercase();
    let format = match &format[..] {
        b"coordinate" => Format::Coordinate,
        b"array" => Format::Array,
        _ => {
            return Err(MtxErrorKind::UnknownKeyword {
                expected: FORMAT,
                found: lossy(&format),
            })
        }
    };
    let field = match &field[..] {
        b"real" | b"double" => Field::Real,
        b"integer" => Field::Integer,
        b"pattern" => Field::Pattern,
        b"complex" => {
            return Err(MtxErrorKind::Complex {
                keyword: "complex".into(),
            })
        }
        _ => {
            return Err(MtxErrorKind::UnknownKeyword {
                expected: FIELD,
                found: lossy(&field),
            })
        }
    };
    let symmetry = match &symmetry[..] {
        b"general" => Symmetry::General,
        b"symmetric" => Symmetry::Symmetric,
        b"skew-symmetric" => Symmetry::SkewSymmetric,
        // Real values: hermitian is symmetric (a complex field was refused above).
        b"hermitian" => Symmetry::Symmetric,
        _ => {
            return Err(MtxErrorKind::UnknownKeyword {
                expected: SYMMETRY,
                found: lossy(&symmetry),
            })
        }
    };
    if let Some(extra) = t.next() {
        return Err(MtxErrorKind::ExtraKeyword {
            found: lossy(extra),
        });
    }
    if field == Field::Pattern && format == Format::Array {
        return Err(MtxErrorKind::InvalidCombination(
            "`pattern` is only valid with the `coordinate` format",
        ));
    }
    if field == Field::Pattern && symmetry == Symmetry::SkewSymmetric {
        return Err(MtxErrorKind::InvalidCombination(
            "`pattern` cannot be `skew-symmetric`: a pattern has no sign",
        ));
    }
    Ok(Header {
        format,
        field,
        symmetry,
    })
}

fn symmetry_name(s: Symmetry) -> &'static str {
    match s {
        Symmetry::General => "general",
        Symmetry::Symmetric => "symmetric",
        Symmetry::SkewSymmetric => "skew-symmetric",
    }
}

/// Parses a size line of exactly `N` non-negative integers.
fn parse_size<const N: usize>(
    line: &[u8],
    expected: &'static str,
) -> Result<[usize; N], MtxErrorKind> {
    let bad = || MtxErrorKind::BadSizeLine {
        expected,
        found: lossy(line),
    };
    let mut t = Tokens::new(line);
    let mut out = [0usize; N];
    for o in &mut out {
        let tok = t.next().ok_or_else(bad)?;
        *o = parse_u64(tok)
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(bad)?;
    }
    if t.next().is_some() {
        return Err(bad());
    }
    Ok(out)
}

struct Sink {
    symmetry: Symmetry,
    rows: Vec<usize>,
    cols: Vec<usize>,
    vals: Vec<f64>,
}

impl Sink {
    fn new(symmetry: Symmetry, entries: usize) -> Self {
        let factor = if symmetry == Symmetry::General { 1 } else { 2 };
        let cap = entries.saturating_mul(factor).min(MAX_PREALLOC);
        Sink {
            symmetry,
            rows: Vec::with_capacity(cap),
            cols: Vec::with_capacity(cap),
            vals: Vec::with_capacity(cap),
        }
    }

    /// Adds a 0-based entry, mirrored as the symmetry says.
    #[inline]
    fn push(&mut self, i: usize, j: usize, v: f64) -> Result<(), MtxErrorKind> {
        self.rows.push(i);
        self.cols.push(j);
        self.vals.push(v);
        if i != j {
            match self.symmetry {
                Symmetry::General => {}
                Symmetry::Symmetric => {
                    self.rows.push(j);
                    self.cols.push(i);
                    self.vals.push(v);
                }
                Symmetry::SkewSymmetric => {
                    self.rows.push(j);
                    self.cols.push(i);
                    self.vals.push(-v);
                }
            }
        } else if self.symmetry == Symmetry::SkewSymmetric {
            return Err(MtxErrorKind::SkewDiagonal { index: i + 1 });
        }
        Ok(())
    }
}

#[inline]
fn parse_value(
    tok: Option<&[u8]>,
    field: Field,
    line_format: &'static str,
) -> Result<f64, MtxErrorKind> {
    let Some(tok) = tok else {
        return Err(MtxErrorKind::MissingToken {
            what: "value",
            line_format,
        });
    };
    let v = match field {
        Field::Pattern => unreachable!("pattern entries have no value"),
        Field::Integer => parse_i64(tok).ok_or_else(|| {
            if is_integer_literal(tok) {
                MtxErrorKind::IntegerOutOfRange { found: lossy(tok) }
            } else {
                MtxErrorKind::BadToken {
                    what: "value",
                    found: lossy(tok),
                    expected: "an integer (the field is `integer`)",
                }
            }
        })? as f64,
        Field::Real => {
            let v = parse_f64(tok).ok_or_else(|| MtxErrorKind::BadToken {
                what: "value",
                found: lossy(tok),
                expected: "a real number",
            })?;
            if !v.is_finite() {
                return Err(MtxErrorKind::NonFinite { found: lossy(tok) });
            }
            v
        }
    };
    Ok(v)
}

#[inline]
fn parse_index(
    tok: Option<&[u8]>,
    what: &'static str,
    max: usize,
    line_format: &'static str,
) -> Result<usize, MtxErrorKind> {
    let Some(tok) = tok else {
        return Err(MtxErrorKind::MissingToken { what, line_format });
    };
    let i = parse_u64(tok).ok_or_else(|| MtxErrorKind::BadToken {
        what,
        found: lossy(tok),
        expected: "a positive integer",
    })?;
    if i == 0 || i > max as u64 {
        return Err(MtxErrorKind::IndexOutOfRange {
            what,
            index: i,
            max,
        });
    }
    Ok(i as usize - 1)
}

fn read_plain<R: Read>(reader: R) -> Result<MatrixMarket, MtxError> {
    let mut lines = Lines::new(reader);
    let banner = lines.next()?.ok_or(MtxError::at(1, MtxErrorKind::Empty))?;
    let header = parse_banner(banner).map_err(|k| MtxError::at(1, k))?;
    let (size_format, line_format) = match (header.format, header.field) {
        (Format::Coordinate, Field::Pattern) => ("rows columns entries", "row column"),
        (Format::Coordinate, _) => ("rows columns entries", "row column value"),
        (Format::Array, _) => ("rows columns", "value"),
    };
    let Some((size_at, size_line)) = lines.next_data()? else {
        return Err(MtxError::at(
            lines.number + 1,
            MtxErrorKind::MissingSizeLine {
                expected: size_format,
            },
        ));
    };
    let (rows, cols, entries) = match header.format {
        Format::Coordinate => {
            let [r, c, n] =
                parse_size::<3>(size_line, size_format).map_err(|k| MtxError::at(size_at, k))?;
            (r, c, n)
        }
        Format::Array => {
            let [r, c] =
                parse_size::<2>(size_line, size_format).map_err(|k| MtxError::at(size_at, k))?;
            let overflow =
                || MtxError::at(size_at, MtxErrorKind::SizeOverflow { rows: r, cols: c });
            let n = match header.symmetry {
                Symmetry::General => r.checked_mul(c),
                Symmetry::Symmetric => r.checked_mul(r.saturating_add(1)).map(|x| x / 2),
                Symmetry::SkewSymmetric => r.checked_mul(r.saturating_sub(1)).map(|x| x / 2),
            }
            .ok_or_else(overflow)?;
            (r, c, n)
        }
    };
    if header.symmetry != Symmetry::General && rows != cols {
        let symmetry = symmetry_name(header.symmetry);
        return Err(MtxError::at(
            size_at,
            MtxErrorKind::NotSquare {
                symmetry,
                rows,
                cols,
            },
        ));
    }

    let mut sink = Sink::new(header.symmetry, entries);
    // Array position (column-major within the stored part).
    let (mut ai, mut aj) = (
        match header.symmetry {
            Symmetry::General => 0,
            Symmetry::Symmetric => 0,
            Symmetry::SkewSymmetric => 1,
        },
        0usize,
    );
    for found in 0..entries {
        let Some((at, line)) = lines.next_data()? else {
            return Err(MtxError::at(
                lines.number + 1,
                MtxErrorKind::Truncated {
                    expected: entries,
                    found,
                },
            ));
        };
        let mut t = Tokens::new(line);
        let result = (|| match header.format {
            Format::Coordinate => {
                let i = parse_index(t.next(), "row index", rows, line_format)?;
                let j = parse_index(t.next(), "column index", cols, line_format)?;
                let v = match header.field {
                    Field::Pattern => 1.0,
                    field => parse_value(t.next(), field, line_format)?,
                };
                if let Some(extra) = t.next() {
                    return Err(MtxErrorKind::ExtraToken {
                        found: lossy(extra),
                        line_format,
                    });
                }
                sink.push(i, j, v)
            }
            Format::Array => {
                let v = parse_value(t.next(), header.field, line_format)?;
                if let Some(extra) = t.next() {
                    return Err(MtxErrorKind::ExtraToken {
                        found: lossy(extra),
                        line_format,
                    });
                }
                if v != 0.0 {
                    sink.push(ai, aj, v)?;
                }
                ai += 1;
                if ai == rows {
                    aj += 1;
                    ai = match header.symmetry {
                        Symmetry::General => 0,
                        Symmetry::Symmetric => aj,
                        Symmetry::SkewSymmetric => aj + 1,
                    };
                }
                Ok(())
            }
        })();
        result.map_err(|k| MtxError::at(at, k))?;
    }
    if let Some((at, line)) = lines.next_data()? {
        let found = lossy(line);
        return Err(MtxError::at(
            at,
            MtxErrorKind::ExtraEntries {
                expected: entries,
                found,
            },
        ));
    }
    let Sink {
        rows: ri,
        cols: ci,
        vals,
        ..
    } = sink;
    Ok(MatrixMarket {
        rows,
        cols,
        format: header.format,
        field: header.field,
        symmetry: header.symmetry,
        entries_in_file: entries,
        // Every index was checked against the size line, so this cannot panic.
        triplets: sprs::TriMat::from_triplets((rows, cols), ri, ci, vals),
    })
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
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A reader that hands out at most `step` bytes per call: every line straddles a refill.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(out.len()).min(self.data.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    #[test]
    fn integers_at_the_limits() {
        assert_eq!(parse_u64(b"0"), Some(0));
        assert_eq!(parse_u64(b"007"), Some(7));
        assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), None);
        assert_eq!(parse_u64(b"99999999999999999999"), None);
        assert_eq!(parse_u64(b"100000000000000000000"), None);
        for bad in [&b""[..], b"-1", b"+1", b"1a", b"1.0", b" 1"] {
            assert_eq!(parse_u64(bad), None, "{:?}", std::str::from_utf8(bad));
        }
        assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_i64(b"9223372036854775808"), None);
        assert_eq!(parse_i64(b"+12"), Some(12));
        assert_eq!(parse_i64(b"-"), None);
    }

    #[test]
    fn reals_in_every_spelling() {
        let cases: &[(&str, f64)] = &[
            ("1", 1.0),
            ("-.2788416", -0.2788416),
            ("+.5", 0.5),
            ("1.", 1.0),
            ("1e5", 1e5),
            ("1E+05", 1e5),
            ("2.5e-3", 2.5e-3),
            ("1.25D+02", 125.0),
            ("-3d-1", -0.3),
            ("5e-324", 5e-324),
            ("1.7976931348623157e308", f64::MAX),
        ];
        for &(s, v) in cases {
            assert_eq!(parse_f64(s.as_bytes()), Some(v), "{s}");
        }
        assert!(parse_f64(b"nan").unwrap().is_nan());
        assert_eq!(parse_f64(b"-inf"), Some(f64::NEG_INFINITY));
        assert_eq!(parse_f64(b"1e400"), Some(f64::INFINITY));
        for bad in [
            "", ".", "-", "e5", "1e", "1.0.0", "1,5", "0x10", "1e5e5", "abc", "1d", "d1",
        ] {
            assert_eq!(parse_f64(bad.as_bytes()), None, "{bad}");
        }
    }

    proptest! {
        #[test]
        fn reals_parse_like_std(v in any::<f64>().prop_filter("finite", |v| v.is_finite()), digits in 0usize..20) {
            for s in [format!("{v}"), format!("{v:e}"), format!("{v:.digits$e}"), format!("{v:E}")] {
                prop_assert_eq!(parse_f64(s.as_bytes()).map(f64::to_bits), s.parse::<f64>().ok().map(f64::to_bits), "{}", s);
            }
        }

        #[test]
        fn newline_search_matches_position(h in prop::collection::vec(prop_oneof![Just(b'\n'), any::<u8>()], 0..40)) {
            prop_assert_eq!(find_newline(&h), h.iter().position(|&b| b == b'\n'));
        }

        #[test]
        fn tiny_reads_give_the_same_matrix(step in 1usize..17) {
            let text = b"%%MatrixMarket matrix coordinate real symmetric\r\n% comment\n\n3 3 3\n1 1 1.5\n3 1 -2\r\n  3 2   4e1\n% end";
            let whole = read_plain(&text[..]).unwrap();
            let trickled = read_plain(Trickle { data: text, step }).unwrap();
            prop_assert_eq!(whole.triplets.row_inds(), trickled.triplets.row_inds());
            prop_assert_eq!(whole.triplets.col_inds(), trickled.triplets.col_inds());
            prop_assert_eq!(whole.triplets.data(), trickled.triplets.data());
        }
    }

    #[test]
    fn long_lines_grow_the_buffer_up_to_a_limit() {
        let mut text = b"%%MatrixMarket matrix coordinate real general\n%".to_vec();
        text.resize(text.len() + 3 * BUF_CAPACITY, b'x');
        text.extend_from_slice(b"\n1 1 1\n1 1 2\n");
        let m = read_plain(&text[..]).unwrap();
        assert_eq!(m.triplets.data(), &[2.0]);

        let mut text = b"%%MatrixMarket matrix coordinate real general\n%".to_vec();
        text.resize(text.len() + MAX_LINE + 1, b'x');
        let e = read_plain(&text[..]).unwrap_err();
        assert!(matches!(e.kind(), MtxErrorKind::LineTooLong { .. }), "{e}");
        assert_eq!(e.line(), Some(2));
    }
}

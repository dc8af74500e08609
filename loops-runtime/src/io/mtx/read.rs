//! The Matrix Market reader's parsing: the banner, the size line and the entries, expanded by
//! symmetry.

use std::io::Read;

use super::lex::{is_integer_literal, lossy, parse_f64, parse_i64, parse_u64, Lines, Tokens};
use super::{Field, Format, MatrixMarket, MtxError, MtxErrorKind, Symmetry, MAX_PREALLOC};

pub(super) struct Header {
    format: Format,
    field: Field,
    symmetry: Symmetry,
}

pub(super) fn parse_banner(line: &[u8]) -> Result<Header, MtxErrorKind> {
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

pub(super) fn symmetry_name(s: Symmetry) -> &'static str {
    match s {
        Symmetry::General => "general",
        Symmetry::Symmetric => "symmetric",
        Symmetry::SkewSymmetric => "skew-symmetric",
    }
}

/// Parses a size line of exactly `N` non-negative integers.
pub(super) fn parse_size<const N: usize>(
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

pub(super) struct Sink {
    symmetry: Symmetry,
    rows: Vec<usize>,
    cols: Vec<usize>,
    vals: Vec<f64>,
}

impl Sink {
    pub(super) fn new(symmetry: Symmetry, entries: usize) -> Self {
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
    pub(super) fn push(&mut self, i: usize, j: usize, v: f64) -> Result<(), MtxErrorKind> {
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
pub(super) fn parse_value(
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
pub(super) fn parse_index(
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

pub(super) fn read_plain<R: Read>(reader: R) -> Result<MatrixMarket, MtxError> {
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

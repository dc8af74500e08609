//! The Matrix Market reader's lexing: lines cut out of large reads, whitespace-separated tokens,
//! and the numbers in them.

use std::io::Read;
use std::ops::Range;

use super::{MtxError, MtxErrorKind, BUF_CAPACITY, MAX_LINE};

/// Lines of a stream, read in large chunks and cut without copying.
pub(super) struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    /// First byte not yet returned.
    start: usize,
    /// End of the bytes read.
    end: usize,
    eof: bool,
    /// 1-based number of the last line returned.
    pub(super) number: usize,
}

impl<R: Read> Lines<R> {
    pub(super) fn new(reader: R) -> Self {
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
    pub(super) fn next(&mut self) -> Result<Option<&[u8]>, MtxError> {
        Ok(self.next_range()?.map(|r| &self.buf[r]))
    }

    /// Where in `buf` the next line lies, without its line end.
    #[inline]
    pub(super) fn next_range(&mut self) -> Result<Option<Range<usize>>, MtxError> {
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
    pub(super) fn refill(&mut self) -> Result<(), MtxError> {
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
    pub(super) fn trim_cr(&self, line: Range<usize>) -> Range<usize> {
        if line.end > line.start && self.buf[line.end - 1] == b'\r' {
            line.start..line.end - 1
        } else {
            line
        }
    }

    /// The next line that is neither blank nor a comment, with its 1-based number.
    pub(super) fn next_data(&mut self) -> Result<Option<(usize, &[u8])>, MtxError> {
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
pub(super) fn find_newline(h: &[u8]) -> Option<usize> {
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
pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c')
}

/// Whitespace-separated tokens of a line.
pub(super) struct Tokens<'a> {
    s: &'a [u8],
    pos: usize,
}

impl<'a> Tokens<'a> {
    pub(super) fn new(s: &'a [u8]) -> Self {
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

pub(super) fn lossy(token: &[u8]) -> String {
    const MAX: usize = 64;
    let mut s = String::from_utf8_lossy(&token[..token.len().min(MAX)]).into_owned();
    if token.len() > MAX {
        s.push('…');
    }
    s
}

/// A non-negative decimal integer: digits only.
#[inline]
pub(super) fn parse_u64(t: &[u8]) -> Option<u64> {
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
pub(super) fn parse_i64(t: &[u8]) -> Option<i64> {
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
pub(super) fn is_integer_literal(t: &[u8]) -> bool {
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
pub(super) fn parse_f64(t: &[u8]) -> Option<f64> {
    match fast_float2::parse::<f64, _>(t) {
        Ok(v) => Some(v),
        Err(_) => parse_fortran(t),
    }
}

/// `1.5D+03`: a Fortran exponent letter.
#[cold]
pub(super) fn parse_fortran(t: &[u8]) -> Option<f64> {
    let at = t.iter().position(|&b| b == b'd' || b == b'D')?;
    let mut s = t.to_vec();
    s[at] = b'e';
    fast_float2::parse::<f64, _>(&s).ok()
}

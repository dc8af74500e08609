use super::lex::{find_newline, parse_f64, parse_i64, parse_u64};
use super::*;
use proptest::prelude::*;
use std::io::Read;

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

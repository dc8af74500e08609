//! Every malformed attribute or kernel body is a compile error at the offending span, never a
//! proc-macro panic. The expected messages are in tests/ui/*.stderr.

#[test]
fn malformed_kernels_are_spanned_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    // What the language accepts that an earlier version refused.
    t.pass("tests/ui/pass/*.rs");
}

//! Every malformed attribute or kernel body is a compile error at the offending span, never a
//! proc-macro panic. The expected messages are in tests/ui/*.stderr.

#[test]
fn malformed_kernels_are_spanned_errors() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}

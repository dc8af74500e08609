//! Matrix Market reader and writer: real files, malformed files, round trips.

use std::io::Write;
use std::path::{Path, PathBuf};

use loops_runtime::formats::host::csr_from_triplets;
use loops_runtime::mtx::{self, Field, Format, MatrixMarket, MtxError, MtxErrorKind, Symmetry};
use loops_runtime::{generate, Float};
use proptest::prelude::*;

// ------------------------------------------------------------------------------------------------
// Helpers
// ------------------------------------------------------------------------------------------------

/// Where the real matrices are: the repository's small ones, and the optional corpus (one helper
/// for every test crate of the workspace).
#[path = "../../tests/common/data.rs"]
mod data;

fn read_str(s: &str) -> Result<MatrixMarket, MtxError> {
    mtx::read(s.as_bytes())
}

fn ok(s: &str) -> MatrixMarket {
    read_str(s).unwrap_or_else(|e| panic!("{e}\n--- input:\n{s}"))
}

/// Reads `input`, expects an error whose kind matches `$pat` on line `$line`.
macro_rules! assert_error {
    ($input:expr, $line:expr, $pat:pat) => {{
        let input: &str = $input;
        let e = match read_str(input) {
            Ok(m) => panic!(
                "expected an error, read a {}x{} matrix from:\n{input}",
                m.rows, m.cols
            ),
            Err(e) => e,
        };
        assert!(matches!(e.kind(), $pat), "wrong kind: {e} ({:?})", e.kind());
        assert_eq!(e.line(), Some($line), "wrong line: {e}");
        let shown = e.to_string();
        assert!(
            shown.starts_with(&format!("line {}: ", $line)),
            "message must name the line: {shown}"
        );
        e
    }};
}

fn tmp_path(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("loops-runtime-mtx");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{}-{name}", std::process::id()))
}

/// Same structure and bit-identical values.
fn assert_same<T: Float>(a: &sprs::CsMat<T>, b: &sprs::CsMat<T>) {
    assert_eq!(a.shape(), b.shape());
    assert_eq!(a.is_csr(), b.is_csr());
    assert_eq!(
        a.indptr().to_proper().as_ref(),
        b.indptr().to_proper().as_ref()
    );
    assert_eq!(a.indices(), b.indices());
    let bits = |m: &sprs::CsMat<T>| {
        m.data()
            .iter()
            .map(|v| v.to_f64().to_bits())
            .collect::<Vec<_>>()
    };
    assert_eq!(bits(a), bits(b));
}

fn dense(m: &MatrixMarket) -> Vec<Vec<f64>> {
    let mut d = vec![vec![0.0; m.cols]; m.rows];
    for (v, (r, c)) in m.triplets.triplet_iter() {
        d[r][c] += *v;
    }
    d
}

// ------------------------------------------------------------------------------------------------
// Every real file loads
// ------------------------------------------------------------------------------------------------

/// name, rows, cols, entries in file, field, symmetry, nonzeros after expansion (2 * off-diagonal +
/// diagonal for symmetric files), from the data README and an independent count of the files.
#[allow(clippy::type_complexity)]
const KNOWN: &[(&str, usize, usize, usize, Field, Symmetry, usize)] = {
    use Field::*;
    use Symmetry::*;
    &[
        (
            "1138_bus.mtx",
            1138,
            1138,
            2596,
            Real,
            Symmetric,
            2 * 2596 - 1138,
        ),
        (
            "494_bus.mtx",
            494,
            494,
            1080,
            Real,
            Symmetric,
            2 * 1080 - 494,
        ),
        (
            "4elt.mtx",
            15606,
            15606,
            45878,
            Pattern,
            Symmetric,
            2 * 45878,
        ),
        ("arrow.mtx", 46500, 46500, 139498, Integer, General, 139498),
        (
            "bcspwr10.mtx",
            5300,
            5300,
            13571,
            Pattern,
            Symmetric,
            2 * 13571 - 5300,
        ),
        (
            "bcsstk13.mtx",
            2003,
            2003,
            42943,
            Real,
            Symmetric,
            2 * 42943 - 2003,
        ),
        (
            "ca-GrQc.mtx",
            5242,
            5242,
            14496,
            Pattern,
            Symmetric,
            2 * 14496 - 12,
        ),
        ("chesapeake.mtx", 39, 39, 170, Pattern, Symmetric, 2 * 170),
        ("cryg2500.mtx", 2500, 2500, 12349, Real, General, 12349),
        (
            "delaunay_n15.mtx",
            32768,
            32768,
            98274,
            Pattern,
            Symmetric,
            2 * 98274,
        ),
        (
            "dwt_878.mtx",
            878,
            878,
            4163,
            Pattern,
            Symmetric,
            2 * 4163 - 878,
        ),
        ("fidapex6.mtx", 1651, 1651, 49533, Real, General, 49533),
        ("Franz6.mtx", 10592, 3016, 48472, Integer, General, 48472),
        ("Groebner.mtx", 4967, 2456, 173670, Integer, General, 173670),
        (
            "jagmesh7.mtx",
            1138,
            1138,
            4294,
            Pattern,
            Symmetric,
            2 * 4294 - 1138,
        ),
        ("karate.mtx", 34, 34, 78, Pattern, Symmetric, 2 * 78),
        ("ldbc-directed-example.mtx", 10, 10, 17, Real, General, 17),
        ("lp_afiro.mtx", 27, 51, 102, Real, General, 102),
        (
            "luxembourg.mtx",
            114599,
            114599,
            119666,
            Pattern,
            Symmetric,
            2 * 119666,
        ),
        ("sources_7.mtx", 64, 1, 64, Integer, General, 64),
        (
            "USPowerGrid.mtx",
            4941,
            4941,
            6594,
            Real,
            Symmetric,
            2 * 6594,
        ),
        ("west0067.mtx", 67, 67, 294, Real, General, 294),
        ("west0479.mtx", 479, 479, 1910, Real, General, 1910),
    ]
};

/// Reads every file of `dir` and checks it (against `KNOWN` where listed); returns how many of the
/// `KNOWN` files it held.
fn check_data_folder(dir: &Path) -> usize {
    let files = data::mtx_files(dir);
    assert!(!files.is_empty(), "no .mtx files in {}", dir.display());
    let mut known_seen = 0;
    for path in &files {
        let m = mtx::read_path(path).unwrap_or_else(|e| panic!("{e}"));
        let csr = m.to_csr::<f64>();
        let diag = m
            .triplets
            .triplet_iter()
            .filter(|(_, (r, c))| r == c)
            .count();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        println!(
            "{name:28} {:>7} x {:<7} {:?} {:?}: {} entries in file, {} after expansion, {} in CSR",
            m.rows,
            m.cols,
            m.field,
            m.symmetry,
            m.entries_in_file,
            m.triplets.nnz(),
            csr.nnz()
        );
        // The expansion rule, whatever the file.
        let expected = match m.symmetry {
            Symmetry::General => m.entries_in_file,
            _ => 2 * m.entries_in_file - diag,
        };
        assert_eq!(m.triplets.nnz(), expected, "{name}");
        assert_eq!(m.format, Format::Coordinate);
        if let Some(&(_, rows, cols, entries, field, symmetry, nnz)) =
            KNOWN.iter().find(|k| k.0 == name)
        {
            known_seen += 1;
            assert_eq!(
                (m.rows, m.cols, m.entries_in_file),
                (rows, cols, entries),
                "{name}"
            );
            assert_eq!((m.field, m.symmetry), (field, symmetry), "{name}");
            assert_eq!(m.triplets.nnz(), nnz, "{name}");
            // None of these files has duplicate entries.
            assert_eq!(csr.nnz(), nnz, "{name}");
        }
        if m.symmetry == Symmetry::Symmetric {
            let t = csr.transpose_view().to_csr();
            assert_same(&csr, &t);
        }
    }
    known_seen
}

#[test]
fn every_small_data_file_loads() {
    // The repository's own matrices: every one is listed in `KNOWN`.
    let dir = data::small_dir();
    let files = data::mtx_files(&dir);
    assert_eq!(
        check_data_folder(&dir),
        files.len(),
        "a file of {} is missing from KNOWN",
        dir.display()
    );
}

#[test]
fn every_data_file_loads() {
    let Some(dir) = data::corpus_dir("every_data_file_loads checked data/matrices only") else {
        return;
    };
    assert_eq!(
        check_data_folder(&dir),
        KNOWN.len(),
        "some files of the data README are missing from {}",
        dir.display()
    );
}

#[test]
fn read_csr_matches_read_path() {
    let path = data::small_dir().join("west0067.mtx");
    let a = mtx::read_csr::<f64>(&path).unwrap();
    let b = mtx::read_path(&path).unwrap().to_csr::<f64>();
    assert_same(&a, &b);
    assert_eq!(a.get(4, 0), Some(&-0.2788416)); // `5 1 -.2788416`
}

// ------------------------------------------------------------------------------------------------
// Valid variants of the format
// ------------------------------------------------------------------------------------------------

#[test]
fn comments_blank_lines_crlf_and_case() {
    let s = "%%matrixmarket MATRIX Coordinate REAL General\r\n\
             % a comment\r\n\
             \r\n\
             \t \r\n\
             2 3 3\r\n\
             % between entries\r\n\
             1 1 1.5\r\n\
             \r\n\
               2   3\t-2e1  \r\n\
             %\r\n\
             1 3 .25\r\n\
             % trailing comment\r\n\
             \r\n";
    let m = ok(s);
    assert_eq!((m.rows, m.cols, m.entries_in_file), (2, 3, 3));
    assert_eq!(dense(&m), vec![vec![1.5, 0.0, 0.25], vec![0.0, 0.0, -20.0]]);
}

#[test]
fn no_final_newline_and_bom() {
    let m = ok("\u{feff}%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 7");
    assert_eq!(dense(&m), vec![vec![7.0]]);
}

#[test]
fn symmetric_expands_either_triangle() {
    let m = ok("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 4\n3 1 2\n2 3 5\n");
    assert_eq!(m.symmetry, Symmetry::Symmetric);
    assert_eq!(m.triplets.nnz(), 5);
    assert_eq!(
        dense(&m),
        vec![
            vec![4.0, 0.0, 2.0],
            vec![0.0, 0.0, 5.0],
            vec![2.0, 5.0, 0.0]
        ]
    );
}

#[test]
fn skew_symmetric_negates_the_mirror() {
    let m = ok("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 3\n");
    assert_eq!(dense(&m), vec![vec![0.0, -3.0], vec![3.0, 0.0]]);
}

#[test]
fn pattern_integer_and_double() {
    let m = ok("%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n");
    assert_eq!(m.field, Field::Pattern);
    assert_eq!(dense(&m), vec![vec![0.0, 1.0], vec![1.0, 0.0]]);
    let m = ok("%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n1 1 -7\n2 1 +9\n");
    assert_eq!(m.field, Field::Integer);
    assert_eq!(dense(&m), vec![vec![-7.0, 9.0], vec![9.0, 0.0]]);
    let m = ok("%%MatrixMarket matrix coordinate double general\n1 1 1\n1 1 1.25D+02\n");
    assert_eq!(m.field, Field::Real);
    assert_eq!(dense(&m), vec![vec![125.0]]);
}

#[test]
fn array_general_is_column_major_and_drops_zeros() {
    let m = ok("%%MatrixMarket matrix array real general\n% c\n2 3\n1\n2\n0\n4\n5\n\n6\n");
    assert_eq!(m.format, Format::Array);
    assert_eq!(m.entries_in_file, 6);
    assert_eq!(m.triplets.nnz(), 5);
    assert_eq!(dense(&m), vec![vec![1.0, 0.0, 5.0], vec![2.0, 4.0, 6.0]]);
}

#[test]
fn array_symmetric_and_skew() {
    // Lower triangle, column by column: (1,1) (2,1) (3,1) (2,2) (3,2) (3,3).
    let m = ok("%%MatrixMarket matrix array integer symmetric\n3 3\n1\n2\n3\n4\n5\n6\n");
    assert_eq!(m.entries_in_file, 6);
    assert_eq!(
        dense(&m),
        vec![
            vec![1.0, 2.0, 3.0],
            vec![2.0, 4.0, 5.0],
            vec![3.0, 5.0, 6.0]
        ]
    );
    // Strict lower triangle: (2,1) (3,1) (3,2).
    let m = ok("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n");
    assert_eq!(
        dense(&m),
        vec![
            vec![0.0, -1.0, -2.0],
            vec![1.0, 0.0, -3.0],
            vec![2.0, 3.0, 0.0]
        ]
    );
}

#[test]
fn empty_matrices() {
    let m = ok("%%MatrixMarket matrix coordinate real general\n0 0 0\n");
    assert_eq!((m.rows, m.cols, m.triplets.nnz()), (0, 0, 0));
    let m = ok("%%MatrixMarket matrix coordinate real general\n5 7 0\n");
    assert_eq!(m.to_csr::<f32>().shape(), (5, 7));
    let m = ok("%%MatrixMarket matrix array real general\n0 4\n");
    assert_eq!((m.rows, m.cols), (0, 4));
}

#[test]
fn duplicates_are_summed() {
    let m =
        ok("%%MatrixMarket matrix coordinate real general\n2 2 4\n1 1 1\n2 2 5\n1 1 2\n1 1 0.5\n");
    assert_eq!(m.triplets.nnz(), 4);
    let csr = m.to_csr::<f64>();
    assert_eq!(csr.nnz(), 2);
    assert_eq!(csr.get(0, 0), Some(&3.5));
    assert_eq!(csr.get(1, 1), Some(&5.0));
}

#[test]
fn gzip_is_recognised_by_magic_bytes() {
    let text = "%%MatrixMarket matrix coordinate real general\n2 2 1\n2 1 3.5\n";
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(text.as_bytes()).unwrap();
    let gz = enc.finish().unwrap();
    let m = mtx::read(&gz[..]).unwrap();
    assert_eq!(dense(&m), vec![vec![0.0, 0.0], vec![3.5, 0.0]]);
    // Under a name without .gz as well.
    let path = tmp_path("compressed-but-named.mtx");
    std::fs::write(&path, &gz).unwrap();
    assert_eq!(mtx::read_path(&path).unwrap().triplets.nnz(), 1);
}

// ------------------------------------------------------------------------------------------------
// Malformed files: one test per case, each checks the kind and the line
// ------------------------------------------------------------------------------------------------

const RG: &str = "%%MatrixMarket matrix coordinate real general\n";

#[test]
fn malformed_empty_file() {
    assert_error!("", 1, MtxErrorKind::Empty);
}

#[test]
fn malformed_missing_banner() {
    assert_error!("3 3 1\n1 1 1\n", 1, MtxErrorKind::BadBanner { .. });
    assert_error!(
        "% just a comment\n3 3 1\n1 1 1\n",
        1,
        MtxErrorKind::BadBanner { .. }
    );
}

#[test]
fn malformed_banner_not_on_first_line() {
    assert_error!(
        "\n%%MatrixMarket matrix coordinate real general\n1 1 0\n",
        1,
        MtxErrorKind::BadBanner { .. }
    );
}

#[test]
fn malformed_unknown_object() {
    let e = assert_error!(
        "%%MatrixMarket vector coordinate real general\n",
        1,
        MtxErrorKind::UnknownKeyword { .. }
    );
    assert!(e.to_string().contains("`vector`"), "{e}");
}

#[test]
fn malformed_unknown_format() {
    assert_error!(
        "%%MatrixMarket matrix sparse real general\n",
        1,
        MtxErrorKind::UnknownKeyword { .. }
    );
}

#[test]
fn malformed_unknown_field() {
    assert_error!(
        "%%MatrixMarket matrix coordinate quaternion general\n",
        1,
        MtxErrorKind::UnknownKeyword { .. }
    );
}

#[test]
fn malformed_unknown_symmetry() {
    assert_error!(
        "%%MatrixMarket matrix coordinate real diagonal\n",
        1,
        MtxErrorKind::UnknownKeyword { .. }
    );
}

#[test]
fn malformed_missing_banner_word() {
    assert_error!(
        "%%MatrixMarket matrix coordinate real\n1 1 0\n",
        1,
        MtxErrorKind::MissingKeyword { .. }
    );
}

#[test]
fn malformed_extra_banner_word() {
    assert_error!(
        "%%MatrixMarket matrix coordinate real general extra\n",
        1,
        MtxErrorKind::ExtraKeyword { .. }
    );
}

#[test]
fn malformed_complex_is_unsupported() {
    let e = assert_error!(
        "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
        1,
        MtxErrorKind::Complex { .. }
    );
    assert!(
        e.to_string().contains("complex matrices are not supported"),
        "{e}"
    );
}

#[test]
fn hermitian_with_real_values_reads_as_symmetric() {
    // With real values a hermitian matrix is its own transpose: the file reads as the symmetric one.
    let bodies = [
        ("coordinate real", "3 3 3\n1 1 2.5\n3 1 -1\n3 2 4\n"),
        ("coordinate double", "2 2 2\n1 1 1\n2 1 7\n"),
        ("coordinate integer", "3 3 2\n2 1 5\n3 3 -1\n"),
        ("coordinate pattern", "3 3 2\n2 1\n3 2\n"),
        ("array real", "2 2\n1\n2\n3\n"),
        ("array integer", "3 3\n1\n2\n3\n4\n5\n6\n"),
    ];
    for (format_field, body) in bodies {
        for case in ["hermitian", "Hermitian"] {
            let hermitian = ok(&format!(
                "%%MatrixMarket matrix {format_field} {case}\n{body}"
            ));
            let symmetric = ok(&format!(
                "%%MatrixMarket matrix {format_field} symmetric\n{body}"
            ));
            assert_eq!(hermitian.symmetry, Symmetry::Symmetric, "{format_field}");
            assert_eq!(hermitian.entries_in_file, symmetric.entries_in_file);
            assert_eq!(dense(&hermitian), dense(&symmetric), "{format_field}");
            assert_eq!(hermitian.triplets.row_inds(), symmetric.triplets.row_inds());
            assert_eq!(hermitian.triplets.col_inds(), symmetric.triplets.col_inds());
        }
    }
}

#[test]
fn malformed_complex_hermitian_is_unsupported() {
    let e = assert_error!(
        "%%MatrixMarket matrix coordinate complex hermitian\n1 1 1\n1 1 1 0\n",
        1,
        MtxErrorKind::Complex { .. }
    );
    assert!(
        e.to_string().contains("complex matrices are not supported"),
        "{e}"
    );
}

#[test]
fn malformed_pattern_array() {
    assert_error!(
        "%%MatrixMarket matrix array pattern general\n1 1\n",
        1,
        MtxErrorKind::InvalidCombination(_)
    );
}

#[test]
fn malformed_pattern_skew() {
    assert_error!(
        "%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 1\n2 1\n",
        1,
        MtxErrorKind::InvalidCombination(_)
    );
}

#[test]
fn malformed_missing_size_line() {
    assert_error!(
        "%%MatrixMarket matrix coordinate real general\n% only comments\n\n",
        4,
        MtxErrorKind::MissingSizeLine { .. }
    );
}

#[test]
fn malformed_size_line_not_numeric() {
    assert_error!(
        &format!("{RG}% c\nthree 3 1\n1 1 1\n"),
        3,
        MtxErrorKind::BadSizeLine { .. }
    );
}

#[test]
fn malformed_size_line_too_few_numbers() {
    assert_error!(
        &format!("{RG}3 3\n1 1 1\n"),
        2,
        MtxErrorKind::BadSizeLine { .. }
    );
}

#[test]
fn malformed_size_line_too_many_numbers() {
    assert_error!(
        &format!("{RG}3 3 1 1\n1 1 1\n"),
        2,
        MtxErrorKind::BadSizeLine { .. }
    );
    assert_error!(
        "%%MatrixMarket matrix array real general\n2 2 4\n1\n2\n3\n4\n",
        2,
        MtxErrorKind::BadSizeLine { .. }
    );
}

#[test]
fn malformed_size_line_negative_or_huge() {
    assert_error!(
        &format!("{RG}-3 3 1\n1 1 1\n"),
        2,
        MtxErrorKind::BadSizeLine { .. }
    );
    assert_error!(
        &format!("{RG}3 99999999999999999999999 1\n1 1 1\n"),
        2,
        MtxErrorKind::BadSizeLine { .. }
    );
}

#[test]
fn malformed_symmetric_not_square() {
    assert_error!(
        "%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n",
        2,
        MtxErrorKind::NotSquare { .. }
    );
}

#[test]
fn malformed_array_size_overflows() {
    let s = format!(
        "%%MatrixMarket matrix array real general\n{} {}\n1\n",
        usize::MAX / 2,
        3
    );
    assert_error!(&s, 2, MtxErrorKind::SizeOverflow { .. });
}

#[test]
fn malformed_truncated_file() {
    // Three entries declared, two present: the error points after the last line.
    let e = assert_error!(
        &format!("{RG}3 3 3\n1 1 1\n2 2 2\n"),
        5,
        MtxErrorKind::Truncated {
            expected: 3,
            found: 2
        }
    );
    assert!(e.to_string().contains("truncated"), "{e}");
    assert_error!(
        "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n",
        6,
        MtxErrorKind::Truncated {
            expected: 4,
            found: 3
        }
    );
}

#[test]
fn malformed_truncated_in_the_middle_of_a_line() {
    assert_error!(
        &format!("{RG}3 3 2\n1 1 1\n2 2"),
        4,
        MtxErrorKind::MissingToken { what: "value", .. }
    );
}

#[test]
fn malformed_extra_entries() {
    assert_error!(
        &format!("{RG}3 3 1\n1 1 1\n% fine\n\n2 2 2\n"),
        6,
        MtxErrorKind::ExtraEntries { expected: 1, .. }
    );
}

#[test]
fn malformed_index_zero() {
    let e = assert_error!(
        &format!("{RG}3 3 2\n1 1 1\n0 1 1\n"),
        4,
        MtxErrorKind::IndexOutOfRange {
            what: "row index",
            index: 0,
            ..
        }
    );
    assert!(e.to_string().contains("1-based"), "{e}");
}

#[test]
fn malformed_index_too_large() {
    assert_error!(
        &format!("{RG}3 3 2\n1 1 1\n1 4 1\n"),
        4,
        MtxErrorKind::IndexOutOfRange {
            what: "column index",
            index: 4,
            max: 3
        }
    );
    assert_error!(
        &format!("{RG}3 5 1\n4 4 1\n"),
        3,
        MtxErrorKind::IndexOutOfRange {
            what: "row index",
            index: 4,
            max: 3
        }
    );
}

#[test]
fn malformed_missing_value() {
    assert_error!(
        &format!("{RG}3 3 2\n1 1 1\n2 2\n"),
        4,
        MtxErrorKind::MissingToken { what: "value", .. }
    );
    assert_error!(
        &format!("{RG}3 3 1\n2\n"),
        3,
        MtxErrorKind::MissingToken {
            what: "column index",
            ..
        }
    );
}

#[test]
fn malformed_extra_value() {
    assert_error!(
        &format!("{RG}3 3 1\n1 1 1 0\n"),
        3,
        MtxErrorKind::ExtraToken { .. }
    );
    assert_error!(
        "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n",
        3,
        MtxErrorKind::ExtraToken { .. }
    );
    assert_error!(
        "%%MatrixMarket matrix array real general\n1 2\n1 2\n",
        3,
        MtxErrorKind::ExtraToken { .. }
    );
}

#[test]
fn malformed_non_numeric_value() {
    assert_error!(
        &format!("{RG}3 3 2\n1 1 1\n2 2 abc\n"),
        4,
        MtxErrorKind::BadToken { what: "value", .. }
    );
    assert_error!(
        &format!("{RG}3 3 1\n1 1 1.0.0\n"),
        3,
        MtxErrorKind::BadToken { what: "value", .. }
    );
}

#[test]
fn malformed_non_integer_index() {
    assert_error!(
        &format!("{RG}3 3 1\n1.0 1 1\n"),
        3,
        MtxErrorKind::BadToken {
            what: "row index",
            ..
        }
    );
    assert_error!(
        &format!("{RG}3 3 1\n1 -1 1\n"),
        3,
        MtxErrorKind::BadToken {
            what: "column index",
            ..
        }
    );
}

#[test]
fn malformed_integer_field_with_real_value() {
    assert_error!(
        "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n",
        3,
        MtxErrorKind::BadToken { .. }
    );
}

#[test]
fn malformed_integer_value_past_i64() {
    let header = "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 3\n";
    for value in [
        "9223372036854775808",
        "-9223372036854775809",
        "+99999999999999999999999",
    ] {
        let e = assert_error!(
            &format!("{header}2 2 {value}\n"),
            4,
            MtxErrorKind::IntegerOutOfRange { .. }
        );
        let shown = e.to_string();
        assert!(
            shown.contains(&format!("`{value}`")),
            "must name the value: {shown}"
        );
        assert!(
            shown.contains("does not fit an i64"),
            "must say it does not fit: {shown}"
        );
        assert!(!shown.contains("is not an integer"), "{shown}");
    }
    // The same value in an array file, and the limits themselves, which fit.
    assert_error!(
        "%%MatrixMarket matrix array integer general\n1 1\n18446744073709551616\n",
        3,
        MtxErrorKind::IntegerOutOfRange { .. }
    );
    let m = ok(&format!("{header}2 2 -9223372036854775808\n",));
    assert_eq!(dense(&m)[1][1], i64::MIN as f64);
    // What is no integer at all still says so.
    let e = assert_error!(
        &format!("{header}2 2 12x\n"),
        4,
        MtxErrorKind::BadToken { .. }
    );
    assert!(e.to_string().contains("is not an integer"), "{e}");
}

#[test]
fn malformed_nan_and_infinity() {
    assert_error!(
        &format!("{RG}2 2 1\n1 1 NaN\n"),
        3,
        MtxErrorKind::NonFinite { .. }
    );
    assert_error!(
        &format!("{RG}2 2 1\n1 1 -inf\n"),
        3,
        MtxErrorKind::NonFinite { .. }
    );
    assert_error!(
        &format!("{RG}2 2 1\n1 1 1e400\n"),
        3,
        MtxErrorKind::NonFinite { .. }
    );
}

#[test]
fn malformed_skew_symmetric_diagonal() {
    assert_error!(
        "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 2\n2 1 1\n2 2 1\n",
        4,
        MtxErrorKind::SkewDiagonal { index: 2 }
    );
}

#[test]
fn malformed_non_utf8_bytes() {
    let mut bytes = format!("{RG}2 2 1\n1 1 ").into_bytes();
    bytes.extend_from_slice(&[0xff, 0xfe, b'\n']);
    let e = mtx::read(&bytes[..]).unwrap_err();
    assert!(matches!(e.kind(), MtxErrorKind::BadToken { .. }), "{e}");
    assert_eq!(e.line(), Some(3));
}

#[test]
fn malformed_corrupt_gzip() {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(format!("{RG}3 3 3\n1 1 1\n2 2 2\n3 3 3\n").as_bytes())
        .unwrap();
    let gz = enc.finish().unwrap();
    let e = mtx::read(&gz[..gz.len() - 12]).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            MtxErrorKind::Io(_) | MtxErrorKind::Truncated { .. }
        ),
        "{e}"
    );
    assert!(e.line().is_some(), "{e}");
}

#[test]
fn missing_file_names_the_path() {
    let path = tmp_path("does-not-exist.mtx");
    let e = mtx::read_path(&path).unwrap_err();
    assert!(matches!(e.kind(), MtxErrorKind::Io(_)), "{e}");
    assert_eq!(e.path(), Some(path.as_path()));
    assert_eq!(e.line(), None);
    assert!(e.to_string().contains("does-not-exist.mtx"), "{e}");
    assert!(std::error::Error::source(&e).is_some());
}

#[test]
fn error_in_file_names_path_and_line() {
    let path = tmp_path("bad.mtx");
    std::fs::write(&path, format!("{RG}2 2 1\n1 3 1\n")).unwrap();
    let e = mtx::read_path(&path).unwrap_err();
    let shown = e.to_string();
    assert!(
        shown.starts_with(&format!("{}:3: ", path.display())),
        "{shown}"
    );
    // It converts into the crate's error.
    let le: loops_runtime::LoopsError = e.into();
    assert!(
        le.to_string()
            .contains(":3: column index 3 is out of range 1..=2"),
        "{le}"
    );
}

// ------------------------------------------------------------------------------------------------
// Writing and round trips
// ------------------------------------------------------------------------------------------------

fn round_trip<T: Float>(m: &sprs::CsMat<T>, name: &str) {
    let mut buf = Vec::new();
    mtx::write(&mut buf, m).unwrap();
    let back = mtx::read(&buf[..]).unwrap();
    assert_eq!(
        (back.field, back.symmetry, back.format),
        (Field::Real, Symmetry::General, Format::Coordinate)
    );
    assert_eq!(back.entries_in_file, m.nnz());
    assert_same(&back.to_csr::<T>(), &m.to_csr());
    for gz in [false, true] {
        let path = tmp_path(&format!("{name}.mtx{}", if gz { ".gz" } else { "" }));
        mtx::write_path(&path, m).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.starts_with(&[0x1f, 0x8b]), gz, "{}", path.display());
        assert_same(&mtx::read_csr::<T>(&path).unwrap(), &m.to_csr());
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
fn generated_matrices_round_trip_exactly() {
    round_trip(&generate::uniform::<f64>(300, 200, 7, 1), "uniform-f64");
    round_trip(&generate::uniform::<f32>(300, 200, 7, 1), "uniform-f32");
    round_trip(
        &generate::power_law::<f32>(500, 400, 6.0, 1.5, false, 2),
        "power-law",
    );
    round_trip(&generate::rmat::<f64>(9, 8, 3), "rmat");
    round_trip(&generate::arrow::<f32>(50, 4), "arrow");
    round_trip(
        &generate::with_empty_rows::<f64>(100, 30, 0.7, 3, 5),
        "empty-rows",
    );
    round_trip(&generate::empty::<f64>(4, 9), "empty");
    round_trip(&generate::empty::<f32>(0, 0), "empty-0x0");
}

#[test]
fn awkward_values_round_trip_exactly() {
    let vals = [
        0.1,
        -0.0,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        -f64::MAX,
        1.0 / 3.0,
        123456789.12345679,
        -1e-300,
        2f64.powi(60),
    ];
    let n = vals.len();
    let m = sprs::CsMat::new((1, n), vec![0, n], (0..n).collect(), vals.to_vec());
    round_trip(&m, "awkward-f64");
    let vals32: Vec<f32> = vals
        .iter()
        .map(|&v| v as f32)
        .filter(|v| v.is_finite())
        .collect();
    let n = vals32.len();
    let m = sprs::CsMat::new((1, n), vec![0, n], (0..n).collect(), vals32);
    round_trip(&m, "awkward-f32");
}

#[test]
fn csc_input_is_written_correctly() {
    let csr = generate::uniform::<f64>(40, 30, 5, 9);
    let csc = csr.to_csc();
    let mut buf = Vec::new();
    mtx::write(&mut buf, &csc).unwrap();
    assert_same(&mtx::read(&buf[..]).unwrap().to_csr::<f64>(), &csr);
}

#[test]
fn writing_non_finite_values_is_an_error_before_any_output() {
    let m = sprs::CsMat::new((2, 2), vec![0, 1, 2], vec![1, 0], vec![1.0, f64::NAN]);
    let mut buf = Vec::new();
    let e = mtx::write(&mut buf, &m).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            MtxErrorKind::NonFiniteValue { row: 2, col: 1, .. }
        ),
        "{e}"
    );
    assert!(buf.is_empty());
}

// ------------------------------------------------------------------------------------------------
// Properties
// ------------------------------------------------------------------------------------------------

fn finite_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |v| v.is_finite()),
        -1.0e3..1.0e3f64,
        Just(0.0),
        Just(-0.0),
    ]
}

fn matrix_strategy() -> impl Strategy<Value = sprs::CsMat<f64>> {
    (0usize..12, 0usize..12).prop_flat_map(|(rows, cols)| {
        let entry = if rows > 0 && cols > 0 {
            (0..rows, 0..cols, finite_f64()).boxed()
        } else {
            Just((0, 0, 0.0)).boxed()
        };
        let max = if rows > 0 && cols > 0 { 40 } else { 0 };
        prop::collection::vec(entry, 0..=max).prop_map(move |entries| {
            // Duplicate positions are summed by the builder, which may overflow to infinity with
            // huge values: keep the first of each position instead.
            let mut seen = std::collections::HashSet::new();
            let mut t = sprs::TriMat::new((rows, cols));
            for (r, c, v) in entries {
                if seen.insert((r, c)) {
                    t.add_triplet(r, c, v);
                }
            }
            csr_from_triplets(&t)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_matrices_round_trip(m in matrix_strategy()) {
        let mut buf = Vec::new();
        mtx::write(&mut buf, &m).unwrap();
        let back = mtx::read(&buf[..]).unwrap().to_csr::<f64>();
        assert_same(&back, &m);
    }

    #[test]
    fn mutated_files_never_panic(
        base in 0usize..4,
        mutations in prop::collection::vec((0u8..5, any::<prop::sample::Index>(), any::<u8>()), 1..8),
    ) {
        let bases = [
            "%%MatrixMarket matrix coordinate real general\n% c\n3 4 4\n1 1 1.5\n2 3 -2e-3\n3 4 7\n3 1 .5\n",
            "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 3\n1 1\n3 1\n4 2\n",
            "%%MatrixMarket matrix array integer skew-symmetric\n3 3\n1\n-2\n3\n",
            "%%MatrixMarket matrix coordinate integer symmetric\n3 3 2\n2 1 5\n\n3 3 -1\n",
        ];
        let mut bytes = bases[base].as_bytes().to_vec();
        for (op, at, byte) in mutations {
            let i = at.index(bytes.len().max(1));
            match op {
                0 if !bytes.is_empty() => bytes[i] = byte,
                1 => bytes.insert(i.min(bytes.len()), byte),
                2 if !bytes.is_empty() => { bytes.remove(i); }
                3 => bytes.truncate(i),
                4 => {
                    let alphabet = b"0123456789 \n%.-eE+";
                    bytes.insert(i.min(bytes.len()), alphabet[byte as usize % alphabet.len()]);
                }
                _ => {}
            }
        }
        // Errors or Ok, never a panic; an Ok matrix is consistent.
        if let Ok(m) = mtx::read(&bytes[..]) {
            prop_assert!(m.triplets.triplet_iter().all(|(_, (r, c))| r < m.rows && c < m.cols));
        }
        // The same bytes compressed: errors or Ok as well.
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(&bytes).unwrap();
        let mut gz = enc.finish().unwrap();
        let _ = mtx::read(&gz[..]);
        let k = gz.len() / 2;
        gz[k] ^= 0x5a;
        let _ = mtx::read(&gz[..]);
        gz.truncate(k);
        let _ = mtx::read(&gz[..]);
    }
}

// ------------------------------------------------------------------------------------------------
// Throughput (release mode: cargo test --release -p loops-runtime --test mtx -- --ignored --nocapture)
// ------------------------------------------------------------------------------------------------

#[test]
#[ignore = "throughput measurement: run in release mode with --nocapture"]
fn read_throughput() {
    let m = generate::uniform::<f64>(400_000, 400_000, 8, 11);
    let path = tmp_path("throughput.mtx");
    let t = std::time::Instant::now();
    mtx::write_path(&path, &m).unwrap();
    let write_s = t.elapsed().as_secs_f64();
    let bytes = std::fs::metadata(&path).unwrap().len() as f64;
    // Warm the page cache, then time the parse.
    let _ = std::fs::read(&path).unwrap();
    let t = std::time::Instant::now();
    let back = mtx::read_path(&path).unwrap();
    let read_s = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    let csr = back.to_csr::<f64>();
    let csr_s = t.elapsed().as_secs_f64();
    assert_same(&csr, &m);
    let mb = bytes / 1e6;
    println!(
        "{mb:.1} MB, {} nonzeros: write {:.0} MB/s, read {:.0} MB/s ({read_s:.2} s), triplets->CSR {csr_s:.2} s",
        m.nnz(),
        mb / write_s,
        mb / read_s
    );
    std::fs::remove_file(&path).unwrap();
}

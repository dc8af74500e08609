//! The builtins, constants and conversions of the kernel language, from the front end to the
//! CUDA text: every builtin's typing on every type, as a method and as a function, its errors, and
//! the messages of what the language lacks.

use kernels_gen::cuda_for;
use kernels_gen::ir::{Arg, Form, Returns, BUILTINS, CONSTANTS};

fn lower(sig: &str, tile_body: &str) -> Result<String, String> {
    let body = format!("fn k{sig} {{ for row in a.tiles() {{ {tile_body} }} }}");
    let item: syn::ItemFn = syn::parse_str(&body).expect("test source parses as Rust");
    cuda_for(r#"schedule = "thread""#.parse().unwrap(), &item, "k.rs").map_err(|d| d.message)
}

/// A scalar parameter of each type of the language, by type.
const SIG: &str = "<T: Float>(a: Csr<T>, y: &mut [T], t: T, f: f32, d: f64, i: i32, u: u32, l: i64, w: u64, z: usize, b: bool)";
const VALUES: [(&str, &str, &str); 9] = [
    // (type, parameter, its CUDA spelling as a builtin's argument)
    ("T", "t", "t"),
    ("f32", "f", "f"),
    ("f64", "d", "d"),
    ("i32", "i", "i"),
    ("u32", "u", "u"),
    ("i64", "l", "l"),
    ("u64", "w", "w"),
    // The tile and atom variables may be `int` in the CUDA: a `usize` variable is cast for the
    // overload.
    ("usize", "z", "(unsigned long long)z"),
    ("bool", "b", "b"),
];

/// `let r: R = CALL;` in an atom loop: the CUDA, or the message.
fn call_in_body(call: &str, result: &str) -> Result<String, String> {
    lower(
        SIG,
        &format!("for nz in a.atoms(row) {{ let r: {result} = {call}; }}"),
    )
}

fn accepts(operand: kernels_gen::ir::Operand, ty: &str) -> bool {
    let float = matches!(ty, "T" | "f32" | "f64");
    let int = matches!(ty, "i32" | "u32" | "i64" | "u64" | "usize");
    let signed = matches!(ty, "i32" | "i64");
    match operand {
        kernels_gen::ir::Operand::Float => float,
        kernels_gen::ir::Operand::Integer => int,
        kernels_gen::ir::Operand::Signed => float || signed,
        kernels_gen::ir::Operand::Number => float || int,
    }
}

/// Every builtin on every type, as a method and as a free function: where its table row accepts
/// the type, both forms are the same call of the prelude's `loops_<name>` with the result type of
/// the row; elsewhere the message names the builtin, what it needs and the type.
#[test]
fn every_builtin_types_and_spells_as_its_table_says() {
    for spec in BUILTINS.iter().filter(|s| s.form == Form::Math) {
        for (ty, var, cuda_var) in VALUES {
            let (mut rust_args, mut cuda_args) = (vec![], vec![cuda_var.to_string()]);
            for arg in spec.args {
                match arg {
                    Arg::Same => {
                        rust_args.push(var.to_string());
                        cuda_args.push(cuda_var.to_string());
                    }
                    Arg::Fixed(fixed, _) if fixed.rust_name() == "i32" => {
                        rust_args.push("i".into());
                        cuda_args.push("i".into());
                    }
                    Arg::Fixed(..) => {
                        rust_args.push("u".into());
                        cuda_args.push("u".into());
                    }
                }
            }
            let name = spec.name;
            let method = format!("{var}.{name}({})", rust_args.join(", "));
            let mut all = vec![var.to_string()];
            all.extend(rust_args.iter().cloned());
            let function = format!("{name}({})", all.join(", "));
            let result = match spec.returns {
                Returns::Same => ty,
                Returns::Bool => "bool",
                Returns::U32 => "u32",
                Returns::Usize => "usize",
            };
            for call in [&method, &function] {
                let lowered = call_in_body(call, result);
                if accepts(spec.operand, ty) {
                    let src = lowered.unwrap_or_else(|e| panic!("`{call}` on {ty}: {e}"));
                    let want = format!("loops_{name}({});", cuda_args.join(", "));
                    assert!(src.contains(&want), "`{call}`: no `{want}` in\n{src}");
                } else {
                    let message = lowered.expect_err(call);
                    let want = format!("`{name}` needs {}, not `{ty}`", spec.operand.describe());
                    assert_eq!(message, want, "`{call}`");
                }
            }
        }
    }
}

#[test]
fn builtin_argument_errors_name_the_builtin_and_the_types() {
    let cases = [
        ("t.powi(u)", "T", "`powi` takes an `i32` exponent, not `u32`"),
        ("powi(f, 2u32)", "f32", "`powi` takes an `i32` exponent, not `u32`"),
        ("w.pow(i)", "u64", "`pow` takes a `u32` exponent, not `i32`"),
        ("min(f, d)", "f32", "`min` needs its operands of one type, found `f32` and `f64`"),
        ("t.mul_add(t, f)", "T", "`mul_add` needs its operands of one type, found `T` and `f32`"),
        ("t.exp(t)", "T", "wrong number of arguments for `exp`: write `x.exp()` or `exp(x)`"),
        ("clamp(t, t)", "T", "wrong number of arguments for `clamp`: write `x.clamp(y, z)` or `clamp(x, y, z)`"),
        ("u.count_ones()", "i32", "mismatched types: expected `i32`, found `u32`"),
        ("b.max(b)", "bool", "`max` needs a number, not `bool`"),
        ("i.atomic_add(1)", "i32", "`atomic_add` is a function, not a method: `atomic_add(&mut y[i], v)`"),
        ("square(t)", "T", "`square` is not a kernel builtin or a `#[loops::device]` helper in scope; builtins: min, max, abs,"),
    ];
    for (call, result, want) in cases {
        let message = call_in_body(call, result).expect_err(call);
        assert!(message.starts_with(want), "`{call}`: {message}");
    }
}

#[test]
fn untyped_literals_take_the_operands_type() {
    let cases = [
        ("powf(2.0, t)", "T", "loops_powf(T(2.0), t)"),
        ("max(0, u)", "u32", "loops_max(0u, u)"),
        ("t.clamp(0.0, 1.0)", "T", "loops_clamp(t, T(0.0), T(1.0))"),
        ("f.powi(2)", "f32", "loops_powi(f, 2)"),
        ("w.pow(3)", "u64", "loops_pow(w, 3u)"),
        (
            "mul_add(1.5, f, 0.5)",
            "f32",
            "loops_mul_add(1.5f, f, 0.5f)",
        ),
        ("l.wrapping_mul(-3)", "i64", "loops_wrapping_mul(l, -3ll)"),
    ];
    for (call, result, want) in cases {
        let src = call_in_body(call, result).unwrap_or_else(|e| panic!("`{call}`: {e}"));
        assert!(src.contains(want), "`{call}`: no `{want}` in\n{src}");
    }
    // An unsuffixed literal alone takes the type the context needs.
    let src = call_in_body("exp(1.0)", "f64").unwrap();
    assert!(src.contains("const double r = loops_exp(1.0);"), "{src}");
    // Results of another type: `u32` counts, `bool` tests.
    let src = lower(
        SIG,
        "for nz in a.atoms(row) { let c = l.leading_zeros(); let n = t.is_nan(); }",
    )
    .unwrap();
    assert!(
        src.contains("const unsigned int c = loops_leading_zeros(l);"),
        "{src}"
    );
    assert!(src.contains("const bool n = loops_is_nan(t);"), "{src}");
}

/// A softmax-like row: the constant, a method on a parenthesised expression, a free function.
#[test]
fn the_issues_examples_lower() {
    let src = lower(
        "<T: Float>(a: Csr<T>, y: &mut [T])",
        "let mut m = T::NEG_INFINITY; let mut sum = 0.0; \
         for nz in a.atoms(row) { m = max(m, a.values[nz]); } \
         for nz in a.atoms(row) { sum += (a.values[nz] - m).exp() + exp(a.values[nz] - m); } \
         y[row] = sum * T::from(2.0) + T::from(row as f64);",
    )
    .unwrap();
    assert!(
        src.contains("T m = loops_const_neg_infinity<T>();"),
        "{src}"
    );
    assert!(
        src.contains("(loops_exp((a_values[nz] - m)) + loops_exp((a_values[nz] - m)))"),
        "{src}"
    );
    assert!(
        src.contains("y[row] = ((sum * T(2.0)) + ((T)((double)row)));"),
        "{src}"
    );
}

#[test]
fn constants_have_their_types_value() {
    for spec in CONSTANTS {
        for (ty, cuda) in [("T", "T"), ("f32", "float"), ("f64", "double")] {
            let src = call_in_body(&format!("{ty}::{}", spec.name), ty).unwrap();
            let want = format!("const {cuda} r = {}<{cuda}>();", spec.cuda);
            assert!(src.contains(&want), "no `{want}` in\n{src}");
        }
        let ints = [
            ("i32", "int"),
            ("u32", "unsigned int"),
            ("i64", "long long"),
            ("u64", "unsigned long long"),
            ("usize", "unsigned long long"),
        ];
        for (ty, cuda) in ints {
            let lowered = call_in_body(&format!("{ty}::{}", spec.name), ty);
            if spec.on_integers {
                let want = format!("const {cuda} r = {}<{cuda}>();", spec.cuda);
                assert!(lowered.unwrap().contains(&want), "{want}");
            } else {
                let message = lowered.unwrap_err();
                let want = format!("`{ty}` has no constant `{}`", spec.name);
                assert!(message.starts_with(&want), "{message}");
            }
        }
    }
    // `T::MAX` has type `T`: it does not mix with f32.
    let message = call_in_body("T::MAX + f", "T").unwrap_err();
    assert!(
        message.contains("mismatched types `T` and `f32`"),
        "{message}"
    );
    for path in ["T::ZERO", "std::f32::consts::PI", "Foo::MAX", "bool::MAX"] {
        let message = call_in_body(path, "T").unwrap_err();
        assert!(
            message.contains("the constants of a float type (`T`, `f32`, `f64`) are `MAX`, `MIN`, `INFINITY`, `NEG_INFINITY`, `NAN`, `EPSILON`, `MIN_POSITIVE`, those of an integer type `MAX`, `MIN`"),
            "{path}: {message}"
        );
    }
}

#[test]
fn from_and_as_convert_between_number_types() {
    let cases = [
        ("T::from(2.0)", "T", "const T r = T(2.0);"),
        ("T::from(2)", "T", "const T r = T(2.0);"),
        ("T::from(u)", "T", "const T r = ((T)u);"),
        ("f32::from(i)", "f32", "const float r = ((float)i);"),
        (
            "u64::from(u)",
            "u64",
            "const unsigned long long r = ((unsigned long long)u);",
        ),
        (
            "u32::from(b)",
            "u32",
            "const unsigned int r = ((unsigned int)b);",
        ),
        ("l as T", "T", "const T r = ((T)l);"),
        (
            "t as usize",
            "usize",
            "const unsigned long long r = ((unsigned long long)t);",
        ),
        ("b as i32", "i32", "const int r = ((int)b);"),
    ];
    for (expr, result, want) in cases {
        let src = call_in_body(expr, result).unwrap_or_else(|e| panic!("`{expr}`: {e}"));
        assert!(src.contains(want), "`{expr}`: no `{want}` in\n{src}");
    }
    let errors = [
        ("T::from(b)", "T", "cannot cast `bool` as `T`"),
        ("b as f32", "f32", "cannot cast `bool` as `f32`"),
        ("bool::from(u)", "bool", "cannot cast `u32` as `bool`"),
        ("T::from(t, t)", "T", "`T::from` takes one argument"),
        ("u32::from(1.5)", "u32", "expected `u32`, found a float literal"),
        ("T::zero()", "T", "`T::zero` is not a function the kernel language knows; a number type has its methods as functions (`T::max(a, b)`, `T::exp(x)`;"),
        ("Vec::new()", "T", "calls of paths like `Vec::new` are not supported in a kernel body"),
    ];
    for (expr, result, want) in errors {
        let message = call_in_body(expr, result).unwrap_err();
        assert!(message.starts_with(want), "`{expr}`: {message}");
    }
    let message = call_in_body("Vec::new()", "T").unwrap_err();
    assert!(!message.contains("0.0"), "{message}");
}

/// What the language lacks is named with the right verb, one message for macros wherever they
/// stand, and unknown methods point inside the receiver first.
#[test]
fn unsupported_constructs_are_named() {
    let sig = "(a: Csr<f32>, x: &[f32], y: &mut [f32])";
    let atoms = |inner: &str| format!("for nz in a.atoms(row) {{ {inner} }}");
    let cases = [
        (atoms("loop { }"), "`loop` is not supported in a kernel body"),
        (atoms("match 1 { _ => {} }"), "`match` is not supported in a kernel body"),
        (atoms("while true { }"), "`while` loops are not supported in a kernel body"),
        (atoms("let c = |v: f32| v;"), "closures are not supported in a kernel body"),
        (atoms("let p = (1, 2);"), "tuples are not supported in a kernel body"),
        (atoms("let v = x[nz]?;"), "the `?` operator is not supported in a kernel body"),
        (atoms("println!(\"{}\", 1);"), "macros (`println!`) are not supported in a kernel body"),
        (atoms("let n = line!();"), "macros (`line!`) are not supported in a kernel body"),
        (atoms("y[row] = x.iter().count() as f32;"), "no method `iter` on slice `x`"),
        (atoms("y[row] = x[nz].sum().foo();"), "`sum` is not a method the kernel language knows"),
        (
            "let n = a.atoms(row).len(); ".to_string() + &atoms(""),
            "`len()` is the length of a slice parameter (`x.len()`); the number of atoms of a tile is `(a.row_offsets[row + 1] - a.row_offsets[row]) as usize`",
        ),
        (
            "let n = a.tiles().len(); ".to_string() + &atoms(""),
            "`len()` is the length of a slice parameter (`x.len()`); a tile set `a` has `a.num_tiles()` tiles and `a.num_atoms()` atoms",
        ),
        (atoms("let s = 1.0f32; let n = s.len();"), "`len()` is the length of a slice parameter (`x.len()`), not of this value"),
    ];
    for (body, want) in cases {
        let message = lower(sig, &body).unwrap_err();
        assert!(message.starts_with(want), "{body}: {message}");
    }
    let message = lower(
        "(a: Coo<f32>, y: &mut [f32])",
        "let n = a.atoms(row).len(); for nz in a.atoms(row) { }",
    )
    .unwrap_err();
    assert!(
        message.ends_with("counted in its atom loop (a `Coo` tile set has no offsets array)"),
        "{message}"
    );
}

/// The lists of builtins in messages are the table's.
#[test]
fn messages_list_every_builtin() {
    let message = lower(
        "(a: Csr<f32>, y: &mut [f32])",
        "for nz in a.atoms(row) { y[row] = a.values[nz].to_degrees(); }",
    )
    .unwrap_err();
    let function = lower(
        "(a: Csr<f32>, y: &mut [f32])",
        "for nz in a.atoms(row) { y[row] = to_degrees(a.values[nz]); }",
    )
    .unwrap_err();
    for spec in BUILTINS {
        let listed = |m: &str| {
            m.contains(&format!(" {},", spec.name)) || m.contains(&format!(" {}", spec.name))
        };
        assert_eq!(
            listed(&message),
            spec.form == Form::Math,
            "{}: {message}",
            spec.name
        );
        assert!(listed(&function), "{}: {function}", spec.name);
    }
}

//! Fixed CUDA: text that does not depend on the kernel body, kept in the `.cuh` files next to this
//! module (pulled in with `include_str!`) instead of in `format!` strings.
//!
//! A fragment is emitted line by line at the emitter's indentation, each line keeping its own
//! indentation on top of it, so a fragment is written as it reads in the generated kernel. In a
//! fragment, a line starting with `//` is a note for the reader of the `.cuh` file and an empty
//! line a separator: neither is emitted. `$name` stands for a value the emitting code supplies
//! (a size, a name, an expression).

use crate::emit::Cx;

/// Emits `fragment` with its `$name`s replaced by `args`.
pub(super) fn emit(cx: &mut Cx<'_>, fragment: &str, args: &[(&str, &str)]) {
    for line in lines(fragment) {
        cx.line(substitute(line, args));
    }
}

/// `fragment` on one line, its lines trimmed and joined by a space: for a lambda or an expression
/// the kernel holds on one line but the `.cuh` file spreads over several.
pub(super) fn one_line(fragment: &str, args: &[(&str, &str)]) -> String {
    let joined: Vec<&str> = lines(fragment).map(str::trim).collect();
    substitute(&joined.join(" "), args)
}

/// The lines of `fragment` that are emitted.
fn lines(fragment: &str) -> impl Iterator<Item = &str> {
    fragment.lines().filter(|line| {
        let text = line.trim_start();
        !text.is_empty() && !text.starts_with("//")
    })
}

/// `line` with each `$name` replaced by its value in `args`. A name without a value is a bug in
/// the emitting code: CUDA has no `$`.
fn substitute(line: &str, args: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let name = &after[..len];
        let value = args
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("fixed CUDA: no value for `${name}`"));
        out.push_str(value.1);
        rest = &after[len..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::{lines, one_line, substitute};

    #[test]
    fn notes_and_empty_lines_are_not_emitted() {
        let fragment = "// a note\nif (x) {\n\n    y = $value;\n}\n";
        let emitted: Vec<&str> = lines(fragment).collect();
        assert_eq!(emitted, ["if (x) {", "    y = $value;", "}"]);
    }

    #[test]
    fn names_are_replaced_whole() {
        let args = [("slots", "8"), ("slots_ready", "true")];
        assert_eq!(
            substitute("w[$slots] = $slots_ready;", &args),
            "w[8] = true;"
        );
        assert_eq!(one_line("f() {\n    g($slots);\n}", &args), "f() { g(8); }");
    }

    #[test]
    #[should_panic(expected = "no value for `$missing`")]
    fn a_name_without_a_value_is_a_bug() {
        substitute("$missing", &[]);
    }
}

//! Errors that point at the user's code.

use proc_macro2::Span;

/// A message about a construct of the kernel body, with its span. The macro turns it into a
/// `compile_error!` at that span.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub span: Span,
    pub message: String,
    /// Set where the body calls a function that is neither a builtin nor one of the helpers the
    /// front end was given: the macro then fetches that `#[loops::device]` helper's definition and
    /// tries again (see `frontend::device`), so this is an error only where no macro does.
    pub wanted_helper: Option<String>,
    /// Set where the message is about the schedule the attribute names rather than a construct
    /// of the body (a body that cannot fit it): the macro points it at the attribute's
    /// `schedule = ...` instead of `span`.
    pub about_schedule: bool,
}

impl Diagnostic {
    pub fn new(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            span,
            message: message.into(),
            wanted_helper: None,
            about_schedule: false,
        }
    }

    /// A message about the schedule as a whole ([`Diagnostic::about_schedule`]); `span` is where
    /// it points where no attribute is at hand.
    pub fn about_schedule(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            about_schedule: true,
            ..Diagnostic::new(span, message)
        }
    }

    /// A call of `name`, at `span`, that no builtin and no known helper answers.
    pub fn wants_helper(name: &str, span: Span) -> Self {
        Diagnostic {
            wanted_helper: Some(name.to_string()),
            ..Diagnostic::new(
                span,
                format!(
                    "`{name}` is not a kernel builtin or a `#[loops::device]` helper in scope; builtins: {}, {}, {}",
                    crate::ir::builtin_names(crate::ir::Form::Math),
                    crate::ir::builtin_names(crate::ir::Form::Atomic),
                    crate::ir::builtin_names(crate::ir::Form::Push)
                ),
            )
        }
    }
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diagnostic {}

#[cfg(feature = "frontend")]
impl From<Diagnostic> for syn::Error {
    fn from(d: Diagnostic) -> Self {
        syn::Error::new(d.span, d.message)
    }
}

#[cfg(feature = "frontend")]
impl From<syn::Error> for Diagnostic {
    fn from(e: syn::Error) -> Self {
        Diagnostic::new(e.span(), e.to_string())
    }
}

pub type DResult<T> = Result<T, Diagnostic>;

/// Shorthand for an early return with a spanned error.
macro_rules! bail {
    ($span:expr, $($fmt:tt)*) => {
        return Err($crate::diag::Diagnostic::new($span, format!($($fmt)*)))
    };
}
pub(crate) use bail;

/// `` (did you mean `sqrt`?)`` where `name` is a slip of one of `candidates` (an edit or two,
/// fewer for a short name), or nothing.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    let most = (name.chars().count() / 3).max(1);
    let best = candidates
        .into_iter()
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, _)| *d <= most)
        .min_by_key(|(d, _)| *d);
    match best {
        Some((_, c)) => format!(" (did you mean `{c}`?)"),
        None => String::new(),
    }
}

/// Levenshtein distance between two names.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slip_of_a_name_is_suggested() {
        assert_eq!(edit_distance("sqr", "sqrt"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(
            did_you_mean("sqr", ["sqrt", "exp"]),
            " (did you mean `sqrt`?)"
        );
        assert_eq!(
            did_you_mean("is_infinite", ["is_finite", "is_nan"]),
            " (did you mean `is_finite`?)"
        );
        assert_eq!(did_you_mean("sigmoid", ["sin", "exp", "signum"]), "");
    }
}

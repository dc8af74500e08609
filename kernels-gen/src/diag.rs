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
                    "`{name}` is not a kernel builtin or a `#[loops::device]` helper in scope; builtins: {}, {}",
                    crate::ir::builtin_names(crate::ir::Form::Math),
                    crate::ir::builtin_names(crate::ir::Form::Atomic)
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

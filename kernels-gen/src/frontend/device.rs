//! `#[loops::device]` helpers across items. A proc macro sees only the item it is attached to, so
//! a helper's definition travels to the kernels that call it through a `macro_rules!` named like
//! the helper:
//!
//! - `#[loops::device] fn square<T: Float>(x: T) -> T { x * x }` defines (in a hidden module, with
//!   `#[macro_use]` so that it is in scope for the rest of the module, and imported beside the
//!   function, so that `use crate::math::square;` brings it) `macro_rules! square` whose only job
//!   is `square! { [continuation] args }` => `continuation! { args fn square<T: Float>(..) {..} }`;
//! - `#[load_balanced]`, meeting a call of a function that is neither a builtin nor a helper it
//!   holds, expands to `square! { [::loops::__private::load_balanced_with] [attr] [kernel] helpers }`,
//!   and `load_balanced_with!` lowers the kernel again with the helper added, until every call
//!   resolves (helpers calling helpers included); then it expands as `#[load_balanced]` does.
//!
//! A helper is also checked where it is defined, the same way (`device_check!` fetches the helpers
//! its body calls, for their signatures). A call of a function no macro answers is rustc's
//! "cannot find macro `square` in this scope" at the call: a macro cannot be given a fallback that
//! applies only where no helper is in scope (a glob-imported fallback is ambiguous with a
//! glob-imported helper, and one in the kernel's module with a helper from its parent module).

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use syn::parse::{ParseStream, Parser};

use super::body::{validate_helper, HelperItem};

/// `#[loops::device]`: the helper's macro, its import, the function itself where it is valid host
/// Rust (`on_host`), and the check of its body.
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut out = TokenStream::new();
    if let Some(first) = attr.clone().into_iter().next() {
        let message = "`#[loops::device]` takes no arguments";
        out.extend(syn::Error::new(first.span(), message).to_compile_error());
    }
    let func: syn::ItemFn = match syn::parse2(item) {
        Ok(f) => f,
        Err(e) => return e.to_compile_error(),
    };
    out.extend(definition(&func));
    out.extend(check(&func, Vec::new()));
    out
}

/// The continuation of a helper's check: `[helper] callees..`.
pub fn device_check(input: TokenStream) -> TokenStream {
    let parser = |input: ParseStream| {
        let item;
        syn::bracketed!(item in input);
        let func: syn::ItemFn = item.parse()?;
        Ok((func, helper_items(input)?))
    };
    match parser.parse2(input) {
        Ok((func, callees)) => check(&func, callees),
        Err(e) => e.to_compile_error(),
    }
}

/// The continuation of a kernel: `[attr] [kernel] helpers..`.
pub fn load_balanced_with(input: TokenStream) -> TokenStream {
    let parser = |input: ParseStream| {
        let (attr, item);
        syn::bracketed!(attr in input);
        let attr: TokenStream = attr.parse()?;
        syn::bracketed!(item in input);
        let item: TokenStream = item.parse()?;
        Ok((attr, item, helper_items(input)?))
    };
    match parser.parse2(input) {
        Ok((attr, item, helpers)) => super::expand::expand_with(attr, item, helpers),
        Err(e) => e.to_compile_error(),
    }
}

/// `name! { [continuation] args }`: asks the helper `name`'s macro (looked up where `span` is)
/// for its definition, to be handed to `continuation` after `args`.
pub(super) fn fetch(
    name: &str,
    span: Span,
    continuation: TokenStream,
    args: TokenStream,
) -> TokenStream {
    let helper = match name.strip_prefix("r#") {
        Some(raw) => proc_macro2::Ident::new_raw(raw, span),
        None => proc_macro2::Ident::new(name, span),
    };
    quote!(#helper! { [#continuation] #args })
}

/// The definitions handed over so far, each with the file it is written in.
fn helper_items(input: ParseStream) -> syn::Result<Vec<HelperItem>> {
    let mut helpers = Vec::new();
    while !input.is_empty() {
        let item: syn::ItemFn = input.parse()?;
        let file = item.sig.ident.span().file();
        helpers.push(HelperItem { item, file });
    }
    Ok(helpers)
}

fn check(func: &syn::ItemFn, callees: Vec<HelperItem>) -> TokenStream {
    let Err(d) = validate_helper(func, &callees) else {
        return TokenStream::new();
    };
    match &d.wanted_helper {
        Some(name) => {
            let callees = callees.iter().map(|c| &c.item);
            let args = quote!([#func] #(#callees)*);
            fetch(name, d.span, quote!(::loops::__private::device_check), args)
        }
        None => syn::Error::from(d).to_compile_error(),
    }
}

/// The helper's macro in a hidden module, imported beside the function with its visibility (a
/// `macro_rules!` is at most `pub(crate)`, so a helper is used within its crate).
fn definition(func: &syn::ItemFn) -> TokenStream {
    let name = &func.sig.ident;
    let module = format_ident!(
        "__loops_device_{}",
        name.to_string().trim_start_matches("r#")
    );
    let mut bare = func.clone();
    bare.attrs.clear();
    bare.vis = syn::Visibility::Inherited;
    let vis = match &func.vis {
        syn::Visibility::Public(_) => quote!(pub(crate)),
        other => other.to_token_stream(),
    };
    let host = if on_host(func) {
        quote!(#[allow(dead_code)] #func)
    } else {
        TokenStream::new()
    };
    quote! {
        #host
        #[doc(hidden)]
        #[macro_use]
        #[allow(non_snake_case)]
        mod #module {
            #[allow(unused_macros)]
            macro_rules! #name {
                ([$($loops_continuation:tt)*] $($loops_args:tt)*) => {
                    $($loops_continuation)*! { $($loops_args)* #bare }
                };
            }
            #[allow(unused_imports)]
            pub(crate) use #name;
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        #vis use #module::#name;
    }
}

/// Whether the helper is also kept as a Rust function: where its body is Rust of the same meaning,
/// which is where it is not generic (an unsuffixed literal takes `T` in the kernel language, and
/// `Float` has no arithmetic beyond `+` and `*`) and calls no function (the builtins `min(a, b)`,
/// `sqrt(x)` and the helpers are device functions; methods like `x.abs()` are Rust's own).
fn on_host(func: &syn::ItemFn) -> bool {
    func.sig.generics.params.is_empty() && !calls_a_function(func.block.to_token_stream())
}

/// Whether `tokens` hold `name(..)` (not `.name(..)`, not a keyword before parentheses).
fn calls_a_function(tokens: TokenStream) -> bool {
    const KEYWORDS: &[&str] = &[
        "if", "while", "match", "return", "in", "for", "let", "mut", "as", "else", "break",
    ];
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    trees.iter().enumerate().any(|(i, tree)| match tree {
        TokenTree::Ident(id) => {
            let called = matches!(trees.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis);
            let method = i > 0 && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '.');
            called && !method && !KEYWORDS.contains(&id.to_string().as_str())
        }
        TokenTree::Group(g) => calls_a_function(g.stream()),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> TokenStream {
        text.parse().unwrap()
    }

    /// Token text without the spaces `TokenStream`'s `Display` puts between tokens.
    fn squeezed(t: TokenStream) -> String {
        t.to_string().replace(' ', "")
    }

    const SQUARE: &str = "fn square<T: Float>(x: T) -> T { x * x }";
    const KERNEL: &str = "pub fn k<T: Float>(a: Csr<T>, x: &[T], y: &mut [T]) {
        for row in a.tiles() {
            let mut sum = 0.0;
            for nz in a.atoms(row) { sum += square(a.values[nz]) * x[a.col_indices[nz] as usize]; }
            y[row] = sum;
        }
    }";

    /// A kernel calling a helper it does not hold asks the helper's macro for its definition,
    /// handing over the attribute and itself; with the definition, it expands in full.
    #[test]
    fn a_kernel_fetches_the_helpers_it_calls() {
        let attr = r#"schedule = "work_oriented""#;
        let first = squeezed(super::super::expand(tokens(attr), tokens(KERNEL)));
        assert!(
            first.starts_with(
                r#"square!{[::loops::__private::load_balanced_with][schedule="work_oriented"][pubfnk"#
            ),
            "{first}"
        );
        let helpers = vec![HelperItem {
            item: syn::parse_str(SQUARE).unwrap(),
            file: "math.rs".into(),
        }];
        let done = super::super::expand::expand_with(tokens(attr), tokens(KERNEL), helpers);
        let done_text = done.to_string();
        assert!(!done_text.contains("compile_error"), "{done_text}");
        assert!(done_text.contains("loops_fn_square<T>(a_values[nz])"));
        // The analyses see the call as a pure operand of the atom alone: `work_oriented` stages
        // it and scans.
        assert!(done_text.contains("scans : true"), "{done_text}");
        // The continuation reads the same arguments back.
        let again = load_balanced_with(tokens(&format!("[{attr}] [{KERNEL}] {SQUARE}")));
        let again = again.to_string();
        assert!(
            again.contains("loops_fn_square<T>(a_values[nz])") && again.contains("scans : true")
        );
    }

    /// `#[loops::device]`: the helper's macro in a hidden module, imported beside the function; the
    /// function itself where it is plain Rust (concrete, calling nothing).
    #[test]
    fn a_helper_is_a_macro_and_sometimes_a_function() {
        let generic = squeezed(device(TokenStream::new(), tokens(SQUARE)));
        assert!(
            generic.contains(
                "#[doc(hidden)]#[macro_use]#[allow(non_snake_case)]mod__loops_device_square{"
            ),
            "{generic}"
        );
        assert!(
            generic.contains("macro_rules!square{([$($loops_continuation:tt)*]$($loops_args:tt)*)=>{$($loops_continuation)*!{$($loops_args)*fnsquare<T:Float>(x:T)->T{x*x}}};}"),
            "{generic}"
        );
        assert!(generic.contains("pub(crate)usesquare;"), "{generic}");
        assert!(generic.contains("use__loops_device_square::square;"));
        assert!(
            !generic.contains("#[allow(dead_code)]fnsquare"),
            "{generic}"
        );
        let concrete = squeezed(device(
            TokenStream::new(),
            tokens("pub fn halve(v: f32) -> f32 { v.abs() * 0.5 }"),
        ));
        assert!(concrete.contains("#[allow(dead_code)]pubfnhalve(v:f32)"));
        assert!(concrete.contains("pub(crate)use__loops_device_halve::halve;"));
        let calls = squeezed(device(
            TokenStream::new(),
            tokens("fn halve(v: f32) -> f32 { min(v, 1.0) * 0.5 }"),
        ));
        assert!(!calls.contains("#[allow(dead_code)]"), "{calls}");
    }

    /// A helper calling another is checked with the other's signature, fetched where the helper is
    /// written; its own errors are reported there.
    #[test]
    fn a_helper_is_checked_where_it_is_written() {
        let norm = "fn norm2<T: Float>(p: T, q: T) -> T { square(p) + square(q) }";
        let first = squeezed(device(TokenStream::new(), tokens(norm)));
        assert!(
            first.contains("square!{[::loops::__private::device_check][fnnorm2"),
            "{first}"
        );
        let checked = device_check(tokens(&format!("[{norm}] {SQUARE}")));
        assert!(checked.is_empty(), "{checked}");
        let wrong = device_check(tokens(&format!(
            "[fn f(p: u32) -> u32 {{ square(p) }}] {SQUARE}"
        )));
        assert!(wrong.to_string().contains("takes a float"), "{wrong}");
        let args = device(tokens("inline"), tokens(SQUARE)).to_string();
        assert!(args.contains("takes no arguments"), "{args}");
    }
}

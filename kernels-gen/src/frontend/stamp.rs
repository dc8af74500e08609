//! `#[for_schedules(all)]`, `#[for_schedules(thread, warp, merge_path12)]`,
//! `#[for_schedules(core, except(lrb), split3)]`: one kernel written once and stamped under
//! several named schedules ([`crate::schedule::SCHEDULES`]; `core`: those marked
//! [`NamedSchedule::core`], every unit at least once), one module per
//! schedule (`spmv::group4::spmv`), each the kernel under `#[load_balanced(..)]` with that named
//! schedule's arguments. Beside the modules: `SCHEDULES` (the module names), `SOURCES` and
//! `CHECKED_SOURCES` (each module's generated CUDA), `KERNELS` (each one's description), and
//! `launch(schedule, gpu, ..)`, which runs the kernel under the schedule named at run time.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote};
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::Token;

use crate::diag::{bail, DResult};
use crate::schedule::{closest, named, NamedSchedule, SCHEDULES};

/// The whole macro: the list of schedules and the kernel in, the modules and the items beside them
/// out (a `compile_error!` at the span on failure).
pub fn for_schedules(attr: TokenStream, item: TokenStream) -> TokenStream {
    match try_for_schedules(attr, item) {
        Ok(tokens) => tokens,
        Err(d) => syn::Error::from(d).to_compile_error(),
    }
}

/// One element of the list: a set of named schedules (`all`, `core`), a named schedule, or
/// `except(..)`, which takes named schedules out of what the elements before it chose.
enum Element {
    Name(syn::Ident),
    Except(Vec<syn::Ident>),
}

/// The sets the list may name, each with the named schedules it holds (in `SCHEDULES`' order).
fn set(name: &str) -> Option<Vec<&'static NamedSchedule>> {
    match name {
        "all" => Some(SCHEDULES.iter().collect()),
        "core" => Some(SCHEDULES.iter().filter(|s| s.core).collect()),
        _ => None,
    }
}

const LIST_HELP: &str = "#[for_schedules] takes names of `loops::SCHEDULES`, the sets `all` and \
     `core` (every unit at least once), and `except(..)`, e.g. #[for_schedules(thread, warp, \
     merge_path)], #[for_schedules(core, except(lrb), split3)]";

/// The names in the attribute, each with the span it is written at: the elements in order, a
/// set's schedules in `SCHEDULES`' order, less those an `except(..)` takes out.
pub fn parse_schedule_list(attr: TokenStream) -> DResult<Vec<(&'static NamedSchedule, Span)>> {
    let list = |input: ParseStream| {
        Punctuated::<Element, Token![,]>::parse_terminated_with(input, element)
    };
    let elements = list
        .parse2(attr)
        .map_err(|e| syn::Error::new(e.span(), format!("{e}: {LIST_HELP}")))?;
    if elements.is_empty() {
        bail!(
            Span::call_site(),
            "#[for_schedules] needs its schedules: {LIST_HELP}"
        );
    }
    let mut chosen: Vec<(&'static NamedSchedule, Span)> = Vec::new();
    // Where each chosen schedule came from (a set's name, or none): for the duplicate's error.
    let mut from: Vec<Option<String>> = Vec::new();
    for element in &elements {
        match element {
            Element::Name(ident) => {
                let text = ident.to_string();
                let (members, set_name) = match set(&text) {
                    Some(members) => (members, Some(text.clone())),
                    None => match named(&text) {
                        Some(schedule) => (vec![schedule], None),
                        None => bail!(ident.span(), "{}", unknown_name(&text)),
                    },
                };
                for schedule in members {
                    if let Some(i) = chosen.iter().position(|(s, _)| s.name == schedule.name) {
                        let how = match (&from[i], &set_name) {
                            (Some(set), _) | (None, Some(set)) => format!(
                                "`{}` is listed twice (`{set}` holds it): take it out with \
                                 `except({})`, or leave out its name",
                                schedule.name, schedule.name
                            ),
                            (None, None) => format!("`{text}` is listed twice"),
                        };
                        bail!(ident.span(), "{how}");
                    }
                    chosen.push((schedule, ident.span()));
                    from.push(set_name.clone());
                }
            }
            Element::Except(idents) => {
                for ident in idents {
                    let text = ident.to_string();
                    let Some(i) = chosen.iter().position(|(s, _)| s.name == text) else {
                        match named(&text) {
                            Some(_) => bail!(
                                ident.span(),
                                "`{text}` is not in the list before this `except`"
                            ),
                            None => bail!(ident.span(), "{}", unknown_name(&text)),
                        }
                    };
                    chosen.remove(i);
                    from.remove(i);
                }
            }
        }
    }
    if chosen.is_empty() {
        bail!(
            Span::call_site(),
            "#[for_schedules] leaves no schedule: {LIST_HELP}"
        );
    }
    Ok(chosen)
}

/// An element of the list: `except(name, ..)` or a name (a set's or a schedule's).
fn element(input: ParseStream) -> syn::Result<Element> {
    let ident = schedule_ident(input)?;
    if ident == "except" && input.peek(syn::token::Paren) {
        let inner;
        syn::parenthesized!(inner in input);
        let names =
            Punctuated::<syn::Ident, Token![,]>::parse_terminated_with(&inner, schedule_ident)?;
        if names.is_empty() {
            return Err(syn::Error::new(
                ident.span(),
                "`except(..)` needs the names it takes out",
            ));
        }
        return Ok(Element::Except(names.into_iter().collect()));
    }
    Ok(Element::Name(ident))
}

/// A name of the list; a string literal (`"warp"`) is an error that says to drop the quotes.
fn schedule_ident(input: ParseStream) -> syn::Result<syn::Ident> {
    if input.peek(syn::LitStr) {
        let lit: syn::LitStr = input.parse()?;
        return Err(syn::Error::new(
            lit.span(),
            format!(
                "write the schedule's name without quotes: `{}`",
                lit.value()
            ),
        ));
    }
    input.parse()
}

/// The error for a name that is not a named schedule: the one it is a slip of, then every name.
fn unknown_name(name: &str) -> String {
    let names = || SCHEDULES.iter().map(|s| s.name);
    let hint = match closest(name, names()) {
        Some(c) => format!("did you mean `{c}`? "),
        None => String::new(),
    };
    let all: Vec<&str> = names().collect();
    format!(
        "unknown schedule `{name}`; {hint}#[for_schedules] takes `all`, `core`, `except(..)` or \
         names of `loops::SCHEDULES`: {}",
        all.join(", ")
    )
}

fn try_for_schedules(attr: TokenStream, item: TokenStream) -> DResult<TokenStream> {
    let chosen = parse_schedule_list(attr)?;
    let func: syn::ItemFn = syn::parse2(item)?;
    // The launch's parameters are the wrappers': checked here once, not under every schedule.
    let (type_params, params) = super::body::lower_signature(&func.sig)?;
    let vis = &func.vis;
    let name = &func.sig.ident;
    let name_str = name.to_string();

    // Inside its module the kernel must be visible to `launch` beside the module.
    let mut kernel = func.clone();
    if matches!(kernel.vis, syn::Visibility::Inherited) {
        kernel.vis = syn::parse_quote!(pub(super));
    }
    let modules = chosen.iter().map(|&(schedule, span)| {
        let module = syn::Ident::new(schedule.name, span);
        let attr = respan(
            schedule
                .attr
                .parse()
                .expect("a named schedule's attribute lexes"),
            span,
        );
        let doc = format!(
            "`{name_str}` under `{}`: `#[load_balanced({})]`, {}.",
            schedule.name, schedule.attr, schedule.about
        );
        quote! {
            #[doc = #doc]
            #vis mod #module {
                #[allow(unused_imports)]
                use super::*;

                #[::loops::load_balanced(#attr)]
                #kernel
            }
        }
    });

    let names: Vec<&str> = chosen.iter().map(|(s, _)| s.name).collect();
    let modules_idents: Vec<syn::Ident> = chosen
        .iter()
        .map(|&(s, span)| syn::Ident::new(s.name, span))
        .collect();
    let generics: Vec<TokenStream> = type_params
        .iter()
        .map(|t| {
            let t = format_ident!("{}", t);
            quote!(#t: ::loops::Float)
        })
        .collect();
    let (launch_params, _) = super::expand::params_and_pushes(&params);
    let args: Vec<syn::Ident> = params.iter().map(|p| format_ident!("{}", p.name)).collect();
    // The launch's own names do not meet the kernel's parameters, whatever those are called.
    let schedule = syn::Ident::new("schedule", Span::mixed_site());
    let gpu = syn::Ident::new("gpu", Span::mixed_site());
    let other = syn::Ident::new("other", Span::mixed_site());
    let arms = names
        .iter()
        .zip(&modules_idents)
        .map(|(n, m)| quote!(#n => #m::#name(#gpu, #(#args),*),));
    let launch_doc = format!(
        "Launches `{name_str}` under the schedule named `schedule` (one of [`SCHEDULES`]): \
         the module of that name's `{name_str}`. An error names the schedules where it is none \
         of them."
    );
    Ok(quote! {
        #(#modules)*

        /// The schedules this kernel is stamped under (`#[for_schedules]`): its modules' names,
        /// as in `loops::SCHEDULES`.
        #vis const SCHEDULES: &[&str] = &[#(#names),*];

        /// The generated CUDA of the kernel under each schedule, by schedule.
        #vis const SOURCES: &[(&str, &str)] = &[#((#names, #modules_idents::#name::CUDA_SOURCE)),*];

        /// The bounds-checked CUDA of the kernel under each schedule, by schedule.
        #vis const CHECKED_SOURCES: &[(&str, &str)] =
            &[#((#names, #modules_idents::#name::CUDA_SOURCE_CHECKED)),*];

        /// The kernel's description under each schedule (every source of it: plain, checked,
        /// wide), by schedule.
        #vis const KERNELS: &[(&str, &::loops::__private::KernelDesc)] =
            &[#((#names, &#modules_idents::#name::KERNEL)),*];

        #[doc = #launch_doc]
        #[allow(clippy::too_many_arguments)]
        #vis fn launch<#(#generics),*>(
            #schedule: &str,
            #gpu: &::loops::Gpu,
            #(#launch_params),*
        ) -> ::loops::Result<()> {
            match #schedule {
                #(#arms)*
                #other => ::core::result::Result::Err(::loops::LoopsError::InvalidArgument {
                    op: #name_str,
                    detail: ::std::format!(
                        "no schedule `{}`; the kernel is stamped under {:?}",
                        #other,
                        SCHEDULES
                    ),
                }),
            }
        }
    })
}

/// `tokens` with every span set to `span`: the arguments of a named schedule, written where the
/// name is, so that an error about them points at it.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let TokenTree::Group(g) = &tree {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                return TokenTree::Group(group);
            }
            tree.set_span(span);
            tree
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(attr: &str) -> Result<Vec<&'static str>, String> {
        parse_schedule_list(attr.parse().unwrap())
            .map(|v| v.into_iter().map(|(s, _)| s.name).collect())
            .map_err(|d| d.message)
    }

    #[test]
    fn the_list_names_schedules_or_all() {
        assert_eq!(names("all").unwrap().len(), SCHEDULES.len());
        assert_eq!(
            names("thread, group4, merge_path12").unwrap(),
            ["thread", "group4", "merge_path12"]
        );
        let err = names("thread, mergepath").unwrap_err();
        assert!(err.contains("did you mean `merge_path`?"), "{err}");
        assert!(err.contains("hierarchical3"), "{err}");
        assert!(names("warp, warp").unwrap_err().contains("twice"));
        assert!(names("all, warp").unwrap_err().contains("`all` holds it"));
        assert!(names("warp, core").unwrap_err().contains("`core` holds it"));
        // `core`: the named schedules marked core, each unit at least once.
        let core = names("core").unwrap();
        let marked: Vec<&str> = SCHEDULES
            .iter()
            .filter(|s| s.core)
            .map(|s| s.name)
            .collect();
        assert_eq!(core, marked);
        for s in ["thread", "warp", "merge_path", "lrb", "auto"] {
            assert!(core.contains(&s), "{s}");
        }
        assert!(!core.contains(&"group4") && !core.contains(&"split3"));
        let mixed = names("core, except(group2, split, hierarchical), group4, split3").unwrap();
        let mut want: Vec<&str> = marked
            .iter()
            .copied()
            .filter(|s| !["group2", "split", "hierarchical"].contains(s))
            .collect();
        want.extend(["group4", "split3"]);
        assert_eq!(mixed, want);
        assert_eq!(
            names("all, except(auto)").unwrap().len(),
            SCHEDULES.len() - 1
        );
        assert!(names("thread, except(warp)")
            .unwrap_err()
            .contains("not in the list"));
        assert!(names("thread, except(wrap)")
            .unwrap_err()
            .contains("did you mean `warp`?"));
        assert!(names("thread, except()")
            .unwrap_err()
            .contains("needs the names"));
        assert!(names("thread, except(thread)")
            .unwrap_err()
            .contains("leaves no schedule"));
        assert!(names("\"warp\"").unwrap_err().contains("without quotes"));
        assert!(names("").unwrap_err().contains("needs its schedules"));
    }

    #[test]
    fn every_schedule_gets_a_module_and_launch_its_arm() {
        let item: TokenStream = "pub fn spmv<T: Float>(a: Csr<T>, x: &[T], y: &mut [T]) { \
             for row in a.tiles() { let mut s = 0.0; for nz in a.atoms(row) { s += a.values[nz] * x[a.col_indices[nz] as usize]; } y[row] = s; } }"
            .parse()
            .unwrap();
        let out = for_schedules("thread, group4".parse().unwrap(), item).to_string();
        assert!(out.contains("pub mod thread"), "{out}");
        assert!(out.contains("pub mod group4"), "{out}");
        assert!(
            out.contains("# [:: loops :: load_balanced (schedule = \"group\" , group_size = 4)]"),
            "{out}"
        );
        assert!(
            out.contains("\"group4\" => group4 :: spmv (gpu , a , x , y)"),
            "{out}"
        );
        assert!(out.contains("a : & :: loops :: DeviceCsr < T >"), "{out}");
    }
}

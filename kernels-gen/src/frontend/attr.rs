//! `#[load_balanced(schedule = "...", block_size = N, ...)]`.

use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Lit, MetaNameValue, Token};

use crate::diag::{bail, DResult};
use crate::schedule::{
    closest, named, AttrArgs, ScheduleConfig, ScheduleUnit, DEFAULT_BLOCK_SIZE, SCHEDULES, UNITS,
};

/// The unit that takes the schedule name `name`, if any.
fn unit_named(name: &str) -> Option<&'static dyn ScheduleUnit> {
    UNITS.iter().copied().find(|u| u.names().contains(&name))
}

/// The error for a schedule name no unit takes: the name it is a slip of, or the arguments of the
/// named schedule it is (`group4` is `schedule = "group", group_size = 4`), then every name.
fn unknown_schedule(name: &str) -> String {
    let names = || UNITS.iter().flat_map(|u| u.names().iter().copied());
    let all: Vec<String> = names().map(|s| format!("\"{s}\"")).collect();
    let all = all.join(", ");
    if let Some(n) = named(name) {
        return format!(
            "`{name}` names a schedule of `loops::SCHEDULES` (a module of `#[for_schedules]`), \
             not one the attribute takes: write #[load_balanced({})]; the attribute's schedules \
             are: {all}",
            n.attr
        );
    }
    let hint = match closest(name, names()) {
        Some(c) => format!("did you mean `{c}`? "),
        None => match closest(name, SCHEDULES.iter().map(|s| s.name)) {
            Some(c) => format!("did you mean `{}`? ", named(c).map_or(c, |n| n.attr)),
            None => String::new(),
        },
    };
    format!("unknown schedule `{name}`; {hint}expected one of: {all}")
}

/// Every key the attribute takes: `schedule`, `block_size`, then the schedules' own.
fn keys() -> Vec<&'static str> {
    let mut keys = vec!["schedule", "block_size"];
    for unit in UNITS {
        for name in unit.names() {
            for key in unit.arg_keys(name) {
                if !keys.contains(key) {
                    keys.push(key);
                }
            }
        }
    }
    keys
}

/// The schedules that take `key`, as the error for a misplaced key names them: `schedule =
/// "split"` for one, `` `work_oriented` and `merge_path` `` for several.
fn owners(key: &str) -> String {
    let names: Vec<&str> = UNITS
        .iter()
        .flat_map(|u| u.names().iter().filter(|n| u.arg_keys(n).contains(&key)))
        .copied()
        .collect();
    match names.as_slice() {
        [one] => format!("`schedule = \"{one}\"`"),
        [init @ .., last] => {
            let init: Vec<String> = init.iter().map(|n| format!("`{n}`")).collect();
            format!("{} and `{last}`", init.join(", "))
        }
        [] => "no schedule".into(),
    }
}

/// Parses the attribute's arguments into a schedule configuration.
pub fn parse_attr(tokens: proc_macro2::TokenStream) -> DResult<ScheduleConfig> {
    let args = Punctuated::<MetaNameValue, Token![,]>::parse_terminated.parse2(tokens)?;
    let keys = keys();
    let mut schedule: Option<(String, proc_macro2::Span, &'static dyn ScheduleUnit)> = None;
    let mut block_size = None;
    let mut others = Vec::new();
    for arg in &args {
        let key = arg
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        match key.as_str() {
            "schedule" => {
                let (name, span) = string_value(&arg.value, "schedule")?;
                if schedule.is_some() {
                    bail!(
                        arg.path.get_ident().unwrap().span(),
                        "`schedule` is given twice"
                    );
                }
                let Some(unit) = unit_named(&name) else {
                    bail!(span, "{}", unknown_schedule(&name));
                };
                schedule = Some((name, span, unit));
            }
            "block_size" => {
                let (n, span) = int_value(&arg.value, "block_size")?;
                if !(32..=1024).contains(&n) || n % 32 != 0 {
                    bail!(
                        span,
                        "`block_size` must be a multiple of 32 from 32 to 1024, not {n}"
                    );
                }
                block_size = Some(n as u32);
            }
            k if keys.contains(&k) => {
                let (n, span) = int_value(&arg.value, k)?;
                others.push((key, n, span));
            }
            _ => bail!(
                arg.path.span_or_call_site(),
                "unknown argument `{}` of #[load_balanced]; expected one of: {}",
                quote::ToTokens::to_token_stream(&arg.path),
                keys.join(", ")
            ),
        }
    }
    let Some((name, name_span, unit)) = schedule else {
        bail!(
            proc_macro2::Span::call_site(),
            "#[load_balanced] needs a schedule, e.g. #[load_balanced(schedule = \"thread\")]"
        );
    };
    for (key, _, span) in &others {
        if !unit.arg_keys(&name).contains(&key.as_str()) {
            bail!(*span, "`{key}` belongs to {}, not \"{name}\"", owners(key));
        }
    }
    let args = AttrArgs {
        name,
        name_span,
        block_size: block_size.unwrap_or(DEFAULT_BLOCK_SIZE),
        args: others,
    };
    Ok(ScheduleConfig {
        schedule: unit.parse(&args)?,
        block_size: args.block_size,
    })
}

/// The span of the attribute's `schedule = "..."`, where a message about the schedule as a whole
/// points ([`crate::diag::Diagnostic::about_schedule`]); the call site where there is none.
pub fn schedule_span(tokens: proc_macro2::TokenStream) -> proc_macro2::Span {
    Punctuated::<MetaNameValue, Token![,]>::parse_terminated
        .parse2(tokens)
        .ok()
        .and_then(|args| args.into_iter().find(|a| a.path.is_ident("schedule")))
        .map(|a| syn::spanned::Spanned::span(&a.value))
        .unwrap_or_else(proc_macro2::Span::call_site)
}

trait SpanOrCallSite {
    fn span_or_call_site(&self) -> proc_macro2::Span;
}

impl SpanOrCallSite for syn::Path {
    fn span_or_call_site(&self) -> proc_macro2::Span {
        self.segments
            .first()
            .map(|s| s.ident.span())
            .unwrap_or_else(proc_macro2::Span::call_site)
    }
}

fn string_value(value: &Expr, key: &str) -> DResult<(String, proc_macro2::Span)> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Ok((s.value(), s.span())),
        other => bail!(
            syn::spanned::Spanned::span(other),
            "`{key}` takes a string, e.g. {key} = \"thread\""
        ),
    }
}

fn int_value(value: &Expr, key: &str) -> DResult<(u64, proc_macro2::Span)> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => match i.base10_parse::<u64>() {
            Ok(n) => Ok((n, i.span())),
            Err(_) => bail!(i.span(), "`{key}` takes a positive integer"),
        },
        other => bail!(
            syn::spanned::Spanned::span(other),
            "`{key}` takes an integer, e.g. {key} = 256"
        ),
    }
}

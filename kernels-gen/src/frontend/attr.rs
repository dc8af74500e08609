//! `#[load_balanced(schedule = "...", block_size = N, ...)]`.

use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Lit, MetaNameValue, Token};

use crate::diag::{bail, DResult};
use crate::schedule::group::MAX_GROUPS_WITH_BARRIERS;
use crate::schedule::{Schedule, ScheduleConfig, DEFAULT_BLOCK_SIZE, DEFAULT_ITEMS_PER_THREAD};

const KEYS: &[&str] = &[
    "schedule",
    "block_size",
    "group_size",
    "items_per_thread",
    "mdt",
];
const SCHEDULES: &[&str] = &[
    "thread",
    "group",
    "warp",
    "block",
    "work_oriented",
    "merge_path",
    "split",
    "lrb",
    "auto",
];

/// Parses the attribute's arguments into a schedule configuration.
pub fn parse_attr(tokens: proc_macro2::TokenStream) -> DResult<ScheduleConfig> {
    let args = Punctuated::<MetaNameValue, Token![,]>::parse_terminated.parse2(tokens)?;
    let mut schedule = None;
    let mut block_size = None;
    let mut group_size = None;
    let mut items_per_thread = None;
    let mut mdt = None;
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
                schedule = Some(match name.as_str() {
                    "thread" | "group" | "warp" | "block" | "work_oriented" | "merge_path"
                    | "split" | "lrb" | "auto" => (name, span),
                    other => bail!(
                        span,
                        "unknown schedule `{other}`; expected one of: {}",
                        SCHEDULES
                            .iter()
                            .map(|s| format!("\"{s}\""))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                });
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
            "group_size" => group_size = Some(int_value(&arg.value, "group_size")?),
            "items_per_thread" => {
                items_per_thread = Some(int_value(&arg.value, "items_per_thread")?)
            }
            "mdt" => mdt = Some(int_value(&arg.value, "mdt")?),
            _ => bail!(
                arg.path.span_or_call_site(),
                "unknown argument `{}` of #[load_balanced]; expected one of: {}",
                quote::ToTokens::to_token_stream(&arg.path),
                KEYS.join(", ")
            ),
        }
    }
    let Some((name, name_span)) = schedule else {
        bail!(
            proc_macro2::Span::call_site(),
            "#[load_balanced] needs a schedule, e.g. #[load_balanced(schedule = \"thread\")]"
        );
    };
    let block_size = block_size.unwrap_or(DEFAULT_BLOCK_SIZE);
    if let (Some((_, span)), false) = (group_size, name == "group") {
        bail!(
            span,
            "`group_size` belongs to `schedule = \"group\"`, not \"{name}\""
        );
    }
    let carries = name == "work_oriented" || name == "merge_path";
    if let (Some((_, span)), false) = (items_per_thread, carries) {
        bail!(
            span,
            "`items_per_thread` belongs to `work_oriented` and `merge_path`, not \"{name}\""
        );
    }
    if let (Some((_, span)), false) = (mdt, name == "split") {
        bail!(
            span,
            "`mdt` belongs to `schedule = \"split\"`, not \"{name}\""
        );
    }
    let schedule = match name.as_str() {
        "thread" => Schedule::Thread,
        "lrb" => Schedule::Lrb,
        "split" => {
            match mdt {
                None => Schedule::Split { mdt: 0 },
                Some((n, span)) if !(1..=i32::MAX as u64).contains(&n) => {
                    bail!(span, "`mdt` (the most atoms of a virtual tile) must be from 1 to i32::MAX, not {n}")
                }
                Some((n, _)) => Schedule::Split { mdt: n as u32 },
            }
        }
        "auto" => Schedule::Auto,
        "warp" => Schedule::Group { group_size: 32 },
        "block" => Schedule::Group {
            group_size: block_size,
        },
        "group" => {
            let Some((g, span)) = group_size else {
                bail!(
                    name_span,
                    "`schedule = \"group\"` needs a `group_size`, e.g. group_size = 64"
                );
            };
            let g = g as u32;
            if !g.is_power_of_two() || !(2..=block_size).contains(&g) {
                bail!(span, "`group_size` must be a power of two from 2 to the block size ({block_size}), not {g}");
            }
            if g > 32 && g < block_size && block_size / g > MAX_GROUPS_WITH_BARRIERS {
                bail!(
                    span,
                    "{} groups of {g} in a block of {block_size} would need {} named barriers; CUDA has {MAX_GROUPS_WITH_BARRIERS}: \
                     raise `group_size` or lower `block_size`",
                    block_size / g,
                    block_size / g
                );
            }
            Schedule::Group { group_size: g }
        }
        _ => {
            let ipt = match items_per_thread {
                None => DEFAULT_ITEMS_PER_THREAD,
                Some((n, span)) if !(1..=64).contains(&n) => {
                    bail!(span, "`items_per_thread` must be from 1 to 64, not {n}")
                }
                Some((n, _)) => n as u32,
            };
            if name == "merge_path" {
                Schedule::MergePath {
                    items_per_thread: ipt,
                }
            } else {
                Schedule::WorkOriented {
                    items_per_thread: ipt,
                }
            }
        }
    };
    Ok(ScheduleConfig {
        schedule,
        block_size,
    })
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

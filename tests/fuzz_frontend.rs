//! Fuzzes the kernel front end: mutants of valid kernels (`fuzz_frontend/corpus.rs`, mutated by
//! `fuzz_frontend/mutate.rs` with what `fuzz_frontend/pools.rs` holds) go through the macro's
//! expansion under every schedule, and
//!
//! - the expansion never panics;
//! - a rejection is a `compile_error!` with a message, at a span of the input;
//! - an accepted kernel's expansion is Rust holding `CUDA_SOURCE` and `CUDA_SOURCE_CHECKED`, and
//!   its CUDA (those, and the wide sources where there are some) compiles with NVRTC for sm_90.
//!
//! `#[loops::device]` helpers (one of them mutated per case) are in scope: where the expansion asks
//! a helper's macro for its definition, the fuzz answers as the macro would.
//!
//! Bounded for `cargo test`: 256 cases (each expanded under all 11 schedules), and NVRTC compiles
//! the sources of one accepted schedule per case to cubins (ptxas included), each distinct source
//! once. Longer runs: `LOOPS_FUZZ_CASES=20000`; `LOOPS_FUZZ_COMPILE_ALL=1` compiles every accepted schedule's
//! sources. The seed is fixed, so `cargo test` runs the same cases every time; `LOOPS_SEED=N`
//! runs others (a failure prints the seed that replays it). Without libnvrtc the
//! expansions are still checked and the compiles are skipped with a one-line notice (unless
//! `LOOPS_REQUIRE_NVRTC=1`, which fails instead).

#[path = "fuzz_frontend/corpus.rs"]
mod corpus;
#[path = "fuzz_frontend/mutate.rs"]
mod mutate;
#[path = "common/nvrtc.rs"]
mod nvrtc;
#[path = "fuzz_frontend/pools.rs"]
mod pools;

use std::cell::RefCell;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use loops::compile::{compile, Arch, Output};
use loops::LoopsError;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};

use corpus::{HELPERS, SEEDS};
use mutate::{apply, print_tokens, Mutation};

/// The schedules every mutant is expanded under: (name, attribute): the core set of
/// `loops::SCHEDULES` (every unit at least once), so that a new unit is fuzzed too.
static SCHEDULES: std::sync::LazyLock<Vec<(&str, &str)>> = std::sync::LazyLock::new(|| {
    loops::SCHEDULES
        .iter()
        .filter(|s| s.core)
        .map(|s| (s.name, s.attr))
        .collect()
});

/// Appended to every schedule's attribute in a case: mostly nothing, at times another block size
/// or a piece size (which only `split` and `hierarchical` take).
const ATTRIBUTE_TAILS: &[&str] = &[
    "",
    "",
    "",
    "",
    "",
    "",
    ", block_size = 64",
    ", block_size = 1024",
    ", block_size = 32",
    ", block_size = 96",
    ", mdt = 1",
];

/// The cases `cargo test` runs: the same every time, so that a failure is the change's.
const DEFAULT_SEED: u64 = 25;

#[derive(Clone, Debug)]
struct Case {
    seed: usize,
    mutations: Vec<Mutation>,
    /// A helper of [`HELPERS`] and its mutations (the others stay as they are).
    helper: usize,
    helper_mutations: Vec<Mutation>,
    tail: usize,
    /// Which accepted schedule's sources NVRTC compiles (unless all are).
    compile: prop::sample::Index,
}

impl Case {
    /// The mutant: the seed, printed a statement a line, with the mutations applied in order.
    fn kernel(&self) -> String {
        mutant(SEEDS[self.seed].1, &self.mutations)
    }

    /// The helpers' texts, one of them mutated.
    fn helpers(&self) -> Vec<String> {
        let mut texts: Vec<String> = HELPERS.iter().map(|h| mutant(h, &[])).collect();
        texts[self.helper] = mutant(HELPERS[self.helper], &self.helper_mutations);
        texts
    }
}

/// `text` printed a statement a line, with `mutations` applied in order.
fn mutant(text: &str, mutations: &[Mutation]) -> String {
    let tokens: TokenStream = text.parse().expect("a seed lexes");
    mutations
        .iter()
        .fold(print_tokens(tokens), |text, m| apply(&text, m))
}

fn mutants() -> impl Strategy<Value = Case> {
    (
        0..SEEDS.len(),
        prop::collection::vec(mutate::mutation(), 0..=4),
        0..HELPERS.len(),
        prop::collection::vec(mutate::mutation(), 0..=2),
        0..ATTRIBUTE_TAILS.len(),
        any::<prop::sample::Index>(),
    )
        .prop_map(
            |(seed, mutations, helper, helper_mutations, tail, compile)| Case {
                seed,
                mutations,
                helper,
                helper_mutations,
                tail,
                compile,
            },
        )
}

/// What one expansion did.
enum Outcome {
    /// `compile_error!`s, each with its message.
    Rejected,
    /// A call of a function that is neither a builtin nor a helper in scope: rustc's error.
    UnknownHelper,
    /// The generated sources: (constant's name, CUDA).
    Accepted(Vec<(String, String)>),
}

/// Expands `item` under `attr` and checks the output's form: a panic, an output that is not
/// Rust, an empty error, an error at no token of the input (where `spanned`), or a module without
/// its sources is `Err`. Where the kernel calls a `#[loops::device]` helper, the expansion asks
/// the helper's macro for its definition; `helpers` stand for the macros in scope, as rustc would
/// resolve them (a helper not among them is rustc's "cannot find macro").
fn expand_once(
    attr: &TokenStream,
    item: &TokenStream,
    helpers: &[Helper],
    spanned: bool,
) -> Result<Outcome, String> {
    let mut out = no_panic(|| kernels_gen::frontend::expand(attr.clone(), item.clone()))?;
    // Each fetch brings one more helper; a cycle is refused at the call that closes it.
    for _ in 0..=helpers.len() {
        let Some((name, mut args)) = helper_fetch(&out) else {
            break;
        };
        let Some(helper) = helpers.iter().find(|h| h.name == name) else {
            return Ok(Outcome::UnknownHelper);
        };
        args.extend(helper.tokens.clone());
        out = no_panic(|| kernels_gen::frontend::load_balanced_with(args.clone()))?;
    }
    if helper_fetch(&out).is_some() {
        return Err(format!("the helpers are fetched again and again: {out}"));
    }
    let text = out.to_string();
    let file: syn::File =
        syn::parse2(out).map_err(|e| format!("the expansion is not Rust ({e}):\n{text}"))?;
    let is_error = |item: &syn::Item| {
        matches!(item, syn::Item::Macro(m)
            if m.mac.path.segments.last().is_some_and(|s| s.ident == "compile_error"))
    };
    if file.items.iter().any(is_error) {
        if !file.items.iter().all(is_error) {
            return Err(format!(
                "the expansion holds code and a compile_error!:\n{text}"
            ));
        }
        for item in &file.items {
            let syn::Item::Macro(m) = item else {
                unreachable!("all are errors")
            };
            let message: syn::LitStr = syn::parse2(m.mac.tokens.clone())
                .map_err(|_| format!("a compile_error! without a string: {text}"))?;
            if message.value().trim().is_empty() {
                return Err("a compile_error! with an empty message".into());
            }
            // Every token of the input carries a span of its parsed text; the call site has none.
            if spanned && message.span().file() == "<unspecified>" {
                return Err(format!(
                    "the error `{}` points at no token of the input",
                    message.value()
                ));
            }
        }
        return Ok(Outcome::Rejected);
    }
    if text.contains("compile_error") {
        return Err(format!(
            "an accepted kernel's expansion names compile_error:\n{text}"
        ));
    }
    let mut sources = Vec::new();
    for item in &file.items {
        let syn::Item::Mod(syn::ItemMod {
            content: Some((_, items)),
            ..
        }) = item
        else {
            continue;
        };
        for item in items {
            if let syn::Item::Const(c) = item {
                if let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) = &*c.expr
                {
                    if c.ident.to_string().starts_with("CUDA_SOURCE") {
                        sources.push((c.ident.to_string(), s.value()));
                    }
                }
            }
        }
    }
    for wanted in ["CUDA_SOURCE", "CUDA_SOURCE_CHECKED"] {
        if !sources.iter().any(|(name, _)| name == wanted) {
            return Err(format!("an accepted kernel without `{wanted}`:\n{text}"));
        }
    }
    Ok(Outcome::Accepted(sources))
}

/// What a call of `f` returned, or its panic's message.
fn no_panic(f: impl FnOnce() -> TokenStream) -> Result<TokenStream, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|panic| {
        let message = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("(not a string)");
        format!("the expansion panicked: {message}")
    })
}

/// A `#[loops::device]` helper in scope: its name, and the definition its macro hands on.
struct Helper {
    name: String,
    tokens: TokenStream,
}

/// The helpers of a case: each that parses as a function (a helper that does not has no macro:
/// its `#[loops::device]` is an error), as its macro holds it (no attributes, no visibility).
fn helpers_in_scope(texts: &[String]) -> Vec<Helper> {
    texts
        .iter()
        .filter_map(|text| {
            let mut func: syn::ItemFn = syn::parse_str(text).ok()?;
            func.attrs.clear();
            func.vis = syn::Visibility::Inherited;
            Some(Helper {
                name: func.sig.ident.to_string(),
                tokens: quote::ToTokens::to_token_stream(&func),
            })
        })
        .collect()
}

/// `name! { [::loops::__private::load_balanced_with] args }`, the expansion asking helper `name`'s
/// macro for its definition: the name and the arguments.
fn helper_fetch(out: &TokenStream) -> Option<(String, TokenStream)> {
    let trees: Vec<TokenTree> = out.clone().into_iter().collect();
    let [TokenTree::Ident(name), TokenTree::Punct(bang), TokenTree::Group(body)] = &trees[..]
    else {
        return None;
    };
    if bang.as_char() != '!' || body.delimiter() != Delimiter::Brace {
        return None;
    }
    let mut inner = body.stream().into_iter();
    let Some(TokenTree::Group(continuation)) = inner.next() else {
        return None;
    };
    let continuation = continuation.stream().to_string().replace(' ', "");
    (continuation == "::loops::__private::load_balanced_with")
        .then(|| (name.to_string(), inner.collect()))
}

#[derive(Default)]
struct Tally {
    cases: usize,
    unlexable: usize,
    expansions: usize,
    accepted: usize,
    rejected: usize,
    /// Calls of a function no helper answers (rustc's "cannot find macro").
    unknown_helpers: usize,
    /// Hashes of every distinct accepted source.
    distinct: HashSet<u64>,
    /// Hashes of the sources NVRTC compiled.
    compiled: HashSet<u64>,
    /// Time spent expanding, and compiling (wall, two threads).
    expanding: Duration,
    compiling: Duration,
}

/// `source` with the files its `#line` directives name (the kernel's and the helpers', a new one
/// per parse here) named alike, so that equal kernels give equal sources.
fn one_file_name(source: &str) -> String {
    const PARSED: &str = "\"<parsed string ";
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(at) = rest.find(PARSED) {
        out.push_str(&rest[..at]);
        let after = &rest[at + PARSED.len()..];
        match after.find(">\"") {
            Some(end) => {
                out.push_str("\"fuzz.rs\"");
                rest = &after[end + 2..];
            }
            None => {
                out.push_str(PARSED);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn hash_of(source: &str) -> u64 {
    let mut h = DefaultHasher::new();
    source.hash(&mut h);
    h.finish()
}

/// NVRTC compiles each job (label, source) to a cubin (ptxas included) on two threads; the
/// failures, with NVRTC's log.
fn compile_all(kernel: &str, jobs: &[(String, String)]) -> Vec<String> {
    let next = AtomicUsize::new(0);
    let work = || {
        let mut failures = Vec::new();
        while let Some((label, source)) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
            match compile(kernel, source, Arch::SM_90, Output::Cubin) {
                Ok(_) => {}
                Err(LoopsError::Compile { log, .. }) => {
                    failures.push(format!("{label}: NVRTC rejects it:\n{log}"));
                }
                Err(e) => failures.push(format!("{label}: {e}")),
            }
        }
        failures
    };
    std::thread::scope(|s| {
        let workers = [s.spawn(work), s.spawn(work)];
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a compile thread panicked"))
            .collect()
    })
}

/// One case: every schedule's expansion, then NVRTC on the chosen accepted sources.
fn run_case(
    case: &Case,
    attrs: &[Vec<TokenStream>],
    nvrtc: bool,
    every_schedule: bool,
    tally: &RefCell<Tally>,
) -> Result<(), TestCaseError> {
    let text = case.kernel();
    tally.borrow_mut().cases += 1;
    let Ok(item) = text.parse::<TokenStream>() else {
        // rustc would not get as far as the macro.
        tally.borrow_mut().unlexable += 1;
        return Ok(());
    };
    let helper_texts = case.helpers();
    let helpers = helpers_in_scope(&helper_texts);
    // rustc hands an attribute macro only an item it could parse; syn's errors about tokens it
    // would not have passed (an item cut short) point at no token.
    let spanned = syn::parse2::<syn::Item>(item.clone()).is_ok();
    let tail = ATTRIBUTE_TAILS[case.tail];
    let mut accepted = Vec::new();
    for ((schedule, attr), attr_tokens) in SCHEDULES.iter().zip(&attrs[case.tail]) {
        let started = Instant::now();
        let outcome = expand_once(attr_tokens, &item, &helpers, spanned);
        tally.borrow_mut().expanding += started.elapsed();
        let outcome = outcome.map_err(|why| {
            TestCaseError::fail(format!(
                "{why}\nunder #[load_balanced({attr}{tail})] for:\n{text}\nwith the helpers:\n{}",
                helper_texts.join("\n")
            ))
        })?;
        let mut t = tally.borrow_mut();
        t.expansions += 1;
        match outcome {
            Outcome::Rejected => t.rejected += 1,
            Outcome::UnknownHelper => t.unknown_helpers += 1,
            Outcome::Accepted(sources) => {
                t.accepted += 1;
                let sources: Vec<(String, String)> = sources
                    .into_iter()
                    .map(|(name, s)| (name, one_file_name(&s)))
                    .collect();
                for (_, s) in &sources {
                    t.distinct.insert(hash_of(s));
                }
                accepted.push((*schedule, *attr, sources));
            }
        }
    }
    if !nvrtc || accepted.is_empty() {
        return Ok(());
    }
    let chosen = if every_schedule {
        &accepted[..]
    } else {
        let i = case.compile.index(accepted.len());
        &accepted[i..=i]
    };
    let mut jobs = Vec::new();
    let mut hashes = Vec::new();
    {
        let t = tally.borrow();
        for (schedule, _, sources) in chosen {
            for (name, source) in sources {
                let h = hash_of(source);
                if !t.compiled.contains(&h) && !hashes.contains(&h) {
                    hashes.push(h);
                    jobs.push((format!("{schedule} {name}"), source.clone()));
                }
            }
        }
    }
    let started = Instant::now();
    let failures = compile_all("fuzz", &jobs);
    tally.borrow_mut().compiling += started.elapsed();
    if !failures.is_empty() {
        let attrs: Vec<String> = chosen
            .iter()
            .map(|(_, attr, _)| format!("#[load_balanced({attr}{tail})]"))
            .collect();
        return Err(TestCaseError::fail(format!(
            "accepted, but its CUDA does not compile:\n{}\nunder {} for:\n{text}\nwith the \
             helpers:\n{}",
            failures.join("\n"),
            attrs.join(" / "),
            helper_texts.join("\n")
        )));
    }
    tally.borrow_mut().compiled.extend(hashes);
    Ok(())
}

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// One line on stderr, past libtest's capture (as the NVRTC skip notice).
fn say(line: String) {
    let _ = std::io::stderr()
        .lock()
        .write_all(format!("{line}\n").as_bytes());
}

#[test]
fn mutated_kernels_expand_to_errors_or_cuda_that_compiles() {
    let cases = env_number("LOOPS_FUZZ_CASES").unwrap_or(256) as u32;
    let every_schedule = std::env::var("LOOPS_FUZZ_COMPILE_ALL").is_ok_and(|v| v == "1");
    let seed = env_number("LOOPS_SEED").unwrap_or(DEFAULT_SEED);
    let nvrtc = nvrtc::nvrtc_or_skip().is_some();
    let attrs: Vec<Vec<TokenStream>> = ATTRIBUTE_TAILS
        .iter()
        .map(|tail| {
            SCHEDULES
                .iter()
                .map(|(_, attr)| format!("{attr}{tail}").parse().expect("attributes lex"))
                .collect()
        })
        .collect();
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 2048,
        ..Config::default()
    };
    let mut seed_bytes = [0u8; 32];
    for chunk in seed_bytes.chunks_mut(8) {
        chunk.copy_from_slice(&seed.to_le_bytes());
    }
    let mut runner = TestRunner::new_with_rng(
        config,
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes),
    );
    let tally = RefCell::new(Tally::default());
    let started = Instant::now();
    let progress_every = if cases > 256 { 500 } else { usize::MAX };
    let result = runner.run(&mutants(), |case| {
        let outcome = run_case(&case, &attrs, nvrtc, every_schedule, &tally);
        let t = tally.borrow();
        if t.cases % progress_every == 0 {
            say(format!(
                "fuzz_frontend: {} cases, {} accepted, {} compiled, {:.0} s",
                t.cases,
                t.accepted,
                t.compiled.len(),
                started.elapsed().as_secs_f64()
            ));
        }
        outcome
    });
    let t = tally.borrow();
    say(format!(
        "fuzz_frontend (LOOPS_SEED={seed}): {} cases ({} unlexable), {} expansions: {} accepted, \
         {} rejected, {} calling an unknown function; {} distinct sources, {} compiled by NVRTC{}; \
         {:.1} s ({:.1} s expanding, {:.1} s compiling)",
        t.cases,
        t.unlexable,
        t.expansions,
        t.accepted,
        t.rejected,
        t.unknown_helpers,
        t.distinct.len(),
        t.compiled.len(),
        if nvrtc { "" } else { " (no NVRTC)" },
        started.elapsed().as_secs_f64(),
        t.expanding.as_secs_f64(),
        t.compiling.as_secs_f64()
    ));
    match result {
        Ok(()) => {}
        Err(TestError::Fail(why, case)) => {
            panic!("{why}\n(minimal case {case:?}; replay with LOOPS_SEED={seed})")
        }
        Err(TestError::Abort(why)) => panic!("the fuzz aborted: {why} (LOOPS_SEED={seed})"),
    }
}

/// The seeds themselves are valid kernels: each is accepted under `thread` (every construct of
/// the language lowers there), with the helpers in scope, so the mutations start from kernels the
/// macro takes; and each helper but the recursive one passes its own check.
#[test]
fn every_seed_is_accepted_under_thread() {
    let attr: TokenStream = SCHEDULES[0].1.parse().expect("lexes");
    let texts: Vec<String> = HELPERS.iter().map(|h| h.to_string()).collect();
    let helpers = helpers_in_scope(&texts);
    assert_eq!(helpers.len(), HELPERS.len(), "a helper does not parse");
    for (name, seed) in SEEDS {
        let item: TokenStream = seed.parse().expect("a seed lexes");
        match expand_once(&attr, &item, &helpers, true) {
            Ok(Outcome::Accepted(_)) => {}
            Ok(_) => panic!(
                "seed `{name}` is rejected: {}",
                kernels_gen::frontend::expand(attr.clone(), item)
            ),
            Err(why) => panic!("seed `{name}`: {why}"),
        }
    }
    for helper in &helpers {
        let checked = kernels_gen::frontend::device(TokenStream::new(), helper.tokens.clone());
        let refused = checked.to_string().contains("compile_error");
        assert_eq!(
            refused,
            helper.name == "ouroboros",
            "{}: {checked}",
            helper.name
        );
    }
}

//! Fuzzes the kernel front end: mutants of valid kernels (`fuzz_frontend/corpus.rs`, mutated by
//! `fuzz_frontend/mutate.rs` with what `fuzz_frontend/pools.rs` holds) go through the macro's
//! expansion under every schedule, and
//!
//! - the expansion never panics;
//! - a rejection is a `compile_error!` with a message, at a span of the input;
//! - an accepted kernel's expansion is Rust holding `CUDA_SOURCE` and `CUDA_SOURCE_CHECKED`, and
//!   its CUDA (those, and the wide sources where there are some) compiles with NVRTC for sm_90.
//!
//! Bounded for `cargo test`: 256 cases (each expanded under all 11 schedules), and NVRTC compiles
//! the sources of one accepted schedule per case, each distinct source once. Longer runs:
//! `LOOPS_FUZZ_CASES=20000`; `LOOPS_FUZZ_COMPILE_ALL=1` compiles every accepted schedule's
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

use loops::runtime::compile::{compile_ptx, Arch};
use loops::LoopsError;
use proc_macro2::TokenStream;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};

use corpus::SEEDS;
use mutate::{apply, print_tokens, Mutation};

/// The schedules every mutant is expanded under: (name, attribute).
const SCHEDULES: &[(&str, &str)] = &[
    ("thread", r#"schedule = "thread""#),
    ("group4", r#"schedule = "group", group_size = 4"#),
    ("warp", r#"schedule = "warp""#),
    ("group64", r#"schedule = "group", group_size = 64"#),
    ("block", r#"schedule = "block""#),
    ("work_oriented", r#"schedule = "work_oriented""#),
    ("merge_path", r#"schedule = "merge_path""#),
    ("split", r#"schedule = "split""#),
    ("hierarchical", r#"schedule = "hierarchical""#),
    ("lrb", r#"schedule = "lrb""#),
    ("auto", r#"schedule = "auto""#),
];

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
    tail: usize,
    /// Which accepted schedule's sources NVRTC compiles (unless all are).
    compile: prop::sample::Index,
}

impl Case {
    /// The mutant: the seed, printed a statement a line, with the mutations applied in order.
    fn kernel(&self) -> String {
        let seed: TokenStream = SEEDS[self.seed].1.parse().expect("a seed lexes");
        self.mutations
            .iter()
            .fold(print_tokens(seed), |text, m| apply(&text, m))
    }
}

fn mutants() -> impl Strategy<Value = Case> {
    (
        0..SEEDS.len(),
        prop::collection::vec(mutate::mutation(), 0..=4),
        0..ATTRIBUTE_TAILS.len(),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(seed, mutations, tail, compile)| Case {
            seed,
            mutations,
            tail,
            compile,
        })
}

/// What one expansion did.
enum Outcome {
    /// `compile_error!`s, each with its message.
    Rejected,
    /// The generated sources: (constant's name, CUDA).
    Accepted(Vec<(String, String)>),
}

/// Expands `item` under `attr` and checks the output's form: a panic, an output that is not
/// Rust, an empty error, an error at no token of the input (where `spanned`), or a module without
/// its sources is `Err`.
fn expand_once(attr: &TokenStream, item: &TokenStream, spanned: bool) -> Result<Outcome, String> {
    let out = catch_unwind(AssertUnwindSafe(|| {
        kernels_gen::frontend::expand(attr.clone(), item.clone())
    }))
    .map_err(|panic| {
        let message = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("(not a string)");
        format!("the expansion panicked: {message}")
    })?;
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

#[derive(Default)]
struct Tally {
    cases: usize,
    unlexable: usize,
    expansions: usize,
    accepted: usize,
    rejected: usize,
    /// Hashes of every distinct accepted source.
    distinct: HashSet<u64>,
    /// Hashes of the sources NVRTC compiled.
    compiled: HashSet<u64>,
    /// Time spent expanding, and compiling (wall, two threads).
    expanding: Duration,
    compiling: Duration,
}

fn hash_of(source: &str) -> u64 {
    let mut h = DefaultHasher::new();
    source.hash(&mut h);
    h.finish()
}

/// NVRTC compiles each job (label, source) on two threads; the failures, with NVRTC's log.
fn compile_all(kernel: &str, jobs: &[(String, String)]) -> Vec<String> {
    let next = AtomicUsize::new(0);
    let work = || {
        let mut failures = Vec::new();
        while let Some((label, source)) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
            match compile_ptx(kernel, source, Arch::SM_90) {
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
    // The expansion's `#line` directives name the span's file, a new one per parse here: named
    // alike, equal kernels give equal sources.
    let file = item
        .clone()
        .into_iter()
        .next()
        .map(|t| t.span().file())
        .unwrap_or_default();
    // rustc hands an attribute macro only an item it could parse; syn's errors about tokens it
    // would not have passed (an item cut short) point at no token.
    let spanned = syn::parse2::<syn::Item>(item.clone()).is_ok();
    let tail = ATTRIBUTE_TAILS[case.tail];
    let mut accepted = Vec::new();
    for ((schedule, attr), attr_tokens) in SCHEDULES.iter().zip(&attrs[case.tail]) {
        let started = Instant::now();
        let outcome = expand_once(attr_tokens, &item, spanned);
        tally.borrow_mut().expanding += started.elapsed();
        let outcome = outcome.map_err(|why| {
            TestCaseError::fail(format!(
                "{why}\nunder #[load_balanced({attr}{tail})] for:\n{text}"
            ))
        })?;
        let mut t = tally.borrow_mut();
        t.expansions += 1;
        match outcome {
            Outcome::Rejected => t.rejected += 1,
            Outcome::Accepted(sources) => {
                t.accepted += 1;
                let sources: Vec<(String, String)> = sources
                    .into_iter()
                    .map(|(name, s)| (name, s.replace(&file, "fuzz.rs")))
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
            "accepted, but its CUDA does not compile:\n{}\nunder {} for:\n{text}",
            failures.join("\n"),
            attrs.join(" / ")
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
         {} rejected; {} distinct sources, {} compiled by NVRTC{}; {:.1} s ({:.1} s expanding, \
         {:.1} s compiling)",
        t.cases,
        t.unlexable,
        t.expansions,
        t.accepted,
        t.rejected,
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
/// the language lowers there), so the mutations start from kernels the macro takes.
#[test]
fn every_seed_is_accepted_under_thread() {
    let attr: TokenStream = SCHEDULES[0].1.parse().expect("lexes");
    for (name, seed) in SEEDS {
        let item: TokenStream = seed.parse().expect("a seed lexes");
        match expand_once(&attr, &item, true) {
            Ok(Outcome::Accepted(_)) => {}
            Ok(Outcome::Rejected) => panic!(
                "seed `{name}` is rejected: {}",
                kernels_gen::frontend::expand(attr.clone(), item)
            ),
            Err(why) => panic!("seed `{name}`: {why}"),
        }
    }
}

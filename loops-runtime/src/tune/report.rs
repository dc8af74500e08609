//! What tuning costs, made visible: each time `schedule = "auto"` times its candidates on a tile
//! set, a [`TuneReport`] goes to the observer set with [`set_observer`], and with
//! `LOOPS_TUNE_LOG=1` one line to stderr.

use std::sync::{OnceLock, RwLock};
use std::time::Duration;

/// One tuning: the kernel, the tile set, each candidate's median time, the winner, and what the
/// whole of it cost the call (compiling the candidates included).
#[derive(Clone, Debug, PartialEq)]
pub struct TuneReport {
    /// The kernel's name.
    pub kernel: String,
    /// The element key of the call (`f32`).
    pub element: String,
    /// Tiles and atoms of the tile set.
    pub tiles: u64,
    /// Atoms of the tile set.
    pub atoms: u64,
    /// Each timed candidate (variant name) and its median time per launch, in microseconds,
    /// the model's best first.
    pub timings_us: Vec<(String, f64)>,
    /// The variant that won, and runs from now on for this tile set.
    pub winner: String,
    /// Wall time the tuning added to the call.
    pub cost: Duration,
    /// Where the winner was recorded (the tuning cache's file), if anywhere.
    pub stored: Option<std::path::PathBuf>,
}

impl std::fmt::Display for TuneReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "loops: tuned `{}` ({}) on {} tiles, {} atoms in {:.1} ms:",
            self.kernel,
            self.element,
            self.tiles,
            self.atoms,
            self.cost.as_secs_f64() * 1e3
        )?;
        for (name, us) in &self.timings_us {
            write!(f, " {name} {us:.1} us,")?;
        }
        write!(f, " -> {}", self.winner)
    }
}

/// A function told of every tuning.
pub(crate) type Observer = Box<dyn Fn(&TuneReport) + Send + Sync>;

fn observer() -> &'static RwLock<Option<Observer>> {
    static OBSERVER: OnceLock<RwLock<Option<Observer>>> = OnceLock::new();
    OBSERVER.get_or_init(|| RwLock::new(None))
}

/// Calls `f` with the report of every later tuning in this process (`None`: no one).
pub fn set_observer(f: Option<Observer>) {
    *observer().write().unwrap_or_else(|e| e.into_inner()) = f;
}

/// Whether `LOOPS_TUNE_LOG` asks for a line per tuning.
fn log_enabled() -> bool {
    static LOG: OnceLock<bool> = OnceLock::new();
    *LOG.get_or_init(|| {
        matches!(
            std::env::var("LOOPS_TUNE_LOG").as_deref(),
            Ok("1" | "on" | "true")
        )
    })
}

/// Tells the observer, and the log, of a tuning.
pub(crate) fn publish(report: &TuneReport) {
    if log_enabled() {
        eprintln!("{report}");
    }
    if let Some(f) = observer()
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
    {
        f(report);
    }
}

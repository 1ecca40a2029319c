//! Building endgame tables while a program goes on: the progress of a
//! build (states done, time left) as every frontend shows it, and a build
//! on a thread of its own that a game, a server or a terminal polls.

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use solver_expectimax::endgame::{Check, Endgame, Formation, OpenEvent};

/// What a build has done so far, from the events [`Endgame::open`] sends:
/// [`BuildMeter::hear`] each, [`BuildMeter::progress`] to read.
#[derive(Debug, Default)]
pub struct BuildMeter {
    /// The states of the tables to build, once the build starts.
    total: u64,
    /// The bytes of their files.
    bytes: u64,
    /// States solved of each table under way or built.
    done: HashMap<Formation, u64>,
    /// When the first table's build started.
    started: Option<Instant>,
    /// Who holds the folder's build lock while this build waits for it.
    waiting_for: Option<String>,
}

impl BuildMeter {
    /// A meter of a build not started yet.
    pub fn new() -> BuildMeter {
        BuildMeter::default()
    }

    /// Takes in one event of the build.
    pub fn hear(&mut self, event: &OpenEvent<'_>) {
        match *event {
            OpenEvent::Waiting(holder) => self.waiting_for = Some(holder.to_owned()),
            OpenEvent::Starting { states, bytes, .. } => {
                self.waiting_for = None;
                self.total = states;
                self.bytes = bytes;
                self.started = Some(Instant::now());
            }
            OpenEvent::Building { formation, done, .. } => {
                self.done.insert(formation, done);
            }
            OpenEvent::Written(formation, _) => {
                self.done.insert(formation, formation.states());
            }
            OpenEvent::Checking(_) | OpenEvent::Loaded(_) | OpenEvent::Refused(..) => {}
        }
    }

    /// The build's progress now.
    pub fn progress(&self) -> BuildProgress {
        let done = self.done.values().sum::<u64>().min(self.total);
        BuildProgress {
            done,
            total: self.total,
            bytes: self.bytes,
            elapsed: self.started.map_or(Duration::ZERO, |t| t.elapsed()),
            waiting_for: self.waiting_for.clone(),
        }
    }
}

/// A build's progress: states done of all, time since it started, or the
/// program it waits for.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildProgress {
    /// States solved so far.
    pub done: u64,
    /// States of all the tables to build (0 before the build starts).
    pub total: u64,
    /// The bytes of the files being built.
    pub bytes: u64,
    /// Time since the first table's build started.
    pub elapsed: Duration,
    /// Who holds the folder's build lock, while this build waits for it.
    pub waiting_for: Option<String>,
}

impl BuildProgress {
    /// The share done, 0 to 1.
    pub fn fraction(&self) -> f64 {
        if self.total == 0 { 0.0 } else { self.done as f64 / self.total as f64 }
    }

    /// The time left at the pace so far (`None` before a pace is known:
    /// the first second, or nothing done).
    pub fn time_left(&self) -> Option<Duration> {
        if self.done == 0 || self.elapsed < Duration::from_secs(1) {
            return None;
        }
        let per_state = self.elapsed.as_secs_f64() / self.done as f64;
        Some(Duration::from_secs_f64(per_state * (self.total - self.done) as f64))
    }
}

impl fmt::Display for BuildProgress {
    /// `41%, 1.37 of 3.34 billion states, about 3 minutes left`, or who it
    /// waits for: short enough for a status line beside a few words.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(holder) = &self.waiting_for {
            return write!(f, "waiting for {holder}, which is building them");
        }
        if self.total == 0 {
            return f.write_str("checking the folder");
        }
        write!(
            f,
            "{:.0}%, {} states",
            100.0 * self.fraction(),
            states_text(self.done, self.total)
        )?;
        match self.time_left() {
            Some(left) => write!(f, ", {} left", duration_text(left)),
            None => Ok(()),
        }
    }
}

/// `done` of `total` states as a person reads them, in `total`'s unit:
/// `1.37 of 3.34 billion`, `2.0 of 27.6 million`, `1000 of 291600`.
fn states_text(done: u64, total: u64) -> String {
    let (unit, name) = match total {
        1_000_000_000.. => (1e9, " billion"),
        1_000_000.. => (1e6, " million"),
        _ => return format!("{done} of {total}"),
    };
    let digits = if unit == 1e9 { 2 } else { 1 };
    format!("{:.digits$} of {:.digits$}{name}", done as f64 / unit, total as f64 / unit)
}

/// A time to wait, rounded as a person says it: `about 6 minutes`,
/// `about 40 seconds`.
pub fn duration_text(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..=1 => "about a second".to_owned(),
        2..=59 => format!("about {s} seconds"),
        60..=89 => "about a minute".to_owned(),
        _ => format!("about {} minutes", (s + 30) / 60),
    }
}

/// How a background build ended.
type Outcome = Result<Arc<Endgame>, String>;

/// What the build thread shares with whoever polls it.
#[derive(Debug, Default)]
struct Shared {
    meter: BuildMeter,
    outcome: Option<Outcome>,
}

/// Tables built (or opened, if they are there) on a thread of their own,
/// so that the program goes on: a game keeps playing, a server keeps
/// serving, and each polls [`TablesBuild::progress`] and
/// [`TablesBuild::finished`]. The build is [`crate::open_tables`]'s, so it
/// is as safe as any (the folder's lock, the disk space, whole files only).
#[derive(Debug)]
pub struct TablesBuild {
    shared: Arc<Mutex<Shared>>,
    thread: Option<JoinHandle<()>>,
}

impl TablesBuild {
    /// Starts building (or opening) the tables of `formations` in `dir`.
    pub fn start(dir: PathBuf, formations: Vec<Formation>) -> TablesBuild {
        let shared = Arc::new(Mutex::new(Shared::default()));
        let theirs = Arc::clone(&shared);
        let thread = std::thread::spawn(move || {
            let hear = |event: OpenEvent<'_>| lock(&theirs).meter.hear(&event);
            let outcome = crate::open_tables(&dir, &formations, Check::Stamped, &hear)
                .map_err(|e| e.to_string());
            lock(&theirs).outcome = Some(outcome);
        });
        TablesBuild { shared, thread: Some(thread) }
    }

    /// The build's progress now.
    pub fn progress(&self) -> BuildProgress {
        lock(&self.shared).meter.progress()
    }

    /// The tables, or why they could not be built, once the build has
    /// ended; `None` while it goes on.
    pub fn finished(&self) -> Option<Result<Arc<Endgame>, String>> {
        lock(&self.shared).outcome.clone()
    }

    /// Waits for the build to end, and its outcome.
    pub fn wait(mut self) -> Result<Arc<Endgame>, String> {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        self.finished().unwrap_or_else(|| Err("the build stopped".to_owned()))
    }
}

/// The shared state, even if a thread panicked while holding it.
fn lock(shared: &Mutex<Shared>) -> std::sync::MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_counts_states_of_every_table_and_the_time_left() {
        let (a, b) = (Formation::block(5).unwrap(), Formation::step(4).unwrap());
        let mut meter = BuildMeter::new();
        assert_eq!(meter.progress().to_string(), "checking the folder");
        meter.hear(&OpenEvent::Waiting("lab (process 7)"));
        assert_eq!(
            meter.progress().to_string(),
            "waiting for lab (process 7), which is building them"
        );
        let states = a.states() + b.states();
        meter.hear(&OpenEvent::Starting { tables: 2, states, bytes: 2 * states + 64 });
        meter.hear(&OpenEvent::Building { formation: a, done: 1000, total: a.states() });
        meter.hear(&OpenEvent::Building { formation: a, done: 2000, total: a.states() });
        let p = meter.progress();
        assert_eq!((p.done, p.total, p.waiting_for), (2000, states, None));
        meter.hear(&OpenEvent::Written(a, std::path::Path::new("x")));
        meter.hear(&OpenEvent::Building { formation: b, done: 10, total: b.states() });
        assert_eq!(meter.progress().done, a.states() + 10);
        // The time left follows the pace so far.
        let half = BuildProgress {
            done: 50,
            total: 100,
            bytes: 200,
            elapsed: Duration::from_secs(120),
            waiting_for: None,
        };
        assert_eq!(half.time_left(), Some(Duration::from_secs(120)));
        assert_eq!(half.to_string(), "50%, 50 of 100 states, about 2 minutes left");
        let big = BuildProgress { done: 1_371_000_000, total: 3_343_151_232, ..half.clone() };
        assert_eq!(big.to_string(), "41%, 1.37 of 3.34 billion states, about 3 minutes left");
        let early = BuildProgress { elapsed: Duration::from_millis(10), ..half.clone() };
        assert_eq!(early.time_left(), None);
    }

    #[test]
    fn durations_read_as_said() {
        let text = |s| duration_text(Duration::from_secs(s));
        assert_eq!(text(0), "about a second");
        assert_eq!(text(40), "about 40 seconds");
        assert_eq!(text(75), "about a minute");
        assert_eq!(text(334), "about 6 minutes");
    }

    /// A build on its own thread ends with the tables, which a second
    /// build finds there and opens.
    #[test]
    fn a_background_build_ends_with_its_tables() {
        let dir = std::env::temp_dir().join(format!("engine-build-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let formations = vec![Formation::block(5).unwrap()];
        let build = TablesBuild::start(dir.clone(), formations.clone());
        let tables = build.wait().expect("built");
        assert_eq!(tables.formations().collect::<Vec<_>>(), formations);
        let again = TablesBuild::start(dir.clone(), formations);
        assert!(Arc::ptr_eq(&again.wait().expect("opened"), &tables), "opened once per process");
        drop(tables);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

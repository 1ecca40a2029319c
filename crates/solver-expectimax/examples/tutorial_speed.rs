//! The tutorial preset's time per decision measured the way the Java
//! original's was: over the first 20 moves of games, here 50 seeded games
//! under the tutorial's rules, keeping the early boards (9 to 14 empty
//! cells), and reporting the median and its ratio to the Java original's
//! median per move (`JAVA_MEDIAN`, the figure docs/solver.md gives), on one
//! and on two threads.
//!
//! `cargo run --release -p solver-expectimax --example tutorial_speed`

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use game_core::{Game, GameBoard, Rules};
use solver_expectimax::{Preset, Solver};

/// The Java original's median per move (parallel streams, first 20 moves).
const JAVA_MEDIAN: Duration = Duration::from_millis(14_200);

type Error = Box<dyn std::error::Error>;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // If stderr is gone there is nowhere left to report to.
            let _ = writeln!(std::io::stderr(), "error: {err}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Error> {
    for threads in [1, 2] {
        measure(threads)?;
    }
    Ok(())
}

fn measure(threads: usize) -> Result<(), Error> {
    let mut config = Preset::Tutorial.config();
    config.threads = threads;
    let solver = Solver::new(config)?;
    let mut times = Vec::new();
    for seed in 1..=50 {
        let mut game = Game::new(Rules::tutorial(), seed);
        for _ in 0..20 {
            if game.is_over() {
                break;
            }
            let decision = solver.decide(game.board(), game.rules())?;
            if (9..=14).contains(&game.board().count_empty()) {
                times.push(decision.elapsed);
            }
            game.play(decision.direction)?;
        }
    }
    times.sort_unstable();
    let median = times[times.len() / 2];
    let p90 = times[times.len() * 9 / 10];
    writeln!(
        std::io::stdout(),
        "tutorial preset, {threads} thread(s): {} early decisions, median {median:?}, 90th percentile {p90:?}, max {:?}; {:.0} times faster than the Java original's median",
        times.len(),
        times.last().copied().unwrap_or_default(),
        JAVA_MEDIAN.as_secs_f64() / median.as_secs_f64()
    )?;
    Ok(())
}

//! `cargo xtask`: the project's automation (local CI, benchmarks, published
//! results) written in plain Rust, so it runs wherever cargo does.
//!
//! This follows matklad's cargo-xtask pattern: `.cargo/config.toml` aliases
//! `cargo xtask` to `cargo run --package xtask --`. It is compiled on every
//! fresh clone before any task runs, so its dependencies are few: the
//! workspace's `records` crate (the tournament records' one reader),
//! serde_json (cargo's and criterion's JSON, read into typed structs) and
//! clap (the tasks' options, as the CLI parses its own).
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "xtask is a command-line tool whose whole job is to report on the terminal"
)]

mod bench;
mod ci;
mod curve;
mod machine;
mod phases;
mod plot;
mod results;
mod summary;
mod svg;
#[cfg(test)]
mod tidy;
mod tune;
mod util;
mod versus;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

/// The project's automation. Run a task with `cargo xtask <TASK>`.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask", disable_help_subcommand = true)]
struct Cli {
    #[command(subcommand)]
    task: Option<Task>,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Run what CI runs, stopping at the first failure: fmt check, clippy
    /// (-D warnings), tests, docs (-D warnings), the Python package's
    /// pytest, the browser test.
    Ci(ci::CiArgs),
    /// Run the criterion benches of game-core and solver-expectimax and print
    /// a Markdown table of the medians.
    Bench(bench::BenchArgs),
    /// Regenerate docs/results.md and docs/results.svg: the shipped presets'
    /// sections from the committed records, then (unless --committed) the
    /// standard benchmarks, speed runs and the records of the fast presets.
    Results(results::ResultsArgs),
    /// Where the games of records files were lost: for each file, the
    /// games lost in each phase of play short of a target tile (32768 by
    /// default) and the final collapse reached and survived.
    Phases(phases::PhasesArgs),
    /// Two records files on the seeds both played: each one's reach rates,
    /// the exact McNemar test of a tile's reach and the sign test of the
    /// scores (the report `lab compare` prints).
    Paired(phases::PairedArgs),
    /// Tune the evaluator's weights by seeded tournaments: `lab tune`
    /// in a release build, with these options (see its --help; defaults:
    /// --preset fast, 200 games from seed 1000001, 1 round, step 0.25).
    /// Prints a Markdown table.
    Tune {
        /// Options for `lab tune`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "OPTIONS")]
        options: Vec<String>,
    },
    /// Draw the learning curve that `lab train` writes (reach rates
    /// and mean score against training hours) as an SVG.
    Curve {
        /// The trainer's curve.csv.
        csv: PathBuf,
        /// The SVG to write.
        svg: PathBuf,
    },
    /// Draw several training runs' learning curves on one plot (the 16384
    /// reach rate against training minutes and against episodes, log
    /// scales) as an SVG, with measured points as markers.
    Versus {
        /// The SVG to write.
        svg: PathBuf,
        /// A curve.csv that `lab train` wrote, with its name in the
        /// legend.
        #[arg(value_name = "NAME=CSV", required = true, value_parser = versus::parse_named)]
        curves: Vec<(String, PathBuf)>,
        /// Single figures in the same columns (episodes, seconds, the reach
        /// rates; moves and scores may be 0), drawn as markers.
        #[arg(long, value_name = "NAME=CSV", value_parser = versus::parse_named)]
        points: Option<(String, PathBuf)>,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // Help goes to stdout with 0, a usage error to stderr with 2.
            let _ = err.print();
            return ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(2));
        }
    };
    let result = match cli.task {
        // A bare `cargo xtask` lists the tasks, as matklad's cargo-xtask says.
        None => Cli::command().print_help().map_err(Into::into),
        Some(Task::Ci(args)) => ci::run(&args),
        Some(Task::Bench(args)) => bench::run(&args),
        Some(Task::Results(args)) => results::run(&args),
        Some(Task::Phases(args)) => phases::run(&args),
        Some(Task::Paired(args)) => phases::paired(&args),
        Some(Task::Tune { options }) => tune::run(&options),
        Some(Task::Curve { csv, svg }) => curve::run(&csv, &svg),
        Some(Task::Versus { svg, curves, points }) => versus::run(&svg, &curves, points.as_ref()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Task, clap::Error> {
        let cli = Cli::try_parse_from(std::iter::once("xtask").chain(args.iter().copied()))?;
        Ok(cli.task.expect("a task"))
    }

    #[test]
    fn parses_every_task() {
        Cli::command().debug_assert();
        let Task::Bench(bench) = parse(&["bench", "--quick", "--", "moves", "--quick"]).unwrap()
        else {
            panic!("not bench")
        };
        assert!(bench.quick);
        assert_eq!(bench.rounds, 1);
        assert_eq!(bench.criterion_args, ["moves", "--quick"]);
        let Task::Bench(bench) = parse(&["bench", "--rounds", "5"]).unwrap() else {
            panic!("not bench")
        };
        assert_eq!(bench.rounds, 5);
        assert!(parse(&["bench", "--rounds", "0"]).is_err(), "at least one round");
        let Task::Results(results) = parse(&["results", "--committed"]).unwrap() else {
            panic!("not results")
        };
        assert!(results.committed && !results.quick);
        assert!(parse(&["results", "--quick", "--committed"]).is_err());
        assert!(parse(&["results", "--games"]).is_err());
        assert!(parse(&["bench", "moves"]).is_err(), "criterion arguments go after --");
        let Task::Tune { options } = parse(&["tune", "--games", "2", "--step", "0.5"]).unwrap()
        else {
            panic!("not tune")
        };
        assert_eq!(options, ["--games", "2", "--step", "0.5"]);
        assert!(parse(&["ci", "extra"]).is_err());
        let Task::Ci(ci) = parse(&["ci"]).unwrap() else { panic!("not ci") };
        assert!(!ci.quick && !ci.no_rl);
        let Task::Ci(ci) = parse(&["ci", "--quick"]).unwrap() else { panic!("not ci") };
        assert!(ci.quick && !ci.no_rl);
        let Task::Ci(ci) = parse(&["ci", "--no-rl"]).unwrap() else { panic!("not ci") };
        assert!(!ci.quick && ci.no_rl);
        assert!(parse(&["ci", "--quick", "--no-rl"]).is_err(), "--quick runs no Python");
        assert!(parse(&["curve", "a.csv"]).is_err());
    }
}

//! `cargo xtask`: the project's automation (local CI, benchmarks, published
//! results) written in plain Rust, so it runs wherever cargo does.
//!
//! This follows matklad's cargo-xtask pattern: `.cargo/config.toml` aliases
//! `cargo xtask` to `cargo run --package xtask --`. It is compiled on every
//! fresh clone before any task runs, so its dependencies are few: the
//! workspace's `records` crate (the tournament records' one reader) and
//! serde_json (cargo's and criterion's JSON, read into typed structs).
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "xtask is a command-line tool whose whole job is to report on the terminal"
)]

mod bench;
mod ci;
mod curve;
mod machine;
mod plot;
mod results;
mod summary;
mod svg;
#[cfg(test)]
mod tidy;
mod tune;
mod util;

use std::process::ExitCode;

const HELP: &str = "\
Usage: cargo xtask <task> [options]

Tasks:
  ci                 Run what CI runs, stopping at the first failure:
                     fmt check, clippy (-D warnings), tests, docs (-D warnings),
                     the Python package's pytest, the browser test.
  bench [--quick] [-- <criterion args>...]
                     Run the criterion benches of game-core and solver-expectimax
                     and print a Markdown table of the medians. `--quick` passes
                     criterion's --quick; arguments after `--` (e.g. a filter)
                     go to criterion.
  results [--quick | --committed]
                     Run the standard benchmarks and seeded tournaments, then
                     regenerate docs/results.md and docs/results.svg. `--quick`
                     gives a small run for checking the pipeline; `--committed`
                     only prints the tables of the committed records in
                     docs/data (what results.md's long-tournament table says).
  tune [<cli-ascii tune options>...]
                     Tune the evaluator's weights by seeded tournaments:
                     `cli-ascii tune` in a release build (see its --help;
                     defaults: --preset fast, 200 games from seed 1000001,
                     1 round, step 0.25). Prints a Markdown table.
  curve <CSV> <SVG>  Draw the learning curve that `cli-ascii train` writes
                     (reach rates and mean score against training hours).
  help               Print this list.
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((task, rest)) = args.split_first() else {
        print!("{HELP}");
        return ExitCode::SUCCESS;
    };
    let result = match task.as_str() {
        "help" | "-h" | "--help" => {
            print!("{HELP}");
            Ok(())
        }
        "ci" => ci::run(rest),
        "curve" => curve::run(rest),
        "bench" => bench::run(rest),
        "results" => results::run(rest),
        "tune" => tune::run(rest),
        other => {
            eprintln!("error: unknown task `{other}`\n");
            eprint!("{HELP}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}

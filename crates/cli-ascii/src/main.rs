//! `cli-ascii`: watch the expectimax AI play 2048, play yourself, analyse
//! boards and run tournaments, in a terminal; tune and compare search
//! settings.
//!
//! The binary is glue: the rules live in game-core and the search in
//! solver-expectimax; this crate holds the command line, the rendering, the
//! key handling and the output formats. All output goes through locked
//! stdout/stderr handles (never `println!`), so that a closed pipe is an
//! error we can see and end on quietly.

mod agreement;
mod analyze;
mod best;
mod cli;
mod compare;
mod distill;
mod keys;
mod layout;
mod play;
mod render;
mod setup;
mod term;
mod tournament;
mod train;
mod tune;
mod watch;

use std::io::{self, Write};
use std::process::ExitCode;

use crate::cli::Command;

fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(err) => return clap_exit(&err),
    };
    let result = match cli.command {
        None => watch::run(&cli.watch),
        Some(Command::Watch(args)) => watch::run(&args),
        Some(Command::Play(args)) => play::run(&args),
        Some(Command::Analyze(args)) => analyze::run(&args),
        Some(Command::Tournament(args)) => tournament::run(&args).map(|()| ExitCode::SUCCESS),
        Some(Command::Tune(args)) => tune::run(&args).map(|()| ExitCode::SUCCESS),
        Some(Command::Agreement(args)) => agreement::run(&args).map(|()| ExitCode::SUCCESS),
        Some(Command::Train(args)) => train::run(&args).map(|()| ExitCode::SUCCESS),
        Some(Command::ExportWeights(args)) => train::export(&args).map(|()| ExitCode::SUCCESS),
        Some(Command::Compare(args)) => compare::run(&args),
        Some(Command::Tables(cli::TablesCommand::Distill(args))) => {
            distill::distill(&args).map(|()| ExitCode::SUCCESS)
        }
        Some(Command::Tables(cli::TablesCommand::Coverage(args))) => {
            distill::coverage(&args).map(|()| ExitCode::SUCCESS)
        }
        Some(Command::Tables(cli::TablesCommand::Build(args))) => {
            setup::build_tables(args.tables.as_deref(), args.tables_max_states, args.preset)
                .map(|()| ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        // A reader that stopped reading (`| head`) is not a failure, as for
        // the usual Unix tools.
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            let _ = writeln!(io::stderr().lock(), "error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// Help and version go to stdout as clap prints them; a usage error becomes
/// one `error: ...` line on stderr and exit code 2, clap's convention.
fn clap_exit(err: &clap::Error) -> ExitCode {
    if !err.use_stderr() {
        let _ = err.print();
        return ExitCode::SUCCESS;
    }
    // clap's message, up to its first blank line (which leaves out the
    // usage and tips), joined into one line: `[possible values: ...]` stays,
    // and so does a tip that names a similar subcommand or option.
    let rendered = err.to_string();
    let message: Vec<&str> = rendered
        .lines()
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    let message = message.join(" ");
    let line = if message.starts_with("error:") { message } else { format!("error: {message}") };
    // clap says "a similar subcommand exists: ..." for one suggestion and
    // "some similar subcommands exist: ..." for several.
    let tip = rendered
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("tip: a similar") || l.starts_with("tip: some similar"));
    let line = match tip {
        Some(tip) => format!("{line} ({})", tip.trim_start_matches("tip: ")),
        None => format!("{line} (see --help)"),
    };
    let _ = writeln!(io::stderr().lock(), "{line}");
    ExitCode::from(2)
}

/// Whether an error comes from writing to a closed pipe, anywhere in its
/// chain (as ripgrep's `main.rs` checks).
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

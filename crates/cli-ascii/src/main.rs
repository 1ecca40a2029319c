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

use clap::error::{ContextKind, ContextValue, ErrorKind};

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
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(line) = our_words(err, &cli::command(), &args) {
        let _ = writeln!(io::stderr().lock(), "{line}");
        return ExitCode::from(2);
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

/// Our own message for the usage errors clap words unhelpfully, given the
/// command line `args` (without the program's name): a command that needs
/// a subcommand (clap prints the command's description as the error), and
/// an option of other commands than the one run (clap's tip names any
/// option that looks alike: `--games` for `watch` got `--tables`).
fn our_words(err: &clap::Error, cmd: &clap::Command, args: &[String]) -> Option<String> {
    // The subcommands named on the command line, in order.
    let mut path: Vec<&clap::Command> = Vec::new();
    let mut here = cmd;
    for arg in args {
        if let Some(sub) = here.find_subcommand(arg) {
            path.push(sub);
            here = sub;
        }
    }
    let names = |cmds: &[&clap::Command]| -> String {
        let names: Vec<&str> = cmds.iter().map(|c| c.get_name()).collect();
        match names.as_slice() {
            [] => String::new(),
            [one] => (*one).to_owned(),
            [init @ .., last] => format!("{} and {last}", init.join(", ")),
        }
    };
    let run = if path.is_empty() {
        "watch (the default command)".to_owned()
    } else {
        path.iter().map(|c| c.get_name()).collect::<Vec<_>>().join(" ")
    };
    match err.kind() {
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let subs: Vec<&clap::Command> =
                here.get_subcommands().filter(|s| s.get_name() != "help").collect();
            Some(format!(
                "error: `{run}` needs a subcommand: {} (see `cli-ascii {run} --help`)",
                names(&subs)
            ))
        }
        ErrorKind::UnknownArgument => {
            let ContextValue::String(given) = err.get(ContextKind::InvalidArg)? else {
                return None;
            };
            let long = given.strip_prefix("--")?.split('=').next()?;
            let owners: Vec<&clap::Command> = cmd
                .get_subcommands()
                .filter(|sub| sub.get_arguments().any(|a| a.get_long() == Some(long)))
                .collect();
            (!owners.is_empty()).then(|| {
                format!(
                    "error: unexpected argument '--{long}' found: {} {} it, not {run}",
                    names(&owners),
                    if owners.len() == 1 { "takes" } else { "take" }
                )
            })
        }
        _ => None,
    }
}

/// Whether an error comes from writing to a closed pipe, anywhere in its
/// chain (as ripgrep's `main.rs` checks).
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

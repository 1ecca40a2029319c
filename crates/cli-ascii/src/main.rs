//! `cli-ascii`: watch the expectimax AI play 2048, play yourself and
//! analyse boards, in a terminal. The lab (tournaments, comparisons, tuning,
//! training, the endgame tables) is another program, `lab`, of its own
//! package; what both share is the `cli-common` library.
//!
//! The binary is glue: the rules live in game-core and the search behind
//! engine; this program holds the command line, the rendering, the key
//! handling and the output formats. All output goes through locked
//! stdout/stderr handles (never `println!`), so that a closed pipe is an
//! error we can see and end on quietly.

mod analyze;
mod best;
mod cli;
mod keys;
mod layout;
mod play;
mod render;
mod term;
mod upgrade;
mod watch;

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use cli_common::exit::{Usage, clap_exit, finish};
use cli_common::{LAB_COMMANDS, LAB_OPTIONS};

use crate::cli::Command;

/// The game's usage errors: `watch` runs when no command is named, and a
/// command or option it does not know may be the lab's.
const USAGE: Usage = Usage {
    default: Some("watch"),
    elsewhere: Some(
        "tournaments, comparisons, tuning, training and the tables are the lab's, another \
         program (see `lab --help`)",
    ),
    foreign: LAB_OPTIONS,
};

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    if let Some(command) = lab_command(&args) {
        return forward_to_lab(command, &args);
    }
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(err) => return clap_exit(&err, &cli::command(), USAGE),
    };
    finish(match cli.command {
        None => watch::run(&cli.watch),
        Some(Command::Watch(args)) => watch::run(&args),
        Some(Command::Play(args)) => play::run(&args),
        Some(Command::Analyze(args)) => analyze::run(&args),
    })
}

/// The lab command an old command line names (`tournament ...`, or
/// `help tournament`), which moved to the `lab` program.
fn lab_command(args: &[OsString]) -> Option<&'static str> {
    let word = |i: usize| args.get(i).and_then(|a| a.to_str());
    let name = match word(0)? {
        "help" => word(1)?,
        first => first,
    };
    LAB_COMMANDS.into_iter().find(|c| *c == name)
}

/// The `lab` program beside this one (as cargo builds and installs them).
fn lab_program() -> io::Result<PathBuf> {
    let me = std::env::current_exe()?;
    Ok(me.with_file_name(format!("lab{}", std::env::consts::EXE_SUFFIX)))
}

/// Runs `lab` with the same arguments, after a note on stderr: the lab's
/// commands moved there, and old command lines keep working for a release.
fn forward_to_lab(command: &str, args: &[OsString]) -> ExitCode {
    let mut err = io::stderr().lock();
    let program = match lab_program() {
        Ok(path) if path.is_file() => path,
        found => {
            let place = found.map_or_else(|e| format!("({e})"), |p| p.display().to_string());
            let _ = writeln!(
                err,
                "error: `{command}` moved to the lab program, which is not beside this one \
                 ({place}): from a clone, run `cargo run -p lab -- {command} ...` or build it \
                 with `cargo build -p lab` (`cargo install --path crates/lab` installs it)"
            );
            return ExitCode::FAILURE;
        }
    };
    let _ = writeln!(
        err,
        "note: `{command}` moved to the lab program: `lab {command} ...` \
         (`cargo run -p lab -- {command} ...`); this old form runs it for one \
         more release"
    );
    drop(err);
    run_instead(&program, args)
}

/// Replaces this process by `program` with `args`: signals (Ctrl-C, which
/// `train` turns into a checkpoint), the exit code and the standard streams
/// are then the lab's own.
#[cfg(unix)]
fn run_instead(program: &Path, args: &[OsString]) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let failed = std::process::Command::new(program).args(args).exec();
    let _ = writeln!(io::stderr().lock(), "error: cannot run {}: {failed}", program.display());
    ExitCode::FAILURE
}

/// Runs `program` with `args` and ends with its exit code. Ctrl-C reaches
/// both processes: this one ignores it and waits, so that the lab alone
/// answers it (`train` writes its checkpoint) and its exit code is ours.
#[cfg(not(unix))]
fn run_instead(program: &Path, args: &[OsString]) -> ExitCode {
    let _ = ctrlc::set_handler(|| {});
    match std::process::Command::new(program).args(args).status() {
        Ok(status) => ExitCode::from(status.code().map_or(1, |c| u8::try_from(c).unwrap_or(1))),
        Err(e) => {
            let _ = writeln!(io::stderr().lock(), "error: cannot run {}: {e}", program.display());
            ExitCode::FAILURE
        }
    }
}

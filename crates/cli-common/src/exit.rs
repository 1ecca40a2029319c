//! How both programs end: a usage error as one `error: ...` line and exit
//! code 2, a failure as one `error: ...` line and exit code 1, a closed
//! pipe quietly.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::error::{ContextKind, ContextValue, ErrorKind};

/// The exit code of a command's `result`, its error written on stderr.
pub fn finish(result: anyhow::Result<ExitCode>) -> ExitCode {
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

/// What a program's usage errors say beyond clap's words.
#[derive(Debug, Clone, Copy)]
pub struct Usage {
    /// The subcommand that runs when none is named (the game's `watch`).
    pub default: Option<&'static str>,
    /// Where a command or an option that the program does not know may
    /// belong (the game names the lab), added to such an error.
    pub elsewhere: Option<&'static str>,
    /// Another program's options and the commands that take them (the
    /// game's are the lab's): such an option is named as that program's.
    pub foreign: &'static [(&'static str, &'static [&'static str])],
}

/// Help and version go to stdout as clap prints them; a usage error becomes
/// one `error: ...` line on stderr and exit code 2, clap's convention.
/// `cmd` is the program's command line.
pub fn clap_exit(err: &clap::Error, cmd: &clap::Command, usage: Usage) -> ExitCode {
    if !err.use_stderr() {
        let _ = err.print();
        return ExitCode::SUCCESS;
    }
    // `args()` would panic on an argument that is not UTF-8 (a file name,
    // say): the usage error is still worth its one line.
    let args: Vec<String> =
        std::env::args_os().skip(1).map(|a| a.to_string_lossy().into_owned()).collect();
    if let Some(line) = our_words(err, cmd, usage, &args) {
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
    let mut line = match tip {
        Some(tip) => format!("{line} ({})", tip.trim_start_matches("tip: ")),
        None => format!("{line} (see --help)"),
    };
    let unknown = matches!(err.kind(), ErrorKind::UnknownArgument | ErrorKind::InvalidSubcommand);
    if let (true, Some(elsewhere)) = (unknown, usage.elsewhere) {
        line = format!("{line}; {elsewhere}");
    }
    let _ = writeln!(io::stderr().lock(), "{line}");
    ExitCode::from(2)
}

/// Our own message for the usage errors clap words unhelpfully, given the
/// command line `args` (without the program's name): a command that needs
/// a subcommand (clap prints the command's description as the error), and
/// an option of other commands than the one run (clap's tip names any
/// option that looks alike: `--games` for `watch` got `--tables`).
fn our_words(
    err: &clap::Error,
    cmd: &clap::Command,
    usage: Usage,
    args: &[String],
) -> Option<String> {
    let default = usage.default;
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
    let program = cmd.get_name();
    let named: Vec<&str> = path.iter().map(|c| c.get_name()).collect();
    let run = match (named.is_empty(), default) {
        (true, Some(default)) => format!("{default} (the default command)"),
        (true, None) => program.to_owned(),
        (false, _) => named.join(" "),
    };
    match err.kind() {
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let subs: Vec<&clap::Command> =
                here.get_subcommands().filter(|s| s.get_name() != "help").collect();
            let see: Vec<&str> = std::iter::once(program).chain(named.iter().copied()).collect();
            Some(format!(
                "error: `{run}` needs a subcommand: {} (see `{} --help`)",
                names(&subs),
                see.join(" ")
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
            if owners.is_empty()
                && let Some((_, commands)) = usage.foreign.iter().find(|(o, _)| *o == long)
            {
                // Not a look-alike of this program's options (clap's tip
                // named `--tables` for `--games`): the other program's.
                let listed: Vec<&str> = commands.to_vec();
                let (init, last) = listed.split_at(listed.len().saturating_sub(1));
                let all = match init {
                    [] => last.join(""),
                    _ => format!("{} and {}", init.join(", "), last.join("")),
                };
                let takes = if listed.len() == 1 { "takes" } else { "take" };
                let first = listed.first().copied().unwrap_or_default();
                return Some(format!(
                    "error: unexpected argument '--{long}' found: it is an option of the lab, \
                     another program, whose {all} {takes} it (see `lab {first} --help`)"
                ));
            }
            let first = owners.first()?.get_name();
            let takes = if owners.len() == 1 { "takes" } else { "take" };
            Some(if named.is_empty() && default.is_none() {
                // No command named, and none runs by default.
                format!(
                    "error: unexpected argument '--{long}' found: {} {takes} it, after its \
                     name (`{program} {first} --{long} ...`)",
                    names(&owners)
                )
            } else {
                format!(
                    "error: unexpected argument '--{long}' found: {} {takes} it, not {run}",
                    names(&owners)
                )
            })
        }
        _ => None,
    }
}

/// Whether an error comes from writing to a closed pipe, anywhere in its
/// chain (as ripgrep's `main.rs` checks).
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

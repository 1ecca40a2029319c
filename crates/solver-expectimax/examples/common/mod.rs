//! What the examples share: their arguments read with errors that name the
//! argument, and errors reported as one `error: ...` line with exit status 1,
//! never a panic or a `Debug` dump.
#![allow(dead_code, reason = "each example compiles this module and uses a part of it")]

use std::fmt::Display;
use std::io::Write;
use std::process::ExitCode;
use std::str::FromStr;

/// Any error of an example, sendable across the tournament's threads.
pub(crate) type Error = Box<dyn std::error::Error + Send + Sync>;

/// Runs `run` on the command line's arguments and reports its error.
pub(crate) fn main_with(run: impl FnOnce(&[String]) -> Result<(), Error>) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // If stderr is gone there is nowhere left to report to.
            let _ = writeln!(std::io::stderr(), "error: {err}");
            ExitCode::FAILURE
        }
    }
}

/// Parses the value given for `name`, or says which argument is missing or
/// malformed.
pub(crate) fn parse<T>(name: &str, value: Option<&String>) -> Result<T, String>
where
    T: FromStr,
    T::Err: Display,
{
    let value = value.ok_or_else(|| format!("{name} is missing"))?;
    value.parse().map_err(|e| format!("{name} `{value}`: {e}"))
}

/// Like [`parse`] for an argument that may be left out: `default` then.
pub(crate) fn parse_or<T>(name: &str, value: Option<&String>, default: T) -> Result<T, String>
where
    T: FromStr,
    T::Err: Display,
{
    match value {
        Some(_) => parse(name, value),
        None => Ok(default),
    }
}

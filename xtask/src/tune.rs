//! `cargo xtask tune`: the evaluator's weights tuned by seeded tournaments.
//!
//! The tuning is `lab tune` (it plays games with the library, and takes
//! the lab's search options); this task runs it in a release build,
//! which is several times faster than the dev profile for hours of games,
//! passing the options through.

use crate::util::{Result, cargo, render, run_checked};

pub(crate) fn run(args: &[String]) -> Result<()> {
    let mut cmd = cargo();
    cmd.args(["run", "--quiet", "--release", "-p", "lab", "--", "tune"]);
    cmd.args(args);
    // On stderr, so that `cargo xtask tune > table.md` keeps only the table.
    eprintln!("==> {}", render(&cmd));
    run_checked(&mut cmd)
}

//! `cargo xtask tune`: the evaluator's weights tuned by seeded tournaments.
//!
//! The search lives in the solver's `tune` example, so that it plays games
//! in-process with the library (xtask depends on std alone); this task builds
//! it in release mode and passes the options through.

use crate::util::{Result, cargo, render, run_checked};

pub(crate) fn run(args: &[String]) -> Result<()> {
    let mut cmd = cargo();
    cmd.args(["run", "--quiet", "--release", "-p", "solver-expectimax", "--example", "tune", "--"])
        .args(args);
    // On stderr, so that `cargo xtask tune > table.md` keeps only the table.
    eprintln!("==> {}", render(&cmd));
    run_checked(&mut cmd)
}

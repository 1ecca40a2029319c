//! `lab`: the 2048 AI's lab. Seeded tournaments and paired comparisons of
//! players, tuning of the heuristic, agreement with a deeper search,
//! training and export of the n-tuple network, the endgame tables. The
//! game (watch, play, analyze) is the other program, `cli-ascii`; what
//! both share is the `cli-common` library.
//!
//! The lab may use solver-expectimax and ntuple directly (the game reaches
//! them through engine only). All output goes through locked stdout/stderr
//! handles (never `println!`), so that a closed pipe is an error we can see
//! and end on quietly.

mod agreement;
mod cli;
mod compare;
mod distill;
mod tournament;
mod train;
mod tune;

use std::process::ExitCode;

use cli_common::exit::{Usage, clap_exit, finish};
use cli_common::setup;

use crate::cli::{Command, TablesCommand};

fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(err) => {
            return clap_exit(
                &err,
                &cli::command(),
                Usage { default: None, elsewhere: None, foreign: &[] },
            );
        }
    };
    let done = |result: anyhow::Result<()>| result.map(|()| ExitCode::SUCCESS);
    finish(match cli.command {
        Command::Tournament(args) => done(tournament::run(&args)),
        Command::Tune(args) => done(tune::run(&args)),
        Command::Agreement(args) => done(agreement::run(&args)),
        Command::Train(args) => done(train::run(&args)),
        Command::ExportWeights(args) => done(train::export(&args)),
        Command::Compare(args) => compare::run(&args),
        Command::Tables(TablesCommand::Distill(args)) => done(distill::distill(&args)),
        Command::Tables(TablesCommand::Coverage(args)) => done(distill::coverage(&args)),
        Command::Tables(TablesCommand::Build(args)) => {
            done(setup::build_tables(args.tables.as_deref(), args.tables_max_states, args.preset))
        }
    })
}

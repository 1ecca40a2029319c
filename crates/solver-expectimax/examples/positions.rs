//! Decides every committed bench position (benches/positions.txt) with a
//! preset, a few times over, and prints the move applications per second:
//! a quick speed check to run under `/usr/bin/time` or valgrind.
//!
//! `cargo run --release -p solver-expectimax --example positions -- PRESET THREADS ROUNDS [PHASE [TABLE_MIB]]`

mod common;

use std::io::Write;
use std::time::Instant;

use game_core::{Board, Rules};
use solver_expectimax::{Preset, Solver};

use common::{Error, parse_or};

fn main() -> std::process::ExitCode {
    common::main_with(run)
}

fn run(args: &[String]) -> Result<(), Error> {
    let preset: Preset = parse_or("PRESET", args.first(), Preset::Default)?;
    let threads: usize = parse_or("THREADS", args.get(1), 1)?;
    let rounds: usize = parse_or("ROUNDS", args.get(2), 1)?;
    let phase = args.get(3).filter(|p| p.as_str() != "all");
    let table_mib: usize = parse_or("TABLE_MIB", args.get(4), 64)?;
    let boards: Vec<Board> = include_str!("../benches/positions.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter(|l| phase.is_none_or(|p| l.starts_with(p.as_str())))
        .map(|l| l.split('|').nth(1).unwrap_or("").trim().parse())
        .collect::<Result<_, _>>()?;
    let mut config = preset.config();
    config.threads = threads;
    config.table_bytes = config.table_bytes.min(table_mib << 20);
    // One solver, its table cleared before each round (untimed), as in the
    // bench: a cold table without timing a new table's page faults, which
    // on two threads cost more than the search itself.
    let solver = Solver::new(config)?;
    let mut moves = 0;
    let mut secs = 0.0;
    for _ in 0..rounds {
        solver.clear_table();
        let start = Instant::now();
        for board in &boards {
            moves += solver.decide(board, &Rules::default())?.stats.moves;
        }
        secs += start.elapsed().as_secs_f64();
    }
    writeln!(
        std::io::stdout(),
        "{preset} threads={threads} positions={} rounds={rounds} moves={moves} time={secs:.3}s rate={:.1}M/s",
        boards.len(),
        moves as f64 / secs / 1e6
    )?;
    Ok(())
}

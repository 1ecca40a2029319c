//! A seeded tournament from the library alone, appending one CSV line per
//! finished game so that a run cut off early still counts.
//!
//! `cargo run --release -p solver-expectimax --example tournament -- PRESET GAMES FIRST_SEED THREADS PARALLEL OUT.csv [MAX_MOVES]`
//!
//! The columns are those of `cli-ascii tournament --csv`:
//! `seed,score,max_tile,moves,millis`, plus the median decision time in
//! microseconds as a last column.
//!
//! THREADS is the search's threads per game, PARALLEL the games played at
//! once (each at least 1).
//!
//! Resuming: seeds that already have a line in OUT.csv are skipped, so the
//! same command continues a cut-off run. With PARALLEL = 1 the games are
//! played in seed order; a run cut off then ends with a finished prefix of
//! its seeds plus the one game in progress, which the next run replays, so
//! long games are not dropped in favour of short ones.

mod common;

use std::collections::HashSet;
use std::fs::OpenOptions;
use std::io::Write;
use std::sync::Mutex;
use std::time::Instant;

use game_core::{Board, Game, GameBoard, Rules};
use solver_expectimax::{ExpectimaxPlayer, Player, Preset, Summary};

use common::{Error, parse};

fn main() -> std::process::ExitCode {
    common::main_with(run)
}

fn run(args: &[String]) -> Result<(), Error> {
    if args.len() < 6 {
        return Err(
            "usage: tournament PRESET GAMES FIRST_SEED THREADS PARALLEL OUT.csv [MAX_MOVES]".into(),
        );
    }
    let preset: Preset = parse("PRESET", args.first())?;
    let games: u64 = parse("GAMES", args.get(1))?;
    let first_seed: u64 = parse("FIRST_SEED", args.get(2))?;
    let threads: usize = parse("THREADS", args.get(3))?;
    let parallel: usize = parse("PARALLEL", args.get(4))?;
    let max_moves: Option<u64> =
        if args.len() > 6 { Some(parse("MAX_MOVES", args.get(6))?) } else { None };
    let end =
        first_seed.checked_add(games).ok_or("FIRST_SEED plus GAMES is past the largest seed")?;
    if threads == 0 || parallel == 0 {
        return Err("THREADS and PARALLEL must be at least 1".into());
    }
    let path = &args[5];
    let done = finished_seeds(path)?;
    let out = Mutex::new(
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("{path}: {e}"))?,
    );
    let mut config = preset.config();
    config.threads = threads;
    let rules = if preset == Preset::Tutorial { Rules::tutorial() } else { Rules::default() };
    let seeds: Vec<u64> = (first_seed..end).filter(|seed| !done.contains(seed)).collect();
    let play = |&seed: &u64| -> Result<_, String> {
        let start = Instant::now();
        let mut player = ExpectimaxPlayer::new(config).map_err(|e| e.to_string())?;
        let mut game = Game::<Board>::new(rules, seed).map_err(|e| e.to_string())?;
        let mut times = Vec::new();
        while !game.is_over() && max_moves.is_none_or(|m| game.moves() < m) {
            let Some((dir, decision)) = player.choose(&game) else { break };
            if let Some(d) = decision {
                times.push(d.elapsed.as_micros());
            }
            game.play(dir).map_err(|e| e.to_string())?;
        }
        times.sort_unstable();
        let median = times.get(times.len() / 2).copied().unwrap_or(0);
        let record = solver_expectimax::GameRecord {
            seed,
            score: game.score(),
            max_tile: game.board().max_tile(),
            moves: game.moves(),
            duration: start.elapsed(),
        };
        let line = format!(
            "{},{},{},{},{},{}\n",
            record.seed,
            record.score,
            record.max_tile,
            record.moves,
            record.duration.as_millis(),
            median
        );
        if let Ok(mut file) = out.lock() {
            file.write_all(line.as_bytes()).map_err(|e| e.to_string())?;
        }
        Ok(record)
    };
    let records = if parallel <= 1 {
        seeds.iter().map(play).collect::<Result<Vec<_>, String>>()?
    } else {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(parallel).build()?;
        pool.install(|| {
            use rayon::prelude::*;
            seeds.par_iter().map(play).collect::<Result<Vec<_>, String>>()
        })?
    };
    // Only this run's games: a resumed run's earlier games are in the CSV.
    let summary = Summary::of(&records);
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "this run's {} games: {summary:?}", records.len())?;
    Ok(())
}

/// The seeds with a line in `path` already (none if it does not exist yet).
fn finished_seeds(path: &str) -> Result<HashSet<u64>, Error> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(HashSet::new()),
        Err(err) => return Err(format!("{path}: {err}").into()),
    };
    // A header line, if any, is not a number and is skipped.
    Ok(text.lines().filter_map(|line| line.split(',').next()?.parse().ok()).collect())
}

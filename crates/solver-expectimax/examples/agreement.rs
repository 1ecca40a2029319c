//! A cheap proxy for the strength of search settings: how often they choose
//! the move a much deeper reference search chooses, and at what cost in
//! move applications, over positions taken from real games.
//!
//! `cargo run --release -p solver-expectimax --example agreement -- FIRST_SEED GAMES STEP REFERENCE BASELINE [CANDIDATE...]`
//!
//! - The positions: `GAMES` games of the `fast` preset from seed
//!   `FIRST_SEED` on, every `STEP`th board from move 300 to the end (the
//!   opening is easy for every setting).
//! - Each setting is `PRESET[,cutoff=P][,bonus=N]`: a preset, optionally
//!   with another probability cut-off or adaptive-depth bonus.
//! - Every setting decides every position on one thread (so the counts are
//!   exact and repeatable), with one table kept from position to position.
//!
//! For each candidate it prints the work relative to `BASELINE`, how often
//! it agrees with `REFERENCE`, and on how many positions it agrees where the
//! baseline does not (`won`) and the reverse (`lost`). Agreement with a
//! deeper search is only a proxy: whether a setting plays stronger is for
//! full-game tournaments to show, and this picks what is worth one.

mod common;

use std::io::Write;
use std::time::Instant;

use game_core::{Board, Direction, Game, Rules};
use solver_expectimax::{Algorithm, Depth, Preset, SearchConfig, Solver};

use common::{Error, parse};

/// Positions before this move are left out.
const FIRST_MOVE: u64 = 300;

fn main() -> std::process::ExitCode {
    common::main_with(run)
}

/// One search setting, as named on the command line.
struct Setting {
    name: String,
    config: SearchConfig,
}

fn setting(text: &str) -> Result<Setting, Error> {
    let mut parts = text.split(',');
    let preset: Preset = parts.next().unwrap_or("").parse()?;
    let mut config = preset.config();
    config.threads = 1;
    for part in parts {
        let (key, value) =
            part.split_once('=').ok_or_else(|| format!("`{part}`: expected KEY=VALUE"))?;
        match (key, &mut config.algorithm, &mut config.depth) {
            ("cutoff", Algorithm::Expectimax { prob_cutoff, .. }, _) => {
                *prob_cutoff = value.parse().map_err(|e| format!("cutoff `{value}`: {e}"))?;
            }
            ("bonus", _, Depth::Adaptive { bonus, .. }) => {
                *bonus = value.parse().map_err(|e| format!("bonus `{value}`: {e}"))?;
            }
            _ => {
                return Err(format!(
                    "`{key}` does not apply to {preset} (cutoff, bonus: expectimax presets)"
                )
                .into());
            }
        }
    }
    config.validate()?;
    Ok(Setting { name: text.to_owned(), config })
}

/// Every `step`th board of a `fast` game, from [`FIRST_MOVE`] on.
fn positions(seed: u64, step: u64) -> Result<Vec<Board>, Error> {
    let rules = Rules::default();
    let solver = Solver::new(Preset::Fast.config())?;
    let mut game: Game<Board> = Game::new(rules, seed)?;
    let mut boards = Vec::new();
    while !game.is_over() {
        if game.moves() >= FIRST_MOVE && game.moves().is_multiple_of(step) {
            boards.push(*game.board());
        }
        game.play(solver.decide(game.board(), &rules)?.direction)?;
    }
    Ok(boards)
}

/// Each position's chosen direction, the total move applications and the
/// median time per decision.
fn decide_all(setting: &Setting, boards: &[Board]) -> Result<(Vec<Direction>, u64, f64), Error> {
    let solver = Solver::new(setting.config)?;
    let rules = Rules::default();
    let mut moves = 0;
    let mut millis = Vec::with_capacity(boards.len());
    let mut chosen = Vec::with_capacity(boards.len());
    for board in boards {
        let start = Instant::now();
        let decision = solver.decide(board, &rules)?;
        millis.push(start.elapsed().as_secs_f64() * 1e3);
        moves += decision.stats.moves;
        chosen.push(decision.direction);
    }
    millis.sort_by(f64::total_cmp);
    Ok((chosen, moves, millis.get(millis.len() / 2).copied().unwrap_or(0.0)))
}

fn run(args: &[String]) -> Result<(), Error> {
    let first_seed: u64 = parse("FIRST_SEED", args.first())?;
    let games: u64 = parse("GAMES", args.get(1))?;
    let step: u64 = parse("STEP", args.get(2))?;
    if step == 0 {
        return Err("STEP must be at least 1".into());
    }
    let settings: Vec<Setting> =
        args.get(3..).unwrap_or_default().iter().map(|s| setting(s)).collect::<Result<_, _>>()?;
    if settings.len() < 2 {
        return Err("name a REFERENCE and a BASELINE setting (and any candidates)".into());
    }
    let last_seed = first_seed.checked_add(games).ok_or("FIRST_SEED + GAMES overflows")?;
    let mut boards = Vec::new();
    for seed in first_seed..last_seed {
        boards.extend(positions(seed, step)?);
    }
    if boards.is_empty() {
        // Every rate below is over the positions: with none, they are 0/0.
        return Err(
            format!("no positions: the games end before move {FIRST_MOVE} or GAMES is 0").into()
        );
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} positions: fast games {first_seed}..{last_seed}, every {step}th move from move {FIRST_MOVE}",
        boards.len()
    )?;
    let results: Vec<_> =
        settings.iter().map(|s| decide_all(s, &boards)).collect::<Result<_, _>>()?;
    // Per position: does a setting choose the reference's move?
    let hits = |chosen: &[Direction]| -> Vec<bool> {
        chosen.iter().zip(&results[0].0).map(|(a, b)| a == b).collect()
    };
    let baseline = &results[1];
    let baseline_hits = hits(&baseline.0);
    writeln!(
        out,
        "| setting | move applications | work vs baseline | median ms | agrees with reference | won | lost |"
    )?;
    writeln!(out, "|---|---:|---:|---:|---:|---:|---:|")?;
    for (setting, (chosen, moves, median)) in settings.iter().zip(&results).skip(1) {
        let own = hits(chosen);
        let same = own.iter().filter(|&&hit| hit).count();
        let won = own.iter().zip(&baseline_hits).filter(|&(&a, &b)| a && !b).count();
        let lost = own.iter().zip(&baseline_hits).filter(|&(&a, &b)| !a && b).count();
        writeln!(
            out,
            "| {} | {moves} | {:.2}x | {median:.1} | {same} ({:.1}%) | {won} | {lost} |",
            setting.name,
            *moves as f64 / baseline.1 as f64,
            100.0 * same as f64 / boards.len() as f64
        )?;
    }
    writeln!(
        out,
        "reference: {} ({} move applications, median {:.1} ms)",
        settings[0].name, results[0].1, results[0].2
    )?;
    Ok(())
}

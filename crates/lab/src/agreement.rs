//! `agreement`: a cheap proxy for the strength of a search setting.
//!
//! How often the setting chooses the move a much deeper reference search
//! chooses, and at what cost in move applications, over positions taken from
//! real games, next to a baseline setting. The positions are every `--every`th
//! board of `--games` games of the `fast` preset, from move
//! [`FIRST_MOVE`] on (the opening is easy for every setting). Every setting
//! decides every position on one thread, so the counts are exact and
//! repeatable, with one table kept from position to position. Agreement with
//! a deeper search is only a proxy: whether a setting plays stronger is for
//! full-game tournaments to show, and this picks what is worth one.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::time::Instant;

use cli_common::setup;
use engine::{Overrides, Setting, SolverSpec};
use game_core::{Board, Direction, Game, Rules};
use solver_expectimax::{Depth, Preset, Solver};

use crate::cli::AgreementArgs;

/// Positions before this move are left out.
const FIRST_MOVE: u64 = 300;

/// One setting's decisions on every position.
struct Decisions {
    name: String,
    chosen: Vec<Direction>,
    /// Move applications in all.
    moves: u64,
    median_millis: f64,
}

pub(crate) fn run(args: &AgreementArgs) -> anyhow::Result<()> {
    let last_seed = args
        .seed_start
        .checked_add(args.games)
        .ok_or_else(|| anyhow::anyhow!("--seed-start plus --games is past the largest seed"))?;
    // Each solver is built before the positions are played, so that bad
    // settings, missing tables or a missing network fail at once.
    let solvers = specs(args)?
        .map(|(name, spec)| spec.build(4).map(|s| (name, s)).map_err(|e| setup::spec_error(&e)));
    let solvers: Vec<(String, Solver)> = solvers.into_iter().collect::<Result<_, _>>()?;

    let mut boards = Vec::new();
    for seed in args.seed_start..last_seed {
        boards.extend(positions(seed, args.every)?);
    }
    if boards.is_empty() {
        // Every rate below is over the positions: with none, they are 0/0.
        anyhow::bail!("no positions: the games end before move {FIRST_MOVE}");
    }
    let mut out = io::stdout().lock();
    writeln!(
        out,
        "{} positions: fast games {}..{last_seed}, every {}th move from move {FIRST_MOVE}",
        boards.len(),
        args.seed_start,
        args.every
    )?;
    out.flush()?;
    let results: Vec<Decisions> = solvers
        .into_iter()
        .map(|(name, solver)| decide_all(name, &solver, &boards))
        .collect::<Result<_, _>>()?;
    out.write_all(table(&results, boards.len()).as_bytes())?;
    Ok(out.flush()?)
}

/// The three settings compared, named: the reference, the baseline and
/// the candidate, each deciding on one thread so that its work counts are
/// exact. The tables the options ask for (`--endgame`, or the corner
/// preset's own) are opened once: the candidate plays by them, and so does
/// the baseline or the reference when its preset needs tables of its own.
fn specs(args: &AgreementArgs) -> anyhow::Result<[(String, SolverSpec); 3]> {
    let one_thread = |spec: SolverSpec, overrides: Overrides| {
        spec.with_overrides(overrides.with(Setting::Threads, 1))
    };
    let tables = setup::endgame_of(&args.settings, 4, &Rules::default())?;
    let with_own = |spec: SolverSpec| {
        if spec.needs_tables() { spec.with_endgame(tables.clone()) } else { spec }
    };
    let settings = args.settings.solver_spec(4);
    let candidate =
        one_thread(settings.clone(), *settings.overrides()).with_endgame(tables.clone());
    let baseline_preset = args.baseline.unwrap_or(args.settings.preset(4));
    let baseline = with_own(one_thread(SolverSpec::new(baseline_preset), Overrides::default()));
    if let Depth::Fixed(_) | Depth::AtLeast { .. } = args.reference.config().depth {
        anyhow::bail!(
            "--reference {} has a fixed depth: choose a preset with an adaptive one",
            args.reference
        );
    }
    let bonus = Overrides::default().with(Setting::DepthBonus, args.reference_bonus);
    let reference = with_own(one_thread(SolverSpec::new(args.reference), bonus));
    Ok([
        (format!("{} (depth bonus {})", args.reference, args.reference_bonus), reference),
        (baseline_preset.to_string(), baseline),
        (setting_name(&args.settings), candidate),
    ])
}

/// The setting as the options gave it, e.g. `default, --depth-bonus 1`.
fn setting_name(settings: &cli_common::args::SearchSettings) -> String {
    let mut name = settings.preset(4).to_string();
    for (setting, value) in settings.overrides.0.given() {
        let _ = write!(name, ", {} {value}", setting.option());
    }
    if let Some(weights) = &settings.weights {
        let _ = write!(name, ", --weights {}", weights.display());
    }
    name
}

/// Every `step`th board of a `fast` game, from [`FIRST_MOVE`] on.
fn positions(seed: u64, step: u64) -> anyhow::Result<Vec<Board>> {
    let rules = Rules::default();
    let solver = Solver::new(Preset::Fast.config())?;
    let mut game = Game::new(rules, seed);
    let mut boards = Vec::new();
    while !game.is_over() {
        if game.moves() >= FIRST_MOVE && game.moves().is_multiple_of(step) {
            boards.push(*game.board());
        }
        game.play(solver.decide(game.board(), &rules)?.direction)?;
    }
    Ok(boards)
}

/// Each position's chosen direction, the move applications and the median
/// time per decision.
fn decide_all(name: String, solver: &Solver, boards: &[Board]) -> anyhow::Result<Decisions> {
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
    let median_millis = millis.get(millis.len() / 2).copied().unwrap_or(0.0);
    Ok(Decisions { name, chosen, moves, median_millis })
}

/// The Markdown table of `results` (reference, baseline, candidate) over
/// `positions` positions: each setting's work, its agreement with the
/// reference, and the positions it gets right where the baseline does not
/// (`won`) and the reverse (`lost`).
fn table(results: &[Decisions], positions: usize) -> String {
    let [reference, baseline, candidate] = results else {
        unreachable!("`run` decides with three settings");
    };
    let hits = |chosen: &[Direction]| -> Vec<bool> {
        chosen.iter().zip(&reference.chosen).map(|(a, b)| a == b).collect()
    };
    let baseline_hits = hits(&baseline.chosen);
    let mut md = String::from(
        "| setting | move applications | work vs baseline | median ms | agrees with reference | won | lost |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
    );
    for (role, d) in [("baseline", baseline), ("candidate", candidate)] {
        let own = hits(&d.chosen);
        let same = own.iter().filter(|&&hit| hit).count();
        let won = own.iter().zip(&baseline_hits).filter(|&(&a, &b)| a && !b).count();
        let lost = own.iter().zip(&baseline_hits).filter(|&(&a, &b)| !a && b).count();
        let _ = writeln!(
            md,
            "| {role}: {} | {} | {:.2}x | {:.1} | {same} ({:.1}%) | {won} | {lost} |",
            d.name,
            d.moves,
            d.moves as f64 / baseline.moves.max(1) as f64,
            d.median_millis,
            100.0 * same as f64 / positions as f64
        );
    }
    let _ = writeln!(
        md,
        "reference: {} ({} move applications, median {:.1} ms)",
        reference.name, reference.moves, reference.median_millis
    );
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables the options ask for are played by: `--endgame` reaches
    /// the candidate (it was dropped before), and the corner preset, as
    /// candidate or as shipped baseline, gets its own tables.
    #[test]
    fn the_tables_asked_for_are_played_by() {
        use crate::cli::{Cli, Command};
        use clap::Parser;
        let dir = std::env::temp_dir().join(format!("agreement-tables-{}", std::process::id()));
        let tables = dir.to_str().unwrap().to_owned();
        let args = |extra: &[&str]| {
            let line = ["lab", "agreement"].iter().chain(extra);
            match Cli::try_parse_from(line).unwrap().command {
                Command::Agreement(a) => a,
                other => panic!("{other:?}"),
            }
        };
        let small = ["--endgame", "--tables", &tables, "--tables-max-states", "2000000"];
        let plays = |spec: &SolverSpec| format!("{spec:?}").contains("endgame: true");
        let corner = specs(&args(&[&["--preset", "corner"][..], &small].concat())).unwrap();
        for (name, spec) in &corner[1..] {
            assert!(plays(spec) && !spec.lacks_tables(), "{name}");
        }
        assert!(!plays(&corner[0].1), "the reference needs no tables");
        let fast = specs(&args(&[&["--preset", "fast"][..], &small].concat())).unwrap();
        assert!(plays(&fast[2].1) && !plays(&fast[1].1) && !plays(&fast[0].1));
        let plain = specs(&args(&["--preset", "fast"])).unwrap();
        assert!(plain.iter().all(|(_, spec)| !plays(spec)));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_table_counts_agreement_against_the_baseline() {
        use Direction::{Down, Left, Up};
        let d = |name: &str, chosen: Vec<Direction>, moves| Decisions {
            name: name.to_owned(),
            chosen,
            moves,
            median_millis: 1.0,
        };
        let results = [
            d("max (depth bonus 2)", vec![Up, Up, Left, Down], 1000),
            d("default", vec![Up, Down, Left, Left], 100),
            d("default, --depth-bonus 1", vec![Up, Up, Down, Down], 150),
        ];
        let md = table(&results, 4);
        assert!(
            md.contains("| baseline: default | 100 | 1.00x | 1.0 | 2 (50.0%) | 0 | 0 |"),
            "{md}"
        );
        assert!(
            md.contains(
                "| candidate: default, --depth-bonus 1 | 150 | 1.50x | 1.0 | 3 (75.0%) | 2 | 1 |"
            ),
            "{md}"
        );
        assert!(
            md.ends_with(
                "reference: max (depth bonus 2) (1000 move applications, median 1.0 ms)\n"
            )
        );
    }
}

//! Tunes the evaluator's weights by seeded tournaments: a coordinate search
//! that changes one weight at a time and keeps a change only when it wins
//! clearly over the same seeds.
//!
//! `cargo run --release -p solver-expectimax --example tune -- [OPTIONS]`
//! (or `cargo xtask tune [OPTIONS]`), where the options are
//!
//! - `--preset P` (default `fast`): the search whose weights are tuned;
//! - `--games N` (default 200): games per candidate;
//! - `--first-seed S` (default 1000001): the tuning seeds are `S..S+N`, away
//!   from the seeds of published results so that tuning cannot fit them;
//! - `--rounds R` (default 1): passes over the weights; a pass that keeps no
//!   change ends the search;
//! - `--step F` (default 0.25): each weight is tried at `×(1+F)` and
//!   `×(1-F)`; the two powers at `±2F`;
//! - `--parallel N` (default: all cores): games played at once.
//!
//! Every candidate plays the same seeds as the incumbent, so the comparison is
//! paired: a change is kept when its mean score beats the incumbent's by more
//! than two standard errors of the per-seed differences. Games are chaotic, so
//! the pairing removes little variance, and 200 games resolve differences of
//! about 9% of the score; the printed table says how close each call was. One
//! comparison is fooled by noise about 2% of the time, but a round makes
//! twelve, so confirm a kept change on a fresh block of seeds
//! (`--first-seed`) before adopting it.

mod common;

use std::io::Write;

use game_core::{Board, Rules};
use solver_expectimax::{
    Algorithm, ExpectimaxPlayer, GameRecord, Preset, SearchConfig, Summary, TournamentSpec,
    Weights, run_tournament,
};

use common::{Error, parse};

/// The settings of one tuning run.
struct Options {
    preset: Preset,
    games: u64,
    first_seed: u64,
    rounds: u32,
    step: f32,
    parallel: usize,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options {
            preset: Preset::Fast,
            games: 200,
            first_seed: 1_000_001,
            rounds: 1,
            step: 0.25,
            parallel: std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        let mut args = args.iter();
        while let Some(flag) = args.next() {
            let value = args.next();
            match flag.as_str() {
                "--preset" => options.preset = parse(flag, value)?,
                "--games" => options.games = parse(flag, value)?,
                "--first-seed" => options.first_seed = parse(flag, value)?,
                "--rounds" => options.rounds = parse(flag, value)?,
                "--step" => options.step = parse(flag, value)?,
                "--parallel" => options.parallel = parse(flag, value)?,
                _ => return Err(format!("unknown option {flag}")),
            }
        }
        if options.games < 2 {
            return Err("--games must be at least 2 (the comparison needs a spread)".into());
        }
        if !(options.step > 0.0 && options.step < 1.0) {
            return Err(format!("--step {} must lie strictly between 0 and 1", options.step));
        }
        if options.first_seed.checked_add(options.games).is_none() {
            return Err("--first-seed plus --games is past the largest seed".into());
        }
        if options.parallel == 0 {
            return Err("--parallel must be at least 1".into());
        }
        Ok(options)
    }
}

/// A tunable weight: how to read it and how to change it.
struct Knob {
    name: &'static str,
    get: fn(&Weights) -> f32,
    set: fn(&mut Weights, f32),
    /// Powers move additively (a factor on an exponent is too coarse near 1);
    /// the others multiplicatively.
    additive: bool,
}

const KNOBS: [Knob; 6] = [
    Knob { name: "empty", get: |w| w.empty, set: |w, v| w.empty = v, additive: false },
    Knob { name: "merges", get: |w| w.merges, set: |w, v| w.merges = v, additive: false },
    Knob {
        name: "monotonicity",
        get: |w| w.monotonicity,
        set: |w, v| w.monotonicity = v,
        additive: false,
    },
    Knob {
        name: "monotonicity_power",
        get: |w| w.monotonicity_power,
        set: |w, v| w.monotonicity_power = v,
        additive: true,
    },
    Knob { name: "sum", get: |w| w.sum, set: |w, v| w.sum = v, additive: false },
    Knob { name: "sum_power", get: |w| w.sum_power, set: |w, v| w.sum_power = v, additive: true },
];

/// One candidate's games, in seed order.
struct Trial {
    weights: Weights,
    records: Vec<GameRecord>,
}

impl Trial {
    fn run(
        options: &Options,
        base: SearchConfig,
        prob_cutoff: f32,
        weights: Weights,
    ) -> Result<Trial, Error> {
        let config = SearchConfig {
            algorithm: Algorithm::Expectimax { weights, prob_cutoff },
            // Parallel games, not parallel search: the decisions are the same
            // and the throughput is higher.
            threads: 1,
            ..base
        };
        let spec = TournamentSpec {
            games: options.games,
            first_seed: options.first_seed,
            rules: Rules::default(),
            max_moves: None,
            parallel_games: options.parallel,
        };
        let records = run_tournament::<Board, _, _>(
            &spec,
            |_| ExpectimaxPlayer::new(config).map_err(Error::from),
            |_| {},
        )?;
        Ok(Trial { weights, records })
    }

    fn summary(&self) -> Summary {
        Summary::of(&self.records)
    }

    /// Mean and standard error of `self - other`, seed by seed.
    fn paired_difference(&self, other: &Trial) -> (f64, f64) {
        let diffs: Vec<f64> = self
            .records
            .iter()
            .zip(&other.records)
            .map(|(a, b)| a.score as f64 - b.score as f64)
            .collect();
        let n = diffs.len() as f64;
        let mean = diffs.iter().sum::<f64>() / n;
        let variance = diffs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean, (variance / n).sqrt())
    }
}

fn row(out: &mut impl Write, label: &str, trial: &Trial, verdict: &str) -> std::io::Result<()> {
    let s = trial.summary();
    writeln!(
        out,
        "| {label} | {:.0} | {} | {:.1}% | {:.1}% | {verdict} |",
        s.mean_score,
        s.median_score(),
        100.0 * s.reach_rate(8192),
        100.0 * s.reach_rate(16384),
    )?;
    out.flush()
}

fn main() -> std::process::ExitCode {
    common::main_with(run)
}

fn run(args: &[String]) -> Result<(), Error> {
    let options = Options::parse(args)?;
    let base = options.preset.config();
    let Algorithm::Expectimax { weights, prob_cutoff } = base.algorithm else {
        return Err(format!("preset {} has no weights to tune", options.preset).into());
    };
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "Tuning the `{}` preset's weights: {} games per candidate (seeds {}..={}), \
         {} at a time, step {}.\n",
        options.preset,
        options.games,
        options.first_seed,
        options.first_seed + options.games - 1,
        options.parallel,
        options.step,
    )?;
    writeln!(out, "| candidate | mean score | median | 8192 | 16384 | verdict |")?;
    writeln!(out, "| --- | --- | --- | --- | --- | --- |")?;
    let mut best = Trial::run(&options, base, prob_cutoff, weights)?;
    row(&mut out, "start", &best, "incumbent")?;
    for round in 1..=options.rounds {
        let mut kept_any = false;
        for knob in &KNOBS {
            let current = (knob.get)(&best.weights);
            for sign in [1.0f32, -1.0] {
                let value = if knob.additive {
                    current + sign * 2.0 * options.step
                } else {
                    current * (1.0 + sign * options.step)
                };
                let mut weights = best.weights;
                (knob.set)(&mut weights, value);
                let trial = Trial::run(&options, base, prob_cutoff, weights)?;
                let (diff, se) = trial.paired_difference(&best);
                let keep = diff > 2.0 * se;
                let verdict = format!(
                    "{:+.0} ± {:.0} (2 SE): {}",
                    diff,
                    2.0 * se,
                    if keep { "kept" } else { "not kept" }
                );
                let label = format!("round {round}: {} {current} → {value}", knob.name);
                row(&mut out, &label, &trial, &verdict)?;
                if keep {
                    best = trial;
                    kept_any = true;
                    // Skip the other direction of this weight: both rarely
                    // win, and a trial costs hundreds of games.
                    break;
                }
            }
        }
        if !kept_any {
            break;
        }
    }
    writeln!(out, "\nBest weights found: {:?}", best.weights)?;
    Ok(())
}

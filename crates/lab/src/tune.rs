//! `tune`: the heuristic's weights tuned by seeded tournaments.
//!
//! A coordinate search: each weight in turn is tried a step up and a step
//! down, every candidate playing the same seeds as the incumbent, and a
//! change is kept when its mean score beats the incumbent's by more than two
//! standard errors of the per-seed differences. Games are chaotic, so the
//! pairing removes little variance, and 200 games resolve only differences
//! of several percent of the score
//! (docs/experiments/2026-11-22-tuning-the-heuristic-weights.md); the table
//! says how close each call was. One
//! comparison is fooled by noise about 2% of the time, but a round makes
//! twelve, so confirm a kept change on a fresh block of seeds
//! (`--seed-start`) before adopting it. `cargo xtask tune` runs this.

use std::io::{self, Write};

use cli_common::setup;
use game_core::{Rules, Tile};
use records::Record;
use records::summary::Summary;
use solver_expectimax::{Algorithm, ExpectimaxPlayer, SearchConfig, Weights};

use crate::cli::TuneArgs;

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
    records: Vec<Record>,
}

impl Trial {
    fn run(
        spec: &engine::TournamentSpec,
        base: SearchConfig,
        weights: Weights,
    ) -> anyhow::Result<Trial> {
        let Algorithm::Expectimax { prob_cutoff, .. } = base.algorithm else {
            unreachable!("`run` checks that the preset has weights");
        };
        let config =
            SearchConfig { algorithm: Algorithm::Expectimax { weights, prob_cutoff }, ..base };
        let records = engine::run_tournament::<_, anyhow::Error>(
            spec,
            |_| false,
            |_| Ok(ExpectimaxPlayer::new(config)?),
            |_| {},
        )?;
        Ok(Trial { weights, records })
    }

    /// Mean and standard error of `self - other`, seed by seed.
    fn paired_difference(&self, other: &Trial) -> (f64, f64) {
        let diffs: Vec<f64> = self
            .records
            .iter()
            .zip(&other.records)
            .map(|(a, b)| a.score as f64 - b.score as f64)
            .collect();
        mean_and_standard_error(&diffs)
    }
}

/// The mean of at least two values and its standard error.
fn mean_and_standard_error(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (variance / n).sqrt())
}

fn row(out: &mut impl Write, label: &str, trial: &Trial, verdict: &str) -> io::Result<()> {
    let s = Summary::of(&trial.records);
    writeln!(
        out,
        "| {label} | {:.0} | {} | {:.1}% | {:.1}% | {verdict} |",
        s.mean_score,
        s.median_score,
        100.0 * s.reach_rate(Tile::of(8192)),
        100.0 * s.reach_rate(Tile::of(16384)),
    )?;
    // A row per candidate as it is decided: a run takes hours.
    out.flush()
}

pub(crate) fn run(args: &TuneArgs) -> anyhow::Result<()> {
    let base = args.settings.solver_spec(4).config(4).map_err(|e| setup::spec_error(&e))?;
    let Algorithm::Expectimax { weights, .. } = base.algorithm else {
        anyhow::bail!("--preset {} has no heuristic weights to tune", args.settings.preset(4));
    };
    base.validate()?;
    if args.seed_start.checked_add(args.games).is_none() {
        anyhow::bail!("--seed-start plus --games is past the largest seed");
    }
    // As in a tournament: the cores shared out between games and searches.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let parallel = match args.parallel {
        Some(n) => usize::try_from(n).unwrap_or(1),
        None => (cores / base.threads).max(1),
    };
    let spec = engine::TournamentSpec {
        games: args.games,
        first_seed: args.seed_start,
        size: 4,
        rules: Rules::default(),
        max_moves: None,
        parallel_games: parallel,
    };
    let mut out = io::stdout().lock();
    writeln!(
        out,
        "Tuning the `{}` preset's weights: {} games per candidate (seeds {}..={}), \
         {parallel} at a time, step {}.\n",
        args.settings.preset(4),
        args.games,
        args.seed_start,
        args.seed_start + args.games - 1,
        args.step,
    )?;
    writeln!(out, "| candidate | mean score | median | 8192 | 16384 | verdict |")?;
    writeln!(out, "| --- | --- | --- | --- | --- | --- |")?;
    let mut best = Trial::run(&spec, base, weights)?;
    row(&mut out, "start", &best, "incumbent")?;
    for round in 1..=args.rounds {
        let mut kept_any = false;
        for knob in &KNOBS {
            let current = (knob.get)(&best.weights);
            for sign in [1.0f32, -1.0] {
                let value = if knob.additive {
                    current + sign * 2.0 * args.step
                } else {
                    current * (1.0 + sign * args.step)
                };
                let mut weights = best.weights;
                (knob.set)(&mut weights, value);
                let trial = Trial::run(&spec, base, weights)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paired_differences_have_a_standard_error() {
        let (mean, se) = mean_and_standard_error(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(mean, 2.5);
        // Sample variance 5/3, over 4 values.
        assert!((se - (5.0f64 / 3.0 / 4.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn knobs_change_the_weight_they_name() {
        for knob in &KNOBS {
            let mut weights = Weights::STANDARD;
            let before = (knob.get)(&weights);
            (knob.set)(&mut weights, before + 1.0);
            assert_eq!((knob.get)(&weights), before + 1.0, "{}", knob.name);
            assert_ne!(weights, Weights::STANDARD, "{}", knob.name);
        }
    }
}

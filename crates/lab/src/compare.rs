//! `compare`: two players on the same seeds, each seed played by both, with
//! the paired statistics of `records::paired` and an optional SPRT that
//! stops the run once it decides.

use std::collections::BTreeMap;
use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use anyhow::Context;
use clap::Parser;
use cli_common::args::{PlayerKind, SearchArgs};
use cli_common::setup::{self, AnyPlayer, PlayerSpec};
use records::Record;
use records::paired::{Comparison, Pair, Reach, Sprt, Verdict};

use crate::cli::{CompareArgs, PlayerOptions};
use crate::tournament::{CsvLog, lock, same_file, settings_line};

/// A player's options from the text of --a or --b.
fn player_options(name: &str, text: &str) -> anyhow::Result<SearchArgs> {
    PlayerOptions::try_parse_from(text.split_whitespace()).map(|p| p.search).map_err(|e| {
        let message = e.to_string();
        let first = message.lines().next().unwrap_or("").trim_start_matches("error: ");
        anyhow::anyhow!("--{name} '{text}': {first}")
    })
}

/// One side of the comparison.
struct Side {
    spec: PlayerSpec,
    csv: Option<CsvLog>,
    records: BTreeMap<u64, Record>,
}

pub(crate) fn run(args: &CompareArgs) -> anyhow::Result<ExitCode> {
    let rules = setup::rules(&args.rules)?;
    let size = args.rules.size;
    let sprt = args
        .sprt
        .map(|(d0, d1)| Sprt::new(d0, d1, args.alpha, args.beta))
        .transpose()
        .context("--sprt")?;
    if let (Some(a), Some(b)) = (&args.csv_a, &args.csv_b)
        && same_file(a, b)
    {
        anyhow::bail!("--csv-a and --csv-b name the same file: each player needs its own");
    }
    // Both records files are checked before anything is built or written:
    // a refused one leaves the other as it was.
    let mut checked = Vec::with_capacity(2);
    for (name, text, csv) in [("a", &args.a, &args.csv_a), ("b", &args.b, &args.csv_b)] {
        let options = player_options(name, text)?;
        let csv = match csv {
            Some(path) => {
                let settings = settings_line(&options, size, &rules, None);
                Some(CsvLog::check(path, args.resume, args.force, &settings)?)
            }
            None => None,
        };
        checked.push((name, options, csv));
    }
    let mut sides = Vec::with_capacity(2);
    let mut threads = 1;
    for (name, options, csv) in checked {
        let spec = PlayerSpec::of(&options, size, &rules)?;
        if spec.kind == PlayerKind::Expectimax {
            // Bad settings or a missing network fail before the first game.
            spec.solver(size).with_context(|| format!("--{name}"))?;
            threads = threads.max(spec.threads());
        }
        sides.push((spec, csv));
    }
    let sides: Vec<Side> = sides
        .into_iter()
        .map(|(spec, csv)| {
            let (csv, earlier) = match csv {
                Some(checked) => {
                    let (log, earlier) = CsvLog::open(checked)?;
                    (Some(log), earlier)
                }
                None => (None, Vec::new()),
            };
            let records = earlier.into_iter().map(|r| (r.seed, r)).collect();
            Ok(Side { spec, csv, records })
        })
        .collect::<anyhow::Result<_>>()?;
    let seeds: Vec<u64> = (0..args.games).map(|i| args.seed_start.wrapping_add(i)).collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let parallel = args
        .parallel
        .map_or((cores / threads).max(1), |n| usize::try_from(n).unwrap_or(1))
        .min(seeds.len());
    let (a, b) = (&sides[0], &sides[1]);
    // Both sides' records, and how long a prefix the SPRT has been asked
    // about so far (each longer prefix is asked once, so that the first one
    // that decides is found even when a slow seed lets the prefix jump).
    let asked = prefix(&seeds, &a.records, &b.records).len();
    let shared = Mutex::new((a.records.clone(), b.records.clone(), asked));
    let decided = AtomicBool::new(sprt.is_some_and(|s| {
        let done = prefix(&seeds, &a.records, &b.records);
        s.stopping_point(&done, args.tile).is_some()
    }));
    let next = AtomicUsize::new(0);
    let failure: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let tty = io::stderr().is_terminal();
    let play_seed = |seed: u64, side: &Side| -> anyhow::Result<Record> {
        let mut player = AnyPlayer::new(&side.spec, size, seed)?;
        let record = engine::play_game(&mut player, setup::new_game(size, rules, seed)?, None);
        if let Some(csv) = &side.csv {
            csv.append(&record);
        }
        Ok(record)
    };
    std::thread::scope(|scope| {
        for _ in 0..parallel {
            scope.spawn(|| {
                loop {
                    if decided.load(Ordering::Relaxed) {
                        return;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&seed) = seeds.get(i) else { return };
                    let mut results = [None, None];
                    for (k, side) in [a, b].into_iter().enumerate() {
                        let known = lock(&shared);
                        let have = if k == 0 { known.0.get(&seed) } else { known.1.get(&seed) };
                        results[k] = have.copied();
                        drop(known);
                        if results[k].is_none() {
                            match play_seed(seed, side) {
                                Ok(r) => results[k] = Some(r),
                                Err(e) => {
                                    lock(&failure).get_or_insert(e);
                                    decided.store(true, Ordering::Relaxed);
                                    return;
                                }
                            }
                        }
                    }
                    let mut known = lock(&shared);
                    let (ra, rb) = (results[0].expect("played"), results[1].expect("played"));
                    known.0.insert(seed, ra);
                    known.1.insert(seed, rb);
                    let done = prefix(&seeds, &known.0, &known.1);
                    if tty {
                        let reach = Reach::of(&done, args.tile);
                        let _ = write!(
                            io::stderr().lock(),
                            "\r{} of {} seeds in order: {} reached by A {}, by B {}   ",
                            done.len(),
                            seeds.len(),
                            args.tile,
                            reach.a,
                            reach.b
                        );
                    }
                    if let Some(s) = sprt {
                        let asked = known.2;
                        if (asked + 1..=done.len())
                            .any(|k| s.verdict(&done[..k], args.tile).0 != Verdict::Continue)
                        {
                            decided.store(true, Ordering::Relaxed);
                        }
                        let len = done.len();
                        drop(done);
                        known.2 = len;
                    }
                }
            });
        }
    });
    if tty {
        let _ = writeln!(io::stderr().lock());
    }
    for side in &sides {
        if let Some(csv) = &side.csv {
            csv.finish()?;
        }
    }
    if let Some(e) = lock(&failure).take() {
        return Err(e);
    }
    let known = lock(&shared);
    let mut done = prefix(&seeds, &known.0, &known.1);
    // Games in flight when the test decided may have ended since: the
    // figures stop where the test did, whatever ended first.
    if let Some(k) = sprt.and_then(|s| s.stopping_point(&done, args.tile)) {
        done.truncate(k);
    }
    let mut out = io::stdout().lock();
    let comparison =
        Comparison { a: &args.a, b: &args.b, first_seed: args.seed_start, tile: args.tile };
    out.write_all(comparison.report(&done, sprt.as_ref()).as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The pairs of the seeds from the first on, up to the first seed that
/// either side has not finished: what the statistics and the SPRT read, so
/// that a run's verdict does not depend on which games ended first.
fn prefix<'r>(
    seeds: &[u64],
    a: &'r BTreeMap<u64, Record>,
    b: &'r BTreeMap<u64, Record>,
) -> Vec<Pair<'r>> {
    seeds
        .iter()
        .map_while(|seed| Some(Pair { seed: *seed, a: a.get(seed)?, b: b.get(seed)? }))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn two_players_on_the_same_tables_share_one_copy() {
        let dir = std::env::temp_dir().join(format!("compare-tables-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let rules = game_core::Rules::default();
        let tables = format!("--endgame --tables {} --tables-max-states 300000", dir.display());
        let side = |name, preset| {
            let options = player_options(name, &format!("--preset {preset} {tables}")).unwrap();
            PlayerSpec::of(&options, 4, &rules).unwrap()
        };
        // Two corner players with different settings, as `compare` opens
        // them: one copy of the tables for both.
        let a = side("a", "corner --depth 2");
        let b = side("b", "corner");
        let (ta, tb) = (a.solver.endgame().unwrap(), b.solver.endgame().unwrap());
        assert!(Arc::ptr_eq(ta, tb), "the tables were opened twice");
        assert_eq!(ta.formations().count(), 1);
        drop((a, b));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! `tables distill` and `tables coverage`: compact corner tables from the
//! full ones, and how much of the full tables' play they answer.

use std::collections::HashMap;
use std::fs;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::Context;
use cli_common::setup;
use engine::{Overrides, Setting, SolverSpec};
use game_core::{Board, Game, Rules};
use solver_expectimax::endgame::{self, Endgame, Formation};
use solver_expectimax::{Choice, ExpectimaxPlayer, Player, Preset, SearchThreads};

use crate::cli::{CoverageArgs, DistillArgs};

/// The full corner tables in `dir` (or the cache folder), built if missing.
fn full_tables(dir: Option<&Path>) -> anyhow::Result<Arc<Endgame>> {
    let (_, tables) =
        setup::open_preset_tables(dir, Preset::Corner, None, endgame::Check::Stamped)?;
    Ok(tables)
}

/// The compact tables in `path`.
fn compact_tables(path: &Path) -> anyhow::Result<Arc<Endgame>> {
    let file = fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let tables = Endgame::read_compact(&mut BufReader::new(file))
        .with_context(|| format!("{}: not compact tables", path.display()))?;
    Ok(Arc::new(tables))
}

/// A one-thread corner player on `tables`.
fn corner_player(tables: &Arc<Endgame>) -> anyhow::Result<ExpectimaxPlayer> {
    let spec = SolverSpec::new(Preset::Corner)
        .with_overrides(Overrides::default().with(Setting::Threads, 1))
        .with_endgame(Some(Arc::clone(tables)));
    Ok(ExpectimaxPlayer::with_solver(spec.build(4).map_err(|e| setup::spec_error(&e))?))
}

/// Plays games `seed_start..seed_start + games`, `parallel` at a time,
/// each by `play`, and gives each result to `done` as it finishes.
fn each_game<T: Send>(
    games: u64,
    seed_start: u64,
    parallel: Option<usize>,
    play: impl Fn(u64) -> anyhow::Result<T> + Sync,
    done: impl FnMut(u64, T) + Send,
) -> anyhow::Result<()> {
    let threads = parallel
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, 256);
    let next = AtomicU64::new(0);
    let done = Mutex::new(done);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| -> anyhow::Result<()> {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= games {
                            return Ok(());
                        }
                        let seed = seed_start + i;
                        let out = play(seed)?;
                        (done.lock().unwrap_or_else(|e| e.into_inner()))(seed, out);
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .try_for_each(|w| w.join().unwrap_or_else(|_| Err(anyhow::anyhow!("a game panicked"))))
    })
}

/// The corner player, noting the table states each decision reads.
struct Reading {
    player: ExpectimaxPlayer,
    tables: Arc<Endgame>,
    reads: Vec<(Formation, u32)>,
}

impl Player<Board> for Reading {
    fn choose(&mut self, game: &Game<Board>) -> Option<Choice> {
        self.reads.extend(self.tables.corner_reads(*game.board()));
        self.player.choose(game)
    }

    fn search_threads(&self) -> SearchThreads {
        Player::<Board>::search_threads(&self.player)
    }
}

pub(crate) fn distill(args: &DistillArgs) -> anyhow::Result<()> {
    if args.out.exists() {
        anyhow::bail!("{} exists: give another --out", args.out.display());
    }
    let start = Instant::now();
    let tables = full_tables(args.tables.as_deref())?;
    // Who plays the games: the corner player on the full tables, or on
    // compact ones, to keep the states that player visits.
    let plays = match &args.play_compact {
        Some(path) => compact_tables(path)?,
        None => Arc::clone(&tables),
    };
    let mut counts: HashMap<(Formation, u32), u32> = HashMap::new();
    if args.from_reads.is_empty() {
        let err = io::stderr();
        each_game(
            args.games,
            args.seed_start,
            args.parallel,
            |seed| {
                let mut player = Reading {
                    player: corner_player(&plays)?,
                    tables: Arc::clone(&tables),
                    reads: Vec::new(),
                };
                let record =
                    engine::play_game(&mut player, Game::new(Rules::default(), seed), None);
                Ok((record, player.reads))
            },
            |seed, (record, reads)| {
                let n = reads.len();
                for key in reads {
                    *counts.entry(key).or_default() += 1;
                }
                let _ = writeln!(
                    err.lock(),
                    "seed {seed}: {} moves, max tile {}, {n} table reads, {} states so far ({:.0} s)",
                    record.moves,
                    record.max_tile,
                    counts.len(),
                    start.elapsed().as_secs_f64()
                );
            },
        )?;
    } else {
        for path in &args.from_reads {
            read_counts(path, &tables, &mut counts)?;
        }
    }
    if let Some(path) = &args.reads {
        write_counts(path, &counts)?;
    }
    let mut by_formation: HashMap<Formation, Vec<u32>> = HashMap::new();
    for (&(f, idx), &n) in &counts {
        if n >= args.min_reads {
            by_formation.entry(f).or_default().push(idx);
        }
    }
    let mut kept = Vec::new();
    let mut out = io::stdout().lock();
    for f in tables.formations() {
        let states = by_formation.remove(&f).unwrap_or_default();
        let table = tables.table(f).context("a table of the set")?;
        let compact = table.keep(&states);
        writeln!(out, "{f}: {} states read, {} kept", states.len(), compact.kept_states())?;
        kept.push(compact);
    }
    let compact = Endgame::from_tables(kept);
    let tmp = args.out.with_extension("part");
    let mut w = BufWriter::new(
        fs::File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?,
    );
    compact.write_compact(&mut w)?;
    w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    fs::rename(&tmp, &args.out)?;
    let size = fs::metadata(&args.out)?.len();
    writeln!(
        out,
        "{} compact tables, {size} bytes, in {} ({:.0} s)",
        compact.formations().count(),
        args.out.display(),
        start.elapsed().as_secs_f64()
    )?;
    Ok(())
}

/// Adds the counts of a file written by `--reads` to `counts`.
fn read_counts(
    path: &Path,
    tables: &Endgame,
    counts: &mut HashMap<(Formation, u32), u32>,
) -> anyhow::Result<()> {
    let file = fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line?;
        let bad =
            || anyhow::anyhow!("{} line {}: not `formation index count`", path.display(), i + 1);
        let mut words = line.split_whitespace();
        let (Some(name), Some(idx), Some(n), None) =
            (words.next(), words.next(), words.next(), words.next())
        else {
            return Err(bad());
        };
        let f = tables.formations().find(|&f| endgame::file_name(f) == name).ok_or_else(bad)?;
        let (idx, n): (u32, u32) = (idx.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
        *counts.entry((f, idx)).or_default() += n;
    }
    Ok(())
}

fn write_counts(path: &Path, counts: &HashMap<(Formation, u32), u32>) -> anyhow::Result<()> {
    if path.exists() {
        anyhow::bail!("{} exists: give another --reads", path.display());
    }
    let mut w = BufWriter::new(
        fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?,
    );
    let mut keys: Vec<_> = counts.iter().collect();
    keys.sort_unstable();
    for (&(f, idx), n) in keys {
        writeln!(w, "{} {idx} {n}", endgame::file_name(f))?;
    }
    w.flush()?;
    Ok(())
}

/// The corner player, comparing the full tables' move with the compact
/// tables' on every board.
struct Checking {
    player: ExpectimaxPlayer,
    full: Arc<Endgame>,
    compact: Arc<Endgame>,
    tally: Tally,
    /// The boards where the two differ, when asked for.
    misses: Option<Vec<String>>,
}

#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    moves: u64,
    table: u64,
    same: u64,
    other: u64,
    none: u64,
    extra: u64,
}

impl Tally {
    fn add(&mut self, t: Tally) {
        self.moves += t.moves;
        self.table += t.table;
        self.same += t.same;
        self.other += t.other;
        self.none += t.none;
        self.extra += t.extra;
    }
}

impl Player<Board> for Checking {
    fn choose(&mut self, game: &Game<Board>) -> Option<Choice> {
        let board = *game.board();
        let (full, compact) = (self.full.corner_move(board), self.compact.corner_move(board));
        let t = &mut self.tally;
        t.moves += 1;
        t.table += u64::from(full.is_some());
        let differs = match (full, compact) {
            (Some(f), Some(c)) if c.direction == f.direction => {
                t.same += 1;
                false
            }
            (Some(_), Some(_)) => {
                t.other += 1;
                true
            }
            (Some(_), None) => {
                t.none += 1;
                true
            }
            (None, Some(_)) => {
                t.extra += 1;
                true
            }
            (None, None) => false,
        };
        if let (true, Some(misses), Some(f)) = (differs, &mut self.misses, full) {
            let c = compact.map_or("none".to_owned(), |c| c.direction.to_string());
            misses.push(format!("{board}\t{}\t{}\t{:.5}\t{c}", f.formation, f.direction, f.odds));
        }
        self.player.choose(game)
    }

    fn search_threads(&self) -> SearchThreads {
        Player::<Board>::search_threads(&self.player)
    }
}

pub(crate) fn coverage(args: &CoverageArgs) -> anyhow::Result<()> {
    let tables = full_tables(args.tables.as_deref())?;
    let compact = compact_tables(&args.compact)?;
    let plays = if args.play_compact { &compact } else { &tables };
    let total = Mutex::new(Tally::default());
    let err = io::stderr();
    each_game(
        args.games,
        args.seed_start,
        args.parallel,
        |seed| {
            let mut player = Checking {
                player: corner_player(plays)?,
                full: Arc::clone(&tables),
                compact: Arc::clone(&compact),
                tally: Tally::default(),
                misses: args.misses.as_ref().map(|_| Vec::new()),
            };
            let record = engine::play_game(&mut player, Game::new(Rules::default(), seed), None);
            Ok((record, player.tally, player.misses))
        },
        |seed, (record, t, misses)| {
            if let (Some(path), Some(misses)) = (&args.misses, misses) {
                let mut out = fs::OpenOptions::new().create(true).append(true).open(path).ok();
                for m in misses {
                    if let Some(out) = out.as_mut() {
                        let _ = writeln!(out, "{seed}\t{m}");
                    }
                }
            }
            total.lock().unwrap_or_else(|e| e.into_inner()).add(t);
            let _ = writeln!(
                err.lock(),
                "seed {seed}: {} moves, max tile {}, table moves {}, compact same {} other {} none {}",
                record.moves,
                record.max_tile,
                t.table,
                t.same,
                t.other,
                t.none
            );
        },
    )?;
    let t = *total.lock().unwrap_or_else(|e| e.into_inner());
    let pct = |n: u64| 100.0 * n as f64 / t.table.max(1) as f64;
    writeln!(
        io::stdout().lock(),
        "{} moves, {} by the full tables: the compact tables make the same move on {} ({:.2}%), \
         another on {} ({:.2}%), none on {} ({:.2}%); a move where the full tables make none on {}",
        t.moves,
        t.table,
        t.same,
        pct(t.same),
        t.other,
        pct(t.other),
        t.none,
        pct(t.none),
        t.extra
    )?;
    Ok(())
}

//! `tournament`: many seeded games, a summary table and per-game records.

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Context;
use game_core::{Board, Grid};
use solver_expectimax::{GameRecord, MILESTONES, Summary, TournamentSpec, run_tournament};

use crate::cli::{PlayerKind, TournamentArgs};
use crate::setup::{self, AnyPlayer, PlayerSpec};

/// The CSV header `cargo xtask results` reads: keep it exactly so.
pub(crate) const CSV_HEADER: &str = "seed,score,max_tile,moves,millis";

pub(crate) fn run(args: &TournamentArgs) -> anyhow::Result<()> {
    let rules = setup::rules(&args.rules)?;
    let player = PlayerSpec::of(&args.search, rules.size());
    let config = player.config;
    let search_threads = match player.kind {
        PlayerKind::Expectimax => {
            // Build one now: bad settings or a missing network fail before
            // the first game.
            setup::solver(config, player.weights.as_deref(), rules.size())?;
            config.threads
        }
        PlayerKind::Random => 1,
    };
    // By default the cores are shared out: a one-thread search plays a game
    // per core, a search using every core plays one game at a time.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let parallel = match args.parallel {
        Some(n) => usize::try_from(n).unwrap_or(1),
        None => (cores / search_threads).max(1),
    };
    let spec = TournamentSpec {
        games: args.games,
        first_seed: args.seed_start,
        rules,
        max_moves: args.max_moves,
        parallel_games: parallel,
    };
    // The files are created before the first game, so that a bad path is
    // reported at once, not after hours of games whose results it would lose.
    // See: issue 18, item 3.
    let csv = args.csv.as_deref().map(OutputFile::create).transpose()?;
    let json = args.json.as_deref().map(OutputFile::create).transpose()?;
    let progress = Progress::new(args.games, io::stderr().is_terminal());
    let started = Instant::now();
    let make_player = |seed| AnyPlayer::new(&player, rules.size(), seed);
    let on_record = |record: &GameRecord| progress.record(record);
    let records = if rules.size() == 4 {
        run_tournament::<Board, _, _>(&spec, make_player, on_record)?
    } else {
        run_tournament::<Grid, _, _>(&spec, make_player, on_record)?
    };
    progress.finish();
    let wall = started.elapsed();

    // Every output is attempted whatever befell the others, so that a full
    // disk under one file loses neither the other file nor the summary.
    let csv_written = csv.map_or(Ok(()), |file| file.write(|out| write_csv(out, &records)));
    let json_written = json.map_or(Ok(()), |file| file.write(|out| write_json(out, &records)));
    let mut out = BufWriter::new(io::stdout().lock());
    let summary_written = out
        .write_all(summary_table(&records, args, parallel, wall).as_bytes())
        .and_then(|()| out.flush());
    csv_written?;
    json_written?;
    Ok(summary_written?)
}

/// A records file, created before the games and written after them.
#[derive(Debug)]
struct OutputFile {
    path: PathBuf,
    out: BufWriter<File>,
}

impl OutputFile {
    fn create(path: &Path) -> anyhow::Result<OutputFile> {
        let file =
            File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(OutputFile { path: path.to_owned(), out: BufWriter::new(file) })
    }

    fn write(
        mut self,
        write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
    ) -> anyhow::Result<()> {
        write(&mut self.out)
            .and_then(|()| self.out.flush())
            .with_context(|| format!("cannot write {}", self.path.display()))
    }
}

/// One line per game under [`CSV_HEADER`], the time in milliseconds.
pub(crate) fn write_csv(out: &mut impl Write, records: &[GameRecord]) -> io::Result<()> {
    writeln!(out, "{CSV_HEADER}")?;
    for r in records {
        let millis = r.duration.as_secs_f64() * 1e3;
        writeln!(out, "{},{},{},{},{millis:.3}", r.seed, r.score, r.max_tile, r.moves)?;
    }
    Ok(())
}

/// A JSON array of the records, one object a line, with the CSV's fields.
pub(crate) fn write_json(out: &mut impl Write, records: &[GameRecord]) -> io::Result<()> {
    writeln!(out, "[")?;
    for (i, r) in records.iter().enumerate() {
        let millis = r.duration.as_secs_f64() * 1e3;
        let sep = if i + 1 < records.len() { "," } else { "" };
        writeln!(
            out,
            "  {{\"seed\":{},\"score\":{},\"max_tile\":{},\"moves\":{},\"millis\":{millis:.3}}}{sep}",
            r.seed, r.score, r.max_tile, r.moves
        )?;
    }
    writeln!(out, "]")
}

fn summary_table(
    records: &[GameRecord],
    args: &TournamentArgs,
    parallel: usize,
    wall: Duration,
) -> String {
    let s = Summary::of(records);
    let who = match args.search.player {
        PlayerKind::Expectimax => format!("expectimax, preset {}", args.search.settings.preset),
        PlayerKind::Random => "random player".to_owned(),
    };
    let last_seed = args.seed_start.wrapping_add(args.games.saturating_sub(1));
    let mut rows: Vec<(String, String)> = vec![
        ("player".into(), who),
        ("games".into(), format!("{} (seeds {} to {last_seed})", s.games, args.seed_start)),
    ];
    for (tile, reached) in MILESTONES.iter().zip(s.reached) {
        let rate = s.reach_rate(*tile) * 100.0;
        rows.push((format!("reached {tile}"), format!("{rate:5.1}% ({reached})")));
    }
    let [min, .., max] = s.score_percentiles;
    rows.push(("score min".into(), min.to_string()));
    rows.push(("score median".into(), s.median_score().to_string()));
    rows.push(("score mean".into(), format!("{:.0}", s.mean_score)));
    rows.push(("score max".into(), max.to_string()));
    rows.push(("moves".into(), s.moves.to_string()));
    rows.push(("moves/s".into(), format!("{:.1} (per game)", s.moves_per_second())));
    rows.push((
        "wall time".into(),
        format!("{:.1} s ({parallel} game(s) at once)", wall.as_secs_f64()),
    ));
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    rows.iter().map(|(k, v)| format!("{k:<width$}  {v}\n")).collect()
}

/// A progress bar with an ETA on stderr, drawn only on a terminal.
#[derive(Debug)]
struct Progress {
    games: u64,
    enabled: bool,
    started: Instant,
    done: Mutex<u64>,
}

impl Progress {
    fn new(games: u64, enabled: bool) -> Progress {
        let progress = Progress { games, enabled, started: Instant::now(), done: Mutex::new(0) };
        progress.draw(0, None);
        progress
    }

    fn record(&self, record: &GameRecord) {
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        *done += 1;
        self.draw(*done, Some(record));
    }

    fn draw(&self, done: u64, last: Option<&GameRecord>) {
        if !self.enabled {
            return;
        }
        const WIDTH: u64 = 30;
        let filled = (done * WIDTH).checked_div(self.games).unwrap_or(WIDTH);
        let bar: String =
            (0..WIDTH).map(|i| if i < filled { '#' } else { '.' }).collect::<String>();
        let eta = if done == 0 {
            "ETA --".to_owned()
        } else {
            let per_game = self.started.elapsed().as_secs_f64() / done as f64;
            format!("ETA {}", clock(per_game * (self.games - done) as f64))
        };
        let last = last.map_or_else(String::new, |r| {
            format!(" · seed {}: {} ({} tile)", r.seed, r.score, r.max_tile)
        });
        // Progress is best effort: a stderr that fails must not stop games.
        let _ = write!(
            io::stderr().lock(),
            "\r\x1b[2K[{bar}] {done}/{} games · {}{last}",
            self.games,
            eta
        );
    }

    fn finish(&self) {
        if self.enabled {
            let _ = write!(io::stderr().lock(), "\r\x1b[2K");
        }
    }
}

/// Seconds as `1h02m`, `3m07s` or `12s`.
fn clock(seconds: f64) -> String {
    let s = seconds.round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_format() {
        assert_eq!(clock(12.4), "12s");
        assert_eq!(clock(187.0), "3m07s");
        assert_eq!(clock(3720.0), "1h02m");
    }

    #[test]
    fn csv_and_json() {
        let records = vec![GameRecord {
            seed: 3,
            score: 1000,
            max_tile: 128,
            moves: 90,
            duration: Duration::from_micros(1500),
        }];
        let mut csv = Vec::new();
        write_csv(&mut csv, &records).unwrap();
        assert_eq!(
            String::from_utf8(csv).unwrap(),
            "seed,score,max_tile,moves,millis\n3,1000,128,90,1.500\n"
        );
        let mut json = Vec::new();
        write_json(&mut json, &records).unwrap();
        assert_eq!(
            String::from_utf8(json).unwrap(),
            "[\n  {\"seed\":3,\"score\":1000,\"max_tile\":128,\"moves\":90,\"millis\":1.500}\n]\n"
        );
    }
}

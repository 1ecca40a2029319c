//! `tournament`: many seeded games, a summary table and per-game records.

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use cli_common::args::{PlayerKind, SearchArgs};
use cli_common::setup::{self, AnyPlayer, PlayerSpec};
use game_core::{Game, GameBoard, Rules, Tile};
use records::Record;
use records::log::{Checked, Existing, Log, OpenError};
use records::summary::{MILESTONES, Summary};
use solver_expectimax::{Choice, Player, SearchThreads};

use crate::cli::TournamentArgs;

pub(crate) fn run(args: &TournamentArgs) -> anyhow::Result<()> {
    let rules = setup::rules(&args.rules)?;
    let size = args.rules.size;
    // Every records file is checked before anything is built (the endgame
    // tables take minutes) or written: a refused run leaves every file as
    // it was, and makes none.
    let csv = match &args.csv {
        Some(path) => {
            let settings = settings_line(&args.search, size, &rules, args.max_moves);
            Some(CsvLog::check(path, args.resume, args.force, &settings)?)
        }
        None => None,
    };
    if let Some(json) = &args.json {
        if let Some(csv) = &args.csv
            && same_file(csv, json)
        {
            anyhow::bail!(
                "--csv and --json name the same file, {}: each form needs its own",
                json.display()
            );
        }
        let rule = match &csv {
            _ if args.force => JsonRule::Overwrite,
            Some(csv) if args.resume => JsonRule::Resume {
                earlier: csv.earlier(),
                seed_start: args.seed_start,
                games: args.games,
            },
            _ => JsonRule::Refuse,
        };
        OutputFile::check(json, &rule)?;
    }
    let player = PlayerSpec::of(&args.search, size, &rules)?;
    if player.kind == PlayerKind::Expectimax {
        // Build one now: bad settings or a missing network fail before the
        // first game.
        player.solver(size)?;
    }
    let search_threads = player.threads();
    // By default the cores are shared out: a one-thread search plays a game
    // per core, a search using every core plays one game at a time.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let parallel = match args.parallel {
        Some(n) => usize::try_from(n).unwrap_or(1),
        None => (cores / search_threads).max(1),
    };
    let spec = engine::TournamentSpec {
        games: args.games,
        first_seed: args.seed_start,
        size,
        rules,
        max_moves: args.max_moves,
        parallel_games: parallel,
    };
    // The files are opened before the first game, so that a bad path is
    // reported at once, not after hours of games whose results it would lose.
    let (csv, earlier) = match csv {
        Some(checked) => {
            let (file, earlier) = CsvLog::open(checked)?;
            (Some(file), earlier)
        }
        None => (None, Vec::new()),
    };
    // With --resume the JSON file is written again, with every game of the
    // seeds asked for (the CSV keeps them; the check above made sure that
    // it loses none).
    let json = args.json.as_deref().map(OutputFile::create).transpose()?;
    let done: HashSet<u64> = earlier.iter().map(|r| r.seed).collect();
    let to_play = (0..args.games)
        .filter(|&i| !done.contains(&args.seed_start.wrapping_add(i)))
        .count() as u64;
    // More workers than games would idle.
    let at_once = parallel.min(usize::try_from(to_play).unwrap_or(usize::MAX)).max(1);
    let tty = io::stderr().is_terminal();
    let progress = Progress::new(to_play, args.max_moves, tty);
    let started = Instant::now();
    // The finished games, the earlier ones first: what a summary counts,
    // at the end or on Ctrl-C.
    let finished = Arc::new(Mutex::new(earlier));
    let outputs = Arc::new(Outputs { csv, json: Mutex::new(json) });
    {
        let (finished, outputs, args) = (Arc::clone(&finished), Arc::clone(&outputs), args.clone());
        ctrlc::set_handler(move || {
            interrupted(&finished, &outputs, &args, at_once, started.elapsed(), tty)
        })
        .context("cannot install the handler of Ctrl-C and SIGTERM")?;
    }
    let make_player = |seed| {
        AnyPlayer::new(&player, size, seed).map(|inner| Tracked {
            inner,
            seed,
            progress: &progress,
        })
    };
    // Each game is on disk as soon as it ends, so that a run cut off by
    // Ctrl-C, a crash or a full disk keeps every finished game.
    let on_record = |record: &Record| {
        if let Some(csv) = &outputs.csv {
            csv.append(record);
        }
        lock(&finished).push(*record);
        progress.record(record);
    };
    let is_done = |seed| done.contains(&seed);
    engine::run_tournament(&spec, is_done, make_player, on_record)?;
    progress.finish();
    let wall = started.elapsed();
    let (records, others) = counted(&finished, args);
    let mut out = BufWriter::new(io::stdout().lock());
    // Every output is attempted whatever befell the others, so that a full
    // disk under one file loses neither the other file nor the summary.
    let (csv_written, json_written) = outputs.finish(&records);
    let table = summary_table(&records, others, args, at_once, wall, false);
    let summary_written = out.write_all(table.as_bytes()).and_then(|()| out.flush());
    csv_written?;
    json_written?;
    Ok(summary_written?)
}

/// The data behind `m`, also after a holder panicked (the data is plain
/// records, valid whatever step the panic interrupted).
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The finished games of the seeds asked for, in their order, and how many
/// others a resumed file holds: a summary counts the seeds asked for only.
fn counted(finished: &Mutex<Vec<Record>>, args: &TournamentArgs) -> (Vec<Record>, usize) {
    let all = lock(finished).clone();
    let total = all.len();
    // The seeds' order, from the first: the range may wrap past u64::MAX.
    let offset = |r: &Record| r.seed.wrapping_sub(args.seed_start);
    let mut records: Vec<Record> = all.into_iter().filter(|r| offset(r) < args.games).collect();
    records.sort_by_key(offset);
    let others = total - records.len();
    (records, others)
}

/// The records files: the CSV, a line as each game ends, and the JSON,
/// written once at the end (or on Ctrl-C).
#[derive(Debug)]
struct Outputs {
    csv: Option<CsvLog>,
    json: Mutex<Option<OutputFile>>,
}

impl Outputs {
    /// Ends the CSV and writes the JSON of `records`; each result alone.
    fn finish(&self, records: &[Record]) -> (anyhow::Result<()>, anyhow::Result<()>) {
        let csv = self.csv.as_ref().map_or(Ok(()), CsvLog::finish);
        (csv, self.write_json(records))
    }

    /// Writes the JSON file of `records`, once: a later call finds it taken.
    fn write_json(&self, records: &[Record]) -> anyhow::Result<()> {
        let json = lock(&self.json).take();
        json.map_or(Ok(()), |file| file.write(|out| records::write_json(out, records)))
    }
}

/// Ctrl-C or SIGTERM during a tournament: the summary of the finished
/// games, the records files closed with every finished game and no half
/// line (the CSV's lock is held to the end), how to go on, exit code 130.
fn interrupted(
    finished: &Mutex<Vec<Record>>,
    outputs: &Outputs,
    args: &TournamentArgs,
    at_once: usize,
    wall: Duration,
    tty: bool,
) {
    let _csv = outputs.csv.as_ref().map(|csv| lock(&csv.out));
    let (records, others) = counted(finished, args);
    let json_written = outputs.write_json(&records);
    let mut err = io::stderr().lock();
    if tty {
        let _ = write!(err, "\r\x1b[2K");
    }
    let table = summary_table(&records, others, args, at_once, wall, true);
    let _ = io::stdout().lock().write_all(table.as_bytes());
    let kept = match &args.csv {
        Some(path) => {
            format!("they are in {}: the same command with --resume plays the rest", path.display())
        }
        None => "without --csv no records file keeps them".to_owned(),
    };
    let _ =
        writeln!(err, "interrupted: {} of {} games finished; {kept}", records.len(), args.games);
    if let Err(e) = json_written {
        let _ = writeln!(err, "error: {e:#}");
    }
    std::process::exit(130);
}

/// The settings that decide a tournament's games, as the options that give
/// them (the engine's [`engine::SolverSpec::settings_line`] and
/// [`engine::rules_line`]): a records file names them, and a resume must
/// give the same.
pub(crate) fn settings_line(
    player: &SearchArgs,
    size: usize,
    rules: &Rules,
    max_moves: Option<u64>,
) -> String {
    let search = &player.settings;
    let mut line = match player.player {
        PlayerKind::Random => "--player random".to_owned(),
        PlayerKind::Expectimax => {
            let tables = search.plays_tables().then(|| {
                engine::formations_for(search.preset(size), search.tables_max_states).len()
            });
            search.solver_spec(size).settings_line(tables)
        }
    };
    line.push_str(&engine::rules_line(size, rules, max_moves));
    line
}

/// The CSV records file, a line appended and flushed as each game ends.
/// A failed write is kept and reported at the end; the games go on.
#[derive(Debug)]
pub(crate) struct CsvLog {
    out: Mutex<(Log, io::Result<()>)>,
}

impl CsvLog {
    /// Checks `path` for games played with `settings`, writing nothing: a
    /// new file (one that holds games is refused unless `force`), or with
    /// `resume` an existing one whose games were played with the same
    /// settings (records::log's rules), whose records [`Checked::earlier`]
    /// gives (a missing one is new).
    pub(crate) fn check(
        path: &Path,
        resume: bool,
        force: bool,
        settings: &str,
    ) -> anyhow::Result<Checked> {
        let existing = match (resume, force) {
            (true, _) => Existing::Resume,
            (false, true) => Existing::Overwrite,
            (false, false) => Existing::Refuse,
        };
        Log::check(path, existing, settings, engine::same_settings).map_err(|e| match e {
            OpenError::Exists { games: Some(_), .. } => anyhow::anyhow!(
                "{e}: --resume keeps its games and plays only the seeds it lacks, --force \
                 writes over it"
            ),
            // --resume cannot read it either.
            OpenError::Exists { games: None, .. } => {
                anyhow::anyhow!("{e}: give another file, or --force to write over it")
            }
            e => e.into(),
        })
    }

    /// Opens a file [`CsvLog::check`] accepted, and returns its earlier
    /// records. A last line cut short is dropped with a warning.
    pub(crate) fn open(checked: Checked) -> anyhow::Result<(CsvLog, Vec<Record>)> {
        let opened = checked.open()?;
        if let Some(dropped) = &opened.dropped {
            // Best effort, like any warning: a failing stderr must not stop the run.
            let path = opened.log.path().display();
            let _ = writeln!(io::stderr().lock(), "warning: {path}: {dropped}");
        }
        Ok((CsvLog { out: Mutex::new((opened.log, Ok(()))) }, opened.earlier))
    }

    pub(crate) fn append(&self, record: &Record) {
        let mut guard = lock(&self.out);
        let (out, status) = &mut *guard;
        if status.is_ok() {
            *status = out.append(record);
        }
    }

    pub(crate) fn finish(&self) -> anyhow::Result<()> {
        let mut guard = lock(&self.out);
        let (out, status) = &mut *guard;
        let written = std::mem::replace(status, Ok(()));
        written.with_context(|| format!("cannot write {}", out.path().display()))
    }
}

/// What a tournament may do with a --json file that is already there.
#[derive(Debug)]
enum JsonRule<'a> {
    /// Write over it only if it holds no game.
    Refuse,
    /// Write over it (--force).
    Overwrite,
    /// Write it again with the --csv file's games (`earlier`) and those of
    /// this run, of the seeds asked for (--resume): only if it holds no
    /// other game.
    Resume { earlier: &'a [Record], seed_start: u64, games: u64 },
}

/// Whether `a` and `b` name the same file (which may not exist yet): their
/// folders resolved, so that `./x.csv` and `x.csv` are one.
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    let resolve = |p: &Path| {
        let folder = match p.parent() {
            Some(f) if !f.as_os_str().is_empty() => f.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::canonicalize(folder).ok().map(|f| f.join(p.file_name().unwrap_or_default()))
    };
    a == b || resolve(a).is_some_and(|x| resolve(b).is_some_and(|y| x == y))
}

/// A records file, created before the games and written after them.
#[derive(Debug)]
struct OutputFile {
    path: PathBuf,
    out: BufWriter<File>,
}

impl OutputFile {
    /// Whether `path` may be written as `rule` says, writing nothing.
    fn check(path: &Path, rule: &JsonRule<'_>) -> anyhow::Result<()> {
        // Only a regular file holds anything to lose (`/dev/null` does not).
        if matches!(rule, JsonRule::Overwrite)
            || !std::fs::metadata(path).is_ok_and(|m| m.is_file())
        {
            return Ok(());
        }
        let text = std::fs::read_to_string(path).ok();
        let games = text.as_deref().map(|t| (t, records::read_json(t).ok()));
        let (games, kind) = match games {
            Some((text, _)) if text.trim().is_empty() => return Ok(()),
            Some((_, Some(games))) if games.is_empty() => return Ok(()),
            Some((_, Some(games))) => (games, ""),
            // Not UTF-8, or not a JSON array of games.
            _ => (Vec::new(), " (and is not a records file)"),
        };
        let shown = path.display();
        let JsonRule::Resume { earlier, seed_start, games: asked } = rule else {
            let n = games.len();
            let held = if kind.is_empty() {
                format!(" and holds {n} game{}", if n == 1 { "" } else { "s" })
            } else {
                kind.to_owned()
            };
            anyhow::bail!("{shown} already exists{held}: --force writes over it");
        };
        if !kind.is_empty() {
            anyhow::bail!(
                "{shown} already exists{kind}: --resume would write over it with the \
                 games of the --csv file; give another --json file"
            );
        }
        // With --resume the file is written again with the --csv file's
        // games of the seeds asked for: any other game in it would be lost.
        let same = |a: &Record, b: &Record| {
            (a.seed, a.score, a.max_tile, a.moves) == (b.seed, b.score, b.max_tile, b.moves)
        };
        let beyond: Vec<u64> = games
            .iter()
            .map(|r| r.seed)
            .filter(|seed| seed.wrapping_sub(*seed_start) >= *asked)
            .collect();
        let foreign: Vec<u64> =
            games.iter().filter(|g| !earlier.iter().any(|e| same(e, g))).map(|r| r.seed).collect();
        let seeds = |seeds: &[u64]| {
            let mut seeds = seeds.to_vec();
            seeds.sort_unstable();
            stretches(&seeds)
        };
        if !foreign.is_empty() {
            anyhow::bail!(
                "{shown} holds games that the --csv file lacks (seeds {}): --resume would \
                 write over them; give another --json file",
                seeds(&foreign)
            );
        }
        if !beyond.is_empty() {
            anyhow::bail!(
                "{shown} holds games of seeds beyond the ones asked for ({}): --resume would \
                 write it with the seeds asked for only; give more --games, or another \
                 --json file",
                seeds(&beyond)
            );
        }
        Ok(())
    }

    /// Creates `path`, which [`OutputFile::check`] accepted.
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

/// The summary of `records`, the games of the seeds asked for (`others`
/// more in a resumed file are not counted); `interrupted` before every
/// seed was played.
fn summary_table(
    records: &[Record],
    others: usize,
    args: &TournamentArgs,
    parallel: usize,
    wall: Duration,
    interrupted: bool,
) -> String {
    let s = Summary::of(records);
    let who = setup::who_plays(&args.search, args.rules.size);
    let mut rows: Vec<(String, String)> = vec![
        ("player".into(), who),
        ("games".into(), games_row(records, others, args, interrupted)),
    ];
    for tile in MILESTONES {
        let rate = s.reach_rate(tile) * 100.0;
        rows.push((format!("reached {tile}"), format!("{rate:5.1}% ({})", s.reached(tile))));
    }
    let (min, max) = (s.percentiles.min, s.percentiles.max);
    rows.push(("score min".into(), min.to_string()));
    rows.push(("score median".into(), s.median_score.to_string()));
    rows.push(("score mean".into(), format!("{:.0}", s.mean_score)));
    rows.push(("score max".into(), max.to_string()));
    rows.push(("moves".into(), s.moves.to_string()));
    let per_second = s.moves_per_second().unwrap_or(0.0);
    rows.push(("moves/s".into(), format!("{per_second:.1} (per game)")));
    if let Some(times) = move_times(records) {
        rows.push(("time per move".into(), times));
    }
    rows.push((
        "wall time".into(),
        format!("{:.1} s ({parallel} game(s) at once)", wall.as_secs_f64()),
    ));
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    rows.iter().map(|(k, v)| format!("{k:<width$}  {v}\n")).collect()
}

/// The summary's count of games: how many, of which seeds, and the games
/// of a resumed file that it leaves out. An interrupted run names the seeds
/// that finished, not the seeds asked for.
fn games_row(
    records: &[Record],
    others: usize,
    args: &TournamentArgs,
    interrupted: bool,
) -> String {
    let last_seed = args.seed_start.wrapping_add(args.games.saturating_sub(1));
    let mut row = if interrupted {
        let seeds: Vec<u64> = records.iter().map(|r| r.seed).collect();
        match stretches(&seeds).as_str() {
            "" => format!("0 of {}", args.games),
            played => format!("{} of {} (seeds {played})", records.len(), args.games),
        }
    } else {
        format!("{} (seeds {} to {last_seed})", records.len(), args.seed_start)
    };
    if others > 0 {
        let file = args.csv.as_deref().map_or_else(String::new, |p| format!(" {}", p.display()));
        let (n, are) = if others == 1 { ("game", "is") } else { ("games", "are") };
        row.push_str(&format!("; {others} more {n} of other seeds in{file} {are} not counted"));
    }
    row
}

/// Seeds, in order, as their runs of consecutive seeds: `1 to 3, 5, 7 to
/// 9`, the first four runs and `…` for more.
fn stretches(seeds: &[u64]) -> String {
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for &seed in seeds {
        match runs.last_mut() {
            Some((_, end)) if end.wrapping_add(1) == seed => *end = seed,
            _ => runs.push((seed, seed)),
        }
    }
    const SHOWN: usize = 4;
    let mut parts: Vec<String> = runs
        .iter()
        .take(SHOWN)
        .map(|&(a, b)| if a == b { a.to_string() } else { format!("{a} to {b}") })
        .collect();
    if runs.len() > SHOWN {
        parts.push("…".to_owned());
    }
    parts.join(", ")
}

/// The games' median times per move (their median, and their range) and
/// the median of their 99th percentiles, over the games that have them;
/// `None` without any.
fn move_times(records: &[Record]) -> Option<String> {
    let mut medians: Vec<u64> = records.iter().filter_map(|r| r.median_decision_micros).collect();
    let mut p99s: Vec<u64> = records.iter().filter_map(|r| r.p99_decision_micros).collect();
    medians.sort_unstable();
    p99s.sort_unstable();
    let mid = |v: &[u64]| v.get(v.len().checked_sub(1)? / 2).copied();
    let (lo, hi) = (*medians.first()?, *medians.last()?);
    let ms = |micros: u64| format!("{:.3} ms", micros as f64 / 1e3);
    let p99 = mid(&p99s).map_or_else(|| "–".to_owned(), ms);
    Some(format!("median {} (games {} to {}), p99 {p99}", ms(mid(&medians)?), ms(lo), ms(hi)))
}

/// A player that tells the progress bar where its game is.
struct Tracked<'a> {
    inner: AnyPlayer,
    seed: u64,
    progress: &'a Progress,
}

impl<B: GameBoard> Player<B> for Tracked<'_> {
    fn choose(&mut self, game: &Game<B>) -> Option<Choice> {
        let max_tile = game.board().max_tile().map_or(0, Tile::value);
        self.progress.update(self.seed, game.moves(), max_tile);
        self.inner.choose(game)
    }

    fn search_threads(&self) -> SearchThreads {
        Player::<B>::search_threads(&self.inner)
    }
}

/// A progress bar with an ETA on stderr, drawn only on a terminal. It
/// moves within games too: the running games' moves and max tiles, and an
/// ETA that counts their moves as part-done games.
#[derive(Debug)]
struct Progress {
    games: u64,
    max_moves: Option<u64>,
    enabled: bool,
    started: Instant,
    state: Mutex<ProgressState>,
}

#[derive(Debug, Default)]
struct ProgressState {
    done: u64,
    /// Moves in the finished games, for the expected length of a game.
    done_moves: u64,
    /// The running games by seed: moves played and max tile.
    running: BTreeMap<u64, (u64, u32)>,
    last: Option<Record>,
    drawn: Option<Instant>,
}

/// The least time between two redraws from within games.
const REDRAW: Duration = Duration::from_millis(200);

impl Progress {
    fn new(games: u64, max_moves: Option<u64>, enabled: bool) -> Progress {
        let progress = Progress {
            games,
            max_moves,
            enabled,
            started: Instant::now(),
            state: Mutex::new(ProgressState::default()),
        };
        progress.draw(&progress.lock());
        progress
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ProgressState> {
        lock(&self.state)
    }

    fn update(&self, seed: u64, moves: u64, max_tile: u32) {
        if !self.enabled {
            return;
        }
        let mut state = self.lock();
        state.running.insert(seed, (moves, max_tile));
        if state.drawn.is_none_or(|t| t.elapsed() >= REDRAW) {
            self.draw(&state);
            state.drawn = Some(Instant::now());
        }
    }

    fn record(&self, record: &Record) {
        let mut state = self.lock();
        state.done += 1;
        state.done_moves += record.moves;
        state.running.remove(&record.seed);
        state.last = Some(*record);
        self.draw(&state);
    }

    fn draw(&self, state: &ProgressState) {
        if !self.enabled {
            return;
        }
        let line = progress_line(self.games, self.max_moves, self.started.elapsed(), state);
        let cols = cli_common::fit::terminal_size().0.saturating_sub(1).max(10);
        // A narrow terminal keeps the figures and drops the bar.
        let line = match line.split_once("] ") {
            Some((_, figures)) if cols < 60 => figures.to_owned(),
            _ => line,
        };
        // Progress is best effort: a stderr that fails must not stop games.
        let _ = write!(io::stderr().lock(), "\r\x1b[2K{}", cli_common::fit::cut(&line, cols));
    }

    fn finish(&self) {
        if self.enabled {
            let _ = write!(io::stderr().lock(), "\r\x1b[2K");
        }
    }
}

/// The progress line: bar, games done, ETA, the running games, the last result.
fn progress_line(
    games: u64,
    max_moves: Option<u64>,
    elapsed: Duration,
    state: &ProgressState,
) -> String {
    const WIDTH: u64 = 20;
    let done = state.done;
    let filled = (done * WIDTH).checked_div(games).unwrap_or(WIDTH);
    let bar: String = (0..WIDTH).map(|i| if i < filled { '#' } else { '.' }).collect();
    // Games done, counting a running game as the share of an average
    // finished game's moves it has played (at most 95%): the ETA then
    // counts down within games, not only when one ends.
    // Before any game ends, --max-moves (if given) is the expected length.
    let expected_moves = if done > 0 {
        Some(state.done_moves as f64 / done as f64)
    } else {
        max_moves.map(|m| m as f64)
    };
    let equivalent = expected_moves.map(|expected| {
        let partial: f64 = state
            .running
            .values()
            .map(|&(moves, _)| (moves as f64 / expected.max(1.0)).min(0.95))
            .sum();
        done as f64 + partial
    });
    let eta = match equivalent {
        // Below a twentieth of a game the rate is mostly start-up time.
        Some(eq) if eq >= 0.05 => {
            let left = (games as f64 - eq).max(0.0);
            format!("ETA {}", clock(elapsed.as_secs_f64() / eq * left))
        }
        _ => "ETA --".to_owned(),
    };
    let running: Vec<String> = state
        .running
        .iter()
        .map(|(seed, (moves, tile))| format!("seed {seed}: {moves} moves, {tile}"))
        .collect();
    let mut line = format!("[{bar}] {done}/{games} games · {eta}");
    if !running.is_empty() {
        line.push_str(" · ");
        line.push_str(&running.join(" · "));
    }
    if let Some(r) = &state.last {
        line.push_str(&format!(" · last: seed {} {} ({} tile)", r.seed, r.score, r.max_tile));
    }
    line
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

    /// The progress bar and the ETA move as the running games advance, not
    /// only when a game ends: a tournament of long games would otherwise
    /// look stuck for minutes.
    #[test]
    fn progress_moves_within_games() {
        let mut state = ProgressState::default();
        state.running.insert(1, (120, 64));
        state.running.insert(2, (80, 32));
        let start = progress_line(4, None, Duration::from_secs(10), &state);
        assert_eq!(
            start,
            "[....................] 0/4 games · ETA -- · seed 1: 120 moves, 64 · seed 2: 80 moves, 32"
        );
        // One game of 200 moves done in 20 s; the running games are half and
        // a quarter through: 1.75 games' worth in 20 s, 2.25 left.
        state.done = 1;
        state.done_moves = 200;
        state.running.insert(2, (100, 64));
        state.running.insert(3, (50, 16));
        state.running.remove(&1);
        let line = progress_line(4, None, Duration::from_secs(20), &state);
        assert!(
            line.starts_with("[#####...............] 1/4 games · ETA 26s · seed 2: 100 moves"),
            "{line}"
        );
        state.running.insert(2, (150, 64));
        let later = progress_line(4, None, Duration::from_secs(21), &state);
        assert!(later.contains("ETA 21s"), "the ETA counts down within games: {later}");
        // With --max-moves, before any game ends: 2 games at 100 of 400
        // moves are half a game's worth in 10 s; 3.5 left.
        let mut first = ProgressState::default();
        first.running.insert(1, (100, 64));
        first.running.insert(2, (100, 64));
        let line = progress_line(4, Some(400), Duration::from_secs(10), &first);
        assert!(line.contains("0/4 games · ETA 1m10s"), "{line}");
    }

    /// An interrupted run names the seeds that finished, so that the user
    /// knows which games the records file holds and where a resume goes on.
    #[test]
    fn seeds_as_stretches() {
        assert_eq!(stretches(&[]), "");
        assert_eq!(stretches(&[4]), "4");
        assert_eq!(stretches(&[1, 2, 3, 5, 7, 8]), "1 to 3, 5, 7 to 8");
        assert_eq!(stretches(&[1, 3, 5, 7, 9, 10]), "1, 3, 5, 7, …");
        assert_eq!(stretches(&[u64::MAX, 0, 1]), "18446744073709551615 to 1");
    }

    #[test]
    fn clock_format() {
        assert_eq!(clock(12.4), "12s");
        assert_eq!(clock(187.0), "3m07s");
        assert_eq!(clock(3720.0), "1h02m");
    }

    #[test]
    fn move_times_skip_games_without_them() {
        let game = |median, p99| Record {
            seed: 1,
            score: 0,
            max_tile: Tile::of(2),
            moves: 1,
            millis: 1.0,
            median_decision_micros: median,
            p99_decision_micros: p99,
        };
        assert_eq!(move_times(&[game(None, None)]), None);
        assert_eq!(
            move_times(&[game(Some(1500), None), game(Some(500), Some(9000)), game(None, None)])
                .unwrap(),
            "median 0.500 ms (games 0.500 ms to 1.500 ms), p99 9.000 ms"
        );
        assert_eq!(
            move_times(&[game(Some(2000), None)]).unwrap(),
            "median 2.000 ms (games 2.000 ms to 2.000 ms), p99 –"
        );
    }
}

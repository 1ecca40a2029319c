//! `watch`: the AI plays one game, redrawn in place on a terminal or written
//! as the Java tutorial's transcript.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use cli_common::args::PlayerKind;
use cli_common::fit;
use cli_common::setup::{self, AnyPlayer, PlayerSpec};
use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use engine::{Choice, Player};
use game_core::{Game, GameBoard, Rules};

use crate::cli::WatchArgs;
use crate::keys::WATCH_KEYS;
use crate::layout;
use crate::render::{self, bordered_with_score, short_count};
use crate::term::{self, TerminalGuard};
use crate::upgrade::{BUILD_KEY, Upgrade};

/// The pause between moves on a terminal when --delay-ms is not given:
/// short enough that a whole strong game (some 15,000 moves) plays in a
/// few minutes; `-` slows it down to follow a stretch.
pub(crate) const DEFAULT_TTY_DELAY: Duration = Duration::from_millis(10);

/// What a watched game needs, whatever the board type.
#[derive(Debug)]
struct Watch {
    size: usize,
    rules: Rules,
    seed: u64,
    seed_from_clock: bool,
    max_moves: Option<u64>,
    delay: Option<Duration>,
    color: bool,
    /// Shown in the status line: who plays.
    who: String,
    /// Why the default player plays (`corner: its tables are built`),
    /// where no preset was named.
    why: Option<String>,
}

/// Watches one game; exit code 130 after Ctrl-C.
pub(crate) fn run(args: &WatchArgs) -> anyhow::Result<ExitCode> {
    let rules = setup::rules(&args.game.rules)?;
    let size = args.game.rules.size;
    let mut search = args.game.search.clone();
    let choice = setup::choose_default(&mut search, size);
    let spec = PlayerSpec::of(&search, size, &rules)?;
    let (seed, seed_from_clock) = setup::seed_or_clock(args.game.seed);
    let live = !args.transcript && setup::stdout_is_terminal();
    // Full screen (raw mode: no echo) before the player is built, as in
    // `play`: keys typed while a network loads would otherwise echo onto
    // the normal screen. An error drops the guard before its message.
    let guard = match live {
        true => Some(TerminalGuard::enter().context("cannot set up the terminal")?),
        false => None,
    };
    if guard.is_some() && spec.kind == PlayerKind::Expectimax && spec.solver.is_learned() {
        term::draw_frame(&mut io::stdout().lock(), &["loading the network…".to_owned()])?;
    }
    let player = AnyPlayer::new(&spec, size, seed)?;
    let who = setup::who_plays(&search, size);
    let settings = &search.settings;
    let upgrade = choice
        .as_ref()
        .and_then(|c| Upgrade::offer(c, settings.tables.as_deref(), settings.tables_max_states));
    let mut watch = Watch {
        size,
        rules,
        seed,
        seed_from_clock,
        max_moves: args.max_moves,
        delay: args.delay_ms.map(Duration::from_millis),
        color: setup::use_color(args.game.no_color),
        who,
        why: choice.map(|c| c.to_string()),
    };
    match guard {
        Some(guard) => {
            let next = Next { search: &search, spec, upgrade };
            watch_live(&mut watch, player, next, guard)
        }
        None => watch_transcript(&watch, &mut { player }),
    }
}

/// The tutorial's loop and output: `Setup`, then `Human move` (the board
/// after the move) and `Computer move` (after the spawn) for every turn,
/// then `Final Score: N`.
fn watch_transcript(watch: &Watch, player: &mut AnyPlayer) -> anyhow::Result<ExitCode> {
    if watch.seed_from_clock {
        // On stderr: stdout stays exactly the tutorial's transcript.
        writeln!(io::stderr().lock(), "seed {} (replay with --seed {})", watch.seed, watch.seed)?;
    }
    let mut out = BufWriter::new(io::stdout().lock());
    let game = setup::new_game(watch.size, watch.rules, watch.seed)?;
    write_transcript(&mut out, game, watch.max_moves, watch.delay, player)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Writes a whole game's transcript to `out`.
fn write_transcript<B: GameBoard>(
    out: &mut impl Write,
    mut game: Game<B>,
    max_moves: Option<u64>,
    delay: Option<Duration>,
    player: &mut impl Player<B>,
) -> anyhow::Result<()> {
    out.write_all(b"Setup\n=====\n")?;
    out.write_all(bordered_with_score(game.board(), game.score()).as_bytes())?;
    while !game.is_over() && max_moves.is_none_or(|m| game.moves() < m) {
        let Some(Choice { direction: dir, .. }) = player.choose(&game) else { break };
        // The board between the move and the spawn, which the tutorial
        // prints: the same board when the move changes nothing.
        let moved = game.board().slide_unscored(dir);
        game.play(dir).context("the player chose a move the rules refuse")?;
        out.write_all(b"Human move\n==========\n")?;
        out.write_all(bordered_with_score(&moved, game.score()).as_bytes())?;
        out.write_all(b"Computer move\n=============\n")?;
        out.write_all(bordered_with_score(game.board(), game.score()).as_bytes())?;
        // Each turn reaches the reader at once, not when a buffer fills.
        out.flush()?;
        if let Some(delay) = delay {
            std::thread::sleep(delay);
        }
    }
    writeln!(out, "Final Score: {}", game.score())?;
    Ok(())
}

/// What the viewer asked for with a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WatchKey {
    Quit,
    /// Ctrl-C: quit, with exit code 130 as for an interrupted program.
    Interrupt,
    Pause,
    Faster,
    Slower,
    /// The next game (`n`), with the corner player once its tables are
    /// built.
    New,
    /// Build the corner tables offered (`t`).
    Build,
    /// Not a key: the terminal changed size, so the screen is drawn again.
    Resized,
}

/// The watch mode's keys: q, Esc or Ctrl-C quit, space pauses, + and -
/// change the pace.
pub(crate) fn watch_key(key: &KeyEvent) -> Option<WatchKey> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    match key.code {
        KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
            Some(WatchKey::Interrupt)
        }
        KeyCode::Char('q' | 'Q') | KeyCode::Esc => Some(WatchKey::Quit),
        KeyCode::Char(' ' | 'p') => Some(WatchKey::Pause),
        KeyCode::Char('+' | '=' | 'f') => Some(WatchKey::Faster),
        KeyCode::Char('-' | '_' | 's') => Some(WatchKey::Slower),
        KeyCode::Char('n' | 'N') => Some(WatchKey::New),
        KeyCode::Char(BUILD_KEY) => Some(WatchKey::Build),
        _ => None,
    }
}

/// The pace after a + or - key: halved or doubled, within 0 to 2 s.
fn new_delay(delay: Duration, key: WatchKey) -> Duration {
    match key {
        WatchKey::Faster => delay / 2,
        WatchKey::Slower => (delay * 2).max(Duration::from_millis(10)).min(Duration::from_secs(2)),
        _ => delay,
    }
}

/// The pace as the footer shows it: a delay, which `+` shortens.
fn pace(delay: Duration) -> String {
    format!("delay {} ms", delay.as_millis())
}

/// What the next game is played by: the options, the player's spec, and
/// the corner tables offered.
struct Next<'a> {
    search: &'a cli_common::args::SearchArgs,
    spec: PlayerSpec,
    upgrade: Option<Upgrade>,
}

/// How often the screen is redrawn while nothing else redraws it (a
/// pause, a finished game) and tables are being built.
const PROGRESS_EVERY: Duration = Duration::from_millis(500);

/// Games redrawn in place, with colours and a status line: the first,
/// then one more for each `n`.
fn watch_live(
    watch: &mut Watch,
    mut player: AnyPlayer,
    mut next: Next<'_>,
    guard: TerminalGuard,
) -> anyhow::Result<ExitCode> {
    let mut delay = watch.delay.unwrap_or(DEFAULT_TTY_DELAY);
    let mut summaries = Vec::new();
    let mut out = BufWriter::new(io::stdout().lock());
    let quit = loop {
        let game = setup::new_game(watch.size, watch.rules, watch.seed)?;
        let (game, ended) = watch_game(watch, game, &mut player, &mut next, &mut delay, &mut out)?;
        summaries.push(game_summary(watch, &game, fit::terminal_size().0));
        if let Some(code) = ended {
            break code;
        }
        // The next game, on the next seed, by the corner player once its
        // tables are built.
        watch.seed = watch.seed.wrapping_add(1);
        if let Some(tables) = next.upgrade.as_mut().and_then(Upgrade::take) {
            next.spec = PlayerSpec::corner(next.search, watch.size, tables)?;
            watch.who = "expectimax, preset corner".to_owned();
            watch.why = Some("corner: its tables are built".to_owned());
        }
        player = AnyPlayer::new(&next.spec, watch.size, watch.seed)?;
    };
    drop(out);
    drop(guard);
    // On the normal screen, so the results stay after the program ends.
    let mut out = io::stdout().lock();
    for summary in summaries {
        out.write_all(summary.as_bytes())?;
    }
    Ok(quit)
}

/// Watches one game; how it ended: `None` for the next game (`n`), else
/// the program's exit code.
fn watch_game(
    watch: &Watch,
    mut game: Game<game_core::AnyBoard>,
    player: &mut AnyPlayer,
    next: &mut Next<'_>,
    delay: &mut Duration,
    out: &mut impl Write,
) -> anyhow::Result<(Game<game_core::AnyBoard>, Option<ExitCode>)> {
    let mut last: Option<Choice> = None;
    let mut paused = false;
    let started = Instant::now();
    loop {
        let limit = watch.max_moves.is_some_and(|m| game.moves() >= m);
        let over = game.is_over() || limit;
        let footer = if game.is_over() {
            "game over: n next game · any other key leaves".to_owned()
        } else if limit {
            "move limit reached: n next game · any other key leaves".to_owned()
        } else if paused {
            format!("paused: space resumes · q quit · {}", pace(*delay))
        } else {
            format!("{WATCH_KEYS} · {}", pace(*delay))
        };
        let note = note_line(watch, next.upgrade.as_ref());
        let lines = frame(watch, &game, last.as_ref(), started.elapsed(), &note, &footer);
        term::draw_frame(out, &lines)?;
        // While tables are built, the screen is redrawn now and then to
        // show their progress.
        let building = next.upgrade.as_mut().is_some_and(Upgrade::building);
        if over {
            let wait = building.then_some(PROGRESS_EVERY);
            match next_event(wait)? {
                None | Some(Event::Resize(..)) => continue,
                Some(Event::Key(key)) => match watch_key(&key) {
                    Some(WatchKey::New) => return Ok((game, None)),
                    Some(WatchKey::Build) => {
                        if let Some(upgrade) = next.upgrade.as_mut() {
                            upgrade.start();
                        }
                        continue;
                    }
                    Some(WatchKey::Interrupt) => return Ok((game, Some(ExitCode::from(130)))),
                    _ if key.kind == KeyEventKind::Release => continue,
                    _ => return Ok((game, Some(ExitCode::SUCCESS))),
                },
                Some(_) => continue,
            }
        }
        // Read keys until it is time for the next move.
        let deadline = Instant::now() + *delay;
        let mut quit = None;
        loop {
            let timeout = match (paused, building) {
                (false, _) => Some(deadline - Instant::now().min(deadline)),
                (true, true) => Some(PROGRESS_EVERY),
                (true, false) => None,
            };
            let Some(key) = next_key(timeout)? else { break };
            match key {
                WatchKey::Resized => {
                    let lines =
                        frame(watch, &game, last.as_ref(), started.elapsed(), &note, &footer);
                    term::draw_frame(out, &lines)?;
                    continue;
                }
                WatchKey::Quit => quit = Some(ExitCode::SUCCESS),
                WatchKey::Interrupt => quit = Some(ExitCode::from(130)),
                WatchKey::Pause => paused = !paused,
                WatchKey::New => return Ok((game, None)),
                WatchKey::Build => {
                    if let Some(upgrade) = next.upgrade.as_mut() {
                        upgrade.start();
                    }
                }
                other => *delay = new_delay(*delay, other),
            }
            // While paused, a new pace (or the build started) is drawn at
            // once.
            if quit.is_some() || key == WatchKey::Pause || paused || key == WatchKey::Build {
                break;
            }
        }
        if quit.is_some() {
            return Ok((game, quit));
        }
        if paused {
            continue;
        }
        let Some(choice) = player.choose(&game) else { return Ok((game, Some(ExitCode::SUCCESS))) };
        game.play(choice.direction).context("the player chose a move the rules refuse")?;
        last = Some(choice);
    }
}

/// The line under the search's: the corner tables' offer or build, else
/// why the default player plays; empty where a preset was named.
fn note_line(watch: &Watch, upgrade: Option<&Upgrade>) -> String {
    upgrade.and_then(Upgrade::line).or_else(|| watch.why.clone()).unwrap_or_default()
}

/// The game's result and who played it, on one line when it fits in
/// `cols`, else on two: a long seed, score and player name pass 80
/// columns, and a wrapped line splits a number.
fn game_summary<B: GameBoard>(watch: &Watch, game: &Game<B>, cols: usize) -> String {
    let result = format!(
        "seed {}: score {}, max tile {}, {}",
        watch.seed,
        game.score(),
        render::max_tile(game.board()),
        crate::render::counted(game.moves(), "move"),
    );
    let line = format!("{result} ({})\n", watch.who);
    if line.chars().count() <= cols + 1 {
        return line;
    }
    format!("{result}\nplayed by {}\n", watch.who)
}

/// The next event within `timeout` (`None` waits for ever); `None` when the
/// time is up.
fn next_event(timeout: Option<Duration>) -> io::Result<Option<Event>> {
    if let Some(t) = timeout
        && !event::poll(t)?
    {
        return Ok(None);
    }
    event::read().map(Some)
}

/// The next watch key within `timeout` (`None` waits for ever); `None` when
/// the time is up.
fn next_key(timeout: Option<Duration>) -> io::Result<Option<WatchKey>> {
    let deadline = timeout.map(|t| Instant::now() + t);
    loop {
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        if let Some(left) = left
            && !event::poll(left)?
        {
            return Ok(None);
        }
        match event::read()? {
            Event::Key(key) => {
                if let Some(action) = watch_key(&key) {
                    return Ok(Some(action));
                }
            }
            Event::Resize(..) => return Ok(Some(WatchKey::Resized)),
            _ => {}
        }
    }
}

/// The screen: a title, the board, the status lines and a footer.
fn frame<B: GameBoard>(
    watch: &Watch,
    game: &Game<B>,
    last: Option<&Choice>,
    elapsed: Duration,
    note: &str,
    footer: &str,
) -> Vec<String> {
    let size = fit::terminal_size();
    let cols = size.0;
    let title = ["2048".to_owned(), format!("seed {}", watch.seed), watch.who.clone()];
    let head = [layout::fit_fields(&title, " · ", cols)];
    let rate = game.moves() as f64 / elapsed.as_secs_f64().max(1e-3);
    // The least needed fields last: a narrow terminal drops them rather
    // than wrap or cut a number.
    let status = [
        format!("score {}", game.score()),
        format!("max tile {}", render::max_tile(game.board())),
        format!("moves {}", game.moves()),
        // The game's pace, told apart from the search's speed below.
        format!("played {rate:.1} moves/s"),
    ];
    let search: Vec<String> = match last {
        None => vec!["the AI has not moved yet".to_owned()],
        Some(Choice { direction: dir, decision: None }) => vec![format!("last move {dir}")],
        // `eval` is the search's value of the move played, in the
        // evaluator's units, whole and with separators.
        Some(Choice { direction: dir, decision: Some(d) }) => vec![
            format!("last move {dir}"),
            format!("eval {}", d.value(*dir).map_or_else(|| "-".to_owned(), render::eval_text)),
            format!("depth {}", d.depth),
            format!("{} nodes", short_count(d.stats.nodes as f64)),
            render::millis_text(d.elapsed.as_secs_f64() * 1e3),
            // Not "moves/s", which is the game's pace above.
            format!("searched {} boards/s", short_count(d.moves_per_second())),
        ],
    };
    let footer: Vec<String> = footer.split(" · ").map(str::to_owned).collect();
    let mut tail =
        vec![layout::fit_fields(&status, "   ", cols), layout::fit_fields(&search, "   ", cols)];
    if !note.is_empty() {
        let note: Vec<String> = note.split(" · ").map(str::to_owned).collect();
        tail.push(layout::fit_fields(&note, " · ", cols));
    }
    tail.extend([String::new(), layout::fit_fields(&footer, " · ", cols)]);
    layout::screen(game.board(), watch.color, None, &head, &tail, size)
}

#[cfg(test)]
mod tests {
    use engine::RandomPlayer;
    use game_core::Grid;

    use super::*;

    #[test]
    fn keys() {
        let key = |code| KeyEvent::new(code, KeyModifiers::NONE);
        assert_eq!(watch_key(&key(KeyCode::Char('q'))), Some(WatchKey::Quit));
        assert_eq!(watch_key(&key(KeyCode::Esc)), Some(WatchKey::Quit));
        assert_eq!(
            watch_key(&KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(WatchKey::Interrupt)
        );
        assert_eq!(watch_key(&key(KeyCode::Char(' '))), Some(WatchKey::Pause));
        assert_eq!(watch_key(&key(KeyCode::Char('c'))), None);
        assert_eq!(new_delay(Duration::from_millis(40), WatchKey::Faster).as_millis(), 20);
        assert_eq!(new_delay(Duration::ZERO, WatchKey::Slower).as_millis(), 10);
    }

    /// At the default pace a whole strong game (the committed ntuple-deep
    /// games' median is some 15,000 moves) plays in a few minutes, not a
    /// quarter of an hour; the footer calls the number a delay, which `+`
    /// (faster) shortens.
    #[test]
    fn a_strong_game_takes_minutes_at_the_default_pace() {
        assert!(DEFAULT_TTY_DELAY * 15_000 <= Duration::from_secs(180), "{DEFAULT_TTY_DELAY:?}");
        assert_eq!(pace(Duration::from_millis(20)), "delay 20 ms");
        assert!(WATCH_KEYS.contains("+ faster") && WATCH_KEYS.contains("- slower"));
        assert!(new_delay(DEFAULT_TTY_DELAY, WatchKey::Faster) < DEFAULT_TTY_DELAY);
    }

    /// The summary after a game fits the terminal's width, long seed and
    /// player's name included: the player goes on a line of its own rather
    /// than past the edge, where the terminal would break it anywhere.
    #[test]
    fn the_summary_fits_the_terminal() {
        let rules = Rules::default();
        let watch = Watch {
            size: 4,
            rules,
            seed: 987_654_321,
            seed_from_clock: true,
            max_moves: None,
            delay: None,
            color: false,
            who: "expectimax, preset ntuple-deep".to_owned(),
            why: None,
        };
        let board: game_core::Board =
            "32768 16384 8192 4096/2 4 8 16/0 0 0 0/0 0 0 2".parse().unwrap();
        let game = Game::from_board(board, rules, 1);
        let summary = game_summary(&watch, &game, 80);
        assert!(summary.lines().all(|l| l.chars().count() <= 80), "{summary}");
        assert_eq!(
            summary,
            "seed 987654321: score 0, max tile 32768, 0 moves\n\
             played by expectimax, preset ntuple-deep\n"
        );
        assert_eq!(summary.lines().count(), 2);
        let short = Watch { seed: 3, ..watch };
        assert_eq!(
            game_summary(&short, &game, 80),
            "seed 3: score 0, max tile 32768, 0 moves (expectimax, preset ntuple-deep)\n"
        );
    }

    #[test]
    fn transcript_shape() {
        let game = Game::<Grid>::with_size(2, Rules::default(), 5).unwrap();
        let mut out = Vec::new();
        let mut player = RandomPlayer::new(5);
        write_transcript(&mut out, game, Some(2), None, &mut player).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("Setup\n=====\n+--------+--------+\n"));
        assert_eq!(text.matches("Human move\n==========\n").count(), 2);
        assert_eq!(text.matches("Computer move\n=============\n").count(), 2);
        assert!(text.ends_with('\n') && text.lines().last().unwrap().starts_with("Final Score: "));
    }
}

//! `play`: a person plays; the key handling is a pure state machine
//! ([`Session::handle_key`]) so that it is tested without a terminal.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use cli_common::args::{PlayerKind, SearchArgs};
use cli_common::fit;
use cli_common::setup::{self, AnyPlayer, PlayerSpec};
use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use engine::{Choice, DefaultChoice, Played, Player, Values};
use game_core::{Direction, Game, GameBoard, PlayError};

use crate::best;
use crate::cli::PlayArgs;
use crate::keys::{PLAY_KEYS, PLAY_KEYS_MORE};
use crate::layout;
use crate::render;
use crate::term::{self, TerminalGuard};
use crate::upgrade::{BUILD_KEY, Upgrade};

/// What a key asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    Move(Direction),
    Hint,
    Undo,
    New,
    /// Show or hide the help screen.
    Help,
    /// Build the corner tables offered (`t`).
    Tables,
    Quit,
    /// Ctrl-C: quit, with exit code 130 as for an interrupted program.
    Interrupt,
}

/// Whether the session goes on after an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    Quit,
    /// Quit by Ctrl-C.
    Interrupted,
}

/// The keys, as [`PLAY_KEYS`] and [`PLAY_KEYS_MORE`] say: arrows, WASD and
/// the vi keys k/j/l move (h is the hint key, so left is ← or a); h hint,
/// u undo, n new game, ? help, q, Esc or Ctrl-C quit.
pub(crate) fn action_for(key: &KeyEvent) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        // In raw mode Ctrl-C is a key, not a signal.
        return matches!(key.code, KeyCode::Char('c' | 'C')).then_some(Action::Interrupt);
    }
    let action = match key.code {
        KeyCode::Up => Action::Move(Direction::Up),
        KeyCode::Down => Action::Move(Direction::Down),
        KeyCode::Left => Action::Move(Direction::Left),
        KeyCode::Right => Action::Move(Direction::Right),
        KeyCode::Esc => Action::Quit,
        KeyCode::Char(c) => match c.to_ascii_lowercase() {
            'w' | 'k' => Action::Move(Direction::Up),
            's' | 'j' => Action::Move(Direction::Down),
            'a' => Action::Move(Direction::Left),
            'd' | 'l' => Action::Move(Direction::Right),
            'h' => Action::Hint,
            '?' => Action::Help,
            'u' => Action::Undo,
            'n' => Action::New,
            BUILD_KEY => Action::Tables,
            'q' => Action::Quit,
            _ => return None,
        },
        _ => return None,
    };
    Some(action)
}

/// A hint: the direction and, from a search, each direction's value.
pub(crate) type Hint = Choice;

/// A game being played by a person: the game, the positions to undo to,
/// the last hint and a message line.
#[derive(Debug)]
pub(crate) struct Session<B: GameBoard> {
    /// The game and its undo history.
    play: engine::Session<B>,
    hint: Option<Hint>,
    /// The hint shows the search's raw values (`h` again), not the rating.
    raw_hint: bool,
    message: String,
    player: PlayerSpec,
    /// Built at the first hint: the default search holds a large table.
    hinter: Option<AnyPlayer>,
    /// `n` or `q` was pressed once during a game: the same key again
    /// leaves it.
    confirm: Option<Action>,
    /// The games left for a new one, for the summary on quit.
    earlier: Vec<Game<B>>,
    /// The last move's new tile (row, column) and score gained, shown on
    /// the screen.
    last_move: Option<((usize, usize), u64)>,
    /// Whether the help screen is up.
    help: bool,
    /// The best score: of earlier runs on this board size, and every score
    /// reached since (an undo takes a score back, not the best).
    best: u64,
    /// The corner tables offered where the default player lacks them, and
    /// the options to make the corner player of once they are built.
    upgrade: Option<(Upgrade, SearchArgs)>,
    /// Why the default player gives the hints, where no preset was named.
    why: Option<String>,
}

impl<B: GameBoard> Session<B> {
    /// A session of `game`, just started; hints come from `player`.
    pub(crate) fn new(game: Game<B>, player: PlayerSpec) -> Self {
        Session {
            // A person's game is at most tens of thousands of moves, a few
            // megabytes of positions: every move can be undone.
            play: engine::Session::new(game, usize::MAX),
            hint: None,
            raw_hint: false,
            message: String::new(),
            player,
            hinter: None,
            confirm: None,
            earlier: Vec::new(),
            last_move: None,
            help: false,
            best: 0,
            upgrade: None,
            why: None,
        }
    }

    /// Hints from the default player, which `choice` chose: its reason
    /// shown, and the corner tables offered where it lacks them (`search`:
    /// the options, to make the corner player of once they are built).
    pub(crate) fn with_default(
        mut self,
        choice: Option<DefaultChoice>,
        search: &SearchArgs,
    ) -> Self {
        if let Some(choice) = choice {
            let settings = &search.settings;
            let tables = settings.tables.as_deref();
            self.upgrade = Upgrade::offer(&choice, tables, settings.tables_max_states)
                .map(|u| (u, search.clone()));
            self.why = Some(choice.to_string());
        }
        self
    }

    /// The line about the hints' player: the corner tables' offer or
    /// build, else why the default player gives the hints.
    pub(crate) fn player_line(&self) -> Option<String> {
        let line = self.upgrade.as_ref().and_then(|(u, _)| u.line());
        line.or_else(|| self.why.as_ref().map(|why| format!("hints: {why}")))
    }

    /// Whether tables are being built (the screen is then redrawn as they
    /// are).
    pub(crate) fn building(&mut self) -> bool {
        self.upgrade.as_mut().is_some_and(|(u, _)| u.building())
    }

    /// Shows `text` on the message line (e.g. "thinking…" before a search).
    pub(crate) fn set_message(&mut self, text: &str) {
        text.clone_into(&mut self.message);
    }

    /// The best score: earlier runs' (as set by [`Session::set_best`]) or
    /// the highest this session reached, whichever is higher; it never goes
    /// down, not even on an undo.
    pub(crate) fn best(&self) -> u64 {
        self.best.max(self.play.game().score())
    }

    /// Sets the best score of earlier runs (a lower one than this session's
    /// changes nothing).
    pub(crate) fn set_best(&mut self, best: u64) {
        self.best = self.best.max(best);
    }

    /// One line per game of the session, the current one last.
    pub(crate) fn summary(&self) -> Vec<String> {
        self.earlier
            .iter()
            .chain(std::iter::once(self.play.game()))
            .map(|game| {
                format!(
                    "seed {}: score {}, max tile {}, {}",
                    game.seed(),
                    game.score(),
                    crate::render::max_tile(game.board()),
                    crate::render::counted(game.moves(), "move")
                )
            })
            .collect()
    }

    pub(crate) fn game(&self) -> &Game<B> {
        self.play.game()
    }

    #[cfg(test)]
    pub(crate) fn hint(&self) -> Option<&Hint> {
        self.hint.as_ref()
    }

    /// The hint as the screen shows it: the rating, or the raw values after
    /// a second `h`.
    pub(crate) fn hint_line(&self) -> Option<Vec<String>> {
        self.hint.as_ref().map(|hint| hint_fields(hint, self.raw_hint))
    }

    pub(crate) fn message(&self) -> &str {
        &self.message
    }

    /// The last move's new tile (row, column) and the score it gained.
    pub(crate) fn last_move(&self) -> Option<((usize, usize), u64)> {
        self.last_move
    }

    /// The state change for one key.
    pub(crate) fn handle_key(&mut self, key: &KeyEvent) -> Flow {
        match action_for(key) {
            Some(action) => self.apply(action),
            None => {
                // Any other key cancels a pending question and leaves help.
                self.help = false;
                if self.confirm.take().is_some() {
                    self.message.clear();
                }
                Flow::Continue
            }
        }
    }

    /// The state change for one action.
    pub(crate) fn apply(&mut self, action: Action) -> Flow {
        // A question holds for the very next key only.
        let asked = self.confirm.take();
        if asked.is_some_and(|a| a != action) {
            self.message.clear();
        }
        // Any key leaves the help screen, as it says (q and Esc too: only
        // Ctrl-C quits from it); a move key plays as well.
        if std::mem::take(&mut self.help) && matches!(action, Action::Help | Action::Quit) {
            return Flow::Continue;
        }
        if !matches!(action, Action::Move(_) | Action::Help | Action::Tables) {
            self.last_move = None;
        }
        // A game under way is not thrown away on one key: the same key
        // again confirms.
        let game = self.play.game();
        let under_way = game.moves() > 0 && !game.is_over();
        if matches!(action, Action::New | Action::Quit) && under_way && asked != Some(action) {
            self.confirm = Some(action);
            let (key, what) = match action {
                Action::Quit => ("q", "quits"),
                _ => ("n", "leaves this game for a new one"),
            };
            self.message = format!(
                "{key} again {what} (this game: score {}); any other key goes on",
                game.score()
            );
            return Flow::Continue;
        }
        match action {
            Action::Help => self.help = true,
            Action::Quit => return Flow::Quit,
            Action::Interrupt => return Flow::Interrupted,
            Action::Move(dir) => self.play(dir),
            Action::Undo => match self.play.undo() {
                Ok(()) => {
                    self.hint = None;
                    self.message = "undone".to_owned();
                }
                Err(_) => self.message = "nothing to undo".to_owned(),
            },
            Action::New => {
                // The next seed, so that every game of a session can be replayed.
                let seed = game.seed().wrapping_add(1);
                let previous = self.play.replace(game.renewed(seed));
                if previous.moves() > 0 {
                    self.earlier.push(previous);
                }
                self.hint = None;
                self.message = format!("new game, seed {seed}");
                self.take_upgrade();
            }
            Action::Hint => self.ask_hint(),
            Action::Tables => match self.upgrade.as_mut() {
                Some((upgrade, _)) => upgrade.start(),
                None => self.message = "no tables to build: the strongest player plays".to_owned(),
            },
        }
        Flow::Continue
    }

    /// The corner player for the hints of a new game, once its tables are
    /// built.
    fn take_upgrade(&mut self) {
        let Some((upgrade, search)) = self.upgrade.as_mut() else { return };
        let Some(tables) = upgrade.take() else { return };
        let size = self.play.game().board().size();
        match PlayerSpec::corner(search, size, tables) {
            Ok(player) => {
                self.player = player;
                self.hinter = None;
                self.why = Some("corner: its tables are built".to_owned());
            }
            Err(err) => self.message = format!("the corner player cannot give hints: {err:#}"),
        }
    }

    fn play(&mut self, dir: Direction) {
        match self.play.play(dir) {
            Ok(Played { turn, won }) => {
                self.best = self.best.max(self.play.game().score());
                let n = self.play.game().board().size();
                self.last_move = turn
                    .spawned
                    .map(|(cell, _)| ((cell / n, cell % n), u64::from(turn.score_gained)));
                self.hint = None;
                self.message = if self.play.game().is_over() {
                    "game over: u undoes, n starts a new game, q quits".to_owned()
                } else if won {
                    format!(
                        "You reached {}! Keep going for a higher tile, or n for a new game",
                        game_core::Tile::WIN
                    )
                } else {
                    String::new()
                };
            }
            Err(PlayError::NothingMoves(dir)) => self.message = format!("{dir} moves nothing"),
            Err(PlayError::GameOver) => {
                self.message = "the game is over: u undoes, n starts a new game".to_owned();
            }
        }
    }

    fn ask_hint(&mut self) {
        if self.play.game().is_over() {
            self.message = "no hint: the game is over".to_owned();
            return;
        }
        // A second `h` on the same board shows the raw values, a third the
        // rating again: no new search.
        if self.hint.is_some() {
            self.raw_hint = !self.raw_hint;
            self.message.clear();
            return;
        }
        self.raw_hint = false;
        if self.hinter.is_none() {
            let (size, seed) = (self.play.game().board().size(), self.play.game().seed());
            match AnyPlayer::new(&self.player, size, seed) {
                Ok(player) => self.hinter = Some(player),
                Err(err) => {
                    self.message = format!("no hint: {err:#}");
                    return;
                }
            }
        }
        let Some(hinter) = self.hinter.as_mut() else { return };
        self.hint = hinter.choose(self.play.game());
        self.message =
            if self.hint.is_some() { String::new() } else { "no hint for this board".to_owned() };
    }
}

/// The hint's fields, as the screen joins them (a narrow one drops the
/// last): the direction, then, where an endgame table decided, each
/// direction's odds of building the chain's next tile; elsewhere how much
/// worse than the best each other direction is, in that order; or with
/// `raw`, the search's own values, in its evaluator's units.
pub(crate) fn hint_fields(hint: &Hint, raw: bool) -> Vec<String> {
    let Choice { direction: dir, decision } = hint;
    let Some(d) = decision else { return vec![format!("hint: {dir}")] };
    let values = Values::of(Some(d));
    if raw {
        let mut fields = vec![format!("hint: {dir} · values")];
        fields.extend(
            values
                .ranked()
                .into_iter()
                .map(|x| format!("{x} {}", render::eval_text(values.get(x).unwrap_or(f64::NAN)))),
        );
        fields.push(format!("depth {}", d.depth));
        return fields;
    }
    let mut fields = vec![format!("hint: {dir}")];
    match d.endgame {
        Some(_) => {
            fields[0].push_str(" · odds of the chain's next tile:");
            fields.extend(
                values.ranked().into_iter().map(|x| {
                    format!("{x} {}", render::odds_text(values.get(x).unwrap_or(f64::NAN)))
                }),
            );
        }
        None => {
            let shortfall = values.shortfall();
            fields.extend(values.ranked().into_iter().filter(|&x| x != *dir).map(|x| {
                format!("{x} {}", render::shortfall_text(shortfall.get(x).unwrap_or(f64::NAN)))
            }));
        }
    }
    fields.push("h: values".to_owned());
    fields
}

/// Plays until the person quits; exit code 130 after Ctrl-C.
pub(crate) fn run(args: &PlayArgs) -> anyhow::Result<ExitCode> {
    if !io::stdin().is_terminal() || !io::stdout().is_terminal() {
        anyhow::bail!("play needs a terminal (try `watch --transcript` for text output)");
    }
    let rules = setup::rules(&args.game.rules)?;
    let size = args.game.rules.size;
    let mut search = args.game.search.clone();
    let choice = setup::choose_default(&mut search, size);
    let player = PlayerSpec::of(&search, size, &rules)?;
    let (seed, _) = setup::seed_or_clock(args.game.seed);
    let color = setup::use_color(args.game.no_color);
    // Full screen (raw mode: no echo) before the solver is built, since
    // loading a network takes about a second, and keys typed meanwhile
    // echoed onto the normal screen and stayed there after the game. An
    // error drops the guard first, so its message prints on the normal
    // screen.
    let guard = TerminalGuard::enter().context("cannot set up the terminal")?;
    if player.kind == PlayerKind::Expectimax {
        if player.solver.is_learned() {
            term::draw_frame(&mut io::stdout().lock(), &["loading the network…".to_owned()])?;
        }
        // Build one now so that bad settings or a missing network are
        // reported before the game starts, not at the first hint.
        player.solver(size)?;
    }
    let game = setup::new_game(size, rules, seed)?;
    play_loop(Session::new(game, player).with_default(choice, &search), color, guard)
}

fn play_loop<B: GameBoard>(
    mut session: Session<B>,
    color: bool,
    guard: TerminalGuard,
) -> anyhow::Result<ExitCode> {
    let size = session.game().board().size();
    let best_path = best::default_path();
    if let Some(path) = &best_path {
        session.set_best(best::load(path, size));
    }
    let mut out = BufWriter::new(io::stdout().lock());
    let flow = loop {
        term::draw_frame(&mut out, &screen(&session, color, fit::terminal_size()))?;
        // While tables are built, the screen is redrawn now and then to
        // show their progress.
        if session.building() && !event::poll(Duration::from_millis(500))? {
            continue;
        }
        let Event::Key(key) = event::read()? else { continue };
        let searches = session.hint_line().is_none() && !session.game().is_over();
        if action_for(&key) == Some(Action::Hint) && searches {
            // The search can take a while: say so before it starts, so the
            // screen does not look frozen.
            session.set_message("thinking…");
            term::draw_frame(&mut out, &screen(&session, color, fit::terminal_size()))?;
        }
        match session.handle_key(&key) {
            Flow::Continue => {}
            done => break done,
        }
    };
    drop(out);
    drop(guard);
    // Every game of the session, not only the last one.
    let mut out = io::stdout().lock();
    for line in session.summary() {
        writeln!(out, "{line}")?;
    }
    if let Some(path) = &best_path
        && let Err(err) = best::save(path, size, session.best())
    {
        // The games are over: a best score that cannot be kept is a warning.
        writeln!(
            io::stderr().lock(),
            "warning: cannot keep the best score in {}: {err}",
            path.display()
        )?;
    }
    Ok(if flow == Flow::Interrupted { ExitCode::from(130) } else { ExitCode::SUCCESS })
}

/// The help screen: every key, and what the screen shows, in `cols` x
/// `rows`. A small terminal loses the prose first, then the keys go two a
/// line and the blank lines go; the keys and the way back always stay.
fn help_screen(cols: usize, rows: usize) -> Vec<String> {
    let width = cols.clamp(20, 72);
    let rules = wrap(
        "Slide the tiles; two equal tiles that meet merge into one, and their \
         sum adds to the score. Reach 2048, then keep going as long as you can.",
        width,
    );
    let marks = wrap(
        "The tile that appeared after your move is in brackets (underlined in \
         colour), and (+N) after the score is what the move gained. A hint rates \
         the other moves by how much worse than the best they are; where an \
         endgame table decides, it gives each move's odds of building the \
         chain's next tile.",
        width,
    );
    let keys: Vec<&str> = PLAY_KEYS.split(" · ").collect();
    let one_a_line: Vec<String> = keys.iter().map(|k| format!("  {k}")).collect();
    let column = keys.iter().map(|k| k.chars().count()).max().unwrap_or(0) + 4;
    let two_a_line: Vec<String> = keys
        .chunks(2)
        .map(|pair| match pair {
            [a, b] => format!("  {a:<column$}{b}"),
            _ => format!("  {}", pair.join("")),
        })
        .collect();
    let more = wrap(&format!("{PLAY_KEYS_MORE}."), width);
    let back = "Any key returns to the game.".to_owned();
    let form =
        |with_rules: bool, with_marks: bool, keys: &[String], with_more: bool, gaps: bool| {
            let mut lines = vec!["2048 · help".to_owned()];
            let mut block = |block: &[String]| {
                if gaps {
                    lines.push(String::new());
                }
                lines.extend_from_slice(block);
            };
            if with_rules {
                block(&rules);
            }
            block(&[&["Keys:".to_owned()], keys].concat());
            if with_more {
                block(&more);
            }
            if with_marks {
                block(&marks);
            }
            block(std::slice::from_ref(&back));
            lines
        };
    // From the fullest to the barest: the first that fits.
    let forms = [
        form(true, true, &one_a_line, true, true),
        form(false, true, &one_a_line, true, true),
        form(false, false, &one_a_line, true, true),
        form(false, false, &two_a_line, true, true),
        form(false, false, &two_a_line, true, false),
        form(false, false, &two_a_line, false, true),
    ];
    let fits = forms.iter().find(|lines| lines.len() <= rows);
    let mut lines = fits.unwrap_or(&forms[forms.len() - 1]).clone();
    // Still too few rows: the top, and the last line, which says how to
    // leave.
    if lines.len() > rows {
        lines.truncate(rows.saturating_sub(1));
        lines.push(back);
    }
    lines.iter().map(|l| fit::cut(l, cols)).collect()
}

/// `text` in lines of at most `width` characters, broken at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_owned()),
        }
    }
    lines
}

/// The play screen in a terminal of `size` (columns, rows).
fn screen<B: GameBoard>(session: &Session<B>, color: bool, size: (usize, usize)) -> Vec<String> {
    let cols = size.0;
    if session.help {
        return help_screen(cols, size.1);
    }
    let game = session.game();
    let title = ["2048".to_owned(), format!("seed {}", game.seed()), "you play".to_owned()];
    let head = [layout::fit_fields(&title, " · ", cols)];
    let gained = match session.last_move() {
        Some((_, gained)) if gained > 0 => format!(" (+{gained})"),
        _ => String::new(),
    };
    // The least needed fields last: a narrow terminal drops them.
    let status = [
        format!("score {}{gained}", game.score()),
        format!("best {}", session.best()),
        format!("max tile {}", crate::render::max_tile(game.board())),
        format!("moves {}", game.moves()),
    ];
    let keys: Vec<String> = PLAY_KEYS.split(" · ").map(str::to_owned).collect();
    // A narrow terminal keeps the way out and the help (which lists every
    // key) first, then the moves.
    const KEPT_FIRST: [usize; 6] = [5, 4, 0, 1, 2, 3];
    let mut tail = vec![
        layout::fit_fields(&status, "   ", cols),
        session.hint_line().map(|f| layout::fit_fields(&f, " · ", cols)).unwrap_or_default(),
        session.message().to_owned(),
    ];
    if let Some(line) = session.player_line() {
        let fields: Vec<String> = line.split(" · ").map(str::to_owned).collect();
        tail.push(layout::fit_fields(&fields, " · ", cols));
    }
    tail.push(layout::fit_by_priority(&keys, &KEPT_FIRST, " · ", cols));
    let spawned = session.last_move().map(|(cell, _)| cell);
    layout::screen(game.board(), color, spawned, &head, &tail, size)
}

#[cfg(test)]
mod tests {
    use engine::SolverSpec;
    use engine::{Overrides, Preset, Setting};
    use game_core::{Board, Grid, Rules};

    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn session(board: &str) -> Session<Board> {
        let rules = Rules::default();
        let depth = Overrides::default().with(Setting::Depth, 1);
        let player = PlayerSpec {
            kind: PlayerKind::Expectimax,
            solver: SolverSpec::new(Preset::Fast).with_overrides(depth),
        };
        let mut s = Session::new(Game::new(rules, 1), player);
        s.play.replace(Game::from_board(board.parse().unwrap(), rules, 1));
        s
    }

    #[test]
    fn keys_map_to_actions() {
        let cases = [
            (KeyCode::Up, Some(Action::Move(Direction::Up))),
            (KeyCode::Char('w'), Some(Action::Move(Direction::Up))),
            (KeyCode::Char('k'), Some(Action::Move(Direction::Up))),
            (KeyCode::Down, Some(Action::Move(Direction::Down))),
            (KeyCode::Char('S'), Some(Action::Move(Direction::Down))),
            (KeyCode::Char('j'), Some(Action::Move(Direction::Down))),
            (KeyCode::Left, Some(Action::Move(Direction::Left))),
            (KeyCode::Char('a'), Some(Action::Move(Direction::Left))),
            (KeyCode::Right, Some(Action::Move(Direction::Right))),
            (KeyCode::Char('d'), Some(Action::Move(Direction::Right))),
            (KeyCode::Char('l'), Some(Action::Move(Direction::Right))),
            (KeyCode::Char('h'), Some(Action::Hint)),
            (KeyCode::Char('?'), Some(Action::Help)),
            (KeyCode::Char('u'), Some(Action::Undo)),
            (KeyCode::Char('n'), Some(Action::New)),
            (KeyCode::Char('q'), Some(Action::Quit)),
            (KeyCode::Esc, Some(Action::Quit)),
            (KeyCode::Char('x'), None),
            (KeyCode::Enter, None),
        ];
        for (code, expected) in cases {
            assert_eq!(action_for(&key(code)), expected, "{code:?}");
        }
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(action_for(&ctrl_c), Some(Action::Interrupt));
        let ctrl_w = KeyEvent::new(KeyCode::Char('w'), KeyModifiers::CONTROL);
        assert_eq!(action_for(&ctrl_w), None);
        let mut release = key(KeyCode::Up);
        release.kind = KeyEventKind::Release;
        assert_eq!(action_for(&release), None);
    }

    #[test]
    fn a_move_plays_and_undo_restores() {
        let mut s = session("2 2 0 0/0 0 0 0/0 0 0 0/0 0 0 0");
        assert_eq!(s.handle_key(&key(KeyCode::Left)), Flow::Continue);
        assert_eq!(s.game().score(), 4);
        assert_eq!(s.game().moves(), 1);
        assert_eq!(s.game().board().value(0, 0), Some(4));
        assert_eq!(s.game().board().count_empty(), 14, "a tile spawned");
        s.handle_key(&key(KeyCode::Char('u')));
        assert_eq!(s.game().board().to_string(), "2 2 0 0/0 0 0 0/0 0 0 0/0 0 0 0");
        assert_eq!(s.game().score(), 0);
        s.handle_key(&key(KeyCode::Char('u')));
        assert_eq!(s.message(), "nothing to undo");
    }

    /// Two 32768 tiles merge into 65536 at a key press, past the packed
    /// board's 4-bit cells, as in a long game.
    #[test]
    fn two_32768_merge_into_65536() {
        let mut s = session("32768 32768 0 0/65536 0 0 0/0 0 0 0/0 0 0 0");
        assert_eq!(s.handle_key(&key(KeyCode::Left)), Flow::Continue);
        assert_eq!(s.game().score(), 65536);
        assert_eq!(s.game().board().value(0, 0), Some(65536));
        assert_eq!(s.game().board().max_tile(), Some(game_core::Tile::of(65536)));
        s.handle_key(&key(KeyCode::Up));
        assert_eq!(s.game().board().value(0, 0), Some(131072));
        assert_eq!(s.game().score(), 65536 + 131072);
    }

    #[test]
    fn a_move_that_changes_nothing_is_refused() {
        let mut s = session("2 4 0 0/0 0 0 0/0 0 0 0/0 0 0 0");
        s.handle_key(&key(KeyCode::Up));
        assert_eq!(s.game().moves(), 0);
        assert_eq!(s.message(), "up moves nothing");
    }

    #[test]
    fn hint_gives_the_solver_choice_and_a_move_clears_it() {
        let mut s = session("2 2 0 0/0 0 0 0/0 0 0 0/0 0 0 0");
        s.handle_key(&key(KeyCode::Char('h')));
        let Choice { direction: dir, decision } = s.hint().cloned().expect("a hint");
        let decision = decision.expect("the search's values");
        assert_eq!(decision.direction, dir);
        assert!(decision.value(dir).is_some());
        let rated = s.hint_line().unwrap();
        assert_eq!(rated[0], format!("hint: {dir}"));
        assert!(
            rated[1..rated.len() - 1]
                .iter()
                .all(|f| f.ends_with(" worse") || f.ends_with(" as good")),
            "{rated:?}"
        );
        assert_eq!(rated.last().unwrap(), "h: values");
        // h again: the raw values, no new search; and back.
        s.handle_key(&key(KeyCode::Char('h')));
        let raw = s.hint_line().unwrap();
        assert_eq!(raw[0], format!("hint: {dir} · values"));
        assert!(raw.last().unwrap().starts_with("depth "), "{raw:?}");
        s.handle_key(&key(KeyCode::Char('h')));
        assert_eq!(s.hint_line().unwrap(), rated);
        s.handle_key(&key(KeyCode::Char('d')));
        assert!(s.hint().is_none());
    }

    /// A hint rates the moves, best first, by how much worse each other
    /// one is; where an endgame table decided, by its odds. Raw values
    /// alone are huge and negative on late boards, and say nothing to a
    /// player.
    #[test]
    fn a_hint_rates_the_moves_or_gives_the_tables_odds() {
        use engine::{Decision, Stats};
        let decision = |values: [Option<f64>; 4], endgame| Decision {
            direction: Direction::Down,
            values,
            depth: 3,
            stats: Stats::default(),
            elapsed: std::time::Duration::ZERO,
            endgame,
        };
        let late = [Some(-480_000_000.0), Some(-471_190_208.0), None, Some(-942_380_416.0)];
        let hint = Choice { direction: Direction::Down, decision: Some(decision(late, None)) };
        assert_eq!(
            hint_fields(&hint, false),
            ["hint: down", "up 1.9% worse", "right 100% worse", "h: values"]
        );
        assert_eq!(
            hint_fields(&hint, true),
            [
                "hint: down · values",
                "down -471,190,208",
                "up -480,000,000",
                "right -942,380,416",
                "depth 3"
            ]
        );
        let chain = engine::endgame::Formation::new(9, 6).unwrap();
        let odds = [Some(0.25), Some(0.873), None, Some(0.0)];
        let hint =
            Choice { direction: Direction::Down, decision: Some(decision(odds, Some(chain))) };
        assert_eq!(
            hint_fields(&hint, false),
            [
                "hint: down · odds of the chain's next tile:",
                "down 87.3%",
                "up 25.0%",
                "right 0%",
                "h: values"
            ]
        );
    }

    /// q, like n, asks first during a game; on the help screen q and Esc
    /// return to the game, as the screen says any key does: a player who
    /// presses q to leave the help must not lose the game.
    #[test]
    fn q_asks_first_during_a_game_and_leaves_help_without_quitting() {
        let mut s = session("2 2 0 0/0 0 0 0/0 0 0 0/0 0 0 0");
        for quit in [KeyCode::Char('q'), KeyCode::Esc] {
            s.handle_key(&key(KeyCode::Char('?')));
            assert_eq!(s.handle_key(&key(quit)), Flow::Continue, "{quit:?}");
            assert!(screen(&s, false, (80, 24))[0].ends_with("you play"), "{quit:?}: help left");
        }
        // No move yet: nothing to lose.
        assert_eq!(s.handle_key(&key(KeyCode::Char('q'))), Flow::Quit);
        s.handle_key(&key(KeyCode::Left));
        assert_eq!(s.handle_key(&key(KeyCode::Char('q'))), Flow::Continue);
        assert_eq!(s.message(), "q again quits (this game: score 4); any other key goes on");
        s.handle_key(&key(KeyCode::Char('x')));
        assert_eq!(s.message(), "", "another key goes on");
        assert_eq!(s.handle_key(&key(KeyCode::Char('q'))), Flow::Continue);
        assert_eq!(s.handle_key(&key(KeyCode::Esc)), Flow::Quit, "Esc is q");
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(s.handle_key(&ctrl_c), Flow::Interrupted, "Ctrl-C at once");
    }

    /// Best is the best score reached, so taking a move back must not lower
    /// it.
    #[test]
    fn best_never_goes_down_on_undo() {
        let mut s = session("2 2 0 0/0 0 0 0/0 0 0 0/0 0 0 0");
        s.handle_key(&key(KeyCode::Left));
        assert_eq!(s.best(), 4);
        s.handle_key(&key(KeyCode::Char('u')));
        assert_eq!((s.game().score(), s.best()), (0, 4));
        s.set_best(2);
        assert_eq!(s.best(), 4, "a lower stored best changes nothing");
    }

    #[test]
    fn new_game_takes_the_next_seed_and_quit_quits() {
        let player = PlayerSpec { kind: PlayerKind::Random, solver: SolverSpec::new(Preset::Fast) };
        let game = Game::<Grid>::with_size(3, Rules::default(), 41).unwrap();
        let mut s = Session::new(game, player);
        s.handle_key(&key(KeyCode::Char('n')));
        assert_eq!(s.game().seed(), 42);
        assert_eq!(s.game().board().size(), 3);
        assert_eq!(s.message(), "new game, seed 42");
        assert_eq!(s.handle_key(&key(KeyCode::Char('q'))), Flow::Quit);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(s.handle_key(&ctrl_c), Flow::Interrupted);
    }

    /// n during a game asks before it throws the game away, and the summary
    /// at the end lists every game played, not only the last.
    #[test]
    fn new_game_during_a_game_asks_first_and_the_summary_has_every_game() {
        let mut s = session("2 2 0 0/0 0 0 0/0 0 0 0/0 0 0 0");
        s.handle_key(&key(KeyCode::Left));
        s.handle_key(&key(KeyCode::Char('n')));
        assert_eq!(s.game().moves(), 1, "one n keeps the game");
        assert_eq!(
            s.message(),
            "n again leaves this game for a new one (this game: score 4); any other key goes on"
        );
        s.handle_key(&key(KeyCode::Char('x')));
        s.handle_key(&key(KeyCode::Char('n')));
        assert_eq!(s.game().moves(), 1, "another key in between cancels");
        s.handle_key(&key(KeyCode::Char('n')));
        assert_eq!((s.game().moves(), s.game().seed()), (0, 2), "the second n starts one");
        let summary = s.summary();
        assert_eq!(summary.len(), 2);
        s.set_best(3);
        assert_eq!(s.best(), 4, "the session's best game beats the stored 3");
        s.set_best(50);
        assert_eq!(s.best(), 50);
        assert_eq!(summary[0], "seed 1: score 4, max tile 4, 1 move");
        assert!(summary[1].starts_with("seed 2: score 0"), "{summary:?}");
        // A game with no move yet is replaced at once and not listed.
        s.handle_key(&key(KeyCode::Char('n')));
        assert_eq!(s.game().seed(), 3);
        assert_eq!(s.summary().len(), 2);
    }

    /// A player sees what a move did: its new tile and score gain are
    /// marked, and reaching 2048 is said (the game goes on).
    #[test]
    fn a_move_marks_its_new_tile_and_gain_and_2048_is_announced() {
        let mut s = session("1024 1024 0 0/0 0 0 0/0 0 0 0/0 0 0 0");
        s.handle_key(&key(KeyCode::Left));
        let ((row, col), gained) = s.last_move().expect("a new tile");
        assert_eq!(gained, 2048);
        assert!((row, col) != (0, 0) && s.game().board().value(row, col).is_some_and(|v| v > 0));
        assert_eq!(s.game().board().count_empty(), 14);
        assert!(s.message().starts_with("You reached 2048! Keep going"), "{}", s.message());
        assert!(!s.game().is_over());
        let lines = screen(&s, false, (80, 24));
        assert!(lines.iter().any(|l| l.starts_with("score 2048 (+2048)")), "{lines:?}");
        assert!(lines.iter().any(|l| l.contains("  [2]   ") || l.contains("  [4]   ")));
        // Another move that merges nothing announces nothing.
        s.handle_key(&key(KeyCode::Char('u')));
        assert!(s.last_move().is_none());
    }

    #[test]
    fn wrapping() {
        assert_eq!(wrap("ab cd ef", 5), ["ab cd", "ef"]);
        assert_eq!(wrap("abcdefg h", 3), ["abcdefg", "h"]);
        assert!(help_screen(80, 50).iter().all(|l| l.chars().count() <= 72));
    }

    /// A small terminal gets a screen that fits it, not one cut off or
    /// wrapped into a mess.
    #[test]
    fn small_terminals_get_a_screen_that_fits() {
        let mut s = session("2 2 0 0/0 0 0 0/0 0 0 0/0 0 0 0");
        for size in [(80, 24), (40, 20), (40, 12), (30, 10)] {
            let lines = screen(&s, false, size);
            assert!(lines.len() <= size.1, "{size:?}: {lines:?}");
            assert!(lines.iter().all(|l| l.chars().count() <= size.0), "{size:?}: {lines:?}");
            assert!(lines.iter().any(|l| l.starts_with("score 0")), "{size:?}: {lines:?}");
            // The way out and the help stay on the key line, however
            // small the terminal.
            let keys = lines.last().unwrap();
            assert!(keys.ends_with("? help · q quit"), "{size:?}: {keys}");
        }
        s.handle_key(&key(KeyCode::Char('?')));
        // At 40x12 and 30x10 every key and the way back fit.
        for (cols, rows) in [(40, 12), (30, 10)] {
            let help = screen(&s, false, (cols, rows));
            let fits = help.iter().all(|l| l.chars().count() <= cols);
            assert!(help.len() <= rows && fits, "{help:#?}");
            for k in PLAY_KEYS.split(" · ") {
                assert!(help.iter().any(|l| l.contains(k)), "{k}: {help:#?}");
            }
            assert_eq!(help.last().unwrap(), "Any key returns to the game.");
        }
        let tiny = screen(&s, false, (30, 6));
        assert_eq!(tiny.len(), 6);
        assert_eq!(tiny[5], "Any key returns to the game.");
    }

    #[test]
    fn question_mark_shows_help_and_any_key_returns() {
        let mut s = session("2 2 0 0/0 0 0 0/0 0 0 0/0 0 0 0");
        s.handle_key(&key(KeyCode::Char('?')));
        let lines = screen(&s, false, (80, 24));
        assert_eq!(lines[0], "2048 · help");
        assert!(lines.iter().any(|l| l == "  h hint"));
        s.handle_key(&key(KeyCode::Char('x')));
        assert!(screen(&s, false, (80, 24))[0].ends_with("you play"));
        s.handle_key(&key(KeyCode::Char('?')));
        s.handle_key(&key(KeyCode::Char('?')));
        assert!(screen(&s, false, (80, 24))[0].ends_with("you play"), "? closes help too");
        s.handle_key(&key(KeyCode::Char('?')));
        s.handle_key(&key(KeyCode::Left));
        assert_eq!(s.game().moves(), 1, "a move key leaves help and plays");
    }

    #[test]
    fn game_over_is_reported() {
        let mut s = session("2 4 2 4/4 2 4 2/2 4 2 4/4 2 4 8");
        s.handle_key(&key(KeyCode::Left));
        assert!(s.message().contains("over"));
        s.handle_key(&key(KeyCode::Char('h')));
        assert_eq!(s.message(), "no hint: the game is over");
    }

    /// Hints from the default player, which lacks the corner tables: the
    /// screen offers them, `t` builds them while the game goes on, and the
    /// next game's hints come from the corner player. Real tables, the
    /// smallest corner set, in a folder of the test's own.
    #[test]
    fn t_builds_the_corner_tables_and_the_next_game_hints_with_corner() {
        use cli_common::args::{SearchSettings, SettingOptions};
        let dir = std::env::temp_dir().join(format!("cli-play-tables-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let settings = SearchSettings {
            preset: None,
            overrides: SettingOptions(
                Overrides::default().with(Setting::Depth, 1).with(Setting::Threads, 1),
            ),
            weights: None,
            endgame: false,
            tables: Some(dir.clone()),
            tables_max_states: Some(2_000_000),
        };
        let mut search = SearchArgs { player: PlayerKind::Expectimax, settings };
        let choice = setup::choose_default(&mut search, 4);
        assert_eq!(search.settings.preset, Some(engine::DEFAULT_PRESET));
        let player = PlayerSpec {
            kind: PlayerKind::Expectimax,
            solver: SolverSpec::new(Preset::Fast)
                .with_overrides(Overrides::default().with(Setting::Depth, 1)),
        };
        let mut s =
            Session::new(Game::new(Rules::default(), 1), player).with_default(choice, &search);
        let offer = s.player_line().unwrap();
        assert!(
            offer.starts_with("t: build the corner tables for the strongest player ("),
            "{offer}"
        );
        s.apply(Action::Move(Direction::Left));
        s.apply(Action::Move(Direction::Up));
        assert_eq!(s.handle_key(&key(KeyCode::Char('t'))), Flow::Continue);
        let started = std::time::Instant::now();
        while s.building() {
            assert!(started.elapsed() < Duration::from_secs(60), "{:?}", s.player_line());
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(
            s.player_line().as_deref(),
            Some("the corner tables are built: n plays the next game with corner")
        );
        assert_eq!(s.player.solver.preset(), Preset::Fast, "the game under way keeps its hints");
        // n twice: a game under way asks first.
        s.apply(Action::New);
        s.apply(Action::New);
        assert_eq!(s.player.solver.preset(), Preset::Corner);
        assert_eq!(s.player_line().as_deref(), Some("hints: corner: its tables are built"));
        s.apply(Action::Hint);
        assert!(s.hint().is_some(), "{}", s.message());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

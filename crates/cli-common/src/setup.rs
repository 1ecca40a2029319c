//! From options to library values: rules, search settings, players, seeds.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use engine::endgame::{Check, Endgame, EndgameError, OpenEvent, RulesMismatch};
use engine::{
    BuildMeter, Choice, DefaultChoice, ExpectimaxPlayer, Player, Preset, PresetTablesError,
    RandomPlayer, SearchThreads, Solver, SolverSpec, SpecError,
};
use game_core::{AnyBoard, Game, GameBoard, Rules, RulesBuilder, TurnRule};

use crate::args::{Options, PlayerKind, RulesArgs, SearchArgs, SearchSettings};

/// The rules the options ask for, and their board size, checked by
/// game-core: the games are then [`AnyBoard`]'s of that size.
pub fn rules(args: &RulesArgs) -> anyhow::Result<Rules> {
    let turn_rule = if args.tutorial_rules { TurnRule::Tutorial } else { TurnRule::Standard };
    let builder = RulesBuilder {
        four_probability: args.four_probability,
        turn_rule,
        ..RulesBuilder::default()
    };
    AnyBoard::empty(args.size)?;
    Ok(builder.build()?)
}

/// A new game of `size` x `size` under `rules` (the size checked by
/// [`rules`]), from `seed`.
pub fn new_game(size: usize, rules: Rules, seed: u64) -> anyhow::Result<Game<AnyBoard>> {
    Ok(Game::with_size(size, rules, seed)?)
}

/// `err` in this program's words.
pub fn spec_error(err: &SpecError) -> anyhow::Error {
    anyhow::anyhow!(err.message(&Options))
}

/// The time per move of a game's player on boards above 4x4 when no depth
/// or time is given ([`SolverSpec::with_big_board_budget`]): it keeps
/// `watch --size 5` fluid.
pub const BIG_BOARD_BUDGET: Duration = Duration::from_millis(50);

/// The seed given, or one from the clock.
pub fn seed_or_clock(seed: Option<u64>) -> (u64, bool) {
    match seed {
        Some(seed) => (seed, false),
        None => (engine::clock_seed(), true),
    }
}

/// The random player's own seed for a game's seed, so that its choices
/// do not follow the spawns' stream.
pub fn random_player_seed(game_seed: u64) -> u64 {
    !game_seed
}

/// The endgame tables' folder: `given`, or cli-ascii-2048/endgame in the
/// user's cache folder.
pub fn tables_dir(given: Option<&Path>) -> anyhow::Result<PathBuf> {
    engine::tables_dir(given)
        .context("this system has no cache folder: choose one with --tables DIR")
}

/// The endgame tables `preset` plays by (of at most `max_states` states
/// when given) from the folder `given` or the cache folder, opened (once
/// per process, their files mapped: [`engine::open_preset_tables`]) and
/// checked as `check` says, or built there, with a progress line on stderr
/// while they are built (states done of all, time left); and that folder.
pub fn open_preset_tables(
    given: Option<&Path>,
    preset: Preset,
    max_states: Option<u64>,
    check: Check,
) -> anyhow::Result<(PathBuf, Arc<Endgame>)> {
    // On a terminal a progress line is rewritten in place (at most every
    // 200 ms); in a log, one line per table built.
    let live = std::io::stderr().is_terminal();
    let meter = Mutex::new((BuildMeter::new(), None::<Instant>));
    let report = |event: OpenEvent<'_>| {
        let mut err = std::io::stderr().lock();
        let mut meter = meter.lock().unwrap_or_else(|e| e.into_inner());
        meter.0.hear(&event);
        let _ = match event {
            OpenEvent::Building { .. } if live => {
                let due = meter.1.is_none_or(|t| t.elapsed() >= Duration::from_millis(200));
                if due {
                    meter.1 = Some(Instant::now());
                    write!(err, "\r\x1b[Kbuilding the endgame tables: {}", meter.0.progress())
                } else {
                    Ok(())
                }
            }
            OpenEvent::Written(..) | OpenEvent::Starting { .. } if live => {
                // The line of the table built, then the progress again.
                let line = event.log_line().unwrap_or_default();
                meter.1 = None;
                writeln!(err, "\r\x1b[K{line}")
            }
            other => other.log_line().map_or(Ok(()), |line| writeln!(err, "{line}")),
        };
    };
    engine::open_preset_tables(preset, given, max_states, check, &report).map_err(|e| match e {
        PresetTablesError::NoFolder => {
            anyhow::anyhow!("this system has no cache folder: choose one with --tables DIR")
        }
        PresetTablesError::Endgame(e @ EndgameError::NotWritable { .. }) => {
            anyhow::anyhow!("{e}: choose a folder of your own with --tables DIR")
        }
        PresetTablesError::Endgame(other) => other.into(),
    })
}

/// `tables build`: every table `preset` plays by read and checked in
/// full, or built; then where they are and their size.
pub fn build_tables(
    dir: Option<&Path>,
    max_states: Option<u64>,
    preset: Preset,
) -> anyhow::Result<()> {
    let start = Instant::now();
    let (dir, tables) = open_preset_tables(dir, preset, max_states, Check::Full)?;
    // A closed stdout (`| head`) is an error the caller treats as success.
    writeln!(
        std::io::stdout().lock(),
        "{} endgame tables, {:.2} GB, in {} ({:.1} s)",
        tables.formations().count(),
        tables.bytes() as f64 / 1e9,
        dir.display(),
        start.elapsed().as_secs_f64()
    )?;
    Ok(())
}

/// The endgame tables the options ask for (`--endgame`, or the corner
/// preset) for games of `size` x `size` under `rules`, if any.
pub fn endgame_of(
    settings: &SearchSettings,
    size: usize,
    rules: &Rules,
) -> anyhow::Result<Option<Arc<Endgame>>> {
    if !settings.plays_tables() {
        return Ok(None);
    }
    // The rule is the library's; the messages name this program's options
    // (and the preset, when it asked for the tables).
    let who = if settings.endgame { "the endgame tables" } else { "the corner preset's tables" };
    match SolverSpec::check_endgame_rules(size, rules) {
        Ok(()) => {}
        Err(SpecError::EndgameRules(RulesMismatch::Size(n))) => {
            anyhow::bail!("{who} play 4x4 boards only, not {n}x{n}")
        }
        Err(SpecError::EndgameRules(RulesMismatch::TurnRule)) => {
            anyhow::bail!("{who} assume the standard rules, not --tutorial-rules")
        }
        Err(SpecError::EndgameRules(RulesMismatch::FourProbability(p))) => {
            anyhow::bail!("{who} assume a 4 one spawn in ten, not --four-probability {p}")
        }
        Err(other) => return Err(spec_error(&other)),
    }
    let (preset, max_states) = (settings.preset(size), settings.tables_max_states);
    let (_, tables) =
        open_preset_tables(settings.tables.as_deref(), preset, max_states, Check::Stamped)?;
    Ok(Some(tables))
}

/// Who plays: the kind of player, and the solver of an expectimax player
/// (its settings, the network of a learned search, the endgame tables).
#[derive(Debug, Clone)]
pub struct PlayerSpec {
    pub kind: PlayerKind,
    pub solver: SolverSpec,
}

impl PlayerSpec {
    /// The player the options ask for in games of `size` x `size` under
    /// `rules`, with its endgame tables read (or built) now.
    pub fn of(args: &SearchArgs, size: usize, rules: &Rules) -> anyhow::Result<PlayerSpec> {
        let endgame = match args.player {
            PlayerKind::Expectimax => endgame_of(&args.settings, size, rules)?,
            PlayerKind::Random => None,
        };
        let solver = args
            .settings
            .solver_spec(size)
            .with_endgame(endgame)
            .with_big_board_budget(BIG_BOARD_BUDGET);
        // Settings the preset has no use for are refused before anything else.
        solver.validate().map_err(|e| spec_error(&e))?;
        Ok(PlayerSpec { kind: args.player, solver })
    }

    /// The corner player with `tables` (built since this player was
    /// chosen), the other options as the user gave them: the game's
    /// default player once the corner tables are built.
    ///
    /// # Errors
    /// An option the corner preset has no use for (`--heuristic`, ...).
    pub fn corner(args: &SearchArgs, size: usize, tables: Arc<Endgame>) -> anyhow::Result<Self> {
        let mut settings = args.settings.clone();
        settings.preset = Some(Preset::Corner);
        let solver = settings
            .solver_spec(size)
            .with_endgame(Some(tables))
            .with_big_board_budget(BIG_BOARD_BUDGET);
        solver.validate().map_err(|e| spec_error(&e))?;
        Ok(PlayerSpec { kind: PlayerKind::Expectimax, solver })
    }

    /// The solver of an expectimax player on `size` x `size` boards.
    pub fn solver(&self, size: usize) -> anyhow::Result<Solver> {
        self.solver.build(size).map_err(|e| spec_error(&e))
    }

    /// The search threads of an expectimax player (1 for the random one).
    pub fn threads(&self) -> usize {
        match self.kind {
            PlayerKind::Expectimax => self.solver.threads().unwrap_or(1),
            PlayerKind::Random => 1,
        }
    }
}

/// The game's default player: where no preset is named, the strongest
/// this machine has ([`engine::strongest_preset`]: corner once its tables
/// are built and checked, in `--tables` or the cache folder), set as the
/// preset, and why; `None` where a preset is named or the random player
/// plays. The lab keeps its fixed default instead.
pub fn choose_default(args: &mut SearchArgs, size: usize) -> Option<DefaultChoice> {
    if args.player != PlayerKind::Expectimax {
        return None;
    }
    choose_default_settings(&mut args.settings, size)
}

/// [`choose_default`] for settings without a player (`analyze`).
pub fn choose_default_settings(
    settings: &mut SearchSettings,
    size: usize,
) -> Option<DefaultChoice> {
    if settings.preset.is_some() {
        return None;
    }
    let choice =
        engine::strongest_preset(size, settings.tables.as_deref(), settings.tables_max_states);
    settings.preset = Some(choice.preset);
    Some(choice)
}

/// Who plays, as the status line and the summary name it.
pub fn who_plays(args: &SearchArgs, size: usize) -> String {
    match args.player {
        PlayerKind::Expectimax => format!("expectimax, preset {}", args.settings.preset(size)),
        PlayerKind::Random => "random player".to_owned(),
    }
}

/// Either player, behind one type.
#[derive(Debug)]
pub enum AnyPlayer {
    Expectimax(ExpectimaxPlayer),
    Random(RandomPlayer),
}

impl AnyPlayer {
    /// The player the options ask for, for the game played from `seed`.
    pub fn new(spec: &PlayerSpec, size: usize, seed: u64) -> anyhow::Result<Self> {
        Ok(match spec.kind {
            PlayerKind::Expectimax => {
                AnyPlayer::Expectimax(ExpectimaxPlayer::with_solver(spec.solver(size)?))
            }
            PlayerKind::Random => AnyPlayer::Random(RandomPlayer::new(random_player_seed(seed))),
        })
    }
}

impl<B: GameBoard> Player<B> for AnyPlayer {
    fn choose(&mut self, game: &Game<B>) -> Option<Choice> {
        match self {
            AnyPlayer::Expectimax(p) => p.choose(game),
            AnyPlayer::Random(p) => p.choose(game),
        }
    }

    fn search_threads(&self) -> SearchThreads {
        match self {
            AnyPlayer::Expectimax(p) => Player::<B>::search_threads(p),
            AnyPlayer::Random(_) => SearchThreads::default(),
        }
    }
}

/// Whether to colour: not with --no-color, not when NO_COLOR is set to
/// anything non-empty (<https://no-color.org>).
pub fn use_color(no_color: bool) -> bool {
    !no_color && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Whether stdout is a terminal.
pub fn stdout_is_terminal() -> bool {
    std::io::stdout().is_terminal()
}

#[cfg(test)]
mod tests {
    use engine::Preset;

    use super::*;
    use crate::args::SettingOptions;
    use engine::{Overrides, Setting};

    fn search(depth: Option<u32>, time_ms: Option<u64>) -> SearchArgs {
        let mut overrides = Overrides::default().with(Setting::Threads, 1);
        if let Some(depth) = depth {
            overrides = overrides.with(Setting::Depth, depth);
        }
        if let Some(ms) = time_ms {
            overrides = overrides.with(Setting::TimeMs, ms);
        }
        SearchArgs {
            player: PlayerKind::Expectimax,
            settings: SearchSettings {
                preset: None,
                overrides: SettingOptions(overrides),
                weights: None,
                endgame: false,
                tables: None,
                tables_max_states: None,
            },
        }
    }

    #[test]
    fn big_boards_search_within_a_budget_unless_told_otherwise() {
        let config_of = |args: &SearchArgs, size| {
            let spec = PlayerSpec::of(args, size, &Rules::default()).unwrap();
            spec.solver.config(size).unwrap()
        };
        assert_eq!(config_of(&search(None, None), 4).depth, engine::DEFAULT_PRESET.config().depth);
        assert_eq!(config_of(&search(None, None), 3).depth, Preset::Heuristic.config().depth);
        let big = config_of(&search(None, None), 5);
        assert_eq!(big.depth, Preset::Heuristic.config().depth);
        assert_eq!(big.time_budget, Some(BIG_BOARD_BUDGET));
        // --depth holds on a big board as on 4x4, with no budget.
        let fixed = config_of(&search(Some(3), None), 6);
        assert_eq!(fixed.depth, config_of(&search(Some(3), None), 4).depth);
        assert_eq!(fixed.time_budget, None);
        let timed = config_of(&search(None, Some(40)), 8);
        assert_eq!(timed.time_budget, Some(Duration::from_millis(40)));
        assert_eq!(timed.threads, 1);
    }

    #[test]
    fn the_help_gives_the_size_of_the_chains_tables() {
        // The figure is worked out, not copied: the help once said 0.5 GB.
        // Two bytes of odds a state, as the table files hold them.
        let formations = engine::formations_for(Preset::Heuristic, None);
        let bytes: u64 = formations.iter().map(|f| 2 * f.states()).sum();
        let command = <SearchArgs as clap::Args>::augment_args(clap::Command::new("lab"));
        let arg = command.get_arguments().find(|a| a.get_id() == "tables_max_states").unwrap();
        let help = arg.get_long_help().or(arg.get_help()).unwrap().to_string();
        let figure = format!("about {:.2} GB", bytes as f64 / 1e9);
        assert!(help.contains(&figure), "{help:?} does not say {figure}");
    }

    #[test]
    fn rules_are_checked_by_game_core() {
        let args = |size, p| RulesArgs { size, four_probability: p, tutorial_rules: true };
        // The size is the board's, checked with the rules.
        assert_eq!(rules(&args(4, 0.1)).unwrap(), Rules::tutorial());
        assert!(rules(&args(9, 0.1)).is_err());
        assert!(rules(&args(4, 1.5)).is_err());
    }
}

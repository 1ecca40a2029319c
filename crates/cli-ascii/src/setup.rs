//! From options to library values: rules, search settings, players, seeds.

use std::io::IsTerminal;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Context;
use game_core::{Direction, Game, GameBoard, Rules, RulesBuilder, TurnRule};
use solver_expectimax::{
    Decision, Depth, ExpectimaxPlayer, Player, Preset, RandomPlayer, SearchConfig,
};

use crate::cli::{PlayerKind, RulesArgs, SearchArgs};

/// The rules the options ask for, checked by game-core.
pub(crate) fn rules(args: &RulesArgs) -> anyhow::Result<Rules> {
    let turn_rule = if args.tutorial_rules { TurnRule::Tutorial } else { TurnRule::Standard };
    let builder = RulesBuilder {
        size: args.size,
        four_probability: args.four_probability,
        turn_rule,
        ..RulesBuilder::default()
    };
    Ok(builder.build()?)
}

/// The search settings: the preset, then the overrides.
pub(crate) fn search_config(
    preset: Preset,
    depth: Option<u32>,
    time_ms: Option<u64>,
    threads: Option<u64>,
) -> SearchConfig {
    let mut config = preset.config();
    if let Some(depth) = depth {
        config.depth = Depth::Fixed(depth);
    }
    if let Some(ms) = time_ms {
        config.time_budget = Some(Duration::from_millis(ms));
    }
    if let Some(threads) = threads {
        config.threads = usize::try_from(threads).unwrap_or(1);
    }
    config
}

/// The search settings of the common options.
pub(crate) fn config_of(args: &SearchArgs) -> SearchConfig {
    search_config(args.preset, args.depth, args.time_ms, args.threads)
}

/// The seed given, or one from the clock.
pub(crate) fn seed_or_clock(seed: Option<u64>) -> (u64, bool) {
    match seed {
        Some(seed) => (seed, false),
        None => {
            let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
            // Folded to a short number, so that it is easy to type again.
            ((nanos as u64 ^ u64::from(std::process::id())) % 1_000_000_000, true)
        }
    }
}

/// The random player's own seed for a game's seed, so that its choices
/// do not follow the spawns' stream.
pub(crate) fn random_player_seed(game_seed: u64) -> u64 {
    !game_seed
}

/// Either player, behind one type.
#[derive(Debug)]
pub(crate) enum AnyPlayer {
    Expectimax(ExpectimaxPlayer),
    Random(RandomPlayer),
}

impl AnyPlayer {
    /// The player the options ask for, for the game played from `seed`.
    pub(crate) fn new(kind: PlayerKind, config: SearchConfig, seed: u64) -> anyhow::Result<Self> {
        Ok(match kind {
            PlayerKind::Expectimax => AnyPlayer::Expectimax(
                ExpectimaxPlayer::new(config).context("invalid search settings")?,
            ),
            PlayerKind::Random => AnyPlayer::Random(RandomPlayer::new(random_player_seed(seed))),
        })
    }
}

impl<B: GameBoard> Player<B> for AnyPlayer {
    fn choose(&mut self, game: &Game<B>) -> Option<(Direction, Option<Decision>)> {
        match self {
            AnyPlayer::Expectimax(p) => p.choose(game),
            AnyPlayer::Random(p) => p.choose(game),
        }
    }
}

/// Whether to colour: not with --no-color, not when NO_COLOR is set to
/// anything non-empty (<https://no-color.org>).
pub(crate) fn use_color(no_color: bool) -> bool {
    !no_color && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Whether stdout is a terminal.
pub(crate) fn stdout_is_terminal() -> bool {
    std::io::stdout().is_terminal()
}

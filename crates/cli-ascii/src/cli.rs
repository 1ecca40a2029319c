//! The game's command line: watch, play and analyze, their options and
//! help, as clap derives them. The lab's commands are another program's
//! (`crates/lab`).

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use cli_common::args::{
    RulesArgs, SearchArgs, SearchSettings, given, negative_numbers_are_values,
    parse_four_probability, parse_seed, unused_search_option, whole_number,
};

use crate::keys::{PLAY_KEYS, PLAY_KEYS_MORE, WATCH_KEYS};

// The examples run from a clone, where `cli-ascii` is not on the PATH.
const EXAMPLES: &str = "\
Examples, from the repository (after `cargo install --path crates/cli-ascii`,
`cli-ascii` does the same as `cargo run -p cli-ascii --`):
  # watch the strong AI play one game
  cargo run -p cli-ascii
  # the same game every time, slower
  cargo run -p cli-ascii -- watch --seed 7 --delay-ms 100
  # the Java tutorial's text transcript
  cargo run -p cli-ascii -- --transcript | head -40
  # the Java tutorial's own game, exactly
  cargo run -p cli-ascii -- watch --preset tutorial --tutorial-rules \\
      --transcript --seed 1
  # play yourself (h asks the AI for a hint)
  cargo run -p cli-ascii -- play
  # the solver's view of one board
  cargo run -p cli-ascii -- analyze '2 2 0 0/0 4 0 0/0 0 0 0/0 0 0 2'

Tournaments, comparisons, tuning, training and the endgame tables are the
lab's, another program: `cargo run -p lab -- --help`.";

// `-h`'s end: where the rest is.
const SHORT_AFTER: &str = "\
`--help` shows more, with examples. Tournaments, comparisons, tuning,
training and the endgame tables are the lab's, another program:
`cargo run -p lab -- --help`.";

/// Watch, play and analyse 2048 in the terminal, with an expectimax AI.
///
/// Without a subcommand, `watch` runs: the AI plays one game.
#[derive(Debug, Parser)]
#[command(
    name = "cli-ascii",
    version,
    after_help = SHORT_AFTER,
    after_long_help = EXAMPLES,
    args_conflicts_with_subcommands = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
    /// The options of `watch`, which runs when no subcommand is given.
    #[command(flatten)]
    pub(crate) watch: WatchArgs,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    // The keys come from one list, which the screen's footer shows too.
    #[command(
        about = "The AI plays one game (the default)",
        long_about = format!(
            "The AI plays one game (the default). Redrawn in place on a terminal \
             (keys: {WATCH_KEYS}); the Java tutorial's transcript when piped or with --transcript"
        ),
        after_help = "Examples:\n  cargo run -p cli-ascii -- watch --seed 7\n  \
        cargo run -p cli-ascii -- watch --transcript --player random --tutorial-rules --seed 1")]
    Watch(WatchArgs),
    // The keys come from one list, which the screen's footer shows too.
    #[command(
        about = "Play yourself, with hints; your best score is kept",
        long_about = format!("Play yourself. Keys: {PLAY_KEYS}; {PLAY_KEYS_MORE}"),
        after_help = format!(
            "Your best score on each board size is kept between runs in {}.\n\n\
             Example:\n  cargo run -p cli-ascii -- play --seed 3 --size 5",
            crate::best::default_path().map_or_else(
                || "no file: this system has no data directory".to_owned(),
                |p| p.display().to_string()
            )
        )
    )]
    Play(PlayArgs),
    /// The solver's view of boards.
    ///
    /// Each direction's value, the best one and the search figures. Boards
    /// come from the argument or, one a line, from stdin.
    #[command(
        visible_alias = "analyse",
        after_help = "Examples:\n  \
        cargo run -p cli-ascii -- analyze '2 2 0 0/0 4 0 0/0 0 0 0/0 0 0 2'\n  \
        cargo run -p cli-ascii -- analyze --json --preset fast < boards.txt"
    )]
    Analyze(AnalyzeArgs),
}

/// What a game needs, whoever plays it: the player and search, the rules,
/// the seed and the colours.
#[derive(Debug, Clone, Args)]
pub(crate) struct GameArgs {
    #[command(flatten)]
    pub(crate) search: SearchArgs,
    #[command(flatten)]
    pub(crate) rules: RulesArgs,
    /// The game's seed (default: from the clock; the seed is always shown).
    #[arg(long, value_parser = parse_seed)]
    pub(crate) seed: Option<u64>,
    /// No colours (also when the NO_COLOR environment variable is set).
    #[arg(long)]
    pub(crate) no_color: bool,
}

#[derive(Debug, Clone, Args)]
pub(crate) struct WatchArgs {
    #[command(flatten)]
    pub(crate) game: GameArgs,
    /// Stop after this many moves.
    #[arg(long, value_name = "N")]
    pub(crate) max_moves: Option<u64>,
    /// Print the Java tutorial's text transcript even on a terminal.
    #[arg(long)]
    pub(crate) transcript: bool,
    /// Pause between moves on a terminal, up to 60000 ms (default 10 ms).
    ///
    /// At the default a whole strong game, some 15,000 moves, takes about
    /// three minutes; + and - halve and double the pause as it plays. None
    /// in a transcript unless given.
    #[arg(long, value_name = "MS", value_parser = parse_delay_ms)]
    pub(crate) delay_ms: Option<u64>,
}

/// `play`: the search and player behind the hints (h), and the game.
#[derive(Debug, Clone, Args)]
pub(crate) struct PlayArgs {
    #[command(flatten)]
    pub(crate) game: GameArgs,
}

#[derive(Debug, Clone, Args)]
pub(crate) struct AnalyzeArgs {
    /// A board, e.g. '2 0 0 4/0 0 0 0/0 16 0 0/0 0 0 2048' (default: stdin).
    ///
    /// A board in game-core's notation (words are joined, so the quotes
    /// may be left out). Without it, boards are read from stdin, one a
    /// line.
    #[arg(value_name = "BOARD")]
    pub(crate) board: Vec<String>,
    /// One JSON object per board instead of text.
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) settings: SearchSettings,
    /// The probability that a new tile is a 4, which weighs the chance
    /// nodes, between 0 and 1.
    #[arg(long, value_name = "P", default_value_t = 0.1, value_parser = parse_four_probability)]
    pub(crate) four_probability: f64,
}

/// Parses the command line, then refuses options that the command would
/// silently ignore (a usage error, like clap's own, so exit code 2).
pub(crate) fn parse() -> Result<Cli, clap::Error> {
    let matches = command().try_get_matches()?;
    let cli = Cli::from_arg_matches(&matches)?;
    let leaf = matches.subcommand().map_or(&matches, |(_, sub)| sub);
    let (player, settings) = match &cli.command {
        None => (Some(cli.watch.game.search.player), &cli.watch.game.search.settings),
        Some(Command::Watch(a)) => (Some(a.game.search.player), &a.game.search.settings),
        Some(Command::Play(a)) => (Some(a.game.search.player), &a.game.search.settings),
        Some(Command::Analyze(a)) => (None, &a.settings),
    };
    match unused_search_option(player, settings, given(leaf, "preset")) {
        Some(message) => Err(command().error(clap::error::ErrorKind::ArgumentConflict, message)),
        None => Ok(cli),
    }
}

/// The command line, every option that takes a value reading a negative
/// number as that value (see [`negative_numbers_are_values`]).
pub(crate) fn command() -> clap::Command {
    negative_numbers_are_values(Cli::command())
}

/// The longest pause between moves: more looks like a hang.
const MAX_DELAY_MS: u64 = 60_000;

fn parse_delay_ms(text: &str) -> Result<u64, String> {
    whole_number(text, 0..=MAX_DELAY_MS, " ms")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_lists_the_game_and_names_the_lab() {
        let help = command().render_help().to_string();
        for sub in ["watch", "play", "analyze"] {
            assert!(help.contains(&format!("  {sub} ")), "{sub}: {help}");
        }
        for sub in cli_common::LAB_COMMANDS {
            assert!(!help.contains(&format!("  {sub} ")), "{sub}: {help}");
        }
        assert!(help.contains("-p lab -- --help"), "{help}");
    }

    #[test]
    fn delays_say_their_range() {
        assert_eq!(parse_delay_ms("60000"), Ok(60_000));
        assert_eq!(parse_delay_ms("60001"), Err("must be between 0 and 60000 ms".into()));
    }
}

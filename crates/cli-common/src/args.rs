//! The options the game and the lab share: who plays and how the AI
//! searches, the rules, the number parsers that name their range, and how
//! both programs spell a setting in their messages.

use std::io::{self, Write};
use std::ops::RangeInclusive;
use std::path::PathBuf;

use clap::parser::ValueSource;
use clap::{Arg, ArgMatches, Args, FromArgMatches, ValueEnum};
use engine::{Given, Overrides, Preset, Setting, SolverSpec, Spelling, Value};

/// Who plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PlayerKind {
    /// The expectimax search, set by --preset and friends.
    Expectimax,
    /// The tutorial's random mover.
    Random,
}

/// Who plays, and how the AI searches.
#[derive(Debug, Clone, Args)]
pub struct SearchArgs {
    /// Who plays.
    #[arg(long, value_enum, default_value_t = PlayerKind::Expectimax)]
    pub player: PlayerKind,
    #[command(flatten)]
    pub settings: SearchSettings,
}

/// How the AI searches: a preset, then the overrides.
#[derive(Debug, Clone, Args)]
pub struct SearchSettings {
    /// The search settings (default: the strongest this machine has).
    ///
    /// tutorial (the Java tutorial's player), the heuristic's fast,
    /// heuristic and heuristic-max, the learned network's ntuple and
    /// ntuple-deep, corner (the corner heuristic with its endgame tables,
    /// 6.7 GB) or corner-big (the same with the big step table, 26 GB in
    /// all, built once in about 15 minutes). Default in the game: the strongest this machine has, corner
    /// once its tables are built, else ntuple-deep (heuristic on boards
    /// other than 4x4); in the lab: ntuple-deep, on every machine, so that
    /// a records file means the same everywhere.
    #[arg(long)]
    pub preset: Option<Preset>,
    /// The search settings over the preset's: an option each, read from
    /// the engine's list of them ([`engine::Setting`]).
    #[command(flatten)]
    pub overrides: SettingOptions,
    /// The network of the ntuple presets (default: the shipped weights).
    ///
    /// The shipped weights are the file $N2048_WEIGHTS names, else
    /// 4x6.n2048 beside this program, in the user's data folder under
    /// cli-ascii-2048, or in the source checkout it was built from.
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// Play the endgame tables' move on late-game chains of large tiles.
    ///
    /// Wherever a chain has a table (4x4, standard spawn odds); the search
    /// decides elsewhere. The tables are built on first use (see `lab
    /// tables build`). The corner preset always plays by its own tables.
    #[arg(long)]
    pub endgame: bool,
    /// The endgame tables' folder (default: in the user's cache folder).
    ///
    /// The default is cli-ascii-2048/endgame in the user's cache folder;
    /// for --endgame, the corner preset, and the game's default player,
    /// which looks there for the corner tables.
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,
    /// Only the endgame tables of at most N states (default: all of them).
    ///
    /// All of them take about 0.77 GB. For the corner preset, the largest
    /// step and block of at most N states.
    #[arg(long, value_name = "N")]
    pub tables_max_states: Option<u64>,
}

impl SearchSettings {
    /// Whether the player plays by endgame tables: `--endgame`, or the
    /// corner preset, which always does.
    pub fn plays_tables(&self) -> bool {
        self.endgame || self.solver_spec(4).needs_tables()
    }

    /// The solver these options ask for on `size` x `size` boards, without
    /// endgame tables.
    pub fn solver_spec(&self, size: usize) -> SolverSpec {
        SolverSpec::new(self.preset(size))
            .with_overrides(self.overrides.0)
            .with_weights(self.weights.clone())
    }

    /// The preset named, or the engine's default for `size` x `size` boards.
    pub fn preset(&self, size: usize) -> Preset {
        self.preset.unwrap_or_else(|| engine::default_preset(size))
    }
}

/// The search settings as options: `--depth`, `--time-ms` and every other
/// [`Setting`], each with its range, help and parser from the engine, so
/// that a setting added there is an option here with no line written.
#[derive(Debug, Clone, Copy, Default)]
pub struct SettingOptions(pub Overrides);

impl SettingOptions {
    /// Whether `setting` was given.
    pub fn given(&self, setting: Setting) -> bool {
        self.0.get(setting).is_some()
    }
}

impl FromArgMatches for SettingOptions {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut overrides = Overrides::default();
        for setting in Setting::ALL {
            if let Some(value) = matches.try_get_one::<Value>(setting.name()).ok().flatten() {
                overrides = overrides.try_with(setting, *value).map_err(|err| {
                    clap::Error::raw(clap::error::ErrorKind::ValueValidation, err.to_string())
                })?;
            }
        }
        if let Some(threads) = overrides.threads() {
            warn_past_the_cores(threads);
        }
        Ok(SettingOptions(overrides))
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = SettingOptions::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Args for SettingOptions {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        Setting::ALL.into_iter().fold(cmd, |cmd, setting| {
            let details = setting.details();
            let help = setting.help();
            let long_help = if details.is_empty() {
                format!("{help}.")
            } else {
                format!("{help}.\n\n{details}")
            };
            cmd.arg(
                Arg::new(setting.name())
                    .long(&setting.option()[2..])
                    .value_name(setting.value_name())
                    .help(help)
                    .long_help(long_help)
                    .value_parser(move |text: &str| setting.parse(text)),
            )
        })
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        SettingOptions::augment_args(cmd)
    }
}

/// A warning on stderr when `threads` is more than the machine's cores:
/// the search runs, slower.
fn warn_past_the_cores(threads: usize) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads > cores {
        // Best effort, like any warning: a failing stderr must not stop the run.
        let _ = writeln!(
            io::stderr().lock(),
            "warning: --threads {threads} is more than this machine's {cores} core(s): \
             the extra threads only slow the search"
        );
    }
}

/// The rules of the game.
#[derive(Debug, Clone, Args)]
pub struct RulesArgs {
    /// Rows and columns, between 2 and 8.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = parse_size)]
    pub size: usize,
    /// The probability that a new tile is a 4, between 0 and 1.
    #[arg(long, value_name = "P", default_value_t = 0.1, value_parser = parse_four_probability)]
    pub four_probability: f64,
    /// The Java tutorial's loop.
    ///
    /// Every move spawns a tile, even one that changes nothing, and the
    /// game ends as soon as the board is full.
    #[arg(long)]
    pub tutorial_rules: bool,
}

/// Whether the option `id` was written on the command line (not a default).
pub fn given(matches: &ArgMatches, id: &str) -> bool {
    // `value_source` panics in debug builds for an id the command lacks.
    matches.ids().any(|i| i.as_str() == id)
        && matches.value_source(id) == Some(ValueSource::CommandLine)
}

/// The first search option given that does not apply, as a message: search
/// options with the random player, which does not search, and what the
/// engine refuses for the preset (--weights with a preset that uses no
/// network, ...). `player` is `None` for a command with no player option,
/// `preset_given` whether --preset was written.
pub fn unused_search_option(
    player: Option<PlayerKind>,
    settings: &SearchSettings,
    preset_given: bool,
) -> Option<String> {
    if player == Some(PlayerKind::Random) {
        let search_options = [
            ("--preset", preset_given),
            ("--depth", settings.overrides.given(Setting::Depth)),
            ("--time-ms", settings.overrides.given(Setting::TimeMs)),
            ("--threads", settings.overrides.given(Setting::Threads)),
            ("--weights", settings.weights.is_some()),
            ("--endgame", settings.endgame),
        ];
        if let Some((name, _)) = search_options.iter().find(|(_, given)| *given) {
            return Some(format!(
                "{name} does not apply to --player random, which does not search"
            ));
        }
    }
    // The tables' options apply where tables are played or looked for.
    let tables_option = [
        ("--tables", settings.tables.is_some()),
        ("--tables-max-states", settings.tables_max_states.is_some()),
    ];
    if let Some((name, _)) = tables_option.iter().find(|(_, given)| *given) {
        // The game's default player (no --preset) looks for the corner
        // tables there.
        if player == Some(PlayerKind::Random) || (preset_given && !settings.plays_tables()) {
            return Some(format!(
                "{name} applies with --endgame, --preset corner or the default player, which \
                 look for tables"
            ));
        }
    }
    // What applies to which preset is the library's rule, in this
    // program's words.
    settings.solver_spec(4).validate().err().map(|e| e.message(&Options))
}

/// A usage error when the seeds from `seed_start`, one a game, go past the
/// last seed: they would wrap to seed 0 and play other games than asked.
pub fn seeds_past_the_last(seed_start: u64, games: u64) -> Option<String> {
    seed_start.checked_add(games.saturating_sub(1)).is_none().then(|| {
        format!(
            "--seed-start {seed_start} with --games {games} goes past the last seed, {}: from \
             that seed, at most {} games",
            u64::MAX,
            u64::MAX - seed_start + 1
        )
    })
}

/// `cmd` with every option that takes a value reading a negative number as
/// that value (`--size -1` is an invalid size, which the option's own parser
/// names with its range) rather than as an unknown flag `-1`: set for every
/// option of every subcommand at once, so that no option can be added
/// without it.
pub fn negative_numbers_are_values(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|arg| {
        if arg.get_action().takes_values() { arg.allow_negative_numbers(true) } else { arg }
    })
    .mut_subcommands(negative_numbers_are_values)
}

/// How the programs name settings and presets in their messages: as their
/// options.
#[derive(Debug, Clone, Copy)]
pub struct Options;

impl Spelling for Options {
    fn setting(&self, given: Given) -> String {
        match given {
            Given::Setting(setting) => setting.option().to_owned(),
            Given::Weights => "--weights".to_owned(),
        }
    }

    fn preset(&self, preset: Preset) -> String {
        format!("--preset {preset}")
    }
}

// Number options: clap's own ranges say `0 is not in 1..18446744073709551615`,
// so the options parse through these, which name the range in the option's
// terms (a `-1` reaches them: see `command`).

/// A whole number in `range`; `unit` (e.g. " ms") follows the bounds in the
/// messages (the engine's parser, which its settings use too).
pub fn whole_number(text: &str, range: RangeInclusive<u64>, unit: &str) -> Result<u64, String> {
    let (min, max) = (i128::from(*range.start()), i128::from(*range.end()));
    engine::parse_whole(text, min, max, unit).map(|n| n as u64)
}

/// A board's rows and columns, as game-core plays them: a usage error
/// (exit code 2) like any other bad value, not a failure of the game.
pub fn parse_size(text: &str) -> Result<usize, String> {
    let (min, max) = (game_core::MIN_SIZE as u64, game_core::MAX_SIZE as u64);
    whole_number(text, min..=max, "").map(|n| n as usize)
}

/// The probability that a new tile is a 4, between 0 and 1.
pub fn parse_four_probability(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err("expected a probability, between 0 and 1".to_owned()),
    }
}

pub fn parse_seed(text: &str) -> Result<u64, String> {
    whole_number(text, 0..=u64::MAX, "")
}

pub fn parse_games(text: &str) -> Result<u64, String> {
    whole_number(text, 1..=u64::MAX, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_say_their_range() {
        assert_eq!(parse_seed("0"), Ok(0));
        assert_eq!(parse_seed("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(parse_seed("-1"), Err("must be between 0 and 18446744073709551615".into()));
        assert_eq!(
            parse_seed("18446744073709551616"),
            Err("too large: at most 18446744073709551615".into())
        );
        assert_eq!(
            parse_games("99999999999999999999"),
            Err("too large: at most 18446744073709551615".into())
        );
        assert_eq!(parse_size("9"), Err("must be between 2 and 8".into()));
        assert_eq!(
            parse_four_probability("1.5"),
            Err("expected a probability, between 0 and 1".into())
        );
        assert_eq!(parse_games("-"), Err("expected a whole number, at least 1".into()));
        assert_eq!(parse_games("+3"), Err("expected a whole number, at least 1".into()));
    }
}

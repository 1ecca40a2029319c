//! The options the game and the lab share: who plays and how the AI
//! searches, the rules, the number parsers that name their range, and how
//! both programs spell a setting in their messages.

use std::io::{self, Write};
use std::ops::RangeInclusive;
use std::path::PathBuf;

use clap::parser::ValueSource;
use clap::{ArgMatches, Args, ValueEnum};
use engine::{MAX_DEPTH, Overrides, Preset, Setting, SolverSpec, Spelling};

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
    /// Search this many chance layers deep, between 1 and 12, always
    /// (overrides the preset).
    #[arg(long, value_name = "N", value_parser = parse_depth)]
    pub depth: Option<u32>,
    /// Deepen one layer at a time within this budget per move.
    #[arg(long, value_name = "MS", value_parser = parse_time_ms)]
    pub time_ms: Option<u64>,
    /// Search threads, between 1 and 256 (default: the preset's).
    ///
    /// More than the machine's cores only slows the search.
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    pub threads: Option<u64>,
    /// Leave chance branches less likely than P unsearched, between 0 and 1.
    ///
    /// Such a branch is scored by the evaluator instead of searched
    /// (overrides the preset's; not for the tutorial preset).
    #[arg(long, value_name = "P", value_parser = parse_probability)]
    pub prob_cutoff: Option<f32>,
    /// Search N layers deeper than the adaptive depth, between -12 and 12.
    ///
    /// A negative N searches shallower (overrides the preset's bonus; for
    /// the fast, heuristic, heuristic-max and ntuple-deep presets, without
    /// --depth).
    #[arg(long, value_name = "N", value_parser = parse_depth_bonus)]
    pub depth_bonus: Option<i32>,
    /// The network of the ntuple presets (default: the shipped weights).
    ///
    /// The shipped weights are the file $N2048_WEIGHTS names, else
    /// 4x6.n2048 beside this program, in the user's data folder under
    /// cli-ascii-2048, or in the source checkout it was built from.
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// The weight of the heuristic added to the network's values, 0 or more.
    ///
    /// 0 searches with the network alone (ntuple presets only; default:
    /// the preset's, 0).
    #[arg(long, value_name = "W", value_parser = parse_heuristic)]
    pub heuristic: Option<f32>,
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
        let overrides = Overrides {
            depth: self.depth,
            time_ms: self.time_ms,
            threads: self.threads.map(|t| usize::try_from(t).unwrap_or(usize::MAX)),
            prob_cutoff: self.prob_cutoff,
            depth_bonus: self.depth_bonus,
            heuristic: self.heuristic,
        };
        SolverSpec::new(self.preset(size))
            .with_overrides(overrides)
            .with_weights(self.weights.clone())
    }

    /// The preset named, or the engine's default for `size` x `size` boards.
    pub fn preset(&self, size: usize) -> Preset {
        self.preset.unwrap_or_else(|| engine::default_preset(size))
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
            ("--depth", settings.depth.is_some()),
            ("--time-ms", settings.time_ms.is_some()),
            ("--threads", settings.threads.is_some()),
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
    fn setting(&self, setting: Setting) -> String {
        format!("--{}", setting.name().replace('_', "-"))
    }

    fn preset(&self, preset: Preset) -> String {
        format!("--preset {preset}")
    }
}

// Number options: clap's own ranges say `0 is not in 1..18446744073709551615`,
// so the options parse through these, which name the range in the option's
// terms (a `-1` reaches them: see `command`).

/// The most search threads: the solver's bound.
const MAX_THREADS: u64 = engine::MAX_THREADS as u64;

/// A whole number in `range`; `unit` (e.g. " ms") follows the bounds in the
/// messages.
pub fn whole_number(text: &str, range: RangeInclusive<u64>, unit: &str) -> Result<u64, String> {
    let (min, max) = (*range.start(), *range.end());
    let accepted = if max == u64::MAX && min > 0 {
        format!("at least {min}{unit}")
    } else {
        format!("between {min} and {max}{unit}")
    };
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("expected a whole number, {accepted}"));
    }
    match text.parse::<u64>() {
        Ok(n) if range.contains(&n) => Ok(n),
        // Digits too many for any u64: "at least 1" would not say what is
        // wrong.
        Err(_) if digits.len() == text.len() => Err(format!("too large: at most {max}{unit}")),
        // Below or above the range, or negative.
        _ => Err(format!("must be {accepted}")),
    }
}

/// A whole number in `range`, which may be below 0.
pub fn signed_number(text: &str, range: RangeInclusive<i64>) -> Result<i64, String> {
    let (min, max) = (*range.start(), *range.end());
    match text.parse::<i64>() {
        Ok(n) if range.contains(&n) => Ok(n),
        Ok(_) => Err(format!("must be between {min} and {max}")),
        Err(_) => Err(format!("expected a whole number, between {min} and {max}")),
    }
}

/// Search layers, between 1 and the solver's bound.
pub fn parse_depth(text: &str) -> Result<u32, String> {
    whole_number(text, 1..=u64::from(MAX_DEPTH), "").map(|d| d as u32)
}

/// A depth bonus, between -12 and 12.
pub fn parse_depth_bonus(text: &str) -> Result<i32, String> {
    signed_number(text, -12..=12).map(|b| b as i32)
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

pub fn parse_time_ms(text: &str) -> Result<u64, String> {
    whole_number(text, 1..=u64::MAX, " ms")
}

/// A probability, between 0 and 1.
pub fn parse_probability(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err("expected a probability, between 0 and 1".to_owned()),
    }
}

/// The weight of the heuristic in a learned search: finite, 0 or more.
pub fn parse_heuristic(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(w) if w.is_finite() && w >= 0.0 => Ok(w),
        _ => Err("expected a weight, a number of 0 or more".to_owned()),
    }
}

/// Search threads, with a warning on stderr above the machine's cores.
///
/// The warning is written here, while parsing, because every subcommand
/// with --threads needs it and this is the one place they share.
pub fn parse_threads(text: &str) -> Result<u64, String> {
    let threads = whole_number(text, 1..=MAX_THREADS, "")?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads > cores as u64 {
        // Best effort, like any warning: a failing stderr must not stop the run.
        let _ = writeln!(
            io::stderr().lock(),
            "warning: --threads {threads} is more than this machine's {cores} core(s): \
             the extra threads only slow the search"
        );
    }
    Ok(threads)
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
        assert_eq!(parse_depth("13"), Err("must be between 1 and 12".into()));
        assert_eq!(parse_depth_bonus("-13"), Err("must be between -12 and 12".into()));
        assert_eq!(parse_depth_bonus("-12"), Ok(-12));
        assert_eq!(parse_size("9"), Err("must be between 2 and 8".into()));
        assert_eq!(
            parse_four_probability("1.5"),
            Err("expected a probability, between 0 and 1".into())
        );
        assert_eq!(parse_time_ms("0"), Err("must be at least 1 ms".into()));
        assert_eq!(parse_time_ms("1.5"), Err("expected a whole number, at least 1 ms".into()));
        assert_eq!(parse_games("-"), Err("expected a whole number, at least 1".into()));
        assert_eq!(parse_games("+3"), Err("expected a whole number, at least 1".into()));
        assert_eq!(parse_threads("257"), Err("must be between 1 and 256".into()));
        assert_eq!(parse_threads("1"), Ok(1));
        assert_eq!(parse_probability("2e-4"), Ok(2e-4));
        assert!(parse_probability("1.5").is_err() && parse_probability("x").is_err());
    }
}

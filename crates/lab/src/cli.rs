//! The lab's command line: tournament, compare, tune, agreement, train,
//! export-weights and tables, their options and help, as clap derives them.

use std::path::PathBuf;

use clap::error::ErrorKind;
use clap::{ArgGroup, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use cli_common::args::{
    RulesArgs, SearchArgs, SearchSettings, given, negative_numbers_are_values, parse_games,
    parse_seed, seeds_past_the_last, unused_search_option, whole_number,
};
use engine::{Preset, Setting};
use game_core::Tile;

// The examples run from a clone, where `lab` is not on the PATH.
const EXAMPLES: &str = "\
Examples, from the repository (after `cargo install --path crates/lab`, `lab`
does the same as `cargo run -p lab --`):
  # 50 seeded games: a summary, and each game's record in fast.csv
  cargo run -p lab -- tournament --preset fast --games 50 --csv fast.csv
  # two players on the same seeds
  cargo run --release -p lab -- compare --a '--preset fast' \\
      --b '--preset heuristic' --games 200 --tile 8192

Watching, playing and analysing boards are the game's, `cli-ascii`:
`cargo run -p cli-ascii -- --help`.";

/// The lab of the 2048 AI: measure players by seeded tournaments and paired
/// comparisons, tune the heuristic, train the n-tuple network, build the
/// endgame tables.
#[derive(Debug, Parser)]
#[command(name = "lab", version, after_help = EXAMPLES)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Many seeded games: a summary table, per-game records as CSV or JSON.
    #[command(after_help = "Example:\n  \
        cargo run -p lab -- tournament --preset fast --games 100 \\\n      \
        --seed-start 1 --csv fast.csv")]
    Tournament(TournamentArgs),
    /// Two players on the same seeds, paired: each one's reach rates and
    /// scores, the difference in the rate of --tile with its 95% interval
    /// and an exact McNemar test, the scores' sign test; --sprt stops as
    /// soon as a sequential test decides.
    #[command(after_help = "Examples:\n  \
        cargo run --release -p lab -- compare --a '--preset fast' \\\n      \
        --b '--preset fast --depth-bonus 1' --games 200 --tile 8192\n  \
        cargo run --release -p lab -- compare --a '--preset ntuple' \\\n      \
        --b '--preset ntuple --endgame' --sprt 0,0.05 --games 2000 \\\n      \
        --csv-a a.csv --csv-b b.csv --resume")]
    Compare(CompareArgs),
    /// Tune the heuristic's weights by seeded tournaments: a coordinate
    /// search that keeps a change only when its mean score beats the
    /// incumbent's by two standard errors over the same seeds. Prints a
    /// Markdown table.
    #[command(
        mut_arg("preset", |arg| arg.default_value("fast")),
        after_help = "Example:\n  \
        cargo run --release -p lab -- tune --preset fast --games 200 --rounds 2"
    )]
    Tune(TuneArgs),
    /// How often a search setting chooses the move of a much deeper
    /// reference search, and at what cost, over positions of real games: a
    /// cheap screen before a tournament. The setting is given by the usual
    /// search options; it is compared with --baseline.
    #[command(after_help = "Example:\n  \
        cargo run --release -p lab -- agreement --games 3 --seed-start 42 \\\n      \
        --every 40 \
        --preset default --depth-bonus 1 --prob-cutoff 2e-4")]
    Agreement(AgreementArgs),
    /// Learn the n-tuple network by self-play (TD learning): a progress
    /// line, a checkpoint every few minutes and on Ctrl-C or SIGTERM, a learning
    /// curve.
    #[command(after_help = "Examples:\n  \
        cargo run --release -p lab -- train --minutes 60\n  \
        cargo run --release -p lab -- train --resume train-out/checkpoint.bin\n  \
        cargo run --release -p lab -- train \\\n      \
        --resume train-out/checkpoint.bin --stages 3")]
    Train(TrainArgs),
    /// Write a training checkpoint's network as a compact weights file (the
    /// form that is shipped and that --weights reads).
    #[command(after_help = "Example:\n  \
        cargo run --release -p lab -- export-weights \\\n      \
        train-out/checkpoint.bin my.n2048")]
    ExportWeights(ExportArgs),
    /// The endgame tables: exact odds of building a chain's next tile,
    /// which --endgame plays by (docs/endgame.md).
    #[command(subcommand)]
    Tables(TablesCommand),
}

/// Two players and the seeds they play.
#[derive(Debug, Clone, Args)]
#[command(group = ArgGroup::new("records").args(["csv_a", "csv_b"]).multiple(true))]
pub(crate) struct CompareArgs {
    /// Player A: the options `tournament` takes for its player, in one
    /// argument (`--a '--preset ntuple --depth 1'`; an empty one is the
    /// default preset).
    #[arg(long, value_name = "OPTIONS", allow_hyphen_values = true)]
    pub(crate) a: String,
    /// Player B, as --a.
    #[arg(long, value_name = "OPTIONS", allow_hyphen_values = true)]
    pub(crate) b: String,
    /// Seeds to play (each by both players); with --sprt, the most.
    #[arg(long, default_value_t = 200, value_parser = parse_games)]
    pub(crate) games: u64,
    /// The first seed.
    #[arg(long, visible_alias = "seed", default_value_t = 1)]
    pub(crate) seed_start: u64,
    /// The tile whose reach rate the comparison is about.
    #[arg(long, default_value_t = Tile::of(32768), value_parser = parse_tile)]
    pub(crate) tile: Tile,
    /// Stop as soon as a sequential probability ratio test decides between
    /// H0: B's reach rate of --tile minus A's is D0, and H1: it is D1
    /// (`0,0.05`: "B reaches it 5 points more often").
    #[arg(long, value_name = "D0,D1", value_parser = parse_deltas)]
    pub(crate) sprt: Option<(f64, f64)>,
    /// The SPRT's false alarm rate (accepting H1 when H0 holds).
    #[arg(long, default_value_t = 0.05, requires = "sprt")]
    pub(crate) alpha: f64,
    /// The SPRT's miss rate (accepting H0 when H1 holds).
    #[arg(long, default_value_t = 0.05, requires = "sprt")]
    pub(crate) beta: f64,
    /// A's records: a CSV line as each game ends.
    #[arg(long, value_name = "FILE")]
    pub(crate) csv_a: Option<PathBuf>,
    /// B's records.
    #[arg(long, value_name = "FILE")]
    pub(crate) csv_b: Option<PathBuf>,
    /// Keep the games already in --csv-a and --csv-b (played with the same
    /// options) and play only the seeds missing from either; a last line cut
    /// short (a run killed while writing it) is dropped and its game played
    /// again.
    #[arg(long, requires = "csv_a", requires = "csv_b")]
    pub(crate) resume: bool,
    /// Write over --csv-a and --csv-b when they already hold games (without
    /// it, or --resume, such a file is refused: its games would be lost).
    #[arg(long, conflicts_with = "resume", requires = "records")]
    pub(crate) force: bool,
    /// Seeds played at once (default: the cores over the players' search
    /// threads).
    #[arg(long, value_name = "N", value_parser = parse_parallel)]
    pub(crate) parallel: Option<u64>,
    #[command(flatten)]
    pub(crate) rules: RulesArgs,
}

/// A tile from 4 to 131072, the largest a 4x4 game makes.
fn parse_tile(text: &str) -> Result<Tile, String> {
    match text.parse::<Tile>() {
        Ok(t) if (Tile::of(4)..=Tile::of(131_072)).contains(&t) => Ok(t),
        _ => Err(format!("a tile is a power of two from 4 to 131072, not {text}")),
    }
}

/// Two differences of reach rates, `D0,D1`.
fn parse_deltas(text: &str) -> Result<(f64, f64), String> {
    let (d0, d1) = text.split_once(',').ok_or_else(|| format!("expected D0,D1, not {text}"))?;
    let num = |t: &str| t.trim().parse::<f64>().map_err(|_| format!("expected D0,D1, not {text}"));
    Ok((num(d0)?, num(d1)?))
}

/// One player's options inside --a or --b.
#[derive(Debug, Parser)]
#[command(name = "player options", no_binary_name = true, disable_help_flag = true)]
pub(crate) struct PlayerOptions {
    #[command(flatten)]
    pub(crate) search: SearchArgs,
}

/// Where training plays the late game again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum RestartKind {
    /// From boards kept when a game first made 8192, 16384 or 32768.
    Pools,
    /// From the middle of each game, again and again.
    Middle,
    /// Never.
    Off,
}

/// What to do with the endgame tables.
#[derive(Debug, Clone, Subcommand)]
pub(crate) enum TablesCommand {
    /// Build (or check) every table now, and say where they are and their
    /// size. Tables already there are read and checked, damaged ones built
    /// again.
    #[command(after_help = "Example:\n  cargo run --release -p lab -- tables build")]
    Build(TablesBuildArgs),
    /// Distil compact corner tables from the full ones: play seeded games
    /// of the corner preset, keep the full tables' advice on every state
    /// they read, and write it to a file (for `tables coverage`; no preset
    /// plays by compact tables yet: docs/endgame.md says why).
    Distill(DistillArgs),
    /// How much of the full tables' play a compact table answers: play
    /// seeded games of the corner preset with the full tables and count
    /// the table moves the compact tables make too.
    Coverage(CoverageArgs),
}

/// What `tables distill` plays and writes.
#[derive(Debug, Clone, Args)]
pub(crate) struct DistillArgs {
    /// The full corner tables' folder (default: the user's cache folder).
    #[arg(long, value_name = "DIR")]
    pub(crate) tables: Option<PathBuf>,
    /// Games to play.
    #[arg(long, default_value_t = 100)]
    pub(crate) games: u64,
    /// The first game's seed.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed_start: u64,
    /// Games played at once (default: every core).
    #[arg(long)]
    pub(crate) parallel: Option<usize>,
    /// Keep the states read at least this often.
    #[arg(long, default_value_t = 1)]
    pub(crate) min_reads: u32,
    /// Also write every state read with its count (one `formation index
    /// count` line each), to distil again with other floors.
    #[arg(long, value_name = "FILE")]
    pub(crate) reads: Option<PathBuf>,
    /// Read the states from files written by --reads (several: their
    /// counts add up) instead of playing games.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["games", "seed_start", "parallel"])]
    pub(crate) from_reads: Vec<PathBuf>,
    /// Play the games with these compact tables instead of the full ones
    /// (the states read are still the full tables'): to keep the states
    /// that the compact player itself visits.
    #[arg(long, value_name = "FILE", conflicts_with = "from_reads")]
    pub(crate) play_compact: Option<PathBuf>,
    /// The compact tables' file to write (refused if it exists).
    #[arg(long, value_name = "FILE")]
    pub(crate) out: PathBuf,
}

/// What `tables coverage` plays.
#[derive(Debug, Clone, Args)]
pub(crate) struct CoverageArgs {
    /// The full corner tables' folder (default: the user's cache folder).
    #[arg(long, value_name = "DIR")]
    pub(crate) tables: Option<PathBuf>,
    /// The compact tables' file.
    #[arg(long, value_name = "FILE")]
    pub(crate) compact: PathBuf,
    /// The games are played by the corner player on the compact tables
    /// (default: on the full ones).
    #[arg(long)]
    pub(crate) play_compact: bool,
    /// Append each board where the two differ to FILE (seed, board, the
    /// full tables' formation, move and odds, the compact tables' move).
    #[arg(long, value_name = "FILE")]
    pub(crate) misses: Option<PathBuf>,
    /// Games to play.
    #[arg(long, default_value_t = 20)]
    pub(crate) games: u64,
    /// The first game's seed.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed_start: u64,
    /// Games played at once (default: every core).
    #[arg(long)]
    pub(crate) parallel: Option<usize>,
}

/// Where the tables go.
#[derive(Debug, Clone, Args)]
pub(crate) struct TablesBuildArgs {
    /// The tables' folder (default: the user's cache folder,
    /// cli-ascii-2048/endgame in it).
    #[arg(long, value_name = "DIR")]
    pub(crate) tables: Option<PathBuf>,
    /// Only the tables of at most N states (default: all of them); for the
    /// corner preset, the largest step and block of at most N states.
    #[arg(long, value_name = "N")]
    pub(crate) tables_max_states: Option<u64>,
    /// The tables of this preset: the corner preset's corner tables (6.7 GB
    /// on disk, minutes to build), corner-big's (26 GB with the big step
    /// table, about 15 minutes more), the chains' for the others.
    #[arg(long, value_name = "NAME", default_value_t = Preset::Heuristic)]
    pub(crate) preset: Preset,
}

#[derive(Debug, Clone, Args)]
#[command(group = ArgGroup::new("records").args(["csv", "json"]).multiple(true))]
pub(crate) struct TournamentArgs {
    #[command(flatten)]
    pub(crate) search: SearchArgs,
    #[command(flatten)]
    pub(crate) rules: RulesArgs,
    /// The number of games, at least 1.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 10,
        value_parser = parse_games
    )]
    pub(crate) games: u64,
    /// Game i is played from seed S + i.
    #[arg(
        long,
        value_name = "S",
        alias = "seed",
        default_value_t = 1,
        value_parser = parse_seed
    )]
    pub(crate) seed_start: u64,
    /// Games played at once (default: the cores left over by the search's
    /// threads).
    #[arg(
        long,
        value_name = "N",
        value_parser = parse_parallel,
    )]
    pub(crate) parallel: Option<u64>,
    /// Stop each game after this many moves.
    #[arg(long, value_name = "N")]
    pub(crate) max_moves: Option<u64>,
    /// Write the per-game records as CSV, a line as each game ends:
    /// seed,score,max_tile,moves,millis,median_decision_micros,p99_decision_micros.
    #[arg(long, value_name = "FILE")]
    pub(crate) csv: Option<PathBuf>,
    /// Keep the games already in the --csv file and play only the seeds it
    /// lacks (a long run that was stopped goes on where it was); a last line
    /// cut short (a run killed while writing it) is dropped and its game
    /// played again. The --json file is written again with the games of the
    /// seeds asked for: one that holds other games is refused.
    #[arg(long, requires = "csv")]
    pub(crate) resume: bool,
    /// Write over the --csv and --json files when they already hold games
    /// (without it, or --resume, such a file is refused: its games would be
    /// lost).
    #[arg(long, conflicts_with = "resume", requires = "records")]
    pub(crate) force: bool,
    /// Write the per-game records as a JSON array.
    #[arg(long, value_name = "FILE")]
    pub(crate) json: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub(crate) struct TuneArgs {
    /// The search whose weights are tuned (an expectimax preset; default
    /// fast), as in a tournament.
    #[command(flatten)]
    pub(crate) settings: SearchSettings,
    /// Games per candidate, at least 2 (the comparison needs a spread).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 200,
        value_parser = parse_tuning_games,
    )]
    pub(crate) games: u64,
    /// Candidate games are played from seeds S to S + N - 1, away from the
    /// seeds of published results so that tuning cannot fit them.
    #[arg(
        long,
        value_name = "S",
        default_value_t = 1_000_001,
        value_parser = parse_seed
    )]
    pub(crate) seed_start: u64,
    /// Passes over the weights; a pass that keeps no change ends the search.
    #[arg(
        long,
        value_name = "R",
        default_value_t = 1,
        value_parser = parse_rounds,
    )]
    pub(crate) rounds: u32,
    /// Each weight is tried at ×(1+F) and ×(1-F), the two powers at ±2F;
    /// strictly between 0 and 1.
    #[arg(
        long,
        value_name = "F",
        default_value_t = 0.25,
        value_parser = parse_step,
    )]
    pub(crate) step: f32,
    /// Games played at once (default: the cores left over by the search's
    /// threads).
    #[arg(
        long,
        value_name = "N",
        value_parser = parse_parallel,
    )]
    pub(crate) parallel: Option<u64>,
}

#[derive(Debug, Clone, Args)]
pub(crate) struct AgreementArgs {
    /// The setting under test.
    #[command(flatten)]
    pub(crate) settings: SearchSettings,
    /// The setting it is compared with (default: its --preset as shipped).
    #[arg(long, value_name = "PRESET")]
    pub(crate) baseline: Option<Preset>,
    /// The reference search, whose choices count as right.
    #[arg(long, value_name = "PRESET", default_value_t = Preset::HeuristicMax)]
    pub(crate) reference: Preset,
    /// The reference's depth bonus (default 2: two layers deeper than the
    /// heuristic-max preset).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 2,
        value_parser = parse_reference_bonus
    )]
    pub(crate) reference_bonus: i32,
    /// Positions come from this many games of the fast preset.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 3,
        value_parser = parse_games,
    )]
    pub(crate) games: u64,
    /// Game i is played from seed S + i.
    #[arg(
        long,
        value_name = "S",
        default_value_t = 1,
        value_parser = parse_seed
    )]
    pub(crate) seed_start: u64,
    /// Every Nth board of each game, from move 300 on.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 40,
        value_parser = parse_games,
    )]
    pub(crate) every: u64,
}

#[derive(Debug, Clone, Args)]
pub(crate) struct TrainArgs {
    /// The folder for the checkpoint (checkpoint.bin) and the learning curve
    /// (curve.csv). Keep it out of git: a trained network's checkpoint takes
    /// hundreds of megabytes per stage.
    #[arg(long, value_name = "DIR", default_value = "train-out")]
    pub(crate) out: PathBuf,
    /// Continue from this checkpoint (its weights, learning-rate state and
    /// counters), or from a weights file such as the shipped one (its
    /// weights and episode count; the learning-rate state starts afresh, so
    /// lower --alpha, say to 0.05: at 1 the first updates wreck a trained
    /// network).
    #[arg(long, value_name = "FILE")]
    pub(crate) resume: Option<PathBuf>,
    /// Start afresh in --out even when it holds another run's checkpoint
    /// or curve, and write over them (without it, such a folder is
    /// refused unless --resume names its checkpoint).
    #[arg(long)]
    pub(crate) force: bool,
    /// Episode i is played from a stream seeded by this and i: one thread
    /// gives the same network bit for bit.
    #[arg(long, default_value_t = 1, value_parser = parse_seed)]
    pub(crate) seed: u64,
    /// Threads training the one network.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 2,
        value_parser = parse_train_threads,
    )]
    pub(crate) threads: u64,
    /// The learning rate per board (with TC rates, their meta rate).
    #[arg(long, value_name = "A", default_value_t = 1.0)]
    pub(crate) alpha: f32,
    /// A fixed learning rate instead of temporal-coherence rates.
    #[arg(long)]
    pub(crate) no_tc: bool,
    /// The trace decay of the backward TD(lambda) update at each game's
    /// end: 0 learns from the next afterstate's value alone (TD(0)).
    #[arg(long, value_name = "L", default_value_t = 0.5, value_parser = parse_unit_f32)]
    pub(crate) lambda: f32,
    /// Where the late game is played again: `pools` starts --restart-share
    /// of the episodes from kept boards that first made 8192, 16384 or
    /// 32768; `middle` replays each game from its middle until a game is
    /// short; `off` plays every episode from the empty board.
    #[arg(long, value_enum, default_value_t = RestartKind::Middle)]
    pub(crate) restarts: RestartKind,
    /// With --restarts pools: the share of episodes started from a kept
    /// board.
    #[arg(long, value_name = "SHARE", default_value_t = 0.5, value_parser = parse_unit_f64)]
    pub(crate) restart_share: f64,
    /// Every weight's starting value (ignored with --resume).
    #[arg(
        long,
        value_name = "W",
        default_value_t = 0.0,
        value_parser = parse_finite
    )]
    pub(crate) initial: f32,
    /// The network's stages: 1; 2 (a second set of weights for boards
    /// that hold a tile of 16384 or more); or 3 (a third for boards that
    /// hold such a tile and another of 8192 or more). Default: the resumed
    /// network's own count, 1 for a new network. With --resume, a larger
    /// count promotes the network: each new stage's weights (and
    /// learning-rate state) start as a copy of its last stage's, so it
    /// plays exactly as before until training tells the stages apart. A
    /// network cannot go back to fewer stages.
    #[arg(long, value_name = "N", value_parser = parse_stages)]
    pub(crate) stages: Option<u64>,
    /// Stop after this many episodes in all (counting resumed ones).
    #[arg(long, value_name = "N")]
    pub(crate) episodes: Option<u64>,
    /// Stop after this many minutes.
    #[arg(long, value_name = "M", value_parser = parse_minutes)]
    pub(crate) minutes: Option<f64>,
    /// Minutes between checkpoints.
    #[arg(
        long,
        value_name = "M",
        default_value_t = 5.0,
        value_parser = parse_minutes
    )]
    pub(crate) checkpoint_minutes: f64,
    /// Episodes per learning-curve row.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub(crate) curve_every: u64,
}

#[derive(Debug, Clone, Args)]
pub(crate) struct ExportArgs {
    /// The checkpoint `train` wrote.
    #[arg(value_name = "CHECKPOINT")]
    pub(crate) checkpoint: PathBuf,
    /// The weights file to write.
    #[arg(value_name = "OUT")]
    pub(crate) out: PathBuf,
    /// Write every weight as a whole multiple of this many points: a power
    /// of two from 1/256 to 16, as a number or a fraction (16, 0.5, 1/4). A
    /// weight is then off by at most half a step, against board values of
    /// 100,000 and more; a coarser step makes a smaller file.
    #[arg(long, value_name = "POINTS", default_value_t = ntuple::Step::SHIPPED)]
    pub(crate) step: ntuple::Step,
    /// Write over OUT when it exists (never over the checkpoint itself).
    #[arg(long)]
    pub(crate) force: bool,
}

fn parse_tuning_games(text: &str) -> Result<u64, String> {
    whole_number(text, 2..=u64::MAX, "")
}

/// Games played at once.
fn parse_parallel(text: &str) -> Result<u64, String> {
    whole_number(text, 1..=1024, "")
}

fn parse_rounds(text: &str) -> Result<u32, String> {
    whole_number(text, 1..=100, "").map(|n| n as u32)
}

/// Training threads (the trainer's bound; no warning above the cores,
/// which training shares with nothing else).
fn parse_train_threads(text: &str) -> Result<u64, String> {
    whole_number(text, 1..=256, "")
}

fn parse_stages(text: &str) -> Result<u64, String> {
    whole_number(text, 1..=3, "")
}

/// Parses the command line, then refuses options that the command would
/// silently ignore (a usage error, like clap's own, so exit code 2).
/// The reference's depth bonus, in the depth bonus's range.
fn parse_reference_bonus(text: &str) -> Result<i32, String> {
    let bonus = Setting::DepthBonus.parse(text)?;
    Ok(bonus.whole().map_or(0, |b| b as i32))
}

pub(crate) fn parse() -> Result<Cli, clap::Error> {
    let matches = command().try_get_matches()?;
    let cli = Cli::from_arg_matches(&matches)?;
    let leaf = matches.subcommand().map_or(&matches, |(_, sub)| sub);
    let unused = match &cli.command {
        Command::Train(a) => unused_train_option(a, given(leaf, "restart_share")),
        Command::Tournament(a) => seeds_past_the_last(a.seed_start, a.games).or_else(|| {
            unused_search_option(Some(a.search.player), &a.search.settings, given(leaf, "preset"))
        }),
        Command::Compare(a) => seeds_past_the_last(a.seed_start, a.games),
        Command::Tune(a) => seeds_past_the_last(a.seed_start, a.games)
            .or_else(|| unused_search_option(None, &a.settings, given(leaf, "preset"))),
        Command::Agreement(a) if a.settings.overrides.given(Setting::Threads) => Some(
            "--threads does not apply to agreement: every setting decides on one thread, so \
             that its work counts are exact"
                .to_owned(),
        ),
        Command::Agreement(a) => seeds_past_the_last(a.seed_start, a.games)
            .or_else(|| unused_search_option(None, &a.settings, given(leaf, "preset"))),
        Command::ExportWeights(_) | Command::Tables(_) => None,
    };
    match unused {
        Some(message) => Err(command().error(ErrorKind::ArgumentConflict, message)),
        None => Ok(cli),
    }
}

/// The command line, every option that takes a value reading a negative
/// number as that value (see [`negative_numbers_are_values`]).
pub(crate) fn command() -> clap::Command {
    negative_numbers_are_values(Cli::command())
}

/// `train`'s option that does not apply, as a message: a restart share
/// with restarts that draw from no pool.
fn unused_train_option(args: &TrainArgs, share_given: bool) -> Option<String> {
    (share_given && args.restarts != RestartKind::Pools).then(|| {
        format!(
            "--restart-share applies to --restarts pools only, not to --restarts {}",
            args.restarts.to_possible_value().map_or("?".to_owned(), |v| v.get_name().to_owned())
        )
    })
}

/// A span of minutes for the trainer's clocks: above 0 and at most a million
/// (about two years), so that it is a valid `Duration` (a negative, NaN or
/// huge one would panic there).
fn parse_minutes(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(m) if m > 0.0 && m <= 1e6 => Ok(m),
        _ => Err("expected minutes, above 0 and at most 1000000".to_owned()),
    }
}

/// Any finite number (not NaN or infinite).
fn parse_finite(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err("expected a finite number".to_owned()),
    }
}

/// A number between 0 and 1.
fn parse_unit_f64(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err("expected a number between 0 and 1".to_owned()),
    }
}

/// A number between 0 and 1.
fn parse_unit_f32(text: &str) -> Result<f32, String> {
    parse_unit_f64(text).map(|x| x as f32)
}

/// A tuning step, strictly between 0 and 1.
fn parse_step(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(f) if f > 0.0 && f < 1.0 => Ok(f),
        _ => Err("expected a number strictly between 0 and 1".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lab_commands_are_those_the_game_forwards() {
        let cmd = command();
        let mut commands: Vec<&str> =
            cmd.get_subcommands().map(clap::Command::get_name).filter(|n| *n != "help").collect();
        commands.sort_unstable();
        let mut forwarded = cli_common::LAB_COMMANDS.to_vec();
        forwarded.sort_unstable();
        assert_eq!(commands, forwarded);
    }

    /// The lab's options and the commands that take them, as the game
    /// names them when given one: all but the search settings' options,
    /// which the game's own commands take too.
    fn lab_options() -> Vec<(String, Vec<String>)> {
        let mut options: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        let mut commands: Vec<(String, clap::Command)> =
            command().get_subcommands().map(|c| (c.get_name().to_owned(), c.clone())).collect();
        while let Some((name, cmd)) = commands.pop() {
            for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
                commands.push((format!("{name} {}", sub.get_name()), sub.clone()));
            }
            for long in cmd.get_arguments().filter_map(clap::Arg::get_long) {
                let setting = Setting::ALL.iter().any(|s| s.option()[2..] == *long);
                if long != "help" && !setting {
                    options.entry(long.to_owned()).or_default().push(name.clone());
                }
            }
        }
        let order = |c: &String| {
            let top = c.split(' ').next().unwrap_or_default();
            (cli_common::LAB_COMMANDS.iter().position(|n| *n == top), c.clone())
        };
        options
            .into_iter()
            .map(|(option, mut cmds)| {
                cmds.sort_by_key(order);
                (option, cmds)
            })
            .collect()
    }

    #[test]
    fn the_game_knows_the_lab_options() {
        let derived = lab_options();
        let listed: Vec<(String, Vec<String>)> = cli_common::LAB_OPTIONS
            .iter()
            .map(|(o, c)| ((*o).to_owned(), c.iter().map(|c| (*c).to_owned()).collect()))
            .collect();
        let table: String =
            derived.iter().map(|(o, c)| format!("    ({o:?}, &{c:?}),\n")).collect();
        assert_eq!(listed, derived, "cli_common::LAB_OPTIONS should be:\n{table}");
    }

    #[test]
    fn numbers_say_their_range() {
        assert_eq!(parse_step("0.25"), Ok(0.25));
        assert!(parse_step("1").is_err() && parse_step("0").is_err());
        assert_eq!(parse_tuning_games("1"), Err("must be at least 2".into()));
        assert_eq!(parse_tile("8192"), Ok(Tile::of(8192)));
        assert!(parse_tile("3").is_err() && parse_tile("262144").is_err());
    }
}

//! From what a user asked for to a solver: a preset, the settings given
//! over it, the learned network and the endgame tables.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use game_core::{Rules, TurnRule};
use solver_expectimax::endgame::{self, Endgame, RulesMismatch, Shape, TableStatus};
use solver_expectimax::{Algorithm, ConfigError, Depth, Preset, SearchConfig, Solver};

use crate::network::NetworkEvaluator;

/// A search setting a user may give over a preset's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Setting {
    /// A fixed search depth.
    Depth,
    /// A time budget per move, in milliseconds.
    TimeMs,
    /// Search threads.
    Threads,
    /// The probability below which the search stops expanding spawns.
    ProbCutoff,
    /// The layers an adaptive depth adds or removes.
    DepthBonus,
    /// The heuristic's weight beside the learned network.
    Heuristic,
    /// The learned network's weights file.
    Weights,
}

impl Setting {
    /// The setting's name in Rust and Python (`depth_bonus`).
    pub const fn name(self) -> &'static str {
        match self {
            Setting::Depth => "depth",
            Setting::TimeMs => "time_ms",
            Setting::Threads => "threads",
            Setting::ProbCutoff => "prob_cutoff",
            Setting::DepthBonus => "depth_bonus",
            Setting::Heuristic => "heuristic",
            Setting::Weights => "weights",
        }
    }
}

/// How a frontend names settings and presets in its messages: a command
/// line says `--depth-bonus` and `--preset fast`, Python `depth_bonus=`
/// and `the fast preset`.
pub trait Spelling {
    /// The setting as the user wrote it.
    fn setting(&self, setting: Setting) -> String;
    /// The preset as the user chose it.
    fn preset(&self, preset: Preset) -> String;
}

/// The library's own names: `depth_bonus`, `the fast preset`.
#[derive(Debug, Clone, Copy)]
struct RustNames;

impl Spelling for RustNames {
    fn setting(&self, setting: Setting) -> String {
        setting.name().to_owned()
    }

    fn preset(&self, preset: Preset) -> String {
        format!("the {preset} preset")
    }
}

/// The settings given over a preset's; `None` keeps the preset's.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Overrides {
    /// A fixed depth in place of the preset's.
    pub depth: Option<u32>,
    /// A time budget per move, in milliseconds (at least 1).
    pub time_ms: Option<u64>,
    /// Search threads.
    pub threads: Option<usize>,
    /// The spawn probability cut-off (not for the tutorial's search).
    pub prob_cutoff: Option<f32>,
    /// The layers an adaptive depth adds or removes (presets of adaptive
    /// depth, without `depth`).
    pub depth_bonus: Option<i32>,
    /// The heuristic's weight beside the network (learned presets).
    pub heuristic: Option<f32>,
}

/// Why a solver cannot be made of a spec.
#[derive(Debug)]
pub enum SpecError {
    /// A setting the preset has no use for.
    NotApplicable {
        /// The setting given.
        setting: Setting,
        /// The preset.
        preset: Preset,
        /// Why it does not apply.
        reason: Reason,
    },
    /// A time budget of 0 ms.
    ZeroTime,
    /// A learned preset on a board other than 4x4 (its size).
    LearnedSize(usize),
    /// Endgame tables under rules they were not solved for.
    EndgameRules(RulesMismatch),
    /// The learned network cannot be loaded.
    Network(ntuple::FileError),
    /// The settings do not make a solver (a depth or thread count out of
    /// range, a negative heuristic weight).
    Config(ConfigError),
    /// A preset that plays by endgame tables of its own on 4x4 boards (the
    /// corner preset) was given none, or other ones
    /// ([`SolverSpec::lacks_tables`]).
    MissingTables(Preset),
}

/// Why a setting does not apply to a preset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// The tutorial's search expands every spawn: it has no cut-off.
    SearchesEverySpawn,
    /// The depth is fixed, by the preset or by the depth given.
    FixedDepth {
        /// Whether a fixed depth was given (else the preset's is fixed).
        given: bool,
    },
    /// The preset searches with the heuristic alone: no network.
    NoNetwork,
}

impl SpecError {
    /// The message, with settings and presets named as `spelling` names
    /// them.
    pub fn message(&self, spelling: &dyn Spelling) -> String {
        match self {
            SpecError::NotApplicable { setting, preset, reason } => {
                let (s, p) = (spelling.setting(*setting), spelling.preset(*preset));
                match reason {
                    Reason::SearchesEverySpawn => {
                        format!("{s} does not apply to {p}, which searches every spawn")
                    }
                    Reason::FixedDepth { given: true } => format!(
                        "{s} does not apply with {}, a fixed depth",
                        spelling.setting(Setting::Depth)
                    ),
                    Reason::FixedDepth { given: false } => format!(
                        "{s} does not apply to {p}, whose depth is fixed (the fast, heuristic, \
                         heuristic-max and ntuple-deep presets have an adaptive one)"
                    ),
                    Reason::NoNetwork => format!(
                        "{s} applies to the ntuple presets only, not to {p}, which uses no \
                         network: choose {} or {}",
                        spelling.preset(Preset::Ntuple),
                        spelling.preset(Preset::NtupleDeep)
                    ),
                }
            }
            SpecError::ZeroTime => {
                format!("{} must be at least 1", spelling.setting(Setting::TimeMs))
            }
            SpecError::LearnedSize(n) => {
                format!("the ntuple presets play 4x4 boards only, not {n}x{n}")
            }
            SpecError::EndgameRules(why) => why.to_string(),
            SpecError::Network(err) => format!("cannot load the learned network: {err}"),
            SpecError::Config(err) => format!("invalid search settings: {err}"),
            SpecError::MissingTables(preset) => {
                format!(
                    "{} plays by its own endgame tables, which it was not given",
                    spelling.preset(*preset)
                )
            }
        }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(&RustNames))
    }
}

impl std::error::Error for SpecError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SpecError::Network(err) => Some(err),
            SpecError::Config(err) => Some(err),
            SpecError::EndgameRules(err) => Some(err),
            _ => None,
        }
    }
}

/// What a solver is made of: a preset, the settings given over it, the
/// weights of a learned preset's network (`None`: the shipped file,
/// wherever [`ntuple::find_shipped_weights`] finds it), the endgame tables
/// it plays by, and what the frontend that plays it asks of every search
/// (a smaller transposition table, a time budget on big boards).
#[derive(Clone)]
pub struct SolverSpec {
    preset: Preset,
    overrides: Overrides,
    weights: Option<PathBuf>,
    endgame: Option<Arc<Endgame>>,
    /// The most bytes of transposition table (`None`: the preset's).
    table_cap: Option<usize>,
    /// The time per move on boards above 4x4 unless a depth or a time is
    /// given.
    big_board_budget: Option<Duration>,
}

impl fmt::Debug for SolverSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The tables have no short Debug form: whether there are some says enough.
        f.debug_struct("SolverSpec")
            .field("preset", &self.preset)
            .field("overrides", &self.overrides)
            .field("weights", &self.weights)
            .field("endgame", &self.endgame.is_some())
            .field("table_cap", &self.table_cap)
            .field("big_board_budget", &self.big_board_budget)
            .finish()
    }
}

impl SolverSpec {
    /// `preset` as it is: its settings, the shipped network if it is
    /// learned, no tables.
    pub fn new(preset: Preset) -> SolverSpec {
        SolverSpec {
            preset,
            overrides: Overrides::default(),
            weights: None,
            endgame: None,
            table_cap: None,
            big_board_budget: None,
        }
    }

    /// With `overrides` over the preset's settings.
    #[must_use]
    pub fn with_overrides(mut self, overrides: Overrides) -> SolverSpec {
        self.overrides = overrides;
        self
    }

    /// With the network in `path` (learned presets only).
    #[must_use]
    pub fn with_weights(mut self, path: Option<PathBuf>) -> SolverSpec {
        self.weights = path;
        self
    }

    /// Playing by `tables` where they apply.
    #[must_use]
    pub fn with_endgame(mut self, tables: Option<Arc<Endgame>>) -> SolverSpec {
        self.endgame = tables;
        self
    }

    /// With a transposition table of at most `bytes` (the presets' go up to
    /// 1 GiB, sized for one program playing alone: a server that keeps a
    /// solver per preset asks for less).
    #[must_use]
    pub fn with_table_cap(mut self, bytes: usize) -> SolverSpec {
        self.table_cap = Some(bytes);
        self
    }

    /// With a time budget of `budget` per move on boards above 4x4, unless
    /// a depth or a time is given (the tutorial's search, which has no
    /// budget, then searches one layer deep). Boards from 5x5 up have many
    /// more spawns per chance node, so the presets' depths take seconds per
    /// move there (docs/cli.md gives a measured figure): a program that
    /// shows the game as it plays keeps it fluid so.
    #[must_use]
    pub fn with_big_board_budget(mut self, budget: Duration) -> SolverSpec {
        self.big_board_budget = Some(budget);
        self
    }

    /// The preset.
    pub fn preset(&self) -> Preset {
        self.preset
    }

    /// The settings given over the preset's.
    pub fn overrides(&self) -> &Overrides {
        &self.overrides
    }

    /// The weights file given, if any.
    pub fn weights(&self) -> Option<&Path> {
        self.weights.as_deref()
    }

    /// The weights file a learned search of this spec loads: the one
    /// given, else the shipped one ([`crate::weights_path`]).
    pub fn weights_path(&self) -> PathBuf {
        crate::weights_path(self.weights.as_deref())
    }

    /// The endgame tables, if any.
    pub fn endgame(&self) -> Option<&Arc<Endgame>> {
        self.endgame.as_ref()
    }

    /// Whether the preset searches with the learned network.
    pub fn is_learned(&self) -> bool {
        self.preset.is_learned()
    }

    /// Whether the preset plays by endgame tables of its own (the corner
    /// preset's corner tables), which it must be given
    /// ([`SolverSpec::with_endgame`]) to play 4x4 boards: the one place
    /// that says which presets do. Every other preset plays by tables only
    /// when it is given some (`--endgame`).
    pub fn needs_tables(&self) -> bool {
        self.preset.uses_corner_tables()
    }

    /// Whether the preset needs tables of its own ([`SolverSpec::needs_tables`])
    /// and was given none of them: no tables, or only the chains'; for
    /// corner-big, no big (layered) step table, without which it would play
    /// as corner does under its name.
    pub fn lacks_tables(&self) -> bool {
        let own = |tables: &Arc<Endgame>| {
            let mut held = tables.formations();
            if self.preset == Preset::CornerBig {
                held.any(|f| f.shape() == Shape::Step && f.is_layered())
            } else {
                held.any(|f| matches!(f.shape(), Shape::Step | Shape::Block))
            }
        };
        self.needs_tables() && !self.endgame.as_ref().is_some_and(own)
    }

    /// The first setting given that the preset has no use for.
    ///
    /// # Errors
    /// [`SpecError::NotApplicable`] or [`SpecError::ZeroTime`]; the values'
    /// ranges are the solver's to check ([`SolverSpec::build`]).
    pub fn validate(&self) -> Result<(), SpecError> {
        let o = &self.overrides;
        let preset = self.preset.config();
        let not = |setting, reason| {
            Err(SpecError::NotApplicable { setting, preset: self.preset, reason })
        };
        if o.time_ms == Some(0) {
            return Err(SpecError::ZeroTime);
        }
        if o.prob_cutoff.is_some() && preset.algorithm.prob_cutoff().is_none() {
            return not(Setting::ProbCutoff, Reason::SearchesEverySpawn);
        }
        if o.depth_bonus.is_some() {
            if o.depth.is_some() {
                return not(Setting::DepthBonus, Reason::FixedDepth { given: true });
            }
            if matches!(preset.depth, Depth::Fixed(_) | Depth::AtLeast { .. }) {
                return not(Setting::DepthBonus, Reason::FixedDepth { given: false });
            }
        }
        if !self.is_learned() {
            if o.heuristic.is_some() {
                return not(Setting::Heuristic, Reason::NoNetwork);
            }
            if self.weights.is_some() {
                return not(Setting::Weights, Reason::NoNetwork);
            }
        }
        Ok(())
    }

    /// The search settings on `size` x `size` boards: the preset's, then
    /// the overrides, then the frontend's (the table cap, the budget on big
    /// boards).
    ///
    /// # Errors
    /// As [`SolverSpec::validate`].
    pub fn config(&self, size: usize) -> Result<SearchConfig, SpecError> {
        self.validate()?;
        let o = &self.overrides;
        let mut config = self.preset.config();
        if let Some(depth) = o.depth {
            config.depth = Depth::Fixed(depth);
        }
        if let Some(ms) = o.time_ms {
            config.time_budget = Some(Duration::from_millis(ms));
        }
        if let Some(threads) = o.threads {
            config.threads = threads;
        }
        if let (Some(p), Some(cutoff)) = (o.prob_cutoff, config.algorithm.prob_cutoff_mut()) {
            *cutoff = p;
        }
        if let (Some(h), Algorithm::Learned { heuristic, .. }) =
            (o.heuristic, &mut config.algorithm)
        {
            *heuristic = h;
        }
        if let (Some(b), Depth::Adaptive { bonus, .. } | Depth::Crowded { bonus, .. }) =
            (o.depth_bonus, &mut config.depth)
        {
            *bonus = b;
        }
        if let Some(cap) = self.table_cap {
            config.table_bytes = config.table_bytes.min(cap);
        }
        if let Some(budget) = self.big_board_budget
            && size > 4
            && o.depth.is_none()
            && o.time_ms.is_none()
        {
            match config.algorithm {
                Algorithm::Tutorial => config.depth = Depth::Fixed(1),
                Algorithm::Expectimax { .. }
                | Algorithm::Learned { .. }
                | Algorithm::Corner { .. } => {
                    config.time_budget = Some(budget);
                }
            }
        }
        Ok(config)
    }

    /// The search threads of a solver of this spec.
    ///
    /// # Errors
    /// As [`SolverSpec::validate`].
    pub fn threads(&self) -> Result<usize, SpecError> {
        self.config(4).map(|config| config.threads)
    }

    /// The solver for games on `size` x `size` boards, with the network of
    /// a learned preset (shared: [`crate::network`]) and the tables.
    ///
    /// # Errors
    /// As [`SolverSpec::validate`]; [`SpecError::LearnedSize`] for a
    /// learned preset off 4x4, [`SpecError::MissingTables`] for a preset
    /// that plays by its own tables on 4x4 without them
    /// ([`SolverSpec::lacks_tables`]; on other sizes, where no table
    /// applies, it searches alone), [`SpecError::Network`] when the weights
    /// do not load, [`SpecError::Config`] for settings out of range.
    pub fn build(&self, size: usize) -> Result<Solver, SpecError> {
        let config = self.config(size)?;
        if size == 4 && self.lacks_tables() {
            return Err(SpecError::MissingTables(self.preset));
        }
        let solver = if let Algorithm::Learned { .. } = config.algorithm {
            learned_size(size)?;
            let net = crate::network(self.weights.as_deref()).map_err(SpecError::Network)?;
            Solver::with_evaluator(config, Arc::new(NetworkEvaluator(net)))
        } else {
            Solver::new(config)
        }
        .map_err(SpecError::Config)?;
        Ok(match &self.endgame {
            Some(tables) => solver.with_endgame(Arc::clone(tables)),
            None => solver,
        })
    }

    /// Whether the preset plays boards of `size` (the learned ones play
    /// 4x4 only): what [`SolverSpec::build`] checks, for a frontend to
    /// check before it loads anything.
    ///
    /// # Errors
    /// [`SpecError::LearnedSize`].
    pub fn check_size(&self, size: usize) -> Result<(), SpecError> {
        if self.is_learned() { learned_size(size) } else { Ok(()) }
    }

    /// The settings that decide this spec's games, as `cli-ascii`'s
    /// options give them (`--preset ntuple --depth 2 --weights PATH
    /// (checksum ...)`): a records file names them in its first line, and
    /// a resumed run must give the same. `tables` is the count of endgame
    /// tables it plays by, if any: the tables are a pure function of their
    /// formations, so their count names them.
    ///
    /// The thread count is named only with a time budget (without one,
    /// decisions do not depend on it), and a network by its file's path and
    /// the checksum its header keeps of its weights: a network retrained
    /// into the same file is another network.
    pub fn settings_line(&self, tables: Option<usize>) -> String {
        let o = &self.overrides;
        let mut line = format!("--preset {}", self.preset);
        let threads = o.threads.filter(|_| o.time_ms.is_some());
        let options = [
            ("--depth", o.depth.map(|d| d.to_string())),
            ("--time-ms", o.time_ms.map(|t| t.to_string())),
            ("--threads", threads.map(|t| t.to_string())),
            ("--prob-cutoff", o.prob_cutoff.map(|p| p.to_string())),
            ("--depth-bonus", o.depth_bonus.map(|d| d.to_string())),
            ("--heuristic", o.heuristic.map(|h| h.to_string())),
        ];
        for (name, value) in options {
            if let Some(value) = value {
                line.push_str(&format!(" {name} {value}"));
            }
        }
        if self.is_learned() {
            let path = self.weights_path();
            let path = std::fs::canonicalize(&path).unwrap_or(path);
            // 0 for a file that is not a weights file: the run itself
            // then fails to load it, with the reason.
            let sum = ntuple::weights_checksum(&path).unwrap_or(0);
            line.push_str(&format!(" --weights {} (checksum {sum:016x})", path.display()));
        }
        if let Some(n) = tables {
            line.push_str(&format!(" --endgame ({n} tables)"));
        }
        line
    }

    /// Whether endgame tables may play games of `size` x `size` under
    /// `rules`.
    ///
    /// # Errors
    /// [`SpecError::EndgameRules`] with what differs from the games the
    /// tables were solved for.
    pub fn check_endgame_rules(size: usize, rules: &Rules) -> Result<(), SpecError> {
        endgame::check_rules(size, rules).map_err(SpecError::EndgameRules)
    }
}

/// The games' part of a records file's settings line (after
/// [`SolverSpec::settings_line`] or a random player's `--player random`):
/// the board's `size` and the rules, ` --size 4 --four-probability 0.1`,
/// then `--tutorial-rules` and `--max-moves N` where they apply.
pub fn rules_line(size: usize, rules: &Rules, max_moves: Option<u64>) -> String {
    let mut line = format!(" --size {size} --four-probability {}", rules.four_probability());
    if rules.turn_rule() == TurnRule::Tutorial {
        line.push_str(" --tutorial-rules");
    }
    if let Some(max) = max_moves {
        line.push_str(&format!(" --max-moves {max}"));
    }
    line
}

/// Whether two settings lines ([`SolverSpec::settings_line`] and
/// [`rules_line`], as a records file keeps them) name the same games: the
/// same words, but for a preset's old name (`default` is `heuristic`, as
/// [`Preset::ALIASES`] reads it) and a network's path. The network is the
/// one its checksum names wherever it lies (another virtual environment,
/// another machine): the path only says where the run found it.
///
/// ```
/// let ours = "--preset heuristic --size 4 --four-probability 0.1";
/// assert!(engine::same_settings("--preset default --size 4 --four-probability 0.1", ours));
/// let here = "--preset ntuple --weights /a/4x6.n2048 (checksum 00000000000000ff) --size 4";
/// let there = "--preset ntuple --weights /b c/4x6.n2048 (checksum 00000000000000ff) --size 4";
/// assert!(engine::same_settings(here, there));
/// assert!(!engine::same_settings(here, &there.replace("ff)", "fe)")));
/// ```
pub fn same_settings(a: &str, b: &str) -> bool {
    settings_words(a) == settings_words(b)
}

/// A settings line's words, the network's path left out and a preset by
/// its name.
fn settings_words(line: &str) -> Vec<String> {
    const WEIGHTS: &str = "--weights ";
    const CHECKSUM: &str = " (checksum ";
    let mut line = line.to_owned();
    // The path may hold spaces: all from the option to its checksum goes.
    if let Some(at) = line.find(WEIGHTS)
        && let Some(end) = line[at..].find(CHECKSUM)
    {
        line.replace_range(at + WEIGHTS.len()..at + end + 1, "");
    }
    let mut words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
    for i in 1..words.len() {
        if words[i - 1] == "--preset"
            && let Ok(preset) = words[i].parse::<Preset>()
        {
            words[i] = preset.name().to_owned();
        }
    }
    words
}

/// The learned network's board size: 4x4 only.
fn learned_size(size: usize) -> Result<(), SpecError> {
    if size == 4 { Ok(()) } else { Err(SpecError::LearnedSize(size)) }
}

/// The fixed default: the preset played when none is named where a run
/// must mean the same on every machine (the lab's tournaments, whose
/// records name it; `py2048.decide`): the strongest that needs nothing
/// built first. The learned network searched a layer deeper on crowded
/// boards reaches 32768 about twice as often as the heuristic, in a small
/// fraction of its time per move (docs/results.md). The game's frontends
/// play [`strongest_preset`] instead, which follows the tables the machine
/// has.
pub const DEFAULT_PRESET: Preset = Preset::NtupleDeep;

/// The fixed default on `size` x `size` boards: [`DEFAULT_PRESET`] where
/// it plays, else the heuristic (the network and the tables play 4x4
/// boards only).
pub fn default_preset(size: usize) -> Preset {
    let plays = SolverSpec::new(DEFAULT_PRESET).check_size(size).is_ok()
        && (size == 4 || !DEFAULT_PRESET.uses_corner_tables());
    if plays { DEFAULT_PRESET } else { Preset::Heuristic }
}

/// States the table generator solves per second on a small machine, to
/// tell a user the minutes a build takes before it starts: the corner
/// tables' build measured in docs/endgame.md, rounded down.
const BUILD_STATES_PER_SECOND: u64 = 10_000_000;

/// The time `formations`' tables take to build, about.
pub fn build_time(formations: &[endgame::Formation]) -> Duration {
    let states: u64 = formations.iter().map(|f| f.states()).sum();
    Duration::from_secs(states.div_ceil(BUILD_STATES_PER_SECOND))
}

/// The strongest player the machine has: the preset played when none is
/// named by the game's frontends (`watch`, `play`'s hints, `analyze`, the
/// web page), and why ([`strongest_preset`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefaultChoice {
    /// The preset.
    pub preset: Preset,
    /// Why it, and not a stronger one.
    pub why: Why,
}

impl fmt::Display for DefaultChoice {
    /// `corner: its tables are built`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.preset, self.why)
    }
}

/// Why [`strongest_preset`] chose its preset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// The corner tables are in the folder, checked.
    TablesBuilt,
    /// Some corner table is missing or damaged: the build that makes
    /// `corner` the default, and what it costs.
    TablesMissing(TablesBuildCost),
    /// The corner tables are there but not checked since they were
    /// written: opening them would read them all (`lab tables build`
    /// checks and stamps them).
    TablesUnchecked(TablesBuildCost),
    /// The system has no cache folder and none was named.
    NoTablesFolder,
    /// The board is not 4x4, which the network and the tables play only.
    BoardSize(usize),
}

/// What building the corner tables costs, and the command that does it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TablesBuildCost {
    /// The bytes of their files.
    pub bytes: u64,
    /// About how long the build takes on a small machine.
    pub time: Duration,
    /// The lab's command line that builds them (`lab tables build
    /// --preset corner`, with the folder and the cap given).
    pub command: String,
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::TablesBuilt => f.write_str("its tables are built"),
            Why::TablesMissing(cost) => write!(
                f,
                "the corner tables are not built ({}, {}, {})",
                cost.command,
                endgame::size_text(cost.bytes),
                crate::build::duration_text(cost.time)
            ),
            Why::TablesUnchecked(cost) => write!(
                f,
                "the corner tables are not checked since they were written ({} checks them)",
                cost.command
            ),
            Why::NoTablesFolder => {
                f.write_str("this system has no cache folder to keep the corner tables in")
            }
            Why::BoardSize(n) => {
                write!(f, "the learned and corner players play 4x4 boards only, not {n}x{n}")
            }
        }
    }
}

/// The strongest preset whose tables are present and checked in the
/// tables folder (`tables`, or the user's cache folder: [`tables_dir`]):
/// `corner-big` when its tables are there and checked (the big step table
/// is built only on request: `lab tables build --preset corner-big`), else
/// `corner` when its tables (of at most `max_states` states each, when
/// given) are, else [`DEFAULT_PRESET`]; the heuristic on boards other than
/// 4x4. It reads the tables' headers and check stamps, not the tables, so
/// it answers at once.
pub fn strongest_preset(
    size: usize,
    tables: Option<&Path>,
    max_states: Option<u64>,
) -> DefaultChoice {
    let fallback = |why| DefaultChoice { preset: default_preset(size), why };
    if size != 4 {
        return fallback(Why::BoardSize(size));
    }
    let Some(dir) = tables_dir(tables) else { return fallback(Why::NoTablesFolder) };
    // corner-big where the user built its big step table, all checked.
    let big = formations_for(Preset::CornerBig, max_states);
    let checked =
        |f: &endgame::Formation| matches!(endgame::table_status(&dir, *f), TableStatus::Checked);
    if big.iter().any(|f| f.is_layered()) && big.iter().all(checked) {
        return DefaultChoice { preset: Preset::CornerBig, why: Why::TablesBuilt };
    }
    let formations = formations_for(Preset::Corner, max_states);
    let mut command = "lab tables build --preset corner".to_owned();
    if let Some(dir) = tables {
        command.push_str(&format!(" --tables {}", dir.display()));
    }
    if let Some(max) = max_states {
        command.push_str(&format!(" --tables-max-states {max}"));
    }
    let cost = |todo: &[endgame::Formation]| TablesBuildCost {
        bytes: todo.iter().map(|&f| endgame::file_bytes(f)).sum(),
        time: build_time(todo),
        command: command.clone(),
    };
    let statuses: Vec<_> =
        formations.iter().map(|&f| (f, endgame::table_status(&dir, f))).collect();
    let todo: Vec<_> = statuses
        .iter()
        .filter(|(_, s)| matches!(s, TableStatus::Missing | TableStatus::Damaged(_)))
        .map(|(f, _)| *f)
        .collect();
    if !todo.is_empty() {
        return fallback(Why::TablesMissing(cost(&todo)));
    }
    if statuses.iter().any(|(_, s)| matches!(s, TableStatus::Unchecked)) {
        return fallback(Why::TablesUnchecked(cost(&formations)));
    }
    DefaultChoice { preset: Preset::Corner, why: Why::TablesBuilt }
}

/// The endgame tables' folder: `given`, or `cli-ascii-2048/endgame` in the
/// user's cache folder, shared by every frontend so that one build serves
/// them all; `None` when there is neither.
pub fn tables_dir(given: Option<&Path>) -> Option<PathBuf> {
    match given {
        Some(dir) => Some(dir.to_path_buf()),
        None => dirs::cache_dir().map(|dir| dir.join(endgame::CACHE_FOLDER)),
    }
}

/// The endgame tables `preset` plays by (of at most `max_states` states
/// when given): the corner tables for the corner presets (with the big step
/// table for corner-big), whose formations its heuristic keeps, the chains'
/// for the others (docs/endgame.md).
pub fn formations_for(preset: Preset, max_states: Option<u64>) -> Vec<endgame::Formation> {
    match preset {
        Preset::CornerBig => endgame::corner_big_formations(max_states),
        p if p.uses_corner_tables() => endgame::corner_formations(max_states),
        _ => endgame::default_formations(max_states),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game_core::RulesBuilder;

    fn spec(preset: Preset, overrides: Overrides) -> SolverSpec {
        SolverSpec::new(preset).with_overrides(overrides)
    }

    #[test]
    fn settings_a_preset_has_no_use_for_are_refused() {
        let cutoff = Overrides { prob_cutoff: Some(0.01), ..Overrides::default() };
        let bonus = Overrides { depth_bonus: Some(1), ..Overrides::default() };
        let fixed_bonus = Overrides { depth: Some(2), ..bonus };
        let heuristic = Overrides { heuristic: Some(0.5), ..Overrides::default() };
        let cases = [
            (spec(Preset::Tutorial, cutoff), "prob_cutoff does not apply to the tutorial preset"),
            (spec(Preset::Fast, fixed_bonus), "depth_bonus does not apply with depth"),
            (spec(Preset::Ntuple, bonus), "depth_bonus does not apply to the ntuple preset"),
            (spec(Preset::Heuristic, heuristic), "heuristic applies to the ntuple presets only"),
            (
                SolverSpec::new(Preset::Fast).with_weights(Some("w.n2048".into())),
                "weights applies to the ntuple presets only, not to the fast preset",
            ),
            (
                spec(Preset::Fast, Overrides { time_ms: Some(0), ..Overrides::default() }),
                "time_ms must be at least 1",
            ),
        ];
        for (spec, message) in cases {
            let err = spec.validate().unwrap_err();
            assert!(err.to_string().starts_with(message), "{err}");
            assert!(spec.build(4).is_err());
        }
        assert!(
            spec(Preset::Fast, Overrides { depth_bonus: Some(1), ..cutoff }).validate().is_ok()
        );
        assert!(spec(Preset::NtupleDeep, heuristic).validate().is_ok());
    }

    #[test]
    fn overrides_replace_the_presets_settings() {
        let o = Overrides {
            depth: None,
            time_ms: Some(40),
            threads: Some(1),
            prob_cutoff: Some(0.02),
            depth_bonus: Some(-1),
            heuristic: None,
        };
        let config = spec(Preset::Heuristic, o).config(4).unwrap();
        assert_eq!(config.time_budget, Some(Duration::from_millis(40)));
        assert_eq!(config.threads, 1);
        assert!(matches!(config.depth, Depth::Adaptive { bonus: -1, .. }));
        assert!(
            matches!(config.algorithm, Algorithm::Expectimax { prob_cutoff, .. } if prob_cutoff == 0.02)
        );
        let learned = spec(Preset::Ntuple, Overrides { heuristic: Some(0.0), ..o })
            .with_overrides(Overrides {
                heuristic: Some(0.0),
                depth: Some(1),
                ..Overrides::default()
            })
            .config(4)
            .unwrap();
        assert_eq!(learned.depth, Depth::Fixed(1));
        assert!(
            matches!(learned.algorithm, Algorithm::Learned { heuristic, .. } if heuristic == 0.0)
        );
        // The learned preset of crowded depth takes a bonus too.
        let deeper =
            spec(Preset::NtupleDeep, Overrides { depth_bonus: Some(1), ..Overrides::default() })
                .config(4)
                .unwrap();
        assert!(matches!(deeper.depth, Depth::Crowded { bonus: 1, .. }));
        // Nothing given: the preset as it is.
        assert_eq!(
            SolverSpec::new(Preset::HeuristicMax).config(4).unwrap(),
            Preset::HeuristicMax.config()
        );
    }

    /// A frontend's own settings are the spec's, not a config it edits (so
    /// that each frontend does not repeat, and drift from, the engine's
    /// rules): the web's table cap, the terminal's budget on big boards,
    /// which a depth or a time given overrides.
    #[test]
    fn a_frontends_settings_are_the_specs() {
        let capped = SolverSpec::new(Preset::HeuristicMax).with_table_cap(64 << 20);
        assert_eq!(capped.config(4).unwrap().table_bytes, 64 << 20);
        let small = Preset::Tutorial.config().table_bytes;
        let tutorial = SolverSpec::new(Preset::Tutorial).with_table_cap(usize::MAX);
        assert_eq!(tutorial.config(4).unwrap().table_bytes, small, "a cap never grows a table");
        let budget = Duration::from_millis(50);
        let big = |preset, overrides| {
            SolverSpec::new(preset)
                .with_overrides(overrides)
                .with_big_board_budget(budget)
                .config(5)
                .unwrap()
        };
        let none = Overrides::default();
        assert_eq!(big(Preset::Heuristic, none).time_budget, Some(budget));
        assert_eq!(big(Preset::Heuristic, none).depth, Preset::Heuristic.config().depth);
        assert_eq!(big(Preset::Tutorial, none).depth, Depth::Fixed(1));
        assert_eq!(big(Preset::Tutorial, none).time_budget, None);
        let depth = Overrides { depth: Some(3), ..none };
        assert_eq!(big(Preset::Heuristic, depth).time_budget, None);
        let timed = Overrides { time_ms: Some(40), ..none };
        assert_eq!(big(Preset::Fast, timed).time_budget, Some(Duration::from_millis(40)));
        let four = SolverSpec::new(Preset::Heuristic).with_big_board_budget(budget);
        assert_eq!(four.config(4).unwrap(), Preset::Heuristic.config());
        assert_eq!(four.config(3).unwrap(), Preset::Heuristic.config());
    }

    /// Which presets need tables of their own is the engine's to say, once,
    /// not each frontend's: the corner preset refuses to build on 4x4
    /// without its corner tables, and searches alone on other sizes.
    #[test]
    fn the_corner_preset_needs_its_own_tables_on_four_by_four() {
        let corner = SolverSpec::new(Preset::Corner)
            .with_overrides(Overrides { depth: Some(1), ..Overrides::default() });
        assert!(corner.needs_tables() && corner.lacks_tables());
        assert!(matches!(corner.build(4), Err(SpecError::MissingTables(Preset::Corner))));
        assert!(corner.build(5).is_ok());
        let err = corner.build(4).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the corner preset plays by its own endgame tables, which it was not given"
        );
        for preset in Preset::ALL.into_iter().filter(|p| !p.uses_corner_tables()) {
            let spec = SolverSpec::new(preset);
            assert!(!spec.needs_tables() && !spec.lacks_tables(), "{preset}");
        }
        assert_eq!(formations_for(corner.preset(), None), endgame::corner_formations(None));
        assert_eq!(formations_for(Preset::CornerBig, None), endgame::corner_big_formations(None));
        assert_eq!(
            formations_for(Preset::Fast, Some(1000)),
            endgame::default_formations(Some(1000))
        );
    }

    /// The chains' tables are not the corner preset's own: given only them
    /// it still lacks its tables; given a corner table it plays by it.
    #[test]
    fn the_corner_preset_is_satisfied_by_corner_tables_only() {
        use solver_expectimax::endgame::{Formation, Table};
        let with = |formation: Formation| {
            let tables = Arc::new(Endgame::from_tables(vec![Table::build(formation, &|_| {})]));
            SolverSpec::new(Preset::Corner)
                .with_overrides(Overrides { depth: Some(1), ..Overrides::default() })
                .with_table_cap(1 << 20)
                .with_endgame(Some(tables))
        };
        let chains = with(Formation::new(10, 5).unwrap());
        assert!(chains.lacks_tables());
        assert!(matches!(chains.build(4), Err(SpecError::MissingTables(Preset::Corner))));
        let step = with(Formation::step(4).unwrap());
        assert!(step.needs_tables() && !step.lacks_tables());
        assert!(step.build(4).is_ok());
        // corner-big without its big step table would play as corner does
        // under its name: it lacks its tables.
        let small = Table::build(Formation::step(4).unwrap(), &|_| {});
        let small = Arc::new(Endgame::from_tables(vec![small]));
        let big = SolverSpec::new(Preset::CornerBig).with_endgame(Some(small));
        assert!(big.needs_tables() && big.lacks_tables());
        // Other presets given tables play by them; they never lack any.
        let fast = SolverSpec::new(Preset::Fast)
            .with_endgame(Some(Arc::new(Endgame::from_tables(Vec::new()))));
        assert!(!fast.lacks_tables());
    }

    /// The default follows the tables in the folder: the corner preset
    /// once its tables are there and checked, the learned one before (and
    /// the heuristic off 4x4), each with its reason. Real tables, the
    /// smallest corner set (a step and a block of at most two million
    /// states), built into a folder of the test's own.
    #[test]
    fn present_and_checked_tables_make_corner_the_default() {
        let dir = std::env::temp_dir().join(format!("engine-strongest-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let max = Some(2_000_000);
        let formations = formations_for(Preset::Corner, max);
        assert_eq!(formations.len(), 2);
        let before = strongest_preset(4, Some(&dir), max);
        assert_eq!(before.preset, DEFAULT_PRESET);
        let Why::TablesMissing(cost) = &before.why else { panic!("{before}") };
        let bytes: u64 = formations.iter().map(|&f| endgame::file_bytes(f)).sum();
        assert_eq!(cost.bytes, bytes);
        assert_eq!(
            before.to_string(),
            format!(
                "ntuple-deep: the corner tables are not built (lab tables build --preset corner \
                 --tables {} --tables-max-states 2000000, {}, about a second)",
                dir.display(),
                endgame::size_text(bytes)
            )
        );
        let tables = crate::open_tables(&dir, &formations, endgame::Check::Stamped, &|_| {});
        drop(tables.expect("built"));
        let after = strongest_preset(4, Some(&dir), max);
        assert_eq!(after, DefaultChoice { preset: Preset::Corner, why: Why::TablesBuilt });
        assert_eq!(after.to_string(), "corner: its tables are built");
        // Other sizes play the heuristic, whatever the tables.
        let big = strongest_preset(5, Some(&dir), max);
        assert_eq!((big.preset, big.why), (Preset::Heuristic, Why::BoardSize(5)));
        // Without its check stamp a table is not taken for checked.
        let step = dir.join(endgame::file_name(formations[0]));
        let stamp = dir.join(format!("{}.checked", endgame::file_name(formations[0])));
        std::fs::remove_file(&stamp).unwrap();
        let unchecked = strongest_preset(4, Some(&dir), max);
        assert!(matches!(unchecked.why, Why::TablesUnchecked(_)), "{unchecked}");
        assert_eq!(unchecked.preset, DEFAULT_PRESET);
        // A damaged table is one to build again.
        std::fs::write(&step, b"2048EGT2 cut short").unwrap();
        let damaged = strongest_preset(4, Some(&dir), max);
        let Why::TablesMissing(cost) = &damaged.why else { panic!("{damaged}") };
        assert_eq!(cost.bytes, endgame::file_bytes(formations[0]));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_learned_preset_plays_four_by_four_only_and_needs_its_network() {
        let spec = SolverSpec::new(Preset::Ntuple);
        assert!(matches!(spec.build(5), Err(SpecError::LearnedSize(5))));
        assert!(matches!(spec.check_size(5), Err(SpecError::LearnedSize(5))));
        assert!(spec.check_size(4).is_ok());
        assert!(SolverSpec::new(Preset::Fast).check_size(5).is_ok());
        let missing = spec.with_weights(Some("/nonexistent/w.n2048".into()));
        let err = missing.build(4).unwrap_err();
        assert!(matches!(err, SpecError::Network(_)), "{err}");
        assert!(err.to_string().starts_with("cannot load the learned network"), "{err}");
    }

    #[test]
    fn out_of_range_values_are_the_solvers_to_refuse() {
        let o = Overrides { threads: Some(0), ..Overrides::default() };
        assert!(matches!(spec(Preset::Fast, o).build(4), Err(SpecError::Config(_))));
        let o = Overrides { depth: Some(99), ..Overrides::default() };
        assert!(matches!(spec(Preset::Fast, o).build(4), Err(SpecError::Config(_))));
    }

    #[test]
    fn endgame_rules_are_checked() {
        assert!(SolverSpec::check_endgame_rules(4, &Rules::default()).is_ok());
        let err = SolverSpec::check_endgame_rules(5, &Rules::default()).unwrap_err();
        assert!(err.to_string().contains("4x4 boards only, not 5x5"), "{err}");
        let err = SolverSpec::check_endgame_rules(4, &Rules::tutorial()).unwrap_err();
        assert!(err.to_string().contains("standard rules"), "{err}");
    }

    #[test]
    fn a_frontend_spells_settings_its_own_way() {
        struct Cli;
        impl Spelling for Cli {
            fn setting(&self, s: Setting) -> String {
                format!("--{}", s.name().replace('_', "-"))
            }
            fn preset(&self, p: Preset) -> String {
                format!("--preset {p}")
            }
        }
        let o = Overrides { depth_bonus: Some(1), ..Overrides::default() };
        let err = spec(Preset::Tutorial, o).validate().unwrap_err();
        assert_eq!(
            err.message(&Cli),
            "--depth-bonus does not apply to --preset tutorial, whose depth is fixed (the fast, \
             heuristic, heuristic-max and ntuple-deep presets have an adaptive one)"
        );
    }

    #[test]
    fn the_settings_line_names_what_decides_the_games() {
        let o = Overrides {
            depth: Some(2),
            threads: Some(2),
            prob_cutoff: Some(2e-5),
            ..Overrides::default()
        };
        // Without a time budget, threads do not decide moves: not named.
        assert_eq!(
            spec(Preset::Heuristic, o).settings_line(None),
            "--preset heuristic --depth 2 --prob-cutoff 0.00002"
        );
        let timed = Overrides { time_ms: Some(50), threads: Some(2), ..Overrides::default() };
        assert_eq!(
            spec(Preset::HeuristicMax, timed).settings_line(Some(7)),
            "--preset heuristic-max --time-ms 50 --threads 2 --endgame (7 tables)"
        );
        let rules = RulesBuilder { four_probability: 0.25, ..RulesBuilder::default() }
            .build()
            .expect("valid rules");
        assert_eq!(
            rules_line(3, &rules, Some(9)),
            " --size 3 --four-probability 0.25 --max-moves 9"
        );
        assert_eq!(
            rules_line(4, &Rules::tutorial(), None),
            " --size 4 --four-probability 0.1 --tutorial-rules"
        );
    }

    #[test]
    fn the_settings_line_names_a_network_by_path_and_checksum() {
        let shipped = crate::weights_path(None);
        let line = SolverSpec::new(Preset::Ntuple).settings_line(None);
        let sum = ntuple::weights_checksum(&shipped).expect("the shipped weights");
        assert_ne!(sum, 0);
        let real = std::fs::canonicalize(&shipped).expect("the shipped weights");
        assert_eq!(
            line,
            format!("--preset ntuple --weights {} (checksum {sum:016x})", real.display())
        );
        // A file that is no network is named with checksum 0; loading it
        // is what fails, with the reason.
        let junk = std::env::temp_dir().join(format!("engine-junk-{}.n2048", std::process::id()));
        std::fs::write(&junk, b"not a network").expect("written");
        let line = SolverSpec::new(Preset::NtupleDeep)
            .with_weights(Some(junk.clone()))
            .settings_line(None);
        assert!(line.ends_with(" (checksum 0000000000000000)"), "{line}");
        std::fs::remove_file(&junk).expect("removed");
    }

    /// The same network at another path, or a preset by its old name, is
    /// the same settings; another checksum, option or rule is not. So a
    /// records file resumes after the weights moved or a preset was
    /// renamed, and never mixes games played under other settings.
    #[test]
    fn settings_are_the_same_up_to_the_networks_path_and_a_presets_old_name() {
        let shipped = crate::weights_path(None);
        let copy = std::env::temp_dir().join(format!("engine copy {}.n2048", std::process::id()));
        std::fs::copy(&shipped, &copy).expect("copied");
        let line = |path: &std::path::Path| {
            SolverSpec::new(Preset::Ntuple).with_weights(Some(path.to_owned())).settings_line(None)
                + &rules_line(4, &Rules::default(), None)
        };
        let (here, there) = (line(&shipped), line(&copy));
        assert_ne!(here, there);
        assert!(same_settings(&here, &there), "{here}\n{there}");
        std::fs::write(&copy, b"not a network").expect("written");
        assert!(!same_settings(&here, &line(&copy)), "another network");
        std::fs::remove_file(&copy).expect("removed");
        let old = "--preset default --depth 2 --size 4 --four-probability 0.1";
        for new in ["--preset heuristic --depth 2", "--preset HEURISTIC --depth 2"] {
            assert!(same_settings(old, &format!("{new} --size 4 --four-probability 0.1")));
        }
        assert!(same_settings("--preset max --size 4", "--preset heuristic-max --size 4"));
        let unlike = [
            "--preset heuristic --depth 3 --size 4 --four-probability 0.1",
            "--preset heuristic --depth 2 --size 5 --four-probability 0.1",
            "--preset fast --depth 2 --size 4 --four-probability 0.1",
            "--preset heuristic --depth 2 --size 4 --four-probability 0.1 --max-moves 9",
        ];
        for other in unlike {
            assert!(!same_settings(old, other), "{other}");
        }
    }
}

//! The search settings a user may give over a preset's, each declared once
//! here: its name, its range, its help, which presets it applies to (and
//! why not, in each frontend's words) and what it changes in the search.
//! The programs' options, the records' settings line and Python's keywords
//! are all read from this list, so a new setting is a new [`Setting`] and
//! its arms below.

use std::fmt;
use std::time::Duration;

use solver_expectimax::{Algorithm, Depth, MAX_DEPTH, MAX_THREADS, Preset, SearchConfig};

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
    /// The transposition table's size bound, in MiB.
    TableMb,
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
    /// The preset's search keeps no transposition table.
    KeepsNoTable,
}

/// What a user gave that a preset may have no use for: a search setting,
/// or a learned network's weights file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Given {
    /// A search setting.
    Setting(Setting),
    /// The learned network's weights file.
    Weights,
}

impl Given {
    /// Its name in Rust and Python (`depth_bonus`, `weights`).
    pub const fn name(self) -> &'static str {
        match self {
            Given::Setting(setting) => setting.name(),
            Given::Weights => "weights",
        }
    }
}

impl From<Setting> for Given {
    fn from(setting: Setting) -> Given {
        Given::Setting(setting)
    }
}

/// How a frontend names settings and presets in its messages: a command
/// line says `--depth-bonus` and `--preset fast`, Python `depth_bonus=`
/// and `the fast preset`.
pub trait Spelling {
    /// The setting as the user wrote it.
    fn setting(&self, given: Given) -> String;
    /// The preset as the user chose it.
    fn preset(&self, preset: Preset) -> String;
}

impl Reason {
    /// Why `given` does not apply to `preset`, as `spelling` names them.
    pub(super) fn message(self, given: Given, preset: Preset, spelling: &dyn Spelling) -> String {
        let (s, p) = (spelling.setting(given), spelling.preset(preset));
        match self {
            Reason::SearchesEverySpawn => {
                format!("{s} does not apply to {p}, which searches every spawn")
            }
            Reason::FixedDepth { given: true } => format!(
                "{s} does not apply with {}, a fixed depth",
                spelling.setting(Setting::Depth.into())
            ),
            Reason::FixedDepth { given: false } => format!(
                "{s} does not apply to {p}, whose depth is fixed (the {} presets have an \
                 adaptive one)",
                list(&adaptive_presets())
            ),
            Reason::NoNetwork => {
                let learned: Vec<String> = Preset::ALL
                    .into_iter()
                    .filter(|p| p.is_learned())
                    .map(|p| spelling.preset(p))
                    .collect();
                format!(
                    "{s} applies to the learned presets only, not to {p}, which uses no \
                     network: choose {}",
                    list_or(&learned)
                )
            }
            Reason::KeepsNoTable => {
                format!("{s} does not apply to {p}, whose search keeps no table")
            }
        }
    }
}

/// What values a setting takes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// A whole number in `min..=max`; `unit` (e.g. `" ms"`) follows the
    /// bounds in messages.
    Whole {
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
        /// What follows a bound in a message.
        unit: &'static str,
    },
    /// A probability, between 0 and 1.
    Probability,
    /// A finite weight of 0 or more.
    Weight,
}

/// A setting's value: whole for [`Kind::Whole`], real otherwise (the
/// search's `f32`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// A whole number (wide enough for any `u64` or `i64` given).
    Whole(i128),
    /// A real number.
    Real(f32),
}

impl Value {
    /// The whole number, if it is one.
    pub fn whole(self) -> Option<i128> {
        match self {
            Value::Whole(n) => Some(n),
            Value::Real(_) => None,
        }
    }

    /// The real number, if it is one.
    pub fn real(self) -> Option<f32> {
        match self {
            Value::Real(x) => Some(x),
            Value::Whole(_) => None,
        }
    }
}

impl fmt::Display for Value {
    /// As the settings line writes it: Rust's shortest digits, never an
    /// exponent (`0.00002`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Whole(n) => write!(f, "{n}"),
            Value::Real(x) => write!(f, "{x}"),
        }
    }
}

macro_rules! whole_from {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            fn from(n: $t) -> Value {
                Value::Whole(n as i128)
            }
        }
    )*};
}
whole_from!(u8, u16, u32, u64, usize, i8, i16, i32, i64);

impl From<f32> for Value {
    fn from(x: f32) -> Value {
        Value::Real(x)
    }
}

/// A value a setting does not take: of the wrong kind or out of its range.
#[derive(Debug, Clone, PartialEq)]
pub struct BadValue {
    /// The setting.
    pub setting: Setting,
    /// What it takes, as a clause: `must be between -12 and 12`.
    pub expected: String,
}

impl BadValue {
    /// That `setting` does not take a value (one past any machine word,
    /// say), with what it takes.
    pub fn new(setting: Setting) -> BadValue {
        BadValue { setting, expected: setting.kind().expected() }
    }
}

impl fmt::Display for BadValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.setting.name(), self.expected)
    }
}

impl std::error::Error for BadValue {}

impl Setting {
    /// Every setting, in the order the programs list them.
    pub const ALL: [Setting; 7] = [
        Setting::Depth,
        Setting::TimeMs,
        Setting::Threads,
        Setting::ProbCutoff,
        Setting::DepthBonus,
        Setting::Heuristic,
        Setting::TableMb,
    ];

    /// The setting's name in Rust and Python (`depth_bonus`).
    pub const fn name(self) -> &'static str {
        match self {
            Setting::Depth => "depth",
            Setting::TimeMs => "time_ms",
            Setting::Threads => "threads",
            Setting::ProbCutoff => "prob_cutoff",
            Setting::DepthBonus => "depth_bonus",
            Setting::Heuristic => "heuristic",
            Setting::TableMb => "table_mb",
        }
    }

    /// Its command-line option (`--depth-bonus`).
    pub const fn option(self) -> &'static str {
        match self {
            Setting::Depth => "--depth",
            Setting::TimeMs => "--time-ms",
            Setting::Threads => "--threads",
            Setting::ProbCutoff => "--prob-cutoff",
            Setting::DepthBonus => "--depth-bonus",
            Setting::Heuristic => "--heuristic",
            Setting::TableMb => "--table-mb",
        }
    }

    /// The setting of that name, if any.
    pub fn from_name(name: &str) -> Option<Setting> {
        Setting::ALL.into_iter().find(|s| s.name() == name)
    }

    /// What values it takes.
    pub const fn kind(self) -> Kind {
        match self {
            Setting::Depth => Kind::Whole { min: 1, max: MAX_DEPTH as i64, unit: "" },
            Setting::TimeMs => Kind::Whole { min: 1, max: i64::MAX, unit: " ms" },
            Setting::Threads => Kind::Whole { min: 1, max: MAX_THREADS as i64, unit: "" },
            Setting::ProbCutoff => Kind::Probability,
            Setting::DepthBonus => Kind::Whole { min: -12, max: 12, unit: "" },
            Setting::Heuristic => Kind::Weight,
            Setting::TableMb => Kind::Whole { min: 0, max: 4096, unit: "" },
        }
    }

    /// The placeholder for its value in a command's help (`N`).
    pub const fn value_name(self) -> &'static str {
        match self {
            Setting::Depth | Setting::Threads | Setting::DepthBonus => "N",
            Setting::TimeMs => "MS",
            Setting::ProbCutoff => "P",
            Setting::Heuristic => "W",
            Setting::TableMb => "MIB",
        }
    }

    /// What it does, in a sentence (a command's short help; ranges are
    /// read from [`Setting::kind`]).
    pub fn help(self) -> String {
        let range = self.kind().range_text();
        match self {
            Setting::Depth => {
                format!(
                    "Search this many chance layers deep, {range}, always (overrides the preset)"
                )
            }
            Setting::TimeMs => "Deepen one layer at a time within this budget per move".into(),
            Setting::Threads => format!("Search threads, {range} (default: the preset's)"),
            Setting::ProbCutoff => {
                format!("Leave chance branches less likely than P unsearched, {range}")
            }
            Setting::DepthBonus => {
                format!("Search N layers deeper than the adaptive depth, {range}")
            }
            Setting::Heuristic => {
                format!("The weight of the heuristic added to the network's values, {range}")
            }
            Setting::TableMb => {
                format!("The transposition table's size in MiB, {range} (default: the preset's)")
            }
        }
    }

    /// More on it, for a command's long help (empty where the sentence says
    /// all).
    pub fn details(self) -> String {
        match self {
            Setting::Depth | Setting::TimeMs => String::new(),
            Setting::Threads => "More than the machine's cores only slows the search.".into(),
            Setting::ProbCutoff => "Such a branch is scored by the evaluator instead of searched \
                                    (overrides the preset's; not for the tutorial preset)."
                .into(),
            Setting::DepthBonus => format!(
                "A negative N searches shallower (overrides the preset's bonus; for the {} \
                 presets, without --depth).",
                list(&adaptive_presets())
            ),
            Setting::Heuristic => "0 searches with the network alone (learned presets only; \
                                   default: the preset's, 0)."
                .into(),
            Setting::TableMb => "0 searches without one. The search takes up to this much memory \
                                 for it: a smaller table spares memory, a larger one keeps more \
                                 positions between a move's searches (not for the tutorial \
                                 preset, which keeps none)."
                .into(),
        }
    }

    /// Whether it applies to a search of `config` with `given` (the other
    /// settings given): the reason it does not, if it does not.
    pub(super) fn applies(self, config: &SearchConfig, given: &Overrides) -> Result<(), Reason> {
        match self {
            Setting::Depth | Setting::TimeMs | Setting::Threads => Ok(()),
            Setting::ProbCutoff if config.algorithm.prob_cutoff().is_none() => {
                Err(Reason::SearchesEverySpawn)
            }
            Setting::ProbCutoff => Ok(()),
            Setting::DepthBonus if given.get(Setting::Depth).is_some() => {
                Err(Reason::FixedDepth { given: true })
            }
            Setting::DepthBonus if !adaptive(config.depth) => {
                Err(Reason::FixedDepth { given: false })
            }
            Setting::DepthBonus => Ok(()),
            Setting::Heuristic if !matches!(config.algorithm, Algorithm::Learned { .. }) => {
                Err(Reason::NoNetwork)
            }
            Setting::Heuristic => Ok(()),
            Setting::TableMb if matches!(config.algorithm, Algorithm::Tutorial) => {
                Err(Reason::KeepsNoTable)
            }
            Setting::TableMb => Ok(()),
        }
    }

    /// `config` with this setting at `value` (one of its kind and range,
    /// which [`Overrides`] holds only).
    pub(super) fn apply(self, value: Value, config: &mut SearchConfig) {
        let whole = value.whole().unwrap_or(0);
        let real = value.real().unwrap_or(0.0);
        match self {
            Setting::Depth => config.depth = Depth::Fixed(whole as u32),
            Setting::TimeMs => config.time_budget = Some(Duration::from_millis(whole as u64)),
            Setting::Threads => config.threads = whole as usize,
            Setting::ProbCutoff => {
                if let Some(cutoff) = config.algorithm.prob_cutoff_mut() {
                    *cutoff = real;
                }
            }
            Setting::DepthBonus => {
                if let Depth::Adaptive { bonus, .. } | Depth::Crowded { bonus, .. } =
                    &mut config.depth
                {
                    *bonus = whole as i32;
                }
            }
            Setting::Heuristic => {
                if let Algorithm::Learned { heuristic, .. } = &mut config.algorithm {
                    *heuristic = real;
                }
            }
            Setting::TableMb => config.table_bytes = (whole as usize) << 20,
        }
    }

    /// Whether it decides the games of a search with `given`, so that a
    /// records file names it: threads and the table's size (whose hits are
    /// exact) change only how fast a search goes, so they decide moves only
    /// against the clock.
    pub(super) fn decides_games(self, given: &Overrides) -> bool {
        match self {
            Setting::Threads | Setting::TableMb => given.get(Setting::TimeMs).is_some(),
            _ => true,
        }
    }

    /// `value` if this setting takes it.
    ///
    /// # Errors
    /// [`BadValue`], saying what it takes.
    pub fn check(self, value: Value) -> Result<Value, BadValue> {
        let kind = self.kind();
        let bad = || BadValue::new(self);
        match (kind, value) {
            (Kind::Whole { min, max, .. }, Value::Whole(n))
                if (i128::from(min)..=i128::from(max)).contains(&n) =>
            {
                Ok(value)
            }
            (Kind::Probability, Value::Real(p)) if (0.0..=1.0).contains(&p) => Ok(value),
            (Kind::Weight, Value::Real(w)) if w.is_finite() && w >= 0.0 => Ok(value),
            // A whole number is a real one too.
            (Kind::Probability | Kind::Weight, Value::Whole(n)) => {
                self.check(Value::Real(n as f32)).map_err(|_| bad())
            }
            _ => Err(bad()),
        }
    }

    /// The value written in `text`, as a command line gives it.
    ///
    /// # Errors
    /// What it takes, as a clause (`must be between 1 and 12`): a program
    /// puts it after the option.
    pub fn parse(self, text: &str) -> Result<Value, String> {
        match self.kind() {
            Kind::Whole { min, max, unit } => {
                parse_whole(text, i128::from(min), i128::from(max), unit).map(Value::Whole)
            }
            Kind::Probability | Kind::Weight => {
                let bad = || self.kind().expected_text();
                let x = text.parse::<f32>().map_err(|_| bad())?;
                self.check(Value::Real(x)).map_err(|_| bad())
            }
        }
    }
}

impl fmt::Display for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Kind {
    /// The range as a phrase: `between 1 and 12`, `at least 1 ms`.
    fn range_text(self) -> String {
        match self {
            Kind::Whole { min, max, unit } => {
                format!("{}{unit}", range_text(i128::from(min), i128::from(max)))
            }
            Kind::Probability => "between 0 and 1".into(),
            Kind::Weight => "0 or more".into(),
        }
    }

    /// What a value of this kind must be, as a clause after its name.
    fn expected(self) -> String {
        match self {
            Kind::Whole { .. } => format!("must be a whole number {}", self.range_text()),
            Kind::Probability => "must be a probability, between 0 and 1".into(),
            Kind::Weight => "must be a finite number of 0 or more".into(),
        }
    }

    /// What a command line's text of this kind must be.
    fn expected_text(self) -> String {
        match self {
            Kind::Whole { .. } => format!("expected a whole number, {}", self.range_text()),
            Kind::Probability => "expected a probability, between 0 and 1".into(),
            Kind::Weight => "expected a weight, a number of 0 or more".into(),
        }
    }
}

/// A whole number in `min..=max` written in `text`, or what is wrong with
/// it in the range's terms (clap's own ranges would say `0 is not in
/// 1..18446744073709551615`); `unit` (e.g. `" ms"`) follows the bounds.
/// Wide enough for any `u64` or `i64` option.
pub fn parse_whole(text: &str, min: i128, max: i128, unit: &str) -> Result<i128, String> {
    let accepted = format!("{}{unit}", range_text(min, max));
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("expected a whole number, {accepted}"));
    }
    match text.parse::<i128>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        Ok(n) if n > max && max >= i128::from(i64::MAX) => {
            Err(format!("too large: at most {max}{unit}"))
        }
        // Digits too many for any i128: still too large.
        Err(_) if digits.len() == text.len() => Err(format!("too large: at most {max}{unit}")),
        _ => Err(format!("must be {accepted}")),
    }
}

/// A whole range as a phrase: `between 1 and 12`; `at least 1` where the
/// top is a machine word's (no one means it).
fn range_text(min: i128, max: i128) -> String {
    let word = max == i128::from(i64::MAX) || max == i128::from(u64::MAX);
    if word && min > 0 { format!("at least {min}") } else { format!("between {min} and {max}") }
}

/// The settings given over a preset's; a setting not given keeps the
/// preset's. It holds only values its settings take
/// ([`Setting::check`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Overrides {
    values: [Option<Value>; Setting::ALL.len()],
}

impl Overrides {
    /// The value given for `setting`, if any.
    pub fn get(&self, setting: Setting) -> Option<Value> {
        self.values[setting as usize]
    }

    /// With `setting` at `value`.
    ///
    /// # Panics
    /// If the setting does not take the value: [`Overrides::try_with`]
    /// says so instead.
    #[must_use]
    pub fn with(self, setting: Setting, value: impl Into<Value>) -> Overrides {
        match self.try_with(setting, value) {
            Ok(overrides) => overrides,
            Err(err) => panic!("{err}"),
        }
    }

    /// With `setting` at `value`.
    ///
    /// # Errors
    /// [`BadValue`] where the setting does not take it.
    pub fn try_with(
        mut self,
        setting: Setting,
        value: impl Into<Value>,
    ) -> Result<Overrides, BadValue> {
        self.values[setting as usize] = Some(setting.check(value.into())?);
        Ok(self)
    }

    /// The settings given, with their values, in [`Setting::ALL`]'s order.
    pub fn given(&self) -> impl Iterator<Item = (Setting, Value)> + '_ {
        Setting::ALL.into_iter().filter_map(|s| self.get(s).map(|v| (s, v)))
    }

    /// The fixed depth given, if any.
    pub fn depth(&self) -> Option<u32> {
        self.get(Setting::Depth).and_then(Value::whole).map(|d| d as u32)
    }

    /// The time budget given, if any.
    pub fn time_ms(&self) -> Option<u64> {
        self.get(Setting::TimeMs).and_then(Value::whole).map(|t| t as u64)
    }

    /// The thread count given, if any.
    pub fn threads(&self) -> Option<usize> {
        self.get(Setting::Threads).and_then(Value::whole).map(|t| t as usize)
    }
}

/// Whether a depth takes a bonus.
fn adaptive(depth: Depth) -> bool {
    matches!(depth, Depth::Adaptive { .. } | Depth::Crowded { .. })
}

/// The presets whose depth takes a bonus, by name.
fn adaptive_presets() -> Vec<String> {
    Preset::ALL
        .into_iter()
        .filter(|p| adaptive(p.config().depth))
        .map(|p| p.name().to_owned())
        .collect()
}

/// `a, b and c`.
fn list(items: &[String]) -> String {
    joined(items, "and")
}

/// `a, b or c`.
fn list_or(items: &[String]) -> String {
    joined(items, "or")
}

fn joined(items: &[String], last: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., end] => format!("{} {last} {end}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_options_are_one_spelling() {
        for s in Setting::ALL {
            assert_eq!(s.option(), format!("--{}", s.name().replace('_', "-")));
            assert_eq!(Setting::from_name(s.name()), Some(s));
            assert_eq!(Setting::ALL[s as usize], s, "ALL is in declaration order");
        }
        assert_eq!(Setting::from_name("depth-bonus"), None);
    }

    #[test]
    fn a_command_lines_values_say_their_range() {
        let parse = |s: Setting, t: &str| s.parse(t);
        assert_eq!(parse(Setting::Depth, "13"), Err("must be between 1 and 12".into()));
        assert_eq!(parse(Setting::Depth, "12"), Ok(Value::Whole(12)));
        assert_eq!(parse(Setting::DepthBonus, "-13"), Err("must be between -12 and 12".into()));
        assert_eq!(parse(Setting::DepthBonus, "-12"), Ok(Value::Whole(-12)));
        assert_eq!(parse(Setting::TimeMs, "0"), Err("must be at least 1 ms".into()));
        assert_eq!(
            parse(Setting::TimeMs, "1.5"),
            Err("expected a whole number, at least 1 ms".into())
        );
        assert_eq!(
            parse(Setting::TimeMs, "99999999999999999999"),
            Err("too large: at most 9223372036854775807 ms".into())
        );
        assert_eq!(parse(Setting::Threads, "257"), Err("must be between 1 and 256".into()));
        assert_eq!(
            parse(Setting::Threads, "+3"),
            Err("expected a whole number, between 1 and 256".into())
        );
        assert_eq!(parse(Setting::ProbCutoff, "2e-4"), Ok(Value::Real(2e-4)));
        assert_eq!(
            parse(Setting::ProbCutoff, "1.5"),
            Err("expected a probability, between 0 and 1".into())
        );
        assert!(parse(Setting::ProbCutoff, "NaN").is_err());
        assert_eq!(parse(Setting::Heuristic, "0"), Ok(Value::Real(0.0)));
        assert_eq!(
            parse(Setting::Heuristic, "inf"),
            Err("expected a weight, a number of 0 or more".into())
        );
    }

    #[test]
    fn overrides_hold_only_values_their_settings_take() {
        let o = Overrides::default().with(Setting::Depth, 3u32).with(Setting::ProbCutoff, 0.5f32);
        assert_eq!(o.depth(), Some(3));
        assert_eq!(o.get(Setting::ProbCutoff), Some(Value::Real(0.5)));
        assert_eq!(
            o.given().map(|(s, _)| s).collect::<Vec<_>>(),
            [Setting::Depth, Setting::ProbCutoff]
        );
        // A whole number is a probability or a weight too.
        assert_eq!(
            Overrides::default().with(Setting::Heuristic, 1u32).get(Setting::Heuristic),
            Some(Value::Real(1.0))
        );
        let cases = [
            (Setting::Depth, Value::Whole(0), "depth must be a whole number between 1 and 12"),
            (Setting::Depth, Value::Real(2.0), "depth must be a whole number between 1 and 12"),
            (Setting::TimeMs, Value::Whole(0), "time_ms must be a whole number at least 1 ms"),
            (
                Setting::ProbCutoff,
                Value::Real(-0.1),
                "prob_cutoff must be a probability, between 0 and 1",
            ),
            (
                Setting::Heuristic,
                Value::Real(f32::NAN),
                "heuristic must be a finite number of 0 or more",
            ),
        ];
        for (setting, value, message) in cases {
            let err = Overrides::default().try_with(setting, value).unwrap_err();
            assert_eq!(err.to_string(), message);
        }
    }

    #[test]
    #[should_panic(expected = "threads must be a whole number between 1 and 256")]
    fn with_panics_on_a_value_the_setting_does_not_take() {
        let _ = Overrides::default().with(Setting::Threads, 0u32);
    }

    #[test]
    fn the_table_size_sets_the_searchs_table_where_it_keeps_one() {
        let spec = |preset| {
            let o = Overrides::default().with(Setting::TableMb, 3);
            crate::SolverSpec::new(preset).with_overrides(o)
        };
        assert_eq!(spec(Preset::HeuristicMax).config(4).unwrap().table_bytes, 3 << 20);
        assert_eq!(spec(Preset::HeuristicMax).build(4).unwrap().table_bytes(), 3 << 20);
        let none = Overrides::default().with(Setting::TableMb, 0);
        let spec0 = crate::SolverSpec::new(Preset::Fast).with_overrides(none);
        assert_eq!(spec0.build(4).unwrap().table_bytes(), 0);
        let err = spec(Preset::Tutorial).validate().unwrap_err();
        assert_eq!(
            err.to_string(),
            "table_mb does not apply to the tutorial preset, whose search keeps no table"
        );
        assert_eq!(Setting::TableMb.parse("4097"), Err("must be between 0 and 4096".into()));
        // Its hits are exact: at a fixed depth the size changes no move.
        assert_eq!(spec(Preset::Fast).settings_line(None), "--preset fast");
        let timed = Overrides::default().with(Setting::TimeMs, 5).with(Setting::TableMb, 3);
        assert_eq!(
            crate::SolverSpec::new(Preset::Fast).with_overrides(timed).settings_line(None),
            "--preset fast --time-ms 5 --table-mb 3"
        );
    }

    #[test]
    fn the_bonus_names_the_presets_it_applies_to() {
        assert_eq!(adaptive_presets(), ["fast", "heuristic", "heuristic-max", "ntuple-deep"]);
        assert!(
            Setting::DepthBonus
                .details()
                .contains("fast, heuristic, heuristic-max and ntuple-deep")
        );
    }
}

//! Why a solver cannot be made of a spec, worded the way each frontend
//! names settings and presets.

use std::fmt;

use solver_expectimax::endgame::RulesMismatch;
use solver_expectimax::{ConfigError, Preset};

#[cfg(doc)]
use super::SolverSpec;

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

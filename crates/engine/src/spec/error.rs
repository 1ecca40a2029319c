//! Why a solver cannot be made of a spec, worded the way each frontend
//! names settings and presets.

use std::fmt;

use solver_expectimax::endgame::RulesMismatch;
use solver_expectimax::{ConfigError, Preset};

use super::settings::{Given, Reason, Spelling};

#[cfg(doc)]
use super::SolverSpec;

/// The library's own names: `depth_bonus`, `the fast preset`.
#[derive(Debug, Clone, Copy)]
struct RustNames;

impl Spelling for RustNames {
    fn setting(&self, given: Given) -> String {
        given.name().to_owned()
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
        /// What was given.
        setting: Given,
        /// The preset.
        preset: Preset,
        /// Why it does not apply.
        reason: Reason,
    },
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

impl SpecError {
    /// The message, with settings and presets named as `spelling` names
    /// them.
    pub fn message(&self, spelling: &dyn Spelling) -> String {
        match self {
            SpecError::NotApplicable { setting, preset, reason } => {
                reason.message(*setting, *preset, spelling)
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

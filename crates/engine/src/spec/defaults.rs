//! The default presets (the fixed one, and the strongest the machine's
//! tables allow) and the tables they need: their folder, their formations
//! and the time a build takes.

use std::fmt;
use std::path::Path;
use std::time::Duration;

use solver_expectimax::Preset;
use solver_expectimax::endgame::{self, TableStatus};

use super::SolverSpec;
use crate::tables::{formations_for, tables_dir};

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

#[cfg(test)]
mod tests {
    use super::*;

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
}

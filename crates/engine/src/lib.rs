//! The front door of the 2048 libraries: what every frontend (the terminal
//! game, the web server, the Python package) needs from them, written once.
//!
//! - [`SolverSpec`]: a preset, the settings given over it ([`Overrides`],
//!   each [`Setting`] declared once, with its range, help and rule), the
//!   learned network's weights file and the endgame tables, checked
//!   together ([`SolverSpec::validate`]) and turned into a [`Solver`]
//!   ([`SolverSpec::build`]). A frontend names the settings its own way
//!   ([`Spelling`]).
//! - [`Session`]: a game played by a person, with a bounded undo history;
//!   each move says whether it made the game's first 2048.
//! - [`network`] and [`weights_path`]: the learned network, shared by path
//!   (the two files used last stay loaded), and the weights file a learned
//!   search reads.
//! - [`Values`]: a decision's value for each direction, in the one JSON
//!   shape the frontends send, and how far each falls short of the best
//!   ([`Values::shortfall`]), for people.
//! - [`clock_seed`] and [`tables_dir`]: a game's seed when none is given,
//!   and the endgame tables' folder.
//! - [`open_tables`]: the endgame tables, their files mapped so that the
//!   programs that play them share one copy, and opened once per process.
//! - [`play_game`] and [`run_tournament`]: seeded games played to their
//!   end, each a [`records::Record`].
//! - What a frontend names of the libraries below, re-exported so that it
//!   needs no other door: [`Preset`], the [`Solver`] and its [`Decision`],
//!   the players, the errors, [`endgame`]'s tables and the learned
//!   [`Network`]. The web server and the Python package reach
//!   solver-expectimax and ntuple through this crate only (xtask's tidy
//!   test checks it); the lab may use those libraries themselves.
//!
//! ```
//! use engine::{Overrides, Preset, Setting, SolverSpec};
//! use game_core::{Board, Rules};
//!
//! let settings = Overrides::default().with(Setting::Depth, 2).with(Setting::Threads, 1);
//! let spec = SolverSpec::new(Preset::Fast).with_overrides(settings);
//! let solver = spec.build(4)?;
//! let board: Board = "2 2 0 0/0 0 0 0/0 0 0 0/0 0 0 4".parse()?;
//! let decision = solver.decide(&board, &Rules::default())?;
//! println!("{}", decision.direction);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod build;
mod games;
mod network;
mod seed;
mod session;
mod spec;
mod tables;
mod values;

pub use build::{BuildMeter, BuildProgress, TablesBuild, duration_text};
pub use games::{TournamentSpec, play_game, run_tournament};
pub use network::{network, weights_path};
pub use seed::clock_seed;
pub use session::{NothingToUndo, Played, Session};
pub use spec::{
    BadValue, DEFAULT_PRESET, DefaultChoice, Given, Kind, Overrides, Reason, Setting, SolverSpec,
    SpecError, Spelling, TablesBuildCost, Value, Why, build_time, default_preset, parse_whole,
    rules_line, same_settings, strongest_preset,
};
pub use tables::{PresetTablesError, formations_for, open_preset_tables, open_tables, tables_dir};
pub use values::Values;

pub use ntuple::{FileError, Network, weights_checksum};
pub use solver_expectimax::{
    Choice, ConfigError, Decision, ExpectimaxPlayer, MAX_DEPTH, MAX_THREADS, Player, Preset,
    RandomPlayer, SearchError, SearchThreads, Solver, Stats, UnknownPreset,
};

/// The endgame tables: exact odds of building a chain's next tile, which
/// a solver plays by where they apply ([`SolverSpec::with_endgame`];
/// [`open_tables`] opens them, [`formations_for`] names a preset's).
pub mod endgame {
    pub use solver_expectimax::endgame::{
        Check, Endgame, EndgameError, Formation, OpenEvent, RulesMismatch, TableStatus, file_bytes,
        file_name, size_text, table_status,
    };
}

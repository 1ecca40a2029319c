//! The native layer of the `py2048` Python package: game-core, the solver
//! and the learned evaluator behind numpy arrays. Only the binding: the rules
//! are game-core's, the search and the network the engine's (the only door
//! to the libraries below it); the
//! Python API (gymnasium environments, type hints) is in `python/py2048/`.
//!
//! Conventions shared by every function here:
//! - actions are gymnasium-2048's: 0 up, 1 right, 2 down, 3 left
//!   (`GYM_DIRECTIONS`), so masks and values come in that order;
//! - a 4x4 board is the packed `u64` of [`game_core::Board`]: cell (r, c) is
//!   the exponent in nibble `4 * (4r + c)`, 0 empty, 15 the 32768 tile. A
//!   board with a tile past 32768 (65536, 131072) has no `u64` form: the
//!   environments' observations and masks hold it exactly, and asking for
//!   its packed form is an error;
//! - batches are 1-D arrays, and the work runs with the GIL released;
//! - every error is a Python exception carrying the Rust message.

mod batch;
mod encode;
mod env;
mod games;
mod search;
mod vector;

use game_core::Direction;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The direction of each gymnasium action: 0 up, 1 right, 2 down, 3 left.
pub(crate) const GYM_DIRECTIONS: [Direction; 4] =
    [Direction::Up, Direction::Right, Direction::Down, Direction::Left];

/// The gymnasium action of a direction (the inverse of [`GYM_DIRECTIONS`]).
pub(crate) fn gym_action(dir: Direction) -> usize {
    match dir {
        Direction::Up => 0,
        Direction::Right => 1,
        Direction::Down => 2,
        Direction::Left => 3,
    }
}

/// The direction of an action, or a `ValueError` naming it.
pub(crate) fn direction(action: i64) -> PyResult<Direction> {
    usize::try_from(action).ok().and_then(|a| GYM_DIRECTIONS.get(a).copied()).ok_or_else(|| {
        PyValueError::new_err(format!(
            "action {action} is not one of 0 (up), 1 (right), 2 (down), 3 (left)"
        ))
    })
}

/// A Rust error as a Python `ValueError` with the same message.
pub(crate) fn value_error(err: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(err.to_string())
}

/// The module `py2048._native`.
#[pymodule(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("MAX_EXPONENT", game_core::MAX_EXPONENT)?;
    m.add("MAX_THREADS", engine::MAX_THREADS)?;
    m.add("MILESTONES", records::summary::MILESTONES.map(game_core::Tile::value))?;
    m.add("DEFAULT_PRESET", engine::DEFAULT_PRESET.name())?;
    m.add("PRESETS", engine::Preset::ALL.map(|p| p.name()).to_vec())?;
    m.add_class::<env::EnvCore>()?;
    m.add_class::<vector::VecCore>()?;
    m.add_class::<search::Solver>()?;
    m.add_class::<search::Network>()?;
    m.add_class::<search::EndgameTables>()?;
    m.add_function(wrap_pyfunction!(search::is_learned, m)?)?;
    m.add_function(wrap_pyfunction!(search::uses_corner_tables, m)?)?;
    m.add_function(wrap_pyfunction!(search::preset_name, m)?)?;
    m.add_function(wrap_pyfunction!(search::default_preset, m)?)?;
    m.add_function(wrap_pyfunction!(search::settings, m)?)?;
    m.add_function(wrap_pyfunction!(search::setting_options, m)?)?;
    batch::register(m)?;
    games::register(m)?;
    Ok(())
}

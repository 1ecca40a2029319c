//! Settings shared by both environments: how a board becomes an observation
//! and what an illegal action does.

use game_core::{Board, GameBoard};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::GYM_DIRECTIONS;

/// How a board is shown to the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// One channel per exponent, `channels` of them (gymnasium-2048's
    /// `max_pow`): `(n, n, channels)` of 0/1. An exponent at or above the
    /// last channel lights the last one.
    OneHot { channels: usize },
    /// The exponents themselves: `(n, n)`.
    Exponents,
}

impl Encoding {
    /// The encoding named `name` ("onehot" or "exponents").
    pub(crate) fn parse(name: &str, max_pow: usize) -> PyResult<Encoding> {
        match name {
            "onehot" => {
                if !(2..=256).contains(&max_pow) {
                    return Err(PyValueError::new_err(format!(
                        "max_pow must be between 2 and 256, got {max_pow}"
                    )));
                }
                Ok(Encoding::OneHot { channels: max_pow })
            }
            "exponents" => Ok(Encoding::Exponents),
            other => Err(PyValueError::new_err(format!(
                "obs_mode must be \"onehot\" or \"exponents\", got {other:?}"
            ))),
        }
    }

    /// Bytes per cell.
    pub(crate) fn per_cell(self) -> usize {
        match self {
            Encoding::OneHot { channels } => channels,
            Encoding::Exponents => 1,
        }
    }

    /// Writes the cells' observation into `out`, which holds
    /// `cells.len() * per_cell()` zeroed bytes.
    pub(crate) fn write(self, cells: impl Iterator<Item = u8>, out: &mut [u8]) {
        match self {
            Encoding::OneHot { channels } => {
                for (i, e) in cells.enumerate() {
                    out[i * channels + usize::from(e).min(channels - 1)] = 1;
                }
            }
            Encoding::Exponents => {
                for (slot, e) in out.iter_mut().zip(cells) {
                    *slot = e;
                }
            }
        }
    }
}

/// The 16 exponents of a packed board, row-major, tiles past 32768 included
/// (a one-hot encoding then lights its last channel, a plain one gives the
/// exponent itself, up to `MAX_EXPONENT`).
pub(crate) fn packed_cells(board: Board) -> impl Iterator<Item = u8> {
    let cells: [u8; 16] = if board.is_packed() {
        // Read straight from the nibbles: most of an observation's cost was
        // building the rows through `to_exponents` (perf, 4,096 boards).
        let raw = board.raw();
        std::array::from_fn(|i| ((raw >> (4 * i)) & 0xF) as u8)
    } else {
        let rows = board.to_exponents();
        std::array::from_fn(|i| rows[i / 4][i % 4])
    };
    cells.into_iter()
}

/// The n² exponents of any board, row-major.
pub(crate) fn cells<B: GameBoard>(board: &B) -> impl Iterator<Item = u8> + '_ {
    let n = board.size();
    (0..n * n).map(move |i| board.exponent(i / n, i % n).unwrap_or(0))
}

/// Which actions change the board, in gymnasium order, as 0/1.
pub(crate) fn mask<B: GameBoard>(board: &B) -> [i8; 4] {
    let legal = board.legal_directions();
    GYM_DIRECTIONS.map(|d| i8::from(legal.contains(d)))
}

/// What an action that changes nothing does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Illegal {
    /// Nothing: same board, no spawn, reward 0 (gymnasium-2048's rule).
    NoOp,
    /// Nothing, but the reward is `-penalty`.
    Penalty(f64),
    /// The episode ends (`terminated`), reward `-penalty`.
    Terminate(f64),
}

impl Illegal {
    /// The mode named `name` ("noop", "penalty" or "terminate").
    pub(crate) fn parse(name: &str, penalty: f64) -> PyResult<Illegal> {
        if !penalty.is_finite() {
            return Err(PyValueError::new_err(format!(
                "illegal_penalty must be finite, got {penalty}"
            )));
        }
        match name {
            "noop" => Ok(Illegal::NoOp),
            "penalty" => Ok(Illegal::Penalty(penalty)),
            "terminate" => Ok(Illegal::Terminate(penalty)),
            other => Err(PyValueError::new_err(format!(
                "illegal_action must be \"noop\", \"penalty\" or \"terminate\", got {other:?}"
            ))),
        }
    }

    /// The reward of an illegal action and whether it ends the episode.
    pub(crate) fn outcome(self) -> (f64, bool) {
        match self {
            Illegal::NoOp => (0.0, false),
            Illegal::Penalty(p) => (-p, false),
            Illegal::Terminate(p) => (-p, true),
        }
    }
}

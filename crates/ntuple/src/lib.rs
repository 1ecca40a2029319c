//! A learned evaluator for 2048: an n-tuple network that values
//! afterstates (boards after a move, before the spawn), the files it is kept
//! in, and the TD trainer that learns it by self-play.
//!
//! - [`Network`]: four 6-cell tuples in all eight symmetries, 32 look-ups
//!   summed per board;
//! - [`Trainer`]: TD(0) with temporal-coherence learning rates, on threads
//!   sharing one network;
//! - [`save_checkpoint`] / [`load_checkpoint`]: the whole training state.
//!
//! The crate depends on game-core alone: the search uses a network through
//! the solver's evaluator trait, wired up by the frontends.
#![deny(missing_docs)]

mod file;
mod network;
mod train;

pub use file::{Checkpoint, FileError, FileErrorKind, load_checkpoint, save_checkpoint};
pub use network::{
    CELL_VALUES, N_FEATURES, N_TUPLES, N_WEIGHTS, Network, PATTERNS, TUPLE_ENTRIES, TUPLE_LEN,
    features,
};
pub use train::{
    CURVE_MILESTONES, Counters, CurveRow, Episode, Progress, TrainConfig, TrainError, Trainer,
};

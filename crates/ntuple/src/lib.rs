//! A learned evaluator for 2048: an n-tuple network that values
//! afterstates (boards after a move, before the spawn), the files it is kept
//! in, and the TD trainer that learns it by self-play.
//!
//! - [`Network`]: four 6-cell tuples in all eight symmetries, 32 look-ups
//!   summed per board, with a set of weights per stage of the game when
//!   the network has more than one ([`stage`]: from the first 16384, and
//!   while an 8192 stands beside it);
//! - [`Trainer`]: backward TD(λ) with temporal-coherence learning rates and
//!   restarts from late-game boards, on threads
//!   sharing one network;
//! - [`save_checkpoint`] / [`load_checkpoint`]: the whole training state;
//! - [`save_weights`] / [`load_weights`]: the compact file that is shipped.
//!
//! The crate depends on game-core and on no search: the front door
//! (`engine`) plugs a [`Network`] into the solver as its evaluator, so the
//! network and the search each stand on the rules alone.
#![deny(missing_docs)]

/// The shipped weights file in the source checkout this build was made
/// from: the last place [`find_shipped_weights`] looks (an installed binary
/// may run where no checkout is).
pub const SHIPPED_WEIGHTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/weights/4x6.n2048");

/// The shipped weights file's name.
pub const SHIPPED_FILE_NAME: &str = "4x6.n2048";

/// The environment variable naming the weights file to load when a program
/// is given none: set, it is the only place looked at.
pub const WEIGHTS_VAR: &str = "N2048_WEIGHTS";

/// The folder, in the user's data folder, where an installed program looks
/// for the shipped weights (`~/.local/share/cli-ascii-2048` on Linux).
pub const DATA_FOLDER: &str = "cli-ascii-2048";

mod find;

mod file;
mod network;
mod train;
mod weights;

pub use file::{Checkpoint, FileError, FileErrorKind, load_checkpoint, save_checkpoint};
pub use find::{find_shipped_weights, shipped_weights_places};
pub use network::{
    CELL_VALUES, Greedy, MAX_STAGES, N_FEATURES, N_TUPLES, N_WEIGHTS, Network, PATTERNS,
    STAGE_2_EXPONENT, STAGE_EXPONENT, StageError, TUPLE_ENTRIES, TUPLE_LEN, features, stage,
};
pub use train::{
    Counters, Episode, Progress, RESTART_TILES, Restarts, TrainConfig, TrainError, Trainer,
};
pub use weights::{
    Step, StepError, Weights, load_resumable, load_weights, save_weights, save_weights_at,
    weights_checksum,
};

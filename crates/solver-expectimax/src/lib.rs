//! Expectimax search for 2048, over any [`game_core::GameBoard`].
//!
//! - [`Solver`] turns a board into a [`Decision`]: the best direction, each
//!   direction's value, the depth, the counters and the time.
//! - [`SearchConfig`] says how; [`Preset`] names ready-made settings:
//!   `tutorial` (the Java tutorial's player, decision for decision), the
//!   heuristic's `fast`, `heuristic` and `heuristic-max`, the learned `ntuple` and
//!   `ntuple-deep` (with a network from outside this crate), and `corner`
//!   (with the corner tables of [`endgame`]).
//! - [`Player`]s ([`ExpectimaxPlayer`], [`RandomPlayer`]) choose each
//!   turn's move; `engine` plays them through whole seeded games, each kept
//!   as the `records` crate's `Record`.
//!
//! ```
//! use game_core::{Board, Game, Rules};
//! use solver_expectimax::{Depth, Preset, Solver};
//!
//! let mut config = Preset::Heuristic.config();
//! config.depth = Depth::Fixed(1); // keep the doc-test quick
//! config.table_bytes = 1 << 20;
//! let solver = Solver::new(config)?;
//! let mut game = Game::new(Rules::default(), 1);
//! for _ in 0..50 {
//!     let decision = solver.decide(game.board(), game.rules())?;
//!     game.play(decision.direction)?;
//! }
//! assert!(game.score() > 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod awake;
mod config;
mod eval;
mod hash;
mod player;
mod search;
mod solver;
mod stats;
mod table;
mod tutorial;

/// The endgame tables, a crate of their own (`endgame-tables`): the
/// search plays by them, and the frontends reach them by this path.
pub use endgame_tables as endgame;

pub use config::{
    Algorithm, ConfigError, Depth, LEARNED_HEURISTIC, MAX_DEPTH, MAX_THREADS, Preset, SearchConfig,
    UnknownPreset,
};
pub use endgame::{STEP_MIN_ODDS, STEP_MIN_ODDS_LAYERED};
pub use eval::{CornerEvaluator, Evaluator, WeightedEvaluator, Weights};
pub use player::{Choice, ExpectimaxPlayer, Player, RandomPlayer};
pub use solver::{Decision, ENDGAME_MIN_HEAD, SearchError, SearchThreads, SharedEvaluator, Solver};
pub use stats::Stats;

//! The rules of 2048, alone: boards, moves, spawns, score, game over and rule
//! variants. No terminal, no threads, no search.
//!
//! - [`Board`]: the 4x4 board packed in a `u64`, moved by table look-ups; the
//!   fast path (tiles above 32768, rare, take a slower path of their own).
//! - [`Grid`]: any size from 2x2 to 8x8, with exactly the same rules.
//! - [`GameBoard`]: the operations both offer, for code generic over size.
//! - [`AnyBoard`]: either, chosen by the size at run time.
//! - [`Rules`] (checked from a [`RulesBuilder`]) and [`Game`]: a seeded game
//!   whose spawns are the same on every platform. The size is the board's,
//!   not the rules': a game of the packed board is 4x4 by its type.
//!
//! Play a seeded game to the end, always taking the first legal direction:
//!
//! ```
//! use game_core::{Game, GameBoard, Rules};
//!
//! let mut game = Game::new(Rules::default(), 7);
//! while let Some(dir) = game.board().legal_directions().iter().next() {
//!     game.play(dir)?;
//! }
//! if let Some(tile) = game.board().max_tile() {
//!     println!("final score {} with a {tile} tile", game.score());
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Boards have a one-line text form, tile values with rows split by `/`:
//!
//! ```
//! use game_core::{Board, Direction};
//!
//! let board: Board = "2 0 0 2/0 0 0 0/0 0 0 0/0 0 0 0".parse()?;
//! assert_eq!(board.slide_unscored(Direction::Right).to_string(), "0 0 0 4/0 0 0 0/0 0 0 0/0 0 0 0");
//! # Ok::<(), game_core::ParseBoardError>(())
//! ```
#![deny(missing_docs)]

mod any;
mod board;
mod direction;
mod error;
mod game;
mod grid;
mod limits;
mod line;
mod notation;
mod rules;
mod tables;
mod tile;
mod traits;

pub use any::AnyBoard;
pub use board::Board;
pub use direction::{Direction, DirectionSet, ParseDirectionError};
pub use error::{ParseBoardError, ParseErrorKind, PlaceError, PlayError, RulesError, SizeError};
pub use game::{Game, GameRng, SavedGame, Spawner, Turn};
pub use grid::Grid;
pub use limits::{MAX_EXPONENT, MAX_SIZE, MAX_TILE, MIN_SIZE};
pub use rules::{Rules, RulesBuilder, TurnRule};
pub use tables::row_exponents;
pub use tile::{NotATile, Tile};
pub use traits::{GameBoard, exponent_to_value, value_to_exponent};

/// The workspace README's Rust examples (using game-core from another
/// project), compiled and run by `cargo test --doc` so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

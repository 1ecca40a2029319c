//! The bounds every board type shares: board sizes and tile exponents.
//!
//! A leaf module (it depends on nothing in the crate), so that the errors,
//! the notation and the board types can all name the bounds without a module
//! cycle.

/// The smallest board size.
pub const MIN_SIZE: usize = 2;
/// The largest board size.
pub const MAX_SIZE: usize = 8;

/// The largest exponent a cell holds: 2^25 = 33,554,432.
///
/// Tile values are `u32` and so is the score of one move. A move scores at
/// most the sum of the tiles on the board, which on the largest board (8x8)
/// is below 64 x 2^25 = 2^31 with this bound, so no value or score
/// overflows anywhere. The bound is far beyond every tile a 4x4 board can
/// reach (131072 = 2^17, a chain of fifteen tiles and a spawned 4), and beyond
/// 2^20 on every size; only boards of 5x5 and up could in principle build two
/// 2^25 tiles, after tens of millions of moves, and those two do not merge.
pub const MAX_EXPONENT: u8 = 25;

/// The largest tile value, 2^[`MAX_EXPONENT`].
pub const MAX_TILE: u32 = 1 << MAX_EXPONENT;

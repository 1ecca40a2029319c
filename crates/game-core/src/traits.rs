//! The operations every board type offers, so that games, searches and
//! frontends can be written once for all sizes.

use std::fmt;
use std::hash::Hash;

use crate::direction::{Direction, DirectionSet};
use crate::error::{PlaceError, SizeError};
#[cfg(doc)]
use crate::limits::MAX_TILE;
use crate::tile::{Tile, is_tile};

/// A square 2048 board of some size, immutable: every operation returns a new
/// board.
///
/// Cells are numbered row-major, `idx = row * size + col`; a cell holds an
/// exponent (0 = empty, `e` = the tile 2^e, at most [`MAX_EXPONENT`](crate::MAX_EXPONENT)).
/// [`Board`](crate::Board) (4x4 only, packed) and [`Grid`](crate::Grid)
/// (2x2 to 8x8) implement it with exactly the same rules.
pub trait GameBoard: Copy + Eq + Hash + fmt::Debug + fmt::Display + Send + Sync {
    /// An empty board of `size` x `size` cells.
    ///
    /// # Errors
    /// [`SizeError`] if this board type cannot have that size.
    fn empty(size: usize) -> Result<Self, SizeError>;

    /// An empty board of this board's size (which cannot fail, unlike
    /// [`GameBoard::empty`]: the size is one this type has).
    fn cleared(&self) -> Self;

    /// The number of rows (and of columns).
    fn size(&self) -> usize;

    /// The exponent in a cell (0 = empty), or `None` outside the board.
    fn exponent(&self, row: usize, col: usize) -> Option<u8>;

    /// The tile value in a cell (0 = empty), or `None` outside the board.
    fn value(&self, row: usize, col: usize) -> Option<u32> {
        self.exponent(row, col).map(exponent_to_value)
    }

    /// The board with cell (row, col) set to `exponent`, whatever it held.
    ///
    /// # Errors
    /// [`PlaceError::OutOfRange`] or [`PlaceError::BadExponent`].
    fn set_exponent(&self, row: usize, col: usize, exponent: u8) -> Result<Self, PlaceError>;

    /// The board with a tile of `value` placed on the empty cell (row, col).
    ///
    /// # Errors
    /// [`PlaceError::OutOfRange`], [`PlaceError::Occupied`], or
    /// [`PlaceError::BadValue`] when `value` is not a power of two from 2 to
    /// [`MAX_TILE`].
    fn place(&self, row: usize, col: usize, value: u32) -> Result<Self, PlaceError> {
        let exponent = value_to_exponent(value)?;
        match self.exponent(row, col) {
            None => Err(PlaceError::OutOfRange { row, col, size: self.size() }),
            Some(0) => self.set_exponent(row, col, exponent),
            Some(_) => Err(PlaceError::Occupied { row, col }),
        }
    }

    /// The board with `exponent` put in the empty cell `idx`, unchecked: for
    /// spawns from [`GameBoard::empty_cells`], where the checks are known to
    /// hold. A non-empty cell or a bad index gives an unspecified board (and a
    /// panic in debug builds); use [`GameBoard::place`] when unsure.
    fn with_exponent_unchecked(&self, idx: usize, exponent: u8) -> Self;

    /// Pushes the tiles toward `dir`: the new board and the score gained, or
    /// `None` when nothing moves.
    fn slide(&self, dir: Direction) -> Option<(Self, u32)>;

    /// [`GameBoard::slide`] without the score and without telling whether
    /// anything moved: the board itself when nothing does. Searches use it,
    /// since the packed board then skips the score tables.
    fn slide_unscored(&self, dir: Direction) -> Self {
        self.slide(dir).map_or(*self, |(board, _)| board)
    }

    /// [`GameBoard::slide_unscored`] in each direction, in [`Direction::ALL`]
    /// order: a search's expansion of a node. The packed board overrides it
    /// to check its path and gather its columns once for the four.
    fn slide_each_unscored(&self) -> [Self; 4] {
        Direction::ALL.map(|d| self.slide_unscored(d))
    }

    /// Whether `after`, this board moved in some direction (as
    /// [`GameBoard::slide_unscored`] or [`GameBoard::slide_each_unscored`]
    /// give it), differs from this board: `after != *self`, which a search
    /// asks of every child. The packed board answers from its first word
    /// alone, which is exact for a move only: for any other `after` the
    /// answer is unspecified (and a debug build panics).
    fn is_moved_to(&self, after: &Self) -> bool {
        after != self
    }

    /// The number of empty cells.
    fn count_empty(&self) -> usize;

    /// The number of distinct tile values on the board.
    fn count_distinct(&self) -> usize {
        let n = self.size();
        let seen = (0..n * n)
            .map(|i| self.exponent(i / n, i % n).unwrap_or(0))
            .fold(0u64, |seen, e| seen | 1 << e);
        (seen >> 1).count_ones() as usize
    }

    /// The indices of the empty cells, in row-major order.
    fn empty_cells(&self) -> impl Iterator<Item = usize>;

    /// The largest exponent on the board (0 when empty).
    fn max_exponent(&self) -> u8;

    /// The largest tile on the board (`None` when it is empty).
    fn max_tile(&self) -> Option<Tile> {
        Tile::from_exponent(self.max_exponent())
    }

    /// The directions that change the board.
    fn legal_directions(&self) -> DirectionSet {
        Direction::ALL.into_iter().filter(|&d| self.slide(d).is_some()).collect()
    }

    /// Whether no direction changes the board.
    fn is_game_over(&self) -> bool {
        self.legal_directions().is_empty()
    }

    /// The packed form [`Board::raw`](crate::Board::raw) when the board is a
    /// [`Board`](crate::Board) whose tiles all fit it (none above 32768, see
    /// [`Board::is_packed`](crate::Board::is_packed)); `None` otherwise,
    /// which is the default. Code with a faster path on packed boards (tables
    /// indexed by rows, a transposition table keyed by the `u64`) asks this
    /// rather than the board's type, and `Board::from_raw` gives the board
    /// back. A [`Grid`](crate::Grid) says `None` even on 4x4, so the generic
    /// path stays in use and tested.
    fn packed(&self) -> Option<u64> {
        None
    }

    /// The sum of the tile values.
    fn tile_sum(&self) -> u64 {
        let n = self.size();
        (0..n * n).map(|i| u64::from(self.value(i / n, i % n).unwrap_or(0))).sum()
    }
}

/// The value of the tile with this exponent (0 for an empty cell).
pub const fn exponent_to_value(exponent: u8) -> u32 {
    if exponent == 0 { 0 } else { 1 << exponent }
}

/// The exponent of a tile value.
///
/// # Errors
/// [`PlaceError::BadValue`] unless `value` is a power of two from 2 to
/// [`MAX_TILE`].
pub const fn value_to_exponent(value: u32) -> Result<u8, PlaceError> {
    if is_tile(value) {
        Ok(value.trailing_zeros() as u8)
    } else {
        Err(PlaceError::BadValue { value })
    }
}

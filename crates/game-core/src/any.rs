//! [`AnyBoard`]: a board of any size behind one type, the packed [`Board`]
//! on 4x4 and a [`Grid`] otherwise, so that code handed a size at run time
//! (a Python environment, a board typed by a user, a `--size` option) needs
//! no board type of its own choosing: it is the one way a frontend picks a
//! board.

use std::fmt;
use std::str::FromStr;

use crate::direction::{Direction, DirectionSet};
use crate::error::{ParseBoardError, PlaceError, SizeError};
use crate::{Board, GameBoard, Grid};

/// A board of any size from 2x2 to 8x8: the packed [`Board`] when it is 4x4
/// (the fast path), a [`Grid`] otherwise. Equal boards are equal whichever
/// way they were made: a 4x4 grid becomes packed.
///
/// Generic code over [`GameBoard`] runs on it unchanged (`Game<AnyBoard>`);
/// a hot loop that knows its size at compile time should take `Board` or
/// `Grid` itself, since every method here first looks at which it holds.
///
/// ```
/// use game_core::{AnyBoard, Direction, GameBoard};
///
/// let four: AnyBoard = "2 2 0 0/0 0 0 0/0 0 0 0/0 0 0 0".parse()?;
/// assert!(four.as_packed().is_some());
/// let five: AnyBoard = "2 2 0 0 0/0 0 0 0 0/0 0 0 0 0/0 0 0 0 0/0 0 0 0 4".parse()?;
/// assert_eq!(five.size(), 5);
/// let (after, score) = five.slide(Direction::Left).unwrap();
/// assert_eq!((after.value(0, 0), score), (Some(4), 4));
/// # Ok::<(), game_core::ParseBoardError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct AnyBoard(Inner);

// Invariant: `Grid` never holds a 4x4 board.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Inner {
    Packed(Board),
    Grid(Grid),
}

impl AnyBoard {
    /// The packed board, if this is a 4x4 board.
    pub fn as_packed(&self) -> Option<&Board> {
        match &self.0 {
            Inner::Packed(b) => Some(b),
            Inner::Grid(_) => None,
        }
    }

    /// The board as a grid, whatever its size.
    pub fn to_grid(&self) -> Grid {
        match self.0 {
            Inner::Packed(b) => Grid::from(b),
            Inner::Grid(g) => g,
        }
    }
}

impl From<Board> for AnyBoard {
    fn from(board: Board) -> AnyBoard {
        AnyBoard(Inner::Packed(board))
    }
}

impl From<Grid> for AnyBoard {
    fn from(grid: Grid) -> AnyBoard {
        // Every grid exponent fits the packed board, so a 4x4 grid converts.
        match Board::try_from(grid) {
            Ok(board) => AnyBoard(Inner::Packed(board)),
            Err(_) => AnyBoard(Inner::Grid(grid)),
        }
    }
}

/// Runs `$body` with `$b` bound to the board inside, whichever it is.
macro_rules! inside {
    ($any:expr, $b:ident => $body:expr) => {
        match $any {
            Inner::Packed($b) => $body,
            Inner::Grid($b) => $body,
        }
    };
}

/// A board made from the one inside back in an `AnyBoard` (a slide, a
/// spawn or a clearing keeps the size, so the variant stays right).
macro_rules! rewrap {
    ($any:expr, $b:ident => $body:expr) => {
        match $any {
            Inner::Packed($b) => AnyBoard(Inner::Packed($body)),
            Inner::Grid($b) => AnyBoard(Inner::Grid($body)),
        }
    };
}

/// One iterator type for either board's iterator.
enum Either<P, G> {
    Packed(P),
    Grid(G),
}

impl<P: Iterator<Item = usize>, G: Iterator<Item = usize>> Iterator for Either<P, G> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        match self {
            Either::Packed(it) => it.next(),
            Either::Grid(it) => it.next(),
        }
    }
}

impl GameBoard for AnyBoard {
    fn empty(size: usize) -> Result<AnyBoard, SizeError> {
        if size == 4 {
            Board::empty(4).map(AnyBoard::from)
        } else {
            Grid::empty(size).map(AnyBoard::from)
        }
    }

    fn cleared(&self) -> AnyBoard {
        rewrap!(&self.0, b => b.cleared())
    }

    fn size(&self) -> usize {
        inside!(&self.0, b => b.size())
    }

    fn exponent(&self, row: usize, col: usize) -> Option<u8> {
        inside!(&self.0, b => b.exponent(row, col))
    }

    fn set_exponent(&self, row: usize, col: usize, exponent: u8) -> Result<AnyBoard, PlaceError> {
        Ok(match &self.0 {
            Inner::Packed(b) => AnyBoard(Inner::Packed(b.set_exponent(row, col, exponent)?)),
            Inner::Grid(g) => AnyBoard(Inner::Grid(g.set_exponent(row, col, exponent)?)),
        })
    }

    fn with_exponent_unchecked(&self, idx: usize, exponent: u8) -> AnyBoard {
        rewrap!(&self.0, b => b.with_exponent_unchecked(idx, exponent))
    }

    fn slide(&self, dir: Direction) -> Option<(AnyBoard, u32)> {
        match &self.0 {
            Inner::Packed(b) => b.slide(dir).map(|(b, s)| (AnyBoard(Inner::Packed(b)), s)),
            Inner::Grid(g) => g.slide(dir).map(|(g, s)| (AnyBoard(Inner::Grid(g)), s)),
        }
    }

    fn slide_unscored(&self, dir: Direction) -> AnyBoard {
        rewrap!(&self.0, b => b.slide_unscored(dir))
    }

    fn slide_each_unscored(&self) -> [AnyBoard; 4] {
        match &self.0 {
            Inner::Packed(b) => b.slide_each_unscored().map(|b| AnyBoard(Inner::Packed(b))),
            Inner::Grid(g) => g.slide_each_unscored().map(|g| AnyBoard(Inner::Grid(g))),
        }
    }

    fn is_moved_to(&self, after: &AnyBoard) -> bool {
        match (&self.0, &after.0) {
            (Inner::Packed(a), Inner::Packed(b)) => a.is_moved_to(b),
            (Inner::Grid(a), Inner::Grid(b)) => a.is_moved_to(b),
            _ => true,
        }
    }

    fn count_empty(&self) -> usize {
        inside!(&self.0, b => b.count_empty())
    }

    fn count_distinct(&self) -> usize {
        inside!(&self.0, b => b.count_distinct())
    }

    fn empty_cells(&self) -> impl Iterator<Item = usize> {
        match &self.0 {
            Inner::Packed(b) => Either::Packed(b.empty_cells()),
            Inner::Grid(g) => Either::Grid(g.empty_cells()),
        }
    }

    fn max_exponent(&self) -> u8 {
        inside!(&self.0, b => b.max_exponent())
    }

    fn legal_directions(&self) -> DirectionSet {
        inside!(&self.0, b => b.legal_directions())
    }

    fn packed(&self) -> Option<u64> {
        inside!(&self.0, b => b.packed())
    }

    fn tile_sum(&self) -> u64 {
        inside!(&self.0, b => b.tile_sum())
    }
}

impl fmt::Display for AnyBoard {
    /// As the board inside writes itself: `2 0/0 4`, `{:#}` one row a line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        inside!(&self.0, b => fmt::Display::fmt(b, f))
    }
}

impl fmt::Debug for AnyBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        inside!(&self.0, b => fmt::Debug::fmt(b, f))
    }
}

impl FromStr for AnyBoard {
    type Err = ParseBoardError;

    /// Any size's notation, as [`Grid`] reads it.
    fn from_str(s: &str) -> Result<AnyBoard, ParseBoardError> {
        s.parse::<Grid>().map(AnyBoard::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Game, Rules};
    use proptest::prelude::*;

    /// A grid of `size` with random small exponents.
    fn grid(size: usize, cells: &[u8]) -> Grid {
        let mut g = Grid::empty(size).unwrap();
        for (i, &e) in cells.iter().take(size * size).enumerate() {
            g = g.set_exponent(i / size, i % size, e).unwrap();
        }
        g
    }

    proptest! {
        /// Every operation on an `AnyBoard` gives what the same operation on
        /// a plain `Grid` gives (the reference), for 4x4 (packed inside) and
        /// the other sizes.
        #[test]
        fn any_board_behaves_as_the_grid(size in 2usize..=6, cells in prop::collection::vec(0u8..=12, 36)) {
            let g = grid(size, &cells);
            let a = AnyBoard::from(g);
            prop_assert_eq!(a.as_packed().is_some(), size == 4);
            prop_assert_eq!(a.to_grid(), g);
            prop_assert_eq!(a.size(), size);
            prop_assert_eq!(a.count_empty(), g.count_empty());
            prop_assert_eq!(a.count_distinct(), g.count_distinct());
            prop_assert_eq!(a.max_exponent(), g.max_exponent());
            prop_assert_eq!(a.tile_sum(), g.tile_sum());
            prop_assert_eq!(a.legal_directions(), g.legal_directions());
            prop_assert!(a.empty_cells().eq(g.empty_cells()));
            prop_assert_eq!(a.to_string(), g.to_string());
            for dir in Direction::ALL {
                let (ours, theirs) = (a.slide(dir), g.slide(dir));
                prop_assert_eq!(ours.map(|(b, s)| (b.to_grid(), s)), theirs);
                prop_assert_eq!(a.slide_unscored(dir).to_grid(), g.slide_unscored(dir));
            }
            prop_assert_eq!(a.slide_each_unscored().map(|b| b.to_grid()), g.slide_each_unscored());
            if let Some(idx) = g.empty_cells().next() {
                let (r, c) = (idx / size, idx % size);
                prop_assert_eq!(a.with_exponent_unchecked(idx, 1).to_grid(), g.with_exponent_unchecked(idx, 1));
                prop_assert_eq!(a.set_exponent(r, c, 2).unwrap().to_grid(), g.set_exponent(r, c, 2).unwrap());
            }
            prop_assert_eq!(a.to_string().parse::<AnyBoard>().unwrap(), a);
        }
    }

    #[test]
    fn a_game_of_any_size_plays_as_its_own_board_type_does() {
        for size in [3, 4, 5] {
            let rules = Rules::default();
            let mut any = Game::<AnyBoard>::with_size(size, rules, 9).unwrap();
            let mut grid = Game::<Grid>::with_size(size, rules, 9).unwrap();
            for dir in Direction::ALL.into_iter().cycle().take(200) {
                assert_eq!(any.play(dir).ok(), grid.play(dir).ok());
                assert_eq!(any.board().to_grid(), *grid.board());
                assert_eq!(any.score(), grid.score());
            }
        }
        let four = Game::<AnyBoard>::with_size(4, Rules::default(), 1).unwrap();
        assert!(four.board().as_packed().is_some());
        assert_eq!(four.board().as_packed(), Some(Game::new(Rules::default(), 1).board()));
    }

    #[test]
    fn sizes_outside_the_range_are_refused() {
        assert!(AnyBoard::empty(1).is_err());
        assert!(AnyBoard::empty(9).is_err());
        assert_eq!(AnyBoard::empty(4).unwrap(), AnyBoard::from(Board::EMPTY));
    }
}

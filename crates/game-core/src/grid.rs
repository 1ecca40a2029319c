//! Boards of any size from 2x2 to 8x8, with exactly the rules of the packed board.

use std::fmt;
use std::str::FromStr;

use crate::direction::Direction;
use crate::error::{ParseBoardError, PlaceError, SizeError};
use crate::limits::{MAX_EXPONENT, MAX_SIZE, MIN_SIZE};
use crate::line::slide_toward_start;
use crate::notation;
use crate::traits::GameBoard;

/// A board of `size` x `size` cells, 2 <= size <= 8, kept as one exponent
/// per cell (up to [`MAX_EXPONENT`], 2^25: see there for why). It is `Copy` (no allocation), so searches can treat it as a
/// value like the packed [`Board`](crate::Board).
///
/// ```
/// use game_core::{Direction, GameBoard, Grid};
///
/// let grid: Grid = "2 2 2/0 0 0/4 0 4".parse()?;
/// let (after, score) = grid.slide(Direction::Right).expect("the tiles move");
/// assert_eq!(after.to_string(), "0 2 4/0 0 0/0 0 8");
/// assert_eq!(score, 12);
/// # Ok::<(), game_core::ParseBoardError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Grid {
    // Invariant: 2 <= size <= 8, cells beyond size*size are 0 (so that the
    // derived Eq and Hash only see the board), every exponent <= MAX_EXPONENT.
    size: u8,
    cells: [u8; MAX_SIZE * MAX_SIZE],
}

impl Grid {
    /// The cells, row-major, `size * size` of them.
    pub fn cells(&self) -> &[u8] {
        &self.cells[..self.n() * self.n()]
    }

    fn n(&self) -> usize {
        usize::from(self.size)
    }

    /// The indices of the cells of line `k` for a push toward `dir`, the cell
    /// nearest the wall first.
    fn line_indices(&self, dir: Direction, k: usize, out: &mut [usize; MAX_SIZE]) {
        let n = self.n();
        for (i, slot) in out.iter_mut().enumerate().take(n) {
            *slot = match dir {
                Direction::Left => k * n + i,
                Direction::Right => k * n + (n - 1 - i),
                Direction::Up => i * n + k,
                Direction::Down => (n - 1 - i) * n + k,
            };
        }
    }
}

impl GameBoard for Grid {
    fn empty(size: usize) -> Result<Grid, SizeError> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(SizeError::OutOfRange { size });
        }
        Ok(Grid { size: size as u8, cells: [0; MAX_SIZE * MAX_SIZE] })
    }

    fn cleared(&self) -> Grid {
        Grid { cells: [0; MAX_SIZE * MAX_SIZE], ..*self }
    }

    fn size(&self) -> usize {
        self.n()
    }

    fn exponent(&self, row: usize, col: usize) -> Option<u8> {
        let n = self.n();
        (row < n && col < n).then(|| self.cells[row * n + col])
    }

    fn set_exponent(&self, row: usize, col: usize, exponent: u8) -> Result<Grid, PlaceError> {
        let n = self.n();
        if row >= n || col >= n {
            return Err(PlaceError::OutOfRange { row, col, size: n });
        }
        if exponent > MAX_EXPONENT {
            return Err(PlaceError::BadExponent { exponent });
        }
        let mut grid = *self;
        grid.cells[row * n + col] = exponent;
        Ok(grid)
    }

    fn with_exponent_unchecked(&self, idx: usize, exponent: u8) -> Grid {
        debug_assert!(idx < self.n() * self.n() && self.cells[idx] == 0);
        debug_assert!(exponent <= MAX_EXPONENT);
        let mut grid = *self;
        if let Some(cell) = grid.cells[..self.n() * self.n()].get_mut(idx) {
            *cell = exponent;
        }
        grid
    }

    fn slide(&self, dir: Direction) -> Option<(Grid, u32)> {
        let n = self.n();
        let mut grid = *self;
        let mut score = 0;
        let mut idx = [0usize; MAX_SIZE];
        let mut line = [0u8; MAX_SIZE];
        for k in 0..n {
            self.line_indices(dir, k, &mut idx);
            for i in 0..n {
                line[i] = self.cells[idx[i]];
            }
            score += slide_toward_start(&mut line[..n]);
            for i in 0..n {
                grid.cells[idx[i]] = line[i];
            }
        }
        (grid != *self).then_some((grid, score))
    }

    fn count_empty(&self) -> usize {
        self.cells().iter().filter(|&&e| e == 0).count()
    }

    fn empty_cells(&self) -> impl Iterator<Item = usize> {
        let cells = *self;
        (0..self.n() * self.n()).filter(move |&i| cells.cells[i] == 0)
    }

    fn max_exponent(&self) -> u8 {
        self.cells().iter().copied().max().unwrap_or(0)
    }
}

impl From<crate::Board> for Grid {
    fn from(board: crate::Board) -> Grid {
        let mut grid = Grid { size: 4, cells: [0; MAX_SIZE * MAX_SIZE] };
        for (row, cells) in board.to_exponents().iter().enumerate() {
            grid.cells[row * 4..row * 4 + 4].copy_from_slice(cells);
        }
        grid
    }
}

impl TryFrom<Grid> for crate::Board {
    type Error = SizeError;

    fn try_from(grid: Grid) -> Result<crate::Board, SizeError> {
        if grid.size != 4 {
            return Err(SizeError::NotPacked { size: grid.n() });
        }
        let mut rows = [[0u8; 4]; 4];
        for (row, cells) in rows.iter_mut().enumerate() {
            cells.copy_from_slice(&grid.cells[row * 4..row * 4 + 4]);
        }
        // Grid exponents are <= MAX_EXPONENT by invariant.
        crate::Board::from_exponents(rows).map_err(|_| SizeError::NotPacked { size: 4 })
    }
}

impl fmt::Display for Grid {
    /// The one-line notation `2 0/0 4`; `{:#}` writes one row a line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        notation::write(self, f)
    }
}

impl fmt::Debug for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Grid({self})")
    }
}

impl FromStr for Grid {
    type Err = ParseBoardError;

    /// Parses the one-line notation or the same grid written one row a line.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        notation::parse(s)
    }
}

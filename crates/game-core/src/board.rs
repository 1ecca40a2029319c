//! The packed 4x4 board: sixteen 4-bit exponents in a `u64`.

use std::fmt;
use std::str::FromStr;

use crate::direction::{Direction, DirectionSet};
use crate::error::{ParseBoardError, PlaceError, SizeError};
use crate::line::MAX_EXPONENT;
use crate::notation;
use crate::tables::{CHANGES, DOWN, LEFT, RIGHT, SCORE, UP};
use crate::traits::GameBoard;

/// A 4x4 board packed in a `u64`, the fast path of the engine.
///
/// Cell (row, col) is the nibble at bits `4 * (4 * row + col)`; it holds the
/// exponent of its tile (0 = empty, 1 = 2, ..., 15 = 32768). Every `u64` is a
/// valid board, which is why [`Board::from_raw`] cannot fail.
///
/// ```
/// use game_core::{Board, Direction};
///
/// let board: Board = "2 2 4 0/0 0 0 0/0 0 0 0/0 0 0 2".parse()?;
/// let (after, score) = board.slide(Direction::Left).expect("the tiles move");
/// assert_eq!(after.to_string(), "4 4 0 0/0 0 0 0/0 0 0 0/2 0 0 0");
/// assert_eq!(score, 4);
/// # Ok::<(), game_core::ParseBoardError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Board(u64);

const ROW_MASK: u64 = 0xFFFF;
const LOW_NIBBLE_BITS: u64 = 0x1111_1111_1111_1111;

impl Board {
    /// The board with no tiles.
    pub const EMPTY: Board = Board(0);

    /// The board whose packed form is `raw`.
    pub const fn from_raw(raw: u64) -> Board {
        Board(raw)
    }

    /// The packed form: cell (row, col) at bits `4 * (4 * row + col)`.
    pub const fn raw(self) -> u64 {
        self.0
    }

    /// Builds a board from exponents, row by row (0 = empty).
    ///
    /// # Errors
    /// [`PlaceError::BadExponent`] if an exponent is above [`MAX_EXPONENT`].
    pub fn from_exponents(rows: [[u8; 4]; 4]) -> Result<Board, PlaceError> {
        let mut raw = 0u64;
        for (row, cells) in rows.iter().enumerate() {
            for (col, &e) in cells.iter().enumerate() {
                if e > MAX_EXPONENT {
                    return Err(PlaceError::BadExponent { exponent: e });
                }
                raw |= u64::from(e) << (4 * (4 * row + col));
            }
        }
        Ok(Board(raw))
    }

    /// The exponents, row by row (0 = empty).
    pub fn to_exponents(self) -> [[u8; 4]; 4] {
        let mut rows = [[0u8; 4]; 4];
        for (row, cells) in rows.iter_mut().enumerate() {
            for (col, cell) in cells.iter_mut().enumerate() {
                *cell = self.exponent_at(4 * row + col);
            }
        }
        rows
    }

    /// The exponent in cell `idx` (`row * 4 + col`).
    #[inline]
    const fn exponent_at(self, idx: usize) -> u8 {
        (self.0 >> (4 * idx) & 0xF) as u8
    }

    /// Row `r` as a `u16`, cell 0 in the lowest nibble. `r` is taken modulo
    /// 4 (this never panics), so pass 0 to 3.
    #[inline]
    pub const fn row(self, r: usize) -> u16 {
        (self.0 >> (16 * (r & 3)) & ROW_MASK) as u16
    }

    /// The board with rows and columns swapped.
    #[inline]
    pub const fn transpose(self) -> Board {
        // Swap 4-bit cells across the diagonal within each 2x2 block, then
        // swap the off-diagonal 2x2 blocks.
        let x = self.0;
        let a1 = x & 0xF0F0_0F0F_F0F0_0F0F;
        let a2 = x & 0x0000_F0F0_0000_F0F0;
        let a3 = x & 0x0F0F_0000_0F0F_0000;
        let a = a1 | (a2 << 12) | (a3 >> 12);
        let b1 = a & 0xFF00_FF00_00FF_00FF;
        let b2 = a & 0x00FF_00FF_0000_0000;
        let b3 = a & 0x0000_0000_FF00_FF00;
        Board(b1 | (b2 >> 24) | (b3 << 24))
    }

    /// The board mirrored left to right (each row reversed).
    #[inline]
    pub const fn mirror(self) -> Board {
        let x = self.0;
        Board(
            (x & 0x000F_000F_000F_000F) << 12
                | (x & 0x00F0_00F0_00F0_00F0) << 4
                | (x & 0x0F00_0F00_0F00_0F00) >> 4
                | (x & 0xF000_F000_F000_F000) >> 12,
        )
    }

    /// The board flipped top to bottom (row order reversed).
    #[inline]
    pub const fn flip(self) -> Board {
        let x = self.0;
        Board(x >> 48 | (x >> 16 & 0xFFFF_0000) | (x << 16 & 0xFFFF_0000_0000) | x << 48)
    }

    /// The 8 symmetries of the square: the identity, the rotations by 90,
    /// 180 and 270 degrees, and the four reflections.
    pub const fn symmetries(self) -> [Board; 8] {
        let t = self.transpose();
        [
            self,
            self.mirror(),
            self.flip(),
            self.mirror().flip(),
            t,
            t.mirror(),
            t.flip(),
            t.mirror().flip(),
        ]
    }

    #[inline]
    fn map_rows(self, table: &[u16; 1 << 16]) -> u64 {
        let x = self.0;
        u64::from(table[(x & ROW_MASK) as usize])
            | u64::from(table[(x >> 16 & ROW_MASK) as usize]) << 16
            | u64::from(table[(x >> 32 & ROW_MASK) as usize]) << 32
            | u64::from(table[(x >> 48) as usize]) << 48
    }

    #[inline]
    fn row_scores(self) -> u32 {
        let x = self.0;
        SCORE[(x & ROW_MASK) as usize]
            + SCORE[(x >> 16 & ROW_MASK) as usize]
            + SCORE[(x >> 32 & ROW_MASK) as usize]
            + SCORE[(x >> 48) as usize]
    }

    /// The four columns, each read top to bottom as a row (row 0 in the
    /// lowest nibble), without a transpose.
    #[inline]
    const fn columns(self) -> [usize; 4] {
        // After the shift and mask, row k of column c sits at bits 16k. The
        // multiplier 2^48 + 2^36 + 2^24 + 2^12 moves row k to bits 48 + 4k;
        // every other product lands below bit 48, on nibbles of its own, so
        // no carry reaches the top 16 bits.
        const MASK: u64 = 0x000F_000F_000F_000F;
        const GATHER: u64 = 0x0001_0010_0100_1000;
        let x = self.0;
        [
            ((x & MASK).wrapping_mul(GATHER) >> 48) as usize,
            ((x >> 4 & MASK).wrapping_mul(GATHER) >> 48) as usize,
            ((x >> 8 & MASK).wrapping_mul(GATHER) >> 48) as usize,
            ((x >> 12 & MASK).wrapping_mul(GATHER) >> 48) as usize,
        ]
    }

    /// Looks each column up in `table`, whose entries put the moved column
    /// back in column 0, and shifts it into place: a move up or down with no
    /// transpose at all.
    #[inline]
    fn map_columns(columns: [usize; 4], table: &[u64; 1 << 16]) -> u64 {
        table[columns[0]]
            | table[columns[1]] << 4
            | table[columns[2]] << 8
            | table[columns[3]] << 12
    }

    /// The board after pushing the tiles toward `dir`, without the score; the
    /// board itself when nothing moves. This is the search's hot path.
    #[inline]
    pub fn shift(self, dir: Direction) -> Board {
        match dir {
            Direction::Left => Board(self.map_rows(&LEFT)),
            Direction::Right => Board(self.map_rows(&RIGHT)),
            Direction::Up => Board(Board::map_columns(self.columns(), &UP)),
            Direction::Down => Board(Board::map_columns(self.columns(), &DOWN)),
        }
    }

    /// The board after pushing the tiles toward `dir` and the score gained,
    /// or `None` when nothing moves.
    #[inline]
    pub fn slide(self, dir: Direction) -> Option<(Board, u32)> {
        let (after, score) = match dir {
            Direction::Left => (self.map_rows(&LEFT), self.row_scores()),
            Direction::Right => (self.map_rows(&RIGHT), self.row_scores()),
            Direction::Up | Direction::Down => {
                let cols = self.columns();
                let table = if dir == Direction::Up { &UP } else { &DOWN };
                let score = SCORE[cols[0]] + SCORE[cols[1]] + SCORE[cols[2]] + SCORE[cols[3]];
                (Board::map_columns(cols, table), score)
            }
        };
        (after != self.0).then_some((Board(after), score))
    }

    /// The directions that change the board, by one table of "this line
    /// changes" bits looked up for the rows and for the columns.
    #[inline]
    pub fn legal_directions(self) -> DirectionSet {
        let x = self.0;
        let rows = CHANGES[(x & ROW_MASK) as usize]
            | CHANGES[(x >> 16 & ROW_MASK) as usize]
            | CHANGES[(x >> 32 & ROW_MASK) as usize]
            | CHANGES[(x >> 48) as usize];
        let c = self.columns();
        let columns = CHANGES[c[0]] | CHANGES[c[1]] | CHANGES[c[2]] | CHANGES[c[3]];
        // Bit 0 of CHANGES is "toward cell 0": left for rows, up for columns.
        DirectionSet::from_toward_start_end(columns, rows)
    }

    /// The number of empty cells.
    #[inline]
    pub const fn count_empty(self) -> u32 {
        self.empty_mask().count_ones()
    }

    /// One bit per empty cell: bit `4 * idx` is set when cell `idx` is empty.
    #[inline]
    pub const fn empty_mask(self) -> u64 {
        // Fold each nibble's four bits into its lowest bit, then invert.
        let mut x = self.0;
        x |= x >> 2 & 0x3333_3333_3333_3333;
        x |= x >> 1;
        !x & LOW_NIBBLE_BITS
    }

    /// The indices (`row * 4 + col`) of the empty cells, in row-major order.
    pub fn empty_indices(self) -> impl Iterator<Item = usize> {
        let mut mask = self.empty_mask();
        std::iter::from_fn(move || {
            if mask == 0 {
                return None;
            }
            let bit = mask.trailing_zeros();
            mask &= mask - 1;
            Some(bit as usize / 4)
        })
    }

    /// The board with a tile of exponent `exponent` added in cell `idx`.
    ///
    /// The cell must be empty and `idx < 16`, `exponent <= 15`; this is not
    /// checked in release builds (the result is then a different board), use
    /// [`GameBoard::place`] for a checked version.
    #[inline]
    pub const fn with_tile_unchecked(self, idx: usize, exponent: u8) -> Board {
        debug_assert!(idx < 16 && exponent <= MAX_EXPONENT);
        debug_assert!(self.exponent_at(idx) == 0);
        Board(self.0 | (exponent as u64) << (4 * idx))
    }

    /// The largest exponent on the board (0 for an empty board).
    pub fn max_exponent(self) -> u8 {
        (0..16).map(|i| self.exponent_at(i)).max().unwrap_or(0)
    }

    /// The number of distinct tile values on the board.
    pub fn count_distinct(self) -> u32 {
        let mut seen = 0u32;
        let mut x = self.0;
        while x != 0 {
            seen |= 1 << (x & 0xF);
            x >>= 4;
        }
        (seen >> 1).count_ones()
    }
}

impl GameBoard for Board {
    fn empty(size: usize) -> Result<Board, SizeError> {
        if size == 4 { Ok(Board::EMPTY) } else { Err(SizeError::NotPacked { size }) }
    }

    fn size(&self) -> usize {
        4
    }

    fn exponent(&self, row: usize, col: usize) -> Option<u8> {
        (row < 4 && col < 4).then(|| self.exponent_at(4 * row + col))
    }

    fn with_exponent_unchecked(&self, idx: usize, exponent: u8) -> Board {
        self.with_tile_unchecked(idx, exponent)
    }

    fn set_exponent(&self, row: usize, col: usize, exponent: u8) -> Result<Board, PlaceError> {
        if row >= 4 || col >= 4 {
            return Err(PlaceError::OutOfRange { row, col, size: 4 });
        }
        if exponent > MAX_EXPONENT {
            return Err(PlaceError::BadExponent { exponent });
        }
        let shift = 4 * (4 * row + col);
        Ok(Board(self.0 & !(0xF << shift) | u64::from(exponent) << shift))
    }

    fn slide(&self, dir: Direction) -> Option<(Board, u32)> {
        Board::slide(*self, dir)
    }

    fn shift(&self, dir: Direction) -> Board {
        Board::shift(*self, dir)
    }

    fn count_empty(&self) -> usize {
        Board::count_empty(*self) as usize
    }

    fn empty_cells(&self) -> impl Iterator<Item = usize> {
        self.empty_indices()
    }

    fn max_exponent(&self) -> u8 {
        Board::max_exponent(*self)
    }

    fn legal_directions(&self) -> DirectionSet {
        Board::legal_directions(*self)
    }
}

impl fmt::Display for Board {
    /// The one-line notation `2 0 0 4/0 0 0 0/...`; `{:#}` writes one row a line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        notation::write(self, f)
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board({:#018x}: {self})", self.0)
    }
}

impl FromStr for Board {
    type Err = ParseBoardError;

    /// Parses the one-line notation or the same grid written one row a line.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        notation::parse(s)
    }
}

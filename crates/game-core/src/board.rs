//! The packed 4x4 board: sixteen 4-bit exponents in a `u64`, and a second
//! word for tiles above 32768.

use std::fmt;
use std::str::FromStr;

use crate::direction::{Direction, DirectionSet};
use crate::error::{ParseBoardError, PlaceError, SizeError};
use crate::limits::MAX_EXPONENT;
use crate::line::slide_toward_start;
use crate::notation;
use crate::tables::{CHANGES, DOWN, LEFT, RIGHT, SCORE, UP};
use crate::traits::GameBoard;

/// A 4x4 board packed in a `u64`, the fast path of the engine, with a second
/// word for the rare tiles above 32768.
///
/// Cell (row, col) is the nibble at bits `4 * (4 * row + col)` of the packed
/// form [`Board::raw`]; it holds the exponent of its tile (0 = empty, 1 = 2,
/// ..., 15 = 32768). A tile above 32768 (65536 and 131072 on a real game,
/// any exponent up to [`MAX_EXPONENT`] here) keeps 15 in its nibble and,
/// in the same nibble of a second word, its exponent less 14 (2 for
/// 65536, 3 for 131072), so that a nibble of 1 there is never a tile.
///
/// Moves go through tables of 16-bit rows while the board has no tile above
/// 32768 and at most one 32768 (so that no row can merge two 32768 into
/// 65536); any other board slides line by line through the same rule. The
/// second word is kept non-zero on exactly those other boards (a board with
/// two 32768 and no larger tile holds a marker there), so the check is one
/// test of it; a move on the tables looks for a second 32768 only when it
/// can make one. The slow case starts only once a game has built two 32768
/// tiles. docs/rules.md explains the choice and gives its cost.
///
/// ```
/// use game_core::{Board, Direction};
///
/// let board: Board = "2 2 4 0/0 0 0 0/0 0 0 0/0 0 0 2".parse()?;
/// let (after, score) = board.slide(Direction::Left).expect("the tiles move");
/// assert_eq!(after.to_string(), "4 4 0 0/0 0 0 0/0 0 0 0/2 0 0 0");
/// assert_eq!(score, 4);
///
/// let big: Board = "32768 32768 0 0/0 0 0 0/0 0 0 0/0 0 0 0".parse()?;
/// let (after, score) = big.slide(Direction::Left).expect("the 32768s merge");
/// assert_eq!(after.to_string(), "65536 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0");
/// assert_eq!(score, 65536);
/// # Ok::<(), game_core::ParseBoardError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Board {
    // Invariant: e <= MAX_EXPONENT for every cell of exponent e, and its
    // nibble of `cells` is min(e, 15). When a tile is above 32768, the
    // nibble of `over` of every cell is e - 14 when e > 15 (2 to 11), else
    // 0, so `over` >= 2. Otherwise `over` is TWO_32768 (1) when two or more
    // tiles are 32768, else 0. So `over == 0` says exactly that the row
    // tables may move the board and `over <= 1` that no tile is above
    // 32768, each in one compare; a board with no tile above 32768 is its
    // `cells`; and the derived Eq, Hash and Ord are those of the tiles,
    // since each board has one representation.
    cells: u64,
    over: u64,
}

/// `over` of a board with two or more 32768 tiles and none larger: below
/// every second word that holds a tile (each has a nibble of 2 or more), so
/// that "no tile above 32768" is `over <= TWO_32768`.
const TWO_32768: u64 = 1;

const ROW_MASK: u64 = 0xFFFF;
const LOW_NIBBLE_BITS: u64 = 0x1111_1111_1111_1111;

/// One bit per cell (bit `4 * idx`) whose nibble is 15: bit `i` of
/// `x & x >> 1` says bits `i` and `i + 1` are set, and the same step by two
/// says bits `i` to `i + 3` are. One 64-bit constant, which matters in loops
/// that keep few registers free.
#[inline]
const fn full_nibbles(x: u64) -> u64 {
    let pairs = x & x >> 1;
    pairs & pairs >> 2 & LOW_NIBBLE_BITS
}

/// Whether two or more nibbles of `x` are 15.
#[inline]
const fn two_full(x: u64) -> bool {
    let full = full_nibbles(x);
    full & full.wrapping_sub(1) != 0
}

/// Non-zero when two or more nibbles of `x` are 14 or 15: bit
/// `4 * idx + 1` of `high` says bits 1 to 3 of nibble `idx` are set, and
/// `high & (high - 1)` drops its lowest bit. A move on the tables makes a
/// second 32768 only from two 16384, so only from such a board.
#[inline]
const fn two_at_least_14(x: u64) -> u64 {
    let high = x & x >> 1 & x >> 2 & LOW_NIBBLE_BITS << 1;
    high & high.wrapping_sub(1)
}

/// The cell indices of line `k` for a push toward `dir`, the wall first.
const fn line_cells(dir: Direction, k: usize) -> [usize; 4] {
    match dir {
        Direction::Left => [4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3],
        Direction::Right => [4 * k + 3, 4 * k + 2, 4 * k + 1, 4 * k],
        Direction::Up => [k, 4 + k, 8 + k, 12 + k],
        Direction::Down => [12 + k, 8 + k, 4 + k, k],
    }
}

/// Swaps 4-bit cells across the diagonal of a packed word.
#[inline]
const fn transpose_word(x: u64) -> u64 {
    // Swap 4-bit cells across the diagonal within each 2x2 block, then swap
    // the off-diagonal 2x2 blocks.
    let a1 = x & 0xF0F0_0F0F_F0F0_0F0F;
    let a2 = x & 0x0000_F0F0_0000_F0F0;
    let a3 = x & 0x0F0F_0000_0F0F_0000;
    let a = a1 | (a2 << 12) | (a3 >> 12);
    let b1 = a & 0xFF00_FF00_00FF_00FF;
    let b2 = a & 0x00FF_00FF_0000_0000;
    let b3 = a & 0x0000_0000_FF00_FF00;
    b1 | (b2 >> 24) | (b3 << 24)
}

#[inline]
const fn mirror_word(x: u64) -> u64 {
    (x & 0x000F_000F_000F_000F) << 12
        | (x & 0x00F0_00F0_00F0_00F0) << 4
        | (x & 0x0F00_0F00_0F00_0F00) >> 4
        | (x & 0xF000_F000_F000_F000) >> 12
}

#[inline]
const fn flip_word(x: u64) -> u64 {
    x >> 48 | (x >> 16 & 0xFFFF_0000) | (x << 16 & 0xFFFF_0000_0000) | x << 48
}

/// A packed word in the 8 symmetries of [`Board::symmetries`], in its
/// order, with the transpose and each mirror computed once: the n-tuple
/// trainer spent an eighth of its instructions on the symmetries when every
/// one redid its mirrors and flips
/// (docs/experiments/2026-11-23-training-speed.md).
#[inline]
const fn symmetric_words(x: u64) -> [u64; 8] {
    let (m, t) = (mirror_word(x), transpose_word(x));
    let tm = mirror_word(t);
    [x, m, flip_word(x), flip_word(m), t, tm, flip_word(t), flip_word(tm)]
}

impl Board {
    /// The board with no tiles.
    pub const EMPTY: Board = Board { cells: 0, over: 0 };

    /// The board whose packed form is `raw` (every tile at most 32768).
    #[inline]
    pub const fn from_raw(raw: u64) -> Board {
        Board { cells: raw, over: if two_full(raw) { TWO_32768 } else { 0 } }
    }

    /// The board with these words, `big` holding the tiles above 32768 as
    /// in the invariant (0 when there is none): the one place that sets the
    /// marker of two 32768.
    #[inline]
    const fn from_words(cells: u64, big: u64) -> Board {
        if big != 0 { Board { cells, over: big } } else { Board::from_raw(cells) }
    }

    /// The second word of the tiles above 32768 (0 when there is none).
    #[inline]
    const fn big(self) -> u64 {
        if self.over == TWO_32768 { 0 } else { self.over }
    }

    /// The packed form: cell (row, col) at bits `4 * (4 * row + col)`.
    ///
    /// It is exact when every tile is at most 32768 ([`Board::is_packed`]);
    /// a larger tile reads as 15 (32768) here, which is the clamp the
    /// tables of 16-bit rows (evaluators, the n-tuple network) see.
    #[inline]
    pub const fn raw(self) -> u64 {
        self.cells
    }

    /// Whether every tile is at most 32768, so that [`Board::raw`] is the
    /// whole board and `Board::from_raw(board.raw()) == board`.
    #[inline]
    pub const fn is_packed(self) -> bool {
        self.over <= TWO_32768
    }

    /// Builds a board from exponents, row by row (0 = empty).
    ///
    /// # Errors
    /// [`PlaceError::BadExponent`] if an exponent is above [`MAX_EXPONENT`].
    pub fn from_exponents(rows: [[u8; 4]; 4]) -> Result<Board, PlaceError> {
        let mut board = Board::EMPTY;
        for (row, cells) in rows.iter().enumerate() {
            for (col, &e) in cells.iter().enumerate() {
                if e > MAX_EXPONENT {
                    return Err(PlaceError::BadExponent { exponent: e });
                }
                board = board.with_exponent_unchecked(4 * row + col, e);
            }
        }
        Ok(board)
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
        let over = (self.big() >> (4 * idx) & 0xF) as u8;
        (self.cells >> (4 * idx) & 0xF) as u8 + over.saturating_sub(1)
    }

    /// The sixteen exponents, row-major.
    fn exponents(self) -> [u8; 16] {
        std::array::from_fn(|i| self.exponent_at(i))
    }

    /// The board with these sixteen exponents (each at most
    /// [`MAX_EXPONENT`]).
    fn from_cells(exponents: &[u8; 16]) -> Board {
        exponents
            .iter()
            .enumerate()
            .fold(Board::EMPTY, |board, (i, &e)| board.with_exponent_unchecked(i, e))
    }

    /// Whether a move must take the line-by-line path: a tile above 32768,
    /// or two 32768 tiles, which the 16-bit row tables cannot merge. By the
    /// invariant, that is a non-zero second word.
    #[inline]
    const fn needs_lines(self) -> bool {
        self.over != 0
    }

    // The symmetries move both words alike; the second is zero on almost
    // every board, and moving zero gives zero, so it is skipped then, and
    // so is the marker TWO_32768, which stays as it is.

    /// The board with rows and columns swapped.
    #[inline]
    pub const fn transpose(self) -> Board {
        let over = if self.over <= TWO_32768 { self.over } else { transpose_word(self.over) };
        Board { cells: transpose_word(self.cells), over }
    }

    /// The board mirrored left to right (each row reversed).
    #[inline]
    pub const fn mirror(self) -> Board {
        let over = if self.over <= TWO_32768 { self.over } else { mirror_word(self.over) };
        Board { cells: mirror_word(self.cells), over }
    }

    /// The board flipped top to bottom (row order reversed).
    #[inline]
    pub const fn flip(self) -> Board {
        let over = if self.over <= TWO_32768 { self.over } else { flip_word(self.over) };
        Board { cells: flip_word(self.cells), over }
    }

    /// The 8 symmetries of the square: the identity, the rotations by 90,
    /// 180 and 270 degrees, and the four reflections.
    #[inline]
    pub const fn symmetries(self) -> [Board; 8] {
        let cells = symmetric_words(self.cells);
        // The second word moves with the first, except 0 and the marker,
        // which every symmetric board shares (as in `transpose`).
        let over = if self.over <= TWO_32768 { [self.over; 8] } else { symmetric_words(self.over) };
        let mut out = [Board::EMPTY; 8];
        let mut i = 0;
        while i < 8 {
            out[i] = Board { cells: cells[i], over: over[i] };
            i += 1;
        }
        out
    }

    #[inline]
    fn map_rows(x: u64, table: &[u16; 1 << 16]) -> u64 {
        u64::from(table[(x & ROW_MASK) as usize])
            | u64::from(table[(x >> 16 & ROW_MASK) as usize]) << 16
            | u64::from(table[(x >> 32 & ROW_MASK) as usize]) << 32
            | u64::from(table[(x >> 48) as usize]) << 48
    }

    #[inline]
    fn row_scores(x: u64) -> u32 {
        SCORE[(x & ROW_MASK) as usize]
            + SCORE[(x >> 16 & ROW_MASK) as usize]
            + SCORE[(x >> 32 & ROW_MASK) as usize]
            + SCORE[(x >> 48) as usize]
    }

    /// The four columns, each read top to bottom as a row (row 0 in the
    /// lowest nibble), without a transpose.
    #[inline]
    const fn columns(x: u64) -> [usize; 4] {
        // After the shift and mask, row k of column c sits at bits 16k. The
        // multiplier 2^48 + 2^36 + 2^24 + 2^12 moves row k to bits 48 + 4k;
        // every other product lands below bit 48, on nibbles of its own, so
        // no carry reaches the top 16 bits.
        const MASK: u64 = 0x000F_000F_000F_000F;
        const GATHER: u64 = 0x0001_0010_0100_1000;
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

    /// The move of a board the tables cannot take ([`Board::needs_lines`]),
    /// each line through the rule itself. The board and the score, even when
    /// nothing moves.
    #[cold]
    #[inline(never)]
    fn slide_lines(self, dir: Direction) -> (Board, u32) {
        let mut cells = self.exponents();
        let mut score = 0;
        for k in 0..4 {
            let idx = line_cells(dir, k);
            let mut line = idx.map(|i| cells[i]);
            score += slide_toward_start(&mut line);
            for (&i, e) in idx.iter().zip(line) {
                cells[i] = e;
            }
        }
        (Board::from_cells(&cells), score)
    }

    /// The board after pushing the tiles toward `dir`, without the score; the
    /// board itself when nothing moves. This is the search's hot path.
    #[inline]
    pub fn slide_unscored(self, dir: Direction) -> Board {
        if self.needs_lines() {
            return self.slide_lines(dir).0;
        }
        let x = self.cells;
        let cells = match dir {
            Direction::Left => Board::map_rows(x, &LEFT),
            Direction::Right => Board::map_rows(x, &RIGHT),
            Direction::Up => Board::map_columns(Board::columns(x), &UP),
            Direction::Down => Board::map_columns(Board::columns(x), &DOWN),
        };
        // The move may have made a second 32768; a caller that keeps only
        // the packed form does not pay for finding out.
        Board::from_raw(cells)
    }

    /// [`Board::slide_unscored`] in each direction, in [`Direction::ALL`]
    /// order (up, down, left, right), with one check of the path and one
    /// gathering of the columns for the four.
    ///
    /// Always inlined: the search's max node is its one hot caller, and as
    /// a call the four boards (eight words) went back through memory
    /// (callgrind, the solver's positions run: 164 M of 4,231 M
    /// instructions; docs/performance-game-core.md).
    #[inline(always)]
    pub fn slide_each_unscored(self) -> [Board; 4] {
        // One test of the parent instead of one per child (as one branch):
        // without two tiles of 16384 or more, no child has two 32768.
        let x = self.cells;
        if self.over | two_at_least_14(x) != 0 {
            return self.slide_each_rare();
        }
        let cols = Board::columns(x);
        let packed = |cells| Board { cells, over: 0 };
        [
            packed(Board::map_columns(cols, &UP)),
            packed(Board::map_columns(cols, &DOWN)),
            packed(Board::map_rows(x, &LEFT)),
            packed(Board::map_rows(x, &RIGHT)),
        ]
    }

    /// [`Board::slide_each_unscored`] of a board the tables cannot take, or
    /// whose children may hold two 32768.
    #[cold]
    #[inline(never)]
    fn slide_each_rare(self) -> [Board; 4] {
        if self.needs_lines() {
            return Direction::ALL.map(|d| self.slide_lines(d).0);
        }
        let x = self.cells;
        let cols = Board::columns(x);
        [
            Board::map_columns(cols, &UP),
            Board::map_columns(cols, &DOWN),
            Board::map_rows(x, &LEFT),
            Board::map_rows(x, &RIGHT),
        ]
        .map(Board::from_raw)
    }

    /// [`Board::slide`] on the line-by-line path.
    #[cold]
    #[inline(never)]
    fn slide_lines_checked(self, dir: Direction) -> Option<(Board, u32)> {
        let (after, score) = self.slide_lines(dir);
        (after != self).then_some((after, score))
    }

    /// [`Board::legal_directions`] on the line-by-line path.
    #[cold]
    #[inline(never)]
    fn legal_lines(self) -> DirectionSet {
        Direction::ALL.into_iter().filter(|&d| self.slide_lines(d).0 != self).collect()
    }

    /// The board after pushing the tiles toward `dir` and the score gained,
    /// or `None` when nothing moves.
    #[inline]
    pub fn slide(self, dir: Direction) -> Option<(Board, u32)> {
        if self.needs_lines() {
            return self.slide_lines_checked(dir);
        }
        let x = self.cells;
        let (after, score) = match dir {
            Direction::Left => (Board::map_rows(x, &LEFT), Board::row_scores(x)),
            Direction::Right => (Board::map_rows(x, &RIGHT), Board::row_scores(x)),
            Direction::Up | Direction::Down => {
                let cols = Board::columns(x);
                let table = if dir == Direction::Up { &UP } else { &DOWN };
                let score = SCORE[cols[0]] + SCORE[cols[1]] + SCORE[cols[2]] + SCORE[cols[3]];
                (Board::map_columns(cols, table), score)
            }
        };
        // A second 32768 comes from merging two 16384, which scores 32768.
        let over = if score >= 1 << 15 && two_full(after) { TWO_32768 } else { 0 };
        (after != x).then_some((Board { cells: after, over }, score))
    }

    /// The directions that change the board, by one table of "this line
    /// changes" bits looked up for the rows and for the columns.
    #[inline]
    pub fn legal_directions(self) -> DirectionSet {
        if self.needs_lines() {
            return self.legal_lines();
        }
        let x = self.cells;
        let rows = CHANGES[(x & ROW_MASK) as usize]
            | CHANGES[(x >> 16 & ROW_MASK) as usize]
            | CHANGES[(x >> 32 & ROW_MASK) as usize]
            | CHANGES[(x >> 48) as usize];
        let c = Board::columns(x);
        let columns = CHANGES[c[0]] | CHANGES[c[1]] | CHANGES[c[2]] | CHANGES[c[3]];
        // Bit 0 of CHANGES is "toward cell 0": left for rows, up for columns.
        DirectionSet::from_toward_start_end(columns, rows)
    }

    /// The number of empty cells.
    #[inline]
    pub const fn count_empty(self) -> usize {
        self.empty_mask().count_ones() as usize
    }

    /// One bit per empty cell: bit `4 * idx` is set when cell `idx` is empty.
    #[inline]
    pub const fn empty_mask(self) -> u64 {
        // Fold each nibble's four bits into its lowest bit, then invert. A
        // tile above 32768 has 15 in its nibble, so it is never empty.
        let mut x = self.cells;
        x |= x >> 2 & 0x3333_3333_3333_3333;
        x |= x >> 1;
        !x & LOW_NIBBLE_BITS
    }

    /// The indices (`row * 4 + col`) of the empty cells, in row-major order.
    pub fn empty_cells(self) -> impl Iterator<Item = usize> {
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
    /// The cell must be empty and `idx < 16`, `exponent <=` [`MAX_EXPONENT`];
    /// this is not checked in release builds (the result is then a different
    /// board), use [`GameBoard::place`] for a checked version.
    #[inline]
    pub const fn with_exponent_unchecked(self, idx: usize, exponent: u8) -> Board {
        debug_assert!(idx < 16 && exponent <= MAX_EXPONENT);
        debug_assert!(self.exponent_at(idx) == 0);
        let shift = 4 * (idx & 15);
        // A tile below 32768 changes neither the remainders nor the count
        // of 32768 tiles, so the second word stays as it is.
        if exponent < 15 {
            return Board { cells: self.cells | (exponent as u64) << shift, over: self.over };
        }
        let rest = if exponent > 15 { exponent - 14 } else { 0 };
        Board::from_words(self.cells | 0xF << shift, self.big() | (rest as u64 & 0xF) << shift)
    }

    /// The largest exponent on the board (0 for an empty board).
    pub fn max_exponent(self) -> u8 {
        (0..16).map(|i| self.exponent_at(i)).max().unwrap_or(0)
    }

    /// The number of distinct tile values on the board.
    #[inline]
    pub fn count_distinct(self) -> usize {
        let mut seen = 0u32;
        if self.over == 0 {
            let mut x = self.cells;
            while x != 0 {
                seen |= 1 << (x & 0xF);
                x >>= 4;
            }
        } else {
            for e in self.exponents() {
                seen |= 1 << e;
            }
        }
        (seen >> 1).count_ones() as usize
    }
}

impl GameBoard for Board {
    #[inline]
    fn empty(size: usize) -> Result<Board, SizeError> {
        if size == 4 { Ok(Board::EMPTY) } else { Err(SizeError::NotPacked { size }) }
    }

    #[inline]
    fn cleared(&self) -> Board {
        Board::EMPTY
    }

    #[inline]
    fn size(&self) -> usize {
        4
    }

    #[inline]
    fn exponent(&self, row: usize, col: usize) -> Option<u8> {
        (row < 4 && col < 4).then(|| self.exponent_at(4 * row + col))
    }

    #[inline]
    fn with_exponent_unchecked(&self, idx: usize, exponent: u8) -> Board {
        Board::with_exponent_unchecked(*self, idx, exponent)
    }

    #[inline]
    fn set_exponent(&self, row: usize, col: usize, exponent: u8) -> Result<Board, PlaceError> {
        if row >= 4 || col >= 4 {
            return Err(PlaceError::OutOfRange { row, col, size: 4 });
        }
        if exponent > MAX_EXPONENT {
            return Err(PlaceError::BadExponent { exponent });
        }
        let idx = 4 * row + col;
        let clear = !(0xF << (4 * idx));
        let cleared = Board::from_words(self.cells & clear, self.big() & clear);
        Ok(cleared.with_exponent_unchecked(idx, exponent))
    }

    #[inline]
    fn slide(&self, dir: Direction) -> Option<(Board, u32)> {
        Board::slide(*self, dir)
    }

    #[inline]
    fn slide_unscored(&self, dir: Direction) -> Board {
        Board::slide_unscored(*self, dir)
    }

    #[inline(always)]
    fn slide_each_unscored(&self) -> [Board; 4] {
        Board::slide_each_unscored(*self)
    }

    #[inline]
    fn is_moved_to(&self, after: &Board) -> bool {
        // A move that changes the board moves a tile into an empty cell or
        // merges two (so one cell empties): either way the cells holding a
        // tile change, and every tile has a non-zero nibble in `cells`. So
        // the first words differ exactly when the boards do, and the second
        // need not be compared.
        debug_assert_eq!(self.cells != after.cells, self != after);
        self.cells != after.cells
    }

    #[inline]
    fn count_empty(&self) -> usize {
        Board::count_empty(*self)
    }

    #[inline]
    fn empty_cells(&self) -> impl Iterator<Item = usize> {
        Board::empty_cells(*self)
    }

    #[inline]
    fn max_exponent(&self) -> u8 {
        Board::max_exponent(*self)
    }

    #[inline]
    fn count_distinct(&self) -> usize {
        Board::count_distinct(*self)
    }

    #[inline]
    fn legal_directions(&self) -> DirectionSet {
        Board::legal_directions(*self)
    }

    #[inline]
    fn packed(&self) -> Option<u64> {
        self.is_packed().then_some(self.cells)
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
        if self.is_packed() {
            write!(f, "Board({:#018x}: {self})", self.cells)
        } else {
            write!(f, "Board({:#018x} + {:#018x}: {self})", self.cells, self.over)
        }
    }
}

impl FromStr for Board {
    type Err = ParseBoardError;

    /// Parses the one-line notation or the same grid written one row a line.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        notation::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The second word as the invariant defines it, from the exponents
    /// alone: exponent less 14 for each tile above 32768 when there is one,
    /// the marker when two or more are 32768, else 0.
    fn expected_over(board: Board) -> u64 {
        let exponents = board.exponents();
        let big = exponents
            .iter()
            .enumerate()
            .fold(0u64, |acc, (i, &e)| acc | if e > 15 { u64::from(e - 14) << (4 * i) } else { 0 });
        let n_32768 = exponents.iter().filter(|&&e| e == 15).count();
        match (big, n_32768) {
            (0, 0 | 1) => 0,
            (0, _) => TWO_32768,
            (big, _) => big,
        }
    }

    #[track_caller]
    fn check(board: Board) {
        assert_eq!(board.over, expected_over(board), "{board:?}");
        assert_eq!(board.needs_lines(), board.over != 0);
        assert_eq!(board.is_packed(), board.max_exponent() <= 15);
        assert_eq!(Board::from_exponents(board.to_exponents()), Ok(board));
    }

    fn parse(s: &str) -> Board {
        s.parse().expect("a valid board")
    }

    /// A table move that makes a second 32768 sets the marker, in every
    /// move function, and the next move merges the two 32768 into 65536.
    #[test]
    fn a_second_32768_from_the_tables_is_marked_then_merges() {
        let board = parse("32768 0 0 0/16384 16384 0 0/0 0 0 0/0 0 0 2");
        assert_eq!(board.over, 0);
        let (after, score) = board.slide(Direction::Left).expect("the 16384s merge");
        assert_eq!(score, 32768);
        assert_eq!(after, parse("32768 0 0 0/32768 0 0 0/0 0 0 0/2 0 0 0"));
        assert_eq!(after.over, TWO_32768);
        assert_eq!(board.slide_unscored(Direction::Left), after);
        assert_eq!(board.slide_each_unscored()[2], after);
        check(after);

        let (merged, score) = after.slide(Direction::Up).expect("the 32768s merge");
        assert_eq!(score, 65536);
        assert_eq!(merged, parse("65536 0 0 0/2 0 0 0/0 0 0 0/0 0 0 0"));
        check(merged);
        // Every tile is in the first column: all but left move it.
        let legal: Vec<Direction> = after.legal_directions().iter().collect();
        assert_eq!(legal, [Direction::Up, Direction::Down, Direction::Right]);
    }

    /// Two 32768 made by one move on a board with none, in a row and in a
    /// column, and a move that makes one 32768 only (no marker).
    #[test]
    fn two_32768_at_once() {
        let row = parse("16384 16384 16384 16384/0 0 0 0/0 0 0 0/0 0 0 0");
        let (after, score) = row.slide(Direction::Right).expect("they merge");
        assert_eq!(score, 65536);
        assert_eq!(after, parse("0 0 32768 32768/0 0 0 0/0 0 0 0/0 0 0 0"));
        assert_eq!(after.over, TWO_32768);
        let column = row.transpose();
        for (i, b) in column.slide_each_unscored().into_iter().enumerate() {
            check(b);
            assert_eq!(b, column.slide_unscored(Direction::ALL[i]));
        }
        assert_eq!(column.slide_unscored(Direction::Down).over, TWO_32768);
        // Two 16384 and nothing else: one 32768, the tables still serve.
        let one = parse("16384 16384 0 0/0 0 0 0/0 0 0 0/0 0 0 0");
        let (after, _) = one.slide(Direction::Left).expect("they merge");
        assert_eq!(after.over, 0);
        check(one.slide_each_unscored()[2]);
    }

    /// Every constructor and edit keeps the invariant: parsing, `from_raw`,
    /// placing and clearing tiles, the symmetries.
    #[test]
    fn constructors_and_edits_keep_the_second_word() {
        let two = Board::from_raw(0xF00F);
        assert_eq!(two.over, TWO_32768);
        assert_eq!(two, parse("32768 0 0 32768/0 0 0 0/0 0 0 0/0 0 0 0"));
        assert!(two.is_packed());
        assert_eq!(Board::from_raw(two.raw()), two);
        assert_eq!(GameBoard::packed(&two), Some(0xF00F));
        for b in two.symmetries() {
            check(b);
        }
        let one = two.set_exponent(0, 3, 0).expect("in range");
        assert_eq!(one.over, 0);
        let again = one.with_exponent_unchecked(15, 15);
        assert_eq!(again.over, TWO_32768);
        // A big tile takes the second word; clearing it leaves the marker.
        let big = again.set_exponent(1, 1, 17).expect("in range");
        assert_eq!(big.exponent(1, 1), Some(17));
        check(big);
        assert!(!big.is_packed());
        let cleared = big.set_exponent(1, 1, 0).expect("in range");
        assert_eq!(cleared, again);
        check(cleared);
        // Sixteen 32768: every nibble full in both words' senses.
        let full = Board::from_exponents([[15; 4]; 4]).expect("within the cap");
        check(full);
        assert_eq!(full.max_exponent(), 15);
        let (merged, score) = full.slide(Direction::Left).expect("they merge");
        assert_eq!(score, 8 * 65536);
        check(merged);
        for e in [0, 1, 14, 15, 16, 17, MAX_EXPONENT] {
            for idx in [0, 5, 15] {
                check(two.set_exponent(idx / 4, idx % 4, e).expect("in range"));
                check(Board::from_raw(0xF).set_exponent(idx / 4, idx % 4, e).expect("in range"));
            }
        }
    }
}

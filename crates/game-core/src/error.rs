//! The errors of game-core: small enums, one message per variant.

use std::fmt;

use crate::direction::Direction;

use crate::limits::{MAX_EXPONENT, MAX_SIZE, MAX_TILE, MIN_SIZE};

/// A board size this board type cannot have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeError {
    /// Outside 2..=8.
    OutOfRange {
        /// The size asked for.
        size: usize,
    },
    /// The packed [`Board`](crate::Board) is 4x4 only.
    NotPacked {
        /// The size asked for.
        size: usize,
    },
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SizeError::OutOfRange { size } => {
                write!(f, "board size {size} is not supported (expected {MIN_SIZE} to {MAX_SIZE})")
            }
            SizeError::NotPacked { size } => {
                write!(f, "the packed board is 4x4, not {size}x{size} (use Grid for other sizes)")
            }
        }
    }
}

impl std::error::Error for SizeError {}

/// Why a tile cannot be put on a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlaceError {
    /// The cell is not on the board.
    OutOfRange {
        /// The row asked for.
        row: usize,
        /// The column asked for.
        col: usize,
        /// The board's size.
        size: usize,
    },
    /// The cell already holds a tile.
    Occupied {
        /// The row.
        row: usize,
        /// The column.
        col: usize,
    },
    /// Not a power of two from 2 to [`MAX_TILE`].
    BadValue {
        /// The value given.
        value: u32,
    },
    /// An exponent above [`MAX_EXPONENT`].
    BadExponent {
        /// The exponent given.
        exponent: u8,
    },
}

impl fmt::Display for PlaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlaceError::OutOfRange { row, col, size } => {
                write!(f, "cell ({row}, {col}) is outside the {size}x{size} board")
            }
            PlaceError::Occupied { row, col } => write!(f, "cell ({row}, {col}) is not empty"),
            PlaceError::BadValue { value } => {
                write!(f, "{value} is not a tile (expected a power of two from 2 to {MAX_TILE})")
            }
            PlaceError::BadExponent { exponent } => {
                write!(f, "exponent {exponent} is out of range (expected 0 to {MAX_EXPONENT})")
            }
        }
    }
}

impl std::error::Error for PlaceError {}

/// A malformed board in the text notation, with where it went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseBoardError {
    row: Option<usize>,
    col: Option<usize>,
    kind: ParseErrorKind,
}

/// What was wrong with a board's text.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// No text at all.
    Empty,
    /// The number of rows is not a supported size.
    RowCount {
        /// Rows found.
        rows: usize,
    },
    /// A row's cell count differs from the number of rows.
    CellCount {
        /// Cells found in the row.
        found: usize,
        /// Cells expected (the number of rows).
        expected: usize,
    },
    /// A cell is not 0, `.` or a tile value.
    BadTile(String),
    /// The board type cannot have this size.
    Size(SizeError),
    /// A row with no cells: a `/` at the end, or two `/` in a row.
    EmptyRow,
    /// The cells are all on one line, with no `/` between rows.
    OneRow {
        /// Cells found.
        cells: usize,
    },
    /// The text's first word is not a tile: the text is not a board at all.
    NotABoard(String),
}

impl ParseBoardError {
    pub(crate) fn whole(kind: ParseErrorKind) -> Self {
        ParseBoardError { row: None, col: None, kind }
    }
    pub(crate) fn at_row(row: usize, kind: ParseErrorKind) -> Self {
        ParseBoardError { row: Some(row), col: None, kind }
    }
    pub(crate) fn at_cell(row: usize, col: usize, kind: ParseErrorKind) -> Self {
        ParseBoardError { row: Some(row), col: Some(col), kind }
    }

    /// The row (counted from 1, as in the message) where the error is, if
    /// it is in one row.
    pub fn row(&self) -> Option<usize> {
        self.row.map(|r| r + 1)
    }

    /// The cell within the row (counted from 1), if it is in one cell.
    pub fn column(&self) -> Option<usize> {
        self.col.map(|c| c + 1)
    }

    /// What was wrong.
    pub fn kind(&self) -> &ParseErrorKind {
        &self.kind
    }
}

impl fmt::Display for ParseBoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.row, self.col) {
            (Some(r), Some(c)) => write!(f, "row {}, cell {}: ", r + 1, c + 1)?,
            (Some(r), None) => write!(f, "row {}: ", r + 1)?,
            _ => {}
        }
        match &self.kind {
            ParseErrorKind::Empty => {
                f.write_str("the board is empty (expected rows like `2 0 0 4/0 0 0 0/...`)")
            }
            ParseErrorKind::RowCount { rows } => write!(
                f,
                "found {rows} row(s), expected {MIN_SIZE} to {MAX_SIZE} rows separated by `/` or line breaks"
            ),
            ParseErrorKind::CellCount { found, expected } => {
                let cells = if *found == 1 { "cell" } else { "cells" };
                write!(
                    f,
                    "{found} {cells} but the board has {expected} rows \
                     (a board is square: as many cells in each row as there are rows)"
                )
            }
            ParseErrorKind::EmptyRow => {
                f.write_str("the row is empty (a `/` at the end, or two `/` in a row?)")
            }
            ParseErrorKind::OneRow { cells } => match square_side(*cells) {
                Some(n) => write!(
                    f,
                    "{cells} numbers but no `/`: write the {n} rows separated by `/`, e.g. `{}`",
                    example(n)
                ),
                None => write!(
                    f,
                    "one row of {cells} and no `/`: write {MIN_SIZE} to {MAX_SIZE} rows \
                     separated by `/`, as many cells in each as there are rows, e.g. `2 0/0 4`",
                    cells =
                        if *cells == 1 { "1 cell".to_owned() } else { format!("{cells} cells") }
                ),
            },
            ParseErrorKind::NotABoard(text) => write!(
                f,
                "`{text}` is not a board: write rows of tiles (0 or . for empty) separated \
                 by `/`, e.g. `2 0 0 4/0 0 0 0/0 16 0 0/0 0 0 2048`"
            ),
            ParseErrorKind::BadTile(text) => write!(
                f,
                "`{text}` is not a tile (expected 0 or . for empty, or a power of two from 2 to {MAX_TILE})"
            ),
            ParseErrorKind::Size(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ParseBoardError {}

/// A board of `n` rows as text, for a message: the usual 4x4 example, or
/// a 2 in the first cell and a 4 in the last.
fn example(n: usize) -> String {
    if n == 4 {
        return "2 0 0 4/0 0 0 0/0 16 0 0/0 0 0 2048".to_owned();
    }
    let cell = |i: usize| match i {
        0 => "2",
        i if i + 1 == n * n => "4",
        _ => "0",
    };
    let rows: Vec<String> =
        (0..n).map(|r| (0..n).map(|c| cell(r * n + c)).collect::<Vec<_>>().join(" ")).collect();
    rows.join("/")
}

/// The side of a supported square board with `cells` cells, if there is one.
fn square_side(cells: usize) -> Option<usize> {
    (MIN_SIZE..=MAX_SIZE).find(|n| n * n == cells)
}

/// Rule settings that cannot be played.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RulesError {
    /// The probability of a 4 is not within 0..=1.
    FourProbability(f64),
    /// More starting tiles than the smallest board's cells (or none).
    StartTiles {
        /// Starting tiles asked for.
        start_tiles: usize,
        /// Cells on the smallest board.
        cells: usize,
    },
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RulesError::FourProbability(p) => {
                write!(f, "the probability of a 4 must be between 0 and 1, not {p}")
            }
            RulesError::StartTiles { start_tiles, cells } => write!(
                f,
                "{start_tiles} starting tiles do not fit every board: expected 1 to {cells}"
            ),
        }
    }
}

impl std::error::Error for RulesError {}

/// A turn that cannot be played.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayError {
    /// The direction changes nothing (under the standard rules).
    NothingMoves(Direction),
    /// The game is over.
    GameOver,
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayError::NothingMoves(dir) => write!(f, "moving {dir} changes nothing"),
            PlayError::GameOver => f.write_str("the game is over"),
        }
    }
}

impl std::error::Error for PlayError {}

//! The text form of a board: tile values, cells separated by blanks, rows by
//! `/` or line breaks. `0` (or `.`) is an empty cell.

use std::fmt;

use crate::error::{ParseBoardError, ParseErrorKind};
use crate::grid::{MAX_SIZE, MIN_SIZE};
use crate::traits::{GameBoard, value_to_exponent};

pub(crate) fn write<B: GameBoard>(board: &B, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let n = board.size();
    let row_sep = if f.alternate() { "\n" } else { "/" };
    for row in 0..n {
        if row > 0 {
            f.write_str(row_sep)?;
        }
        for col in 0..n {
            if col > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{}", board.value(row, col).unwrap_or(0))?;
        }
    }
    Ok(())
}

pub(crate) fn parse<B: GameBoard>(s: &str) -> Result<B, ParseBoardError> {
    let rows: Vec<&str> = s
        .trim()
        .split(['/', '\n'])
        .map(str::trim)
        .filter(|row| !row.is_empty() || s.contains('/'))
        .collect();
    let n = rows.len();
    if s.trim().is_empty() {
        return Err(ParseBoardError::whole(ParseErrorKind::Empty));
    }
    if !(MIN_SIZE..=MAX_SIZE).contains(&n) {
        return Err(ParseBoardError::whole(ParseErrorKind::RowCount { rows: n }));
    }
    let mut board = B::empty(n).map_err(|e| ParseBoardError::whole(ParseErrorKind::Size(e)))?;
    for (r, row) in rows.iter().enumerate() {
        let cells: Vec<&str> = row.split([' ', '\t', ',']).filter(|c| !c.is_empty()).collect();
        if cells.len() != n {
            return Err(ParseBoardError::at_row(
                r,
                ParseErrorKind::CellCount { found: cells.len(), expected: n },
            ));
        }
        for (c, cell) in cells.iter().enumerate() {
            let exponent = if *cell == "0" || *cell == "." {
                0
            } else {
                // Digits only: u32's parser would also take a sign (`+2`).
                Some(cell)
                    .filter(|c| c.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|c| c.parse::<u32>().ok())
                    .and_then(|v| value_to_exponent(v).ok())
                    .ok_or_else(|| {
                        ParseBoardError::at_cell(r, c, ParseErrorKind::BadTile((*cell).to_owned()))
                    })?
            };
            // Cannot fail: (r, c) is inside an n x n board and the exponent
            // came from value_to_exponent.
            board = board.set_exponent(r, c, exponent).map_err(|_| {
                ParseBoardError::at_cell(r, c, ParseErrorKind::BadTile((*cell).to_owned()))
            })?;
        }
    }
    Ok(board)
}

//! The text form of a board: tile values, cells separated by blanks, rows by
//! `/` or line breaks. `0` (or `.`) is an empty cell.

use std::fmt;

use crate::error::{ParseBoardError, ParseErrorKind};
use crate::limits::{MAX_SIZE, MIN_SIZE};
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
    // The usual slips, said in the writer's terms rather than as a count of
    // rows or cells.
    if let Some(r) = rows.iter().position(|row| row.is_empty()) {
        return Err(ParseBoardError::at_row(r, ParseErrorKind::EmptyRow));
    }
    if n == 1 {
        let cells: Vec<&str> = split_cells(rows[0]);
        if let Some(first) = cells.first().filter(|c| tile_exponent(c).is_none()) {
            return Err(ParseBoardError::whole(ParseErrorKind::NotABoard((*first).to_owned())));
        }
        if let Some(c) = cells.iter().position(|c| tile_exponent(c).is_none()) {
            return Err(ParseBoardError::at_cell(
                0,
                c,
                ParseErrorKind::BadTile(cells[c].to_owned()),
            ));
        }
        return Err(ParseBoardError::whole(ParseErrorKind::OneRow { cells: cells.len() }));
    }
    if !(MIN_SIZE..=MAX_SIZE).contains(&n) {
        return Err(ParseBoardError::whole(ParseErrorKind::RowCount { rows: n }));
    }
    let mut board = B::empty(n).map_err(|e| ParseBoardError::whole(ParseErrorKind::Size(e)))?;
    for (r, row) in rows.iter().enumerate() {
        let cells = split_cells(row);
        if cells.len() != n {
            return Err(ParseBoardError::at_row(
                r,
                ParseErrorKind::CellCount { found: cells.len(), expected: n },
            ));
        }
        for (c, cell) in cells.iter().enumerate() {
            let exponent = tile_exponent(cell).ok_or_else(|| {
                ParseBoardError::at_cell(r, c, ParseErrorKind::BadTile((*cell).to_owned()))
            })?;
            // Cannot fail: (r, c) is inside an n x n board and the exponent
            // came from value_to_exponent.
            board = board.set_exponent(r, c, exponent).map_err(|_| {
                ParseBoardError::at_cell(r, c, ParseErrorKind::BadTile((*cell).to_owned()))
            })?;
        }
    }
    Ok(board)
}

/// The cells of a row: words separated by blanks or commas.
fn split_cells(row: &str) -> Vec<&str> {
    row.split([' ', '\t', ',']).filter(|c| !c.is_empty()).collect()
}

/// A cell's exponent: 0 for `0` or `.`, else the tile's, if it is one.
fn tile_exponent(cell: &str) -> Option<u8> {
    if cell == "0" || cell == "." {
        return Some(0);
    }
    // Digits only: u32's parser would also take a sign (`+2`).
    Some(cell)
        .filter(|c| c.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|c| c.parse::<u32>().ok())
        .and_then(|v| value_to_exponent(v).ok())
}

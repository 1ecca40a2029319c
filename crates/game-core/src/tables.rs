//! Move tables over all 65,536 rows of four 4-bit cells, built at compile time.
//!
//! A row is a `u16`: cell 0 (the leftmost) in the lowest nibble.

use crate::line::slide_toward_start;

const ROWS: usize = 1 << 16;

/// For each row, the row after a move toward cell 0 (left).
pub(crate) static LEFT: [u16; ROWS] = build_rows(false);
/// For each row, the row after a move toward cell 3 (right).
pub(crate) static RIGHT: [u16; ROWS] = build_rows(true);
/// For each row, the score a move gains (the same both ways).
pub(crate) static SCORE: [u32; ROWS] = build_scores();

const fn unpack(row: u16) -> [u8; 4] {
    [(row & 0xF) as u8, (row >> 4 & 0xF) as u8, (row >> 8 & 0xF) as u8, (row >> 12 & 0xF) as u8]
}

const fn pack(cells: [u8; 4]) -> u16 {
    cells[0] as u16 | (cells[1] as u16) << 4 | (cells[2] as u16) << 8 | (cells[3] as u16) << 12
}

/// Slides one row toward cell 0, or toward cell 3 when `rightward`.
const fn slide_row(row: u16, rightward: bool) -> (u16, u32) {
    let mut cells = unpack(row);
    if rightward {
        cells = [cells[3], cells[2], cells[1], cells[0]];
    }
    let score = slide_toward_start(&mut cells);
    if rightward {
        cells = [cells[3], cells[2], cells[1], cells[0]];
    }
    (pack(cells), score)
}

const fn build_rows(rightward: bool) -> [u16; ROWS] {
    let mut table = [0u16; ROWS];
    let mut row = 0;
    while row < ROWS {
        table[row] = slide_row(row as u16, rightward).0;
        row += 1;
    }
    table
}

const fn build_scores() -> [u32; ROWS] {
    let mut table = [0u32; ROWS];
    let mut row = 0;
    while row < ROWS {
        table[row] = slide_row(row as u16, false).1;
        row += 1;
    }
    table
}

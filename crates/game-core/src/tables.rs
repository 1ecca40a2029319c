//! Move tables over all 65,536 rows of four 4-bit cells, built at compile time.
//!
//! A row is a `u16`: cell 0 (the leftmost) in the lowest nibble. A column is
//! read the same way, top to bottom: cell 0 is row 0.

use crate::line::slide_capped;

const ROWS: usize = 1 << 16;

/// For each row, the row after a move toward cell 0 (left).
pub(crate) static LEFT: [u16; ROWS] = build_rows(false);
/// For each row, the row after a move toward cell 3 (right).
pub(crate) static RIGHT: [u16; ROWS] = build_rows(true);
/// For each column (read top to bottom as a row), the column after a move
/// up, spread back into column 0 of a board: cell `i` at bits `16 * i`. A
/// move up is then four look-ups of the columns, each shifted into its
/// place, with no transpose.
pub(crate) static UP: [u64; ROWS] = spread_all(&LEFT);
/// The same for a move down.
pub(crate) static DOWN: [u64; ROWS] = spread_all(&RIGHT);
/// For each row, the score a move gains (the same both ways: a run of equal
/// tiles merges in as many pairs from either end).
pub(crate) static SCORE: [u32; ROWS] = build_scores();
/// For each row, bit 0 when a move left changes it, bit 1 when a move right
/// does.
pub(crate) static CHANGES: [u8; ROWS] = build_changes(&LEFT, &RIGHT);

/// The four exponents of a packed row (or column), cell 0 first: the cells
/// of a row of [`Board::raw`](crate::Board::raw), for tables indexed by rows
/// such as the evaluators'.
pub const fn row_exponents(row: u16) -> [u8; 4] {
    [(row & 0xF) as u8, (row >> 4 & 0xF) as u8, (row >> 8 & 0xF) as u8, (row >> 12 & 0xF) as u8]
}

const fn pack(cells: [u8; 4]) -> u16 {
    cells[0] as u16 | (cells[1] as u16) << 4 | (cells[2] as u16) << 8 | (cells[3] as u16) << 12
}

/// Slides one row toward cell 0, or toward cell 3 when `rightward`.
const fn slide_row(row: u16, rightward: bool) -> (u16, u32) {
    let mut cells = row_exponents(row);
    if rightward {
        cells = [cells[3], cells[2], cells[1], cells[0]];
    }
    // Rows holding two 32768 tiles never reach the tables (the board slides
    // them line by line), so a cap of 15 keeps every entry in 4-bit cells.
    let score = slide_capped(&mut cells, 15);
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

/// Cell `i` of the row at bits `16 * i`: the row stood up as column 0.
const fn spread(row: u16) -> u64 {
    let r = row as u64;
    (r & 0xF) | (r >> 4 & 0xF) << 16 | (r >> 8 & 0xF) << 32 | (r >> 12 & 0xF) << 48
}

const fn spread_all(rows: &[u16; ROWS]) -> [u64; ROWS] {
    let mut table = [0u64; ROWS];
    let mut row = 0;
    while row < ROWS {
        table[row] = spread(rows[row]);
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

const fn build_changes(left: &[u16; ROWS], right: &[u16; ROWS]) -> [u8; ROWS] {
    let mut table = [0u8; ROWS];
    let mut row = 0;
    while row < ROWS {
        table[row] = (left[row] != row as u16) as u8 | ((right[row] != row as u16) as u8) << 1;
        row += 1;
    }
    table
}

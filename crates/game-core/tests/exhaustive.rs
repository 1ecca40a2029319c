//! Every one of the 65,536 rows of the packed board's tables, checked against
//! the reference through the public API (two 32768 in a row merge into 65536
//! there, through the board's line-by-line path); every row of tiles around
//! and above 32768; and every short line on grids.

use game_core::{Board, Direction, GameBoard, Grid, MAX_EXPONENT, exponent_to_value};

use crate::common::grid_of;
use crate::reference::{RefBoard, slide_line};

/// The four tile values of a packed row, cell 0 first.
fn row_values(row: u16) -> [u32; 4] {
    std::array::from_fn(|i| exponent_to_value((row >> (4 * i) & 0xF) as u8))
}

/// The board whose row 0 holds these values (tiles above 32768 included).
fn row_board(values: &[u32]) -> Board {
    RefBoard { size: 4, cells: (0..16).map(|i| values.get(i).copied().unwrap_or(0)).collect() }
        .to_board()
}

#[test]
fn every_row_left_and_right() {
    for row in 0..=u16::MAX {
        let board = Board::from_raw(u64::from(row));
        let values = row_values(row);

        let (left, left_score, _) = slide_line(&values);
        let mut reversed = values;
        reversed.reverse();
        let (mut right, right_score, _) = slide_line(&reversed);
        right.reverse();

        for (dir, expected, score) in
            [(Direction::Left, left, left_score), (Direction::Right, right, right_score)]
        {
            let expected_board = row_board(&expected);
            let got = board.slide(dir);
            if expected_board == board {
                assert_eq!(got, None, "row {row:#06x} {dir}: nothing should move");
                assert_eq!(board.slide_unscored(dir), board, "row {row:#06x} {dir}");
            } else {
                assert_eq!(
                    got,
                    Some((expected_board, score)),
                    "row {row:#06x} {dir}: {board} should give {expected_board}"
                );
                assert_eq!(board.slide_unscored(dir), expected_board, "row {row:#06x} {dir}");
            }
        }
    }
}

/// Each row in every position (row 0..4, and as a column through the
/// transpose), in every direction, against the reference board.
#[test]
fn every_row_every_direction_and_position() {
    for row in 0..=u16::MAX {
        let pos = usize::from(row) % 4;
        check_every_direction(Board::from_raw(u64::from(row) << (16 * pos)));
    }
}

/// Every row of four cells over the exponents around and above 32768
/// ({empty, 2, 16384, 32768, 65536, 131072} and the cap, 7^4 rows), which the
/// 4-bit rows above cannot hold, in each position and direction; and each of
/// them beside a second row holding one 32768, so that the packed board's
/// tables (at most one 32768 on the board) and its line-by-line path (two or
/// more, or a tile above) both see these rows.
#[test]
fn every_row_of_big_tiles() {
    const ALPHABET: [u8; 7] = [0, 1, 14, 15, 16, 17, MAX_EXPONENT];
    for code in 0..7usize.pow(4) {
        let cells: [u8; 4] = std::array::from_fn(|i| ALPHABET[code / 7usize.pow(i as u32) % 7]);
        let pos = code % 4;
        let mut rows = [[0u8; 4]; 4];
        rows[pos] = cells;
        let alone = Board::from_exponents(rows).expect("within the cap");
        rows[(pos + 1) % 4] = [0, 15, 0, 0];
        let beside = Board::from_exponents(rows).expect("within the cap");
        for board in [alone, alone.transpose(), beside, beside.transpose()] {
            check_every_direction(board);
        }
    }
}

/// The board's moves, empties and legal directions are the reference's.
fn check_every_direction(board: Board) {
    let reference = RefBoard::of(&board);
    for dir in Direction::ALL {
        let expected = reference.slide(dir).map(|(b, s)| (b.to_board::<Board>(), s));
        assert_eq!(board.slide(dir), expected, "{board} {dir}");
        let unscored = expected.map_or(board, |(b, _)| b);
        assert_eq!(board.slide_unscored(dir), unscored, "{board} {dir}");
    }
    let legal: Vec<Direction> = board.legal_directions().iter().collect();
    let want: Vec<Direction> =
        Direction::ALL.into_iter().filter(|&d| reference.slide(d).is_some()).collect();
    assert_eq!(legal, want, "{board}");
    assert_eq!(board.count_empty(), reference.cells.iter().filter(|&&v| v == 0).count());
}

/// Lines of every length 2..=8 over the alphabets {empty, 2, 4, 32768} and
/// {empty, 32768, 65536, the cap}, which hold every case: gaps, chains of
/// equal tiles, merges into tiles above 32768, and the cap. Each line is put
/// in each direction on a grid of its length.
#[test]
fn every_short_line_on_grids() {
    for alphabet in [[0, 1, 2, 15], [0, 15, 16, MAX_EXPONENT]] {
        every_line_over(alphabet);
    }
}

fn every_line_over(alphabet: [u8; 4]) {
    for n in 2..=8usize {
        for code in 0..4usize.pow(n as u32) {
            let line: Vec<u8> = (0..n).map(|i| alphabet[code >> (2 * i) & 3]).collect();
            let values: Vec<u32> = line.iter().map(|&e| exponent_to_value(e)).collect();
            let (expected, score, _) = slide_line(&values);
            let k = code % n;

            // Line k as a row pushed left, as a reversed row pushed right, as
            // a column pushed up and as a reversed column pushed down.
            let mut cells = vec![0u8; n * n];
            for dir in Direction::ALL {
                cells.fill(0);
                let mut want = vec![0u32; n * n];
                for i in 0..n {
                    let idx = match dir {
                        Direction::Left => k * n + i,
                        Direction::Right => k * n + (n - 1 - i),
                        Direction::Up => i * n + k,
                        Direction::Down => (n - 1 - i) * n + k,
                    };
                    cells[idx] = line[i];
                    want[idx] = expected[i];
                }
                let grid = grid_of(n, &cells);
                let want = RefBoard { size: n, cells: want }.to_board::<Grid>();
                let got = grid.slide(dir);
                if want == grid {
                    assert_eq!(got, None, "{grid} {dir}");
                } else {
                    assert_eq!(got, Some((want, score)), "{grid} {dir}");
                }
            }
        }
    }
}

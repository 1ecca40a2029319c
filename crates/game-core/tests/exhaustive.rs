//! Every one of the 65,536 rows of the packed board's tables, checked against
//! the reference through the public API; and every short line on grids.

use game_core::{Board, Direction, GameBoard, Grid, exponent_to_value};

use crate::common::grid_of;
use crate::reference::{RefBoard, slide_line};

/// The four tile values of a packed row, cell 0 first.
fn row_values(row: u16) -> [u32; 4] {
    std::array::from_fn(|i| exponent_to_value((row >> (4 * i) & 0xF) as u8))
}

/// The packed row holding these values.
fn pack(values: &[u32]) -> u64 {
    values.iter().enumerate().fold(0, |raw, (i, &v)| {
        let e = if v == 0 { 0 } else { u64::from(v.trailing_zeros()) };
        raw | e << (4 * i)
    })
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
            let expected_board = Board::from_raw(pack(&expected));
            let got = board.slide(dir);
            if expected_board == board {
                assert_eq!(got, None, "row {row:#06x} {dir}: nothing should move");
                assert_eq!(board.shift(dir), board, "row {row:#06x} {dir}");
            } else {
                assert_eq!(
                    got,
                    Some((expected_board, score)),
                    "row {row:#06x} {dir}: {board} should give {expected_board}"
                );
                assert_eq!(board.shift(dir), expected_board, "row {row:#06x} {dir}");
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
        let in_row = Board::from_raw(u64::from(row) << (16 * pos));
        for board in [in_row, in_row.transpose()] {
            let reference = RefBoard::of(&board);
            for dir in Direction::ALL {
                let expected = reference.slide(dir).map(|(b, s)| (b.to_board::<Board>(), s));
                assert_eq!(board.slide(dir), expected, "{board} {dir}");
            }
        }
    }
}

/// Lines of every length 2..=8 over the alphabet {empty, 2, 4, 32768}, which
/// holds every case: gaps, chains of equal tiles, and the cap. Each line is
/// put in each direction on a grid of its length.
#[test]
fn every_short_line_on_grids() {
    const ALPHABET: [u8; 4] = [0, 1, 2, 15];
    for n in 2..=8usize {
        for code in 0..4usize.pow(n as u32) {
            let line: Vec<u8> = (0..n).map(|i| ALPHABET[code >> (2 * i) & 3]).collect();
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

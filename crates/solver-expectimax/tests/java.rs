//! A straightforward transliteration of the Java tutorial's `Board.move` and
//! `Human` expectimax (int[][] boards, `board[x][y]` with x the printed
//! column), against which the `tutorial` preset must agree exactly: the same
//! direction and the same value for every direction.

use game_core::{Board, Direction, GameBoard, Rules};
use solver_expectimax::{Preset, Solver};

use crate::support::sample_boards;

#[derive(Clone, PartialEq, Eq, Debug)]
struct JBoard {
    board: Vec<Vec<i32>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Move {
    Up,
    Down,
    Left,
    Right,
}

const MOVES: [Move; 4] = [Move::Up, Move::Down, Move::Left, Move::Right];

fn transpose(input: &[Vec<i32>]) -> Vec<Vec<i32>> {
    let n = input.len();
    (0..n).map(|x| (0..n).map(|y| input[y][x]).collect()).collect()
}

fn reverse(input: &[Vec<i32>]) -> Vec<Vec<i32>> {
    let n = input.len();
    (0..n).map(|x| (0..n).map(|y| input[x][n - y - 1]).collect()).collect()
}

impl JBoard {
    fn from_board<B: GameBoard>(b: &B) -> JBoard {
        let n = b.size();
        // board[x][y]: x is the column, y the row.
        let board = (0..n)
            .map(|x| (0..n).map(|y| b.value(y, x).expect("in range") as i32).collect())
            .collect();
        JBoard { board }
    }

    fn size(&self) -> usize {
        self.board.len()
    }

    fn empty_cells(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for x in 0..self.size() {
            for y in 0..self.size() {
                if self.board[x][y] == 0 {
                    out.push((x, y));
                }
            }
        }
        out
    }

    fn place_tile(&self, (x, y): (usize, usize), number: i32) -> JBoard {
        assert_eq!(self.board[x][y], 0, "That cell is not empty");
        let mut result = self.clone();
        result.board[x][y] = number;
        result
    }

    fn move_(&self, mv: Move) -> JBoard {
        let mut tiles = self.board.clone();
        if mv == Move::Left || mv == Move::Right {
            tiles = transpose(&tiles);
        }
        if mv == Move::Down || mv == Move::Right {
            tiles = reverse(&tiles);
        }
        let mut result = Vec::new();
        for row in &tiles {
            let mut this_row: std::collections::VecDeque<i32> =
                row.iter().copied().filter(|&v| v > 0).collect();
            let mut new_row = std::collections::VecDeque::new();
            while this_row.len() >= 2 {
                let first = this_row.pop_front().expect("len >= 2");
                let second = *this_row.front().expect("len >= 1");
                if second == first {
                    new_row.push_back(first * 2);
                    this_row.pop_front();
                } else {
                    new_row.push_back(first);
                }
            }
            new_row.extend(this_row);
            result.push((0..row.len()).map(|_| new_row.pop_front().unwrap_or(0)).collect());
        }
        if mv == Move::Down || mv == Move::Right {
            result = reverse(&result);
        }
        if mv == Move::Left || mv == Move::Right {
            result = transpose(&result);
        }
        JBoard { board: result }
    }
}

fn generate_score(board: &JBoard, depth: i32) -> i32 {
    if depth >= 3 {
        return calculate_final_score(board);
    }
    let mut sum = 0i32;
    for cell in board.empty_cells() {
        for number in [2, 4] {
            let new_board = board.place_tile(cell, number);
            let board_score = calculate_score(&new_board, depth + 1);
            let calculated = (f64::from(board_score) * if number == 2 { 0.9 } else { 0.1 }) as i32;
            sum = sum.wrapping_add(calculated);
        }
    }
    sum
}

fn calculate_score(board: &JBoard, depth: i32) -> i32 {
    MOVES
        .iter()
        .map(|&m| board.move_(m))
        .filter(|moved| moved != board)
        .map(|new_board| generate_score(&new_board, depth))
        .max()
        .unwrap_or(0)
}

fn calculate_final_score(board: &JBoard) -> i32 {
    let n = board.size();
    let mut total = 0i32;
    for i in 0..n {
        let row: Vec<i32> = (0..n).map(|j| board.board[i][j]).collect();
        let col: Vec<i32> = (0..n).map(|j| board.board[j][i]).collect();
        total = total.wrapping_add(calculate_row_score(&row));
        total = total.wrapping_add(calculate_row_score(&col));
    }
    total
}

fn calculate_row_score(row: &[i32]) -> i32 {
    let pre_merged: Vec<i32> = row.iter().copied().filter(|&v| v != 0).collect();
    let mut num_merges = 0;
    let mut mono_left = 0;
    let mut mono_right = 0;
    for pair in pre_merged.windows(2) {
        let (first, second) = (pair[0], pair[1]);
        if first == second {
            num_merges += 1;
        } else if first > second {
            mono_left += first - second;
        } else {
            mono_right += second - first;
        }
    }
    let zeros = row.iter().filter(|&&v| v == 0).count() as i32;
    let sum: i32 = row.iter().sum();
    1000 + 250 * zeros + 750 * num_merges - 10 * sum - 50 * mono_left.min(mono_right)
}

/// The Java `Human.makeMove` decision: the first of the best, and each
/// changing direction's value.
fn java_decision(board: &JBoard) -> (Option<Move>, [Option<i32>; 4]) {
    let mut values = [None; 4];
    let mut best: Option<(Move, i32)> = None;
    for (i, &m) in MOVES.iter().enumerate() {
        let moved = board.move_(m);
        if moved == *board {
            continue;
        }
        let v = generate_score(&moved, 0);
        values[i] = Some(v);
        if best.is_none_or(|(_, bv)| v > bv) {
            best = Some((m, v));
        }
    }
    (best.map(|(m, _)| m), values)
}

fn to_direction(m: Move) -> Direction {
    Direction::ALL[MOVES.iter().position(|&x| x == m).expect("a move")]
}

fn check_agreement<B: GameBoard>(solver: &Solver, board: &B) {
    let (java_move, java_values) = java_decision(&JBoard::from_board(board));
    let ours = solver.decide(board, &Rules::default());
    match java_move {
        None => assert!(ours.is_err(), "{board}: Java has no move, we chose {ours:?}"),
        Some(m) => {
            let ours = ours.expect("a legal move exists");
            assert_eq!(ours.direction, to_direction(m), "{board}: direction");
            let ours_values = ours.values.map(|v| v.map(|v| v as i32));
            assert_eq!(ours_values, java_values, "{board}: per-direction values");
        }
    }
}

#[test]
fn the_java_move_is_the_game_core_move() {
    for board in sample_boards(300, 0..=16, 11) {
        let j = JBoard::from_board(&board);
        for (m, dir) in MOVES.iter().zip(Direction::ALL) {
            assert_eq!(
                j.move_(*m),
                JBoard::from_board(&board.slide_unscored(dir)),
                "{board} {dir}"
            );
        }
    }
}

#[test]
fn tutorial_preset_agrees_with_java_on_crowded_boards() {
    let mut config = Preset::Tutorial.config();
    config.threads = 2;
    let solver = Solver::new(config).expect("valid");
    // Many crowded boards (fast for the slow transliteration) ...
    for board in sample_boards(250, 1..=3, 1) {
        check_agreement(&solver, &board);
    }
}

#[test]
fn tutorial_preset_agrees_with_java_on_open_boards() {
    let solver = Solver::new(Preset::Tutorial.config()).expect("valid");
    // ... and a few open ones, where sums of many chance branches meet.
    for board in sample_boards(10, 5..=7, 2) {
        check_agreement(&solver, &board);
    }
    let early: Board = "2 0 0 0/0 0 0 0/0 0 2 0/0 0 0 0".parse().expect("valid");
    check_agreement(&solver, &early);
}

#[test]
fn tutorial_preset_agrees_with_java_on_other_sizes() {
    let solver = Solver::new(Preset::Tutorial.config()).expect("valid");
    for text in
        ["2 4 8/0 2 0/16 0 4", "2 2/4 0", "2 4 8 16 32/4 8 16 32 64/0 2 0 4 0/2 4 8 2 4/4 2 4 8 2"]
    {
        let grid: game_core::Grid = text.parse().expect("valid");
        check_agreement(&solver, &grid);
    }
}

/// Boards with two 32768 tiles, 65536 and 131072: the tutorial's `int`
/// cells have no cap, and neither have ours below 2^25, so the preset
/// matches Java there too, on both board types.
#[test]
fn tutorial_preset_agrees_with_java_past_32768() {
    let solver = Solver::new(Preset::Tutorial.config()).expect("valid");
    for text in [
        "32768 32768 4 2/16 8 16 4/2 4 2 0/4 2 4 8",
        "65536 65536 2 0/131072 0 0 0/0 0 0 0/0 0 0 2",
        "131072 65536 32768 16384/2 4 8 0/0 0 0 2/0 0 0 0",
        "32768 2 0 0/32768 4 0 0/8 2 0 0/2 0 0 0",
    ] {
        let board: Board = text.parse().expect("valid");
        check_agreement(&solver, &board);
        check_agreement(&solver, &game_core::Grid::from(board));
        let j = JBoard::from_board(&board);
        for (m, dir) in MOVES.iter().zip(Direction::ALL) {
            assert_eq!(j.move_(*m), JBoard::from_board(&board.slide_unscored(dir)), "{text} {dir}");
        }
    }
}

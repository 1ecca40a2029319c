//! Perft counts, as chess engines keep them: from fixed boards, the number of
//! distinct boards reachable after k plies (a ply is every legal direction,
//! then every spawn of a 2 or a 4 on every empty cell). The counts in
//! `data/boards.perft` come from the reference; both the reference and the
//! engine must reproduce them.

use std::collections::HashSet;
use std::time::Instant;

use game_core::{Board, GameBoard, Grid};

use crate::reference::{self, RefBoard};

const DATA: &str = include_str!("data/boards.perft");

/// One board of the data file with its pinned counts.
struct Case {
    id: String,
    board: String,
    counts: Vec<(u32, usize)>,
}

fn cases() -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for (n, line) in DATA.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        let at = || format!("boards.perft line {}", n + 1);
        match key {
            "id" => {
                cases.push(Case { id: rest.to_owned(), board: String::new(), counts: Vec::new() })
            }
            "board" => {
                cases.last_mut().unwrap_or_else(|| panic!("{}: board before id", at())).board =
                    rest.to_owned()
            }
            "perft" => {
                let (plies, count) = rest.split_once(' ').unwrap_or_else(|| panic!("{}", at()));
                let case = cases.last_mut().unwrap_or_else(|| panic!("{}: perft before id", at()));
                case.counts.push((plies.parse().unwrap(), count.parse().unwrap()));
            }
            _ => panic!("{}: unknown key `{key}`", at()),
        }
    }
    cases
}

/// The same count, with the engine's board type.
fn perft<B: GameBoard>(start: B, plies: u32) -> usize {
    let mut level: HashSet<B> = HashSet::from([start]);
    for _ in 0..plies {
        let mut next = HashSet::with_capacity(level.len() * 16);
        for board in &level {
            for dir in board.legal_directions().iter() {
                let moved = board.slide_unscored(dir);
                for idx in moved.empty_cells() {
                    next.insert(moved.with_exponent_unchecked(idx, 1));
                    next.insert(moved.with_exponent_unchecked(idx, 2));
                }
            }
        }
        level = next;
    }
    level.len()
}

#[test]
fn reference_reproduces_the_pinned_counts() {
    let cases = cases();
    assert!(cases.len() >= 4);
    for case in cases {
        let board: Grid = case.board.parse().unwrap();
        let start = RefBoard::of(&board);
        for &(plies, count) in &case.counts {
            assert_eq!(reference::perft(&start, plies), count, "{} perft {plies}", case.id);
        }
    }
}

#[test]
fn engine_reproduces_the_pinned_counts() {
    for case in cases() {
        let grid: Grid = case.board.parse().unwrap();
        let packed: Option<Board> = case.board.parse().ok();
        for &(plies, count) in &case.counts {
            assert_eq!(perft(grid, plies), count, "{} perft {plies} on a Grid", case.id);
            if let Some(board) = packed {
                assert_eq!(perft(board, plies), count, "{} perft {plies} on a Board", case.id);
            }
        }
    }
}

/// Prints the reference's counts, to fill the data file:
/// `cargo test -p game-core --test tests -- --ignored --nocapture print_perft`.
#[test]
#[ignore = "prints the counts for data/boards.perft"]
#[expect(clippy::print_stdout, reason = "this test's output is the data file")]
fn print_perft_counts() {
    for case in cases() {
        let board: Grid = case.board.parse().unwrap();
        let start = RefBoard::of(&board);
        println!("id {}\nboard {}", case.id, case.board);
        for plies in 1..=case.counts.iter().map(|&(p, _)| p).max().unwrap_or(3) {
            let t = Instant::now();
            let count = reference::perft(&start, plies);
            println!("perft {plies} {count}    # {:.2?}", t.elapsed());
        }
    }
}

//! The learned search: it needs its evaluator, counts each move's score
//! along the path, and decides the same for any thread count and board
//! type.

use std::sync::Arc;

use game_core::{Board, Direction, GameBoard, Grid, Rules};
use solver_expectimax::{
    ConfigError, Depth, Evaluator, Preset, SearchConfig, SearchError, SharedEvaluator, Solver,
};

use crate::support::sample_boards;

/// A stand-in for a network: any fixed function of the afterstate will do.
#[derive(Debug)]
struct Squares;

impl Evaluator<Board> for Squares {
    fn evaluate(&self, board: &Board) -> f32 {
        (0..4)
            .flat_map(|r| (0..4).map(move |c| (r, c)))
            .map(|(r, c)| f32::from(board.exponent(r, c).unwrap_or(0)).powi(2))
            .sum::<f32>()
            + board.count_empty() as f32 * 3.0
    }
}

/// Values only the score still to come: nothing.
#[derive(Debug)]
struct Zero;

impl Evaluator<Board> for Zero {
    fn evaluate(&self, _: &Board) -> f32 {
        0.0
    }
}

fn config(depth: u32, threads: usize) -> SearchConfig {
    let mut config = Preset::Ntuple.config();
    config.depth = Depth::Fixed(depth);
    config.threads = threads;
    config.table_bytes = 1 << 20;
    config
}

fn solver(depth: u32, threads: usize, eval: SharedEvaluator) -> Solver {
    Solver::with_evaluator(config(depth, threads), eval).expect("valid")
}

#[test]
fn a_learned_search_needs_its_evaluator_and_only_it_takes_one() {
    assert_eq!(Solver::new(config(1, 1)).err(), Some(ConfigError::NoEvaluator));
    let heuristic = Preset::Fast.config();
    assert_eq!(
        Solver::with_evaluator(heuristic, Arc::new(Zero)).err(),
        Some(ConfigError::UnusedEvaluator)
    );
}

/// With an evaluator of zero, a depth-1 value is exactly the move's score
/// plus the expected best score of the next move, over the spawns.
#[test]
fn values_count_the_score_of_each_move_on_the_path() {
    let rules = Rules::default();
    let search = solver(1, 1, Arc::new(Zero));
    for board in sample_boards(40, 2..=8, 5) {
        let Ok(decision) = search.decide(&board, &rules) else { continue };
        for dir in Direction::ALL {
            let Some((after, gain)) = board.slide(dir) else {
                assert_eq!(decision.value(dir), None);
                continue;
            };
            let empty: Vec<usize> = after.empty_cells().collect();
            let mut expected = 0f64;
            for &cell in &empty {
                for (exponent, p) in [(1u8, 0.9), (2, 0.1)] {
                    let spawned = after.with_exponent_unchecked(cell, exponent);
                    let best = Direction::ALL
                        .into_iter()
                        .filter_map(|d| spawned.slide(d).map(|(_, g)| f64::from(g)))
                        .fold(0f64, f64::max);
                    expected += p * best / empty.len() as f64;
                }
            }
            let expected = f64::from(gain) + expected;
            let got = decision.value(dir).expect("legal");
            assert!(
                (got - expected).abs() <= 1e-3 * expected.max(1.0),
                "{board} {dir}: {got} vs {expected}"
            );
        }
    }
}

#[test]
fn learned_decisions_do_not_depend_on_threads_or_board_type() {
    let rules = Rules::default();
    let eval: SharedEvaluator = Arc::new(Squares);
    for depth in [1, 2] {
        let one = solver(depth, 1, Arc::clone(&eval));
        let two = solver(depth, 2, Arc::clone(&eval));
        for board in sample_boards(30, 1..=10, 11 + u64::from(depth)) {
            let a = one.decide(&board, &rules);
            let b = two.decide(&board, &rules);
            let grid = one.decide(&Grid::from(board), &rules);
            match (a, b, grid) {
                (Ok(a), Ok(b), Ok(g)) => {
                    assert_eq!((a.direction, a.values), (b.direction, b.values), "{board}");
                    assert_eq!((a.direction, a.values), (g.direction, g.values), "{board}");
                }
                (Err(SearchError::NoMove), Err(SearchError::NoMove), Err(SearchError::NoMove)) => {}
                other => panic!("{board}: {other:?}"),
            }
        }
    }
}

#[test]
fn a_learned_search_refuses_other_sizes() {
    let grid = Grid::empty(5).expect("5x5").place(0, 0, 2).expect("empty cell");
    let err = solver(1, 1, Arc::new(Zero)).decide(&grid, &Rules::default()).unwrap_err();
    assert_eq!(err, SearchError::NotFourByFour(5));
}

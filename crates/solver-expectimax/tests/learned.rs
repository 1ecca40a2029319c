//! The learned search: it needs its evaluator, counts each move's score
//! along the path, and decides the same for any thread count and board
//! type.

use std::sync::Arc;

use game_core::{Board, Direction, GameBoard, Grid, Rules};
use solver_expectimax::{
    Algorithm, ConfigError, Depth, Evaluator, LEARNED_HEURISTIC, Preset, SearchConfig, SearchError,
    SharedEvaluator, Solver, WeightedEvaluator, Weights,
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

/// The `ntuple` preset at `depth`, searching with the evaluator alone
/// (no heuristic added: these tests are about the search).
fn config(depth: u32, threads: usize) -> SearchConfig {
    with_heuristic(depth, threads, 0.0)
}

fn with_heuristic(depth: u32, threads: usize, weight: f32) -> SearchConfig {
    let mut config = Preset::Ntuple.config();
    config.depth = Depth::Fixed(depth);
    config.threads = threads;
    config.table_bytes = 1 << 20;
    let Algorithm::Learned { heuristic, .. } = &mut config.algorithm else {
        panic!("ntuple is a learned preset")
    };
    *heuristic = weight;
    config
}

/// A network whose every estimate is below 0, as near the end of a game.
#[derive(Debug)]
struct Gloomy;

impl Evaluator<Board> for Gloomy {
    fn evaluate(&self, board: &Board) -> f32 {
        -1000.0 - board.count_empty() as f32
    }
}

/// The score still to come is never below 0: an estimate under 0 counts as
/// 0, and a move after which every spawn loses is worth less than one that
/// survives. With the estimates as they were, `down` (which loses) was
/// worth 0 and `right` (which survives, with a merge of two 2s next) about
/// -1000, so the search chose to lose; on boards with and without a packed
/// form (tiles past 32768), on one and two threads.
#[test]
fn a_learned_search_prefers_a_move_that_survives() {
    let rules = Rules::default();
    for text in [
        "16384 8192 4096 2048/32 64 128 1024/16 8 4 512/2 4 8 0",
        "131072 65536 32768 16384/256 512 1024 8192/128 64 32 4096/2 4 8 0",
    ] {
        let board: Board = text.parse().expect("valid");
        let (down, _) = board.slide(Direction::Down).expect("down moves");
        assert!(down.empty_cells().all(|i| {
            [1, 2].iter().all(|&e| down.with_exponent_unchecked(i, e).is_game_over())
        }));
        for (depth, threads) in [(1, 1), (2, 1), (2, 2)] {
            let decision =
                solver(depth, threads, Arc::new(Gloomy)).decide(&board, &rules).expect("a move");
            assert_eq!(decision.direction, Direction::Right, "{text}, depth {depth}");
            let (right, down) = (decision.value(Direction::Right), decision.value(Direction::Down));
            assert!(right >= Some(0.0) && down < Some(0.0), "{text}: {right:?}, {down:?}");
        }
    }
}

/// `weight` times the heuristic, spelt out, to check the solver's own sum.
#[derive(Debug)]
struct Scaled(f32, WeightedEvaluator);

impl Evaluator<Board> for Scaled {
    fn evaluate(&self, board: &Board) -> f32 {
        self.0 * self.1.evaluate(board)
    }
}

/// The presets add the heuristic at [`LEARNED_HEURISTIC`]; a solver with a
/// weight values every afterstate as the network's value plus that weight
/// times the heuristic's (here with a network of zero, against the same sum
/// given as the evaluator), on one and two threads; a negative or infinite
/// weight is refused.
#[test]
fn the_heuristic_is_added_at_its_weight() {
    for preset in [Preset::Ntuple, Preset::NtupleDeep] {
        assert!(matches!(
            preset.config().algorithm,
            Algorithm::Learned { heuristic, .. } if heuristic == LEARNED_HEURISTIC
        ));
    }
    let rules = Rules::default();
    for threads in [1, 2] {
        let shaped = Solver::with_evaluator(with_heuristic(2, threads, 0.25), Arc::new(Zero))
            .expect("valid");
        let spelt =
            solver(2, threads, Arc::new(Scaled(0.25, WeightedEvaluator::new(Weights::STANDARD))));
        let plain = solver(2, threads, Arc::new(Zero));
        let mut differ = 0;
        for board in sample_boards(12, 2..=8, 21) {
            let (Ok(a), Ok(b), Ok(c)) = (
                shaped.decide(&board, &rules),
                spelt.decide(&board, &rules),
                plain.decide(&board, &rules),
            ) else {
                continue;
            };
            assert_eq!((a.direction, a.values), (b.direction, b.values), "{board}");
            differ += usize::from(a.values != c.values);
        }
        assert!(differ > 0, "the heuristic changed no value");
    }
    for bad in [-0.5, f32::INFINITY, f32::NAN] {
        let err = Solver::with_evaluator(with_heuristic(1, 1, bad), Arc::new(Zero)).err();
        assert_eq!(err, Some(ConfigError::BadHeuristic), "{bad}");
    }
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

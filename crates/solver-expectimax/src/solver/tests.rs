//! The solver's front: what `Solver::new`, `Solver::with_evaluator` and
//! `Solver::decide` do for each algorithm (refusals, decisions, the depth
//! reported, the time budget), whatever search runs behind them.

use std::sync::Arc;
use std::time::{Duration, Instant};

use game_core::{Board, Direction, Game, GameBoard, Grid, Rules};

use crate::config::{Algorithm, ConfigError, Depth, MAX_DEPTH, Preset, SearchConfig};
use crate::eval::{CornerEvaluator, Evaluator, WeightedEvaluator, Weights};
use crate::solver::{SearchError, SharedEvaluator, Solver};

/// A stand-in for a learned network: the sum of the squared exponents, a
/// value that grows as tiles merge, so that moves differ.
struct Squares;

impl Evaluator<Board> for Squares {
    fn evaluate(&self, board: &Board) -> f32 {
        let mut total = 0.0;
        for r in 0..4 {
            for c in 0..4 {
                let e = f32::from(board.exponent(r, c).unwrap_or(0));
                total += e * e;
            }
        }
        total
    }
}

/// Each algorithm's settings (quick ones: depth 2, one thread, a small
/// table) and the evaluator a learned search is given.
fn algorithms() -> Vec<(&'static str, SearchConfig, Option<SharedEvaluator>)> {
    let quick = |preset: Preset| SearchConfig {
        depth: Depth::Fixed(2),
        threads: 1,
        table_bytes: 1 << 20,
        ..preset.config()
    };
    vec![
        ("tutorial", quick(Preset::Tutorial), None),
        ("expectimax", quick(Preset::Heuristic), None),
        ("learned", quick(Preset::Ntuple), Some(Arc::new(Squares) as SharedEvaluator)),
        ("corner", quick(Preset::Corner), None),
    ]
}

fn build(config: SearchConfig, eval: Option<&SharedEvaluator>) -> Result<Solver, ConfigError> {
    match eval {
        Some(eval) => Solver::with_evaluator(config, Arc::clone(eval)),
        None => Solver::new(config),
    }
}

/// Boards of a seeded game played by the first legal direction (so large
/// tiles gather in a corner), every fifteenth, from the opening on.
fn game_boards() -> Vec<Board> {
    let mut game = Game::new(Rules::default(), 3);
    let mut boards = Vec::new();
    while !game.is_over() && boards.len() < 12 {
        if game.moves().is_multiple_of(15) {
            boards.push(*game.board());
        }
        let dir = game.board().legal_directions().iter().next().expect("not over");
        game.play(dir).expect("legal");
    }
    boards
}

fn board(text: &str) -> Board {
    text.parse().expect("a valid board")
}

#[test]
fn a_learned_search_takes_its_evaluator_and_no_other_search_takes_one() {
    for (name, config, eval) in algorithms() {
        let squares: SharedEvaluator = Arc::new(Squares);
        match eval {
            Some(_) => {
                assert_eq!(Solver::new(config).err(), Some(ConfigError::NoEvaluator), "{name}");
                assert!(Solver::with_evaluator(config, squares).is_ok(), "{name}");
            }
            None => {
                assert!(Solver::new(config).is_ok(), "{name}");
                let err = Solver::with_evaluator(config, squares).err();
                assert_eq!(err, Some(ConfigError::UnusedEvaluator), "{name}");
            }
        }
    }
}

/// Settings are checked before the evaluator is: a bad setting is the
/// error whatever the algorithm and whether an evaluator came.
#[test]
fn bad_settings_are_refused_by_every_algorithm() {
    for (name, config, eval) in algorithms() {
        let no_threads = SearchConfig { threads: 0, ..config };
        assert_eq!(build(no_threads, eval.as_ref()).err(), Some(ConfigError::NoThreads), "{name}");
        let too_deep = SearchConfig { depth: Depth::Fixed(MAX_DEPTH + 1), ..config };
        let err = build(too_deep, eval.as_ref()).err();
        assert_eq!(err, Some(ConfigError::TooDeep(MAX_DEPTH + 1)), "{name}");
        let flat = SearchConfig { depth: Depth::Fixed(0), ..config };
        assert_eq!(build(flat, eval.as_ref()).err(), Some(ConfigError::BadDepth), "{name}");
    }
}

/// A lost board has no move, on either board type; the learned search
/// refuses a board other than 4x4 before looking at its moves.
#[test]
fn a_lost_board_is_no_move_and_the_learned_search_refuses_other_sizes() {
    let lost = board("2 4 2 4/4 2 4 2/2 4 2 4/4 2 4 2");
    let lost5: Grid = "2 4 2 4 2/4 2 4 2 4/2 4 2 4 2/4 2 4 2 4/2 4 2 4 2".parse().expect("5x5");
    let open5: Grid = "2 0 0 0 0/0 0 0 0 0/0 0 0 0 0/0 0 0 0 0/0 0 0 0 4".parse().expect("5x5");
    let rules = Rules::default();
    for (name, config, eval) in algorithms() {
        let solver = build(config, eval.as_ref()).expect("valid");
        assert_eq!(solver.decide(&lost, &rules), Err(SearchError::NoMove), "{name}");
        assert_eq!(solver.decide(&Grid::from(lost), &rules), Err(SearchError::NoMove), "{name}");
        if eval.is_some() {
            assert_eq!(solver.decide(&lost5, &rules), Err(SearchError::NotFourByFour(5)));
            assert_eq!(solver.decide(&open5, &rules), Err(SearchError::NotFourByFour(5)));
        } else {
            assert_eq!(solver.decide(&lost5, &rules), Err(SearchError::NoMove), "{name}");
            assert!(solver.decide(&open5, &rules).is_ok(), "{name}");
        }
    }
}

/// With one legal direction every search plays it, and values only it.
#[test]
fn the_only_legal_move_is_played_and_valued_alone() {
    let board = board("2 0 0 0/4 0 0 0/2 0 0 0/4 0 0 0");
    let rules = Rules::default();
    for (name, config, eval) in algorithms() {
        let solver = build(config, eval.as_ref()).expect("valid");
        let d = solver.decide(&board, &rules).expect("a move");
        assert_eq!(d.direction, Direction::Right, "{name}");
        for dir in Direction::ALL {
            assert_eq!(d.value(dir).is_some(), dir == Direction::Right, "{name} {dir}");
        }
    }
}

/// The decision is the first direction of the largest value, the values
/// are those of the legal directions only, and a grid of the same tiles
/// gets the same decision.
#[test]
fn the_decision_is_the_first_best_legal_direction_on_either_board_type() {
    let rules = Rules::default();
    for (name, config, eval) in algorithms() {
        let solver = build(config, eval.as_ref()).expect("valid");
        for board in game_boards() {
            let d = solver.decide(&board, &rules).expect("a move");
            let legal = board.legal_directions();
            for dir in Direction::ALL {
                assert_eq!(d.value(dir).is_some(), legal.contains(dir), "{name} {board} {dir}");
            }
            let best = Direction::ALL
                .into_iter()
                .filter_map(|dir| d.value(dir).map(|v| (dir, v)))
                .fold(None, |best: Option<(Direction, f64)>, (dir, v)| match best {
                    Some((_, bv)) if bv >= v => best,
                    _ => Some((dir, v)),
                });
            assert_eq!(Some(d.direction), best.map(|(dir, _)| dir), "{name} {board}");
            let grid = solver.decide(&Grid::from(board), &rules).expect("a move");
            assert_eq!((grid.direction, grid.values), (d.direction, d.values), "{name} {board}");
        }
    }
}

/// The depth reported is the one the settings give for the board: fixed,
/// adaptive (by distinct tiles) or crowded (by empty cells).
#[test]
fn the_depth_reported_is_the_settings_depth_for_the_board() {
    let rules = Rules::default();
    let depths = [
        Depth::Fixed(1),
        Depth::Fixed(3),
        Depth::Adaptive { min: 1, max: 3, bonus: -3 },
        Depth::Crowded { shallow: 1, deep: 2, crowded: 6, bonus: 0 },
    ];
    for (name, config, eval) in algorithms() {
        for depth in depths {
            let solver = build(SearchConfig { depth, ..config }, eval.as_ref()).expect("valid");
            let mut seen = Vec::new();
            for board in game_boards() {
                let d = solver.decide(&board, &rules).expect("a move");
                assert_eq!(d.depth, solver.depth_for(&board), "{name} {depth:?} {board}");
                assert!(d.stats.nodes > 0 && d.endgame.is_none(), "{name}");
                seen.push(d.depth);
            }
            if !matches!(depth, Depth::Fixed(_)) {
                seen.dedup();
                assert!(seen.len() > 1, "{name} {depth:?}: every board searched {seen:?}");
            }
        }
    }
}

/// With a budget the searches deepen from depth 1, the first depth always
/// finishing (even when the budget is already spent) and a deadline
/// stopping the others: the values are those of the deepest finished
/// depth, as a search of that fixed depth gives them. The tutorial's
/// search has no deadline: it searches its depth whatever the budget.
#[test]
fn a_time_budget_keeps_the_deepest_finished_depth() {
    let rules = Rules::default();
    let board = board("512 128 32 8/64 16 4 2/4 2 0 0/2 0 0 0");
    for (name, config, eval) in algorithms() {
        let timed = |budget, depth| SearchConfig { time_budget: Some(budget), depth, ..config };
        let fixed = |depth| {
            let solver =
                build(SearchConfig { depth: Depth::Fixed(depth), ..config }, eval.as_ref());
            let d = solver.expect("valid").decide(&board, &rules).expect("a move");
            (d.direction, d.values)
        };
        // Spent before it starts: depth 1 (the tutorial: its own depth).
        let spent = build(timed(Duration::ZERO, Depth::Fixed(3)), eval.as_ref()).expect("valid");
        let d = spent.decide(&board, &rules).expect("a move");
        let want = if name == "tutorial" { 3 } else { 1 };
        assert_eq!(d.depth, want, "{name}");
        assert_eq!((d.direction, d.values), fixed(want), "{name}");
        // Room for every depth: the deepest.
        let roomy = build(timed(Duration::from_secs(600), Depth::Fixed(2)), eval.as_ref());
        let d = roomy.expect("valid").decide(&board, &rules).expect("a move");
        assert_eq!(d.depth, 2, "{name}");
        assert_eq!((d.direction, d.values), fixed(2), "{name}");
    }
}

/// A deadline stops a search that could not finish in any reasonable
/// time (the deepest depth, nothing cut off, no table), soon after the
/// budget, with the values of a depth it finished.
#[test]
fn a_deadline_stops_a_deep_search_soon() {
    let rules = Rules::default();
    let board = board("256 64 16 4/32 8 4 2/8 2 0 0/2 0 0 0");
    for (name, config, eval) in algorithms() {
        if name == "tutorial" {
            continue;
        }
        let algorithm = match config.algorithm {
            Algorithm::Expectimax { weights, .. } => {
                Algorithm::Expectimax { weights, prob_cutoff: 0.0 }
            }
            Algorithm::Learned { heuristic, .. } => {
                Algorithm::Learned { heuristic, prob_cutoff: 0.0 }
            }
            Algorithm::Corner { .. } => Algorithm::Corner { prob_cutoff: 0.0 },
            Algorithm::Tutorial => unreachable!("skipped"),
        };
        let budget = Duration::from_millis(50);
        let config = SearchConfig {
            algorithm,
            depth: Depth::Fixed(MAX_DEPTH),
            time_budget: Some(budget),
            table_bytes: 0,
            ..config
        };
        let solver = build(config, eval.as_ref()).expect("valid");
        let start = Instant::now();
        let d = solver.decide(&board, &rules).expect("a move");
        // Generous: the machine may be busy; the full search takes years.
        assert!(start.elapsed() < Duration::from_secs(20), "{name}: {:?}", start.elapsed());
        assert!((1..MAX_DEPTH).contains(&d.depth), "{name}: depth {}", d.depth);
        let fixed = SearchConfig { depth: Depth::Fixed(d.depth), time_budget: None, ..config };
        let want = build(fixed, eval.as_ref()).expect("valid").decide(&board, &rules);
        let want = want.expect("a move");
        assert_eq!((d.direction, d.values), (want.direction, want.values), "{name}");
        assert!(d.stats.nodes > want.stats.nodes, "{name}: the stopped depth's work counts");
    }
}

/// `decide_with` searches the solver's settings with the evaluator given
/// and without the table: with the built-in evaluator of an expectimax or
/// corner search it decides as `decide` does (whose table is exact).
#[test]
fn decide_with_the_built_in_evaluator_is_decide() {
    let rules = Rules::default();
    let weighted = WeightedEvaluator::new(Weights::STANDARD);
    let corner = CornerEvaluator::new();
    for (name, config, _) in algorithms() {
        let solver = Solver::new(config);
        let decide_with = |solver: &Solver, board: &Board| match config.algorithm {
            Algorithm::Expectimax { .. } => Some(solver.decide_with(board, &rules, &weighted)),
            Algorithm::Corner { .. } => Some(solver.decide_with(board, &rules, &corner)),
            _ => None,
        };
        let Ok(solver) = solver else { continue };
        for board in game_boards() {
            let Some(with) = decide_with(&solver, &board) else { break };
            let with = with.expect("a move");
            let plain = solver.decide(&board, &rules).expect("a move");
            assert_eq!((with.direction, with.values), (plain.direction, plain.values), "{name}");
            assert_eq!(with.stats.table_hits, 0, "{name}: no table");
        }
    }
}

/// Only the searches that use a transposition table keep one, within the
/// bound; emptying it changes no decision.
#[test]
fn only_searches_with_a_table_keep_one() {
    let rules = Rules::default();
    let board = board("512 128 32 8/64 16 4 2/4 2 0 0/2 0 0 0");
    for (name, config, eval) in algorithms() {
        let solver = build(config, eval.as_ref()).expect("valid");
        let bytes = solver.table_bytes();
        if name == "tutorial" {
            assert_eq!(bytes, 0);
        } else {
            assert!(bytes > 0 && bytes <= config.table_bytes, "{name}: {bytes}");
        }
        let first = solver.decide(&board, &rules).expect("a move");
        solver.clear_table();
        let again = solver.decide(&board, &rules).expect("a move");
        assert_eq!((first.direction, first.values), (again.direction, again.values), "{name}");
        assert_eq!(first.stats, again.stats, "{name}: a cleared table searches as a new one");
    }
}

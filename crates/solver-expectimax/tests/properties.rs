//! Properties of every search: legal choices, a clear "no move", the same
//! decision whatever the thread count, and the memory bound.

use game_core::{Board, GameBoard, Grid, Rules};
use proptest::prelude::*;
use std::sync::Arc;

use solver_expectimax::{
    Algorithm, Depth, Evaluator, MAX_DEPTH, Preset, SearchConfig, SearchError, Solver,
    WeightedEvaluator, Weights,
};

use crate::support::sample_boards;

/// The solver of `config`: learned presets get a stand-in evaluator (the
/// shipped network lives in crates/ntuple, which this crate does not know).
fn solver(config: SearchConfig) -> Solver {
    #[derive(Debug)]
    struct Empties;
    impl Evaluator<Board> for Empties {
        fn evaluate(&self, board: &Board) -> f32 {
            board.count_empty() as f32
        }
    }
    match config.algorithm {
        Algorithm::Learned { .. } => Solver::with_evaluator(config, Arc::new(Empties)),
        _ => Solver::new(config),
    }
    .expect("valid")
}

fn config(preset: Preset, depth: u32, threads: usize) -> SearchConfig {
    let mut config = preset.config();
    config.depth = Depth::Fixed(depth);
    config.threads = threads;
    config.table_bytes = config.table_bytes.min(1 << 20);
    config
}

/// Boards with tiles up to 2048, any layout.
fn any_board() -> impl Strategy<Value = Board> {
    any::<u64>().prop_map(|x| {
        // Clear the top bit of each nibble: exponents 0..=7, boards that
        // are often crowded, sometimes lost.
        Board::from_raw(x & 0x7777_7777_7777_7777)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn the_chosen_direction_is_legal(board in any_board()) {
        for preset in [Preset::Tutorial, Preset::Heuristic] {
            let solver = Solver::new(config(preset, 1, 1)).expect("valid");
            match solver.decide(&board, &Rules::default()) {
                Ok(decision) => {
                    prop_assert!(board.legal_directions().contains(decision.direction));
                    for dir in game_core::Direction::ALL {
                        prop_assert_eq!(
                            decision.value(dir).is_some(),
                            board.legal_directions().contains(dir)
                        );
                    }
                }
                Err(SearchError::NoMove) => prop_assert!(board.is_game_over()),
                Err(err) => prop_assert!(false, "unexpected {err}"),
            }
        }
    }

    #[test]
    fn decisions_do_not_depend_on_the_thread_count(board in any_board()) {
        for preset in [Preset::Tutorial, Preset::Heuristic] {
            let one = Solver::new(config(preset, 2, 1)).expect("valid");
            let two = Solver::new(config(preset, 2, 2)).expect("valid");
            let three = Solver::new(config(preset, 2, 3)).expect("valid");
            let rules = Rules::default();
            let a = one.decide(&board, &rules).map(|d| (d.direction, d.values));
            // Twice on the same solver: a warm table must not change anything.
            let b = two.decide(&board, &rules).map(|d| (d.direction, d.values));
            let c = two.decide(&board, &rules).map(|d| (d.direction, d.values));
            let d = three.decide(&board, &rules).map(|d| (d.direction, d.values));
            prop_assert_eq!(&a, &b);
            prop_assert_eq!(&a, &c);
            prop_assert_eq!(&a, &d);
        }
    }
}

#[test]
fn a_lost_board_gives_no_move_not_a_panic() {
    let lost: Board = "2 4 2 4/4 2 4 2/2 4 2 4/4 2 4 2".parse().expect("valid");
    let grid: Grid = "2 4 2/4 2 4/2 4 2".parse().expect("valid");
    for preset in Preset::ALL {
        let solver = solver(config(preset, 2, 2));
        assert_eq!(solver.decide(&lost, &Rules::default()), Err(SearchError::NoMove));
        // The learned presets play 4x4 only, and say so first.
        let expected =
            if preset.is_learned() { SearchError::NotFourByFour(3) } else { SearchError::NoMove };
        assert_eq!(solver.decide(&grid, &Rules::default()), Err(expected));
    }
}

/// Past 32768 the heuristic's values fall below 0 (its sum and
/// monotonicity terms outgrow its base), and a lost board at 0 used to look
/// better than every move: on this board each preset took `down`, after
/// which every spawn loses, over `right`, and valued both at 0.
#[test]
fn past_32768_the_heuristic_search_prefers_a_move_that_survives() {
    let board: Board =
        "131072 65536 32768 16384/256 512 1024 8192/128 64 32 4096/2 4 8 0".parse().expect("valid");
    // Down fills the last empty cell's column and leaves one cell, whose
    // spawn ends the game.
    let (down, _) = board.slide(game_core::Direction::Down).expect("down moves");
    assert!(
        down.empty_cells()
            .all(|i| { [1, 2].iter().all(|&e| down.with_exponent_unchecked(i, e).is_game_over()) })
    );
    for preset in [Preset::Fast, Preset::Heuristic, Preset::HeuristicMax] {
        for depth in [1, 3] {
            let decision =
                solver(config(preset, depth, 1)).decide(&board, &Rules::default()).expect("a move");
            assert_eq!(decision.direction, game_core::Direction::Right, "{preset}, depth {depth}");
            let (right, down) = (
                decision.value(game_core::Direction::Right),
                decision.value(game_core::Direction::Down),
            );
            assert!(right > down, "{preset}, depth {depth}: {right:?} against {down:?}");
        }
    }
}

/// In the tuned game (4x4, tiles up to 32768) a lost board stays worth 0,
/// so every value is what it was before lost values were introduced: these
/// are `fast`'s values at depth 2 from a build of `a24fbd3`, to the bit,
/// including a zigzag board where the heuristic is below 0 after both
/// moves and the tie goes to the first, as in the public program.
#[test]
fn the_tuned_game_searches_as_before() {
    let pinned: [(&str, [Option<f64>; 4]); 4] = [
        ("16 4 2 0/4 2 0 0/2 0 0 0/0 0 0 0", [None, Some(1602650.75), None, Some(1602650.75)]),
        ("256 64 16 4/32 8 4 2/8 2 0 0/2 0 0 0", [None, Some(1522823.375), None, Some(1548526.25)]),
        (
            "8192 2048 512 128/4096 1024 256 64/16 32 8 4/2 4 2 0",
            [None, Some(0.0), None, Some(889391.125)],
        ),
        ("8192 2 4096 1024/512 256 128 64/4 8 16 32/2 4 2 0", [None, Some(0.0), None, Some(0.0)]),
    ];
    for (text, values) in pinned {
        let board: Board = text.parse().expect("valid");
        let decision =
            solver(config(Preset::Fast, 2, 1)).decide(&board, &Rules::default()).expect("a move");
        assert_eq!(decision.values, values, "{text}");
    }
}

/// Crowded boards larger than 4x4 score below 0 too (their lines are
/// longer): on this 6x6 board `fast` valued every move at 0, a lost board's
/// value, and took the first. It now ranks them.
#[test]
fn on_larger_boards_the_heuristic_search_ranks_moves_below_0() {
    let board: Grid = "2 8 2 4 8 2/4 64 16 8 16 64/2 8 1024 64 8 16/4 64 4 128 1024 2/2 16 16 512 16 0/8 0 64 8 2 2"
        .parse()
        .expect("valid");
    let decision =
        solver(config(Preset::Fast, 2, 1)).decide(&board, &Rules::default()).expect("a move");
    let values: Vec<f64> = decision.values.iter().flatten().copied().collect();
    assert_eq!(values.len(), 4);
    assert!(values.iter().any(|&v| v != values[0]), "{values:?}");
    assert_eq!(decision.value(decision.direction), values.iter().copied().reduce(f64::max));
    // Below 0, yet above losing: no move loses at once here.
    let lost = f64::from(WeightedEvaluator::new(Weights::STANDARD).lost_value(&board));
    assert!(values.iter().all(|&v| v < 0.0 && v > lost), "{values:?} against {lost}");
}

#[test]
fn deep_searches_agree_across_thread_counts_on_real_positions() {
    for board in sample_boards(6, 3..=8, 5) {
        let one = Solver::new(config(Preset::Heuristic, 3, 1)).expect("valid");
        let two = Solver::new(config(Preset::Heuristic, 3, 2)).expect("valid");
        let a = one.decide(&board, &Rules::default()).expect("a move");
        let b = two.decide(&board, &Rules::default()).expect("a move");
        assert_eq!((a.direction, a.values), (b.direction, b.values), "{board}");
    }
}

/// Crowded late boards leave the root few, uneven tasks, so a second thread
/// runs out of them and takes spawns from inside the other's largest chance
/// nodes: the sums must still come out the same to the bit.
#[test]
fn crowded_late_positions_agree_across_thread_counts() {
    let late = include_str!("../benches/positions.txt")
        .lines()
        .filter(|line| line.starts_with("late"))
        .map(|line| line.split('|').nth(1).unwrap_or("").trim().parse::<Board>().expect("valid"));
    for board in late {
        let one = Solver::new(config(Preset::Heuristic, 5, 1)).expect("valid");
        let two = Solver::new(config(Preset::Heuristic, 5, 2)).expect("valid");
        let a = one.decide(&board, &Rules::default()).expect("a move");
        let b = two.decide(&board, &Rules::default()).expect("a move");
        assert_eq!((a.direction, a.values), (b.direction, b.values), "{board}");
    }
}

/// A decision asked from inside the solver's own threads (where
/// `engine::play_game` runs a game's loop, through `Player::search_threads`)
/// equals one handed to them; engine's tests play the whole games.
#[test]
fn decisions_on_the_search_threads_are_the_decisions_of_one_thread() {
    use solver_expectimax::Player;
    let rules = Rules::default();
    let solver = Solver::new(config(Preset::Heuristic, 3, 2)).expect("valid");
    for board in sample_boards(4, 3..=8, 9) {
        let outside = solver.decide(&board, &rules).expect("a move");
        let inside = solver.search_threads().run(|| solver.decide(&board, &rules).expect("a move"));
        assert_eq!((outside.direction, outside.values), (inside.direction, inside.values));
    }
    // A random player has no threads of its own: its game runs here.
    let random = solver_expectimax::RandomPlayer::new(3);
    let here = std::thread::current().id();
    let ran_on = Player::<Board>::search_threads(&random).run(|| std::thread::current().id());
    assert_eq!(ran_on, here);
}

#[test]
fn other_sizes_get_legal_moves() {
    for text in
        ["2 0/0 2", "2 4 0/0 0 2/0 0 0", "2 0 0 0 0/0 4 0 0 0/0 0 0 0 0/0 0 8 0 0/0 0 0 0 2"]
    {
        let grid: Grid = text.parse().expect("valid");
        for preset in Preset::ALL.into_iter().filter(|p| !p.is_learned()) {
            let solver = solver(config(preset, 2, 2));
            let decision = solver.decide(&grid, &Rules::default()).expect("a move");
            assert!(grid.legal_directions().contains(decision.direction), "{preset} {grid}");
        }
    }
}

#[test]
fn the_table_stays_within_its_bound() {
    for bytes in [0usize, 100, 1 << 20, (1 << 20) + 12_345, 256 << 20] {
        let mut config = Preset::Heuristic.config();
        config.table_bytes = bytes;
        let solver = Solver::new(config).expect("valid");
        assert!(solver.table_bytes() <= bytes, "{} > {bytes}", solver.table_bytes());
    }
}

#[test]
fn bad_settings_are_errors() {
    use solver_expectimax::ConfigError;
    let mut c = Preset::Heuristic.config();
    c.threads = 0;
    assert_eq!(Solver::new(c).err(), Some(ConfigError::NoThreads));
    c.threads = solver_expectimax::MAX_THREADS + 1;
    assert_eq!(Solver::new(c).err(), Some(ConfigError::TooManyThreads(257)));
    c.threads = solver_expectimax::MAX_THREADS;
    assert!(c.validate().is_ok());
    let mut c = Preset::Heuristic.config();
    c.depth = Depth::Fixed(0);
    assert_eq!(Solver::new(c).err(), Some(ConfigError::BadDepth));
    c.depth = Depth::Adaptive { min: 4, max: 3, bonus: 0 };
    assert_eq!(Solver::new(c).err(), Some(ConfigError::BadDepth));
    c.depth = Depth::Crowded { shallow: 3, deep: 2, crowded: 3, bonus: 0 };
    assert_eq!(Solver::new(c).err(), Some(ConfigError::BadDepth));
    c.depth = Depth::Crowded { shallow: 0, deep: 2, crowded: 3, bonus: 0 };
    assert_eq!(Solver::new(c).err(), Some(ConfigError::BadDepth));
    c.depth = Depth::Crowded { shallow: 2, deep: MAX_DEPTH + 1, crowded: 3, bonus: 0 };
    assert_eq!(Solver::new(c).err(), Some(ConfigError::TooDeep(MAX_DEPTH + 1)));
    // A bonus past the deepest depth is clamped, as an adaptive one is.
    c.depth = Depth::Crowded { shallow: 2, deep: 3, crowded: 3, bonus: 12 };
    assert!(Solver::new(c).is_ok());
    assert_eq!(c.depth.range(), (MAX_DEPTH, MAX_DEPTH));
    c.depth = Depth::Fixed(40);
    assert_eq!(Solver::new(c).err(), Some(ConfigError::TooDeep(40)));
    for bad in [
        Weights { sum_power: -1.0, ..Weights::STANDARD },
        Weights { monotonicity_power: -0.5, ..Weights::STANDARD },
        Weights { base: f32::NAN, ..Weights::STANDARD },
        Weights { merges: f32::INFINITY, ..Weights::STANDARD },
    ] {
        let mut c = config(Preset::Fast, 2, 1);
        let Algorithm::Expectimax { weights, .. } = &mut c.algorithm else {
            panic!("fast is expectimax")
        };
        *weights = bad;
        assert_eq!(Solver::new(c).err(), Some(ConfigError::BadWeights), "{bad:?}");
    }
    assert!("nope".parse::<Preset>().is_err());
    assert_eq!("DEFAULT".parse::<Preset>(), Ok(Preset::Heuristic));
}

#[test]
fn the_tutorial_weights_are_the_rules_probabilities() {
    // The Java code multiplies by the literals 0.9 and 0.1; we use
    // 1 - p and p, which are the same doubles for p = 0.1.
    let p: f64 = Rules::default().four_probability();
    assert_eq!(1.0 - p, 0.9);
    assert_eq!(p, 0.1);
}

#[test]
fn a_time_budget_still_gives_a_decision() {
    let mut config = Preset::Heuristic.config();
    config.time_budget = Some(std::time::Duration::from_millis(1));
    config.table_bytes = 1 << 20;
    let solver = Solver::new(config).expect("valid");
    for board in sample_boards(5, 2..=10, 9) {
        let d = solver.decide(&board, &Rules::default()).expect("a move");
        assert!(d.depth >= 1);
        assert!(board.legal_directions().contains(d.direction));
    }
}

/// An at-least depth searches `min` without a budget, and with one never
/// less than `min`, however short the budget, and deeper where it lasts.
#[test]
fn an_at_least_depth_searches_its_least_depth_and_a_budget_only_adds() {
    let mut config = Preset::Corner.config();
    config.depth = Depth::AtLeast { min: 3, max: 8 };
    config.table_bytes = 1 << 20;
    let plain = Solver::new(config).expect("valid");
    config.time_budget = Some(std::time::Duration::from_nanos(1));
    let starved = Solver::new(config).expect("valid");
    config.time_budget = Some(std::time::Duration::from_secs(5));
    let generous = Solver::new(config).expect("valid");
    // A crowded board: few spawns, so depth 8 is cheap.
    let board: Board = "2 4 8 16/32 64 128 256/4 8 16 2/0 2 4 0".parse().unwrap();
    let rules = Rules::default();
    let (p, s, g) = (
        plain.decide(&board, &rules).unwrap(),
        starved.decide(&board, &rules).unwrap(),
        generous.decide(&board, &rules).unwrap(),
    );
    assert_eq!((p.depth, s.depth), (3, 3));
    assert_eq!((p.direction, p.values), (s.direction, s.values));
    assert_eq!(g.depth, 8);
    // Other depths under a budget deepen from 1, as before.
    config.depth = Depth::Fixed(3);
    config.time_budget = Some(std::time::Duration::from_nanos(1));
    let fixed = Solver::new(config).expect("valid");
    assert!(fixed.decide(&board, &rules).unwrap().depth < 3);
    config.depth = Depth::AtLeast { min: 4, max: 3 };
    assert!(Solver::new(config).is_err());
}

/// A crowded depth searches `deep` on a board with at most `crowded` empty
/// cells and `shallow` elsewhere, both moved by the bonus and never below 1.
#[test]
fn a_crowded_depth_deepens_on_crowded_boards_only() {
    let board = |empty: usize| {
        let mut rows = [[0u8; 4]; 4];
        for i in empty..16 {
            rows[i / 4][i % 4] = (i % 15 + 1) as u8;
        }
        Board::from_exponents(rows).expect("exponents within range")
    };
    let solver = |bonus| {
        let mut c = Preset::NtupleDeep.config();
        c.algorithm = Preset::Heuristic.config().algorithm;
        c.threads = 1;
        c.depth = Depth::Crowded { shallow: 2, deep: 3, crowded: 3, bonus };
        Solver::new(c).expect("valid settings")
    };
    let s = solver(0);
    for empty in 0..=16 {
        assert_eq!(s.depth_for(&board(empty)), if empty <= 3 { 3 } else { 2 }, "{empty} empty");
    }
    assert_eq!(solver(1).depth_for(&board(3)), 4);
    assert_eq!(solver(1).depth_for(&board(4)), 3);
    assert_eq!(solver(-5).depth_for(&board(0)), 1);
    assert_eq!(Depth::Crowded { shallow: 2, deep: 3, crowded: 3, bonus: -2 }.range(), (1, 1));
}

/// The corner search is a plain expectimax with the public program's two
/// rules: a chance node whose board scores below the evaluator's bound
/// ([`Evaluator::prune_below`]) is worth its score, and a lost board the
/// lost value. A slow reference written from that sentence (no cut-off, no
/// table) gives every root value, on corner positions where the bound
/// prunes and on positions of every phase.
#[test]
fn the_corner_search_is_a_plain_expectimax_that_prunes_below_its_bound() {
    use game_core::Direction;
    use solver_expectimax::CornerEvaluator;
    struct Reference {
        eval: CornerEvaluator,
        lost: f64,
        prune: f32,
        pruned: std::cell::Cell<u32>,
    }
    impl Reference {
        fn max(&self, board: &Board, depth: u32) -> f64 {
            Direction::ALL
                .iter()
                .filter_map(|&d| board.slide(d).map(|(after, _)| self.chance(&after, depth)))
                .reduce(f64::max)
                .unwrap_or(self.lost)
        }
        fn chance(&self, after: &Board, depth: u32) -> f64 {
            let score = self.eval.evaluate(after);
            if depth == 0 {
                return f64::from(score);
            }
            if score < self.prune {
                self.pruned.set(self.pruned.get() + 1);
                return f64::from(score);
            }
            let cells: Vec<usize> = after.empty_cells().collect();
            let total: f64 = cells
                .iter()
                .map(|&i| {
                    0.9 * self.max(&after.with_exponent_unchecked(i, 1), depth - 1)
                        + 0.1 * self.max(&after.with_exponent_unchecked(i, 2), depth - 1)
                })
                .sum();
            total / cells.len() as f64
        }
    }
    let corner: Vec<Board> = [
        "1024 512 64 8/256 128 16 2/8 4 2 0/2 0 0 0",
        "4096 2048 1024 32/8 64 256 2/4 2 0 0/0 0 0 2",
        "2048 1024 256 16/32 64 4 2/2 8 0 0/0 0 2 0",
        "512 1024 64 4/128 32 8 2/2 4 0 0/0 2 0 0",
        "8192 4096 2048 1024/16 64 128 512/2 8 4 2/0 0 0 2",
    ]
    .iter()
    .map(|t| t.parse().expect("valid"))
    .collect();
    let mut pruned_somewhere = false;
    for board in corner.into_iter().chain(sample_boards(6, 2..=8, 17)) {
        let eval = CornerEvaluator::new();
        let reference = Reference {
            lost: f64::from(eval.lost_value(&board)),
            prune: eval.prune_below(&board),
            eval,
            pruned: std::cell::Cell::new(0),
        };
        let mut config = config(Preset::Corner, 2, 1);
        config.algorithm = Algorithm::Corner { prob_cutoff: 0.0 };
        let decision = Solver::new(config).expect("valid").decide(&board, &Rules::default());
        let decision = decision.expect("a move");
        for d in Direction::ALL {
            let want = board.slide(d).map(|(after, _)| reference.chance(&after, 2));
            match (decision.value(d), want) {
                (Some(got), Some(want)) => assert!(
                    (got - want).abs() <= 1e-4 * want.abs().max(1.0),
                    "{board} {d:?}: {got} against {want}"
                ),
                (got, want) => assert_eq!(got, want, "{board} {d:?}"),
            }
        }
        pruned_somewhere |= reference.pruned.get() > 0;
    }
    assert!(pruned_somewhere, "no position exercised the bound");
}

/// The corner search's values depend on its root (the lost value and the
/// bound read its largest tile): its table keys entries by the root's
/// context, so a solver whose table has served every earlier move of a
/// game decides each move exactly as a solver without a table does.
#[test]
fn a_warm_corner_table_decides_as_no_table_through_a_game() {
    use game_core::Game;
    let warm = Solver::new(config(Preset::Corner, 2, 1)).expect("valid");
    let mut cold = config(Preset::Corner, 2, 1);
    cold.table_bytes = 0;
    let cold = Solver::new(cold).expect("valid");
    let rules = Rules::default();
    let mut game = Game::new(rules, 21);
    let (mut hits, mut largest) = (0, 0);
    for _ in 0..600 {
        let a = warm.decide(game.board(), &rules).expect("a move");
        let b = cold.decide(game.board(), &rules).expect("a move");
        assert_eq!((a.direction, a.values), (b.direction, b.values), "{}", game.board());
        hits += a.stats.table_hits;
        if game.play(a.direction).is_err() || game.is_over() {
            break;
        }
        largest = game.board().max_exponent();
    }
    assert!(hits > 0, "the table was never used");
    assert!(largest >= 8, "the game never grew past {largest}: too few roots");
}

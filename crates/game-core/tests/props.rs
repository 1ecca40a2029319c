//! Properties over random packed boards and random grids of every size,
//! thousands of cases each.

use std::collections::HashSet;

use proptest::prelude::*;

use game_core::{
    Board, Direction, Game, GameBoard, Grid, PlaceError, Rules, RulesBuilder, Spawner,
};

use crate::common::{board, grid, mirror, multiset, transpose};
use crate::reference::RefBoard;

const CASES: u32 = 4096;

/// Every move agrees with the reference, keeps the tile sum, and scores the
/// sum of the tiles its merges created.
fn check_moves<B: GameBoard>(board: &B) -> Result<(), TestCaseError> {
    let reference = RefBoard::of(board);
    let each = board.slide_each_unscored();
    for (i, dir) in Direction::ALL.into_iter().enumerate() {
        let (after, score, merged) = reference.push(dir);
        let expected = (after != reference).then(|| (after.to_board::<B>(), score));
        prop_assert_eq!(board.slide(dir), expected, "{} {}", board, dir);
        prop_assert_eq!(score, merged.iter().sum::<u32>());
        // Equal as values (Eq and Hash), not only tile by tile: the packed
        // board's second word must be what building the board would give.
        let shifted = board.slide_unscored(dir);
        let want = expected.map_or(*board, |(after, _)| after);
        prop_assert_eq!(shifted, want, "{} {}", board, dir);
        prop_assert_eq!(each[i], want, "{} {}", board, dir);
        prop_assert_eq!(shifted.tile_sum(), board.tile_sum(), "{} {}", board, dir);
        // Each merge turns two tiles into one.
        prop_assert_eq!(multiset(&shifted).len() + merged.len(), multiset(board).len());
    }
    Ok(())
}

/// The direction laws: left = mirror∘right∘mirror, up = transpose∘left∘
/// transpose, down = transpose∘right∘transpose, scores included.
fn check_laws<B: GameBoard>(board: &B) -> Result<(), TestCaseError> {
    let conj = |f: &dyn Fn(&B) -> B, dir: Direction| {
        f(board).slide(dir).map(|(after, score)| (f(&after), score))
    };
    prop_assert_eq!(board.slide(Direction::Left), conj(&mirror, Direction::Right));
    prop_assert_eq!(board.slide(Direction::Right), conj(&mirror, Direction::Left));
    prop_assert_eq!(board.slide(Direction::Up), conj(&transpose, Direction::Left));
    prop_assert_eq!(board.slide(Direction::Down), conj(&transpose, Direction::Right));
    Ok(())
}

/// Game over exactly when no direction is legal, the legal set being what
/// the reference says moves.
fn check_game_over<B: GameBoard>(board: &B) -> Result<(), TestCaseError> {
    let reference = RefBoard::of(board);
    let legal: Vec<Direction> = board.legal_directions().iter().collect();
    prop_assert_eq!(&legal, &reference.legal());
    prop_assert_eq!(board.is_game_over(), legal.is_empty());
    prop_assert_eq!(board.count_empty(), reference.empty_cells().len());
    prop_assert_eq!(board.empty_cells().collect::<Vec<_>>(), reference.empty_cells());
    let reference_max = reference.cells.iter().copied().max().filter(|&v| v > 0);
    prop_assert_eq!(board.max_tile().map(game_core::Tile::value), reference_max);
    Ok(())
}

/// A spawn puts a 2 or a 4 on a cell that was empty, and changes nothing else.
fn check_spawn<B: GameBoard>(board: &B, seed: u64, p: f64) -> Result<(), TestCaseError> {
    let mut spawner = Spawner::new(seed, p);
    let Some((after, idx, exponent)) = spawner.spawn(board) else {
        prop_assert_eq!(board.count_empty(), 0);
        return Ok(());
    };
    let n = board.size();
    prop_assert_eq!(board.exponent(idx / n, idx % n), Some(0));
    prop_assert!(exponent == 1 || exponent == 2);
    for i in 0..n * n {
        let want = if i == idx { exponent } else { board.exponent(i / n, i % n).unwrap() };
        prop_assert_eq!(after.exponent(i / n, i % n), Some(want));
    }
    prop_assert_eq!(after.count_empty() + 1, board.count_empty());
    Ok(())
}

/// Both text forms parse back to the board.
fn check_notation<B: GameBoard + std::str::FromStr>(board: &B) -> Result<(), TestCaseError>
where
    B::Err: std::fmt::Debug,
{
    let line = board.to_string();
    prop_assert!(!line.contains('\n'));
    prop_assert_eq!(&line.parse::<B>().unwrap(), board);
    let lines = format!("{board:#}");
    prop_assert_eq!(lines.lines().count(), board.size());
    prop_assert_eq!(&lines.parse::<B>().unwrap(), board);
    Ok(())
}

fn direction() -> impl Strategy<Value = Direction> {
    prop::sample::select(Direction::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn board_moves_match_reference(board in board()) {
        check_moves(&board)?;
    }

    #[test]
    fn grid_moves_match_reference(grid in grid()) {
        check_moves(&grid)?;
    }

    #[test]
    fn board_direction_laws(board in board()) {
        check_laws(&board)?;
        // And with the packed board's own bit-trick transforms.
        let left = board.slide(Direction::Left);
        let right = board.mirror().slide(Direction::Right).map(|(b, s)| (b.mirror(), s));
        prop_assert_eq!(left, right);
        let up = board.transpose().slide(Direction::Left).map(|(b, s)| (b.transpose(), s));
        prop_assert_eq!(board.slide(Direction::Up), up);
        let down = board.transpose().slide(Direction::Right).map(|(b, s)| (b.transpose(), s));
        prop_assert_eq!(board.slide(Direction::Down), down);
        prop_assert_eq!(board.transpose(), transpose(&board));
        prop_assert_eq!(board.mirror(), mirror(&board));
    }

    #[test]
    fn grid_direction_laws(grid in grid()) {
        check_laws(&grid)?;
    }

    #[test]
    fn board_game_over(board in board()) {
        check_game_over(&board)?;
    }

    #[test]
    fn grid_game_over(grid in grid()) {
        check_game_over(&grid)?;
    }

    #[test]
    fn board_spawn(board in board(), seed in any::<u64>(), p in 0.0..=1.0f64) {
        check_spawn(&board, seed, p)?;
    }

    #[test]
    fn grid_spawn(grid in grid(), seed in any::<u64>(), p in 0.0..=1.0f64) {
        check_spawn(&grid, seed, p)?;
    }

    #[test]
    fn board_notation_round_trips(board in board()) {
        check_notation(&board)?;
    }

    #[test]
    fn grid_notation_round_trips(grid in grid()) {
        check_notation(&grid)?;
    }

    /// No text makes the parsers panic; what parses prints back to an
    /// equivalent board.
    #[test]
    fn parsing_any_text_never_panics(text in "[0-9 ./,\n\t+-]{0,90}|\\PC{0,40}") {
        if let Ok(board) = text.parse::<Board>() {
            prop_assert_eq!(board.to_string().parse::<Board>(), Ok(board));
        }
        if let Ok(grid) = text.parse::<Grid>() {
            prop_assert_eq!(grid.to_string().parse::<Grid>(), Ok(grid));
        }
    }

    /// The 8 symmetries are the reference's 8 transforms of the square, keep
    /// the tiles, and are distinct when the tiles are.
    #[test]
    fn board_symmetries(board in board()) {
        let got: HashSet<Board> = board.symmetries().into_iter().collect();
        let reference = RefBoard::of(&board);
        let want: HashSet<Board> = (0..8).map(|s| reference.symmetry(s).to_board()).collect();
        prop_assert_eq!(&got, &want);
        for sym in board.symmetries() {
            prop_assert_eq!(multiset(&sym), multiset(&board));
        }
        // The order is part of the contract: the n-tuple network sums its
        // features in it, so a reordering would change values in their last
        // bits and the committed games would no longer replay.
        let flip = |b: &Board| transpose(&mirror(&transpose(b)));
        let t = transpose(&board);
        let ordered = [
            board,
            mirror(&board),
            flip(&board),
            flip(&mirror(&board)),
            t,
            mirror(&t),
            flip(&t),
            flip(&mirror(&t)),
        ];
        prop_assert_eq!(board.symmetries(), ordered);
    }

    #[test]
    fn symmetries_of_distinct_tiles_are_distinct(perm in Just((0u8..16).collect::<Vec<_>>()).prop_shuffle()) {
        let raw = perm.iter().enumerate().fold(0u64, |raw, (i, &e)| raw | u64::from(e) << (4 * i));
        let board = Board::from_raw(raw);
        let syms: HashSet<Board> = board.symmetries().into_iter().collect();
        prop_assert_eq!(syms.len(), 8);
    }

    /// The packed board and the 4x4 grid agree on every operation.
    #[test]
    fn board_and_grid_agree(board in board(), seed in any::<u64>(), p in 0.0..=1.0f64) {
        let grid = Grid::from(board);
        prop_assert_eq!(Board::try_from(grid), Ok(board));
        prop_assert_eq!(grid.to_string(), board.to_string());
        for dir in Direction::ALL {
            prop_assert_eq!(board.slide(dir).map(|(b, s)| (Grid::from(b), s)), grid.slide(dir));
            prop_assert_eq!(Grid::from(board.slide_unscored(dir)), grid.slide_unscored(dir));
        }
        let each = board.slide_each_unscored();
        prop_assert_eq!(each, Direction::ALL.map(|d| board.slide_unscored(d)));
        prop_assert_eq!(each.map(Grid::from), grid.slide_each_unscored());
        prop_assert_eq!(board.count_distinct(), GameBoard::count_distinct(&grid));
        prop_assert_eq!(board.legal_directions(), grid.legal_directions());
        prop_assert_eq!(GameBoard::count_empty(&board), grid.count_empty());
        prop_assert_eq!(board.empty_cells().collect::<Vec<_>>(), grid.empty_cells().collect::<Vec<_>>());
        prop_assert_eq!(board.max_tile(), grid.max_tile());
        prop_assert_eq!(GameBoard::max_exponent(&board), grid.max_exponent());
        prop_assert_eq!(board.is_game_over(), grid.is_game_over());
        prop_assert_eq!(board.tile_sum(), grid.tile_sum());
        for row in 0..6 {
            for col in 0..6 {
                prop_assert_eq!(board.exponent(row, col), grid.exponent(row, col));
                for value in [0, 1, 2, 3, 4, 6, 2048, 32768, 65536, 131072, 1 << 25, 1 << 26] {
                    let b: Result<Grid, PlaceError> = board.place(row, col, value).map(Grid::from);
                    prop_assert_eq!(b, grid.place(row, col, value));
                }
            }
        }
        let b = Spawner::new(seed, p).spawn(&board);
        let g = Spawner::new(seed, p).spawn(&grid);
        prop_assert_eq!(b.map(|(b, i, e)| (Grid::from(b), i, e)), g);
    }

    /// Whole games from the same seed and directions are the same game on
    /// both board types, refused moves included.
    #[test]
    fn board_and_grid_games_agree(
        seed in any::<u64>(),
        p in 0.0..=1.0f64,
        dirs in prop::collection::vec(direction(), 0..300),
    ) {
        let rules = RulesBuilder { four_probability: p, ..RulesBuilder::default() }.build().unwrap();
        let mut packed = Game::new(rules, seed);
        let mut general = Game::<Grid>::with_size(4, rules, seed).unwrap();
        prop_assert_eq!(Grid::from(*packed.board()), *general.board());
        for dir in dirs {
            prop_assert_eq!(packed.play(dir), general.play(dir));
            prop_assert_eq!(Grid::from(*packed.board()), *general.board());
            prop_assert_eq!(packed.score(), general.score());
            prop_assert_eq!(packed.moves(), general.moves());
            prop_assert_eq!(packed.is_over(), general.is_over());
        }
    }

    /// The same, under the tutorial's turn rule.
    #[test]
    fn board_and_grid_tutorial_games_agree(
        seed in any::<u64>(),
        dirs in prop::collection::vec(direction(), 0..100),
    ) {
        let mut packed = Game::new(Rules::tutorial(), seed);
        let mut general = Game::<Grid>::with_size(4, Rules::tutorial(), seed).unwrap();
        for dir in dirs {
            prop_assert_eq!(packed.play(dir), general.play(dir));
            prop_assert_eq!(Grid::from(*packed.board()), *general.board());
            prop_assert_eq!(packed.score(), general.score());
        }
    }
}

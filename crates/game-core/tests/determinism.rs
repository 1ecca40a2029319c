//! The same seed and the same directions give the same game on every
//! platform and every build: the first spawns of a few seeds are pinned.

use game_core::{AnyBoard, Board, Direction, Game, GameBoard, GameRng, Grid, Rules, RulesBuilder};

/// If one of these changes, every recorded game and every seeded benchmark
/// changes with it: that is a breaking change, not a test to update lightly.
#[test]
fn first_spawns_are_pinned() {
    let seeds = [0, 1, 42, 2048, u64::MAX];
    let boards: Vec<String> =
        seeds.iter().map(|&seed| Game::new(Rules::default(), seed).board().to_string()).collect();
    assert_eq!(
        boards,
        [
            "0 2 0 2/0 0 0 0/0 0 0 0/0 0 0 0",
            "0 0 0 0/0 0 0 0/2 0 0 0/0 4 0 0",
            "0 2 0 0/0 0 0 0/0 0 0 2/0 0 0 0",
            "0 0 0 0/0 2 0 0/0 2 0 0/0 0 0 0",
            "0 0 0 0/0 0 0 0/0 0 0 0/0 2 0 4",
        ]
    );
    for (&seed, want) in seeds.iter().zip(&boards) {
        let grid = Game::<Grid>::with_size(4, Rules::default(), seed).unwrap();
        assert_eq!(&grid.board().to_string(), want, "seed {seed} on a Grid");
    }
}

#[test]
fn random_stream_is_pinned() {
    let mut rng = GameRng::new(0);
    let got: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
    assert_eq!(got, [13804888775535289832, 4211859015901796865, 4415496932110364166]);
}

/// A few turns of a seeded game, spawns included.
#[test]
fn first_turns_are_pinned() {
    let mut game = Game::new(Rules::default(), 7);
    let mut trace = vec![game.board().to_string()];
    for dir in [Direction::Left, Direction::Up, Direction::Right, Direction::Down] {
        if game.play(dir).is_ok() {
            trace.push(game.board().to_string());
        }
    }
    assert_eq!(
        trace,
        [
            "0 2 0 0/0 0 0 0/0 0 0 0/2 0 0 0",
            "2 0 0 0/2 0 0 0/0 0 0 0/2 0 0 0",
            "4 0 0 0/2 0 0 0/0 0 0 0/2 0 0 0",
            "0 0 0 4/0 0 0 2/2 0 0 0/0 0 0 2",
            "0 2 0 0/0 0 0 0/0 0 0 4/2 0 0 4",
        ]
    );
}

/// Plays `dirs` (skipping refused moves) from `seed` and returns every board.
fn replay(size: usize, rules: Rules, seed: u64, dirs: &[Direction]) -> (Vec<String>, u64) {
    let mut game = Game::<Grid>::with_size(size, rules, seed).unwrap();
    let mut boards = vec![game.board().to_string()];
    for &dir in dirs {
        if game.play(dir).is_ok() {
            boards.push(game.board().to_string());
        }
    }
    (boards, game.score())
}

#[test]
fn replays_are_identical() {
    let dirs: Vec<Direction> = (0..500).map(|i| Direction::ALL[(i * 7 + i / 3) % 4]).collect();
    let rules = Rules::default();
    for size in [3, 4, 5] {
        for seed in [0, 1, 99] {
            assert_eq!(replay(size, rules, seed, &dirs), replay(size, rules, seed, &dirs));
        }
        // Different seeds give different games.
        assert_ne!(replay(size, rules, 1, &dirs).0, replay(size, rules, 2, &dirs).0);
    }
}

/// A game played to the end by always taking the first legal direction ends
/// the same way every time.
#[test]
fn full_game_is_pinned() {
    let mut game = Game::new(Rules::default(), 2024);
    while let Some(dir) = game.board().legal_directions().iter().next() {
        game.play(dir).unwrap();
    }
    assert!(game.is_over());
    assert_eq!(
        (game.score(), game.moves(), game.board().to_string()),
        (836, 107, "2 32 8 2/4 2 32 16/64 32 16 2/16 4 2 4".to_owned())
    );
}

/// A saved source goes on exactly as the original, from every position in
/// its first blocks (ChaCha8 hands out words from a buffer of several
/// blocks, so the position within it matters).
#[test]
fn rng_state_round_trips_at_every_position() {
    let mut rng = GameRng::new(99);
    for drawn in 0..300 {
        let mut copy = GameRng::from_state(rng.state());
        let ahead: Vec<u64> = (0..5).map(|_| copy.next_u64()).collect();
        let mut probe = rng.clone();
        let want: Vec<u64> = (0..5).map(|_| probe.next_u64()).collect();
        assert_eq!(ahead, want, "after {drawn} draws");
        rng.next_u64();
    }
}

/// The first direction that moves `board`, trying them from the `k`-th of
/// [`Direction::ALL`] on, round the cycle.
fn first_legal<B: GameBoard>(board: &B, k: usize) -> Option<Direction> {
    (0..4).map(|i| Direction::ALL[(k + i) % 4]).find(|&d| board.slide(d).is_some())
}

/// Plays `game` by [`first_legal`] from a rotating start, for `moves` moves
/// or to its end; the boards and scores it went through.
fn play<B: GameBoard>(game: &mut Game<B>, moves: usize) -> Vec<(String, u64)> {
    let mut seen = Vec::new();
    for k in 0..moves {
        let Some(dir) = first_legal(game.board(), k) else { break };
        game.play(dir).expect("legal");
        seen.push((game.board().to_string(), game.score()));
    }
    seen
}

/// A game saved at any move and restored plays on exactly as the original
/// (board, score, moves and spawns), on the packed board and on a grid.
#[test]
fn a_restored_game_goes_on_exactly() {
    for seed in 0..20u64 {
        for cut in [0usize, 1, 7, 50, 200] {
            let rules = Rules::default();
            let mut game = Game::new(rules, seed);
            let mut grid = Game::<Grid>::with_size(5, rules, seed).unwrap();
            play(&mut game, cut);
            play(&mut grid, cut);
            let mut copy = Game::restore(game.save(), rules);
            assert_eq!(
                (copy.score(), copy.moves(), copy.seed()),
                (game.score(), game.moves(), game.seed())
            );
            let to_end = usize::MAX;
            assert_eq!(play(&mut copy, to_end), play(&mut game, to_end), "seed {seed}, cut {cut}");
            let mut grid_copy = Game::restore(grid.save(), rules);
            assert_eq!(play(&mut grid_copy, to_end), play(&mut grid, to_end), "5x5, seed {seed}");
        }
    }
}

/// `renewed` starts, from a game in any state, the very game `new` starts
/// from the same seed: board, score, moves, seed and spawns to the end, on
/// the packed board, grids of other sizes and `AnyBoard`, whatever the rules
/// (a big grid's game is cut after 2,000 moves, long past its opening).
#[test]
fn a_renewed_game_is_the_new_game_of_its_seed() {
    // Moves by `first_legal` until a move is refused (the tutorial's turn
    // rule refuses some that slide) or for 2,000 moves.
    fn moves<B: GameBoard>(game: &mut Game<B>) -> Vec<(String, u64)> {
        (0..2_000)
            .map_while(|k| {
                game.play(first_legal(game.board(), k)?).ok()?;
                Some((game.board().to_string(), game.score()))
            })
            .collect()
    }
    fn check<B: GameBoard>(size: usize, rules: Rules) {
        let mut old = Game::<B>::with_size(size, rules, 5).unwrap();
        moves(&mut old);
        for seed in [0, 1, 42, u64::MAX] {
            let mut renewed = old.renewed(seed);
            let mut new = Game::<B>::with_size(size, rules, seed).unwrap();
            assert_eq!(renewed.board(), new.board(), "{rules:?}, seed {seed}");
            assert_eq!(renewed.rules(), new.rules());
            assert_eq!(
                (renewed.score(), renewed.moves(), renewed.seed()),
                (new.score(), new.moves(), new.seed())
            );
            let played = moves(&mut renewed);
            assert!(!played.is_empty(), "{rules:?}: the games are played");
            assert_eq!(played, moves(&mut new));
        }
    }
    let odd = RulesBuilder { start_tiles: 4, four_probability: 0.5, ..Default::default() };
    check::<Board>(4, Rules::default());
    check::<Board>(4, odd.build().unwrap());
    check::<Board>(4, Rules::tutorial());
    check::<AnyBoard>(4, Rules::default());
    for size in [2, 3, 5, 8] {
        check::<Grid>(size, Rules::default());
        check::<AnyBoard>(size, Rules::default());
        // Four starting tiles can fill a 2x2 board to its end.
        if size > 2 {
            check::<AnyBoard>(size, odd.build().unwrap());
        }
    }
}

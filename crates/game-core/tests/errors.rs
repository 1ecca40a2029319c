//! Every error path of the public API: an error value with a clear message,
//! never a panic.

use game_core::{
    AnyBoard, Board, Direction, Game, GameBoard, Grid, MAX_EXPONENT, MAX_TILE, ParseBoardError,
    ParseErrorKind, PlaceError, PlayError, Rules, RulesBuilder, RulesError, SizeError, Tile,
    TurnRule, exponent_to_value,
};

#[test]
fn place_errors() {
    let board: Board = "2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0".parse().unwrap();
    assert_eq!(board.place(0, 0, 4), Err(PlaceError::Occupied { row: 0, col: 0 }));
    assert_eq!(board.place(4, 0, 2), Err(PlaceError::OutOfRange { row: 4, col: 0, size: 4 }));
    assert_eq!(board.place(0, 4, 2), Err(PlaceError::OutOfRange { row: 0, col: 4, size: 4 }));
    assert_eq!(
        board.place(usize::MAX, usize::MAX, 2),
        Err(PlaceError::OutOfRange { row: usize::MAX, col: usize::MAX, size: 4 })
    );
    for value in [3, 1, 1 << 26, 0, 6, u32::MAX, 1 << 31, 65535] {
        assert_eq!(board.place(1, 1, value), Err(PlaceError::BadValue { value }), "{value}");
    }
    assert_eq!(board.set_exponent(1, 1, 26), Err(PlaceError::BadExponent { exponent: 26 }));
    for value in [32768, 65536, 131072, 1 << 25] {
        assert_eq!(board.place(1, 1, value).unwrap().max_tile().map(Tile::value), Some(value));
    }
    assert_eq!(board.exponent(4, 0), None);
    assert_eq!(board.value(0, 9), None);

    let grid = Grid::empty(3).unwrap().place(2, 2, 2).unwrap();
    assert_eq!(grid.place(2, 2, 2), Err(PlaceError::Occupied { row: 2, col: 2 }));
    assert_eq!(grid.place(3, 0, 2), Err(PlaceError::OutOfRange { row: 3, col: 0, size: 3 }));
    assert_eq!(grid.place(0, 0, 3), Err(PlaceError::BadValue { value: 3 }));

    let rows = [[0, 0, 0, 0], [0, 26, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]];
    assert_eq!(Board::from_exponents(rows), Err(PlaceError::BadExponent { exponent: 26 }));
    let rows = [[0, 0, 0, 0], [0, 16, 0, 0], [0, 0, 0, 17], [0, 0, 0, 0]];
    assert_eq!(Board::from_exponents(rows).unwrap().to_exponents(), rows);
    assert_eq!(
        Grid::empty(8).unwrap().set_exponent(7, 7, 26),
        Err(PlaceError::BadExponent { exponent: 26 })
    );

    assert_eq!(PlaceError::Occupied { row: 0, col: 0 }.to_string(), "cell (0, 0) is not empty");
    assert_eq!(
        PlaceError::OutOfRange { row: 4, col: 0, size: 4 }.to_string(),
        "cell (4, 0) is outside the 4x4 board"
    );
    assert_eq!(
        PlaceError::BadValue { value: 3 }.to_string(),
        "3 is not a tile (expected a power of two from 2 to 33554432)"
    );
}

#[test]
fn parse_errors_say_where() {
    let err = "2 0 0 0/0 0 3 0/0 0 0 0/0 0 0 0".parse::<Board>().unwrap_err();
    assert_eq!((err.row(), err.column()), (Some(2), Some(3)));
    assert_eq!(err.kind(), &ParseErrorKind::BadTile("3".to_owned()));
    assert_eq!(
        err.to_string(),
        "row 2, cell 3: `3` is not a tile (expected 0 or . for empty, or a power of two from 2 to 33554432)"
    );

    let err = "2 0 0 0/0 0 0 0/0 0 0/0 0 0 0".parse::<Board>().unwrap_err();
    assert_eq!((err.row(), err.column()), (Some(3), None));
    assert_eq!(
        err.to_string(),
        "row 3: 3 cells but the board has 4 rows \
         (a board is square: as many cells in each row as there are rows)"
    );

    for bad in ["67108864", "x", "-2", "+2", "1", "2.0", "4294967296", "0x2"] {
        let text = format!("0 0/0 {bad}");
        let err = text.parse::<Grid>().unwrap_err();
        assert_eq!((err.row(), err.column()), (Some(2), Some(2)), "{text}");
        assert_eq!(err.kind(), &ParseErrorKind::BadTile(bad.to_owned()));
    }

    let err = "".parse::<Board>().unwrap_err();
    assert_eq!(err.kind(), &ParseErrorKind::Empty);
    assert_eq!(err.to_string(), "the board is empty (expected rows like `2 0 0 4/0 0 0 0/...`)");
    assert_eq!("  \n ".parse::<Grid>().unwrap_err().kind(), &ParseErrorKind::Empty);

    // Bad sizes: nine rows, and a 3x3 or 5x5 text for the packed board.
    let nine = ["0 0 0 0 0 0 0 0 0"; 9].join("/");
    assert_eq!(nine.parse::<Grid>().unwrap_err().kind(), &ParseErrorKind::RowCount { rows: 9 });
    let err = "0 0 0/0 0 0/0 0 0".parse::<Board>().unwrap_err();
    assert_eq!(err.kind(), &ParseErrorKind::Size(SizeError::NotPacked { size: 3 }));
    assert_eq!(err.row(), None);
    assert_eq!(err.to_string(), "the packed board is 4x4, not 3x3 (use Grid for other sizes)");
    let err = "0 0 0 0/0 0 0 0/0 0 0 0/0 0 0".parse::<Grid>().unwrap_err();
    assert_eq!(err.kind(), &ParseErrorKind::CellCount { found: 3, expected: 4 });
}

/// The usual slips are named as the writer sees them, not as a count of
/// rows or cells, so that the message says how to fix the board.
#[test]
fn parse_errors_name_the_usual_slips() {
    let err = "2 2 0 0/0 4 0 0/0 0 0 0/0 0 0 2/".parse::<Board>().unwrap_err();
    assert_eq!((err.kind(), err.row()), (&ParseErrorKind::EmptyRow, Some(5)));
    assert_eq!(err.to_string(), "row 5: the row is empty (a `/` at the end, or two `/` in a row?)");
    let err = "2 0//0 4".parse::<Grid>().unwrap_err();
    assert_eq!((err.kind(), err.row()), (&ParseErrorKind::EmptyRow, Some(2)));

    let err = "hello".parse::<Board>().unwrap_err();
    assert_eq!(err.kind(), &ParseErrorKind::NotABoard("hello".to_owned()));
    assert_eq!(
        err.to_string(),
        "`hello` is not a board: write rows of tiles (0 or . for empty) separated by `/`, \
         e.g. `2 0 0 4/0 0 0 0/0 16 0 0/0 0 0 2048`"
    );

    let err = "2 2 0 0 0 4 0 0 0 0 0 0 0 0 0 2".parse::<Board>().unwrap_err();
    assert_eq!(err.kind(), &ParseErrorKind::OneRow { cells: 16 });
    assert_eq!(
        err.to_string(),
        "16 numbers but no `/`: write the 4 rows separated by `/`, \
         e.g. `2 0 0 4/0 0 0 0/0 16 0 0/0 0 0 2048`"
    );
    // The example has the rows asked for: four numbers are two rows.
    let err = "4 4 4 4".parse::<Grid>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "4 numbers but no `/`: write the 2 rows separated by `/`, e.g. `2 0/0 4`"
    );
    let err = "0 2 0 0 0 0 0 0 4".parse::<Grid>().unwrap_err();
    assert!(err.to_string().ends_with("the 3 rows separated by `/`, e.g. `2 0 0/0 0 0/0 0 4`"));
    let err = "2".parse::<Grid>().unwrap_err();
    assert_eq!(err.kind(), &ParseErrorKind::OneRow { cells: 1 });
    assert_eq!(
        err.to_string(),
        "one row of 1 cell and no `/`: write 2 to 8 rows separated by `/`, \
         as many cells in each as there are rows, e.g. `2 0/0 4`"
    );
    // One line with a bad tile after a good one names the cell.
    let err = "2 4 3".parse::<Grid>().unwrap_err();
    assert_eq!((err.row(), err.column()), (Some(1), Some(3)));
    assert_eq!(err.kind(), &ParseErrorKind::BadTile("3".to_owned()));
}

#[test]
fn parse_accepts_the_documented_forms() {
    let want: Board = "2 0 0 4/0 0 0 0/0 16 0 0/0 0 0 2048".parse().unwrap();
    let forms = [
        "2 0 0 4\n0 0 0 0\n0 16 0 0\n0 0 0 2048",
        "  2 0 0 4 / 0 0 0 0 / 0 16 0 0 / 0 0 0 2048  ",
        "2 . . 4/. . . ./. 16 . ./. . . 2048",
        "2 0 0 4\r\n0 0 0 0\r\n0 16 0 0\r\n0 0 0 2048\r\n",
        "\n2 0 0 4\n\n0 0 0 0\n0 16 0 0\n0 0 0 2048\n",
    ];
    for text in forms {
        assert_eq!(text.parse::<Board>(), Ok(want), "{text:?}");
    }
    assert_eq!(format!("{want:#}"), "2 0 0 4\n0 0 0 0\n0 16 0 0\n0 0 0 2048");
}

#[test]
fn rules_reject_impossible_settings() {
    let build = |b: RulesBuilder| b.build();
    let base = RulesBuilder::default();
    for p in [-0.1, 1.5, f64::INFINITY, f64::NEG_INFINITY] {
        assert_eq!(
            build(RulesBuilder { four_probability: p, ..base }),
            Err(RulesError::FourProbability(p))
        );
    }
    let nan = build(RulesBuilder { four_probability: f64::NAN, ..base });
    assert!(matches!(nan, Err(RulesError::FourProbability(p)) if p.is_nan()), "{nan:?}");
    // The starting tiles fit every board, the smallest (2x2) too.
    for start_tiles in [0, 5, 16] {
        assert_eq!(
            build(RulesBuilder { start_tiles, ..base }),
            Err(RulesError::StartTiles { start_tiles, cells: 4 })
        );
    }
    assert!(build(RulesBuilder { start_tiles: 4, ..base }).is_ok());
    assert!(build(RulesBuilder { four_probability: 0.0, ..base }).is_ok());
    assert!(build(RulesBuilder { four_probability: 1.0, ..base }).is_ok());

    assert_eq!(
        RulesError::FourProbability(1.5).to_string(),
        "the probability of a 4 must be between 0 and 1, not 1.5"
    );
    assert_eq!(
        RulesError::StartTiles { start_tiles: 5, cells: 4 }.to_string(),
        "5 starting tiles do not fit every board: expected 1 to 4"
    );
}

#[test]
fn packed_game_of_another_size_is_an_error() {
    let rules = Rules::default();
    let err = Game::<Board>::with_size(5, rules, 1).unwrap_err();
    assert_eq!(err, SizeError::NotPacked { size: 5 });
    assert_eq!(Game::<Grid>::with_size(5, rules, 1).unwrap().board().size(), 5);
    assert_eq!(Game::<Board>::with_size(4, rules, 1).unwrap().board(), Game::new(rules, 1).board());
    for size in [0, 1, 9, 100] {
        assert_eq!(
            Game::<AnyBoard>::with_size(size, rules, 1).unwrap_err(),
            SizeError::OutOfRange { size }
        );
    }
    assert_eq!(
        SizeError::OutOfRange { size: 9 }.to_string(),
        "board size 9 is not supported (expected 2 to 8)"
    );

    let grid = Grid::empty(3).unwrap();
    // A game's size is its board's: the rules have none to disagree with.
    assert_eq!(Game::from_board(grid, rules, 1).board().size(), 3);
    assert_eq!(Board::empty(5), Err(SizeError::NotPacked { size: 5 }));
    assert_eq!(Grid::empty(1), Err(SizeError::OutOfRange { size: 1 }));
    assert_eq!(Grid::empty(9), Err(SizeError::OutOfRange { size: 9 }));
    assert_eq!(Board::try_from(grid), Err(SizeError::NotPacked { size: 3 }));
}

#[test]
fn standard_refuses_a_move_that_changes_nothing() {
    let board: Board = "2 0 0 0/4 0 0 0/0 0 0 0/0 0 0 0".parse().unwrap();
    let mut game = Game::from_board(board, Rules::default(), 5);
    let untouched = game.clone();
    assert_eq!(game.play(Direction::Left), Err(PlayError::NothingMoves(Direction::Left)));
    assert_eq!(game.play(Direction::Up), Err(PlayError::NothingMoves(Direction::Up)));
    assert_eq!(PlayError::NothingMoves(Direction::Up).to_string(), "moving up changes nothing");
    assert_eq!((*game.board(), game.moves(), game.score()), (board, 0, 0));
    // Nothing was drawn from the random source either: the next turn is the
    // one an untouched copy plays.
    let mut copy = untouched;
    assert_eq!(game.play(Direction::Right), copy.play(Direction::Right));
    assert_eq!(game.board(), copy.board());
}

#[test]
fn standard_game_ends_when_nothing_moves() {
    // Full but mergeable: not over.
    let full: Board = "2 2 4 8/4 8 16 32/8 16 32 64/16 32 64 128".parse().unwrap();
    let game = Game::from_board(full, Rules::default(), 0);
    assert!(!game.is_over());
    let stuck: Board = "2 4 2 4/4 2 4 2/2 4 2 4/4 2 4 2".parse().unwrap();
    let mut game = Game::from_board(stuck, Rules::default(), 0);
    assert!(game.is_over());
    for dir in Direction::ALL {
        assert_eq!(game.play(dir), Err(PlayError::GameOver));
    }
    assert_eq!(PlayError::GameOver.to_string(), "the game is over");
}

/// `play` tests for game over only when the move changes nothing: the
/// same errors on the packed board's slower path (a tile past 32768) and
/// on a `Grid` (the trait's own legality), stuck or with two ways out.
#[test]
fn game_over_and_nothing_moves_on_every_board_path() {
    fn check<B: GameBoard>(stuck: B, open: B) {
        let mut game = Game::from_board(stuck, Rules::default(), 0);
        for dir in Direction::ALL {
            assert_eq!(game.play(dir), Err(PlayError::GameOver));
        }
        let mut game = Game::from_board(open, Rules::default(), 0);
        for dir in [Direction::Down, Direction::Right] {
            assert_eq!(game.play(dir), Err(PlayError::NothingMoves(dir)));
        }
        assert!(game.play(Direction::Left).is_ok());
    }
    let stuck = "2 4 2 4/4 2 4 2/2 4 2 4/4 2 4 65536";
    // Its one empty cell in the top-left corner: only left and up move.
    let open = "0 4 2 4/4 2 4 2/2 4 2 4/4 2 4 65536";
    check::<Board>(stuck.parse().unwrap(), open.parse().unwrap());
    check::<Grid>(stuck.parse().unwrap(), open.parse().unwrap());
}

#[test]
fn tutorial_spawns_after_a_no_op_and_ends_when_full() {
    let board: Board = "2 0 0 0/4 0 0 0/0 0 0 0/0 0 0 0".parse().unwrap();
    let mut game = Game::from_board(board, Rules::tutorial(), 5);
    assert_eq!(game.rules().turn_rule(), TurnRule::Tutorial);
    let turn = game.play(Direction::Left).unwrap();
    assert!(!turn.moved);
    assert_eq!(turn.score_gained, 0);
    let (idx, exponent) = turn.spawned.expect("a tile spawns after a no-op");
    assert_eq!(board.exponent(idx / 4, idx % 4), Some(0));
    assert_eq!(game.board().count_empty(), 13);
    assert_eq!(game.board().exponent(idx / 4, idx % 4), Some(exponent));
    assert_eq!(game.moves(), 1);

    // Pushing left forever fills the board; the game ends the moment it is
    // full, even though merges may still be possible.
    while !game.is_over() {
        game.play(Direction::Left).unwrap();
    }
    assert_eq!(game.board().count_empty(), 0);
    assert_eq!(game.play(Direction::Left), Err(PlayError::GameOver));

    // A full board that can still merge is over for the tutorial, not for
    // the standard rule.
    let full: Board = "2 2 4 8/4 8 16 32/8 16 32 64/16 32 64 128".parse().unwrap();
    assert!(Game::from_board(full, Rules::tutorial(), 0).is_over());
    assert!(!Game::from_board(full, Rules::default(), 0).is_over());
}

/// Two 32768 tiles merge into 65536 scoring 65536, and two 65536 into
/// 131072, on both board types, in every direction; nothing wraps around to
/// an empty cell (a packed 4-bit cell past 32768 would wrap to 0).
#[test]
fn big_tiles_merge() {
    let cases = [
        ("32768 32768 0 0/0 0 0 0/0 0 0 0/0 0 0 0", "65536 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0", 65536),
        ("65536 65536 2 2/0 0 0 0/0 0 0 0/0 0 0 0", "131072 4 0 0/0 0 0 0/0 0 0 0/0 0 0 0", 131076),
        (
            "32768 32768 32768 32768/2 4 2 4/4 2 4 2/2 4 2 4",
            "65536 65536 0 0/2 4 2 4/4 2 4 2/2 4 2 4",
            131072,
        ),
        (
            "131072 65536 32768 32768/0 0 0 0/0 0 0 0/0 0 0 0",
            "131072 65536 65536 0/0 0 0 0/0 0 0 0/0 0 0 0",
            65536,
        ),
    ];
    for (before, after, score) in cases {
        let board: Board = before.parse().unwrap();
        for (turn, dir) in
            [(0, Direction::Left), (1, Direction::Up), (2, Direction::Right), (3, Direction::Down)]
        {
            // The same position turned so that `dir` plays the part of Left.
            let turned = (0..turn).fold(board, |b, _| b.transpose().mirror());
            let want =
                (0..turn).fold(after.parse::<Board>().unwrap(), |b, _| b.transpose().mirror());
            assert_eq!(turned.slide(dir), Some((want, score)), "{turned} {dir}");
            assert_eq!(
                Grid::from(turned).slide(dir),
                Some((Grid::from(want), score)),
                "{turned} {dir}"
            );
        }
    }
    // A full board of 32768s and small tiles is not over: the 32768s merge.
    let full: Board = "32768 32768 32768 32768/2 4 2 4/4 2 4 2/2 4 2 4".parse().unwrap();
    assert!(!full.is_game_over());
    assert!(!Grid::from(full).is_game_over());
    // 32768 beside 65536 does not merge.
    let stuck: Board = "32768 65536 32768 65536/2 4 2 4/4 2 4 2/2 4 2 4".parse().unwrap();
    assert!(stuck.is_game_over());
    assert!(Grid::from(stuck).is_game_over());
}

/// The cap: two tiles of 2^25 do not merge, on every board type.
#[test]
fn the_cap_is_enforced() {
    assert_eq!(MAX_TILE, crate::reference::CAP);
    assert_eq!(exponent_to_value(MAX_EXPONENT), MAX_TILE);
    let board: Board = "33554432 33554432 0 0/0 0 0 0/0 0 0 0/0 0 0 0".parse().unwrap();
    assert_eq!(board.slide(Direction::Left), None);
    let (right, score) = board.slide(Direction::Right).unwrap();
    assert_eq!(right.to_string(), "0 0 33554432 33554432/0 0 0 0/0 0 0 0/0 0 0 0");
    assert_eq!(score, 0);
    let grid: Grid = "33554432 33554432 0/0 0 0/0 0 0".parse().unwrap();
    assert_eq!(grid.slide(Direction::Left), None);
    // 2^24 still merges into the cap.
    let grid: Grid = "16777216 16777216/0 0".parse().unwrap();
    assert_eq!(grid.slide(Direction::Left).unwrap().1, MAX_TILE);
    assert!("67108864 0/0 0".parse::<Grid>().is_err());
}

#[test]
fn errors_are_std_errors() {
    fn is_error<E: std::error::Error>(_: &E) {}
    is_error(&PlaceError::BadValue { value: 3 });
    is_error(&"".parse::<Board>().unwrap_err());
    is_error(&RulesError::FourProbability(2.0));
    is_error(&PlayError::GameOver);
    is_error(&SizeError::OutOfRange { size: 1 });
    let _: &ParseBoardError = &"x".parse::<Board>().unwrap_err();
}

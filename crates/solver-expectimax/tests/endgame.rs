//! The search and the endgame tables together: the solver plays a table's
//! move where its rules and preset say so, and the compact tables of real
//! corner games play as the full ones. Through the tables' public face only
//! (the tables' own checks are in the `endgame-tables` crate).

use std::collections::HashMap;
use std::sync::Arc;

use game_core::{Board, Direction, Game, Rules, RulesBuilder, TurnRule};
use solver_expectimax::endgame::{Endgame, Formation, Table, TableError};
use solver_expectimax::{Depth, Preset, STEP_MIN_ODDS, Solver};

#[test]
fn the_solver_uses_the_tables_under_the_standard_rules_only() {
    let formation = Formation::new(10, 5).unwrap();
    let tables = Arc::new(Endgame::from_tables(vec![Table::build(formation, &|_| {})]));
    let mut config = Preset::Fast.config();
    config.table_bytes = 1 << 20;
    let solver = Solver::new(config).unwrap().with_endgame(tables);
    let board: Board = "16384 8192 4096 2048/128 256 512 1024/64 32 0 0/0 2 0 0".parse().unwrap();
    let standard = solver.decide(&board, &Rules::default()).unwrap();
    assert_eq!(standard.endgame, Some(formation));
    let tutorial = solver.decide(&board, &Rules::tutorial()).unwrap();
    assert_eq!(tutorial.endgame, None, "the tutorial's turn rule ends games the tables do not");
    let fours = RulesBuilder {
        four_probability: 0.5,
        turn_rule: TurnRule::Standard,
        ..RulesBuilder::default()
    }
    .build()
    .unwrap();
    assert_eq!(solver.decide(&board, &fours).unwrap().endgame, None);
}

/// A step building a 16 and a block anchored at 32, and the endgame of
/// their two tables: small corner tables, built in well under a second.
fn small_corner_tables() -> Endgame {
    let step = Formation::step(4).unwrap();
    let block = Formation::block(5).unwrap();
    Endgame::from_tables(vec![Table::build(step, &|_| {}), Table::build(block, &|_| {})])
}

#[test]
fn the_corner_search_plays_by_the_corner_tables_and_the_others_do_not() {
    let step = Formation::step(4).unwrap();
    let tables = Arc::new(Endgame::from_tables(vec![Table::build(step, &|_| {})]));
    // Up merges the 4s of column 3 into the second 8 the goal wants.
    let board: Board = "512 256 128 0/256 64 16 8/0 0 0 4/0 0 0 4".parse().unwrap();
    let advice = tables.advise_step(board).expect("the step");
    assert_eq!((advice.direction, advice.odds), (Direction::Up, 1.0));
    let corner = Solver::new(Preset::Corner.config()).unwrap().with_endgame(tables.clone());
    let decision = corner.decide(&board, &Rules::default()).unwrap();
    assert_eq!((decision.direction, decision.endgame), (Direction::Up, Some(step)));
    let mut fast = Preset::Fast.config();
    fast.table_bytes = 1 << 20;
    let other = Solver::new(fast).unwrap().with_endgame(tables.clone());
    assert_eq!(other.decide(&board, &Rules::default()).unwrap().endgame, None);
    // Below the step's bar (odds 0.57 here) the search decides.
    let board: Board = "512 256 128 0/256 64 0 0/0 0 0 0/0 2 0 0".parse().unwrap();
    let odds = tables.advise_step(board).expect("the step").odds;
    assert!(odds > 0.5 && odds < STEP_MIN_ODDS, "{odds}");
    assert_eq!(corner.decide(&board, &Rules::default()).unwrap().endgame, None);
}

/// Boards of a few short corner games on `tables`, every one of them.
fn corner_game_boards(tables: &Arc<Endgame>) -> Vec<Board> {
    let mut config = Preset::Corner.config();
    config.depth = Depth::Fixed(2);
    let solver = Solver::new(config).unwrap().with_endgame(tables.clone());
    let mut boards = Vec::new();
    for seed in 1..=4 {
        let mut game = Game::new(Rules::default(), seed);
        while !game.is_over() && game.moves() < 600 {
            boards.push(*game.board());
            let d = solver.decide(game.board(), &Rules::default()).unwrap();
            game.play(d.direction).unwrap();
        }
    }
    boards
}

/// The compact tables of `full`'s advice on the states `boards` read.
fn compact_of(full: &Endgame, boards: &[Board]) -> Endgame {
    let mut reads: HashMap<Formation, Vec<u32>> = HashMap::new();
    for &b in boards {
        for (f, idx) in full.corner_reads(b) {
            reads.entry(f).or_default().push(idx);
        }
    }
    let kept = full
        .formations()
        .map(|f| full.table(f).unwrap().keep(reads.get(&f).map_or(&[][..], Vec::as_slice)))
        .collect();
    Endgame::from_tables(kept)
}

#[test]
fn a_compact_table_plays_the_boards_it_kept_as_the_full_tables_do() {
    let full = Arc::new(small_corner_tables());
    let boards = corner_game_boards(&full);
    let compact = compact_of(&full, &boards);
    assert!(compact.formations().all(|f| !compact.table(f).unwrap().is_full()));
    let mut played = 0;
    for &b in &boards {
        let (want, got) = (full.corner_move(b), compact.corner_move(b));
        let Some(want) = want else {
            assert_eq!(got, None, "{b:?}");
            continue;
        };
        played += 1;
        let got = got.unwrap_or_else(|| panic!("{b:?}: the full tables play {want:?}"));
        assert_eq!((got.direction, got.formation), (want.direction, want.formation), "{b:?}");
        // Odds kept in steps of 1/65535, rounded down.
        for (g, w) in got.values.iter().zip(want.values) {
            let w = w.filter(|&w| w > 0.0);
            assert_eq!(g.is_some(), w.is_some(), "{b:?}: {got:?} {want:?}");
            if let (Some(g), Some(w)) = (g, w) {
                assert!(*g <= w + 1e-6 && w - g < 2.0 / 65535.0, "{b:?}: {g} {w}");
            }
        }
    }
    // The small tables apply to few boards of short games.
    assert!(played >= 20, "only {played} table moves of {}", boards.len());
    // A compact table answers only what it kept.
    let nothing =
        Endgame::from_tables(full.formations().map(|f| full.table(f).unwrap().keep(&[])).collect());
    assert!(boards.iter().all(|&b| nothing.corner_move(b).is_none()));
}

#[test]
fn compact_files_round_trip_and_damage_is_refused() {
    let full = Arc::new(small_corner_tables());
    let boards = corner_game_boards(&full);
    let compact = compact_of(&full, &boards);
    let mut bytes = Vec::new();
    compact.write_compact(&mut bytes).unwrap();
    let back = Endgame::read_compact(&mut &bytes[..]).unwrap();
    // The same tables back: the same formations, states and advice, and
    // written again, the same bytes.
    assert_eq!(back.formations().count(), 2);
    assert!(back.formations().eq(compact.formations()));
    for f in compact.formations() {
        let (a, b) = (back.table(f).unwrap(), compact.table(f).unwrap());
        assert_eq!((a.kept_states(), a.bytes()), (b.kept_states(), b.bytes()), "{f}");
    }
    assert!(boards.iter().all(|&b| back.corner_move(b) == compact.corner_move(b)));
    let mut again = Vec::new();
    back.write_compact(&mut again).unwrap();
    assert_eq!(again, bytes);
    // A full table writes nothing here, and is no compact table.
    let mut none = Vec::new();
    full.write_compact(&mut none).unwrap();
    assert!(none.is_empty());
    assert!(matches!(Endgame::read_compact(&mut &none[..]), Err(TableError::NotATable)));
    let first = full.formations().next().unwrap();
    let mut table = Vec::new();
    full.table(first).unwrap().write_to(&mut table).unwrap();
    assert!(matches!(Endgame::read_compact(&mut &table[..]), Err(TableError::NotATable)));
    // Every flipped byte past the magic, and every cut, is refused.
    for at in (8..bytes.len()).step_by(97) {
        let mut bad = bytes.clone();
        bad[at] ^= 0x10;
        assert!(Endgame::read_compact(&mut &bad[..]).is_err(), "a flip at {at}");
    }
    for len in (1..bytes.len()).step_by(89) {
        assert!(Endgame::read_compact(&mut &bytes[..len]).is_err(), "cut at {len}");
    }
    // A byte after the last table is refused too.
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(Endgame::read_compact(&mut &longer[..]).is_err());
}

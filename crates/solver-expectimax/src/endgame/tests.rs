//! The tables checked against a plain expectimax written from the rules
//! alone, the advice in every symmetry, and the file format's refusals.

use std::collections::HashMap;

use game_core::{Board, Direction};

use super::*;

/// A plain expectimax over whole boards, memoised, written from the rules
/// alone: the chain's cells must keep their tiles, no free tile may pass
/// the goal, and the goal is the anchor's tile in a free cell beside it.
struct Reference {
    chain: Vec<(usize, u8)>,
    anchor: usize,
    goal: u8,
    memo: HashMap<u64, f64>,
}

impl Reference {
    fn new(formation: Formation, chain: &[u8]) -> Reference {
        let fixed = formation.fixed();
        assert_eq!(chain.len(), fixed);
        Reference {
            chain: SNAKE[..fixed].iter().copied().zip(chain.iter().copied()).collect(),
            anchor: SNAKE[fixed - 1],
            goal: formation.goal(),
            memo: HashMap::new(),
        }
    }

    fn cell(board: Board, c: usize) -> u8 {
        board.to_exponents()[c / 4][c % 4]
    }

    fn is_chain(&self, c: usize) -> bool {
        self.chain.iter().any(|&(cell, _)| cell == c)
    }

    fn reached(&self, board: Board) -> bool {
        (0..16).any(|c| {
            !self.is_chain(c) && beside(c, self.anchor) && Reference::cell(board, c) == self.goal
        })
    }

    fn keeps(&self, board: Board) -> bool {
        self.chain.iter().all(|&(c, e)| Reference::cell(board, c) == e)
            && (0..16).all(|c| self.is_chain(c) || Reference::cell(board, c) <= self.goal)
    }

    fn odds(&mut self, board: Board) -> f64 {
        if self.reached(board) {
            return 1.0;
        }
        if let Some(&v) = self.memo.get(&board.raw()) {
            return v;
        }
        let mut best = 0.0f64;
        for d in Direction::ALL {
            if let Some(v) = self.after(board, d) {
                best = best.max(v);
            }
        }
        self.memo.insert(board.raw(), best);
        best
    }

    fn after(&mut self, board: Board, d: Direction) -> Option<f64> {
        let (after, _) = board.slide(d)?;
        if !self.keeps(after) {
            return None;
        }
        if self.reached(after) {
            return Some(1.0);
        }
        let empty: Vec<usize> = (0..16).filter(|&c| Reference::cell(after, c) == 0).collect();
        let mut sum = 0.0;
        for &c in &empty {
            sum += 0.9 * self.odds(after.with_exponent_unchecked(c, 1));
            sum += 0.1 * self.odds(after.with_exponent_unchecked(c, 2));
        }
        Some(sum / empty.len() as f64)
    }
}

/// Every state of a formation as a board with `chain` in place.
fn states(formation: Formation, chain: &[u8]) -> Vec<Board> {
    let free = &SNAKE[formation.fixed()..];
    let mut base = Board::EMPTY;
    for (&c, &e) in SNAKE.iter().zip(chain) {
        base = base.with_exponent_unchecked(c, e);
    }
    let radix = u64::from(formation.goal()) + 1;
    (0..formation.states())
        .map(|mut i| {
            let mut b = base;
            for &c in free {
                let e = (i % radix) as u8;
                i /= radix;
                if e > 0 {
                    b = b.with_exponent_unchecked(c, e);
                }
            }
            b
        })
        .collect()
}

/// A chain of `fixed` tiles ending in `2^goal`, each double the next.
fn chain(fixed: usize, goal: u8) -> Vec<u8> {
    (0..fixed).map(|i| goal + (fixed - 1 - i) as u8).collect()
}

#[test]
fn the_tables_match_a_plain_expectimax_on_every_state() {
    let (mut interior, mut all) = (0, 0);
    for (fixed, goal) in [(14, 2), (13, 3), (12, 4), (12, 3), (11, 4), (10, 3), (11, 5)] {
        let formation = Formation::new(fixed, goal).unwrap();
        let table = Table::build(formation, &|_| {});
        let chain = chain(fixed, goal);
        let mut reference = Reference::new(formation, &chain);
        let mut nonzero = 0;
        for board in states(formation, &chain) {
            let want = reference.odds(board);
            let got = table.odds(board).expect("a state of the table");
            assert!(
                (got - want).abs() < 1e-4,
                "{formation}: {board:?}: table {got}, reference {want}"
            );
            nonzero += usize::from(want > 0.0 && want < 1.0);
        }
        interior += nonzero;
        all += formation.states() as usize;
    }
    // The check means something only if many odds lie strictly between 0
    // and 1.
    assert!(interior * 8 > all, "{interior} interior states of {all}");
}

#[test]
fn a_table_holds_for_any_decreasing_chain_of_its_length_and_anchor() {
    // The chain's other tiles only have to be distinct and above the goal:
    // the odds are the same for a chain with gaps.
    for (fixed, goal, chain) in [
        (11, 4, vec![15, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4]),
        (10, 3, vec![15, 14, 12, 10, 9, 8, 7, 6, 5, 3]),
    ] {
        let formation = Formation::new(fixed, goal).unwrap();
        let table = Table::build(formation, &|_| {});
        let mut reference = Reference::new(formation, &chain);
        for board in states(formation, &chain) {
            let (got, want) = (table.odds(board).unwrap(), reference.odds(board));
            assert!(
                (got - want).abs() < 1e-4,
                "{formation}: {board:?}: table {got}, reference {want}"
            );
        }
    }
}

#[test]
fn the_advice_is_the_reference_best_move_in_every_symmetry() {
    let formation = Formation::new(11, 5).unwrap();
    let endgame = Endgame::from_tables(vec![Table::build(formation, &|_| {})]);
    let chain = chain(11, 5);
    let mut reference = Reference::new(formation, &chain);
    let mut advised = 0;
    for board in states(formation, &chain).into_iter().step_by(97) {
        if reference.reached(board) {
            assert_eq!(endgame.advise(board, 0), None, "{board:?}: the chain can merge now");
            continue;
        }
        let want: Vec<Option<f64>> = Direction::ALL.map(|d| reference.after(board, d)).to_vec();
        let best = want.iter().flatten().fold(0.0f64, |a, &b| a.max(b));
        match endgame.advise(board, 0) {
            None => assert!(want.iter().all(Option::is_none), "{board:?}: no advice, {want:?}"),
            Some(advice) => {
                advised += 1;
                assert_eq!(advice.formation, formation);
                assert!((advice.odds - best).abs() < 1e-4, "{board:?}: {advice:?} vs {want:?}");
                for d in Direction::ALL {
                    let (got, want) = (advice.values[d.index()], want[d.index()]);
                    assert_eq!(got.is_some(), want.is_some(), "{board:?} {d}");
                    if let (Some(g), Some(w)) = (got, want) {
                        assert!((g - w).abs() < 1e-4, "{board:?} {d}: {g} vs {w}");
                    }
                }
                // The same advice, turned, on every symmetry of the board.
                for (s, sym) in board.symmetries().into_iter().enumerate() {
                    let a = endgame.advise(sym, 0).expect("the same formation, turned");
                    assert!((a.odds - advice.odds).abs() < 1e-6, "symmetry {s}");
                    assert_eq!(
                        a.values[turned(s, advice.direction).index()].map(|v| (v * 1e4).round()),
                        advice.values[advice.direction.index()].map(|v| (v * 1e4).round()),
                        "symmetry {s}"
                    );
                }
            }
        }
    }
    assert!(advised > 20, "only {advised} boards advised");
}

#[test]
fn turned_matches_the_board_symmetries() {
    let boards: [Board; 3] = [
        "2 4 8 16/0 0 2 0/4 0 0 0/0 0 0 2".parse().unwrap(),
        "0 0 0 2/0 4 0 0/8 0 2 0/2 0 0 4".parse().unwrap(),
        "2 0 0 0/4 0 0 0/8 8 0 2/0 0 0 0".parse().unwrap(),
    ];
    for board in boards {
        for d in Direction::ALL {
            let after = board.slide_unscored(d).symmetries();
            for (s, sym) in board.symmetries().into_iter().enumerate() {
                assert_eq!(sym.slide_unscored(turned(s, d)), after[s], "symmetry {s}, {d}");
            }
        }
    }
}

#[test]
fn a_longer_chain_uses_the_longest_part_that_has_a_table() {
    // 15 .. 4 is a chain of 12 tiles; only the table of its first 11
    // (ending in 32) is there, so the 16 joins the free cells.
    let formation = Formation::new(11, 5).unwrap();
    let endgame = Endgame::from_tables(vec![Table::build(formation, &|_| {})]);
    let board: Board =
        "32768 16384 8192 4096/256 512 1024 2048/128 64 32 16/0 0 2 0".parse().unwrap();
    let advice = endgame.advise(board, 0).expect("the table of the chain's first 11 tiles");
    assert_eq!(advice.formation, formation);
    // A tile past the goal in a free cell: no table applies.
    let board: Board =
        "32768 16384 8192 4096/256 512 1024 2048/128 64 32 16/0 64 2 0".parse().unwrap();
    assert_eq!(endgame.advise(board, 0), None);
    // A chain with a gap (no 4096: it is being built) is a chain too.
    let gapped = Formation::new(10, 5).unwrap();
    let endgame = Endgame::from_tables(vec![Table::build(gapped, &|_| {})]);
    let board: Board = "32768 16384 8192 2048/128 256 512 1024/64 32 0 0/0 2 0 0".parse().unwrap();
    assert_eq!(endgame.advise(board, 0).map(|a| a.formation), Some(gapped));
    assert_eq!(endgame.advise(board, 15).map(|a| a.formation), Some(gapped));
    // A head below the asked one, or a second gap: no chain of 10.
    let small_head: Board =
        "16384 8192 4096 2048/128 256 512 1024/64 32 0 0/0 2 0 0".parse().unwrap();
    assert_eq!(endgame.advise(small_head, 0).map(|a| a.formation), Some(gapped));
    assert_eq!(endgame.advise(small_head, 15), None);
    let two_gaps: Board =
        "32768 16384 4096 2048/128 256 512 1024/32 16 0 0/0 2 0 0".parse().unwrap();
    assert_eq!(endgame.advise(two_gaps, 0), None);
}

#[test]
fn formations_refuse_what_a_table_cannot_hold() {
    assert_eq!(Formation::new(1, 5), Err(FormationError::Fixed(1)));
    assert_eq!(Formation::new(15, 5), Err(FormationError::Fixed(15)));
    assert_eq!(Formation::new(8, 1), Err(FormationError::Goal(1)));
    assert_eq!(Formation::new(8, 14), Err(FormationError::Goal(14)));
    assert!(matches!(Formation::new(4, 13), Err(FormationError::TooLarge { .. })));
    assert_eq!(Formation::new(8, 7).unwrap().states(), 1 << 24);
}

fn written(table: &Table) -> Vec<u8> {
    let mut bytes = Vec::new();
    table.write_to(&mut bytes).unwrap();
    bytes
}

#[test]
fn files_round_trip_and_damage_is_refused() {
    let formation = Formation::new(12, 4).unwrap();
    let table = Table::build(formation, &|_| {});
    let bytes = written(&table);
    assert_eq!(bytes.len(), 32 + 2 * 625);
    let back = Table::read_from(&mut &bytes[..]).unwrap();
    assert_eq!(back.odds, table.odds);

    let mut flipped = bytes.clone();
    flipped[600] ^= 4;
    assert!(matches!(Table::read_from(&mut &flipped[..]), Err(TableError::Checksum)));
    let cut = &bytes[..bytes.len() - 3];
    let err = Table::read_from(&mut &cut[..]).unwrap_err();
    assert!(matches!(err, TableError::Truncated { expected: 1282, found: 1279 }), "{err}");
    assert!(matches!(Table::read_from(&mut &bytes[..20]), Err(TableError::Truncated { .. })));
    assert!(matches!(Table::read_from(&mut &b"hello, world"[..]), Err(TableError::NotATable)));
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(Table::read_from(&mut &longer[..]), Err(TableError::Header(_))));
    let mut other = bytes.clone();
    other[9] = 3;
    assert!(matches!(Table::read_from(&mut &other[..]), Err(TableError::Header(_))));
    assert_eq!(
        TableError::Checksum.to_string(),
        "the table is corrupt: its checksum does not match"
    );
}

#[test]
fn open_builds_missing_tables_and_rebuilds_damaged_ones() {
    let dir = std::env::temp_dir().join(format!("endgame-open-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let formations = [Formation::new(12, 4).unwrap(), Formation::new(13, 3).unwrap()];
    let log = std::sync::Mutex::new(Vec::new());
    let note = |e: OpenEvent<'_>| {
        let line = match e {
            OpenEvent::Loaded(f) => format!("loaded {f}"),
            OpenEvent::Refused(f, why) => format!("refused {f}: {why}"),
            OpenEvent::Building { .. } => return,
            OpenEvent::Written(f, _) => format!("written {f}"),
        };
        log.lock().unwrap().push(line);
    };
    let first = Endgame::open(&dir, &formations, &note).unwrap();
    assert_eq!(first.formations().collect::<Vec<_>>(), formations);
    let path = dir.join(file_name(formations[0]));
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.truncate(100);
    std::fs::write(&path, bytes).unwrap();
    let second = Endgame::open(&dir, &formations, &note).unwrap();
    assert_eq!(second.tables[0].odds, first.tables[0].odds);
    assert_eq!(
        *log.lock().unwrap(),
        [
            "written chain of 12 ending in 16",
            "written chain of 13 ending in 8",
            "refused chain of 12 ending in 16: the table is truncated: 100 bytes where 1282 were written",
            "written chain of 12 ending in 16",
            "loaded chain of 13 ending in 8",
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn two_builders_of_one_folder_do_not_spoil_each_others_files() {
    let dir = std::env::temp_dir().join(format!("endgame-race-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let formations = [Formation::new(11, 5).unwrap(), Formation::new(12, 4).unwrap()];
    let opened: Vec<Endgame> = std::thread::scope(|s| {
        let handles: Vec<_> =
            (0..2).map(|_| s.spawn(|| Endgame::open(&dir, &formations, &|_| {}))).collect();
        handles.into_iter().map(|h| h.join().unwrap().expect("both opens succeed")).collect()
    });
    assert_eq!(opened[0].tables[0].odds, opened[1].tables[0].odds);
    // What is left on disk reads back whole.
    for f in formations {
        Table::load(&dir.join(file_name(f)), f).expect("a whole table");
    }
    let leftovers = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(leftovers, 2, "no temporary file is left");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_solver_uses_the_tables_under_the_standard_rules_only() {
    use crate::{Preset, Solver};
    use game_core::{Rules, RulesBuilder, TurnRule};
    let formation = Formation::new(10, 5).unwrap();
    let tables = std::sync::Arc::new(Endgame::from_tables(vec![Table::build(formation, &|_| {})]));
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

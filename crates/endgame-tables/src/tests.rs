//! The tables checked against a plain expectimax written from the rules
//! alone, the advice in every symmetry, and the file format's refusals.

use std::collections::HashMap;

use game_core::{Board, Direction};

use super::*;

std::thread_local! {
    /// Where a test sets it, the most states of a table in index order:
    /// formations above it are layered (see [`Formation::is_layered`]).
    pub(super) static LAYERED_ABOVE: std::cell::Cell<Option<u64>> =
        const { std::cell::Cell::new(None) };
}

/// Cells and the exponents they must hold.
type Pattern = Vec<(usize, u8)>;

/// A plain expectimax over whole boards, memoised, written from the rules
/// alone: the fixed cells must keep their tiles, no free tile may pass its
/// bound, and the goal is the goal's tile in a goal cell.
struct Reference {
    fixed: Vec<(usize, u8)>,
    /// The goal: boards with every (cell, exponent) of one of these.
    goals: Vec<Pattern>,
    /// Each cell's largest exponent (the fixed cells' own).
    bound: [u8; 16],
    memo: HashMap<u64, f64>,
}

impl Reference {
    /// The formation with `tiles` in its fixed cells (in [`SNAKE`] order for
    /// a chain, [`STEP`] or [`BLOCK`] order for the corner's shapes).
    fn new(formation: Formation, tiles: &[u8]) -> Reference {
        let goal = formation.goal();
        let (cells, goals): (&[usize], Vec<Pattern>) = match formation.shape() {
            Shape::Snake(n) => {
                let n = usize::from(n);
                let anchor = SNAKE[n - 1];
                let beside = SNAKE[n..].iter().filter(|&&c| beside(c, anchor));
                (&SNAKE[..n], beside.map(|&c| vec![(c, goal)]).collect())
            }
            // Row 1 column 2 holds the goal, and a pair of halves stands
            // where it merges into the goal's equal beside it, or a chain
            // of a half and two quarters runs down column 3.
            Shape::Step => {
                let (h, q) = (goal - 1, goal - 2);
                let goals = vec![
                    vec![(6, goal), (7, h), (3, h)],
                    vec![(6, goal), (7, h), (11, h)],
                    vec![(6, goal), (3, h), (7, q), (11, q)],
                    vec![(6, goal), (10, h), (9, h)],
                    vec![(6, goal), (10, h), (11, h)],
                    // Past the table's bounds (the bottom row holds at most
                    // a quarter), but a board's own, smaller goal.
                    vec![(6, goal), (10, h), (14, h)],
                ];
                (&[0, 1, 2, 4, 5], goals)
            }
            // A half, a quarter and two eighths in a row from row 2's first
            // cell (the second eighth below or beside the first), or from
            // row 0's last cell down.
            // The anchor's equal right of it or below it (the anchor in
            // row 1's last cell).
            Shape::Collapse => (&[0, 1, 2, 4, 5, 6], vec![vec![(7, goal)], vec![(10, goal)]]),
            Shape::Block => {
                let (h, q, e) = (goal - 1, goal - 2, goal - 3);
                let goals = vec![
                    vec![(8, h), (9, q), (10, e), (14, e)],
                    vec![(8, h), (9, q), (10, e), (11, e)],
                    vec![(8, h), (9, q), (13, e), (12, e)],
                    vec![(8, h), (9, q), (13, e), (14, e)],
                    vec![(3, h), (7, q), (11, e), (10, e)],
                    vec![(3, h), (7, q), (11, e), (15, e)],
                ];
                (&[0, 1, 2, 4, 5, 6], goals)
            }
        };
        assert_eq!(cells.len(), tiles.len());
        let fixed: Vec<(usize, u8)> = cells.iter().copied().zip(tiles.iter().copied()).collect();
        let bound = std::array::from_fn(|c| match (formation.shape(), c) {
            (_, c) if cells.contains(&c) => tiles[cells.iter().position(|&f| f == c).unwrap()],
            (Shape::Snake(_), _) => goal,
            (Shape::Step, 6) => goal,
            (Shape::Step, 12..) => goal - 2,
            (Shape::Step, _) => goal - 1,
            (Shape::Block, 3 | 8) => goal - 1,
            (Shape::Block, 7 | 9) => goal - 2,
            (Shape::Block, _) => goal - 3,
            (Shape::Collapse, 7 | 10) => goal,
            (Shape::Collapse, _) => goal - 1,
        });
        Reference { fixed, goals, bound, memo: HashMap::new() }
    }

    /// The board's tiles, cell by cell (`row * 4 + col`).
    fn cells(board: Board) -> [u8; 16] {
        let rows = board.to_exponents();
        std::array::from_fn(|c| rows[c / 4][c % 4])
    }

    fn reached(&self, board: Board) -> bool {
        let cells = Reference::cells(board);
        self.goals.iter().any(|p| p.iter().all(|&(c, e)| cells[c] == e))
    }

    fn keeps(&self, board: Board) -> bool {
        let cells = Reference::cells(board);
        self.fixed.iter().all(|&(c, e)| cells[c] == e) && (0..16).all(|c| cells[c] <= self.bound[c])
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
        let cells = Reference::cells(after);
        let empty: Vec<usize> = (0..16).filter(|&c| cells[c] == 0).collect();
        let mut sum = 0.0;
        for &c in &empty {
            sum += 0.9 * self.odds(after.with_exponent_unchecked(c, 1));
            sum += 0.1 * self.odds(after.with_exponent_unchecked(c, 2));
        }
        Some(sum / empty.len() as f64)
    }

    /// Every state: each free cell's every tile within its bound, the fixed
    /// tiles in place.
    fn states(&self) -> Vec<Board> {
        let mut boards = vec![Board::EMPTY];
        for c in 0..16 {
            let tiles: Vec<u8> = match self.fixed.iter().find(|&&(f, _)| f == c) {
                Some(&(_, e)) => vec![e],
                None => (0..=self.bound[c]).collect(),
            };
            boards = boards
                .iter()
                .flat_map(|b| tiles.iter().map(|&e| b.with_exponent_unchecked(c, e)))
                .collect();
        }
        boards
    }
}

/// Whether a table's odds `got` agree with the exact `want` of a
/// formation: rounded down at every sum on the way to the goal, they lie
/// at most a step (1/65535) per sum below, and never above (but for f32's
/// rounding).
fn close(formation: Formation, got: f64, want: f64) -> bool {
    let sums = formation.bounds().iter().map(|&(_, b)| 1u64 << b).sum::<u64>() / 2 + 1;
    got <= want + 1e-6 && got >= want - sums as f64 / 65535.0
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
        for board in reference.states() {
            let want = reference.odds(board);
            let got = table.odds(board).expect("a state of the table");
            assert!(
                close(formation, got, want),
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

/// The generator written plainly: every state by descending sum of its
/// free tiles, each read in the table's own order through the lookups'
/// [`Geometry::after_odds`], quantised down.
fn plain_odds(formation: Formation) -> Vec<u16> {
    let g = Geometry::new(formation);
    let states = formation.states() as u32;
    let sum = |idx: u32| -> u32 {
        let raw = g.board_of(idx);
        g.free.iter().map(|&c| nibble(raw, c)).filter(|&e| e > 0).map(|e| 1 << e).sum()
    };
    let mut order: Vec<u32> = (0..states).collect();
    order.sort_by_key(|&idx| std::cmp::Reverse(sum(idx)));
    let mut odds = vec![0u16; states as usize];
    for idx in order {
        let raw = g.board_of(idx);
        let v = if g.is_goal(raw) {
            1.0
        } else {
            let read = |i: usize| f32::from(odds[i]) / ONE;
            Board::from_raw(raw)
                .slide_each_unscored()
                .into_iter()
                .filter_map(|after| g.after_odds(raw, after.raw(), read))
                .fold(0.0, f32::max)
        };
        odds[idx as usize] = (v * ONE).floor().clamp(0.0, ONE) as u16;
    }
    odds
}

#[test]
fn the_generator_stores_exactly_the_plain_generators_odds() {
    // The generator reads the spawned states from its own layers, in its
    // own order: the same sums of the same odds all the same, to the bit.
    let formations = [
        Formation::new(10, 3).unwrap(),
        Formation::new(9, 4).unwrap(),
        Formation::new(7, 3).unwrap(),
        Formation::step(4).unwrap(),
        Formation::block(5).unwrap(),
    ];
    for formation in formations {
        let table = Table::build(formation, &|_| {});
        let want = plain_odds(formation);
        let Odds::Full(got) = &table.odds else { panic!("a built table is full") };
        let differ = (0..want.len()).filter(|&i| got.get(i) != want[i]).count();
        assert_eq!(differ, 0, "{formation}: {differ} of {} states differ", want.len());
    }
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
        for board in reference.states() {
            let (got, want) = (table.odds(board).unwrap(), reference.odds(board));
            assert!(
                close(formation, got, want),
                "{formation}: {board:?}: table {got}, reference {want}"
            );
        }
    }
}

#[test]
fn the_corner_tables_match_a_plain_expectimax_on_every_state() {
    // The fixed tiles only have to be above the free cells' bounds, with
    // neighbours different: two arrangements each, every state of the
    // smallest step and block (every seventh with the second).
    let cases: [(Formation, Vec<u8>, Vec<u8>); 3] = [
        (Formation::step(4).unwrap(), vec![8, 7, 6, 7, 5], vec![15, 9, 13, 10, 14]),
        (Formation::block(5).unwrap(), vec![9, 8, 7, 6, 7, 5], vec![15, 11, 14, 12, 9, 13]),
        (Formation::collapse(4).unwrap(), vec![9, 8, 7, 6, 7, 5], vec![15, 11, 14, 12, 9, 13]),
    ];
    for (formation, first, second) in cases {
        let table = Table::build(formation, &|_| {});
        for (tiles, step) in [(first, 1), (second, 7)] {
            let mut reference = Reference::new(formation, &tiles);
            let (mut interior, mut all) = (0, 0);
            for board in reference.states().into_iter().step_by(step) {
                let (got, want) = (table.odds(board).unwrap(), reference.odds(board));
                assert!(
                    close(formation, got, want),
                    "{formation}: {board:?}: table {got}, reference {want}"
                );
                interior += usize::from(want > 0.0 && want < 1.0);
                all += 1;
            }
            assert!(interior * 8 > all, "{formation}: {interior} interior states of {all}");
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
    for board in reference.states().into_iter().step_by(97) {
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
                assert!(close(formation, advice.odds, best), "{board:?}: {advice:?} vs {want:?}");
                for d in Direction::ALL {
                    let (got, want) = (advice.values[d.index()], want[d.index()]);
                    assert_eq!(got.is_some(), want.is_some(), "{board:?} {d}");
                    if let (Some(g), Some(w)) = (got, want) {
                        assert!(close(formation, g, w), "{board:?} {d}: {g} vs {w}");
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

/// The table in `bytes`, checked as a whole file.
fn read(bytes: &[u8]) -> Result<Table, TableError> {
    Table::from_bytes(std::sync::Arc::new(bytes.to_vec()))
}

#[test]
fn files_round_trip_and_damage_is_refused() {
    let formation = Formation::new(12, 4).unwrap();
    let table = Table::build(formation, &|_| {});
    let bytes = written(&table);
    assert_eq!(bytes.len(), 32 + 2 * 625);
    let back = read(&bytes).unwrap();
    assert_eq!(back.odds, table.odds);
    // A table read from a file writes the same file.
    assert_eq!(written(&back), bytes);

    let mut flipped = bytes.clone();
    flipped[600] ^= 4;
    assert!(matches!(read(&flipped), Err(TableError::Checksum)));
    let cut = &bytes[..bytes.len() - 3];
    let err = read(cut).unwrap_err();
    assert!(matches!(err, TableError::Truncated { expected: 1282, found: 1279 }), "{err}");
    assert!(matches!(read(&bytes[..20]), Err(TableError::Truncated { .. })));
    assert!(matches!(read(b"hello, world"), Err(TableError::NotATable)));
    let mut old_format = bytes.clone();
    old_format[7] = b'1';
    let err = read(&old_format).unwrap_err();
    assert_eq!(err.to_string(), "a table of format 1, not 2 (odds rounded another way)");
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(read(&longer), Err(TableError::Header(_))));
    let mut other = bytes.clone();
    other[9] = 3;
    assert!(matches!(read(&other), Err(TableError::Header(_))));
    assert_eq!(
        TableError::Checksum.to_string(),
        "the table is corrupt: its checksum does not match"
    );
}

/// How the tests open tables: read into memory, checked as `check` says.
fn opening(check: Check) -> Opening<'static> {
    Opening { hold: &read_whole, check, free_space: &space_unknown }
}

/// A folder of the system's temporary one for a test, empty.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("endgame-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn open_builds_missing_tables_and_rebuilds_damaged_ones() {
    let dir = scratch("open");
    let formations = [Formation::new(12, 4).unwrap(), Formation::new(13, 3).unwrap()];
    let log = std::sync::Mutex::new(Vec::new());
    let note = |e: OpenEvent<'_>| {
        let line = match e {
            OpenEvent::Checking(f) => format!("checking {f}"),
            OpenEvent::Loaded(f) => format!("loaded {f}"),
            OpenEvent::Refused(f, why) => format!("refused {f}: {why}"),
            OpenEvent::Building { .. } | OpenEvent::Starting { .. } | OpenEvent::Waiting(_) => {
                return;
            }
            OpenEvent::Written(f, _) => format!("written {f}"),
        };
        log.lock().unwrap().push(line);
    };
    let open = |check| Endgame::open(&dir, &formations, opening(check), &note).unwrap();
    let take = || std::mem::take(&mut *log.lock().unwrap());
    let first = open(Check::Stamped);
    assert_eq!(first.formations().collect::<Vec<_>>(), formations);
    assert_eq!(take(), ["written chain of 12 ending in 16", "written chain of 13 ending in 8"]);

    // A file of another length is refused by its length alone.
    let path = dir.join(file_name(formations[0]));
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.truncate(100);
    std::fs::write(&path, bytes).unwrap();
    let second = open(Check::Stamped);
    assert_eq!(second.tables[0].odds, first.tables[0].odds);
    assert_eq!(
        take(),
        [
            "refused chain of 12 ending in 16: the table is truncated: 100 bytes where 1282 were written",
            "written chain of 12 ending in 16",
            // Checked when it was written: its stamp vouches for it.
            "loaded chain of 13 ending in 8",
        ]
    );

    // A bit flipped in place, beside the stamp of the file as it was: the
    // write changed the file's times, so the stamp no longer holds, and
    // the odds are checked and refused. (The pause: a file system's clock
    // may tick only every few milliseconds.)
    std::thread::sleep(std::time::Duration::from_millis(50));
    let path = dir.join(file_name(formations[1]));
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[40] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    let third = open(Check::Stamped);
    assert_eq!(third.tables[1].odds, first.tables[1].odds);
    assert_eq!(
        take(),
        [
            "loaded chain of 12 ending in 16",
            "checking chain of 13 ending in 8",
            "refused chain of 13 ending in 8: the table is corrupt: its checksum does not match",
            "written chain of 13 ending in 8",
        ]
    );

    // Without its stamp a file is checked, and stamped again; asked to,
    // every file is.
    std::fs::remove_file(dir.join(format!("{}.checked", file_name(formations[0])))).unwrap();
    open(Check::Stamped);
    assert_eq!(
        take(),
        [
            "checking chain of 12 ending in 16",
            "loaded chain of 12 ending in 16",
            "loaded chain of 13 ending in 8"
        ]
    );
    open(Check::Stamped);
    open(Check::Full);
    assert_eq!(
        take(),
        [
            "loaded chain of 12 ending in 16",
            "loaded chain of 13 ending in 8",
            "checking chain of 12 ending in 16",
            "loaded chain of 12 ending in 16",
            "checking chain of 13 ending in 8",
            "loaded chain of 13 ending in 8",
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn two_builders_of_one_folder_do_not_spoil_each_others_files() {
    let dir = scratch("race");
    let formations = [Formation::new(11, 5).unwrap(), Formation::new(12, 4).unwrap()];
    let open = || Endgame::open(&dir, &formations, opening(Check::Stamped), &|_| {});
    let opened: Vec<Endgame> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2).map(|_| s.spawn(open)).collect();
        handles.into_iter().map(|h| h.join().unwrap().expect("both opens succeed")).collect()
    });
    assert_eq!(opened[0].tables[0].odds, opened[1].tables[0].odds);
    // What is left on disk reads back whole.
    for f in formations {
        read(&std::fs::read(dir.join(file_name(f))).unwrap()).expect("a whole table");
    }
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    let names = formations.map(file_name);
    let stamps = names.clone().map(|n| format!("{n}.checked"));
    let mut want = [&names[0], &stamps[0], &names[1], &stamps[1], file::LOCK_FILE]
        .map(|n| n.to_string())
        .to_vec();
    want.sort();
    assert_eq!(left, want, "no temporary file is left");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The files in `dir`, by name, sorted.
fn files_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// A writer that fails as a full disk does once `room` bytes are written.
struct FullDisk {
    file: std::fs::File,
    room: usize,
}

impl std::io::Write for FullDisk {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.room == 0 {
            return Err(std::io::Error::from(std::io::ErrorKind::StorageFull));
        }
        let n = buf.len().min(self.room);
        self.room -= n;
        self.file.write(&buf[..n])
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// A disk that fills up midway through a table leaves no file taken for
/// whole, nor its temporary one, and the next open builds the table.
#[test]
fn a_full_disk_leaves_the_folder_usable_and_the_table_is_built_again() {
    let dir = scratch("full");
    let formations = [Formation::new(11, 5).unwrap(), Formation::new(12, 4).unwrap()];
    let full = |file: std::fs::File| -> Box<dyn std::io::Write> {
        Box::new(FullDisk { file, room: 1000 })
    };
    let err = Endgame::open_through(&dir, &formations, opening(Check::Stamped), &|_| {}, &full)
        .expect_err("the write fails");
    assert!(err.to_string().starts_with("endgame tables at "), "{err}");
    assert!(matches!(table_status(&dir, formations[0]), TableStatus::Missing));
    assert_eq!(files_in(&dir), [file::LOCK_FILE], "nothing but the lock is left");
    let tables = Endgame::open(&dir, &formations, opening(Check::Stamped), &|_| {}).unwrap();
    assert_eq!(tables.formations().count(), 2);
    for f in formations {
        assert!(matches!(table_status(&dir, f), TableStatus::Checked), "{f}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Where the disk has less room than the tables to build, nothing is
/// built and the error says what they need.
#[test]
fn a_build_that_does_not_fit_is_refused_before_it_starts() {
    let dir = scratch("room");
    let formations = [Formation::new(11, 5).unwrap(), Formation::new(12, 4).unwrap()];
    let need: u64 = formations.iter().map(|&f| file_bytes(f)).sum();
    let tight = |_: &std::path::Path| Some(need - 1);
    let small = Opening { free_space: &tight, ..opening(Check::Stamped) };
    let err = Endgame::open(&dir, &formations, small, &|_| {}).expect_err("refused");
    assert!(matches!(err, EndgameError::NoSpace { needed, available, .. }
        if needed == need && available == need - 1));
    assert!(err.to_string().contains("of free disk space in"), "{err}");
    assert_eq!(files_in(&dir), [file::LOCK_FILE]);
    // Exactly enough room is enough.
    let exact = |_: &std::path::Path| Some(need);
    let fits = Opening { free_space: &exact, ..opening(Check::Stamped) };
    assert!(Endgame::open(&dir, &formations, fits, &|_| {}).is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A table file a killed build left half-written under its temporary name
/// is removed by the next build, which builds the table whole.
#[test]
fn a_killed_builds_temporary_file_is_removed_by_the_next_build() {
    let dir = scratch("stale");
    std::fs::create_dir_all(&dir).unwrap();
    let formation = Formation::new(12, 4).unwrap();
    let stale = format!("{}.999999-0{}", file_name(formation), file::PART);
    std::fs::write(dir.join(&stale), b"half a table").unwrap();
    // A check stamp's temporary file may be another program's, now.
    let stamp = format!("{}.checked.999999-1{}", file_name(formation), file::PART);
    std::fs::write(dir.join(&stamp), b"checked").unwrap();
    Endgame::open(&dir, &[formation], opening(Check::Stamped), &|_| {}).unwrap();
    let name = file_name(formation);
    let want = [name.clone(), format!("{name}.checked"), stamp, file::LOCK_FILE.to_owned()];
    let mut want = want.to_vec();
    want.sort();
    assert_eq!(files_in(&dir), want);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A program that finds the folder's build lock held says who holds it and
/// waits; once the lock is let go, it builds.
#[test]
fn a_build_waits_for_the_program_that_holds_the_lock() {
    let dir = scratch("wait");
    std::fs::create_dir_all(&dir).unwrap();
    let formation = Formation::new(12, 4).unwrap();
    let (held, _) = file::lock_folder(&dir, &|_| {}).unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let tx = std::sync::Mutex::new(tx);
    std::thread::scope(|s| {
        let builder = s.spawn(|| {
            let note = |e: OpenEvent<'_>| {
                let line = match e {
                    OpenEvent::Waiting(who) => format!("waiting for {who}"),
                    OpenEvent::Written(f, _) => format!("written {f}"),
                    _ => return,
                };
                tx.lock().unwrap().send(line).unwrap();
            };
            Endgame::open(&dir, &[formation], opening(Check::Stamped), &note).unwrap()
        });
        let first = rx.recv().unwrap();
        let me = std::process::id();
        assert!(first.starts_with("waiting for ") && first.ends_with(&format!("(process {me})")));
        // Nothing is built while the lock is held.
        assert!(matches!(table_status(&dir, formation), TableStatus::Missing));
        drop(held);
        assert_eq!(rx.recv().unwrap(), format!("written {formation}"));
        builder.join().unwrap();
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A folder the system will not let this program write is one error that
/// says so, not the first failing file's.
#[cfg(target_os = "linux")]
#[test]
fn a_folder_that_cannot_be_written_is_one_clear_error() {
    // /sys refuses new files even to root, who may write anywhere else.
    let dir = std::path::Path::new("/sys");
    let formation = Formation::new(12, 4).unwrap();
    let err =
        Endgame::open(dir, &[formation], opening(Check::Stamped), &|_| {}).expect_err("refused");
    assert!(matches!(err, EndgameError::NotWritable { .. }), "{err:?}");
    assert!(
        err.to_string().starts_with(
            "cannot write the endgame tables' folder /sys (Permission denied (os error 13)): \
             the tables cannot be built there"
        ),
        "{err}"
    );
}

/// The status of a table, from its header and stamp alone.
#[test]
fn a_tables_status_is_read_from_its_header_and_stamp() {
    let dir = scratch("status");
    let formation = Formation::new(12, 4).unwrap();
    assert!(matches!(table_status(&dir, formation), TableStatus::Missing));
    Endgame::open(&dir, &[formation], opening(Check::Stamped), &|_| {}).unwrap();
    assert!(matches!(table_status(&dir, formation), TableStatus::Checked));
    std::fs::remove_file(dir.join(format!("{}.checked", file_name(formation)))).unwrap();
    assert!(matches!(table_status(&dir, formation), TableStatus::Unchecked));
    std::fs::write(dir.join(file_name(formation)), b"2048EGT2 and no more").unwrap();
    assert!(matches!(table_status(&dir, formation), TableStatus::Damaged(_)));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A step building a 16 and a block anchored at 32, and the endgame of
/// their two tables: small corner tables, built in well under a second.
fn small_corner_tables() -> (Formation, Formation, Endgame) {
    let step = Formation::step(4).unwrap();
    let block = Formation::block(5).unwrap();
    let endgame =
        Endgame::from_tables(vec![Table::build(step, &|_| {}), Table::build(block, &|_| {})]);
    (step, block, endgame)
}

/// The corner advice of `shape`'s kind.
fn corner_advice(endgame: &Endgame, shape: Shape, board: Board) -> Option<Advice> {
    match shape {
        Shape::Step => endgame.advise_step(board),
        _ => endgame.advise_block(board),
    }
}

#[test]
fn the_corner_advice_is_the_reference_best_move_in_every_symmetry() {
    let (step, block, endgame) = small_corner_tables();
    // Fixed tiles the advice accepts: row 1 falls towards the goal cell,
    // and (the block) row 0's last tile is above row 1's.
    let cases: [(Formation, Vec<u8>); 2] =
        [(step, vec![9, 8, 7, 7, 6]), (block, vec![10, 9, 8, 7, 6, 5])];
    for (formation, tiles) in cases {
        let advise = |b: Board| corner_advice(&endgame, formation.shape(), b);
        let mut reference = Reference::new(formation, &tiles);
        let mut advised = 0;
        for board in reference.states().into_iter().step_by(211) {
            let want: Vec<Option<f64>> = Direction::ALL.map(|d| reference.after(board, d)).to_vec();
            if reference.reached(board) {
                assert_eq!(advise(board), None, "{board:?}: at the goal already");
                continue;
            }
            let best = want.iter().flatten().fold(0.0f64, |a, &b| a.max(b));
            let Some(advice) = advise(board) else {
                assert!(want.iter().all(Option::is_none), "{board:?}: no advice, {want:?}");
                continue;
            };
            advised += 1;
            assert_eq!(advice.formation, formation);
            assert!(close(formation, advice.odds, best), "{board:?}: {advice:?} vs {want:?}");
            for (s, sym) in board.symmetries().into_iter().enumerate() {
                let a = advise(sym).expect("the same formation, turned");
                assert!((a.odds - advice.odds).abs() < 1e-6, "{formation} symmetry {s}");
                assert_eq!(
                    a.values[turned(s, advice.direction).index()].map(|v| (v * 1e4).round()),
                    advice.values[advice.direction.index()].map(|v| (v * 1e4).round()),
                    "{formation} symmetry {s}"
                );
            }
        }
        assert!(advised > 20, "{formation}: only {advised} boards advised");
    }
    // Two equal neighbours in the step: no advice (they would merge).
    let board: Board = "512 256 128 0/512 64 0 0/0 0 0 0/0 2 0 0".parse().unwrap();
    assert_eq!(endgame.advise_step(board), None);
    // Row 1 rising towards the goal cell: no advice.
    let board: Board = "512 256 128 0/64 256 0 0/0 0 0 0/0 2 0 0".parse().unwrap();
    assert_eq!(endgame.advise_step(board), None);
}

/// The board `board` with `tiles` in its `cells` instead.
fn with_tiles(board: Board, cells: &[usize], tiles: &[u8]) -> Board {
    let raw = cells
        .iter()
        .zip(tiles)
        .fold(board.raw(), |raw, (&c, &e)| raw & !(0xF << (4 * c)) | u64::from(e) << (4 * c));
    Board::from_raw(raw)
}

#[test]
fn the_corner_tables_answer_a_smaller_goal_with_their_own_odds() {
    // Each shape's only table here (so its largest) builds a 16 or
    // anchors at 32; the boards' own fixed tiles set a smaller goal: the
    // step's smaller of cells 2 and 5 is an 8 (goal: a 4 in the goal cell
    // with a pair of 2s), the block's anchor a 16. No other symmetry of
    // these boards applies (its cells would hold free tiles too small).
    let (step, block, endgame) = small_corner_tables();
    let cases = [
        (step, &STEP[..], vec![7, 6, 5, 6, 5], vec![9, 8, 4, 6, 3], 3, 2),
        (block, &BLOCK[..], vec![7, 6, 7, 6, 7, 6], vec![9, 8, 7, 6, 5, 4], 4, 4),
    ];
    for (formation, cells, table_tiles, tiles, anchor, goal) in cases {
        let advise = |b: Board| corner_advice(&endgame, formation.shape(), b);
        let mut table = Reference::new(formation, &table_tiles);
        let bounds = Reference::new(Formation { shape: formation.shape(), goal: anchor }, &tiles);
        let own = Reference::new(Formation { shape: formation.shape(), goal }, &tiles);
        let (mut advised, mut refused) = (0, 0);
        for state in table.states().into_iter().step_by(7) {
            let board = with_tiles(state, cells, &tiles);
            // The step's goal cell below its neighbours is its order.
            let ordered = formation.shape() != Shape::Step || Reference::cells(board)[6] < 3;
            let want: Vec<Option<f64>> = Direction::ALL.map(|d| table.after(state, d)).to_vec();
            let best = want.iter().flatten().fold(0.0f64, |a, &b| a.max(b));
            let applies = ordered && bounds.keeps(board) && !own.reached(board);
            match advise(board) {
                Some(advice) => {
                    assert!(applies, "{board:?}: advised {advice:?}");
                    assert_eq!(advice.formation, formation);
                    assert!(
                        close(formation, advice.odds, best),
                        "{board:?}: {advice:?} vs {want:?}"
                    );
                    advised += 1;
                }
                None => {
                    assert!(!applies || best == 0.0, "{board:?}: no advice, {want:?}");
                    refused += 1;
                }
            }
        }
        assert!(advised > 20 && refused > 20, "{formation}: {advised} advised, {refused} not");
    }
}

#[test]
fn corner_formations_refuse_what_a_table_cannot_hold() {
    assert_eq!(Formation::step(3), Err(FormationError::Goal(3)));
    assert_eq!(Formation::block(4), Err(FormationError::Goal(4)));
    assert!(Formation::block(10).is_ok());
    assert_eq!(Formation::block(11), Err(FormationError::Goal(11)));
    assert_eq!(Formation::step(10), Err(FormationError::Goal(10)));
    // 8 * 7^6 * 6^4 and 10 * 9 * 10 * 9 * 8^6.
    assert_eq!(Formation::step(7).unwrap().states(), 8 * 117_649 * 1_296);
    // macroxue/2048-ai's big table: 10 * 9^6 * 8^4, a byte a state.
    let big = Formation::step(9).unwrap();
    assert_eq!(big.states(), 21_767_823_360);
    assert!(big.is_layered() && Formation::step(8).unwrap().is_layered());
    assert!(!Formation::step(7).unwrap().is_layered());
    assert_eq!(file_bytes(big), 32 + 21_767_823_360);
    assert_eq!(file_name(big), "step-09.egt");
    // The final collapse: ten free cells of at most half the anchor.
    assert_eq!(Formation::collapse(3), Err(FormationError::Goal(3)));
    assert_eq!(Formation::collapse(10), Err(FormationError::Goal(10)));
    let collapse = Formation::collapse(9).unwrap();
    assert_eq!(collapse.states(), 4_304_672_100);
    assert!(collapse.is_layered() && !Formation::collapse(8).unwrap().is_layered());
    assert_eq!(file_name(collapse), "collapse-09.egt");
    assert_eq!(collapse.to_string(), "final collapse anchored at 512");
    assert_eq!(Formation::block(10).unwrap().states(), 8_100 * 262_144);
    assert_eq!(file_name(Formation::step(7).unwrap()), "step-07.egt");
    assert_eq!(file_name(Formation::block(9).unwrap()), "block-09.egt");
    assert_eq!(Formation::step(7).unwrap().to_string(), "corner step building 128");
    assert_eq!(Formation::block(9).unwrap().to_string(), "corner block anchored at 512");
    assert_eq!(
        corner_formations(None),
        [Formation::step(7).unwrap(), Formation::block(10).unwrap()]
    );
    // The largest of each shape within a bound: the step building 128 has
    // 1,219,784,832 states and the block anchored at 1024 2,123,366,400;
    // the step building 16 has 1,658,880, the block anchored at 64
    // 3,686,400 (at 128: 55 million).
    assert_eq!(
        corner_formations(Some(2_000_000_000)),
        [Formation::step(7).unwrap(), Formation::block(9).unwrap()]
    );
    assert_eq!(
        corner_formations(Some(4_000_000)),
        [Formation::step(4).unwrap(), Formation::block(6).unwrap()]
    );
    assert_eq!(corner_formations(Some(1_000_000)), [Formation::block(5).unwrap()]);
}

#[test]
fn corner_files_round_trip_and_say_their_shape() {
    for formation in [Formation::step(4).unwrap(), Formation::block(5).unwrap()] {
        let table = Table::build(formation, &|_| {});
        let bytes = written(&table);
        let back = read(&bytes).unwrap();
        assert_eq!(back.formation(), formation);
        assert_eq!(back.odds, table.odds);
        // Another shape in the header: refused (its count of fixed cells
        // is not that shape's).
        let mut other = bytes.clone();
        other[10] = if formation.shape() == Shape::Step { 2 } else { 1 };
        assert!(matches!(read(&other), Err(TableError::Header(_))));
        let mut unknown = bytes.clone();
        unknown[10] = 7;
        let err = read(&unknown).unwrap_err();
        assert!(err.to_string().contains("no formation has shape 7"), "{err}");
    }
}

#[test]
fn a_compact_table_works_out_a_state_from_its_successors_as_the_full_table_does() {
    let step = Formation::step(4).unwrap();
    let table = Table::build(step, &|_| {});
    let g = &table.geometry;
    let mut checked = 0;
    for idx in (0..step.states() as u32).step_by(7919) {
        let raw = g.board_of(idx);
        let Some(want) = table.odds_of_moves(raw) else { continue };
        // A compact table reads odds of 0 as no move (none is played).
        let want = Moves { odds: want.odds.map(|o| o.filter(|&v| v > 0.0)), ..want };
        // Every state a move and a spawn lead to, but not this one.
        let mut next = Vec::new();
        for after in Board::from_raw(raw).slide_each_unscored() {
            let after = after.raw();
            if after == raw || after & g.fixed_mask != g.fixed_raw {
                continue;
            }
            let Some(at) = g.index(after) else { continue };
            for (&cell, &stride) in g.free.iter().zip(&g.stride) {
                if nibble(after, cell) == 0 {
                    next.extend([at + stride, at + 2 * stride]);
                }
            }
        }
        let compact = table.keep(&next);
        let got = compact.odds_of_moves(raw).unwrap_or_else(|| panic!("{idx}: not worked out"));
        assert_eq!(got.odds, want.odds, "state {idx}");
        // Without them only a state whose moves reach the goal at once (or
        // within the depth worked out) is answered, and as well.
        if let Some(bare) = table.keep(&[]).odds_of_moves(raw) {
            assert_eq!(bare.odds, want.odds, "state {idx}");
        }
        checked += 1;
    }
    assert!(checked > 100, "{checked}");
}

/// Every state of `formation`'s table, as the canonical boards.
fn every_board(formation: Formation) -> impl Iterator<Item = u64> {
    let g = Geometry::new(formation);
    (0..formation.states() as u32).map(move |i| g.board_of(i))
}

#[test]
fn a_layered_table_keeps_the_full_tables_move_and_odds_of_every_state() {
    let formations = [
        Formation::new(10, 3).unwrap(),
        Formation::new(9, 4).unwrap(),
        Formation::step(4).unwrap(),
        Formation::step(5).unwrap(),
        Formation::block(5).unwrap(),
        Formation::collapse(4).unwrap(),
    ];
    for formation in formations {
        let full = Table::build(formation, &|_| {});
        let layered = Table::build_layered(formation, &|_| {});
        let Odds::Layered(l) = &layered.odds else { panic!("a layered table") };
        // Every state has a place of its own, and the places fill the file.
        let mut places: Vec<u64> =
            every_board(formation).map(|raw| l.index.place(raw).unwrap()).collect();
        places.sort_unstable();
        assert!(places.iter().copied().eq(0..formation.states()), "{formation}: the places");
        let (mut advised, mut differ) = (0, Vec::new());
        for raw in every_board(formation) {
            let board = Board::from_raw(raw);
            let stored = full.odds(board).unwrap();
            let steps = (stored * 65535.0).round() as u32 * 63 / 65535;
            assert_eq!(layered.odds(board), Some(f64::from(steps as f32 / 63.0)));
            let want = full.odds_of_moves(raw).and_then(|m| pick(0, &m, formation));
            let got = layered.odds_of_moves(raw).and_then(|m| pick(0, &m, formation));
            match (want, got) {
                // Odds below a step of 1/63 advise nothing, nor does a goal.
                (_, None) if steps == 0 => {}
                (None, None) if full.geometry.is_goal(raw) => {}
                (Some(w), Some(g)) if w.direction == g.direction => advised += 1,
                (w, g) => differ.push((raw, w.map(|a| a.direction), g.map(|a| a.direction))),
            }
        }
        assert!(differ.is_empty(), "{formation}: {} differ, first {:?}", differ.len(), differ[0]);
        assert!(advised > formation.states() / 10, "{formation}: {advised} advised");
    }
}

#[test]
fn a_layered_table_is_built_into_its_file_and_read_back_as_built() {
    let formation = Formation::step(4).unwrap();
    let in_memory = Table::build(formation, &|_| {});
    LAYERED_ABOVE.set(Some(1000));
    assert!(formation.is_layered());
    let dir = scratch("layered");
    let built = Table::build(formation, &|_| {});
    assert!(matches!(built.odds, Odds::Layered(_)));
    let open = || Endgame::open(&dir, &[formation], opening(Check::Stamped), &|_| {}).unwrap();
    let tables = open();
    let path = dir.join(file_name(formation));
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes.len() as u64, file_bytes(formation));
    assert_eq!(bytes.len() as u64, 32 + formation.states());
    assert_eq!(&bytes[..8], b"2048EGT3");
    // The file a layer at a time is the table built in memory, checksum
    // and all, and opens again from its stamp.
    assert_eq!(bytes, written(&built));
    assert_eq!(read(&bytes).unwrap().odds, built.odds);
    assert_eq!(open().table(formation).unwrap().odds, built.odds);
    // It plays the full table's moves.
    for raw in every_board(formation).step_by(97) {
        let board = Board::from_raw(raw);
        let full = in_memory.odds_of_moves(raw).and_then(|m| pick(0, &m, formation));
        let layered = tables.table(formation).unwrap().odds_of_moves(raw);
        let layered = layered.and_then(|m| pick(0, &m, formation));
        if let Some(l) = layered {
            assert_eq!(Some(l.direction), full.map(|a| a.direction), "{board}");
        }
    }
    // Damage is refused and the table built again; a table of the other
    // layout under its name too.
    let mut flipped = bytes.clone();
    flipped[1000] ^= 1;
    assert!(matches!(read(&flipped), Err(TableError::Checksum)));
    std::fs::write(&path, &flipped).unwrap();
    let again = Endgame::open(&dir, &[formation], opening(Check::Full), &|_| {}).unwrap();
    assert_eq!(again.table(formation).unwrap().odds, built.odds);
    let mut dense = bytes.clone();
    dense[7] = b'2';
    assert!(matches!(read(&dense), Err(TableError::Format(b'2'))));
    LAYERED_ABOVE.set(None);
    assert!(matches!(read(&bytes), Err(TableError::Format(b'3'))));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_collapse_table_plays_where_the_blocks_bounds_refuse_the_board() {
    let (collapse, block) = (Formation::collapse(5).unwrap(), Formation::block(5).unwrap());
    let tables =
        Endgame::from_tables(vec![Table::build(collapse, &|_| {}), Table::build(block, &|_| {})]);
    // Anchored at 32 in row 1's last cell: a 16 in row 3 is past the
    // block's bound (an eighth, 4) but within the collapse's (a half).
    let board: Board = "2048 1024 512 0/128 64 32 0/8 0 0 0/16 0 0 2".parse().unwrap();
    assert_eq!(tables.advise_block(board), None);
    let advice = tables.advise_collapse(board).expect("the collapse");
    assert_eq!(advice.formation, collapse);
    assert_eq!(tables.corner_move(board), Some(advice));
    // Where both hold the board, the collapse plays.
    let board: Board = "2048 1024 512 0/128 64 32 0/8 0 0 0/2 0 0 2".parse().unwrap();
    assert!(tables.advise_block(board).is_some());
    assert_eq!(tables.corner_move(board).unwrap().formation, collapse);
    // Two 16s one above the other, the upper beside the anchor: merging
    // them up makes its equal there, the goal, which the block's goal
    // (a row of a half, a quarter and two eighths) did not see.
    let board: Board = "2048 1024 512 8/128 64 32 16/0 0 0 16/0 0 0 4".parse().unwrap();
    let advice = tables.advise_collapse(board).expect("the collapse");
    assert_eq!((advice.direction, advice.odds), (Direction::Up, 1.0));
    // The anchor elsewhere in row 1: the collapse's goal is not beside it.
    let board: Board = "2048 1024 512 0/32 64 128 0/8 0 0 0/16 0 0 2".parse().unwrap();
    assert_eq!(tables.advise_collapse(board), None);
}

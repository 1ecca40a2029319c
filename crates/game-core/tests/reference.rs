//! A slow, obviously correct statement of the rules, written from the rules
//! text and not from `src/line.rs`: tile values (not exponents) in a `Vec`,
//! one line at a time.

use std::collections::HashSet;

use game_core::{Direction, GameBoard};

/// The largest tile, 2^25. Two of them do not merge: the engine's cells stop
/// there (documented in docs/rules.md), which no 4x4 game can reach (its
/// largest tile is 131072). Written out here rather than taken from the
/// engine; `errors::the_bound_is_the_documented_one` checks they agree.
pub(crate) const CAP: u32 = 33_554_432;

/// Slides one line toward index 0 (the wall): the new line, the score gained
/// and the values of the tiles the merges created.
pub(crate) fn slide_line(line: &[u32]) -> (Vec<u32>, u32, Vec<u32>) {
    // Compress toward the wall.
    let tiles: Vec<u32> = line.iter().copied().filter(|&v| v != 0).collect();
    // Merge pairs starting at the wall; a merged tile is not looked at again,
    // so each tile merges at most once.
    let mut out = Vec::with_capacity(line.len());
    let mut merged = Vec::new();
    let mut i = 0;
    while i < tiles.len() {
        if i + 1 < tiles.len() && tiles[i] == tiles[i + 1] && tiles[i] < CAP {
            out.push(2 * tiles[i]);
            merged.push(2 * tiles[i]);
            i += 2;
        } else {
            out.push(tiles[i]);
            i += 1;
        }
    }
    out.resize(line.len(), 0);
    let score = merged.iter().sum();
    (out, score, merged)
}

/// A square board of tile values, row-major (0 = empty).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct RefBoard {
    pub(crate) size: usize,
    pub(crate) cells: Vec<u32>,
}

impl RefBoard {
    /// The reference copy of any engine board, read through the public API.
    pub(crate) fn of<B: GameBoard>(board: &B) -> RefBoard {
        let n = board.size();
        let cells = (0..n * n).map(|i| board.value(i / n, i % n).expect("in range")).collect();
        RefBoard { size: n, cells }
    }

    /// The engine board with the same tiles, built with `place`.
    pub(crate) fn to_board<B: GameBoard>(&self) -> B {
        let n = self.size;
        let mut board = B::empty(n).expect("a supported size");
        for (i, &v) in self.cells.iter().enumerate() {
            if v != 0 {
                board = board.place(i / n, i % n, v).expect("a valid tile");
            }
        }
        board
    }

    /// The cell indices of line `k` for a push toward `dir`, wall first.
    fn line(&self, dir: Direction, k: usize) -> Vec<usize> {
        let n = self.size;
        match dir {
            Direction::Left => (0..n).map(|c| k * n + c).collect(),
            Direction::Right => (0..n).rev().map(|c| k * n + c).collect(),
            Direction::Up => (0..n).map(|r| r * n + k).collect(),
            Direction::Down => (0..n).rev().map(|r| r * n + k).collect(),
        }
    }

    /// The board after a push toward `dir`, the score and the merged tiles
    /// (even when nothing moves).
    pub(crate) fn push(&self, dir: Direction) -> (RefBoard, u32, Vec<u32>) {
        let mut after = self.clone();
        let mut score = 0;
        let mut merged = Vec::new();
        for k in 0..self.size {
            let idx = self.line(dir, k);
            let values: Vec<u32> = idx.iter().map(|&i| self.cells[i]).collect();
            let (out, s, m) = slide_line(&values);
            for (&i, v) in idx.iter().zip(out) {
                after.cells[i] = v;
            }
            score += s;
            merged.extend(m);
        }
        (after, score, merged)
    }

    /// The board and score after a push, or `None` when nothing moves.
    pub(crate) fn slide(&self, dir: Direction) -> Option<(RefBoard, u32)> {
        let (after, score, _) = self.push(dir);
        (after != *self).then_some((after, score))
    }

    pub(crate) fn legal(&self) -> Vec<Direction> {
        Direction::ALL.into_iter().filter(|&d| self.slide(d).is_some()).collect()
    }

    pub(crate) fn empty_cells(&self) -> Vec<usize> {
        (0..self.cells.len()).filter(|&i| self.cells[i] == 0).collect()
    }

    /// Every board one spawn away: each empty cell with a 2, then with a 4.
    pub(crate) fn spawns(&self) -> Vec<RefBoard> {
        let mut out = Vec::new();
        for i in self.empty_cells() {
            for v in [2, 4] {
                let mut b = self.clone();
                b.cells[i] = v;
                out.push(b);
            }
        }
        out
    }

    /// The cell (row, col) of this board under symmetry `s` (0..8): `s & 4`
    /// transposes, `s & 1` mirrors left-right, `s & 2` flips top-bottom.
    pub(crate) fn symmetry(&self, s: usize) -> RefBoard {
        let n = self.size;
        let mut out = self.clone();
        for r in 0..n {
            for c in 0..n {
                let (mut rr, mut cc) = if s & 4 != 0 { (c, r) } else { (r, c) };
                if s & 1 != 0 {
                    cc = n - 1 - cc;
                }
                if s & 2 != 0 {
                    rr = n - 1 - rr;
                }
                out.cells[rr * n + cc] = self.cells[r * n + c];
            }
        }
        out
    }
}

/// The number of distinct boards reachable from `start` after `plies` plies,
/// a ply being every legal direction and then every spawn.
pub(crate) fn perft(start: &RefBoard, plies: u32) -> usize {
    let mut level: HashSet<RefBoard> = HashSet::from([start.clone()]);
    for _ in 0..plies {
        let mut next = HashSet::new();
        for board in &level {
            for dir in board.legal() {
                let (moved, _) = board.slide(dir).expect("legal");
                next.extend(moved.spawns());
            }
        }
        level = next;
    }
    level.len()
}

#[test]
fn slide_line_examples() {
    assert_eq!(slide_line(&[2, 2, 2, 2]), (vec![4, 4, 0, 0], 8, vec![4, 4]));
    assert_eq!(slide_line(&[2, 2, 2, 0]), (vec![4, 2, 0, 0], 4, vec![4]));
    assert_eq!(slide_line(&[0, 4, 2, 2]), (vec![4, 4, 0, 0], 4, vec![4]));
    assert_eq!(slide_line(&[4, 4, 8, 0]), (vec![8, 8, 0, 0], 8, vec![8]));
    assert_eq!(slide_line(&[CAP, CAP, 2, 2]), (vec![CAP, CAP, 4, 0], 4, vec![4]));
    assert_eq!(slide_line(&[2, 0, 0, 2, 4]), (vec![4, 4, 0, 0, 0], 4, vec![4]));
}

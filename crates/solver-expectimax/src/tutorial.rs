//! The Java tutorial's expectimax, decision for decision.
//!
//! Its quirks are kept on purpose, since they decide its moves: a chance node
//! is the *sum* (not the average) over every empty cell of
//! `(int)(v2 * 0.9) + (int)(v4 * 0.1)`, each product a double cut toward
//! zero, in wrapping 32-bit integers; a board where nothing moves is worth 0
//! inside the search; directions that change nothing are pruned; at the root
//! ties go to the earliest of Up, Down, Left, Right.
//!
//! Every node value is a pure function of the board and the depth, so the
//! chance nodes below the root are memoised; the root's children are searched
//! in parallel, each task with its own memo, so the result cannot depend on
//! the thread count.

use game_core::{Direction, GameBoard};

use crate::eval::tutorial_score;
use crate::hash::MixMap;
use crate::stats::Stats;

type Memo<B> = MixMap<(B, u32), i32>;

/// One search task: its memo and counters.
pub(crate) struct Tutorial<B: GameBoard> {
    depth: u32,
    p2: f64,
    p4: f64,
    memo: Memo<B>,
    pub(crate) stats: Stats,
}

impl<B: GameBoard> Tutorial<B> {
    pub(crate) fn new(depth: u32, four_probability: f64) -> Self {
        Tutorial {
            depth,
            p2: 1.0 - four_probability,
            p4: four_probability,
            memo: Memo::default(),
            stats: Stats::default(),
        }
    }

    /// `(int)(value * p)` as Java computes it: a double product truncated
    /// toward zero (saturating, like Java's narrowing conversion).
    fn weigh(value: i32, p: f64) -> i32 {
        (f64::from(value) * p) as i32
    }

    /// The Java `generateScore`: a chance node (or the heuristic at the
    /// depth limit).
    pub(crate) fn chance(&mut self, board: &B, depth: u32) -> i32 {
        if depth >= self.depth {
            self.stats.evals += 1;
            return tutorial_score(board);
        }
        // Depth-0 nodes are the root's children, searched once each.
        if let Some(&v) = self.memo.get(&(*board, depth)).filter(|_| depth > 0) {
            self.stats.table_hits += 1;
            return v;
        }
        self.stats.nodes += 1;
        let mut total = 0i32;
        for idx in board.empty_cells() {
            for (exponent, p) in [(1u8, self.p2), (2u8, self.p4)] {
                let spawned = board.with_exponent_unchecked(idx, exponent);
                let v = self.max(&spawned, depth + 1);
                total = total.wrapping_add(Self::weigh(v, p));
            }
        }
        if depth > 0 {
            self.memo.insert((*board, depth), total);
        }
        total
    }

    /// The Java `calculateScore`: the best child over the directions that
    /// change the board, or 0 when none does.
    pub(crate) fn max(&mut self, board: &B, depth: u32) -> i32 {
        let mut best: Option<i32> = None;
        for dir in Direction::ALL {
            self.stats.moves += 1;
            let moved = board.slide_unscored(dir);
            if moved != *board {
                let v = self.chance(&moved, depth);
                best = Some(best.map_or(v, |b| b.max(v)));
            }
        }
        best.unwrap_or(0)
    }

    /// The value of one spawn below a root child: `(int)(max(...) * p)`.
    pub(crate) fn weighed_spawn(&mut self, spawned: &B, p4: bool) -> i32 {
        let v = self.max(spawned, 1);
        Self::weigh(v, if p4 { self.p4 } else { self.p2 })
    }
}

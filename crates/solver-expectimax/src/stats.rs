//! Search counters, kept per task and added up, so no atomics sit on the hot path.

use std::ops::{AddAssign, Sub};

/// What a search did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Chance nodes expanded (not answered by the table or the evaluator).
    pub nodes: u64,
    /// Directions tried at max nodes, legal or not: the usual measure of a
    /// 2048 search's speed ("move applications").
    pub moves: u64,
    /// Leaf evaluations.
    pub evals: u64,
    /// Chance nodes answered by the transposition table or memo.
    pub table_hits: u64,
}

impl AddAssign for Stats {
    fn add_assign(&mut self, other: Stats) {
        self.nodes += other.nodes;
        self.moves += other.moves;
        self.evals += other.evals;
        self.table_hits += other.table_hits;
    }
}

impl Sub for Stats {
    type Output = Stats;

    fn sub(self, other: Stats) -> Stats {
        Stats {
            nodes: self.nodes - other.nodes,
            moves: self.moves - other.moves,
            evals: self.evals - other.evals,
            table_hits: self.table_hits - other.table_hits,
        }
    }
}

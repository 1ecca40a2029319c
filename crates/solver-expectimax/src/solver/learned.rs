//! The learned search, and what a learned value means to it: the score
//! still to come, estimates clamped at 0, a lost board a hair below, the
//! heuristic added, and boards without a packed form read through one.

use std::sync::Arc;

use game_core::{Board, GameBoard, Grid, Rules};

use super::root::{self, Run};
use super::searches::Search;
use super::{Decision, SearchError, SharedEvaluator};
use crate::eval::{Evaluator, WeightedEvaluator, Weights};
use crate::table::Tables;

/// The expectimax over a learned evaluator of afterstates
/// ([`crate::Algorithm::Learned`]), on 4x4 boards only: the network (with
/// the heuristic added when its weight is above 0), the cut-off and the
/// transposition tables.
pub(super) struct Learned {
    eval: SharedEvaluator,
    cutoff: f32,
    tables: Tables,
}

impl Learned {
    /// The search of `net`, plus `heuristic` times the heuristic.
    pub(super) fn new(
        net: SharedEvaluator,
        heuristic: f32,
        cutoff: f32,
        tables: Tables,
    ) -> Learned {
        let eval = if heuristic > 0.0 {
            Arc::new(Shaped {
                net,
                heuristic: WeightedEvaluator::new(Weights::STANDARD),
                weight: heuristic,
            })
        } else {
            net
        };
        Learned { eval, cutoff, tables }
    }

    /// The decision for `board`, of any type: the [`Search`] methods'.
    fn decide<B: GameBoard>(
        &self,
        run: &Run<'_>,
        board: &B,
        rules: &Rules,
    ) -> Result<Decision, SearchError> {
        if board.size() != 4 {
            return Err(SearchError::NotFourByFour(board.size()));
        }
        let eval = Borrowed(&*self.eval);
        match board.packed().map(Board::from_raw) {
            Some(packed) => {
                root::expectimax(run, &packed, rules, &eval, self.cutoff, Some(&self.tables))
            }
            // No packed form (a tile past 32768): no table (its keys are
            // packed boards), the evaluator through a copy.
            None => root::expectimax(run, board, rules, &Packed(eval), self.cutoff, None),
        }
    }
}

impl Search for Learned {
    fn decide_board(
        &self,
        run: &Run<'_>,
        board: &Board,
        rules: &Rules,
    ) -> Result<Decision, SearchError> {
        self.decide(run, board, rules)
    }

    fn decide_grid(
        &self,
        run: &Run<'_>,
        board: &Grid,
        rules: &Rules,
    ) -> Result<Decision, SearchError> {
        self.decide(run, board, rules)
    }

    fn tables(&self) -> Option<&Tables> {
        Some(&self.tables)
    }
}

/// A learned estimate as the search uses it: the score still to come is
/// never below 0, so an estimate under 0 (near the end of a game, where a
/// network errs) counts as 0. Left as it was, a move into such a board
/// looked worse than one after which every spawn loses (worth 0).
#[inline]
fn learned_value(estimate: f32) -> f32 {
    estimate.max(0.0)
}

/// What a lost board is worth to a learned search: the score still to come
/// is 0, but a hair below it, so that a move that survives beats one that
/// loses when its value is 0 too. It vanishes in the rounding of a sum with
/// any live value above about 1e-12, so no other value changes.
const LEARNED_LOST: f32 = -1e-20;

/// A shared evaluator borrowed for one decision: a sized handle on the
/// trait object, which the generic search takes by reference, valuing
/// boards as the learned search does.
struct Borrowed<'a>(&'a dyn Evaluator<Board>);

impl Evaluator<Board> for Borrowed<'_> {
    #[inline]
    fn evaluate(&self, board: &Board) -> f32 {
        learned_value(self.0.evaluate(board))
    }

    fn lost_value(&self, _: &Board) -> f32 {
        LEARNED_LOST
    }

    /// A learned value is of an afterstate: the score still to come.
    fn rewards(&self) -> bool {
        true
    }
}

/// A learned value with the heuristic added, when
/// [`crate::Algorithm::Learned`]'s `heuristic` is above 0 (the presets'
/// [`crate::LEARNED_HEURISTIC`] is 0).
struct Shaped {
    net: SharedEvaluator,
    heuristic: WeightedEvaluator,
    weight: f32,
}

impl Evaluator<Board> for Shaped {
    #[inline]
    fn evaluate(&self, board: &Board) -> f32 {
        self.net.evaluate(board) + self.weight * self.heuristic.evaluate(board)
    }
}

/// A 4x4 board of any type, scored by an evaluator of packed boards: the
/// learned search on 4x4 boards without a packed form, those with a tile
/// past 32768 (which the network then reads clamped to 32768), through
/// the learned values of [`Borrowed`].
struct Packed<'a>(Borrowed<'a>);

impl<B: GameBoard> Evaluator<B> for Packed<'_> {
    fn evaluate(&self, board: &B) -> f32 {
        let mut rows = [[0u8; 4]; 4];
        for (r, row) in rows.iter_mut().enumerate() {
            for (c, cell) in row.iter_mut().enumerate() {
                *cell = board.exponent(r, c).unwrap_or(0);
            }
        }
        // Every exponent a 4x4 board holds fits the packed board.
        Board::from_exponents(rows).map_or(0.0, |packed| self.0.evaluate(&packed))
    }

    fn lost_value(&self, _: &B) -> f32 {
        LEARNED_LOST
    }

    fn rewards(&self) -> bool {
        self.0.rewards()
    }
}

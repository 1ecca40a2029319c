//! What a learned value means to the search: estimates clamped at 0, a
//! lost board a hair below, the heuristic added, and boards without a
//! packed form read through one.

use game_core::{Board, GameBoard};

use super::SharedEvaluator;
use crate::eval::{Evaluator, WeightedEvaluator};

/// A learned estimate as the search uses it: the score still to come is
/// never below 0, so an estimate under 0 (near the end of a game, where a
/// network errs) counts as 0. Left as it was, a move into such a board
/// looked worse than one after which every spawn loses (worth 0).
#[inline]
pub(super) fn learned_value(estimate: f32) -> f32 {
    estimate.max(0.0)
}

/// What a lost board is worth to a learned search: the score still to come
/// is 0, but a hair below it, so that a move that survives beats one that
/// loses when its value is 0 too. It vanishes in the rounding of a sum with
/// any live value above about 1e-12, so no other value changes.
pub(super) const LEARNED_LOST: f32 = -1e-20;

/// A shared evaluator borrowed for one decision: a sized handle on the
/// trait object, which the generic search takes by reference.
pub(super) struct Borrowed<'a>(pub(super) &'a dyn Evaluator<Board>);

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
pub(super) struct Shaped {
    pub(super) net: SharedEvaluator,
    pub(super) heuristic: WeightedEvaluator,
    pub(super) weight: f32,
}

impl Evaluator<Board> for Shaped {
    #[inline]
    fn evaluate(&self, board: &Board) -> f32 {
        self.net.evaluate(board) + self.weight * self.heuristic.evaluate(board)
    }
}

/// A 4x4 board of any type, scored by an evaluator of packed boards: the
/// learned search on boards without a packed form, [`game_core::Grid`]s of
/// size 4 (it rejects other sizes before searching) and boards with a tile
/// past 32768 (which the network then reads clamped to 32768), through
/// the learned values of [`Borrowed`].
pub(super) struct Packed<'a>(pub(super) Borrowed<'a>);

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

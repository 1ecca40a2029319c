//! The learned search, and what a learned value means to it: the score
//! still to come, estimates clamped at 0, a lost board a hair below, the
//! heuristic added, and boards without a packed form read through one.

use std::sync::Arc;

use game_core::{Board, GameBoard, Grid, Rules};

use super::root::{self, Run};
use super::searching::Search;
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use game_core::{Board, GameBoard, Grid, Rules};

    use super::{Borrowed, LEARNED_LOST, Learned, Packed, learned_value};
    use crate::config::{Depth, Preset, SearchConfig};
    use crate::eval::{Evaluator, WeightedEvaluator, Weights};
    use crate::solver::{SharedEvaluator, Solver};
    use crate::table::{Paging, Tables};

    /// A network that values a board by its score-like sum of tiles, minus
    /// an offset: below 0 on small boards, as a network errs near the end.
    struct Offset(f32);

    impl Evaluator<Board> for Offset {
        fn evaluate(&self, board: &Board) -> f32 {
            let mut total = 0.0;
            for r in 0..4 {
                for c in 0..4 {
                    total += board.value(r, c).unwrap_or(0) as f32;
                }
            }
            total - self.0
        }
    }

    fn board(text: &str) -> Board {
        text.parse().expect("a valid board")
    }

    /// The learned search's evaluator counts rewards, clamps estimates at
    /// 0, and makes a lost board a hair below 0 that no sum with a live
    /// value notices; read through a copy, a board of another type gets
    /// the packed board's value.
    #[test]
    fn learned_values_are_clamped_rewards_and_a_lost_board_is_just_below_0() {
        assert_eq!(learned_value(-3.5), 0.0);
        assert_eq!(learned_value(7.25), 7.25);
        let net = Offset(100.0);
        let eval = Borrowed(&net);
        let small = board("2 4 0 0/0 0 0 0/0 0 0 0/0 0 0 0");
        let large = board("64 32 16 0/8 0 0 0/0 0 0 0/0 0 0 2");
        assert_eq!(eval.evaluate(&small), 0.0, "-94 clamped");
        assert_eq!(eval.evaluate(&large), 22.0);
        assert!(eval.rewards());
        assert!(eval.lost_value(&small) < 0.0);
        assert_eq!(1e-12f32 + eval.lost_value(&small), 1e-12);
        assert_eq!(LEARNED_LOST, eval.lost_value(&large));
        let packed = Packed(Borrowed(&net));
        assert!(Evaluator::<Grid>::rewards(&packed));
        assert_eq!(packed.evaluate(&Grid::from(large)), 22.0);
        assert_eq!(packed.lost_value(&Grid::from(large)), LEARNED_LOST);
        // A weighted evaluator ranks boards: it counts no rewards.
        assert!(!Evaluator::<Board>::rewards(&WeightedEvaluator::new(Weights::STANDARD)));
    }

    /// With a weight above 0 the search values a board as the network plus
    /// that weight times the heuristic; with 0 it keeps the network itself.
    #[test]
    fn a_heuristic_weight_adds_the_heuristic_to_the_network() {
        let net: SharedEvaluator = Arc::new(Offset(0.0));
        let tables = || Tables::with_bytes(0, Paging::Lazy);
        let plain = Learned::new(Arc::clone(&net), 0.0, 1e-3, tables());
        assert!(Arc::ptr_eq(&plain.eval, &net));
        let shaped = Learned::new(Arc::clone(&net), 0.5, 1e-3, tables());
        let heuristic = WeightedEvaluator::new(Weights::STANDARD);
        let b = board("64 32 16 0/8 0 0 0/0 0 0 0/0 0 0 2");
        assert_eq!(shaped.eval.evaluate(&b), net.evaluate(&b) + 0.5 * heuristic.evaluate(&b));
    }

    /// A 4x4 board past 32768 has no packed form: the learned search reads
    /// it through a copy and keeps none of its values in the table (whose
    /// keys are packed boards), so a second search of it does the same
    /// work, while a board that packs finds its values there the second
    /// time.
    #[test]
    fn a_board_past_32768_is_searched_without_the_table() {
        let config = SearchConfig { depth: Depth::Fixed(2), threads: 1, ..Preset::Ntuple.config() };
        let solver = Solver::with_evaluator(config, Arc::new(Offset(0.0))).expect("valid");
        let rules = Rules::default();
        let past = board("65536 8 2 0/4 0 0 0/2 0 0 0/0 0 0 0");
        assert!(past.packed().is_none());
        let first = solver.decide(&past, &rules).expect("a move");
        let again = solver.decide(&past, &rules).expect("a move");
        assert!(first.stats.nodes > 0);
        assert_eq!((first.values, first.stats), (again.values, again.stats), "nothing kept");
        let packs = board("16384 8 2 0/4 0 0 0/2 0 0 0/0 0 0 0");
        let first = solver.decide(&packs, &rules).expect("a move");
        let again = solver.decide(&packs, &rules).expect("a move");
        assert_eq!((first.direction, first.values), (again.direction, again.values));
        assert!(again.stats.table_hits > first.stats.table_hits);
    }
}

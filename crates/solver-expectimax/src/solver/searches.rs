//! The searches a solver runs, one type per [`Algorithm`]: made once from
//! the settings by [`build`] (the one place that reads the algorithm), then
//! asked for each decision through [`Search`].

use game_core::{Board, Grid, Rules};

use super::learned::Learned;
use super::root::{self, Run};
use super::searching::{Search, chains};
use super::{Decision, SearchError, SharedEvaluator};
use crate::config::{Algorithm, ConfigError, SearchConfig};
use crate::endgame::{Advice, Endgame};
use crate::eval::{CornerEvaluator, Evaluator, WeightedEvaluator};
use crate::table::{Paging, Tables};

/// The search of `config`'s algorithm, with `learned` as the network of a
/// learned search, and its tables (when it keeps any) within
/// `config.table_bytes`, mapped as `paging` says.
///
/// # Errors
/// [`ConfigError::NoEvaluator`] for a learned search without its network,
/// [`ConfigError::UnusedEvaluator`] for a network given to another search.
pub(super) fn build(
    config: &SearchConfig,
    learned: Option<SharedEvaluator>,
    paging: Paging,
) -> Result<Box<dyn Search>, ConfigError> {
    let tables = || Tables::with_bytes(config.table_bytes, paging);
    Ok(match (config.algorithm, learned) {
        (Algorithm::Tutorial, None) => Box::new(TutorialSearch),
        (Algorithm::Expectimax { weights, prob_cutoff }, None) => Box::new(Expectimax {
            eval: WeightedEvaluator::new(weights),
            cutoff: prob_cutoff,
            tables: tables(),
            endgame: chains,
        }),
        (Algorithm::Learned { prob_cutoff, heuristic }, Some(net)) => {
            Box::new(Learned::new(net, heuristic, prob_cutoff, tables()))
        }
        (Algorithm::Corner { prob_cutoff }, None) => Box::new(Expectimax {
            eval: CornerEvaluator::new(),
            cutoff: prob_cutoff,
            tables: tables(),
            endgame: Endgame::corner_move,
        }),
        (Algorithm::Learned { .. }, None) => return Err(ConfigError::NoEvaluator),
        (_, Some(_)) => return Err(ConfigError::UnusedEvaluator),
    })
}

/// The Java tutorial's search ([`Algorithm::Tutorial`]): it keeps nothing
/// (its memos live per decision).
struct TutorialSearch;

impl Search for TutorialSearch {
    fn decide_board(
        &self,
        run: &Run<'_>,
        board: &Board,
        rules: &Rules,
    ) -> Result<Decision, SearchError> {
        root::tutorial(run, board, rules)
    }

    fn decide_grid(
        &self,
        run: &Run<'_>,
        board: &Grid,
        rules: &Rules,
    ) -> Result<Decision, SearchError> {
        root::tutorial(run, board, rules)
    }
}

/// The expectimax over a heuristic evaluator that scores boards of any
/// type ([`Algorithm::Expectimax`]'s weighted one, [`Algorithm::Corner`]'s
/// corner one).
struct Expectimax<E> {
    /// The evaluator, with its row table.
    eval: E,
    /// The probability below which a branch is scored, not searched.
    cutoff: f32,
    tables: Tables,
    /// The advice of the endgame tables it plays by.
    endgame: fn(&Endgame, Board) -> Option<Advice>,
}

impl<E: Evaluator<Board> + Evaluator<Grid>> Search for Expectimax<E> {
    fn decide_board(
        &self,
        run: &Run<'_>,
        board: &Board,
        rules: &Rules,
    ) -> Result<Decision, SearchError> {
        root::expectimax(run, board, rules, &self.eval, self.cutoff, Some(&self.tables))
    }

    fn decide_grid(
        &self,
        run: &Run<'_>,
        board: &Grid,
        rules: &Rules,
    ) -> Result<Decision, SearchError> {
        root::expectimax(run, board, rules, &self.eval, self.cutoff, Some(&self.tables))
    }

    fn tables(&self) -> Option<&Tables> {
        Some(&self.tables)
    }

    fn endgame_advice(&self, tables: &Endgame, board: Board) -> Option<Advice> {
        (self.endgame)(tables, board)
    }
}

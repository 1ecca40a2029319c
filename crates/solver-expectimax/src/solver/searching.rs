//! What the front asks of a search: the [`Search`] trait, which each
//! algorithm's search implements (`searches.rs`, `learned.rs`), and the
//! endgame advice a search plays by unless it says otherwise.

use game_core::{Board, Grid, Rules};

use super::root::Run;
use super::{Decision, ENDGAME_MIN_HEAD, SearchError};
use crate::endgame::{Advice, Endgame};
use crate::table::Tables;

/// One algorithm's search, with what it keeps between decisions. The front
/// ([`super::Solver`]) hands it a [`Board`] or a [`Grid`], so that the
/// search is compiled here for those two, whichever crate calls and with
/// whatever board type.
pub(super) trait Search: Send + Sync {
    /// The decision for a 4x4 board.
    fn decide_board(
        &self,
        run: &Run<'_>,
        board: &Board,
        rules: &Rules,
    ) -> Result<Decision, SearchError>;

    /// The decision for a board of another size.
    fn decide_grid(
        &self,
        run: &Run<'_>,
        board: &Grid,
        rules: &Rules,
    ) -> Result<Decision, SearchError>;

    /// The transposition tables it keeps, if any.
    fn tables(&self) -> Option<&Tables> {
        None
    }

    /// The endgame tables' advice for `board` that this search plays by:
    /// by default the chains' ([`chains`]). (Each search plays by the
    /// tables it was measured with: docs/endgame.md.)
    fn endgame_advice(&self, tables: &Endgame, board: Board) -> Option<Advice> {
        chains(tables, board)
    }
}

/// The advice of the chains from a head of at least [`ENDGAME_MIN_HEAD`].
pub(super) fn chains(tables: &Endgame, board: Board) -> Option<Advice> {
    tables.advise(board, ENDGAME_MIN_HEAD)
}

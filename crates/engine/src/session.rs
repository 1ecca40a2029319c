//! A game played by a person: the moves, a bounded undo history and
//! whether 2048 was reached.

use std::collections::VecDeque;
use std::fmt;

use game_core::{Direction, Game, GameBoard, PlayError, Tile, Turn};

/// A move played in a [`Session`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Played {
    /// The turn: the direction, the score gained and the spawned tile.
    pub turn: Turn,
    /// Whether this move made the game's first [`Tile::WIN`] (2048); play
    /// goes on after it.
    pub won: bool,
}

/// [`Session::undo`] with no move to undo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NothingToUndo;

impl fmt::Display for NothingToUndo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("there is no move to undo")
    }
}

impl std::error::Error for NothingToUndo {}

/// A game with the positions before its last moves (at most `max_undo` of
/// them: the oldest go first) and the last move's turn.
#[derive(Debug, Clone)]
pub struct Session<B: GameBoard> {
    game: Game<B>,
    history: VecDeque<Game<B>>,
    max_undo: usize,
    last_turn: Option<Turn>,
}

impl<B: GameBoard> Session<B> {
    /// A session of `game` that can undo up to `max_undo` moves (0: none).
    pub fn new(game: Game<B>, max_undo: usize) -> Session<B> {
        Session { game, history: VecDeque::new(), max_undo, last_turn: None }
    }

    /// The game as it stands.
    pub fn game(&self) -> &Game<B> {
        &self.game
    }

    /// The last move's turn; `None` after an undo or before any move.
    pub fn last_turn(&self) -> Option<&Turn> {
        self.last_turn.as_ref()
    }

    /// Whether a move can be undone.
    pub fn can_undo(&self) -> bool {
        !self.history.is_empty()
    }

    /// The positions an undo goes back to, oldest first.
    pub fn history(&self) -> impl ExactSizeIterator<Item = &Game<B>> {
        self.history.iter()
    }

    /// Keeps `earlier` as the newest position an undo returns to, dropping
    /// the oldest beyond `max_undo`: a saved history is restored by pushing
    /// its positions oldest first.
    pub fn push_history(&mut self, earlier: Game<B>) {
        if self.max_undo == 0 {
            return;
        }
        if self.history.len() >= self.max_undo {
            self.history.pop_front();
        }
        self.history.push_back(earlier);
    }

    /// Plays `dir`, keeping the position before it for undo.
    ///
    /// # Errors
    /// As [`Game::play`]: the game is over, or `dir` moves nothing. The
    /// session is unchanged.
    pub fn play(&mut self, dir: Direction) -> Result<Played, PlayError> {
        let before = self.game.clone();
        let turn = self.game.play(dir)?;
        let win = Some(Tile::WIN);
        let won = before.board().max_tile() < win && self.game.board().max_tile() >= win;
        self.push_history(before);
        self.last_turn = Some(turn);
        Ok(Played { turn, won })
    }

    /// Goes back to the position before the last move kept.
    ///
    /// # Errors
    /// [`NothingToUndo`] when no move is kept; the session is unchanged.
    pub fn undo(&mut self) -> Result<(), NothingToUndo> {
        self.game = self.history.pop_back().ok_or(NothingToUndo)?;
        self.last_turn = None;
        Ok(())
    }

    /// Starts `game` in place of this one, with no history; returns the
    /// game left.
    pub fn replace(&mut self, game: Game<B>) -> Game<B> {
        self.history.clear();
        self.last_turn = None;
        std::mem::replace(&mut self.game, game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game_core::{Board, Rules};

    /// A position as the tests compare it (a game has no equality: its
    /// spawn stream is not comparable).
    fn at(game: &Game<Board>) -> (Board, u64, u64) {
        (*game.board(), game.score(), game.moves())
    }

    fn session(board: &str, max_undo: usize) -> Session<Board> {
        let board: Board = board.parse().unwrap();
        Session::new(Game::from_board(board, Rules::default(), 7), max_undo)
    }

    #[test]
    fn undo_goes_back_move_by_move_and_says_when_it_cannot() {
        let mut s = session("2 2 0 0/0 0 0 0/0 0 0 0/0 0 0 0", 10);
        assert_eq!(s.undo(), Err(NothingToUndo));
        let start = at(s.game());
        let played = s.play(Direction::Left).unwrap();
        assert_eq!(played.turn.score_gained, 4);
        assert!(!played.won);
        assert_eq!(s.last_turn(), Some(&played.turn));
        let after_one = at(s.game());
        s.play(Direction::Down).unwrap();
        s.undo().unwrap();
        assert_eq!(at(s.game()), after_one);
        assert_eq!(s.last_turn(), None);
        s.undo().unwrap();
        assert_eq!(at(s.game()), start);
        assert!(!s.can_undo());
    }

    #[test]
    fn the_history_keeps_the_newest_positions_only() {
        let mut s = session("2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0", 2);
        let mut positions = vec![at(s.game())];
        for dir in [Direction::Right, Direction::Left, Direction::Right, Direction::Left] {
            if s.play(dir).is_ok() {
                positions.push(at(s.game()));
            }
        }
        assert_eq!(s.history().len(), 2);
        let n = positions.len();
        assert!(s.history().map(at).eq(positions[n - 3..n - 1].iter().copied()));
        let mut none = session("2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0", 0);
        none.play(Direction::Right).unwrap();
        assert_eq!(none.undo(), Err(NothingToUndo));
    }

    #[test]
    fn the_first_2048_is_a_win_once() {
        let mut s = session("1024 1024 0 0/0 0 0 0/0 0 0 0/0 0 0 0", 4);
        assert!(s.play(Direction::Left).unwrap().won);
        let again = s.play(Direction::Right).unwrap();
        assert!(!again.won, "a game already past 2048 does not win again");
    }

    #[test]
    fn a_refused_move_changes_nothing() {
        let mut s = session("2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0", 4);
        let before = at(s.game());
        assert_eq!(s.play(Direction::Left), Err(PlayError::NothingMoves(Direction::Left)));
        assert_eq!(at(s.game()), before);
        assert!(!s.can_undo());
    }
}

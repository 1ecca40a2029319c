//! A position of a game as the server keeps it, in the games file and in
//! the API's `position`, which the page keeps to bring a game back.

use game_core::{Board, Game, ParseBoardError, ParseErrorKind, Rules, SavedGame, SizeError};
use serde::{Deserialize, Serialize};

/// The largest seed: JavaScript numbers are exact up to 2^53 - 1, and a
/// seed the page cannot show exactly is a seed nobody can replay.
pub(crate) const MAX_SEED: u64 = (1 << 53) - 1;

/// One position of a game, enough to play on from it exactly: in the games
/// file, and in the API (`position`), which the page keeps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StoredPosition {
    /// game-core's one-line notation.
    pub(crate) board: String,
    pub(crate) score: u64,
    pub(crate) moves: u64,
    pub(crate) seed: u64,
    /// The spawn stream's state (`GameRng::state`), 96 hex digits.
    pub(crate) spawns: String,
}

impl StoredPosition {
    pub(crate) fn of(game: &Game<Board>) -> StoredPosition {
        let saved = game.save();
        StoredPosition {
            board: saved.board.to_string(),
            score: saved.score,
            moves: saved.moves,
            seed: saved.seed,
            spawns: saved.spawns.iter().map(|b| format!("{b:02x}")).collect(),
        }
    }

    pub(crate) fn game(&self) -> Result<Game<Board>, String> {
        // Counts a game can reach (and JavaScript holds exactly): a larger
        // one would overflow as the game goes on.
        for (name, v) in [("score", self.score), ("moves", self.moves), ("seed", self.seed)] {
            if v > MAX_SEED {
                return Err(format!("{name} {v} is above 2^53 - 1"));
            }
        }
        let board: Board = self.board.parse().map_err(|e: ParseBoardError| match e.kind() {
            // game-core's message names its own types ("use Grid").
            ParseErrorKind::Size(SizeError::NotPacked { size }) => {
                format!("its board is {size}x{size}, and this game is played on 4x4")
            }
            _ => format!("its board does not read: {e}"),
        })?;
        let bytes: Vec<u8> = (0..self.spawns.len())
            .step_by(2)
            .map(|i| self.spawns.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
            .collect::<Option<Vec<u8>>>()
            .ok_or("bad spawn state")?;
        let spawns: [u8; 48] = bytes.try_into().map_err(|_| "bad spawn state")?;
        let saved =
            SavedGame { board, score: self.score, moves: self.moves, seed: self.seed, spawns };
        Ok(Game::restore(saved, Rules::default()))
    }
}

//! The games in memory: a bounded map from session id to game, with undo
//! history, forgotten after an idle time.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use game_core::{Board, Direction, Game, PlayError, Rules, Turn};
use serde::{Deserialize, Serialize};

use crate::Limits;
use crate::error::ApiError;
use crate::stored::StoredPosition;
use crate::wire::{GameState, LastMove};

/// One game and what the page needs around it.
#[derive(Debug)]
pub(crate) struct Session {
    /// The game and the positions before its last moves (at most the
    /// server's `max_undo`). `Game` carries its spawn stream, so a move
    /// undone and played again spawns the same tile.
    play: engine::Session<Board>,
    pub(crate) keep_going: bool,
    last_seen: Instant,
    /// Bumped whenever an autoplay starts: an older autoplay of this game
    /// sees the change and stops.
    pub(crate) autoplay: u64,
}

impl Session {
    fn new(game: Game<Board>, max_undo: usize) -> Session {
        Session {
            play: engine::Session::new(game, max_undo),
            keep_going: false,
            last_seen: Instant::now(),
            autoplay: 0,
        }
    }

    /// What the page draws.
    pub(crate) fn state(&self, id: &str) -> GameState {
        let last_move = self.play.last_turn().map(|turn| LastMove::of(turn, 4));
        GameState::of(id, self.game(), self.keep_going, self.play.can_undo(), last_move)
    }

    /// The game as it stands.
    pub(crate) fn game(&self) -> &Game<Board> {
        self.play.game()
    }

    /// Plays `dir` (game-core's rules decide), keeping the game before it
    /// for undo.
    pub(crate) fn play(&mut self, dir: Direction) -> Result<Turn, ApiError> {
        let played = self.play.play(dir).map_err(|err| {
            let code = match err {
                PlayError::GameOver => "game_over",
                _ => "nothing_moves",
            };
            ApiError::new(StatusCode::CONFLICT, code, err.to_string())
        })?;
        Ok(played.turn)
    }

    /// Goes back one move.
    pub(crate) fn undo(&mut self) -> Result<(), ApiError> {
        self.play
            .undo()
            .map_err(|err| ApiError::new(StatusCode::CONFLICT, "nothing_to_undo", err.to_string()))
    }
}

/// The bounded store of sessions.
#[derive(Debug)]
pub(crate) struct Sessions {
    inner: Mutex<Inner>,
    max_sessions: usize,
    idle: Duration,
    /// Undo steps kept per game (`Limits::max_undo`), also for games read
    /// back from the games file.
    max_undo: usize,
}

#[derive(Debug)]
struct Inner {
    map: HashMap<String, Session>,
}

impl Sessions {
    pub(crate) fn new(limits: &Limits) -> Sessions {
        Sessions {
            inner: Mutex::new(Inner { map: HashMap::new() }),
            max_sessions: limits.max_sessions.max(1),
            idle: limits.idle,
            max_undo: limits.max_undo,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Nothing panics while holding the lock; if something ever did, the
        // map is still a valid map.
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A new game from `seed` (checked by `wire::seed`; `None`: one from the
    /// clock), stored under a fresh
    /// id. Expired games go first; if the store is still full, the game idle
    /// longest makes room.
    pub(crate) fn create(&self, seed: Option<u64>) -> Result<GameState, ApiError> {
        let seed = seed.unwrap_or_else(engine::clock_seed);
        self.insert(Game::new(Rules::default(), seed), false)
    }

    /// A new session playing on from `position` (a game's `position` as the
    /// API gave it: the page keeps it to bring a game back that the server
    /// no longer has).
    pub(crate) fn restore(
        &self,
        position: &StoredPosition,
        keep_going: bool,
    ) -> Result<GameState, ApiError> {
        let game = position.game().map_err(|why| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "bad_position",
                format!("the game to restore is not one this server can play on: {why}"),
            )
        })?;
        self.insert(game, keep_going)
    }

    /// Stores `game` under a new id, making room first.
    fn insert(&self, game: Game<Board>, keep_going: bool) -> Result<GameState, ApiError> {
        let mut inner = self.lock();
        let idle = self.idle;
        inner.map.retain(|_, session| session.last_seen.elapsed() <= idle);
        while inner.map.len() >= self.max_sessions {
            let oldest =
                inner.map.iter().min_by_key(|(_, s)| s.last_seen).map(|(id, _)| id.clone());
            match oldest {
                Some(id) => inner.map.remove(&id),
                None => break,
            };
        }
        let id = loop {
            let id = session_id()?;
            if !inner.map.contains_key(&id) {
                break id;
            }
        };
        let mut session = Session::new(game, self.max_undo);
        session.keep_going = keep_going;
        let state = session.state(&id);
        inner.map.insert(id, session);
        Ok(state)
    }

    /// Runs `f` on the session `id` (if it exists and has not expired),
    /// under the store's lock: keep `f` short, never search in it.
    pub(crate) fn with<R>(
        &self,
        id: &str,
        f: impl FnOnce(&mut Session) -> Result<R, ApiError>,
    ) -> Result<R, ApiError> {
        let mut inner = self.lock();
        let expired = match inner.map.get(id) {
            None => return Err(ApiError::unknown_game()),
            Some(session) => session.last_seen.elapsed() > self.idle,
        };
        if expired {
            inner.map.remove(id);
            return Err(ApiError::unknown_game());
        }
        let session = inner.map.get_mut(id).ok_or_else(ApiError::unknown_game)?;
        session.last_seen = Instant::now();
        f(session)
    }

    /// Every game not yet expired, as it would be stored on disk, with the
    /// last [`STORED_UNDO`] moves of its undo history.
    pub(crate) fn export(&self) -> Vec<StoredGame> {
        let inner = self.lock();
        inner
            .map
            .iter()
            .filter(|(_, s)| s.last_seen.elapsed() <= self.idle)
            .map(|(id, session)| {
                let StoredPosition { board, score, moves, seed, spawns } =
                    StoredPosition::of(session.game());
                let skip = session.play.history().len().saturating_sub(STORED_UNDO);
                StoredGame {
                    id: id.clone(),
                    board,
                    score,
                    moves,
                    seed,
                    spawns,
                    keep_going: session.keep_going,
                    idle_ms: u64::try_from(session.last_seen.elapsed().as_millis())
                        .unwrap_or(u64::MAX),
                    history: session.play.history().skip(skip).map(StoredPosition::of).collect(),
                }
            })
            .collect()
    }

    /// Puts stored games back (those idle longer than the limit are
    /// dropped, and at most `max_sessions` kept); how many came back, or
    /// what is wrong with the first bad one.
    pub(crate) fn import(&self, games: Vec<StoredGame>) -> Result<usize, String> {
        let mut restored = Vec::new();
        for g in games {
            let idle = Duration::from_millis(g.idle_ms);
            if idle > self.idle {
                continue;
            }
            let now = StoredPosition {
                board: g.board,
                score: g.score,
                moves: g.moves,
                seed: g.seed,
                spawns: g.spawns,
            };
            let game = now.game().map_err(|e| format!("game {}: {e}", g.id))?;
            let mut session = Session::new(game, self.max_undo);
            // The newest steps, as many as this server keeps.
            let skip = g.history.len().saturating_sub(self.max_undo);
            for earlier in g.history.iter().skip(skip) {
                let game =
                    earlier.game().map_err(|e| format!("game {}: undo history: {e}", g.id))?;
                session.play.push_history(game);
            }
            session.keep_going = g.keep_going;
            session.last_seen = Instant::now().checked_sub(idle).unwrap_or_else(Instant::now);
            restored.push((g.id, session));
        }
        restored.sort_by_key(|(_, s)| std::cmp::Reverse(s.last_seen));
        restored.truncate(self.max_sessions);
        let n = restored.len();
        self.lock().map.extend(restored);
        Ok(n)
    }

    /// Forgets the session `id`; false if there was none.
    pub(crate) fn remove(&self, id: &str) -> bool {
        self.lock().map.remove(id).is_some()
    }
}

/// The undo steps of a game kept in the games file: the most recent ones.
/// Why not all 4,096 a game may hold: 256 games of them would make a file
/// of about 200 MB, written every minute; 64 keep it near 3 MB.
pub(crate) const STORED_UNDO: usize = 64;

/// A game as the server stores it on disk between runs: where it stands
/// (the fields of a [`StoredPosition`]), and the positions undo goes back
/// to, oldest first (absent in files written before they were kept).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StoredGame {
    id: String,
    /// game-core's one-line notation.
    board: String,
    score: u64,
    moves: u64,
    seed: u64,
    /// The spawn stream's state (`GameRng::state`), 96 hex digits.
    spawns: String,
    keep_going: bool,
    /// How long the game had been idle when it was stored.
    idle_ms: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    history: Vec<StoredPosition>,
}

/// A new session id: 128 bits from the operating system's randomness, so
/// that nobody can guess another player's game (ids made by a generator
/// seeded from the clock and the process id could be).
fn session_id() -> Result<String, ApiError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|err| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "no_randomness",
            format!("the system's random source failed: {err}"),
        )
    })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

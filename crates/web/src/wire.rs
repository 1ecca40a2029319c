//! The JSON the API reads and writes (described in `docs/web.md`).

use std::str::FromStr;

use axum::http::StatusCode;
use engine::Values;
use engine::{Decision, Preset};
use game_core::{Board, Direction, Game, GameBoard, Tile, Turn, exponent_to_value};
use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use crate::stored::{MAX_SEED, StoredPosition};

/// `POST /api/games`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NewGame {
    /// Any JSON value: [`seed`] says what is wrong with a bad one in the
    /// API's words rather than serde's ("invalid value: integer `-5`,
    /// expected u64 at line 1 column 10").
    pub(crate) seed: Option<serde_json::Value>,
    /// A game's `position`, to play on from it instead of a new game.
    pub(crate) restore: Option<serde_json::Value>,
    /// With `restore`: whether the player chose to keep going past 2048.
    pub(crate) keep_going: Option<bool>,
}

/// `POST /api/games/{id}/move`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MoveRequest {
    pub(crate) direction: String,
}

/// `POST /api/games/{id}/hint`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct HintRequest {
    pub(crate) preset: Option<String>,
}

/// `GET /api/games/{id}/autoplay?preset=..&delay_ms=..`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AutoplayQuery {
    pub(crate) preset: Option<String>,
    pub(crate) delay_ms: Option<u64>,
}

/// The preset named, or `default` when none is.
pub(crate) fn preset(name: Option<&str>, default: Preset) -> Result<Preset, ApiError> {
    match name {
        None => Ok(default),
        Some(name) => Preset::from_str(name).map_err(|err| {
            ApiError::new(StatusCode::BAD_REQUEST, "unknown_preset", err.to_string())
        }),
    }
}

/// The seed of a new game: absent or null for one from the clock, else a
/// whole number from 0 to [`MAX_SEED`].
pub(crate) fn seed(value: Option<&serde_json::Value>) -> Result<Option<u64>, ApiError> {
    match value {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(v) => v.as_u64().filter(|&s| s <= MAX_SEED).map(Some).ok_or_else(|| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "bad_seed",
                format!("the seed must be a whole number from 0 to {MAX_SEED} (2^53 - 1), not {v}"),
            )
        }),
    }
}

/// A direction named in a request.
pub(crate) fn direction(name: &str) -> Result<Direction, ApiError> {
    Direction::from_str(name).map_err(|err| {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "bad_direction", err.to_string())
    })
}

/// A spawned tile.
#[derive(Debug, Serialize)]
pub(crate) struct Spawn {
    row: usize,
    col: usize,
    value: u32,
}

/// The last move played, so the page can mark the new tile.
#[derive(Debug, Serialize)]
pub(crate) struct LastMove {
    direction: &'static str,
    score_gained: u32,
    spawned: Option<Spawn>,
}

impl LastMove {
    pub(crate) fn of(turn: &Turn, size: usize) -> LastMove {
        LastMove {
            direction: turn.direction.name(),
            score_gained: turn.score_gained,
            spawned: turn.spawned.map(|(idx, exponent)| Spawn {
                row: idx / size,
                col: idx % size,
                value: exponent_to_value(exponent),
            }),
        }
    }
}

/// A game as the page sees it: everything it draws.
#[derive(Debug, Serialize)]
pub(crate) struct GameState {
    pub(crate) id: String,
    pub(crate) seed: u64,
    /// Tile values by row, 0 for an empty cell.
    pub(crate) board: Vec<Vec<u32>>,
    pub(crate) score: u64,
    pub(crate) moves: u64,
    pub(crate) max_tile: u32,
    /// The directions that change the board, in `up, down, left, right`
    /// order.
    pub(crate) legal: Vec<&'static str>,
    pub(crate) over: bool,
    /// Whether the board holds a 2048 or more.
    pub(crate) won: bool,
    /// Whether the player chose to keep going after reaching 2048.
    pub(crate) keep_going: bool,
    pub(crate) can_undo: bool,
    pub(crate) last_move: Option<LastMove>,
    /// Where the game stands, spawn stream included: `POST /api/games`
    /// with `{"restore": position}` plays on from it exactly.
    pub(crate) position: StoredPosition,
}

impl GameState {
    pub(crate) fn of(
        id: &str,
        game: &Game<Board>,
        keep_going: bool,
        can_undo: bool,
        last_move: Option<LastMove>,
    ) -> GameState {
        let board = game.board();
        let n = board.size();
        let rows =
            (0..n).map(|r| (0..n).map(|c| board.value(r, c).unwrap_or(0)).collect()).collect();
        GameState {
            id: id.to_owned(),
            seed: game.seed(),
            board: rows,
            score: game.score(),
            moves: game.moves(),
            max_tile: board.max_tile().map_or(0, Tile::value),
            legal: board.legal_directions().iter().map(Direction::name).collect(),
            over: game.is_over(),
            won: board.max_tile() >= Some(Tile::WIN),
            keep_going,
            can_undo,
            last_move,
            position: StoredPosition::of(game),
        }
    }
}

/// The solver's choice for a board.
#[derive(Debug, Serialize)]
pub(crate) struct Hint {
    pub(crate) preset: &'static str,
    pub(crate) direction: &'static str,
    pub(crate) values: Values,
    /// How much worse each direction is than the best, 0 to 1
    /// ([`Values::shortfall`]): what the page shows of a search's values.
    pub(crate) shortfall: Values,
    pub(crate) depth: u32,
    pub(crate) elapsed_ms: u64,
    /// The endgame table that decided (its values are then odds, 0 to 1),
    /// or null when the search did.
    pub(crate) endgame: Option<String>,
    /// With `endgame`: the tile whose odds the values are (the table's
    /// goal).
    pub(crate) goal: Option<u32>,
}

impl Hint {
    pub(crate) fn of(preset: Preset, decision: &Decision) -> Hint {
        let values = Values::of(Some(decision));
        Hint {
            preset: preset.name(),
            direction: decision.direction.name(),
            values,
            shortfall: values.shortfall(),
            depth: decision.depth,
            elapsed_ms: u64::try_from(decision.elapsed.as_millis()).unwrap_or(u64::MAX),
            endgame: decision.endgame.map(|f| f.to_string()),
            goal: decision.endgame.map(|f| exponent_to_value(f.goal())),
        }
    }
}

/// One preset in `GET /api/presets`.
#[derive(Debug, Serialize)]
pub(crate) struct PresetInfo {
    pub(crate) name: &'static str,
    pub(crate) learned: bool,
    /// False for a preset this server cannot build: a learned one whose
    /// weights file is missing, one without the tables it plays by.
    pub(crate) available: bool,
    /// What an unavailable preset lacks: `weights` or `tables`.
    pub(crate) missing: Option<&'static str>,
    /// Why it is unavailable, a sentence for people (the message of the
    /// error a request for it gets).
    pub(crate) reason: Option<String>,
}

/// `GET /api/presets`.
#[derive(Debug, Serialize)]
pub(crate) struct Presets {
    pub(crate) presets: Vec<PresetInfo>,
    pub(crate) default: &'static str,
    pub(crate) search_budget_ms: u64,
}

/// `GET /api/tables` and `POST /api/tables/build`: where the corner
/// preset's tables stand.
#[derive(Debug, Serialize)]
pub(crate) struct TablesState {
    /// `missing`, `building`, `built`, `failed` or `unavailable` (the
    /// server keeps no tables folder).
    pub(crate) state: &'static str,
    /// A sentence for people: what the tables give and cost, the progress,
    /// or why the build failed.
    pub(crate) message: String,
    /// The bytes of the tables' files.
    pub(crate) bytes: u64,
    /// About how long a build takes, in seconds.
    pub(crate) seconds: u64,
    /// States built so far, of `total`.
    pub(crate) done: u64,
    pub(crate) total: u64,
    /// The time left at the build's pace so far, once known.
    pub(crate) seconds_left: Option<u64>,
}

/// An autoplay `move` event: the state after the move, and the decision
/// that chose it.
#[derive(Debug, Serialize)]
pub(crate) struct AutoplayMove {
    pub(crate) state: GameState,
    pub(crate) hint: Hint,
}

/// The autoplay `end` event.
#[derive(Debug, Serialize)]
pub(crate) struct AutoplayEnd {
    /// `over`, `won`, `superseded` (another autoplay or a new game took
    /// over) or `error`.
    pub(crate) reason: &'static str,
    pub(crate) message: Option<String>,
    /// With `error`: the error's code, as the API's errors name it
    /// (`unknown_game` when the server forgot the game meanwhile).
    pub(crate) code: Option<&'static str>,
    pub(crate) state: Option<GameState>,
}

#[cfg(test)]
mod tests {
    use game_core::Rules;

    use super::*;

    #[test]
    fn a_board_with_2048_is_won_and_the_flag_to_keep_going_is_shown() {
        let board: Board = "2048 2 0 0/0 0 0 0/0 0 0 0/0 0 0 4".parse().unwrap();
        let game = Game::from_board(board, Rules::default(), 1);
        let state = GameState::of("x", &game, false, false, None);
        assert!(state.won && !state.over && !state.keep_going);
        assert_eq!(state.max_tile, 2048);
        assert_eq!(state.board[0], [2048, 2, 0, 0]);
        assert!(GameState::of("x", &game, true, false, None).keep_going);
        let below: Board = "1024 1024 0 0/0 0 0 0/0 0 0 0/0 0 0 0".parse().unwrap();
        let game = Game::from_board(below, Rules::default(), 1);
        assert!(!GameState::of("x", &game, false, false, None).won);
    }

    /// Tiles past 32768 reach the page as their values, and two 32768 merge
    /// into 65536 in a played turn: the 4-bit cells of the packed board
    /// stop at 32768, and the page must not show a capped or wrapped tile.
    #[test]
    fn tiles_past_32768_are_sent_as_they_are() {
        let board: Board = "32768 32768 0 0/131072 0 0 0/0 0 0 0/0 0 0 2".parse().unwrap();
        let mut game = Game::from_board(board, Rules::default(), 1);
        let turn = game.play(Direction::Left).unwrap();
        assert_eq!(turn.score_gained, 65536);
        let state = GameState::of("x", &game, true, false, None);
        assert_eq!(state.board[0][0], 65536);
        assert_eq!(state.board[1][0], 131072);
        assert_eq!(state.max_tile, 131072);
        let json = serde_json::to_string(&state).unwrap();
        assert!(json.contains("[65536,") && json.contains("[131072,"), "{json}");
    }

    /// A hint decided by an endgame table names it, and its values are
    /// odds; a searched one says null.
    #[test]
    fn a_hint_says_when_an_endgame_table_decided() {
        use engine::endgame::{Check, Formation};
        let formation = Formation::new(10, 5).unwrap();
        let dir = std::env::temp_dir().join(format!("web-hint-tables-{}", std::process::id()));
        let tables = engine::open_tables(&dir, &[formation], Check::Stamped, &|_| {}).unwrap();
        let solver = engine::SolverSpec::new(Preset::Fast)
            .with_table_cap(1 << 20)
            .with_endgame(Some(tables))
            .build(4)
            .unwrap();
        let board: Board =
            "16384 8192 4096 2048/128 256 512 1024/64 32 0 0/0 2 0 0".parse().unwrap();
        let hint = Hint::of(Preset::Fast, &solver.decide(&board, &Rules::default()).unwrap());
        let json = serde_json::to_value(&hint).unwrap();
        assert_eq!(json["endgame"], "chain of 10 ending in 32", "{json}");
        assert_eq!(json["goal"], 32, "{json}");
        assert_eq!(json["depth"], 0);
        let odds: Vec<f64> =
            json["values"].as_object().unwrap().values().filter_map(|v| v.as_f64()).collect();
        assert!(!odds.is_empty() && odds.iter().all(|p| (0.0..=1.0).contains(p)), "{json}");
        let early: Board = "2 2 0 0/0 4 0 0/0 0 0 0/0 0 0 2".parse().unwrap();
        let hint = Hint::of(Preset::Fast, &solver.decide(&early, &Rules::default()).unwrap());
        let json = serde_json::to_value(&hint).unwrap();
        assert_eq!(json["endgame"], serde_json::Value::Null);
        assert_eq!(json["goal"], serde_json::Value::Null);
        drop(solver);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A hint rates each direction by how much worse it is than the best
    /// (0 for the chosen one), beside the raw values it keeps: raw values
    /// alone are huge and negative on late boards, and say nothing to a
    /// player.
    #[test]
    fn a_hint_rates_each_direction_against_the_best() {
        let solver =
            engine::SolverSpec::new(Preset::Fast).with_table_cap(1 << 20).build(4).unwrap();
        let board: Board = "2 2 0 0/0 4 0 0/0 0 0 0/0 0 0 2".parse().unwrap();
        let hint = Hint::of(Preset::Fast, &solver.decide(&board, &Rules::default()).unwrap());
        let json = serde_json::to_value(&hint).unwrap();
        assert_eq!(json["shortfall"][json["direction"].as_str().unwrap()], 0, "{json}");
        for dir in ["up", "down", "left", "right"] {
            let (value, shortfall) = (&json["values"][dir], &json["shortfall"][dir]);
            assert_eq!(value.is_null(), shortfall.is_null(), "{json}");
            if let Some(s) = shortfall.as_f64() {
                assert!((0.0..=1.0).contains(&s), "{json}");
            }
        }
    }
}

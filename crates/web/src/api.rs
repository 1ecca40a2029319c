//! The routes: the page and its assets, the JSON API and the autoplay
//! stream.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use engine::Preset;
use game_core::Board;
use serde::Serialize;
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;

use crate::AppState;
use crate::error::{ApiError, ApiPath, ApiQuery, Body};
use crate::wire::{
    self, AutoplayEnd, AutoplayMove, AutoplayQuery, GameState, Hint, HintRequest, MoveRequest,
    NewGame, PresetInfo, Presets, TablesState,
};

type App = State<Arc<AppState>>;

/// The whole application: the page, the API and the autoplay stream, with
/// the request body limit of `state`'s [`crate::Limits`].
pub fn router(state: Arc<AppState>) -> Router {
    let body_limit = state.limits.max_body_bytes;
    Router::new()
        .route("/", get(index))
        .route("/app.js", get(app_js))
        .route("/style.css", get(style_css))
        .route("/api/presets", get(presets))
        .route("/api/tables", get(tables))
        .route("/api/tables/build", post(build_tables))
        .route("/api/games", post(new_game))
        .route("/api/games/{id}", get(show).delete(remove))
        .route("/api/games/{id}/move", post(play))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/keep-going", post(keep_going))
        .route("/api/games/{id}/hint", post(hint))
        .route("/api/games/{id}/autoplay", get(autoplay))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&state), crate::guard::guard))
        .with_state(state)
}

/// An embedded asset, always revalidated: the binary is the only version.
fn asset(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type), (header::CACHE_CONTROL, "no-cache")], body)
        .into_response()
}

async fn index() -> Html<&'static str> {
    Html(include_str!("../assets/index.html"))
}

async fn app_js() -> Response {
    asset("text/javascript; charset=utf-8", include_str!("../assets/app.js"))
}

async fn style_css() -> Response {
    asset("text/css; charset=utf-8", include_str!("../assets/style.css"))
}

async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such route")
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed", "method not allowed here")
}

async fn presets(State(app): App) -> Json<Presets> {
    let presets = Preset::ALL
        .into_iter()
        .map(|preset| {
            let missing = app.searcher.missing(preset);
            PresetInfo {
                name: preset.name(),
                learned: preset.is_learned(),
                available: missing.is_none(),
                missing: missing.map(|m| m.name()),
                reason: missing.map(|m| app.searcher.unavailable(preset, m).message),
            }
        })
        .collect();
    let budget = u64::try_from(app.searcher.budget().as_millis()).unwrap_or(u64::MAX);
    Json(Presets {
        presets,
        default: app.searcher.default_preset().name(),
        search_budget_ms: budget,
    })
}

async fn tables(State(app): App) -> Json<TablesState> {
    Json(app.searcher.tables())
}

/// Starts the corner tables' build in the background; the page polls
/// `GET /api/tables` for its progress.
async fn build_tables(State(app): App) -> Result<Response, ApiError> {
    let state = app.searcher.start_build()?;
    Ok((StatusCode::ACCEPTED, Json(state)).into_response())
}

async fn new_game(State(app): App, Body(req): Body<NewGame>) -> Result<Response, ApiError> {
    let state = match req.restore {
        None => {
            if req.keep_going.is_some() {
                return Err(ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "bad_field",
                    "keep_going goes with restore",
                ));
            }
            app.sessions.create(wire::seed(req.seed.as_ref())?)?
        }
        Some(position) => {
            if req.seed.is_some() {
                return Err(ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "bad_field",
                    "give a seed or a game to restore, not both",
                ));
            }
            let position = serde_json::from_value(position).map_err(|_| {
                ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "bad_position",
                    "restore takes a game's position as the API gave it \
                     (board, score, moves, seed, spawns)",
                )
            })?;
            app.sessions.restore(&position, req.keep_going.unwrap_or(false))?
        }
    };
    Ok((StatusCode::CREATED, Json(state)).into_response())
}

async fn show(State(app): App, ApiPath(id): ApiPath<String>) -> Result<Json<GameState>, ApiError> {
    app.sessions.with(&id, |session| Ok(Json(session.state(&id))))
}

async fn remove(State(app): App, ApiPath(id): ApiPath<String>) -> Result<StatusCode, ApiError> {
    if app.sessions.remove(&id) {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::unknown_game())
    }
}

async fn play(
    State(app): App,
    ApiPath(id): ApiPath<String>,
    Body(req): Body<MoveRequest>,
) -> Result<Json<GameState>, ApiError> {
    let direction = wire::direction(&req.direction)?;
    app.sessions.with(&id, |session| {
        session.play(direction)?;
        Ok(Json(session.state(&id)))
    })
}

async fn undo(State(app): App, ApiPath(id): ApiPath<String>) -> Result<Json<GameState>, ApiError> {
    app.sessions.with(&id, |session| {
        session.undo()?;
        Ok(Json(session.state(&id)))
    })
}

async fn keep_going(
    State(app): App,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<GameState>, ApiError> {
    app.sessions.with(&id, |session| {
        session.keep_going = true;
        Ok(Json(session.state(&id)))
    })
}

async fn hint(
    State(app): App,
    ApiPath(id): ApiPath<String>,
    Body(req): Body<HintRequest>,
) -> Result<Json<Hint>, ApiError> {
    let preset = wire::preset(req.preset.as_deref(), app.searcher.default_preset())?;
    let board = app.sessions.with(&id, |session| playable_board(session))?;
    let decision = app.searcher.decide(preset, board).await?;
    Ok(Json(Hint::of(preset, &decision)))
}

/// The board to search, or a 409 once the game is over.
fn playable_board(session: &crate::sessions::Session) -> Result<Board, ApiError> {
    if session.game().is_over() {
        return Err(ApiError::new(StatusCode::CONFLICT, "game_over", "the game is over"));
    }
    Ok(*session.game().board())
}

/// The autoplay stream: a `state` event at once, then a `move` event per
/// move the solver plays, then an `end` event. It stops when the game is
/// over, when 2048 is first reached (until the player keeps going), when
/// another autoplay of the game starts, and when the client goes away.
async fn autoplay(
    State(app): App,
    ApiPath(id): ApiPath<String>,
    ApiQuery(query): ApiQuery<AutoplayQuery>,
) -> Result<Response, ApiError> {
    let preset = wire::preset(query.preset.as_deref(), app.searcher.default_preset())?;
    let delay = Duration::from_millis(query.delay_ms.unwrap_or(0));
    if delay > app.limits.max_delay {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_delay",
            format!("delay_ms must be at most {}", app.limits.max_delay.as_millis()),
        ));
    }
    // Fail before the stream starts (with a JSON error), not inside it.
    app.searcher.warm(preset).await?;
    let (generation, first) = app.sessions.with(&id, |session| {
        session.autoplay += 1;
        Ok((session.autoplay, session.state(&id)))
    })?;
    let (tx, rx) = mpsc::channel(4);
    // Cannot fail: the channel is new and has room.
    let _ = tx.try_send(event("state", &first));
    tokio::spawn(run_autoplay(app, id, preset, delay, generation, tx));
    let stream = ReceiverStream::new(rx).map(Ok::<Event, Infallible>);
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()).into_response())
}

/// What one autoplay step found.
enum Step {
    Search(Board),
    End(&'static str, Box<GameState>),
}

/// What applying a decision did.
enum Applied {
    Played(GameState),
    /// The game changed while the solver searched (a key press, an undo):
    /// search again from the new board.
    Stale,
    Superseded(GameState),
}

async fn run_autoplay(
    app: Arc<AppState>,
    id: String,
    preset: Preset,
    delay: Duration,
    generation: u64,
    tx: mpsc::Sender<Event>,
) {
    let end = |reason, state| {
        event("end", &AutoplayEnd { reason, message: None, code: None, state: Some(state) })
    };
    let failed = |err: ApiError| {
        let payload = AutoplayEnd {
            reason: "error",
            message: Some(err.message),
            code: Some(err.code),
            state: None,
        };
        event("end", &payload)
    };
    loop {
        let step = app.sessions.with(&id, |session| {
            let state = session.state(&id);
            Ok(if session.autoplay != generation {
                Step::End("superseded", Box::new(state))
            } else if state.over {
                Step::End("over", Box::new(state))
            } else if state.won && !state.keep_going {
                Step::End("won", Box::new(state))
            } else {
                Step::Search(*session.game().board())
            })
        });
        let board = match step {
            Ok(Step::Search(board)) => board,
            Ok(Step::End(reason, state)) => {
                let _ = tx.send(end(reason, *state)).await;
                return;
            }
            Err(err) => {
                let _ = tx.send(failed(err)).await;
                return;
            }
        };
        // A page that went away stops the search loop here; a search already
        // running finishes within its budget on its blocking thread.
        let decided = tokio::select! {
            decided = app.searcher.decide(preset, board) => decided,
            () = tx.closed() => return,
        };
        let decision = match decided {
            Ok(decision) => decision,
            Err(err) => {
                let _ = tx.send(failed(err)).await;
                return;
            }
        };
        let applied = app.sessions.with(&id, |session| {
            if session.autoplay != generation {
                return Ok(Applied::Superseded(session.state(&id)));
            }
            if *session.game().board() != board {
                return Ok(Applied::Stale);
            }
            session.play(decision.direction)?;
            Ok(Applied::Played(session.state(&id)))
        });
        match applied {
            Ok(Applied::Played(state)) => {
                let payload = AutoplayMove { state, hint: Hint::of(preset, &decision) };
                if tx.send(event("move", &payload)).await.is_err() {
                    return;
                }
            }
            Ok(Applied::Stale) => continue,
            Ok(Applied::Superseded(state)) => {
                let _ = tx.send(end("superseded", state)).await;
                return;
            }
            Err(err) => {
                let _ = tx.send(failed(err)).await;
                return;
            }
        }
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            () = tx.closed() => return,
        }
    }
}

/// A named event carrying `payload` as JSON.
fn event(name: &'static str, payload: &impl Serialize) -> Event {
    match serde_json::to_string(payload) {
        Ok(json) => Event::default().event(name).data(json),
        Err(_) => Event::default().event("end").data(r#"{"reason":"error","message":null}"#),
    }
}

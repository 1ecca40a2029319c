//! 2048 in the browser: an axum server with one page, a small JSON API and a
//! server-sent events stream for autoplay.
//!
//! Like `cli-ascii`, this crate is glue: the rules are `game-core`'s
//! ([`game_core::Game`] plays every move, undo restores an earlier `Game`),
//! the moves are the solver's, built by the engine ([`engine::SolverSpec`],
//! with the network for the learned presets), and this crate only keeps
//! games in memory, runs searches off the async runtime, and turns both into
//! JSON. The page (`assets/`, embedded with `include_str!`) draws what the
//! API returns and never works out a board itself.
//!
//! [`router`] builds the whole application; the binary serves it and the
//! tests call it directly with `tower::ServiceExt::oneshot`, as axum's
//! `testing` example does.
//!
//! ```no_run
//! # async fn serve() -> std::io::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8048").await?;
//! let hosts = web::Hosts::listening_on(listener.local_addr()?, &[]);
//! let app = web::router(web::AppState::new(web::Limits::default(), None, None, hosts));
//! axum::serve(listener, app).await
//! # }
//! ```
//!
//! The API is described in `docs/web.md`.

mod api;
mod error;
mod guard;
mod search;
mod server;
mod sessions;
mod stored;
mod wire;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use api::router;
pub use guard::Hosts;
pub use search::CornerTables;
pub use server::serve;

use engine::endgame::Endgame;

use crate::search::Searcher;
use crate::sessions::Sessions;

/// The bounds that keep one server's memory and CPU in check, whatever its
/// clients do. A field with no invariant is `pub`.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Games kept at once; a new game beyond this evicts the one idle
    /// longest.
    pub max_sessions: usize,
    /// A game untouched for this long is forgotten.
    pub idle: Duration,
    /// The largest request body accepted, in bytes (larger: 413).
    pub max_body_bytes: usize,
    /// Moves kept for undo per game (the oldest are dropped first).
    pub max_undo: usize,
    /// Searches that may run at once (each on a blocking thread).
    pub search_slots: usize,
    /// How long a request waits for a search slot before it gets a 503.
    pub queue_wait: Duration,
    /// The time budget of one search (a hint, or one autoplay move).
    pub search_budget: Duration,
    /// The transposition table of each preset's solver is capped at this
    /// many bytes (the presets' own tables go up to 1 GiB, sized for one
    /// program playing alone).
    pub table_bytes: usize,
    /// The longest pause between autoplay moves a client may ask for.
    pub max_delay: Duration,
    /// Connections open at once ([`serve`] closes one more at once).
    pub max_connections: usize,
    /// A connection whose next request's headers take longer than this to
    /// arrive (an idle keep-alive connection included) is closed.
    pub header_timeout: Duration,
    /// A request body that takes longer than this to arrive gets a 408.
    pub body_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Limits {
            max_sessions: 256,
            idle: Duration::from_secs(30 * 60),
            max_body_bytes: 4 * 1024,
            max_undo: 4096,
            search_slots: cores,
            queue_wait: Duration::from_secs(10),
            search_budget: Duration::from_millis(250),
            table_bytes: 64 << 20,
            max_delay: Duration::from_secs(5),
            // Under the common limit of 1,024 open files, with room for the
            // process's own.
            max_connections: 512,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
        }
    }
}

/// Everything the handlers share: the games, the solvers and the limits.
#[derive(Debug)]
pub struct AppState {
    limits: Limits,
    hosts: Hosts,
    sessions: Sessions,
    searcher: Searcher,
}

impl AppState {
    /// A server's state. `weights` is the learned presets' weights file
    /// (`None`: the shipped one, [`engine::weights_path`]); it is loaded the
    /// first time a learned preset is asked for. `endgame`: tables every
    /// preset plays by where one applies (see
    /// [`SolverSpec::with_endgame`](engine::SolverSpec::with_endgame)).
    /// `hosts` are the `Host` values it answers to (see [`Hosts`]).
    pub fn new(
        limits: Limits,
        weights: Option<PathBuf>,
        endgame: Option<Arc<Endgame>>,
        hosts: Hosts,
    ) -> Arc<AppState> {
        AppState::with_corner_tables(limits, weights, endgame, hosts, None)
    }

    /// [`AppState::new`], with the corner preset's tables looked for in
    /// `corner` (`None`: nowhere, and no build offered): found there built
    /// and checked, the corner preset is the page's default; missing, the
    /// page offers to build them (`POST /api/tables/build`), and the corner
    /// preset is the default once they are built.
    pub fn with_corner_tables(
        limits: Limits,
        weights: Option<PathBuf>,
        endgame: Option<Arc<Endgame>>,
        hosts: Hosts,
        corner: Option<CornerTables>,
    ) -> Arc<AppState> {
        Arc::new(AppState {
            hosts,
            sessions: Sessions::new(&limits),
            searcher: Searcher::new(&limits, weights, endgame, corner),
            limits,
        })
    }

    /// The limits this server runs with.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Writes the games in play to `path` (JSON, replaced atomically: a
    /// temporary file renamed), so that a restarted server can
    /// [`AppState::load_games`] them, each with the last 64 moves of its
    /// undo history; how many were written.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn save_games(&self, path: &std::path::Path) -> std::io::Result<usize> {
        let games = self.sessions.export();
        let json = serde_json::to_vec(&games).map_err(std::io::Error::other)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, json)?;
        std::fs::rename(&tmp, path)?;
        Ok(games.len())
    }

    /// Puts back the games [`AppState::save_games`] wrote to `path` (those
    /// idle too long are dropped); how many came back.
    ///
    /// # Errors
    /// A sentence when the file cannot be read or is not such a file.
    pub fn load_games(&self, path: &std::path::Path) -> Result<usize, String> {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let games = serde_json::from_slice(&bytes)
            .map_err(|e| format!("{} is not a games file: {e}", path.display()))?;
        self.sessions.import(games).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Solvers built so far: one per preset asked for, however many
    /// requests asked for it at once.
    pub fn solvers_built(&self) -> usize {
        self.searcher.solvers_built()
    }
}

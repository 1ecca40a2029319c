//! Searches off the async runtime: one solver per preset, shared by every
//! game, built once on first use (requests that ask for it meanwhile wait
//! for that one build); a bounded number of searches at once, each on a
//! blocking thread with a time budget.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::StatusCode;
use engine::endgame::Endgame;
use engine::{Decision, Overrides, Preset, SearchError, Solver, SolverSpec, SpecError};
use game_core::{Board, Rules};
use tokio::sync::{OnceCell, Semaphore};

use crate::Limits;
use crate::error::ApiError;

/// The solvers and the slots searches run in.
#[derive(Debug)]
pub(crate) struct Searcher {
    /// Each preset's solver, once built. The cell makes concurrent first
    /// requests share one build: each build allocates the preset's table
    /// (up to `table_bytes`) and a thread, and 100 concurrent first
    /// autoplays of one preset once built 100 solvers (docs/web.md).
    solvers: Mutex<HashMap<Preset, Arc<OnceCell<Arc<Solver>>>>>,
    /// Solvers built so far (each preset's at most once).
    built: AtomicUsize,
    slots: Arc<Semaphore>,
    queue_wait: Duration,
    budget: Duration,
    table_bytes: usize,
    weights: Option<PathBuf>,
    /// The endgame tables every preset's solver plays by, if the server
    /// was started with them.
    endgame: Option<Arc<Endgame>>,
}

impl Searcher {
    pub(crate) fn new(
        limits: &Limits,
        weights: Option<PathBuf>,
        endgame: Option<Arc<Endgame>>,
    ) -> Searcher {
        Searcher {
            solvers: Mutex::new(HashMap::new()),
            built: AtomicUsize::new(0),
            slots: Arc::new(Semaphore::new(limits.search_slots.max(1))),
            queue_wait: limits.queue_wait,
            budget: limits.search_budget,
            table_bytes: limits.table_bytes,
            weights,
            endgame,
        }
    }

    /// The weights file the learned presets load: the one given, or the
    /// shipped one where it is found (else where the checkout keeps it, to
    /// name in a message).
    pub(crate) fn weights_path(&self) -> PathBuf {
        engine::weights_path(self.weights.as_deref())
    }

    /// What `preset` needs that this server lacks: a learned preset's
    /// weights file, or the tables a preset plays by of its own
    /// (`--endgame`; the engine says which presets need them).
    pub(crate) fn missing(&self, preset: Preset) -> Option<Missing> {
        let spec = self.spec(preset);
        if spec.is_learned() && !self.weights_path().is_file() {
            Some(Missing::Weights)
        } else if spec.lacks_tables() {
            Some(Missing::Tables)
        } else {
            None
        }
    }

    /// The solver `preset` is built from here: the server's network and
    /// tables, every search within the server's budget and table size.
    fn spec(&self, preset: Preset) -> SolverSpec {
        let ms = u64::try_from(self.budget.as_millis()).unwrap_or(u64::MAX).max(1);
        let spec = SolverSpec::new(preset)
            .with_overrides(Overrides { time_ms: Some(ms), ..Overrides::default() })
            .with_endgame(self.endgame.clone())
            .with_table_cap(self.table_bytes);
        // The server's weights file is the learned presets' only: the spec
        // refuses weights given to a preset without a network.
        if spec.is_learned() { spec.with_weights(self.weights.clone()) } else { spec }
    }

    /// Whether `preset` can be built: nothing it needs is missing.
    pub(crate) fn available(&self, preset: Preset) -> bool {
        self.missing(preset).is_none()
    }

    /// The error of a request for `preset`, which lacks `missing`; its
    /// message is also what `GET /api/presets` says of the preset.
    pub(crate) fn unavailable(&self, preset: Preset, missing: Missing) -> ApiError {
        match missing {
            Missing::Weights => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "weights_unavailable",
                format!(
                    "the {preset} preset needs the learned network, whose weights file {} is \
                     missing",
                    self.weights_path().display()
                ),
            ),
            Missing::Tables => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "tables_unavailable",
                format!(
                    "the {preset} preset plays by the corner tables: start the server with \
                     --endgame"
                ),
            ),
        }
    }

    /// The preset played when a request names none: the engine's default,
    /// or the heuristic when this server cannot build it (a missing network
    /// or tables), so that a page without them still plays.
    pub(crate) fn default_preset(&self) -> Preset {
        if self.available(engine::DEFAULT_PRESET) {
            engine::DEFAULT_PRESET
        } else {
            Preset::Heuristic
        }
    }

    pub(crate) fn budget(&self) -> Duration {
        self.budget
    }

    /// The solver's choice for `board`, searched on a blocking thread once a
    /// slot is free (503 if none frees up in time).
    pub(crate) async fn decide(&self, preset: Preset, board: Board) -> Result<Decision, ApiError> {
        let permit = tokio::time::timeout(self.queue_wait, Arc::clone(&self.slots).acquire_owned())
            .await
            .map_err(|_| {
                ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "busy",
                    "every search slot is busy; try again shortly",
                )
            })?
            .map_err(|_| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "busy", "shutting down"))?;
        let solver = self.solver(preset).await?;
        let decided = tokio::task::spawn_blocking(move || {
            // The permit lives as long as the search, even if the request
            // that asked for it is gone.
            let _permit = permit;
            solver.decide(&board, &Rules::default())
        })
        .await
        .map_err(|err| {
            ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", err.to_string())
        })?;
        decided.map_err(|err| {
            let code = match err {
                SearchError::NoMove => "game_over",
                SearchError::NotFourByFour(_) => "internal",
            };
            ApiError::new(StatusCode::CONFLICT, code, err.to_string())
        })
    }

    /// Builds `preset`'s solver now, so that a missing weights file is an
    /// error of the request that asks for it.
    pub(crate) async fn warm(&self, preset: Preset) -> Result<(), ApiError> {
        self.solver(preset).await.map(drop)
    }

    /// Solvers built so far: at most one per preset, however many requests
    /// asked at once.
    pub(crate) fn solvers_built(&self) -> usize {
        self.built.load(Ordering::Relaxed)
    }

    /// The shared solver of `preset`, built (on a blocking thread: a learned
    /// preset loads its network) the first time it is asked for; requests
    /// that ask while it is being built wait for it. A failed build is
    /// tried again by the next request.
    async fn solver(&self, preset: Preset) -> Result<Arc<Solver>, ApiError> {
        let cell = Arc::clone(
            self.solvers
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .entry(preset)
                .or_default(),
        );
        let solver = cell
            .get_or_try_init(|| async {
                // Checked before a build only: a solver built stays usable
                // if its weights file goes away afterwards.
                if let Some(missing) = self.missing(preset) {
                    return Err(self.unavailable(preset, missing));
                }
                let spec = self.spec(preset);
                let built =
                    tokio::task::spawn_blocking(move || build(&spec)).await.map_err(|err| {
                        ApiError::new(
                            StatusCode::INTERNAL_SERVER_ERROR,
                            "internal",
                            err.to_string(),
                        )
                    })??;
                self.built.fetch_add(1, Ordering::Relaxed);
                Ok::<_, ApiError>(Arc::new(built))
            })
            .await?;
        Ok(Arc::clone(solver))
    }
}

/// What a preset needs that a server lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Missing {
    /// The learned network's weights file.
    Weights,
    /// The endgame tables the preset plays by.
    Tables,
}

impl Missing {
    /// The name `GET /api/presets` gives it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Missing::Weights => "weights",
            Missing::Tables => "tables",
        }
    }
}

/// `spec`'s solver: a network that cannot load is a 503, anything else a
/// fault of the server's own settings.
fn build(spec: &SolverSpec) -> Result<Solver, ApiError> {
    spec.build(4).map_err(|err| match err {
        SpecError::Network(why) => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "weights_unavailable",
            format!(
                "the {} preset needs the learned network, which cannot load: {why}",
                spec.preset()
            ),
        ),
        other => ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", other.to_string()),
    })
}

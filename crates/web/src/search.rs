//! Searches off the async runtime: one solver per preset, shared by every
//! game, built once on first use (requests that ask for it meanwhile wait
//! for that one build); a bounded number of searches at once, each on a
//! blocking thread with a time budget.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use axum::http::StatusCode;
use engine::endgame::{Check, Endgame};
use engine::{
    Decision, Overrides, Preset, SearchError, Setting, Solver, SolverSpec, SpecError, TablesBuild,
};
use game_core::{Board, Rules};
use tokio::sync::{OnceCell, Semaphore};

use crate::Limits;
use crate::error::ApiError;
use crate::wire::TablesState;

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
    /// Where the corner preset's tables are looked for and built.
    corner_place: Option<CornerTables>,
    /// The corner preset's tables, once found there checked or built.
    corner: RwLock<Option<Arc<Endgame>>>,
    /// The one build of the corner tables, while it runs (and its failure,
    /// until a new one starts).
    build: Mutex<Option<TablesBuild>>,
}

/// Where a server looks for the corner preset's tables, and builds them
/// when a page asks it to.
#[derive(Debug, Clone)]
pub struct CornerTables {
    /// The tables' folder.
    pub dir: PathBuf,
    /// Only tables of at most this many states (a smaller set that plays
    /// worse, for a quick test).
    pub max_states: Option<u64>,
}

impl Searcher {
    pub(crate) fn new(
        limits: &Limits,
        weights: Option<PathBuf>,
        endgame: Option<Arc<Endgame>>,
        corner_place: Option<CornerTables>,
    ) -> Searcher {
        // The corner tables, where the folder holds them built and checked
        // (mapped, so opening them takes a moment).
        let corner = corner_place.as_ref().filter(|_| endgame.is_none()).and_then(|place| {
            // The corner tables serve the corner preset, whichever corner
            // preset the machine's strongest is (the server serves no
            // layered table).
            let choice = engine::strongest_preset(4, Some(&place.dir), place.max_states);
            if !choice.preset.uses_corner_tables() {
                return None;
            }
            let opened = engine::open_preset_tables(
                Preset::Corner,
                Some(&place.dir),
                place.max_states,
                Check::Stamped,
                &|_| {},
            );
            opened.ok().map(|(_, tables)| tables)
        });
        Searcher {
            corner_place,
            corner: RwLock::new(corner),
            build: Mutex::new(None),
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
        // At least 1 ms, and a budget past i64::MAX ms is that many.
        let ms = u64::try_from(self.budget.as_millis()).unwrap_or(u64::MAX).max(1);
        // The server's tables for every preset (--endgame), else the
        // corner tables for the corner preset, once they are there.
        let endgame = self.endgame.clone().or_else(|| {
            let corner = preset.uses_corner_tables().then(|| self.corner_tables());
            corner.flatten()
        });
        let spec = SolverSpec::new(preset)
            .with_overrides(Overrides::default().with(Setting::TimeMs, ms))
            .with_endgame(endgame)
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
                match &self.corner_place {
                    // Built by the lab only: 21.8 GB is no button's work.
                    _ if preset == Preset::CornerBig => format!(
                        "the {preset} preset plays by the big step table (21.8 GB), which the web \
                         server does not serve (--endgame serves the others' tables): play it \
                         with cli-ascii --preset {preset}, after `lab tables build --preset \
                         {preset}`"
                    ),
                    Some(_) => format!(
                        "the {preset} preset plays by the corner tables, which are not built \
                         yet: build them from the menu ({})",
                        self.tables_cost()
                    ),
                    None => format!(
                        "the {preset} preset plays by the corner tables: start the server with \
                         --endgame"
                    ),
                },
            ),
        }
    }

    /// The preset played when a request names none: the strongest this
    /// server has, the corner preset once its tables are there (found at
    /// start or built since), else the engine's fixed default, or the
    /// heuristic when this server cannot build that (a missing network),
    /// so that a page without them still plays.
    pub(crate) fn default_preset(&self) -> Preset {
        [Preset::Corner, engine::DEFAULT_PRESET]
            .into_iter()
            .find(|&p| self.available(p))
            .unwrap_or(Preset::Heuristic)
    }

    /// The corner tables found or built, taking in a build just ended.
    fn corner_tables(&self) -> Option<Arc<Endgame>> {
        self.poll_build();
        self.corner.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// A build that has ended: its tables kept for the corner preset, or
    /// its failure left for [`Searcher::tables`] to tell.
    fn poll_build(&self) {
        let mut build = self.build.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(Ok(tables)) = build.as_ref().and_then(TablesBuild::finished) {
            *self.corner.write().unwrap_or_else(|e| e.into_inner()) = Some(tables);
            *build = None;
        }
    }

    /// The size and time of the corner tables' build, in words.
    fn tables_cost(&self) -> String {
        let formations = self.corner_formations();
        let bytes = formations.iter().map(|&f| engine::endgame::file_bytes(f)).sum();
        let time = engine::build_time(&formations);
        format!(
            "{} on disk, {} to build",
            engine::endgame::size_text(bytes),
            engine::duration_text(time)
        )
    }

    fn corner_formations(&self) -> Vec<engine::endgame::Formation> {
        engine::formations_for(
            Preset::Corner,
            self.corner_place.as_ref().and_then(|p| p.max_states),
        )
    }

    /// Where the corner tables stand: `GET /api/tables`.
    pub(crate) fn tables(&self) -> TablesState {
        let formations = self.corner_formations();
        let bytes = formations.iter().map(|&f| engine::endgame::file_bytes(f)).sum();
        let seconds = engine::build_time(&formations).as_secs();
        let mut state = TablesState {
            state: "missing",
            message: String::new(),
            bytes,
            seconds,
            done: 0,
            total: formations.iter().map(|f| f.states()).sum(),
            seconds_left: None,
        };
        if self.corner_tables().is_some()
            || self.endgame.as_ref().is_some_and(|_| self.available(Preset::Corner))
        {
            state.state = "built";
            state.message = "the corner tables are built: the corner preset plays".to_owned();
            return state;
        }
        if self.corner_place.is_none() {
            state.state = "unavailable";
            state.message = "this server keeps no tables folder".to_owned();
            return state;
        }
        let build = self.build.lock().unwrap_or_else(|e| e.into_inner());
        match build.as_ref() {
            None => {
                state.message = format!(
                    "the strongest player, corner, needs its tables: {}",
                    self.tables_cost()
                );
            }
            Some(build) => match build.finished() {
                Some(Err(why)) => {
                    state.state = "failed";
                    state.message = format!("the corner tables could not be built: {why}");
                }
                // Taken in by the next poll.
                Some(Ok(_)) => state.state = "built",
                None => {
                    let p = build.progress();
                    state.state = "building";
                    state.message = format!("building the corner tables: {p}");
                    (state.done, state.seconds_left) = (p.done, p.time_left().map(|d| d.as_secs()));
                    if p.total > 0 {
                        state.total = p.total;
                    }
                }
            },
        }
        state
    }

    /// Starts building the corner tables in the background: one build at
    /// a time (a second request while one runs is refused, as is one once
    /// they are built).
    pub(crate) fn start_build(&self) -> Result<TablesState, ApiError> {
        let Some(place) = &self.corner_place else {
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "no_tables_folder",
                "this server keeps no tables folder: start it with --tables DIR",
            ));
        };
        if self.available(Preset::Corner) {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "tables_built",
                "the corner tables are built already",
            ));
        }
        {
            let mut build = self.build.lock().unwrap_or_else(|e| e.into_inner());
            if build.as_ref().is_some_and(|b| b.finished().is_none()) {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    "build_running",
                    "the corner tables are being built already",
                ));
            }
            *build = Some(TablesBuild::start(place.dir.clone(), self.corner_formations()));
        }
        Ok(self.tables())
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

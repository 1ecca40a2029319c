//! The stronger player, one key away: where the game's default player is
//! not the corner player for want of its tables, `watch` and `play` offer
//! them in one status line; `t` builds them on a thread of their own while
//! the game goes on, and the next game (`n`) plays the corner player.

use std::path::PathBuf;
use std::sync::Arc;

use cli_common::setup;
use engine::endgame::Endgame;
use engine::{DefaultChoice, Preset, TablesBuild, TablesBuildCost, Why};

/// The key that starts the build.
pub(crate) const BUILD_KEY: char = 't';

/// Where the corner tables stand, for a game whose default player lacks
/// them.
#[derive(Debug)]
enum State {
    /// Not built: the key builds them (or, `checks`, checks them: they are
    /// there, written but not checked).
    Offered { cost: TablesBuildCost, checks: bool },
    /// Being built.
    Building(TablesBuild),
    /// Built: the next game plays the corner player.
    Built(Arc<Endgame>),
    /// Handed to the game that plays by them.
    Playing,
    /// The build failed.
    Failed(String),
}

/// The corner tables of a game's default player: offered, being built,
/// built.
#[derive(Debug)]
pub(crate) struct Upgrade {
    /// The player that plays now, as the default chose it.
    preset: Preset,
    dir: PathBuf,
    max_states: Option<u64>,
    state: State,
}

impl Upgrade {
    /// The offer of the corner tables where the default player `choice`
    /// lacks them (missing, damaged or unchecked) in the tables' folder
    /// `tables` (the cache folder when `None`); `None` where there is
    /// nothing to offer (the corner player plays, or another board size).
    pub(crate) fn offer(
        choice: &DefaultChoice,
        tables: Option<&std::path::Path>,
        max_states: Option<u64>,
    ) -> Option<Upgrade> {
        let (cost, checks) = match &choice.why {
            Why::TablesMissing(cost) => (cost.clone(), false),
            Why::TablesUnchecked(cost) => (cost.clone(), true),
            _ => return None,
        };
        let dir = setup::tables_dir(tables).ok()?;
        let state = State::Offered { cost, checks };
        Some(Upgrade { preset: choice.preset, dir, max_states, state })
    }

    /// Starts the build (the key): once, in the background.
    pub(crate) fn start(&mut self) {
        if matches!(self.state, State::Offered { .. } | State::Failed(_)) {
            let formations = engine::formations_for(Preset::Corner, self.max_states);
            self.state = State::Building(TablesBuild::start(self.dir.clone(), formations));
        }
    }

    /// Whether a build is under way (the screen is then redrawn as it goes).
    pub(crate) fn building(&mut self) -> bool {
        self.poll();
        matches!(self.state, State::Building(_))
    }

    /// The tables, once built, for the next game: handed over once.
    pub(crate) fn take(&mut self) -> Option<Arc<Endgame>> {
        self.poll();
        if !matches!(self.state, State::Built(_)) {
            return None;
        }
        match std::mem::replace(&mut self.state, State::Playing) {
            State::Built(tables) => Some(tables),
            _ => None,
        }
    }

    /// A finished build's outcome, taken in.
    fn poll(&mut self) {
        if let State::Building(build) = &self.state
            && let Some(outcome) = build.finished()
        {
            self.state = match outcome {
                Ok(tables) => State::Built(tables),
                Err(why) => State::Failed(why),
            };
        }
    }

    /// The status line: the offer (what the tables give, their size and
    /// time), the build's progress, or what the next game plays; `None`
    /// once the corner player plays.
    pub(crate) fn line(&self) -> Option<String> {
        let now = self.preset;
        let failed = |why: &str| {
            format!("the corner tables could not be built: {why} · {BUILD_KEY} tries again")
        };
        let built = || "the corner tables are built: n plays the next game with corner".to_owned();
        Some(match &self.state {
            State::Offered { cost, checks: false } => format!(
                "{BUILD_KEY}: build the corner tables for the strongest player ({}, {}) · \
                 {now} plays until then",
                engine::endgame::size_text(cost.bytes),
                engine::duration_text(cost.time)
            ),
            State::Offered { checks: true, .. } => format!(
                "{BUILD_KEY}: check the corner tables for the strongest player (written, not \
                 checked) · {now} plays until then"
            ),
            State::Building(build) => match build.finished() {
                None => format!("building corner tables: {} · this game goes on", build.progress()),
                Some(Ok(_)) => built(),
                Some(Err(why)) => failed(&why),
            },
            State::Built(_) => built(),
            State::Failed(why) => failed(why),
            State::Playing => return None,
        })
    }
}

//! From what a user asked for to a solver: a preset, the settings given
//! over it, the learned network and the endgame tables. The settings
//! themselves are declared in `settings`, the errors and their wording
//! are in `error`, the records files' settings line in `settings_line`,
//! the default presets and the tables they need in `defaults`.

mod defaults;
mod error;
mod settings;
mod settings_line;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use game_core::Rules;
use solver_expectimax::endgame::{self, Endgame, Shape};
use solver_expectimax::{Algorithm, Depth, Preset, SearchConfig, Solver};

pub use defaults::{
    DEFAULT_PRESET, DefaultChoice, TablesBuildCost, Why, build_time, default_preset,
    strongest_preset,
};
pub use error::SpecError;
pub use settings::{
    BadValue, Given, Kind, Overrides, Reason, Setting, Spelling, Value, parse_whole,
};
pub use settings_line::{rules_line, same_settings};

use crate::network::NetworkEvaluator;

/// What a solver is made of: a preset, the settings given over it, the
/// weights of a learned preset's network (`None`: the shipped file,
/// wherever [`ntuple::find_shipped_weights`] finds it), the endgame tables
/// it plays by, and what the frontend that plays it asks of every search
/// (a smaller transposition table, a time budget on big boards).
#[derive(Clone)]
pub struct SolverSpec {
    preset: Preset,
    overrides: Overrides,
    weights: Option<PathBuf>,
    endgame: Option<Arc<Endgame>>,
    /// The most bytes of transposition table (`None`: the preset's).
    table_cap: Option<usize>,
    /// The time per move on boards above 4x4 unless a depth or a time is
    /// given.
    big_board_budget: Option<Duration>,
}

impl fmt::Debug for SolverSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The tables have no short Debug form: whether there are some says enough.
        f.debug_struct("SolverSpec")
            .field("preset", &self.preset)
            .field("overrides", &self.overrides)
            .field("weights", &self.weights)
            .field("endgame", &self.endgame.is_some())
            .field("table_cap", &self.table_cap)
            .field("big_board_budget", &self.big_board_budget)
            .finish()
    }
}

impl SolverSpec {
    /// `preset` as it is: its settings, the shipped network if it is
    /// learned, no tables.
    pub fn new(preset: Preset) -> SolverSpec {
        SolverSpec {
            preset,
            overrides: Overrides::default(),
            weights: None,
            endgame: None,
            table_cap: None,
            big_board_budget: None,
        }
    }

    /// With `overrides` over the preset's settings.
    #[must_use]
    pub fn with_overrides(mut self, overrides: Overrides) -> SolverSpec {
        self.overrides = overrides;
        self
    }

    /// With the network in `path` (learned presets only).
    #[must_use]
    pub fn with_weights(mut self, path: Option<PathBuf>) -> SolverSpec {
        self.weights = path;
        self
    }

    /// Playing by `tables` where they apply.
    #[must_use]
    pub fn with_endgame(mut self, tables: Option<Arc<Endgame>>) -> SolverSpec {
        self.endgame = tables;
        self
    }

    /// With a transposition table of at most `bytes` (the presets' go up to
    /// 1 GiB, sized for one program playing alone: a server that keeps a
    /// solver per preset asks for less).
    #[must_use]
    pub fn with_table_cap(mut self, bytes: usize) -> SolverSpec {
        self.table_cap = Some(bytes);
        self
    }

    /// With a time budget of `budget` per move on boards above 4x4, unless
    /// a depth or a time is given (the tutorial's search, which has no
    /// budget, then searches one layer deep). Boards from 5x5 up have many
    /// more spawns per chance node, so the presets' depths take seconds per
    /// move there (docs/cli.md gives a measured figure): a program that
    /// shows the game as it plays keeps it fluid so.
    #[must_use]
    pub fn with_big_board_budget(mut self, budget: Duration) -> SolverSpec {
        self.big_board_budget = Some(budget);
        self
    }

    /// The preset.
    pub fn preset(&self) -> Preset {
        self.preset
    }

    /// The settings given over the preset's.
    pub fn overrides(&self) -> &Overrides {
        &self.overrides
    }

    /// The weights file given, if any.
    pub fn weights(&self) -> Option<&Path> {
        self.weights.as_deref()
    }

    /// The weights file a learned search of this spec loads: the one
    /// given, else the shipped one ([`crate::weights_path`]).
    pub fn weights_path(&self) -> PathBuf {
        crate::weights_path(self.weights.as_deref())
    }

    /// The endgame tables, if any.
    pub fn endgame(&self) -> Option<&Arc<Endgame>> {
        self.endgame.as_ref()
    }

    /// Whether the preset searches with the learned network.
    pub fn is_learned(&self) -> bool {
        self.preset.is_learned()
    }

    /// Whether the preset plays by endgame tables of its own (the corner
    /// preset's corner tables), which it must be given
    /// ([`SolverSpec::with_endgame`]) to play 4x4 boards: the one place
    /// that says which presets do. Every other preset plays by tables only
    /// when it is given some (`--endgame`).
    pub fn needs_tables(&self) -> bool {
        self.preset.uses_corner_tables()
    }

    /// Whether the preset needs tables of its own ([`SolverSpec::needs_tables`])
    /// and was given none of them: no tables, or only the chains'; for
    /// corner-big, no big (layered) step table, without which it would play
    /// as corner does under its name.
    pub fn lacks_tables(&self) -> bool {
        let own = |tables: &Arc<Endgame>| {
            let mut held = tables.formations();
            if self.preset == Preset::CornerBig {
                held.any(|f| f.shape() == Shape::Step && f.is_layered())
            } else {
                held.any(|f| matches!(f.shape(), Shape::Step | Shape::Block))
            }
        };
        self.needs_tables() && !self.endgame.as_ref().is_some_and(own)
    }

    /// The first setting given that the preset has no use for.
    ///
    /// # Errors
    /// [`SpecError::NotApplicable`]; the values' ranges are checked where
    /// they are given ([`Overrides::try_with`]), what they make together
    /// by the solver ([`SolverSpec::build`]).
    pub fn validate(&self) -> Result<(), SpecError> {
        let preset = self.preset.config();
        let not = |setting, reason| {
            Err(SpecError::NotApplicable { setting, preset: self.preset, reason })
        };
        for (setting, _) in self.overrides.given() {
            if let Err(reason) = setting.applies(&preset, &self.overrides) {
                return not(setting.into(), reason);
            }
        }
        if !self.is_learned() && self.weights.is_some() {
            return not(Given::Weights, Reason::NoNetwork);
        }
        Ok(())
    }

    /// The search settings on `size` x `size` boards: the preset's, then
    /// the overrides, then the frontend's (the table cap, the budget on big
    /// boards).
    ///
    /// # Errors
    /// As [`SolverSpec::validate`].
    pub fn config(&self, size: usize) -> Result<SearchConfig, SpecError> {
        self.validate()?;
        let o = &self.overrides;
        let mut config = self.preset.config();
        for (setting, value) in o.given() {
            setting.apply(value, &mut config);
        }
        if let Some(cap) = self.table_cap {
            config.table_bytes = config.table_bytes.min(cap);
        }
        if let Some(budget) = self.big_board_budget
            && size > 4
            && o.depth().is_none()
            && o.time_ms().is_none()
        {
            match config.algorithm {
                Algorithm::Tutorial => config.depth = Depth::Fixed(1),
                Algorithm::Expectimax { .. }
                | Algorithm::Learned { .. }
                | Algorithm::Corner { .. } => {
                    config.time_budget = Some(budget);
                }
            }
        }
        Ok(config)
    }

    /// The search threads of a solver of this spec.
    ///
    /// # Errors
    /// As [`SolverSpec::validate`].
    pub fn threads(&self) -> Result<usize, SpecError> {
        self.config(4).map(|config| config.threads)
    }

    /// The solver for games on `size` x `size` boards, with the network of
    /// a learned preset (shared: [`crate::network`]) and the tables.
    ///
    /// # Errors
    /// As [`SolverSpec::validate`]; [`SpecError::LearnedSize`] for a
    /// learned preset off 4x4, [`SpecError::MissingTables`] for a preset
    /// that plays by its own tables on 4x4 without them
    /// ([`SolverSpec::lacks_tables`]; on other sizes, where no table
    /// applies, it searches alone), [`SpecError::Network`] when the weights
    /// do not load, [`SpecError::Config`] for settings out of range.
    pub fn build(&self, size: usize) -> Result<Solver, SpecError> {
        let config = self.config(size)?;
        if size == 4 && self.lacks_tables() {
            return Err(SpecError::MissingTables(self.preset));
        }
        let solver = if let Algorithm::Learned { .. } = config.algorithm {
            learned_size(size)?;
            let net = crate::network(self.weights.as_deref()).map_err(SpecError::Network)?;
            Solver::with_evaluator(config, Arc::new(NetworkEvaluator(net)))
        } else {
            Solver::new(config)
        }
        .map_err(SpecError::Config)?;
        Ok(match &self.endgame {
            Some(tables) => solver.with_endgame(Arc::clone(tables)),
            None => solver,
        })
    }

    /// Whether the preset plays boards of `size` (the learned ones play
    /// 4x4 only): what [`SolverSpec::build`] checks, for a frontend to
    /// check before it loads anything.
    ///
    /// # Errors
    /// [`SpecError::LearnedSize`].
    pub fn check_size(&self, size: usize) -> Result<(), SpecError> {
        if self.is_learned() { learned_size(size) } else { Ok(()) }
    }

    /// Whether endgame tables may play games of `size` x `size` under
    /// `rules`.
    ///
    /// # Errors
    /// [`SpecError::EndgameRules`] with what differs from the games the
    /// tables were solved for.
    pub fn check_endgame_rules(size: usize, rules: &Rules) -> Result<(), SpecError> {
        endgame::check_rules(size, rules).map_err(SpecError::EndgameRules)
    }
}

/// The learned network's board size: 4x4 only.
fn learned_size(size: usize) -> Result<(), SpecError> {
    if size == 4 { Ok(()) } else { Err(SpecError::LearnedSize(size)) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formations_for;

    fn spec(preset: Preset, overrides: Overrides) -> SolverSpec {
        SolverSpec::new(preset).with_overrides(overrides)
    }

    #[test]
    fn settings_a_preset_has_no_use_for_are_refused() {
        let none = Overrides::default();
        let cutoff = none.with(Setting::ProbCutoff, 0.01f32);
        let bonus = none.with(Setting::DepthBonus, 1);
        let fixed_bonus = bonus.with(Setting::Depth, 2);
        let heuristic = none.with(Setting::Heuristic, 0.5f32);
        let cases = [
            (spec(Preset::Tutorial, cutoff), "prob_cutoff does not apply to the tutorial preset"),
            (spec(Preset::Fast, fixed_bonus), "depth_bonus does not apply with depth"),
            (spec(Preset::Ntuple, bonus), "depth_bonus does not apply to the ntuple preset"),
            (
                spec(Preset::Heuristic, heuristic),
                "heuristic applies to the learned presets only, not to the heuristic preset, \
                 which uses no network: choose the ntuple preset or the ntuple-deep preset",
            ),
            (
                SolverSpec::new(Preset::Fast).with_weights(Some("w.n2048".into())),
                "weights applies to the learned presets only, not to the fast preset",
            ),
        ];
        for (spec, message) in cases {
            let err = spec.validate().unwrap_err();
            assert!(err.to_string().starts_with(message), "{err}");
            assert!(spec.build(4).is_err());
        }
        assert!(spec(Preset::Fast, cutoff.with(Setting::DepthBonus, 1)).validate().is_ok());
        assert!(spec(Preset::NtupleDeep, heuristic).validate().is_ok());
    }

    #[test]
    fn overrides_replace_the_presets_settings() {
        let o = Overrides::default()
            .with(Setting::TimeMs, 40)
            .with(Setting::Threads, 1)
            .with(Setting::ProbCutoff, 0.02f32)
            .with(Setting::DepthBonus, -1);
        let config = spec(Preset::Heuristic, o).config(4).unwrap();
        assert_eq!(config.time_budget, Some(Duration::from_millis(40)));
        assert_eq!(config.threads, 1);
        assert!(matches!(config.depth, Depth::Adaptive { bonus: -1, .. }));
        assert!(
            matches!(config.algorithm, Algorithm::Expectimax { prob_cutoff, .. } if prob_cutoff == 0.02)
        );
        let learned = spec(Preset::Ntuple, o)
            .with_overrides(
                Overrides::default().with(Setting::Heuristic, 0.0f32).with(Setting::Depth, 1),
            )
            .config(4)
            .unwrap();
        assert_eq!(learned.depth, Depth::Fixed(1));
        assert!(
            matches!(learned.algorithm, Algorithm::Learned { heuristic, .. } if heuristic == 0.0)
        );
        // The learned preset of crowded depth takes a bonus too.
        let deeper = spec(Preset::NtupleDeep, Overrides::default().with(Setting::DepthBonus, 1))
            .config(4)
            .unwrap();
        assert!(matches!(deeper.depth, Depth::Crowded { bonus: 1, .. }));
        // Nothing given: the preset as it is.
        assert_eq!(
            SolverSpec::new(Preset::HeuristicMax).config(4).unwrap(),
            Preset::HeuristicMax.config()
        );
    }

    /// A frontend's own settings are the spec's, not a config it edits (so
    /// that each frontend does not repeat, and drift from, the engine's
    /// rules): the web's table cap, the terminal's budget on big boards,
    /// which a depth or a time given overrides.
    #[test]
    fn a_frontends_settings_are_the_specs() {
        let capped = SolverSpec::new(Preset::HeuristicMax).with_table_cap(64 << 20);
        assert_eq!(capped.config(4).unwrap().table_bytes, 64 << 20);
        let small = Preset::Tutorial.config().table_bytes;
        let tutorial = SolverSpec::new(Preset::Tutorial).with_table_cap(usize::MAX);
        assert_eq!(tutorial.config(4).unwrap().table_bytes, small, "a cap never grows a table");
        let budget = Duration::from_millis(50);
        let big = |preset, overrides| {
            SolverSpec::new(preset)
                .with_overrides(overrides)
                .with_big_board_budget(budget)
                .config(5)
                .unwrap()
        };
        let none = Overrides::default();
        assert_eq!(big(Preset::Heuristic, none).time_budget, Some(budget));
        assert_eq!(big(Preset::Heuristic, none).depth, Preset::Heuristic.config().depth);
        assert_eq!(big(Preset::Tutorial, none).depth, Depth::Fixed(1));
        assert_eq!(big(Preset::Tutorial, none).time_budget, None);
        let depth = none.with(Setting::Depth, 3);
        assert_eq!(big(Preset::Heuristic, depth).time_budget, None);
        let timed = none.with(Setting::TimeMs, 40);
        assert_eq!(big(Preset::Fast, timed).time_budget, Some(Duration::from_millis(40)));
        let four = SolverSpec::new(Preset::Heuristic).with_big_board_budget(budget);
        assert_eq!(four.config(4).unwrap(), Preset::Heuristic.config());
        assert_eq!(four.config(3).unwrap(), Preset::Heuristic.config());
    }

    /// Which presets need tables of their own is the engine's to say, once,
    /// not each frontend's: the corner preset refuses to build on 4x4
    /// without its corner tables, and searches alone on other sizes.
    #[test]
    fn the_corner_preset_needs_its_own_tables_on_four_by_four() {
        let corner = SolverSpec::new(Preset::Corner)
            .with_overrides(Overrides::default().with(Setting::Depth, 1));
        assert!(corner.needs_tables() && corner.lacks_tables());
        assert!(matches!(corner.build(4), Err(SpecError::MissingTables(Preset::Corner))));
        assert!(corner.build(5).is_ok());
        let err = corner.build(4).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the corner preset plays by its own endgame tables, which it was not given"
        );
        for preset in Preset::ALL.into_iter().filter(|p| !p.uses_corner_tables()) {
            let spec = SolverSpec::new(preset);
            assert!(!spec.needs_tables() && !spec.lacks_tables(), "{preset}");
        }
        assert_eq!(formations_for(corner.preset(), None), endgame::corner_formations(None));
        assert_eq!(formations_for(Preset::CornerBig, None), endgame::corner_big_formations(None));
        assert_eq!(
            formations_for(Preset::Fast, Some(1000)),
            endgame::default_formations(Some(1000))
        );
    }

    /// The chains' tables are not the corner preset's own: given only them
    /// it still lacks its tables; given a corner table it plays by it.
    #[test]
    fn the_corner_preset_is_satisfied_by_corner_tables_only() {
        use solver_expectimax::endgame::{Formation, Table};
        let with = |formation: Formation| {
            let tables = Arc::new(Endgame::from_tables(vec![Table::build(formation, &|_| {})]));
            SolverSpec::new(Preset::Corner)
                .with_overrides(Overrides::default().with(Setting::Depth, 1))
                .with_table_cap(1 << 20)
                .with_endgame(Some(tables))
        };
        let chains = with(Formation::new(10, 5).unwrap());
        assert!(chains.lacks_tables());
        assert!(matches!(chains.build(4), Err(SpecError::MissingTables(Preset::Corner))));
        let step = with(Formation::step(4).unwrap());
        assert!(step.needs_tables() && !step.lacks_tables());
        assert!(step.build(4).is_ok());
        // corner-big without its big step table would play as corner does
        // under its name: it lacks its tables.
        let small = Table::build(Formation::step(4).unwrap(), &|_| {});
        let small = Arc::new(Endgame::from_tables(vec![small]));
        let big = SolverSpec::new(Preset::CornerBig).with_endgame(Some(small));
        assert!(big.needs_tables() && big.lacks_tables());
        // Other presets given tables play by them; they never lack any.
        let fast = SolverSpec::new(Preset::Fast)
            .with_endgame(Some(Arc::new(Endgame::from_tables(Vec::new()))));
        assert!(!fast.lacks_tables());
    }

    #[test]
    fn a_learned_preset_plays_four_by_four_only_and_needs_its_network() {
        let spec = SolverSpec::new(Preset::Ntuple);
        assert!(matches!(spec.build(5), Err(SpecError::LearnedSize(5))));
        assert!(matches!(spec.check_size(5), Err(SpecError::LearnedSize(5))));
        assert!(spec.check_size(4).is_ok());
        assert!(SolverSpec::new(Preset::Fast).check_size(5).is_ok());
        let missing = spec.with_weights(Some("/nonexistent/w.n2048".into()));
        let err = missing.build(4).unwrap_err();
        assert!(matches!(err, SpecError::Network(_)), "{err}");
        assert!(err.to_string().starts_with("cannot load the learned network"), "{err}");
    }

    #[test]
    fn endgame_rules_are_checked() {
        assert!(SolverSpec::check_endgame_rules(4, &Rules::default()).is_ok());
        let err = SolverSpec::check_endgame_rules(5, &Rules::default()).unwrap_err();
        assert!(err.to_string().contains("4x4 boards only, not 5x5"), "{err}");
        let err = SolverSpec::check_endgame_rules(4, &Rules::tutorial()).unwrap_err();
        assert!(err.to_string().contains("standard rules"), "{err}");
    }

    #[test]
    fn a_frontend_spells_settings_its_own_way() {
        struct Cli;
        impl Spelling for Cli {
            fn setting(&self, s: Given) -> String {
                format!("--{}", s.name().replace('_', "-"))
            }
            fn preset(&self, p: Preset) -> String {
                format!("--preset {p}")
            }
        }
        let o = Overrides::default().with(Setting::DepthBonus, 1);
        let err = spec(Preset::Tutorial, o).validate().unwrap_err();
        assert_eq!(
            err.message(&Cli),
            "--depth-bonus does not apply to --preset tutorial, whose depth is fixed (the fast, \
             heuristic, heuristic-max and ntuple-deep presets have an adaptive one)"
        );
    }
}

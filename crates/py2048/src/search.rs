//! The solver and the learned network for Python: a [`Solver`] made once
//! from a preset and reused (its transposition table stays warm), and the
//! [`Network`]'s value of packed boards.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use engine::endgame::{Check, Endgame, OpenEvent};
use engine::{
    BadValue, Given, Kind, Overrides, Preset, PresetTablesError, Setting, SolverSpec, SpecError,
    Spelling, Value,
};
use game_core::{Board, GameBoard, RulesBuilder};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::{PyFileNotFoundError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat};

use crate::batch::grid_of;
use crate::{gym_action, value_error};

/// The network in `path`, shared as `engine::network` shares it; a missing
/// file is a `FileNotFoundError` that says what to do. (The Python side
/// passes the shipped file's path when the caller gives none: it knows
/// where the wheel put it.)
fn load_network(path: &Path) -> PyResult<Arc<engine::Network>> {
    if !path.is_file() {
        return Err(PyFileNotFoundError::new_err(format!(
            "the learned network's weights file {} does not exist: pass weights=PATH to an \
             existing weights file (lab export-weights writes one)",
            path.display()
        )));
    }
    engine::network(Some(path))
        .map_err(|e| PyValueError::new_err(format!("cannot load the learned network: {e}")))
}

/// Whether `preset` names a learned preset (one that loads a network);
/// a `ValueError` for an unknown name.
#[pyfunction]
pub(crate) fn is_learned(preset: &str) -> PyResult<bool> {
    let preset: Preset = preset.parse().map_err(value_error)?;
    Ok(preset.is_learned())
}

/// Whether `preset` plays by the corner tables, which it then needs (its
/// own: `EndgameTables(preset=...)`); a `ValueError` for an unknown name.
#[pyfunction]
pub(crate) fn uses_corner_tables(preset: &str) -> PyResult<bool> {
    let preset: Preset = preset.parse().map_err(value_error)?;
    Ok(preset.uses_corner_tables())
}

/// The preset `name` names (an old name, `default` or `max`, gives the
/// preset it names now); a `ValueError` for an unknown name.
#[pyfunction]
pub(crate) fn preset_name(name: &str) -> PyResult<&'static str> {
    let preset: Preset = name.parse().map_err(value_error)?;
    Ok(preset.name())
}

/// The preset played on `size` x `size` boards when none is named.
#[pyfunction]
pub(crate) fn default_preset(size: usize) -> &'static str {
    engine::default_preset(size).name()
}

/// A solver with its settings, reused from decision to decision.
#[pyclass(module = "py2048._native")]
#[derive(Debug)]
pub(crate) struct Solver {
    solver: engine::Solver,
    learned: bool,
}

/// A decision: the action (gymnasium order), each action's value (`None`
/// when it changes nothing), the depth searched, the seconds taken and the
/// endgame table that decided (`None` when the search did).
type DecisionTuple = (usize, [Option<f64>; 4], u32, f64, Option<String>);

/// The endgame tables of one folder, read (or built) once.
#[pyclass(module = "py2048._native", frozen)]
#[derive(Debug)]
pub(crate) struct EndgameTables {
    pub(crate) tables: Arc<Endgame>,
    #[pyo3(get)]
    path: String,
    #[pyo3(get)]
    count: usize,
    #[pyo3(get)]
    nbytes: usize,
}

#[pymethods]
impl EndgameTables {
    /// The tables `preset` plays by (the corner preset's corner tables,
    /// the chains' for the others; those of at most `max_states` states) in
    /// `path` (default: cli-ascii-2048/endgame in the user's cache folder),
    /// each read and checked, or built there (without the GIL; a line on
    /// stderr per table built).
    #[new]
    #[pyo3(signature = (path=None, max_states=None, preset=None))]
    fn new(
        py: Python<'_>,
        path: Option<PathBuf>,
        max_states: Option<u64>,
        preset: Option<&str>,
    ) -> PyResult<Self> {
        let preset = match preset {
            Some(name) => name.parse().map_err(value_error)?,
            None => engine::DEFAULT_PRESET,
        };
        let report = |event: OpenEvent<'_>| {
            if let Some(line) = event.log_line() {
                use std::io::Write;
                let _ = writeln!(std::io::stderr().lock(), "{line}");
            }
        };
        let opened = py.detach(|| {
            engine::open_preset_tables(preset, path.as_deref(), max_states, Check::Stamped, &report)
        });
        let (path, tables) = opened.map_err(|e| match e {
            PresetTablesError::NoFolder => {
                PyValueError::new_err("this system has no cache folder: pass path=")
            }
            PresetTablesError::Endgame(e) => pyo3::exceptions::PyOSError::new_err(e.to_string()),
        })?;
        Ok(EndgameTables {
            count: tables.formations().count(),
            nbytes: tables.bytes(),
            tables,
            path: path.display().to_string(),
        })
    }
}

/// How Python names settings and presets in its messages.
#[derive(Debug, Clone, Copy)]
struct Keywords;

impl Spelling for Keywords {
    fn setting(&self, given: Given) -> String {
        format!("{}=", given.name())
    }

    fn preset(&self, preset: Preset) -> String {
        format!("the {preset} preset")
    }
}

/// The search settings of Python's keywords: each name one of the
/// engine's [`Setting`]s (else a `TypeError`, as for any unknown keyword),
/// `None` for the preset's, an `int` for a whole setting and an `int` or
/// `float` for a real one (else a `TypeError`), in the setting's range
/// (else a `ValueError`).
pub(crate) fn overrides_of(settings: Option<&Bound<'_, PyDict>>) -> PyResult<Overrides> {
    let mut overrides = Overrides::default();
    let Some(settings) = settings else { return Ok(overrides) };
    for (key, value) in settings.iter() {
        let name: String = key.extract()?;
        let setting = Setting::from_name(&name).ok_or_else(|| {
            let known: Vec<&str> = Setting::ALL.iter().map(|s| s.name()).collect();
            PyTypeError::new_err(format!(
                "unexpected keyword argument '{name}': the search settings are {}",
                known.join(", ")
            ))
        })?;
        if value.is_none() {
            continue;
        }
        let type_name = || value.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        let whole = matches!(setting.kind(), Kind::Whole { .. });
        let wrong = |what: &str| {
            PyTypeError::new_err(format!("{name} must be {what}, got {}", type_name()))
        };
        if value.is_instance_of::<PyBool>() {
            return Err(wrong(if whole { "an int" } else { "a number" }));
        }
        let given = if whole {
            if value.is_instance_of::<PyFloat>() {
                return Err(wrong("an int"));
            }
            // Past an i128 is past every whole setting's range.
            let n: i128 = value.extract().map_err(|err: PyErr| {
                if err.is_instance_of::<pyo3::exceptions::PyOverflowError>(value.py()) {
                    PyValueError::new_err(format!("{}, got {value}", BadValue::new(setting)))
                } else {
                    wrong("an int")
                }
            })?;
            Value::Whole(n)
        } else {
            let x: f64 = value.extract().map_err(|_| wrong("a number"))?;
            Value::Real(x as f32)
        };
        overrides = overrides
            .try_with(setting, given)
            .map_err(|err| PyValueError::new_err(format!("{err}, got {value}")))?;
    }
    Ok(overrides)
}

/// Each search setting's name and what it does, for Python's help.
#[pyfunction]
pub(crate) fn settings() -> Vec<(&'static str, String)> {
    Setting::ALL.iter().map(|s| (s.name(), s.help())).collect()
}

/// The options of `lab tournament` that give `settings` (`--depth 2
/// --prob-cutoff 0.00002`), their values as the engine reads them.
#[pyfunction]
#[pyo3(signature = (settings=None))]
pub(crate) fn setting_options(settings: Option<&Bound<'_, PyDict>>) -> PyResult<String> {
    let overrides = overrides_of(settings)?;
    let options: Vec<String> =
        overrides.given().map(|(s, v)| format!("{} {v}", s.option())).collect();
    Ok(options.join(" "))
}

/// `err` as a Python `ValueError`, in Python's words.
pub(crate) fn spec_error(err: &SpecError) -> PyErr {
    PyValueError::new_err(err.message(&Keywords))
}

/// What a solver is made of, checked once: a Python `Solver` builds one
/// solver from it; a `GamePlayer` builds a fresh one per game.
#[derive(Debug, Clone)]
pub(crate) struct SolverParts {
    spec: SolverSpec,
    /// The search threads of each solver.
    pub(crate) threads: usize,
    /// The board size the solver is built for: a game's, or 4 for a
    /// `Solver`, whose boards (of any size for a heuristic search) are
    /// checked where they come in.
    size: usize,
}

impl SolverParts {
    /// `preset` with `overrides`, its network from `weights` (a learned
    /// preset needs one: the Python side passes the shipped file's path) and
    /// the tables, for boards of `size`; a `ValueError` for what does not
    /// apply (a learned preset off 4x4 among them), and a solver built once
    /// (without the GIL: it allocates its table) so that bad settings fail
    /// here.
    pub(crate) fn new(
        py: Python<'_>,
        size: usize,
        preset: Preset,
        overrides: &Overrides,
        weights: Option<PathBuf>,
        endgame: Option<&EndgameTables>,
    ) -> PyResult<(SolverParts, engine::Solver)> {
        let spec = SolverSpec::new(preset)
            .with_overrides(*overrides)
            .with_weights(weights)
            .with_endgame(endgame.map(|t| Arc::clone(&t.tables)));
        let threads = spec.threads().map_err(|e| spec_error(&e))?;
        // Before the network loads: a 5x5 learned player is refused as
        // such, not for a missing file.
        spec.check_size(size).map_err(|e| spec_error(&e))?;
        // Asked of every size, before anything loads: a player that needs
        // tables of its own is refused without them.
        if spec.lacks_tables() {
            return Err(PyValueError::new_err(format!(
                "the {preset} preset plays by the corner tables: pass \
                 endgame=py2048.EndgameTables(preset=\"{preset}\")"
            )));
        }
        if preset.is_learned() {
            let path = spec.weights().ok_or_else(|| {
                PyValueError::new_err(format!("the learned preset {preset} needs weights=PATH"))
            })?;
            // A missing file is a FileNotFoundError that says what to do.
            load_network(path)?;
        }
        let parts = SolverParts { spec, threads, size };
        let solver = py.detach(|| parts.solver())?;
        Ok((parts, solver))
    }

    /// A solver of these parts.
    pub(crate) fn solver(&self) -> PyResult<engine::Solver> {
        self.spec.build(self.size).map_err(|e| spec_error(&e))
    }
}

#[pymethods]
impl Solver {
    #[new]
    #[pyo3(signature = (preset, weights=None, endgame=None, settings=None))]
    fn new(
        py: Python<'_>,
        preset: &str,
        weights: Option<PathBuf>,
        endgame: Option<PyRef<'_, EndgameTables>>,
        settings: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Solver> {
        let preset: Preset = preset.parse().map_err(value_error)?;
        let overrides = overrides_of(settings)?;
        let (_, solver) = SolverParts::new(py, 4, preset, &overrides, weights, endgame.as_deref())?;
        Ok(Solver { solver, learned: preset.is_learned() })
    }

    /// The best action for a board of exponents `(n, n)` under a
    /// probability of a 4, with the GIL released while searching.
    #[pyo3(signature = (exponents, four_probability=0.1))]
    fn decide(
        &self,
        py: Python<'_>,
        exponents: PyReadonlyArray2<'_, u8>,
        four_probability: f64,
    ) -> PyResult<DecisionTuple> {
        let grid = grid_of(&exponents)?;
        let rules = RulesBuilder { four_probability, ..RulesBuilder::default() }
            .build()
            .map_err(value_error)?;
        if self.learned && grid.size() != 4 {
            return Err(spec_error(&SpecError::LearnedSize(grid.size())));
        }
        // The solver searches the packed board on 4x4, a grid otherwise.
        let decision = py.detach(|| self.solver.decide(&grid, &rules)).map_err(value_error)?;
        let mut values = [None; 4];
        for (dir, value) in game_core::Direction::ALL.into_iter().zip(decision.values) {
            values[gym_action(dir)] = value;
        }
        Ok((
            gym_action(decision.direction),
            values,
            decision.depth,
            decision.elapsed.as_secs_f64(),
            decision.endgame.map(|f| f.to_string()),
        ))
    }
}

/// The learned n-tuple network: the value of afterstates.
#[pyclass(module = "py2048._native")]
#[derive(Debug)]
pub(crate) struct Network {
    net: Arc<engine::Network>,
    #[pyo3(get)]
    path: String,
}

#[pymethods]
impl Network {
    #[new]
    fn new(py: Python<'_>, weights: PathBuf) -> PyResult<Network> {
        let net = py.detach(|| load_network(&weights))?;
        Ok(Network { net, path: weights.display().to_string() })
    }

    /// The value of each packed board, read as an afterstate (after a move,
    /// before the spawn): the score the network expects from there on.
    fn value<'py>(
        &self,
        py: Python<'py>,
        boards: PyReadonlyArray1<'py, u64>,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let boards = boards
            .as_slice()
            .map_err(|_| PyValueError::new_err("boards must be a contiguous array"))?
            .to_vec();
        let net = &self.net;
        let values: Vec<f32> =
            py.detach(|| boards.iter().map(|&raw| net.value(Board::from_raw(raw))).collect());
        Ok(values.into_pyarray(py))
    }
}

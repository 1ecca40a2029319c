//! Whole games and their records for Python's tournaments and comparisons
//! (`py2048.distributed`): a player that plays a seeded game to its end
//! without the GIL, the records file's format, and the paired statistics.
//! The games are `engine::play_game`'s and the format and the
//! statistics the `records` crate's, as in `lab tournament` and
//! `compare`, so that the same seeds give the same games and the same
//! report.

use std::path::PathBuf;

use engine::{ExpectimaxPlayer, Preset, SolverSpec};
use game_core::{AnyBoard, Game, GameBoard, Rules, RulesBuilder, Tile};
use pyo3::exceptions::{
    PyFileExistsError, PyFileNotFoundError, PyIsADirectoryError, PyOSError, PyPermissionError,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use records::Record;
use records::log::{Existing, Log, OpenError};
use records::paired::{Comparison, Reach, Scores, Sprt, Verdict, pairs};
use records::summary::Summary;

use crate::search::{EndgameTables, SolverParts, overrides_of, spec_error};
use crate::value_error;

/// A record as Python sees it: seed, score, max tile, moves, milliseconds,
/// the median and the 99th percentile of the time per move in microseconds
/// (`None` in records made before they were measured).
type RecordTuple = (u64, u64, u32, u64, f64, Option<u64>, Option<u64>);

fn tuple_of(r: &Record) -> RecordTuple {
    (
        r.seed,
        r.score,
        r.max_tile.value(),
        r.moves,
        r.millis,
        r.median_decision_micros,
        r.p99_decision_micros,
    )
}

/// A record from Python's tuple; a `ValueError` for a largest tile that
/// is not a tile.
fn record_of(t: &RecordTuple) -> PyResult<Record> {
    let (seed, score, max_tile, moves, millis, median, p99) = *t;
    Ok(Record {
        seed,
        score,
        max_tile: tile_of(max_tile)?,
        moves,
        millis,
        median_decision_micros: median,
        p99_decision_micros: p99,
    })
}

/// Records from Python's tuples.
fn records_of(tuples: &[RecordTuple]) -> PyResult<Vec<Record>> {
    tuples.iter().map(record_of).collect()
}

/// The tile of a value from Python, or a `ValueError`.
fn tile_of(value: u32) -> PyResult<Tile> {
    Tile::from_value(value).map_err(value_error)
}

/// A player of whole games: the search settings, the network and the
/// endgame tables, loaded once and shared by every game it plays.
#[pyclass(module = "py2048._native", frozen)]
#[derive(Debug)]
pub(crate) struct GamePlayer {
    parts: SolverParts,
    /// The board's rows (and columns), checked when the player is made.
    size: usize,
    rules: Rules,
}

#[pymethods]
impl GamePlayer {
    #[new]
    #[pyo3(signature = (preset, weights=None, endgame=None, settings=None, size=4, four_probability=0.1))]
    fn new(
        py: Python<'_>,
        preset: &str,
        weights: Option<PathBuf>,
        endgame: Option<PyRef<'_, EndgameTables>>,
        settings: Option<&Bound<'_, PyDict>>,
        size: usize,
        four_probability: f64,
    ) -> PyResult<GamePlayer> {
        let preset: Preset = preset.parse().map_err(value_error)?;
        let rules = RulesBuilder { four_probability, ..RulesBuilder::default() }
            .build()
            .map_err(value_error)?;
        AnyBoard::empty(size).map_err(value_error)?;
        if endgame.is_some() {
            SolverSpec::check_endgame_rules(size, &rules).map_err(|e| spec_error(&e))?;
        }
        let overrides = overrides_of(settings)?;
        let (parts, _) =
            SolverParts::new(py, size, preset, &overrides, weights, endgame.as_deref())?;
        Ok(GamePlayer { parts, size, rules })
    }

    /// The search threads each game uses (what a scheduler reserves).
    #[getter]
    fn threads(&self) -> usize {
        self.parts.threads
    }

    /// Plays the game of `seed` to its end (or `max_moves`) with the GIL
    /// released: a fresh solver for each game, as `lab tournament`
    /// plays it, so that the same seed gives the same game.
    #[pyo3(signature = (seed, max_moves=None))]
    fn play(&self, py: Python<'_>, seed: u64, max_moves: Option<u64>) -> PyResult<RecordTuple> {
        let record = py.detach(|| -> PyResult<Record> {
            let solver = self.parts.solver()?;
            let mut player = ExpectimaxPlayer::with_solver(solver);
            let game =
                Game::<AnyBoard>::with_size(self.size, self.rules, seed).map_err(value_error)?;
            Ok(engine::play_game(&mut player, game, max_moves))
        })?;
        Ok(tuple_of(&record))
    }
}

/// Whether the endgame tables can play under these rules: a `ValueError`
/// saying why not.
#[pyfunction]
fn check_endgame_rules(size: usize, four_probability: f64) -> PyResult<()> {
    let rules = RulesBuilder { four_probability, ..RulesBuilder::default() }
        .build()
        .map_err(value_error)?;
    SolverSpec::check_endgame_rules(size, &rules).map_err(|e| spec_error(&e))
}

/// How many tables the endgame tables of at most `max_states` states are
/// (all of them without a limit): what names them in a records file.
#[pyfunction]
#[pyo3(signature = (max_states=None, preset=None))]
fn endgame_table_count(max_states: Option<u64>, preset: Option<&str>) -> PyResult<usize> {
    let preset = match preset {
        Some(name) => name.parse().map_err(value_error)?,
        None => engine::DEFAULT_PRESET,
    };
    Ok(engine::formations_for(preset, max_states).len())
}

/// The checksum a weights file's header keeps of its weights, as the
/// records files' settings lines name a network (0 for a file that is not
/// a weights file, as `lab export-weights` writes it).
#[pyfunction]
fn weights_checksum(path: PathBuf) -> u64 {
    engine::weights_checksum(&path).unwrap_or(0)
}

/// The settings that decide a player's games, as `lab tournament`
/// names them in a records file's first line (the engine writes both), so
/// that a file one of them wrote resumes in the other.
#[pyfunction]
#[pyo3(signature = (preset, weights=None, endgame=false, tables_max_states=None, settings=None, size=4, four_probability=0.1, max_moves=None))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments
fn settings_line(
    preset: &str,
    weights: Option<PathBuf>,
    endgame: bool,
    tables_max_states: Option<u64>,
    settings: Option<&Bound<'_, PyDict>>,
    size: usize,
    four_probability: f64,
    max_moves: Option<u64>,
) -> PyResult<String> {
    let preset: Preset = preset.parse().map_err(value_error)?;
    let rules = RulesBuilder { four_probability, ..RulesBuilder::default() }
        .build()
        .map_err(value_error)?;
    AnyBoard::empty(size).map_err(value_error)?;
    let overrides = overrides_of(settings)?;
    let spec = SolverSpec::new(preset).with_overrides(overrides).with_weights(weights);
    let plays_tables = endgame || spec.needs_tables();
    let tables =
        plays_tables.then(|| engine::formations_for(spec.preset(), tables_max_states).len());
    Ok(spec.settings_line(tables) + &engine::rules_line(size, &rules, max_moves))
}

/// A records file open for a run, as `lab tournament --csv` opens
/// one (`records::log`'s rules): a file that holds games is refused unless
/// `resume` (keep its games, when it names the same settings) or `force`
/// (write over it); a resumed file's last line cut short is dropped.
#[pyclass(module = "py2048._native")]
#[derive(Debug)]
pub(crate) struct RecordsLog {
    /// `None` once closed.
    log: Option<Log>,
    earlier: Vec<RecordTuple>,
    dropped: Option<String>,
}

#[pymethods]
impl RecordsLog {
    #[new]
    fn new(path: PathBuf, resume: bool, force: bool, settings: &str) -> PyResult<RecordsLog> {
        let existing = match (resume, force) {
            (true, _) => Existing::Resume,
            (false, true) => Existing::Overwrite,
            (false, false) => Existing::Refuse,
        };
        let opened =
            Log::open(&path, existing, settings, engine::same_settings).map_err(open_error)?;
        Ok(RecordsLog {
            earlier: opened.earlier.iter().map(tuple_of).collect(),
            dropped: opened.dropped.map(|d| format!("{}: {d}", path.display())),
            log: Some(opened.log),
        })
    }

    /// The games the file held (resumed), in file order.
    #[getter]
    fn earlier(&self) -> Vec<RecordTuple> {
        self.earlier.clone()
    }

    /// The warning about a last line cut short and dropped, if there was one.
    #[getter]
    fn dropped(&self) -> Option<String> {
        self.dropped.clone()
    }

    /// Appends a game's line, in one write, at once.
    fn append(&mut self, record: RecordTuple) -> PyResult<()> {
        let log = self.log.as_mut().ok_or_else(|| value_error("the records file is closed"))?;
        log.append(&record_of(&record)?).map_err(|e| {
            let message = format!("cannot write {}: {e}", log.path().display());
            io_error(e.kind(), message)
        })
    }

    /// Closes the file.
    fn close(&mut self) {
        self.log = None;
    }
}

/// Why a records file cannot be opened, as the Python exception of its
/// kind: `FileExistsError` with how to go on, an `OSError` of the
/// system's reason, or a `ValueError` for a file that cannot be resumed.
fn open_error(err: OpenError) -> PyErr {
    match &err {
        OpenError::Exists { .. } => PyFileExistsError::new_err(format!(
            "{err}: resume=True keeps its games and plays only the seeds it lacks, force=True \
             writes over it"
        )),
        OpenError::Io { source, .. } => io_error(source.kind(), err.to_string()),
        _ => value_error(err),
    }
}

/// An `OSError` of the subclass Python gives `kind`, with `message`.
fn io_error(kind: std::io::ErrorKind, message: String) -> PyErr {
    use std::io::ErrorKind;
    match kind {
        ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
        ErrorKind::PermissionDenied => PyPermissionError::new_err(message),
        ErrorKind::IsADirectory => PyIsADirectoryError::new_err(message),
        _ => PyOSError::new_err(message),
    }
}

/// The records of a records file's text; a `ValueError` saying which line
/// is bad.
#[pyfunction]
fn read_csv(text: &str) -> PyResult<Vec<RecordTuple>> {
    let records = records::read_csv(text).map_err(value_error)?;
    Ok(records.iter().map(tuple_of).collect())
}

/// The settings a records file's "made by" line names, if it has one.
#[pyfunction]
fn made_by(text: &str) -> Option<&str> {
    records::made_by(text)
}

/// The records crate's summary of `records`, as a dict: `games`,
/// `mean_score`, `median_score`, `percentiles` (min, 10, 25, 50, 75, 90,
/// max; nearest rank), `moves`, `millis`, `reached` (tile: games, for
/// `tiles`).
#[pyfunction]
fn summary(
    py: Python<'_>,
    records: Vec<RecordTuple>,
    tiles: Vec<u32>,
) -> PyResult<Py<pyo3::types::PyDict>> {
    let records = records_of(&records)?;
    let s = Summary::of(&records);
    let p = s.percentiles;
    let d = pyo3::types::PyDict::new(py);
    d.set_item("games", s.games)?;
    d.set_item("mean_score", s.mean_score)?;
    d.set_item("median_score", s.median_score)?;
    d.set_item("percentiles", (p.min, p.p10, p.p25, p.median, p.p75, p.p90, p.max))?;
    d.set_item("moves", s.moves)?;
    d.set_item("millis", s.millis)?;
    let reached = pyo3::types::PyDict::new(py);
    for tile in tiles {
        reached.set_item(tile, s.reached(tile_of(tile)?))?;
    }
    d.set_item("reached", reached)?;
    Ok(d.unbind())
}

/// The SPRT of `(delta0, delta1, alpha, beta)`, or a `ValueError`.
fn sprt_of(sprt: Option<(f64, f64, f64, f64)>) -> PyResult<Option<Sprt>> {
    sprt.map(|(d0, d1, alpha, beta)| Sprt::new(d0, d1, alpha, beta).map_err(value_error))
        .transpose()
}

/// Checks an SPRT's hypotheses and error rates: a `ValueError` if it
/// cannot take them.
#[pyfunction]
fn check_sprt(sprt: (f64, f64, f64, f64)) -> PyResult<()> {
    sprt_of(Some(sprt)).map(|_| ())
}

/// The paired figures of two players' records of the same seeds, for
/// `tile`, as a dict; with `sprt`, its verdict and the first prefix of
/// seeds on which it decided.
#[pyfunction]
#[pyo3(signature = (a, b, tile, sprt=None))]
fn paired(
    py: Python<'_>,
    a: Vec<RecordTuple>,
    b: Vec<RecordTuple>,
    tile: u32,
    sprt: Option<(f64, f64, f64, f64)>,
) -> PyResult<Py<pyo3::types::PyDict>> {
    let sprt = sprt_of(sprt)?;
    let (a, b) = (records_of(&a)?, records_of(&b)?);
    let done = pairs(&a, &b);
    let tile = tile_of(tile)?;
    let reach = Reach::of(&done, tile);
    let (low, high) = reach.interval();
    let scores = Scores::of(&done);
    let d = pyo3::types::PyDict::new(py);
    d.set_item("games", done.len())?;
    d.set_item("tile", tile.value())?;
    d.set_item("reached_a", reach.a)?;
    d.set_item("reached_b", reach.b)?;
    d.set_item("only_a", reach.only_a)?;
    d.set_item("only_b", reach.only_b)?;
    d.set_item("difference", reach.difference())?;
    d.set_item("interval", (low, high))?;
    d.set_item("mcnemar_p", reach.mcnemar_p())?;
    d.set_item("b_higher", scores.higher)?;
    d.set_item("b_lower", scores.lower)?;
    d.set_item("median_score_difference", scores.median_difference)?;
    d.set_item("sign_p", scores.sign_p())?;
    if let Some(t) = sprt {
        let (verdict, llr) = t.verdict(&done, tile);
        let verdict = match verdict {
            Verdict::H0 => Some("H0"),
            Verdict::H1 => Some("H1"),
            Verdict::Continue => None,
        };
        d.set_item("verdict", verdict)?;
        d.set_item("llr", llr)?;
        d.set_item("bounds", t.bounds())?;
        d.set_item("stopping_point", t.stopping_point(&done, tile))?;
    }
    Ok(d.unbind())
}

/// `lab compare`'s report of two players' records of the same seeds
/// (`a_name`, `b_name`: how each was chosen).
#[pyfunction]
#[pyo3(signature = (a_name, b_name, first_seed, tile, a, b, sprt=None))]
fn compare_report(
    a_name: &str,
    b_name: &str,
    first_seed: u64,
    tile: u32,
    a: Vec<RecordTuple>,
    b: Vec<RecordTuple>,
    sprt: Option<(f64, f64, f64, f64)>,
) -> PyResult<String> {
    let sprt = sprt_of(sprt)?;
    let (a, b) = (records_of(&a)?, records_of(&b)?);
    let comparison = Comparison { a: a_name, b: b_name, first_seed, tile: tile_of(tile)? };
    Ok(comparison.report(&pairs(&a, &b), sprt.as_ref()))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<GamePlayer>()?;
    m.add_class::<RecordsLog>()?;
    m.add_function(wrap_pyfunction!(endgame_table_count, m)?)?;
    m.add_function(wrap_pyfunction!(check_endgame_rules, m)?)?;
    m.add_function(wrap_pyfunction!(weights_checksum, m)?)?;
    m.add_function(wrap_pyfunction!(settings_line, m)?)?;
    m.add_function(wrap_pyfunction!(read_csv, m)?)?;
    m.add_function(wrap_pyfunction!(made_by, m)?)?;
    m.add_function(wrap_pyfunction!(check_sprt, m)?)?;
    m.add_function(wrap_pyfunction!(summary, m)?)?;
    m.add_function(wrap_pyfunction!(paired, m)?)?;
    m.add_function(wrap_pyfunction!(compare_report, m)?)?;
    Ok(())
}

//! One environment's state for `py2048.Env2048`: a game-core [`Game`] of any
//! size, the stream its episode seeds come from, and the observation and
//! illegal-action settings. One call per step returns everything the
//! Python side puts in the step's tuple and `info`.

use game_core::{
    AnyBoard, Game, GameBoard, GameRng, Grid, PlayError, Rules, RulesBuilder, SavedGame,
};
use numpy::ndarray::{Array2, ArrayD, IxDyn};
use numpy::{PyArray1, PyArray2, PyArrayDyn, PyReadonlyArray2, ToPyArray};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::batch::grid_of;
use crate::encode::{Encoding, Illegal, cells, mask};
use crate::{direction, value_error};

/// The game `saved` holds under `rules`, in an environment that plays
/// boards of `size` (which the board must have).
fn restore(saved: SavedGame<Grid>, size: usize, rules: Rules) -> PyResult<Game<AnyBoard>> {
    if saved.board.size() != size {
        return Err(PyValueError::new_err(format!(
            "the board is {b}x{b} but this environment plays {size}x{size}",
            b = saved.board.size(),
        )));
    }
    let SavedGame { board, score, moves, seed, spawns } = saved;
    let saved = SavedGame { board: AnyBoard::from(board), score, moves, seed, spawns };
    Ok(Game::restore(saved, rules))
}

/// The constructor's arguments, as `__getnewargs__` gives them to pickle.
type NewArgs = (usize, f64, String, usize, String, f64);

/// What pickle keeps of an environment besides its settings: the seed
/// stream's state, the board's exponents, the score, the moves, the game's
/// seed, the spawns' state and the illegal actions so far.
type State = (Vec<u8>, Vec<u8>, u64, u64, u64, Vec<u8>, u64);

/// 48 bytes of a random source's state, or a `ValueError`.
fn rng_state(bytes: &[u8]) -> PyResult<[u8; 48]> {
    bytes.try_into().map_err(|_| {
        PyValueError::new_err(format!(
            "a pickled environment's random state is 48 bytes, not {}",
            bytes.len()
        ))
    })
}

/// What one step returns: observation, reward, terminated, whether the
/// action was legal, the score it gained, the action mask, the board's
/// exponents, the score, the largest exponent, the illegal actions so far.
type StepResult<'py> = (
    Bound<'py, PyArrayDyn<u8>>,
    f64,
    bool,
    bool,
    u32,
    Bound<'py, PyArray1<i8>>,
    Bound<'py, PyArray2<u8>>,
    u64,
    u8,
    u64,
);

/// The state of one environment.
#[pyclass(module = "py2048._native")]
#[derive(Debug)]
pub(crate) struct EnvCore {
    args: NewArgs,
    /// The board's rows (and columns).
    size: usize,
    rules: Rules,
    encoding: Encoding,
    illegal: Illegal,
    seeder: GameRng,
    game: Game<AnyBoard>,
    illegal_count: u64,
}

#[pymethods]
impl EnvCore {
    #[new]
    #[pyo3(signature = (size, four_probability, obs_mode, max_pow, illegal_action, illegal_penalty))]
    fn new(
        size: usize,
        four_probability: f64,
        obs_mode: &str,
        max_pow: usize,
        illegal_action: &str,
        illegal_penalty: f64,
    ) -> PyResult<EnvCore> {
        let rules = RulesBuilder { four_probability, ..RulesBuilder::default() }
            .build()
            .map_err(value_error)?;
        let encoding = Encoding::parse(obs_mode, max_pow)?;
        let illegal = Illegal::parse(illegal_action, illegal_penalty)?;
        let mut seeder = GameRng::new(0);
        // The size is checked here, once: every later game is renewed from this one.
        let game = Game::with_size(size, rules, seeder.next_u64()).map_err(value_error)?;
        let args = (
            size,
            four_probability,
            obs_mode.to_owned(),
            max_pow,
            illegal_action.to_owned(),
            illegal_penalty,
        );
        Ok(EnvCore { args, size, rules, encoding, illegal, seeder, game, illegal_count: 0 })
    }

    /// The constructor's arguments (pickle calls `__new__` with them).
    fn __getnewargs__(&self) -> NewArgs {
        self.args.clone()
    }

    /// Everything else pickle and `copy.deepcopy` keep.
    fn __getstate__(&self) -> State {
        let saved = self.game.save();
        (
            self.seeder.state().to_vec(),
            saved.board.to_grid().cells().to_vec(),
            saved.score,
            saved.moves,
            saved.seed,
            saved.spawns.to_vec(),
            self.illegal_count,
        )
    }

    /// Restores what `__getstate__` kept: the environment then goes on
    /// exactly as the original would.
    fn __setstate__(&mut self, state: State) -> PyResult<()> {
        let (seeder, cells, score, moves, seed, spawns, illegal_count) = state;
        let n = self.size;
        if cells.len() != n * n {
            return Err(PyValueError::new_err(format!(
                "a pickled {n}x{n} environment has {} cells, not {}",
                cells.len(),
                n * n
            )));
        }
        let mut board = Grid::empty(n).map_err(value_error)?;
        for (i, &e) in cells.iter().enumerate() {
            board = board.set_exponent(i / n, i % n, e).map_err(value_error)?;
        }
        let saved = SavedGame { board, score, moves, seed, spawns: rng_state(&spawns)? };
        self.game = restore(saved, self.size, self.rules)?;
        self.seeder = GameRng::from_state(rng_state(&seeder)?);
        self.illegal_count = illegal_count;
        Ok(())
    }

    /// Puts a board of exponents `(n, n)` in the game: the score, the moves
    /// and the spawns go on from there.
    fn set_board(&mut self, exponents: PyReadonlyArray2<'_, u8>) -> PyResult<()> {
        let SavedGame { score, moves, seed, spawns, .. } = self.game.save();
        let saved = SavedGame { board: grid_of(&exponents)?, score, moves, seed, spawns };
        self.game = restore(saved, self.size, self.rules)?;
        Ok(())
    }

    /// Sets the game's score (`env.total_score = n`): the board, the moves
    /// and the spawns go on as they were.
    fn set_score(&mut self, score: u64) {
        let saved = SavedGame { score, ..self.game.save() };
        self.game = Game::restore(saved, self.rules);
    }

    /// Sets the episode's count of illegal actions (`env.illegal_count = n`).
    fn set_illegal_count(&mut self, count: u64) {
        self.illegal_count = count;
    }

    /// Restarts the stream of episode seeds from `seed`.
    fn seed(&mut self, seed: u64) {
        self.seeder = GameRng::new(seed);
    }

    /// A new game, seeded by the next seed of the stream; its observation.
    fn reset<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<u8>>> {
        self.game = self.game.renewed(self.seeder.next_u64());
        self.illegal_count = 0;
        Ok(self.observation(py))
    }

    /// Plays `action` (0 up, 1 right, 2 down, 3 left).
    fn step<'py>(&mut self, py: Python<'py>, action: i64) -> PyResult<StepResult<'py>> {
        let dir = direction(action)?;
        let played = self.game.play(dir);
        let (reward, ended_by_rule, legal, gained) = match played {
            Ok(turn) => (f64::from(turn.score_gained), false, true, turn.score_gained),
            Err(PlayError::NothingMoves(_) | PlayError::GameOver) => {
                self.illegal_count += 1;
                let (reward, ends) = self.illegal.outcome();
                (reward, ends, false, 0)
            }
        };
        let terminated = ended_by_rule || self.is_over();
        Ok((
            self.observation(py),
            reward,
            terminated,
            legal,
            gained,
            self.action_mask(py),
            self.exponents(py),
            self.score(),
            self.max_exponent(),
            self.illegal_count,
        ))
    }

    /// The observation of the current board (a new array).
    fn observation<'py>(&self, py: Python<'py>) -> Bound<'py, PyArrayDyn<u8>> {
        let n = self.size;
        let per_cell = self.encoding.per_cell();
        let mut out = vec![0u8; n * n * per_cell];
        self.encoding.write(cells(self.game.board()), &mut out);
        let shape: &[usize] = match self.encoding {
            Encoding::OneHot { channels } => &[n, n, channels],
            Encoding::Exponents => &[n, n],
        };
        // One numpy allocation of the right shape (a step makes three arrays,
        // and their making is most of a step's time).
        ArrayD::from_shape_vec(IxDyn(shape), out).expect("the shape fits the data").to_pyarray(py)
    }

    /// The board's exponents, `(n, n)` (a new array).
    fn exponents<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<u8>> {
        let n = self.size;
        let flat: Vec<u8> = cells(self.game.board()).collect();
        Array2::from_shape_vec((n, n), flat).expect("n * n cells").to_pyarray(py)
    }

    /// Which actions change the board, int8 in gymnasium order.
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        let m = mask(self.game.board());
        PyArray1::from_slice(py, &m)
    }

    /// Whether no action changes the board.
    fn is_over(&self) -> bool {
        self.game.board().is_game_over()
    }

    /// The score so far.
    fn score(&self) -> u64 {
        self.game.score()
    }

    /// Moves played so far.
    fn moves(&self) -> u64 {
        self.game.moves()
    }

    /// Illegal actions so far this episode.
    fn illegal_count(&self) -> u64 {
        self.illegal_count
    }

    /// The largest exponent on the board.
    fn max_exponent(&self) -> u8 {
        self.game.board().max_exponent()
    }

    /// The board in game-core's one-line notation.
    fn board_text(&self) -> String {
        self.game.board().to_string()
    }

    /// The packed board (4x4 games only, and none once a tile past 32768
    /// is on the board: a `u64` cannot hold it).
    fn packed(&self) -> Option<u64> {
        self.game.board().packed()
    }
}

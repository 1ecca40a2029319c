//! One environment's state for `py2048.Env2048`: a game-core [`Game`] of any
//! size, the stream its episode seeds come from, and the observation and
//! illegal-action settings. One call per step returns everything the
//! Python side puts in the step's tuple and `info`.

use game_core::{Board, Game, GameBoard, GameRng, Grid, PlayError, Rules, RulesBuilder};
use numpy::ndarray::{Array2, ArrayD, IxDyn};
use numpy::{PyArray1, PyArray2, PyArrayDyn, ToPyArray};
use pyo3::prelude::*;

use crate::encode::{Encoding, Illegal, cells, mask};
use crate::{direction, value_error};

/// A game on the packed board (4x4) or on a grid (other sizes).
#[derive(Debug, Clone)]
enum AnyGame {
    Packed(Game<Board>),
    Grid(Game<Grid>),
}

/// Runs `$body` with `$g` bound to the game, whatever its board type.
macro_rules! with_game {
    ($game:expr, $g:ident => $body:expr) => {
        match $game {
            AnyGame::Packed($g) => $body,
            AnyGame::Grid($g) => $body,
        }
    };
}

impl AnyGame {
    fn new(rules: Rules, seed: u64) -> PyResult<AnyGame> {
        let game = if rules.size() == 4 {
            AnyGame::Packed(Game::new(rules, seed).map_err(value_error)?)
        } else {
            AnyGame::Grid(Game::new(rules, seed).map_err(value_error)?)
        };
        Ok(game)
    }
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
    rules: Rules,
    encoding: Encoding,
    illegal: Illegal,
    seeder: GameRng,
    game: AnyGame,
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
        let rules = RulesBuilder { size, four_probability, ..RulesBuilder::default() }
            .build()
            .map_err(value_error)?;
        let encoding = Encoding::parse(obs_mode, max_pow)?;
        let illegal = Illegal::parse(illegal_action, illegal_penalty)?;
        let mut seeder = GameRng::new(0);
        let game = AnyGame::new(rules, seeder.next_u64())?;
        Ok(EnvCore { rules, encoding, illegal, seeder, game, illegal_count: 0 })
    }

    /// Restarts the stream of episode seeds from `seed`.
    fn seed(&mut self, seed: u64) {
        self.seeder = GameRng::new(seed);
    }

    /// A new game, seeded by the next seed of the stream; its observation.
    fn reset<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<u8>>> {
        self.game = AnyGame::new(self.rules, self.seeder.next_u64())?;
        self.illegal_count = 0;
        Ok(self.observation(py))
    }

    /// Plays `action` (0 up, 1 right, 2 down, 3 left).
    fn step<'py>(&mut self, py: Python<'py>, action: i64) -> PyResult<StepResult<'py>> {
        let dir = direction(action)?;
        let played = with_game!(&mut self.game, g => g.play(dir));
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
        let n = self.rules.size();
        let per_cell = self.encoding.per_cell();
        let mut out = vec![0u8; n * n * per_cell];
        with_game!(&self.game, g => self.encoding.write(cells(g.board()), &mut out));
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
        let n = self.rules.size();
        let flat: Vec<u8> = with_game!(&self.game, g => cells(g.board()).collect());
        Array2::from_shape_vec((n, n), flat).expect("n * n cells").to_pyarray(py)
    }

    /// Which actions change the board, int8 in gymnasium order.
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        let m = with_game!(&self.game, g => mask(g.board()));
        PyArray1::from_slice(py, &m)
    }

    /// Whether no action changes the board.
    fn is_over(&self) -> bool {
        with_game!(&self.game, g => g.board().is_game_over())
    }

    /// The score so far.
    fn score(&self) -> u64 {
        with_game!(&self.game, g => g.score())
    }

    /// Moves played so far.
    fn moves(&self) -> u64 {
        with_game!(&self.game, g => g.moves())
    }

    /// Illegal actions so far this episode.
    fn illegal_count(&self) -> u64 {
        self.illegal_count
    }

    /// The largest exponent on the board.
    fn max_exponent(&self) -> u8 {
        with_game!(&self.game, g => g.board().max_exponent())
    }

    /// The board in game-core's one-line notation.
    fn board_text(&self) -> String {
        with_game!(&self.game, g => g.board().to_string())
    }

    /// The packed board (4x4 games only, and none once a tile past 32768
    /// is on the board: a `u64` cannot hold it).
    fn packed(&self) -> Option<u64> {
        match &self.game {
            AnyGame::Packed(g) => g.board().packed(),
            AnyGame::Grid(_) => None,
        }
    }
}

//! N 4x4 environments stepped in one call for `py2048.VectorEnv2048`, with
//! gymnasium's next-step autoreset (an episode that ended on one step is
//! reset on the next, whose action for it is ignored), or for the
//! stable-baselines3 adapter with same-step autoreset (an episode that ends
//! is reset at once; its last observation is returned beside).

use game_core::{Board, Game, GameBoard, GameRng, PlayError, Rules, RulesBuilder};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayDyn, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;

use crate::encode::{Encoding, Illegal, mask, packed_cells};
use crate::{GYM_DIRECTIONS, value_error};

/// One environment of the batch.
#[derive(Debug, Clone)]
struct Slot {
    game: Game<Board>,
    /// The stream of this environment's episode seeds.
    seeder: GameRng,
    /// The last step ended the episode: the next one resets.
    pending_reset: bool,
    steps: u64,
    /// Illegal actions this episode.
    illegal: u64,
}

/// What one batched step returns: observations, rewards, terminations,
/// truncations, the infos and, under same-step autoreset, the ended
/// episodes.
type StepResult<'py> = (
    Bound<'py, PyArrayDyn<u8>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<bool>>,
    Infos<'py>,
    Ended<'py>,
);

/// Per environment: the action mask `(N, 4)`, the score, whether the action
/// was legal, the score it gained, the largest exponent and the episode's
/// illegal actions so far.
type Infos<'py> = (
    Bound<'py, PyArray2<i8>>,
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<u8>>,
    Bound<'py, PyArray1<u64>>,
);

/// Under same-step autoreset: the environments whose episode ended on this
/// step, their last observations and their final scores (empty otherwise).
type Ended<'py> =
    (Bound<'py, PyArray1<u64>>, Bound<'py, PyArrayDyn<u8>>, Bound<'py, PyArray1<u64>>);

/// The outputs of a step, filled with the GIL released.
#[derive(Debug)]
struct Outputs {
    obs: Vec<u8>,
    rewards: Vec<f64>,
    terminated: Vec<bool>,
    truncated: Vec<bool>,
    masks: Vec<i8>,
    scores: Vec<u64>,
    legal: Vec<bool>,
    gained: Vec<u32>,
    max: Vec<u8>,
    illegal: Vec<u64>,
    /// Same-step autoreset: the environments whose episode ended, their
    /// last observations (one after another) and final scores.
    ended: Vec<u64>,
    last_obs: Vec<u8>,
    last_scores: Vec<u64>,
}

/// A vector of `n` copies of `value`, or a `MemoryError` (not an abort) when
/// the memory cannot be had.
fn try_vec<T: Clone>(n: usize, value: T) -> PyResult<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| memory_error(n.saturating_mul(size_of::<T>())))?;
    v.resize(n, value);
    Ok(v)
}

fn memory_error(bytes: usize) -> PyErr {
    PyMemoryError::new_err(format!(
        "cannot allocate {:.1} GB for the batch: use fewer environments",
        bytes as f64 / 1e9
    ))
}

impl Outputs {
    fn new(n: usize, per_cell: usize) -> PyResult<Outputs> {
        Ok(Outputs {
            obs: try_vec(n.saturating_mul(16 * per_cell), 0)?,
            rewards: try_vec(n, 0.0)?,
            terminated: try_vec(n, false)?,
            truncated: try_vec(n, false)?,
            masks: try_vec(n.saturating_mul(4), 0)?,
            scores: try_vec(n, 0)?,
            legal: try_vec(n, true)?,
            gained: try_vec(n, 0)?,
            max: try_vec(n, 0)?,
            illegal: try_vec(n, 0)?,
            ended: Vec::new(),
            last_obs: Vec::new(),
            last_scores: Vec::new(),
        })
    }

    /// The bytes of one step's outputs for `n` environments.
    fn bytes(n: usize, per_cell: usize) -> usize {
        n.saturating_mul(16 * per_cell + 8 + 1 + 1 + 4 + 8 + 1 + 4 + 1 + 8)
    }
}

/// The state of N environments.
#[pyclass(module = "py2048._native")]
#[derive(Debug)]
pub(crate) struct VecCore {
    rules: Rules,
    encoding: Encoding,
    illegal: Illegal,
    max_steps: Option<u64>,
    /// Reset an ended episode at once (stable-baselines3) rather than on
    /// the next step (gymnasium).
    same_step: bool,
    slots: Vec<Slot>,
}

impl VecCore {
    fn new_game(&self, seeder: &mut GameRng) -> Game<Board> {
        // The rules are 4x4 (checked in `new`), which the packed board has.
        Game::new(self.rules, seeder.next_u64()).expect("4x4 rules")
    }

    /// Writes slot `i`'s observation, mask and score into `out`.
    fn observe(encoding: Encoding, i: usize, slot: &Slot, out: &mut Outputs) {
        let stride = 16 * encoding.per_cell();
        let board = *slot.game.board();
        encoding.write(packed_cells(board), &mut out.obs[i * stride..(i + 1) * stride]);
        out.masks[i * 4..i * 4 + 4].copy_from_slice(&mask(&board));
        out.scores[i] = slot.game.score();
        out.max[i] = board.max_exponent();
        out.illegal[i] = slot.illegal;
    }

    fn shape(&self) -> Vec<usize> {
        let n = self.slots.len();
        match self.encoding {
            Encoding::OneHot { channels } => vec![n, 4, 4, channels],
            Encoding::Exponents => vec![n, 4, 4],
        }
    }

    fn to_python<'py>(&self, py: Python<'py>, out: Outputs) -> PyResult<StepResult<'py>> {
        let n = self.slots.len();
        let mut last_shape = self.shape();
        last_shape[0] = out.ended.len();
        Ok((
            out.obs.into_pyarray(py).reshape(self.shape())?,
            out.rewards.into_pyarray(py),
            out.terminated.into_pyarray(py),
            out.truncated.into_pyarray(py),
            (
                out.masks.into_pyarray(py).reshape([n, 4])?,
                out.scores.into_pyarray(py),
                out.legal.into_pyarray(py),
                out.gained.into_pyarray(py),
                out.max.into_pyarray(py),
                out.illegal.into_pyarray(py),
            ),
            (
                out.ended.into_pyarray(py),
                out.last_obs.into_pyarray(py).reshape(last_shape)?,
                out.last_scores.into_pyarray(py),
            ),
        ))
    }
}

#[pymethods]
impl VecCore {
    #[new]
    #[pyo3(signature = (num_envs, four_probability, obs_mode, max_pow, illegal_action, illegal_penalty, max_steps, same_step=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        num_envs: usize,
        four_probability: f64,
        obs_mode: &str,
        max_pow: usize,
        illegal_action: &str,
        illegal_penalty: f64,
        max_steps: Option<u64>,
        same_step: bool,
    ) -> PyResult<VecCore> {
        if num_envs == 0 {
            return Err(PyValueError::new_err("num_envs must be at least 1"));
        }
        if max_steps == Some(0) {
            return Err(PyValueError::new_err("max_episode_steps must be at least 1"));
        }
        let rules = RulesBuilder { four_probability, ..RulesBuilder::default() }
            .build()
            .map_err(value_error)?;
        let encoding = Encoding::parse(obs_mode, max_pow)?;
        // The environments and one step's outputs must fit: ask for both
        // now, so that a batch too large is a MemoryError here rather than
        // an abort on the first step.
        let slot_bytes = num_envs.saturating_mul(size_of::<Slot>());
        let step_bytes = Outputs::bytes(num_envs, encoding.per_cell());
        let mut probe: Vec<u8> = Vec::new();
        probe
            .try_reserve_exact(slot_bytes.saturating_add(step_bytes))
            .map_err(|_| memory_error(slot_bytes.saturating_add(step_bytes)))?;
        drop(probe);
        let mut slots = Vec::new();
        slots.try_reserve_exact(num_envs).map_err(|_| memory_error(slot_bytes))?;
        let mut core = VecCore {
            rules,
            encoding,
            illegal: Illegal::parse(illegal_action, illegal_penalty)?,
            max_steps,
            same_step,
            slots,
        };
        for i in 0..num_envs {
            let mut seeder = GameRng::new(i as u64);
            let game = core.new_game(&mut seeder);
            core.slots.push(Slot { game, seeder, pending_reset: false, steps: 0, illegal: 0 });
        }
        Ok(core)
    }

    /// The number of environments.
    fn __len__(&self) -> usize {
        self.slots.len()
    }

    /// Restarts the stream of episode seeds of each environment whose seed
    /// is not `None`.
    fn seed(&mut self, seeds: Vec<Option<u64>>) -> PyResult<()> {
        if seeds.len() != self.slots.len() {
            return Err(PyValueError::new_err(format!(
                "{} seeds for {} environments",
                seeds.len(),
                self.slots.len()
            )));
        }
        for (slot, seed) in self.slots.iter_mut().zip(seeds) {
            if let Some(seed) = seed {
                slot.seeder = GameRng::new(seed);
            }
        }
        Ok(())
    }

    /// New games in the environments `mask` selects (all when `None`); the
    /// same tuple as `step` for every environment (rewards 0, nothing
    /// terminated; the others' observations as they stand).
    #[pyo3(signature = (mask=None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        mask: Option<Vec<bool>>,
    ) -> PyResult<StepResult<'py>> {
        let n = self.slots.len();
        if let Some(m) = &mask
            && m.len() != n
        {
            return Err(PyValueError::new_err(format!(
                "a reset mask of {} entries for {n} environments",
                m.len()
            )));
        }
        let mut out = Outputs::new(n, self.encoding.per_cell())?;
        let encoding = self.encoding;
        let rules = self.rules;
        let slots = &mut self.slots;
        py.detach(|| {
            for (i, slot) in slots.iter_mut().enumerate() {
                if mask.as_ref().is_none_or(|m| m[i]) {
                    slot.game = Game::new(rules, slot.seeder.next_u64()).expect("4x4 rules");
                    slot.pending_reset = false;
                    slot.steps = 0;
                    slot.illegal = 0;
                }
                VecCore::observe(encoding, i, slot, &mut out);
            }
        });
        self.to_python(py, out)
    }

    /// Plays one action per environment (0 up, 1 right, 2 down, 3 left);
    /// an environment whose episode ended on the last step is reset instead.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: PyReadonlyArray1<'py, i64>,
    ) -> PyResult<StepResult<'py>> {
        let n = self.slots.len();
        let actions = actions.as_slice().map_err(value_error)?;
        if actions.len() != n {
            return Err(PyValueError::new_err(format!(
                "{} actions for {n} environments (expected shape ({n},))",
                actions.len()
            )));
        }
        if let Some((i, a)) = actions.iter().enumerate().find(|(_, a)| !(0..4).contains(*a)) {
            return Err(PyValueError::new_err(format!(
                "action {a} at index {i} is not one of 0 (up), 1 (right), 2 (down), 3 (left)"
            )));
        }
        let actions = actions.to_vec();
        let mut out = Outputs::new(n, self.encoding.per_cell())?;
        let (encoding, illegal, max_steps, rules, same_step) =
            (self.encoding, self.illegal, self.max_steps, self.rules, self.same_step);
        let slots = &mut self.slots;
        py.detach(|| {
            for (i, (slot, &action)) in slots.iter_mut().zip(&actions).enumerate() {
                if slot.pending_reset {
                    slot.game = Game::new(rules, slot.seeder.next_u64()).expect("4x4 rules");
                    slot.pending_reset = false;
                    slot.steps = 0;
                    slot.illegal = 0;
                } else {
                    let (reward, ends) = match slot.game.play(GYM_DIRECTIONS[action as usize]) {
                        Ok(turn) => {
                            out.gained[i] = turn.score_gained;
                            (f64::from(turn.score_gained), false)
                        }
                        Err(PlayError::NothingMoves(_) | PlayError::GameOver) => {
                            out.legal[i] = false;
                            slot.illegal += 1;
                            illegal.outcome()
                        }
                    };
                    slot.steps += 1;
                    let terminated = ends || slot.game.board().is_game_over();
                    let truncated = !terminated && max_steps.is_some_and(|m| slot.steps >= m);
                    out.rewards[i] = reward;
                    out.terminated[i] = terminated;
                    out.truncated[i] = truncated;
                    slot.pending_reset = terminated || truncated;
                    if same_step && slot.pending_reset {
                        let stride = 16 * encoding.per_cell();
                        let at = out.last_obs.len();
                        out.last_obs.resize(at + stride, 0);
                        encoding.write(packed_cells(*slot.game.board()), &mut out.last_obs[at..]);
                        out.ended.push(i as u64);
                        out.last_scores.push(slot.game.score());
                        slot.game = Game::new(rules, slot.seeder.next_u64()).expect("4x4 rules");
                        slot.pending_reset = false;
                        slot.steps = 0;
                        slot.illegal = 0;
                    }
                }
                VecCore::observe(encoding, i, slot, &mut out);
            }
        });
        self.to_python(py, out)
    }

    /// The packed boards, one per environment; a `ValueError` naming the
    /// first environment whose board holds a tile past 32768, which no `u64`
    /// can (its observation and `masks` still can).
    fn boards<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let raw = self
            .slots
            .iter()
            .enumerate()
            .map(|(i, s)| {
                s.game.board().packed().ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "environment {i} holds a tile past 32768, which a packed uint64 \
                         board cannot: read its observation instead"
                    ))
                })
            })
            .collect::<PyResult<Vec<u64>>>()?;
        Ok(raw.into_pyarray(py))
    }

    /// Which actions change each board, `(N, 4)` int8 in gymnasium order
    /// (tiles past 32768 included).
    fn masks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<i8>>> {
        let flat: Vec<i8> = self.slots.iter().flat_map(|s| mask(s.game.board())).collect();
        flat.into_pyarray(py).reshape([self.slots.len(), 4])
    }
}

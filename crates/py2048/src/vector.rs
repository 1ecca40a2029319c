//! N 4x4 environments stepped in one call for `py2048.VectorEnv2048` and
//! the stable-baselines3 adapter, under one of gymnasium's autoreset modes
//! ([`Autoreset`]): next-step (an episode that ended on one step is reset on
//! the next, whose action for it is ignored), same-step (an episode that
//! ends is reset at once; its last observation and infos are returned
//! beside) or disabled (the caller resets it).

use game_core::{Board, Game, GameBoard, GameRng, PlayError, Rules, RulesBuilder, SavedGame};
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayDyn, PyArrayMethods, PyReadonlyArray1,
    PyReadwriteArray1, PyReadwriteArray2, PyReadwriteArrayDyn, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyMemoryError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use rayon::prelude::*;

use crate::encode::{Encoding, Illegal, mask, packed_cells};

use crate::{GYM_DIRECTIONS, value_error};

/// The fewest environments worth a thread of their own in `step_into`.
const PARALLEL_MIN: usize = 512;

/// When an ended episode starts again: gymnasium's `AutoresetMode`, by its
/// values' names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Autoreset {
    /// On the next step, whose action it ignores (gymnasium's default).
    NextStep,
    /// On the step that ended it: the step returns the new episode's first
    /// observation, and the ended one's last observation and infos beside.
    SameStep,
    /// Never: the caller resets it (`reset` with a mask), and stepping it
    /// before is an error.
    Disabled,
}

impl Autoreset {
    fn parse(name: &str) -> PyResult<Autoreset> {
        match name {
            "NextStep" => Ok(Autoreset::NextStep),
            "SameStep" => Ok(Autoreset::SameStep),
            "Disabled" => Ok(Autoreset::Disabled),
            _ => Err(PyValueError::new_err(format!(
                "autoreset_mode must be NextStep, SameStep or Disabled, got {name:?}"
            ))),
        }
    }
}

/// One environment of the batch.
#[derive(Debug, Clone)]
struct Slot {
    game: Game<Board>,
    /// The stream of this environment's episode seeds, used once an
    /// episode: boxed, so that its 300-odd bytes stay out of the array the
    /// step walks through (a 4,096-board step is bound by memory).
    seeder: Box<GameRng>,
    /// The last step ended the episode: the next one resets.
    pending_reset: bool,
    steps: u64,
    /// Illegal actions this episode.
    illegal: u64,
}

/// What one batched step returns: observations, rewards, terminations,
/// truncations, the infos and, under same-step autoreset, the ended
/// episodes' ([`Finals`]).
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
/// illegal actions so far. The counts are int64, as gymnasium batches the
/// Python ints of a single environment's info (gymnasium-2048's and
/// `Env2048`'s): a difference of two scores across a reset is then
/// negative, not a wrapped unsigned number.
type Infos<'py> = (
    Bound<'py, PyArray2<i8>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
);

/// Under same-step autoreset: the environments whose episode ended on this
/// step, their last observations and their last infos (empty otherwise).
type Ended<'py> = (Bound<'py, PyArray1<u64>>, Bound<'py, PyArrayDyn<u8>>, Infos<'py>);

/// Under same-step autoreset, the episodes that ended on a step: their
/// environments, last observations (one after another) and last infos (as
/// in [`Outputs`]), before the reset that follows at once.
#[derive(Debug, Default)]
struct Finals {
    index: Vec<u64>,
    obs: Vec<u8>,
    masks: Vec<i8>,
    scores: Vec<i64>,
    legal: Vec<bool>,
    gained: Vec<i64>,
    max: Vec<i64>,
    illegal: Vec<i64>,
}

impl Finals {
    /// Keeps environment `i`'s ended episode: `slot` as the step left it,
    /// `mask` its board's, and the step's legality and gain.
    fn push(
        &mut self,
        i: usize,
        encoding: Encoding,
        slot: &Slot,
        mask: [i8; 4],
        (legal, gained): (bool, u32),
    ) {
        let board = *slot.game.board();
        let at = self.obs.len();
        self.obs.resize(at + 16 * encoding.per_cell(), 0);
        encoding.write(packed_cells(board), &mut self.obs[at..]);
        self.index.push(i as u64);
        self.masks.extend_from_slice(&mask);
        self.scores.push(count(slot.game.score()));
        self.legal.push(legal);
        self.gained.push(i64::from(gained));
        self.max.push(i64::from(board.max_exponent()));
        self.illegal.push(count(slot.illegal));
    }
}

/// The outputs of a step, filled with the GIL released.
#[derive(Debug)]
struct Outputs {
    obs: Vec<u8>,
    rewards: Vec<f64>,
    terminated: Vec<bool>,
    truncated: Vec<bool>,
    masks: Vec<i8>,
    scores: Vec<i64>,
    legal: Vec<bool>,
    gained: Vec<i64>,
    max: Vec<i64>,
    illegal: Vec<i64>,
    finals: Finals,
}

/// A count as the infos' int64 (a score or a step count never nears
/// 2^63; were one past it, the largest int64 rather than a negative one).
fn count(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
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
            finals: Finals::default(),
        })
    }

    /// The bytes of one step's outputs for `n` environments.
    fn bytes(n: usize, per_cell: usize) -> usize {
        n.saturating_mul(16 * per_cell + 8 + 1 + 1 + 4 + 8 + 1 + 8 + 8 + 8)
    }

    fn sink(&mut self) -> Sink<'_> {
        Sink {
            obs: &mut self.obs,
            rewards: &mut self.rewards,
            terminated: &mut self.terminated,
            truncated: &mut self.truncated,
            masks: &mut self.masks,
            infos: Some(InfoSink {
                scores: &mut self.scores,
                legal: &mut self.legal,
                gained: &mut self.gained,
                max: &mut self.max,
                illegal: &mut self.illegal,
                finals: &mut self.finals,
            }),
        }
    }
}

/// Where a step writes: the arrays of gymnasium's step tuple and the masks,
/// and the infos unless the caller's fast path leaves them out. Every
/// environment's entries are written on every step (a caller's buffer holds
/// the last step's values).
struct Sink<'a> {
    obs: &'a mut [u8],
    rewards: &'a mut [f64],
    terminated: &'a mut [bool],
    truncated: &'a mut [bool],
    masks: &'a mut [i8],
    infos: Option<InfoSink<'a>>,
}

/// The infos part of a [`Sink`]: see [`Outputs`].
struct InfoSink<'a> {
    scores: &'a mut [i64],
    legal: &'a mut [bool],
    gained: &'a mut [i64],
    max: &'a mut [i64],
    illegal: &'a mut [i64],
    finals: &'a mut Finals,
}

/// The state of N environments.
#[pyclass(module = "py2048._native")]
#[derive(Debug)]
pub(crate) struct VecCore {
    args: VecArgs,
    rules: Rules,
    encoding: Encoding,
    illegal: Illegal,
    max_steps: Option<u64>,
    autoreset: Autoreset,
    slots: Vec<Slot>,
}

/// The constructor's arguments, as `__getnewargs__` gives them to pickle.
type VecArgs = (usize, f64, String, usize, String, f64, Option<u64>, String);

/// Bytes per environment in a pickled batch: the seed stream (48), the 16
/// exponents, score, moves and seed (8 each), the spawns (48), steps and
/// illegal actions (8 each) and the pending reset (1).
const SLOT_BYTES: usize = 48 + 16 + 8 * 3 + 48 + 8 * 2 + 1;

impl Slot {
    /// An environment whose episode seeds come from `seeder`, in its first
    /// episode.
    fn new(mut seeder: GameRng, rules: Rules) -> Slot {
        let game = Game::new(rules, seeder.next_u64());
        Slot { game, seeder: Box::new(seeder), pending_reset: false, steps: 0, illegal: 0 }
    }

    /// Starts the next episode, from the next seed of the stream.
    fn new_episode(&mut self) {
        self.game = self.game.renewed(self.seeder.next_u64());
        self.pending_reset = false;
        self.steps = 0;
        self.illegal = 0;
    }

    /// This environment, exactly, in [`SLOT_BYTES`] bytes.
    fn save(&self, out: &mut Vec<u8>) {
        let saved = self.game.save();
        out.extend_from_slice(&self.seeder.state());
        out.extend(saved.board.to_exponents().iter().flatten());
        for x in [saved.score, saved.moves, saved.seed] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out.extend_from_slice(&saved.spawns);
        out.extend_from_slice(&self.steps.to_le_bytes());
        out.extend_from_slice(&self.illegal.to_le_bytes());
        out.push(u8::from(self.pending_reset));
    }

    /// The environment [`Slot::save`] wrote into `b` ([`SLOT_BYTES`] long).
    fn restore(b: &[u8], rules: Rules) -> PyResult<Slot> {
        let word = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"));
        let state = |at: usize| -> [u8; 48] { b[at..at + 48].try_into().expect("48 bytes") };
        let mut rows = [[0u8; 4]; 4];
        for (i, &e) in b[48..64].iter().enumerate() {
            rows[i / 4][i % 4] = e;
        }
        let board = Board::from_exponents(rows).map_err(value_error)?;
        let saved = SavedGame {
            board,
            score: word(64),
            moves: word(72),
            seed: word(80),
            spawns: state(88),
        };
        Ok(Slot {
            game: Game::restore(saved, rules),
            seeder: Box::new(GameRng::from_state(state(0))),
            steps: word(136),
            illegal: word(144),
            pending_reset: b[152] != 0,
        })
    }
}

impl VecCore {
    /// Writes slot `i`'s observation, mask and infos into `out`.
    /// `legal` is the board's [`mask`], when the caller has it already.
    fn observe(
        encoding: Encoding,
        i: usize,
        slot: &Slot,
        out: &mut Sink<'_>,
        legal: Option<[i8; 4]>,
    ) {
        let stride = 16 * encoding.per_cell();
        let board = *slot.game.board();
        let obs = &mut out.obs[i * stride..(i + 1) * stride];
        if let Encoding::OneHot { .. } = encoding {
            // Exponents overwrite every byte; one-hot sets one per cell.
            obs.fill(0);
        }
        encoding.write(packed_cells(board), obs);
        let legal = legal.unwrap_or_else(|| mask(&board));
        out.masks[i * 4..i * 4 + 4].copy_from_slice(&legal);
        if let Some(infos) = &mut out.infos {
            infos.scores[i] = count(slot.game.score());
            infos.max[i] = i64::from(board.max_exponent());
            infos.illegal[i] = count(slot.illegal);
        }
    }

    /// Plays one action per slot (checked to be 0 to 3) into `out`.
    fn advance(&mut self, actions: &[i64], out: &mut Sink<'_>) {
        let settings = (self.encoding, self.illegal, self.max_steps, self.autoreset);
        VecCore::advance_slots(settings, &mut self.slots, actions, out);
    }

    /// [`VecCore::advance`] on `slots` (the first of which is `out`'s
    /// first entry), with the batch's settings.
    fn advance_slots(
        settings: (Encoding, Illegal, Option<u64>, Autoreset),
        slots: &mut [Slot],
        actions: &[i64],
        out: &mut Sink<'_>,
    ) {
        let (encoding, illegal, max_steps, autoreset) = settings;
        for (i, (slot, &action)) in slots.iter_mut().zip(actions).enumerate() {
            let (mut reward, mut terminated, mut truncated, mut legal, mut gained) =
                (0.0, false, false, true, 0);
            let mut legal_now = None;
            if slot.pending_reset {
                // Next-step autoreset (a disabled one refused the step).
                slot.new_episode();
            } else {
                let ends;
                (reward, ends) = match slot.game.play(GYM_DIRECTIONS[action as usize]) {
                    Ok(turn) => {
                        gained = turn.score_gained;
                        (f64::from(turn.score_gained), false)
                    }
                    Err(PlayError::NothingMoves(_) | PlayError::GameOver) => {
                        legal = false;
                        slot.illegal += 1;
                        illegal.outcome()
                    }
                };
                slot.steps += 1;
                // The mask, computed once, tells whether the game is over.
                legal_now = Some(mask(slot.game.board()));
                terminated = ends || legal_now == Some([0; 4]);
                // As gymnasium's `TimeLimit`: the last allowed step is a
                // truncation even when it also ends the game.
                truncated = max_steps.is_some_and(|m| slot.steps >= m);
                slot.pending_reset = terminated || truncated;
                if autoreset == Autoreset::SameStep && slot.pending_reset {
                    if let (Some(infos), Some(now)) = (&mut out.infos, legal_now) {
                        infos.finals.push(i, encoding, slot, now, (legal, gained));
                    }
                    slot.new_episode();
                    legal_now = None;
                    // The new episode's infos, as a reset gives them.
                    (legal, gained) = (true, 0);
                }
            }
            out.rewards[i] = reward;
            out.terminated[i] = terminated;
            out.truncated[i] = truncated;
            if let Some(infos) = &mut out.infos {
                infos.legal[i] = legal;
                infos.gained[i] = i64::from(gained);
            }
            VecCore::observe(encoding, i, slot, out, legal_now);
        }
    }

    /// [`VecCore::advance`] without infos, the batch cut into one part per
    /// thread of rayon's pool: each environment is independent of the
    /// others, and a part writes only its own rows of the outputs.
    fn advance_parallel(&mut self, actions: &[i64], sink: Sink<'_>) {
        let n = self.slots.len();
        let parts = rayon::current_num_threads().min(n.div_ceil(PARALLEL_MIN)).max(1);
        let settings = (self.encoding, self.illegal, self.max_steps, self.autoreset);
        if parts == 1 {
            let mut sink = sink;
            VecCore::advance_slots(settings, &mut self.slots, actions, &mut sink);
            return;
        }
        let size = n.div_ceil(parts);
        let stride = 16 * self.encoding.per_cell();
        let Sink { obs, rewards, terminated, truncated, masks, .. } = sink;
        let jobs: Vec<_> = self
            .slots
            .chunks_mut(size)
            .zip(actions.chunks(size))
            .zip(obs.chunks_mut(size * stride))
            .zip(rewards.chunks_mut(size))
            .zip(terminated.chunks_mut(size))
            .zip(truncated.chunks_mut(size))
            .zip(masks.chunks_mut(size * 4))
            .map(|((((((slots, actions), obs), rewards), terminated), truncated), masks)| {
                (slots, actions, Sink { obs, rewards, terminated, truncated, masks, infos: None })
            })
            .collect();
        jobs.into_par_iter().for_each(|(slots, actions, mut sink)| {
            VecCore::advance_slots(settings, slots, actions, &mut sink);
        });
    }

    /// The actions as a slice after checking them, or a `ValueError`.
    fn check_actions<'a>(&self, actions: &'a PyReadonlyArray1<'_, i64>) -> PyResult<&'a [i64]> {
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
        Ok(actions)
    }

    /// Under disabled autoreset, a `RuntimeError` naming the environments
    /// whose episode ended and was not reset since: a step would play on
    /// past its end.
    fn check_running(&self) -> PyResult<()> {
        if self.autoreset != Autoreset::Disabled {
            return Ok(());
        }
        let ended: Vec<usize> = self
            .slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.pending_reset)
            .map(|(i, _)| i)
            .collect();
        let Some(&first) = ended.first() else {
            return Ok(());
        };
        let more = match ended.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        Err(PyRuntimeError::new_err(format!(
            "environment {first}{more} ended and autoreset_mode is Disabled: reset it before the \
             next step (reset(options={{\"reset_mask\": mask}}) resets those mask selects)"
        )))
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
        let finals = out.finals;
        let mut last_shape = self.shape();
        last_shape[0] = finals.index.len();
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
                finals.index.into_pyarray(py),
                finals.obs.into_pyarray(py).reshape(last_shape)?,
                (
                    finals.masks.into_pyarray(py).reshape([finals.scores.len(), 4])?,
                    finals.scores.into_pyarray(py),
                    finals.legal.into_pyarray(py),
                    finals.gained.into_pyarray(py),
                    finals.max.into_pyarray(py),
                    finals.illegal.into_pyarray(py),
                ),
            ),
        ))
    }
}

#[pymethods]
impl VecCore {
    #[new]
    #[pyo3(signature = (num_envs, four_probability, obs_mode, max_pow, illegal_action, illegal_penalty, max_steps, autoreset="NextStep"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        num_envs: usize,
        four_probability: f64,
        obs_mode: &str,
        max_pow: usize,
        illegal_action: &str,
        illegal_penalty: f64,
        max_steps: Option<u64>,
        autoreset: &str,
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
        let args = (
            num_envs,
            four_probability,
            obs_mode.to_owned(),
            max_pow,
            illegal_action.to_owned(),
            illegal_penalty,
            max_steps,
            autoreset.to_owned(),
        );
        let mut core = VecCore {
            args,
            rules,
            encoding,
            illegal: Illegal::parse(illegal_action, illegal_penalty)?,
            max_steps,
            autoreset: Autoreset::parse(autoreset)?,
            slots,
        };
        for i in 0..num_envs {
            core.slots.push(Slot::new(GameRng::new(i as u64), rules));
        }
        Ok(core)
    }

    /// The number of environments.
    fn __len__(&self) -> usize {
        self.slots.len()
    }

    /// The constructor's arguments (pickle calls `__new__` with them).
    fn __getnewargs__(&self) -> VecArgs {
        self.args.clone()
    }

    /// Every environment's state, for pickle and `copy.deepcopy`.
    fn __getstate__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let mut out = Vec::with_capacity(self.slots.len() * SLOT_BYTES);
        for slot in &self.slots {
            slot.save(&mut out);
        }
        PyBytes::new(py, &out)
    }

    /// Restores what `__getstate__` kept: every environment then goes on
    /// exactly as the original's would.
    fn __setstate__(&mut self, state: &[u8]) -> PyResult<()> {
        let n = self.slots.len();
        if state.len() != n * SLOT_BYTES {
            return Err(PyValueError::new_err(format!(
                "a pickled batch of {n} environments has {} bytes, not {}",
                state.len(),
                n * SLOT_BYTES
            )));
        }
        self.slots = state
            .chunks_exact(SLOT_BYTES)
            .map(|b| Slot::restore(b, self.rules))
            .collect::<PyResult<Vec<Slot>>>()?;
        Ok(())
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
                *slot.seeder = GameRng::new(seed);
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
        let slots = &mut self.slots;
        py.detach(|| {
            let mut sink = out.sink();
            for (i, slot) in slots.iter_mut().enumerate() {
                if mask.as_ref().is_none_or(|m| m[i]) {
                    slot.new_episode();
                }
                VecCore::observe(encoding, i, slot, &mut sink, None);
            }
        });
        self.to_python(py, out)
    }

    /// Plays one action per environment (0 up, 1 right, 2 down, 3 left);
    /// under next-step autoreset an environment whose episode ended on the
    /// last step is reset instead.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: PyReadonlyArray1<'py, i64>,
    ) -> PyResult<StepResult<'py>> {
        let actions = self.check_actions(&actions)?.to_vec();
        self.check_running()?;
        let mut out = Outputs::new(self.slots.len(), self.encoding.per_cell())?;
        py.detach(|| self.advance(&actions, &mut out.sink()));
        self.to_python(py, out)
    }

    /// `step` into the caller's arrays, without infos: observations of the
    /// batch's shape (uint8), rewards (float64), terminations and
    /// truncations (bool), masks `(N, 4)` (int8), all C-contiguous. Nothing
    /// is allocated.
    #[allow(clippy::too_many_arguments, reason = "one argument per array of the step")]
    fn step_into(
        &mut self,
        py: Python<'_>,
        actions: PyReadonlyArray1<'_, i64>,
        mut obs: PyReadwriteArrayDyn<'_, u8>,
        mut rewards: PyReadwriteArray1<'_, f64>,
        mut terminated: PyReadwriteArray1<'_, bool>,
        mut truncated: PyReadwriteArray1<'_, bool>,
        mut masks: PyReadwriteArray2<'_, i8>,
    ) -> PyResult<()> {
        let n = self.slots.len();
        let shape = self.shape();
        let wrong = |name: &str, got: &[usize], want: &[usize]| {
            PyValueError::new_err(format!("out.{name} has shape {got:?}, expected {want:?}"))
        };
        if obs.shape() != shape.as_slice() {
            return Err(wrong("obs", obs.shape(), &shape));
        }
        for (name, got) in [
            ("rewards", rewards.shape()),
            ("terminated", terminated.shape()),
            ("truncated", truncated.shape()),
        ] {
            if got != [n] {
                return Err(wrong(name, got, &[n]));
            }
        }
        if masks.shape() != [n, 4] {
            return Err(wrong("action_mask", masks.shape(), &[n, 4]));
        }
        let contiguous =
            |name: &str| PyValueError::new_err(format!("out.{name} must be C-contiguous"));
        let sink = Sink {
            obs: obs.as_slice_mut().map_err(|_| contiguous("obs"))?,
            rewards: rewards.as_slice_mut().map_err(|_| contiguous("rewards"))?,
            terminated: terminated.as_slice_mut().map_err(|_| contiguous("terminated"))?,
            truncated: truncated.as_slice_mut().map_err(|_| contiguous("truncated"))?,
            masks: masks.as_slice_mut().map_err(|_| contiguous("action_mask"))?,
            infos: None,
        };
        let actions = self.check_actions(&actions)?;
        self.check_running()?;
        py.detach(|| self.advance_parallel(actions, sink));
        Ok(())
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

    /// Every game's score so far.
    fn scores<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        self.slots.iter().map(|s| s.game.score()).collect::<Vec<u64>>().into_pyarray(py)
    }

    /// Every board's exponents, `(N, 4, 4)` (tiles past 32768 included).
    fn exponents<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<u8>>> {
        let mut flat = vec![0u8; self.slots.len() * 16];
        for (slot, out) in self.slots.iter().zip(flat.chunks_exact_mut(16)) {
            Encoding::Exponents.write(packed_cells(*slot.game.board()), out);
        }
        flat.into_pyarray(py).reshape(vec![self.slots.len(), 4, 4])
    }

    /// Which actions change each board, `(N, 4)` int8 in gymnasium order
    /// (tiles past 32768 included).
    fn masks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<i8>>> {
        let flat: Vec<i8> = self.slots.iter().flat_map(|s| mask(s.game.board())).collect();
        flat.into_pyarray(py).reshape([self.slots.len(), 4])
    }
}

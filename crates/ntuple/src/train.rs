//! The trainer: TD(λ) learning of afterstate values from self-play, with
//! temporal-coherence (TC) learning rates, on threads sharing one network.
//!
//! Each episode is one game played greedily by the network itself: from a
//! state, every move's reward plus the value of its afterstate is compared
//! and the best is played. When the game ends, its afterstates are updated
//! backward, from the last to the first, each toward its λ-return: the
//! reward of the next move, plus `1 - λ` times the next afterstate's value
//! (just updated) and `λ` times that afterstate's own return (0 after the
//! last). This is Szubert and Jaśkowski's afterstate TD learning with the
//! λ-returns computed backward at the episode's end, as in Matsuzaki's
//! backward TC learning and ziap/2048-tdl. The TC rates (Beal and Smith, as
//! used for 2048 by Jaśkowski) give every weight its own step, large while
//! its errors agree in sign and shrinking as they start to cancel out, so
//! no learning-rate schedule is needed.
//!
//! Restarts. A greedy game from the empty board reaches 16384 a few times
//! in a hundred, so the boards that decide the late game are the rarest in
//! training. Two ways to train on them more:
//! - [`Restarts::Middle`] (the default; Matsuzaki's restart strategy): once
//!   a game ends, play it again from the afterstate halfway through it with
//!   a fresh spawn, and again from the middle of that game, until a game
//!   lasts 10 moves or fewer. An episode then trains on several times the
//!   moves of its first game, most of them in its late game.
//! - [`Restarts::Pools`]: keep the board of each moment a game first made
//!   8192, 16384 or 32768 (a bounded pool per tile), and start a share of
//!   the episodes from one of them: a tile chosen uniformly among those with
//!   boards, then a board of it. Episodes started there feed the pools of
//!   the next tile, so training climbs with the network.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use game_core::{Board, GameRng, Tile};
use records::curve::{CurveRow, TILES};

use crate::network::{N_FEATURES, Network, StageError, promote};

/// The tiles whose first appearance in a game is kept for restarts.
pub const RESTART_TILES: [Tile; 3] = [Tile::of(8192), Tile::of(16384), Tile::of(32768)];

/// Boards kept per restart tile; once full, a new board replaces a random
/// one, so the pool follows the network as it improves.
const POOL_CAPACITY: usize = 2048;

/// How the trainer learns. There is no `Default`: start from
/// [`TrainConfig::standard`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainConfig {
    /// Episode `i` is played from a random stream seeded by `seed` and `i`,
    /// so one thread gives the same network bit for bit every time.
    pub seed: u64,
    /// Threads playing episodes at once, all on the same network.
    pub threads: usize,
    /// The learning rate, per board: an update moves a board's value by
    /// `alpha` times the error (before TC scaling), spread over its
    /// features.
    pub alpha: f32,
    /// Temporal-coherence learning rates.
    pub coherence: bool,
    /// Stop once this many episodes are done in all (counting those of a
    /// resumed checkpoint); `None`: until stopped.
    pub episodes: Option<u64>,
    /// The probability that a spawned tile is a 4.
    pub four_probability: f64,
    /// Episodes per learning-curve row.
    pub curve_every: u64,
    /// The trace decay of the backward TD(λ) update, from 0 (each
    /// afterstate learns from the next one's value alone: TD(0)) to 1 (from
    /// the score that the rest of the game actually made).
    pub lambda: f32,
    /// Which boards episodes are played again from (see the module docs).
    pub restarts: Restarts,
}

/// Where training plays the late game again (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Restarts {
    /// Every episode is one game from the empty board.
    Off,
    /// Each game is played again from its middle until a game is short.
    Middle,
    /// This share of the episodes starts from a kept board that first made
    /// 8192, 16384 or 32768 (from the empty board until a pool has one).
    Pools {
        /// From 0 to 1.
        share: f64,
    },
}

/// A restarted game shorter than this many moves ends an episode's chain
/// of restarts from the middle (the public recipe's bound).
const MIDDLE_MIN_MOVES: usize = 10;

impl TrainConfig {
    /// The settings we train with: the public recipe of ziap/2048-tdl, TC
    /// rates with a meta rate of 1, backward TD(λ) with λ = 0.5 and
    /// restarts from the middle of each game (the pools reach 16384 sooner
    /// in greedy play, but their networks do not learn to build 32768 and
    /// those of the middle restarts do); the standard rules, two threads,
    /// and a curve row per 10,000 episodes. The experiments that chose them:
    /// docs/experiments/2026-11-26-training-recipe.md and
    /// docs/experiments/2026-11-26-restarts-from-the-middle.md.
    pub fn standard() -> TrainConfig {
        TrainConfig {
            seed: 1,
            threads: 2,
            alpha: 1.0,
            coherence: true,
            episodes: None,
            four_probability: 0.1,
            curve_every: 10_000,
            lambda: 0.5,
            restarts: Restarts::Middle,
        }
    }

    /// The share of episodes started from a kept board: 0 unless restarts
    /// come from pools.
    fn pool_share(&self) -> f64 {
        match self.restarts {
            Restarts::Pools { share } => share,
            Restarts::Off | Restarts::Middle => 0.0,
        }
    }
}

/// A trainer's settings error.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TrainError {
    /// `threads` is 0.
    NoThreads,
    /// `alpha` is not a positive finite number.
    BadAlpha(f32),
    /// The probability of a 4 is not in [0, 1].
    BadFourProbability(f64),
    /// `curve_every` is 0.
    NoCurve,
    /// The restart share is not in [0, 1].
    BadRestartShare(f64),
    /// λ is not in [0, 1].
    BadLambda(f32),
}

impl std::fmt::Display for TrainError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TrainError::NoThreads => f.write_str("training needs at least one thread"),
            TrainError::BadAlpha(a) => write!(f, "the learning rate must be above 0, not {a}"),
            TrainError::BadFourProbability(p) => {
                write!(f, "the probability of a 4 must be from 0 to 1, not {p}")
            }
            TrainError::NoCurve => f.write_str("a learning-curve row needs at least one episode"),
            TrainError::BadRestartShare(r) => {
                write!(f, "the share of restarted episodes must be from 0 to 1, not {r}")
            }
            TrainError::BadLambda(l) => write!(f, "lambda must be from 0 to 1, not {l}"),
        }
    }
}

impl std::error::Error for TrainError {}

/// The TC state: per weight, the sum of the errors that reached it (low
/// 32 bits, an `f32`) and the sum of their sizes (high 32 bits), side by
/// side so that an update touches one cache line for both.
#[derive(Debug)]
pub(crate) struct Coherence {
    pub(crate) errors: Box<[AtomicU64]>,
}

impl Coherence {
    /// Fresh state for `n` weights.
    pub(crate) fn zeroed(n: usize) -> Coherence {
        Coherence { errors: (0..n).map(|_| AtomicU64::new(0)).collect() }
    }

    /// The state for `stages` stages, each new stage's a copy of the last
    /// one's, as [`Network::into_stages`] copies the weights.
    pub(crate) fn into_stages(self, stages: usize) -> Result<Coherence, StageError> {
        let errors = promote(self.errors, stages, |e| AtomicU64::new(e.load(Ordering::Relaxed)))?;
        Ok(Coherence { errors })
    }

    /// Reads the pairs of `features` and drops them: a prefetch in safe
    /// Rust (see [`Trainer::learn_backward`]).
    #[inline]
    fn touch(&self, features: &[u32; N_FEATURES]) {
        let mut any = 0;
        for &i in features {
            any |= self.errors[i as usize].load(Ordering::Relaxed);
        }
        std::hint::black_box(any);
    }
}

/// One move of a game, kept until the game ends and its afterstates learn.
#[derive(Debug, Clone, Copy)]
struct Step {
    /// The afterstate's weight indices.
    features: [u32; N_FEATURES],
    /// The afterstate, for a restart from it.
    after: Board,
    /// The score the move made.
    reward: u32,
}

/// What one episode came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Episode {
    /// The game's score.
    pub score: u64,
    /// Moves played, in the game and in its restarts from the middle
    /// (every move trained on).
    pub moves: u64,
    /// The largest exponent reached (11 = 2048).
    pub max_exponent: u8,
    /// Whether it started from a kept late-game board (then `score` counts
    /// only what was scored after the restart). `score` and `max_exponent`
    /// are the first game's: restarts from its middle are not counted.
    pub restarted: bool,
}

/// Statistics of a run of episodes.
#[derive(Debug, Clone, Default, PartialEq)]
struct Window {
    episodes: u64,
    score: u64,
    reach: [u64; TILES.len()],
}

impl Window {
    fn add(&mut self, e: &Episode) {
        self.episodes += 1;
        self.score += e.score;
        for (count, &tile) in self.reach.iter_mut().zip(&TILES) {
            *count += u64::from(e.max_exponent >= tile.exponent());
        }
    }

    fn mean_score(&self) -> f64 {
        self.score as f64 / self.episodes.max(1) as f64
    }

    fn reach(&self) -> [f64; TILES.len()] {
        self.reach.map(|c| c as f64 / self.episodes.max(1) as f64)
    }
}

/// A snapshot of a training run, for a progress line.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// The run as a learning curve's row would give it now: the episodes,
    /// moves and time in all, and the mean score and reach rates of the
    /// last finished curve window, or of the current one while none has
    /// finished.
    pub row: CurveRow,
    /// Episodes restarted from kept boards in this process's runs.
    pub restarts: u64,
}

/// Counters that a checkpoint keeps.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Counters {
    /// Episodes done.
    pub episodes: u64,
    /// Moves played.
    pub moves: u64,
    /// Training time, in seconds.
    pub seconds: f64,
}

/// A network being trained, with its learning-rate state and counters.
pub struct Trainer {
    config: TrainConfig,
    net: Network,
    tc: Option<Coherence>,
    /// The next episode to hand out.
    next_episode: AtomicU64,
    moves: AtomicU64,
    /// Training time before this process's runs.
    seconds_before: f64,
    log: Mutex<Log>,
    /// Boards for restarts, one pool per [`RESTART_TILES`] entry. Kept in
    /// memory only: a resumed run refills them within minutes.
    pools: Mutex<[Vec<Board>; RESTART_TILES.len()]>,
}

struct Log {
    done: u64,
    restarts: u64,
    window: Window,
    last: Option<CurveRow>,
    rows: Vec<CurveRow>,
    run_time: Duration,
}

impl std::fmt::Debug for Trainer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trainer").field("config", &self.config).finish_non_exhaustive()
    }
}

impl Trainer {
    /// A trainer starting from `net` (a fresh [`Network::filled`], or
    /// weights loaded from a file), with fresh TC state, and the counters to
    /// continue from. A checkpoint's trainer comes from
    /// [`crate::Checkpoint::into_trainer`], which keeps its TC state.
    ///
    /// # Errors
    /// [`TrainError`] for bad settings.
    pub fn new(
        config: TrainConfig,
        net: Network,
        counters: Counters,
    ) -> Result<Trainer, TrainError> {
        Trainer::with_coherence(config, net, None, counters)
    }

    pub(crate) fn with_coherence(
        config: TrainConfig,
        net: Network,
        tc: Option<Coherence>,
        counters: Counters,
    ) -> Result<Trainer, TrainError> {
        if config.threads == 0 {
            return Err(TrainError::NoThreads);
        }
        if !(config.alpha.is_finite() && config.alpha > 0.0) {
            return Err(TrainError::BadAlpha(config.alpha));
        }
        if !(0.0..=1.0).contains(&config.four_probability) {
            return Err(TrainError::BadFourProbability(config.four_probability));
        }
        if config.curve_every == 0 {
            return Err(TrainError::NoCurve);
        }
        if !(0.0..=1.0).contains(&config.pool_share()) {
            return Err(TrainError::BadRestartShare(config.pool_share()));
        }
        if !(0.0..=1.0).contains(&config.lambda) {
            return Err(TrainError::BadLambda(config.lambda));
        }
        let tc = match (config.coherence, tc) {
            (false, _) => None,
            (true, Some(tc)) => Some(tc),
            (true, None) => Some(Coherence::zeroed(net.raw().len())),
        };
        // The loaders and `Checkpoint::into_stages` keep the two in step.
        assert!(
            tc.as_ref().is_none_or(|tc| tc.errors.len() == net.raw().len()),
            "one TC pair per weight"
        );
        Ok(Trainer {
            config,
            net,
            tc,
            next_episode: AtomicU64::new(counters.episodes),
            moves: AtomicU64::new(counters.moves),
            seconds_before: counters.seconds,
            pools: Mutex::new(Default::default()),
            log: Mutex::new(Log {
                done: counters.episodes,
                restarts: 0,
                window: Window::default(),
                last: None,
                rows: Vec::new(),
                run_time: Duration::ZERO,
            }),
        })
    }

    /// The settings.
    pub fn config(&self) -> &TrainConfig {
        &self.config
    }

    /// The network as trained so far.
    pub fn network(&self) -> &Network {
        &self.net
    }

    pub(crate) fn coherence(&self) -> Option<&Coherence> {
        self.tc.as_ref()
    }

    /// Episodes, moves and training time so far (the episodes finished;
    /// those under way count when they end).
    pub fn counters(&self) -> Counters {
        let log = self.lock();
        Counters {
            episodes: log.done,
            moves: self.moves.load(Ordering::Relaxed),
            seconds: self.seconds_before + log.run_time.as_secs_f64(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Log> {
        // A worker that panicked left the counters consistent (each is
        // updated in one step), so a poisoned lock is still fine to read.
        self.log.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Where the run stands, for a progress line.
    pub fn progress(&self) -> Progress {
        let counters = self.counters();
        let log = self.lock();
        let (mean_score, reach) = match &log.last {
            Some(row) => (row.mean_score, row.reach),
            None => (log.window.mean_score(), log.window.reach()),
        };
        Progress {
            row: CurveRow {
                episodes: counters.episodes,
                moves: counters.moves,
                seconds: counters.seconds,
                mean_score,
                reach,
            },
            restarts: log.restarts,
        }
    }

    /// The learning-curve rows finished since the last call: each the
    /// episodes from the empty board since the previous row (restarted
    /// episodes train the network but would flatter its scores, so they
    /// are left out of the row's mean and reach rates), with the episodes
    /// (restarted ones too), moves and training time (counting resumed
    /// checkpoints') in all at its end.
    pub fn take_curve_rows(&self) -> Vec<CurveRow> {
        std::mem::take(&mut self.lock().rows)
    }

    /// Trains on `config.threads` threads until `stop` is set or the
    /// episode limit is reached; an episode under way when `stop` is set is
    /// finished first. Call it again to go on.
    pub fn run(&self, stop: &AtomicBool) {
        let start = Instant::now();
        let started_run = self.lock().run_time;
        let clock = || started_run + start.elapsed();
        std::thread::scope(|scope| {
            for _ in 0..self.config.threads {
                scope.spawn(|| {
                    let mut path = Vec::new();
                    while !stop.load(Ordering::Relaxed) {
                        let i = self.next_episode.fetch_add(1, Ordering::Relaxed);
                        if self.config.episodes.is_some_and(|limit| i >= limit) {
                            break;
                        }
                        let episode = self.episode(i, &mut path);
                        self.record(&episode, clock());
                    }
                });
            }
        });
        // Episodes handed out but never started go back, so a later run
        // plays them.
        let mut log = self.lock();
        log.run_time = clock();
        self.next_episode.store(log.done, Ordering::Relaxed);
    }

    /// Counts a finished episode; `run_time` is this process's training
    /// time so far.
    fn record(&self, episode: &Episode, run_time: Duration) {
        self.moves.fetch_add(episode.moves, Ordering::Relaxed);
        let moves = self.moves.load(Ordering::Relaxed);
        let seconds = self.seconds_before;
        let mut log = self.lock();
        // Another thread may have read the clock later and locked first.
        log.run_time = log.run_time.max(run_time);
        log.done += 1;
        if episode.restarted {
            log.restarts += 1;
            return;
        }
        log.window.add(episode);
        if log.window.episodes == self.config.curve_every {
            let row = CurveRow {
                episodes: log.done,
                moves,
                seconds: seconds + log.run_time.as_secs_f64(),
                mean_score: log.window.mean_score(),
                reach: log.window.reach(),
            };
            log.window = Window::default();
            log.last = Some(row);
            log.rows.push(row);
        }
    }

    /// The random stream of episode `i`.
    fn episode_rng(&self, i: u64) -> GameRng {
        GameRng::new(self.config.seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17))
    }

    /// Plays episode `i` greedily and learns from it.
    pub fn play_episode(&self, i: u64) -> Episode {
        self.episode(i, &mut Vec::new())
    }

    /// [`Trainer::play_episode`] with a buffer for the games' moves.
    fn episode(&self, i: u64, path: &mut Vec<Step>) -> Episode {
        let mut rng = self.episode_rng(i);
        let p4 = self.config.four_probability;
        let (start, restarted) = match self.restart_board(&mut rng) {
            Some(board) => (board, true),
            None => (spawn(spawn(Board::EMPTY, &mut rng, p4), &mut rng, p4), false),
        };
        let (score, end) = self.play_game(start, &mut rng, path);
        self.learn_backward(path);
        let mut moves = path.len() as u64;
        if self.config.restarts == Restarts::Middle {
            while path.len() > MIDDLE_MIN_MOVES {
                let start = spawn(path[path.len() / 2].after, &mut rng, p4);
                self.play_game(start, &mut rng, path);
                self.learn_backward(path);
                moves += path.len() as u64;
            }
        }
        Episode { score, moves, max_exponent: end.max_exponent(), restarted }
    }

    /// Plays one greedy game from `board` into `path` (cleared first),
    /// keeping boards for pool restarts; returns its score and last board.
    fn play_game(&self, mut board: Board, rng: &mut GameRng, path: &mut Vec<Step>) -> (u64, Board) {
        let p4 = self.config.four_probability;
        path.clear();
        // The next restart tile this game may keep: those the start board
        // already holds are not new.
        let mut next_keep = RESTART_TILES.partition_point(|t| t.exponent() <= board.max_exponent());
        let mut score = 0u64;
        while let Some(best) = self.net.best_move(board) {
            path.push(Step { features: best.features, after: best.after, reward: best.reward });
            score += u64::from(best.reward);
            board = spawn(best.after, rng, p4);
            // A move that made the next kept tile scored at least its value.
            if next_keep < RESTART_TILES.len()
                && best.reward >= RESTART_TILES[next_keep].value()
                && board.max_exponent() >= RESTART_TILES[next_keep].exponent()
            {
                while next_keep < RESTART_TILES.len()
                    && board.max_exponent() >= RESTART_TILES[next_keep].exponent()
                {
                    next_keep += 1;
                }
                self.keep(next_keep - 1, board, rng);
            }
        }
        (score, board)
    }

    /// Updates a finished game's afterstates from the last to the first,
    /// each toward its λ-return (see the module docs): the last toward 0,
    /// as nothing follows it.
    ///
    /// Each step reads its 32 weights and, with TC, their 32 error pairs,
    /// long out of the cache since the game chose the move; the next step's
    /// are touched first, so their misses overlap this step's work.
    fn learn_backward(&self, path: &[Step]) {
        let lambda = self.config.lambda;
        let mut target = 0f32;
        for (k, step) in path.iter().enumerate().rev() {
            if let Some(earlier) = k.checked_sub(1).map(|e| &path[e].features) {
                std::hint::black_box(self.net.value_of(earlier));
                if let Some(tc) = &self.tc {
                    tc.touch(earlier);
                }
            }
            let error = target - self.net.value_of(&step.features);
            self.learn(&step.features, error);
            let value = self.net.value_of(&step.features);
            target = step.reward as f32 + lambda * target + (1.0 - lambda) * value;
        }
    }

    /// A kept board to start episode from, or `None` for the empty board:
    /// with the probability [`Restarts::Pools`] gives, a tile chosen
    /// uniformly among the pools that have boards, then one of its boards.
    fn restart_board(&self, rng: &mut GameRng) -> Option<Board> {
        let share = self.config.pool_share();
        if share == 0.0 || rng.unit() >= share {
            return None;
        }
        let pools = self.pools.lock().unwrap_or_else(|e| e.into_inner());
        let filled = pools.iter().filter(|p| !p.is_empty());
        let n = filled.clone().count();
        if n == 0 {
            return None;
        }
        let pool = filled.clone().nth(rng.below(n))?;
        Some(pool[rng.below(pool.len())])
    }

    /// Keeps `board` in pool `k`, replacing a random board once it is full.
    fn keep(&self, k: usize, board: Board, rng: &mut GameRng) {
        if self.config.pool_share() == 0.0 {
            return;
        }
        let mut pools = self.pools.lock().unwrap_or_else(|e| e.into_inner());
        let pool = &mut pools[k];
        if pool.len() < POOL_CAPACITY {
            pool.push(board);
        } else {
            pool[rng.below(POOL_CAPACITY)] = board;
        }
    }

    /// Moves the value of the board with features `f` by the error `delta`.
    #[inline]
    fn learn(&self, f: &[u32; N_FEATURES], delta: f32) {
        let step = self.config.alpha * delta / N_FEATURES as f32;
        let Some(tc) = &self.tc else {
            self.net.add(f, step);
            return;
        };
        for &i in f {
            let i = i as usize;
            let pair = tc.errors[i].load(Ordering::Relaxed);
            let (net, abs) = (f32::from_bits(pair as u32), f32::from_bits((pair >> 32) as u32));
            let rate = if abs > 0.0 { net.abs() / abs } else { 1.0 };
            self.net.add_one(i, rate * step);
            let (net, abs) = (net + delta, abs + delta.abs());
            let pair = u64::from(net.to_bits()) | u64::from(abs.to_bits()) << 32;
            tc.errors[i].store(pair, Ordering::Relaxed);
        }
    }
}

/// `board` with a 2 (or, with probability `p4`, a 4) on a uniformly chosen
/// empty cell; the board itself when it is full.
#[inline]
pub(crate) fn spawn(board: Board, rng: &mut GameRng, p4: f64) -> Board {
    let mut empty = board.empty_mask();
    let n = empty.count_ones() as usize;
    if n == 0 {
        return board;
    }
    for _ in 0..rng.below(n) {
        empty &= empty - 1;
    }
    let cell = empty.trailing_zeros() as usize / 4;
    let exponent = if rng.unit() < p4 { 2 } else { 1 };
    board.with_exponent_unchecked(cell, exponent)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trainer(config: TrainConfig) -> Trainer {
        Trainer::new(config, Network::filled(0.0), Counters::default()).expect("valid")
    }

    #[test]
    fn spawns_land_on_empty_cells_with_the_right_odds() {
        let mut rng = GameRng::new(3);
        let board: Board = "2 4 8 16/32 0 64 128/256 512 0 1024/2 4 8 16".parse().expect("valid");
        let mut fours = 0;
        for _ in 0..10_000 {
            let after = spawn(board, &mut rng, 0.1);
            assert_eq!(after.count_empty(), 1);
            let added = after.raw() ^ board.raw();
            assert!(added & board.raw() == 0);
            fours += usize::from(added >> (added.trailing_zeros() / 4 * 4) == 2);
        }
        assert!((800..1200).contains(&fours), "{fours} fours in 10,000");
    }

    #[test]
    fn a_td_update_matches_a_hand_computation() {
        use crate::network::features;
        // Without TC: each of the 32 features of the board moves by
        // alpha * delta / 32, so the value moves by alpha * delta (features
        // that repeat count as often as they occur).
        let mut config = TrainConfig::standard();
        config.coherence = false;
        config.alpha = 0.5;
        let t = trainer(config);
        // Sixteen different cells: no feature repeats, so each weight meets
        // each error once.
        let board: Board =
            "2 4 8 16/32 64 128 256/512 1024 2048 4096/8192 16384 32768 2".parse().expect("valid");
        let f = features(board);
        let mut distinct = f.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), N_FEATURES);
        t.learn(&f, 64.0);
        assert_eq!(t.net.value(board), 32.0);
        // With TC, the first update of fresh weights uses rate 1; a second,
        // opposite error meets |E| / A = |64| / 64 = 1, then E = 0: the
        // third gets rate 0.
        let mut config = TrainConfig::standard();
        config.alpha = 1.0;
        let t = trainer(config);
        t.learn(&f, 64.0);
        assert_eq!(t.net.value(board), 64.0);
        t.learn(&f, -64.0);
        assert_eq!(t.net.value(board), 0.0);
        t.learn(&f, 32.0);
        assert_eq!(t.net.value(board), 0.0);
    }

    /// Three afterstates with no feature in common (and none repeated), so
    /// that each update moves one board's value alone, by exactly alpha
    /// times its error: the backward λ-returns worked by hand.
    #[test]
    fn a_backward_td_lambda_pass_matches_a_hand_computation() {
        use crate::network::features;
        let boards: [Board; 3] = [
            "2 4 8 16/32 64 128 256/512 1024 2048 4096/8192 16384 32768 2",
            "4 8 16 32/64 128 256 512/1024 2048 4096 8192/16384 32768 2 4",
            "8 16 32 64/128 256 512 1024/2048 4096 8192 16384/32768 2 4 8",
        ]
        .map(|b| b.parse().expect("valid"));
        let mut all: Vec<u32> = boards.iter().flat_map(|&b| features(b)).collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 3 * N_FEATURES, "no feature shared or repeated");
        let mut config = TrainConfig::standard();
        config.coherence = false;
        config.alpha = 0.5;
        config.lambda = 0.5;
        let t = trainer(config);
        // Values before: 8, 16, 32 (a weight each feature: value / 32).
        for (&b, v) in boards.iter().zip([8.0f32, 16.0, 32.0]) {
            t.net.add(&features(b), v / N_FEATURES as f32);
        }
        let rewards = [4, 8, 12];
        let path: Vec<Step> = boards
            .iter()
            .zip(rewards)
            .map(|(&after, reward)| Step { features: features(after), after, reward })
            .collect();
        t.learn_backward(&path);
        // Last: target 0, error -32, value 32 - 16 = 16; its return for the
        // step before: 12 + 0.5 * 0 + 0.5 * 16 = 20.
        // Middle: error 20 - 16 = 4, value 18; return 8 + 0.5 * 20 + 0.5 *
        // 18 = 27. First: error 27 - 8 = 19, value 8 + 9.5 = 17.5.
        let values: Vec<f32> = boards.iter().map(|&b| t.net.value(b)).collect();
        assert_eq!(values, [17.5, 18.0, 16.0]);
    }

    /// Restarts from the middle replay an episode's second half until a
    /// game is short: more moves than the first game, and the first game's
    /// score and tile reported.
    #[test]
    fn restarts_from_the_middle_replay_the_late_game() {
        let mut config = TrainConfig::standard();
        config.restarts = Restarts::Off;
        let plain = trainer(config).play_episode(7);
        config.restarts = Restarts::Middle;
        let middle = trainer(config).play_episode(7);
        // The untrained networks play the first game alike.
        assert_eq!((plain.score, plain.max_exponent), (middle.score, middle.max_exponent));
        assert!(middle.moves > plain.moves + plain.moves / 4, "{plain:?} {middle:?}");
        assert!(!middle.restarted);
    }

    #[test]
    fn an_update_changes_only_its_stages_weights() {
        use crate::network::{MAX_STAGES, N_WEIGHTS, stage};
        // The same cells but one: the boards share most tuples' cells, so
        // a missed stage offset would move another stage's value too.
        let boards: [Board; MAX_STAGES] = [
            "1024 2048 4096 512/2 4 8 16/32 64 128 256/0 0 0 2",
            "16384 2048 4096 512/2 4 8 16/32 64 128 256/0 0 0 2",
            "16384 8192 4096 512/2 4 8 16/32 64 128 256/0 0 0 2",
        ]
        .map(|b| b.parse().expect("valid"));
        for (s, &board) in boards.iter().enumerate() {
            assert_eq!(stage(board), s);
            let mut config = TrainConfig::standard();
            config.coherence = false;
            config.alpha = 0.5;
            let t = Trainer::new(
                config,
                Network::filled_stages(MAX_STAGES, 0.0).expect("valid"),
                Counters::default(),
            )
            .expect("valid");
            let f = t.net.features(board);
            assert!(f.iter().all(|&i| i as usize / N_WEIGHTS == s));
            t.learn(&f, 64.0);
            for (other, &b) in boards.iter().enumerate() {
                let want = if other == s { 32.0 } else { 0.0 };
                assert_eq!(t.net.value(b), want, "stage {other} after an update in {s}");
            }
            let moved: Vec<bool> = t
                .net
                .weights()
                .collect::<Vec<_>>()
                .chunks(N_WEIGHTS)
                .map(|w| w.iter().any(|&w| w != 0.0))
                .collect();
            assert_eq!(moved, (0..MAX_STAGES).map(|o| o == s).collect::<Vec<_>>());
        }
    }

    /// A seeded 2-stage run on one thread, with its episodes restarted from
    /// a board holding a 16384 (so that stage 1 learns): the same network
    /// bit for bit, twice.
    #[test]
    fn a_two_stage_run_is_reproducible_bit_for_bit() {
        use crate::network::N_WEIGHTS;
        use std::hash::{Hash, Hasher};
        let run = || {
            let mut config = TrainConfig::standard();
            config.threads = 1;
            config.restarts = Restarts::Pools { share: 1.0 };
            config.episodes = Some(40);
            let t = Trainer::new(
                config,
                Network::filled_stages(2, 0.0).expect("2 stages"),
                Counters::default(),
            )
            .expect("valid");
            let start: Board = "16384 8 2 0/4 2 0 0/2 0 0 0/0 0 0 0".parse().expect("valid");
            t.keep(1, start, &mut GameRng::new(0));
            t.run(&AtomicBool::new(false));
            let mut hash = std::collections::hash_map::DefaultHasher::new();
            t.net.weights().for_each(|w| w.to_bits().hash(&mut hash));
            let stage_1_moved = t.net.weights().skip(N_WEIGHTS).any(|w| w != 0.0);
            (hash.finish(), t.counters().moves, stage_1_moved)
        };
        let first = run();
        assert!(first.2, "stage 1 learned");
        assert_eq!(first, run());
    }

    #[test]
    fn restarts_start_from_kept_boards_and_keep_new_tiles() {
        let mut config = TrainConfig::standard();
        config.restarts = Restarts::Pools { share: 1.0 };
        let t = trainer(config);
        // No kept board yet: the episode starts from the empty board.
        assert!(!t.play_episode(0).restarted);
        // Two 4096 side by side: the untrained network's greedy move is the
        // merge (the biggest reward), which makes the game's first 8192.
        let start: Board = "4096 4096 2 4/0 0 0 0/0 0 0 0/0 0 0 0".parse().expect("valid");
        t.keep(0, start, &mut GameRng::new(0));
        let episode = t.play_episode(1);
        assert!(episode.restarted);
        assert!(episode.score >= 8192, "the merge scores 8192: {episode:?}");
        let pools = t.pools.lock().expect("not poisoned");
        assert_eq!(pools[0].len(), 2, "the board with the new 8192 is kept");
        assert_eq!(pools[0][1].max_exponent(), 13);
        assert!(pools[1].is_empty() && pools[2].is_empty());
        drop(pools);
        // Restarted episodes stay out of the curve's mean and reach rates.
        t.record(&episode, Duration::ZERO);
        let p = t.progress();
        assert_eq!((p.row.episodes, p.restarts, p.row.mean_score), (1, 1, 0.0));
    }

    /// A game counts towards each of the curve's tiles up to the largest
    /// it reached: exponent 11 is 2048, and 1024 reaches none.
    #[test]
    fn a_window_counts_the_tiles_each_game_reached() {
        let mut window = Window::default();
        for max_exponent in [10, 11, 13] {
            window.add(&Episode { score: 0, moves: 0, max_exponent, restarted: false });
        }
        assert_eq!(window.reach(), [2.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0, 0.0, 0.0]);
    }

    #[test]
    fn without_restarts_no_board_is_kept() {
        let mut config = TrainConfig::standard();
        config.restarts = Restarts::Off;
        let t = trainer(config);
        t.keep(0, Board::EMPTY, &mut GameRng::new(0));
        assert!(t.pools.lock().expect("not poisoned").iter().all(Vec::is_empty));
        assert!(!t.play_episode(0).restarted);
    }

    #[test]
    fn bad_settings_are_errors() {
        let mut c = TrainConfig::standard();
        c.threads = 0;
        assert!(matches!(
            Trainer::new(c, Network::filled(0.0), Counters::default()),
            Err(TrainError::NoThreads)
        ));
        let mut c = TrainConfig::standard();
        c.restarts = Restarts::Pools { share: 1.5 };
        assert!(matches!(
            Trainer::new(c, Network::filled(0.0), Counters::default()),
            Err(TrainError::BadRestartShare(_))
        ));
    }
}

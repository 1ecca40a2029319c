//! The trainer: TD(0) learning of afterstate values from self-play, with
//! temporal-coherence (TC) learning rates, on threads sharing one network.
//!
//! Each episode is one game played greedily by the network itself: from a
//! state, every move's reward plus the value of its afterstate is compared,
//! the best is played, and the previous afterstate's value is moved toward
//! what followed it (`reward + value of the new afterstate`, or 0 when the
//! game ended). This is Szubert and Jaśkowski's afterstate TD learning; the
//! TC rates (Beal and Smith, as used for 2048 by Jaśkowski) give every
//! weight its own step, large while its errors agree in sign and shrinking
//! as they start to cancel out, so no learning-rate schedule is needed.
//!
//! Restarts (Matsuzaki's restart strategy, close to Jaśkowski's carousel
//! shaping): a greedy game from the empty board reaches 16384 a few times in
//! a hundred, so the boards that decide the late game are the rarest in
//! training. The trainer keeps the board of each moment a game first made
//! 8192, 16384 or 32768 (a bounded pool per tile), and starts a share of
//! its episodes from one of them: a tile chosen uniformly among those with
//! boards, then a board of it. Episodes started there feed the pools of the
//! next tile, so training climbs with the network.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use game_core::{Board, GameRng};

use crate::network::{N_FEATURES, Network, StageError, promote};

/// The milestones a learning curve reports reach rates for, as exponents:
/// 2048, 4096, 8192, 16384 and 32768.
pub const CURVE_MILESTONES: [u8; 5] = [11, 12, 13, 14, 15];

/// The tiles whose first appearance in a game is kept for restarts, as
/// exponents: 8192, 16384 and 32768.
pub const RESTART_TILES: [u8; 3] = [13, 14, 15];

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
    /// The share of episodes that restart from a kept late-game board
    /// (see the module docs) rather than the empty board; 0 turns restarts
    /// off. Episodes start from the empty board until a pool has a board.
    pub restart_share: f64,
}

impl TrainConfig {
    /// The settings we train with: TC rates with a meta rate of 0.25, the
    /// standard rules, a curve row per 10,000 episodes, and half the
    /// episodes restarted from late-game boards.
    ///
    /// A meta rate of 1 (Jaśkowski's choice) learns as fast on one thread,
    /// but with two threads it diverged in 4 of 6 short runs (weights past
    /// 100,000 within 300 episodes): early on nearly every board shares the
    /// same few features, two threads then step the same weights by a full
    /// error each, and the doubled step overshoots. 0.5 diverged less, 0.25
    /// never did, and on one thread learned as fast as 1 over the first 300
    /// episodes.
    pub fn standard() -> TrainConfig {
        TrainConfig {
            seed: 1,
            threads: 2,
            alpha: 0.25,
            coherence: true,
            episodes: None,
            four_probability: 0.1,
            curve_every: 10_000,
            restart_share: 0.5,
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
    /// Rust. The TD update of an afterstate comes one move after it was
    /// chosen, and its 32 pairs (in 512 MiB of state a stage, unlike its
    /// weights, which choosing it just read) are almost all cache misses.
    /// Issued together here, the 32 misses overlap one another and the
    /// spawn and moves that follow, where the update met them a few at a
    /// time inside its loop (about 1.3 times the training moves per
    /// second on one thread, 1.2 to 1.4 on two: docs/ntuple.md, "The TC
    /// pairs, read one move early").
    #[inline]
    fn touch(&self, features: &[u32; N_FEATURES]) {
        let mut any = 0;
        for &i in features {
            any |= self.errors[i as usize].load(Ordering::Relaxed);
        }
        std::hint::black_box(any);
    }
}

/// What one episode came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Episode {
    /// The game's score.
    pub score: u64,
    /// Moves played.
    pub moves: u64,
    /// The largest exponent reached (11 = 2048).
    pub max_exponent: u8,
    /// Whether it started from a kept late-game board (then `score` counts
    /// only what was scored after the restart).
    pub restarted: bool,
}

/// A learning curve's row: the episodes from the empty board since the
/// previous row (restarted episodes train the network but would flatter its
/// scores, so they are left out of the row's mean and reach rates).
#[derive(Debug, Clone, PartialEq)]
pub struct CurveRow {
    /// Episodes done in all (restarted ones too), at the end of the window.
    pub episodes: u64,
    /// Moves played in all.
    pub moves: u64,
    /// Training time in all (counting resumed checkpoints'), in seconds.
    pub seconds: f64,
    /// The window's mean score.
    pub mean_score: f64,
    /// The window's share of games reaching each of [`CURVE_MILESTONES`].
    pub reach: [f64; CURVE_MILESTONES.len()],
    /// Episodes restarted from kept boards in this process's runs.
    pub restarts: u64,
}

/// Statistics of a run of episodes.
#[derive(Debug, Clone, Default, PartialEq)]
struct Window {
    episodes: u64,
    score: u64,
    reach: [u64; CURVE_MILESTONES.len()],
}

impl Window {
    fn add(&mut self, e: &Episode) {
        self.episodes += 1;
        self.score += e.score;
        for (count, &m) in self.reach.iter_mut().zip(&CURVE_MILESTONES) {
            *count += u64::from(e.max_exponent >= m);
        }
    }

    fn mean_score(&self) -> f64 {
        self.score as f64 / self.episodes.max(1) as f64
    }

    fn reach(&self) -> [f64; CURVE_MILESTONES.len()] {
        self.reach.map(|c| c as f64 / self.episodes.max(1) as f64)
    }
}

/// A snapshot of a training run, for a progress line.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Episodes done in all.
    pub episodes: u64,
    /// Moves played in all.
    pub moves: u64,
    /// Training time in all, in seconds.
    pub seconds: f64,
    /// The mean score of the last finished curve window, or of the current
    /// one while none has finished.
    pub mean_score: f64,
    /// Reach rates over the same window.
    pub reach: [f64; CURVE_MILESTONES.len()],
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
        if !(0.0..=1.0).contains(&config.restart_share) {
            return Err(TrainError::BadRestartShare(config.restart_share));
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
            episodes: counters.episodes,
            moves: counters.moves,
            seconds: counters.seconds,
            mean_score,
            reach,
            restarts: log.restarts,
        }
    }

    /// The learning-curve rows finished since the last call.
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
                    while !stop.load(Ordering::Relaxed) {
                        let i = self.next_episode.fetch_add(1, Ordering::Relaxed);
                        if self.config.episodes.is_some_and(|limit| i >= limit) {
                            break;
                        }
                        let episode = self.play_episode(i);
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
                restarts: log.restarts,
            };
            log.window = Window::default();
            log.last = Some(row.clone());
            log.rows.push(row);
        }
    }

    /// The random stream of episode `i`.
    fn episode_rng(&self, i: u64) -> GameRng {
        GameRng::new(self.config.seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17))
    }

    /// Plays episode `i` greedily and learns from it.
    pub fn play_episode(&self, i: u64) -> Episode {
        let mut rng = self.episode_rng(i);
        let p4 = self.config.four_probability;
        let (mut board, restarted) = match self.restart_board(&mut rng) {
            Some(board) => (board, true),
            None => (spawn(spawn(Board::EMPTY, &mut rng, p4), &mut rng, p4), false),
        };
        // The next restart tile this game may keep: those the start board
        // already holds are not new.
        let mut next_keep = RESTART_TILES.partition_point(|&e| e <= board.max_exponent());
        let mut previous: Option<([u32; N_FEATURES], f32)> = None;
        let (mut score, mut moves) = (0u64, 0u64);
        loop {
            let Some(best) = self.net.best_move(board) else {
                if let Some((f, v)) = previous {
                    self.learn(&f, -v);
                }
                break;
            };
            if let Some((f, v)) = previous {
                self.learn(&f, best.reward as f32 + best.value - v);
            }
            if let Some(tc) = &self.tc {
                tc.touch(&best.features);
            }
            previous = Some((best.features, best.value));
            score += u64::from(best.reward);
            moves += 1;
            board = spawn(best.after, &mut rng, p4);
            // A move that made the next kept tile scored at least its value.
            if next_keep < RESTART_TILES.len()
                && best.reward >= 1 << RESTART_TILES[next_keep]
                && board.max_exponent() >= RESTART_TILES[next_keep]
            {
                while next_keep < RESTART_TILES.len()
                    && board.max_exponent() >= RESTART_TILES[next_keep]
                {
                    next_keep += 1;
                }
                self.keep(next_keep - 1, board, &mut rng);
            }
        }
        Episode { score, moves, max_exponent: board.max_exponent(), restarted }
    }

    /// A kept board to start episode from, or `None` for the empty board:
    /// with probability `restart_share`, a tile chosen uniformly among the
    /// pools that have boards, then one of its boards.
    fn restart_board(&self, rng: &mut GameRng) -> Option<Board> {
        if self.config.restart_share == 0.0 || rng.unit() >= self.config.restart_share {
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
        if self.config.restart_share == 0.0 {
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
            config.restart_share = 1.0;
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
        config.restart_share = 1.0;
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
        assert_eq!((p.episodes, p.restarts, p.mean_score), (1, 1, 0.0));
    }

    #[test]
    fn without_restarts_no_board_is_kept() {
        let mut config = TrainConfig::standard();
        config.restart_share = 0.0;
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
        c.restart_share = 1.5;
        assert!(matches!(
            Trainer::new(c, Network::filled(0.0), Counters::default()),
            Err(TrainError::BadRestartShare(_))
        ));
    }
}

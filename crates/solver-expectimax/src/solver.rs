//! The solver: settings in, a decision out.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use game_core::{Board, Direction, GameBoard, Rules};
use rayon::prelude::*;

use crate::config::{Algorithm, ConfigError, Depth, SearchConfig};
use crate::eval::{Evaluator, WeightedEvaluator};
use crate::search::{Classes, LEAF_TABLE_BYTES, Shared, Task, split};
use crate::stats::Stats;
use crate::table::TransTable;
use crate::tutorial::Tutorial;

/// A spawn below a root child: the child's position among the legal
/// directions, the board with the spawned tile, and whether it is a 4.
type RootTask<B> = (usize, B, bool);

/// What the search chose, and what it did to choose it.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The best direction (ties go to the earliest in [`Direction::ALL`]).
    pub direction: Direction,
    /// Each direction's value, in [`Direction::ALL`] order; `None` for a
    /// direction that changes nothing.
    pub values: [Option<f64>; 4],
    /// The depth the values come from (the deepest finished one when a time
    /// budget is set).
    pub depth: u32,
    /// The search's counters, added over all finished and stopped depths.
    pub stats: Stats,
    /// Wall-clock time of the whole decision.
    pub elapsed: Duration,
}

impl Decision {
    /// The value of `dir`, `None` if it changes nothing.
    pub fn value(&self, dir: Direction) -> Option<f64> {
        self.values[dir.index()]
    }

    /// Move applications per second (see [`Stats::moves`]).
    pub fn moves_per_second(&self) -> f64 {
        self.stats.moves as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Why there is no decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchError {
    /// No direction changes the board: the game is over.
    NoMove,
    /// The learned search plays 4x4 boards only; the board's size.
    NotFourByFour(usize),
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::NoMove => f.write_str("no direction changes the board (the game is over)"),
            SearchError::NotFourByFour(n) => {
                write!(f, "the learned network plays 4x4 boards only, not {n}x{n}")
            }
        }
    }
}

impl std::error::Error for SearchError {}

/// An expectimax searcher with its settings, thread pool, evaluator table
/// and transposition table, reused from move to move.
///
/// ```
/// use game_core::{Board, Direction, Rules};
/// use solver_expectimax::{Preset, Solver};
///
/// let board: Board = "2 2 0 0/0 4 0 0/0 0 0 0/0 0 0 2".parse()?;
/// let solver = Solver::new(Preset::Tutorial.config())?;
/// let decision = solver.decide(&board, &Rules::default())?;
/// println!("{} ({:?})", decision.direction, decision.values);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Solver {
    config: SearchConfig,
    pool: Option<rayon::ThreadPool>,
    engine: Engine,
}

/// What a solver keeps for its algorithm between decisions.
#[allow(clippy::large_enum_variant, reason = "one per solver, made once and never moved again")]
enum Engine {
    /// The tutorial's search keeps nothing (its memos live per decision).
    Tutorial,
    /// The strong search keeps its evaluator's row table and its
    /// transposition tables (none when `table_bytes` is below one entry).
    Expectimax { eval: WeightedEvaluator, tables: Tables, cutoff: f32 },
    /// The learned search keeps its network and its own tables.
    Learned { eval: SharedEvaluator, tables: Tables, cutoff: f32 },
}

/// A learned evaluator of packed 4x4 afterstates, shared by the solvers
/// and threads that use it (a network is hundreds of megabytes).
pub type SharedEvaluator = Arc<dyn Evaluator<Board>>;

/// A shared evaluator borrowed for one decision: a sized handle on the
/// trait object, which the generic search takes by reference.
struct Borrowed<'a>(&'a dyn Evaluator<Board>);

impl Evaluator<Board> for Borrowed<'_> {
    #[inline]
    fn evaluate(&self, board: &Board) -> f32 {
        self.0.evaluate(board)
    }
}

/// A 4x4 board of any type, scored by an evaluator of packed boards: the
/// learned search on [`game_core::Grid`]s of size 4 (it rejects other
/// sizes before searching).
struct Packed<'a>(&'a dyn Evaluator<Board>);

impl<B: GameBoard> Evaluator<B> for Packed<'_> {
    fn evaluate(&self, board: &B) -> f32 {
        let mut rows = [[0u8; 4]; 4];
        for (r, row) in rows.iter_mut().enumerate() {
            for (c, cell) in row.iter_mut().enumerate() {
                *cell = board.exponent(r, c).unwrap_or(0);
            }
        }
        // Every exponent a 4x4 board holds fits the packed board.
        Board::from_exponents(rows).map_or(0.0, |packed| self.0.evaluate(&packed))
    }
}

/// A search's transposition tables within `table_bytes`: the leaf
/// parents' small one (when the bound leaves room for twice its size) and
/// the large one in the rest.
struct Tables {
    table: Option<TransTable>,
    leaves: Option<TransTable>,
}

impl Tables {
    fn with_bytes(bytes: usize, touch: bool) -> Tables {
        if bytes < 2 * LEAF_TABLE_BYTES {
            return Tables { table: TransTable::with_bytes(bytes, touch), leaves: None };
        }
        Tables {
            table: TransTable::with_bytes(bytes - LEAF_TABLE_BYTES, touch),
            leaves: TransTable::with_bytes(LEAF_TABLE_BYTES, touch),
        }
    }

    fn iter(&self) -> impl Iterator<Item = &TransTable> {
        self.table.iter().chain(&self.leaves)
    }
}

impl Engine {
    fn tables(&self) -> Option<&Tables> {
        match self {
            Engine::Expectimax { tables, .. } | Engine::Learned { tables, .. } => Some(tables),
            Engine::Tutorial => None,
        }
    }
}

impl fmt::Debug for Solver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Solver")
            .field("config", &self.config)
            .field("table_bytes", &self.table_bytes())
            .finish_non_exhaustive()
    }
}

impl Solver {
    /// A solver with these settings.
    ///
    /// # Errors
    /// [`ConfigError`] when the settings are invalid or the thread pool
    /// cannot start.
    pub fn new(config: SearchConfig) -> Result<Solver, ConfigError> {
        Solver::build(config, None)
    }

    /// A solver for an [`Algorithm::Learned`] search, scoring afterstates
    /// with `eval`.
    ///
    /// # Errors
    /// [`ConfigError`] when the settings are invalid, are not a learned
    /// search, or the thread pool cannot start.
    pub fn with_evaluator(
        config: SearchConfig,
        eval: SharedEvaluator,
    ) -> Result<Solver, ConfigError> {
        Solver::build(config, Some(eval))
    }

    fn build(
        config: SearchConfig,
        learned: Option<SharedEvaluator>,
    ) -> Result<Solver, ConfigError> {
        config.validate()?;
        let pool = if config.threads > 1 {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(config.threads)
                .thread_name(|i| format!("expectimax-{i}"))
                .build()
                .map_err(|_| ConfigError::ThreadPool)?;
            Some(pool)
        } else {
            None
        };
        let touch = config.time_budget.is_some();
        let engine = match (config.algorithm, learned) {
            (Algorithm::Tutorial, None) => Engine::Tutorial,
            (Algorithm::Expectimax { weights, prob_cutoff }, None) => Engine::Expectimax {
                eval: WeightedEvaluator::new(weights),
                tables: Tables::with_bytes(config.table_bytes, touch),
                cutoff: prob_cutoff,
            },
            (Algorithm::Learned { prob_cutoff }, Some(eval)) => Engine::Learned {
                eval,
                tables: Tables::with_bytes(config.table_bytes, touch),
                cutoff: prob_cutoff,
            },
            (Algorithm::Learned { .. }, None) => return Err(ConfigError::NoEvaluator),
            (_, Some(_)) => return Err(ConfigError::UnusedEvaluator),
        };
        Ok(Solver { config, pool, engine })
    }

    /// The settings.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// The bytes held by the transposition table (0 when there is none).
    pub fn table_bytes(&self) -> usize {
        self.engine.tables().map_or(0, |t| t.iter().map(TransTable::bytes).sum())
    }

    /// Empties the transposition table, so that the next decision searches
    /// from a cold table (as benchmarks want). Decisions never need this:
    /// the table's entries stay exact from move to move and game to game.
    pub fn clear_table(&self) {
        for table in self.engine.tables().into_iter().flat_map(Tables::iter) {
            table.clear();
        }
    }

    /// The depth the settings give for `board`.
    pub fn depth_for<B: GameBoard>(&self, board: &B) -> u32 {
        match self.config.depth {
            Depth::Fixed(d) => d,
            Depth::Adaptive { min, max, bonus } => {
                let n = board.size();
                let mut seen = 0u32;
                for i in 0..n * n {
                    seen |= 1 << board.exponent(i / n, i % n).unwrap_or(0);
                }
                let distinct = (seen >> 1).count_ones() as i32;
                (distinct - 2 + bonus).clamp(min as i32, max as i32) as u32
            }
        }
    }

    /// Chooses a direction for `board` under `rules` (whose probability of a
    /// 4 weighs the chance nodes).
    ///
    /// # Errors
    /// [`SearchError::NoMove`] when no direction changes the board.
    pub fn decide<B: GameBoard>(&self, board: &B, rules: &Rules) -> Result<Decision, SearchError> {
        match &self.engine {
            Engine::Expectimax { eval, tables, cutoff } => {
                self.decide_expectimax(board, rules, *cutoff, eval, Some(tables), false)
            }
            Engine::Learned { eval, tables, cutoff } => {
                if board.size() != 4 {
                    return Err(SearchError::NotFourByFour(board.size()));
                }
                match (board as &dyn std::any::Any).downcast_ref::<Board>() {
                    Some(packed) => self.decide_expectimax(
                        packed,
                        rules,
                        *cutoff,
                        &Borrowed(&**eval),
                        Some(tables),
                        true,
                    ),
                    None => {
                        // Not the packed type: no table (its keys are
                        // packed boards), the evaluator through a copy.
                        self.decide_expectimax(board, rules, *cutoff, &Packed(&**eval), None, true)
                    }
                }
            }
            Engine::Tutorial => self.decide_tutorial(board, rules),
        }
    }

    /// Like [`Solver::decide`] for an [`Algorithm::Expectimax`] search, but
    /// scoring leaves with your own evaluator (and without the
    /// transposition table, whose entries belong to the built-in one).
    ///
    /// # Errors
    /// [`SearchError::NoMove`] when no direction changes the board.
    pub fn decide_with<B: GameBoard, E: Evaluator<B>>(
        &self,
        board: &B,
        rules: &Rules,
        evaluator: &E,
    ) -> Result<Decision, SearchError> {
        let cutoff = match self.config.algorithm {
            Algorithm::Expectimax { prob_cutoff, .. } | Algorithm::Learned { prob_cutoff } => {
                prob_cutoff
            }
            Algorithm::Tutorial => 0.0,
        };
        self.decide_expectimax(board, rules, cutoff, evaluator, None, false)
    }

    /// Runs `tasks` on the pool (or here with one thread), keeping their
    /// order, so combining the results is the same for any thread count.
    fn run_tasks<T: Sync, R: Send>(&self, tasks: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
        match &self.pool {
            Some(pool) => pool.install(|| tasks.par_iter().map(&f).collect()),
            None => tasks.iter().map(f).collect(),
        }
    }

    /// Like [`Solver::run_tasks`], with state made by `init` and shared by
    /// a run of neighbouring tasks (a few runs per thread, for balance): for
    /// memos, which is sound only because the memoised values are pure
    /// functions of their keys, so the split cannot change any result.
    fn run_tasks_with<T: Sync, S, R: Send>(
        &self,
        tasks: &[T],
        init: impl Fn() -> S + Sync + Send,
        f: impl Fn(&mut S, &T) -> R + Sync + Send,
    ) -> Vec<R> {
        let run = |chunk: &[T]| {
            let mut state = init();
            chunk.iter().map(|t| f(&mut state, t)).collect::<Vec<R>>()
        };
        match &self.pool {
            Some(pool) => {
                let chunk = tasks.len().div_ceil(3 * self.config.threads).max(1);
                pool.install(|| tasks.par_chunks(chunk).flat_map_iter(run).collect())
            }
            None => run(tasks),
        }
    }

    /// The root's children: for each legal direction, the moved board; and
    /// for each of its empty cells and spawn values, one task.
    fn root_tasks<B: GameBoard>(board: &B, p4: f64) -> (Vec<(Direction, B)>, Vec<RootTask<B>>) {
        let moved: Vec<(Direction, B)> = Direction::ALL
            .into_iter()
            .map(|d| (d, board.slide_unscored(d)))
            .filter(|(_, b)| b != board)
            .collect();
        let mut tasks = Vec::new();
        for (i, (_, after)) in moved.iter().enumerate() {
            for idx in after.empty_cells() {
                if p4 < 1.0 {
                    tasks.push((i, after.with_exponent_unchecked(idx, 1), false));
                }
                if p4 > 0.0 {
                    tasks.push((i, after.with_exponent_unchecked(idx, 2), true));
                }
            }
        }
        (moved, tasks)
    }

    fn decide_tutorial<B: GameBoard>(
        &self,
        board: &B,
        rules: &Rules,
    ) -> Result<Decision, SearchError> {
        let start = Instant::now();
        let depth = self.depth_for(board);
        let p4 = rules.four_probability();
        let (moved, tasks) = Self::root_tasks(board, p4);
        if moved.is_empty() {
            return Err(SearchError::NoMove);
        }
        let results = self.run_tasks_with(
            &tasks,
            || Tutorial::new(depth, p4),
            |search, (_, spawned, four)| {
                let before = search.stats;
                let v = search.weighed_spawn(spawned, *four);
                (v, search.stats - before)
            },
        );
        let mut totals = vec![0i32; moved.len()];
        let mut stats = Stats { moves: 4, ..Stats::default() };
        for ((i, _, _), (v, s)) in tasks.iter().zip(results) {
            totals[*i] = totals[*i].wrapping_add(v);
            stats += s;
        }
        stats.nodes += moved.len() as u64;
        let mut values = [None; 4];
        for ((dir, _), total) in moved.iter().zip(&totals) {
            values[dir.index()] = Some(f64::from(*total));
        }
        // The first of the largest, as Java's Stream.max keeps on ties.
        let best = moved
            .iter()
            .zip(&totals)
            .fold(None, |best: Option<(Direction, i32)>, ((d, _), &v)| match best {
                Some((_, bv)) if bv >= v => best,
                _ => Some((*d, v)),
            })
            .map(|(d, _)| d)
            .ok_or(SearchError::NoMove)?;
        Ok(Decision { direction: best, values, depth, stats, elapsed: start.elapsed() })
    }

    fn decide_expectimax<B: GameBoard, E: Evaluator<B>>(
        &self,
        board: &B,
        rules: &Rules,
        cutoff: f32,
        eval: &E,
        tables: Option<&Tables>,
        rewards: bool,
    ) -> Result<Decision, SearchError> {
        let start = Instant::now();
        let target = self.depth_for(board);
        let p4 = rules.four_probability();
        let (moved, tasks) = Self::root_tasks(board, p4);
        // The score each root move gains, added to its value when the
        // evaluator counts only the score still to come.
        let root_gains: Vec<f32> = moved
            .iter()
            .map(|(d, _)| match board.slide(*d) {
                Some((_, gain)) if rewards => gain as f32,
                _ => 0.0,
            })
            .collect();
        if moved.is_empty() {
            return Err(SearchError::NoMove);
        }
        let stop = AtomicBool::new(false);
        let classes = Classes::new((1.0 - p4) as f32, p4 as f32, cutoff);
        let mut stats = Stats::default();
        let mut done: Option<(u32, Vec<f32>)> = None;
        // Without a budget, one search at the target depth; with one,
        // depth 1, 2, ... until the deadline, the first always finishing.
        let depths = match self.config.time_budget {
            None => target..=target,
            Some(_) => 1..=target,
        };
        for depth in depths {
            let deadline = match (self.config.time_budget, &done) {
                (Some(budget), Some(_)) => Some(start + budget),
                _ => None,
            };
            let shared = Shared {
                eval,
                table: tables.and_then(|t| t.table.as_ref()),
                leaves: tables.and_then(|t| t.leaves.as_ref()),
                classes,
                p2: (1.0 - p4) as f32,
                p4: p4 as f32,
                deadline,
                stop: &stop,
                parallel: self.pool.is_some(),
                rewards,
            };
            // Each spawn below the root is a max node; split them into
            // their children so that there are enough tasks to keep every
            // thread busy. A max of pure values is the same in any order.
            let mut work = Vec::new();
            for (k, (i, spawned, four)) in tasks.iter().enumerate() {
                let n = moved[*i].1.count_empty() as f32;
                let p = if *four { shared.p4 } else { shared.p2 };
                let class = Classes::of(p / n);
                let (pieces, moves) = split(spawned, depth, class, &classes, rewards);
                stats.moves += moves;
                work.extend(pieces.into_iter().map(|w| (k, w)));
            }
            let results = self.run_tasks(&work, |(_, w)| {
                let mut task = Task::new(&shared);
                let v = task.run(w);
                (v.ok(), task.stats)
            });
            let mut best = vec![shared.floor(); tasks.len()];
            let mut finished = true;
            for ((k, _), (v, s)) in work.iter().zip(results) {
                stats += s;
                match v {
                    Some(v) => best[*k] = best[*k].max(v),
                    None => finished = false,
                }
            }
            let mut totals = vec![0f32; moved.len()];
            for ((i, _, four), &v) in tasks.iter().zip(&best) {
                let p = if *four { shared.p4 } else { shared.p2 };
                totals[*i] += p * Shared::<E>::lost_if_none(v);
            }
            if !finished {
                break;
            }
            for ((total, (_, after)), gain) in totals.iter_mut().zip(&moved).zip(&root_gains) {
                *total = gain + *total / after.count_empty() as f32;
            }
            stats.moves += 4;
            stats.nodes += moved.len() as u64;
            done = Some((depth, totals));
        }
        let (depth, totals) = done.ok_or(SearchError::NoMove)?;
        let mut values = [None; 4];
        let mut best: Option<(Direction, f32)> = None;
        for ((dir, _), &v) in moved.iter().zip(&totals) {
            values[dir.index()] = Some(f64::from(v));
            if best.is_none_or(|(_, bv)| v > bv) {
                best = Some((*dir, v));
            }
        }
        let direction = best.map(|(d, _)| d).ok_or(SearchError::NoMove)?;
        Ok(Decision { direction, values, depth, stats, elapsed: start.elapsed() })
    }
}

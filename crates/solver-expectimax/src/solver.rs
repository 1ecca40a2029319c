//! The solver: settings in, a decision out.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use game_core::{Board, Direction, GameBoard, Grid, Rules};
use rayon::prelude::*;

use crate::awake::Pool;
use crate::config::{Algorithm, ConfigError, Depth, SearchConfig};
use crate::endgame::{self, Endgame, Formation};
use crate::eval::{CornerEvaluator, Evaluator, WeightedEvaluator, Weights};
use crate::search::{Classes, Ends, LEAF_TABLE_BYTES, Shared, Task, split};
use crate::stats::Stats;
use crate::table::{Paging, TransTable};
use crate::tutorial::Tutorial;

mod learned;
mod root;
#[cfg(test)]
mod tests;

use learned::{Borrowed, Packed, Shaped};
use root::Root;

/// The smallest head (exponent of the tile in the corner) of a chain whose
/// table the solver plays by: 16384.
///
/// Why: a table's goal is local (the chain's next tile, without moving the
/// chain), and earlier in the game following it costs more than it gains:
/// from lower heads the tables took over the middle game, which the search
/// plays better, and fewer games reached 16384
/// (docs/experiments/2026-11-26-endgame-tables-for-the-learned-player.md).
pub const ENDGAME_MIN_HEAD: u8 = 14;

/// The odds from which the corner search plays the corner step's move:
/// below them the block's table or the search decides. The step's goal
/// comes round again and again, and a lower bar lets the table play
/// positions where its narrow goal costs the rest of the board
/// (macroxue/2048-ai's threshold).
pub const STEP_MIN_ODDS: f64 = 0.9;

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
    /// The formation whose endgame table decided, when one did (see
    /// [`Solver::with_endgame`]); the values are then each direction's
    /// odds of building the chain's next tile, and `depth` is 0.
    pub endgame: Option<Formation>,
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
    pool: SearchThreads,
    engine: Engine,
    endgame: Option<Arc<Endgame>>,
}

/// A solver's search threads, as a handle that outlives a borrow of the
/// solver: [`SearchThreads::run`] runs a loop of decisions on one of them.
///
/// A decision asked from another thread hands its work over to the pool and
/// sleeps until the pool hands the result back: two wake-ups of sleeping
/// threads, which can cost a good share of a fast decision (measured in
/// docs/experiments/2026-11-23-handing-decisions-to-the-pool.md).
/// Asked from one of the pool's threads, the decision starts at once. The
/// other threads keep looking for work until 2 ms after each search starts
/// and ends, so in a loop of decisions they are awake when the next starts
/// (docs/solver.md, "The pool"). Decisions are the same
/// either way.
///
/// ```
/// use game_core::{Game, Rules};
/// use solver_expectimax::{Preset, Solver};
///
/// let mut config = Preset::Fast.config();
/// config.threads = 2;
/// let solver = Solver::new(config)?;
/// let mut game = Game::<game_core::Board>::new(Rules::default(), 7)?;
/// let moves = solver.search_threads().run(|| {
///     for _ in 0..20 {
///         let Ok(d) = solver.decide(game.board(), game.rules()) else { break };
///         game.play(d.direction).expect("a legal move");
///     }
///     game.moves()
/// });
/// assert_eq!(moves, 20);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct SearchThreads(Option<Arc<Pool>>);

impl SearchThreads {
    /// Runs `f` on one of the search threads (here, for a one-thread
    /// solver, which has none of its own), and returns what it returns.
    pub fn run<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.0 {
            Some(pool) => pool.run(f),
            None => f(),
        }
    }
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
    /// The corner search keeps its evaluator's row table and its
    /// transposition tables.
    Corner { eval: CornerEvaluator, tables: Tables, cutoff: f32 },
}

/// A learned evaluator of packed 4x4 afterstates, shared by the solvers
/// and threads that use it (a network is hundreds of megabytes).
pub type SharedEvaluator = Arc<dyn Evaluator<Board>>;

/// A search's transposition tables within `table_bytes`: the leaf
/// parents' small one (when the bound leaves room for twice its size) and
/// the large one in the rest.
struct Tables {
    table: Option<TransTable>,
    leaves: Option<TransTable>,
}

impl Tables {
    fn with_bytes(bytes: usize, paging: Paging) -> Tables {
        if bytes < 2 * LEAF_TABLE_BYTES {
            return Tables { table: TransTable::with_bytes(bytes, paging), leaves: None };
        }
        Tables {
            table: TransTable::with_bytes(bytes - LEAF_TABLE_BYTES, paging),
            leaves: TransTable::with_bytes(LEAF_TABLE_BYTES, paging),
        }
    }

    fn iter(&self) -> impl Iterator<Item = &TransTable> {
        self.table.iter().chain(&self.leaves)
    }
}

impl Engine {
    fn tables(&self) -> Option<&Tables> {
        match self {
            Engine::Expectimax { tables, .. }
            | Engine::Learned { tables, .. }
            | Engine::Corner { tables, .. } => Some(tables),
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
            SearchThreads(Some(Arc::new(Pool::new(pool))))
        } else {
            SearchThreads(None)
        };
        // Two threads faulting in a lazily mapped table's pages at once
        // spend most of their time in the kernel, and made whole games
        // slower than one thread; mapped when the table is made, they pay
        // (docs/experiments/2026-11-23-paging-the-table.md).
        let paging = if config.time_budget.is_some() || config.threads > 1 {
            Paging::Upfront
        } else {
            Paging::Lazy
        };
        let engine = match (config.algorithm, learned) {
            (Algorithm::Tutorial, None) => Engine::Tutorial,
            (Algorithm::Expectimax { weights, prob_cutoff }, None) => Engine::Expectimax {
                eval: WeightedEvaluator::new(weights),
                tables: Tables::with_bytes(config.table_bytes, paging),
                cutoff: prob_cutoff,
            },
            (Algorithm::Learned { prob_cutoff, heuristic }, Some(eval)) => Engine::Learned {
                eval: if heuristic > 0.0 {
                    Arc::new(Shaped {
                        net: eval,
                        heuristic: WeightedEvaluator::new(Weights::STANDARD),
                        weight: heuristic,
                    })
                } else {
                    eval
                },
                tables: Tables::with_bytes(config.table_bytes, paging),
                cutoff: prob_cutoff,
            },
            (Algorithm::Corner { prob_cutoff }, None) => Engine::Corner {
                eval: CornerEvaluator::new(),
                tables: Tables::with_bytes(config.table_bytes, paging),
                cutoff: prob_cutoff,
            },
            (Algorithm::Learned { .. }, None) => return Err(ConfigError::NoEvaluator),
            (_, Some(_)) => return Err(ConfigError::UnusedEvaluator),
        };
        Ok(Solver { config, pool, engine, endgame: None })
    }

    /// This solver, playing the move of an endgame table wherever one
    /// applies (see [`endgame`]), on 4x4 boards under the standard rules
    /// (a 4 one spawn in ten, no tutorial turn rule). The corner search
    /// ([`Algorithm::Corner`]) plays the corner step's move when its odds
    /// are at least [`STEP_MIN_ODDS`], else the corner block's when some
    /// move keeps the block with odds above 0. Every other search plays by
    /// the chains: when a chain along the snake path from a tile of at
    /// least 16384 ([`ENDGAME_MIN_HEAD`]) has a table and some move keeps
    /// the chain with odds above 0 of building its next tile. Elsewhere it
    /// searches as before. (Each search plays by the tables it was
    /// measured with: docs/endgame.md.)
    ///
    /// Why the table's move rather than the search's: the table has looked
    /// to the end of the chain's next tile, dozens of moves past any
    /// search's horizon, and it is exact there, while the search's
    /// evaluator only guesses (docs/endgame.md measures the difference).
    #[must_use]
    pub fn with_endgame(mut self, endgame: Arc<Endgame>) -> Solver {
        self.endgame = Some(endgame);
        self
    }

    /// The endgame tables, if any.
    pub fn endgame(&self) -> Option<&Endgame> {
        self.endgame.as_deref()
    }

    /// The endgame table's decision for `board`, if one applies.
    fn endgame_decision<B: GameBoard>(&self, board: &B, rules: &Rules) -> Option<Decision> {
        let tables = self.endgame.as_deref()?;
        if board.size() != 4 || endgame::check_rules(rules).is_err() {
            return None;
        }
        let start = Instant::now();
        let packed = Board::from_raw(board.packed()?);
        let advice = if let Algorithm::Corner { .. } = self.config.algorithm {
            tables.corner_move(packed)
        } else {
            tables.advise(packed, ENDGAME_MIN_HEAD)
        }?;
        (advice.odds > 0.0).then(|| Decision {
            direction: advice.direction,
            values: advice.values,
            depth: 0,
            stats: Stats::default(),
            elapsed: start.elapsed(),
            endgame: Some(advice.formation),
        })
    }

    /// The settings.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// The search threads, to run a loop of decisions on (see
    /// [`SearchThreads`]).
    pub fn search_threads(&self) -> SearchThreads {
        self.pool.clone()
    }

    /// The bytes held by the transposition table (0 when there is none).
    pub fn table_bytes(&self) -> usize {
        self.engine.tables().map_or(0, |t| t.iter().map(TransTable::bytes).sum())
    }

    /// Empties the transposition table, so that the next decision searches
    /// from a cold table (as benchmarks want). Decisions never need this:
    /// the table's entries stay exact from move to move and game to game.
    pub fn clear_table(&self) {
        let tables = self.engine.tables().into_iter().flat_map(Tables::iter);
        match &self.pool.0 {
            // On the pool, which also keeps its threads awake for the
            // decision that follows.
            Some(pool) => pool.search(|| tables.for_each(TransTable::par_clear)),
            None => tables.for_each(TransTable::clear),
        }
    }

    /// The depth the settings give for `board`.
    pub fn depth_for<B: GameBoard>(&self, board: &B) -> u32 {
        match self.config.depth {
            Depth::Fixed(d) => d,
            Depth::Adaptive { min, max, bonus } => {
                let distinct = board.count_distinct() as i32;
                (distinct - 2 + bonus).clamp(min as i32, max as i32) as u32
            }
            depth @ Depth::Crowded { crowded, .. } => {
                let (shallow, deep) = depth.range();
                if board.count_empty() <= crowded as usize { deep } else { shallow }
            }
        }
    }

    /// Chooses a direction for `board` under `rules` (whose probability of a
    /// 4 weighs the chance nodes).
    ///
    /// # Errors
    /// [`SearchError::NoMove`] when no direction changes the board.
    pub fn decide<B: GameBoard>(&self, board: &B, rules: &Rules) -> Result<Decision, SearchError> {
        // The search is compiled here, for the packed board and the grid,
        // whichever crate calls and with whatever board type: a frontend
        // need not compile (or optimise) the search's generic code itself.
        if board.size() == 4 {
            if let Some(packed) = board_of(board) {
                return self.decide_board(&packed, rules);
            }
        } else if let Some(grid) = grid_of(board) {
            return self.decide_grid(&grid, rules);
        }
        // Not reached for a board that keeps GameBoard's invariants.
        self.decide_any(board, rules)
    }

    /// [`Solver::decide`] on the packed board.
    #[inline(never)]
    fn decide_board(&self, board: &Board, rules: &Rules) -> Result<Decision, SearchError> {
        self.decide_any(board, rules)
    }

    /// [`Solver::decide`] on a grid.
    #[inline(never)]
    fn decide_grid(&self, board: &Grid, rules: &Rules) -> Result<Decision, SearchError> {
        self.decide_any(board, rules)
    }

    fn decide_any<B: GameBoard>(&self, board: &B, rules: &Rules) -> Result<Decision, SearchError> {
        if let Some(decision) = self.endgame_decision(board, rules) {
            return Ok(decision);
        }
        match &self.engine {
            Engine::Expectimax { eval, tables, cutoff } => {
                self.decide_expectimax(board, rules, *cutoff, eval, Some(tables))
            }
            Engine::Learned { eval, tables, cutoff } => {
                if board.size() != 4 {
                    return Err(SearchError::NotFourByFour(board.size()));
                }
                match board.packed().map(Board::from_raw) {
                    Some(packed) => self.decide_expectimax(
                        &packed,
                        rules,
                        *cutoff,
                        &Borrowed(&**eval),
                        Some(tables),
                    ),
                    None => {
                        // No packed form (a Grid, or a tile past 32768):
                        // no table (its keys are packed boards), the
                        // evaluator through a copy.
                        self.decide_expectimax(
                            board,
                            rules,
                            *cutoff,
                            &Packed(Borrowed(&**eval)),
                            None,
                        )
                    }
                }
            }
            Engine::Corner { eval, tables, cutoff } => {
                self.decide_expectimax(board, rules, *cutoff, eval, Some(tables))
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
            Algorithm::Expectimax { prob_cutoff, .. }
            | Algorithm::Learned { prob_cutoff, .. }
            | Algorithm::Corner { prob_cutoff } => prob_cutoff,
            Algorithm::Tutorial => 0.0,
        };
        self.decide_expectimax(board, rules, cutoff, evaluator, None)
    }

    /// Runs `tasks` on the pool (or here with one thread), keeping their
    /// order, so combining the results is the same for any thread count.
    fn run_tasks<T: Sync, R: Send>(&self, tasks: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
        match &self.pool.0 {
            Some(pool) => pool.search(|| tasks.par_iter().map(&f).collect()),
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
        match &self.pool.0 {
            Some(pool) => {
                let chunk = tasks.len().div_ceil(3 * self.config.threads).max(1);
                pool.search(|| tasks.par_chunks(chunk).flat_map_iter(run).collect())
            }
            None => run(tasks),
        }
    }

    fn decide_tutorial<B: GameBoard>(
        &self,
        board: &B,
        rules: &Rules,
    ) -> Result<Decision, SearchError> {
        let start = Instant::now();
        let depth = self.depth_for(board);
        let p4 = rules.four_probability();
        let root = Root::new(board, p4);
        if root.moved.is_empty() {
            return Err(SearchError::NoMove);
        }
        let results = self.run_tasks_with(
            &root.tasks,
            || Tutorial::new(depth, p4),
            |search, task| {
                let before = search.stats;
                let v = search.weighed_spawn(&task.board, task.four);
                (v, search.stats - before)
            },
        );
        let mut stats = Stats { moves: 4, nodes: root.moved.len() as u64, ..Stats::default() };
        for (_, s) in &results {
            stats += *s;
        }
        // Java's int arithmetic: the sums wrap.
        let totals = root.sum_per_child(results, |_, (v, _)| v, i32::wrapping_add);
        let (direction, values) = root.choose(&totals).ok_or(SearchError::NoMove)?;
        Ok(Decision { direction, values, depth, stats, elapsed: start.elapsed(), endgame: None })
    }

    fn decide_expectimax<B: GameBoard, E: Evaluator<B>>(
        &self,
        board: &B,
        rules: &Rules,
        cutoff: f32,
        eval: &E,
        tables: Option<&Tables>,
    ) -> Result<Decision, SearchError> {
        let start = Instant::now();
        let target = self.depth_for(board);
        let p4 = rules.four_probability();
        let mut root = Root::new(board, p4);
        if root.moved.is_empty() {
            return Err(SearchError::NoMove);
        }
        // A root child below the evaluator's bound is worth its score, as
        // any chance node is (`Task::expand`): its spawns are not searched.
        let ends = Ends::new(eval, board);
        let pruned: Vec<Option<f32>> =
            root.moved.iter().map(|(_, after)| ends.pruned(eval, after)).collect();
        root.tasks.retain(|task| pruned[task.child].is_none());
        // The score each root move gains, added to its value when the
        // evaluator counts only the score still to come.
        let root_gains: Vec<f32> = root
            .moved
            .iter()
            .map(|(d, _)| match board.slide(*d) {
                Some((_, gain)) if eval.rewards() => gain as f32,
                _ => 0.0,
            })
            .collect();
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
                parallel: self.pool.0.is_some(),
                ends,
            };
            let Some(mut totals) = self.search_root(&root, &shared, depth, &mut stats) else {
                break;
            };
            for (((total, (_, after)), gain), pruned) in
                totals.iter_mut().zip(&root.moved).zip(&root_gains).zip(&pruned)
            {
                *total = gain + pruned.unwrap_or(*total / after.count_empty() as f32);
            }
            stats.moves += 4;
            stats.nodes += root.moved.len() as u64;
            done = Some((depth, totals));
        }
        let (depth, totals) = done.ok_or(SearchError::NoMove)?;
        let (direction, values) = root.choose(&totals).ok_or(SearchError::NoMove)?;
        Ok(Decision { direction, values, depth, stats, elapsed: start.elapsed(), endgame: None })
    }

    /// One search of the root's tasks at `depth`: each child's sum of its
    /// spawns' values weighted by their probabilities (not yet divided by
    /// its empty cells), or `None` when the deadline stopped it. The work
    /// done is added to `stats` either way.
    fn search_root<B: GameBoard, E: Evaluator<B>>(
        &self,
        root: &Root<B>,
        shared: &Shared<'_, E>,
        depth: u32,
        stats: &mut Stats,
    ) -> Option<Vec<f32>> {
        // Each spawn below the root is a max node; split them into their
        // children so that there are enough tasks to keep every thread
        // busy. A max of pure values is the same in any order.
        let mut work = Vec::new();
        for (k, task) in root.tasks.iter().enumerate() {
            let n = root.moved[task.child].1.count_empty() as f32;
            let p = if task.four { shared.p4 } else { shared.p2 };
            let class = Classes::of(p / n);
            let (pieces, moves) = split(&task.board, depth, class, shared);
            stats.moves += moves;
            work.extend(pieces.into_iter().map(|w| (k, w)));
        }
        let results = self.run_tasks(&work, |(_, w)| {
            let mut task = Task::new(shared);
            let v = task.run(w);
            (v.ok(), task.stats)
        });
        let mut best = vec![shared.floor(); root.tasks.len()];
        let mut finished = true;
        for ((k, _), (v, s)) in work.iter().zip(results) {
            *stats += s;
            match v {
                Some(v) => best[*k] = best[*k].max(v),
                None => finished = false,
            }
        }
        if !finished {
            return None;
        }
        Some(root.sum_per_child(
            best,
            |task, v| {
                let p = if task.four { shared.p4 } else { shared.p2 };
                p * shared.lost_if_none(v)
            },
            |a, b| a + b,
        ))
    }
}

/// A 4x4 board of any type as the packed board (every exponent fits it).
fn board_of<B: GameBoard>(board: &B) -> Option<Board> {
    if let Some(raw) = board.packed() {
        return Some(Board::from_raw(raw));
    }
    let mut rows = [[0u8; 4]; 4];
    for (r, row) in rows.iter_mut().enumerate() {
        for (c, cell) in row.iter_mut().enumerate() {
            *cell = board.exponent(r, c)?;
        }
    }
    Board::from_exponents(rows).ok()
}

/// A board of any type as a grid of its size.
fn grid_of<B: GameBoard>(board: &B) -> Option<Grid> {
    let n = board.size();
    let mut grid = Grid::empty(n).ok()?;
    for i in 0..n * n {
        grid = grid.set_exponent(i / n, i % n, board.exponent(i / n, i % n)?).ok()?;
    }
    Some(grid)
}

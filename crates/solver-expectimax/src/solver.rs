//! The solver: settings in, a decision out.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use game_core::{Board, Direction, GameBoard, Grid, Rules};

use crate::awake::Pool;
use crate::config::{ConfigError, Depth, SearchConfig};
use crate::endgame::{self, Endgame, Formation};
use crate::eval::Evaluator;
use crate::stats::Stats;
use crate::table::{Paging, Tables, TransTable};

mod learned;
mod root;
mod searches;
mod searching;
#[cfg(test)]
mod tests;

use root::Run;
use searching::Search;

/// The smallest head (exponent of the tile in the corner) of a chain whose
/// table the solver plays by: 16384.
///
/// Why: a table's goal is local (the chain's next tile, without moving the
/// chain), and earlier in the game following it costs more than it gains:
/// from lower heads the tables took over the middle game, which the search
/// plays better, and fewer games reached 16384
/// (docs/experiments/2026-11-26-endgame-tables-for-the-learned-player.md).
pub const ENDGAME_MIN_HEAD: u8 = 14;

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
    /// The search of the settings' algorithm, made once.
    search: Box<dyn Search>,
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
/// let mut game = Game::new(Rules::default(), 7);
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

/// A learned evaluator of packed 4x4 afterstates, shared by the solvers
/// and threads that use it (a network is hundreds of megabytes).
pub type SharedEvaluator = Arc<dyn Evaluator<Board>>;

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
    ///
    /// [`Algorithm::Learned`]: crate::Algorithm::Learned
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
        let search = searches::build(&config, learned, paging)?;
        Ok(Solver { config, pool, search, endgame: None })
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
    ///
    /// [`Algorithm::Corner`]: crate::Algorithm::Corner
    /// [`STEP_MIN_ODDS`]: endgame::STEP_MIN_ODDS
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
        if endgame::check_rules(board.size(), rules).is_err() {
            return None;
        }
        let start = Instant::now();
        let packed = Board::from_raw(board.packed()?);
        let advice = self.search.endgame_advice(tables, packed)?;
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
        self.search.tables().map_or(0, |t| t.iter().map(TransTable::bytes).sum())
    }

    /// Empties the transposition table, so that the next decision searches
    /// from a cold table (as benchmarks want). Decisions never need this:
    /// the table's entries stay exact from move to move and game to game.
    pub fn clear_table(&self) {
        let tables = self.search.tables().into_iter().flat_map(Tables::iter);
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
            Depth::Fixed(d) | Depth::AtLeast { min: d, .. } => d,
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
    /// [`SearchError::NoMove`] when no direction changes the board,
    /// [`SearchError::NotFourByFour`] when a learned search is asked about
    /// a board of another size.
    ///
    /// # Panics
    /// If `board` is outside the bounds every board type keeps (sizes from
    /// [`game_core::MIN_SIZE`] to [`game_core::MAX_SIZE`], exponents up to
    /// [`game_core::MAX_EXPONENT`]), which no board of game-core is.
    pub fn decide<B: GameBoard>(&self, board: &B, rules: &Rules) -> Result<Decision, SearchError> {
        // The search is compiled in this crate, for the 4x4 board and the
        // grid, whichever crate calls and with whatever board type: a
        // frontend need not compile (or optimise) the search's generic code
        // itself.
        let decision = if board.size() == 4 {
            board_of(board).map(|board| self.decide_board(&board, rules))
        } else {
            grid_of(board).map(|grid| self.decide_grid(&grid, rules))
        };
        decision.expect("a board within the bounds of every board type")
    }

    /// [`Solver::decide`] on the 4x4 board.
    #[inline(never)]
    fn decide_board(&self, board: &Board, rules: &Rules) -> Result<Decision, SearchError> {
        if let Some(decision) = self.endgame_decision(board, rules) {
            return Ok(decision);
        }
        self.search.decide_board(&self.run(board), board, rules)
    }

    /// [`Solver::decide`] on a grid (of a size other than 4).
    #[inline(never)]
    fn decide_grid(&self, board: &Grid, rules: &Rules) -> Result<Decision, SearchError> {
        self.search.decide_grid(&self.run(board), board, rules)
    }

    /// How a decision for `board` runs, from now: its depth, the budget and
    /// the threads.
    fn run<B: GameBoard>(&self, board: &B) -> Run<'_> {
        let (first, depth) = match (self.config.depth, self.config.time_budget) {
            (Depth::AtLeast { min, max }, Some(_)) => (min, max),
            (Depth::AtLeast { min, .. }, None) => (min, min),
            (_, _) => (1, self.depth_for(board)),
        };
        Run {
            start: Instant::now(),
            depth,
            first,
            time_budget: self.config.time_budget,
            pool: self.pool.0.as_deref(),
            threads: self.config.threads,
        }
    }

    /// Like [`Solver::decide`] for an [`Algorithm::Expectimax`] search, but
    /// scoring leaves with your own evaluator (and without the
    /// transposition table, whose entries belong to the built-in one).
    ///
    /// # Errors
    /// [`SearchError::NoMove`] when no direction changes the board.
    ///
    /// [`Algorithm::Expectimax`]: crate::Algorithm::Expectimax
    pub fn decide_with<B: GameBoard, E: Evaluator<B>>(
        &self,
        board: &B,
        rules: &Rules,
        evaluator: &E,
    ) -> Result<Decision, SearchError> {
        let cutoff = self.config.algorithm.prob_cutoff().unwrap_or(0.0);
        root::expectimax(&self.run(board), board, rules, evaluator, cutoff, None)
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

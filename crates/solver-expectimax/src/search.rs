//! Proper expectimax with probability cut-offs and a shared, deterministic
//! transposition table.
//!
//! Determinism: a chance node's probability is first rounded down to a
//! class (4 per octave, by masking the `f32` mantissa), and everything below
//! the node (cut-offs, children's probabilities) is computed from the class,
//! not the exact product. So a chance node's value is a pure function of
//! (board, depth left, class, the root's context: what the lost value and
//! the pruning bound read of the root, [`Evaluator::context`]); the table's
//! key is that with what cannot change the value taken out
//! ([`Classes::key`]). A hit is exactly the value a search would compute,
//! and the decision at a fixed depth is the same whatever the thread count
//! or the table's contents.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use game_core::{Direction, GameBoard};
use rayon::prelude::*;

use crate::eval::Evaluator;
use crate::hash::MixMap;
use crate::stats::Stats;
use crate::table::{Key, TransTable};

/// Rounds a probability down to its class: sign, exponent and the top two
/// mantissa bits of the `f32`.
#[inline]
fn quantize(p: f32) -> u32 {
    p.to_bits() >> 21
}

/// The key of every chance node whose spawns all score their moves with
/// the evaluator (see [`Classes::key`]): depth 1, and the class of
/// probability 0, which no searched node has.
const LEAF_PARENT: (u32, u32) = (1, 0);

/// Probability classes: how a chance node's probability class gives its
/// children's, and which max nodes are past the cut-off. A class is the
/// top 11 bits of the rounded-down `f32`, so classes order like their
/// probabilities.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Classes {
    /// The probability of a 2 and of a 4.
    p: [f32; 2],
    /// The larger of the two.
    likelier: f32,
    cutoff: f32,
}

impl Classes {
    pub(crate) fn new(p2: f32, p4: f32, cutoff: f32) -> Classes {
        Classes { p: [p2, p4], likelier: p2.max(p4), cutoff }
    }

    /// The class of probability `p`.
    #[inline]
    pub(crate) fn of(p: f32) -> u32 {
        quantize(p)
    }

    /// The probability a class stands for (its lower bound).
    #[inline]
    fn prob(class: u32) -> f32 {
        f32::from_bits(class << 21)
    }

    /// Whether a max node of this class scores its moves with the
    /// evaluator rather than searching below them.
    #[inline]
    pub(crate) fn is_cut(&self, class: u32) -> bool {
        Classes::prob(class) < self.cutoff
    }

    /// The class of a spawn of probability `p` on one of `n` empty cells
    /// below a chance node of class `class`: the node's probability
    /// divided by `n`, times `p`, rounded down (in this order, so that the
    /// result is the same float whichever way it is reached).
    #[inline]
    fn spawn(class: u32, n: usize, p: f32) -> u32 {
        quantize(Classes::prob(class) / n as f32 * p)
    }

    /// The classes of a spawned 2 and 4 below a chance node.
    #[inline]
    pub(crate) fn spawns(&self, class: u32, n: usize) -> (u32, u32) {
        (Classes::spawn(class, n, self.p[0]), Classes::spawn(class, n, self.p[1]))
    }

    /// The key a chance node (depth left, class, `n` empty cells) is
    /// stored under: what cannot change its value taken out, so that more
    /// nodes share an entry. Its value is a pure function of (board, depth,
    /// class), and:
    ///
    /// - if every path below it is cut off within `L < depth` chance
    ///   layers, depth `L` gives the same value. Each layer below spawns on
    ///   a board with at most one empty cell fewer (a spawn fills one, a
    ///   move empties none), and the class of a spawn grows with its
    ///   parent's class and shrinks with the empty cells, so the likelier
    ///   spawn on one cell fewer per layer bounds every path;
    /// - if `L` is 1 (its spawns all score their moves with the evaluator,
    ///   as at depth 1), neither depth nor class matters: all such nodes
    ///   share [`LEAF_PARENT`].
    #[inline]
    pub(crate) fn key(&self, depth: u32, class: u32, n: usize) -> (u32, u32) {
        let (mut layers, mut below, mut n) = (1, class, n.max(1));
        while layers < depth {
            below = Classes::spawn(below, n, self.likelier);
            if self.is_cut(below) {
                break;
            }
            n = (n - 1).max(1);
            layers += 1;
        }
        if layers == 1 { LEAF_PARENT } else { (layers, class) }
    }
}

/// Chance nodes at least this likely offer their spawns to idle threads
/// (see [`Task::expand_parallel`]). Only the top of the tree is that likely, so the
/// cost of offering is paid on a few hundred nodes per decision.
const PARALLEL_MIN_PROB: f32 = 0.01;

/// How often (in chance nodes) a timed search reads the clock.
const CLOCK_EVERY: u32 = 128;

/// The shared, read-only part of a search.
pub(crate) struct Shared<'a, E> {
    pub(crate) eval: &'a E,
    pub(crate) table: Option<&'a TransTable>,
    /// The small table of leaf parents (see [`crate::table::Tables`]), or
    /// none, when they go to `table` too.
    pub(crate) leaves: Option<&'a TransTable>,
    pub(crate) classes: Classes,
    pub(crate) p2: f32,
    pub(crate) p4: f32,
    pub(crate) deadline: Option<Instant>,
    pub(crate) stop: &'a AtomicBool,
    /// Whether the search runs on a pool of more than one thread, so that
    /// the largest chance nodes offer their spawns to idle threads.
    pub(crate) parallel: bool,
    /// Where a max node's best starts and what a lost board is worth.
    pub(crate) ends: Ends,
}

/// Where a max node's best starts, what it is worth when no move is
/// legal (a lost board), below which evaluation a chance node is not
/// searched, and the root's context that determines all three for the
/// table's key.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ends {
    floor: f32,
    lost: f32,
    prune: f32,
    context: u8,
}

impl Ends {
    /// For a search from `root`: a lost board is worth the evaluator's
    /// [`Evaluator::lost_value`]. A max node's best starts at 0 when that
    /// is 0 and the values are the heuristic's: the public program's rule,
    /// kept so that its game (4x4, tiles up to 32768) searches as before,
    /// where the heuristic is positive on the boards games reach (not on
    /// all: a zigzag row such as `8192 2 4096 1024` scores below 0, and
    /// such a max node is then worth what a lost board is); otherwise at
    /// minus infinity, so that every move that survives is worth more than
    /// losing (a learned value is 0 or more, a lost board a hair below 0;
    /// outside the tuned game the heuristic's lost value is below all its
    /// values). Chance nodes are pruned by [`Evaluator::prune_below`].
    pub(crate) fn new<B: GameBoard, E: Evaluator<B>>(eval: &E, root: &B) -> Ends {
        let lost = eval.lost_value(root);
        let floor = if eval.rewards() || lost < 0.0 { f32::NEG_INFINITY } else { 0.0 };
        Ends { floor, lost, prune: eval.prune_below(root), context: eval.context(root) }
    }

    /// Whether the search evaluates chance nodes to prune them.
    #[inline]
    pub(crate) fn prunes(&self) -> bool {
        self.prune > f32::NEG_INFINITY
    }

    /// Whether the search reads the root's context: a pruning bound or a
    /// context other than 0 (the corner search's). The other searches run
    /// a [`Task`] compiled without both ([`run_work`]).
    #[inline]
    pub(crate) fn reads_root(&self) -> bool {
        self.prunes() || self.context != 0
    }

    /// A chance node's value without searching it: its board's score, when
    /// that is below the evaluator's bound ([`Evaluator::prune_below`]).
    #[inline]
    pub(crate) fn pruned<B: GameBoard, E: Evaluator<B>>(&self, eval: &E, board: &B) -> Option<f32> {
        if !self.prunes() {
            return None;
        }
        let value = eval.evaluate(board);
        (value < self.prune).then_some(value)
    }
}

impl<E> Shared<'_, E> {
    /// Where a max node's best starts (see [`Ends::new`]).
    #[inline]
    pub(crate) fn floor(&self) -> f32 {
        self.ends.floor
    }

    /// A max node's value from its best: the lost value when no move was
    /// legal.
    #[inline]
    pub(crate) fn lost_if_none(&self, best: f32) -> f32 {
        if best == f32::NEG_INFINITY { self.ends.lost } else { best }
    }
}

/// One task's view: the shared part, its own counters, and for boards
/// without a table key (all but the packed 4x4 board) a memo of its own,
/// exact for the same reason the table is.
///
/// `READS_ROOT` is [`Ends::reads_root`] ([`run_work`] picks it): without
/// it, the task neither prunes nor keys the table by the root's context
/// (then 0, and nothing is pruned), so the compiler drops both from every
/// node of the searches that never use them; kept as tests at run time
/// they cost those searches a check per chance node, a context per probe,
/// and registers in the loop over the spawns (docs/solver.md, "Where the
/// instructions went").
struct Task<'a, 's, E, B, const READS_ROOT: bool> {
    shared: &'s Shared<'a, E>,
    stats: Stats,
    until_clock: u32,
    memo: MixMap<(B, u32, u32), f32>,
}

/// The board after each direction and the score it gains, when the
/// evaluator's values count rewards ([`Evaluator::rewards`], known when the
/// search is compiled for it); otherwise the board type's own
/// [`GameBoard::slide_each_unscored`] and
/// zeros (the packed board overrides it with the four moves inlined: a call
/// per move with a `match` on the direction cost 29 of the 135 instructions
/// per move application, callgrind). A direction that changes
/// nothing gives the board itself. Always inlined into [`Task::max`]: as a
/// call it returned the children through memory once more (callgrind, the
/// positions run: 103 M of 4,497 M instructions).
#[inline(always)]
pub(crate) fn moves<B: GameBoard, E: Evaluator<B>>(board: &B, eval: &E) -> ([B; 4], [f32; 4]) {
    if !eval.rewards() {
        return (board.slide_each_unscored(), [0.0; 4]);
    }
    let slid = Direction::ALL.map(|d| board.slide(d));
    (
        slid.map(|m| m.map_or(*board, |(b, _)| b)),
        slid.map(|m| m.map_or(0.0, |(_, gain)| gain as f32)),
    )
}

/// A piece of search that can run as its own parallel task.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Work<B> {
    /// A whole max node.
    Max { board: B, depth: u32, class: u32 },
    /// One child chance node of a max node (exactly as [`Task::max`] would
    /// search it), and the score its move gained (0 unless the evaluator
    /// counts rewards).
    Chance { board: B, depth: u32, class: u32, gain: f32 },
}

/// Splits the max node (board, depth, class) into its children's chance
/// nodes, or keeps it whole when they are leaves (too cheap to be worth a
/// task). A max node with no legal direction gives no work (it is worth the
/// lost value, [`Ends`]).
/// Returns the work and the move applications spent deciding.
pub(crate) fn split<B: GameBoard, E: Evaluator<B>>(
    board: &B,
    depth: u32,
    class: u32,
    shared: &Shared<'_, E>,
) -> (Vec<Work<B>>, u64) {
    if depth <= 1 || shared.classes.is_cut(class) {
        return (vec![Work::Max { board: *board, depth, class }], 0);
    }
    let (children, gains) = moves(board, shared.eval);
    let work = children
        .into_iter()
        .zip(gains)
        .filter(|(child, _)| child != board)
        .map(|(child, gain)| Work::Chance { board: child, depth: depth - 1, class, gain })
        .collect();
    (work, 4)
}

/// The search was stopped by its deadline.
pub(crate) struct Aborted;

/// Runs one piece of split work in a task of its own: the value its max
/// node would take into account ([`Task::run`]) and the work done. The
/// one way into the search, so that the task's `READS_ROOT` always matches
/// the root's [`Ends`].
pub(crate) fn run_work<E: Evaluator<B>, B: GameBoard>(
    shared: &Shared<'_, E>,
    work: &Work<B>,
) -> (Result<f32, Aborted>, Stats) {
    if shared.ends.reads_root() {
        Task::<E, B, true>::new(shared).run_alone(work)
    } else {
        Task::<E, B, false>::new(shared).run_alone(work)
    }
}

impl<'a, 's, E: Evaluator<B>, B: GameBoard, const READS_ROOT: bool> Task<'a, 's, E, B, READS_ROOT> {
    fn new(shared: &'s Shared<'a, E>) -> Self {
        // Read the clock at the first node: a root task may expand fewer
        // nodes than CLOCK_EVERY.
        Task { shared, stats: Stats::default(), until_clock: 1, memo: MixMap::default() }
    }

    #[inline]
    fn check_clock(&mut self) -> Result<(), Aborted> {
        let Some(deadline) = self.shared.deadline else { return Ok(()) };
        if self.shared.stop.load(Ordering::Relaxed) {
            return Err(Aborted);
        }
        self.until_clock -= 1;
        if self.until_clock == 0 {
            self.until_clock = CLOCK_EVERY;
            if Instant::now() >= deadline {
                self.shared.stop.store(true, Ordering::Relaxed);
                return Err(Aborted);
            }
        }
        Ok(())
    }

    fn run_alone(mut self, work: &Work<B>) -> (Result<f32, Aborted>, Stats) {
        let value = self.run(work);
        (value, self.stats)
    }

    /// Runs one piece of split work: the value its max node would take
    /// into account (a chance node's with its move's gain added).
    fn run(&mut self, work: &Work<B>) -> Result<f32, Aborted> {
        match *work {
            Work::Max { board, depth, class } => self.max(&board, depth, class),
            Work::Chance { board, depth, class, gain } => {
                let v = match self.probe(&board, depth, class) {
                    Some(v) => {
                        self.stats.table_hits += 1;
                        v
                    }
                    None => self.expand(&board, depth, class)?,
                };
                Ok(gain + v)
            }
        }
    }

    /// Leaf parents (key depth 1) go to the small table when there is one.
    #[inline]
    fn table_for(&self, depth: u32) -> Option<&'a TransTable> {
        match self.shared.leaves {
            Some(leaves) if depth == 1 => Some(leaves),
            _ => self.shared.table,
        }
    }

    /// The table's key for a chance node with `n` empty cells: what cannot
    /// change its value taken out ([`Classes::key`]), the root's context
    /// added.
    #[inline]
    fn key(&self, depth: u32, class: u32, n: usize) -> Key {
        let (depth, class) = self.shared.classes.key(depth, class, n);
        Key { depth, class, context: if READS_ROOT { self.shared.ends.context } else { 0 } }
    }

    #[inline]
    fn probe(&self, board: &B, depth: u32, class: u32) -> Option<f32> {
        let key = self.key(depth, class, board.count_empty());
        match board.packed() {
            Some(k) => self.table_for(key.depth).and_then(|t| t.get(k, key)),
            None => self.memo.get(&(*board, key.depth, key.class)).copied(),
        }
    }

    /// A chance node that is neither a leaf nor in the table: its
    /// evaluation when that is below the pruning bound ([`Ends`]), else
    /// every spawn, then the result stored.
    fn expand(&mut self, board: &B, depth: u32, class: u32) -> Result<f32, Aborted> {
        if READS_ROOT && self.shared.ends.prunes() {
            self.stats.evals += 1;
            if let Some(value) = self.shared.ends.pruned(self.shared.eval, board) {
                return Ok(value);
            }
        }
        self.check_clock()?;
        self.stats.nodes += 1;
        let n = board.count_empty();
        let (p2, p4) = (self.shared.p2, self.shared.p4);
        let (class2, class4) = self.shared.classes.spawns(class, n);
        let mut total = 0f32;
        if self.shared.parallel
            && Classes::prob(class) >= PARALLEL_MIN_PROB
            && board.packed().is_some()
        {
            total = self.expand_parallel(board, depth, class2, class4)?;
        } else {
            for idx in board.empty_cells() {
                if p2 > 0.0 {
                    let v = self.max(&board.with_exponent_unchecked(idx, 1), depth, class2)?;
                    total += p2 * v;
                }
                if p4 > 0.0 {
                    let v = self.max(&board.with_exponent_unchecked(idx, 2), depth, class4)?;
                    total += p4 * v;
                }
            }
        }
        let value = total / n as f32;
        let key = self.key(depth, class, n);
        match (self.table_for(key.depth), board.packed()) {
            (Some(table), Some(k)) => table.put(k, key, value),
            (_, Some(_)) => {}
            (_, None) => {
                self.memo.insert((*board, key.depth, key.class), value);
            }
        }
        Ok(value)
    }

    /// The weighted sum over a chance node's spawns, as [`Task::expand`]
    /// computes it, with the spawns offered to rayon: a busy pool runs them
    /// here in order, an idle thread takes some. The root's tasks are few
    /// and uneven late in a game (one or two empty cells), and without this
    /// the thread that finishes first waits for the last large task. The
    /// sum is taken in the same order as the sequential loop, so the value
    /// is the same to the bit. (For packed boards only: other boards'
    /// memos are per task and would start empty.)
    fn expand_parallel(
        &mut self,
        board: &B,
        depth: u32,
        class2: u32,
        class4: u32,
    ) -> Result<f32, Aborted> {
        let (p2, p4) = (self.shared.p2, self.shared.p4);
        let spawns: Vec<(B, f32, u32)> = board
            .empty_cells()
            .flat_map(|idx| [(idx, 1, p2, class2), (idx, 2, p4, class4)])
            .filter(|&(_, _, p, _)| p > 0.0)
            .map(|(idx, exponent, p, class)| {
                (board.with_exponent_unchecked(idx, exponent), p, class)
            })
            .collect();
        let shared = self.shared;
        let results: Vec<(Result<f32, Aborted>, Stats)> = spawns
            .par_iter()
            .map(|(spawned, _, class)| {
                let mut task = Self::new(shared);
                let v = task.max(spawned, depth, *class);
                (v, task.stats)
            })
            .collect();
        // Count every spawn's work, even past an aborted one: the others
        // ran, and a timed search reports the work of its aborted depth too.
        let mut total = Ok(0f32);
        for ((_, p, _), (v, stats)) in spawns.iter().zip(results) {
            self.stats += stats;
            total = total.and_then(|t| Ok(t + p * v?));
        }
        total
    }

    /// A max node: the best chance node over the directions that change the
    /// board, or the lost value ([`Ends`]) when none does.
    pub(crate) fn max(&mut self, board: &B, depth: u32, class: u32) -> Result<f32, Aborted> {
        self.stats.moves += 4;
        let (children, gains) = moves(board, self.shared.eval);
        // Asked where needed rather than kept in an array: the compare is
        // one instruction on the packed board, cheaper than a store and load.
        let legal = |i: usize| board.is_moved_to(&children[i]);
        // The children are chance nodes of the same depth and class: decide
        // leaf or not once, and probe the table for all of them before
        // searching any, so that the (mostly cache-missing) loads overlap
        // instead of stalling one after another.
        let depth = depth - 1;
        let mut best = self.shared.floor();
        if depth == 0 || self.shared.classes.is_cut(class) {
            // Counted in a register and added once: the counter lives in
            // memory, behind `self`.
            let mut evals = 0;
            for i in 0..4 {
                if legal(i) {
                    evals += 1;
                    best = best.max(gains[i] + self.shared.eval.evaluate(&children[i]));
                }
            }
            self.stats.evals += evals;
            return Ok(self.shared.lost_if_none(best));
        }
        let hits: [Option<f32>; 4] = std::array::from_fn(|i| {
            if legal(i) { self.probe(&children[i], depth, class) } else { None }
        });
        for i in 0..4 {
            if !legal(i) {
                continue;
            }
            let v = match hits[i] {
                Some(v) => {
                    self.stats.table_hits += 1;
                    v
                }
                None => self.expand(&children[i], depth, class)?,
            };
            best = best.max(gains[i] + v);
        }
        Ok(self.shared.lost_if_none(best))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{WeightedEvaluator, Weights};
    use game_core::Board;

    /// A table entry is exact only for roots of its context (the corner
    /// search's bound and lost value read the root's largest tile): primed
    /// from one root, the table must not answer a search from a root of
    /// another context with that root's values.
    #[test]
    fn table_entries_serve_only_roots_of_their_context() {
        use crate::eval::CornerEvaluator;
        use crate::table::{Paging, TransTable};
        let eval = CornerEvaluator::new();
        let stop = AtomicBool::new(false);
        let small: Board = "128 64 0 0/2 0 0 0/0 0 0 0/0 0 0 0".parse().expect("valid");
        let large: Board = "2048 64 0 0/2 0 0 0/0 0 0 0/0 0 0 0".parse().expect("valid");
        let node: Board = "256 128 64 8/32 16 4 0/8 2 0 0/2 0 0 0".parse().expect("valid");
        let value = |root: &Board, table: Option<&TransTable>| {
            let shared = Shared {
                eval: &eval,
                table,
                leaves: None,
                classes: Classes::new(0.9, 0.1, 1e-3),
                p2: 0.9,
                p4: 0.1,
                deadline: None,
                stop: &stop,
                parallel: false,
                ends: Ends::new(&eval, root),
            };
            let work = Work::Chance { board: node, depth: 3, class: Classes::of(1.0), gain: 0.0 };
            run_work(&shared, &work).0.ok().map(f32::to_bits)
        };
        assert_ne!(value(&small, None), value(&large, None), "the roots must differ here");
        let table = TransTable::with_bytes(1 << 20, Paging::Lazy).expect("a table");
        assert_eq!(value(&small, Some(&table)), value(&small, None));
        assert_eq!(value(&large, Some(&table)), value(&large, None));
        assert_eq!(value(&small, Some(&table)), value(&small, None));
    }

    /// Every search but the corner one runs tasks compiled without the
    /// root's pruning bound and context (`READS_ROOT` false): they must
    /// value and count everything exactly as the tasks that read both at
    /// run time, each from a fresh table.
    #[test]
    fn tasks_that_skip_the_root_search_as_those_that_read_it() {
        use crate::eval::CornerEvaluator;
        use crate::table::{Paging, TransTable};
        fn search<const READS_ROOT: bool>(eval: &WeightedEvaluator, board: Board) -> (u32, Stats) {
            let stop = AtomicBool::new(false);
            let table = TransTable::with_bytes(1 << 20, Paging::Lazy).expect("a table");
            let shared = Shared {
                eval,
                table: Some(&table),
                leaves: None,
                classes: Classes::new(0.9, 0.1, 1e-4),
                p2: 0.9,
                p4: 0.1,
                deadline: None,
                stop: &stop,
                parallel: false,
                ends: Ends::new(eval, &board),
            };
            let work = Work::Max { board, depth: 4, class: Classes::of(1.0) };
            let (v, stats) = Task::<_, _, READS_ROOT>::new(&shared).run_alone(&work);
            (v.ok().expect("no deadline").to_bits(), stats)
        }
        let eval = WeightedEvaluator::new(Weights::STANDARD);
        let corner = CornerEvaluator::new();
        for text in [
            "512 128 32 8/64 16 4 2/4 2 0 0/2 0 0 0",
            "2 4 8 16/2 8 16 32/8 16 32 256/4 256 512 1024",
            "8192 2048 512 128/4096 1024 256 64/16 32 8 4/2 4 2 0",
        ] {
            let board: Board = text.parse().expect("valid");
            assert!(!Ends::new(&eval, &board).reads_root(), "{board}");
            assert!(Ends::new(&corner, &board).reads_root(), "{board}");
            assert_eq!(search::<true>(&eval, board), search::<false>(&eval, board), "{board}");
        }
    }

    /// The parallel expansion must give the sequential loop's value to the
    /// bit (and count the same work), whichever thread runs which spawn.
    #[test]
    fn parallel_spawns_sum_like_the_sequential_loop() {
        let eval = WeightedEvaluator::new(Weights::STANDARD);
        let stop = AtomicBool::new(false);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a pool");
        let boards = [
            "16384 8192 4096 2048/128 256 512 1024/64 32 16 8/2 4 0 2",
            "32768 16384 8192 64/4096 2048 1024 512/16 32 256 128/2 0 4 8",
            "512 128 32 8/64 16 4 2/4 2 0 0/2 0 0 0",
        ];
        for text in boards {
            let board: Board = text.parse().expect("valid");
            let run = |parallel: bool| {
                let shared = Shared {
                    eval: &eval,
                    table: None,
                    leaves: None,
                    classes: Classes::new(0.9, 0.1, 1e-4),
                    p2: 0.9,
                    p4: 0.1,
                    deadline: None,
                    stop: &stop,
                    parallel,
                    ends: Ends::new(&eval, &board),
                };
                pool.install(|| {
                    let work = Work::Max { board, depth: 4, class: Classes::of(1.0) };
                    let (v, stats) = run_work(&shared, &work);
                    (v.ok().map(f32::to_bits), stats.moves, stats.evals)
                })
            };
            assert_eq!(run(true), run(false), "{board}");
        }
    }
}

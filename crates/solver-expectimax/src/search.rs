//! Proper expectimax with probability cut-offs and a shared, deterministic
//! transposition table.
//!
//! Determinism: a chance node's probability is first rounded down to a
//! class (4 per octave, by masking the `f32` mantissa), and everything below
//! the node (cut-offs, children's probabilities) is computed from the class,
//! not the exact product. So a chance node's value is a pure function of
//! (board, depth left, class), which is the table's key: a hit is exactly the
//! value a search would compute, and the decision at a fixed depth is the
//! same whatever the thread count or the table's contents.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use game_core::{Board, Direction, GameBoard};
use rayon::prelude::*;

use crate::eval::Evaluator;
use crate::stats::Stats;
use crate::table::TransTable;
use crate::tutorial::MixHasher;

/// Rounds a probability down to its class: sign, exponent and the top two
/// mantissa bits of the `f32`.
#[inline]
fn quantize(p: f32) -> (f32, u32) {
    let bits = p.to_bits() & 0xFFE0_0000;
    (f32::from_bits(bits), bits >> 21)
}

/// Chance nodes with less depth left than this are searched again rather
/// than kept: a probe of a table far larger than the caches costs about as
/// much as the search one layer above the leaves (measured with
/// `examples/positions.rs`: the same time per decision, half the moves).
const MIN_TABLE_DEPTH: u32 = 2;

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
    pub(crate) cutoff: f32,
    pub(crate) p2: f32,
    pub(crate) p4: f32,
    pub(crate) deadline: Option<Instant>,
    pub(crate) stop: &'a AtomicBool,
    /// Whether the search runs on a pool of more than one thread, so that
    /// the largest chance nodes offer their spawns to idle threads.
    pub(crate) parallel: bool,
    /// Whether a max node adds the score each move gains (for a learned
    /// evaluator, whose values count only the score still to come).
    pub(crate) rewards: bool,
}

impl<E> Shared<'_, E> {
    /// Where a max node's best starts: 0 for the heuristic, whose values
    /// are positive on every live board, so a lost board (0) is below them
    /// all; minus infinity for a learned value, which may fall below 0 near
    /// the end of a game and must still beat losing.
    #[inline]
    pub(crate) fn floor(&self) -> f32 {
        if self.rewards { f32::NEG_INFINITY } else { 0.0 }
    }

    /// A max node's value from its best: 0 (lost) when no move was legal.
    #[inline]
    pub(crate) fn lost_if_none(best: f32) -> f32 {
        if best == f32::NEG_INFINITY { 0.0 } else { best }
    }
}

/// One task's view: the shared part, its own counters, and for boards
/// without a table key (all but the packed 4x4 board) a memo of its own,
/// exact for the same reason the table is.
pub(crate) struct Task<'a, 's, E, B> {
    shared: &'s Shared<'a, E>,
    pub(crate) stats: Stats,
    until_clock: u32,
    memo: HashMap<(B, u32, u32), f32, BuildHasherDefault<MixHasher>>,
}

/// The board after each direction, in [`Direction::ALL`] order. (On the
/// packed board, sharing one transpose between up and down measured no
/// faster than game-core's column tables, so this stays generic.)
#[inline]
pub(crate) fn shifts<B: GameBoard>(board: &B) -> [B; 4] {
    Direction::ALL.map(|d| board.shift(d))
}

/// The board after each direction and the score it gains, when `rewards`;
/// otherwise [`shifts`] and zeros. A direction that changes nothing gives
/// the board itself.
#[inline]
pub(crate) fn moves<B: GameBoard>(board: &B, rewards: bool) -> ([B; 4], [f32; 4]) {
    if !rewards {
        return (shifts(board), [0.0; 4]);
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
    Max { board: B, depth: u32, prob: f32 },
    /// One child chance node of a max node, its probability already
    /// rounded to its class (exactly as [`Task::max`] would pass it), and
    /// the score its move gained (0 unless the search counts rewards).
    Chance { board: B, depth: u32, prob: f32, class: u32, gain: f32 },
}

/// Splits the max node (board, depth, prob) into its children's chance
/// nodes, or keeps it whole when they are leaves (too cheap to be worth a
/// task). A max node with no legal direction gives no work (its value is 0).
/// Returns the work and the move applications spent deciding.
pub(crate) fn split<B: GameBoard>(
    board: &B,
    depth: u32,
    prob: f32,
    cutoff: f32,
    rewards: bool,
) -> (Vec<Work<B>>, u64) {
    let (q, class) = quantize(prob);
    if depth <= 1 || q < cutoff {
        return (vec![Work::Max { board: *board, depth, prob }], 0);
    }
    let (children, gains) = moves(board, rewards);
    let work = children
        .into_iter()
        .zip(gains)
        .filter(|(child, _)| child != board)
        .map(|(child, gain)| Work::Chance { board: child, depth: depth - 1, prob: q, class, gain })
        .collect();
    (work, 4)
}

/// The search was stopped by its deadline.
pub(crate) struct Aborted;

/// Table access for the board types: the packed board has a `u64` key.
pub(crate) trait Keyed {
    fn key(&self) -> Option<u64>;
}

impl<B: GameBoard> Keyed for B {
    #[inline]
    fn key(&self) -> Option<u64> {
        (self as &dyn std::any::Any).downcast_ref::<Board>().map(|b| b.raw())
    }
}

impl<'a, 's, E: Evaluator<B>, B: GameBoard> Task<'a, 's, E, B> {
    pub(crate) fn new(shared: &'s Shared<'a, E>) -> Self {
        // Read the clock at the first node: a root task may expand fewer
        // nodes than CLOCK_EVERY.
        Task { shared, stats: Stats::default(), until_clock: 1, memo: HashMap::default() }
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

    /// Runs one piece of split work: the value its max node would take
    /// into account (a chance node's with its move's gain added).
    pub(crate) fn run(&mut self, work: &Work<B>) -> Result<f32, Aborted> {
        match *work {
            Work::Max { board, depth, prob } => self.max(&board, depth, prob),
            Work::Chance { board, depth, prob, class, gain } => {
                let v = match self.probe(&board, depth, class) {
                    Some(v) => {
                        self.stats.table_hits += 1;
                        v
                    }
                    None => self.expand(&board, depth, prob, class)?,
                };
                Ok(gain + v)
            }
        }
    }

    #[inline]
    fn probe(&self, board: &B, depth: u32, class: u32) -> Option<f32> {
        match board.key() {
            Some(k) => self.shared.table.and_then(|t| t.get(k, depth, class)),
            None => self.memo.get(&(*board, depth, class)).copied(),
        }
    }

    /// A chance node that is neither a leaf nor in the table: every spawn,
    /// then the result stored.
    fn expand(&mut self, board: &B, depth: u32, prob: f32, class: u32) -> Result<f32, Aborted> {
        self.check_clock()?;
        self.stats.nodes += 1;
        let n = board.count_empty();
        let cell_prob = prob / n as f32;
        let (p2, p4) = (self.shared.p2, self.shared.p4);
        let mut total = 0f32;
        if self.shared.parallel && prob >= PARALLEL_MIN_PROB && board.key().is_some() {
            total = self.expand_parallel(board, depth, cell_prob)?;
        } else {
            for idx in board.empty_cells() {
                if p2 > 0.0 {
                    let v =
                        self.max(&board.with_exponent_unchecked(idx, 1), depth, cell_prob * p2)?;
                    total += p2 * v;
                }
                if p4 > 0.0 {
                    let v =
                        self.max(&board.with_exponent_unchecked(idx, 2), depth, cell_prob * p4)?;
                    total += p4 * v;
                }
            }
        }
        let value = total / n as f32;
        if depth >= MIN_TABLE_DEPTH {
            match (self.shared.table, board.key()) {
                (Some(table), Some(k)) => table.put(k, depth, class, value),
                (_, Some(_)) => {}
                (_, None) => {
                    self.memo.insert((*board, depth, class), value);
                }
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
    fn expand_parallel(&mut self, board: &B, depth: u32, cell_prob: f32) -> Result<f32, Aborted> {
        let (p2, p4) = (self.shared.p2, self.shared.p4);
        let spawns: Vec<(B, f32)> = board
            .empty_cells()
            .flat_map(|idx| [(idx, 1, p2), (idx, 2, p4)])
            .filter(|&(_, _, p)| p > 0.0)
            .map(|(idx, exponent, p)| (board.with_exponent_unchecked(idx, exponent), p))
            .collect();
        let shared = self.shared;
        let results: Vec<(Result<f32, Aborted>, Stats)> = spawns
            .par_iter()
            .map(|(spawned, p)| {
                let mut task = Task::new(shared);
                let v = task.max(spawned, depth, cell_prob * p);
                (v, task.stats)
            })
            .collect();
        // Count every spawn's work, even past an aborted one: the others
        // ran, and a timed search reports the work of its aborted depth too.
        let mut total = Ok(0f32);
        for ((_, p), (v, stats)) in spawns.iter().zip(results) {
            self.stats += stats;
            total = total.and_then(|t| Ok(t + p * v?));
        }
        total
    }

    /// A max node: the best chance node over the directions that change the
    /// board, or 0 (a lost board) when none does.
    pub(crate) fn max(&mut self, board: &B, depth: u32, prob: f32) -> Result<f32, Aborted> {
        self.stats.moves += 4;
        let (children, gains) = moves(board, self.shared.rewards);
        let legal = children.map(|c| c != *board);
        // The children are chance nodes of the same depth and probability:
        // decide leaf or not once, and probe the table for all of them
        // before searching any, so that the (mostly cache-missing) loads
        // overlap instead of stalling one after another.
        let (prob, class) = quantize(prob);
        let depth = depth - 1;
        let mut best = self.shared.floor();
        if depth == 0 || prob < self.shared.cutoff {
            for ((child, legal), gain) in children.iter().zip(legal).zip(gains) {
                if legal {
                    self.stats.evals += 1;
                    best = best.max(gain + self.shared.eval.evaluate(child));
                }
            }
            return Ok(Shared::<E>::lost_if_none(best));
        }
        let hits: [Option<f32>; 4] = std::array::from_fn(|i| {
            let worth_it = legal[i] && depth >= MIN_TABLE_DEPTH;
            if worth_it { self.probe(&children[i], depth, class) } else { None }
        });
        for i in 0..4 {
            if !legal[i] {
                continue;
            }
            let v = match hits[i] {
                Some(v) => {
                    self.stats.table_hits += 1;
                    v
                }
                None => self.expand(&children[i], depth, prob, class)?,
            };
            best = best.max(gains[i] + v);
        }
        Ok(Shared::<E>::lost_if_none(best))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{WeightedEvaluator, Weights};

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
                    cutoff: 1e-4,
                    p2: 0.9,
                    p4: 0.1,
                    deadline: None,
                    stop: &stop,
                    parallel,
                    rewards: false,
                };
                pool.install(|| {
                    let mut task = Task::new(&shared);
                    let v = task.run(&Work::Max { board, depth: 4, prob: 1.0 });
                    (v.ok().map(f32::to_bits), task.stats.moves, task.stats.evals)
                })
            };
            assert_eq!(run(true), run(false), "{board}");
        }
    }
}

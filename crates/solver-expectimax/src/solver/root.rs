//! The root of a search and the drivers that search below it: the legal
//! moves, the spawns below them as tasks, the tasks run on the solver's
//! threads, the expectimax's deepening under a time budget, and the
//! decision from the tasks' values.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use game_core::{Direction, GameBoard, Rules};
use rayon::prelude::*;

use super::{Decision, SearchError};
use crate::awake::Pool;
use crate::eval::Evaluator;
use crate::search::{Classes, Ends, Shared, run_work, split};
use crate::stats::Stats;
use crate::table::Tables;
use crate::tutorial::Tutorial;

/// A spawn below a root child, one task of the root's search.
#[derive(Debug, Clone, Copy)]
struct RootTask<B> {
    /// The child's position in [`Root::moved`].
    child: usize,
    /// The child with the spawned tile.
    board: B,
    /// Whether the spawned tile is a 4.
    four: bool,
}

/// The root of a search: each legal direction's moved board, and the spawns
/// below them. Both drivers ([`tutorial`], [`expectimax`]) search the same
/// tasks and turn their values into a decision the same way
/// ([`Root::sum_per_child`], [`Root::choose`]).
struct Root<B> {
    moved: Vec<(Direction, B)>,
    tasks: Vec<RootTask<B>>,
}

impl<B: GameBoard> Root<B> {
    /// For each legal direction, the moved board; and for each of its empty
    /// cells and spawn values, one task.
    fn new(board: &B, p4: f64) -> Root<B> {
        let moved: Vec<(Direction, B)> = Direction::ALL
            .into_iter()
            .zip(board.slide_each_unscored())
            .filter(|(_, b)| b != board)
            .collect();
        let mut tasks = Vec::new();
        for (child, (_, after)) in moved.iter().enumerate() {
            for idx in after.empty_cells() {
                if p4 < 1.0 {
                    let board = after.with_exponent_unchecked(idx, 1);
                    tasks.push(RootTask { child, board, four: false });
                }
                if p4 > 0.0 {
                    let board = after.with_exponent_unchecked(idx, 2);
                    tasks.push(RootTask { child, board, four: true });
                }
            }
        }
        Root { moved, tasks }
    }

    /// Each child's sum over its tasks of `term(task, value)`, with the
    /// tasks' `values` in task order, added in that order (so the sums are
    /// the same whatever ran them), by `add`.
    fn sum_per_child<V, T: Copy + Default>(
        &self,
        values: impl IntoIterator<Item = V>,
        term: impl Fn(&RootTask<B>, V) -> T,
        add: impl Fn(T, T) -> T,
    ) -> Vec<T> {
        let mut totals = vec![T::default(); self.moved.len()];
        for (task, v) in self.tasks.iter().zip(values) {
            totals[task.child] = add(totals[task.child], term(task, v));
        }
        totals
    }

    /// Each direction's value and the best direction: the first of the
    /// largest in [`Direction::ALL`] order, as Java's `Stream.max` keeps on
    /// ties. `None` without a legal direction.
    fn choose<T: Copy + PartialOrd>(&self, totals: &[T]) -> Option<(Direction, [Option<f64>; 4])>
    where
        f64: From<T>,
    {
        let mut values = [None; 4];
        let mut best: Option<(Direction, T)> = None;
        for ((dir, _), &v) in self.moved.iter().zip(totals) {
            values[dir.index()] = Some(f64::from(v));
            if best.is_none_or(|(_, bv)| v > bv) {
                best = Some((*dir, v));
            }
        }
        best.map(|(d, _)| (d, values))
    }
}

/// How one decision runs: the depth it searches, its time budget (counted
/// from `start`) and the solver's threads.
pub(super) struct Run<'a> {
    /// The depth the settings give for the board (with a budget, the
    /// deepest tried).
    pub(super) depth: u32,
    /// With a budget, the depth it starts from: 1, or
    /// [`Depth::AtLeast`](crate::Depth::AtLeast)'s least depth, which a
    /// budget only deepens.
    pub(super) first: u32,
    pub(super) time_budget: Option<Duration>,
    pub(super) start: Instant,
    /// The solver's pool; none for a solver of one thread.
    pub(super) pool: Option<&'a Pool>,
    /// The threads the settings ask for.
    pub(super) threads: usize,
}

impl Run<'_> {
    /// Runs `tasks` on the pool (or here with one thread), keeping their
    /// order, so combining the results is the same for any thread count.
    fn run_tasks<T: Sync, R: Send>(&self, tasks: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
        match self.pool {
            Some(pool) => pool.search(|| tasks.par_iter().map(&f).collect()),
            None => tasks.iter().map(f).collect(),
        }
    }

    /// Like [`Run::run_tasks`], with state made by `init` and shared by a
    /// run of neighbouring tasks (a few runs per thread, for balance): for
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
        match self.pool {
            Some(pool) => {
                let chunk = tasks.len().div_ceil(3 * self.threads).max(1);
                pool.search(|| tasks.par_chunks(chunk).flat_map_iter(run).collect())
            }
            None => run(tasks),
        }
    }
}

/// The Java tutorial's search from `board`: every spawn below each move to
/// the run's depth, in its 32-bit integers (a time budget does not stop
/// it).
pub(super) fn tutorial<B: GameBoard>(
    run: &Run<'_>,
    board: &B,
    rules: &Rules,
) -> Result<Decision, SearchError> {
    let depth = run.depth;
    let p4 = rules.four_probability();
    let root = Root::new(board, p4);
    if root.moved.is_empty() {
        return Err(SearchError::NoMove);
    }
    let results = run.run_tasks_with(
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
    Ok(Decision { direction, values, depth, stats, elapsed: run.start.elapsed(), endgame: None })
}

/// The expectimax from `board` with `eval` at the leaves, branches less
/// likely than `cutoff` cut and the chance nodes' values kept in `tables`
/// (if any): one search at the run's depth, or with a time budget depth 1,
/// 2, ... until the deadline, keeping the deepest finished (the first
/// always finishes).
pub(super) fn expectimax<B: GameBoard, E: Evaluator<B>>(
    run: &Run<'_>,
    board: &B,
    rules: &Rules,
    eval: &E,
    cutoff: f32,
    tables: Option<&Tables>,
) -> Result<Decision, SearchError> {
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
    let depths = match run.time_budget {
        None => run.depth..=run.depth,
        Some(_) => run.first..=run.depth,
    };
    for depth in depths {
        let deadline = match (run.time_budget, &done) {
            (Some(budget), Some(_)) => Some(run.start + budget),
            _ => None,
        };
        let shared = Shared {
            eval,
            table: tables.and_then(Tables::table),
            leaves: tables.and_then(Tables::leaves),
            classes,
            p2: (1.0 - p4) as f32,
            p4: p4 as f32,
            deadline,
            stop: &stop,
            parallel: run.pool.is_some(),
            ends,
        };
        let Some(mut totals) = search_root(run, &root, &shared, depth, &mut stats) else {
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
    Ok(Decision { direction, values, depth, stats, elapsed: run.start.elapsed(), endgame: None })
}

/// One search of the root's tasks at `depth`: each child's sum of its
/// spawns' values weighted by their probabilities (not yet divided by
/// its empty cells), or `None` when the deadline stopped it. The work
/// done is added to `stats` either way.
fn search_root<B: GameBoard, E: Evaluator<B>>(
    run: &Run<'_>,
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
    let results = run.run_tasks(&work, |(_, w)| {
        let (v, stats) = run_work(shared, w);
        (v.ok(), stats)
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

#[cfg(test)]
mod tests {
    use game_core::{Board, Direction, GameBoard};

    use super::Root;

    fn board(text: &str) -> Board {
        text.parse().expect("a valid board")
    }

    /// The children are the legal directions in [`Direction::ALL`] order;
    /// below each, a 2 then a 4 on each empty cell in cell order, the 4s
    /// left out when they never spawn and the 2s when only 4s do.
    #[test]
    fn the_root_has_a_task_per_spawn_below_each_legal_move() {
        let b = board("2 0 0 0/4 0 0 0/2 0 0 0/4 2 0 0");
        let root = Root::new(&b, 0.1);
        let dirs: Vec<Direction> = root.moved.iter().map(|(d, _)| *d).collect();
        assert_eq!(dirs, [Direction::Up, Direction::Right]);
        assert_eq!(root.moved[0].1, board("2 2 0 0/4 0 0 0/2 0 0 0/4 0 0 0"));
        let mut want = Vec::new();
        for (child, (_, after)) in root.moved.iter().enumerate() {
            for idx in after.empty_cells() {
                want.push((child, after.with_exponent_unchecked(idx, 1), false));
                want.push((child, after.with_exponent_unchecked(idx, 2), true));
            }
        }
        let got: Vec<_> = root.tasks.iter().map(|t| (t.child, t.board, t.four)).collect();
        assert_eq!(got, want);
        let twos = Root::new(&b, 0.0);
        assert!(twos.tasks.iter().all(|t| !t.four) && twos.tasks.len() == want.len() / 2);
        let fours = Root::new(&b, 1.0);
        assert!(fours.tasks.iter().all(|t| t.four) && fours.tasks.len() == want.len() / 2);
        let lost = Root::new(&board("2 4 2 4/4 2 4 2/2 4 2 4/4 2 4 2"), 0.1);
        assert!(lost.moved.is_empty() && lost.tasks.is_empty());
    }

    /// Each child's total adds its tasks' terms in task order (wrapping
    /// sums, as the tutorial's, depend on nothing else), and the choice is
    /// the first of the largest totals.
    #[test]
    fn totals_add_in_task_order_and_ties_go_to_the_first_direction() {
        let b = board("2 0 0 0/4 0 0 0/2 0 0 0/4 2 0 0");
        let root = Root::new(&b, 0.1);
        let n = root.tasks.len();
        // An order-dependent fold of the tasks' positions (plus 1): a
        // polynomial hash, which another order changes.
        let add = |a: u64, b: u64| a.wrapping_mul(1_000_003).wrapping_add(b);
        let totals = root.sum_per_child(1..=n as u64, |_, k| k, add);
        let mut want = vec![0u64; root.moved.len()];
        for (k, task) in root.tasks.iter().enumerate() {
            want[task.child] = add(want[task.child], k as u64 + 1);
        }
        assert_eq!(totals, want);
        assert!(totals.iter().all(|&t| t > 0));
        let (dir, values) = root.choose(&[3.0f32, 3.0]).expect("legal moves");
        assert_eq!(dir, Direction::Up);
        assert_eq!(values, [Some(3.0), None, None, Some(3.0)]);
        let (dir, _) = root.choose(&[2.0f32, 3.0]).expect("legal moves");
        assert_eq!(dir, Direction::Right);
        let lost = Root::new(&board("2 4 2 4/4 2 4 2/2 4 2 4/4 2 4 2"), 0.1);
        assert_eq!(lost.choose::<f32>(&[]), None);
    }
}

//! The root of a search: the legal moves, the spawns below them as tasks,
//! and the decision from the tasks' values (shared by both algorithms).

use game_core::{Direction, GameBoard};

/// A spawn below a root child, one task of the root's search.
#[derive(Debug, Clone, Copy)]
pub(super) struct RootTask<B> {
    /// The child's position in [`Root::moved`].
    pub(super) child: usize,
    /// The child with the spawned tile.
    pub(super) board: B,
    /// Whether the spawned tile is a 4.
    pub(super) four: bool,
}

/// The root of a search: each legal direction's moved board, and the spawns
/// below them. Both algorithms search the same tasks and turn their values
/// into a decision the same way ([`Root::sum_per_child`], [`Root::choose`]).
pub(super) struct Root<B> {
    pub(super) moved: Vec<(Direction, B)>,
    pub(super) tasks: Vec<RootTask<B>>,
}

impl<B: GameBoard> Root<B> {
    /// For each legal direction, the moved board; and for each of its empty
    /// cells and spawn values, one task.
    pub(super) fn new(board: &B, p4: f64) -> Root<B> {
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
    pub(super) fn sum_per_child<V, T: Copy + Default>(
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
    pub(super) fn choose<T: Copy + PartialOrd>(
        &self,
        totals: &[T],
    ) -> Option<(Direction, [Option<f64>; 4])>
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

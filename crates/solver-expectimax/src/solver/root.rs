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

//! Leaf evaluators: the Java tutorial's heuristic and the strong, weighted
//! one. Both score a board as the sum of a score per row and per column, so
//! on the packed 4x4 board each is a table over all 65,536 rows.

use std::sync::LazyLock;

use game_core::{Board, GameBoard, MAX_EXPONENT, MAX_SIZE, row_exponents};

/// Scores a board at the leaves of the search: higher is better.
///
/// Implement it to plug a new evaluator into [`Algorithm::Expectimax`]
/// searches of your own; the presets use [`Weights`].
///
/// [`Algorithm::Expectimax`]: crate::Algorithm::Expectimax
pub trait Evaluator<B: GameBoard>: Send + Sync {
    /// The board's value.
    fn evaluate(&self, board: &B) -> f32;

    /// What the search makes a lost board (one where no move changes
    /// anything) worth, in a search from `root`: it should be below the
    /// value of every board that search can reach, or the search may prefer
    /// losing to a move that survives. The default, 0, suits evaluators
    /// whose values are positive on every live board.
    fn lost_value(&self, root: &B) -> f32 {
        let _ = root;
        0.0
    }

    /// In a search from `root`, a chance node whose board evaluates below
    /// this is not searched: its value is its evaluation. The default,
    /// minus infinity, searches every node.
    fn prune_below(&self, root: &B) -> f32 {
        let _ = root;
        f32::NEG_INFINITY
    }

    /// Whether a value counts only the score still to come from the board
    /// (a learned value of an afterstate), so that the search adds to it
    /// the score each move on the way gains. The default, `false`, suits
    /// evaluators that rank boards by their shape, as the heuristics do.
    fn rewards(&self) -> bool {
        false
    }

    /// What [`Evaluator::lost_value`] and [`Evaluator::prune_below`] read
    /// of `root`, as a number: two roots with the same context
    /// must get the same values of both. The search keys its transposition
    /// table by it, so that an entry made from one root is exact for every
    /// other. The default, 0, suits evaluators whose two values do not
    /// depend on the root on packed 4x4 boards (the only ones the table
    /// holds).
    fn context(&self, root: &B) -> u8 {
        let _ = root;
        0
    }
}

/// Calls `f` with each row and each column of `board` as exponents, the
/// cell nearest row 0 / column 0 first.
fn for_each_line<B: GameBoard>(board: &B, mut f: impl FnMut(&[u8])) {
    let n = board.size();
    let mut line = [0u8; MAX_SIZE];
    for k in 0..n {
        for (i, cell) in line.iter_mut().enumerate().take(n) {
            *cell = board.exponent(k, i).unwrap_or(0);
        }
        f(&line[..n]);
        for (i, cell) in line.iter_mut().enumerate().take(n) {
            *cell = board.exponent(i, k).unwrap_or(0);
        }
        f(&line[..n]);
    }
}

/// A value for each of the 65,536 rows of the packed board. Its length is
/// in its type, so that a look-up by a 16-bit row needs no bounds check:
/// as a slice, the eight checks per board were a quarter of a leaf's
/// instructions (docs/solver.md, "Where the instructions went").
type RowTable<T> = [T; 1 << 16];

/// The row table of `line`'s values.
fn row_table<T>(line: impl Fn(u16) -> T) -> Box<RowTable<T>> {
    let rows: Box<[T]> = (0..=u16::MAX).map(line).collect();
    match rows.try_into() {
        Ok(table) => table,
        Err(_) => unreachable!("one value per 16-bit row"),
    }
}

/// Sums a per-row table over the rows and columns of a packed board.
// Always inlined: with a second caller (the corner heuristic) LLVM made it
// a function of its own, and the heuristic search paid a call at every
// leaf (docs/solver.md, "Where the instructions went").
#[inline(always)]
fn sum_rows<T: Copy + std::ops::Add<Output = T>>(table: &RowTable<T>, board: Board) -> T {
    let x = board.raw();
    let t = board.transpose().raw();
    let row = |v: u64, k: u32| table[(v >> (16 * k) & 0xFFFF) as usize];
    row(x, 0) + row(x, 1) + row(x, 2) + row(x, 3) + row(t, 0) + row(t, 1) + row(t, 2) + row(t, 3)
}

// --- The Java tutorial's heuristic -------------------------------------------

/// The tutorial's score of one line, on tile values:
/// `1000 + 250*empty + 750*merges - 10*sum - 50*min(monoLeft, monoRight)`,
/// where merges and monotonicity look at the line with its zeros removed.
/// 32-bit wrapping arithmetic, as in Java.
pub(crate) fn tutorial_line(exponents: &[u8]) -> i32 {
    let values = exponents.iter().map(|&e| if e == 0 { 0i32 } else { 1i32 << e });
    let mut merges = 0i32;
    let mut mono_left = 0i32;
    let mut mono_right = 0i32;
    let mut prev: Option<i32> = None;
    for v in values.clone().filter(|&v| v != 0) {
        if let Some(p) = prev {
            if p == v {
                merges += 1;
            } else if p > v {
                mono_left = mono_left.wrapping_add(p - v);
            } else {
                mono_right = mono_right.wrapping_add(v - p);
            }
        }
        prev = Some(v);
    }
    let empty = exponents.iter().filter(|&&e| e == 0).count() as i32;
    let sum = values.fold(0i32, i32::wrapping_add);
    1000i32
        .wrapping_add(250 * empty)
        .wrapping_add(750 * merges)
        .wrapping_sub(sum.wrapping_mul(10))
        .wrapping_sub(mono_left.min(mono_right).wrapping_mul(50))
}

static TUTORIAL_ROWS: LazyLock<Box<RowTable<i32>>> =
    LazyLock::new(|| row_table(|row| tutorial_line(&row_exponents(row))));

/// The tutorial's heuristic: the sum over rows and columns of
/// [`tutorial_line`], in wrapping 32-bit arithmetic.
pub(crate) fn tutorial_score<B: GameBoard>(board: &B) -> i32 {
    // The row table covers 4-bit cells; a board with a tile above 32768 has
    // no packed form and is scored line by line, exactly as Java's ints do.
    if let Some(packed) = board.packed().map(Board::from_raw) {
        let table = &TUTORIAL_ROWS;
        let x = packed.raw();
        let t = packed.transpose().raw();
        let row = |v: u64, k: u32| table[(v >> (16 * k) & 0xFFFF) as usize];
        return [
            row(x, 0),
            row(x, 1),
            row(x, 2),
            row(x, 3),
            row(t, 0),
            row(t, 1),
            row(t, 2),
            row(t, 3),
        ]
        .into_iter()
        .fold(0, i32::wrapping_add);
    }
    let mut total = 0i32;
    for_each_line(board, |line| total = total.wrapping_add(tutorial_line(line)));
    total
}

// --- The strong evaluator ------------------------------------------------------

/// The weights of the strong evaluator, per row and per column of the board
/// (on exponents `r`, 0 for an empty cell):
///
/// `base + empty*E + merges*M - monotonicity*min(left, right) - sum*S`
///
/// - `E`: empty cells, the room left to play;
/// - `M`: adjacent equal tiles (ignoring gaps), counted as the length of each
///   run of equal tiles, the merges on offer;
/// - `left`/`right`: the sum over neighbours of `r_i^p - r_j^p` where the
///   line falls (left) or rises (right), `p` = `monotonicity_power`; the
///   smaller of the two is what breaks the line's order;
/// - `S`: `sum of r^sum_power`, which rewards merging big tiles, since one
///   tile of exponent `r+1` costs less than two of `r`;
/// - `base`: keeps the boards games reach above lost ones (worth 0 in the
///   tuned game; see [`Evaluator::lost_value`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// Added per line.
    pub base: f32,
    /// Per empty cell.
    pub empty: f32,
    /// Per tile in a run of equal neighbours.
    pub merges: f32,
    /// Per unit of broken monotonicity.
    pub monotonicity: f32,
    /// The power exponents are raised to in the monotonicity term.
    pub monotonicity_power: f32,
    /// Per unit of the power sum.
    pub sum: f32,
    /// The power exponents are raised to in the sum term.
    pub sum_power: f32,
}

impl Weights {
    /// The weights of the presets. The terms and these values follow the
    /// best-known public heuristic for 2048 expectimax (nneonneo's 2048-ai,
    /// which tuned them by tournaments); see docs/solver.md.
    pub const STANDARD: Weights = Weights {
        base: 200_000.0,
        empty: 270.0,
        merges: 700.0,
        monotonicity: 47.0,
        monotonicity_power: 4.0,
        sum: 11.0,
        sum_power: 3.5,
    };

    /// The score of one line of exponents.
    pub fn line(&self, line: &[u8]) -> f32 {
        self.line_with(&Powers::of(self), line)
    }

    fn line_with(&self, powers: &Powers, line: &[u8]) -> f32 {
        let mut empty = 0u32;
        let mut merges = 0u32;
        let mut run = 0u32;
        let mut prev = 0u8;
        let mut sum = 0f32;
        for &r in line {
            sum += powers.sum[usize::from(r)];
            if r == 0 {
                empty += 1;
                continue;
            }
            if r == prev {
                run += 1;
            } else {
                if run > 0 {
                    merges += run + 1;
                }
                run = 0;
            }
            prev = r;
        }
        if run > 0 {
            merges += run + 1;
        }
        let (mut left, mut right) = (0f32, 0f32);
        for pair in line.windows(2) {
            let a = powers.monotonicity[usize::from(pair[0])];
            let b = powers.monotonicity[usize::from(pair[1])];
            if pair[0] > pair[1] {
                left += a - b;
            } else {
                right += b - a;
            }
        }
        self.base + self.empty * empty as f32 + self.merges * merges as f32
            - self.monotonicity * left.min(right)
            - self.sum * sum
    }
}

/// The number of exponents a cell can hold, 0 to [`MAX_EXPONENT`].
const EXPONENTS: usize = MAX_EXPONENT as usize + 1;

/// The powers of every exponent a cell can hold (tiles above 32768
/// included), computed once: `powf` per cell would dominate evaluating boards
/// other than the packed one.
#[derive(Debug, Clone)]
struct Powers {
    sum: [f32; EXPONENTS],
    monotonicity: [f32; EXPONENTS],
}

impl Powers {
    fn of(weights: &Weights) -> Powers {
        Powers {
            sum: std::array::from_fn(|r| (r as f32).powf(weights.sum_power)),
            monotonicity: std::array::from_fn(|r| (r as f32).powf(weights.monotonicity_power)),
        }
    }
}

/// The strong evaluator: [`Weights`] applied to every row and column; on the
/// packed board, eight look-ups in a table of all 65,536 rows.
#[derive(Debug, Clone)]
pub struct WeightedEvaluator {
    weights: Weights,
    powers: Powers,
    rows: Box<RowTable<f32>>,
}

impl WeightedEvaluator {
    /// Builds the row table for these weights (about a millisecond).
    pub fn new(weights: Weights) -> WeightedEvaluator {
        let powers = Powers::of(&weights);
        let rows = row_table(|row| weights.line_with(&powers, &row_exponents(row)));
        WeightedEvaluator { weights, powers, rows }
    }

    /// The weights.
    pub fn weights(&self) -> &Weights {
        &self.weights
    }

    /// The packed board's value, by table.
    #[inline]
    pub fn packed(&self, board: Board) -> f32 {
        sum_rows(&self.rows, board)
    }
}

/// The largest tile of the game the weights were tuned on: 32768.
const TUNED_MAX_EXPONENT: u8 = 15;

impl<B: GameBoard> Evaluator<B> for WeightedEvaluator {
    // Always inlined into the search's max node, which scores the leaves:
    // since the search is compiled in this crate for each board type, LLVM
    // no longer did so of its own accord (docs/solver.md, "Where the
    // instructions went").
    #[inline(always)]
    fn evaluate(&self, board: &B) -> f32 {
        // The row table covers 4-bit cells; a board with a tile above 32768
        // has no packed form and is scored line by line, exactly.
        if let Some(packed) = board.packed() {
            return self.packed(Board::from_raw(packed));
        }
        self.lines(board)
    }

    /// 0 from a 4x4 root whose tiles are at most 32768, the public
    /// program's game, for which the weights were tuned, so that it plays
    /// as before: there `base` outweighs the other terms on the boards
    /// games reach (not on all: zigzag rows such as `8192 2 4096 1024`
    /// score below 0, which the public program accepts too). Elsewhere
    /// it does not: crowded boards holding 131072 on 4x4, or many large
    /// tiles in the longer lines of larger boards, score below 0, and a lost
    /// board at 0 then looked better than every move. So from any other
    /// root a lost board is worth less than the lowest value any board of
    /// its size can have. A 4x4 board past 32768 keeps a tile past 32768
    /// in every board its search reaches (tiles only grow), so it has no
    /// packed form and its values never enter the transposition table,
    /// where they would meet the others; other sizes never use the table.
    fn lost_value(&self, root: &B) -> f32 {
        if root.size() == 4 && root.max_exponent() <= TUNED_MAX_EXPONENT {
            return 0.0;
        }
        let lowest = 2.0 * root.size() as f32 * self.lowest_line(root.size());
        // Below the bound by a margin, for the rounding of the f32 sums.
        lowest.min(0.0) * 1.01 - 1.0
    }
}

impl WeightedEvaluator {
    /// A lower bound of [`Weights::line`] over lines of `n` cells with
    /// exponents up to [`MAX_EXPONENT`]: each term at its worst (at most
    /// `n` empty cells and `n` tiles in runs, at most `n - 1` neighbour
    /// steps for the monotonicity), for weights of any sign.
    fn lowest_line(&self, n: usize) -> f32 {
        let w = &self.weights;
        let range = |powers: &[f32]| {
            powers
                .iter()
                .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &p| (lo.min(p), hi.max(p)))
        };
        let (sum_lo, sum_hi) = range(&self.powers.sum);
        let (mono_lo, mono_hi) = range(&self.powers.monotonicity);
        let n = n as f32;
        w.base + n * w.empty.min(0.0) + n * w.merges.min(0.0)
            - w.monotonicity.max(0.0) * (n - 1.0) * (mono_hi - mono_lo)
            - (w.sum * n * sum_hi).max(w.sum * n * sum_lo)
    }

    /// The value of a board without a packed form, line by line: out of
    /// line and cold, so that the search's leaf loop, where
    /// [`Evaluator::evaluate`] is inlined, keeps only the table path.
    #[cold]
    #[inline(never)]
    fn lines<B: GameBoard>(&self, board: &B) -> f32 {
        let mut total = 0.0;
        for_each_line(board, |line| total += self.weights.line_with(&self.powers, line));
        total
    }
}

// --- The corner heuristic -------------------------------------------------------

/// A tile's weight in the corner heuristic: `r * 2^r` for exponent `r`
/// (0 for an empty cell), so that a larger tile outweighs every smaller one
/// many times over.
fn corner_tile(r: u8) -> f32 {
    if r == 0 { 0.0 } else { f32::from(r) * f32::from(r).exp2() }
}

/// The corner heuristic's score of a line read from the corner outward:
/// the first tile's weight, and for each pair of neighbours `(a, b)` (as
/// weights) `a + b` where the line falls or stays level (`a` more where
/// they are equal), `12 * (a - b)` where it rises.
pub(crate) fn corner_line(exponents: &[u8]) -> f32 {
    let weights: Vec<f32> = exponents.iter().map(|&e| corner_tile(e)).collect();
    let mut score = weights.first().copied().unwrap_or(0.0);
    for pair in weights.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        score += if a >= b { a + b } else { 12.0 * (a - b) };
        if a == b {
            score += a;
        }
    }
    score
}

/// The corner heuristic (macroxue/2048-ai's evaluation): every row scored
/// from column 0 and every column from row 0 (a tile of exponent `r`
/// weighs `r * 2^r`; the first tile counts its weight, a falling or level
/// pair of neighbours both weights, the first once more when level, and a
/// rising pair twelve times the difference, below 0), so the
/// largest tiles gather in the top-left corner, falling along row 0 and
/// down column 0, the formations of the corner tables
/// ([`crate::endgame::corner_formations`]). Unlike [`WeightedEvaluator`] it
/// is not symmetric: it prefers one corner.
#[derive(Debug, Clone)]
pub struct CornerEvaluator {
    rows: Box<RowTable<f32>>,
}

impl CornerEvaluator {
    /// Builds the row table (about a millisecond).
    pub fn new() -> CornerEvaluator {
        CornerEvaluator { rows: row_table(|r| corner_line(&row_exponents(r))) }
    }
}

impl Default for CornerEvaluator {
    fn default() -> Self {
        CornerEvaluator::new()
    }
}

impl<B: GameBoard> Evaluator<B> for CornerEvaluator {
    fn evaluate(&self, board: &B) -> f32 {
        if let Some(packed) = board.packed() {
            return sum_rows(&self.rows, Board::from_raw(packed));
        }
        let mut total = 0.0;
        for_each_line(board, |line| total += corner_line(line));
        total
    }

    /// Twice the weight of the root's largest tile below 0, and at least
    /// 2^17 below: worse than most boards, but not than a board whose
    /// largest tiles are out of order (the public program's rule).
    fn lost_value(&self, root: &B) -> f32 {
        -(2.0 * corner_tile(root.max_exponent())).max(131_072.0)
    }

    /// Twice the weight of the root's largest tile, when the root itself
    /// scores 0 or more (else nothing is pruned): a board below it has let
    /// the largest tile leave the corner or the row fall out of order, and
    /// searching it further only costs time (the public program's rule; it
    /// spends the search on the boards that keep the formation).
    fn prune_below(&self, root: &B) -> f32 {
        if self.evaluate(root) < 0.0 {
            f32::NEG_INFINITY
        } else {
            2.0 * corner_tile(root.max_exponent())
        }
    }

    /// The root's largest exponent (at most `MAX_EXPONENT`, so doubled it
    /// fits a byte) and whether the root scores 0 or more: all that the two
    /// values above read of it.
    fn context(&self, root: &B) -> u8 {
        root.max_exponent() << 1 | u8::from(self.evaluate(root) >= 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game_core::Grid;

    #[test]
    fn tables_agree_with_the_line_functions_on_packed_and_grid_boards() {
        let eval = WeightedEvaluator::new(Weights::STANDARD);
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let board = Board::from_raw(x & 0x7777_7777_7777_7777);
            let grid = Grid::from(board);
            assert_eq!(tutorial_score(&board), tutorial_score(&grid));
            let (a, b) = (eval.evaluate(&board), eval.evaluate(&grid));
            assert!((a - b).abs() <= 1e-3 * a.abs().max(1.0), "{board}: {a} vs {b}");
        }
    }

    /// From a 4x4 root holding a tile past 32768, or a root of another
    /// size, a lost board is worth less than any board of the root's size,
    /// whatever its tiles up to `MAX_EXPONENT` (random boards, and boards
    /// built to score low: the largest tiles, and the largest beside the
    /// smallest); from a 4x4 root of tiles up to 32768 it is 0, as in the
    /// public program.
    #[test]
    fn outside_the_tuned_game_a_lost_board_is_below_every_board() {
        let eval = WeightedEvaluator::new(Weights::STANDARD);
        let two_32768: Board = "32768 32768 0 0/0 0 0 0/0 0 0 0/0 0 0 0".parse().expect("board");
        assert_eq!(eval.lost_value(&two_32768), 0.0);
        assert_eq!(eval.lost_value(&Grid::from(two_32768)), 0.0);
        let five = Grid::empty(5).expect("a size").with_exponent_unchecked(0, 1);
        assert!(eval.lost_value(&five) < 0.0);
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for n in game_core::MIN_SIZE..=MAX_SIZE {
            let grid = |f: &mut dyn FnMut(usize) -> u8| {
                let mut g = Grid::empty(n).expect("a size");
                for i in 0..n * n {
                    g = g.with_exponent_unchecked(i, f(i));
                }
                g
            };
            let root = grid(&mut |i| if i == 0 { if n == 4 { 16 } else { 1 } } else { 0 });
            let lost = eval.lost_value(&root);
            assert!(lost < 0.0, "size {n}: {lost}");
            let mut boards = vec![
                grid(&mut |_| MAX_EXPONENT),
                grid(&mut |i| if (i / n + i % n) % 2 == 0 { MAX_EXPONENT } else { 1 }),
            ];
            boards.extend((0..300).map(|_| grid(&mut |_| (next() % 26) as u8)));
            for board in &boards {
                let v = eval.evaluate(board);
                assert!(v > lost, "size {n}: {v} <= {lost} on {board:?}");
            }
        }
        let board = Board::from_exponents([[MAX_EXPONENT, 1, MAX_EXPONENT, 1]; 4]).expect("board");
        assert!(eval.evaluate(&board) > eval.lost_value(&board));
    }

    /// The bound of a line holds for weights of either sign: every line of
    /// 2 and 3 cells (exponents 0 to `MAX_EXPONENT`), and lines built to
    /// score low up to `MAX_SIZE` cells, under the standard weights and
    /// under each term alone, of either sign (alone, so that the other
    /// terms' slack cannot hide a wrong sign in a small one).
    #[test]
    fn the_line_bound_holds_for_weights_of_either_sign() {
        let s = Weights::STANDARD;
        let zero = Weights { base: 0.0, empty: 0.0, merges: 0.0, monotonicity: 0.0, sum: 0.0, ..s };
        let mut variants = vec![s];
        for sign in [1.0, -1.0] {
            variants.extend([
                Weights { base: sign * s.base, ..zero },
                Weights { empty: sign * s.empty, ..zero },
                Weights { merges: sign * s.merges, ..zero },
                Weights { monotonicity: sign * s.monotonicity, ..zero },
                Weights { sum: sign * s.sum, ..zero },
            ]);
        }
        let (top, values) = (MAX_EXPONENT, usize::from(MAX_EXPONENT) + 1);
        for weights in variants {
            let eval = WeightedEvaluator::new(weights);
            let score = |line: &[u8]| weights.line_with(&eval.powers, line);
            for n in 2..=3 {
                let lowest = eval.lowest_line(n);
                for k in 0..values.pow(n as u32) {
                    let line: Vec<u8> =
                        (0..n).map(|i| (k / values.pow(i as u32) % values) as u8).collect();
                    assert!(score(&line) >= lowest, "{weights:?} {line:?}");
                }
            }
            for n in game_core::MIN_SIZE..=MAX_SIZE {
                let lowest = eval.lowest_line(n);
                let lines = [
                    vec![top; n],
                    vec![0; n],
                    vec![1; n],
                    (0..n).map(|i| if i % 2 == 0 { top } else { 0 }).collect(),
                    (0..n).map(|i| if i % 2 == 0 { top } else { 1 }).collect(),
                ];
                for line in lines {
                    assert!(score(&line) >= lowest, "{weights:?} {line:?}");
                }
            }
        }
    }

    #[test]
    fn tutorial_line_matches_hand_worked_examples() {
        // 2 2 4 0: empty 1, merges 1 (2,2), left 0, right 2 -> min 0, sum 8.
        assert_eq!(tutorial_line(&[1, 1, 2, 0]), 1000 + 250 + 750 - 80);
        // 8 0 2 4: zeros removed: 8 2 4: left 6, right 2 -> min 2; sum 14.
        assert_eq!(tutorial_line(&[3, 0, 1, 2]), 1000 + 250 - 140 - 100);
        assert_eq!(tutorial_line(&[0, 0, 0, 0]), 1000 + 1000);
    }

    #[test]
    fn the_corner_heuristic_prefers_the_top_left_corner() {
        let eval = CornerEvaluator::new();
        let corner: Board = "1024 256 16 2/256 64 8 0/16 8 0 0/2 0 0 0".parse().unwrap();
        for (s, sym) in corner.symmetries().into_iter().enumerate().skip(1) {
            if sym != corner.transpose() {
                assert!(eval.evaluate(&corner) > eval.evaluate(&sym), "symmetry {s}");
            }
        }
        // This board is its own transpose: rows and columns score alike.
        assert_eq!(corner, corner.transpose());
        // One line by hand: 4 2 0 0 is 2*4 + (8 + 2) + (2 + 0) + (0 + 0).
        assert_eq!(corner_line(&[2, 1, 0, 0]), 20.0);
        // A rise costs twelve times the difference: 2 4 is 2 + 12 * (2 - 8).
        assert_eq!(corner_line(&[1, 2]), -70.0);
        // Equal neighbours add the first once more: 2 2 is 2 + (2 + 2) + 2.
        assert_eq!(corner_line(&[1, 1]), 8.0);
    }

    #[test]
    fn the_corner_heuristic_scores_a_grid_as_its_packed_board() {
        let eval = CornerEvaluator::new();
        let text = "2048 512 64 4/128 32 16 2/8 4 2 0/2 0 0 0";
        let board: Board = text.parse().unwrap();
        let grid: Grid = text.parse().unwrap();
        assert_eq!(eval.evaluate(&board), eval.evaluate(&grid));
        assert_eq!(eval.lost_value(&board), -131_072.0);
        let big: Board = "32768 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0".parse().unwrap();
        assert_eq!(eval.lost_value(&big), -2.0 * 15.0 * 32768.0);
    }
}

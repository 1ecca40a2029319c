//! The network: four 6-cell tuples, each looked up in all eight symmetries
//! of the board, summed, with one set of weights per stage of the game.

use std::sync::atomic::{AtomicU32, Ordering};

use game_core::{Board, Direction};

/// The cells of each tuple (`row * 4 + col`): a whole row and the first
/// two cells of the row below it (rows 0-1 and rows 1-2), and a 2x3
/// rectangle (a 3-cell row over a 3-cell row, on rows 0-1 and 1-2). This is
/// the 4x6-tuple shape of Yeh et al. (2016) and of most strong 2048 learners
/// since; with the eight symmetries it covers every cell of the board many
/// times.
pub const PATTERNS: [[u8; 6]; 4] =
    [[0, 1, 2, 3, 4, 5], [4, 5, 6, 7, 8, 9], [0, 1, 2, 4, 5, 6], [4, 5, 6, 8, 9, 10]];

/// The number of tuples.
pub const N_TUPLES: usize = PATTERNS.len();

/// The cells in each tuple.
pub const TUPLE_LEN: usize = 6;

/// The values a cell can take in a tuple's index: the exponents 0 (empty)
/// to 15 (32768), four bits each. A tile past 32768 (65536, 131072) enters
/// the network clamped to 15: [`Board::raw`], which the features read,
/// holds 15 in its cell (the rest of its exponent lives outside the `u64`),
/// so no index ever overflows, and such a board is valued as if the tile
/// were 32768 (`tests.rs`: `tiles_past_32768_are_clamped`).
pub const CELL_VALUES: usize = 16;

/// The entries of one tuple's table: 16^6.
pub const TUPLE_ENTRIES: usize = 1 << (4 * TUPLE_LEN);

/// The weights of one stage (the whole network when it has one stage).
pub const N_WEIGHTS: usize = N_TUPLES * TUPLE_ENTRIES;

/// The smallest tile exponent of stage 1: a board (afterstate) is in stage
/// 1 once it holds a tile of at least 16384, in stage 0 before.
///
/// Why 16384: it is the first stage boundary of Yeh et al. (2016), and it
/// is where our games are decided: the shipped network's games mostly end
/// between 8192 and 16384 on a crowded board, where one shared set of
/// weights must also value the early game's boards. A board keeps its
/// 16384 (or what it merges into) to the end of the game, so the boundary
/// is crossed once per game. Tiles past 32768 hold 15 in [`Board::raw`] and
/// are stage 1.
///
/// The files record the boundaries (one exponent per boundary), so a later
/// build may add more (Yeh et al. use 16384 + 8192 next) without a format
/// change; this build reads 1 stage, or 2 split at this exponent.
pub const STAGE_EXPONENT: u8 = 14;

// `stage` tests the exponent with bit operations that hold for 14 only.
const _: () = assert!(STAGE_EXPONENT == 14);

/// The most stages a network can have.
pub const MAX_STAGES: usize = 2;

/// The features of a board: one weight index per tuple and symmetry.
pub const N_FEATURES: usize = 8 * N_TUPLES;

/// The four tuples' indices in one orientation of the board, read off the
/// packed form with shifts and masks. Each pattern above is two runs of
/// consecutive cells, so its six nibbles are two bit fields of the `u64`.
#[inline]
fn tuple_indices(x: u64) -> [u32; N_TUPLES] {
    [
        (x & 0xFF_FFFF) as u32,
        (x >> 16 & 0xFF_FFFF) as u32,
        (x & 0xFFF | x >> 4 & 0xFF_F000) as u32,
        (x >> 16 & 0xFFF | x >> 20 & 0xFF_F000) as u32,
    ]
}

/// The stage of a board: 1 once it holds a tile of at least 16384
/// ([`STAGE_EXPONENT`]), else 0. A few bit operations on the packed board:
/// a cell's exponent is at least 14 (`0b1110`) exactly when its top three
/// bits are set, and a tile past 32768 reads 15 there.
#[inline]
pub fn stage(board: Board) -> usize {
    let x = board.raw();
    usize::from(x & x << 1 & x << 2 & 0x8888_8888_8888_8888 != 0)
}

/// The weight indices of `board`'s features in stage 0's weights (those of
/// a one-stage network); [`Network::features`] gives a network's own,
/// with the board's stage.
#[inline]
pub fn features(board: Board) -> [u32; N_FEATURES] {
    features_from(board, 0)
}

/// The weight indices of `board`'s features in the weights that start at
/// `base`: the stage's offset is part of every index, so that evaluation,
/// updates and the TC state need no other notion of stage.
#[inline]
fn features_from(board: Board, base: u32) -> [u32; N_FEATURES] {
    let mut out = [0u32; N_FEATURES];
    for (s, sym) in board.symmetries().into_iter().enumerate() {
        for (t, idx) in tuple_indices(sym.raw()).into_iter().enumerate() {
            out[s * N_TUPLES + t] = idx + base + (t * TUPLE_ENTRIES) as u32;
        }
    }
    out
}

/// A stage count a network cannot have or take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StageError {
    /// Not from 1 to [`MAX_STAGES`].
    Unsupported(usize),
    /// Fewer stages than the network has: its later stages' weights would
    /// be lost.
    Fewer {
        /// The network's stages.
        from: usize,
        /// The stages asked for.
        to: usize,
    },
}

impl std::fmt::Display for StageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StageError::Unsupported(n) => {
                write!(f, "a network has 1 to {MAX_STAGES} stages, not {n}")
            }
            StageError::Fewer { from, to } => write!(
                f,
                "the network has {from} stages and cannot go back to {to}: \
                 the weights of its later stages would be lost"
            ),
        }
    }
}

impl std::error::Error for StageError {}

/// Checks a stage count.
pub(crate) fn check_stages(stages: usize) -> Result<usize, StageError> {
    if (1..=MAX_STAGES).contains(&stages) {
        Ok(stages)
    } else {
        Err(StageError::Unsupported(stages))
    }
}

/// Copies the last stage of `values` (`N_WEIGHTS` per stage) into each
/// new stage until there are `stages`: weight promotion (Jaśkowski 2018).
pub(crate) fn promote<T>(
    values: Box<[T]>,
    stages: usize,
    copy: impl Fn(&T) -> T,
) -> Result<Box<[T]>, StageError> {
    let from = values.len() / N_WEIGHTS;
    check_stages(stages)?;
    if stages < from {
        return Err(StageError::Fewer { from, to: stages });
    }
    if stages == from {
        return Ok(values);
    }
    let mut out = Vec::with_capacity(stages * N_WEIGHTS);
    out.extend(values.iter().map(&copy));
    let last = &values[(from - 1) * N_WEIGHTS..];
    for _ in from..stages {
        out.extend(last.iter().map(&copy));
    }
    Ok(out.into_boxed_slice())
}

/// A greedy choice: see [`Network::best_move`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Greedy {
    /// The move.
    pub direction: Direction,
    /// The board after it, before the spawn.
    pub after: Board,
    /// The score it gains.
    pub reward: u32,
    /// The afterstate's features.
    pub features: [u32; N_FEATURES],
    /// The afterstate's value.
    pub value: f32,
}

/// The network: `N_WEIGHTS` `f32` weights per stage, shared by every
/// thread that trains or evaluates. A board is valued with its stage's
/// weights (see [`STAGE_EXPONENT`]); a one-stage network values every board
/// with the same weights.
///
/// Weights are `f32` bits in relaxed atomics: two training threads may add
/// to the same weight at once and one addition may then be lost (as in
/// Hogwild-style training), which costs nothing measurable, while every read
/// and write stays a plain load or store on the machines we run on. No
/// `unsafe` is needed.
pub struct Network {
    /// Stage after stage, `N_WEIGHTS` each.
    weights: Box<[AtomicU32]>,
    /// Where stage 1's weights start: `N_WEIGHTS`, or 0 in a one-stage
    /// network, whose stage-1 boards use stage 0's weights. The stage test
    /// then costs a multiplication, not a branch.
    stage_offset: u32,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Network")
            .field("stages", &self.stages())
            .field("weights", &self.weights.len())
            .finish()
    }
}

impl Network {
    /// A network whose every weight is `initial`. An optimistic `initial`
    /// (a board then starts with value `32 * initial`) drives early
    /// exploration; 0 is the plain start.
    pub fn filled(initial: f32) -> Network {
        Network::filled_stages(1, initial).expect("1 stage is valid")
    }

    /// A network of `stages` stages whose every weight is `initial`.
    ///
    /// # Errors
    /// [`StageError::Unsupported`] unless `stages` is from 1 to
    /// [`MAX_STAGES`].
    pub fn filled_stages(stages: usize, initial: f32) -> Result<Network, StageError> {
        let bits = initial.to_bits();
        let n = check_stages(stages)? * N_WEIGHTS;
        Ok(Network::from_raw((0..n).map(|_| AtomicU32::new(bits)).collect()))
    }

    /// A network with these weights in the order of [`Network::weight`]:
    /// `N_WEIGHTS` per stage, so their count gives the stages; `None` for
    /// a count that is not 1 to [`MAX_STAGES`] times `N_WEIGHTS`.
    pub fn from_weights(weights: impl ExactSizeIterator<Item = f32>) -> Option<Network> {
        let n = weights.len();
        if !n.is_multiple_of(N_WEIGHTS) || check_stages(n / N_WEIGHTS).is_err() {
            return None;
        }
        Some(Network::from_raw(weights.map(|w| AtomicU32::new(w.to_bits())).collect()))
    }

    pub(crate) fn from_raw(weights: Box<[AtomicU32]>) -> Network {
        let stages = weights.len() / N_WEIGHTS;
        assert!(
            weights.len().is_multiple_of(N_WEIGHTS) && check_stages(stages).is_ok(),
            "a network has N_WEIGHTS weights per stage"
        );
        let stage_offset = if stages > 1 { N_WEIGHTS as u32 } else { 0 };
        Network { weights, stage_offset }
    }

    /// This network with `stages` stages: each new stage starts as a copy
    /// of the last one (weight promotion), so the network values every
    /// board exactly as before until training tells the stages apart. The
    /// same count gives the network back unchanged. Memory grows to
    /// `stages` times a stage's 256 MiB (briefly the old and the new arrays
    /// together).
    ///
    /// # Errors
    /// [`StageError`] for a count outside 1 to [`MAX_STAGES`] or below the
    /// network's own.
    pub fn into_stages(self, stages: usize) -> Result<Network, StageError> {
        let weights = promote(self.weights, stages, |w| AtomicU32::new(w.load(Ordering::Relaxed)))?;
        Ok(Network::from_raw(weights))
    }

    /// The stages: 1, or 2 (see [`STAGE_EXPONENT`]).
    pub fn stages(&self) -> usize {
        self.weights.len() / N_WEIGHTS
    }

    /// The weight indices of `board`'s features in this network: those of
    /// [`features`] in the weights of the board's stage.
    #[inline]
    pub fn features(&self, board: Board) -> [u32; N_FEATURES] {
        features_from(board, stage(board) as u32 * self.stage_offset)
    }

    pub(crate) fn raw(&self) -> &[AtomicU32] {
        &self.weights
    }

    /// The weight at a flat index (`stage * N_WEIGHTS + tuple *
    /// TUPLE_ENTRIES + index`).
    #[inline]
    pub fn weight(&self, i: usize) -> f32 {
        f32::from_bits(self.weights[i].load(Ordering::Relaxed))
    }

    /// Every weight, in order.
    pub fn weights(&self) -> impl ExactSizeIterator<Item = f32> + '_ {
        self.weights.iter().map(|w| f32::from_bits(w.load(Ordering::Relaxed)))
    }

    /// The value of an afterstate (a board after a move, before the spawn):
    /// the expected score still to come, as learned.
    #[inline]
    pub fn value(&self, board: Board) -> f32 {
        self.value_of(&self.features(board))
    }

    /// The value of a board given its features.
    #[inline]
    pub fn value_of(&self, features: &[u32; N_FEATURES]) -> f32 {
        features.iter().map(|&i| self.weight(i as usize)).sum()
    }

    /// The greedy move: the direction with the highest score gained plus
    /// afterstate value, with that sum, its afterstate and the afterstate's
    /// features; `None` when no direction changes the board. Ties go to the
    /// first in [`Direction::ALL`].
    #[inline]
    pub fn best_move(&self, board: Board) -> Option<Greedy> {
        let mut best: Option<Greedy> = None;
        for direction in Direction::ALL {
            let Some((after, reward)) = board.slide(direction) else { continue };
            let features = self.features(after);
            let value = self.value_of(&features);
            if best.as_ref().is_none_or(|b| reward as f32 + value > b.reward as f32 + b.value) {
                best = Some(Greedy { direction, after, reward, features, value });
            }
        }
        best
    }

    /// Adds `delta` to the weight at each feature (a feature that occurs
    /// twice, on a symmetric board, gets it twice, as the gradient says).
    #[inline]
    pub(crate) fn add(&self, features: &[u32; N_FEATURES], delta: f32) {
        for &i in features {
            self.add_one(i as usize, delta);
        }
    }

    /// Adds `delta` to one weight.
    #[inline]
    pub(crate) fn add_one(&self, i: usize, delta: f32) {
        let w = &self.weights[i];
        w.store((f32::from_bits(w.load(Ordering::Relaxed)) + delta).to_bits(), Ordering::Relaxed);
    }
}

impl solver_expectimax::Evaluator<Board> for Network {
    #[inline]
    fn evaluate(&self, board: &Board) -> f32 {
        self.value(*board)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slow, obvious reading of a tuple: its cells' exponents, first
    /// cell in the lowest nibble.
    fn slow_index(board: Board, pattern: &[u8; 6]) -> u32 {
        let rows = board.to_exponents();
        pattern.iter().enumerate().fold(0, |acc, (k, &cell)| {
            let e = rows[usize::from(cell / 4)][usize::from(cell % 4)];
            acc | u32::from(e) << (4 * k)
        })
    }

    fn boards() -> impl Iterator<Item = Board> {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        std::iter::from_fn(move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            Some(Board::from_raw(x))
        })
    }

    #[test]
    fn fast_indices_read_the_documented_cells() {
        for board in boards().take(5000) {
            let fast = tuple_indices(board.raw());
            for (t, pattern) in PATTERNS.iter().enumerate() {
                assert_eq!(fast[t], slow_index(board, pattern), "{board} tuple {t}");
            }
        }
    }

    #[test]
    fn the_stage_test_reads_the_largest_exponent() {
        // Random boards hold every exponent in every cell; the slow reading
        // is the documented rule.
        for board in boards().take(20_000) {
            let slow = usize::from(board.max_exponent() >= STAGE_EXPONENT);
            assert_eq!(stage(board), slow, "{board}");
        }
        // Each exponent alone, in each cell: only 14 and 15 are stage 1.
        for cell in 0..16 {
            for e in 0..16u64 {
                let board = Board::from_raw(e << (4 * cell));
                assert_eq!(stage(board), usize::from(e >= 14), "{board}");
            }
        }
    }

    #[test]
    fn value_is_the_same_on_all_eight_symmetric_boards() {
        // Distinct weights everywhere, so that a missed symmetry shows.
        let net = Network::from_weights((0..N_WEIGHTS).map(|i| (i % 1009) as f32 * 0.25))
            .expect("right size");
        for board in boards().take(500) {
            let v = net.value(board);
            for sym in board.symmetries() {
                assert_eq!(net.value(sym), v, "{board} vs {sym}");
            }
        }
    }
}

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
/// is where our games are decided: the one-stage network's games mostly
/// ended between 8192 and 16384 on a crowded board, where one shared set of
/// weights must also value the early game's boards. Tiles past 32768 hold
/// 15 in [`Board::raw`] and count as 16384 or more.
pub const STAGE_EXPONENT: u8 = 14;

/// The second tile of stage 2: a board is in stage 2 once it holds a tile
/// of at least 16384 ([`STAGE_EXPONENT`]) and another of at least 8192.
///
/// Why: the two-stage network's games mostly end while building the second
/// 16384 beside the first, the board then crowded with a 16384, an 8192 and
/// the chain below it; Yeh et al. (2016) put their second boundary at the
/// same place (16384 + 8192). Unlike stage 1 this is not crossed once per
/// game: the merge into 32768 leaves one large tile and the board is back
/// in stage 1 until the next 8192 forms. A stage is a property of the board
/// alone, as a value function's input must be.
pub const STAGE_2_EXPONENT: u8 = 13;

// `stage` tests the exponents with bit operations that hold for these only.
const _: () = assert!(STAGE_EXPONENT == 14 && STAGE_2_EXPONENT == 13);

/// The most stages a network can have.
pub const MAX_STAGES: usize = 3;

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

/// The stage of a board in a network of [`MAX_STAGES`] stages: 0 below
/// 16384; 1 with a tile of at least 16384 ([`STAGE_EXPONENT`]); 2 with
/// such a tile and another of at least 8192 ([`STAGE_2_EXPONENT`]). A
/// network of fewer stages uses its last stage for the later ones.
///
/// A few bit operations on the packed board, at the top bit of each cell's
/// nibble `b3 b2 b1 b0`: the exponent is at least 14 (`0b1110`) when
/// `b3 b2 b1` are set, and at least 13 (`0b1101`) when `b3 b2` and one of
/// `b1 b0` are; a tile past 32768 reads 15.
#[inline]
pub fn stage(board: Board) -> usize {
    let x = board.raw();
    let twelve = x & x << 1 & 0x8888_8888_8888_8888;
    let fourteen = twelve & x << 2;
    let thirteen = twelve & (x << 2 | x << 3);
    usize::from(fourteen != 0) * (1 + usize::from(thirteen.count_ones() >= 2))
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
/// weights (see [`stage`]); a one-stage network values every board with
/// the same weights.
///
/// Weights are `f32` bits in relaxed atomics: two training threads may add
/// to the same weight at once and one addition may then be lost (as in
/// Hogwild-style training), which costs nothing measurable, while every read
/// and write stays a plain load or store on the machines we run on. No
/// `unsafe` is needed.
pub struct Network {
    /// Stage after stage, `N_WEIGHTS` each.
    weights: Box<[AtomicU32]>,
    /// Where the weights of each [`stage`] start: `stage * N_WEIGHTS`, but
    /// a network of fewer stages uses its last one for the later stages
    /// (a one-stage network: 0 for all three). A lookup, not a branch.
    stage_base: [u32; MAX_STAGES],
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
        let stage_base = std::array::from_fn(|s| (s.min(stages - 1) * N_WEIGHTS) as u32);
        Network { weights, stage_base }
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

    /// The stages: 1 to [`MAX_STAGES`] (see [`stage`]).
    pub fn stages(&self) -> usize {
        self.weights.len() / N_WEIGHTS
    }

    /// The weight indices of `board`'s features in this network: those of
    /// [`features`] in the weights of the board's stage.
    #[inline]
    pub fn features(&self, board: Board) -> [u32; N_FEATURES] {
        features_from(board, self.stage_base[stage(board)])
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

    /// The documented rule, read slowly off the cells' exponents.
    fn slow_stage(board: Board) -> usize {
        let mut e: Vec<u8> = board.to_exponents().into_iter().flatten().collect();
        e.sort_unstable_by(|a, b| b.cmp(a));
        match (e[0] >= STAGE_EXPONENT, e[1] >= STAGE_2_EXPONENT) {
            (false, _) => 0,
            (true, false) => 1,
            (true, true) => 2,
        }
    }

    #[test]
    fn the_stage_test_reads_the_two_largest_exponents() {
        // Random boards hold every exponent in every cell; about 12% of
        // them are in stage 0, 9% in stage 1 and the rest in stage 2.
        let mut seen = [0; MAX_STAGES];
        for board in boards().take(20_000) {
            assert_eq!(stage(board), slow_stage(board), "{board}");
            seen[stage(board)] += 1;
        }
        assert!(seen.iter().all(|&n| n > 1000), "{seen:?}");
        // Every pair of exponents in every pair of cells, over a
        // background of 2s: the bit tricks must not leak between cells.
        for a in 0..16 {
            for b in 0..16 {
                if a == b {
                    continue;
                }
                for (ea, eb) in (0..16u64).flat_map(|ea| (0..16u64).map(move |eb| (ea, eb))) {
                    let mut raw = 0x1111_1111_1111_1111u64;
                    raw &= !(0xF << (4 * a)) & !(0xF << (4 * b));
                    raw |= ea << (4 * a) | eb << (4 * b);
                    let board = Board::from_raw(raw);
                    assert_eq!(stage(board), slow_stage(board), "{board}");
                }
            }
        }
    }

    #[test]
    fn fewer_stages_use_their_last_stage_for_the_later_ones() {
        let late: Board = "16384 8192 2 0/0 0 0 0/0 0 0 0/0 0 0 0".parse().expect("valid");
        let mid: Board = "16384 4096 2 0/0 0 0 0/0 0 0 0/0 0 0 0".parse().expect("valid");
        let early: Board = "8192 4096 2 0/0 0 0 0/0 0 0 0/0 0 0 0".parse().expect("valid");
        assert_eq!((stage(early), stage(mid), stage(late)), (0, 1, 2));
        for stages in 1..=MAX_STAGES {
            let net = Network::filled_stages(stages, 0.0).expect("valid");
            let base = |b: Board| net.features(b)[0] as usize / N_WEIGHTS;
            let want = |s: usize| s.min(stages - 1);
            assert_eq!((base(early), base(mid), base(late)), (want(0), want(1), want(2)));
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

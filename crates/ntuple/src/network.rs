//! The network: four 6-cell tuples, each looked up in all eight symmetries
//! of the board, summed.

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

/// The weights in the whole network.
pub const N_WEIGHTS: usize = N_TUPLES * TUPLE_ENTRIES;

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

/// The weight indices (into the whole network) of `board`'s features.
#[inline]
pub fn features(board: Board) -> [u32; N_FEATURES] {
    let mut out = [0u32; N_FEATURES];
    for (s, sym) in board.symmetries().into_iter().enumerate() {
        for (t, idx) in tuple_indices(sym.raw()).into_iter().enumerate() {
            out[s * N_TUPLES + t] = idx + (t * TUPLE_ENTRIES) as u32;
        }
    }
    out
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

/// The network: `N_WEIGHTS` `f32` weights, shared by every thread that
/// trains or evaluates.
///
/// Weights are `f32` bits in relaxed atomics: two training threads may add
/// to the same weight at once and one addition may then be lost (as in
/// Hogwild-style training), which costs nothing measurable, while every read
/// and write stays a plain load or store on the machines we run on. No
/// `unsafe` is needed.
pub struct Network {
    weights: Box<[AtomicU32]>,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Network").field("weights", &self.weights.len()).finish()
    }
}

impl Network {
    /// A network whose every weight is `initial`. An optimistic `initial`
    /// (a board then starts with value `32 * initial`) drives early
    /// exploration; 0 is the plain start.
    pub fn filled(initial: f32) -> Network {
        let bits = initial.to_bits();
        Network { weights: (0..N_WEIGHTS).map(|_| AtomicU32::new(bits)).collect() }
    }

    /// A network with these weights, `N_WEIGHTS` of them in the order of
    /// [`Network::weight`]; `None` for another count.
    pub fn from_weights(weights: impl ExactSizeIterator<Item = f32>) -> Option<Network> {
        if weights.len() != N_WEIGHTS {
            return None;
        }
        Some(Network { weights: weights.map(|w| AtomicU32::new(w.to_bits())).collect() })
    }

    pub(crate) fn from_raw(weights: Box<[AtomicU32]>) -> Network {
        assert_eq!(weights.len(), N_WEIGHTS, "a network has N_WEIGHTS weights");
        Network { weights }
    }

    pub(crate) fn raw(&self) -> &[AtomicU32] {
        &self.weights
    }

    /// The weight at a flat index (`tuple * TUPLE_ENTRIES + index`).
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
        self.value_of(&features(board))
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
            let features = features(after);
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

//! The generator: every state's odds, bottom-up by the free tiles' sum.
//!
//! A move keeps the sum of the free cells' tiles (a merge adds two tiles
//! into one of their sum; the fixed tiles do not move) and the spawn adds 2
//! or 4. So a state's odds depend only on the states of the two sums above
//! its own, and solving the sums from the largest down meets every state
//! after all it depends on: no recursion, no memo, and the states of one
//! sum are independent of each other, so rayon's threads share them.
//!
//! Where the time went is reading the spawned states' odds: in the table's
//! own order the states of one sum are scattered over all of it (gigabytes
//! for the corner tables), and nearly every read missed every cache. So
//! while building, the odds of each sum are also kept in a *layer* of their
//! own, in the order they are solved, and the spawned states are read from
//! the two layers above (megabytes): the table is only written. And the
//! board a move ends on is a state of the same sum (a move keeps the sum),
//! whose worth (the mean over its empty cells of the spawns' odds) does not
//! depend on the move that led there: each sum is solved in two passes,
//! that worth for every state of the sum, then each state's best move,
//! which reads it, so that the spawns of a board are averaged once, not
//! once for each move that ends there.
//!
//! A state's index is split into its low digits (`l`, the first few free
//! cells) and its high ones (`h`, the others): `index = h * L + l`. A layer
//! holds, for each `h` in turn, the `l` whose tiles make up the rest of its
//! sum, in ascending order; so the place of a state in its layer is where
//! its `h` begins (`Layer::start`) plus the rank of its `l` among the `l` of
//! the same sum (`Split::rank`), and adding a tile to one cell changes one
//! of the two parts by that cell's stride.

use std::ops::Range;

use game_core::Board;
use rayon::prelude::*;

use super::{Geometry, ONE};

#[inline]
fn tile(e: u8) -> u32 {
    if e == 0 { 0 } else { 1 << e }
}

/// A nibble in every cell: `0x1111_1111_1111_1111`.
const LOW_BITS: u64 = 0x1111_1111_1111_1111;

/// The byte tables' flag of a cell outside the table: a fixed cell without
/// its tile, a free one past its bound.
const OUTSIDE: u64 = 1 << 48;

/// The states split into low and high digits, and what the generator reads
/// of a board in a few table look-ups.
struct Split {
    /// The states' count of each `h`: `L`, the stride of the first high
    /// digit.
    lows: usize,
    /// The count of `h`.
    highs: usize,
    /// For each `l`: its free cells' tiles on the board.
    low_raw: Vec<u64>,
    /// For each `h`: its free cells' tiles on the board, and their sum.
    high_raw: Vec<u64>,
    high_sum: Vec<u32>,
    /// For each `l`: its rank among the `l` of its sum.
    rank: Vec<u32>,
    /// The `l` of each sum, ascending: those of sum `s` are
    /// `by_sum[first[s / 2]..first[s / 2 + 1]]`.
    by_sum: Vec<u32>,
    first: Vec<u32>,
    /// For each byte of a board (two cells) and each value of it: the
    /// cells' part of `l` (bits 0 to 23) and of `h` (bits 24 to 47), or
    /// [`OUTSIDE`]. The eight look-ups of a board add up to its `l` and `h`,
    /// with a bit from 48 up when some cell is outside the table.
    bytes: Box<[[u64; 256]; 8]>,
    /// For each cell, its digit (free cells only).
    digit: [u8; 16],
    /// For each digit, what a 2 there adds to `l` and to `h` (one of them
    /// 0).
    step: Vec<(u32, u32)>,
    /// The goal's patterns as (mask, tiles) of the board.
    goals: Vec<(u64, u64)>,
    /// The free cells' low nibble bits.
    free_bits: u64,
    /// The fixed tiles on the board.
    fixed_raw: u64,
}

impl Split {
    fn new(g: &Geometry) -> Split {
        let k = g.free.len();
        let m = k / 2;
        let lows = g.stride[m] as usize;
        let highs = (g.formation.states() / lows as u64) as usize;
        // Half the digits each: under `MAX_STATES`, both parts fit the byte
        // tables' 24 bits.
        assert!(lows < 1 << 24 && highs < 1 << 24, "{lows} x {highs} states");
        // Every board of the digits `range`, in index order, and its sum.
        let boards = |range: std::ops::Range<usize>, count: usize| {
            let mut raw = Vec::with_capacity(count);
            let mut sum = Vec::with_capacity(count);
            let mut digits = vec![0u8; k];
            for _ in 0..count {
                raw.push(range.clone().map(|j| u64::from(digits[j]) << (4 * g.free[j])).sum());
                sum.push(range.clone().map(|j| tile(digits[j])).sum());
                for j in range.clone() {
                    if digits[j] < g.bound[j] {
                        digits[j] += 1;
                        break;
                    }
                    digits[j] = 0;
                }
            }
            (raw, sum)
        };
        let (low_raw, low_sum): (Vec<u64>, Vec<u32>) = boards(0..m, lows);
        let (high_raw, high_sum) = boards(m..k, highs);
        let sums = low_sum.iter().max().map_or(0, |&s| s / 2 + 1) as usize;
        let mut first = vec![0u32; sums + 1];
        for &s in &low_sum {
            first[(s / 2) as usize + 1] += 1;
        }
        for i in 1..first.len() {
            first[i] += first[i - 1];
        }
        let mut by_sum = vec![0u32; lows];
        let mut rank = vec![0u32; lows];
        let mut next = first.clone();
        for (l, &s) in low_sum.iter().enumerate() {
            let at = &mut next[(s / 2) as usize];
            by_sum[*at as usize] = l as u32;
            rank[l] = *at - first[(s / 2) as usize];
            *at += 1;
        }
        let mut digit = [0u8; 16];
        for (j, &c) in g.free.iter().enumerate() {
            digit[c] = j as u8;
        }
        let part = |cell: usize, e: u8| -> u64 {
            if g.fixed_mask >> (4 * cell) & 0xF != 0 {
                return if (g.fixed_raw >> (4 * cell) & 0xF) as u8 == e { 0 } else { OUTSIDE };
            }
            let j = usize::from(digit[cell]);
            if e > g.bound[j] {
                OUTSIDE
            } else if j < m {
                u64::from(e) * u64::from(g.stride[j])
            } else {
                u64::from(e) * u64::from(g.stride[j]) / lows as u64 * (1 << 24)
            }
        };
        let bytes = Box::new(std::array::from_fn(|b| {
            std::array::from_fn(|v| part(2 * b, (v & 0xF) as u8) + part(2 * b + 1, (v >> 4) as u8))
        }));
        let step = (0..k)
            .map(|j| if j < m { (g.stride[j], 0) } else { (0, g.stride[j] / lows as u32) })
            .collect();
        let goals = g
            .goals
            .iter()
            .map(|p| {
                p.iter().fold((0, 0), |(mask, tiles), &(c, e)| {
                    (mask | 0xF << (4 * c), tiles | u64::from(e) << (4 * c))
                })
            })
            .collect();
        let free_bits = g.free.iter().map(|&c| 1u64 << (4 * c)).sum();
        Split {
            lows,
            highs,
            low_raw,
            high_raw,
            high_sum,
            rank,
            by_sum,
            first,
            bytes,
            digit,
            step,
            goals,
            free_bits,
            fixed_raw: g.fixed_raw,
        }
    }

    /// The `l` whose tiles sum to `sum`, ascending.
    fn lows_of(&self, sum: u32) -> &[u32] {
        match self.first.get((sum / 2) as usize + 1) {
            Some(&end) if sum.is_multiple_of(2) => {
                &self.by_sum[self.first[(sum / 2) as usize] as usize..end as usize]
            }
            _ => &[],
        }
    }

    /// Where each `h` begins in the layer of `sum`, and the layer's size.
    fn starts(&self, sum: u32) -> (Vec<u32>, usize) {
        let mut at = 0usize;
        let start = self
            .high_sum
            .iter()
            .map(|&s| {
                let here = at as u32;
                if s <= sum {
                    at += self.lows_of(sum - s).len();
                }
                here
            })
            .collect();
        (start, at)
    }

    #[inline]
    fn is_goal(&self, raw: u64) -> bool {
        self.goals.iter().any(|&(mask, tiles)| raw & mask == tiles)
    }

    /// Calls `f(h, l, board)` for each state of sum `sum` whose `h` is in
    /// `highs`, in the layer's order.
    #[inline]
    fn each(&self, sum: u32, highs: Range<usize>, mut f: impl FnMut(u32, u32, u64)) {
        for h in highs {
            let Some(rem) = sum.checked_sub(self.high_sum[h]) else { continue };
            let high = self.fixed_raw | self.high_raw[h];
            for &l in self.lows_of(rem) {
                f(h as u32, l, high | self.low_raw[l as usize]);
            }
        }
    }

    /// The odds of the canonical board `raw`: 1 at the goal, else the best
    /// move's (0 when every move breaks the formation), as
    /// [`Geometry::after_odds`] says: the expectation after each move,
    /// which is a state of the same sum, read in `expected`.
    #[inline]
    fn state(&self, raw: u64, expected: &Expected) -> f32 {
        if self.is_goal(raw) {
            return 1.0;
        }
        let mut best = 0.0;
        for after in Board::from_raw(raw).slide_each_unscored() {
            let after = after.raw();
            if after == raw {
                continue;
            }
            let parts: u64 =
                (0..8).map(|b| self.bytes[b][usize::from((after >> (8 * b)) as u8)]).sum();
            if parts >= OUTSIDE {
                continue;
            }
            let (l, h) = ((parts & 0xFF_FFFF) as u32, (parts >> 24) as u32);
            let at = expected.start[h as usize] + self.rank[l as usize];
            best = f32::max(best, expected.odds[at as usize]);
        }
        best
    }

    /// What a move that ends on the board `after` (of index `l`, `h`) is
    /// worth, as [`Geometry::after_odds`] says (the same sums in the same
    /// order, so the same `f32`): 1 at the goal, else the mean over its
    /// empty free cells of the odds with a 2 there (nine times in ten) or
    /// a 4, read in the layers above. A board no move ends on (no empty
    /// free cell) is worth 0: it is never read.
    #[inline]
    fn expect(&self, after: u64, l: u32, h: u32, up: &[Layer; 2]) -> f32 {
        if self.is_goal(after) {
            return 1.0;
        }
        // The empty free cells, then their digits, in the digits' order.
        let x = after | after >> 1;
        let filled = (x | x >> 2) & LOW_BITS;
        let mut cells = !filled & self.free_bits;
        let mut digits = 0u32;
        while cells != 0 {
            let c = cells.trailing_zeros() / 4;
            digits |= 1 << self.digit[c as usize];
            cells &= cells - 1;
        }
        let read = |layer: &Layer, l: u32, h: u32| {
            let at = layer.start[h as usize] + self.rank[l as usize];
            f32::from(layer.odds[at as usize]) / ONE
        };
        let (mut sum, mut empty) = (0f32, 0u32);
        while digits != 0 {
            let (dl, dh) = self.step[digits.trailing_zeros() as usize];
            let two = read(&up[0], l + dl, h + dh);
            let four = read(&up[1], l + 2 * dl, h + 2 * dh);
            sum += 0.9 * two + 0.1 * four;
            empty += 1;
            digits &= digits - 1;
        }
        if empty == 0 { 0.0 } else { sum / empty as f32 }
    }

    /// `buf` (a layer of sum `sum`, where each `h` begins at `start`) cut
    /// into the pieces of `per_piece` values of `h` each.
    fn pieces<'a, T>(&self, buf: &'a mut [T], start: &[u32], per_piece: usize) -> Vec<&'a mut [T]> {
        let size = buf.len();
        let mut pieces = Vec::with_capacity(self.highs.div_ceil(per_piece));
        let mut rest = buf;
        for h0 in (0..self.highs).step_by(per_piece) {
            let end = start.get(h0 + per_piece).map_or(size, |&s| s as usize);
            let (mine, after) = rest.split_at_mut(end - start[h0] as usize);
            rest = after;
            pieces.push(mine);
        }
        pieces
    }
}

/// The odds of the states of one sum, in the order they were solved, and
/// where each `h` begins among them.
#[derive(Default)]
struct Layer {
    start: Vec<u32>,
    odds: Vec<u16>,
}

/// What a move that ends on each state of one sum is worth (see
/// [`Split::expect`]), in the layer's order.
struct Expected<'a> {
    start: &'a [u32],
    odds: &'a [f32],
}

/// Every state's odds, quantised down to steps of 1/65535. They are
/// stored so as soon as they are solved, and the states that depend on
/// them read them so: the table holds two bytes per state while building
/// too (the corner block anchored at 1024 has over two billion states),
/// and its odds are the expectimax of the odds it stores.
///
/// Why down, not to the nearest step: near certainty, rounding to the
/// nearest hands a state the value of its successors back unchanged (an
/// average of values one step below 1 rounds to that step again), so
/// every move of a state far from its goal ties with every other, and the
/// advice is the tie-break's. Rounding down takes up to a step at every
/// sum on the way to the goal, so the odds fall with the distance still
/// to go, and of moves that are as safe the table prefers the one that
/// gets there sooner. The cost: odds at most one step per sum solved
/// below the exact ones (docs/endgame.md measures both).
pub(super) fn solve(g: &Geometry, progress: &(dyn Fn(u64) + Sync)) -> Box<[u16]> {
    let split = Split::new(g);
    let lows = split.lows;
    let mut odds = vec![0u16; g.formation.states() as usize];
    let top: u32 = g.bound.iter().map(|&b| tile(b)).sum();
    // The layers of the two sums above (2 more, 4 more).
    let mut up = [Layer::default(), Layer::default()];
    // The buffer of the layer before those, reused, and the expectations
    // of the layer being solved.
    let mut spare = Vec::new();
    let mut expected: Vec<f32> = Vec::new();
    // Enough pieces of each sum for a few threads to share evenly.
    let per_piece = split.highs.div_ceil(1024);
    let mut done = 0u64;
    for sum in (0..=top).rev().step_by(2) {
        let (start, size) = split.starts(sum);
        let highs = |i: usize| i * per_piece..((i + 1) * per_piece).min(split.highs);
        // First what a move that ends on each state of the sum is worth
        // (a move keeps the sum), then each state's best move.
        expected.clear();
        expected.resize(size, 0.0);
        let pieces = split.pieces(&mut expected, &start, per_piece);
        pieces.into_par_iter().enumerate().for_each(|(i, mine)| {
            let mut at = 0;
            split.each(sum, highs(i), |h, l, raw| {
                mine[at] = split.expect(raw, l, h, &up);
                at += 1;
            });
        });
        let expected = Expected { start: &start, odds: &expected };
        let mut layer = std::mem::take(&mut spare);
        layer.clear();
        layer.resize(size, 0);
        // Each piece writes its part of the layer and of the table (the
        // rows of its `h`).
        let pieces = split.pieces(&mut layer, &start, per_piece);
        let rows = odds.chunks_mut(per_piece * lows);
        pieces.into_par_iter().zip(rows.collect::<Vec<_>>()).enumerate().for_each(
            |(i, (mine, rows))| {
                let (h0, mut at) = (i * per_piece, 0);
                split.each(sum, highs(i), |h, l, raw| {
                    // Down to a step (`as` truncates and saturates: the
                    // odds are never negative).
                    let v = (split.state(raw, &expected) * ONE) as u16;
                    rows[(h as usize - h0) * lows + l as usize] = v;
                    mine[at] = v;
                    at += 1;
                });
            },
        );
        done += size as u64;
        let [two, four] = std::mem::take(&mut up);
        up = [Layer { start, odds: layer }, two];
        spare = four.odds;
        progress(done);
    }
    debug_assert_eq!(done, g.formation.states());
    odds.into_boxed_slice()
}

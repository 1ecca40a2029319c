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
//!
//! The `h` of a layer come in the order of their own tiles' sum (then of
//! `h`): all those of one high sum `t` take the same count of `l` (those of
//! sum `s - t`), so where an `h` begins is a formula, not a list
//! ([`LayerIndex`]). That lets a table too large for memory be written a
//! layer at a time as it is solved, in this order, and read back without
//! an index of its own ([`Out::Layered`]).

use std::io;
use std::ops::Range;

use game_core::Board;
use rayon::prelude::*;

use super::{Geometry, ONE};

/// The directions in the order a tie goes (up, left, right, down: towards
/// the formation's corner first, as `pick` breaks ties), as indices of
/// [`game_core::Direction::ALL`] (up, down, left, right).
const PREFERENCE: [usize; 4] = [0, 2, 3, 1];

/// A state's byte in a layered table: its best move (bits 6 and 7, an index
/// of [`game_core::Direction::ALL`]) and its odds in steps of 1/63 (bits 0
/// to 5), rounded down.
pub(super) const LAYERED_ONE: u32 = 63;

/// The byte of a state whose best move is `best` (an index of
/// [`game_core::Direction::ALL`]) at these odds (in steps of 1/65535).
#[inline]
fn layered_byte(best: u8, odds: u16) -> u8 {
    (best << 6) | (u32::from(odds) * LAYERED_ONE / ONE as u32) as u8
}

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
    /// For each `l`: its rank among the `l` of its sum, and that sum.
    rank: Vec<u32>,
    low_sum: Vec<u32>,
    /// The `h` in a layer's order: by their sum, then ascending.
    order: Vec<u32>,
    /// For each `h`: its rank among the `h` of its sum.
    high_rank: Vec<u32>,
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
        let mut order: Vec<u32> = (0..highs as u32).collect();
        order.sort_by_key(|&h| (high_sum[h as usize], h));
        let mut high_rank = vec![0u32; highs];
        for (i, &h) in order.iter().enumerate() {
            let prev = i.checked_sub(1).map(|p| order[p] as usize);
            high_rank[h as usize] = match prev {
                Some(p) if high_sum[p] == high_sum[h as usize] => high_rank[p] + 1,
                _ => 0,
            };
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
            low_sum,
            order,
            high_rank,
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

    /// Where each `h` begins in the layer of `sum` (in the layer's order:
    /// see the module docs), and the layer's size.
    fn starts(&self, sum: u32) -> (Vec<u32>, usize) {
        let mut at = 0usize;
        let mut start = vec![0u32; self.highs];
        for &h in &self.order {
            start[h as usize] = u32::try_from(at).expect("a layer of fewer than 2^32 states");
            if let Some(rest) = sum.checked_sub(self.high_sum[h as usize]) {
                at += self.lows_of(rest).len();
            }
        }
        (start, at)
    }

    #[inline]
    fn is_goal(&self, raw: u64) -> bool {
        self.goals.iter().any(|&(mask, tiles)| raw & mask == tiles)
    }

    /// Calls `f(h, l, board)` for each state of sum `sum` whose `h` has a
    /// place in `places` of the layer's order of `h`, in the layer's order.
    #[inline]
    fn each(&self, sum: u32, places: Range<usize>, mut f: impl FnMut(u32, u32, u64)) {
        for &h in &self.order[places] {
            let h = h as usize;
            let Some(rem) = sum.checked_sub(self.high_sum[h]) else { continue };
            let high = self.fixed_raw | self.high_raw[h];
            for &l in self.lows_of(rem) {
                f(h as u32, l, high | self.low_raw[l as usize]);
            }
        }
    }

    /// The odds of the canonical board `raw` and its best move (an index of
    /// [`game_core::Direction::ALL`], the first in [`PREFERENCE`] on a tie):
    /// 1 at the goal, else the best move's (0, and up, when every move
    /// breaks the formation), as [`Geometry::after_odds`] says: the
    /// expectation after each move, which is a state of the same sum, read
    /// in `expected`.
    #[inline]
    fn state(&self, raw: u64, expected: &Expected) -> (f32, u8) {
        if self.is_goal(raw) {
            return (1.0, 0);
        }
        let mut best = (0.0, 0);
        let afters = Board::from_raw(raw).slide_each_unscored();
        for d in PREFERENCE {
            let after = afters[d].raw();
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
            let v = expected.odds[at as usize];
            if v > best.0 {
                best = (v, d as u8);
            }
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
    /// into the pieces of `per_piece` places of the layer's order of `h`
    /// each.
    fn pieces<'a, T>(&self, buf: &'a mut [T], start: &[u32], per_piece: usize) -> Vec<&'a mut [T]> {
        let size = buf.len();
        let mut pieces = Vec::with_capacity(self.highs.div_ceil(per_piece));
        let mut rest = buf;
        let begin = |place: usize| start[self.order[place] as usize] as usize;
        for p0 in (0..self.highs).step_by(per_piece) {
            let end = if p0 + per_piece < self.highs { begin(p0 + per_piece) } else { size };
            let (mine, after) = rest.split_at_mut(end - begin(p0));
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
    let mut odds = vec![0u16; g.formation.states() as usize];
    solve_into(g, progress, Out::Dense(&mut odds)).expect("a table in memory writes no file");
    odds.into_boxed_slice()
}

/// Where [`solve_into`] puts each layer once solved.
pub(super) enum Out<'a> {
    /// Into every state's odds in the table's index order ([`solve`]).
    Dense(&'a mut [u16]),
    /// Each layer's bytes (see [`layered_byte`]), from the largest sum
    /// down, in the layer's order: a table too large for memory, written
    /// as it is solved and read by [`LayerIndex`]. A failed write ends the
    /// build.
    Layered(&'a mut dyn FnMut(&[u8]) -> io::Result<()>),
}

/// Solves every state, as [`solve`] says, putting each layer `out`.
pub(super) fn solve_into(
    g: &Geometry,
    progress: &(dyn Fn(u64) + Sync),
    mut out: Out<'_>,
) -> io::Result<()> {
    let split = Split::new(g);
    let lows = split.lows;
    let top: u32 = g.bound.iter().map(|&b| tile(b)).sum();
    // The layers of the two sums above (2 more, 4 more).
    let mut up = [Layer::default(), Layer::default()];
    // The buffer of the layer before those, reused, and the expectations
    // of the layer being solved.
    let mut spare = Vec::new();
    let mut expected: Vec<f32> = Vec::new();
    let mut bytes: Vec<u8> = Vec::new();
    // Enough pieces of each sum for a few threads to share evenly.
    let per_piece = split.highs.div_ceil(1024);
    let mut done = 0u64;
    for sum in (0..=top).rev().step_by(2) {
        let (start, size) = split.starts(sum);
        let places = |i: usize| i * per_piece..((i + 1) * per_piece).min(split.highs);
        // First what a move that ends on each state of the sum is worth
        // (a move keeps the sum), then each state's best move.
        expected.clear();
        expected.resize(size, 0.0);
        let pieces = split.pieces(&mut expected, &start, per_piece);
        pieces.into_par_iter().enumerate().for_each(|(i, mine)| {
            let mut at = 0;
            split.each(sum, places(i), |h, l, raw| {
                mine[at] = split.expect(raw, l, h, &up);
                at += 1;
            });
        });
        let expected = Expected { start: &start, odds: &expected };
        let mut layer = std::mem::take(&mut spare);
        layer.clear();
        layer.resize(size, 0);
        let layered = matches!(out, Out::Layered(_));
        bytes.clear();
        bytes.resize(if layered { size } else { 0 }, 0);
        let pieces = split.pieces(&mut layer, &start, per_piece);
        let byte_pieces = if layered {
            split.pieces(&mut bytes, &start, per_piece)
        } else {
            pieces.iter().map(|_| &mut [][..]).collect()
        };
        pieces.into_par_iter().zip(byte_pieces).enumerate().for_each(|(i, (mine, bytes))| {
            let mut at = 0;
            split.each(sum, places(i), |_, _, raw| {
                let (odds, best) = split.state(raw, &expected);
                // Down to a step (`as` truncates and saturates: the odds
                // are never negative).
                let v = (odds * ONE) as u16;
                mine[at] = v;
                if let Some(b) = bytes.get_mut(at) {
                    *b = layered_byte(best, v);
                }
                at += 1;
            });
        });
        match &mut out {
            // Each run of rows (of `h`) copies its states from the layer.
            Out::Dense(odds) => {
                odds.par_chunks_mut(per_piece * lows).enumerate().for_each(|(i, rows)| {
                    let h0 = i * per_piece;
                    for (r, row) in rows.chunks_mut(lows).enumerate() {
                        let h = h0 + r;
                        let Some(rest) = sum.checked_sub(split.high_sum[h]) else { continue };
                        let from = start[h] as usize;
                        for (k, &l) in split.lows_of(rest).iter().enumerate() {
                            row[l as usize] = layer[from + k];
                        }
                    }
                });
            }
            Out::Layered(write) => write(&bytes)?,
        }
        done += size as u64;
        let [two, four] = std::mem::take(&mut up);
        up = [Layer { start, odds: layer }, two];
        spare = four.odds;
        progress(done);
    }
    debug_assert_eq!(done, g.formation.states());
    Ok(())
}

/// Where each state of a layered table ([`Out::Layered`]) is in its file:
/// the layers from the largest sum down, each in its order (see the module
/// docs).
pub(super) struct LayerIndex {
    split: Split,
    /// For each sum `s` (at `s / 2`), where its layer begins.
    base: Vec<u64>,
    /// For each sum `s` and high sum `t` (at `s / 2 * highs_sums + t / 2`),
    /// where the `h` of sum `t` begin in the layer of `s`.
    offset: Vec<u64>,
    /// The count of high sums (`t / 2` below it).
    high_sums: usize,
}

impl LayerIndex {
    pub(super) fn new(g: &Geometry) -> LayerIndex {
        let split = Split::new(g);
        let top: u32 = g.bound.iter().map(|&b| tile(b)).sum();
        let sums = (top / 2 + 1) as usize;
        let high_sums = split.high_sum.iter().max().map_or(0, |&t| t / 2 + 1) as usize;
        let mut highs_of = vec![0u64; high_sums];
        for &t in &split.high_sum {
            highs_of[(t / 2) as usize] += 1;
        }
        let lows_of = |rest: u32| split.lows_of(rest).len() as u64;
        let mut offset = vec![0u64; sums * high_sums];
        let mut size = vec![0u64; sums];
        for s in 0..sums {
            let mut at = 0;
            for t in 0..high_sums.min(s + 1) {
                offset[s * high_sums + t] = at;
                at += highs_of[t] * lows_of(2 * (s - t) as u32);
            }
            size[s] = at;
        }
        // Written from the largest sum down.
        let mut base = vec![0u64; sums];
        let mut at = 0;
        for s in (0..sums).rev() {
            base[s] = at;
            at += size[s];
        }
        debug_assert_eq!(at, g.formation.states());
        LayerIndex { split, base, offset, high_sums }
    }

    /// Where the canonical board `raw`'s state is; `None` when a free tile
    /// is past its bound.
    #[inline]
    pub(super) fn place(&self, raw: u64) -> Option<u64> {
        let s = &self.split;
        let parts: u64 = (0..8).map(|b| s.bytes[b][usize::from((raw >> (8 * b)) as u8)]).sum();
        if parts >= OUTSIDE {
            return None;
        }
        let (l, h) = ((parts & 0xFF_FFFF) as usize, (parts >> 24) as usize);
        let t = s.high_sum[h];
        let sum = (s.low_sum[l] + t) / 2;
        let lows = s.lows_of(s.low_sum[l]).len() as u64;
        Some(
            self.base[sum as usize]
                + self.offset[sum as usize * self.high_sums + (t / 2) as usize]
                + u64::from(s.high_rank[h]) * lows
                + u64::from(s.rank[l]),
        )
    }
}

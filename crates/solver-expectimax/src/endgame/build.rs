//! The generator: every state's odds, bottom-up by the free tiles' sum.
//!
//! A move keeps the sum of the free cells' tiles (a merge adds two tiles
//! into one of their sum; the chain does not move) and the spawn adds 2 or
//! 4. So a state's odds depend only on states of a larger sum, and solving
//! the sums from the largest down meets every state after all it depends
//! on: no recursion, no memo, and the states of one sum are independent of
//! each other, so rayon's threads share them.

use game_core::Board;
use rayon::prelude::*;

use super::{Geometry, ONE};

#[inline]
fn tile(e: u8) -> u32 {
    if e == 0 { 0 } else { 1 << e }
}

/// The odds of the canonical board `raw`: 1 at the goal, else the best
/// move's (0 when every move breaks the formation: the chain is stuck).
#[inline]
pub(super) fn state_odds(g: &Geometry, raw: u64, odds: impl Fn(usize) -> f32 + Copy) -> f32 {
    if g.is_goal(raw) {
        return 1.0;
    }
    Board::from_raw(raw)
        .slide_each_unscored()
        .into_iter()
        .filter_map(|after| g.after_odds(raw, after.raw(), odds))
        .fold(0.0, f32::max)
}

/// Every state's odds, quantised down to steps of 1/65535. They are
/// stored so as soon as they are solved, and the states that depend on
/// them read them so: the table holds two bytes per state while building
/// too (the corner step building 128 has over a billion states), and its
/// odds are the expectimax of the odds it stores.
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
    let k = g.free.len();
    let mut odds = vec![0u16; g.formation.states() as usize];
    // below[j]: the largest sum of the digits below j.
    let below: Vec<u32> = std::iter::once(0)
        .chain(g.bound.iter().scan(0, |acc, &b| {
            *acc += tile(b);
            Some(*acc)
        }))
        .collect();
    // The work of one sum is split by the two highest digits: enough pieces
    // for a few threads to share evenly.
    let (hi, lo) = (k - 1, k - 2);
    let top: Vec<(u8, u8)> =
        (0..=g.bound[hi]).flat_map(|a| (0..=g.bound[lo]).map(move |b| (a, b))).collect();
    let mut done = 0u64;
    for sum in (0..=below[k]).rev().step_by(2) {
        let pieces: Vec<Vec<(u32, u16)>> = top
            .par_iter()
            .map(|&(a, b)| {
                let mut out = Vec::new();
                let used = tile(a) + tile(b);
                if used <= sum && sum - used <= below[lo] {
                    let idx = u32::from(a) * g.stride[hi] + u32::from(b) * g.stride[lo];
                    let raw = g.fixed_raw
                        | u64::from(a) << (4 * g.free[hi])
                        | u64::from(b) << (4 * g.free[lo]);
                    let odds = &odds;
                    let read = |i: usize| f32::from(odds[i]) / ONE;
                    walk(g, &below, lo, sum - used, idx, raw, &read, &mut out);
                }
                out
            })
            .collect();
        for piece in pieces {
            done += piece.len() as u64;
            for (i, v) in piece {
                odds[i as usize] = v;
            }
        }
        progress(done);
    }
    debug_assert_eq!(done, g.formation.states());
    odds.into_boxed_slice()
}

/// Solves the states whose digits below `j` sum (as tiles) to `rem`, the
/// digits from `j` up being those of `idx` and `raw`.
#[allow(clippy::too_many_arguments, reason = "one recursion's state, passed down as it is")]
fn walk(
    g: &Geometry,
    below: &[u32],
    j: usize,
    rem: u32,
    idx: u32,
    raw: u64,
    odds: &(impl Fn(usize) -> f32 + Sync + Copy),
    out: &mut Vec<(u32, u16)>,
) {
    if j == 0 {
        if rem == 0 {
            let v = state_odds(g, raw, *odds);
            out.push((idx, (v * ONE).floor().clamp(0.0, ONE) as u16));
        }
        return;
    }
    let cell = g.free[j - 1];
    for e in 0..=g.bound[j - 1] {
        let t = tile(e);
        if t > rem {
            break;
        }
        if rem - t > below[j - 1] {
            continue;
        }
        walk(
            g,
            below,
            j - 1,
            rem - t,
            idx + u32::from(e) * g.stride[j - 1],
            raw | u64::from(e) << (4 * cell),
            odds,
            out,
        );
    }
}

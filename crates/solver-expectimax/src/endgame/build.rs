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

/// Every state's odds, quantised to steps of 1/65535.
pub(super) fn solve(g: &Geometry, progress: &(dyn Fn(u64) + Sync)) -> Box<[u16]> {
    let goal = g.formation.goal;
    let k = g.free.len();
    let mut odds = vec![0f32; g.formation.states() as usize];
    // The work of one sum is split by the two highest digits: (goal + 1)^2
    // pieces, enough for a few threads to share evenly.
    let top: Vec<(u8, u8)> = (0..=goal).flat_map(|a| (0..=goal).map(move |b| (a, b))).collect();
    let mut done = 0u64;
    let max_sum = k as u32 * tile(goal);
    for sum in (0..=max_sum).rev().step_by(2) {
        let pieces: Vec<Vec<(u32, f32)>> = top
            .par_iter()
            .map(|&(a, b)| {
                let mut out = Vec::new();
                let used = tile(a) + tile(b);
                if used <= sum {
                    let idx = u32::from(a) * g.stride[k - 1] + u32::from(b) * g.stride[k - 2];
                    let raw = g.fixed_raw
                        | u64::from(a) << (4 * g.free[k - 1])
                        | u64::from(b) << (4 * g.free[k - 2]);
                    let odds = &odds;
                    walk(g, k - 2, sum - used, idx, raw, &|i| odds[i], &mut out);
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
    odds.into_iter().map(|v| (v * ONE).round().clamp(0.0, ONE) as u16).collect()
}

/// Solves the states whose digits below `j` sum (as tiles) to `rem`, the
/// digits from `j` up being those of `idx` and `raw`.
fn walk(
    g: &Geometry,
    j: usize,
    rem: u32,
    idx: u32,
    raw: u64,
    odds: &(impl Fn(usize) -> f32 + Sync + Copy),
    out: &mut Vec<(u32, f32)>,
) {
    if j == 0 {
        if rem == 0 {
            out.push((idx, state_odds(g, raw, *odds)));
        }
        return;
    }
    let goal = g.formation.goal;
    let below = (j as u32 - 1) * tile(goal);
    for e in 0..=goal {
        let t = tile(e);
        if t > rem {
            break;
        }
        if rem - t > below {
            continue;
        }
        let cell = g.free[j - 1];
        walk(
            g,
            j - 1,
            rem - t,
            idx + u32::from(e) * g.stride[j - 1],
            raw | u64::from(e) << (4 * cell),
            odds,
            out,
        );
    }
}

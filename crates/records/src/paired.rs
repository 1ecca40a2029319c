//! Two players on the same seeds: paired reach rates with an exact McNemar
//! test, paired scores with a sign test, and a sequential probability ratio
//! test that stops a comparison as soon as its answer is clear.
//!
//! ```
//! use game_core::Tile;
//! use records::Record;
//! use records::paired::{Reach, Sprt, Verdict, pairs};
//!
//! let game = |seed, max_tile| Record {
//!     seed, score: 0, max_tile: Tile::of(max_tile), moves: 0, millis: 0.0,
//!     median_decision_micros: None, p99_decision_micros: None,
//! };
//! let a = [game(1, 16384), game(2, 32768), game(3, 16384)];
//! let b = [game(1, 32768), game(2, 32768), game(3, 32768)];
//! let reach = Reach::of(&pairs(&a, &b), Tile::of(32768));
//! assert_eq!((reach.a, reach.b, reach.only_a, reach.only_b), (1, 3, 0, 2));
//! assert_eq!(reach.mcnemar_p(), 0.5);
//! let sprt = Sprt::new(0.0, 0.05, 0.05, 0.05)?;
//! assert_eq!(sprt.verdict(&pairs(&a, &b), Tile::of(32768)).0, Verdict::Continue);
//! # Ok::<(), records::paired::SprtError>(())
//! ```

use std::fmt;
use std::fmt::Write as _;

use game_core::Tile;

use crate::Record;

/// One seed's two games.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pair<'a> {
    /// The seed both games were played from.
    pub seed: u64,
    /// Player A's game.
    pub a: &'a Record,
    /// Player B's game.
    pub b: &'a Record,
}

/// The seeds both `a` and `b` played, in seed order, each with its two
/// games (a seed recorded twice on one side counts its first record).
pub fn pairs<'a>(a: &'a [Record], b: &'a [Record]) -> Vec<Pair<'a>> {
    let mut by_seed: std::collections::BTreeMap<u64, &Record> = std::collections::BTreeMap::new();
    for r in b.iter().rev() {
        by_seed.insert(r.seed, r);
    }
    let mut out: Vec<Pair<'a>> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for r in a {
        if let Some(&other) = by_seed.get(&r.seed)
            && seen.insert(r.seed)
        {
            out.push(Pair { seed: r.seed, a: r, b: other });
        }
    }
    out.sort_by_key(|p| p.seed);
    out
}

/// How often each player reached a tile over the same seeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reach {
    /// The tile.
    pub tile: Tile,
    /// Seeds played by both.
    pub games: usize,
    /// Seeds on which A reached it.
    pub a: usize,
    /// Seeds on which B reached it.
    pub b: usize,
    /// Seeds on which only A reached it.
    pub only_a: usize,
    /// Seeds on which only B reached it.
    pub only_b: usize,
}

impl Reach {
    /// The counts over `pairs`.
    pub fn of(pairs: &[Pair<'_>], tile: Tile) -> Reach {
        let mut r = Reach { tile, games: pairs.len(), a: 0, b: 0, only_a: 0, only_b: 0 };
        for p in pairs {
            let (a, b) = (p.a.max_tile >= tile, p.b.max_tile >= tile);
            r.a += usize::from(a);
            r.b += usize::from(b);
            r.only_a += usize::from(a && !b);
            r.only_b += usize::from(b && !a);
        }
        r
    }

    /// B's reach rate minus A's.
    pub fn difference(&self) -> f64 {
        (self.b as f64 - self.a as f64) / self.games.max(1) as f64
    }

    /// A 95% interval of [`Reach::difference`] (the normal approximation of
    /// a paired difference of proportions, from the discordant seeds), cut
    /// to the differences there can be (-1 to 1): near the ends the
    /// approximation alone would pass them.
    pub fn interval(&self) -> (f64, f64) {
        let n = self.games.max(1) as f64;
        let d = self.difference();
        let discordant = (self.only_a + self.only_b) as f64;
        let var = (discordant / n - d * d) / n;
        let half = 1.959_963_984_540_054 * var.max(0.0).sqrt();
        ((d - half).max(-1.0), (d + half).min(1.0))
    }

    /// The exact two-sided McNemar test: the probability, were both
    /// players equal, of discordant seeds split at least this unevenly.
    pub fn mcnemar_p(&self) -> f64 {
        binomial_two_sided(self.only_a.min(self.only_b), self.only_a + self.only_b)
    }
}

/// Twice the probability of at most `k` heads in `n` fair tosses, at most 1.
fn binomial_two_sided(k: usize, n: usize) -> f64 {
    if n == 0 {
        return 1.0;
    }
    let k = k.min(n - k);
    // ln m! for every m up to n, by summation: exact enough for any count a
    // tournament reaches, and linear in n.
    let mut ln_fact = vec![0f64; n + 1];
    for m in 2..=n {
        ln_fact[m] = ln_fact[m - 1] + (m as f64).ln();
    }
    let ln_half = n as f64 * std::f64::consts::LN_2;
    let tail: f64 =
        (0..=k).map(|i| (ln_fact[n] - ln_fact[i] - ln_fact[n - i] - ln_half).exp()).sum();
    (2.0 * tail).min(1.0)
}

/// The paired scores: on how many seeds B scored higher and lower, the
/// median of B's score minus A's, and the exact two-sided sign test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scores {
    /// Seeds on which B scored higher.
    pub higher: usize,
    /// Seeds on which B scored lower.
    pub lower: usize,
    /// The median of B's score minus A's over the seeds (the mean of the
    /// two middle ones for an even count).
    pub median_difference: f64,
}

impl Scores {
    /// The figures over `pairs`.
    pub fn of(pairs: &[Pair<'_>]) -> Scores {
        let mut diffs: Vec<i128> =
            pairs.iter().map(|p| i128::from(p.b.score) - i128::from(p.a.score)).collect();
        diffs.sort_unstable();
        let n = diffs.len();
        let median_difference =
            if n == 0 { 0.0 } else { (diffs[(n - 1) / 2] + diffs[n / 2]) as f64 / 2.0 };
        Scores {
            higher: diffs.iter().filter(|&&d| d > 0).count(),
            lower: diffs.iter().filter(|&&d| d < 0).count(),
            median_difference,
        }
    }

    /// The exact two-sided sign test over the seeds whose scores differ.
    pub fn sign_p(&self) -> f64 {
        binomial_two_sided(self.higher.min(self.lower), self.higher + self.lower)
    }
}

/// A sequential probability ratio test between two hypotheses on B's reach
/// rate minus A's: H0, the difference is `delta0`; H1, it is `delta1`.
///
/// Each seed gives +1 (only B reached the tile), -1 (only A) or 0. The log
/// likelihood ratio is the normal approximation the chess engines' testing
/// framework (fishtest) uses for such scores: `n (d1 - d0) (2 mean - d0 -
/// d1) / (2 var)`, with the sample mean and variance. The test stops when it
/// passes `ln((1 - beta) / alpha)` (H1 accepted: B is better by `delta1`,
/// with a false alarm rate `alpha`) or falls below `ln(beta / (1 - alpha))`
/// (H0 accepted, with a miss rate `beta`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sprt {
    delta0: f64,
    delta1: f64,
    alpha: f64,
    beta: f64,
}

/// What an SPRT says so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// H0 accepted.
    H0,
    /// H1 accepted.
    H1,
    /// Not yet clear: play on.
    Continue,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::H0 => "H0 accepted",
            Verdict::H1 => "H1 accepted",
            Verdict::Continue => "undecided",
        })
    }
}

/// Hypotheses or error rates an SPRT cannot take.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SprtError {
    /// The differences must lie in -1 to 1 and `delta1` above `delta0`.
    Deltas(f64, f64),
    /// Each error rate must lie strictly between 0 and 0.5.
    Rate(f64),
}

impl fmt::Display for SprtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SprtError::Deltas(d0, d1) => write!(
                f,
                "the SPRT needs -1 <= delta0 < delta1 <= 1 (differences of reach rates), \
                 not {d0} and {d1}"
            ),
            SprtError::Rate(r) => {
                write!(f, "an SPRT error rate lies strictly between 0 and 0.5, not {r}")
            }
        }
    }
}

impl std::error::Error for SprtError {}

impl Sprt {
    /// The test of H0: difference `delta0` against H1: difference `delta1`
    /// with error rates `alpha` (accepting H1 when H0 holds) and `beta`.
    ///
    /// # Errors
    /// [`SprtError`] for hypotheses or rates out of range.
    pub fn new(delta0: f64, delta1: f64, alpha: f64, beta: f64) -> Result<Sprt, SprtError> {
        if !(-1.0..=1.0).contains(&delta0) || !(-1.0..=1.0).contains(&delta1) || delta1 <= delta0 {
            return Err(SprtError::Deltas(delta0, delta1));
        }
        for r in [alpha, beta] {
            if !(r > 0.0 && r < 0.5) {
                return Err(SprtError::Rate(r));
            }
        }
        Ok(Sprt { delta0, delta1, alpha, beta })
    }

    /// The hypotheses' differences, H0's then H1's.
    pub fn deltas(&self) -> (f64, f64) {
        (self.delta0, self.delta1)
    }

    /// The error rates, alpha then beta.
    pub fn rates(&self) -> (f64, f64) {
        (self.alpha, self.beta)
    }

    /// The lower and upper bounds of the log likelihood ratio.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The log likelihood ratio of the seeds' outcomes for `tile` (0 for
    /// no seed).
    pub fn llr(&self, pairs: &[Pair<'_>], tile: Tile) -> f64 {
        let n = pairs.len() as f64;
        if pairs.is_empty() {
            return 0.0;
        }
        let x: Vec<f64> = pairs
            .iter()
            .map(|p| f64::from(i8::from(p.b.max_tile >= tile) - i8::from(p.a.max_tile >= tile)))
            .collect();
        let mean = x.iter().sum::<f64>() / n;
        // The variance with one pseudo-seed of each outcome (-1, 0, +1)
        // added: without it, a run whose every seed has the same outcome
        // has no variance and no verdict however long it runs.
        let var = (x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>()
            + [-1.0, 0.0, 1.0].iter().map(|v: &f64| (v - mean) * (v - mean)).sum::<f64>())
            / (n + 3.0);
        n * (self.delta1 - self.delta0) * (2.0 * mean - self.delta0 - self.delta1) / (2.0 * var)
    }

    /// The first prefix of `pairs` (in seed order) on which the test
    /// decides, as its length; `None` while it does not.
    pub fn stopping_point(&self, pairs: &[Pair<'_>], tile: Tile) -> Option<usize> {
        (1..=pairs.len()).find(|&k| self.verdict(&pairs[..k], tile).0 != Verdict::Continue)
    }

    /// The verdict over `pairs` and the ratio it rests on.
    pub fn verdict(&self, pairs: &[Pair<'_>], tile: Tile) -> (Verdict, f64) {
        let llr = self.llr(pairs, tile);
        let (low, high) = self.bounds();
        let verdict = if llr >= high {
            Verdict::H1
        } else if llr <= low {
            Verdict::H0
        } else {
            Verdict::Continue
        };
        (verdict, llr)
    }
}

/// The two players of a comparison as its report names them, the first
/// seed and the tile it is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Comparison<'a> {
    /// How player A was chosen (its options), empty for the defaults.
    pub a: &'a str,
    /// How player B was chosen.
    pub b: &'a str,
    /// The first seed of the run.
    pub first_seed: u64,
    /// The tile whose reach rate the McNemar test and the SPRT judge.
    pub tile: Tile,
}

impl Comparison<'_> {
    /// The report of a comparison over `done` (its in-order seeds): the
    /// players, each one's reach rates from a little below the tile up to
    /// the largest tile either made, the paired figures of the tile and of
    /// the scores, and the SPRT's verdict. The text `lab compare` and
    /// py2048's `compare` print.
    pub fn report(&self, done: &[Pair<'_>], sprt: Option<&Sprt>) -> String {
        let mut s = String::new();
        let last = done.last().map_or(self.first_seed, |p| p.seed);
        let name = |text: &str| {
            if text.trim().is_empty() { "(defaults)".to_owned() } else { text.trim().to_owned() }
        };
        let _ = writeln!(s, "A: {}", name(self.a));
        let _ = writeln!(s, "B: {}", name(self.b));
        let _ = writeln!(s, "seeds {} to {last}: {} paired games", self.first_seed, done.len());
        let _ = writeln!(s, "{:>8} {:>7} {:>7}", "reached", "A", "B");
        let largest = done.iter().map(|p| p.a.max_tile.max(p.b.max_tile)).max();
        let high = largest.map_or(self.tile, |l| l.max(self.tile));
        let low = self.tile.exponent().saturating_sub(2).clamp(2, 11);
        let tiles = (low..=high.exponent()).filter_map(Tile::from_exponent);
        for tile in tiles {
            let r = Reach::of(done, tile);
            let rate = |k: usize| 100.0 * k as f64 / done.len().max(1) as f64;
            let _ = writeln!(s, "{tile:>8} {:>6.1}% {:>6.1}%", rate(r.a), rate(r.b));
        }
        let r = Reach::of(done, self.tile);
        let (lo, hi) = r.interval();
        let _ = writeln!(
            s,
            "{}: B - A = {:+.1} points (95% interval {:+.1} to {:+.1}); only A {}, only B {}; \
             exact McNemar p = {:.4}",
            self.tile,
            100.0 * r.difference(),
            100.0 * lo,
            100.0 * hi,
            r.only_a,
            r.only_b,
            r.mcnemar_p()
        );
        let sc = Scores::of(done);
        let _ = writeln!(
            s,
            "score: B higher on {} seeds, lower on {}; median difference {:+}; sign test p = {:.4}",
            sc.higher,
            sc.lower,
            sc.median_difference,
            sc.sign_p()
        );
        if let Some(t) = sprt {
            let (verdict, llr) = t.verdict(done, self.tile);
            let (d0, d1) = t.deltas();
            let (alpha, beta) = t.rates();
            let (low, high) = t.bounds();
            let _ = writeln!(
                s,
                "SPRT H0: B - A = {:+.1} points, H1: {:+.1} points (alpha {alpha}, beta {beta}): \
                 {verdict} after {} seeds (LLR {llr:.2}, bounds {low:.2} and {high:.2})",
                100.0 * d0,
                100.0 * d1,
                done.len()
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(seed: u64, max_tile: u32, score: u64) -> Record {
        Record {
            seed,
            score,
            max_tile: Tile::of(max_tile),
            moves: 0,
            millis: 0.0,
            median_decision_micros: None,
            p99_decision_micros: None,
        }
    }

    #[test]
    fn the_binomial_test_matches_known_values() {
        // Two-sided exact binomial p-values (R: binom.test(k, n)$p.value).
        assert_eq!(binomial_two_sided(0, 0), 1.0);
        assert!((binomial_two_sided(0, 5) - 0.0625).abs() < 1e-12);
        assert!((binomial_two_sided(7, 19) - 0.359_283_4).abs() < 1e-6);
        assert!((binomial_two_sided(34, 72) - 0.723_948_1).abs() < 1e-6);
        assert!((binomial_two_sided(5, 10) - 1.0).abs() < 1e-12);
        assert!(binomial_two_sided(100, 1000) < 1e-100);
    }

    #[test]
    fn pairs_match_seeds_and_ignore_the_unpaired() {
        let a = [game(3, 8, 30), game(1, 8, 10), game(2, 8, 20)];
        let b = [game(2, 16, 25), game(1, 4, 5), game(9, 4, 0)];
        let p = pairs(&a, &b);
        assert_eq!(p.iter().map(|p| p.seed).collect::<Vec<_>>(), [1, 2]);
        let reach = Reach::of(&p, Tile::of(16));
        assert_eq!(reach, Reach { tile: Tile::of(16), games: 2, a: 0, b: 1, only_a: 0, only_b: 1 });
        let scores = Scores::of(&p);
        assert_eq!((scores.higher, scores.lower, scores.median_difference), (1, 1, 0.0));
    }

    #[test]
    fn the_interval_holds_the_difference_and_shrinks_with_games() {
        let a: Vec<Record> =
            (0..100).map(|s| game(s, if s % 10 == 0 { 32 } else { 16 }, 0)).collect();
        let b: Vec<Record> =
            (0..100).map(|s| game(s, if s % 5 == 0 { 32 } else { 16 }, 0)).collect();
        let reach = Reach::of(&pairs(&a, &b), Tile::of(32));
        assert_eq!((reach.a, reach.b, reach.only_b), (10, 20, 10));
        let (lo, hi) = reach.interval();
        assert!((reach.difference() - 0.1).abs() < 1e-12 && lo < 0.1 && hi > 0.1);
        // 10 discordant of 100: d = 0.1, var = (0.1 - 0.01) / 100.
        assert!((hi - lo - 2.0 * 1.959_963_984_540_054 * 0.0009f64.sqrt()).abs() < 1e-9);
        // 12 of 14 seeds only B's: the approximation alone gives +67 to +104
        // points, a difference no two players can have.
        let a: Vec<Record> = (0..14).map(|s| game(s, 8, 0)).collect();
        let b: Vec<Record> = (0..14).map(|s| game(s, if s < 12 { 16 } else { 8 }, 0)).collect();
        let (lo, hi) = Reach::of(&pairs(&a, &b), Tile::of(16)).interval();
        assert!((lo - 0.674).abs() < 1e-3 && hi == 1.0, "{lo} {hi}");
    }

    #[test]
    fn the_sprt_accepts_a_clear_gain_and_a_clear_tie() {
        let sprt = Sprt::new(0.0, 0.1, 0.05, 0.05).unwrap();
        let (low, high) = sprt.bounds();
        assert!((high - 19f64.ln()).abs() < 1e-12 && (low + 19f64.ln()).abs() < 1e-12);
        // B reaches the tile on every fourth seed where A never does.
        let a: Vec<Record> = (0..400).map(|s| game(s, 16, 0)).collect();
        let b: Vec<Record> =
            (0..400).map(|s| game(s, if s % 4 == 0 { 32 } else { 16 }, 0)).collect();
        let p = pairs(&a, &b);
        assert_eq!(sprt.verdict(&p, Tile::of(32)).0, Verdict::H1);
        assert_eq!(sprt.verdict(&p[..8], Tile::of(32)).0, Verdict::Continue);
        // Equal players with discordant seeds both ways: H0.
        let c: Vec<Record> =
            (0..400).map(|s| game(s, if s % 4 == 1 { 32 } else { 16 }, 0)).collect();
        let b2: Vec<Record> =
            (0..400).map(|s| game(s, if s % 4 == 0 { 32 } else { 16 }, 0)).collect();
        assert_eq!(sprt.verdict(&pairs(&c, &b2), Tile::of(32)).0, Verdict::H0);
        // No discordant seed: evidence for H0 (no difference), not for H1.
        assert!(sprt.llr(&pairs(&a, &a), Tile::of(32)) < 0.0);
        assert_eq!(sprt.llr(&[], Tile::of(32)), 0.0);
        // Every seed the same way still decides, and the stopping point is
        // the first prefix that does.
        let all: Vec<Record> = (0..400).map(|s| game(s, 32, 0)).collect();
        let p = pairs(&a, &all);
        let k = sprt.stopping_point(&p, Tile::of(32)).expect("a clear gain decides");
        assert!(k < 20, "{k}");
        assert_eq!(sprt.verdict(&p[..k], Tile::of(32)).0, Verdict::H1);
        assert_eq!(sprt.verdict(&p[..k - 1], Tile::of(32)).0, Verdict::Continue);
    }

    #[test]
    fn the_report_names_the_players_rates_tests_and_verdict() {
        let a: Vec<Record> = (1..=4).map(|s| game(s, if s == 1 { 32 } else { 16 }, 10)).collect();
        let b: Vec<Record> = (1..=4).map(|s| game(s, 32, 20)).collect();
        let sprt = Sprt::new(0.0, 0.5, 0.05, 0.05).unwrap();
        let c = Comparison { a: " ", b: "--preset fast", first_seed: 1, tile: Tile::of(32) };
        let report = c.report(&pairs(&a, &b), Some(&sprt));
        let lines: Vec<&str> = report.lines().collect();
        assert_eq!(
            lines[..4],
            [
                "A: (defaults)",
                "B: --preset fast",
                "seeds 1 to 4: 4 paired games",
                " reached       A       B"
            ]
        );
        assert_eq!(
            lines[4..7],
            ["       8  100.0%  100.0%", "      16  100.0%  100.0%", "      32   25.0%  100.0%"]
        );
        assert!(lines[7].starts_with("32: B - A = +75.0 points (95% interval "), "{}", lines[7]);
        assert!(lines[7].ends_with("only A 0, only B 3; exact McNemar p = 0.2500"), "{}", lines[7]);
        assert_eq!(
            lines[8],
            "score: B higher on 4 seeds, lower on 0; median difference +10; sign test p = 0.1250"
        );
        assert!(lines[9].starts_with(
            "SPRT H0: B - A = +0.0 points, H1: +50.0 points (alpha 0.05, beta 0.05): "
        ));
        assert_eq!(lines.len(), 10);
    }

    #[test]
    fn bad_hypotheses_and_rates_are_refused() {
        assert_eq!(Sprt::new(0.05, 0.0, 0.05, 0.05), Err(SprtError::Deltas(0.05, 0.0)));
        assert_eq!(Sprt::new(0.0, 2.0, 0.05, 0.05), Err(SprtError::Deltas(0.0, 2.0)));
        assert_eq!(Sprt::new(0.0, 0.1, 0.0, 0.05), Err(SprtError::Rate(0.0)));
        assert_eq!(Sprt::new(0.0, 0.1, 0.05, 0.7), Err(SprtError::Rate(0.7)));
        assert!(Sprt::new(0.0, 0.1, f64::NAN, 0.05).is_err());
    }
}

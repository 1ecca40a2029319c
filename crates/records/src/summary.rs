//! What a set of games amounted to: reach rates, score statistics and
//! speed, computed here once for every report (`lab tournament` and
//! `tune`, `cargo xtask results`).
//!
//! ```
//! use game_core::Tile;
//! use records::Record;
//! use records::summary::Summary;
//!
//! let game = |score, max_tile| Record {
//!     seed: 0, score, max_tile: Tile::of(max_tile), moves: 100, millis: 50.0,
//!     median_decision_micros: None, p99_decision_micros: None,
//! };
//! let s = Summary::of(&[game(1000, 128), game(30000, 2048), game(60000, 4096), game(20000, 1024)]);
//! assert_eq!(s.reach_rate(Tile::WIN), 0.5);
//! assert_eq!(s.median_score, 25000.0); // the mean of the two middle scores
//! assert_eq!(s.percentiles.median, 20000); // the nearest rank: the lower one
//! assert_eq!(s.moves_per_second(), Some(2000.0));
//! ```

use game_core::Tile;

use crate::Record;

/// The tiles a tournament's summary lists, up to 131072, the largest tile a
/// 4x4 game can reach.
pub const MILESTONES: [Tile; 7] = [
    Tile::of(2048),
    Tile::of(4096),
    Tile::of(8192),
    Tile::of(16384),
    Tile::of(32768),
    Tile::of(65536),
    Tile::of(131072),
];

/// The largest exponent whose reach is counted: tiles up to 2^31.
const EXPONENTS: usize = 32;

/// Percentiles of the scores, nearest rank (the smallest score with at
/// least that share of the games at or below it; 0 for no games).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Percentiles {
    /// The lowest.
    pub min: u64,
    /// 10%.
    pub p10: u64,
    /// 25%.
    pub p25: u64,
    /// 50%: for an even count the lower middle score (see
    /// [`Summary::median_score`]).
    pub median: u64,
    /// 75%.
    pub p75: u64,
    /// 90%.
    pub p90: u64,
    /// The highest.
    pub max: u64,
}

/// Summary statistics of a set of games (all zero for none).
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Games.
    pub games: usize,
    /// Mean score.
    pub mean_score: f64,
    /// The median score: the middle one, or the mean of the two middle ones
    /// of an even count.
    pub median_score: f64,
    /// Score percentiles, nearest rank.
    pub percentiles: Percentiles,
    /// Moves played in all.
    pub moves: u64,
    /// The games' own wall-clock time in all, in milliseconds (games played
    /// at once add up).
    pub millis: f64,
    /// The smallest and largest of the games' median times per move, in
    /// microseconds, when every game has one.
    pub decision_median_range: Option<(u64, u64)>,
    /// Games whose largest tile was at least 2^k, by k.
    reached: [usize; EXPONENTS],
}

impl Summary {
    /// Summarises `records`.
    pub fn of(records: &[Record]) -> Summary {
        let mut scores: Vec<u64> = records.iter().map(|r| r.score).collect();
        scores.sort_unstable();
        let n = scores.len();
        let rank = |pct: usize| if n == 0 { 0 } else { percentile(&scores, pct) };
        let median_score = if n == 0 { 0.0 } else { median(&scores) };
        let mut reached = [0; EXPONENTS];
        for r in records {
            // A tile of 2^k counts for every 2^j with j <= k.
            let top = usize::from(r.max_tile.exponent()).min(EXPONENTS - 1);
            for count in &mut reached[..=top] {
                *count += 1;
            }
        }
        let medians: Option<Vec<u64>> = records.iter().map(|r| r.median_decision_micros).collect();
        let decision_median_range = medians
            .filter(|m| !m.is_empty())
            .map(|m| (*m.iter().min().expect("not empty"), *m.iter().max().expect("not empty")));
        Summary {
            games: n,
            mean_score: if n == 0 { 0.0 } else { scores.iter().sum::<u64>() as f64 / n as f64 },
            median_score,
            percentiles: Percentiles {
                min: scores.first().copied().unwrap_or(0),
                p10: rank(10),
                p25: rank(25),
                median: rank(50),
                p75: rank(75),
                p90: rank(90),
                max: scores.last().copied().unwrap_or(0),
            },
            moves: records.iter().map(|r| r.moves).sum(),
            millis: records.iter().map(|r| r.millis).sum(),
            decision_median_range,
            reached,
        }
    }

    /// How many games reached `tile`.
    pub fn reached(&self, tile: Tile) -> usize {
        self.reached.get(usize::from(tile.exponent())).copied().unwrap_or(0)
    }

    /// The share of games that reached `tile`, from 0 to 1 (0 for no games).
    pub fn reach_rate(&self, tile: Tile) -> f64 {
        if self.games == 0 { 0.0 } else { self.reached(tile) as f64 / self.games as f64 }
    }

    /// Moves per second of the games' own time, `None` without any time.
    pub fn moves_per_second(&self) -> Option<f64> {
        (self.millis > 0.0).then(|| self.moves as f64 * 1000.0 / self.millis)
    }

    /// Mean wall-clock milliseconds per move, `None` without any move.
    pub fn millis_per_move(&self) -> Option<f64> {
        (self.moves > 0).then(|| self.millis / self.moves as f64)
    }
}

/// The median of sorted, non-empty data: the middle value, or the mean of
/// the two middle values of an even count.
///
/// # Panics
/// On empty data.
pub fn median(sorted: &[u64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2] as f64
    } else {
        (sorted[n / 2 - 1] as f64 + sorted[n / 2] as f64) / 2.0
    }
}

/// The nearest-rank percentile of sorted, non-empty data: the smallest value
/// with at least `pct`% of the data at or below it.
///
/// # Panics
/// On empty data.
pub fn percentile(sorted: &[u64], pct: usize) -> u64 {
    let n = sorted.len();
    sorted[(pct * n).div_ceil(100).clamp(1, n) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(score: u64, max_tile: u32, micros: Option<u64>) -> Record {
        Record {
            seed: 0,
            score,
            max_tile: Tile::of(max_tile),
            moves: 100,
            millis: 50.0,
            median_decision_micros: micros,
            p99_decision_micros: None,
        }
    }

    #[test]
    fn percentiles_use_the_nearest_rank_and_the_median_the_middle() {
        let games: Vec<Record> = (1..=10).map(|s| game(s, 2, None)).collect();
        let s = Summary::of(&games);
        let p = s.percentiles;
        assert_eq!((p.min, p.p10, p.p25, p.median, p.p75, p.p90, p.max), (1, 1, 3, 5, 8, 9, 10));
        assert_eq!(s.median_score, 5.5);
        assert_eq!(Summary::of(&games[..9]).median_score, 5.0);
        assert_eq!(Summary::of(&[game(7, 2, None)]).percentiles.p25, 7);
    }

    #[test]
    fn reach_counts_every_smaller_tile_too() {
        let s = Summary::of(&[game(0, 128, None), game(0, 2048, None), game(0, 131072, None)]);
        assert_eq!(
            (s.reached(Tile::of(128)), s.reached(Tile::of(2048)), s.reached(Tile::of(4096))),
            (3, 2, 1)
        );
        assert_eq!((s.reached(Tile::of(131072)), s.reached(Tile::of(262144))), (1, 0));
        assert!((s.reach_rate(Tile::of(2048)) - 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn speed_and_decision_times() {
        let s = Summary::of(&[game(1, 2, Some(2500)), game(1, 2, Some(900))]);
        assert_eq!(s.decision_median_range, Some((900, 2500)));
        assert_eq!(s.millis_per_move(), Some(0.5));
        assert_eq!(s.moves_per_second(), Some(2000.0));
        assert_eq!(
            Summary::of(&[game(1, 2, Some(1)), game(1, 2, None)]).decision_median_range,
            None
        );
    }

    #[test]
    fn no_games_give_zeros() {
        let s = Summary::of(&[]);
        assert_eq!(
            (s.games, s.mean_score, s.median_score, s.reach_rate(Tile::of(2))),
            (0, 0.0, 0.0, 0.0)
        );
        assert_eq!(
            (s.moves_per_second(), s.millis_per_move(), s.decision_median_range),
            (None, None, None)
        );
    }
}

//! The statistics `docs/results.md` reports of a set of tournament records
//! (read and written by the `records` crate, the one home of the format).

use records::Record;

/// The tiles whose reach rate the results report: up to 131072, the largest
/// tile a 4x4 board can hold (docs/rules.md).
pub(crate) const REACH_TILES: [u64; 10] =
    [256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072];

/// What a tournament amounted to.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Summary {
    pub(crate) games: usize,
    pub(crate) mean_score: f64,
    /// Score percentiles: 10th, 25th, 50th, 75th, 90th, and the maximum.
    pub(crate) p10: u64,
    pub(crate) p25: u64,
    pub(crate) median: u64,
    pub(crate) p75: u64,
    pub(crate) p90: u64,
    pub(crate) max: u64,
    /// For each of [`REACH_TILES`], the fraction of games whose largest tile
    /// was at least that tile.
    pub(crate) reach: [f64; REACH_TILES.len()],
    /// Moves over all games, and the wall-clock milliseconds they took.
    pub(crate) total_moves: u64,
    pub(crate) total_millis: f64,
    /// The smallest and largest per-game median time per decision, in
    /// milliseconds, when every record has one.
    pub(crate) median_decision_millis: Option<(f64, f64)>,
}

impl Summary {
    /// `None` for an empty tournament.
    pub(crate) fn of(records: &[Record]) -> Option<Summary> {
        if records.is_empty() {
            return None;
        }
        let mut scores: Vec<u64> = records.iter().map(|r| r.score).collect();
        scores.sort_unstable();
        let n = records.len();
        let mut reach = [0.0; REACH_TILES.len()];
        for (rate, tile) in reach.iter_mut().zip(REACH_TILES) {
            *rate =
                records.iter().filter(|r| u64::from(r.max_tile) >= tile).count() as f64 / n as f64;
        }
        Some(Summary {
            games: n,
            mean_score: scores.iter().sum::<u64>() as f64 / n as f64,
            p10: percentile(&scores, 10),
            p25: percentile(&scores, 25),
            median: percentile(&scores, 50),
            p75: percentile(&scores, 75),
            p90: percentile(&scores, 90),
            max: scores[n - 1],
            reach,
            total_moves: records.iter().map(|r| r.moves).sum(),
            total_millis: records.iter().map(|r| r.millis).sum(),
            median_decision_millis: median_range(records),
        })
    }

    /// Mean wall-clock time per move, in milliseconds.
    pub(crate) fn millis_per_move(&self) -> Option<f64> {
        (self.total_moves > 0).then(|| self.total_millis / self.total_moves as f64)
    }

    /// Moves per second of wall-clock game time.
    pub(crate) fn moves_per_second(&self) -> Option<f64> {
        (self.total_millis > 0.0).then(|| self.total_moves as f64 * 1000.0 / self.total_millis)
    }
}

/// See [`Summary::median_decision_millis`]; `records` is not empty.
fn median_range(records: &[Record]) -> Option<(f64, f64)> {
    let medians: Vec<f64> = records
        .iter()
        .map(|r| r.median_decision_micros.map(|us| us as f64 / 1000.0))
        .collect::<Option<_>>()?;
    let low = medians.iter().copied().fold(f64::INFINITY, f64::min);
    let high = medians.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some((low, high))
}

/// The nearest-rank percentile of sorted, non-empty data: the smallest value
/// with at least `pct`% of the data at or below it.
pub(crate) fn percentile(sorted: &[u64], pct: u32) -> u64 {
    let n = sorted.len();
    let rank = (pct as usize * n).div_ceil(100).clamp(1, n);
    sorted[rank - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let data: Vec<u64> = (1..=10).collect();
        assert_eq!(percentile(&data, 10), 1);
        assert_eq!(percentile(&data, 50), 5);
        assert_eq!(percentile(&data, 90), 9);
        assert_eq!(percentile(&data, 100), 10);
        assert_eq!(percentile(&[7], 25), 7);
    }

    #[test]
    fn summarises_scores_reach_and_speed() {
        let game = |score, max_tile| Record {
            seed: 0,
            score,
            max_tile,
            moves: 100,
            millis: 50.0,
            median_decision_micros: None,
            p99_decision_micros: None,
        };
        let records = [game(1000, 128), game(30000, 2048), game(60000, 4096), game(20000, 1024)];
        let summary = Summary::of(&records).unwrap();
        assert_eq!(summary.games, 4);
        // Not every record has a median time per decision, so there is no range.
        assert_eq!(summary.median_decision_millis, None);
        let timed = |micros| Record { median_decision_micros: Some(micros), ..game(1, 2) };
        let timed = Summary::of(&[timed(2500), timed(900), timed(1200)]).unwrap();
        assert_eq!(timed.median_decision_millis, Some((0.9, 2.5)));
        assert_eq!(summary.mean_score, 27750.0);
        assert_eq!(
            (summary.p10, summary.median, summary.p90, summary.max),
            (1000, 20000, 60000, 60000)
        );
        assert_eq!(summary.reach[..5], [0.75, 0.75, 0.75, 0.5, 0.25]);
        assert_eq!(summary.millis_per_move(), Some(0.5));
        assert_eq!(summary.moves_per_second(), Some(2000.0));
        assert_eq!(Summary::of(&[]), None);
    }
}

//! The statistics `docs/results.md` reports of a set of tournament records
//! (read and written by the `records` crate, the one home of the format).

use records::Record;
use records::summary::Summary;

/// The tiles whose reach rate the results report: up to 131072, the largest
/// tile a 4x4 board can hold (docs/rules.md).
pub(crate) const REACH_TILES: [u32; 10] =
    [256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072];

/// The summary of a tournament's records (the records crate's, the one
/// home of these statistics); `None` for no games.
pub(crate) fn of(records: &[Record]) -> Option<Summary> {
    (!records.is_empty()).then(|| Summary::of(records))
}

/// The reach rate of each of [`REACH_TILES`], in order.
pub(crate) fn reach_rates(s: &Summary) -> impl Iterator<Item = f64> + '_ {
    REACH_TILES.iter().map(|&tile| s.reach_rate(tile))
}

/// The smallest and largest per-game median time per decision, in
/// milliseconds, when every record has one.
pub(crate) fn median_decision_millis(s: &Summary) -> Option<(f64, f64)> {
    s.decision_median_range.map(|(low, high)| (low as f64 / 1000.0, high as f64 / 1000.0))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let summary = of(&records).unwrap();
        assert_eq!(summary.games, 4);
        // Not every record has a median time per decision, so there is no range.
        assert_eq!(median_decision_millis(&summary), None);
        let timed = |micros| Record { median_decision_micros: Some(micros), ..game(1, 2) };
        let timed = of(&[timed(2500), timed(900), timed(1200)]).unwrap();
        assert_eq!(median_decision_millis(&timed), Some((0.9, 2.5)));
        assert_eq!(summary.mean_score, 27750.0);
        assert_eq!(summary.median_score, 25000.0);
        let p = summary.percentiles;
        assert_eq!((p.p10, p.p90, p.max), (1000, 60000, 60000));
        assert_eq!(
            reach_rates(&summary).take(5).collect::<Vec<_>>(),
            [0.75, 0.75, 0.75, 0.5, 0.25]
        );
        assert_eq!(summary.millis_per_move(), Some(0.5));
        assert_eq!(summary.moves_per_second(), Some(2000.0));
        assert_eq!(of(&[]), None);
    }
}

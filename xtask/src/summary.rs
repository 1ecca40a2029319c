//! The statistics `docs/results.md` reports of a set of tournament records
//! (read and written by the `records` crate, the one home of the format).

use records::Record;
use records::summary::Summary;

/// The summary of a tournament's records (the records crate's, the one
/// home of these statistics); `None` for no games.
pub(crate) fn of(records: &[Record]) -> Option<Summary> {
    (!records.is_empty()).then(|| Summary::of(records))
}

#[cfg(test)]
mod tests {
    use super::*;
    use game_core::Tile;

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
        let records = [
            game(1000, Tile::of(128)),
            game(30000, Tile::of(2048)),
            game(60000, Tile::of(4096)),
            game(20000, Tile::of(1024)),
        ];
        let summary = of(&records).unwrap();
        assert_eq!(summary.games, 4);
        assert_eq!(summary.mean_score, 27750.0);
        assert_eq!(summary.median_score, 25000.0);
        let p = summary.percentiles;
        assert_eq!((p.p10, p.p90, p.max), (1000, 60000, 60000));
        let reach: Vec<f64> =
            [256, 512, 1024, 2048, 4096].map(|t| summary.reach_rate(Tile::of(t))).to_vec();
        assert_eq!(reach, [0.75, 0.75, 0.75, 0.5, 0.25]);
        assert_eq!(summary.millis_per_move(), Some(0.5));
        assert_eq!(summary.moves_per_second(), Some(2000.0));
        assert_eq!(of(&[]), None);
    }
}

//! Per-game tournament records, as `cli-ascii tournament --csv FILE` writes
//! them, and the summary statistics `docs/results.md` reports.
//!
//! The format is a header line naming at least `seed,score,max_tile,moves,millis`
//! (in any order; an optional `median_decision_micros`, as the solver's
//! tournament example writes, is read too; other columns are ignored), then
//! one line per game.

use std::fmt;

/// One finished game.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct GameRecord {
    pub(crate) seed: u64,
    pub(crate) score: u64,
    pub(crate) max_tile: u64,
    pub(crate) moves: u64,
    /// Wall-clock time of the whole game, in milliseconds (fractions allowed).
    pub(crate) millis: f64,
    /// The game's median time per decision in microseconds, when recorded.
    pub(crate) median_decision_micros: Option<f64>,
}

/// Why a records file could not be read: the 1-based line and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CsvError {
    line: usize,
    message: String,
}

impl fmt::Display for CsvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for CsvError {}

const COLUMNS: [&str; 5] = ["seed", "score", "max_tile", "moves", "millis"];
const MEDIAN_COLUMN: &str = "median_decision_micros";

/// Parses a records file. Blank lines are skipped; fields are trimmed.
pub(crate) fn parse_csv(text: &str) -> Result<Vec<GameRecord>, CsvError> {
    let mut lines = text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty());
    let Some((header_idx, header)) = lines.next() else {
        return Err(CsvError { line: 1, message: "empty file: expected a header line".to_owned() });
    };
    let names: Vec<&str> = header.split(',').map(str::trim).collect();
    let mut positions = [0usize; COLUMNS.len()];
    for (slot, column) in positions.iter_mut().zip(COLUMNS) {
        *slot = names.iter().position(|name| *name == column).ok_or_else(|| CsvError {
            line: header_idx + 1,
            message: format!(
                "the header has no `{column}` column (expected {})",
                COLUMNS.join(",")
            ),
        })?;
    }
    let median_position = names.iter().position(|name| *name == MEDIAN_COLUMN);
    let mut records = Vec::new();
    for (line_idx, line) in lines {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() != names.len() {
            return Err(CsvError {
                line: line_idx + 1,
                message: format!("{} fields, but the header has {}", fields.len(), names.len()),
            });
        }
        let int = |column_idx: usize| -> Result<u64, CsvError> {
            let field = fields[positions[column_idx]];
            field.parse().map_err(|_| CsvError {
                line: line_idx + 1,
                message: format!("`{}` is not a whole number: `{field}`", COLUMNS[column_idx]),
            })
        };
        let duration = |idx: usize, column: &str| -> Result<f64, CsvError> {
            let field = fields[idx];
            let value = field.parse::<f64>().ok().filter(|m| m.is_finite() && *m >= 0.0);
            value.ok_or_else(|| CsvError {
                line: line_idx + 1,
                message: format!("`{column}` is not a duration: `{field}`"),
            })
        };
        let millis = duration(positions[4], "millis")?;
        let median_decision_micros =
            median_position.map(|idx| duration(idx, MEDIAN_COLUMN)).transpose()?;
        records.push(GameRecord {
            seed: int(0)?,
            score: int(1)?,
            max_tile: int(2)?,
            moves: int(3)?,
            millis,
            median_decision_micros,
        });
    }
    Ok(records)
}

/// The tiles whose reach rate the results report.
pub(crate) const REACH_TILES: [u64; 8] = [256, 512, 1024, 2048, 4096, 8192, 16384, 32768];

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
    pub(crate) fn of(records: &[GameRecord]) -> Option<Summary> {
        if records.is_empty() {
            return None;
        }
        let mut scores: Vec<u64> = records.iter().map(|r| r.score).collect();
        scores.sort_unstable();
        let n = records.len();
        let mut reach = [0.0; REACH_TILES.len()];
        for (rate, tile) in reach.iter_mut().zip(REACH_TILES) {
            *rate = records.iter().filter(|r| r.max_tile >= tile).count() as f64 / n as f64;
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
fn median_range(records: &[GameRecord]) -> Option<(f64, f64)> {
    let medians: Vec<f64> = records
        .iter()
        .map(|r| r.median_decision_micros.map(|us| us / 1000.0))
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
    fn parses_the_planned_format() {
        let text =
            "seed,score,max_tile,moves,millis\r\n1,20000,2048,1000,1500\n\n2, 3000 ,256,300,12.5\n";
        let records = parse_csv(text).unwrap();
        assert_eq!(
            records,
            [
                GameRecord {
                    seed: 1,
                    score: 20000,
                    max_tile: 2048,
                    moves: 1000,
                    millis: 1500.0,
                    median_decision_micros: None
                },
                GameRecord {
                    seed: 2,
                    score: 3000,
                    max_tile: 256,
                    moves: 300,
                    millis: 12.5,
                    median_decision_micros: None
                },
            ]
        );
    }

    #[test]
    fn accepts_reordered_and_extra_columns() {
        let text = "score,preset,seed,millis,moves,max_tile\n512,fast,9,3,40,64\n";
        let records = parse_csv(text).unwrap();
        assert_eq!(
            records,
            [GameRecord {
                seed: 9,
                score: 512,
                max_tile: 64,
                moves: 40,
                millis: 3.0,
                median_decision_micros: None
            }]
        );
        assert_eq!(parse_csv("seed,score,max_tile,moves,millis\n").unwrap(), []);
    }

    #[test]
    fn reads_the_median_decision_time_when_present() {
        let text = "seed,score,max_tile,moves,millis,median_decision_micros\n3,387208,16384,14868,650876,29674\n";
        let records = parse_csv(text).unwrap();
        assert_eq!(records[0].median_decision_micros, Some(29674.0));
        assert_eq!(
            parse_csv("seed,score,max_tile,moves,millis,median_decision_micros\n1,2,4,5,6,soon\n")
                .unwrap_err()
                .to_string(),
            "line 2: `median_decision_micros` is not a duration: `soon`"
        );
    }

    #[test]
    fn errors_say_which_line_and_what() {
        let err = |text: &str| parse_csv(text).unwrap_err().to_string();
        assert_eq!(err(""), "line 1: empty file: expected a header line");
        assert_eq!(
            err("seed,score,moves,millis\n"),
            "line 1: the header has no `max_tile` column (expected seed,score,max_tile,moves,millis)"
        );
        let header = "seed,score,max_tile,moves,millis\n";
        assert_eq!(err(&format!("{header}1,2,3,4\n")), "line 2: 4 fields, but the header has 5");
        assert_eq!(
            err(&format!("{header}1,2,3,4,5\n1,x,3,4,5\n")),
            "line 3: `score` is not a whole number: `x`"
        );
        assert_eq!(
            err(&format!("{header}1,2,3,4,-5\n")),
            "line 2: `millis` is not a duration: `-5`"
        );
    }

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
        let game = |score, max_tile| GameRecord {
            seed: 0,
            score,
            max_tile,
            moves: 100,
            millis: 50.0,
            median_decision_micros: None,
        };
        let records = [game(1000, 128), game(30000, 2048), game(60000, 4096), game(20000, 1024)];
        let summary = Summary::of(&records).unwrap();
        assert_eq!(summary.games, 4);
        // Not every record has a median time per decision, so there is no range.
        assert_eq!(summary.median_decision_millis, None);
        let timed = |micros| GameRecord { median_decision_micros: Some(micros), ..game(1, 2) };
        let timed = Summary::of(&[timed(2500.0), timed(900.0), timed(1200.0)]).unwrap();
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

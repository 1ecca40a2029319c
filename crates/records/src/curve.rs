//! The learning curve `lab train` writes and `cargo xtask curve` and
//! `versus` draw: a CSV row per window of self-play episodes.
//!
//! ```
//! use records::curve::{self, CurveRow};
//!
//! let row = CurveRow {
//!     episodes: 2000,
//!     moves: 1_500_000,
//!     seconds: 60.0,
//!     mean_score: 20_000.0,
//!     reach: [0.5, 0.1, 0.0, 0.0, 0.0],
//! };
//! let text = format!("{}\n{}\n", curve::HEADER, curve::line(&row));
//! assert_eq!(curve::parse(&text)?, [row]);
//! # Ok::<(), curve::CurveError>(())
//! ```

use std::fmt;

use game_core::Tile;

use crate::summary::MILESTONES;

/// The header: the columns of [`CurveRow`], the reach rates of 2048 to
/// 32768 last.
pub const HEADER: &str =
    "episodes,moves,seconds,mean_score,reach_2048,reach_4096,reach_8192,reach_16384,reach_32768";

/// The tiles whose reach rates a row gives: the first five of the
/// tournaments' [`MILESTONES`], so that a milestone is written down once,
/// as a tile.
pub const TILES: [Tile; 5] = match MILESTONES.first_chunk() {
    Some(tiles) => *tiles,
    None => panic!("fewer than five milestones"),
};

/// One window of episodes, as of its end.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurveRow {
    /// Episodes done in all.
    pub episodes: u64,
    /// Moves played in all (0 where a public trainer's curve does not say).
    pub moves: u64,
    /// Training seconds in all.
    pub seconds: f64,
    /// The window's mean score.
    pub mean_score: f64,
    /// The window's reach rates of [`TILES`]; NaN for a rate not measured
    /// (a public trainer's curve may report some only).
    pub reach: [f64; 5],
}

/// A curve file that does not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CurveError {
    /// No header line.
    Empty,
    /// The first line is not [`HEADER`].
    Header(String),
    /// A row that does not read: its line number and text.
    Row(usize, String),
}

impl fmt::Display for CurveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CurveError::Empty => f.write_str("empty file"),
            CurveError::Header(h) => write!(f, "unexpected header `{h}`"),
            CurveError::Row(n, line) => write!(f, "line {n}: `{line}`"),
        }
    }
}

impl std::error::Error for CurveError {}

/// `row` as a line of the file (without the newline); a NaN rate is an
/// empty field.
pub fn line(row: &CurveRow) -> String {
    let reach: Vec<String> = row
        .reach
        .iter()
        .map(|r| if r.is_nan() { String::new() } else { format!("{r:.4}") })
        .collect();
    format!(
        "{},{},{:.1},{:.1},{}",
        row.episodes,
        row.moves,
        row.seconds,
        row.mean_score,
        reach.join(",")
    )
}

/// The rows of a curve file.
///
/// # Errors
/// [`CurveError`] for a missing or foreign header or a row that does not
/// read.
pub fn parse(text: &str) -> Result<Vec<CurveRow>, CurveError> {
    let mut lines = text.lines();
    let header = lines.next().ok_or(CurveError::Empty)?;
    if header.trim_end() != HEADER {
        return Err(CurveError::Header(header.to_owned()));
    }
    lines
        .enumerate()
        .map(|(i, line)| {
            // A file saved with CRLF line ends reads as well.
            let line = line.trim_end();
            let bad = || CurveError::Row(i + 2, line.to_owned());
            let fields: Vec<&str> = line.split(',').collect();
            if fields.len() != 4 + TILES.len() {
                return Err(bad());
            }
            let num = |k: usize| match fields[k] {
                "" => Ok(f64::NAN),
                f => f.parse::<f64>().map_err(|_| bad()),
            };
            let mut reach = [0.0; 5];
            for (k, r) in reach.iter_mut().enumerate() {
                *r = num(4 + k)?;
            }
            Ok(CurveRow {
                episodes: fields[0].parse().map_err(|_| bad())?,
                moves: if fields[1].is_empty() {
                    0
                } else {
                    fields[1].parse().map_err(|_| bad())?
                },
                seconds: num(2)?,
                mean_score: num(3)?,
                reach,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_and_bad_files_are_refused() {
        let row = CurveRow {
            episodes: 52_000,
            moves: 0,
            seconds: 630.0,
            mean_score: 174_505.0,
            reach: [f64::NAN, f64::NAN, f64::NAN, 0.31, f64::NAN],
        };
        let text = format!("{HEADER}\n{}\n", line(&row));
        let back = parse(&text).unwrap();
        assert_eq!(back[0].episodes, 52_000);
        assert_eq!(back[0].reach[3], 0.31);
        assert!(back[0].reach[0].is_nan());
        assert_eq!(line(&back[0]), line(&row));
        assert_eq!(parse(""), Err(CurveError::Empty));
        assert!(matches!(parse("a,b\n"), Err(CurveError::Header(_))));
        assert_eq!(
            parse(&format!("{HEADER}\n1,2,3\n")),
            Err(CurveError::Row(2, "1,2,3".to_owned()))
        );
    }
}

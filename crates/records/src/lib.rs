//! Per-game tournament records: one format, written and read here only
//! (and, in [`curve`], the learning curve's CSV).
//!
//! A tournament (`lab tournament --csv FILE` or `--json FILE`) keeps
//! one [`Record`] per finished game; `lab tournament --resume` reads
//! the CSV back to skip the seeds it holds ([`log`] opens the file for a
//! run, in both programs), and `cargo xtask results` reads the committed
//! files under `docs/data/`. The CSV is a header line,
//! [`CSV_HEADER`], then one line per game:
//!
//! ```text
//! seed,score,max_tile,moves,millis,median_decision_micros,p99_decision_micros
//! 3,1000,128,90,1.500,12,40
//! ```
//!
//! A file may open with comment lines (`#` first) before its header: the
//! tournament writes one, [`MADE_BY`] and the settings that played the
//! games, so that a resume with other settings can be refused
//! ([`made_by`]).
//!
//! `millis` is the game's wall-clock time with three decimals; the two
//! decision times are whole microseconds, and empty in records that were
//! made before they were measured. The JSON form is an array of objects with
//! the same field names (a missing time is left out).
//!
//! ```
//! let text = "seed,score,max_tile,moves,millis,median_decision_micros,p99_decision_micros\n\
//!             3,1000,128,90,1.500,12,\n";
//! let records = records::read_csv(text)?;
//! assert_eq!(records[0].score, 1000);
//! assert_eq!(records[0].p99_decision_micros, None);
//! let mut again = Vec::new();
//! records::write_csv(&mut again, &records)?;
//! assert_eq!(String::from_utf8(again).unwrap(), text);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

pub mod curve;
pub mod log;
pub mod paired;
pub mod phases;
pub mod summary;

use std::fmt;
use std::io::{self, Write};

use game_core::Tile;
use serde::{Deserialize, Serialize};

/// The CSV's header line (without its newline): the columns, in order.
pub const CSV_HEADER: &str =
    "seed,score,max_tile,moves,millis,median_decision_micros,p99_decision_micros";

/// The start of the comment line that names the settings that made a
/// file's games, before its header.
pub const MADE_BY: &str = "# made by: ";

/// Writes the [`MADE_BY`] line: `settings` (one line) and a newline.
///
/// # Errors
/// Those of `out`.
pub fn write_made_by(out: &mut impl Write, settings: &str) -> io::Result<()> {
    writeln!(out, "{MADE_BY}{}", settings.replace(['\n', '\r'], " "))
}

/// The settings that the file's [`MADE_BY`] line names, if it has one
/// before its header.
pub fn made_by(text: &str) -> Option<&str> {
    text.lines()
        .map(str::trim)
        .take_while(|line| line.is_empty() || line.starts_with('#'))
        .find_map(|line| line.strip_prefix(MADE_BY.trim_end()))
        .map(str::trim)
}

/// The number of CSV columns.
const COLUMNS: usize = 7;

/// One finished game, as the files keep it.
///
/// The fields have no invariant beyond their types (a negative or infinite
/// `millis` is refused when read), so they are public.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The game's seed: replaying it gives the same game.
    pub seed: u64,
    /// The final score (or the score at the move limit).
    pub score: u64,
    /// The largest tile reached (its value in the CSV and the JSON).
    #[serde(with = "tile_value")]
    pub max_tile: Tile,
    /// Moves played.
    pub moves: u64,
    /// Wall-clock time of the game in milliseconds (kept to the
    /// microsecond).
    pub millis: f64,
    /// The median time the player took to choose a move, in whole
    /// microseconds; `None` in records made before it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median_decision_micros: Option<u64>,
    /// The 99th percentile (nearest rank) of the time per move, in whole
    /// microseconds; `None` in records made before it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_decision_micros: Option<u64>,
}

impl Record {
    /// Writes the record's CSV line, newline included.
    ///
    /// # Errors
    /// Those of `out`.
    pub fn write_csv_line(&self, out: &mut impl Write) -> io::Result<()> {
        let optional = |v: Option<u64>| v.map_or_else(String::new, |v| v.to_string());
        writeln!(
            out,
            "{},{},{},{},{:.3},{},{}",
            self.seed,
            self.score,
            self.max_tile,
            self.moves,
            self.millis,
            optional(self.median_decision_micros),
            optional(self.p99_decision_micros)
        )
    }
}

/// Writes [`CSV_HEADER`] and its newline.
///
/// # Errors
/// Those of `out`.
pub fn write_csv_header(out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "{CSV_HEADER}")
}

/// Writes a whole CSV file: the header, then a line per record.
///
/// # Errors
/// Those of `out`.
pub fn write_csv(out: &mut impl Write, records: &[Record]) -> io::Result<()> {
    write_csv_header(out)?;
    records.iter().try_for_each(|r| r.write_csv_line(out))
}

/// Writes the records as a JSON array (serde_json's pretty form).
///
/// # Errors
/// Those of `out`.
pub fn write_json(out: &mut impl Write, records: &[Record]) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, records)?;
    writeln!(out)
}

/// Reads a JSON array of records, as [`write_json`] writes it.
///
/// # Errors
/// [`ReadError::Json`] for anything serde_json refuses.
pub fn read_json(text: &str) -> Result<Vec<Record>, ReadError> {
    serde_json::from_str(text).map_err(|err| ReadError::Json(err.to_string()))
}

/// Reads a CSV file: comment lines (`#` first), [`CSV_HEADER`] exactly,
/// then a line per game. Blank lines and a `\r` before each newline are
/// allowed; the fields are trimmed.
/// An empty text has no records (a file that a tournament was about to
/// write).
///
/// # Errors
/// The first line that is not what [`write_csv`] writes, by its 1-based
/// number.
pub fn read_csv(text: &str) -> Result<Vec<Record>, ReadError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .skip_while(|(_, line)| line.trim_start().starts_with('#'));
    let Some((idx, header)) = lines.next() else { return Ok(Vec::new()) };
    if header.trim() != CSV_HEADER {
        return Err(ReadError::Header { line: idx + 1, found: header.trim().to_owned() });
    }
    lines.map(|(idx, line)| parse_line(idx + 1, line)).collect()
}

fn parse_line(line: usize, text: &str) -> Result<Record, ReadError> {
    let fields: Vec<&str> = text.split(',').map(str::trim).collect();
    if fields.len() != COLUMNS {
        return Err(ReadError::FieldCount { line, found: fields.len() });
    }
    let bad = |column: usize| ReadError::Field {
        line,
        column: CSV_HEADER.split(',').nth(column).unwrap_or_default(),
        text: fields[column].to_owned(),
    };
    let whole = |column: usize| fields[column].parse::<u64>().map_err(|_| bad(column));
    let optional = |column: usize| match fields[column] {
        "" => Ok(None),
        _ => whole(column).map(Some),
    };
    let millis = fields[4].parse::<f64>().ok().filter(|m| m.is_finite() && *m >= 0.0);
    Ok(Record {
        seed: whole(0)?,
        score: whole(1)?,
        max_tile: fields[2].parse().map_err(|_| bad(2))?,
        moves: whole(3)?,
        millis: millis.ok_or_else(|| bad(4))?,
        median_decision_micros: optional(5)?,
        p99_decision_micros: optional(6)?,
    })
}

/// Why a records file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadError {
    /// The first line after the comments is not [`CSV_HEADER`].
    Header {
        /// The 1-based line number.
        line: usize,
        /// The line found instead.
        found: String,
    },
    /// A line has another number of fields than the header.
    FieldCount {
        /// The 1-based line number.
        line: usize,
        /// The number of fields on it.
        found: usize,
    },
    /// A field is not a value of its column.
    Field {
        /// The 1-based line number.
        line: usize,
        /// The column's name.
        column: &'static str,
        /// The field's text.
        text: String,
    },
    /// The JSON form could not be read (serde_json's message).
    Json(String),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Header { line, found } => {
                write!(f, "line {line}: the header is `{found}`, not `{CSV_HEADER}`")
            }
            ReadError::FieldCount { line, found } => {
                write!(f, "line {line}: {found} fields, but the header has {COLUMNS}")
            }
            ReadError::Field { line, column, text } => {
                let what = match *column {
                    "millis" => "a duration in milliseconds",
                    "max_tile" => "a tile (a power of two from 2)",
                    "median_decision_micros" | "p99_decision_micros" => {
                        "whole microseconds or empty"
                    }
                    _ => "a whole number",
                };
                write!(f, "line {line}: `{column}` is not {what}: `{text}`")
            }
            ReadError::Json(message) => write!(f, "not a JSON array of records: {message}"),
        }
    }
}

impl ReadError {
    /// The 1-based number of the bad line (0 for the JSON form).
    pub(crate) fn line(&self) -> usize {
        match self {
            ReadError::Header { line, .. }
            | ReadError::FieldCount { line, .. }
            | ReadError::Field { line, .. } => *line,
            ReadError::Json(_) => 0,
        }
    }
}

impl std::error::Error for ReadError {}

/// A tile as its value in the JSON form (`"max_tile": 2048`).
mod tile_value {
    use game_core::Tile;
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub(super) fn serialize<S: Serializer>(tile: &Tile, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(tile.value())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Tile, D::Error> {
        Tile::from_value(u32::deserialize(d)?).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(seed: u64) -> Record {
        Record {
            seed,
            score: 1000,
            max_tile: Tile::of(128),
            moves: 90,
            millis: 1.5,
            median_decision_micros: Some(12),
            p99_decision_micros: Some(40),
        }
    }

    #[test]
    fn csv_round_trips() {
        let records = vec![
            record(3),
            Record { millis: 650_876.0, p99_decision_micros: None, ..record(4) },
            Record { millis: 417.087, median_decision_micros: None, ..record(5) },
        ];
        let mut out = Vec::new();
        write_csv(&mut out, &records).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            format!(
                "{CSV_HEADER}\n3,1000,128,90,1.500,12,40\n4,1000,128,90,650876.000,12,\n\
                 5,1000,128,90,417.087,,40\n"
            )
        );
        assert_eq!(read_csv(&text).unwrap(), records);
        // Blank lines, CRLF and spaces around fields are read too.
        let loose = format!("{CSV_HEADER}\r\n\n 3 , 1000,128,90,1.5,12,40\r\n");
        assert_eq!(read_csv(&loose).unwrap(), [record(3)]);
        assert_eq!(read_csv("").unwrap(), []);
        assert_eq!(read_csv(&format!("{CSV_HEADER}\n")).unwrap(), []);
    }

    #[test]
    fn the_made_by_line_names_the_settings_and_readers_skip_it() {
        let mut out = Vec::new();
        write_made_by(&mut out, "cli-ascii tournament --preset fast\n--size 4").unwrap();
        write_csv(&mut out, &[record(3)]).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("# made by: cli-ascii tournament --preset fast --size 4\n"));
        assert_eq!(made_by(&text), Some("cli-ascii tournament --preset fast --size 4"));
        assert_eq!(read_csv(&text).unwrap(), [record(3)]);
        // Another comment first is fine; a line after the header is no
        // comment, and a file without the line names nothing.
        let other = format!("# notes\n{text}");
        assert_eq!(made_by(&other), Some("cli-ascii tournament --preset fast --size 4"));
        let late = format!("{CSV_HEADER}\n# made by: x\n");
        assert_eq!(made_by(&late), None);
        assert!(matches!(read_csv(&late), Err(ReadError::FieldCount { line: 2, .. })));
        assert_eq!(made_by(&format!("{CSV_HEADER}\n")), None);
    }

    #[test]
    fn json_round_trips_with_the_csv_field_names() {
        let records = vec![record(3), Record { p99_decision_micros: None, ..record(4) }];
        let mut out = Vec::new();
        write_json(&mut out, &records).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("[\n  {\n    \"seed\": 3,\n    \"score\": 1000,"), "{text}");
        assert!(text.contains("\"millis\": 1.5,"), "{text}");
        assert_eq!(text.matches("p99_decision_micros").count(), 1, "a missing time is left out");
        assert!(text.ends_with("}\n]\n"), "{text}");
        assert_eq!(read_json(&text).unwrap(), records);
        assert!(read_json("[{\"seed\":1}]").unwrap_err().to_string().contains("missing field"));
    }

    #[test]
    fn errors_say_which_line_and_what() {
        let err = |text: &str| read_csv(text).unwrap_err().to_string();
        assert_eq!(
            err("seed,score\n1,2\n"),
            format!("line 1: the header is `seed,score`, not `{CSV_HEADER}`")
        );
        let h = CSV_HEADER;
        assert_eq!(err(&format!("{h}\n1,2,3,4\n")), "line 2: 4 fields, but the header has 7");
        assert_eq!(
            err(&format!("{h}\n1,2,4,5,6,7,8\n\n1,x,4,5,6,7,8\n")),
            "line 4: `score` is not a whole number: `x`"
        );
        assert_eq!(
            err(&format!("{h}\n1,2,4,5,-6,7,8\n")),
            "line 2: `millis` is not a duration in milliseconds: `-6`"
        );
        assert_eq!(
            err(&format!("{h}\n1,2,4,5,6,soon,8\n")),
            "line 2: `median_decision_micros` is not whole microseconds or empty: `soon`"
        );
        assert_eq!(
            err(&format!("{h}\n1,2,4294967296,5,6,7,8\n")),
            "line 2: `max_tile` is not a tile (a power of two from 2): `4294967296`"
        );
        assert_eq!(
            err(&format!("{h}\n1,2,3,5,6,7,8\n")),
            "line 2: `max_tile` is not a tile (a power of two from 2): `3`"
        );
    }
}

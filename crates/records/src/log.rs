//! A run's CSV records file, a line appended as each game ends: made new,
//! written over, or resumed. The one place both programs (`lab
//! tournament` and `compare`, py2048's tournaments and comparisons) open
//! one, so that they keep the same rules:
//!
//! - a file that holds games is never written over unless asked
//!   ([`Existing::Overwrite`]): a run pointed at it again without resuming
//!   would lose them;
//! - a resumed file must name the settings of the run ([`MADE_BY`]), as the
//!   caller's `same_settings` judges them;
//! - a last line cut short (a run killed in the middle of a write) is
//!   dropped, so that its game is played again; a bad line anywhere else is
//!   an error, since it was not written by a run that stopped;
//! - each line goes to the file in one write, at once.
//!
//! ```
//! use records::log::{Existing, Log};
//! # let dir = std::env::temp_dir().join(format!("records-log-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! let path = dir.join("games.csv");
//! let same = |a: &str, b: &str| a == b;
//! let mut opened = Log::open(&path, Existing::Refuse, "--preset fast", same)?;
//! assert!(opened.earlier.is_empty());
//! # let game = records::Record { seed: 1, score: 4, max_tile: game_core::Tile::of(4), moves: 1, millis: 0.5,
//! #     median_decision_micros: None, p99_decision_micros: None };
//! opened.log.append(&game)?;
//! drop(opened);
//! // Not again without resuming: the file holds a game.
//! assert!(Log::open(&path, Existing::Refuse, "--preset fast", same).is_err());
//! let resumed = Log::open(&path, Existing::Resume, "--preset fast", same)?;
//! assert_eq!(resumed.earlier, [game]);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`MADE_BY`]: crate::MADE_BY

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::{CSV_HEADER, MADE_BY, ReadError, Record};

/// What to do with a records file that is already there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    /// Refuse it if it holds any game; one that holds nothing (empty, or a
    /// settings line and a header alone) is written afresh.
    Refuse,
    /// Keep its games and append to it (a missing file is made new).
    Resume,
    /// Write over it.
    Overwrite,
}

/// A records file open for appending.
#[derive(Debug)]
pub struct Log {
    path: PathBuf,
    file: File,
}

/// A records file just opened, and what it held.
#[derive(Debug)]
#[non_exhaustive]
pub struct Opened {
    /// The file, ready for the run's games.
    pub log: Log,
    /// The games already in it (resumed), in file order.
    pub earlier: Vec<Record>,
    /// A last line cut short, now gone from the file: its game is not among
    /// [`Opened::earlier`], so a run plays it again.
    pub dropped: Option<Dropped>,
}

/// The last line of a resumed file, dropped as cut short.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    /// Its 1-based number.
    pub line: usize,
    /// Its text.
    pub text: String,
}

impl fmt::Display for Dropped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {} (`{}`) was cut short (a run stopped while writing it): dropped, and its \
             game is played again",
            self.line, self.text
        )
    }
}

impl Log {
    /// Opens `path` for a run whose games `settings` decide: a new file
    /// gets the [`MADE_BY`] line and the header. An
    /// existing one is handled as `existing` says; a resumed one must name
    /// settings that `same_settings(theirs, settings)` accepts.
    ///
    /// What is not a regular file (`/dev/null`) is written as it is: it
    /// keeps nothing that could be lost.
    ///
    /// # Errors
    /// [`OpenError`]: the file holds games and is not to be resumed or
    /// written over, it cannot be read or written, or (resuming) a line
    /// other than the last is bad, or it names other settings or none.
    pub fn open(
        path: &Path,
        existing: Existing,
        settings: &str,
        same_settings: impl Fn(&str, &str) -> bool,
    ) -> Result<Opened, OpenError> {
        Log::check(path, existing, settings, same_settings)?.open()
    }

    /// What [`Log::open`] checks, without writing anything: a run with
    /// several output files checks them all before it writes any, so that
    /// a refused one leaves no other file made or changed.
    ///
    /// # Errors
    /// Those of [`Log::open`] that reading finds.
    pub fn check(
        path: &Path,
        existing: Existing,
        settings: &str,
        same_settings: impl Fn(&str, &str) -> bool,
    ) -> Result<Checked, OpenError> {
        // Only a regular file is read: a device such as /dev/full reads
        // without end.
        let text =
            match fs::metadata(path) {
                Ok(meta) if meta.is_file() => Some(fs::read_to_string(path).map_err(|source| {
                    OpenError::Io { path: path.to_owned(), write: false, source }
                })?),
                _ => None,
            };
        let mut checked = Checked {
            path: path.to_owned(),
            settings: settings.to_owned(),
            append: false,
            earlier: Vec::new(),
            dropped: None,
        };
        match (existing, text) {
            (_, None) | (Existing::Overwrite, _) => {}
            (Existing::Refuse, Some(text)) => {
                if !holds_nothing(&text) {
                    let games = crate::read_csv(&text).ok().map(|r| r.len());
                    return Err(OpenError::Exists { path: path.to_owned(), games });
                }
            }
            (Existing::Resume, Some(text)) => {
                let read = read_resuming(&text)
                    .map_err(|error| OpenError::Read { path: path.to_owned(), error })?;
                // A file cut off before its header was whole holds no game:
                // it is written afresh. Comments alone are no records file.
                let kept = &text[..read.kept];
                if !read.header && !holds_nothing(kept) {
                    let line = kept.lines().count() + 1;
                    let error = ReadError::Header { line, found: String::new() };
                    return Err(OpenError::Read { path: path.to_owned(), error });
                }
                if read.header {
                    match crate::made_by(&text) {
                        Some(theirs) if same_settings(theirs, settings) => {}
                        Some(theirs) => {
                            return Err(OpenError::Settings {
                                path: path.to_owned(),
                                theirs: theirs.to_owned(),
                                ours: settings.to_owned(),
                            });
                        }
                        None => return Err(OpenError::Unnamed { path: path.to_owned() }),
                    }
                    checked.append = true;
                    checked.earlier = read.records;
                    checked.dropped = read.torn;
                }
            }
        }
        Ok(checked)
    }

    /// Appends `record`'s line in one write, at once: a run cut off keeps
    /// every game before it, and at worst the line it was writing is cut
    /// short (which a resume drops).
    ///
    /// # Errors
    /// Those of the file.
    pub fn append(&mut self, record: &Record) -> io::Result<()> {
        let mut line = Vec::new();
        record.write_csv_line(&mut line).expect("writing to memory");
        self.write(&line)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file.write_all(bytes).and_then(|()| self.file.flush())
    }
}

/// A records file checked by [`Log::check`], not yet opened.
#[derive(Debug)]
pub struct Checked {
    path: PathBuf,
    settings: String,
    append: bool,
    earlier: Vec<Record>,
    dropped: Option<(usize, Dropped)>,
}

impl Checked {
    /// The games already in the file that a resume keeps, in file order.
    pub fn earlier(&self) -> &[Record] {
        &self.earlier
    }

    /// Opens the file as [`Log::open`] does: appended to when resumed (its
    /// last line dropped if cut short), else written afresh with the
    /// [`MADE_BY`] line and the header.
    ///
    /// # Errors
    /// [`OpenError::Io`]: it cannot be written.
    pub fn open(self) -> Result<Opened, OpenError> {
        let Checked { path, settings, append, earlier, dropped } = self;
        let io_error =
            |source: io::Error| OpenError::Io { path: path.clone(), write: true, source };
        let file = OpenOptions::new()
            .create(true)
            .write(true)
            .append(append)
            .truncate(!append)
            .open(&path)
            .map_err(io_error)?;
        if let Some((start, _)) = &dropped {
            // Past the last whole line, where the next one goes.
            file.set_len(*start as u64).map_err(io_error)?;
        }
        let mut log = Log { path: path.clone(), file };
        if !append {
            let mut head = Vec::new();
            crate::write_made_by(&mut head, &settings)
                .and_then(|()| crate::write_csv_header(&mut head))
                .expect("writing to memory");
            log.write(&head).map_err(io_error)?;
        }
        Ok(Opened { log, earlier, dropped: dropped.map(|(_, torn)| torn) })
    }
}

/// Whether a file's text holds nothing a run could lose: blank, or no more
/// than the settings line and the header a run writes before its first
/// game.
fn holds_nothing(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .all(|line| line.is_empty() || line == CSV_HEADER || line.starts_with(MADE_BY.trim_end()))
}

/// A resumed file's records, whether it has its header, its last line if
/// that was cut short (the byte where it starts, and the line), and the
/// length of the text kept.
#[derive(Debug, PartialEq)]
struct Resumed {
    records: Vec<Record>,
    header: bool,
    torn: Option<(usize, Dropped)>,
    kept: usize,
}

/// Reads a file to resume. Its last line is cut short when it does not end
/// with a newline (a write stopped before its end, even where what is left
/// still reads, as a p99 time cut from `40` to `4` does) or does not read;
/// it is left out. A bad line before it is an error.
fn read_resuming(text: &str) -> Result<Resumed, ReadError> {
    let parsed = crate::read_csv(text);
    let torn = last_line(text).filter(|last| {
        let cut = match &parsed {
            Ok(_) => !last.newline,
            Err(e) => e.line() == last.number,
        };
        // Only what a run writes: a game's line after the header, or the
        // header or the settings line themselves. Another file's last
        // line is not dropped.
        let head = last.text.trim();
        let written = has_header(&text[..last.start])
            || CSV_HEADER.starts_with(head)
            || head.starts_with(MADE_BY.trim_end())
            || MADE_BY.starts_with(head);
        cut && written
    });
    let Some(torn) = torn else {
        let records = parsed?;
        return Ok(Resumed { records, header: has_header(text), torn: None, kept: text.len() });
    };
    let kept = &text[..torn.start];
    let dropped = Dropped { line: torn.number, text: torn.text.trim_end().to_owned() };
    Ok(Resumed {
        records: crate::read_csv(kept)?,
        header: has_header(kept),
        torn: Some((torn.start, dropped)),
        kept: kept.len(),
    })
}

/// Whether `text` has a line other than comments and blanks (the header,
/// which [`crate::read_csv`] checks).
fn has_header(text: &str) -> bool {
    text.lines().map(str::trim).any(|line| !line.is_empty() && !line.starts_with('#'))
}

/// A line of a text.
struct Line<'a> {
    /// The byte where it starts.
    start: usize,
    /// Its 1-based number.
    number: usize,
    /// Its text, without the newline.
    text: &'a str,
    /// Whether a newline ends it.
    newline: bool,
}

/// The last line of `text` that is not blank.
fn last_line(text: &str) -> Option<Line<'_>> {
    let mut start = 0;
    let mut last = None;
    for (idx, piece) in text.split_inclusive('\n').enumerate() {
        if !piece.trim().is_empty() {
            let (text, newline) = match piece.strip_suffix('\n') {
                Some(text) => (text, true),
                None => (piece, false),
            };
            last = Some(Line { start, number: idx + 1, text, newline });
        }
        start += piece.len();
    }
    last
}

/// Why a records file could not be opened for a run.
#[derive(Debug)]
#[non_exhaustive]
pub enum OpenError {
    /// The file holds games (or is not a records file), and the run was
    /// asked neither to resume nor to write over it.
    Exists {
        /// The file.
        path: PathBuf,
        /// Its games, when it reads as a records file.
        games: Option<usize>,
    },
    /// It cannot be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// Whether writing failed (else reading).
        write: bool,
        /// The reason.
        source: io::Error,
    },
    /// A line of a file to resume, other than its last, is bad.
    Read {
        /// The file.
        path: PathBuf,
        /// The line and what is wrong with it.
        error: ReadError,
    },
    /// A file to resume names other settings than the run's.
    Settings {
        /// The file.
        path: PathBuf,
        /// The settings it names.
        theirs: String,
        /// The run's.
        ours: String,
    },
    /// A file to resume does not name the settings that played its games.
    Unnamed {
        /// The file.
        path: PathBuf,
    },
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::Exists { path, games: Some(n) } => {
                let s = if *n == 1 { "" } else { "s" };
                write!(f, "{} already exists and holds {n} game{s}", path.display())
            }
            OpenError::Exists { path, games: None } => {
                write!(f, "{} already exists (and is not a records file)", path.display())
            }
            OpenError::Io { path, write, source } => {
                let what = if *write { "write" } else { "read" };
                write!(f, "cannot {what} {}: {source}", path.display())
            }
            OpenError::Read { path, error } => {
                write!(f, "cannot resume {}: {error}", path.display())
            }
            OpenError::Settings { path, theirs, ours } => write!(
                f,
                "cannot resume {}: its games were played with `{theirs}`, not `{ours}`; give \
                 the same settings, or write to another file",
                path.display()
            ),
            OpenError::Unnamed { path } => write!(
                f,
                "cannot resume {}: it does not say which settings played its games (no `{}` \
                 line before its header); write to another file",
                path.display(),
                MADE_BY.trim_end()
            ),
        }
    }
}

impl std::error::Error for OpenError {}

#[cfg(test)]
mod tests {
    use super::*;
    use game_core::Tile;

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

    const HEAD: &str = "# made by: --preset fast\nseed,score,max_tile,moves,millis,\
                        median_decision_micros,p99_decision_micros\n";

    /// A scratch folder removed when the test ends.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let dir =
                std::env::temp_dir().join(format!("records-log-{}-{name}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn same(a: &str, b: &str) -> bool {
        a == b
    }

    /// A run with several files checks them all before it writes any: a
    /// check makes no file and changes none, whatever it is asked.
    #[test]
    fn a_check_writes_nothing() {
        let dir = Scratch::new("check");
        let path = dir.0.join("games.csv");
        for existing in [Existing::Refuse, Existing::Resume, Existing::Overwrite] {
            let checked = Log::check(&path, existing, "--preset fast", same).unwrap();
            assert!(checked.earlier().is_empty());
            assert!(!path.exists(), "{existing:?}: no file made");
        }
        // A resumed file with a last line cut short keeps it until opened.
        let text = format!("{HEAD}1,1000,128,90,1.500,12,40\n2,1000,12");
        fs::write(&path, &text).unwrap();
        for existing in [Existing::Resume, Existing::Overwrite] {
            let checked = Log::check(&path, existing, "--preset fast", same).unwrap();
            assert_eq!(fs::read_to_string(&path).unwrap(), text, "{existing:?}: untouched");
            drop(checked);
        }
        let checked = Log::check(&path, Existing::Resume, "--preset fast", same).unwrap();
        assert_eq!(checked.earlier(), [record(1)]);
        let opened = checked.open().unwrap();
        assert_eq!(opened.dropped.map(|d| d.line), Some(4));
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            format!("{HEAD}1,1000,128,90,1.500,12,40\n")
        );
    }

    /// A run pointed at a file of earlier games, without asking to resume
    /// or to write over it, must not lose them by starting the file afresh.
    #[test]
    fn a_file_with_games_is_not_written_over_unless_asked() {
        let dir = Scratch::new("refuse");
        let path = dir.0.join("games.csv");
        let text = format!("{HEAD}1,1000,128,90,1.500,12,40\n2,1000,128,90,1.500,12,40\n");
        fs::write(&path, &text).unwrap();
        let err = Log::open(&path, Existing::Refuse, "--preset fast", same).unwrap_err();
        assert_eq!(err.to_string(), format!("{} already exists and holds 2 games", path.display()));
        assert_eq!(fs::read_to_string(&path).unwrap(), text, "untouched");
        // Another kind of file is not a records file to write over either.
        fs::write(&path, "notes\n").unwrap();
        let err = Log::open(&path, Existing::Refuse, "--preset fast", same).unwrap_err();
        assert!(err.to_string().ends_with("already exists (and is not a records file)"), "{err}");
        // A file that holds nothing a run could lose is written afresh.
        for nothing in ["", "\n", HEAD, "# made by: --preset other\n"] {
            fs::write(&path, nothing).unwrap();
            let opened = Log::open(&path, Existing::Refuse, "--preset fast", same).unwrap();
            drop(opened);
            assert_eq!(fs::read_to_string(&path).unwrap(), HEAD, "{nothing:?}");
        }
        // Asked to, it writes over a file of games.
        fs::write(&path, &text).unwrap();
        let mut opened = Log::open(&path, Existing::Overwrite, "--preset fast", same).unwrap();
        opened.log.append(&record(7)).unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            format!("{HEAD}7,1000,128,90,1.500,12,40\n")
        );
    }

    /// A run killed mid-write leaves its last line cut short: resuming drops
    /// that line (and says so) rather than refusing the file or gluing the
    /// next game onto the torn one.
    #[test]
    fn a_last_line_cut_short_is_dropped_and_the_next_line_follows_the_last_whole_one() {
        let dir = Scratch::new("torn");
        let path = dir.0.join("games.csv");
        let whole = format!("{HEAD}1,1000,128,90,1.500,12,40\n");
        for torn in ["2,1000,12", "2,1000,128,90,1.500,12,4", "2,1000,128,90,1.500,12,40\r"] {
            fs::write(&path, format!("{whole}{torn}")).unwrap();
            let mut opened = Log::open(&path, Existing::Resume, "--preset fast", same).unwrap();
            assert_eq!(opened.earlier, [record(1)], "{torn}");
            let dropped = opened.dropped.clone().expect("dropped");
            assert_eq!(dropped, Dropped { line: 4, text: torn.trim_end().to_owned() });
            assert!(
                dropped
                    .to_string()
                    .starts_with(&format!("line 4 (`{}`) was cut short", dropped.text))
            );
            opened.log.append(&record(2)).unwrap();
            let after = fs::read_to_string(&path).unwrap();
            assert_eq!(after, format!("{whole}2,1000,128,90,1.500,12,40\n"), "{torn}");
        }
        // A last line that ends with its newline but does not read is cut
        // short too (a write cut after a comma reads as "6 fields, but the
        // header has 7").
        fs::write(&path, format!("{whole}2,1000,128,90,1.500,12\n\n")).unwrap();
        let opened = Log::open(&path, Existing::Resume, "--preset fast", same).unwrap();
        assert_eq!((opened.earlier.len(), opened.dropped.map(|d| d.line)), (1, Some(4)));
        // A bad line before the last is no cut-short write: an error, and
        // the file is left as it is.
        let bad = format!("{HEAD}1,1000,128,90,1.500,12\n2,1000,128,90,1.500,12,40\n");
        fs::write(&path, &bad).unwrap();
        let err = Log::open(&path, Existing::Resume, "--preset fast", same).unwrap_err();
        assert!(err.to_string().ends_with("line 3: 6 fields, but the header has 7"), "{err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), bad);
        // A header cut short holds no game: the file starts afresh.
        for cut in ["# made by: --preset fast\nseed,score,ma", "# made by: --pre", "# ma"] {
            fs::write(&path, cut).unwrap();
            let opened = Log::open(&path, Existing::Resume, "--preset fast", same).unwrap();
            assert!(opened.earlier.is_empty() && opened.dropped.is_none());
            assert_eq!(fs::read_to_string(&path).unwrap(), HEAD, "{cut:?}");
        }
        // Another file's last line is not dropped, and comments alone are
        // no records file: nothing is written over.
        for other in ["hello", "hello\n", "# notes\n", "# notes", "# made by: --preset fast\n# x\n"]
        {
            fs::write(&path, other).unwrap();
            let err = Log::open(&path, Existing::Resume, "--preset fast", same).unwrap_err();
            assert!(err.to_string().contains("the header is"), "{other:?}: {err}");
            assert_eq!(fs::read_to_string(&path).unwrap(), other, "untouched");
        }
    }

    #[test]
    fn a_resume_keeps_the_games_of_the_same_settings_only() {
        let dir = Scratch::new("resume");
        let path = dir.0.join("games.csv");
        // A missing file is made new.
        let mut opened = Log::open(&path, Existing::Resume, "--preset fast", same).unwrap();
        opened.log.append(&record(1)).unwrap();
        drop(opened);
        let text = fs::read_to_string(&path).unwrap();
        assert_eq!(text, format!("{HEAD}1,1000,128,90,1.500,12,40\n"));
        // The caller judges which settings are the same.
        let err = Log::open(&path, Existing::Resume, "--preset slow", same).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "cannot resume {}: its games were played with `--preset fast`, not `--preset \
                 slow`; give the same settings, or write to another file",
                path.display()
            )
        );
        let loose = |a: &str, b: &str| a.len() == b.len();
        let opened = Log::open(&path, Existing::Resume, "--preset slow", loose).unwrap();
        assert_eq!(opened.earlier, [record(1)]);
        drop(opened);
        assert_eq!(fs::read_to_string(&path).unwrap(), text, "the file's own line is kept");
        // A file that does not name its settings is refused.
        fs::write(&path, text.lines().skip(1).collect::<Vec<_>>().join("\n") + "\n").unwrap();
        let err = Log::open(&path, Existing::Resume, "--preset fast", same).unwrap_err();
        assert!(err.to_string().contains("does not say which settings"), "{err}");
    }

    #[test]
    fn what_is_not_a_regular_file_is_written_as_it_is() {
        let mut opened =
            Log::open(Path::new("/dev/null"), Existing::Refuse, "--preset fast", same).unwrap();
        opened.log.append(&record(1)).unwrap();
        let err =
            Log::open(Path::new("/nonexistent-dir/x.csv"), Existing::Refuse, "", same).unwrap_err();
        assert!(err.to_string().starts_with("cannot write /nonexistent-dir/x.csv: "), "{err}");
    }
}

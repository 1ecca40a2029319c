//! Tables on disk: one file per formation, checked when read, built when
//! missing or damaged.
//!
//! A file is a 32-byte header (the magic `2048EGT2`, the count of fixed
//! cells, the goal, the shape (0 for a chain, 1 for the corner step, 2 for
//! the corner block), five
//! zero bytes, the state count and a checksum of the odds, all
//! little-endian) followed by every state's odds as a little-endian `u16`.

use std::fmt;
use std::fs;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use super::{Endgame, Formation, Geometry, Odds, Shape, Table};

/// The last byte counts the format: 1 held odds rounded to the nearest
/// step, 2 rounded down (see `build::solve`); a file of another format is
/// refused, and so built again.
const MAGIC: &[u8; 8] = b"2048EGT2";
const HEADER: usize = 32;

/// Why a table file was refused.
#[derive(Debug)]
pub enum TableError {
    /// Reading failed.
    Io(io::Error),
    /// Not a table file (the first bytes are not the magic).
    NotATable,
    /// A table file of another format (the magic's last byte).
    Format(u8),
    /// The header names no valid formation, or another formation than the
    /// file name's.
    Header(String),
    /// The file ends before its last state.
    Truncated {
        /// The bytes the header promises.
        expected: u64,
        /// The bytes there are.
        found: u64,
    },
    /// The odds do not match the header's checksum.
    Checksum,
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::Io(e) => write!(f, "cannot read the table: {e}"),
            TableError::NotATable => write!(f, "not an endgame table file"),
            TableError::Format(v) => write!(
                f,
                "a table of format {}, not {} (odds rounded another way)",
                char::from(*v),
                char::from(MAGIC[7])
            ),
            TableError::Header(why) => write!(f, "bad table header: {why}"),
            TableError::Truncated { expected, found } => {
                write!(f, "the table is truncated: {found} bytes where {expected} were written")
            }
            TableError::Checksum => write!(f, "the table is corrupt: its checksum does not match"),
        }
    }
}

impl std::error::Error for TableError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TableError::Io(e) => Some(e),
            _ => None,
        }
    }
}

/// Why the tables could not be opened.
#[derive(Debug)]
pub struct EndgameError {
    path: PathBuf,
    source: io::Error,
}

impl fmt::Display for EndgameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "endgame tables at {}: {}", self.path.display(), self.source)
    }
}

impl std::error::Error for EndgameError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// A 64-bit checksum of the odds (FNV-1a over 64-bit words, then mixed):
/// not cryptographic, it catches damage, not tampering.
fn checksum(odds: &[u16]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for chunk in odds.chunks(4) {
        let mut w = 0u64;
        for (i, &v) in chunk.iter().enumerate() {
            w |= u64::from(v) << (16 * i);
        }
        h = (h ^ w).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ h >> 33
}

impl Table {
    /// Writes a full table in the file format of this module (a compact
    /// one goes with the others of its set: [`Endgame::write_compact`]).
    ///
    /// # Errors
    /// The writer's; [`io::ErrorKind::InvalidInput`] for a compact table.
    pub fn write_to(&self, w: &mut impl Write) -> io::Result<()> {
        let Odds::Full(odds) = &self.odds else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a compact table is written with its set (Endgame::write_compact)",
            ));
        };
        let f = self.formation();
        let mut header = [0u8; HEADER];
        header[..8].copy_from_slice(MAGIC);
        header[8] = f.fixed() as u8;
        header[9] = f.goal();
        header[10] = match f.shape() {
            Shape::Snake(_) => 0,
            Shape::Step => 1,
            Shape::Block => 2,
        };
        header[16..24].copy_from_slice(&(odds.len() as u64).to_le_bytes());
        header[24..32].copy_from_slice(&checksum(odds).to_le_bytes());
        w.write_all(&header)?;
        let mut buf = Vec::with_capacity(1 << 16);
        for chunk in odds.chunks(1 << 15) {
            buf.clear();
            buf.extend(chunk.iter().flat_map(|v| v.to_le_bytes()));
            w.write_all(&buf)?;
        }
        Ok(())
    }

    /// Reads a table written by [`Table::write_to`], checking its header,
    /// length and checksum.
    ///
    /// # Errors
    /// [`TableError`] for a file that is not a whole, undamaged table.
    pub fn read_from(r: &mut impl Read) -> Result<Table, TableError> {
        let mut header = [0u8; HEADER];
        let got = read_full(r, &mut header)?;
        if got < 8 || header[..7] != MAGIC[..7] {
            return Err(TableError::NotATable);
        }
        if header[7] != MAGIC[7] {
            return Err(TableError::Format(header[7]));
        }
        if got < HEADER {
            return Err(TableError::Truncated { expected: HEADER as u64, found: got as u64 });
        }
        let formation = match header[10] {
            0 => Formation::new(usize::from(header[8]), header[9]),
            1 if usize::from(header[8]) == super::STEP.len() => Formation::step(header[9]),
            2 if usize::from(header[8]) == super::BLOCK.len() => Formation::block(header[9]),
            kind => {
                return Err(TableError::Header(format!(
                    "no formation has shape {kind} and {} fixed cells",
                    header[8]
                )));
            }
        }
        .map_err(|e| TableError::Header(e.to_string()))?;
        let states = u64::from_le_bytes(header[16..24].try_into().expect("8 bytes"));
        if header[11..16] != [0; 5] || states != formation.states() {
            return Err(TableError::Header(format!(
                "{states} states where a {formation} has {}",
                formation.states()
            )));
        }
        let sum = u64::from_le_bytes(header[24..32].try_into().expect("8 bytes"));
        let mut odds = vec![0u16; states as usize];
        let mut buf = vec![0u8; 1 << 16];
        let mut filled = 0usize;
        while filled < odds.len() {
            let want = (2 * (odds.len() - filled)).min(buf.len());
            let got = read_full(r, &mut buf[..want])?;
            for (o, b) in odds[filled..].iter_mut().zip(buf[..got].chunks_exact(2)) {
                *o = u16::from_le_bytes([b[0], b[1]]);
            }
            filled += got / 2;
            if got < want {
                return Err(TableError::Truncated {
                    expected: HEADER as u64 + 2 * states,
                    found: (HEADER + 2 * filled + got % 2) as u64,
                });
            }
        }
        if read_full(r, &mut [0u8; 1])? != 0 {
            return Err(TableError::Header("bytes after the last state".into()));
        }
        if checksum(&odds) != sum {
            return Err(TableError::Checksum);
        }
        Ok(Table { geometry: Geometry::new(formation), odds: Odds::Full(odds.into_boxed_slice()) })
    }

    /// Reads the table in `path`, checking it (see [`Table::read_from`]) and
    /// that it holds `formation`.
    ///
    /// # Errors
    /// [`TableError`] as [`Table::read_from`], and
    /// [`TableError::Header`] for another formation.
    pub fn load(path: &Path, formation: Formation) -> Result<Table, TableError> {
        let file = fs::File::open(path).map_err(TableError::Io)?;
        // A file of the wrong length is refused before its odds are read
        // (and memory for them taken).
        let expected = HEADER as u64 + 2 * formation.states();
        let found = file.metadata().map_err(TableError::Io)?.len();
        if found < expected {
            return Err(TableError::Truncated { expected, found });
        }
        if found > expected {
            return Err(TableError::Header(format!(
                "{found} bytes where the {formation} takes {expected}"
            )));
        }
        let table = Table::read_from(&mut BufReader::new(file))?;
        if table.formation() != formation {
            return Err(TableError::Header(format!(
                "it holds the {} where the {formation} was expected",
                table.formation()
            )));
        }
        Ok(table)
    }
}

/// Reads until `buf` is full or the input ends; the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> Result<usize, TableError> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(TableError::Io(e)),
        }
    }
    Ok(n)
}

/// The file name of a formation's table.
pub fn file_name(formation: Formation) -> String {
    match formation.shape() {
        Shape::Snake(n) => format!("snake-{n:02}-{:02}.egt", formation.goal()),
        Shape::Step => format!("step-{:02}.egt", formation.goal()),
        Shape::Block => format!("block-{:02}.egt", formation.goal()),
    }
}

/// The largest table of the default set, in states.
const DEFAULT_MAX_STATES: u64 = 140_000_000;

/// The tables' folder under the user's cache folder (which the frontends
/// find with the `dirs` crate): one folder, so that one build serves the
/// command line, the web server and Python.
pub const CACHE_FOLDER: &str = "cli-ascii-2048/endgame";

/// What [`Endgame::open`] is doing, for a progress display.
#[derive(Debug)]
pub enum OpenEvent<'a> {
    /// A table was read and checked.
    Loaded(Formation),
    /// A table file was refused and will be built again.
    Refused(Formation, &'a TableError),
    /// Building a table: states done of all.
    Building {
        /// The table.
        formation: Formation,
        /// States solved so far.
        done: u64,
        /// The table's states.
        total: u64,
    },
    /// A table was built and written to its file.
    Written(Formation, &'a Path),
}

impl OpenEvent<'_> {
    /// The line a log shows for this event: one per table refused and per
    /// table built; `None` for the others.
    pub fn log_line(&self) -> Option<String> {
        match self {
            OpenEvent::Refused(f, why) => {
                Some(format!("the table of the {f} was refused ({why}): building it again"))
            }
            OpenEvent::Written(f, path) => Some(format!(
                "built the table of the {f} ({} states) into {}",
                f.states(),
                path.display()
            )),
            OpenEvent::Loaded(_) | OpenEvent::Building { .. } => None,
        }
    }
}

/// The formations the tables cover by default: every chain of 5 to 14
/// tiles that fits under 32768 (its anchor at most `2^(16 - length)`),
/// whose table has at most 140 million states (280 MB), or at most
/// `max_states` when given (a smaller set, for little memory or a quick
/// test). Measured in docs/endgame.md: their size on disk and the time to
/// build them.
pub fn default_formations(max_states: Option<u64>) -> Vec<Formation> {
    let limit = max_states.map_or(DEFAULT_MAX_STATES, |m| m.min(DEFAULT_MAX_STATES));
    let mut out = Vec::new();
    for fixed in 5usize..=14 {
        for goal in 2..=(16 - fixed) as u8 {
            if let Ok(f) = Formation::new(fixed, goal)
                && f.states() <= limit
            {
                out.push(f);
            }
        }
    }
    out
}

/// The corner tables, which the corner search plays by: the largest
/// corner step (building 128) and the largest corner block (anchored at
/// 1024), which answer every goal of their shape (see
/// [`Endgame::advise_step`]); with `max_states`, the largest of each shape
/// of at most that many states (a smaller set that plays worse, for little
/// memory or a quick test). docs/endgame.md measures their size and build.
pub fn corner_formations(max_states: Option<u64>) -> Vec<Formation> {
    let fits = |f: &Formation| max_states.is_none_or(|m| f.states() <= m);
    let step = (4..=7).rev().filter_map(|g| Formation::step(g).ok()).find(fits);
    let block = (5..=10).rev().filter_map(|g| Formation::block(g).ok()).find(fits);
    step.into_iter().chain(block).collect()
}

impl Endgame {
    /// The tables of `formations` from the folder `dir`: each read and
    /// checked, or built (on rayon's threads) and written there when its
    /// file is missing or refused. `event` hears what happens.
    ///
    /// # Errors
    /// [`EndgameError`] when the folder cannot be made or a table cannot be
    /// written (a refused file is rebuilt, not an error).
    pub fn open(
        dir: &Path,
        formations: &[Formation],
        event: &(dyn Fn(OpenEvent<'_>) + Sync),
    ) -> Result<Endgame, EndgameError> {
        let io_err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| EndgameError { path, source }
        };
        fs::create_dir_all(dir).map_err(io_err(dir))?;
        let mut tables = Vec::with_capacity(formations.len());
        for &formation in formations {
            let path = dir.join(file_name(formation));
            match Table::load(&path, formation) {
                Ok(table) => {
                    event(OpenEvent::Loaded(formation));
                    tables.push(table);
                    continue;
                }
                Err(TableError::Io(e)) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => event(OpenEvent::Refused(formation, &e)),
            }
            let total = formation.states();
            let table = Table::build(formation, &|done| {
                event(OpenEvent::Building { formation, done, total });
            });
            // Written under a temporary name and renamed, so that a build
            // cut off midway leaves no file that looks whole; the name is
            // this process's and this call's own, so that two programs
            // building into one folder at once (the command line, the web
            // server, Python share it) do not write into each other's file.
            static BUILDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let n = BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let tmp = path.with_extension(format!("egt.{}-{n}.part", std::process::id()));
            let file = fs::File::create(&tmp).map_err(io_err(&tmp))?;
            let mut w = BufWriter::new(file);
            table.write_to(&mut w).map_err(io_err(&tmp))?;
            w.into_inner()
                .map_err(|e| e.into_error())
                .and_then(|f| f.sync_all())
                .map_err(io_err(&tmp))?;
            fs::rename(&tmp, &path).map_err(io_err(&path))?;
            event(OpenEvent::Written(formation, &path));
            tables.push(table);
        }
        Ok(Endgame::from_tables(tables))
    }
}

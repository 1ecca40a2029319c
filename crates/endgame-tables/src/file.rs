//! Tables on disk: one file per formation, checked when opened, built
//! when missing or damaged.
//!
//! A file is a 32-byte header (the magic `2048EGT2`, the count of fixed
//! cells, the goal, the shape (0 for a chain, 1 for the corner step, 2 for
//! the corner block), five zero bytes, the state count and a checksum of
//! the odds, all little-endian) followed by every state's odds as a
//! little-endian `u16`. A layered table ([`Formation::is_layered`]) has the
//! magic `2048EGT3` and a byte for each state (its best move and odds),
//! in the order its layers were built.
//!
//! A program holds a file's bytes as [`Opening::hold`] says: read into its
//! memory ([`read_whole`]) or mapped by the engine, so that the programs
//! that play one folder share one copy in the page cache. Either way the
//! table reads its odds from those bytes.
//!
//! What is checked when: the header and the length at every open (a
//! foreign, truncated or lengthened file, or another formation's, is
//! refused at once); the odds against the header's checksum when a table
//! is opened for the first time since its file was written, which means
//! reading all of it (gigabytes for the corner tables), and then a *check
//! stamp* beside the file records it: the file's size, device, inode and
//! times of modification and change, and its checksum. A later open whose
//! stamp matches skips the full check, so a program starts at once. Any
//! write to the file changes its change time, which no program can set
//! back, so a file damaged through the file system after its check no
//! longer matches its stamp and is checked, and refused, again. The files
//! themselves are never written in place: each is written under a
//! temporary name and renamed. [`Check::Full`] checks every file in full
//! whatever its stamp (`tables build` does).

use std::fmt;
use std::fs;
use std::io::{self, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Endgame, Formation, Full, Geometry, Odds, Shape, Table, build};

/// The last byte counts the format: 1 held odds rounded to the nearest
/// step, 2 rounded down (see `build::solve`); a file of another format is
/// refused, and so built again. [`LAYERED`] is the layered tables'.
const MAGIC: &[u8; 8] = b"2048EGT2";

/// The format byte of a layered table's magic.
const LAYERED: u8 = b'3';
pub(super) const HEADER: usize = 32;

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

/// Why the tables could not be opened or built.
#[derive(Debug)]
pub enum EndgameError {
    /// Reading or writing `path` failed.
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What failed.
        source: io::Error,
    },
    /// The folder cannot be written, so the tables missing there cannot
    /// be built (a read-only or foreign folder).
    NotWritable {
        /// The tables' folder.
        dir: PathBuf,
        /// What refused the write.
        source: io::Error,
    },
    /// The disk holding the folder has less free space than the tables
    /// still to build need; nothing was written.
    NoSpace {
        /// The tables' folder.
        dir: PathBuf,
        /// The bytes of the tables still to build.
        needed: u64,
        /// The bytes free for this user.
        available: u64,
    },
}

impl fmt::Display for EndgameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EndgameError::Io { path, source } => {
                write!(f, "endgame tables at {}: {source}", path.display())
            }
            EndgameError::NotWritable { dir, source } => write!(
                f,
                "cannot write the endgame tables' folder {} ({source}): the tables cannot be \
                 built there",
                dir.display()
            ),
            EndgameError::NoSpace { dir, needed, available } => write!(
                f,
                "the endgame tables need {} of free disk space in {}, which has {}: nothing \
                 was written",
                size_text(*needed),
                dir.display(),
                size_text(*available)
            ),
        }
    }
}

impl std::error::Error for EndgameError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EndgameError::Io { source, .. } | EndgameError::NotWritable { source, .. } => {
                Some(source)
            }
            EndgameError::NoSpace { .. } => None,
        }
    }
}

/// `bytes` as a user reads a file's size: `6.69 GB`, `583 kB`.
pub fn size_text(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.0} MB", b / 1e6)
    } else {
        format!("{:.0} kB", (b / 1e3).max(1.0))
    }
}

/// A table file's bytes as a program holds them: read into its memory (a
/// `Vec<u8>`: [`read_whole`]) or mapped (the engine maps them; this crate
/// has no unsafe code).
pub type TableBytes = Arc<dyn AsRef<[u8]> + Send + Sync>;

/// How much of a table file [`Endgame::open`] checks (the module docs say
/// why).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// The header and the length, and the odds against the checksum
    /// unless the file's check stamp says that this very file was checked.
    Stamped,
    /// The header, the length and the odds, whatever the stamp says (and
    /// the stamp renewed).
    Full,
}

/// How [`Endgame::open`] holds the table files it opens, and how much of
/// each it checks.
#[derive(Clone, Copy)]
pub struct Opening<'a> {
    /// Holds an open table file's bytes (the whole file, header included):
    /// [`read_whole`] reads them into the process's memory; the engine's
    /// `open_tables` maps them.
    pub hold: &'a (dyn Fn(&fs::File) -> io::Result<TableBytes> + Sync),
    /// How much of each file to check.
    pub check: Check,
    /// The bytes free for this user on the disk that holds a folder, if
    /// known: a build that would not fit is refused before it starts. This
    /// crate knows only the standard library, which does not say;
    /// [`space_unknown`] skips the check, the engine asks the system.
    pub free_space: &'a (dyn Fn(&Path) -> Option<u64> + Sync),
}

impl fmt::Debug for Opening<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Opening").field("check", &self.check).finish_non_exhaustive()
    }
}

/// A file's bytes read into memory: [`Opening::hold`] for a program that
/// does not map them.
///
/// # Errors
/// The reading's.
pub fn read_whole(file: &fs::File) -> io::Result<TableBytes> {
    let mut bytes = Vec::new();
    (&*file).read_to_end(&mut bytes)?;
    Ok(Arc::new(bytes))
}

/// A 64-bit checksum of the odds (FNV-1a over 64-bit words, each four
/// states' odds little-endian, the last padded with zeros; then mixed):
/// not cryptographic, it catches damage, not tampering.
struct Checksum(u64);

impl Checksum {
    fn new() -> Checksum {
        Checksum(0xcbf2_9ce4_8422_2325)
    }

    fn word(&mut self, w: u64) {
        self.0 = (self.0 ^ w).wrapping_mul(0x0000_0100_0000_01b3);
    }

    /// The odds as the file holds them; every call but the last takes a
    /// multiple of 8 bytes.
    fn bytes(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.word(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.word(u64::from_le_bytes(last));
        }
    }

    /// The odds as built.
    fn odds(&mut self, odds: &[u16]) {
        for chunk in odds.chunks(4) {
            let w = chunk.iter().enumerate().map(|(i, &v)| u64::from(v) << (16 * i)).sum();
            self.word(w);
        }
    }

    fn finish(self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^ h >> 33
    }
}

/// The checksum of the `len` bytes of odds that `r` reads.
fn checksum_of(r: &mut impl Read, len: u64) -> Result<u64, TableError> {
    let mut sum = Checksum::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut left = len;
    while left > 0 {
        let want = left.min(buf.len() as u64) as usize;
        let got = read_full(r, &mut buf[..want])?;
        if got < want {
            // The length was checked before: the file shrank since.
            let found = HEADER as u64 + len - left + got as u64;
            return Err(TableError::Truncated { expected: HEADER as u64 + len, found });
        }
        sum.bytes(&buf[..got]);
        left -= got as u64;
    }
    Ok(sum.finish())
}

/// The formation of the table file whose bytes are `bytes` (the whole file
/// or, for its length, at least its header) and its checksum, once its
/// magic, format and formation are checked and its length is the
/// formation's.
fn header(bytes: &[u8], len: u64) -> Result<(Formation, u64), TableError> {
    if bytes.len() < 8 || bytes[..7] != MAGIC[..7] {
        return Err(TableError::NotATable);
    }
    if bytes[7] != MAGIC[7] && bytes[7] != LAYERED {
        return Err(TableError::Format(bytes[7]));
    }
    if bytes.len() < HEADER {
        return Err(TableError::Truncated { expected: HEADER as u64, found: len });
    }
    let formation = match bytes[10] {
        0 => Formation::new(usize::from(bytes[8]), bytes[9]),
        1 if usize::from(bytes[8]) == super::STEP.len() => Formation::step(bytes[9]),
        2 if usize::from(bytes[8]) == super::BLOCK.len() => Formation::block(bytes[9]),
        4 if usize::from(bytes[8]) == super::BLOCK.len() => Formation::collapse(bytes[9]),
        kind => {
            return Err(TableError::Header(format!(
                "no formation has shape {kind} and {} fixed cells",
                bytes[8]
            )));
        }
    }
    .map_err(|e| TableError::Header(e.to_string()))?;
    let states = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes"));
    if bytes[11..16] != [0; 5] || states != formation.states() {
        return Err(TableError::Header(format!(
            "{states} states where a {formation} has {}",
            formation.states()
        )));
    }
    if (bytes[7] == LAYERED) != formation.is_layered() {
        return Err(TableError::Format(bytes[7]));
    }
    let expected = file_bytes(formation);
    if len < expected {
        return Err(TableError::Truncated { expected, found: len });
    }
    if len > expected {
        return Err(TableError::Header("bytes after the last state".into()));
    }
    Ok((formation, u64::from_le_bytes(bytes[24..32].try_into().expect("8 bytes"))))
}

impl Table {
    /// Writes a full table in the file format of this module (a compact
    /// one goes with the others of its set: [`Endgame::write_compact`]).
    ///
    /// # Errors
    /// The writer's; [`io::ErrorKind::InvalidInput`] for a compact table.
    pub fn write_to(&self, w: &mut impl Write) -> io::Result<()> {
        let full = match &self.odds {
            Odds::Full(full) => full,
            // Its bytes are a whole file's, header included.
            Odds::Layered(layered) => return w.write_all((*layered.bytes).as_ref()),
            Odds::Kept(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "a compact table is written with its set (Endgame::write_compact)",
                ));
            }
        };
        match full {
            Full::Built(odds) => write_odds(w, &header_of(self.formation(), odds), odds),
            // Checked when opened: the file as it is.
            Full::File(bytes) => w.write_all((**bytes).as_ref()),
        }
    }

    /// The table in `bytes`, a whole file written by [`Table::write_to`],
    /// checking its header, length and checksum.
    ///
    /// # Errors
    /// [`TableError`] for bytes that are not a whole, undamaged table.
    pub fn from_bytes(bytes: TableBytes) -> Result<Table, TableError> {
        let all = (*bytes).as_ref();
        let (formation, sum) = header(all, all.len() as u64)?;
        if checksum_of(&mut &all[HEADER..], (all.len() - HEADER) as u64)? != sum {
            return Err(TableError::Checksum);
        }
        Ok(Table::of_file(formation, bytes))
    }

    /// The table of `formation` in `bytes`, a whole file already checked.
    fn of_file(formation: Formation, bytes: TableBytes) -> Table {
        if formation.is_layered() {
            Table::layered(formation, bytes)
        } else {
            Table { geometry: Geometry::new(formation), odds: Odds::Full(Full::File(bytes)) }
        }
    }
}

/// The file header of `f`'s layered table of these bytes (see the module
/// docs).
pub(super) fn layered_header(f: Formation, bytes: &[u8]) -> [u8; HEADER] {
    let mut sum = Streamed::default();
    sum.feed(bytes);
    header_with(f, LAYERED, bytes.len() as u64, sum.finish())
}

/// A file header: the formation `f`, format byte `format`, `states` and
/// the checksum `sum`.
fn header_with(f: Formation, format: u8, states: u64, sum: u64) -> [u8; HEADER] {
    let mut header = [0u8; HEADER];
    header[..7].copy_from_slice(&MAGIC[..7]);
    header[7] = format;
    header[8] = f.fixed() as u8;
    header[9] = f.goal();
    header[10] = f.shape().code();
    header[16..24].copy_from_slice(&states.to_le_bytes());
    header[24..32].copy_from_slice(&sum.to_le_bytes());
    header
}

/// A [`Checksum`] of bytes that come in pieces of any length, the same as
/// of the bytes in one piece.
#[derive(Default)]
struct Streamed {
    sum: Option<Checksum>,
    /// The bytes of a word begun and not ended.
    carry: [u8; 8],
    held: usize,
}

impl Streamed {
    fn feed(&mut self, mut bytes: &[u8]) {
        let sum = self.sum.get_or_insert_with(Checksum::new);
        if self.held > 0 {
            let take = (8 - self.held).min(bytes.len());
            self.carry[self.held..self.held + take].copy_from_slice(&bytes[..take]);
            self.held += take;
            bytes = &bytes[take..];
            if self.held < 8 {
                return;
            }
            sum.word(u64::from_le_bytes(self.carry));
            self.held = 0;
        }
        let whole = bytes.len() / 8 * 8;
        sum.bytes(&bytes[..whole]);
        self.held = bytes.len() - whole;
        self.carry[..self.held].copy_from_slice(&bytes[whole..]);
    }

    fn finish(self) -> u64 {
        let mut sum = self.sum.unwrap_or_else(Checksum::new);
        sum.bytes(&self.carry[..self.held]);
        sum.finish()
    }
}

/// The file header of `f`'s table of these odds.
fn header_of(f: Formation, odds: &[u16]) -> [u8; HEADER] {
    let mut sum = Checksum::new();
    sum.odds(odds);
    header_with(f, MAGIC[7], odds.len() as u64, sum.finish())
}

/// Writes a table file: `header`, then `odds`.
fn write_odds(w: &mut dyn Write, header: &[u8; HEADER], odds: &[u16]) -> io::Result<()> {
    w.write_all(header)?;
    let mut buf = Vec::with_capacity(1 << 16);
    for chunk in odds.chunks(1 << 15) {
        buf.clear();
        buf.extend(chunk.iter().flat_map(|v| v.to_le_bytes()));
        w.write_all(&buf)?;
    }
    Ok(())
}

/// The checksum a table file's header names, once the header is read
/// from the start of `file` (of `meta`'s length) and found to be
/// `formation`'s, of a length that fits it.
fn checksum_in_header(
    file: &mut fs::File,
    meta: &fs::Metadata,
    formation: Formation,
) -> Result<u64, TableError> {
    let mut head = [0u8; HEADER];
    let got = read_full(file, &mut head)?;
    let (found, sum) = header(&head[..got], meta.len())?;
    if found != formation {
        return Err(TableError::Header(format!(
            "it holds the {found} where the {formation} was expected"
        )));
    }
    Ok(sum)
}

/// Opens the table of `formation` in `path` as `opening` says (see the
/// module docs); `checking` hears that its odds are about to be checked
/// in full.
fn open_file(
    path: &Path,
    formation: Formation,
    opening: Opening<'_>,
    checking: &dyn Fn(),
) -> Result<Table, TableError> {
    let mut file = fs::File::open(path).map_err(TableError::Io)?;
    let meta = file.metadata().map_err(TableError::Io)?;
    // A file of the wrong length is refused before it is held.
    let sum = checksum_in_header(&mut file, &meta, formation)?;
    let stamp = stamp_of(&meta, sum);
    let stamped = opening.check == Check::Stamped
        && stamp
            .as_ref()
            .is_some_and(|s| fs::read_to_string(stamp_path(path)).is_ok_and(|t| t == *s));
    if !stamped {
        checking();
        if checksum_of(&mut file, meta.len() - HEADER as u64)? != sum {
            return Err(TableError::Checksum);
        }
        if let Some(stamp) = stamp {
            // Without a stamp (a folder this program may not write) the
            // next open checks again: slower, never wrong.
            let _ = write_new(&stamp_path(path), &buffered, |w| w.write_all(stamp.as_bytes()));
        }
    }
    file.rewind().map_err(TableError::Io)?;
    let bytes = (opening.hold)(&file).map_err(TableError::Io)?;
    // What is held is what was checked: the same file, never written in
    // place (its length, at least, is checked again).
    if (*bytes).as_ref().len() as u64 != meta.len() {
        return Err(TableError::Truncated {
            expected: meta.len(),
            found: (*bytes).as_ref().len() as u64,
        });
    }
    Ok(Table::of_file(formation, bytes))
}

/// The check stamp of the table file `path`.
fn stamp_path(path: &Path) -> PathBuf {
    path.with_extension("egt.checked")
}

/// What the check stamp of a file with metadata `meta` and checksum `sum`
/// says: `None` where the file system does not give a change time.
#[cfg(unix)]
fn stamp_of(meta: &fs::Metadata, sum: u64) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    Some(format!(
        "checked {} bytes, device {} inode {}, modified {}.{:09}, changed {}.{:09}, checksum {sum:016x}\n",
        meta.size(),
        meta.dev(),
        meta.ino(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
    ))
}

#[cfg(not(unix))]
fn stamp_of(_meta: &fs::Metadata, _sum: u64) -> Option<String> {
    None
}

/// How a table file's bytes reach its temporary file: through a buffer,
/// or (in tests) through a writer that fails as a full disk would.
pub(super) type Sink = dyn Fn(fs::File) -> Box<dyn Write>;

/// Writes through a buffer: the sink of every program.
fn buffered(file: fs::File) -> Box<dyn Write> {
    Box::new(BufWriter::with_capacity(1 << 20, file))
}

/// Writes the file `path` with `write` through `sink`, under a temporary
/// name that is this process's and this call's own (ending `.part`), then
/// renamed once written and synced: a write cut off midway (a kill, a full
/// disk) leaves no file that looks whole, and two programs writing into
/// one folder at once (the command line, the web server, Python share it)
/// do not write into each other's file. A failed write removes its
/// temporary file; one left by a killed program is removed by the next
/// build ([`remove_stale_parts`]).
fn write_new(
    path: &Path,
    sink: &Sink,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    write_new_then(path, sink, |w| write(w).map(|()| None))
}

/// [`write_new`], where `write` may give bytes to write over the file's
/// start once the rest is written (a header that says what followed).
fn write_new_then(
    path: &Path,
    sink: &Sink,
    write: impl FnOnce(&mut dyn Write) -> io::Result<Option<[u8; HEADER]>>,
) -> io::Result<()> {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".{}-{n}{PART}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let result = fs::File::create(&tmp).and_then(|file| {
        let synced = file.try_clone()?;
        let mut w = sink(file);
        let start = write(&mut w)?;
        w.flush()?;
        drop(w);
        if let Some(start) = start {
            let mut file = &synced;
            file.rewind()?;
            file.write_all(&start)?;
        }
        synced.sync_all()?;
        fs::rename(&tmp, path)
    });
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// The end of a temporary file's name.
pub(super) const PART: &str = ".part";

/// Removes the temporary table files that killed programs left in `dir`
/// (gigabytes, for the corner's): called while holding the folder's build
/// lock, which every program writing a table holds, so that any such file
/// is no other program's work in progress. A check stamp's temporary file
/// (written without the lock, and small) is left alone.
fn remove_stale_parts(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.ends_with(PART) && name.contains(".egt.") && !name.contains(".egt.checked.") {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The lock file that one program building tables in a folder holds
/// while it builds; it names the program for those that wait.
pub(super) const LOCK_FILE: &str = "build.lock";

/// The folder's build lock, held: an exclusive lock on [`LOCK_FILE`],
/// which the system lets go when the program ends, however it ends (a
/// PID file would outlive a killed program and block the folder).
pub(super) struct BuildLock {
    _file: fs::File,
}

/// Takes `dir`'s build lock, after `event` hears who holds it if another
/// program does (it then waits for that program's build to end); and
/// whether it waited.
pub(super) fn lock_folder(
    dir: &Path,
    event: &(dyn Fn(OpenEvent<'_>) + Sync),
) -> Result<(BuildLock, bool), EndgameError> {
    let path = dir.join(LOCK_FILE);
    let mut file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|source| not_writable_or_io(dir, &path, source))?;
    let io_err = |source| EndgameError::Io { path: path.clone(), source };
    let waited = match file.try_lock() {
        Ok(()) => false,
        Err(fs::TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = (&file).read_to_string(&mut holder);
            let holder = holder.trim();
            let holder = if holder.is_empty() { "another program" } else { holder };
            event(OpenEvent::Waiting(holder));
            file.lock().map_err(io_err)?;
            true
        }
        Err(fs::TryLockError::Error(e)) => return Err(io_err(e)),
    };
    // Who builds, for the programs that will wait: this one.
    let program = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "a program".to_owned());
    let me = format!("{program} (process {})", std::process::id());
    let _ =
        file.set_len(0).and_then(|()| file.rewind()).and_then(|()| file.write_all(me.as_bytes()));
    Ok((BuildLock { _file: file }, waited))
}

/// A failure to write into `dir`: [`EndgameError::NotWritable`] where the
/// system refuses writes there, else the error at `path`.
fn not_writable_or_io(dir: &Path, path: &Path, source: io::Error) -> EndgameError {
    match source.kind() {
        io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => {
            EndgameError::NotWritable { dir: dir.to_path_buf(), source }
        }
        _ => EndgameError::Io { path: path.to_path_buf(), source },
    }
}

/// The free space is not known: [`Opening::free_space`] for a program that
/// does not ask the system (the engine does).
pub fn space_unknown(_dir: &Path) -> Option<u64> {
    None
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
        Shape::Collapse => format!("collapse-{:02}.egt", formation.goal()),
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
    /// A table's odds are about to be checked against its checksum, which
    /// reads its whole file: the first open since the file was written, or
    /// [`Check::Full`].
    Checking(Formation),
    /// A table was opened and checked.
    Loaded(Formation),
    /// A table file was refused and will be built again.
    Refused(Formation, &'a TableError),
    /// Another program holds the folder's build lock (named as it named
    /// itself): this one waits for its build to end, then opens what it
    /// built.
    Waiting(&'a str),
    /// Tables are about to be built: the free disk space was checked.
    Starting {
        /// The tables to build (those missing or damaged now).
        tables: usize,
        /// Their states.
        states: u64,
        /// Their files' bytes.
        bytes: u64,
    },
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
    /// The line a log shows for this event: one per table checked in
    /// full, refused and built, and one for a wait and for the start of a
    /// build; `None` for the others.
    pub fn log_line(&self) -> Option<String> {
        match self {
            OpenEvent::Checking(f) => Some(format!("checking the table of the {f} in full")),
            OpenEvent::Refused(f, why) => {
                Some(format!("the table of the {f} was refused ({why}): building it again"))
            }
            OpenEvent::Waiting(holder) => Some(format!(
                "waiting for {holder}, which is building endgame tables in this folder"
            )),
            OpenEvent::Starting { tables, states, bytes } => Some(format!(
                "building {tables} endgame table{}: {states} states, {} on disk",
                if *tables == 1 { "" } else { "s" },
                size_text(*bytes)
            )),
            OpenEvent::Written(f, path) => Some(format!(
                "built the table of the {f} ({} states) into {}",
                f.states(),
                path.display()
            )),
            OpenEvent::Loaded(_) | OpenEvent::Building { .. } => None,
        }
    }
}

/// The bytes of `formation`'s table file.
pub fn file_bytes(formation: Formation) -> u64 {
    let per_state = if formation.is_layered() { 1 } else { 2 };
    HEADER as u64 + per_state * formation.states()
}

/// What a folder holds of one table, as far as its header and check stamp
/// say (reading a few bytes, not the odds): [`table_status`].
#[derive(Debug)]
pub enum TableStatus {
    /// No file.
    Missing,
    /// A file of the right formation and length, checked in full since it
    /// was last written (its check stamp matches): opening it is instant.
    Checked,
    /// A file of the right formation and length, not checked since it was
    /// written (or in a folder where no stamp can be kept): opening it
    /// reads it all.
    Unchecked,
    /// A file that will be refused, and built again.
    Damaged(TableError),
}

/// What the folder `dir` holds of `formation`'s table.
pub fn table_status(dir: &Path, formation: Formation) -> TableStatus {
    let path = dir.join(file_name(formation));
    let mut file = match fs::File::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return TableStatus::Missing,
        Err(e) => return TableStatus::Damaged(TableError::Io(e)),
    };
    let head = file.metadata().map_err(TableError::Io).and_then(|meta| {
        let sum = checksum_in_header(&mut file, &meta, formation)?;
        Ok(stamp_of(&meta, sum))
    });
    match head {
        Err(why) => TableStatus::Damaged(why),
        Ok(Some(stamp)) if fs::read_to_string(stamp_path(&path)).is_ok_and(|t| t == stamp) => {
            TableStatus::Checked
        }
        Ok(_) => TableStatus::Unchecked,
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
    corner_formations_to(7, max_states)
}

/// The corner tables with the big step table, building 512 (21.8 GB,
/// layered: macroxue/2048-ai's big build); with `max_states`, as
/// [`corner_formations`] says. The final collapse's table is not among
/// them: on the boards where games enter the collapse its odds are the
/// big step table's, and it played the collapse no better
/// (docs/experiments/2026-11-29-final-collapse-own-goal.md).
pub fn corner_big_formations(max_states: Option<u64>) -> Vec<Formation> {
    corner_formations_to(9, max_states)
}

/// The corner tables with a step building at most `2^step`.
fn corner_formations_to(step: u8, max_states: Option<u64>) -> Vec<Formation> {
    let fits = |f: &Formation| max_states.is_none_or(|m| f.states() <= m);
    let step = (4..=step).rev().filter_map(|g| Formation::step(g).ok()).find(fits);
    let block = (5..=10).rev().filter_map(|g| Formation::block(g).ok()).find(fits);
    step.into_iter().chain(block).collect()
}

impl Endgame {
    /// The tables of `formations` from the folder `dir`: each opened as
    /// `opening` says and checked (see the module docs), or built (on
    /// rayon's threads), written there and opened when its file is missing
    /// or refused. `event` hears what happens.
    ///
    /// A build cannot hurt the folder: it first takes the folder's build
    /// lock (a program that finds it held waits, then opens what the other
    /// built), removes what killed builds left, and checks that the disk
    /// has room for every table still to build; each table is written
    /// under a temporary name and renamed once whole.
    ///
    /// # Errors
    /// [`EndgameError::NotWritable`] when a table must be built in a folder
    /// that cannot be written, [`EndgameError::NoSpace`] when the disk is
    /// too full for them, [`EndgameError::Io`] when the folder cannot be
    /// made or a table cannot be written or opened once written (a refused
    /// file is rebuilt, not an error).
    pub fn open(
        dir: &Path,
        formations: &[Formation],
        opening: Opening<'_>,
        event: &(dyn Fn(OpenEvent<'_>) + Sync),
    ) -> Result<Endgame, EndgameError> {
        Endgame::open_through(dir, formations, opening, event, &buffered)
    }

    /// [`Endgame::open`], writing the tables it builds through `sink`.
    pub(super) fn open_through(
        dir: &Path,
        formations: &[Formation],
        opening: Opening<'_>,
        event: &(dyn Fn(OpenEvent<'_>) + Sync),
        sink: &Sink,
    ) -> Result<Endgame, EndgameError> {
        let io_err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| EndgameError::Io { path, source }
        };
        fs::create_dir_all(dir).map_err(|e| not_writable_or_io(dir, dir, e))?;
        let mut tables = Vec::with_capacity(formations.len());
        // Taken before the first table to build, held to the last.
        let mut lock: Option<BuildLock> = None;
        for (i, &formation) in formations.iter().enumerate() {
            let path = dir.join(file_name(formation));
            let checking = || event(OpenEvent::Checking(formation));
            let missing = match open_file(&path, formation, opening, &checking) {
                Ok(table) => {
                    event(OpenEvent::Loaded(formation));
                    tables.push(table);
                    continue;
                }
                Err(TableError::Io(e)) if e.kind() == io::ErrorKind::NotFound => true,
                Err(e) => {
                    event(OpenEvent::Refused(formation, &e));
                    false
                }
            };
            if lock.is_none() {
                let (held, waited) = lock_folder(dir, event)?;
                lock = Some(held);
                remove_stale_parts(dir);
                // Another program may have built it meanwhile (a file
                // just refused is not read again unless this one waited).
                if (missing || waited)
                    && let Ok(table) = open_file(&path, formation, opening, &checking)
                {
                    event(OpenEvent::Loaded(formation));
                    tables.push(table);
                    continue;
                }
                // Every table still to build, this one included: their
                // room is checked once, before anything is written.
                let rest = formations[i + 1..].iter().copied().filter(|&f| {
                    matches!(table_status(dir, f), TableStatus::Missing | TableStatus::Damaged(_))
                });
                let todo: Vec<Formation> = std::iter::once(formation).chain(rest).collect();
                let bytes = todo.iter().map(|&f| file_bytes(f)).sum();
                if let Some(available) = (opening.free_space)(dir)
                    && available < bytes
                {
                    return Err(EndgameError::NoSpace {
                        dir: dir.to_path_buf(),
                        needed: bytes,
                        available,
                    });
                }
                let states = todo.iter().map(|f| f.states()).sum();
                event(OpenEvent::Starting { tables: todo.len(), states, bytes });
            }
            let total = formation.states();
            let progress = |done| event(OpenEvent::Building { formation, done, total });
            let geometry = Geometry::new(formation);
            let mut header = [0u8; HEADER];
            // A layered table goes to its file a layer at a time as it is
            // solved; the others are solved in memory, then written.
            write_new_then(&path, sink, |w| {
                if formation.is_layered() {
                    w.write_all(&header)?;
                    let mut sum = Streamed::default();
                    let mut layer = |bytes: &[u8]| {
                        sum.feed(bytes);
                        w.write_all(bytes)
                    };
                    build::solve_into(&geometry, &progress, build::Out::Layered(&mut layer))?;
                    header = header_with(formation, LAYERED, total, sum.finish());
                    Ok(Some(header))
                } else {
                    let odds = build::solve(&geometry, &progress);
                    header = header_of(formation, &odds);
                    write_odds(w, &header, &odds).map(|()| None)
                }
            })
            .map_err(io_err(&path))?;
            // Its stamp: the file holds what was checksummed in memory.
            let meta = fs::metadata(&path).map_err(io_err(&path))?;
            let sum = u64::from_le_bytes(header[24..32].try_into().expect("8 bytes"));
            if let Some(stamp) = stamp_of(&meta, sum) {
                let _ = write_new(&stamp_path(&path), &buffered, |w| w.write_all(stamp.as_bytes()));
            }
            event(OpenEvent::Written(formation, &path));
            // Held as every other table (mapped, where the program maps
            // them); the memory of the build was given back.
            let stamped = Opening { check: Check::Stamped, ..opening };
            let table = open_file(&path, formation, stamped, &|| {}).map_err(|e| {
                io_err(&path)(io::Error::other(format!("the table just written: {e}")))
            })?;
            tables.push(table);
        }
        drop(lock);
        Ok(Endgame::from_tables(tables))
    }
}

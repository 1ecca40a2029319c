//! The two file formats: a training checkpoint (every weight as `f32`,
//! with the TC state and the counters, to resume exactly) and the compact
//! weights file that is shipped (quantised, compressed). Both start with a
//! header that names the format, its version and the network's shape, and
//! end with (or carry) a checksum, so that a wrong, truncated or damaged
//! file is an error, never a silently wrong network.
//!
//! Version 2 of both formats adds the stages after the shape: their count
//! (u32), then a u32 per boundary naming the tiles a board must hold to be
//! past it, as exponents, one per byte from the lowest: 14 for stage 1
//! (a 16384, [`STAGE_EXPONENT`]), `14 | 13 << 8` for stage 2 (a 16384 and
//! another tile of 8192, [`STAGE_2_EXPONENT`]). Whole words, as the
//! checksum reads words. Version 1 files (one stage, no such field) still
//! load.

use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use crate::network::{
    CELL_VALUES, MAX_STAGES, N_TUPLES, N_WEIGHTS, Network, PATTERNS, STAGE_2_EXPONENT,
    STAGE_EXPONENT, StageError, TUPLE_LEN,
};
use crate::train::{Coherence, Counters, Trainer};

const CHECKPOINT_MAGIC: &[u8; 8] = b"N2048CKP";
/// The version both formats are written in; [`READ_VERSIONS`] are read.
pub(crate) const VERSION: u32 = 2;
/// The versions this build reads: 1 (one stage, before stages existed) and
/// 2 (with the stages in the header).
const READ_VERSIONS: [u32; 2] = [1, 2];
const FLAG_COHERENCE: u32 = 1;

/// Why a weights or checkpoint file could not be used: the file and what
/// was wrong with it.
#[derive(Debug)]
pub struct FileError {
    path: PathBuf,
    kind: FileErrorKind,
}

/// What was wrong with a file.
#[derive(Debug)]
#[non_exhaustive]
pub enum FileErrorKind {
    /// The file could not be read or written.
    Io(io::Error),
    /// The file does not start with the format's magic bytes; the format
    /// expected.
    NotOurs(&'static str),
    /// A training checkpoint where a weights file was expected.
    Checkpoint,
    /// A version of the format this build does not read.
    Version(u32),
    /// The file holds a network of another shape.
    Shape,
    /// The file holds a network whose stages (their count or boundaries)
    /// this build does not know.
    Stages,
    /// The file ends early.
    Truncated,
    /// The contents do not match the checksum, or do not decode.
    Corrupt(&'static str),
    /// No shipped weights file in any of these places (see
    /// [`crate::shipped_weights_places`]).
    NotFound(Vec<PathBuf>),
}

impl FileError {
    pub(crate) fn new(path: &Path, kind: FileErrorKind) -> FileError {
        FileError { path: path.to_owned(), kind }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What was wrong.
    pub fn kind(&self) -> &FileErrorKind {
        &self.kind
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let FileErrorKind::NotFound(places) = &self.kind {
            let places: Vec<String> = places.iter().map(|p| p.display().to_string()).collect();
            return write!(
                f,
                "the shipped weights file {} is in none of: {} (put it in one, name it with \
                 {} or pass a weights file)",
                crate::SHIPPED_FILE_NAME,
                places.join(", "),
                crate::WEIGHTS_VAR
            );
        }
        write!(f, "{}: ", self.path.display())?;
        match &self.kind {
            FileErrorKind::Io(source) => write!(f, "{source}"),
            FileErrorKind::NotOurs(expected) => write!(f, "not {expected} (wrong magic bytes)"),
            FileErrorKind::Checkpoint => f.write_str(
                "a training checkpoint, not a weights file: write its network as one with \
                 `cli-ascii export-weights CHECKPOINT OUT` and use that",
            ),
            FileErrorKind::Version(v) => {
                write!(f, "format version {v}, this build reads versions 1 and 2")
            }
            FileErrorKind::Shape => write!(
                f,
                "a network of another shape (this build's is {N_TUPLES} tuples of {TUPLE_LEN} cells)"
            ),
            FileErrorKind::Stages => write!(
                f,
                "a network of stages this build does not know (it reads 1 to \
                 {MAX_STAGES} stages, split at a tile of {} and at {} with another of {})",
                1u32 << STAGE_EXPONENT,
                1u32 << STAGE_EXPONENT,
                1u32 << STAGE_2_EXPONENT
            ),
            FileErrorKind::Truncated => f.write_str("the file is truncated"),
            FileErrorKind::Corrupt(why) => write!(f, "corrupt ({why})"),
            FileErrorKind::NotFound(_) => Ok(()),
        }
    }
}

/// No `source`: the message already ends with the I/O error's own, and a
/// chain printed by `anyhow` or a Python traceback would say it twice
/// ("No such file or directory (os error 2): No such file or directory (os
/// error 2)"). [`FileError::kind`] gives the error itself.
impl std::error::Error for FileError {}

/// FNV-1a over 32-bit words (and the trailing bytes), quick enough for
/// the 800 MB of a checkpoint and enough to catch damage (not an attacker).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Checksum(u64);

impl Checksum {
    pub(crate) fn new() -> Checksum {
        Checksum(0xCBF2_9CE4_8422_2325)
    }

    pub(crate) fn update(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(4);
        for c in &mut chunks {
            let w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            self.0 = (self.0 ^ u64::from(w)).wrapping_mul(0x0000_0100_0000_01B3);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3);
        }
    }

    pub(crate) fn value(self) -> u64 {
        self.0
    }
}

/// The shape part of a header: tuple count, tuple length, cell values and
/// the patterns' cells.
pub(crate) fn shape_bytes() -> Vec<u8> {
    let mut out = Vec::new();
    for v in [N_TUPLES, TUPLE_LEN, CELL_VALUES] {
        out.extend_from_slice(&(v as u32).to_le_bytes());
    }
    for p in PATTERNS {
        out.extend_from_slice(&p);
    }
    out
}

/// The stages part of a version-2 header: the count, then for each stage
/// after the first the tiles that put a board in it (see the module docs).
pub(crate) fn stage_bytes(stages: usize) -> Vec<u8> {
    let boundaries =
        [u32::from(STAGE_EXPONENT), u32::from(STAGE_EXPONENT) | u32::from(STAGE_2_EXPONENT) << 8];
    let mut out = (stages as u32).to_le_bytes().to_vec();
    for b in &boundaries[..stages.saturating_sub(1)] {
        out.extend_from_slice(&b.to_le_bytes());
    }
    out
}

/// A writer that hashes what it writes.
struct Hashed<W> {
    inner: W,
    sum: Checksum,
}

impl<W: Write> Hashed<W> {
    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        // Hashing piece by piece equals hashing the whole file (what the
        // reader does) only in whole words.
        debug_assert!(bytes.len().is_multiple_of(4), "the checksum reads whole words");
        self.sum.update(bytes);
        self.inner.write_all(bytes)
    }
}

/// Writes `file` through a temporary file beside it, renamed into place
/// once complete, so that a crash or Ctrl-C mid-write never leaves a
/// truncated file where a good one was.
pub(crate) fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> Result<(), FileError> {
    let io_err = |source| FileError::new(path, FileErrorKind::Io(source));
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let file = File::create(&tmp).map_err(io_err)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    write(&mut out).map_err(io_err)?;
    let file = out.into_inner().map_err(|e| io_err(e.into_error()))?;
    file.sync_all().map_err(io_err)?;
    std::fs::rename(&tmp, path).map_err(io_err)
}

/// Writes an array of atomics little-endian, a chunk at a time.
fn put_array<A>(
    out: &mut Hashed<&mut BufWriter<File>>,
    values: &[A],
    bytes: impl Fn(&A, &mut Vec<u8>),
) -> io::Result<()> {
    let mut buf = Vec::with_capacity(1 << 17);
    for chunk in values.chunks(1 << 14) {
        buf.clear();
        for v in chunk {
            bytes(v, &mut buf);
        }
        out.put(&buf)?;
    }
    Ok(())
}

/// Writes a checkpoint of `trainer`: every weight, the TC state and the
/// counters.
///
/// # Errors
/// [`FileError`] when the file cannot be written.
pub fn save_checkpoint(trainer: &Trainer, path: &Path) -> Result<(), FileError> {
    let counters = trainer.counters();
    write_atomically(path, |w| {
        let mut out = Hashed { inner: w, sum: Checksum::new() };
        out.put(CHECKPOINT_MAGIC)?;
        out.put(&VERSION.to_le_bytes())?;
        out.put(&shape_bytes())?;
        out.put(&stage_bytes(trainer.network().stages()))?;
        let tc = trainer.coherence();
        out.put(&(if tc.is_some() { FLAG_COHERENCE } else { 0 }).to_le_bytes())?;
        out.put(&counters.episodes.to_le_bytes())?;
        out.put(&counters.moves.to_le_bytes())?;
        out.put(&counters.seconds.to_le_bytes())?;
        put_array(&mut out, trainer.network().raw(), |w, buf| {
            buf.extend_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
        })?;
        if let Some(tc) = tc {
            put_array(&mut out, &tc.errors, |e, buf| {
                buf.extend_from_slice(&e.load(Ordering::Relaxed).to_le_bytes());
            })?;
        }
        let sum = out.sum.value();
        out.inner.write_all(&sum.to_le_bytes())
    })
}

/// What a checkpoint holds.
#[derive(Debug)]
pub struct Checkpoint {
    /// The network.
    pub network: Network,
    /// The counters at the time it was written.
    pub counters: Counters,
    pub(crate) coherence: Option<Coherence>,
}

impl Checkpoint {
    /// Whether it holds TC state.
    pub fn has_coherence(&self) -> bool {
        self.coherence.is_some()
    }

    /// This checkpoint with `stages` stages: the network's new stage
    /// starts as a copy of its last one ([`Network::into_stages`]), and so
    /// does its TC state. Copying the TC state keeps each stage-1 weight's
    /// learning rate where its stage-0 twin had brought it: a fresh state
    /// would give every one of them a full step again (rate 1) and throw
    /// the promoted values, which are the best guess we have, around; a
    /// weight whose errors now agree in sign regains its rate as they
    /// accumulate.
    ///
    /// # Errors
    /// [`StageError`] as [`Network::into_stages`].
    pub fn into_stages(self, stages: usize) -> Result<Checkpoint, StageError> {
        let network = self.network.into_stages(stages)?;
        let coherence = self.coherence.map(|tc| tc.into_stages(stages)).transpose()?;
        Ok(Checkpoint { network, counters: self.counters, coherence })
    }

    /// A trainer that continues from this checkpoint with `config`.
    ///
    /// # Errors
    /// [`crate::TrainError`] for bad settings.
    pub fn into_trainer(
        self,
        config: crate::TrainConfig,
    ) -> Result<Trainer, crate::train::TrainError> {
        Trainer::with_coherence(config, self.network, self.coherence, self.counters)
    }
}

/// Whether the file starts with a checkpoint's magic bytes (a file
/// shorter than them does not), read without reading the rest.
pub(crate) fn is_checkpoint(path: &Path) -> Result<bool, FileError> {
    let mut magic = Vec::with_capacity(CHECKPOINT_MAGIC.len());
    File::open(path)
        .and_then(|f| f.take(CHECKPOINT_MAGIC.len() as u64).read_to_end(&mut magic))
        .map_err(|e| FileError::new(path, FileErrorKind::Io(e)))?;
    Ok(magic == CHECKPOINT_MAGIC)
}

/// Reads the whole of `path`.
pub(crate) fn read_all(path: &Path) -> Result<Vec<u8>, FileError> {
    let io_err = |source| FileError::new(path, FileErrorKind::Io(source));
    let mut bytes = Vec::new();
    File::open(path).and_then(|mut f| f.read_to_end(&mut bytes)).map_err(io_err)?;
    Ok(bytes)
}

/// A cursor over a file's bytes that turns running out into
/// [`FileError::Truncated`].
pub(crate) struct Reader<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) path: &'a Path,
}

impl<'a> Reader<'a> {
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], FileError> {
        if self.bytes.len() < n {
            return Err(FileError::new(self.path, FileErrorKind::Truncated));
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    pub(crate) fn u32(&mut self) -> Result<u32, FileError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }

    pub(crate) fn u64(&mut self) -> Result<u64, FileError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }

    /// Checks the magic bytes, the version and the shape, and reads the
    /// stages (1 in a version-1 file, which has no such field).
    pub(crate) fn header(
        &mut self,
        magic: &[u8; 8],
        expected: &'static str,
    ) -> Result<usize, FileError> {
        let path = self.path;
        if self.bytes.len() < 8 || &self.bytes[..8] != magic {
            return Err(FileError::new(path, FileErrorKind::NotOurs(expected)));
        }
        self.take(8)?;
        let found = self.u32()?;
        if !READ_VERSIONS.contains(&found) {
            return Err(FileError::new(path, FileErrorKind::Version(found)));
        }
        let shape = shape_bytes();
        if self.take(shape.len())? != shape.as_slice() {
            return Err(FileError::new(path, FileErrorKind::Shape));
        }
        if found == 1 {
            return Ok(1);
        }
        let stages = self.u32()? as usize;
        if !(1..=MAX_STAGES).contains(&stages) {
            return Err(FileError::new(path, FileErrorKind::Stages));
        }
        if self.take(4 * (stages - 1))? != &stage_bytes(stages)[4..] {
            return Err(FileError::new(path, FileErrorKind::Stages));
        }
        Ok(stages)
    }
}

/// Reads a checkpoint written by [`save_checkpoint`].
///
/// # Errors
/// [`FileError`] when the file cannot be read, is not a checkpoint of this
/// shape and version, is truncated or fails its checksum.
pub fn load_checkpoint(path: &Path) -> Result<Checkpoint, FileError> {
    let bytes = read_all(path)?;
    let mut r = Reader { bytes: &bytes, path };
    let stages = r.header(CHECKPOINT_MAGIC, "a training checkpoint")?;
    let n = stages * N_WEIGHTS;
    let flags = r.u32()?;
    let episodes = r.u64()?;
    let moves = r.u64()?;
    let seconds = f64::from_bits(r.u64()?);
    let coherence = flags & FLAG_COHERENCE != 0;
    let body = r.take(if coherence { 12 } else { 4 } * n)?;
    let stored = r.u64()?;
    if !r.bytes.is_empty() {
        return Err(FileError::new(path, FileErrorKind::Corrupt("bytes after the end")));
    }
    let mut sum = Checksum::new();
    sum.update(&bytes[..bytes.len() - 8]);
    if sum.value() != stored {
        return Err(FileError::new(path, FileErrorKind::Corrupt("checksum mismatch")));
    }
    let (w, rest) = body.split_at(n * 4);
    let network = Network::from_raw(
        w.chunks_exact(4)
            .map(|c| AtomicU32::new(u32::from_le_bytes(c.try_into().expect("4 bytes"))))
            .collect(),
    );
    let coherence = coherence.then(|| Coherence {
        errors: rest
            .chunks_exact(8)
            .map(|c| AtomicU64::new(u64::from_le_bytes(c.try_into().expect("8 bytes"))))
            .collect(),
    });
    Ok(Checkpoint { network, counters: Counters { episodes, moves, seconds }, coherence })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TrainConfig;

    /// A version-1 checkpoint (no stages field) still loads, as one stage:
    /// made here from a version-2 one by dropping the field, as the files
    /// of the training run before stages are.
    #[test]
    fn a_version_1_checkpoint_still_loads() {
        let mut config = TrainConfig::standard();
        config.threads = 1;
        config.coherence = false;
        let net = Network::from_weights((0..N_WEIGHTS).map(|i| (i % 977) as f32 * 0.5))
            .expect("right size");
        let counters = Counters { episodes: 12, moves: 3456, seconds: 7.5 };
        let trainer = Trainer::new(config, net, counters).expect("valid");
        let path = std::env::temp_dir().join(format!("ntuple-v1-{}.ckpt", std::process::id()));
        save_checkpoint(&trainer, &path).expect("written");
        let v2 = std::fs::read(&path).expect("readable");
        let at = 12 + shape_bytes().len();
        assert_eq!(&v2[at..at + 4], &[1, 0, 0, 0], "one stage");
        let mut v1 = [CHECKPOINT_MAGIC.as_slice(), &1u32.to_le_bytes(), &v2[12..at]].concat();
        v1.extend_from_slice(&v2[at + 4..v2.len() - 8]);
        let mut sum = Checksum::new();
        sum.update(&v1);
        v1.extend_from_slice(&sum.value().to_le_bytes());
        std::fs::write(&path, &v1).expect("writable");
        let cp = load_checkpoint(&path);
        let _ = std::fs::remove_file(&path);
        let cp = cp.expect("a version-1 checkpoint loads");
        assert_eq!(cp.network.stages(), 1);
        assert_eq!(cp.counters, counters);
        assert!(trainer.network().weights().eq(cp.network.weights()));
    }
}

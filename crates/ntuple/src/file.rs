//! The two file formats: a training checkpoint (every weight as `f32`,
//! with the TC state and the counters, to resume exactly; compressed
//! without loss since the flag `FLAG_PACKED`) and the compact
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

use std::borrow::Cow;
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
use rayon::prelude::*;

const CHECKPOINT_MAGIC: &[u8; 8] = b"N2048CKP";
/// The version both formats are written in; [`READ_VERSIONS`] are read.
pub(crate) const VERSION: u32 = 2;
/// The versions this build reads: 1 (one stage, before stages existed) and
/// 2 (with the stages in the header).
const READ_VERSIONS: [u32; 2] = [1, 2];
const FLAG_COHERENCE: u32 = 1;
/// The body (every weight, then the TC state) is stored compressed, as
/// length-led zstd frames (see `Packer`). Checkpoints written before
/// this flag hold it plain, and still load; builds from before it read a
/// compressed checkpoint as truncated. A flag this build does not know
/// makes the file corrupt, so that the next one is not misread the same way.
const FLAG_PACKED: u32 = 2;

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
                 `lab export-weights CHECKPOINT OUT` and use that",
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
/// the 800 MB per stage of a checkpoint and enough to catch damage (not an attacker).
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

/// The largest piece of a compressed stream (a checkpoint's body, a
/// weights file's varints) written as one zstd frame: frames decompress
/// independently, so a loader unpacks them on every core.
pub(crate) const FRAME_BYTES: usize = 8 << 20;

/// A checkpoint's body frames compressed at once, on every core: at most
/// about 128 MiB held while writing (64 MiB of words and their frames),
/// against the body's 805 MB per stage (268 MB without TC state).
const BATCH_FRAMES: usize = 8;

/// How hard zstd works on a checkpoint. One is written every few minutes,
/// on every core, while the training threads go on beside it, so the
/// fastest level: a higher one packed a trained network's checkpoint no
/// smaller and took twice as long
/// (docs/experiments/2026-11-23-training-speed.md).
const CHECKPOINT_LEVEL: i32 = 1;

/// A checkpoint's body as it is written: hashed uncompressed (the
/// checksum covers the header and the body, not their packing), then
/// compressed a batch of frames at a time, each frame led by its
/// compressed length (u32), so that a file cut short is
/// [`FileErrorKind::Truncated`].
struct Packer<'a> {
    out: &'a mut BufWriter<File>,
    sum: Checksum,
    raw: Vec<u8>,
}

impl Packer<'_> {
    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        // Hashing piece by piece equals hashing the whole body (what the
        // reader does) only in whole words.
        debug_assert!(bytes.len().is_multiple_of(4), "the checksum reads whole words");
        self.sum.update(bytes);
        self.raw.extend_from_slice(bytes);
        if self.raw.len() >= BATCH_FRAMES * FRAME_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        let frames: Vec<Vec<u8>> = self
            .raw
            .par_chunks(FRAME_BYTES)
            .map(|piece| zstd::bulk::compress(piece, CHECKPOINT_LEVEL))
            .collect::<Result<_, _>>()?;
        for frame in frames {
            let len = u32::try_from(frame.len()).map_err(io::Error::other)?;
            self.out.write_all(&len.to_le_bytes())?;
            self.out.write_all(&frame)?;
        }
        self.raw.clear();
        Ok(())
    }

    /// Writes what is left; the checksum of the header and the body.
    fn finish(mut self) -> io::Result<u64> {
        self.flush()?;
        Ok(self.sum.value())
    }
}

/// The decompressed size a zstd frame records; `None` if it records none.
pub(crate) fn frame_size(frame: &[u8]) -> Option<usize> {
    let size = zstd::zstd_safe::get_frame_content_size(frame).ok()??;
    usize::try_from(size).ok()
}

/// `frames` (each with the size it decompresses to) decompressed on every
/// core, each straight into its place; `None` unless the sizes add up to
/// `raw_len` and every frame decodes to its size.
pub(crate) fn unpack_frames(frames: Vec<(&[u8], usize)>, raw_len: usize) -> Option<Vec<u8>> {
    let mut raw = vec![0u8; raw_len];
    let mut outputs = Vec::with_capacity(frames.len());
    let mut tail = raw.as_mut_slice();
    for &(_, size) in &frames {
        let (head, after) = tail.split_at_mut_checked(size)?;
        outputs.push(head);
        tail = after;
    }
    if !tail.is_empty() {
        return None;
    }
    frames.into_par_iter().zip(outputs).try_for_each(|((frame, size), out)| {
        let written = zstd::bulk::decompress_to_buffer(frame, out).ok()?;
        (written == size).then_some(())
    })?;
    Some(raw)
}

/// Writes `file` through a temporary file beside it, renamed into place
/// once complete, so that a crash or Ctrl-C mid-write never leaves a
/// truncated file where a good one was. A failed write removes its
/// temporary file (on a full disk, hundreds of megabytes) and names it in
/// the error, as the file that could not be written.
pub(crate) fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> Result<(), FileError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let file = File::create(&tmp).map_err(|e| FileError::new(&tmp, FileErrorKind::Io(e)))?;
    let written = (|| {
        let mut out = BufWriter::with_capacity(1 << 20, file);
        write(&mut out)?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        FileError::new(&tmp, FileErrorKind::Io(e))
    })
}

/// Writes an array of atomics little-endian, a chunk at a time.
fn put_array<A>(
    out: &mut Packer<'_>,
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
/// counters, the weights and TC state compressed (unvisited weights and
/// their TC state are zeros, which take next to nothing).
///
/// # Errors
/// [`FileError`] when the file cannot be written.
pub fn save_checkpoint(trainer: &Trainer, path: &Path) -> Result<(), FileError> {
    let counters = trainer.counters();
    let tc = trainer.coherence();
    let flags = FLAG_PACKED | if tc.is_some() { FLAG_COHERENCE } else { 0 };
    let mut head = CHECKPOINT_MAGIC.to_vec();
    head.extend_from_slice(&VERSION.to_le_bytes());
    head.extend_from_slice(&shape_bytes());
    head.extend_from_slice(&stage_bytes(trainer.network().stages()));
    head.extend_from_slice(&flags.to_le_bytes());
    head.extend_from_slice(&counters.episodes.to_le_bytes());
    head.extend_from_slice(&counters.moves.to_le_bytes());
    head.extend_from_slice(&counters.seconds.to_le_bytes());
    write_atomically(path, |w| {
        w.write_all(&head)?;
        let mut sum = Checksum::new();
        sum.update(&head);
        let mut body = Packer { out: w, sum, raw: Vec::with_capacity(BATCH_FRAMES * FRAME_BYTES) };
        put_array(&mut body, trainer.network().raw(), |w, buf| {
            buf.extend_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
        })?;
        if let Some(tc) = tc {
            put_array(&mut body, &tc.errors, |e, buf| {
                buf.extend_from_slice(&e.load(Ordering::Relaxed).to_le_bytes());
            })?;
        }
        let sum = body.finish()?;
        w.write_all(&sum.to_le_bytes())
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
    let corrupt = |why| FileError::new(path, FileErrorKind::Corrupt(why));
    let stages = r.header(CHECKPOINT_MAGIC, "a training checkpoint")?;
    let n = stages * N_WEIGHTS;
    let flags = r.u32()?;
    if flags & !(FLAG_COHERENCE | FLAG_PACKED) != 0 {
        return Err(corrupt("flags this build does not know"));
    }
    let episodes = r.u64()?;
    let moves = r.u64()?;
    let seconds = f64::from_bits(r.u64()?);
    let head = &bytes[..bytes.len() - r.bytes.len()];
    let coherence = flags & FLAG_COHERENCE != 0;
    let body_len = if coherence { 12 } else { 4 } * n;
    let body = if flags & FLAG_PACKED != 0 {
        let mut frames = Vec::new();
        let mut total = 0;
        while total < body_len {
            let len = r.u32()? as usize;
            let frame = r.take(len)?;
            let size = frame_size(frame)
                .filter(|&size| size > 0 && size <= body_len - total)
                .ok_or_else(|| corrupt("the compressed body does not decode"))?;
            frames.push((frame, size));
            total += size;
        }
        Cow::Owned(
            unpack_frames(frames, body_len)
                .ok_or_else(|| corrupt("the compressed body does not decode"))?,
        )
    } else {
        // Written before checkpoints were compressed.
        Cow::Borrowed(r.take(body_len)?)
    };
    let stored = r.u64()?;
    if !r.bytes.is_empty() {
        return Err(corrupt("bytes after the end"));
    }
    let mut sum = Checksum::new();
    sum.update(head);
    sum.update(&body);
    if sum.value() != stored {
        return Err(corrupt("checksum mismatch"));
    }
    let counters = Counters { episodes, moves, seconds };
    let body = match body {
        // The compressed file's bytes go before the weights are made, so
        // that it holds at most two copies of the body at once.
        Cow::Owned(words) => {
            drop(bytes);
            return Ok(checkpoint_of(&words, n, coherence, counters));
        }
        Cow::Borrowed(words) => words,
    };
    Ok(checkpoint_of(body, n, coherence, counters))
}

/// The checkpoint whose body (`n` weights, then their TC state if
/// `coherence`) is `body`, checked to be that long.
fn checkpoint_of(body: &[u8], n: usize, coherence: bool, counters: Counters) -> Checkpoint {
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
    Checkpoint { network, counters, coherence }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TrainConfig;

    /// A version-1 checkpoint (no stages field, its body plain) still
    /// loads, as one stage: written here byte by byte, as the files of the
    /// training run before stages are.
    #[test]
    fn a_version_1_checkpoint_still_loads() {
        let weights: Vec<f32> = (0..N_WEIGHTS).map(|i| (i % 977) as f32 * 0.5).collect();
        let counters = Counters { episodes: 12, moves: 3456, seconds: 7.5 };
        let mut v1 = [CHECKPOINT_MAGIC.as_slice(), &1u32.to_le_bytes(), &shape_bytes()].concat();
        v1.extend_from_slice(&0u32.to_le_bytes());
        v1.extend_from_slice(&counters.episodes.to_le_bytes());
        v1.extend_from_slice(&counters.moves.to_le_bytes());
        v1.extend_from_slice(&counters.seconds.to_le_bytes());
        v1.extend(weights.iter().flat_map(|w| w.to_le_bytes()));
        let mut sum = Checksum::new();
        sum.update(&v1);
        v1.extend_from_slice(&sum.value().to_le_bytes());
        let path = std::env::temp_dir().join(format!("ntuple-v1-{}.ckpt", std::process::id()));
        std::fs::write(&path, &v1).expect("writable");
        let cp = load_checkpoint(&path);
        let _ = std::fs::remove_file(&path);
        let cp = cp.expect("a version-1 checkpoint loads");
        assert_eq!(cp.network.stages(), 1);
        assert!(!cp.has_coherence());
        assert_eq!(cp.counters, counters);
        assert!(cp.network.weights().eq(weights.iter().copied()));
    }

    /// A checkpoint is compressed: a network that visited few weights
    /// takes well under a megabyte where its plain body took 805 MB (with
    /// TC state), and comes back bit for bit. Damage is an error: a
    /// flipped bit in the header or the body's words corrupt (one in a
    /// frame's length may read as truncated instead), a cut truncates, and
    /// an unknown flag is refused.
    #[test]
    fn a_checkpoint_is_compressed_and_exact() {
        let mut config = TrainConfig::standard();
        config.threads = 1;
        let net = Network::from_weights(
            (0..N_WEIGHTS).map(|i| if i % 100_003 == 7 { i as f32 * 0.25 - 9.0 } else { 0.0 }),
        )
        .expect("right size");
        let counters = Counters { episodes: 5, moves: 600, seconds: 0.5 };
        let trainer = Trainer::new(config, net, counters).expect("valid");
        let path = std::env::temp_dir().join(format!("ntuple-packed-{}.ckpt", std::process::id()));
        save_checkpoint(&trainer, &path).expect("written");
        let bytes = std::fs::read(&path).expect("readable");
        let cp = load_checkpoint(&path);
        let check = |bytes: &[u8]| {
            std::fs::write(&path, bytes).expect("writable");
            load_checkpoint(&path).map(|_| ())
        };
        let flip = |at: usize, bit: u8| {
            let mut bad = bytes.clone();
            bad[at] ^= bit;
            check(&bad)
        };
        // The episode counter, in the header; a byte inside the body.
        let counter_at = 12 + shape_bytes().len() + 4 + 4;
        let in_header = flip(counter_at, 0x01);
        let in_body = flip(bytes.len() / 2, 0x10);
        let unknown_flag = flip(counter_at - 4, 0x80);
        let cut = check(&bytes[..bytes.len() - 100]);
        let _ = std::fs::remove_file(&path);
        assert!(bytes.len() < 1 << 20, "{} bytes", bytes.len());
        let cp = cp.expect("read");
        assert!(cp.has_coherence());
        assert_eq!(cp.counters, counters);
        let bits = |n: &Network| n.weights().map(f32::to_bits).collect::<Vec<_>>();
        assert_eq!(bits(&cp.network), bits(trainer.network()));
        let err = in_header.expect_err("a flipped bit in the header is found");
        assert!(matches!(err.kind(), FileErrorKind::Corrupt("checksum mismatch")), "{err}");
        let err = in_body.expect_err("a flipped bit in the body is found");
        assert!(matches!(err.kind(), FileErrorKind::Corrupt(_) | FileErrorKind::Truncated));
        let err = unknown_flag.expect_err("an unknown flag is refused");
        assert!(matches!(err.kind(), FileErrorKind::Corrupt(_)), "{err}");
        let err = cut.expect_err("a cut is found");
        assert!(matches!(err.kind(), FileErrorKind::Truncated), "{err}");
    }

    /// A write that fails leaves the file it would have replaced as it
    /// was, removes its temporary file, and names that file.
    #[test]
    fn a_failed_write_keeps_the_old_file_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("ntuple-atomic-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        let path = dir.join("file.bin");
        std::fs::write(&path, b"old").expect("writable");
        let err = write_atomically(&path, |out| {
            out.write_all(b"half of the new")?;
            Err(io::Error::other("the disk is full"))
        })
        .expect_err("the write fails");
        let old = std::fs::read(&path).expect("readable");
        let left: Vec<_> = std::fs::read_dir(&dir).expect("listable").collect();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(old, b"old");
        assert_eq!(left.len(), 1, "only the old file is left");
        assert_eq!(err.path(), dir.join("file.bin.tmp"));
        assert!(err.to_string().ends_with("the disk is full"), "{err}");
    }
}

//! The shipped weights file: every weight quantised to a whole multiple of
//! a [`Step`] of points (eight in the shipped file), written as zig-zag
//! varints (an unvisited weight, 0, is one byte) and compressed with zstd. Long runs of
//! unvisited entries cost next to nothing, so the file holds in effect only
//! what training visited. A stage after the first is stored as its
//! difference from the stage before it (both quantised): a freshly promoted
//! stage is all zeros, which compress to nearly nothing, and a trained one
//! differs only where training moved it.
//!
//! Layout (little-endian): magic `N2048NET`, version (u32), the shape (tuple
//! count, tuple length and cell values as u32, then each tuple's cells as
//! bytes), from version 2 the stages (see `file.rs`), the scale, quantised
//! units per point (f32: 8 in the first shipped files, 1/8 now; any power
//! of two from 1/16 to 256 reads), the training episodes behind the
//! weights (u64), the length of the uncompressed varint stream (u64), its
//! checksum (u64), the compressed length (u64), then the compressed
//! stream: zstd frames of at most 8 MiB of the varint stream each, which
//! load on every core.

use std::fmt;
use std::io::Write;
use std::path::Path;
use std::str::FromStr;
use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::Relaxed;

use crate::file::{
    Checkpoint, Checksum, FRAME_BYTES, FileError, FileErrorKind, Reader, VERSION, frame_size,
    is_checkpoint, load_checkpoint, read_all, shape_bytes, stage_bytes, unpack_frames,
    write_atomically,
};
use crate::network::{N_WEIGHTS, Network};
use crate::train::Counters;
use rayon::prelude::*;

const MAGIC: &[u8; 8] = b"N2048NET";

/// The precision a weights file is written at: every weight a whole
/// multiple of a step of some points. A coarser step makes a smaller file
/// (docs/experiments/2026-11-23-two-stage-network.md has the sizes) at the
/// cost of precision: a weight is off
/// by at most half a step, a board's value (32 weights) by at most 16 steps.
/// Reads and prints as a number of points or a fraction (`16`, `1/256`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// Quantised units per point: `1 / step`, as the file's header keeps it.
    scale: f32,
}

impl Step {
    /// The shipped files' step, eight points: a weight is off by at most
    /// four points after a round trip, a board's value (32 weights) by at
    /// most 128 and typically by about 13 (independent roundings), against
    /// values of 100,000 and more. A shipped file must stay under about 64
    /// MB with room for more training, and the coarser exports played as
    /// well as the finer ones (docs/experiments/2026-11-23-two-stage-network.md
    /// and docs/experiments/2026-11-27-two-stage-network-shipped.md have the
    /// sizes and the games).
    pub const SHIPPED: Step = Step { scale: 0.125 };

    /// A step of `points` points, if this build reads files written at it:
    /// a power of two from 1/256 to 16.
    pub fn points(points: f32) -> Option<Step> {
        let scale = 1.0 / points;
        readable_scale(scale).then_some(Step { scale })
    }

    /// The step, in points.
    pub fn in_points(self) -> f32 {
        1.0 / self.scale
    }
}

/// A step no build reads files at (see [`Step::points`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepError;

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("expected a power of two from 1/256 to 16 points, as a number or a fraction")
    }
}

impl std::error::Error for StepError {}

impl FromStr for Step {
    type Err = StepError;

    fn from_str(text: &str) -> Result<Step, StepError> {
        let number = |t: &str| t.trim().parse::<f32>().ok();
        let points = match text.split_once('/') {
            Some((n, d)) => number(n).zip(number(d)).map(|(n, d)| n / d),
            None => number(text),
        };
        points.and_then(Step::points).ok_or(StepError)
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Powers of two: a whole number of points, or one over a whole number.
        if self.scale <= 1.0 {
            write!(f, "{}", 1.0 / self.scale)
        } else {
            write!(f, "1/{}", self.scale)
        }
    }
}

/// Whether a file's scale is one this build reads: a power of two from
/// 1/16 to 256, so that dividing by it is exact. The first shipped files
/// were written at 8.
fn readable_scale(scale: f32) -> bool {
    scale.to_bits() & 0x007F_FFFF == 0 && (0.0625..=256.0).contains(&scale)
}

/// How hard zstd works: a shipped file is written once and read often, but
/// past level 9 each percent of size costs seconds of writing
/// (docs/experiments/2026-11-22-first-learned-networks.md).
const LEVEL: i32 = 9;

/// A network loaded from a weights file, with its provenance.
#[derive(Debug)]
pub struct Weights {
    /// The network.
    pub network: Network,
    /// The training episodes behind it.
    pub episodes: u64,
    /// The step its weights were written at.
    pub step: Step,
}

fn zigzag(v: i32) -> u32 {
    ((v << 1) ^ (v >> 31)) as u32
}

fn unzigzag(v: u32) -> i32 {
    (v >> 1) as i32 ^ -((v & 1) as i32)
}

/// A weight as a whole number of steps of `1 / scale` points.
fn quantise(w: f32, scale: f32) -> i32 {
    (w * scale).round().clamp(i32::MIN as f32, i32::MAX as f32) as i32
}

/// The varint stream of the quantised weights: stage 0's, then each later
/// stage's difference from the stage before it (wrapping, so that every
/// pair of weights round-trips exactly).
fn encode(net: &Network, scale: f32) -> Vec<u8> {
    let mut out = Vec::with_capacity(N_WEIGHTS * 2);
    let quantise = |w| quantise(w, scale);
    for (i, w) in net.weights().enumerate() {
        let q = quantise(w);
        let v = if i < N_WEIGHTS { q } else { q.wrapping_sub(quantise(net.weight(i - N_WEIGHTS))) };
        push_varint(&mut out, v);
    }
    out
}

/// Appends `v` zig-zagged as a varint: seven bits a byte, low first, the
/// high bit set on every byte but the last ([`decode_piece`] reads them).
fn push_varint(out: &mut Vec<u8>, v: i32) {
    let mut z = zigzag(v);
    while z >= 0x80 {
        out.push(z as u8 | 0x80);
        z >>= 7;
    }
    out.push(z as u8);
}

/// How many pieces the varint stream is cut into for decoding on every
/// core: enough for an even share per thread, few enough that cutting and
/// counting cost nothing.
const DECODE_PIECES: usize = 64;

/// `raw` as concatenated zstd frames of at most [`FRAME_BYTES`] each, each
/// recording its decompressed size (which [`decompress`] needs to place
/// it).
fn compress(raw: &[u8]) -> std::io::Result<Vec<u8>> {
    let frames: Vec<Vec<u8>> = raw
        .par_chunks(FRAME_BYTES)
        .map(|piece| zstd::bulk::compress(piece, LEVEL))
        .collect::<Result<_, _>>()?;
    Ok(frames.concat())
}

/// The `raw_len` bytes of concatenated zstd frames, each decompressed on
/// its own thread straight into its place; `None` unless the frames are
/// well formed, record their sizes, and add up to `raw_len`.
fn decompress(packed: &[u8], raw_len: usize) -> Option<Vec<u8>> {
    use zstd::zstd_safe::find_frame_compressed_size;
    let mut frames = Vec::new();
    let mut rest = packed;
    let mut total = 0usize;
    while !rest.is_empty() {
        let len =
            find_frame_compressed_size(rest).ok().filter(|&len| len > 0 && len <= rest.len())?;
        let size = frame_size(rest)?;
        total = total.checked_add(size).filter(|&t| t <= raw_len)?;
        frames.push((&rest[..len], size));
        rest = &rest[len..];
    }
    unpack_frames(frames, raw_len)
}

/// The weights of a varint stream of `stages` stages written at `scale`,
/// straight into the network's own array (no intermediate copy); `None`
/// unless the stream is exactly `stages * N_WEIGHTS` well-formed varints.
///
/// Decoding is most of the load time, so it runs on every core: the stream
/// is cut after varints' last bytes (high bit clear) into pieces, the last
/// bytes in each piece counted to know where its weights go, and each
/// piece decoded into its place. Each slot first holds the quantised value
/// (a later stage's as the sum with the stage before it, wrapping, as
/// written), then its weight.
fn decode(bytes: &[u8], stages: usize, scale: f32) -> Option<Box<[AtomicU32]>> {
    let n = stages * N_WEIGHTS;
    if bytes.last().is_some_and(|&b| b & 0x80 != 0) {
        return None;
    }
    let mut cuts = vec![0];
    for k in 1..DECODE_PIECES {
        let from = (bytes.len() * k / DECODE_PIECES).max(cuts[cuts.len() - 1]);
        if let Some(p) = bytes[from..].iter().position(|&b| b & 0x80 == 0) {
            cuts.push(from + p + 1);
        }
    }
    cuts.push(bytes.len());
    cuts.dedup();
    let pieces: Vec<&[u8]> = cuts.windows(2).map(|w| &bytes[w[0]..w[1]]).collect();
    let counts: Vec<usize> =
        pieces.par_iter().map(|p| p.iter().filter(|&&b| b & 0x80 == 0).count()).collect();
    if counts.iter().sum::<usize>() != n {
        return None;
    }
    let weights: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(0)).collect();
    let mut slots = Vec::with_capacity(pieces.len());
    let mut tail = weights.as_slice();
    for &count in &counts {
        let (head, after) = tail.split_at(count);
        slots.push(head);
        tail = after;
    }
    pieces.into_par_iter().zip(slots).try_for_each(|(piece, slots)| decode_piece(piece, slots))?;
    for stage in 1..stages {
        let (before, this) = weights[(stage - 1) * N_WEIGHTS..].split_at(N_WEIGHTS);
        this[..N_WEIGHTS].par_iter().zip(before).for_each(|(w, prev)| {
            let sum = (prev.load(Relaxed) as i32).wrapping_add(w.load(Relaxed) as i32);
            w.store(sum as u32, Relaxed);
        });
    }
    weights
        .par_iter()
        .for_each(|w| w.store((w.load(Relaxed) as i32 as f32 / scale).to_bits(), Relaxed));
    Some(weights.into_boxed_slice())
}

/// Decodes the whole varints of `piece` into `slots` as quantised values
/// (`i32` bits); `None` for a varint longer than five bytes. The caller
/// counted the varints, so their number is `slots.len()`.
fn decode_piece(piece: &[u8], slots: &[AtomicU32]) -> Option<()> {
    let mut it = piece.iter();
    for slot in slots {
        let mut byte = *it.next()?;
        let (mut z, mut shift) = (u32::from(byte & 0x7F), 7);
        while byte & 0x80 != 0 {
            byte = *it.next()?;
            if shift > 28 {
                return None;
            }
            z |= u32::from(byte & 0x7F) << shift;
            shift += 7;
        }
        slot.store(unzigzag(z) as u32, Relaxed);
    }
    Some(())
}

/// Writes `net` as a compact weights file (in the latest version, at the
/// shipped step, [`Step::SHIPPED`]), noting the `episodes` it was trained
/// for.
///
/// # Errors
/// [`FileError`] when the file cannot be written.
pub fn save_weights(net: &Network, episodes: u64, path: &Path) -> Result<(), FileError> {
    save_weights_at(net, episodes, Step::SHIPPED, path)
}

/// [`save_weights`] at another precision.
///
/// # Errors
/// [`FileError`] when the file cannot be written.
pub fn save_weights_at(
    net: &Network,
    episodes: u64,
    step: Step,
    path: &Path,
) -> Result<(), FileError> {
    let raw = encode(net, step.scale);
    let mut sum = Checksum::new();
    sum.update(&raw);
    let packed = compress(&raw).map_err(|e| FileError::new(path, FileErrorKind::Io(e)))?;
    write_atomically(path, |out| {
        out.write_all(MAGIC)?;
        out.write_all(&VERSION.to_le_bytes())?;
        out.write_all(&shape_bytes())?;
        out.write_all(&stage_bytes(net.stages()))?;
        out.write_all(&step.scale.to_le_bytes())?;
        out.write_all(&episodes.to_le_bytes())?;
        out.write_all(&(raw.len() as u64).to_le_bytes())?;
        out.write_all(&sum.value().to_le_bytes())?;
        out.write_all(&(packed.len() as u64).to_le_bytes())?;
        out.write_all(&packed)
    })
}

/// The checksum a weights file's header keeps of its weights (of their
/// uncompressed stream), read from the header alone: what tells two
/// networks apart where their paths and sizes agree (a records file names
/// its network by path and checksum). Not checked against the weights:
/// [`load_weights`] does that.
///
/// # Errors
/// [`FileError`] when the file cannot be read or its header is not a
/// weights file's of this shape and version.
pub fn weights_checksum(path: &Path) -> Result<u64, FileError> {
    use std::io::Read;
    if is_checkpoint(path)? {
        return Err(FileError::new(path, FileErrorKind::Checkpoint));
    }
    // The header is a few dozen bytes; the weights after it, megabytes.
    let mut head = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(4096).read_to_end(&mut head))
        .map_err(|e| FileError::new(path, FileErrorKind::Io(e)))?;
    let mut r = Reader { bytes: &head, path };
    r.header(MAGIC, "a weights file")?;
    let _scale = r.u32()?;
    let _episodes = r.u64()?;
    let _raw_len = r.u64()?;
    r.u64()
}

/// Reads a weights file written by [`save_weights`], of this version or
/// version 1 (one stage).
///
/// # Errors
/// [`FileError`] when the file cannot be read, is not a weights file of
/// this shape and version, is truncated, or fails to decompress, decode or
/// match its checksum.
pub fn load_weights(path: &Path) -> Result<Weights, FileError> {
    if is_checkpoint(path)? {
        return Err(FileError::new(path, FileErrorKind::Checkpoint));
    }
    let bytes = read_all(path)?;
    let mut r = Reader { bytes: &bytes, path };
    let stages = r.header(MAGIC, "a weights file")?;
    let corrupt = |why| FileError::new(path, FileErrorKind::Corrupt(why));
    let scale = f32::from_bits(r.u32()?);
    if !readable_scale(scale) {
        return Err(corrupt("an unknown quantisation scale"));
    }
    let episodes = r.u64()?;
    let raw_len = r.u64()?;
    let stored_sum = r.u64()?;
    let packed_len = r.u64()?;
    // A varint takes at most 5 bytes: a larger claim is damage, and must
    // not make us reserve gigabytes.
    if raw_len > 5 * (stages * N_WEIGHTS) as u64 {
        return Err(corrupt("an impossible length"));
    }
    let packed =
        r.take(usize::try_from(packed_len).map_err(|_| corrupt("an impossible length"))?)?;
    if !r.bytes.is_empty() {
        return Err(corrupt("bytes after the end"));
    }
    let raw = decompress(packed, raw_len as usize)
        .ok_or_else(|| corrupt("the compressed stream does not decode"))?;
    let mut sum = Checksum::new();
    sum.update(&raw);
    if raw.len() as u64 != raw_len || sum.value() != stored_sum {
        return Err(corrupt("checksum mismatch"));
    }
    let weights =
        decode(&raw, stages, scale).ok_or_else(|| corrupt("the weights do not decode"))?;
    let network = Network::from_raw(weights);
    Ok(Weights { network, episodes, step: Step { scale } })
}

/// What training can go on from: a checkpoint (everything, exactly), or a
/// shipped weights file (its network and episode count; the TC state starts
/// afresh, and moves and time from 0), told apart by their magic bytes.
///
/// # Errors
/// As [`load_checkpoint`] or [`load_weights`].
pub fn load_resumable(path: &Path) -> Result<Checkpoint, FileError> {
    if is_checkpoint(path)? {
        return load_checkpoint(path);
    }
    // Anything else is read as a weights file, whose loader names what is
    // wrong (wrong magic included).
    let weights = load_weights(path)?;
    Ok(Checkpoint {
        network: weights.network,
        counters: Counters { episodes: weights.episodes, moves: 0, seconds: 0.0 },
        coherence: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zigzag_round_trips_at_the_edges() {
        for v in [0, 1, -1, 63, -64, 1 << 20, -(1 << 20), i32::MAX, i32::MIN] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
    }

    /// A file as the first shipped ones were written: format version 1 (no
    /// stages field), each weight `quantised(i) / scale`.
    fn version_1_file(scale: f32, quantised: impl Fn(usize) -> i32) -> Vec<u8> {
        let mut raw = Vec::new();
        for i in 0..N_WEIGHTS {
            push_varint(&mut raw, quantised(i));
        }
        let mut sum = Checksum::new();
        sum.update(&raw);
        let packed = zstd::bulk::compress(&raw, 1).expect("compresses");
        let mut file = MAGIC.to_vec();
        file.extend_from_slice(&1u32.to_le_bytes());
        file.extend_from_slice(&shape_bytes());
        file.extend_from_slice(&scale.to_le_bytes());
        file.extend_from_slice(&123_456u64.to_le_bytes());
        file.extend_from_slice(&(raw.len() as u64).to_le_bytes());
        file.extend_from_slice(&sum.value().to_le_bytes());
        file.extend_from_slice(&(packed.len() as u64).to_le_bytes());
        file.extend_from_slice(&packed);
        file
    }

    /// The shipped files before this scale were version 1 at scale 8: such a
    /// file still loads, one stage, every weight exact.
    #[test]
    fn a_version_1_file_at_scale_8_still_loads() {
        let q = |i: usize| (i % 977) as i32 - 488;
        let path = std::env::temp_dir().join(format!("ntuple-v1-{}.n2048", std::process::id()));
        std::fs::write(&path, version_1_file(8.0, q)).expect("writable");
        let loaded = load_weights(&path);
        let _ = std::fs::remove_file(&path);
        let weights = loaded.expect("a version-1 file at scale 8 loads");
        assert_eq!(weights.episodes, 123_456);
        assert_eq!(weights.network.stages(), 1);
        assert!(weights.network.weights().enumerate().all(|(i, w)| w == q(i) as f32 / 8.0));
    }

    /// A scale that is not a power of two from 1/16 to 256 is damage.
    #[test]
    fn an_unknown_scale_is_an_error() {
        let path = std::env::temp_dir().join(format!("ntuple-scale-{}.n2048", std::process::id()));
        for scale in [3.0, 0.0, -8.0, 512.0, f32::NAN] {
            std::fs::write(&path, version_1_file(scale, |_| 0)).expect("writable");
            let err = load_weights(&path).expect_err("an unknown scale");
            assert!(err.to_string().contains("an unknown quantisation scale"), "{scale}: {err}");
        }
        let _ = std::fs::remove_file(&path);
    }
}

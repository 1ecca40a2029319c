//! Compact tables: a full table's advice on the states that games visit.
//!
//! A full corner table holds every arrangement of its free cells, over a
//! billion states, of which a game reads a few thousand. A compact table
//! keeps, for the states a set of games read ([`Endgame::corner_reads`]),
//! what the full table advises there: each move's odds and the best move.
//! It answers those states as the full table does and nothing else: on a
//! state it did not keep, no table applies and the search decides.
//!
//! A file of compact tables is the tables one after the other, each a
//! 32-byte header (the magic `2048EGK1`, the formation as in a full
//! table's header, the count of states kept and a checksum) and then the
//! states kept, in ascending order as the gaps between them (LEB128), and
//! each state's best move (a byte, [`Direction::index`]) and four odds
//! (little-endian `u16`, 0 for a move that breaks the formation or has no
//! chance).
//!
//! [`Endgame::corner_reads`]: super::Endgame::corner_reads

use std::io::{self, Read, Write};

use game_core::Direction;

use super::{Endgame, Formation, Geometry, Moves, ONE, Odds, Table, TableError};

const MAGIC: &[u8; 8] = b"2048EGK1";
const HEADER: usize = 32;

/// The states kept and their advice.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Kept {
    /// Ascending state indices.
    states: Box<[u32]>,
    /// For each state, its best move's index.
    best: Box<[u8]>,
    /// For each state, each move's odds in steps of 1/65535 (rounded
    /// down), 0 for none.
    odds: Box<[[u16; 4]]>,
}

/// How many moves deep a compact table works out a state it did not keep
/// from the states it did (see [`Kept::moves`]).
const RECOVER_DEPTH: u32 = 2;

impl Kept {
    /// The advice on state `idx` (the canonical board `raw`): kept, or
    /// worked out from the kept states its moves lead to, as the full
    /// table's generator works it out (`None` when one of them is not kept
    /// either, [`RECOVER_DEPTH`] moves deep).
    ///
    /// Why this recovers the full table's advice exactly: a kept state's
    /// best odds, rounded down to a step, are the full table's stored odds
    /// of that state, and a state's odds of moving are the expectation of
    /// its successors' stored odds, computed here in the same order and
    /// arithmetic as the generator's.
    pub(super) fn moves(&self, g: &Geometry, idx: u32, raw: u64) -> Option<Moves> {
        if let Ok(i) = self.states.binary_search(&idx) {
            let odds = self.odds[i].map(|v| (v > 0).then(|| f32::from(v) / ONE));
            return Some(Moves { odds, best: Some(Direction::ALL[usize::from(self.best[i])]) });
        }
        let odds = self.worked_out(g, raw, RECOVER_DEPTH)?;
        // A move of odds 0 reads as none, as a kept state's does.
        Some(Moves { odds: odds.map(|o| o.filter(|&v| v > 0.0)), best: None })
    }

    /// The odds of each move of the canonical board `raw` from its
    /// successors' odds (`None` for a move the formation does not allow);
    /// `None` when some successor is neither kept nor worked out `depth`
    /// moves deep.
    fn worked_out(&self, g: &Geometry, raw: u64, depth: u32) -> Option<[Option<f32>; 4]> {
        let mut out = [None; 4];
        for (slot, after) in
            out.iter_mut().zip(game_core::Board::from_raw(raw).slide_each_unscored())
        {
            let after = after.raw();
            if after == raw || after & g.fixed_mask != g.fixed_raw {
                continue;
            }
            let Some(idx) = g.index(after) else { continue };
            if g.is_goal(after) {
                *slot = Some(1.0);
                continue;
            }
            // The generator's expectation (`Geometry::after_odds`), reading
            // odds that may be missing.
            let (mut sum, mut empty) = (0f32, 0u32);
            for (&cell, &stride) in g.free.iter().zip(&g.stride) {
                if super::nibble(after, cell) == 0 {
                    let two = self.odds_of(g, idx + stride, after | 1 << (4 * cell), depth)?;
                    let four = self.odds_of(g, idx + 2 * stride, after | 2 << (4 * cell), depth)?;
                    sum += 0.9 * two + 0.1 * four;
                    empty += 1;
                }
            }
            *slot = Some(sum / empty as f32);
        }
        Some(out)
    }

    /// The stored odds of state `idx` (the canonical board `raw`) as the
    /// full table holds them: 1 at the goal, a kept state's best odds, or
    /// those worked out from its successors within `depth` moves.
    fn odds_of(&self, g: &Geometry, idx: u32, raw: u64, depth: u32) -> Option<f32> {
        if g.is_goal(raw) {
            return Some(1.0);
        }
        let best = match self.states.binary_search(&idx) {
            Ok(i) => f32::from(self.odds[i].into_iter().max().unwrap_or(0)) / ONE,
            Err(_) if depth > 0 => {
                let odds = self.worked_out(g, raw, depth - 1)?;
                // Stored rounded down to a step, as the generator stores it.
                let best = odds.into_iter().flatten().fold(0.0, f32::max);
                (best * ONE).floor() / ONE
            }
            Err(_) => return None,
        };
        Some(best)
    }

    pub(super) fn bytes(&self) -> usize {
        self.states.len() * (4 + 1 + 8)
    }

    fn len(&self) -> usize {
        self.states.len()
    }
}

impl Table {
    /// A compact table of this table's advice on `states` (state indices,
    /// in any order, repeats allowed; those past the table's states and
    /// its goal states are left out). It answers those states as this
    /// table does, and the states whose successors it kept (see
    /// `Kept::moves`); elsewhere nothing, as if no table applied.
    pub fn keep(&self, states: &[u32]) -> Table {
        let g = &self.geometry;
        let mut sorted = states.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let mut kept = Kept { states: Box::new([]), best: Box::new([]), odds: Box::new([]) };
        let (mut idx, mut best, mut odds) = (Vec::new(), Vec::new(), Vec::new());
        for s in sorted {
            if u64::from(s) >= g.formation.states() {
                continue;
            }
            let Some(moves) = self.odds_of_moves(g.board_of(s)) else { continue };
            // The table's own choice: the move `pick` makes unturned (none
            // where every move breaks the formation: all odds are 0 then).
            let choice = super::pick(0, &moves, g.formation).map_or(0, |a| a.direction.index());
            idx.push(s);
            best.push(choice as u8);
            odds.push(moves.odds.map(|v| v.map_or(0, |v| (v * ONE) as u16)));
        }
        kept.states = idx.into_boxed_slice();
        kept.best = best.into_boxed_slice();
        kept.odds = odds.into_boxed_slice();
        Table { geometry: Geometry::new(g.formation), odds: Odds::Kept(kept) }
    }

    /// The states a compact table kept (for a full table, all of them).
    pub fn kept_states(&self) -> u64 {
        match &self.odds {
            Odds::Full(full) => full.len() as u64,
            Odds::Kept(kept) => kept.len() as u64,
            Odds::Layered(layered) => layered.len() as u64,
        }
    }
}

/// The formation's bytes 8 to 10 of a header: fixed cells, goal, shape.
fn formation_bytes(f: Formation) -> [u8; 3] {
    [f.fixed() as u8, f.goal(), f.shape().code()]
}

/// A 64-bit checksum of a compact table's contents, as the full tables'
/// (FNV-1a, then mixed): it catches damage, not tampering.
fn checksum(kept: &Kept) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |w: u64| h = (h ^ w).wrapping_mul(0x0000_0100_0000_01b3);
    for ((&s, &b), o) in kept.states.iter().zip(&kept.best).zip(&kept.odds) {
        mix(u64::from(s) | u64::from(b) << 32);
        mix(o.iter().enumerate().map(|(i, &v)| u64::from(v) << (16 * i)).sum());
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ h >> 33
}

impl Endgame {
    /// Writes the compact tables held (the full ones are left out) in the
    /// format of this module.
    ///
    /// # Errors
    /// The writer's.
    pub fn write_compact(&self, w: &mut impl Write) -> io::Result<()> {
        for table in &self.tables {
            let Odds::Kept(kept) = &table.odds else { continue };
            let mut header = [0u8; HEADER];
            header[..8].copy_from_slice(MAGIC);
            header[8..11].copy_from_slice(&formation_bytes(table.formation()));
            header[16..24].copy_from_slice(&(kept.len() as u64).to_le_bytes());
            header[24..32].copy_from_slice(&checksum(kept).to_le_bytes());
            w.write_all(&header)?;
            let mut body = Vec::with_capacity(kept.len() * 11);
            let mut last = 0u32;
            for &s in &kept.states {
                let mut gap = s - last;
                last = s;
                loop {
                    let byte = (gap & 0x7F) as u8;
                    gap >>= 7;
                    if gap == 0 {
                        body.push(byte);
                        break;
                    }
                    body.push(byte | 0x80);
                }
            }
            for (&b, o) in kept.best.iter().zip(&kept.odds) {
                body.push(b);
                body.extend(o.iter().flat_map(|v| v.to_le_bytes()));
            }
            w.write_all(&body)?;
        }
        Ok(())
    }

    /// Reads compact tables written by [`Endgame::write_compact`], checking
    /// each one's header and checksum.
    ///
    /// # Errors
    /// [`TableError`] for input that is not whole, undamaged compact
    /// tables.
    pub fn read_compact(r: &mut impl Read) -> Result<Endgame, TableError> {
        let mut bytes = Vec::new();
        r.read_to_end(&mut bytes).map_err(TableError::Io)?;
        let mut rest = &bytes[..];
        let mut tables = Vec::new();
        while !rest.is_empty() {
            let (table, after) = read_one(rest)?;
            tables.push(table);
            rest = after;
        }
        if tables.is_empty() {
            return Err(TableError::NotATable);
        }
        Ok(Endgame::from_tables(tables))
    }
}

/// One compact table from the front of `bytes`, and the bytes after it.
fn read_one(bytes: &[u8]) -> Result<(Table, &[u8]), TableError> {
    let truncated = |found: usize| TableError::Truncated {
        expected: (bytes.len() + 1) as u64,
        found: found as u64,
    };
    if bytes.len() < 8 || bytes[..8] != MAGIC[..] {
        return Err(TableError::NotATable);
    }
    if bytes.len() < HEADER {
        return Err(truncated(bytes.len()));
    }
    let formation = match bytes[10] {
        1 if usize::from(bytes[8]) == super::STEP.len() => Formation::step(bytes[9]),
        2 if usize::from(bytes[8]) == super::BLOCK.len() => Formation::block(bytes[9]),
        0 => Formation::new(usize::from(bytes[8]), bytes[9]),
        kind => {
            return Err(TableError::Header(format!(
                "no formation has shape {kind} and {} fixed cells",
                bytes[8]
            )));
        }
    }
    .map_err(|e| TableError::Header(e.to_string()))?;
    let count = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes"));
    let sum = u64::from_le_bytes(bytes[24..32].try_into().expect("8 bytes"));
    if bytes[11..16] != [0; 5] || count > formation.states() {
        return Err(TableError::Header(format!(
            "{count} states kept of a {formation}'s {}",
            formation.states()
        )));
    }
    let count = count as usize;
    let mut at = HEADER;
    let mut states = Vec::with_capacity(count);
    let mut last = 0u64;
    for _ in 0..count {
        let mut gap = 0u64;
        let mut shift = 0;
        loop {
            let &byte = bytes.get(at).ok_or_else(|| truncated(at))?;
            at += 1;
            if shift > 28 {
                return Err(TableError::Header("a state's gap is too long".into()));
            }
            gap |= u64::from(byte & 0x7F) << shift;
            shift += 7;
            if byte & 0x80 == 0 {
                break;
            }
        }
        last += gap;
        if last >= formation.states() || (!states.is_empty() && gap == 0) {
            return Err(TableError::Header("the states are not ascending states of it".into()));
        }
        states.push(last as u32);
    }
    let advice = bytes.get(at..at + 9 * count).ok_or_else(|| truncated(bytes.len()))?;
    let mut best = Vec::with_capacity(count);
    let mut odds = Vec::with_capacity(count);
    for chunk in advice.chunks_exact(9) {
        if chunk[0] >= 4 {
            return Err(TableError::Header(format!("no move has index {}", chunk[0])));
        }
        best.push(chunk[0]);
        odds.push(std::array::from_fn(|i| {
            u16::from_le_bytes([chunk[1 + 2 * i], chunk[2 + 2 * i]])
        }));
    }
    let kept = Kept {
        states: states.into_boxed_slice(),
        best: best.into_boxed_slice(),
        odds: odds.into_boxed_slice(),
    };
    if checksum(&kept) != sum {
        return Err(TableError::Checksum);
    }
    let table = Table { geometry: Geometry::new(formation), odds: Odds::Kept(kept) };
    Ok((table, &bytes[at + 9 * count..]))
}

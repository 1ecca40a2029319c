//! The transposition table: a fixed-size, lock-free store of exact chance
//! node values for the packed board, shared by all search threads.
//!
//! An entry is found only by the full key (board, depth left, probability
//! class, the root's context), and a value is stored only once its node was
//! searched completely.
//! Since the search makes a chance node's value a pure function of that key
//! (see `search.rs`), a hit returns exactly what searching again would: the
//! table changes the speed, never the decision, whatever the thread count or
//! timing, and entries stay valid across moves and games.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

/// The bytes of one entry.
pub(crate) const ENTRY_BYTES: usize = 16;

/// The bytes of the table that holds leaf parents apart from the rest: they
/// are most of the probes and most of their hits come from nearby subtrees,
/// so a table that stays in a core's L2 cache (1 MiB on the machines we
/// measure on) answers them without the memory stall of a probe of the
/// large table (docs/experiments/2026-11-22-search-work-per-decision.md).
pub(crate) const LEAF_TABLE_BYTES: usize = 1 << 20;

/// One slot: `check` is the board XOR `data`, so a torn write by two
/// threads at once reads as a miss rather than as a wrong value (the
/// "lockless hashing" of chess programs).
#[derive(Debug, Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

/// A bounded table of chance node values.
#[derive(Debug)]
pub(crate) struct TransTable {
    slots: Box<[Slot]>,
}

fn clear_slots(slots: &[Slot]) {
    for slot in slots {
        slot.check.store(0, Ordering::Relaxed);
        slot.data.store(0, Ordering::Relaxed);
    }
}

/// Marks a used slot, so that an all-zero slot never matches a key.
const USED: u32 = 1 << 31;

/// The low half of an entry's data: the used mark (bit 31), the root's
/// context (bits 19 to 26), the class (11 bits from bit 8) and the depth
/// (8 bits).
fn tag(key: Key) -> u32 {
    USED | u32::from(key.context) << 19 | key.class << 8 | key.depth
}

fn pack_data(key: Key, value: f32) -> u64 {
    u64::from(value.to_bits()) << 32 | u64::from(tag(key))
}

/// What, besides the board, an entry is found by: the depth left, the
/// probability class, and the root's context (see
/// [`crate::Evaluator::context`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key {
    pub(crate) depth: u32,
    pub(crate) class: u32,
    pub(crate) context: u8,
}

/// When a new table's memory is mapped in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Paging {
    /// As searches reach each page: cheaper when only a few decisions are
    /// made.
    Lazy,
    /// Every page now, when the table is made: for timed searches, which a
    /// page fault would cost several milliseconds of their budget, and for
    /// every search on more than one thread, whose threads would otherwise
    /// contend in the kernel over the faults.
    Upfront,
}

impl TransTable {
    /// A table of at most `bytes` bytes (as many entries as fit);
    /// `None` when that is not even one entry; its pages mapped as `paging`
    /// says.
    // Never inlined: compiled alone, LLVM turns the allocation and its
    // zeroing below into one `calloc`, whose zero pages the kernel maps
    // only when a search first touches them. Inlined into a large caller
    // (the dev profile's `main`) it did not, and `analyze --preset
    // heuristic-max` wrote all of a 1 GiB table before searching, taking
    // seconds and the whole table's memory
    // (docs/experiments/2026-11-25-one-calloc-for-the-table.md).
    #[inline(never)]
    pub(crate) fn with_bytes(bytes: usize, paging: Paging) -> Option<TransTable> {
        let entries = bytes / ENTRY_BYTES;
        if entries == 0 {
            return None;
        }
        let slots: Box<[Slot]> = (0..entries).map(|_| Slot::default()).collect();
        // The allocation may come as untouched zero pages; writing one word
        // per page makes the page faults happen here and not inside a timed
        // search, where they cost a time budget several milliseconds.
        let upfront = paging == Paging::Upfront;
        for slot in slots.iter().step_by(4096 / ENTRY_BYTES).filter(|_| upfront) {
            slot.data.store(0, Ordering::Relaxed);
        }
        Some(TransTable { slots })
    }

    /// Forgets every entry (and maps every page, as a side effect).
    pub(crate) fn clear(&self) {
        clear_slots(&self.slots);
    }

    /// [`TransTable::clear`] by the threads of the rayon pool it is called
    /// on, each a slice at a time: for a solver's pool only (elsewhere it
    /// would start rayon's global pool).
    pub(crate) fn par_clear(&self) {
        self.slots.par_chunks(1 << 16).for_each(clear_slots);
    }

    /// The table's size in bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.slots.len() * ENTRY_BYTES
    }

    fn index(&self, board: u64, key: Key) -> usize {
        // The tag without its used mark: with context 0, the hash of the
        // table before contexts, so the other searches probe as they did.
        let mut h = board ^ u64::from(tag(key) & !USED).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h = (h ^ (h >> 32)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        h ^= h >> 29;
        // The high bits of the hash scaled to the length ("fast range"), so
        // that any number of entries works and the size bound is exact.
        ((u128::from(h) * self.slots.len() as u128) >> 64) as usize
    }

    #[inline]
    pub(crate) fn get(&self, board: u64, key: Key) -> Option<f32> {
        let slot = &self.slots[self.index(board, key)];
        let data = slot.data.load(Ordering::Relaxed);
        let check = slot.check.load(Ordering::Relaxed);
        let key_matches = check ^ data == board && data as u32 == tag(key);
        key_matches.then(|| f32::from_bits((data >> 32) as u32))
    }

    #[inline]
    pub(crate) fn put(&self, board: u64, key: Key, value: f32) {
        let slot = &self.slots[self.index(board, key)];
        let data = pack_data(key, value);
        slot.check.store(board ^ data, Ordering::Relaxed);
        slot.data.store(data, Ordering::Relaxed);
    }
}

/// A search's transposition tables within a bound in bytes: the leaf
/// parents' small one (when the bound leaves room for twice its size,
/// [`LEAF_TABLE_BYTES`]) and the large one in the rest.
#[derive(Debug)]
pub(crate) struct Tables {
    table: Option<TransTable>,
    leaves: Option<TransTable>,
}

impl Tables {
    /// The tables within `bytes` (none when that is not one entry).
    pub(crate) fn with_bytes(bytes: usize, paging: Paging) -> Tables {
        if bytes < 2 * LEAF_TABLE_BYTES {
            return Tables { table: TransTable::with_bytes(bytes, paging), leaves: None };
        }
        Tables {
            table: TransTable::with_bytes(bytes - LEAF_TABLE_BYTES, paging),
            leaves: TransTable::with_bytes(LEAF_TABLE_BYTES, paging),
        }
    }

    /// The large table, if any.
    pub(crate) fn table(&self) -> Option<&TransTable> {
        self.table.as_ref()
    }

    /// The leaf parents' table, if any.
    pub(crate) fn leaves(&self) -> Option<&TransTable> {
        self.leaves.as_ref()
    }

    /// Each table there is.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &TransTable> {
        self.table.iter().chain(&self.leaves)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_size_bound_holds_and_wastes_less_than_an_entry() {
        for bytes in [16, 17, 1000, 1 << 20, (1 << 20) + 5] {
            let table = TransTable::with_bytes(bytes, Paging::Upfront).expect("at least one entry");
            assert!(table.bytes() <= bytes);
            assert!(table.bytes() + ENTRY_BYTES > bytes);
        }
        assert!(TransTable::with_bytes(15, Paging::Lazy).is_none());
    }

    #[test]
    fn entries_are_found_only_by_their_full_key() {
        let table = TransTable::with_bytes(1 << 12, Paging::Lazy).expect("table");
        let key = |depth, class, context| Key { depth, class, context };
        table.put(0x1234, key(3, 77, 5), 1.5);
        assert_eq!(table.get(0x1234, key(3, 77, 5)), Some(1.5));
        assert_eq!(table.get(0x1234, key(2, 77, 5)), None);
        assert_eq!(table.get(0x1234, key(3, 76, 5)), None);
        assert_eq!(table.get(0x1234, key(3, 77, 4)), None);
        assert_eq!(table.get(0x1235, key(3, 77, 5)), None);
        assert_eq!(table.get(0, key(0, 0, 0)), None);
    }
}

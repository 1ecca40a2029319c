//! The one rule of 2048, on a single line of cells.
//!
//! Every board type, and the packed board's tables, slide lines through
//! [`slide_toward_start`], so there is one statement of the rule to trust.

/// The largest exponent a cell holds: 2^15 = 32768.
///
/// Two tiles of this value do not merge. The packed board keeps a cell in
/// four bits, so a 65536 tile cannot be stored; rather than wrapping around to
/// an empty cell (a silently wrong board) the engine refuses that merge, on
/// every board type alike.
pub const MAX_EXPONENT: u8 = 15;

/// Slides the exponents of one line toward index 0 and merges equal
/// neighbours, nearest the wall first, each tile at most once. Returns the
/// score gained: the sum of the values of the tiles the merges created.
pub(crate) const fn slide_toward_start(line: &mut [u8]) -> u32 {
    let n = line.len();
    let mut score = 0u32;
    // `write` is the next cell to fill; `last` is the exponent waiting there
    // that may still merge with the next tile found.
    let mut write = 0;
    let mut read = 0;
    let mut pending = 0u8;
    while read < n {
        let e = line[read];
        read += 1;
        if e == 0 {
            continue;
        }
        if pending == 0 {
            pending = e;
        } else if pending == e && e < MAX_EXPONENT {
            line[write] = e + 1;
            write += 1;
            score += 1 << (e + 1);
            pending = 0;
        } else {
            line[write] = pending;
            write += 1;
            pending = e;
        }
    }
    if pending != 0 {
        line[write] = pending;
        write += 1;
    }
    while write < n {
        line[write] = 0;
        write += 1;
    }
    score
}

//! The one rule of 2048, on a single line of cells.
//!
//! Every board type, and the packed board's tables, slide lines through
//! [`slide_toward_start`], so there is one statement of the rule to trust.

use crate::limits::MAX_EXPONENT;

/// Slides the exponents of one line toward index 0 and merges equal
/// neighbours, nearest the wall first, each tile at most once. Returns the
/// score gained: the sum of the values of the tiles the merges created.
///
/// Two tiles of [`MAX_EXPONENT`] do not merge: their sum is not a tile any
/// board type holds (see [`MAX_EXPONENT`] for why that bound is out of reach
/// in practice).
pub(crate) const fn slide_toward_start(line: &mut [u8]) -> u32 {
    slide_capped(line, MAX_EXPONENT)
}

/// [`slide_toward_start`] with tiles of exponent `cap` refusing to merge: the
/// packed board's tables, whose cells hold exponents up to 15, are built with
/// `cap = 15`. That is exact for every row they are used on, since the board
/// takes its line-by-line path as soon as it has two 32768 tiles.
pub(crate) const fn slide_capped(line: &mut [u8], cap: u8) -> u32 {
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
        } else if pending == e && e < cap {
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

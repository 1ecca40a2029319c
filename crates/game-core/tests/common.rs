//! Shared strategies and helpers: random boards, and board transforms written
//! through the public API.

use proptest::prelude::*;

use game_core::{Board, GameBoard, Grid, MAX_EXPONENT};

/// An exponent as it appears on played boards: often empty, mostly small,
/// sometimes large, now and then 32768 and above (up to the cap,
/// `MAX_EXPONENT`).
pub(crate) fn exponent() -> impl Strategy<Value = u8> {
    prop_oneof![
        5 => Just(0u8),
        6 => 1u8..=4,
        3 => 5u8..=11,
        1 => 12u8..=15,
        1 => 15u8..=17,
        1 => prop_oneof![Just(MAX_EXPONENT - 1), Just(MAX_EXPONENT)],
    ]
}

/// A packed board: either any `u64` at all, or one with realistic cells
/// (many empty cells and equal neighbours, so that merges happen, and tiles
/// of 32768 and above now and then).
pub(crate) fn board() -> impl Strategy<Value = Board> {
    prop_oneof![
        any::<u64>().prop_map(Board::from_raw),
        proptest::collection::vec(exponent(), 16).prop_map(|cells| {
            let rows = std::array::from_fn(|r| std::array::from_fn(|c| cells[4 * r + c]));
            Board::from_exponents(rows).expect("exponents within the cap")
        }),
    ]
}

/// A grid of any size from 2 to 8 with realistic exponents.
pub(crate) fn grid() -> impl Strategy<Value = Grid> {
    (2usize..=8).prop_flat_map(|n| {
        proptest::collection::vec(exponent(), n * n).prop_map(move |cells| grid_of(n, &cells))
    })
}

/// The `n` x `n` grid with these exponents, row-major.
pub(crate) fn grid_of(n: usize, exponents: &[u8]) -> Grid {
    let mut grid = Grid::empty(n).expect("a supported size");
    for (i, &e) in exponents.iter().enumerate() {
        grid = grid.set_exponent(i / n, i % n, e).expect("in range");
    }
    grid
}

/// Any board with rows and columns swapped, cell by cell.
pub(crate) fn transpose<B: GameBoard>(board: &B) -> B {
    remap(board, |_, r, c| (c, r))
}

/// Any board with each row reversed, cell by cell.
pub(crate) fn mirror<B: GameBoard>(board: &B) -> B {
    remap(board, |n, r, c| (r, n - 1 - c))
}

fn remap<B: GameBoard>(board: &B, to: impl Fn(usize, usize, usize) -> (usize, usize)) -> B {
    let n = board.size();
    let mut out = B::empty(n).expect("same size");
    for r in 0..n {
        for c in 0..n {
            let (rr, cc) = to(n, r, c);
            let e = board.exponent(r, c).expect("in range");
            out = out.set_exponent(rr, cc, e).expect("in range");
        }
    }
    out
}

/// The tiles of a board as a sorted list of values (empty cells left out).
pub(crate) fn multiset<B: GameBoard>(board: &B) -> Vec<u32> {
    let n = board.size();
    let mut tiles: Vec<u32> = (0..n * n)
        .map(|i| board.value(i / n, i % n).expect("in range"))
        .filter(|&v| v != 0)
        .collect();
    tiles.sort_unstable();
    tiles
}

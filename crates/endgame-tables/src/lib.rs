//! Endgame tables: the exact odds of building the next tile of a chain.
//!
//! Late in a game the largest tiles lie in a chain along a snake path from
//! a corner (row 0 left to right, row 1 right to left, and so on), each
//! smaller than the one before: 16384 8192 4096 2048 / 128 256 512 1024.
//! Where each is half the one before, the chain collapses into one tile as
//! soon as a tile equal to its smallest (the *anchor*) stands beside it;
//! where it skips one tile (16384 8192 2048 1024 ...), it collapses into
//! the missing one, the tile being built. A [`Formation`] is that situation: the
//! first [`Formation::fixed`] cells of the path hold the chain and must not
//! move, the other cells are free, and the goal is a tile equal to the
//! anchor ([`Formation::goal`]) in a free cell beside it. Its [`Table`]
//! holds, for every arrangement of the free cells' tiles (each at most the
//! goal), the probability of reaching the goal under optimal play without
//! moving a chain tile: an expectimax solved exactly, bottom-up, once.
//!
//! The table depends on the chain only through its length and its anchor:
//! chain tiles never merge (neighbours differ) and never meet a free tile
//! of their value (all are larger than the goal, but the anchor, whose
//! equal beside it is the goal). So one table serves every chain of that
//! length and anchor, whatever its largest tile, in all eight symmetries of
//! the board. [`Endgame::advise`] finds the formation of a board and the
//! move that maximises the odds; the search of `solver-expectimax` plays it
//! when a table applies (see its `Solver::with_endgame`).
//!
//! The corner's formations ([`Shape::Step`], [`Shape::Block`]) fix a few
//! large tiles in the top-left corner instead of a chain, bound each free
//! cell on its own and set goals of several tiles; the corner search plays
//! by them ([`Endgame::advise_step`], [`Endgame::advise_block`]).
//!
//! ```
//! use game_core::Board;
//! use endgame_tables::{Endgame, Formation, Table};
//!
//! // A chain of 12 tiles (from 16384 down to 8) and four free cells.
//! let formation = Formation::new(12, 3)?;
//! let endgame = Endgame::from_tables(vec![Table::build(formation, &|_| {})]);
//! let board: Board = "16384 8192 4096 2048/128 256 512 1024/64 32 16 8/0 0 2 4".parse()?;
//! let advice = endgame.advise(board, 0).expect("the chain's formation");
//! assert_eq!(advice.formation, formation);
//! assert!(advice.odds > 0.0 && advice.odds <= 1.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod build;
mod file;
mod kept;

use std::fmt;

use game_core::{Board, Direction};

pub use file::{
    CACHE_FOLDER, Check, EndgameError, OpenEvent, Opening, TableBytes, TableError, TableStatus,
    corner_big_formations, corner_formations, default_formations, file_bytes, file_name,
    read_whole, size_text, space_unknown, table_status,
};

/// The snake path: the cells (`row * 4 + col`) a chain runs along, from the
/// corner at row 0, column 0.
pub const SNAKE: [usize; 16] = [0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12];

/// The most states a table held in its index order may have: its index
/// is a `u32`, and a table of 2^31 states takes 4 GiB on disk. Only the
/// corner step's largest tables have more: they are *layered* (see
/// [`Formation::is_layered`]).
pub const MAX_STATES: u64 = 1 << 31;

/// The probability of a 4 among spawned tiles that every table assumes
/// (the standard rules'); a solver with other rules does not use tables.
pub const FOUR_PROBABILITY: f64 = 0.1;

/// Why the tables do not hold under some rules: see [`check_rules`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RulesMismatch {
    /// The board is not 4x4 (its size).
    Size(usize),
    /// The tutorial's turn rule, under which a game ends once the board is
    /// full, where the tables play on.
    TurnRule,
    /// Another probability of a 4 than [`FOUR_PROBABILITY`].
    FourProbability(f64),
}

impl fmt::Display for RulesMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RulesMismatch::Size(n) => {
                write!(f, "the endgame tables play 4x4 boards only, not {n}x{n}")
            }
            RulesMismatch::TurnRule => {
                write!(
                    f,
                    "the endgame tables assume the standard rules, not the tutorial's turn rule"
                )
            }
            RulesMismatch::FourProbability(p) => {
                write!(f, "the endgame tables assume a 4 one spawn in ten, not {p}")
            }
        }
    }
}

impl std::error::Error for RulesMismatch {}

/// Whether the tables were solved for games of `size` x `size` under
/// `rules`: 4x4 boards, a 4 one spawn in ten, and a game that goes on while
/// some move changes the board. The one place that says so: the solver
/// skips the tables otherwise, and the frontends refuse `--endgame`.
///
/// # Errors
/// [`RulesMismatch`] names the first rule that differs.
pub fn check_rules(size: usize, rules: &game_core::Rules) -> Result<(), RulesMismatch> {
    if size != 4 {
        return Err(RulesMismatch::Size(size));
    }
    if rules.turn_rule() != game_core::TurnRule::Standard {
        return Err(RulesMismatch::TurnRule);
    }
    if rules.four_probability() != FOUR_PROBABILITY {
        return Err(RulesMismatch::FourProbability(rules.four_probability()));
    }
    Ok(())
}

/// The cells of the corner step (`row * 4 + col`): three along row 0 from
/// the corner, two along row 1. Its goal cell, row 1 column 2, completes a
/// 2x3 rectangle.
pub const STEP: [usize; 5] = [0, 1, 2, 4, 5];

/// The cell of the corner step where its goal tile is built.
pub const STEP_GOAL: usize = 6;

/// The odds from which the corner search plays the corner step's move:
/// below them the block's table or the search decides. The step's goal
/// comes round again and again, and a lower bar lets the table play
/// positions where its narrow goal costs the rest of the board
/// (macroxue/2048-ai's threshold).
pub const STEP_MIN_ODDS: f64 = 0.9;

/// [`STEP_MIN_ODDS`] where the step's table is layered (building 256 or
/// 512): that table plays far more of the game, up to the 512 that with
/// the block's 1024 chain makes the next large tile, and macroxue/2048-ai
/// plays its big table from these odds up (its 2022 results).
pub const STEP_MIN_ODDS_LAYERED: f64 = 0.1;

/// The cells of the corner block (`row * 4 + col`): three along row 0 from
/// the corner and three along row 1.
pub const BLOCK: [usize; 6] = [0, 1, 2, 4, 5, 6];

/// The cells beside the final collapse's anchor (cell 6) where its equal is
/// its goal: right of it and below it.
pub const COLLAPSE_GOAL: [usize; 2] = [7, 10];

/// Which cells a formation fixes: see [`Formation`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Shape {
    /// A chain along [`SNAKE`] of this many cells, whose last (the anchor)
    /// holds the goal's tile; the goal is that tile in a free cell beside it.
    Snake(u8),
    /// The five cells of [`STEP`], each larger than the goal; the goal is
    /// its tile in [`STEP_GOAL`] with a pair of halves next to it that
    /// merges into its equal beside it, so that the two make the double.
    /// The other free cells hold at most half the goal, and the bottom row
    /// at most a quarter (the bounds that keep the table small). The
    /// formation, its bounds and its goal building 128 are
    /// macroxue/2048-ai's; the smaller goals, with the same bounds relative
    /// to the goal, are ours.
    Step,
    /// The six cells of [`BLOCK`], the smallest of row 1 (the anchor) the
    /// goal's tile, no two neighbours equal; the goal is a chain of its half,
    /// quarter and two eighths along row 2 from column 0, or down column 3
    /// from row 0, which collapses into the anchor's equal. The free cells
    /// hold at most a half (column 0 of row 2, row 0 of column 3), a
    /// quarter (beside those) or an eighth. macroxue/2048-ai's formation.
    Block,
    /// The block's cells with its anchor in row 1's last cell (cell 6),
    /// every free cell holding at most a half but for the two beside the
    /// anchor (cells 7 and 10), which may hold its equal: the goal is that
    /// equal there, which merges into the anchor and sets off the chain's
    /// collapse. The final collapse, where the chain down to the anchor is
    /// built and the other ten cells fill up with tiles the block's bounds
    /// refuse (2048EndgameTablebase's tables of that phase fix six tiles in
    /// a 2x3 corner and bound ten cells by 256 alike). Anchored at 512:
    /// 10^2 * 9^8 states, layered. No preset plays by it: on the boards
    /// where real games enter the collapse its odds are the big step
    /// table's, and it played the collapse no better
    /// (docs/experiments/2026-11-29-final-collapse-own-goal.md).
    Collapse,
}

impl Shape {
    /// The shape's byte in a file's header.
    pub(crate) fn code(self) -> u8 {
        match self {
            Shape::Snake(_) => 0,
            Shape::Step => 1,
            Shape::Block => 2,
            // 3 was a collapse with the block's goal, whose files are
            // refused rather than read with this goal.
            Shape::Collapse => 4,
        }
    }
}

/// A situation a table solves: the tiles of some cells fixed (a [`Shape`]),
/// the goal `2^goal`. The states are the free cells' tiles, each within its
/// bound; a move that moves a fixed tile or passes a bound is not allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Formation {
    shape: Shape,
    goal: u8,
}

/// Why a [`Formation`] cannot be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormationError {
    /// The chain must hold 2 to 14 cells (so that two are free).
    Fixed(usize),
    /// The goal's exponent must be 2 to 13 (a 4 to an 8192) for a chain, 4
    /// to 9 for the step, 5 to 10 for the block, 4 to 9 for the final
    /// collapse: spawned tiles fit under
    /// every bound, the fixed tiles above the goal, and the table within
    /// [`MAX_STATES`] (the step's, within what a layered table holds).
    Goal(u8),
    /// More than [`MAX_STATES`] states (for a chain or a block).
    TooLarge {
        /// The states it would have.
        states: u128,
    },
}

impl fmt::Display for FormationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormationError::Fixed(n) => {
                write!(f, "a chain holds 2 to 14 cells, not {n}")
            }
            FormationError::Goal(e) => {
                write!(
                    f,
                    "a goal tile is 4 to 8192 for a chain, 16 to 512 for the step, \
                     32 to 1024 for the block and 16 to 512 for the final collapse, not 2^{e}"
                )
            }
            FormationError::TooLarge { states } => {
                write!(f, "the table would have {states} states, more than {MAX_STATES}")
            }
        }
    }
}

impl std::error::Error for FormationError {}

impl Formation {
    /// The formation of a chain of `fixed` cells whose anchor is `2^goal`.
    ///
    /// # Errors
    /// [`FormationError`] when `fixed` is outside 2 to 14, `goal` outside 2
    /// to 13, or the table would be too large.
    pub fn new(fixed: usize, goal: u8) -> Result<Formation, FormationError> {
        if !(2..=14).contains(&fixed) {
            return Err(FormationError::Fixed(fixed));
        }
        if !(2..=13).contains(&goal) {
            return Err(FormationError::Goal(goal));
        }
        Formation { shape: Shape::Snake(fixed as u8), goal }.checked()
    }

    /// The corner step ([`Shape::Step`]) building `2^goal`. Building 256
    /// and 512, its tables are layered ([`Formation::is_layered`]): 5.7 and
    /// 21.8 billion states, a byte each.
    ///
    /// # Errors
    /// [`FormationError::Goal`] when `goal` is outside 4 to 9.
    pub fn step(goal: u8) -> Result<Formation, FormationError> {
        if !(4..=9).contains(&goal) {
            return Err(FormationError::Goal(goal));
        }
        Formation { shape: Shape::Step, goal }.checked()
    }

    /// The corner block ([`Shape::Block`]) whose anchor is `2^goal`.
    ///
    /// # Errors
    /// [`FormationError::Goal`] when `goal` is outside 5 to 10.
    pub fn block(goal: u8) -> Result<Formation, FormationError> {
        if !(5..=10).contains(&goal) {
            return Err(FormationError::Goal(goal));
        }
        Formation { shape: Shape::Block, goal }.checked()
    }

    /// The final collapse ([`Shape::Collapse`]) whose anchor is `2^goal`.
    ///
    /// # Errors
    /// [`FormationError::Goal`] when `goal` is outside 4 to 9.
    pub fn collapse(goal: u8) -> Result<Formation, FormationError> {
        if !(4..=9).contains(&goal) {
            return Err(FormationError::Goal(goal));
        }
        Formation { shape: Shape::Collapse, goal }.checked()
    }

    fn checked(self) -> Result<Formation, FormationError> {
        let states = self.bounds().iter().map(|&(_, b)| u128::from(b) + 1).product::<u128>();
        let layered = matches!(self.shape, Shape::Step | Shape::Collapse);
        if states > u128::from(MAX_STATES) && !layered {
            return Err(FormationError::TooLarge { states });
        }
        Ok(self)
    }

    /// Which cells are fixed.
    pub fn shape(self) -> Shape {
        self.shape
    }

    /// The number of fixed cells.
    pub fn fixed(self) -> usize {
        match self.shape {
            Shape::Snake(n) => usize::from(n),
            Shape::Step => STEP.len(),
            Shape::Block | Shape::Collapse => BLOCK.len(),
        }
    }

    /// The exponent of the tile to build.
    pub fn goal(self) -> u8 {
        self.goal
    }

    /// The free cells: `16 - fixed`.
    pub fn free(self) -> usize {
        16 - self.fixed()
    }

    /// The fixed cells, in [`SNAKE`], [`STEP`] or [`BLOCK`] order.
    fn fixed_cells(self) -> &'static [usize] {
        match self.shape {
            Shape::Snake(n) => &SNAKE[..usize::from(n)],
            Shape::Step => &STEP,
            Shape::Block | Shape::Collapse => &BLOCK,
        }
    }

    /// The free cells with the largest exponent each may hold, in the
    /// order of the state index's digits (the first digit varies fastest).
    fn bounds(self) -> Vec<(usize, u8)> {
        let g = self.goal;
        match self.shape {
            Shape::Snake(n) => SNAKE[usize::from(n)..].iter().map(|&c| (c, g)).collect(),
            Shape::Step => (0..16)
                .filter(|c| !STEP.contains(c))
                .map(|c| {
                    let bound = match c {
                        STEP_GOAL => g,
                        12.. => g - 2,
                        _ => g - 1,
                    };
                    (c, bound)
                })
                .collect(),
            Shape::Collapse => (0..16)
                .filter(|c| !BLOCK.contains(c))
                .map(|c| (c, if COLLAPSE_GOAL.contains(&c) { g } else { g - 1 }))
                .collect(),
            Shape::Block => (0..16)
                .filter(|c| !BLOCK.contains(c))
                .map(|c| {
                    let bound = match c {
                        3 | 8 => g - 1,
                        7 | 9 => g - 2,
                        _ => g - 3,
                    };
                    (c, bound)
                })
                .collect(),
        }
    }

    /// The goal, as patterns: a board is at the goal when it holds every
    /// (cell, exponent) of one of them.
    fn goals(self) -> Vec<Vec<(usize, u8)>> {
        let g = self.goal;
        match self.shape {
            Shape::Snake(n) => {
                let anchor = SNAKE[usize::from(n) - 1];
                SNAKE[usize::from(n)..]
                    .iter()
                    .filter(|&&c| beside(c, anchor))
                    .map(|&c| vec![(c, g)])
                    .collect()
            }
            // The goal tile in cell 6 with a pair of halves that merges into
            // its equal beside it (in cell 7 or 10), or a chain down column 3
            // that collapses into one there.
            Shape::Step => [
                vec![(7, g - 1), (3, g - 1)],
                vec![(7, g - 1), (11, g - 1)],
                vec![(3, g - 1), (7, g - 2), (11, g - 2)],
                vec![(10, g - 1), (9, g - 1)],
                vec![(10, g - 1), (11, g - 1)],
                vec![(10, g - 1), (14, g - 1)],
            ]
            .into_iter()
            .map(|p| std::iter::once((STEP_GOAL, g)).chain(p).collect())
            .collect(),
            Shape::Collapse => COLLAPSE_GOAL.iter().map(|&c| vec![(c, g)]).collect(),
            // Half, quarter and an eighth along row 2 from column 0 with
            // the second eighth beside the first; or the same down column 3.
            Shape::Block => {
                let (h, q, e) = (g - 1, g - 2, g - 3);
                vec![
                    vec![(8, h), (9, q), (10, e), (14, e)],
                    vec![(8, h), (9, q), (10, e), (11, e)],
                    vec![(8, h), (9, q), (13, e), (12, e)],
                    vec![(8, h), (9, q), (13, e), (14, e)],
                    vec![(3, h), (7, q), (11, e), (10, e)],
                    vec![(3, h), (7, q), (11, e), (15, e)],
                ]
            }
        }
    }

    /// Whether every free cell of `raw` keeps this formation's bound.
    fn holds(self, raw: u64) -> bool {
        self.bounds().iter().all(|&(c, b)| nibble(raw, c) <= b)
    }

    /// Whether `raw` holds one of the goal's patterns.
    fn reached(self, raw: u64) -> bool {
        holds_one(&self.goals(), raw)
    }

    /// The table's states: the product over the free cells of their
    /// bound plus one.
    pub fn states(self) -> u64 {
        self.bounds().iter().map(|&(_, b)| u64::from(b) + 1).product()
    }

    /// Whether its table is *layered*: more states than [`MAX_STATES`], so
    /// built a layer at a time straight to its file (never whole in
    /// memory), and holding for each state a byte, its best move and its
    /// odds in steps of 1/63, instead of two bytes of odds. Such a table
    /// advises the move it stored; the other moves' odds are not kept.
    pub fn is_layered(self) -> bool {
        self.states() > layered_above()
    }
}

/// The most states of a table held in index order: [`MAX_STATES`], but in
/// the tests that build small layered tables through the files' path.
fn layered_above() -> u64 {
    #[cfg(test)]
    if let Some(n) = tests::LAYERED_ABOVE.get() {
        return n;
    }
    MAX_STATES
}

impl fmt::Display for Formation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.shape {
            Shape::Snake(n) => write!(f, "chain of {n} ending in {}", 1u32 << self.goal),
            Shape::Step => write!(f, "corner step building {}", 1u32 << self.goal),
            Shape::Block => write!(f, "corner block anchored at {}", 1u32 << self.goal),
            Shape::Collapse => write!(f, "final collapse anchored at {}", 1u32 << self.goal),
        }
    }
}

/// The geometry of a formation on the packed board: where its cells are,
/// the fixed tiles as the tables hold them, and the index of a state.
#[derive(Debug, Clone)]
struct Geometry {
    formation: Formation,
    /// Nibble mask of the fixed cells.
    fixed_mask: u64,
    /// The fixed tiles as the table's boards hold them, all above the goal
    /// (a chain's anchor: the goal) and no two neighbours equal, so that
    /// none ever merges.
    fixed_raw: u64,
    /// The goal: boards with every (cell, exponent) of one of these.
    goals: Vec<Vec<(usize, u8)>>,
    /// The free cells in index order (digit `j` of a state is cell `free[j]`).
    free: Vec<usize>,
    /// The largest exponent of digit `j`.
    bound: Vec<u8>,
    /// The product of the radices (bound + 1) of the digits below `j`.
    stride: Vec<u32>,
}

#[inline]
fn nibble(raw: u64, cell: usize) -> u8 {
    (raw >> (4 * cell) & 0xF) as u8
}

/// Whether `raw` holds every (cell, exponent) of one of `patterns`.
#[inline]
fn holds_one(patterns: &[Vec<(usize, u8)>], raw: u64) -> bool {
    patterns.iter().any(|p| p.iter().all(|&(c, e)| nibble(raw, c) == e))
}

impl Geometry {
    fn new(formation: Formation) -> Geometry {
        let goal = formation.goal;
        let cells = formation.fixed_cells();
        let exponents: Vec<u8> = match formation.shape {
            // The anchor, then alternately one and two above the goal back
            // along the path (cells beside each other on the snake are an
            // odd number of steps apart on it).
            Shape::Snake(n) => (0..usize::from(n))
                .map(|i| match usize::from(n) - 1 - i {
                    0 => goal,
                    s if s % 2 == 1 => goal + 1,
                    _ => goal + 2,
                })
                .collect(),
            // Cells 0 1 2 / 4 5: neighbours differ, all above the goal.
            Shape::Step => vec![goal + 3, goal + 2, goal + 1, goal + 2, goal + 1],
            // Cells 0 1 2 / 4 5 6: neighbours differ, all above every free
            // cell's bound (the table's odds do not depend on which holds
            // the anchor).
            Shape::Block | Shape::Collapse => {
                vec![goal + 2, goal + 1, goal + 2, goal + 1, goal + 2, goal + 1]
            }
        };
        let mut fixed_mask = 0;
        let mut fixed_raw = 0;
        for (&cell, &e) in cells.iter().zip(&exponents) {
            fixed_mask |= 0xF << (4 * cell);
            fixed_raw |= u64::from(e) << (4 * cell);
        }
        let (free, bound): (Vec<usize>, Vec<u8>) = formation.bounds().into_iter().unzip();
        let goals = formation.goals();
        let stride = bound
            .iter()
            .scan(1u32, |acc, &b| {
                let s = *acc;
                *acc = acc.saturating_mul(u32::from(b) + 1);
                Some(s)
            })
            .collect();
        Geometry { formation, fixed_mask, fixed_raw, goals, free, bound, stride }
    }

    /// The board with the table's fixed tiles in place of `raw`'s.
    #[inline]
    fn canonical(&self, raw: u64) -> u64 {
        raw & !self.fixed_mask | self.fixed_raw
    }

    /// Whether the board holds one of the goal's patterns.
    #[inline]
    fn is_goal(&self, raw: u64) -> bool {
        holds_one(&self.goals, raw)
    }

    /// The canonical board of state `idx` (the inverse of
    /// [`Geometry::index`]).
    fn board_of(&self, mut idx: u32) -> u64 {
        let mut raw = self.fixed_raw;
        for (&cell, &bound) in self.free.iter().zip(&self.bound) {
            let radix = u32::from(bound) + 1;
            raw |= u64::from(idx % radix) << (4 * cell);
            idx /= radix;
        }
        raw
    }

    /// The state index of `raw`'s free cells; `None` when a free tile is
    /// past its cell's bound.
    #[inline]
    fn index(&self, raw: u64) -> Option<u32> {
        let mut idx = 0u32;
        for (&cell, &bound) in self.free.iter().zip(&self.bound).rev() {
            let e = nibble(raw, cell);
            if e > bound {
                return None;
            }
            idx = idx * (u32::from(bound) + 1) + u32::from(e);
        }
        Some(idx)
    }

    /// The odds after moving `raw` (a canonical board) to `after`: `None`
    /// when the move changes nothing, moves a fixed tile or passes a bound;
    /// 1 when it reaches the goal; else the spawn's expectation of the
    /// states' odds, `odds(index)` (every bound is at least 2, so a spawned
    /// 2 or 4 is a state).
    #[inline]
    fn after_odds(&self, raw: u64, after: u64, odds: impl Fn(usize) -> f32) -> Option<f32> {
        if after == raw || after & self.fixed_mask != self.fixed_raw {
            return None;
        }
        let idx = self.index(after)? as usize;
        if self.is_goal(after) {
            return Some(1.0);
        }
        let (mut sum, mut empty) = (0f32, 0u32);
        for (&cell, &stride) in self.free.iter().zip(&self.stride) {
            if nibble(after, cell) == 0 {
                let s = stride as usize;
                sum += 0.9 * odds(idx + s) + 0.1 * odds(idx + 2 * s);
                empty += 1;
            }
        }
        // A move that changes the board leaves an empty cell: a merge frees
        // one, and a slide moves a tile into an empty cell and leaves one.
        debug_assert!(empty > 0);
        Some(sum / empty as f32)
    }
}

/// Whether two cells share a side.
fn beside(a: usize, b: usize) -> bool {
    let (ra, ca, rb, cb) = (a / 4, a % 4, b / 4, b % 4);
    ra.abs_diff(rb) + ca.abs_diff(cb) == 1
}

/// One formation's odds, in steps of 1/65535: of every state (a full
/// table, [`Table::build`]), or the advice of the states that games visit
/// (a compact table, [`Table::keep`]).
pub struct Table {
    geometry: Geometry,
    odds: Odds,
}

/// What a table answers from.
#[derive(Debug, PartialEq, Eq)]
enum Odds {
    /// Every state's odds.
    Full(Full),
    /// Some states' odds of each move.
    Kept(kept::Kept),
    /// Every state's best move and odds, layer by layer (its index is
    /// large: boxed).
    Layered(Box<Layered>),
}

/// A layered table ([`Formation::is_layered`]): a file's bytes (its header,
/// then a byte for each state, where [`build::LayerIndex`] says), whether
/// read, mapped or built in memory.
struct Layered {
    bytes: TableBytes,
    index: build::LayerIndex,
}

impl Layered {
    /// The best move (an index of [`Direction::ALL`]) and the odds of the
    /// canonical board `raw`; `None` when a free tile is past its bound.
    #[inline]
    fn get(&self, raw: u64) -> Option<(usize, f32)> {
        let at = file::HEADER as u64 + self.index.place(raw)?;
        let byte = (*self.bytes).as_ref()[usize::try_from(at).ok()?];
        let odds = f32::from(byte & 0x3F) / build::LAYERED_ONE as f32;
        Some((usize::from(byte >> 6), odds))
    }

    fn len(&self) -> usize {
        (*self.bytes).as_ref().len() - file::HEADER
    }
}

/// Two layered tables are equal when their bytes are.
impl PartialEq for Layered {
    fn eq(&self, other: &Layered) -> bool {
        (*self.bytes).as_ref() == (*other.bytes).as_ref()
    }
}

impl Eq for Layered {}

impl fmt::Debug for Layered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} states, layered", self.len())
    }
}

/// Every state's odds, however they are held.
enum Full {
    /// As built, in memory.
    Built(Box<[u16]>),
    /// In the bytes of a table file, read or mapped (see [`Opening`]): its
    /// header, then each state's odds as a little-endian `u16`.
    File(TableBytes),
}

impl Full {
    /// The states.
    fn len(&self) -> usize {
        match self {
            Full::Built(odds) => odds.len(),
            Full::File(bytes) => ((**bytes).as_ref().len() - file::HEADER) / 2,
        }
    }

    /// The odds of state `i`, in steps of 1/65535.
    #[inline]
    fn get(&self, i: usize) -> u16 {
        match self {
            Full::Built(odds) => odds[i],
            Full::File(bytes) => {
                let at = file::HEADER + 2 * i;
                let b = (**bytes).as_ref();
                u16::from_le_bytes([b[at], b[at + 1]])
            }
        }
    }
}

/// Two tables are equal when their odds are, however held.
impl PartialEq for Full {
    fn eq(&self, other: &Full) -> bool {
        self.len() == other.len() && (0..self.len()).all(|i| self.get(i) == other.get(i))
    }
}

impl Eq for Full {}

impl fmt::Debug for Full {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let held = match self {
            Full::Built(_) => "built",
            Full::File(_) => "from a file",
        };
        write!(f, "{} states, {held}", self.len())
    }
}

impl fmt::Debug for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Table").field("formation", &self.geometry.formation).finish_non_exhaustive()
    }
}

/// The largest stored odds, standing for 1.
const ONE: f32 = 65535.0;

impl Table {
    /// Solves `formation` (see the module docs), on rayon's threads;
    /// `progress` hears the states done so far, now and then. A layered
    /// formation's table is built in memory too (a byte a state): the
    /// frontends build those into their files ([`Endgame::open`]).
    pub fn build(formation: Formation, progress: &(dyn Fn(u64) + Sync)) -> Table {
        if formation.is_layered() {
            return Table::build_layered(formation, progress);
        }
        let geometry = Geometry::new(formation);
        let odds = Odds::Full(Full::Built(build::solve(&geometry, progress)));
        Table { geometry, odds }
    }

    /// `formation`'s table as a layered table, whatever its size (the
    /// tests compare the two kinds on small formations).
    fn build_layered(formation: Formation, progress: &(dyn Fn(u64) + Sync)) -> Table {
        let geometry = Geometry::new(formation);
        let mut bytes = vec![0u8; file::HEADER];
        let mut write = |layer: &[u8]| {
            bytes.extend_from_slice(layer);
            Ok(())
        };
        build::solve_into(&geometry, progress, build::Out::Layered(&mut write))
            .expect("writing to memory cannot fail");
        let header = file::layered_header(formation, &bytes[file::HEADER..]);
        bytes[..file::HEADER].copy_from_slice(&header);
        Table::layered(formation, std::sync::Arc::new(bytes))
    }

    /// The layered table of `formation` in `bytes` (a file's, header
    /// included, already checked).
    fn layered(formation: Formation, bytes: TableBytes) -> Table {
        let geometry = Geometry::new(formation);
        let index = build::LayerIndex::new(&geometry);
        Table { geometry, odds: Odds::Layered(Box::new(Layered { bytes, index })) }
    }

    /// The formation.
    pub fn formation(&self) -> Formation {
        self.geometry.formation
    }

    /// The bytes of the table's odds (for a full table, as on disk without
    /// the file's header, whether read into memory or mapped).
    pub fn bytes(&self) -> usize {
        match &self.odds {
            Odds::Full(full) => full.len() * 2,
            Odds::Kept(kept) => kept.bytes(),
            Odds::Layered(layered) => layered.len(),
        }
    }

    /// Whether the table holds every state (else it is compact: it answers
    /// only the states it kept).
    pub fn is_full(&self) -> bool {
        matches!(self.odds, Odds::Full(_) | Odds::Layered(_))
    }

    /// The odds of each direction on `raw`, whose chain is this formation's
    /// (any tiles of the right length and anchor), in [`Direction::ALL`]
    /// order; `None` when the free cells are not a state of the table,
    /// already hold the goal, or (in a compact table) were not kept.
    fn odds_of_moves(&self, raw: u64) -> Option<Moves> {
        let g = &self.geometry;
        let raw = g.canonical(raw);
        match &self.odds {
            Odds::Full(full) => {
                g.index(raw)?;
                if g.is_goal(raw) {
                    return None;
                }
                let afters = Board::from_raw(raw).slide_each_unscored();
                let read = |i: usize| f32::from(full.get(i)) / ONE;
                let odds = afters.map(|after| g.after_odds(raw, after.raw(), read));
                Some(Moves { odds, best: None })
            }
            Odds::Kept(kept) => {
                let idx = g.index(raw)?;
                if g.is_goal(raw) {
                    return None;
                }
                kept.moves(g, idx, raw)
            }
            Odds::Layered(layered) => {
                let (best, p) = layered.get(raw)?;
                if g.is_goal(raw) || p == 0.0 {
                    return None;
                }
                let mut odds = [None; 4];
                odds[best] = Some(p);
                Some(Moves { odds, best: Some(Direction::ALL[best]) })
            }
        }
    }

    /// The odds of the state `raw` (a board whose chain is this
    /// formation's) before its move; `None` when it is not a state of the
    /// table (or, in a compact table, was not kept).
    pub fn odds(&self, board: Board) -> Option<f64> {
        let g = &self.geometry;
        let raw = g.canonical(board.raw());
        match &self.odds {
            Odds::Full(full) => {
                let idx = g.index(raw)?;
                Some(f64::from(full.get(idx as usize)) / f64::from(ONE))
            }
            Odds::Kept(_) if g.is_goal(raw) => g.index(raw).map(|_| 1.0),
            Odds::Kept(kept) => {
                let idx = g.index(raw)?;
                let best = kept.moves(g, idx, raw)?.odds.into_iter().flatten().fold(0.0, f32::max);
                Some(f64::from(best))
            }
            Odds::Layered(layered) => layered.get(raw).map(|(_, p)| f64::from(p)),
        }
    }
}

/// A state's odds of each move in the formation's frame, in
/// [`Direction::ALL`] order (`None`: the move changes nothing, moves a
/// fixed tile or passes a bound), and the best move when the table says
/// it (a compact table keeps the full table's choice, which odds rounded
/// to its steps could tie).
#[derive(Debug, Clone, Copy)]
struct Moves {
    odds: [Option<f32>; 4],
    best: Option<Direction>,
}

/// What a table advises on a board: see [`Endgame::advise`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Advice {
    /// The move with the best odds.
    pub direction: Direction,
    /// Its odds of reaching the goal.
    pub odds: f64,
    /// Each direction's odds, in [`Direction::ALL`] order; `None` for a
    /// direction that changes nothing, moves the chain or passes the goal.
    pub values: [Option<f64>; 4],
    /// The formation whose table decided.
    pub formation: Formation,
}

/// A set of tables, looked up by formation.
#[derive(Debug, Default)]
pub struct Endgame {
    tables: Vec<Table>,
}

/// The direction a symmetry of the board turns `d` into: the move on the
/// turned board that matches `d` on the board (tests check every pair
/// against [`Board::symmetries`]).
fn turned(symmetry: usize, d: Direction) -> Direction {
    use Direction::{Down, Left, Right, Up};
    let mirror = |d| match d {
        Left => Right,
        Right => Left,
        d => d,
    };
    let flip = |d| match d {
        Up => Down,
        Down => Up,
        d => d,
    };
    let transpose = |d| match d {
        Up => Left,
        Left => Up,
        Down => Right,
        Right => Down,
    };
    // The order of `Board::symmetries`: the identity, mirror, flip,
    // flip of the mirror, then the same four of the transpose.
    let d = if symmetry >= 4 { transpose(d) } else { d };
    let d = if symmetry % 2 == 1 { mirror(d) } else { d };
    if symmetry % 4 >= 2 { flip(d) } else { d }
}

impl Endgame {
    /// The set of these tables (a later table of a formation already there
    /// replaces it).
    pub fn from_tables(tables: Vec<Table>) -> Endgame {
        let mut out: Vec<Table> = Vec::with_capacity(tables.len());
        for t in tables {
            out.retain(|o| o.formation() != t.formation());
            out.push(t);
        }
        out.sort_by_key(Table::formation);
        Endgame { tables: out }
    }

    /// The formations held.
    pub fn formations(&self) -> impl Iterator<Item = Formation> + '_ {
        self.tables.iter().map(Table::formation)
    }

    /// The bytes of all tables.
    pub fn bytes(&self) -> usize {
        self.tables.iter().map(Table::bytes).sum()
    }

    /// The table of `formation`, if held.
    pub fn table(&self, formation: Formation) -> Option<&Table> {
        self.tables.binary_search_by_key(&formation, Table::formation).ok().map(|i| &self.tables[i])
    }

    /// The table's move for `board`: in each of the board's eight
    /// symmetries whose corner holds a tile of at least `2^min_head`, the
    /// chain along [`SNAKE`] from that corner (each tile half the one
    /// before, but for at most one tile skipped: the one being built), the
    /// longest part of it whose formation has a table, when every other
    /// tile is at most its anchor and none beside the anchor equals it yet;
    /// of those, the one with the best odds (the first symmetry on a tie).
    /// `None` when no table applies or every move breaks the formation.
    ///
    /// Why at most one gap: a chain that skips one tile collapses into the
    /// missing one once its next tile is built (16384 8192 2048 1024 ...
    /// makes the 4096), which is the late game's work; a chain with wider
    /// gaps (16384 512 256 ...) sets the table goals far below what the
    /// board needs, and following them lost games
    /// (docs/experiments/2026-11-26-endgame-tables-for-the-learned-player.md).
    pub fn advise(&self, board: Board, min_head: u8) -> Option<Advice> {
        if !board.is_packed() || self.tables.is_empty() {
            return None;
        }
        let mut best: Option<Advice> = None;
        for (s, sym) in board.symmetries().into_iter().enumerate() {
            let raw = sym.raw();
            if nibble(raw, SNAKE[0]) < min_head {
                continue;
            }
            let mut chain = 1;
            let mut gap = false;
            while chain < 16 {
                let (prev, next) = (nibble(raw, SNAKE[chain - 1]), nibble(raw, SNAKE[chain]));
                let skips = next > 0 && next + 2 == prev && !gap;
                if next == 0 || (next + 1 != prev && !skips) {
                    break;
                }
                gap |= skips;
                chain += 1;
            }
            for fixed in (2..=chain.min(14)).rev() {
                let goal = nibble(raw, SNAKE[fixed - 1]);
                let Some(table) = Formation::new(fixed, goal).ok().and_then(|f| self.table(f))
                else {
                    continue;
                };
                let g = &table.geometry;
                if g.is_goal(g.canonical(raw)) {
                    // The chain can merge now: nothing to build.
                    break;
                }
                let Some(odds) = table.odds_of_moves(raw) else { continue };
                if let Some(advice) = pick(s, &odds, table.formation())
                    && best.is_none_or(|b| advice.odds > b.odds)
                {
                    best = Some(advice);
                }
                break;
            }
        }
        best
    }
}

impl Endgame {
    /// The corner step's move for `board`, read in the largest step table
    /// held: in each of the board's eight symmetries whose [`STEP`] cells
    /// are in order (no two neighbours equal, cells 2 and 5 different, row
    /// 1 falling towards the goal cell and cell 2 above it), when the free
    /// cells keep the bounds of a step whose anchor is the smaller of cells
    /// 2 and 5 (at most the table's goal) and the board's own goal (a tile
    /// below that anchor, at least a 4) is not built yet; of those, the one
    /// with the best odds (the first symmetry on a tie). `None` when no
    /// symmetry applies or every move breaks the formation.
    ///
    /// Why the largest table for every goal: a goal's own table plays to
    /// that goal and no further, while the largest plays each small goal as
    /// a step on the way to its own, as the game goes on to need; and
    /// following it from the first 4 on, as macroxue/2048-ai does, played
    /// better (docs/experiments/2026-11-27-corner-one-table-per-shape.md).
    /// Its odds are of its own goal.
    pub fn advise_step(&self, board: Board) -> Option<Advice> {
        let table = self.largest(Shape::Step)?;
        let top = table.formation().goal();
        let relaxed = table.formation().is_layered();
        self.advise_corner(board, |raw| step_fits(raw, top, relaxed).then_some(table))
    }

    /// The corner block's move for `board`, read in the largest block
    /// table held: in each of the board's eight symmetries whose [`BLOCK`]
    /// cells hold tiles with no two neighbours equal and row 0's last above
    /// row 1's, when row 1's smallest tile (the anchor, from an 8 up to the
    /// table's goal) has its goal not built yet and the free cells keep its
    /// bounds; of those, the one with the best odds (the first symmetry on
    /// a tie). `None` when no symmetry applies or every move breaks the
    /// formation. Why the largest table: as for [`Endgame::advise_step`].
    pub fn advise_block(&self, board: Board) -> Option<Advice> {
        let table = self.largest(Shape::Block)?;
        let top = table.formation().goal();
        self.advise_corner(board, |raw| block_fits(raw, top).then_some(table))
    }

    /// The final collapse's move for `board`, read in the largest collapse
    /// table held: where [`Endgame::advise_block`] would read the block,
    /// but with every free cell within half the anchor (the block's bounds
    /// or not), and the anchor the table's own.
    pub fn advise_collapse(&self, board: Board) -> Option<Advice> {
        let table = self.largest(Shape::Collapse)?;
        let top = table.formation().goal();
        self.advise_corner(board, |raw| collapse_fits(raw, top).then_some(table))
    }

    /// The move the corner search plays by its tables on `board`: the
    /// step's when its odds are at least [`STEP_MIN_ODDS`] (above
    /// [`STEP_MIN_ODDS_LAYERED`] for a layered step table), else the
    /// final collapse's where a collapse table is held and some move keeps
    /// it with odds above 0 (it holds every state the block's table would
    /// read for its anchors, and more), else the block's (macroxue/2048-ai's
    /// order); `None` when none applies with odds above 0, and the search
    /// decides.
    pub fn corner_move(&self, board: Board) -> Option<Advice> {
        let layered = self.largest(Shape::Step).is_some_and(|t| t.formation().is_layered());
        self.advise_step(board)
            .filter(
                |a| if layered { a.odds > STEP_MIN_ODDS_LAYERED } else { a.odds >= STEP_MIN_ODDS },
            )
            .or_else(|| self.advise_collapse(board).filter(|a| a.odds > 0.0))
            .or_else(|| self.advise_block(board))
            .filter(|a| a.odds > 0.0)
    }

    /// The corner states that [`Endgame::advise_step`] and
    /// [`Endgame::advise_block`] read on `board`: in each symmetry that
    /// fits the largest step or block table held, the table's state index.
    /// What a compact table must keep to answer that board as the full
    /// tables do ([`Table::keep`]).
    pub fn corner_reads(&self, board: Board) -> Vec<(Formation, u32)> {
        let mut out = Vec::new();
        if !board.is_packed() {
            return out;
        }
        for shape in [Shape::Step, Shape::Block] {
            let fits = |raw, top| {
                if shape == Shape::Step { step_fits(raw, top, false) } else { block_fits(raw, top) }
            };
            let Some(table) = self.largest(shape) else { continue };
            // A layered table is not kept compact: its index is no `u32`.
            if table.formation().is_layered() {
                continue;
            }
            let (g, top) = (&table.geometry, table.formation().goal());
            for sym in board.symmetries() {
                let raw = sym.raw();
                if !fits(raw, top) {
                    continue;
                }
                let raw = g.canonical(raw);
                if let Some(idx) = g.index(raw)
                    && !g.is_goal(raw)
                {
                    out.push((table.formation(), idx));
                }
            }
        }
        out
    }

    /// The table of `shape` with the largest goal (the tables are sorted by
    /// formation).
    fn largest(&self, shape: Shape) -> Option<&Table> {
        self.tables.iter().rev().find(|t| t.formation().shape() == shape)
    }

    /// The best advice over the board's symmetries of the table `find`
    /// picks for each (turned so that the formation's corner is cell 0).
    fn advise_corner<'a>(
        &'a self,
        board: Board,
        find: impl Fn(u64) -> Option<&'a Table>,
    ) -> Option<Advice> {
        if !board.is_packed() {
            return None;
        }
        let mut best: Option<Advice> = None;
        for (s, sym) in board.symmetries().into_iter().enumerate() {
            let raw = sym.raw();
            let Some(table) = find(raw) else { continue };
            let Some(odds) = table.odds_of_moves(raw) else { continue };
            if let Some(advice) = pick(s, &odds, table.formation())
                && best.is_none_or(|b| advice.odds > b.odds)
            {
                best = Some(advice);
            }
        }
        best
    }
}

/// Whether `raw` (one symmetry of a board) is read by the step table
/// building `2^top`: see [`Endgame::advise_step`]. `relaxed` (the reading
/// of a layered table, macroxue/2048-ai's with its big table) also takes
/// the board's own goal as built when its tile stands in the goal cell and
/// a second one in column 3 or row 2 (cells 3, 7 and 8 to 11): the two
/// merge without the step's help, and the block or the search plays them.
fn step_fits(raw: u64, top: u8, relaxed: bool) -> bool {
    let c = |i| nibble(raw, i);
    let equal = [(0, 1), (1, 2), (0, 4), (1, 5), (2, 5)];
    if equal.iter().any(|&(a, b)| c(a) == c(b)) {
        return false;
    }
    if !(c(4) > c(5) && c(5) > c(6) && c(2) > c(6)) {
        return false;
    }
    // The goal cell is below both cells beside it, so `smaller` is at
    // least 1 and the goal below it at least 0.
    let smaller = c(2).min(c(5));
    let goal = (smaller - 1).min(top);
    if goal < 2 {
        return false;
    }
    let bounds = Formation { shape: Shape::Step, goal: smaller.min(top) };
    let own = Formation { shape: Shape::Step, goal };
    let second = || c(STEP_GOAL) == goal && [3, 7, 8, 9, 10, 11].iter().any(|&i| c(i) == goal);
    bounds.holds(raw) && !own.reached(raw) && !(relaxed && second())
}

/// Whether `raw` (one symmetry of a board) is read by the block table
/// anchored at `2^top`: see [`Endgame::advise_block`].
fn block_fits(raw: u64, top: u8) -> bool {
    block_fits_as(raw, top, Shape::Block)
}

/// Whether `raw` (one symmetry of a board) is read by the collapse table
/// anchored at `2^top`: see [`Endgame::advise_collapse`].
fn collapse_fits(raw: u64, top: u8) -> bool {
    block_fits_as(raw, top, Shape::Collapse)
}

/// [`block_fits`] with the bounds and goal of `shape` (the block's or the
/// collapse's: the same cells), the collapse's anchor in cell 6. The
/// collapse's table is read only where the anchor is its own: read for
/// smaller anchors (as the block's largest table is), it played worse
/// than the block (docs/experiments/2026-11-29-big-step-table-and-final-collapse.md).
fn block_fits_as(raw: u64, top: u8, shape: Shape) -> bool {
    let t = BLOCK.map(|c| nibble(raw, c));
    // Neighbours within the block (cells 0-1, 1-2, 4-5, 5-6, 0-4, 1-5)
    // differ, and cell 2 is above cell 6.
    let touching = [(0, 1), (1, 2), (3, 4), (4, 5), (0, 3), (1, 4)];
    if touching.iter().any(|&(a, b)| t[a] == t[b]) || t[2] <= t[5] {
        return false;
    }
    // From an 8 up, so that every bound (the anchor less 3 at the least)
    // is a tile or an empty cell.
    let anchor = t[3].min(t[4]).min(t[5]);
    if !(3..=top).contains(&anchor) {
        return false;
    }
    // The collapse's goal is beside cell 6, so its anchor must stand there.
    if shape == Shape::Collapse && (anchor != top || t[5] != anchor) {
        return false;
    }
    let own = Formation { shape, goal: anchor };
    own.holds(raw) && !own.reached(raw)
}

/// The best of a table's odds on a board turned by `symmetry`, as advice
/// on the board itself; `None` when no move keeps the formation. A tie
/// goes to the move towards the formation's corner: up, left, right, down
/// on the turned board (macroxue/2048-ai's order), whatever the symmetry.
fn pick(symmetry: usize, moves: &Moves, formation: Formation) -> Option<Advice> {
    use Direction::{Down, Left, Right, Up};
    let odds = &moves.odds;
    let mut values = [None; 4];
    for d in Direction::ALL {
        values[d.index()] = odds[turned(symmetry, d).index()].map(f64::from);
    }
    // The move on the board that is `c` on the turned board.
    let on_board = |c| Direction::ALL.into_iter().find(|&d| turned(symmetry, d) == c);
    let mut best: Option<(Direction, f32)> = None;
    if let Some(c) = moves.best {
        best = odds[c.index()].zip(on_board(c)).map(|(v, d)| (d, v));
    } else {
        for c in [Up, Left, Right, Down] {
            let Some(d) = on_board(c) else { continue };
            if let Some(v) = odds[c.index()]
                && best.is_none_or(|(_, p)| v > p)
            {
                best = Some((d, v));
            }
        }
    }
    best.map(|(direction, p)| Advice { direction, odds: f64::from(p), values, formation })
}

#[cfg(test)]
mod tests;

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
//! move that maximises the odds; the [`Solver`](crate::Solver) plays it
//! when a table applies (see [`Solver::with_endgame`](crate::Solver::with_endgame)).
//!
//! ```
//! use game_core::Board;
//! use solver_expectimax::endgame::{Endgame, Formation, Table};
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

mod build;
mod file;

use std::fmt;

use game_core::{Board, Direction};

pub use file::{CACHE_FOLDER, EndgameError, OpenEvent, TableError, default_formations, file_name};

/// The snake path: the cells (`row * 4 + col`) a chain runs along, from the
/// corner at row 0, column 0.
pub const SNAKE: [usize; 16] = [0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12];

/// The most states a table may have: its index is a `u32`, and a table of
/// 2^31 states would take 4 GiB on disk.
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

/// Whether the tables were solved for `rules`: 4x4 boards, a 4 one spawn in
/// ten, and a game that goes on while some move changes the board. The one
/// place that says so: the solver skips the tables otherwise, and the
/// frontends refuse `--endgame`.
///
/// # Errors
/// [`RulesMismatch`] names the first rule that differs.
pub fn check_rules(rules: &game_core::Rules) -> Result<(), RulesMismatch> {
    if rules.size() != 4 {
        return Err(RulesMismatch::Size(rules.size()));
    }
    if rules.turn_rule() != game_core::TurnRule::Standard {
        return Err(RulesMismatch::TurnRule);
    }
    if rules.four_probability() != FOUR_PROBABILITY {
        return Err(RulesMismatch::FourProbability(rules.four_probability()));
    }
    Ok(())
}

/// A chain of `fixed` tiles along [`SNAKE`] whose smallest (the anchor) is
/// `2^goal`: the states are the free cells' tiles, each at most `2^goal`;
/// the goal is a `2^goal` in a free cell beside the anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Formation {
    fixed: u8,
    goal: u8,
}

/// Why a [`Formation`] cannot be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormationError {
    /// The chain must hold 2 to 14 cells (so that two are free).
    Fixed(usize),
    /// The goal's exponent must be 2 to 13 (a 4 to an 8192), so that spawned
    /// tiles fit under it and the chain's other tiles above it.
    Goal(u8),
    /// More than [`MAX_STATES`] states.
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
                write!(f, "a goal tile is 4 to 8192 (exponent 2 to 13), not exponent {e}")
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
        let states = u128::from(goal + 1).pow(16 - fixed as u32);
        if states > u128::from(MAX_STATES) {
            return Err(FormationError::TooLarge { states });
        }
        Ok(Formation { fixed: fixed as u8, goal })
    }

    /// The cells of the chain: the first this many of [`SNAKE`].
    pub fn fixed(self) -> usize {
        usize::from(self.fixed)
    }

    /// The exponent of the anchor and of the tile to build beside it.
    pub fn goal(self) -> u8 {
        self.goal
    }

    /// The free cells: `16 - fixed`.
    pub fn free(self) -> usize {
        16 - self.fixed()
    }

    /// The table's states: `(goal + 1)^free`.
    pub fn states(self) -> u64 {
        u64::from(self.goal + 1).pow(self.free() as u32)
    }
}

impl fmt::Display for Formation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "chain of {} ending in {}", self.fixed, 1u32 << self.goal)
    }
}

/// The geometry of a formation on the packed board: where its cells are,
/// the chain as the tables hold it, and the index of a state.
#[derive(Debug, Clone)]
struct Geometry {
    formation: Formation,
    /// Nibble mask of the chain's cells.
    fixed_mask: u64,
    /// The chain as the table's boards hold it: the anchor `goal`, the
    /// others alternating `goal + 1` and `goal + 2` along the path, so that
    /// no two neighbours are equal (cells beside each other on the snake
    /// are an odd number of steps apart on it).
    fixed_raw: u64,
    /// The free cells beside the anchor, where the goal tile is wanted.
    goal_cells: Vec<usize>,
    /// The free cells in index order (digit `j` of a state is cell `free[j]`).
    free: Vec<usize>,
    /// `(goal + 1)^j` for digit `j`.
    stride: Vec<u32>,
}

#[inline]
fn nibble(raw: u64, cell: usize) -> u8 {
    (raw >> (4 * cell) & 0xF) as u8
}

impl Geometry {
    fn new(formation: Formation) -> Geometry {
        let (fixed, goal) = (formation.fixed(), formation.goal);
        let mut fixed_mask = 0;
        let mut fixed_raw = 0;
        for (i, &cell) in SNAKE[..fixed].iter().enumerate() {
            let steps_from_anchor = fixed - 1 - i;
            let e = match steps_from_anchor {
                0 => goal,
                s if s % 2 == 1 => goal + 1,
                _ => goal + 2,
            };
            fixed_mask |= 0xF << (4 * cell);
            fixed_raw |= u64::from(e) << (4 * cell);
        }
        let anchor = SNAKE[fixed - 1];
        let free: Vec<usize> = SNAKE[fixed..].to_vec();
        let goal_cells = free.iter().copied().filter(|&c| beside(c, anchor)).collect();
        let radix = u32::from(goal) + 1;
        let stride = (0..free.len()).map(|j| radix.pow(j as u32)).collect();
        Geometry { formation, fixed_mask, fixed_raw, goal_cells, free, stride }
    }

    /// The board with the table's chain in place of `raw`'s.
    #[inline]
    fn canonical(&self, raw: u64) -> u64 {
        raw & !self.fixed_mask | self.fixed_raw
    }

    /// Whether a goal tile stands beside the anchor.
    #[inline]
    fn is_goal(&self, raw: u64) -> bool {
        self.goal_cells.iter().any(|&c| nibble(raw, c) == self.formation.goal)
    }

    /// The state index of `raw`'s free cells; `None` when a free tile is
    /// larger than the goal.
    #[inline]
    fn index(&self, raw: u64) -> Option<u32> {
        let mut idx = 0u32;
        for &cell in self.free.iter().rev() {
            let e = nibble(raw, cell);
            if e > self.formation.goal {
                return None;
            }
            idx = idx * (u32::from(self.formation.goal) + 1) + u32::from(e);
        }
        Some(idx)
    }

    /// The odds after moving `raw` (a canonical board) to `after`: `None`
    /// when the move changes nothing, moves the chain or makes a tile past
    /// the goal; 1 when it reaches the goal; else the spawn's expectation of
    /// the states' odds, `odds(index)`.
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

/// One formation's odds, state by state, in steps of 1/65535.
pub struct Table {
    geometry: Geometry,
    odds: Box<[u16]>,
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
    /// `progress` hears the states done so far, now and then.
    pub fn build(formation: Formation, progress: &(dyn Fn(u64) + Sync)) -> Table {
        let geometry = Geometry::new(formation);
        let odds = build::solve(&geometry, progress);
        Table { geometry, odds }
    }

    /// The formation.
    pub fn formation(&self) -> Formation {
        self.geometry.formation
    }

    /// The table's bytes in memory and on disk (without the file's header).
    pub fn bytes(&self) -> usize {
        self.odds.len() * 2
    }

    #[inline]
    fn odds_at(&self, idx: usize) -> f32 {
        f32::from(self.odds[idx]) / ONE
    }

    /// The odds of each direction on `raw`, whose chain is this formation's
    /// (any tiles of the right length and anchor), in [`Direction::ALL`]
    /// order; `None` when the free cells are not a state of the table or
    /// already hold the goal.
    fn odds_of_moves(&self, raw: u64) -> Option<[Option<f32>; 4]> {
        let g = &self.geometry;
        let raw = g.canonical(raw);
        g.index(raw)?;
        if g.is_goal(raw) {
            return None;
        }
        let afters = Board::from_raw(raw).slide_each_unscored();
        Some(afters.map(|after| g.after_odds(raw, after.raw(), |i| self.odds_at(i))))
    }

    /// The odds of the state `raw` (a board whose chain is this
    /// formation's) before its move; `None` when it is not a state of the
    /// table.
    pub fn odds(&self, board: Board) -> Option<f64> {
        let g = &self.geometry;
        let raw = g.canonical(board.raw());
        let idx = g.index(raw)?;
        Some(f64::from(self.odds_at(idx as usize)))
    }
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

    fn table(&self, formation: Formation) -> Option<&Table> {
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
    /// board needs, and following them lost games (docs/endgame.md).
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
                let mut values = [None; 4];
                let mut pick: Option<(Direction, f32)> = None;
                for d in Direction::ALL {
                    let v = odds[turned(s, d).index()];
                    values[d.index()] = v.map(f64::from);
                    if let Some(v) = v
                        && pick.is_none_or(|(_, p)| v > p)
                    {
                        pick = Some((d, v));
                    }
                }
                if let Some((direction, p)) = pick
                    && best.is_none_or(|b| f64::from(p) > b.odds)
                {
                    best = Some(Advice {
                        direction,
                        odds: f64::from(p),
                        values,
                        formation: table.formation(),
                    });
                }
                break;
            }
        }
        best
    }
}

#[cfg(test)]
mod tests;
